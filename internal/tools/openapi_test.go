package tools

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diff/document"
	"github.com/jstk-dev/jstk/internal/openapi/fixture"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Every fixture pair through the MCP tool: the same verdicts as the engine, within the
// bounds of a tool result, conforming to the output schema.
func TestDiffDocumentPairsOverMCP(t *testing.T) {
	pairs, err := fixture.Read(filepath.Join("..", "..", fixture.Dir))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Lookup("diff")
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			prov := NewProvider(&Env{FS: workspace.Memory(p.Files)}, All())
			args, _ := json.Marshal(map[string]any{"old": map[string]string{"path": p.Old}, "new": map[string]string{"path": p.New}, "check": true})
			res := call(t, prov, "diff", string(args))
			if res.IsError {
				t.Fatalf("error result: %+v", res.Content)
			}
			r, ok := res.StructuredContent.(*diffReport)
			if !ok {
				t.Fatalf("structured content of type %T", res.StructuredContent)
			}
			conforms(t, d, r)
			want, _ := p.Expected()
			if diff := cmp.Diff(want, document.VerdictLines(r.Result)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if len(res.Content[0].Text) > MaxText {
				t.Errorf("text of %d characters", len(res.Content[0].Text))
			}
		})
	}
}

const petsAPI = `openapi: 3.0.3
info: {title: pets, version: "1"}
paths:
  /pets:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
      responses:
        "201": {description: created}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string, nullable: true}
        tag: {$ref: '#/components/schemas/Tag'}
    Tag: {type: string, maxLength: 3}
`

var apiFiles = map[string]string{
	"api.yaml":     petsAPI,
	"pet.json":     `{"name": null, "tag": "abc"}`,
	"badpet.json":  `{"name": 1, "tag": "abcd"}`,
	"package.json": `{"name": "x", "type": "module", "jstk": {"schema": {"type": "object", "required": ["id"]}}}`,
	"schema.json":  `{"$defs": {"A": {"type": "integer", "maximum": 3}, "B": {"$ref": "#/$defs/A"}}}`,
	"hash#/x.json": `{"type": "string"}`,
	"async.json":   `{"asyncapi": "2.6.0", "info": {"title": "t", "version": "1"}, "channels": {}, "components": {"schemas": {"S": {"type": "string"}}}}`,
}

