package lint

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// correctnessRules registers the rules of this file (from loadRules).
func correctnessRules() {
	addRules(
		&Rule{ID: "invalid-schema", Category: Correctness, Severity: diag.Error,
			Summary: "The schema is not valid against its meta-schema, or cannot be compiled",
			Explanation: "Validators reject such a schema or, worse, each read it their own way. Every " +
				"violation of the dialect's meta-schema is reported where it occurs; problems that other " +
				"rules name more precisely (references, patterns, identifiers) are reported by those rules. A value " +
				"misspelt where the meta-schema allows a fixed set (a type name such as \"strng\", in every draft, " +
				"alone or in an array; any other enum of a meta-schema) is said as such, with the allowed value it " +
				"is nearest to (\"did you mean \"string\"?\"), instead of \"does not match any of the alternatives " +
				"of anyOf\"; so is a misspelt draft URI in $schema. A misspelt format name is unknown-format's.",
			Bad:  `{"type": "string", "minLength": -1}`,
			Good: `{"type": "string", "minLength": 1}`,
			file: checkInvalidSchema},
		&Rule{ID: "unknown-local-ref", Category: Correctness, Severity: diag.Error,
			Summary: "A reference into this document points to nothing",
			Explanation: "A $ref whose target is in the same document but does not exist (a JSON Pointer " +
				"to a missing location, an anchor nobody declares) makes every validator fail on the schema, " +
				"or on the first instance that reaches it. A fix never deletes such a reference: deleting it " +
				"would silently turn \"always fails\" into \"accepts anything\".",
			Bad:  `{"$ref": "#/$defs/adress", "$defs": {"address": {"type": "object"}}}`,
			Good: `{"$ref": "#/$defs/address", "$defs": {"address": {"type": "object"}}}`,
			Peer: []string{"unknown_local_ref"},
			node: checkUnknownLocalRef},
		&Rule{ID: "unresolved-ref", Category: Correctness, Severity: diag.Error,
			Summary: "A reference to another document cannot be resolved offline",
			Explanation: "jstk resolves references without the network: relative files, the $id of every " +
				"schema in the workspace, the resolve map of jstk.json (or --resolve) and the built-in " +
				"meta-schemas, the vendored SchemaStore and the cache that jstk.lock pins. A reference that none of " +
				"these covers cannot be checked and fails validation; map its URI to a local file, or, for an " +
				"http(s) URL, pin it with jstk fetch (the one command that downloads, run by hand).",
			Bad:  `{"$ref": "https://example.com/schemas/missing.json"}`,
			Good: `{"$ref": "#/$defs/local", "$defs": {"local": {"type": "string"}}}`,
			Peer: []string{"invalid_external_ref"},
			node: checkUnresolvedRef},
		&Rule{ID: "ref-loop", Category: Correctness, Severity: diag.Error,
			Summary: "References and allOf that lead back to themselves without reaching into the instance",
			Explanation: "A schema whose $ref (or allOf member) leads, through other references, back to " +
				"itself while still at the same place in the instance never finishes: the specification " +
				"leaves it undefined, jstk stops with an error, other validators overflow their stack. It " +
				"usually means a reference points one level too high. Only schemas that no instance reaches " +
				"escape the error, which is why it is a finding here and not a refusal to compile.",
			Bad:  `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}`,
			Good: `{"$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}`,
			file: checkRefLoop},
		&Rule{ID: "invalid-pattern", Category: Correctness, Severity: diag.Error,
			Summary: "A regular expression does not compile",
			Explanation: "pattern and the keys of patternProperties are ECMA-262 regular expressions. One " +
				"that does not compile makes the schema unusable.",
			Bad:  `{"type": "string", "pattern": "^[a-z+$"}`,
			Good: `{"type": "string", "pattern": "^[a-z]+$"}`,
			node: checkInvalidPattern},
		&Rule{ID: "impossible-bounds", Category: Correctness, Severity: diag.Error,
			Summary: "A lower bound is above its upper bound, so no value of that type is valid",
			Explanation: "minimum above maximum, minLength above maxLength, minItems above maxItems, " +
				"minProperties above maxProperties, minContains above maxContains, more required properties " +
				"than maxProperties allows, or integer bounds with no integer between them: every value of the " +
				"type the keywords constrain is rejected. Usually two values were swapped or mistyped.",
			Bad:  `{"type": "string", "minLength": 5, "maxLength": 2}`,
			Good: `{"type": "string", "minLength": 2, "maxLength": 5}`,
			Peer: []string{"incoherent_min_max_contains"},
			node: checkImpossibleBounds},
		&Rule{ID: "empty-enum", Category: Correctness, Severity: diag.Error,
			Summary: "An empty enum accepts nothing",
			Explanation: "An enum without values rejects every instance. To forbid a value on purpose, write " +
				"false (or {\"not\": {}} in draft 4), which says so.",
			Bad:  `{"properties": {"mode": {"enum": []}}}`,
			Good: `{"properties": {"mode": {"enum": ["fast", "slow"]}}}`,
			Peer: []string{"forbid_empty_enum"},
			node: checkEmptyEnum},
		&Rule{ID: "const-not-in-enum", Category: Correctness, Severity: diag.Error,
			Summary: "const is not among the enum values beside it, so nothing is valid",
			Explanation: "An instance must equal const and be one of enum at once; when const is not in the " +
				"enum, no instance can. Keep one of the two keywords.",
			Bad:  `{"const": "red", "enum": ["green", "blue"]}`,
			Good: `{"enum": ["green", "blue"]}`,
			Peer: []string{"const_not_in_enum"},
			node: checkConstNotInEnum},
		&Rule{ID: "type-conflict", Category: Correctness, Severity: diag.Error,
			Summary: "type cannot be satisfied together with const, enum or an allOf branch",
			Explanation: "When no const or enum value has one of the types that type allows, or when an allOf " +
				"branch requires types that share nothing with this schema's type, no instance is valid.",
			Bad:  `{"type": "string", "allOf": [{"type": "number", "minimum": 0}]}`,
			Good: `{"type": "string", "allOf": [{"minLength": 1}]}`,
			Peer: []string{"unsatisfiable_in_place_applicator_type"},
			node: checkTypeConflict},
		&Rule{ID: "unreachable-enum-value", Category: Correctness, Severity: diag.Warning,
			Summary: "An enum value has a type that type rejects",
			Explanation: "Such a value can never be valid: either type forgot a type, or the value has the wrong " +
				"type (a number written as a string, or the reverse).",
			Bad:  `{"type": "string", "enum": ["on", "off", 1]}`,
			Good: `{"type": "string", "enum": ["on", "off", "1"]}`,
			node: checkUnreachableEnum},
		&Rule{ID: "unsatisfiable-allof", Category: Correctness, Severity: diag.Error,
			Summary: "An allOf branch accepts nothing, so the whole schema accepts nothing",
			Explanation: "allOf requires every branch; a branch that is false (or an empty enum, or a not of " +
				"everything) makes the schema reject every instance.",
			Bad:  `{"allOf": [{"type": "string"}, false]}`,
			Good: `{"allOf": [{"type": "string"}]}`,
			Peer: []string{"allof_false_simplify"},
			node: checkUnsatisfiableAllOf},
		&Rule{ID: "unsatisfiable-anyof", Category: Correctness, Severity: diag.Error,
			Summary: "Every branch of anyOf or oneOf accepts nothing",
			Explanation: "anyOf and oneOf need a branch to match; when every branch is false, an empty enum or a " +
				"not of everything, nothing is valid.",
			Bad:  `{"anyOf": [false, {"not": {}}]}`,
			Good: `{"anyOf": [{"type": "string"}, {"type": "null"}]}`,
			Peer: []string{"anyof_false_simplify", "oneof_false_simplify"},
			node: checkUnsatisfiableAnyOf},
		&Rule{ID: "dead-siblings", Category: Correctness, Severity: diag.Warning,
			Summary: "Keywords beside a not that rejects everything have no effect",
			Explanation: "{\"not\": {}} (or not: true) rejects every instance, so the keywords beside it never " +
				"change the outcome. Either the not is a mistake or the other keywords are.",
			Bad:  `{"type": "string", "minLength": 1, "not": {}}`,
			Good: `{"not": {}}`,
			Peer: []string{"unsatisfiable_drop_validation"},
			node: checkDeadSiblings},
		&Rule{ID: "duplicate-oneof-branches", Category: Correctness, Severity: diag.Error,
			Summary: "Two oneOf branches are equal, so neither can ever be the one that matches",
			Explanation: "oneOf requires exactly one branch to match. An instance that matches one of two equal " +
				"branches matches both and fails, so both branches are dead.",
			Bad:  `{"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "string"}]}`,
			Good: `{"oneOf": [{"type": "string"}, {"type": "integer"}]}`,
			node: checkDuplicateOneOf},
		&Rule{ID: "required-forbidden", Category: Correctness, Severity: diag.Error,
			Summary: "A required property is also forbidden, so no object is valid",
			Explanation: "The property is required, but the same schema rejects it: additionalProperties is " +
				"false and neither properties nor patternProperties allows the name, or its property schema " +
				"is false. Every object fails. Often the property was declared in an allOf branch, which " +
				"additionalProperties does not see.",
			Bad:  `{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["id"], "additionalProperties": false}`,
			Good: `{"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "required": ["id"], "additionalProperties": false}`,
			node: checkRequiredForbidden},
		&Rule{ID: "additional-properties-with-allof", Category: Correctness, Severity: diag.Warning,
			Summary: "additionalProperties: false rejects properties declared in allOf, anyOf, oneOf or $ref beside it",
			Explanation: "additionalProperties only sees the properties and patternProperties of its own schema " +
				"object, not those of subschemas applied in place. The properties an allOf branch declares are " +
				"therefore \"additional\" and rejected, which is rarely what was meant. Declare them in this " +
				"schema's properties too, or use unevaluatedProperties (2019-09 and later).",
			Bad:  `{"type": "object", "properties": {"id": {"type": "string"}}, "allOf": [{"properties": {"name": {"type": "string"}}}], "additionalProperties": false}`,
			Good: `{"type": "object", "properties": {"id": {"type": "string"}, "name": true}, "allOf": [{"properties": {"name": {"type": "string"}}}], "additionalProperties": false}`,
			node: checkAdditionalWithAllOf},
		&Rule{ID: "ref-siblings-ignored", Category: Correctness, Severity: diag.Warning,
			Summary: "In drafts 4 to 7, keywords beside $ref are ignored",
			Explanation: "Before 2019-09 a schema with $ref is replaced by the reference's target, and every " +
				"other keyword in it is ignored. Assertions written beside $ref silently do nothing. Wrap the " +
				"reference in allOf to combine them. Annotations (title, description, default, examples) are " +
				"not reported.",
			Bad:  `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"name": {"type": "string"}}, "properties": {"first": {"$ref": "#/definitions/name", "maxLength": 20}}}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"name": {"type": "string"}}, "properties": {"first": {"allOf": [{"$ref": "#/definitions/name"}], "maxLength": 20}}}`,
			Peer: []string{"draft_ref_siblings"},
			node: checkRefSiblings},
		&Rule{ID: "invalid-default", Category: Correctness, Severity: diag.Warning,
			Summary: "The default value does not validate against its own schema",
			Explanation: "Tools fill in default values; one that the schema rejects produces invalid documents. " +
				"It is checked with jstk's validator against the schema it stands in.",
			Bad:  `{"type": "integer", "minimum": 1, "default": 0}`,
			Good: `{"type": "integer", "minimum": 1, "default": 1}`,
			Peer: []string{"valid_default"},
			node: checkInvalidDefault},
		&Rule{ID: "invalid-examples", Category: Correctness, Severity: diag.Warning,
			Summary: "An example does not validate against its own schema",
			Explanation: "Examples document valid data; one that the schema rejects misleads readers and the " +
				"tools that show or generate from examples.",
			Bad:  `{"type": "string", "format": "date", "maxLength": 10, "examples": ["2024-01-01", "2024-01-01T10:00:00Z"]}`,
			Good: `{"type": "string", "format": "date", "maxLength": 10, "examples": ["2024-01-01"]}`,
			Peer: []string{"valid_examples"},
			node: checkInvalidExamples},
		&Rule{ID: "duplicate-id", Category: Correctness, Severity: diag.Error,
			Summary: "Two schemas of the workspace declare the same $id",
			Explanation: "A reference to that URI can resolve to only one of them, and which one depends on " +
				"the tool. Every $id must be unique across the documents linted together.",
			Bad:  `{"$defs": {"a": {"$id": "https://example.com/item", "type": "string"}, "b": {"$id": "https://example.com/item", "type": "number"}}}`,
			Good: `{"$defs": {"a": {"$id": "https://example.com/item-a", "type": "string"}, "b": {"$id": "https://example.com/item-b", "type": "number"}}}`,
			node: checkDuplicateIDInDocument, cross: true},
		&Rule{ID: "duplicate-key", Category: Correctness, Severity: diag.Error,
			Summary: "A JSON object repeats a key; only its last value counts",
			Explanation: "JSON parsers keep one of the values of a repeated key (most keep the last), so the " +
				"other is silently lost. Merge the two.",
			Bad:  `{"type": "object", "properties": {"a": {"type": "string"}}, "properties": {"b": {"type": "string"}}}`,
			Good: `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}`,
			file: checkDuplicateKeys},
	)
}

