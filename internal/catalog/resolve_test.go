package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The catalog resolves as the loader does: the resolve map before a stray copy, no file
// over a built-in meta-schema, a duplicate $id named, the file beside the referring one.
func TestCatalogResolutionOrder(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"s.schema.json":            `{"$ref": "https://example.com/limit.json"}`,
		"lib/limit.schema.json":    `{"$id": "https://example.com/limit.json", "maximum": 10}`,
		"backup/limit.schema.json": `{"$id": "https://example.com/limit.json", "maximum": 1000}`,
		"m.schema.json":            `{"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}`,
		"evil.schema.json":         `{"$id": "https://json-schema.org/draft/2020-12/meta/validation", "type": "string"}`,
		"d.schema.json":            `{"$ref": "https://example.com/dup.json"}`,
		"a/dup.schema.json":        `{"$id": "https://example.com/dup.json"}`,
		"b/dup.schema.json":        `{"$id": "https://example.com/dup.json"}`,
		"shop/order.schema.json":   `{"$id": "https://example.com/schemas/order.json", "$ref": "customer.json"}`,
		"shop/customer.json":       `{"type": "object"}`,
		"elsewhere.schema.json":    `{"$id": "https://example.com/schemas/customer.json", "type": "string"}`,
	}
	w := scanFiles(t, files, &Options{Resolve: map[string]string{"https://example.com/limit.json": "lib/limit.schema.json"}})
	got := map[string]string{}
	for _, e := range w.Entries() {
		c := w.Context(e.Path, ContextLimits{})
		for _, r := range c.References {
			switch {
			case r.Target == nil:
				got[e.Path] = "unresolved: " + r.Unresolved
			case r.Target.Builtin:
				got[e.Path] = "built-in " + r.Target.URI
			default:
				got[e.Path] = r.Target.Path
			}
		}
		if e.Path == "d.schema.json" && e.Compiles {
			t.Error("a schema with an ambiguous reference compiles")
		}
	}
	want := map[string]string{
		"s.schema.json": "lib/limit.schema.json",
		"m.schema.json": "built-in https://json-schema.org/draft/2020-12/meta/validation",
		"d.schema.json": "unresolved: 2 files of the workspace declare the $id https://example.com/dup.json: " +
			"a/dup.schema.json, b/dup.schema.json; say which one with --resolve https://example.com/dup.json=PATH or in " +
			`jstk.json {"resolve": {"https://example.com/dup.json": "PATH"}}`,
		"shop/order.schema.json": "shop/customer.json",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	for _, e := range w.Entries() {
		if e.Path == "d.schema.json" && !strings.Contains(e.Problem, "ambiguous reference") {
			t.Errorf("problem %q", e.Problem)
		}
	}
}