// Schema arguments name schemas inside documents, over MCP (pointer member or path#pointer)
// as on the command line; whole OpenAPI or AsyncAPI documents are refused with the list of
// their schemas.
func TestSchemaPointers(t *testing.T) {
	prov := NewProvider(&Env{FS: workspace.Memory(apiFiles)}, All())
	tests := []struct {
		name, tool, args string
		err              string // in the error result
		text             string // in the text of a normal result
	}{
		{"pointer member", "validate", `{"schema": {"path": "api.yaml", "pointer": "/components/schemas/Pet"}, "instances": [{"path": "pet.json"}, {"path": "badpet.json"}]}`,
			"", "2 instances: 1 valid, 1 invalid"},
		{"path#pointer", "validate", `{"schema": {"path": "api.yaml#/components/schemas/Pet"}, "instances": [{"path": "pet.json"}]}`,
			"", "1 instance: 1 valid"},
		{"percent-encoded fragment", "validate", `{"schema": {"path": "api.yaml#/components/schemas/T%61g"}, "instances": [{"value": "abcd"}]}`,
			"", "1 instance: 0 valid, 1 invalid"},
		{"a request body schema", "validate", `{"schema": {"path": "api.yaml", "pointer": "/paths/~1pets/post/requestBody/content/application~1json/schema"}, "instances": [{"value": {"name": "x"}}]}`,
			"", "1 instance: 1 valid"},
		{"inline text with a pointer", "validate", `{"schema": {"text": ` + jsonString(petsAPI) + `, "pointer": "/components/schemas/Tag"}, "instances": [{"value": "ab"}]}`,
			"", "1 instance: 1 valid"},
		{"a file named with #", "validate", `{"schema": {"path": "hash#/x.json"}, "instances": [{"value": "ab"}]}`, "", "1 instance: 1 valid"},
		{"a plain schema file's $defs", "validate", `{"schema": {"path": "schema.json", "pointer": "/$defs/B"}, "instances": [{"value": 4}]}`,
			"", "1 instance: 0 valid, 1 invalid"},
		{"a document whose root is no schema", "validate", `{"schema": {"path": "package.json", "pointer": "/jstk/schema"}, "instances": [{"value": {}}]}`,
			"", "1 instance: 0 valid, 1 invalid"},
		{"the whole OpenAPI document", "validate", `{"schema": {"path": "api.yaml"}, "instances": [{"path": "pet.json"}]}`,
			"api.yaml is an OpenAPI 3.0.3 document, not a schema; name one of its 3 schemas by JSON Pointer: api.yaml#/components/schemas/Pet", ""},
		{"the whole AsyncAPI document", "sample", `{"schema": {"path": "async.json"}}`, "AsyncAPI 2.6.0 document, not a schema", ""},
		{"a holder of schemas", "sample", `{"schema": {"path": "api.yaml", "pointer": "/components/schemas"}}`,
			"api.yaml#/components/schemas is not a schema of this OpenAPI 3.0.3 document", ""},
		{"nothing there", "sample", `{"schema": {"path": "api.yaml", "pointer": "/components/schemas/Pte"}}`,
			"api.yaml has nothing at #/components/schemas/Pte; #/components/schemas holds: Pet, Tag", ""},
		{"not a pointer", "sample", `{"schema": {"path": "api.yaml#components"}}`, "no such file", ""},
		{"pointer on an instance", "validate", `{"schema": {"path": "schema.json"}, "instances": [{"path": "pet.json", "pointer": "/name"}]}`,
			"pointer names a schema inside a document; it is not taken here", ""},
		{"a document against a schema", "diff", `{"old": {"path": "api.yaml"}, "new": {"path": "schema.json"}}`, "is an OpenAPI 3.0.3 document, not a schema", ""},
		{"OpenAPI against AsyncAPI", "diff", `{"old": {"path": "api.yaml"}, "new": {"path": "async.json"}}`,
			"cannot compare an OpenAPI 3.0.3 document with an AsyncAPI 2.6.0 document", ""},
		{"two pointers", "diff", `{"old": {"path": "api.yaml", "pointer": "/components/schemas/Tag"}, "new": {"path": "schema.json#/$defs/A"}}`,
			"", "backward: incompatible"},
		{"sample by pointer", "sample", `{"schema": {"path": "api.yaml#/components/schemas/Tag"}}`, "", `"`},
		{"lint by pointer", "lint", `{"schemas": [{"path": "api.yaml#/components/schemas/Pet"}], "rules": ["all=on"]}`, "", "1 schema linted: no findings"},
		{"lint by pointer member, inline", "lint", `{"schemas": [{"text": ` + jsonString(petsAPI) + `, "pointer": "/components/schemas/Tag"}], "failOn": "info"}`, "", "1 schema linted"},
		{"lint by pointer to nothing", "lint", `{"schemas": [{"path": "api.yaml", "pointer": "/components/schemas/Nope"}]}`, "", "api.yaml has nothing at #/components/schemas/Nope; #/components/schemas holds: Pet, Tag"},
		{"lint by pointer to no schema", "lint", `{"schemas": [{"path": "api.yaml", "pointer": "/paths"}]}`, "", "is not a schema of this OpenAPI 3.0.3 document"},
		{"lint: a malformed pointer", "lint", `{"schemas": [{"path": "api.yaml", "pointer": "components"}]}`, `argument schemas[0]: pointer "components" is not a JSON Pointer`, ""},
		{"lint names a whole document it cannot read", "lint", `{"schemas": [{"path": "api.yaml"}]}`, "", "an OpenAPI 3.0.3 document is not a schema"},
		{"bundle refuses OpenAPI 3.0's dialect", "bundle", `{"schema": {"path": "api.yaml", "pointer": "/components/schemas/Pet"}}`, "is in OpenAPI 3.0's schema dialect", ""},
		{"bundle by pointer", "bundle", `{"schema": {"path": "schema.json", "pointer": "/$defs/B"}}`, "", `"$ref": "#/$defs/A"`},
		{"schema_context by pointer", "schema_context", `{"id": "api.yaml", "pointer": "/components/schemas/Pet"}`, "", "api.yaml#/components/schemas/Pet\nin: api.yaml: OpenAPI 3.0.3 document"},
		{"schema_context by id#pointer", "schema_context", `{"id": "schema.json#/$defs/B"}`, "", "schema.json#/$defs/B\nin schema: schema.json"},
		{"schema_context: a malformed pointer", "schema_context", `{"id": "api.yaml", "pointer": "x"}`, `argument pointer: "x" is not a JSON Pointer`, ""},
		{"bundle refuses a whole document", "bundle", `{"schema": {"path": "async.json"}}`, "async.json is an AsyncAPI 2.6.0 document, not a schema", ""},
		{"coverage by pointer", "coverage", `{"schema": {"path": "api.yaml", "pointer": "/components/schemas/Pet"}, "tests": [{"path": "pet.json"}]}`, "", "keywords"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, prov, tc.tool, tc.args)
			text := ""
			for _, c := range res.Content {
				text += c.Text + "\n"
			}
			switch {
			case tc.err != "" && (!res.IsError || !strings.Contains(text, tc.err)):
				t.Fatalf("want an error naming %q, got (isError %v):\n%s", tc.err, res.IsError, text)
			case tc.err == "" && res.IsError:
				t.Fatalf("error: %s", text)
			case tc.err == "" && !strings.Contains(text, tc.text):
				t.Fatalf("want %q in:\n%s", tc.text, text)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A directory's OpenAPI and AsyncAPI documents are left out of lint; named, one is
// unreadable with the reason.
func TestLintSkipsAPIDocumentsOfADirectory(t *testing.T) {
	env := &Env{FS: workspace.Memory(map[string]string{"d/api.yaml": petsAPI, "d/s.schema.json": `{"type": "string"}`})}
	r, err := runLint(t.Context(), env, &LintInput{Schemas: []Doc{PathDoc("d")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Files != 1 || r.Summary.Unreadable != 0 {
		t.Errorf("summary %+v, want one file linted", r.Summary)
	}
	r, err = runLint(t.Context(), env, &LintInput{Schemas: []Doc{PathDoc("d/api.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Unreadable != 1 || r.ExitCode() != 2 {
		t.Errorf("summary %+v, exit %d; want the named document unreadable", r.Summary, r.ExitCode())
	}
}
