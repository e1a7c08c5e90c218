package openapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func open(t *testing.T, name, text string) *Document {
	t.Helper()
	doc, err := schema.ParseDocument(name, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	fsys := workspace.Memory(map[string]string{name: text})
	d := Open(doc, name, schema.FileURI(fsys.Abs(name)), &schema.Options{Loader: &schema.Loader{FS: fsys}})
	if d == nil {
		t.Fatalf("%s not recognised", name)
	}
	return d
}

// summary renders items as "kind key [schema] role flags".
func summary(items []*Item) []string {
	var out []string
	for _, it := range items {
		s := fmt.Sprintf("%s %s", it.Kind, it.Key)
		if it.Schema != "" {
			s += " @" + it.Schema
		}
		s += " " + string(it.Role)
		if it.Required {
			s += " required"
		}
		if it.Dialect != "" {
			s += " dialect=" + it.Dialect
		}
		if it.Format != "" {
			s += " format=" + it.Format
		}
		if d := it.Direction(); it.Role == Shared {
			s += " direction=" + d
		}
		out = append(out, s)
	}
	return out
}

const api30 = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets/{petId}:
    $ref: '#/components/pathItems/Pets'
  /orders:
    parameters:
      - {name: X-Trace, in: header, schema: {type: string}}
      - {name: limit, in: query, schema: {type: integer}}
    get:
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer, maximum: 10}}
        - $ref: '#/components/parameters/Filter'
        - $ref: 'other.yaml#/components/parameters/Gone'
      responses:
        "200":
          $ref: '#/components/responses/Orders'
        x-note: ignored
        default:
          description: error
          headers:
            Content-Type: {schema: {type: string}}
            Retry-After: {required: true, schema: {type: integer}}
    x-internal: true
webhooks: {}
x-paths: {}
components:
  pathItems:
    Pets:
      get:
        parameters:
          - {name: petId, in: path, schema: {type: string}}
        responses:
          "200": {description: ok}
  parameters:
    Filter:
      name: filter
      in: query
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Filter'}
  responses:
    Orders:
      description: ok
      content:
        application/json:
          schema: {type: array, items: {$ref: '#/components/schemas/Order'}}
        text/plain: {}
  schemas:
    Order: {type: object, properties: {filter: {$ref: '#/components/schemas/Filter'}}}
    Filter: {type: object}
    Unused: {type: string}
`

func TestEnumerateOpenAPI(t *testing.T) {
	d := open(t, "api.yaml", api30)
	want := []string{
		"operation GET /pets/{} request",
		"parameter GET /pets/{} parameter path {0} @/components/pathItems/Pets/get/parameters/0/schema request required",
		"response GET /pets/{} response 200 response",
		"operation GET /orders request",
		"parameter GET /orders parameter header x-trace @/paths/~1orders/parameters/0/schema request",
		"parameter GET /orders parameter query limit @/paths/~1orders/get/parameters/0/schema request required",
		"parameter GET /orders parameter query filter request",
		"media-type GET /orders parameter query filter application/json @/components/parameters/Filter/content/application~1json/schema request",
		"response GET /orders response 200 response",
		"media-type GET /orders response 200 application/json @/components/responses/Orders/content/application~1json/schema response",
		"media-type GET /orders response 200 text/plain response",
		"response GET /orders response DEFAULT response",
		"header GET /orders response DEFAULT header retry-after @/paths/~1orders/get/responses/default/headers/Retry-After/schema response required",
		"component component schema Order @/components/schemas/Order component direction=forward",
		"component component schema Filter @/components/schemas/Filter component direction=full",
		"component component schema Unused @/components/schemas/Unused component direction=",
	}
	if diff := cmp.Diff(want, summary(d.Items())); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`/paths/~1orders/get/parameters/2: the reference "other.yaml#/components/parameters/Gone" to another document is not followed`}, d.Notes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if n := len(d.Schemas()); n != 9 {
		t.Errorf("%d schemas, want 9", n)
	}
	s, err := d.Schema("/components/schemas/Order")
	if err != nil {
		t.Fatal(err)
	}
	if s.Draft != schema.OpenAPI30 {
		t.Errorf("draft %s", s.Draft.Name)
	}
	if len(d.Files()) != 0 {
		t.Errorf("files %v", d.Files())
	}
}

func TestEnumerateWebhooksAndSwagger(t *testing.T) {
	d := open(t, "hooks.json", `{"openapi": "3.1.0", "webhooks": {"ping": {"post": {
	  "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}},
	  "responses": {"200": {"description": "ok", "content": {"text/plain": {"schema": {"type": "string"}}}}}}}}}`)
	want := []string{
		"operation webhook POST ping response",
		"request-body webhook POST ping request body response required",
		"media-type webhook POST ping request body application/json @/webhooks/ping/post/requestBody/content/application~1json/schema response",
		"response webhook POST ping response 200 request",
		"media-type webhook POST ping response 200 text/plain @/webhooks/ping/post/responses/200/content/text~1plain/schema request",
	}
	if diff := cmp.Diff(want, summary(d.Items())); diff != "" {
		t.Errorf("webhook items (-want +got):\n%s", diff)
	}
	sw := open(t, "sw.json", `{"swagger": "2.0", "paths": {}, "definitions": {"A": {"type": "string"}}}`)
	if diff := cmp.Diff([]string{"component component schema A @/definitions/A component direction="}, summary(sw.Items())); diff != "" {
		t.Errorf("swagger items (-want +got):\n%s", diff)
	}
	if len(sw.Notes()) != 1 {
		t.Errorf("notes %v", sw.Notes())
	}
}

func TestEnumerateAsyncAPI(t *testing.T) {
	v2 := open(t, "a2.yaml", `asyncapi: 2.6.0
