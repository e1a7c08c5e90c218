package catalog

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// OpenAPI and AsyncAPI documents are never catalogued as schemas, even when a schema refers
// into one; their schemas are listed, each with the id every tool takes (PATH#POINTER).
func TestAPIDocuments(t *testing.T) {
	files := map[string]string{
		"api/openapi.yaml": "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/A'}\ncomponents:\n  schemas:\n    A: {type: string}\n",
		"events.json":      `{"asyncapi": "3.0.0", "info": {"title": "t", "version": "1"}, "components": {"schemas": {"E": {"type": "object"}}}}`,
		"user.schema.json": `{"$ref": "api/openapi.yaml#/components/schemas/A"}`,
	}
	w := scanFiles(t, files, nil)
	if diff := cmp.Diff(map[string]string{"user.schema.json": "name"}, detected(w)); diff != "" {
		t.Errorf("catalogued (-want +got):\n%s", diff)
	}
	for _, e := range w.Entries() {
		if !e.Valid || !e.Compiles {
			t.Errorf("%s: %s", e.Path, e.Problem)
		}
	}
	l, err := w.List(Query{})
	if err != nil {
		t.Fatal(err)
	}
	want := []APIDocument{
		{Path: "api/openapi.yaml", Kind: "openapi", Version: "3.1.0", Count: 2, Schemas: []APISchema{
			{ID: "api/openapi.yaml#/paths/~1a/get/responses/200/content/application~1json/schema", Name: "GET /a response 200 application/json"},
			{ID: "api/openapi.yaml#/components/schemas/A", Name: "component schema A"}}},
		{Path: "events.json", Kind: "asyncapi", Version: "3.0.0", Count: 1, Schemas: []APISchema{
			{ID: "events.json#/components/schemas/E", Name: "component schema E"}}},
	}
	if diff := cmp.Diff(want, l.Documents, cmpopts.IgnoreUnexported(APIDocument{})); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	var text bytes.Buffer
	if err := l.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"events.json: AsyncAPI 3.0.0 document, 1 schema", "    #/components/schemas/A  component schema A"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
	// a query and a selection narrow the documents too
	if l, _ := w.List(Query{Text: "asyncapi"}); len(l.Documents) != 1 || l.Documents[0].Path != "events.json" {
		t.Errorf("query asyncapi: %+v", l.Documents)
	}
	if l, _ := w.List(Query{Paths: []string{"events.json"}}); len(l.Documents) != 1 || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "AsyncAPI 3.0.0 document") {
		t.Errorf("path events.json: %+v %v", l.Documents, l.Notes)
	}
}
