package jsonschema

import (
	"context"
	"testing"
)

// The library must never panic, whatever the schema and the instance.

func FuzzCompile(f *testing.F) {
	for _, s := range []string{`{}`, `true`, `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#"}}}`,
		`{"type": "x"}`, `{"pattern": "(?<n>a)\\k<n>"}`, `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "x"}`,
		`{"$dynamicRef": "#meta", "$dynamicAnchor": "meta"}`, `[`, `{"allOf": [{"allOf": [{}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Compile(context.Background(), "https://fuzz.test/s.json", data, &Options{MaxDocumentDepth: 200})
		if err == nil {
			v := map[string]any{"a": []any{1, "x", nil}}
			s.Valid(context.Background(), v)
			s.Annotate(context.Background(), v)
			s.Output(context.Background(), v, Verbose)
		}
	})
}

func FuzzValidate(f *testing.F) {
	schemas := []string{
		`{"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 0.5}}, "required": ["a"], "additionalProperties": false}`,
		`{"items": {"anyOf": [{"pattern": "^a+$"}, {"minimum": 1e300}]}, "uniqueItems": true}`,
		`{"$defs": {"n": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/n"}}]}}, "$ref": "#/$defs/n"}`,
		`{"unevaluatedProperties": false, "oneOf": [{"properties": {"x": true}}, {"properties": {"y": true}}], "format": "date-time"}`,
	}
	var compiled []*Schema
	for _, s := range schemas {
		c, err := Compile(context.Background(), "", []byte(s), &Options{AssertFormat: true, MaxDocumentDepth: 200})
		if err != nil {
			f.Fatal(err)
		}
		compiled = append(compiled, c)
	}
	for i, d := range []string{`{"a": 1.5}`, `[1, 1, "aa"]`, `[[null], [[]]]`, `{"x": 1, "y": 2}`, `"2024-01-01T00:00:00Z"`, `{`} {
		f.Add(uint8(i), []byte(d))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := compiled[int(which)%len(compiled)]
		errs, err := s.ValidateBytes(context.Background(), data)
		if err == nil {
			for _, e := range errs {
				if e.Line < 1 {
					t.Fatalf("an error of bytes without a line: %+v", e)
				}
			}
		}
		// the output formats agree with the errors on the verdict
		for _, f := range []OutputFormat{Flag, Basic, Detailed, Verbose} {
			out, oerr := s.OutputBytes(context.Background(), data, f)
			if (oerr == nil) != (err == nil) {
				t.Fatalf("%s: OutputBytes says %v, ValidateBytes %v", f, oerr, err)
			}
			if oerr == nil && out.Valid != (len(errs) == 0) {
				t.Fatalf("%s: valid %v with %d errors", f, out.Valid, len(errs))
			}
		}
	})
}