channels:
  c:
    $ref: '#/components/channels/C'
  d:
    publish:
      message:
        oneOf:
          - {payload: {type: string}}
          - $ref: '#/components/messages/Named'
          - {messageId: Id, schemaFormat: 'application/vnd.apache.avro;version=1.9.0', payload: {type: record}}
components:
  channels:
    C:
      subscribe:
        message:
          schemaFormat: application/schema+yaml;version=draft-04
          payload: {type: object}
          headers: {type: object}
  messages:
    Named: {name: N, payload: {type: integer}}
`)
	want := []string{
		"operation channel c subscribe response",
		"message channel c subscribe message response",
		"payload channel c subscribe message payload @/components/channels/C/subscribe/message/payload response dialect=http://json-schema.org/draft-04/schema",
		"headers channel c subscribe message headers @/components/channels/C/subscribe/message/headers response",
		"operation channel d publish request",
		"message channel d publish message #0 request",
		"payload channel d publish message #0 payload @/channels/d/publish/message/oneOf/0/payload request",
		"message channel d publish message N request",
		"payload channel d publish message N payload @/components/messages/Named/payload request",
		"message channel d publish message Id request",
		"payload channel d publish message Id payload @/channels/d/publish/message/oneOf/2/payload request format=application/vnd.apache.avro;version=1.9.0",
		"component-message component message Named component direction=",
	}
	if diff := cmp.Diff(want, summary(v2.Items())); diff != "" {
		t.Errorf("2.x items (-want +got):\n%s", diff)
	}
	v3 := open(t, "a3.yaml", `asyncapi: 3.0.0
channels:
  ch:
    messages:
      m1: {payload: {type: string}}
      m2: {$ref: '#/components/messages/M2'}
operations:
  all:
    action: receive
    channel: {$ref: '#/channels/ch'}
  one:
    action: send
    channel: {$ref: '#/channels/ch'}
    messages: [{$ref: '#/channels/ch/messages/m2'}]
components:
  messages:
    M2:
      headers: {schemaFormat: 'application/vnd.oai.openapi;version=3.0.0', schema: {type: object}}
  schemas:
    S:
      schemaFormat: application/schema+json;version=2020-12
      schema: {type: string}
