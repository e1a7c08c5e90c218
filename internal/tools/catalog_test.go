package tools

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// catalogFiles is a small workspace of schemas that refer to one another.
var catalogFiles = map[string]string{
	"jstk.json": `{"resolve": {"https://example.com/shared/": "shared/"}}`,
	"order.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/order.json",
  "title": "Order", "type": "object", "properties": {"customer": {"$ref": "customer.json"}, "addr": {"$ref": "shared/address.json"}}}`,
	"customer.json":       `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/customer.json", "type": "object"}`,
	"shared/address.json": `{"type": "object", "properties": {"street": {"type": "string"}}}`,
	"bad.schema.json":     `{"type": 5}`,
	"data.json":           `{"$schema": "https://example.com/order.json"}`,
}

func catalogEnv(t *testing.T) *Env {
	t.Helper()
	env := &Env{FS: workspace.Memory(catalogFiles), Cache: NewSchemaCache(8)}
	cfg, err := LoadConfig(env.FS)
	if err != nil {
		t.Fatal(err)
	}
	env.Resolve = cfg.Resolve
	return env
}

func TestCatalogTools(t *testing.T) {
	p := NewProvider(catalogEnv(t), All())
	tests := []struct {
		tool, args string
		isError    bool
		texts      []string // what the text content blocks hold, in order
		found      bool     // schema_context: the report's found
	}{
		{"list_schemas", `{}`, false, []string{"order.schema.json: https://example.com/order.json [2020-12"}, false},
		{"list_schemas", `{"query": "ORDER"}`, false, []string{`1 schema match "ORDER"`}, false},
		{"list_schemas", `{"paths": ["shared"], "limit": 5}`, false, []string{"shared/address.json [2020-12"}, false},
		{"list_schemas", `{"problemsOnly": true}`, false, []string{"INVALID"}, false},
		{"list_schemas", `{"limit": 1, "offset": 1}`, false, []string{"(1 of 4 schemas shown, from offset 1"}, false},
		{"list_schemas", `{"paths": ["nope"]}`, true, []string{"list_schemas could not run: argument paths: nope: no such file or directory"}, false},
		{"list_schemas", `{"paths": ["../up"]}`, true, []string{"climbs out of the workspace"}, false},
		{"list_schemas", `{"query": 5}`, true, []string{"argument query"}, false},
		{"schema_context", `{"id": "https://example.com/order.json"}`, false,
			[]string{"customer.json -> customer.json (https://example.com/customer.json)", "text of order.schema.json"}, true},
		{"schema_context", `{"id": "shared/address.json"}`, false, []string{"found by: keywords", "referenced by 1 schema"}, true},
		{"schema_context", `{"id": "https://example.com/ordr.json"}`, true,
			[]string{"https://example.com/order.json", "no schema of the workspace has the id"}, false},
		{"schema_context", `{}`, true, []string{`missing required property "id"`}, false},
		{"schema_context", `{"id": ""}`, true, []string{"argument id"}, false},
	}
	for _, tt := range tests {
		res := call(t, p, tt.tool, tt.args)
		label := tt.tool + " " + tt.args
		if res.IsError != tt.isError {
			t.Errorf("%s: isError %v, want %v: %v", label, res.IsError, tt.isError, res.Content)
			continue
		}
		// The texts come in this order across the content blocks.
		var all strings.Builder
		for _, c := range res.Content {
			all.WriteString(c.Text + "\n")
		}
		rest := all.String()
		for _, want := range tt.texts {
			i := strings.Index(rest, want)
			if i < 0 {
				t.Errorf("%s: the content lacks %q (in this order):\n%s", label, want, all.String())
				break
			}
			rest = rest[i+len(want):]
		}
		c, isContext := res.StructuredContent.(*catalog.Context)
		switch {
		case isContext && !c.Found:
			// Ran, then failed: the report (candidates) first, then the error, and the report
			// as structured content.
			if len(res.Content) != 2 || !strings.HasPrefix(res.Content[1].Text, "no schema of the workspace has the id") {
				t.Errorf("%s: want two content blocks, the report then the error: %v", label, res.Content)
			}
		case res.IsError:
			if res.StructuredContent != nil {
				t.Errorf("%s: could not run, yet has structured content", label)
			}
			continue
		}
		if res.StructuredContent == nil {
			t.Errorf("%s: no structured content", label)
			continue
		}
		d, _ := Lookup(tt.tool)
		conforms(t, d, res.StructuredContent)
		if isContext && c.Found != tt.found {
			t.Errorf("%s: found %v, want %v", label, c.Found, tt.found)
		}
	}
	// Lists are paged by default over MCP.
	l := call(t, p, "list_schemas", `{}`).StructuredContent.(*catalog.Listing)
	if l.Matched != 4 || len(l.Schemas) != 4 || l.Workspace.Invalid != 1 {
		t.Errorf("catalog: %d matched, %d listed, %d invalid; want 4, 4, 1", l.Matched, len(l.Schemas), l.Workspace.Invalid)
	}
}

func TestCatalogAliases(t *testing.T) {
	for alias, name := range map[string]string{"catalog": "list_schemas", "context": "schema_context",
		"list_schemas": "list_schemas", "schema_context": "schema_context"} {
		d, ok := LookupCommand(alias)
		if !ok || d.Name != name {
			t.Errorf("LookupCommand(%q) = %v, %v; want %s", alias, d, ok, name)
		}
	}
}

// The report of a failed lookup says it failed: exit status 2, found false, its error.
func TestSchemaContextFailure(t *testing.T) {
	d, _ := Lookup("schema_context")
	r, err := d.Run(t.Context(), catalogEnv(t), &SchemaContextInput{ID: "customer"})
	if err != nil {
		t.Fatal(err)
	}
	c := r.(*catalog.Context)
	if c.Found || r.ExitCode() != 2 || c.Failure() == nil || len(c.Candidates) == 0 {
		t.Errorf("found %v, exit %d, failure %v, candidates %v", c.Found, r.ExitCode(), c.Failure(), c.Candidates)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "https://example.com/customer.json") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
}
