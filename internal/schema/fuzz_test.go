package schema

import (
	"bytes"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/jstk-dev/jstk/internal/source"
)

var fuzzSeeds = []struct{ schema, instance string }{
	{`{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "minimum": 1}}}`, `{"a": 0}`},
	{`{"anyOf": [{"type": "string", "maxLength": 3}, {"type": "number", "multipleOf": 0.01}]}`, `4191.9`},
	{`{"oneOf": [{"minimum": 2}, {"maximum": 5}], "not": {"const": 3}}`, `7`},
	{`{"items": {"$ref": "#"}, "maxItems": 2, "uniqueItems": true}`, `[[], [[1, 1.0]]]`},
	{`{"prefixItems": [{"type": "null"}], "items": false, "contains": {"type": "null"}, "minContains": 1}`, `[null, null]`},
	{`{"properties": {"x": true}, "patternProperties": {"^y": {"enum": [1, "a"]}}, "additionalProperties": false}`, `{"x": 1, "yy": "a", "z": 2}`},
	{`{"if": {"required": ["k"]}, "then": {"minProperties": 2}, "else": {"maxProperties": 0}}`, `{"k": 1}`},
	{`{"$defs": {"n": {"type": "integer"}}, "dependentSchemas": {"a": {"$ref": "#/$defs/n"}}, "dependentRequired": {"b": ["c"]}}`, `{"b": 1}`},
	{`{"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`},
	{`{"propertyNames": {"pattern": "^[a-z]+$", "minLength": 2}, "minLength": 1}`, `{"ab": 1, "B": 2}`},
	{`{"type": ["string", "null"], "pattern": "a+b", "format": "email"}`, `"xaab"`},
	{`{"exclusiveMinimum": 0, "exclusiveMaximum": 1e308, "multipleOf": 1e-8}`, `1e-9`},
}

// FuzzValidate checks evaluation's properties on arbitrary schemas and instances: it never
// panics, it is deterministic, the verdict of Valid matches the errors of Validate, and it
// agrees with santhosh-tekuri/jsonschema (an independent implementation) whenever both
// accept the schema and the schema stays out of the areas where the two differ on purpose.
func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.schema, s.instance)
	}
	f.Fuzz(func(t *testing.T, schemaText, instanceText string) {
		sdoc, err := source.ParseJSON("schema.json", []byte(schemaText), nil)
		if err != nil {
			return
		}
		idoc, err := source.ParseJSON("instance.json", []byte(instanceText), nil)
		if err != nil {
			return
		}
		c := NewCompiler(&Options{RegexTimeout: 50e6})
		const uri = "https://jstk.test/fuzz.json"
		if err := c.AddDocument(uri, sdoc); err != nil {
			return
		}
		s, err := c.Compile(uri)
		if err != nil {
			return
		}
		ok, err1 := s.Valid(idoc.Root)
		errs, err2 := s.Validate(idoc.Root)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Valid and Validate disagree on failing: %v / %v", err1, err2)
		}
		if err1 != nil {
			return // a pattern timed out or a reference loops: reported, not a verdict
		}
		if ok != (len(errs) == 0) {
			t.Fatalf("Valid says %v, Validate found %d errors: %v", ok, len(errs), errs)
		}
		errs2, _ := s.Validate(idoc.Root)
		if len(errs2) != len(errs) {
			t.Fatalf("not deterministic: %d then %d errors", len(errs), len(errs2))
		}
		for i := range errs {
			if errs[i].Message != errs2[i].Message || errs[i].KeywordLocation != errs2[i].KeywordLocation {
				t.Fatalf("not deterministic: %v then %v", errs[i], errs2[i])
			}
		}
		// Differential check against an independent implementation.
		if !comparable(schemaText) {
			return
		}
		theirs, ok2 := santhoshVerdict(schemaText, instanceText)
		if ok2 && theirs != ok {
			t.Fatalf("verdicts differ: jstk says valid=%v, santhosh-tekuri says valid=%v\nschema: %s\ninstance: %s\nerrors: %v",
				ok, theirs, schemaText, instanceText, errs)
		}
	})
}

// comparable leaves out schemas where the two implementations differ by design: regular
// expressions (santhosh-tekuri uses RE2 syntax, jstk ECMA-262), formats, and $schema.
func comparable(schemaText string) bool {
	for _, kw := range []string{`"pattern`, `"format"`, `"$schema"`, `"$id"`, `"$anchor"`, `"$dynamic`, `"$vocabulary"`, `"content`} {
		if strings.Contains(schemaText, kw) {
			return false
		}
	}
	return true
}

func santhoshVerdict(schemaText, instanceText string) (valid, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	sdoc, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(schemaText)))
	if err != nil {
		return false, false
	}
	inst, err := santhosh.UnmarshalJSON(bytes.NewReader([]byte(instanceText)))
	if err != nil {
		return false, false
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource("https://jstk.test/fuzz.json", sdoc); err != nil {
		return false, false
	}
	s, err := c.Compile("https://jstk.test/fuzz.json")
	if err != nil {
		return false, false
	}
	return s.Validate(inst) == nil, true
}