// reportPtr reports at a document pointer, attributing it to the nearest schema for
// suppression.
func (c *checker) reportPtr(ptr, msg string) {
	n := c.f.nearestNode(ptr)
	rel := ptr
	if n != nil {
		rel = strings.TrimPrefix(ptr, n.ptr)
	}
	c.report(n, rel, msg, nil)
}

// nearestNode returns the schema at ptr or its nearest enclosing schema.
func (f *file) nearestNode(ptr string) *node {
	for {
		if n, ok := f.byPtr[ptr]; ok {
			return n
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return f.rootNode()
		}
		ptr = ptr[:i]
	}
}

// inRoot reports whether a pointer of the document lies in the schema linted.
func (f *file) inRoot(p string) bool {
	return f.root == "" || p == f.root || strings.HasPrefix(p, f.root+"/")
}

func checkRefLoop(c *checker) {
	root := c.f.compiledRoot()
	if root == nil {
		return
	}
	if se := schema.RefLoop(root); se != nil && se.File == c.f.name && c.f.inRoot(se.Pointer) {
		c.reportPtr(se.Pointer, se.Msg) // a loop in another document is that document's finding
	}
}

func checkInvalidSchema(c *checker) {
	f := c.f
	f.compiledRoot()
	cp := &f.comp
	hinted := map[string]bool{}
	if cp.metaErr != nil {
		for _, e := range cp.metaErr.Causes {
			if !f.inRoot(e.InstanceLocation) {
				continue
			}
			if hints := f.enumHints(e); len(hints) > 0 {
				for _, h := range hints {
					hinted[h.ptr] = true
					c.reportPtr(h.ptr, h.msg)
				}
				continue
			}
			c.reportPtr(e.InstanceLocation, "not valid against the meta-schema: "+e.Message)
		}
	}
	if cp.rootErr == nil {
		return
	}
	var se *schema.SchemaError
	if !errors.As(cp.rootErr, &se) {
		c.reportPtr(f.root, "the schema cannot be compiled: "+cp.rootErr.Error())
		return
	}
	if se.File != f.name || !f.inRoot(se.Pointer) {
		return // a problem of a referenced document: unresolved-ref reports it at the reference
	}
	last := se.Pointer[strings.LastIndexByte(se.Pointer, '/')+1:]
	enabled := func(id string) bool { _, ok := c.sev[id]; return ok }
	switch {
	case (last == "$ref" || last == "$dynamicRef" || last == "$recursiveRef") &&
		enabled("unknown-local-ref") && enabled("unresolved-ref"):
		return
	case strings.Contains(se.Msg, "regular expression") && enabled("invalid-pattern"):
		return
	case strings.Contains(se.Msg, "duplicate schema identifier") && enabled("duplicate-id"):
		return
	}
	if len(se.Causes) > 0 || hinted[se.Pointer] {
		return // hinted: the misspelt value is said already, with the value meant
	}
	if cp.metaErr != nil {
		for _, e := range cp.metaErr.Causes {
			if e.InstanceLocation == se.Pointer {
				return // the meta-schema violation already says it
			}
		}
	}
	c.reportPtr(se.Pointer, se.Msg)
}

