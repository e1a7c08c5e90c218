package catalog

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// FuzzScan scans workspaces of three arbitrary documents. Properties: the catalog is sorted
// by path; every schema is found by its path and, when its id is its own, by its id; the
// references an entry lists lead to schemas of the catalog; a listing round-trips as JSON.
func FuzzScan(f *testing.F) {
	f.Add(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "b.json"}`, `{"enum": [1]}`, `{"$id": "https://x.test/c", "$ref": "a.schema.json#/$defs/x"}`)
	f.Add(`{"$schema": "http://json-schema.org/draft-04/schema#", "id": "https://x.test/a", "properties": {"p": {"$ref": "#p"}}}`, `[1]`, "type: object\n")
	f.Add(`{"$id": "https://x.test/a", "$defs": {"x": {"$dynamicAnchor": "x"}}}`, `{"$schema": "https://x.test/a"}`, `{"$ref": "https://x.test/a#x"}`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		files := map[string]string{"a.schema.json": a, "b.json": b, "c.yaml": c}
		w, err := Scan(context.Background(), workspace.Memory(files), &Options{Resolve: map[string]string{"https://x.test/": "."}})
		if err != nil {
			t.Fatal(err)
		}
		entries := w.Entries()
		if !sort.SliceIsSorted(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path }) {
			t.Fatalf("entries not sorted: %v", entries)
		}
		ids := map[string]int{}
		for _, e := range entries {
			ids[e.ID]++
		}
		for _, e := range entries {
			if c := w.Context(e.Path, ContextLimits{}); !c.Found || c.Schema.Path != e.Path {
				t.Fatalf("%s is not found by its path: %s", e.Path, c.Error)
			}
			if c := w.Context(e.ID, ContextLimits{}); ids[e.ID] == 1 && (!c.Found || c.Schema.Path != e.Path) {
				t.Fatalf("%s is not found by its id %q: %s", e.Path, e.ID, c.Error)
			}
			for _, r := range e.References {
				if ids[r] == 0 {
					t.Fatalf("%s refers to %q, which is not in the catalog", e.Path, r)
				}
			}
		}
		l, err := w.List(Query{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
	})
}
