package lint

import (
	"slices"
	"testing"
)

// The keywords that constrain nothing by the model's columns (an applicator's empty map of
// subschemas, a keyword written with its schema.Keyword.Default) are reported with the
// messages lint gave when it kept a check of its own for each.
func TestTrivialKeywordsFromModel(t *testing.T) {
	t.Parallel()
	const d4, d7, d2020 = "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"
	for _, c := range []struct {
		draft, member, pointer, want string // want "": nothing reported at pointer
	}{
		{d2020, `"minLength": 0`, "/minLength", "minLength: 0 is the default"},
		{d2020, `"minItems": 0.0`, "/minItems", "minItems: 0 is the default"},
		{d7, `"minProperties": 0`, "/minProperties", "minProperties: 0 is the default"},
		{d2020, `"minLength": 1`, "/minLength", ""},
		{d2020, `"uniqueItems": false`, "/uniqueItems", "uniqueItems: false is the default"},
		{d2020, `"uniqueItems": true`, "/uniqueItems", ""},
		{d4, `"exclusiveMinimum": false, "minimum": 1`, "/exclusiveMinimum", "exclusiveMinimum: false is the default"},
		{d4, `"exclusiveMaximum": true, "maximum": 1`, "/exclusiveMaximum", ""},
		{d7, `"exclusiveMaximum": 0`, "/exclusiveMaximum", ""},
		{d2020, `"patternProperties": {}`, "/patternProperties", "patternProperties: {} declares nothing"},
		{d2020, `"dependentSchemas": {}`, "/dependentSchemas", "dependentSchemas: {} declares nothing"},
		{d7, `"dependencies": {}`, "/dependencies", "dependencies: {} declares nothing"},
		{d2020, `"dependentRequired": {}`, "/dependentRequired", "dependentRequired: {} declares nothing"},
		{d2020, `"$defs": {}`, "/$defs", ""},
	} {
		text := `{"$schema": "` + c.draft + `", ` + c.member + `}`
		res := lintOne(t, "s.json", text, map[string]Setting{"redundant-keyword": "on"})
		var got []string
		for _, f := range res.Findings {
			if f.Pointer == c.pointer {
				got = append(got, f.Message)
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && !slices.Contains(got, c.want) {
			t.Errorf("%s: findings at %s %q, want %q", text, c.pointer, got, c.want)
		}
	}
}