// enumHint is what a newcomer needs instead of "does not match any of the alternatives":
// the string that is not one of the values the meta-schema allows, and the nearest of them.
type enumHint struct {
	ptr, msg string
}

// enumHints reads a meta-schema violation for the class of mistakes that are one value
// misspelt: an enum of the meta-schema (the simple types of "type", or any other) that a
// string of the schema fails, alone or inside an anyOf or oneOf (type is "one of the
// simple types, or an array of them"). It says which value is wrong and, by edit distance,
// which allowed value was meant; nil when the violation is of another kind.
func (f *file) enumHints(e schema.Error) []enumHint {
	var out []enumHint
	seen := map[string]bool{}
	stack := []schema.Error{e}
	for len(stack) > 0 { // the cause tree is the meta-schema's, not the input's; no recursion anyway
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		stack = append(stack, x.Causes...)
		if x.Keyword != "enum" || seen[x.InstanceLocation] || !f.inRoot(x.InstanceLocation) {
			continue
		}
		v, ok := f.doc.Root.Pointer(x.InstanceLocation)
		if !ok || v.Kind() != source.String {
			continue
		}
		allowed := metaEnum(x.AbsoluteKeywordLocation)
		if len(allowed) == 0 {
			continue
		}
		seen[x.InstanceLocation] = true
		out = append(out, enumHint{x.InstanceLocation, enumMessage(keywordOf(x.InstanceLocation), v.Str(), allowed)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ptr < out[j].ptr })
	return out
}

// keywordOf returns the keyword a pointer into a schema ends at: its last token, or the one
// before an array index ("/type/0" is in type).
func keywordOf(ptr string) string {
	toks, _ := source.SplitPointer(ptr)
	for i := len(toks) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(toks[i]); err != nil {
			return toks[i]
		}
	}
	return ""
}

