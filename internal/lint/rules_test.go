package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// lintOne lints one inline document with every rule on.
func lintOne(t *testing.T, name, text string, settings map[string]Setting) *Result {
	t.Helper()
	fsys := workspace.Memory(map[string]string{name: text})
	if settings == nil {
		settings = map[string]Setting{"all": "on"}
	}
	res, err := Run(context.Background(), []Source{{Name: name, Path: name}}, fsys, &Options{Rules: settings, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ruleIDs(res *Result) map[string]int {
	m := map[string]int{}
	for _, f := range res.Findings {
		m[f.Rule]++
	}
	return m
}

// TestRuleExamples checks every rule on its own examples: the bad one is reported, the good
// one is not. The findings on the bad examples are kept in testdata/rules.golden.
func TestRuleExamples(t *testing.T) {
	var report strings.Builder
	for _, r := range Rules() {
		if r.Bad == "" || r.Good == "" {
			t.Errorf("rule %s: needs a bad and a good example", r.ID)
			continue
		}
		if r.Summary == "" || len(r.Explanation) < 40 {
			t.Errorf("rule %s: needs a summary and an explanation", r.ID)
		}
		bad := lintOne(t, "bad.json", r.Bad, nil)
		if ruleIDs(bad)[r.ID] == 0 {
			t.Errorf("rule %s: its bad example is not reported; findings: %v", r.ID, ruleIDs(bad))
		}
		if len(bad.Problems) > 0 {
			t.Errorf("rule %s: bad example unreadable: %v", r.ID, bad.Problems)
		}
		good := lintOne(t, "good.json", r.Good, nil)
		if n := ruleIDs(good)[r.ID]; n > 0 {
			for _, f := range good.Findings {
				if f.Rule == r.ID {
					t.Errorf("rule %s: its good example is reported: %s: %s", r.ID, f.Pointer, f.Message)
				}
			}
		}
		fmt.Fprintf(&report, "== %s\n", r.ID)
		for _, f := range bad.Findings {
			if f.Rule != r.ID {
				continue
			}
			fx := ""
			if f.Fix != nil {
				fx = " [fix: " + f.Fix.Description + "]"
			}
			fmt.Fprintf(&report, "%d:%d %s: %s%s\n", f.Line, f.Column, f.Pointer, f.Message, fx)
		}
	}
	golden.Check(t, "testdata/rules.golden", report.String())
}

// TestMessageWording pins messages a person reads: articles before type names, and what a
// draft 4 or 6 schema's keyword of a later draft means to jstk and to others.
func TestMessageWording(t *testing.T) {
	tests := []struct {
		name, text, rule, want string
	}{
		{"const of another type", `{"type": "integer", "const": "a"}`, "type-conflict",
			`const "a" is not an integer, which type requires: nothing is valid`},
		{"enum of another type", `{"type": ["object", "array"], "enum": [1]}`, "type-conflict",
			"no enum value is an array or object, which type requires: nothing is valid"},
		{"enum of the type", `{"type": "integer", "enum": [1, 2]}`, "enum-with-type",
			"every enum value is an integer already: type adds nothing"},
		{"null", `{"type": "null", "const": null}`, "enum-with-type", "every const value is null already: type adds nothing"},
		{"draft 4 const", `{"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}`, "wrong-draft-keyword",
			"const is a keyword of draft-06, draft-07, 2019-09, 2020-12, not of draft-04: jstk applies it here anyway, as Ajv " +
				"does, but the draft-04 specification ignores it, and so do validators that follow it to the letter; use an enum with one value"},
		{"draft 6 if", `{"$schema": "http://json-schema.org/draft-06/schema#", "if": {}}`, "wrong-draft-keyword",
			"if is a keyword of draft-07, 2019-09, 2020-12, not of draft-06: jstk applies it here anyway, as Ajv does, but the " +
				"draft-06 specification ignores it, and so do validators that follow it to the letter"},
		{"a keyword jstk ignores", `{"$schema": "http://json-schema.org/draft-07/schema#", "dependentRequired": {}}`,
			"wrong-draft-keyword", "dependentRequired is a keyword of 2019-09, 2020-12, not of draft-07, so it is ignored here; use dependencies with an array of names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := lintOne(t, "s.json", tt.text, nil)
			var got []string
			for _, f := range res.Findings {
				if f.Rule == tt.rule {
					got = append(got, f.Message)
					if f.Message == tt.want {
						return
					}
				}
			}
			t.Errorf("no %s finding says\n  %s\ngot %q", tt.rule, tt.want, got)
		})
	}
	for _, text := range []string{`[1]`, `1`, `"x"`, `null`} {
		res := lintOne(t, "s.json", text, nil)
		if len(res.Problems) != 1 || strings.Contains(res.Problems[0].Message, "a integer") ||
			strings.Contains(res.Problems[0].Message, "a array") {
			t.Errorf("lint %s: problems %+v", text, res.Problems)
		}
	}
}

// TestDoubleNegationRuns checks that a run of directly nested nots is one finding, at its
// outermost not, saying how many nots it has and what it reduces to, and that its fix (in
// drafts 4 to 7) leaves the schema accepting the same instances: an even run becomes the
// schema inside it, an odd run one not of it.
func TestDoubleNegationRuns(t *testing.T) {
	const s = `{"type":"string"}`
	nots := func(k int, inner string) string {
		return strings.Repeat(`{"not":`, k) + inner + strings.Repeat("}", k)
	}
	// withType is a run of k nots whose outermost schema also says minLength.
	withType := func(k int) string { return `{"minLength":2,"not":` + nots(k-1, s) + `}` }
	tests := []struct {
		name, draft, a string
		msg, fix       string // "" when no finding, or no fix
		fixed          string // properties/a after --fix
	}{
		{"1", "draft-07", nots(1, s), "", "", nots(1, s)},
		{"2", "draft-07", nots(2, s), "2 nested nots accept what the schema inside them accepts",
			"replace the 2 nots by the schema they negate", s},
		{"3", "draft-07", nots(3, s), "3 nested nots accept what one not of the schema inside them accepts",
			"reduce the 3 nots to one", nots(1, s)},
		{"50", "draft-07", nots(50, s), "50 nested nots accept what the schema inside them accepts",
			"replace the 50 nots by the schema they negate", s},
		{"51", "draft-07", nots(51, s), "51 nested nots accept what one not of the schema inside them accepts",
			"reduce the 51 nots to one", nots(1, s)},
		{"1 with a sibling", "draft-07", withType(1), "", "", withType(1)},
		{"2 with a sibling", "draft-07", withType(2), "2 nested nots accept what the schema inside them accepts", "", withType(2)},
		{"3 with a sibling", "draft-07", withType(3), "3 nested nots accept what one not of the schema inside them accepts",
			"reduce the 3 nots to one", withType(1)},
		{"50 with a sibling", "draft-07", withType(50), "50 nested nots accept what the schema inside them accepts",
			"reduce the 50 nots to two", withType(2)},
		{"2 in 2020-12", "2020-12", nots(2, s), "2 nested nots accept what the schema inside them accepts", "", nots(2, s)},
		{"50 in 2020-12", "2020-12", nots(50, s), "50 nested nots accept what the schema inside them accepts", "", nots(50, s)},
	}
	dialects := map[string]string{"draft-07": "http://json-schema.org/draft-07/schema#",
		"2020-12": "https://json-schema.org/draft/2020-12/schema"}
	on := map[string]Setting{"double-negation": "on"}
	instances := []string{`{"a":"abc"}`, `{"a":"a"}`, `{"a":1}`, `{"a":null}`, `{}`}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := `{"$schema":"` + dialects[tt.draft] + `","properties":{"a":` + tt.a + `}}`
			res := run(t, map[string]string{"s.json": text}, []string{"s.json"}, &Options{Rules: on})
			var got []string
			for _, f := range res.Findings {
				if f.Rule != "double-negation" {
					continue
				}
				fx := ""
				if f.Fix != nil {
					fx = f.Fix.Description
				}
				got = append(got, f.Pointer+": "+f.Message+" | "+fx)
			}
			var want []string
			if tt.msg != "" {
				want = []string{"/properties/a/not: " + tt.msg + " | " + tt.fix}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			fixed := run(t, map[string]string{"s.json": text}, []string{"s.json"}, &Options{Rules: on, Fix: true})
			out := []byte(text)
			if outs := fixed.Outputs(); len(outs) == 1 {
				out = outs[0].Data
			}
			doc, err := source.ParseJSON("s.json", out, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := doc.Root.Pointer("/properties/a")
			if got := string(source.AppendJSON(nil, a)); got != tt.fixed {
				t.Errorf("properties/a after --fix:\n got %s\nwant %s", got, tt.fixed)
			}
			before, err := compileText(t, "file:///s.json", "s.json", []byte(text), schema.Options{})
			if err != nil {
				t.Fatal(err)
			}
			after, err := compileText(t, "file:///s.json", "s.json", out, schema.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, inst := range instances {
				v, err := source.ParseJSON("i.json", []byte(inst), nil)
				if err != nil {
					t.Fatal(err)
				}
				vb, _ := before.Valid(v.Root)
				va, _ := after.Valid(v.Root)
				if vb != va {
					t.Errorf("instance %s: valid %v before the fix, %v after", inst, vb, va)
				}
			}
		})
	}
}

// TestDuplicateKeys finds a repeated key wherever it repeats: as the second key of its
// object, further on, more than once, at any depth.
func TestDuplicateKeys(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"type": "string", "type": "number"}`, "/type"},
		{`{"a": 1, "b": 2, "a": 3}`, "/a"},
		{`{"properties": {"x": {"not": {"not": {}, "not": true}}}}`, "/properties/x/not/not"},
		{`{"a": 1, "a": 2, "a": 3}`, "/a /a"},
		{`{"a": 1, "b": {"a": 1}, "c": [{"b": 1, "c": 2}]}`, ""},
	}
	for _, tt := range tests {
		res := lintOne(t, "s.json", tt.text, map[string]Setting{"all": "off", "duplicate-key": "on"})
		var got []string
		for _, f := range res.Findings {
			if f.Rule == "duplicate-key" {
				got = append(got, f.Pointer)
			}
		}
		if diff := cmp.Diff(tt.want, strings.Join(got, " ")); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestNewcomerHints: a value misspelt where the meta-schema allows a fixed set (the types,
// in every draft, alone or in an array, at any depth) is said as such, with the value meant,
// instead of "does not match any of the alternatives of anyOf"; so are a misspelt format and
// a misspelt draft URI in $schema.
func TestNewcomerHints(t *testing.T) {
	tests := []struct {
		name, text, rule, ptr, want string
	}{
		{"type", `{"type": "strng"}`, "invalid-schema", "/type",
			`"strng" is not a JSON Schema type; did you mean "string"?`},
		{"type in an array", `{"type": ["null", "strng"]}`, "invalid-schema", "/type/1",
			`"strng" is not a JSON Schema type; did you mean "string"?`},
		{"nested type, draft 2019-09", `{"$schema": "https://json-schema.org/draft/2019-09/schema", "properties": {"a": {"type": "integr"}}}`,
			"invalid-schema", "/properties/a/type", `"integr" is not a JSON Schema type; did you mean "integer"?`},
		{"draft 4", `{"$schema": "http://json-schema.org/draft-04/schema#", "items": {"type": "Number"}}`, "invalid-schema", "/items/type",
			`"Number" is not a JSON Schema type; did you mean "number"?`},
		{"draft 7, case", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "bool"}`, "invalid-schema", "/type",
			`"bool" is not a JSON Schema type ("array", "boolean", "integer", "null", "number", "object", "string")`},
		{"format", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "emial"}`, "unknown-format", "/format",
			`format "emial" is not defined by 2020-12; did you mean "email"?`},
		{"draft URI", `{"$schema": "http://json-schema.org/draft-07/shema#", "type": "string"}`, "invalid-schema", "/$schema",
			`unknown $schema "http://json-schema.org/draft-07/shema#": did you mean "http://json-schema.org/draft-07/schema#"? It is not a supported draft (4, 6, 7, 2019-09, 2020-12) and not a meta-schema that can be resolved offline`},
		{"draft URI, https", `{"$schema": "https://json-schema.org/draft/2020-12/schemas"}`, "invalid-schema", "/$schema",
			`unknown $schema "https://json-schema.org/draft/2020-12/schemas": did you mean "https://json-schema.org/draft/2020-12/schema"? It is not a supported draft (4, 6, 7, 2019-09, 2020-12) and not a meta-schema that can be resolved offline`},
		{"another violation stays as it was", `{"type": ["string", "string"]}`, "invalid-schema", "/type",
			"not valid against the meta-schema: value does not match any of the 2 alternatives of anyOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := lintOne(t, "s.json", tt.text, nil)
			var got []string
			for _, f := range res.Findings {
				if f.Rule == tt.rule {
					got = append(got, f.Pointer+": "+f.Message)
				}
			}
			if want := tt.ptr + ": " + tt.want; len(got) != 1 || got[0] != want {
				t.Errorf("%s findings %q, want exactly\n  %s", tt.rule, got, want)
			}
		})
	}
	if got := keywordOf("/properties/0/type/2"); got != "type" {
		t.Errorf("keywordOf: %q", got)
	}
	if got := enumMessage("in", "qurey", []string{"query", "path"}); got != `"qurey" is not one of the values the meta-schema allows for in; did you mean "query"?` {
		t.Errorf("enumMessage: %s", got)
	}
	if metaEnum("no-fragment") != nil || metaEnum("https://example.com/x#/enum") != nil || metaEnum("https://json-schema.org/draft/2020-12/meta/validation#/properties") != nil {
		t.Error("metaEnum answers where there is no built-in enum")
	}
}
