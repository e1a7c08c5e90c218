package sample

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The keywords that assert nothing, as the keyword model gives them: the list sample kept
// before it asked the model.
func TestAnnotationOnlyFromModel(t *testing.T) {
	t.Parallel()
	want := []string{"$anchor", "$comment", "$defs", "$id", "$schema", "$vocabulary", "default", "definitions",
		"deprecated", "description", "examples", "id", "readOnly", "title", "writeOnly"}
	var got []string
	for kw := range annotationOnly() {
		got = append(got, kw)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotationOnly (-want +got):\n%s", diff)
	}
}
