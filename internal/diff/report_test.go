package diff

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// clipPointer shortens long pointers at token boundaries and says how many tokens it left
// out; short ones are kept whole.
func TestClipPointer(t *testing.T) {
	deep := strings.Repeat("/x", 2000)
	for _, c := range []struct {
		in, want string
	}{
		{"", ""},
		{"/a/b", "/a/b"},
		{strings.Repeat("/x", 100), strings.Repeat("/x", 100)},
		{deep, strings.Repeat("/x", 49) + "/...(1901 more levels)..." + strings.Repeat("/x", 50)},
		{"s.json#/properties" + deep, "s.json#/properties" + strings.Repeat("/x", 40) + "/...(1910 more levels)..." + strings.Repeat("/x", 50)},
	} {
		got := clipPointer(c.in)
		if got != c.want {
			t.Errorf("clipPointer(%.40q...) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > maxPointer+40 {
			t.Errorf("clipPointer gives %d bytes", len(got))
		}
	}
}

// The text report of a change deep in a schema stays linear in the depth: each location it
// prints is cut (a chain of 4,000 levels printed 9 MB, each change its whole instance
// location).
func TestTextReportOfADeepChange(t *testing.T) {
	const depth = 1000
	nest := func(leaf string) string {
		return strings.Repeat(`{"type": "object", "properties": {"x": `, depth) + leaf + strings.Repeat(`}}`, depth)
	}
	old := compileText(t, "old.json", nest(`{"type": "string"}`))
	new := compileText(t, "new.json", nest(`{"type": "integer"}`))
	r, err := Compare(context.Background(), old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "more levels)...") {
		t.Errorf("no location was cut:\n%.2000s", b.String())
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) > 600 {
			t.Errorf("a line of %d bytes: %.300s...", len(line), line)
		}
	}
}