// enumMessage says that value is not one of allowed, the values the meta-schema allows for
// keyword, and which one was probably meant.
func enumMessage(keyword, value string, allowed []string) string {
	what := fmt.Sprintf("not one of the values the meta-schema allows for %s", keyword)
	if keyword == "type" {
		what = "not a JSON Schema type"
	}
	set := map[string]bool{}
	for _, a := range allowed {
		set[a] = true
	}
	if s := closest(value, set); s != "" {
		return fmt.Sprintf("%s is %s; did you mean %s?", quoted(value), what, quoted(s))
	}
	qs := make([]string, len(allowed))
	for i, a := range allowed {
		qs[i] = quoted(a)
	}
	return fmt.Sprintf("%s is %s (%s)", quoted(value), what, strings.Join(qs, ", "))
}

// metaEnum returns the string values of the enum at a built-in meta-schema's keyword
// location (an absolute URI whose fragment is a JSON Pointer), or nil.
func metaEnum(loc string) []string {
	base, frag, ok := strings.Cut(loc, "#")
	if !ok {
		return nil
	}
	doc, _, err := (&schema.Loader{}).Load(base) // the built-in meta-schemas only: no files
	if err != nil {
		return nil
	}
	v, ok := doc.Root.Pointer(frag)
	if !ok || v.Kind() != source.Array {
		return nil
	}
	var out []string
	for _, x := range v.Items() {
		if x.Kind() == source.String {
			out = append(out, x.Str())
		}
	}
	return out
}

func checkUnknownLocalRef(c *checker, n *node) {
	for _, r := range c.f.refsOf[n] {
		if !r.local || r.found {
			continue
		}
		msg := fmt.Sprintf("%s %s points to nothing in this document", r.kw, quoted(r.value))
		if strings.HasPrefix(r.frag, "/") {
			resPtr := c.f.resources[r.uri].ptr
			if hint := c.f.nearPointer(resPtr + r.frag); hint != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", quoted("#"+strings.TrimPrefix(hint, resPtr)))
			}
		} else if r.frag != "" {
			msg += fmt.Sprintf(": no anchor %s is declared", quoted(r.frag))
		}
		c.report(n, "/"+r.kw, msg, nil)
	}
}