`)
	want = []string{
		"operation operation all request",
		"message operation all message m1 request",
		"payload operation all message m1 payload @/channels/ch/messages/m1/payload request",
		"message operation all message m2 request",
		"headers operation all message m2 headers @/components/messages/M2/headers/schema request dialect=https://spec.openapis.org/oas/3.0/dialect",
		"operation operation one response",
		"message operation one message m2 response",
		"headers operation one message m2 headers @/components/messages/M2/headers/schema response dialect=https://spec.openapis.org/oas/3.0/dialect",
		"component component schema S @/components/schemas/S/schema component dialect=https://json-schema.org/draft/2020-12/schema direction=",
		"component-message component message M2 component direction=",
	}
	if diff := cmp.Diff(want, summary(v3.Items())); diff != "" {
		t.Errorf("3.x items (-want +got):\n%s", diff)
	}
	s, err := v3.Schema("/components/messages/M2/headers/schema")
	if err != nil {
		t.Fatal(err)
	}
	if s.Draft != schema.OpenAPI30 {
		t.Errorf("headers read as %s", s.Draft.Name)
	}
}

func TestDialectOfFormat(t *testing.T) {
	tests := []struct {
		format, want string
		ok           bool
	}{
		{"application/vnd.aai.asyncapi+json;version=2.6.0", "", true},
		{"application/vnd.oai.openapi;version=3.0.0", schema.OpenAPI30.URL, true},
		{"application/vnd.oai.openapi+yaml; version=3.1.0", schema.OpenAPI31Dialect, true},
		{"application/schema+json", "http://json-schema.org/draft-07/schema#", true},
		{"application/schema+json;version=draft-06", schema.Draft6.URL, true},
		{`application/schema+yaml;version="2019-09"`, schema.Draft2019.URL, true},
		{"application/schema+json;version=draft-99", "", false},
		{"application/raml+yaml;version=1.0", "", false},
	}
	for _, tc := range tests {
		got, ok := dialectOfFormat(tc.format)
		if got != tc.want || ok != tc.ok {
			t.Errorf("dialectOfFormat(%q) = %q, %v; want %q, %v", tc.format, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRefusals(t *testing.T) {
	d := open(t, "api.yaml", api30)
	for _, tc := range []struct{ ptr, want string }{
		{"", "api.yaml is an OpenAPI 3.0.3 document, not a schema; name one of its 9 schemas by JSON Pointer: api.yaml#/components/schemas/Order on the command line"},
		{"/components/schemas", "api.yaml#/components/schemas is not a schema of this OpenAPI 3.0.3 document (it holds schemas)"},
		{"/paths/~1orders/get", "#/paths/~1orders/get/parameters/0/schema (GET /orders parameter query limit)"},
	} {
		err := d.Check(tc.ptr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%q) = %v, want %q in it", tc.ptr, err, tc.want)
		}
	}
	if err := d.Check("/components/schemas/Order"); err != nil {
		t.Errorf("a schema refused: %v", err)
	}
	if err := d.Check("/components/schemas/Order/properties/filter"); err != nil {
		t.Errorf("a subschema refused: %v", err)
	}
	// many schemas: the list is cut
	var sb strings.Builder
	sb.WriteString(`{"openapi": "3.1.0", "components": {"schemas": {`)
	for i := range 20 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `"S%d": {}`, i)
	}
	sb.WriteString("}}}")
	big := open(t, "big.json", sb.String())
	if err := big.NotASchema(""); !strings.Contains(err.Error(), "... and 8 more") {
		t.Errorf("long list not cut: %v", err)
	}
	empty := open(t, "e.json", `{"asyncapi": "3.0.0"}`)
	if err := empty.NotASchema(""); !strings.HasSuffix(err.Error(), "it holds no schema") {
		t.Errorf("empty: %v", err)
	}
	inline := open(t, "i.json", `{"asyncapi": "3.0.0", "components": {"schemas": {"A": {}}}}`)
	inline.Name = ""
	if err := inline.NotASchema(""); !strings.Contains(err.Error(), "the document is an AsyncAPI 3.0.0 document") || !strings.Contains(err.Error(), "FILE#/components/schemas/A") {
		t.Errorf("inline: %v", err)
	}
}

func TestDerefBounds(t *testing.T) {
	d := open(t, "loop.json", `{"openapi": "3.1.0", "paths": {
	  "/a": {"$ref": "#/paths/~1b"}, "/b": {"$ref": "#/paths/~1a"},
	  "/c": {"$ref": "#/nowhere"},
	  "/d": {"get": {"parameters": [{"$ref": "#/components/parameters/P%20Q"}], "responses": {}}}},
	  "components": {"parameters": {"P Q": {"name": "q", "in": "query", "schema": {}}}}}`)
	notes := strings.Join(d.Notes(), "\n")
	for _, want := range []string{"a chain of more than 32 references", `the reference "#/nowhere" leads nowhere`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if diff := cmp.Diff([]string{"operation GET /d request", "parameter GET /d parameter query q @/components/parameters/P Q/schema request"}, summary(d.Items())); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestNormPath(t *testing.T) {
	for in, want := range map[string]string{"/a/{id}/b/{x}": "/a/{}/b/{}", "/a": "/a", "/a/{open": "/a/{open", "/{a}{b}": "/{}{}"} {
		if got := normPath(in); got != want {
			t.Errorf("normPath(%q) = %q, want %q", in, got, want)
		}
	}
	if diff := cmp.Diff([]string{"a", "b"}, pathParams("/x/{a}/{b}/{c")); diff != "" {
		t.Errorf("pathParams: %s", diff)
	}
	if got := lastToken("/channels/a~1b", "/channels/"); got != "a/b" {
		t.Errorf("lastToken = %q", got)
	}
	if _, ok := Recognize(&source.Document{Root: source.StringValue("x")}); ok {
		t.Error("a string recognised")
	}
	if Open(&source.Document{Root: source.StringValue("x")}, "x", "file:///x", nil) != nil {
		t.Error("a string opened")
	}
}
