package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const petstore30 = `openapi: 3.0.3
info: {title: pets, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string, nullable: true}
        age: {type: integer, minimum: 0, exclusiveMinimum: true}
        tag: {$ref: '#/components/schemas/Tag'}
        kind: {type: string, enum: [cat, dog], nullable: true}
        anything: {nullable: true}
    Tag:
      type: string
      maxLength: 3
      example: abc
    Bad:
      type: [string, "null"]
    Wrapped:
      $schema: "http://json-schema.org/draft-07/schema#"
      const: 1
`

// compileAt compiles the schema at ptr of the file name in an in-memory workspace.
func compileAt(t *testing.T, files map[string]string, name, ptr string, dialects map[string]string) (*Schema, error) {
	t.Helper()
	fsys := workspace.Memory(files)
	c := NewCompiler(&Options{Loader: &Loader{FS: fsys}})
	uri := FileURI(fsys.Abs(name))
	if dialects != nil {
		doc, err := ParseDocument(name, []byte(files[name]), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddContainer(uri, doc, dialects); err != nil {
			return nil, err
		}
	}
	return c.CompileAt(uri, ptr)
}

func verdicts(t *testing.T, s *Schema, instances []string) []bool {
	t.Helper()
	var out []bool
	for _, text := range instances {
		errs, err := s.Validate(parse(t, text).Root)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, len(errs) == 0)
	}
	return out
}

func TestContainerSchemas(t *testing.T) {
	asyncapi := `{"asyncapi": "2.6.0", "info": {"title": "t", "version": "1"}, "channels": {},
	  "components": {"schemas": {
	    "A": {"type": "integer", "exclusiveMinimum": 0},
	    "O": {"type": "string", "nullable": true}}}}`
	openapi31 := `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
	  "components": {"schemas": {
	    "A": {"type": ["string", "null"], "discriminator": {"propertyName": "x"}, "example": 1},
	    "B": {"$id": "https://x.test/b", "properties": {"b": {"$ref": "#/$defs/c"}}, "$defs": {"c": {"type": "integer"}}},
	    "C": {"$ref": "https://x.test/b"},
	    "D": {"prefixItems": [{"type": "integer"}], "items": false}}}}`
	// Strict extends Tree through its dynamic anchor: the anchors of schemas entered in a
	// document are compiled for $dynamicRef as a schema file's are.
	openapi31dyn := `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
	  "components": {"schemas": {
	    "Tree": {"$id": "https://x.test/tree", "$dynamicAnchor": "node", "type": "object",
	      "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}},
	    "Strict": {"$ref": "#/components/schemas/Tree",
	      "$defs": {"n": {"$dynamicAnchor": "node", "$ref": "#/components/schemas/Tree", "unevaluatedProperties": false}}}}}}`
	openapi31d7 := `{"openapi": "3.1.0", "jsonSchemaDialect": "http://json-schema.org/draft-07/schema#",
	  "components": {"schemas": {"A": {"items": [{"type": "integer"}], "additionalItems": false}}}}`
	tests := []struct {
		name      string
		files     map[string]string
		file, ptr string
		dialects  map[string]string
		draft     string
		instances []string
		want      []bool
	}{
		{"OpenAPI 3.0: nullable, boolean exclusive bounds, local $ref", map[string]string{"api.yaml": petstore30}, "api.yaml", "/components/schemas/Pet", nil, "openapi-3.0",
			[]string{`{"name": "x"}`, `{"name": null}`, `{}`, `{"name": "x", "age": 0}`, `{"name": "x", "age": 1}`, `{"name": "x", "age": 1.0}`,
				`{"name": "x", "tag": "abcd"}`, `{"name": "x", "tag": null}`, `{"name": "x", "kind": null}`, `{"name": "x", "kind": "dog"}`, `{"name": "x", "anything": null}`},
			[]bool{true, true, false, false, true, false, false, false, false, true, true}},
		{"OpenAPI 3.0: $schema is not a keyword", map[string]string{"api.yaml": petstore30}, "api.yaml", "/components/schemas/Wrapped", nil, "openapi-3.0",
			[]string{`1`, `2`}, []bool{true, false}},
		{"OpenAPI 3.0 reached by $ref from a schema file", map[string]string{"api.yaml": petstore30, "s.json": `{"$ref": "api.yaml#/components/schemas/Tag"}`},
			"s.json", "", nil, "2020-12", []string{`"abc"`, `"abcd"`, `null`}, []bool{true, false, false}},
		{"OpenAPI 3.1: 2020-12 with the OpenAPI vocabulary, $id inside a component", map[string]string{"api.json": openapi31}, "api.json", "/components/schemas/A", nil, "2020-12",
			[]string{`"x"`, `null`, `1`}, []bool{true, true, false}},
		{"OpenAPI 3.1: a component's $id is its base", map[string]string{"api.json": openapi31}, "api.json", "/components/schemas/B", nil, "2020-12",
			[]string{`{"b": 1}`, `{"b": "x"}`}, []bool{true, false}},
		{"OpenAPI 3.1: prefixItems", map[string]string{"api.json": openapi31}, "api.json", "/components/schemas/D", nil, "2020-12",
			[]string{`[1]`, `[1, 2]`}, []bool{true, false}},
		{"OpenAPI 3.1: $dynamicRef to a component's dynamic anchor", map[string]string{"api.json": openapi31dyn}, "api.json", "/components/schemas/Strict", nil, "2020-12",
			[]string{`{"kids": [{"kids": []}]}`, `{"kids": [{"x": 1}]}`}, []bool{true, false}},
		{"OpenAPI 3.1: the extended schema alone", map[string]string{"api.json": openapi31dyn}, "api.json", "/components/schemas/Tree", nil, "2020-12",
			[]string{`{"kids": [{"kids": []}]}`, `{"kids": [{"x": 1}]}`}, []bool{true, true}},
		{"OpenAPI 3.1 with jsonSchemaDialect draft-07", map[string]string{"api.json": openapi31d7}, "api.json", "/components/schemas/A", nil, "draft-07",
			[]string{`[1]`, `[1, 2]`, `["x"]`}, []bool{true, false, false}},
		{"AsyncAPI 2: draft 7", map[string]string{"a.json": asyncapi}, "a.json", "/components/schemas/A", nil, "draft-07",
			[]string{`1`, `0`}, []bool{true, false}},
		{"AsyncAPI 2: nullable is no keyword of draft 7", map[string]string{"a.json": asyncapi}, "a.json", "/components/schemas/O", nil, "draft-07",
			[]string{`"x"`, `null`}, []bool{true, false}},
		{"AsyncAPI 2: a message in the OpenAPI 3.0 format", map[string]string{"a.json": asyncapi}, "a.json", "/components/schemas/O",
			map[string]string{"/components/schemas/O": OpenAPI30.URL}, "openapi-3.0", []string{`"x"`, `null`}, []bool{true, true}},
		{"a document whose root is no schema", map[string]string{"p.json": `{"type": "module", "x": {"y": {"type": "integer"}}}`}, "p.json", "/x/y",
			map[string]string{}, "2020-12", []string{`1`, `"a"`}, []bool{true, false}},
		{"a schema file naming the OpenAPI 3.0 dialect", map[string]string{"s.json": `{"$schema": "https://spec.openapis.org/oas/3.0/dialect", "type": "string", "nullable": true}`},
			"s.json", "", nil, "openapi-3.0", []string{`"x"`, `null`, `1`}, []bool{true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := compileAt(t, tc.files, tc.file, tc.ptr, tc.dialects)
			if err != nil {
				t.Fatal(err)
			}
			if s.Draft.Name != tc.draft {
				t.Errorf("draft %s, want %s", s.Draft.Name, tc.draft)
			}
			if diff := cmp.Diff(tc.want, verdicts(t, s, tc.instances)); diff != "" {
				t.Errorf("verdicts on %v (-want +got):\n%s", tc.instances, diff)
			}
		})
	}
}