// nearPointer suggests an existing pointer one token away from a missing one.
func (f *file) nearPointer(ptr string) string {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return ""
	}
	parent, ok := f.doc.Root.Pointer(ptr[:i])
	if !ok || parent.Kind() != source.Object {
		return ""
	}
	toks, _ := source.SplitPointer(ptr[i:])
	if len(toks) != 1 {
		return ""
	}
	keys := map[string]bool{}
	for j := 0; j < parent.Len(); j++ {
		keys[parent.Key(j)] = true
	}
	if k := closest(toks[0], keys); k != "" {
		return ptr[:i] + "/" + source.EscapeToken(k)
	}
	return ""
}

func checkUnresolvedRef(c *checker, n *node) {
	for _, r := range c.f.refsOf[n] {
		if r.local {
			continue
		}
		if r.bad != "" {
			c.report(n, "/"+r.kw, fmt.Sprintf("%s %s is not a valid URI reference: %s", r.kw, quoted(r.value), r.bad), nil)
			continue
		}
		err := c.f.external(r)
		if err == nil {
			continue
		}
		msg := err.Error()
		var se *schema.SchemaError
		if errors.As(err, &se) && se.File == c.f.name {
			msg = se.Msg
		}
		for _, prefix := range []string{"cannot resolve " + r.kw + " " + quoted(r.value) + ": ", "unresolved reference " + quoted(r.uri) + ": "} {
			msg = strings.TrimPrefix(msg, prefix)
		}
		c.report(n, "/"+r.kw, fmt.Sprintf("%s %s cannot be resolved: %s", r.kw, quoted(r.value), msg), nil)
	}
}

func checkInvalidPattern(c *checker, n *node) {
	if !live(n) {
		return
	}
	if pv, ok := n.get("pattern"); ok && pv.Kind() == source.String {
		if _, err := schema.CompileRegexp(pv.Str(), time.Second); err != nil {
			c.report(n, "/pattern", fmt.Sprintf("pattern %s does not compile: %v", quotedPattern(pv.Str()), err), nil)
		}
	}
	if pp, ok := n.get("patternProperties"); ok && pp.Kind() == source.Object {
		for i := 0; i < pp.Len(); i++ {
			k := pp.Key(i)
			if _, err := schema.CompileRegexp(k, time.Second); err != nil {
				at := "/patternProperties/" + source.EscapeToken(k)
				if len(k) > maxPointedKey {
					at = "/patternProperties" // a hostile key would be the whole report
				}
				c.report(n, at,
					fmt.Sprintf("patternProperties key %s does not compile: %v", quotedPattern(k), err), nil)
			}
		}
	}
}

// maxPointedKey is the longest member name a finding's pointer names.
const maxPointedKey = 1024

// quotedPattern quotes a pattern for a message, cut when it is long (a hostile pattern may
// be megabytes long).
func quotedPattern(p string) string {
	if len(p) > 80 {
		return schema.QuotePattern(p)
	}
	return quoted(p)
}

func checkImpossibleBounds(c *checker, n *node) {
	if !live(n) {
		return
	}
	pair := func(lo, hi string, what string) {
		a, okA := numAt(n, lo)
		b, okB := numAt(n, hi)
		if okA && okB && a.Cmp(b) > 0 {
			c.report(n, "/"+lo, fmt.Sprintf("%s %s is greater than %s %s: no %s is valid", lo, a.RatString(), hi, b.RatString(), what), nil)
		}
	}
	pair("minLength", "maxLength", "string")
	pair("minItems", "maxItems", "array")
	pair("minProperties", "maxProperties", "object")
	if n.draft.Version >= 2019 && n.has("contains") {
		pair("minContains", "maxContains", "array")
	}
	if checkNumberBounds(c, n) {
		return
	}
	// More distinct required names than maxProperties allows.
	if rv, ok := n.get("required"); ok && rv.Kind() == source.Array {
		if mp, ok := numAt(n, "maxProperties"); ok {
			distinct := rv.Len() - len(duplicates(rv.Items()))
			if big.NewRat(int64(distinct), 1).Cmp(mp) > 0 {
				c.report(n, "/maxProperties", fmt.Sprintf("%d properties are required but maxProperties is %s: no object is valid",
					distinct, mp.RatString()), nil)
			}
		}
	}
}

// numAt is the number node n's keyword kw holds.
func numAt(n *node, kw string) (*big.Rat, bool) {
	v, ok := n.get(kw)
	if !ok {
		return nil, false
	}
	return rat(v)
}

// numBound is one effective bound on numbers: the keyword that sets it, its value, and
// whether it is exclusive.
type numBound struct {
	kw    string
	v     *big.Rat
	excl  bool
	found bool
}

