package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContextAt(t *testing.T) {
	t.Parallel()
	w := scanFiles(t, map[string]string{
		"defs.schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.com/defs.json",
  "$defs": {
    "address": {"type": "object", "required": ["city"],
      "properties": {"city": {"type": "string"}, "zip": {"$ref": "#/$defs/zip"}, "country": {"$ref": "other.schema.json"}}},
    "zip": {"type": "string", "minLength": -1}
  }
}`,
		"other.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"home": {"$ref": "defs.schema.json#/$defs/address"}}}`,
		"api.yaml": "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n" +
			"      properties:\n        owner: {$ref: '#/components/schemas/Owner'}\n    Owner: {type: string}\n    List: {type: array, items: {$ref: '#/components/schemas/Pet'}}\n",
	}, nil)

	c := w.ContextAt("https://example.com/defs.json", "/$defs/address", ContextLimits{})
	if !c.Found || c.ID != "https://example.com/defs.json#/$defs/address" || c.Pointer != "/$defs/address" || c.Schema == nil {
		t.Fatalf("context: %+v", c)
	}
	if diff := cmp.Diff([]string{"city"}, c.Shape.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	var refs []string
	for _, r := range c.References {
		refs = append(refs, r.Pointer+" "+r.Ref)
	}
	want := []string{"/$defs/address/properties/country/$ref other.schema.json", "/$defs/address/properties/zip/$ref #/$defs/zip"}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	if len(c.ReferencedBy) != 1 || c.ReferencedBy[0].Path != "other.schema.json" || c.ReferencedBy[0].Pointer != "/properties/home/$ref" {
		t.Errorf("referenced by: %+v", c.ReferencedBy)
	}
	if len(c.Problems) != 0 || !strings.HasPrefix(c.Text, "{\n  \"type\": \"object\"") {
		t.Errorf("problems %+v, text %q", c.Problems, c.Text)
	}
	// The id may carry the pointer; a subschema's problems and incoming local references.
	c = w.ContextAt("defs.schema.json#/$defs/zip", "", ContextLimits{})
	if !c.Found || len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Message, "minimum 0") {
		t.Errorf("zip: found %v, problems %+v", c.Found, c.Problems)
	}
	if len(c.ReferencedBy) != 1 || c.ReferencedBy[0].Pointer != "/$defs/address/properties/zip/$ref" {
		t.Errorf("zip referenced by: %+v", c.ReferencedBy)
	}
	// An OpenAPI document, which is no schema of the catalog.
	c = w.ContextAt("api.yaml", "/components/schemas/Pet", ContextLimits{})
	if !c.Found || c.Schema != nil || c.Document != "api.yaml: OpenAPI 3.1.0 document" {
		t.Fatalf("Pet: %+v", c)
	}
	if len(c.References) != 1 || c.References[0].Target == nil || c.References[0].Target.Pointer != "/components/schemas/Owner" {
		t.Errorf("Pet references: %+v", c.References)
	}
	if len(c.ReferencedBy) != 1 || c.ReferencedBy[0].Pointer != "/components/schemas/List/items/$ref" {
		t.Errorf("Pet referenced by: %+v", c.ReferencedBy)
	}
	if c.RefCounts == nil || c.RefCounts.Local != 1 {
		t.Errorf("ref counts: %+v", c.RefCounts)
	}
	// What fails: nothing there, no schema there, no such document, not a pointer.
	for _, tt := range []struct{ id, ptr, want string }{
		{"api.yaml", "/components/schemas/Nope", "api.yaml has nothing at #/components/schemas/Nope; #/components/schemas holds: Pet, Owner, List"},
		{"api.yaml", "/info/title", "api.yaml#/info/title is a string, not a schema"},
		{"nope.yaml", "/a", `no schema or file of the workspace has the id "nope.yaml"`},
		{"api.yaml", "components", `"components" is not a JSON Pointer`},
	} {
		c := w.ContextAt(tt.id, tt.ptr, ContextLimits{})
		if c.Found || !strings.Contains(c.Error, tt.want) || c.Failure() == nil || c.ExitCode() != 2 {
			t.Errorf("ContextAt(%q, %q): found %v, error %q, want %q", tt.id, tt.ptr, c.Found, c.Error, tt.want)
		}
	}
	// The text report names the schema inside its document.
	var b strings.Builder
	if err := w.ContextAt("api.yaml", "/components/schemas/Pet", ContextLimits{Limit: 1}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"api.yaml#/components/schemas/Pet\nin: api.yaml: OpenAPI 3.1.0 document\n", "properties (1):\n  owner",
		"referenced by 1 schema (1 reference):\n  api.yaml:", "text of api.yaml#/components/schemas/Pet:\n{"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
