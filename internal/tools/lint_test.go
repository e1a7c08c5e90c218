package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/workspace"
)

var lintFiles = map[string]string{
	"schemas/a.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "A", "description": "d",
  "type": "object", "properties": {"p": {"type": "string", "pattern": "[a-z]+"}, "k": {"enum": ["x"]}}}`,
	"schemas/b.yaml":    "$schema: https://json-schema.org/draft/2020-12/schema\ntitle: B\ndescription: d\ntype: string\nminimum: 1\n",
	"schemas/jstk.json": `{"not": "a schema"}`,
	"ref.json":          `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "R", "description": "d", "$ref": "https://example.com/s/x.json"}`,
	"sub/x.json":        `{"type": "string"}`,
}

func lintEnv(extra map[string]string) *Env {
	files := map[string]string{}
	for k, v := range lintFiles {
		files[k] = v
	}
	for k, v := range extra {
		files[k] = v
	}
	return &Env{FS: workspace.Memory(files), Resolve: map[string]string{"https://example.com/s/": "sub/"}}
}

func runLintTool(t *testing.T, env *Env, in *LintInput) *lintReport {
	t.Helper()
	r, err := runLint(context.Background(), env, in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findingRules(r *lintReport) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.File+" "+f.Rule)
	}
	return out
}

func TestLintTool(t *testing.T) {
	env := lintEnv(nil)
	r := runLintTool(t, env, &LintInput{Schemas: []Doc{PathDoc("schemas"), PathDoc("ref.json")}})
	want := []string{
		"schemas/a.json unanchored-pattern",
		"schemas/a.json enum-to-const",
		"schemas/b.yaml type-keyword-mismatch",
	}
	if diff := cmp.Diff(want, findingRules(r)); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if r.Summary.Files != 3 || r.ExitCode() != 1 {
		t.Errorf("summary %+v exit %d (the configuration file of a directory is not a schema)", r.Summary, r.ExitCode())
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "3 schemas linted") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
	if len(r.Diagnostics()) != 3 || r.OutputFiles() != nil {
		t.Error("diagnostics or output files")
	}

	// Rule settings, fail-on, paging.
	r = runLintTool(t, env, &LintInput{Schemas: []Doc{PathDoc("schemas/*.json")}, Rules: []string{"unanchored-pattern=off", "style=off"}})
	if len(r.Findings) != 0 || r.ExitCode() != 0 {
		t.Errorf("settings: %v", findingRules(r))
	}
	r = runLintTool(t, env, &LintInput{Schemas: []Doc{PathDoc("schemas")}, FailOn: "error", Offset: 1, Limit: 1})
	if r.ExitCode() != 0 || len(r.Findings) != 1 || r.Page == nil {
		t.Errorf("fail-on error with warnings only: exit %d, %d findings, page %+v", r.ExitCode(), len(r.Findings), r.Page)
	}

	// Inline documents, a missing path, and a listing.
	r = runLintTool(t, env, &LintInput{Schemas: []Doc{{Text: `{"type": ["string"]}`}, {Value: jsonValue(`{"minLength": -1}`)}, PathDoc("nope/*.json")}})
	if r.Summary.Unreadable != 1 || r.ExitCode() != 2 {
		t.Errorf("inline and missing: %+v %v", r.Summary, r.Problems)
	}
	r = runLintTool(t, env, &LintInput{List: true, Rules: []string{"all=off"}})
	if len(r.Rules) != len(lint.Rules()) || r.Rules[0].Enabled || r.ExitCode() != 0 {
		t.Errorf("list: %d rules", len(r.Rules))
	}
	buf.Reset()
	r.WriteText(&buf)
	if !strings.Contains(buf.String(), "CORRECTNESS") {
		t.Errorf("listing text:\n%s", buf.String())
	}

	// What cannot run.
	for _, in := range []*LintInput{
		{},
		{Schemas: []Doc{{}}},
		{Schemas: []Doc{PathDoc("x.json")}, Rules: []string{"novalue"}},
		{Schemas: []Doc{PathDoc("x.json")}, Rules: []string{"nope=off"}},
		{Schemas: []Doc{PathDoc("x.json")}, Draft: "3"},
		{Schemas: []Doc{PathDoc("x.json")}, Offset: -1},
		{Schemas: []Doc{PathDoc("-")}},
	} {
		if _, err := runLint(context.Background(), env, in); err == nil {
			t.Errorf("%+v: want an error", in)
		}
	}
}

func TestLintToolFixAndConfig(t *testing.T) {
	env := lintEnv(map[string]string{
		"jstk.json":  `{"resolve": {}, "lint": {"rules": {"documentation": "off", "missing-dialect": "off"}, "failOn": "error"}}`,
		"fixme.json": `{"type": ["string"], "enum": ["a", "a"]}`,
	})
	cfg, err := LoadConfig(env.FS) // as the surfaces do
	if err != nil {
		t.Fatal(err)
	}
	env.Config = cfg
	r := runLintTool(t, env, &LintInput{Schemas: []Doc{PathDoc("fixme.json")}, Fix: true, Draft: "7"})
	files := r.OutputFiles()
	if len(files) != 1 || files[0].Path != "fixme.json" || string(files[0].Data) != `{"type": "string", "const": "a"}` {
		t.Fatalf("output files: %+v", files)
	}
	if r.FailOn != "error" || r.ExitCode() != 0 {
		t.Errorf("failOn from jstk.json: %q, exit %d", r.FailOn, r.ExitCode())
	}
	for _, cfg := range []string{
		`{"lint": 1}`,
		`{"lint": {"rules": []}}`,
		`{"lint": {"rules": {"x": 1}}}`,
		`{"lint": {"failOn": "loud"}}`,
		`{"lint": {"other": 1}}`,
		`{"lint"`,
	} {
		if _, err := LoadConfig(workspace.Memory(map[string]string{"jstk.json": cfg})); err == nil {
			t.Errorf("jstk.json %s: want an error", cfg)
		}
	}
	// A rule the configuration names that does not exist stops the lint tool.
	env.Config = &Config{Lint: LintConfig{Rules: map[string]string{"no-such-rule": "off"}}}
	if _, err := runLint(context.Background(), env, &LintInput{Schemas: []Doc{PathDoc("ref.json")}}); err == nil {
		t.Error("an unknown rule in the lint block: want an error")
	}
}

func TestLintOverMCP(t *testing.T) {
	env := lintEnv(nil)
	p := NewProvider(env, All())
	d, _ := Lookup("lint")
	if strings.Contains(string(d.InputSchema()), `"fix"`) {
		t.Error("fix is a CLI-only argument")
	}
	res := call(t, p, "lint", `{"schemas": [{"path": "schemas/a.json"}]}`)
	if res.IsError {
		t.Fatalf("lint failed: %+v", res.Content)
	}
	conforms(t, d, res.StructuredContent)
	data, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(data), `"patch"`) || !strings.Contains(string(data), `"edits"`) {
		t.Errorf("proposed edits are data of the result: %s", data)
	}
	if res := call(t, p, "lint", `{"schemas": [{"path": "schemas/a.json"}], "fix": true}`); !res.IsError {
		t.Error("fix over MCP must be refused")
	}
}

// A directory contributes its schemas to lint, never its instances: a declared meta-schema,
// a file jstk.json maps to a meta-schema, *.schema.json, and what those reference.
func TestLintDirectoryLintsOnlySchemas(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"jstk.json":           `{"schemas": {"https://json-schema.org/draft/2020-12/schema": "defs/*.yaml"}}`,
		"order.yaml":          "id: 3\n",
		"order.json":          `{"$schema": "./s/order.schema.json", "id": 3}`,
		"s/order.schema.json": `{"$ref": "../parts/item.json"}`,
		"parts/item.json":     `{"type": "object", "properties": {"n": {"$ref": "num.json#/x"}}}`,
		"parts/num.json":      `{"x": {"type": "integer"}}`,
		"parts/unused.json":   `{"a": 1}`,
		"declared.json":       `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}`,
		"defs/mapped.yaml":    "type: string\n",
		"package.json":        `{"name": "x"}`,
	})
	cfg, err := LoadConfig(fsys)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{FS: fsys, Config: cfg}
	r, err := runLint(t.Context(), env, &LintInput{Schemas: []Doc{PathDoc(".")}})
	if err != nil {
		t.Fatal(err)
	}
	var linted []string
	for _, s := range onlySchemas(env, []lint.Source{
		{Name: "order.yaml", Path: "order.yaml", Expanded: true},
		{Name: "s/order.schema.json", Path: "s/order.schema.json", Expanded: true},
		{Name: "parts/item.json", Path: "parts/item.json", Expanded: true},
		{Name: "parts/num.json", Path: "parts/num.json", Expanded: true},
		{Name: "parts/unused.json", Path: "parts/unused.json", Expanded: true},
		{Name: "declared.json", Path: "declared.json", Expanded: true},
		{Name: "defs/mapped.yaml", Path: "defs/mapped.yaml", Expanded: true},
		{Name: "package.json", Path: "package.json", Expanded: true},
		{Name: "named.json", Path: "named.json"},
	}) {
		linted = append(linted, s.Path)
	}
	want := []string{"s/order.schema.json", "parts/item.json", "parts/num.json", "declared.json", "defs/mapped.yaml", "named.json"}
	if d := cmp.Diff(want, linted); d != "" {
		t.Errorf("schemas kept (-want +got):\n%s", d)
	}
	if r.Summary.Files != 5 {
		t.Errorf("jstk lint . linted %d files, want the 5 schemas", r.Summary.Files)
	}
}