// numberBounds are node n's effective lower and upper bounds on numbers.
func numberBounds(n *node) (lo, hi numBound) {
	consider := func(kw string, isLow, excl bool) {
		v, ok := numAt(n, kw)
		if !ok {
			return
		}
		b := &hi
		if isLow {
			b = &lo
		}
		switch {
		case !b.found:
		case isLow && (v.Cmp(b.v) > 0 || v.Cmp(b.v) == 0 && excl):
		case !isLow && (v.Cmp(b.v) < 0 || v.Cmp(b.v) == 0 && excl):
		default:
			return
		}
		*b = numBound{kw, v, excl, true}
	}
	if n.draft.Version == 4 {
		exMin, exMax := false, false
		if v, ok := n.get("exclusiveMinimum"); ok && v.Kind() == source.Bool {
			exMin = v.Bool()
		}
		if v, ok := n.get("exclusiveMaximum"); ok && v.Kind() == source.Bool {
			exMax = v.Bool()
		}
		consider("minimum", true, exMin)
		consider("maximum", false, exMax)
	} else {
		consider("minimum", true, false)
		consider("maximum", false, false)
		consider("exclusiveMinimum", true, true)
		consider("exclusiveMaximum", false, true)
	}
	return lo, hi
}

// checkNumberBounds reports number bounds that leave no number, or no integer of an
// integer type, between them; it returns true when no number is valid.
func checkNumberBounds(c *checker, n *node) (none bool) {
	lo, hi := numberBounds(n)
	if !lo.found || !hi.found {
		return false
	}
	cmp := lo.v.Cmp(hi.v)
	if cmp > 0 || cmp == 0 && (lo.excl || hi.excl) {
		c.report(n, "/"+lo.kw, fmt.Sprintf("%s %s and %s %s leave no number between them: no number is valid",
			lo.kw, lo.v.RatString(), hi.kw, hi.v.RatString()), nil)
		return true
	}
	if t, ok := declaredTypes(n); ok && t&schema.TypeFraction == 0 && t&schema.TypeInteger != 0 {
		l, h := ceilRat(lo.v), floorRat(hi.v)
		if lo.excl && lo.v.IsInt() {
			l.Add(l, big.NewRat(1, 1))
		}
		if hi.excl && hi.v.IsInt() {
			h.Sub(h, big.NewRat(1, 1))
		}
		if l.Cmp(h) > 0 {
			c.report(n, "/"+lo.kw, fmt.Sprintf("there is no integer between %s %s and %s %s: no integer is valid",
				lo.kw, lo.v.RatString(), hi.kw, hi.v.RatString()), nil)
		}
	}
	return false
}

func checkEmptyEnum(c *checker, n *node) {
	if !live(n) {
		return
	}
	if ev, ok := n.get("enum"); ok && ev.Kind() == source.Array && ev.Len() == 0 {
		c.report(n, "/enum", "enum has no values: nothing is valid (write false to forbid on purpose)", nil)
	}
}

func checkConstNotInEnum(c *checker, n *node) {
	if !live(n) || n.draft.Version < 6 {
		return
	}
	cv, ok1 := n.get("const")
	ev, ok2 := n.get("enum")
	if !ok1 || !ok2 || ev.Kind() != source.Array || ev.Len() == 0 {
		return
	}
	for _, e := range ev.Items() {
		if source.Equal(e, cv) {
			return
		}
	}
	c.report(n, "/const", fmt.Sprintf("const %s is not one of the enum values: nothing is valid", short(cv)), nil)
}

func checkTypeConflict(c *checker, n *node) {
	if !live(n) {
		return
	}
	t, ok := declaredTypes(n)
	if !ok {
		return
	}
	if cv, ok := n.get("const"); ok && n.draft.Version >= 6 {
		if schema.TypeOf(cv)&t == 0 {
			c.report(n, "/const", fmt.Sprintf("const %s is not %s, which type requires: nothing is valid", short(cv), aType(t.String())), nil)
		}
	}
	if ev, ok := n.get("enum"); ok && ev.Kind() == source.Array && ev.Len() > 0 {
		any := false
		for _, e := range ev.Items() {
			if schema.TypeOf(e)&t != 0 {
				any = true
				break
			}
		}
		if !any {
			c.report(n, "/enum", fmt.Sprintf("no enum value is %s, which type requires: nothing is valid", aType(t.String())), nil)
		}
	}
	if av, ok := n.get("allOf"); ok && av.Kind() == source.Array {
		for i := range av.Items() {
			b := c.f.byPtr[n.at("allOf", strconv.Itoa(i))]
			if b == nil || !live(b) {
				continue
			}
			if bt, ok := declaredTypes(b); ok && bt&t == 0 {
				c.report(b, "/type", fmt.Sprintf("this allOf branch requires %s but its parent requires %s: nothing is valid", bt, t), nil)
			}
		}
	}
}

