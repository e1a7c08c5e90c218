package bundle

import (
	"context"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// TestExtract bundles schemas named inside documents and checks that each bundle accepts
// and rejects exactly what the schema does where it lives, and holds only what it reaches.
func TestExtract(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"api.yaml": `openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
        owner: {$ref: '#/components/schemas/Owner'}
        friends: {type: array, items: {$ref: '#/components/schemas/Pet'}}
        home: {$ref: '#/components/schemas/Owner/properties/address'}
        tag: {$ref: 'tags.json'}
    Owner:
      type: object
      properties:
        address: {type: string, minLength: 3}
        pets: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    Unused: {type: integer}
    Either: {anyOf: [{type: integer}, {$ref: '#/components/schemas/Owner'}, {type: array, prefixItems: [{$ref: '#/components/schemas/Owner/properties/address'}]}]}
`,
		"tags.json": `{"type": "string", "maxLength": 4}`,
		"defs.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
  "definitions": {"a": {"type": "object", "properties": {"b": {"$ref": "#/definitions/b"}, "c": {"$ref": "#/definitions/a/properties/b"}},
    "definitions": {"b": {"const": "taken"}}},
    "b": {"type": "integer", "minimum": 2}}}`,
		"v30.yaml": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string, nullable: true}\n",
	}
	fsys := workspace.Memory(files)
	compileAt := func(name, ptr string) *schema.Schema {
		t.Helper()
		doc, err := schema.ParseDocument(name, []byte(files[name]), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
		uri := schema.FileURI(fsys.Abs(name))
		if err := c.AddContainer(uri, doc, nil); err != nil {
			t.Fatal(err)
		}
		s, err := c.CompileAt(uri, ptr)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name, ptr string
		defs      []string // the names taken in
		instances []string
	}{
		{"api.yaml", "/components/schemas/Pet", []string{"Owner"}, []string{
			`{"name": "a"}`, `{}`, `{"name": 1}`, `{"name": "a", "owner": {"address": "xy"}}`, `{"name": "a", "owner": {"address": "xyz"}}`,
			`{"name": "a", "friends": [{"name": "b"}, {}]}`, `{"name": "a", "owner": {"pets": [{"name": 2}]}}`,
			`{"name": "a", "home": "ab"}`, `{"name": "a", "home": "abc"}`, `{"name": "a", "tag": "long tag"}`, `{"name": "a", "tag": "ok"}`,
		}},
		{"api.yaml", "/components/schemas/Owner/properties/pets", []string{"Pet"}, []string{`[]`, `[{"name": "x"}]`, `[{}]`, `[{"name": "x", "owner": {"address": "a"}}]`}},
		{"api.yaml", "/components/schemas/Either", []string{"Owner"}, []string{
			`5`, `"x"`, `{"address": "ab"}`, `{"address": "abc"}`, `["ab"]`, `["abc"]`, `[1]`,
		}},
		{"defs.json", "/definitions/a", []string{"b-2"}, []string{`{"b": 3}`, `{"b": 1}`, `{"b": "x"}`, `{"c": 1}`, `{"c": 5}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name+tt.ptr, func(t *testing.T) {
			s := compileAt(tt.name, tt.ptr)
			uri := schema.FileURI(fsys.Abs(tt.name))
			doc, err := Extract(s, uri)
			if err != nil {
				t.Fatal(err)
			}
			c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
			if err := c.AddDocument(uri, doc); err != nil {
				t.Fatalf("the extracted document: %v\n%s", err, source.AppendJSONIndent(nil, doc.Root, "", "  "))
			}
			extracted, err := c.Compile(uri)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Bundle(context.Background(), tt.name, uri, doc, &Options{Loader: &schema.Loader{FS: fsys}, Compiled: extracted})
			if err != nil {
				t.Fatal(err)
			}
			bundled := compileText(t, string(res.JSON()))
			for _, in := range tt.instances {
				v := mustParse(t, in)
				if want, got := valid(t, s, v), valid(t, bundled, v); want != got {
					t.Errorf("%s: valid %v where it lives, %v in the bundle\n%s", in, want, got, res.JSON())
				}
			}
			defsKw := "$defs"
			if s.Draft.Version < 2019 {
				defsKw = "definitions"
			}
			defs, _ := doc.Root.Get(defsKw)
			for _, name := range tt.defs {
				if !defs.Has(name) {
					t.Errorf("%s lacks %s", defsKw, name)
				}
			}
			if strings.Contains(string(res.JSON()), "components") || strings.Contains(string(res.JSON()), "Unused") {
				t.Errorf("the bundle points into its document or holds what it does not reach:\n%s", res.JSON())
			}
		})
	}
	// What Extract refuses.
	if _, err := Extract(compileAt("v30.yaml", "/components/schemas/A"), schema.FileURI(fsys.Abs("v30.yaml"))); err == nil ||
		!strings.Contains(err.Error(), "OpenAPI 3.0's schema dialect") {
		t.Errorf("an OpenAPI 3.0 schema: %v", err)
	}
}

func compileText(t *testing.T, text string) *schema.Schema {
	t.Helper()
	doc, err := schema.ParseDocument("bundle.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(nil)
	uri := "https://example.com/bundle.json"
	if err := c.AddDocument(uri, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		t.Fatalf("the bundle does not compile: %v\n%s", err, text)
	}
	return s
}

func mustParse(t *testing.T, text string) source.Value {
	t.Helper()
	d, err := source.ParseJSON("i.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Root
}

func valid(t *testing.T, s *schema.Schema, v source.Value) bool {
	t.Helper()
	errs, err := s.Validate(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(errs) == 0
}