func TestContainerErrors(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		file, ptr string
		want      string
		line      int
	}{
		{"the whole document", map[string]string{"api.yaml": petstore30}, "api.yaml", "", "this OpenAPI 3.0.3 document is not a schema", 1},
		{"type as a list in OpenAPI 3.0", map[string]string{"api.yaml": petstore30}, "api.yaml", "/components/schemas/Bad", "not a valid openapi-3.0 schema", 20},
		{"a $ref to the whole document", map[string]string{"api.yaml": petstore30, "s.json": `{"$ref": "api.yaml"}`}, "s.json", "", "is not a schema", 1},
		{"an unsupported version", map[string]string{"api.json": `{"openapi": "4.0.0"}`}, "api.json", "/x", "OpenAPI 4.0.0 documents are not supported", 1},
		{"an unknown dialect", map[string]string{"api.json": `{"openapi": "3.1.0", "jsonSchemaDialect": "https://x.test/d", "a": {}}`}, "api.json", "/a", `unknown $schema "https://x.test/d"`, 1},
		{"a bad discriminator in 3.1", map[string]string{"api.json": `{"openapi": "3.1.0", "a": {"discriminator": {"mapping": {}}}}`}, "api.json", "/a", "not a valid 2020-12 schema", 1},
		{"a missing pointer", map[string]string{"api.yaml": petstore30}, "api.yaml", "/components/schemas/Nope", "does not exist", 0},
		{"not a pointer", map[string]string{"api.yaml": petstore30}, "api.yaml", "components", "is not a JSON Pointer", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileAt(t, tc.files, tc.file, tc.ptr, nil)
			if err == nil {
				t.Fatal("compiled")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q in it", err, tc.want)
			}
			if se, ok := err.(*SchemaError); ok && tc.line > 0 && se.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", se.Line, tc.line, err)
			}
		})
	}
}

