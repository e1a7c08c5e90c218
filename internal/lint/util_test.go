package lint

import (
	"slices"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// duplicates finds the values equal to an earlier one, containers by hash and Equal.
func TestDuplicates(t *testing.T) {
	doc, err := source.ParseJSON("v.json", []byte(`[1, "1", 1.0, {"a": 1, "b": [2]}, {"b": [2.0], "a": 1}, [1, 2], [2, 1], [1, 2], {"a": 2}, null, null, true]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := duplicates(doc.Root.Items()), []int{2, 4, 7, 10}; !slices.Equal(got, want) {
		t.Errorf("duplicates = %v, want %v", got, want)
	}
}
