package sample

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

func compileText(t testing.TB, text string, opts *schema.Options) *schema.Schema {
	t.Helper()
	doc, err := source.ParseJSON("s.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(opts)
	if err := c.AddDocument("file:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///s.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// samples generates n instances and checks each against the schema, with formats
// asserted.
func samples(t *testing.T, text string, opts *Options) []source.Value {
	t.Helper()
	s := compileText(t, text, nil)
	strict := compileText(t, text, &schema.Options{AssertFormat: true})
	res, err := Generate(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("no sample: %s", res.Failure.Reason)
	}
	for _, v := range res.Values() {
		if errs, _ := strict.Validate(v); len(errs) > 0 {
			t.Fatalf("invalid sample %s: %s %s", source.AppendJSON(nil, v), errs[0].KeywordLocation, errs[0].Message)
		}
	}
	return res.Values()
}

func TestKeywords(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		check  func(v source.Value) string // "" when fine
	}{
		{"const", `{"const": {"a": [1, 2]}}`, func(v source.Value) string { return "" }},
		{"enum filtered by type", `{"enum": [1, "a", null], "type": "string"}`, func(v source.Value) string {
			return want(v.Str() == "a", "want a")
		}},
		{"draft 4 const", `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "string", "const": "fixed-value"}`, func(v source.Value) string {
			return want(v.Str() == "fixed-value", "want fixed-value (the compiler applies a draft 4 const)")
		}},
		{"integer range", `{"type": "integer", "minimum": 5, "exclusiveMaximum": 7}`, nil},
		{"draft 4 exclusive", `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer", "minimum": 5, "exclusiveMinimum": true, "maximum": 6}`,
			func(v source.Value) string { return want(v.Str() == "6", "want 6") }},
		{"exact multipleOf", `{"type": "number", "multipleOf": 0.01, "minimum": 4191.9, "maximum": 4191.95}`, nil},
		{"multipleOf lcm", `{"allOf": [{"multipleOf": 0.3}, {"multipleOf": 0.5}], "minimum": 1}`, func(v source.Value) string {
			return want(v.Num().MultipleOf(source.MustDecimal("1.5")), "want a multiple of 1.5")
		}},
		{"tiny range", `{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1e-10}`, nil},
		{"big numbers", `{"type": "integer", "minimum": 1e30}`, nil},
		{"negative range", `{"type": "integer", "maximum": -1000}`, nil},
		{"string length", `{"type": "string", "minLength": 30, "maxLength": 31}`, nil},
		{"short string", `{"type": "string", "maxLength": 2}`, nil},
		{"pattern", `{"type": "string", "pattern": "^ORD-[0-9]{4}-[A-Z]{3}$"}`, nil},
		{"pattern and length", `{"type": "string", "pattern": "[a-z]+", "minLength": 12}`, nil},
		{"lookahead", `{"type": "string", "pattern": "^(?=.*[A-Z])(?=.*\\d)(?=.*[!@#]).{8,16}$"}`, nil},
		{"backreference", `{"type": "string", "pattern": "^(ab|cd)-\\1$"}`, nil},
		{"unicode class", `{"type": "string", "pattern": "^\\p{Lu}\\p{Ll}+$"}`, nil},
		{"two patterns", `{"allOf": [{"pattern": "^a"}, {"pattern": "z$"}], "type": "string"}`, nil},
		{"array bounds", `{"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "boolean"}}`, func(v source.Value) string {
			return want(v.Len() == 3, "want 3 items")
		}},
		{"unique items", `{"type": "array", "minItems": 3, "uniqueItems": true, "items": {"enum": [1, 2, 3]}}`, nil},
		{"prefixItems", `{"prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false, "minItems": 2}`, nil},
		{"draft 7 tuple", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"const": 1}], "additionalItems": false, "minItems": 1}`, nil},
		{"contains", `{"type": "array", "contains": {"const": "x"}, "minContains": 2, "maxContains": 2, "items": {"type": "string"}}`, nil},
		{"required and closed", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {}}, "required": ["a"], "additionalProperties": false}`, nil},
		{"allOf merged", `{"allOf": [{"properties": {"a": {"minimum": 3}}, "required": ["a"]}, {"properties": {"a": {"maximum": 3}}}]}`, func(v source.Value) string {
			a, _ := v.Get("a")
			return want(a.Str() == "3", "want a = 3")
		}},
		{"anyOf", `{"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]}`, nil},
		{"oneOf exactly one", `{"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}`, nil},
		{"oneOf on required", `{"type": "object", "properties": {"a": {}, "b": {}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`, nil},
		{"not", `{"type": ["string", "integer"], "not": {"type": "string"}}`, nil},
		{"not required", `{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "not": {"required": ["a", "b"]}}`, nil},
		{"if then else", `{"type": "object", "properties": {"kind": {"enum": ["card", "cash"]}, "last4": {"pattern": "^[0-9]{4}$"}}, "required": ["kind"],
			"if": {"properties": {"kind": {"const": "card"}}}, "then": {"required": ["last4"]}, "else": {"not": {"required": ["last4"]}}}`, nil},
		{"dependentRequired", `{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "dependentRequired": {"a": ["b"]}}`, func(v source.Value) string {
			return want(v.Has("b"), "want b")
		}},
		{"dependencies", `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {}}, "required": ["a"], "dependencies": {"a": {"required": ["c"], "properties": {"c": {"const": 1}}}}}`, func(v source.Value) string {
			return want(v.Has("c"), "want c")
		}},
		{"propertyNames", `{"type": "object", "propertyNames": {"pattern": "^x-"}, "minProperties": 2}`, nil},
		{"patternProperties", `{"type": "object", "patternProperties": {"^[0-9]+$": {"type": "integer"}}, "additionalProperties": false, "minProperties": 1}`, nil},
		{"unevaluatedProperties", `{"allOf": [{"properties": {"a": {"const": 1}}}], "required": ["a"], "unevaluatedProperties": false, "minProperties": 1}`, nil},
		{"unevaluatedItems", `{"prefixItems": [{"const": 1}], "unevaluatedItems": {"type": "string"}, "minItems": 3}`, nil},
		{"recursion bounded", `{"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}, "minItems": 1}}, "required": ["kids"]}}, "anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}`, nil},
		{"dynamicRef", `{"$id": "https://x.test/list", "$dynamicAnchor": "item", "type": "array", "items": {"$dynamicRef": "#item"}, "$defs": {"i": {"$dynamicAnchor": "item", "type": "string"}}}`, nil},
		{"false property", `{"properties": {"a": false}, "minProperties": 1}`, func(v source.Value) string {
			return want(!v.Has("a"), "a must be absent")
		}},
		{"boolean true", `true`, nil},
		{"content", `{"type": "string", "contentEncoding": "base64", "contentMediaType": "application/json"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range samples(t, tt.schema, &Options{Count: 8, Seed: 3}) {
				if tt.check != nil {
					if msg := tt.check(v); msg != "" {
						t.Errorf("%s: %s", source.AppendJSON(nil, v), msg)
					}
				}
			}
		})
	}
}

// With StrictDraft the compiler ignores a draft 4 const (a Lenient keyword), and so does
// sample: it generates strings other than the const's.
func TestDraft4ConstStrict(t *testing.T) {
	t.Parallel()
	s := compileText(t, `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "string", "const": "fixed-value"}`,
		&schema.Options{StrictDraft: true})
	res, err := Generate(context.Background(), s, &Options{Count: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	other := 0
	for _, v := range res.Values() {
		if v.Str() != "fixed-value" {
			other++
		}
	}
	if len(res.Values()) != 8 || other == 0 {
		t.Errorf("%d samples, %d other than the ignored const; want 8, some other", len(res.Values()), other)
	}
}

func want(ok bool, msg string) string {
	if ok {
		return ""
	}
	return msg
}

func TestFormats(t *testing.T) {
	for _, f := range schema.KnownFormats() {
		for _, d := range []string{"http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2020-12/schema"} {
			t.Run(f+" "+d, func(t *testing.T) {
				samples(t, fmt.Sprintf(`{"$schema": %q, "type": "string", "format": %q}`, d, f), &Options{Count: 10})
			})
		}
	}
	samples(t, `{"type": "string", "format": "email", "minLength": 40}`, nil)
	samples(t, `{"type": "string", "format": "uri", "minLength": 60}`, nil)
	samples(t, `{"type": "string", "format": "hostname", "minLength": 30}`, nil)
	samples(t, `{"type": "string", "format": "hostname", "maxLength": 8}`, nil)
	samples(t, `{"type": "string", "format": "x-custom", "minLength": 2}`, nil)
}

func TestUnsatisfiable(t *testing.T) {
	tests := []struct {
		name, schema, reason string
	}{
		{"disjoint types", `{"allOf": [{"type": "string"}, {"type": "integer"}]}`, "no type satisfies every schema here"},
		{"empty range", `{"type": "number", "minimum": 5, "maximum": 3}`, "no number is in range"},
		{"no multiple in range", `{"type": "integer", "minimum": 1, "maximum": 2, "multipleOf": 5}`, "no multiple of 5"},
		{"lengths", `{"type": "string", "minLength": 5, "maxLength": 3}`, "minLength 5 is greater than maxLength 3"},
		{"false", `false`, "is false"},
		{"enum", `{"enum": [1, 2], "type": "string"}`, "no value of the enum"},
		{"required but forbidden", `{"type": "object", "required": ["a"], "additionalProperties": false}`, `required property "a" is not allowed`},
		{"items", `{"type": "array", "minItems": 4, "maxItems": 2}`, "at least 4 items are needed but at most 2"},
		{"maxProperties", `{"type": "object", "required": ["a", "b"], "maxProperties": 1}`, "maxProperties is 1"},
		{"contains", `{"type": "array", "contains": {}, "minContains": 3, "maxContains": 1}`, "minContains 3 is greater than maxContains 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := compileText(t, tt.schema, nil)
			res, err := Generate(context.Background(), s, &Options{Count: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Samples) != 0 || res.Failure == nil {
				t.Fatalf("got %d samples, failure %v", len(res.Samples), res.Failure)
			}
			if !res.Failure.Unsatisfiable || !strings.Contains(res.Failure.Reason, tt.reason) {
				t.Errorf("failure %+v, want unsatisfiable with %q", res.Failure, tt.reason)
			}
			if res.ExitCode() != 1 || len(res.Diagnostics()) != 1 || res.Diagnostics()[0].Code != "sample/unsatisfiable" {
				t.Errorf("exit %d, diagnostics %v", res.ExitCode(), res.Diagnostics())
			}
			var buf bytes.Buffer
			if err := res.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "the schema is unsatisfiable") {
				t.Errorf("text %q, %v", buf.String(), err)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	for _, text := range []string{`{"type": "array", "minItems": 1000000000}`, `{"type": "string", "minLength": 1000000000}`,
		`{"type": "object", "minProperties": 1000000000}`} {
		res, err := Generate(context.Background(), compileText(t, text, nil), &Options{Attempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil || !strings.Contains(res.Failure.Reason, "too") {
			t.Errorf("%s: failure %+v", text, res.Failure)
		}
	}
	// A bound too large to compute with is left to the final check.
	res, _ := Generate(context.Background(), compileText(t, `{"type": "number", "minimum": 1e100000000}`, nil), &Options{Attempts: 2})
	if res.Failure == nil {
		t.Errorf("minimum 1e100000000: got %s", res.Samples)
	}
}

// A schema that validation cannot evaluate says why, not only that it could not.
func TestReferenceLoop(t *testing.T) {
	text := `{"properties": {"p": {"$ref": "#/$defs/a"}}, "required": ["p"], "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}`
	res, err := Generate(context.Background(), compileText(t, text, nil), &Options{Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || !strings.Contains(res.Failure.Reason, "could not be validated: reference loop") {
		t.Errorf("failure %+v", res.Failure)
	}
}

func TestBudgetExhausted(t *testing.T) {
	// The pattern requires 64 hex digits that, read as text, also satisfy a not: any
	// attempt fails, but the schema is not provably contradictory.
	s := compileText(t, `{"type": "string", "pattern": "^[0-9a-f]{64}$", "not": {"pattern": "[0-9]"}}`, nil)
	res, err := Generate(context.Background(), s, &Options{Attempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Unsatisfiable || res.Failure.Attempts != 3 {
		t.Fatalf("failure %+v", res.Failure)
	}
	if res.Diagnostics()[0].Code != "sample/not-found" {
		t.Errorf("diagnostics %v", res.Diagnostics())
	}
}

func TestDeterministic(t *testing.T) {
	text := `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}, "c": {"type": "array", "items": {"format": "uuid"}}}}`
	s := compileText(t, text, nil)
	run := func(seed int64) string {
		res, err := Generate(context.Background(), s, &Options{Count: 20, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := res.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Errorf("same seed, different output")
	}
	if a == c {
		t.Errorf("different seeds, same output")
	}
	if n := strings.Count(a, "\n"); n != 20 {
		t.Errorf("NDJSON with %d lines, want 20", n)
	}
}

func TestOptions(t *testing.T) {
	text := `{"type": "object", "properties": {"a": {"type": "string", "examples": ["ex1", 5]}, "b": {"type": "integer", "default": 42}, "c": {}}, "required": ["a"]}`
	for _, v := range samples(t, text, &Options{Count: 5, RequiredOnly: true}) {
		if v.Len() != 1 || !v.Has("a") {
			t.Errorf("required only: %s", source.AppendJSON(nil, v))
		}
	}
	for _, v := range samples(t, text, &Options{Count: 5, AllOptional: true}) {
		if v.Len() != 3 {
			t.Errorf("all optional: %s", source.AppendJSON(nil, v))
		}
	}
	for _, v := range samples(t, text, &Options{Count: 5, AllOptional: true, UseExamples: true}) {
		a, _ := v.Get("a")
		b, _ := v.Get("b")
		if a.Str() != "ex1" || b.Str() != "42" {
			t.Errorf("use examples: %s", source.AppendJSON(nil, v))
		}
	}
}

func TestInvalid(t *testing.T) {
	text := `{"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}, "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
		"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1, "maxItems": 3}, "kind": {"enum": ["a", "b"]}, "n": {"multipleOf": 2, "maximum": 10}},
		"required": ["id", "name", "tags"], "additionalProperties": false, "maxProperties": 5, "dependentRequired": {"kind": ["n"]}}`
	s := compileText(t, text, nil)
	res, err := Generate(context.Background(), s, &Options{Count: 40, Invalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("failure: %s", res.Failure.Reason)
	}
	kinds := map[string]bool{}
	for i, v := range res.Values() {
		errs, _ := s.Validate(v)
		if len(errs) != 1 {
			t.Fatalf("sample %s has %d errors", source.AppendJSON(nil, v), len(errs))
		}
		if diff := cmp.Diff(errs[0].KeywordLocation, res.Violations[i].KeywordLocation); diff != "" {
			t.Errorf("label: %s", diff)
		}
		kinds[res.Violations[i].Keyword] = true
	}
	var got []string
	for k := range kinds {
		got = append(got, k)
	}
	slices.Sort(got)
	for _, k := range []string{"additionalProperties", "enum", "maxItems", "maxLength", "minItems", "minLength", "minimum", "pattern", "required", "type", "uniqueItems"} {
		if !kinds[k] {
			t.Errorf("no instance breaking %s; got %v", k, got)
		}
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(buf.String(), "\n")
	var x struct {
		Instance any
		Violates struct{ Keyword, InstanceLocation, KeywordLocation, Message string }
	}
	if err := json.Unmarshal([]byte(line), &x); err != nil || x.Violates.Keyword == "" {
		t.Errorf("text line %q: %v", line, err)
	}
	// A schema that accepts everything has nothing to break.
	res, _ = Generate(context.Background(), compileText(t, `{}`, nil), &Options{Invalid: true})
	if res.Failure == nil || !strings.Contains(res.Failure.Reason, "accepts every instance") {
		t.Errorf("failure %+v", res.Failure)
	}
}

func TestWriteText(t *testing.T) {
	s := compileText(t, `{"type": "object", "properties": {"a": {"const": 1}}, "required": ["a"]}`, nil)
	res, _ := Generate(context.Background(), s, nil)
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("{\n  \"a\": 1\n}\n", buf.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if res.ExitCode() != 0 || res.Diagnostics() != nil || res.Requested != 1 {
		t.Errorf("exit %d, diagnostics %v", res.ExitCode(), res.Diagnostics())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Generate(ctx, s, nil); err == nil {
		t.Errorf("cancelled: no error")
	}
}

func TestPatterns(t *testing.T) {
	patterns := []string{
		`^[a-z]{3}$`, `^\d+(\.\d{1,2})?$`, `^(?:[A-Z][a-z]+ ?){1,3}$`, `^[^@\s]+@[^@\s]+\.[a-z]{2,}$`,
		`^(?!foo)[a-z]{3}$`, `^(?=[a-z])\w{5}$`, `(x)(y)\2\1`, `^\p{L}{2,4}$`, `[\u0400-\u04FF]`, `^$`,
		`^a|b$`, `^[\s\S]{3}$`, `\bword\b`, `^(?<year>\d{4})-\k<year>$`, `^.{0}$`, `[^\x00-\x7F]`,
		`^https?://[a-z0-9.-]+(/.*)?$`, `^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-.]+)?$`,
	}
	r := rand.New(rand.NewPCG(1, 1))
	for _, p := range patterns {
		pg, err := newPatternGen(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for range 20 {
			s, ok := pg.fit(r, 0, -1, 20, nil)
			if !ok || !pg.matches(s) {
				t.Errorf("%s: no match (got %q)", p, s)
				break
			}
		}
	}
	for _, p := range []string{`^a{1000000}$`, `^(b{10000}){10000}$`} {
		pg, _ := newPatternGen(p)
		if _, ok := pg.generate(r, repShort); ok {
			t.Errorf("%s: generated", p)
		}
	}
	pg, _ := newPatternGen(`[]`)
	if _, ok := pg.fit(r, 0, -1, 5, nil); ok {
		t.Errorf("[] matched")
	}
}

func FuzzSampleValid(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x+$"}},"required":["a"]}`)
	f.Add(`{"oneOf":[{"type":"integer","multipleOf":3},{"type":"string","maxLength":1}]}`)
	f.Add(`{"type":"array","items":{"enum":[1,2,3]},"uniqueItems":true,"minItems":2}`)
	f.Add(`{"allOf":[{"minimum":1.5},{"exclusiveMaximum":2}]}`)
	f.Add(`{"if":{"required":["a"]},"then":{"properties":{"b":{"const":true}},"required":["b"]},"else":{"type":"string"}}`)
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := source.ParseJSON("f.json", []byte(text), nil)
		if err != nil {
			return
		}
		c := schema.NewCompiler(&schema.Options{RegexTimeout: 50e6})
		if c.AddDocument("file:///f.json", doc) != nil {
			return
		}
		s, err := c.Compile("file:///f.json")
		if err != nil {
			return
		}
		for _, invalid := range []bool{false, true} {
			res, err := Generate(context.Background(), s, &Options{Count: 2, Attempts: 4, Budget: 500, Invalid: invalid})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Values() {
				errs, err := s.Validate(v)
				if err != nil {
					continue // a pattern that took too long to decide
				}
				if !invalid && len(errs) > 0 {
					t.Fatalf("sample %s is invalid: %s", source.AppendJSON(nil, v), errs[0].Message)
				}
				if invalid && len(errs) != 1 {
					t.Fatalf("invalid sample %s has %d errors", source.AppendJSON(nil, v), len(errs))
				}
			}
			if len(res.Values()) < 2 && res.Failure == nil {
				t.Fatalf("fewer samples than asked and no failure")
			}
		}
	})
}

// dependentRequired members whose dependencies cannot all be had are dropped for good: a
// needs b, b needs c, and c is not allowed. (a brought b back each time b was dropped, and
// generation never ended.)
func TestDependenciesDropForGood(t *testing.T) {
	text := `{"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": false,
		"dependentRequired": {"a": ["b"], "b": ["c"]}}`
	// Generate runs on a goroutine of its own so that a hang fails the test; samples (which
	// may call t.Fatal, not allowed off the test's goroutine) checks the result here.
	s := compileText(t, text, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Generate(context.Background(), s, &Options{Count: 3, AllOptional: true})
	}()
	select {
	case <-done:
		for _, v := range samples(t, text, &Options{Count: 3, AllOptional: true}) {
			if v.Has("a") || v.Has("b") {
				t.Errorf("%s: a or b without c", source.AppendJSON(nil, v))
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("generation does not end")
	}
}

// A pattern only the backtracking engine runs, whose matches run out of time (nested
// quantifiers, and an end anchor followed by more), is not matched again once one match
// has: generation stops after one time-out and says why. (Each of hundreds of tries cost
// the 2 s limit: one instance took minutes.)
func TestPatternOutOfTime(t *testing.T) {
	s := compileText(t, `{"type": "string", "pattern": "^(?:-?\\s*.)*x$c{1,4}"}`, nil)
	done := make(chan *Result, 1)
	go func() {
		res, err := Generate(context.Background(), s, &Options{Count: 3})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil || res.Failure == nil || !strings.Contains(res.Failure.Reason, "time limit") {
			t.Errorf("failure %+v, want one naming the time limit", res)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("generation does not end")
	}
}