func checkUnreachableEnum(c *checker, n *node) {
	if !live(n) {
		return
	}
	t, ok := declaredTypes(n)
	ev, ok2 := n.get("enum")
	if !ok || !ok2 || ev.Kind() != source.Array {
		return
	}
	var bad []int
	for i, e := range ev.Items() {
		if schema.TypeOf(e)&t == 0 {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 || len(bad) == ev.Len() {
		return // none, or all: type-conflict reports that
	}
	for _, i := range bad {
		e := ev.Index(i)
		c.report(n, "/enum/"+strconv.Itoa(i), fmt.Sprintf("enum value %s can never be valid: type allows only %s", short(e), t), nil)
	}
}

func checkUnsatisfiableAllOf(c *checker, n *node) {
	if !live(n) {
		return
	}
	av, ok := n.get("allOf")
	if !ok || av.Kind() != source.Array {
		return
	}
	for i, b := range av.Items() {
		if isFalseSchema(b, n.draft) {
			c.report(n, "/allOf/"+strconv.Itoa(i), "this allOf branch accepts nothing, so nothing is valid", nil)
		}
	}
}

func checkUnsatisfiableAnyOf(c *checker, n *node) {
	if !live(n) {
		return
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		v, ok := n.get(kw)
		if !ok || v.Kind() != source.Array || v.Len() == 0 {
			continue
		}
		all := true
		for _, b := range v.Items() {
			all = all && isFalseSchema(b, n.draft)
		}
		if all {
			c.report(n, "/"+kw, fmt.Sprintf("every %s branch accepts nothing, so nothing is valid", kw), nil)
		}
	}
}

func checkDeadSiblings(c *checker, n *node) {
	if !live(n) {
		return
	}
	nv, ok := n.get("not")
	if !ok || !isTrueSchema(nv, n.draft) {
		return
	}
	var dead []string
	for i := 0; i < n.val.Len(); i++ {
		k := n.val.Key(i)
		if k != "not" && n.draft.Defines(k) && !isAnnotation(k) && !strings.HasPrefix(k, "$") && k != "definitions" {
			dead = append(dead, k)
		}
	}
	if len(dead) > 0 {
		c.report(n, "/not", fmt.Sprintf("not rejects every instance, so %s beside it %s no effect", strings.Join(dead, ", "),
			diag.PluralWord(len(dead), "has", "have")), nil)
	}
}

func checkDuplicateOneOf(c *checker, n *node) {
	if !live(n) {
		return
	}
	v, ok := n.get("oneOf")
	if !ok || v.Kind() != source.Array {
		return
	}
	for _, i := range duplicates(v.Items()) {
		c.report(n, "/oneOf/"+strconv.Itoa(i), "this oneOf branch equals an earlier one: an instance matching it matches both and fails oneOf", nil)
	}
}

// allowsName reports whether the schema's properties, patternProperties or
// additionalProperties let a property name through (ignoring what its value must be).
func allowsName(f *file, n *node, name string) (allowed bool, propSchema source.Value, hasProp bool) {
	if pv, ok := n.get("properties"); ok && pv.Kind() == source.Object {
		if s, ok := pv.Get(name); ok {
			return true, s, true
		}
	}
	if pp, ok := n.get("patternProperties"); ok && pp.Kind() == source.Object {
		for i := 0; i < pp.Len(); i++ {
			re, err := schema.CompileRegexp(pp.Key(i), time.Second)
			if err != nil {
				return true, source.Value{}, false // cannot tell
			}
			if m, err := f.match(re, name); err != nil || m {
				return true, source.Value{}, false
			}
		}
	}
	if ap, ok := n.get("additionalProperties"); ok && isFalseSchema(ap, n.draft) {
		return false, source.Value{}, false
	}
	return true, source.Value{}, false
}

func checkRequiredForbidden(c *checker, n *node) {
	if !live(n) {
		return
	}
	rv, ok := n.get("required")
	if !ok || rv.Kind() != source.Array {
		return
	}
	for i, it := range rv.Items() {
		if it.Kind() != source.String {
			continue
		}
		allowed, ps, has := allowsName(c.f, n, it.Str())
		switch {
		case !allowed:
			c.report(n, "/required/"+strconv.Itoa(i), fmt.Sprintf("%s is required but additionalProperties rejects it (it is not in properties "+
				"or patternProperties): no object is valid", quoted(it.Str())), nil)
		case has && isFalseSchema(ps, n.draft):
			c.report(n, "/required/"+strconv.Itoa(i), fmt.Sprintf("%s is required but its property schema accepts nothing: no object is valid", quoted(it.Str())), nil)
		}
	}
}

// inPlaceProperties lists the property names that the in-place subschemas of n (allOf,
// anyOf, oneOf, if/then/else, dependentSchemas, and $ref in 2019-09 and later) declare.
func (f *file) inPlaceProperties(n *node, depth int, seen map[string]bool) map[string]string {
	out := map[string]string{}
	if depth > 8 {
		return out
	}
	var kids []*node
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"} {
		v, ok := n.get(kw)
		if !ok {
			continue
		}
		switch v.Kind() {
		case source.Array:
			for i := range v.Items() {
				kids = append(kids, f.byPtr[n.at(kw, strconv.Itoa(i))])
			}
		case source.Object:
			if kw == "dependentSchemas" {
				for i := 0; i < v.Len(); i++ {
					kids = append(kids, f.byPtr[n.at(kw, v.Key(i))])
				}
			} else {
				kids = append(kids, f.byPtr[n.at(kw)])
			}
		}
	}
	if n.draft.Version >= 2019 {
		for _, r := range f.refsOf[n] {
			if r.kw == "$ref" && r.local && r.found {
				kids = append(kids, f.byPtr[r.target])
			}
		}
	}
	for _, k := range kids {
		if k == nil || !k.isObject() || seen[k.ptr] {
			continue
		}
		seen[k.ptr] = true
		if pv, ok := k.get("properties"); ok && pv.Kind() == source.Object && live(k) {
			for i := 0; i < pv.Len(); i++ {
				if _, dup := out[pv.Key(i)]; !dup {
					out[pv.Key(i)] = k.at("properties", pv.Key(i))
				}
			}
		}
		if k.hasRefOld() {
			for _, r := range f.refsOf[k] {
				if r.local && r.found {
					if t := f.byPtr[r.target]; t != nil && !seen[t.ptr] {
						seen[t.ptr] = true
						if pv, ok := t.get("properties"); ok && pv.Kind() == source.Object {
							for i := 0; i < pv.Len(); i++ {
								if _, dup := out[pv.Key(i)]; !dup {
									out[pv.Key(i)] = t.at("properties", pv.Key(i))
								}
							}
						}
					}
				}
			}
			continue
		}
		for name, p := range f.inPlaceProperties(k, depth+1, seen) {
			if _, dup := out[name]; !dup {
				out[name] = p
			}
		}
	}
	return out
}

func checkAdditionalWithAllOf(c *checker, n *node) {
	if !live(n) {
		return
	}
	ap, ok := n.get("additionalProperties")
	if !ok || !isFalseSchema(ap, n.draft) {
		return
	}
	declared := c.f.inPlaceProperties(n, 0, map[string]bool{})
	var names []string
	for name := range declared {
		if allowed, _, _ := allowsName(c.f, n, name); !allowed {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	hint := "declare them in this schema's properties too"
	if n.draft.Version >= 2019 {
		hint = "use unevaluatedProperties: false instead, or declare them in this schema's properties too"
	}
	c.report(n, "/additionalProperties", fmt.Sprintf("additionalProperties: false rejects %s, which %s declared in subschemas applied here "+
		"(first at %s); %s", strings.Join(shown, ", "), diag.PluralWord(len(names), "is", "are"), declared[names[0]], hint), nil)
}

func checkRefSiblings(c *checker, n *node) {
	if !n.hasRefOld() {
		return
	}
	var ignored []string
	for i := 0; i < n.val.Len(); i++ {
		k := n.val.Key(i)
		if k == "$ref" || !n.draft.Defines(k) || isAnnotation(k) || k == "definitions" || k == "$schema" {
			continue
		}
		ignored = append(ignored, k)
	}
	if len(ignored) == 0 {
		return
	}
	c.report(n, "/"+source.EscapeToken(ignored[0]), fmt.Sprintf("%s beside $ref %s ignored in %s; wrap the $ref in allOf to apply %s",
		strings.Join(ignored, ", "), diag.PluralWord(len(ignored), "is", "are"), n.draft.Name, diag.PluralWord(len(ignored), "it", "them")), nil)
}

// validateAt checks a value against the schema at a node.
func (f *file) validateAt(n *node, v source.Value) (string, bool) {
	s := f.schemaAt(n.ptr)
	if s == nil {
		return "", true
	}
	errs, err := s.ValidateContext(f.r.context(), v)
	if err != nil {
		f.r.stopOn(err)
	}
	if err != nil || len(errs) == 0 {
		return "", true
	}
	e := errs[0]
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	where := ""
	if e.InstanceLocation != "" {
		where = " at " + e.InstanceLocation
	}
	return e.Message + where, false
}

func checkInvalidDefault(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	dv, ok := n.get("default")
	if !ok {
		return
	}
	if msg, ok := c.f.validateAt(n, dv); !ok {
		c.report(n, "/default", fmt.Sprintf("default %s is not valid against this schema: %s", short(dv), msg), nil)
	}
}

func checkInvalidExamples(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	ev, ok := n.get("examples")
	if !ok || ev.Kind() != source.Array {
		return
	}
	for i, e := range ev.Items() {
		if msg, ok := c.f.validateAt(n, e); !ok {
			c.report(n, "/examples/"+strconv.Itoa(i), fmt.Sprintf("example %s is not valid against this schema: %s", short(e), msg), nil)
		}
	}
}

// checkDuplicateIDInDocument reports an absolute $id declared twice in one document (the
// compiler refuses such a document); duplicates across documents are found by Run.
func checkDuplicateIDInDocument(c *checker, n *node) {
	if n.parent != nil {
		return
	}
	seen := map[string]bool{}
	for _, id := range c.f.ids {
		if seen[id.uri] {
			c.reportPtr(id.ptr, fmt.Sprintf("$id %q is declared twice in this document: references to it are ambiguous", id.uri))
		}
		seen[id.uri] = true
	}
}

func checkDuplicateKeys(c *checker) {
	if c.f.doc.Format != source.JSON {
		return
	}
	for _, d := range c.f.textIdx().dups {
		c.reportPtr(d.ptr, fmt.Sprintf("key %s appears more than once in this object; only the last value counts", quoted(d.key)))
	}
}
