package openapi

import (
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

func TestRequestAndResponseViews(t *testing.T) {
	d := open(t, "api.yaml", `openapi: 3.0.3
components:
  schemas:
    User:
      type: object
      required: [id, password, name]
      properties:
        id: {$ref: '#/components/schemas/Id'}
        password: {type: string, writeOnly: true}
        name: {type: string}
    Id: {type: string, readOnly: true}
    OnlyId:
      required: [id]
      properties: {id: {readOnly: true}}
    List:
      type: array
      items: {required: [id], properties: {id: {readOnly: true}, x: {}}}
`)
	valid := func(ptr string, role Role, instance string) bool {
		t.Helper()
		s, err := d.SchemaAs(ptr, role)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := source.ParseJSON("i.json", []byte(instance), nil)
		if err != nil {
			t.Fatal(err)
		}
		errs, err := s.Validate(doc.Root)
		if err != nil {
			t.Fatal(err)
		}
		return len(errs) == 0
	}
	tests := []struct {
		ptr      string
		role     Role
		instance string
		want     bool
	}{
		{"/components/schemas/User", Request, `{"password": "p", "name": "n"}`, true}, // id is readOnly (through $ref)
		{"/components/schemas/User", Request, `{"name": "n"}`, false},
		{"/components/schemas/User", Response, `{"id": "1", "name": "n"}`, true}, // password is writeOnly
		{"/components/schemas/User", Response, `{"password": "p", "name": "n"}`, false},
		{"/components/schemas/User", Shared, `{"id": "1", "name": "n"}`, false}, // read as written
		{"/components/schemas/OnlyId", Request, `{}`, true},                     // an emptied required list is dropped
		{"/components/schemas/List", Request, `[{"x": 1}]`, true},
		{"/components/schemas/List", Response, `[{"x": 1}]`, false},
	}
	for _, tc := range tests {
		if got := valid(tc.ptr, tc.role, tc.instance); got != tc.want {
			t.Errorf("%s as %s: %s valid = %v, want %v", tc.ptr, tc.role, tc.instance, got, tc.want)
		}
	}
	// the view keeps the positions of what it kept
	s, err := d.SchemaAs("/components/schemas/User/properties/name", Request)
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := s.Position(""); line != 10 {
		t.Errorf("name at line %d, want 10", line)
	}
	// OpenAPI 3.1 has no views; nor has a document whose schemas require no such property
	d31 := open(t, "a.json", `{"openapi": "3.1.0", "components": {"schemas": {"A": {"required": ["id"], "properties": {"id": {"readOnly": true}}}}}}`)
	s, err = d31.SchemaAs("/components/schemas/A", Request)
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := s.Validate(source.NullValue()); len(errs) != 0 {
		t.Errorf("null: %v", errs) // not an object: valid either way; the view must not fail
	}
	plain := open(t, "p.yaml", "openapi: 3.0.3\ncomponents:\n  schemas:\n    A: {required: [a], properties: {a: {}}}\n")
	if _, err := plain.SchemaAs("/components/schemas/A", Request); err != nil {
		t.Fatal(err)
	}
	if plain.views["readOnly"].compiler != nil {
		t.Error("a view made for a document that needs none")
	}
	bad := open(t, "b.yaml", "openapi: 3.0.3\ncomponents:\n  schemas:\n    A: {required: [a], properties: {a: {readOnly: true}}}\n    B: {type: [string]}\n")
	if _, err := bad.SchemaAs("/components/schemas/B", Response); err == nil || !strings.Contains(err.Error(), "not a valid openapi-3.0 schema") {
		t.Errorf("B compiled in a view: %v", err)
	}
}

func TestRewriteDepthBound(t *testing.T) {
	v := source.ArrayValue()
	if got, changed := rewriteRequired(v, v, "readOnly", maxRewriteDepth+1); changed || got.Kind() != source.Array {
		t.Error("rewrote past its depth bound")
	}
}
