package lint

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// redundancyRules registers the rules of this file (from loadRules).
func redundancyRules() {
	addRules(
		&Rule{ID: "redundant-keyword", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "A keyword set to a value that constrains nothing",
			Explanation: "properties: {}, required: [], minLength: 0, uniqueItems: false, items: true, then: {}, " +
				"not: false, multipleOf: 1 for integers, propertyNames: {\"type\": \"string\"}, and their like never " +
				"reject anything. They can go. In 2019-09 and later, keywords whose annotations " +
				"unevaluatedProperties or unevaluatedItems read (items: true, unevaluatedProperties: true, ...) are " +
				"reported without a fix, since removing them could change what those keywords see.",
			Bad:  `{"type": "object", "properties": {}, "required": []}`,
			Good: `{"type": "object"}`,
			Peer: []string{"content_schema_default", "dependencies_default", "dependent_required_default",
				"items_array_default", "items_schema_default", "pattern_properties_default", "properties_default",
				"property_names_default", "property_names_type_default", "unevaluated_items_default",
				"unevaluated_properties_default", "then_empty", "else_empty", "not_false", "multiple_of_default",
				"exclusive_bounds_false_drop"},
			node: checkRedundantKeyword},
		&Rule{ID: "const-in-enum", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary:     "enum beside a const that is one of its values adds nothing",
			Explanation: "When const is among the enum values, const alone already decides; the enum can go.",
			Bad:         `{"const": "red", "enum": ["red", "green"]}`,
			Good:        `{"const": "red"}`,
			Peer:        []string{"const_in_enum"},
			node:        checkConstInEnum},
		&Rule{ID: "enum-with-type", Category: Redundancy, Severity: diag.Info, OptIn: true, Fixable: true,
			Summary: "type beside enum or const adds nothing when every value already has that type",
			Explanation: "enum and const fix the exact values, and so their types; a type that all of them satisfy " +
				"never rejects anything more. Opt-in: many authors keep type for editors and code generators.",
			Bad:  `{"type": "string", "enum": ["red", "green"]}`,
			Good: `{"enum": ["red", "green"]}`,
			Peer: []string{"enum_with_type", "const_with_type"},
			node: checkEnumWithType},
		&Rule{ID: "duplicate-enum-values", Category: Redundancy, Severity: diag.Warning, Fixable: true,
			Summary: "enum lists a value twice",
			Explanation: "A repeated enum value adds nothing (and in draft 4 makes the schema invalid); it is often " +
				"a copy-paste slip where another value was meant. Values compare as JSON: 1 and 1.0 are equal.",
			Bad:  `{"enum": ["a", "b", "a"]}`,
			Good: `{"enum": ["a", "b"]}`,
			Peer: []string{"duplicate_enum_values"},
			node: checkDuplicateEnum},
		&Rule{ID: "duplicate-required", Category: Redundancy, Severity: diag.Warning, Fixable: true,
			Summary: "required lists a property twice",
			Explanation: "A repeated name adds nothing (and is invalid in drafts 4 to 7, whose meta-schemas want " +
				"unique names).",
			Bad:  `{"type": "object", "required": ["id", "name", "id"]}`,
			Good: `{"type": "object", "required": ["id", "name"]}`,
			Peer: []string{"duplicate_required_values"},
			node: checkDuplicateRequired},
		&Rule{ID: "duplicate-examples", Category: Documentation, Severity: diag.Info, Fixable: true,
			Summary: "examples lists a value twice",
			Explanation: "A repeated example shows the reader nothing new and makes generated documentation " +
				"longer; it is often a copy-paste slip where another example was meant.",
			Bad:  `{"type": "string", "examples": ["a", "a"]}`,
			Good: `{"type": "string", "examples": ["a"]}`,
			Peer: []string{"duplicate_examples"},
			node: checkDuplicateExamples},
		&Rule{ID: "duplicate-branches", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "allOf or anyOf lists the same subschema twice",
			Explanation: "A repeated branch is evaluated twice and changes nothing. (In oneOf it is an error: see " +
				"duplicate-oneof-branches.)",
			Bad:  `{"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "string"}]}`,
			Good: `{"anyOf": [{"type": "string"}, {"type": "null"}]}`,
			Peer: []string{"duplicate_allof_branches", "duplicate_anyof_branches"},
			node: checkDuplicateBranches},
		&Rule{ID: "trivial-branch", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "An allOf branch that accepts everything, or an anyOf/oneOf branch that accepts nothing",
			Explanation: "allOf passes a branch of true or {} without looking; anyOf and oneOf can never pick a branch " +
				"of false. Such branches can go.",
			Bad:  `{"allOf": [{"type": "string"}, {}]}`,
			Good: `{"allOf": [{"type": "string"}]}`,
			Peer: []string{"drop_allof_empty_schemas", "anyof_remove_false_schemas"},
			node: checkTrivialBranch},
		&Rule{ID: "anyof-always-true", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "anyOf has a branch that accepts everything, so anyOf always passes",
			Explanation: "One branch of true or {} matches every instance, so the other branches never matter. " +
				"Often the branch was meant to hold something.",
			Bad:  `{"anyOf": [{"type": "string"}, {}]}`,
			Good: `{"anyOf": [{"type": "string"}, {"type": "null"}]}`,
			Peer: []string{"anyof_true_simplify"},
			node: checkAnyOfAlwaysTrue},
		&Rule{ID: "flatten-nested", Category: Style, Severity: diag.Info, Fixable: true,
			Summary:     "An allOf (anyOf) branch that is only another allOf (anyOf) can be flattened",
			Explanation: "allOf: [A, {allOf: [B, C]}] says the same as allOf: [A, B, C], and likewise for anyOf.",
			Bad:         `{"allOf": [{"type": "object"}, {"allOf": [{"required": ["a"]}, {"required": ["b"]}]}]}`,
			Good:        `{"allOf": [{"type": "object"}, {"required": ["a"]}, {"required": ["b"]}]}`,
			Peer:        []string{"flatten_nested_allof", "flatten_nested_anyof"},
			node:        checkFlattenNested},
		&Rule{ID: "double-negation", Category: Style, Severity: diag.Info, Fixable: true,
			Summary: "not of a not is the schema itself",
			Explanation: "{\"not\": {\"not\": S}} accepts what S accepts. Write S. A run of nested nots is reported once, " +
				"at its outermost not: an even run accepts what S accepts, an odd run what {\"not\": S} does. (Fixed in " +
				"drafts 4 to 7 only: from 2019-09 on, not also drops S's annotations, which unevaluated* may read.)",
			Bad:  `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"not": {"not": {"type": "string"}}}}}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"type": "string"}}}`,
			Peer: []string{"double_negation_elimination"},
			node: checkDoubleNegation},
		&Rule{ID: "unnecessary-allof-wrapper", Category: Style, Severity: diag.Info, Fixable: true,
			Summary: "allOf holds nothing but one $ref, which could stand on its own",
			Explanation: "Wrapping $ref in allOf is needed in drafts 4 to 7 only when the schema has other keywords " +
				"(which $ref would make ignored), and never from 2019-09 on, where $ref has siblings like any keyword.",
			Bad:  `{"properties": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$defs": {"a": {"type": "string"}}}`,
			Good: `{"properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "string"}}}`,
			Peer: []string{"unnecessary_allof_ref_wrapper_draft", "unnecessary_allof_ref_wrapper_modern"},
			node: checkAllOfRefWrapper},
		&Rule{ID: "merge-allof", Category: Style, Severity: diag.Info, OptIn: true,
			Summary: "An allOf with one branch whose keywords could sit in the parent",
			Explanation: "When allOf has a single branch whose keywords the parent does not have, the branch can be " +
				"merged into the parent, which reads more simply.",
			Bad:  `{"type": "object", "allOf": [{"required": ["a"]}]}`,
			Good: `{"type": "object", "required": ["a"]}`,
			Peer: []string{"unnecessary_allof_wrapper"},
			node: checkMergeAllOf},
		&Rule{ID: "oneof-to-anyof", Category: Style, Severity: diag.Info, OptIn: true, Fixable: true,
			Summary: "oneOf whose branches have disjoint types can be anyOf",
			Explanation: "When no two branches accept a value of the same type, at most one can match, and anyOf " +
				"says the same more cheaply (a validator may stop at the first match).",
			Bad:  `{"oneOf": [{"type": "string"}, {"type": "integer"}]}`,
			Good: `{"anyOf": [{"type": "string"}, {"type": "integer"}]}`,
			Peer: []string{"oneof_to_anyof_disjoint_types"},
			node: checkOneOfToAnyOf},
		&Rule{ID: "dynamic-ref-to-static", Category: Style, Severity: diag.Info, Fixable: true,
			Summary: "A dynamic reference whose target can never change is a plain $ref",
			Explanation: "$dynamicRef (or $recursiveRef) behaves like $ref unless its initial target declares a " +
				"matching $dynamicAnchor (or $recursiveAnchor). When it does not, $ref says the same plainly.",
			Bad:  `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$anchor": "a", "type": "string"}}, "$dynamicRef": "#a"}`,
			Good: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$anchor": "a", "type": "string"}}, "$ref": "#a"}`,
			Peer: []string{"dynamic_ref_to_static_ref"},
			node: checkDynamicRefToStatic},
		&Rule{ID: "redundant-bound", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "A bound that other keywords already imply",
			Explanation: "maxContains at or above maxItems, minProperties at or below the number of required " +
				"properties, or an inclusive bound beside a stricter exclusive one (or the reverse) never rejects " +
				"anything the other keywords accept.",
			Bad:  `{"type": "object", "required": ["a", "b"], "minProperties": 1}`,
			Good: `{"type": "object", "required": ["a", "b"]}`,
			Peer: []string{"unsatisfiable_max_contains", "unsatisfiable_min_properties",
				"exclusive_maximum_number_and_maximum", "exclusive_minimum_number_and_minimum"},
			node: checkRedundantBound},
		&Rule{ID: "dependency-tautology", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "A dependency on a property that is already required",
			Explanation: "When a property is required, a dependency triggered by it always applies: its names can " +
				"simply be required too.",
			Bad:  `{"type": "object", "required": ["card"], "dependentRequired": {"card": ["billing"]}}`,
			Good: `{"type": "object", "required": ["card", "billing"]}`,
			Peer: []string{"dependencies_property_tautology", "dependent_required_tautology"},
			node: checkDependencyTautology},
		&Rule{ID: "integer-real-bound", Category: Style, Severity: diag.Info, Fixable: true,
			Summary: "A fractional bound on integers can be the nearest integer",
			Explanation: "For integers, minimum 1.5 means minimum 2 and maximum 9.9 means maximum 9. The integer " +
				"says so without making the reader work it out.",
			Bad:  `{"type": "integer", "minimum": 1.5}`,
			Good: `{"type": "integer", "minimum": 2}`,
			Peer: []string{"minimum_real_for_integer", "maximum_real_for_integer"},
			node: checkIntegerRealBound},
		&Rule{ID: "equal-numeric-bounds", Category: Style, Severity: diag.Info, Fixable: true,
			Summary:     "minimum equal to maximum allows one number: say it with const",
			Explanation: "For numbers, minimum and maximum at the same value leave only that value.",
			Bad:         `{"type": "integer", "minimum": 3, "maximum": 3}`,
			Good:        `{"type": "integer", "const": 3}`,
			Peer:        []string{"equal_numeric_bounds_to_const", "equal_numeric_bounds_to_enum"},
			node:        checkEqualNumericBounds},
		&Rule{ID: "single-type-array", Category: Style, Severity: diag.Info, Fixable: true,
			Summary:     "type as an array of one type",
			Explanation: "type: [\"string\"] says the same as type: \"string\".",
			Bad:         `{"type": ["string"]}`,
			Good:        `{"type": "string"}`,
			Peer:        []string{"single_type_array"},
			node:        checkSingleTypeArray},
		&Rule{ID: "enum-to-const", Category: Style, Severity: diag.Info, Fixable: true,
			Summary:     "An enum of one value is a const",
			Explanation: "From draft 6 on, const says \"exactly this value\" directly.",
			Bad:         `{"enum": ["fixed"]}`,
			Good:        `{"const": "fixed"}`,
			Peer:        []string{"enum_to_const"},
			node:        checkEnumToConst},
		&Rule{ID: "empty-schema-as-true", Category: Style, Severity: diag.Info, OptIn: true, Fixable: true,
			Summary:     "The empty schema {} is the boolean schema true",
			Explanation: "From draft 6 on, true says \"anything\" explicitly.",
			Bad:         `{"properties": {"extra": {}}}`,
			Good:        `{"properties": {"extra": true}}`,
			Peer:        []string{"empty_object_as_true"},
			node:        checkEmptySchemaAsTrue},
		&Rule{ID: "required-not-in-properties", Category: Documentation, Severity: diag.Info,
			Summary: "A required property that no properties keyword describes",
			Explanation: "Required names are easier to understand, and to check for typos, when the property is " +
				"also described. Properties declared in allOf/anyOf/oneOf branches, by references, by the parent " +
				"of an in-place branch, or matched by patternProperties count.",
			Bad:  `{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["nmae"]}`,
			Good: `{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`,
			Peer: []string{"required_properties_in_properties"},
			node: checkRequiredNotInProperties},
	)
}

