package openapi

import (
	"path/filepath"
	"testing"

	"github.com/jstk-dev/jstk/internal/openapi/fixture"
	"github.com/jstk-dev/jstk/internal/schema"
)

// FuzzMatchSelf: any document the enumeration reads matches itself: every item is found on
// the other side, no change is reported, every schema location is a pair of the same item.
func FuzzMatchSelf(f *testing.F) {
	pairs, err := fixture.Read(filepath.Join("testdata", "pairs"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range pairs {
		f.Add(p.Files[p.Old])
		f.Add(p.Files[p.New])
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := schema.ParseDocument("f.yaml", []byte(text), nil)
		if err != nil {
			return
		}
		d := Open(doc, "f.yaml", "file:///f.yaml", nil)
		if d == nil {
			return
		}
		pairs, changes := Match(d, d)
		if len(changes) > 0 {
			t.Fatalf("a document changed against itself: %+v", changes[0])
		}
		keys := map[string]bool{}
		for _, it := range d.Items() {
			keys[it.Key] = true
		}
		for _, p := range pairs {
			if p.Old != p.New && p.Old.Key != p.New.Key {
				t.Fatalf("%s paired with %s", p.Old.Key, p.New.Key)
			}
			if !Same(d, p.Old, d.Target(p.Old.Schema), d, p.New, d.Target(p.New.Schema)) && !keys[p.New.Key] {
				t.Fatalf("%s: not the same as itself", p.New.Key)
			}
		}
		_ = d.NotASchema("")
	})
}
