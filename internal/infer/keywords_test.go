package infer

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The keywords infer copies and reads past, as the keyword model gives them: the lists
// infer kept before it asked the model.
func TestKeywordListsFromModel(t *testing.T) {
	t.Parallel()
	tablesOnce.Do(makeTables)
	ann := slices.Clone(annotationKeywords)
	slices.Sort(ann)
	want := []string{"$comment", "$id", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly"}
	if diff := cmp.Diff(want, ann); diff != "" {
		t.Errorf("annotationKeywords (-want +got):\n%s", diff)
	}
	var got []string
	for kw := range understood {
		got = append(got, kw)
	}
	slices.Sort(got)
	want = []string{"$anchor", "$comment", "$defs", "$dynamicAnchor", "$id", "$recursiveAnchor", "$ref", "$schema",
		"$vocabulary", "additionalProperties", "allOf", "const", "definitions", "enum", "exclusiveMaximum",
		"exclusiveMinimum", "format", "id", "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
		"minLength", "minProperties", "minimum", "multipleOf", "pattern", "properties", "required", "type"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("understood (-want +got):\n%s", diff)
	}
}