// trivialKeyword says why a keyword constrains nothing, and whether removing it is safe.
func trivialKeyword(n *node, k string, v source.Value) (why string, fixable bool) {
	a := trivialArgs{n: n, k: k, v: v, version: n.draft.Version}
	if check, ok := trivialChecks()[k]; ok {
		return check(a)
	}
	e, ok := n.draft.Keyword(k)
	switch {
	case !ok:
	case e.Kind == schema.Applicator && (e.Shape == schema.SchemaMap || e.Shape == schema.DepsMap) && a.emptyObject():
		return k + ": {} declares nothing", true
	case e.Default != "" && isDefault(v, e.Default):
		return k + ": " + e.Default + " is the default", true
	}
	return "", false
}

// isDefault reports a value equal to a keyword's default (schema.Keyword.Default, JSON
// text): numbers by their values.
func isDefault(v source.Value, def string) bool {
	d, err := source.ParseJSON("default", []byte(def), nil)
	if err != nil {
		return false
	}
	if v.Kind() == source.Number && d.Root.Kind() == source.Number {
		return v.Num().Cmp(d.Root.Num()) == 0
	}
	return source.Equal(v, d.Root)
}

// trivialArgs is what a trivial-keyword check reads: the schema object, the keyword and
// its value, and the schema's draft.
type trivialArgs struct {
	n       *node
	k       string
	v       source.Value
	version int
}

