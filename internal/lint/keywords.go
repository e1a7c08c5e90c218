package lint

import (
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The keywords of each draft, by what they do.
var (
	kwDraft4 = words(`id $schema $ref title description default multipleOf maximum exclusiveMaximum
		minimum exclusiveMinimum maxLength minLength pattern additionalItems items maxItems minItems
		uniqueItems maxProperties minProperties required additionalProperties definitions properties
		patternProperties dependencies enum type allOf anyOf oneOf not format`)
	kwDraft6 = with(without(kwDraft4, "id"), `$id examples const contains propertyNames`)
	kwDraft7 = with(kwDraft6, `$comment if then else readOnly writeOnly contentEncoding contentMediaType`)
	kw2019   = with(without(kwDraft7, "dependencies"), `$anchor $defs $recursiveRef $recursiveAnchor
		$vocabulary dependentSchemas dependentRequired unevaluatedProperties unevaluatedItems
		maxContains minContains deprecated contentSchema`)
	kw2020 = with(without(kw2019, "$recursiveRef", "$recursiveAnchor", "additionalItems"),
		`prefixItems $dynamicRef $dynamicAnchor`)

	// draft3Only are keywords of draft 3, which later drafts dropped or renamed.
	draft3Only = map[string]string{
		"extends":     "use allOf",
		"disallow":    "use not",
		"divisibleBy": "use multipleOf",
	}

	// annotationKeywords never change which instances are valid.
	annotationKeywords = words(`title description default examples $comment readOnly writeOnly
		deprecated contentEncoding contentMediaType contentSchema format`)

	// vendorKeywords are widely used extension keywords of editors (VS Code's JSON language
	// service), which lint does not report as unknown.
	vendorKeywords = words(`markdownDescription deprecationMessage markdownDeprecationMessage
		enumDescriptions markdownEnumDescriptions enumItemLabels enumSortTexts defaultSnippets
		errorMessage patternErrorMessage doNotSuggest suggestSortText allowComments
		allowTrailingCommas completionDetail`)

	// typeKeywords lists the assertions and applicators that only apply to one type.
	typeKeywords = map[string]typeSet{}
)

func init() {
	for t, kws := range map[typeSet]string{
		tNumber: `multipleOf maximum exclusiveMaximum minimum exclusiveMinimum`,
		tString: `maxLength minLength pattern contentEncoding contentMediaType contentSchema`,
		tArray: `items additionalItems prefixItems maxItems minItems uniqueItems contains minContains
			maxContains unevaluatedItems`,
		tObject: `maxProperties minProperties required properties patternProperties additionalProperties
			dependencies dependentRequired dependentSchemas propertyNames unevaluatedProperties`,
	} {
		for k := range words(kws) {
			typeKeywords[k] = t
		}
	}
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func with(m map[string]bool, s string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	for k := range words(s) {
		out[k] = true
	}
	return out
}

func without(m map[string]bool, ks ...string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	for _, k := range ks {
		delete(out, k)
	}
	return out
}

// knownKeywords returns the keywords of a draft.
func knownKeywords(d *schema.Draft) map[string]bool {
	switch d.Version {
	case 4:
		return kwDraft4
	case 6:
		return kwDraft6
	case 7:
		return kwDraft7
	case 2019:
		return kw2019
	}
	return kw2020
}

// draftsOf lists the drafts that know a keyword.
func draftsOf(kw string) []*schema.Draft {
	var out []*schema.Draft
	for _, d := range schema.Drafts {
		if knownKeywords(d)[kw] {
			out = append(out, d)
		}
	}
	return out
}

// formatsOf lists the formats each draft defines.
var formatsOf = map[int]map[string]bool{}

func init() {
	f4 := words(`date-time email hostname ipv4 ipv6 uri`)
	f6 := with(f4, `uri-reference uri-template json-pointer`)
	f7 := with(f6, `date time idn-email idn-hostname iri iri-reference relative-json-pointer regex`)
	f2019 := with(f7, `duration uuid`)
	formatsOf[4], formatsOf[6], formatsOf[7], formatsOf[2019], formatsOf[2020] = f4, f6, f7, f2019, f2019
}

// openAPIFormats are formats of OpenAPI that JSON Schema does not define.
var openAPIFormats = words(`int32 int64 float double byte binary password`)

// typeSet is a set of JSON Schema types; integer is part of number.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumberOnly // numbers that are not integers
	tString
	tArray
	tObject

	tNumber = tInteger | tNumberOnly
	tAll    = tNull | tBoolean | tNumber | tString | tArray | tObject
)

var typeNames = []struct {
	name string
	t    typeSet
}{{"null", tNull}, {"boolean", tBoolean}, {"integer", tInteger}, {"number", tNumber},
	{"string", tString}, {"array", tArray}, {"object", tObject}}

func typeByName(s string) typeSet {
	for _, tn := range typeNames {
		if tn.name == s {
			return tn.t
		}
	}
	return 0
}

// String names the types, e.g. "string or null".
func (t typeSet) String() string {
	var names []string
	rest := t
	for _, tn := range []struct {
		name string
		t    typeSet
	}{{"null", tNull}, {"boolean", tBoolean}, {"number", tNumber}, {"integer", tInteger},
		{"string", tString}, {"array", tArray}, {"object", tObject}} {
		if rest&tn.t == tn.t && tn.t != 0 {
			names = append(names, tn.name)
			rest &^= tn.t
		}
	}
	if rest&tNumberOnly != 0 {
		names = append(names, "non-integer number")
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// aType puts the article before a type name or list of them for a message: "an integer",
// "a string or null", "null", "nothing".
func aType(s string) string {
	switch {
	case s == "nothing", strings.HasPrefix(s, "null"):
		return s
	case strings.IndexByte("aeiou", s[0]) >= 0:
		return "an " + s
	}
	return "a " + s
}

// declaredTypes reads the "type" keyword of a schema object.
func declaredTypes(n *node) (typeSet, bool) {
	tv, ok := n.get("type")
	if !ok {
		return 0, false
	}
	switch tv.Kind() {
	case source.String:
		t := typeByName(tv.Str())
		return t, t != 0
	case source.Array:
		var ts typeSet
		for _, it := range tv.Items() {
			t := typeByName(it.Str())
			if it.Kind() != source.String || t == 0 {
				return 0, false
			}
			ts |= t
		}
		return ts, true
	}
	return 0, false
}

// typeOfValue is the type of a JSON value, as a draft sees it (draft 4 does not count 1.0
// as an integer).
func typeOfValue(v source.Value, d *schema.Draft) typeSet {
	switch v.Kind() {
	case source.Null:
		return tNull
	case source.Bool:
		return tBoolean
	case source.String:
		return tString
	case source.Array:
		return tArray
	case source.Object:
		return tObject
	case source.Number:
		lit := v.Str()
		if !strings.ContainsAny(lit, ".eE") {
			return tInteger
		}
		if d.Version == 4 && strings.Contains(lit, ".") && !strings.ContainsAny(lit, "eE") {
			return tNumberOnly
		}
		if v.Num().IsInteger() {
			return tInteger
		}
		return tNumberOnly
	}
	return 0
}

// isTrueSchema reports a schema that accepts everything: true, or an object with no
// keyword that constrains (annotations and unknown keywords only).
func isTrueSchema(v source.Value, d *schema.Draft) bool {
	switch v.Kind() {
	case source.Bool:
		return v.Bool()
	case source.Object:
		known := knownKeywords(d)
		for i := 0; i < v.Len(); i++ {
			k := v.Key(i)
			if known[k] && !annotationKeywords[k] && k != "$schema" && k != "$id" && k != "id" &&
				k != "definitions" && k != "$defs" && k != "$anchor" && k != "$comment" {
				return false
			}
		}
		return true
	}
	return false
}

// isEmptySchema reports true or {}.
func isEmptySchema(v source.Value) bool {
	return v.Kind() == source.Bool && v.Bool() || v.Kind() == source.Object && v.Len() == 0
}

// isFalseSchema reports a schema that accepts nothing, written as such: false, a "not"
// of a schema that accepts everything, or an empty enum.
func isFalseSchema(v source.Value, d *schema.Draft) bool {
	switch v.Kind() {
	case source.Bool:
		return !v.Bool()
	case source.Object:
		if _, ok := v.Get("$ref"); ok && d.Version <= 7 {
			return false
		}
		if nv, ok := v.Get("not"); ok && isTrueSchema(nv, d) {
			return true
		}
		if ev, ok := v.Get("enum"); ok && ev.Kind() == source.Array && ev.Len() == 0 {
			return true
		}
	}
	return false
}
