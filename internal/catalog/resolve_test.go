package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A draft-07 schema whose root is a $ref into its own definitions (the SchemaStore
// layout): the references inside the definitions it reaches are its references too, and
// the schemas they lead to are referenced by it.
func TestContextFollowsRootRef(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"app.json": `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$id": "https://example.com/app.json",
  "$ref": "#/definitions/config",
  "definitions": {
    "config": {"type": "object", "properties": {
      "server": {"$ref": "#/definitions/server"},
      "owner": {"$ref": "common.json#/definitions/person"}}},
    "server": {"properties": {"port": {"$ref": "common.json#/definitions/port"}, "self": {"$ref": "#/definitions/server"}}},
    "unused": {"$ref": "never.json"}
  }
}`,
		"common.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/common.json",
  "definitions": {"person": {"type": "string"}, "port": {"type": "integer"}}}`,
	}
	w := scanFiles(t, files, nil)
	c := w.Context("https://example.com/app.json", ContextLimits{})
	if !c.Found {
		t.Fatal(c.Error)
	}
	var refs []string
	for _, r := range c.References {
		to := "unresolved"
		if r.Target != nil {
			to = r.Target.Path + "#" + r.Target.Pointer
		}
		refs = append(refs, r.Pointer+" -> "+to)
	}
	want := []string{
		"/definitions/config/properties/owner/$ref -> common.json#/definitions/person",
		"/definitions/server/properties/port/$ref -> common.json#/definitions/port",
		"/$ref -> app.json#/definitions/config",
		"/definitions/config/properties/server/$ref -> app.json#/definitions/server",
		"/definitions/server/properties/self/$ref -> app.json#/definitions/server",
	}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	if *c.RefCounts != (RefCounts{Total: 5, Local: 3, Workspace: 2}) {
		t.Errorf("counts %+v", *c.RefCounts)
	}
	common := w.Context("https://example.com/common.json", ContextLimits{})
	var in []string
	for _, r := range common.ReferencedBy {
		in = append(in, r.Path+" "+r.Pointer)
	}
	if diff := cmp.Diff([]string{"app.json /definitions/config/properties/owner/$ref", "app.json /definitions/server/properties/port/$ref"}, in); diff != "" {
		t.Errorf("referenced by (-want +got):\n%s", diff)
	}
	if e := common.Schema; e.ReferencedBy != 1 {
		t.Errorf("referencedBy %d", e.ReferencedBy)
	}
}

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