func (a trivialArgs) emptyObject() bool { return a.v.Kind() == source.Object && a.v.Len() == 0 }
func (a trivialArgs) emptyArray() bool  { return a.v.Kind() == source.Array && a.v.Len() == 0 }
func (a trivialArgs) isFalse() bool     { return a.v.Kind() == source.Bool && !a.v.Bool() }

// trueish reports a schema that accepts everything: true or {}.
func (a trivialArgs) trueish() bool { return isEmptySchema(a.v) }

// annotated reports a draft whose unevaluated* keywords may read the annotations a
// keyword leaves, so that removing the keyword is not safe.
func (a trivialArgs) annotated() bool { return a.version >= 2019 }

// isOne reports the number 1.
func (a trivialArgs) isOne() bool {
	r, ok := rat(a.v)
	return ok && r.Cmp(big.NewRat(1, 1)) == 0
}

// trivialCheck says why a keyword constrains nothing and whether removing it is safe,
// or returns "".
type trivialCheck func(a trivialArgs) (why string, fixable bool)

// trivialChecks holds a check per keyword that can constrain nothing in a way of its own.
// The others are the model's: an applicator's map of subschemas that is empty, and a
// keyword written with its default (schema.Keyword.Default).
var trivialChecks = sync.OnceValue(func() map[string]trivialCheck {
	return map[string]trivialCheck{
		"dependentRequired":     declaresNothingFrom(2019),
		"required":              trivialRequired,
		"items":                 trivialItems,
		"prefixItems":           trivialPrefixItems,
		"additionalItems":       trivialAdditionalItems,
		"unevaluatedItems":      trivialUnevaluated,
		"unevaluatedProperties": trivialUnevaluated,
		"contentSchema":         trivialContentSchema,
		"propertyNames":         trivialPropertyNames,
		"then":                  trivialThenElse,
		"else":                  trivialThenElse,
		"not":                   trivialNot,
		"multipleOf":            trivialMultipleOf,
		"minContains":           trivialMinContains,
	}
})

