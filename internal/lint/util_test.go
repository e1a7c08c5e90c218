package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestRefsIn finds the references inside a subtree by the pointer of their schema: the
// schema at the pointer and those below it, not a sibling whose name the pointer begins.
func TestRefsIn(t *testing.T) {
	var x fixIndex
	for _, p := range []string{"/a", "/a/b", "/a-b", "/ab", "/a/b/c", "/b", ""} {
		x.refs = append(x.refs, &ref{n: &node{ptr: p}})
	}
	slices.SortFunc(x.refs, func(a, b *ref) int { return strings.Compare(a.n.ptr, b.n.ptr) })
	tests := []struct {
		p    string
		want []string
	}{
		{"", []string{"", "/a", "/a-b", "/a/b", "/a/b/c", "/ab", "/b"}},
		{"/a", []string{"/a", "/a/b", "/a/b/c"}},
		{"/a/b", []string{"/a/b", "/a/b/c"}},
		{"/a-b", []string{"/a-b"}},
		{"/c", nil},
	}
	for _, tt := range tests {
		var got []string
		if !x.refsIn(tt.p, func(r *ref) bool { got = append(got, r.n.ptr); return true }) {
			t.Errorf("refsIn(%q) reports a stop no call asked for", tt.p)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("refsIn(%q) (-want +got):\n%s", tt.p, diff)
		}
	}
	n := 0
	if x.refsIn("/a", func(*ref) bool { n++; return false }) || n != 1 {
		t.Errorf("refsIn goes on after its function returns false: %d calls", n)
	}
}
