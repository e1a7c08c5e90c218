package tools

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// everyFiles is a small workspace every tool can be called on.
var everyFiles = map[string]string{
	"order.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Order",
  "type": "object", "required": ["id", "items"],
  "properties": {"id": {"type": "string", "pattern": "^O-[0-9]{3}$"}, "items": {"type": "array", "minItems": 1,
    "items": {"$ref": "item.schema.json"}}, "note": {"type": "string"}}}`,
	"item.schema.json": `{"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}`,
	"orders.ndjson":    "{\"id\": \"O-001\", \"items\": [{\"sku\": \"a\", \"qty\": 2}]}\n{\"id\": \"x\", \"items\": []}\n",
	"order.tests.json": `{"target": "order.schema.json", "tests": [
  {"description": "good", "valid": true, "data": {"id": "O-002", "items": [{"sku": "b"}]}},
  {"description": "no items", "valid": false, "data": {"id": "O-003", "items": []}, "expect": {"keywordLocation": "/properties/items/minItems"}}]}`,
	"suite.json": `[{"description": "ints", "schema": {"type": "integer"}, "tests": [{"description": "one", "data": 1, "valid": true}]}]`,
}

// everySample holds one call per tool; a tool added to the table must add one.
var everySample = map[string]string{
	"validate":       `{"schema": {"path": "order.schema.json"}, "instances": [{"path": "orders.ndjson"}]}`,
	"lint":           `{"schemas": [{"path": "order.schema.json"}, {"path": "item.schema.json"}]}`,
	"diff":           `{"old": {"path": "item.schema.json"}, "new": {"value": {"type": "object", "required": ["sku", "qty"]}}, "direction": "full"}`,
	"bundle":         `{"schema": {"path": "order.schema.json"}}`,
	"infer":          `{"instances": [{"path": "orders.ndjson"}], "bounds": true}`,
	"sample":         `{"schema": {"path": "order.schema.json"}, "count": 2, "seed": 3}`,
	"test":           `{"tests": [{"path": "order.tests.json"}, {"path": "suite.json"}]}`,
	"coverage":       `{"schema": {"path": "order.schema.json"}, "tests": [{"path": "order.tests.json"}], "all": true}`,
	"list_schemas":   `{"query": "order"}`,
	"schema_context": `{"id": "order.schema.json"}`,
}

func TestEveryToolThroughTheProvider(t *testing.T) {
	env := &Env{FS: workspace.Memory(everyFiles), Cache: NewSchemaCache(4)}
	p := NewProvider(env, All())
	for _, d := range All() {
		args, ok := everySample[d.Name]
		if !ok {
			t.Errorf("tool %s has no sample call in everySample", d.Name)
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			res := call(t, p, d.Name, args)
			if res.IsError {
				t.Fatalf("isError: %+v", res.Content)
			}
			if len(res.Content) == 0 || strings.TrimSpace(res.Content[0].Text) == "" {
				t.Fatal("no text")
			}
			conforms(t, d, res.StructuredContent)
			// The same call through the CLI's path prints in every common format.
			in, err := p.decode(d, []byte(args))
			if err != nil {
				t.Fatal(err)
			}
			report, err := d.Run(context.Background(), env, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []diag.Format{diag.Text, diag.JSON, diag.SARIF, diag.GitHub} {
				var buf bytes.Buffer
				if err := diag.Write(&buf, f, report, diag.Tool{Name: "jstk"}); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			if fm, ok := report.(Formatter); ok {
				for _, f := range d.Formats {
					var buf bytes.Buffer
					if err := fm.WriteFormat(&buf, f); err != nil || buf.Len() == 0 {
						t.Errorf("--format %s: %v", f, err)
					}
				}
			}
			if n, ok := report.(Noter); ok {
				_ = n.Notes()
			}
			if r, ok := report.(interface{ SARIFRules() []diag.Rule }); ok && len(r.SARIFRules()) == 0 {
				t.Error("empty SARIF rule table")
			}
			if _, paged := reflect.TypeOf(in).Elem().FieldByName("Limit"); paged && Streamable(in) {
				t.Error("a call paged by default over MCP is not streamable")
			}
		})
	}
}

func TestDocArguments(t *testing.T) {
	env := &Env{FS: workspace.Memory(everyFiles), Stdin: strings.NewReader(`{"type": "string"}`)}
	s, err := LoadSchema(env, PathDoc("-"), "schema", SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(mustParse(t, `"x"`)); !ok {
		t.Error("stdin schema")
	}
	if _, err := LoadSchema(&Env{FS: env.FS}, PathDoc("-"), "schema", SchemaOptions{}); err == nil {
		t.Error("stdin without a reader must be refused")
	}
	big := &Env{FS: env.FS, Stdin: strings.NewReader(strings.Repeat(" ", 100)), Limits: nil}
	big.Limits = nil
	if b, _ := (jsonValue{}).MarshalJSON(); string(b) != "null" {
		t.Errorf("empty value marshals as %s", b)
	}
	if b, _ := (jsonValue("[1]")).MarshalJSON(); string(b) != "[1]" {
		t.Errorf("value marshals as %s", b)
	}
	_ = big
}

func mustParse(t *testing.T, text string) source.Value {
	t.Helper()
	d, err := source.ParseJSON("v.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Root
}