// declaresNothingFrom is the check of a keyword whose empty object declares nothing, in
// the drafts from version from on.
func declaresNothingFrom(from int) trivialCheck {
	return func(a trivialArgs) (string, bool) {
		if a.emptyObject() && a.version >= from {
			return a.k + ": {} declares nothing", true
		}
		return "", false
	}
}

func trivialRequired(a trivialArgs) (string, bool) {
	if a.emptyArray() && a.version >= 6 {
		return "required: [] requires nothing", true
	}
	return "", false
}

// trivialItems: items: [] up to 2019-09 (unless additionalItems then applies to every
// item), or a schema that accepts every item.
func trivialItems(a trivialArgs) (string, bool) {
	if a.emptyArray() && a.version <= 2019 {
		if a.n.has("additionalItems") {
			return "", false // additionalItems then applies to every item
		}
		return "items: [] describes no item", a.version <= 7
	}
	if a.trueish() && a.v.Kind() != source.Array {
		return "items: " + short(a.v) + " accepts every item", !a.annotated()
	}
	return "", false
}

func trivialPrefixItems(a trivialArgs) (string, bool) {
	if a.emptyArray() && a.version >= 2020 {
		return "prefixItems: [] describes no item", false
	}
	return "", false
}

func trivialAdditionalItems(a trivialArgs) (string, bool) {
	if a.trueish() && a.version <= 2019 {
		return "additionalItems: " + short(a.v) + " accepts every item", !a.annotated()
	}
	return "", false
}

func trivialUnevaluated(a trivialArgs) (string, bool) {
	if a.trueish() && a.version >= 2019 {
		return a.k + ": " + short(a.v) + " accepts everything", false
	}
	return "", false
}

func trivialContentSchema(a trivialArgs) (string, bool) {
	if a.trueish() && a.version >= 2019 {
		return "contentSchema: " + short(a.v) + " describes nothing", true
	}
	return "", false
}

// trivialPropertyNames: a schema that accepts everything, or only {"type": "string"}.
func trivialPropertyNames(a trivialArgs) (string, bool) {
	if a.version >= 6 && (a.trueish() || a.v.Kind() == source.Object && a.v.Len() == 1 && isStringType(a.v)) {
		return "propertyNames: " + short(a.v) + " accepts every name (names are always strings)", true
	}
	return "", false
}

func trivialThenElse(a trivialArgs) (string, bool) {
	if a.trueish() && a.version >= 7 && a.n.has("if") {
		return a.k + ": " + short(a.v) + " accepts everything", true
	}
	return "", false
}

func trivialNot(a trivialArgs) (string, bool) {
	if a.isFalse() {
		return "not: false accepts everything", true
	}
	return "", false
}

// trivialMultipleOf: multipleOf 1 where type admits only integers.
func trivialMultipleOf(a trivialArgs) (string, bool) {
	if a.isOne() {
		if t, ok := declaredTypes(a.n); ok && t&schema.TypeFraction == 0 {
			return "multipleOf: 1 constrains nothing when type admits only integers", true
		}
	}
	return "", false
}

func trivialMinContains(a trivialArgs) (string, bool) {
	if a.version >= 2019 && a.n.has("contains") && a.isOne() {
		return "minContains: 1 is the default", true
	}
	return "", false
}

func isStringType(v source.Value) bool {
	t, ok := v.Get("type")
	return ok && t.Kind() == source.String && t.Str() == "string"
}

func checkRedundantKeyword(c *checker, n *node) {
	if !live(n) {
		return
	}
	for i := 0; i < n.val.Len(); i++ {
		k, v := n.val.Member(i)
		if !n.draft.Defines(k.Str()) {
			continue
		}
		why, fixable := trivialKeyword(n, k.Str(), v)
		if why == "" {
			continue
		}
		var fx *Fix
		if fixable {
			fx = fix("remove "+k.Str(), removeOp(n.at(k.Str())))
		}
		c.report(n, "/"+source.EscapeToken(k.Str()), why, fx)
	}
}

func checkConstInEnum(c *checker, n *node) {
	if !live(n) || n.draft.Version < 6 {
		return
	}
	cv, ok1 := n.get("const")
	ev, ok2 := n.get("enum")
	if !ok1 || !ok2 || ev.Kind() != source.Array {
		return
	}
	for _, e := range ev.Items() {
		if source.Equal(e, cv) {
			c.report(n, "/enum", fmt.Sprintf("const %s is one of the enum values: enum adds nothing", short(cv)), fix("remove enum", removeOp(n.at("enum"))))
			return
		}
	}
}