// A schema of a document that fails to enter leaves nothing behind: naming it again fails
// again; its neighbours, a schema inside one entered and one holding it, still compile.
func TestContainerEnterAgain(t *testing.T) {
	fsys := workspace.Memory(map[string]string{"api.yaml": petstore30})
	c := NewCompiler(&Options{Loader: &Loader{FS: fsys}})
	uri := FileURI(fsys.Abs("api.yaml"))
	for i := range 2 {
		if _, err := c.CompileAt(uri, "/components/schemas/Bad"); err == nil || !strings.Contains(err.Error(), "not a valid openapi-3.0 schema") {
			t.Errorf("attempt %d: %v", i+1, err)
		}
	}
	for _, tc := range []struct {
		ptr, inst string
		valid     bool
	}{
		{"/components/schemas/Pet/properties/tag", `"abcd"`, false},
		{"/components/schemas/Pet", `{"name": null}`, true},
		{"/components/schemas/Pet/properties/kind", `"cat"`, true},
		{"/components/schemas/Pet/properties/kind", `null`, false},
		{"/components/schemas/Tag", `"abc"`, true},
	} {
		s, err := c.CompileAt(uri, tc.ptr)
		if err != nil {
			t.Fatalf("%s: %v", tc.ptr, err)
		}
		if got := verdicts(t, s, []string{tc.inst}); got[0] != tc.valid {
			t.Errorf("%s on %s: valid %v, want %v", tc.ptr, tc.inst, got[0], tc.valid)
		}
		if file, ptr := s.Pointer(); file != "api.yaml" || ptr != tc.ptr {
			t.Errorf("Pointer() = %q, %q; want api.yaml, %q", file, ptr, tc.ptr)
		}
	}
}

func TestContainerOf(t *testing.T) {
	tests := []struct {
		doc  string
		want Container
		ok   bool
	}{
		{`{"openapi": "3.0.0"}`, Container{"openapi", "3.0.0", OpenAPI30.URL}, true},
		{`{"openapi": "3.1.1"}`, Container{"openapi", "3.1.1", OpenAPI31Dialect}, true},
		{`{"openapi": "3.2.0", "jsonSchemaDialect": "x"}`, Container{"openapi", "3.2.0", "x"}, true},
		{`{"openapi": "2.0"}`, Container{"openapi", "2.0", ""}, true},
		{`{"asyncapi": "3.0.0"}`, Container{"asyncapi", "3.0.0", draft7URI}, true},
		{`{"swagger": "2.0"}`, Container{"swagger", "2.0", draft4URI}, true},
		{`{"openapi": 3}`, Container{}, false},
		{`{"type": "object", "properties": {"openapi": {}}}`, Container{}, false},
		{`true`, Container{}, false},
	}
	for _, tc := range tests {
		got, ok := ContainerOf(parse(t, tc.doc).Root)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ContainerOf(%s) = %+v, %v; want %+v, %v", tc.doc, got, ok, tc.want, tc.ok)
		}
	}
	if got := (Container{Kind: "asyncapi", Version: "2.6.0"}).Describe(); got != "AsyncAPI 2.6.0" {
		t.Errorf("Describe = %q", got)
	}
	var _ = source.Value{}
}

// A schema inside a container document, with no identifier of its own, is located from the
// document's root (its references resolve from there too); one with an $id from its own.
func TestContainerLocation(t *testing.T) {
	files := map[string]string{"api.json": `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "components": {"schemas": {
	  "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
	  "B": {"$id": "https://x.test/b", "properties": {"b": {"type": "integer"}}}}}}`}
	for _, tc := range []struct{ ptr, prop, want, wantProp string }{
		{"/components/schemas/Pet", "name", "api.json#/components/schemas/Pet", "api.json#/components/schemas/Pet/properties/name"},
		{"/components/schemas/B", "b", "https://x.test/b#", "https://x.test/b#/properties/b"},
	} {
		s, err := compileAt(t, files, "api.json", tc.ptr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Location(); got != tc.want {
			t.Errorf("%s: Location() = %q, want %q", tc.ptr, got, tc.want)
		}
		if got := s.Properties()[tc.prop].Location(); got != tc.wantProp {
			t.Errorf("%s: property's Location() = %q, want %q", tc.ptr, got, tc.wantProp)
		}
	}
}
