package lint

import (
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// What lint knows of keywords beyond the keyword model (schema.Keywords).
var (
	// draft3Only are keywords of draft 3, which later drafts dropped or renamed.
	draft3Only = sync.OnceValue(func() map[string]string {
		return map[string]string{
			"extends":     "use allOf",
			"disallow":    "use not",
			"divisibleBy": "use multipleOf",
		}
	})

	// vendorKeywords are widely used extension keywords of editors (VS Code's JSON language
	// service), which lint does not report as unknown.
	vendorKeywords = sync.OnceValue(func() map[string]bool {
		return words(`markdownDescription deprecationMessage markdownDeprecationMessage
		enumDescriptions markdownEnumDescriptions enumItemLabels enumSortTexts defaultSnippets
		errorMessage patternErrorMessage doNotSuggest suggestSortText allowComments
		allowTrailingCommas completionDetail`)
	})
)

// isAnnotation reports a keyword that never changes which instances are valid: an
// annotation of some draft (format among them: lint does not assume it is asserted), or
// $comment.
func isAnnotation(kw string) bool {
	if kw == "$comment" {
		return true
	}
	for _, d := range schema.Drafts {
		if k, ok := d.Keyword(kw); ok {
			return k.Kind == schema.Annotation
		}
	}
	return false
}

// idKeyword is the keyword that gives a schema of draft d its URI, as lint reads it: the
// model's (schema.Draft.IDKeyword), and draft 4's id in OpenAPI 3.0, whose schemas lint
// reads as draft 4's.
func idKeyword(d *schema.Draft) string {
	if k := d.IDKeyword(); k != "" {
		return k
	}
	return schema.Draft4.IDKeyword()
}

// keywordTypes returns the instance types a keyword of draft d acts on, when it acts on
// some types only.
func keywordTypes(d *schema.Draft, kw string) (schema.TypeSet, bool) {
	k, ok := d.Keyword(kw)
	if !ok || k.Types == schema.TypeAll {
		return 0, false
	}
	return k.Types, true
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

// knownKeywords returns the keywords of a draft (see schema.Draft.Defines), made on each
// call: for suggestions, not for lookups.
func knownKeywords(d *schema.Draft) map[string]bool {
	m := map[string]bool{}
	for _, k := range schema.Keywords() {
		if d.Defines(k.Name) {
			m[k.Name] = true
		}
	}
	return m
}

// draftsOf lists the drafts that know a keyword.
func draftsOf(kw string) []*schema.Draft {
	var out []*schema.Draft
	for _, d := range schema.Drafts {
		if d.Defines(kw) {
			out = append(out, d)
		}
	}
	return out
}

// formatsOf lists the formats each draft defines (built on first use).
var formatsOf = sync.OnceValue(func() map[int]map[string]bool {
	f4 := words(`date-time email hostname ipv4 ipv6 uri`)
	f6 := with(f4, `uri-reference uri-template json-pointer`)
	f7 := with(f6, `date time idn-email idn-hostname iri iri-reference relative-json-pointer regex`)
	f2019 := with(f7, `duration uuid`)
	return map[int]map[string]bool{4: f4, 6: f6, 7: f7, 2019: f2019, 2020: f2019}
})

// openAPIFormats are formats of OpenAPI that JSON Schema does not define.
var openAPIFormats = sync.OnceValue(func() map[string]bool { return words(`int32 int64 float double byte binary password`) })

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
func declaredTypes(n *node) (schema.TypeSet, bool) {
	tv, ok := n.get("type")
	if !ok {
		return 0, false
	}
	switch tv.Kind() {
	case source.String:
		t := schema.TypeByName(tv.Str(), n.draft)
		return t, t != 0
	case source.Array:
		var ts schema.TypeSet
		for _, it := range tv.Items() {
			t := schema.TypeByName(it.Str(), n.draft)
			if it.Kind() != source.String || t == 0 {
				return 0, false
			}
			ts |= t
		}
		return ts, true
	}
	return 0, false
}

// isTrueSchema reports a schema that accepts everything: true, or an object with no
// keyword that constrains (no applicator, assertion or reference of the draft).
func isTrueSchema(v source.Value, d *schema.Draft) bool {
	switch v.Kind() {
	case source.Bool:
		return v.Bool()
	case source.Object:
		for i := 0; i < v.Len(); i++ {
			if k, ok := d.Keyword(v.Key(i)); ok && d.Defines(k.Name) &&
				(k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference) {
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