func checkEnumWithType(c *checker, n *node) {
	if !live(n) {
		return
	}
	t, ok := declaredTypes(n)
	if !ok {
		return
	}
	var vals []source.Value
	kw := "enum"
	if ev, ok := n.get("enum"); ok && ev.Kind() == source.Array && ev.Len() > 0 {
		vals = ev.Items()
	} else if cv, ok := n.get("const"); ok && n.draft.Version >= 6 {
		vals, kw = []source.Value{cv}, "const"
	} else {
		return
	}
	for _, v := range vals {
		if schema.TypeOf(v)&t == 0 {
			return
		}
	}
	c.report(n, "/type", fmt.Sprintf("every %s value is %s already: type adds nothing", kw, aType(t.String())), fix("remove type", removeOp(n.at("type"))))
}

func reportDuplicates(c *checker, n *node, kw, what string) {
	v, ok := n.get(kw)
	if !ok || v.Kind() != source.Array {
		return
	}
	for _, i := range duplicates(v.Items()) {
		p := n.at(kw, strconv.Itoa(i))
		c.report(n, "/"+kw+"/"+strconv.Itoa(i), fmt.Sprintf("%s %s is listed twice in %s", what, short(v.Index(i)), kw),
			fix("remove the repeated value", removeOp(p)))
	}
}

func checkDuplicateEnum(c *checker, n *node) {
	if live(n) {
		reportDuplicates(c, n, "enum", "value")
	}
}

func checkDuplicateRequired(c *checker, n *node) {
	if live(n) {
		reportDuplicates(c, n, "required", "property")
	}
}

func checkDuplicateExamples(c *checker, n *node) {
	if n.isObject() {
		reportDuplicates(c, n, "examples", "example")
	}
}

func checkDuplicateBranches(c *checker, n *node) {
	if !live(n) {
		return
	}
	for _, kw := range []string{"allOf", "anyOf"} {
		v, ok := n.get(kw)
		if !ok || v.Kind() != source.Array {
			continue
		}
		for _, i := range duplicates(v.Items()) {
			c.report(n, "/"+kw+"/"+strconv.Itoa(i), fmt.Sprintf("this %s branch equals an earlier one", kw),
				fix("remove the repeated branch", removeOp(n.at(kw, strconv.Itoa(i)))))
		}
	}
}

func checkTrivialBranch(c *checker, n *node) {
	if !live(n) {
		return
	}
	if v, ok := n.get("allOf"); ok && v.Kind() == source.Array && v.Len() > 0 {
		var trivial []int
		for i, b := range v.Items() {
			if isEmptySchema(b) {
				trivial = append(trivial, i)
			}
		}
		if len(trivial) == v.Len() {
			c.report(n, "/allOf", "every allOf branch accepts everything: allOf adds nothing", fix("remove allOf", removeOp(n.at("allOf"))))
		} else {
			for _, i := range trivial {
				c.report(n, "/allOf/"+strconv.Itoa(i), "this allOf branch accepts everything",
					fix("remove the branch", removeOp(n.at("allOf", strconv.Itoa(i)))))
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		v, ok := n.get(kw)
		if !ok || v.Kind() != source.Array {
			continue
		}
		var dead []int
		for i, b := range v.Items() {
			if isFalseSchema(b, n.draft) {
				dead = append(dead, i)
			}
		}
		if len(dead) == v.Len() {
			continue // unsatisfiable-anyof
		}
		for _, i := range dead {
			c.report(n, "/"+kw+"/"+strconv.Itoa(i), fmt.Sprintf("this %s branch accepts nothing, so it can never be the one that matches", kw),
				fix("remove the branch", removeOp(n.at(kw, strconv.Itoa(i)))))
		}
	}
}

func checkAnyOfAlwaysTrue(c *checker, n *node) {
	if !live(n) {
		return
	}
	v, ok := n.get("anyOf")
	if !ok || v.Kind() != source.Array {
		return
	}
	for i, b := range v.Items() {
		if isEmptySchema(b) {
			var fx *Fix
			if n.draft.Version <= 7 {
				fx = fix("remove anyOf", removeOp(n.at("anyOf")))
			}
			c.report(n, "/anyOf/"+strconv.Itoa(i), "this anyOf branch accepts everything, so anyOf always passes", fx)
			return
		}
	}
}

func checkFlattenNested(c *checker, n *node) {
	if !live(n) {
		return
	}
	for _, kw := range []string{"allOf", "anyOf"} {
		v, ok := n.get(kw)
		if !ok || v.Kind() != source.Array {
			continue
		}
		var flat []source.Value
		nested := -1
		for i, b := range v.Items() {
			if inner, ok := b.Get(kw); ok && b.Kind() == source.Object && b.Len() == 1 && inner.Kind() == source.Array && inner.Len() > 0 {
				if nested < 0 {
					nested = i
				}
				flat = append(flat, inner.Items()...)
				continue
			}
			flat = append(flat, b)
		}
		if nested >= 0 {
			c.report(n, "/"+kw+"/"+strconv.Itoa(nested), fmt.Sprintf("this %s branch only holds another %s, which can be merged into this one", kw, kw),
				fix("flatten "+kw, replaceOp(n.at(kw), source.ArrayValue(flat...))))
		}
	}
}

// checkDoubleNegation reports a run of directly nested nots once, at its outermost not:
// {"not": {"not": ... S}} with k nots, each inner one the only keyword of its schema,
// accepts what S accepts when k is even and what {"not": S} accepts when k is odd. One
// finding per run, not per pair, keeps a long run one line (and one Finding).
func checkDoubleNegation(c *checker, n *node) {
	if !live(n) || n.parent != nil && n.kw == "not" && isNotOnly(n.val) {
		return // inside a run: its outermost not reports it
	}
	v, ok := n.get("not")
	if !ok || !isNotOnly(v) {
		return
	}
	// v holds the second not; last, the innermost {"not": S}; k counts the nots.
	k, last := 2, v
	inner, _ := v.Get("not")
	for isNotOnly(inner) {
		k++
		last = inner
		inner, _ = inner.Get("not")
	}
	msg := fmt.Sprintf("%d nested nots accept what the schema inside them accepts", k)
	if k%2 == 1 {
		msg = fmt.Sprintf("%d nested nots accept what one not of the schema inside them accepts", k)
	}
	var fx *Fix
	if n.draft.Version <= 7 {
		switch {
		case k%2 == 1:
			fx = fix(fmt.Sprintf("reduce the %d nots to one", k), replaceOp(n.at("not"), inner))
		case n.val.Len() == 1 && n.parent != nil:
			fx = fix(fmt.Sprintf("replace the %d nots by the schema they negate", k), replaceOp(n.ptr, inner))
		case k > 2:
			// The schema has other keywords (or is the document): keep its not, over one more.
			fx = fix(fmt.Sprintf("reduce the %d nots to two", k), replaceOp(n.at("not"), last))
		}
	}
	c.report(n, "/not", msg, fx)
}

// isNotOnly reports a schema object whose only keyword is not.
func isNotOnly(v source.Value) bool {
	return v.Kind() == source.Object && v.Len() == 1 && v.Has("not")
}

func checkAllOfRefWrapper(c *checker, n *node) {
	if !live(n) {
		return
	}
	v, ok := n.get("allOf")
	if !ok || v.Kind() != source.Array || v.Len() != 1 {
		return
	}
	b := v.Index(0)
	rv, ok := b.Get("$ref")
	if b.Kind() != source.Object || b.Len() != 1 || !ok {
		return
	}
	if n.draft.Version <= 7 {
		for i := 0; i < n.val.Len(); i++ {
			k := n.val.Key(i)
			if k != "allOf" && n.draft.Defines(k) && !isAnnotation(k) && k != "$schema" && k != "definitions" {
				return // the wrapper keeps those keywords alive
			}
			if k == "$id" || k == "id" || k == "definitions" {
				return // $ref would make them ignored
			}
		}
	} else if n.has("$ref") {
		return
	}
	c.report(n, "/allOf", "allOf wraps a single $ref, which can stand on its own here",
		fix("replace allOf by its $ref", removeOp(n.at("allOf")), PatchOp{Op: "add", Path: n.at("$ref"), Value: source.AppendJSON(nil, rv)}))
}

func checkMergeAllOf(c *checker, n *node) {
	if !live(n) {
		return
	}
	v, ok := n.get("allOf")
	if !ok || v.Kind() != source.Array || v.Len() != 1 || v.Index(0).Kind() != source.Object {
		return
	}
	b := v.Index(0)
	for i := 0; i < b.Len(); i++ {
		k := b.Key(i)
		if n.has(k) || k == "$ref" || k == "$id" || k == "id" || k == "$schema" || strings.HasPrefix(k, "$") {
			return
		}
	}
	c.report(n, "/allOf", "this allOf has one branch whose keywords could sit in this schema directly", nil)
}

func checkOneOfToAnyOf(c *checker, n *node) {
	if !live(n) || n.has("anyOf") {
		return
	}
	v, ok := n.get("oneOf")
	if !ok || v.Kind() != source.Array || v.Len() < 2 {
		return
	}
	var seen schema.TypeSet
	for i := range v.Items() {
		b := c.f.byPtr[n.at("oneOf", strconv.Itoa(i))]
		if b == nil || !live(b) {
			return
		}
		t, ok := declaredTypes(b)
		if !ok || t&seen != 0 {
			return
		}
		seen |= t
	}
	c.report(n, "/oneOf", "the oneOf branches accept disjoint types, so at most one can match: anyOf says the same",
		fix("rename oneOf to anyOf", moveOp(n.at("oneOf"), n.at("anyOf"))))
}

func checkDynamicRefToStatic(c *checker, n *node) {
	if !n.isObject() || n.draft.Version < 2019 {
		return
	}
	kw := "$dynamicRef"
	if n.draft.Version == 2019 {
		kw = "$recursiveRef"
	}
	if !n.has(kw) {
		return
	}
	s := c.f.schemaAt(n.ptr)
	if s == nil {
		return
	}
	target, dynamic := s.DynamicRef()
	if target == nil || dynamic {
		return
	}
	var fx *Fix
	if !n.has("$ref") {
		fx = fix("rename "+kw+" to $ref", moveOp(n.at(kw), n.at("$ref")))
	}
	c.report(n, "/"+kw, fmt.Sprintf("the target of this %s declares no matching dynamic anchor, so it always resolves the same way: use $ref", kw), fx)
}

func checkRedundantBound(c *checker, n *node) {
	if !live(n) {
		return
	}
	num := func(kw string) (*big.Rat, bool) {
		v, ok := n.get(kw)
		if !ok {
			return nil, false
		}
		return rat(v)
	}
	if n.draft.Version >= 2019 && n.has("contains") {
		if mc, ok := num("maxContains"); ok {
			if mi, ok := num("maxItems"); ok && mc.Cmp(mi) >= 0 {
				c.report(n, "/maxContains", fmt.Sprintf("maxContains %s is not below maxItems %s, so it never rejects anything", mc.RatString(), mi.RatString()),
					fix("remove maxContains", removeOp(n.at("maxContains"))))
			}
		}
	}
	if mp, ok := num("minProperties"); ok {
		if rv, ok := n.get("required"); ok && rv.Kind() == source.Array {
			distinct := rv.Len() - len(duplicates(rv.Items()))
			if mp.Cmp(big.NewRat(int64(distinct), 1)) <= 0 && distinct > 0 {
				c.report(n, "/minProperties", fmt.Sprintf("minProperties %s is implied by the %d required properties", mp.RatString(), distinct),
					fix("remove minProperties", removeOp(n.at("minProperties"))))
			}
		}
	}
	if n.draft.Version >= 6 {
		for _, p := range [][3]string{{"minimum", "exclusiveMinimum", "low"}, {"maximum", "exclusiveMaximum", "high"}} {
			in, ok1 := num(p[0])
			ex, ok2 := num(p[1])
			if !ok1 || !ok2 {
				continue
			}
			cmp := ex.Cmp(in)
			if p[2] == "high" {
				cmp = -cmp
			}
			// low: exclusiveMinimum >= minimum makes minimum redundant, else the reverse.
			weaker := p[1]
			if cmp >= 0 {
				weaker = p[0]
			}
			c.report(n, "/"+weaker, fmt.Sprintf("%s and %s are both set; %s is implied by the other", p[0], p[1], weaker),
				fix("remove "+weaker, removeOp(n.at(weaker))))
		}
	}
}

func checkDependencyTautology(c *checker, n *node) {
	if !live(n) {
		return
	}
	rv, ok := n.get("required")
	if !ok || rv.Kind() != source.Array {
		return
	}
	req := map[string]bool{}
	for _, it := range rv.Items() {
		req[it.Str()] = true
	}
	fixed := false // a fix is offered for the first dependency found
	for _, kw := range []string{"dependentRequired", "dependencies"} {
		if kw == "dependentRequired" && n.draft.Version < 2019 {
			continue
		}
		dv, ok := n.get(kw)
		if !ok || dv.Kind() != source.Object {
			continue
		}
		for i := 0; i < dv.Len(); i++ {
			k, v := dv.Member(i)
			if !req[k.Str()] {
				continue
			}
			if v.Kind() != source.Array {
				c.report(n, "/"+kw+"/"+source.EscapeToken(k.Str()), fmt.Sprintf("%s is required, so this dependent schema always applies", quoted(k.Str())), nil)
				continue
			}
			msg := fmt.Sprintf("%s is required, so the properties it depends on are always required", quoted(k.Str()))
			if fixed {
				// each fix rewrites required whole, so one applies per round anyway: the
				// others are offered when the next round finds them (making them all was
				// quadratic: 25,000 such dependencies ran past a minute and 2 GB)
				c.report(n, "/"+kw+"/"+source.EscapeToken(k.Str()), msg, nil)
				continue
			}
			fixed = true
			merged := append([]source.Value(nil), rv.Items()...)
			for _, name := range v.Items() {
				if name.Kind() == source.String && !req[name.Str()] {
					merged = append(merged, name)
				}
			}
			c.report(n, "/"+kw+"/"+source.EscapeToken(k.Str()), msg,
				fix("require them directly", replaceOp(n.at("required"), source.ArrayValue(merged...)), removeOp(n.at(kw, k.Str()))))
		}
	}
}

func checkIntegerRealBound(c *checker, n *node) {
	if !live(n) {
		return
	}
	t, ok := declaredTypes(n)
	if !ok || t&schema.TypeInteger == 0 || t&schema.TypeFraction != 0 {
		return
	}
	excl := func(kw string) bool {
		v, ok := n.get(kw)
		return n.draft.Version == 4 && ok && v.Kind() == source.Bool && v.Bool()
	}
	for _, b := range []struct {
		kw   string
		up   bool // rounds up when inclusive
		excl bool
	}{
		{"minimum", true, excl("exclusiveMinimum")},
		{"maximum", false, excl("exclusiveMaximum")},
		{"exclusiveMinimum", true, true},
		{"exclusiveMaximum", false, true},
	} {
		v, ok := n.get(b.kw)
		r, ok2 := rat(v)
		if !ok || !ok2 || r.IsInt() {
			continue
		}
		// Inclusive lower bounds round up, inclusive upper bounds down; exclusive ones the
		// other way (x > 1.5 is x > 1 for integers).
		var nr *big.Rat
		if b.up != b.excl {
			nr = ceilRat(r)
		} else {
			nr = floorRat(r)
		}
		c.report(n, "/"+b.kw, fmt.Sprintf("for integers, %s %s means %s %s", b.kw, v.Str(), b.kw, ratText(nr)),
			fix("use the integer bound", replaceOp(n.at(b.kw), source.NumberValue(ratText(nr)))))
	}
}

func checkEqualNumericBounds(c *checker, n *node) {
	if !live(n) || n.has("const") || n.has("enum") {
		return
	}
	lo, ok1 := n.get("minimum")
	hi, ok2 := n.get("maximum")
	a, okA := rat(lo)
	b, okB := rat(hi)
	if !ok1 || !ok2 || !okA || !okB || a.Cmp(b) != 0 {
		return
	}
	if n.draft.Version == 4 && (n.has("exclusiveMinimum") || n.has("exclusiveMaximum")) {
		return
	}
	t, ok := declaredTypes(n)
	var fx *Fix
	if ok && t&^schema.TypeNumber == 0 && schema.TypeOf(lo)&t != 0 {
		kw, val := "const", lo
		if n.draft.Version == 4 {
			kw, val = "enum", source.ArrayValue(lo)
		}
		fx = fix("use "+kw, removeOp(n.at("minimum")), PatchOp{Op: "add", Path: n.at(kw), Value: source.AppendJSON(nil, val)},
			removeOp(n.at("maximum")))
	}
	c.report(n, "/minimum", fmt.Sprintf("minimum and maximum are both %s: only that number is valid", lo.Str()), fx)
}

func checkSingleTypeArray(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	tv, ok := n.get("type")
	if !ok || tv.Kind() != source.Array || tv.Len() != 1 || tv.Index(0).Kind() != source.String {
		return
	}
	c.report(n, "/type", fmt.Sprintf("type [%s] is type %s", quoted(tv.Index(0).Str()), quoted(tv.Index(0).Str())),
		fix("use the type itself", replaceOp(n.at("type"), tv.Index(0))))
}

func checkEnumToConst(c *checker, n *node) {
	if !live(n) || n.draft.Version < 6 || n.has("const") {
		return
	}
	ev, ok := n.get("enum")
	if !ok || ev.Kind() != source.Array || ev.Len() != 1 {
		return
	}
	c.report(n, "/enum", "an enum of one value is a const", fix("use const", removeOp(n.at("enum")),
		PatchOp{Op: "add", Path: n.at("const"), Value: source.AppendJSON(nil, ev.Index(0))}))
}

func checkEmptySchemaAsTrue(c *checker, n *node) {
	if n.draft.Version < 6 || n.val.Kind() != source.Object || n.val.Len() != 0 {
		return
	}
	c.report(n, "", "{} is the boolean schema true", fix("write true", replaceOp(n.ptr, source.BoolValue(true))))
}

func checkRequiredNotInProperties(c *checker, n *node) {
	if !live(n) {
		return
	}
	rv, ok := n.get("required")
	if !ok || rv.Kind() != source.Array || rv.Len() == 0 {
		return
	}
	declared := c.f.inPlaceProperties(n, 0, map[string]bool{})
	// The parents of an in-place branch describe its properties too (each parent's names
	// made once: the branches of an anyOf of n share them, n^2 otherwise).
	var parents []map[string]bool
	for p := n; p.parent != nil && (p.kw == "allOf" || p.kw == "anyOf" || p.kw == "oneOf" || p.kw == "then" || p.kw == "else" ||
		p.kw == "if" || p.kw == "not" || p.kw == "dependentSchemas" || p.kw == "dependencies"); p = p.parent {
		parents = append(parents, c.f.namesDescribedBy(p.parent))
	}
	for i, it := range rv.Items() {
		if it.Kind() != source.String {
			continue
		}
		if _, ok := declared[it.Str()]; ok {
			continue
		}
		if slices.ContainsFunc(parents, func(m map[string]bool) bool { return m[it.Str()] }) {
			continue
		}
		if _, _, has := allowsName(c.f, n, it.Str()); has || matchesPatternProperty(c.f, n, it.Str()) {
			continue
		}
		c.report(n, "/required/"+strconv.Itoa(i), fmt.Sprintf("required property %s is not described by any properties keyword", quoted(it.Str())), nil)
	}
}

// namesDescribedBy returns the property names p describes for its in-place branches: its
// own properties and those of its in-place subschemas, made once per node.
func (f *file) namesDescribedBy(p *node) map[string]bool {
	if m, ok := f.described[p]; ok {
		return m
	}
	m := map[string]bool{}
	if pv, ok := p.get("properties"); ok && pv.Kind() == source.Object {
		for i := 0; i < pv.Len(); i++ {
			m[pv.Key(i)] = true
		}
	}
	for name := range f.inPlaceProperties(p, 0, map[string]bool{}) {
		m[name] = true
	}
	if f.described == nil {
		f.described = map[*node]map[string]bool{}
	}
	f.described[p] = m
	return m
}

// matchesPatternProperty reports whether a name matches a patternProperties key of n.
func matchesPatternProperty(f *file, n *node, name string) bool {
	pp, ok := n.get("patternProperties")
	if !ok || pp.Kind() != source.Object {
		return false
	}
	for i := 0; i < pp.Len(); i++ {
		re, err := schema.CompileRegexp(pp.Key(i), time.Second)
		if err != nil {
			continue
		}
		if m, err := f.match(re, name); err == nil && m {
			return true
		}
	}
	return false
}
