package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// resolveWorkspace is the workspace: a stray copy of a mapped $id, a file that
// declares a built-in meta-schema's $id, a duplicate $id, neighbours found by their $id's
// relative path, and an $id only the index knows.
var resolveWorkspace = map[string]string{
	"jstk.json":           `{"resolve": {"https://example.com/limit.json": "lib/limit.json"}}`,
	"s.json":              `{"$ref": "https://example.com/limit.json"}`,
	"lib/limit.json":      `{"$id": "https://example.com/limit.json", "maximum": 10}`,
	"stray/old-copy.json": `{"$id": "https://example.com/limit.json", "maximum": 1000}`,

	"meta-user.json":       `{"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}`,
	"evil/validation.json": `{"$id": "https://json-schema.org/draft/2020-12/meta/validation", "type": "string"}`,

	"dup-user.json": `{"$ref": "https://example.com/dup.json"}`,
	"a/dup.json":    `{"$id": "https://example.com/dup.json", "type": "string"}`,
	"b/dup.json":    `{"$id": "https://example.com/dup.json", "type": "integer"}`,

	"shop/order.schema.json":    `{"$id": "https://example.com/schemas/order.schema.json", "type": "object", "properties": {"customer": {"$ref": "customer.schema.json"}}}`,
	"shop/customer.schema.json": `{"$id": "https://example.com/schemas/customer.schema.json", "type": "object", "required": ["name"]}`,

	"only-user.json":  `{"$ref": "https://example.com/only.json"}`,
	"deep/x/one.json": `{"$id": "https://example.com/only.json", "type": "boolean"}`,

	"v500.json":   `500`,
	"order1.json": `{"customer": {}}`,
	"meta1.json":  `{"minimum": 1}`,
	"true.json":   `true`,
}

// writeTree writes files under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpEnv is the environment jstk mcp builds for a root.
func mcpEnv(t *testing.T, dir string) *Env {
	t.Helper()
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{FS: fsys, Resolve: cfg.Resolve, Config: cfg, Cache: NewSchemaCache(8), Index: NewIndex(fsys, []string{"."}, nil)}
}

// The resolution order over MCP: the same verdicts as the CLI (see the script
// resolve.txtar), the notice of the index in the result, never on stdout.
func TestResolutionOverMCP(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, resolveWorkspace)
	env := mcpEnv(t, dir)
	p := NewProvider(env, All())
	tests := []struct {
		name, schema, instance string
		valid                  bool
		isError                bool
		text                   string // in the result's text
		note                   string // the notice, "" for none
		index                  bool   // the call needs the $id index
	}{
		{name: "the map beats a stray copy", schema: "s.json", instance: "v500.json", valid: false, text: "500 is greater than the maximum 10"},
		{name: "no file shadows a meta-schema", schema: "meta-user.json", instance: "meta1.json", valid: true},
		{name: "a duplicate $id is an error naming both", schema: "dup-user.json", instance: "true.json", isError: true,
			text: "2 files of the workspace declare this $id: a/dup.json, b/dup.json", index: true},
		{name: "a neighbour by its $id's relative path", schema: "shop/order.schema.json", instance: "order1.json", valid: false,
			text: `/customer: missing required property`},
		{name: "the index, announced", schema: "only-user.json", instance: "true.json", valid: true,
			note: "note: resolved https://example.com/only.json from the workspace index: deep/x/one.json", index: true},
	}
	builds := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A call that does not need the index never builds it; one that does builds it
			// once (renewed per call: the second reads again only what changed).
			defer func() {
				if tc.index {
					builds += 2
				}
				if n := env.Index.Builds(); n != builds {
					t.Errorf("the index was built %d times so far, want %d", n, builds)
				}
			}()
			for range 2 { // the second call goes through the session's caches
				res := call(t, p, "validate", `{"schema": {"path": "`+tc.schema+`"}, "instances": [{"path": "`+tc.instance+`"}]}`)
				text := resultText(t, res)
				if res.IsError != tc.isError || !strings.Contains(text, tc.text) {
					t.Fatalf("isError %v, text:\n%s", res.IsError, text)
				}
				if !tc.isError {
					var out struct{ Valid bool }
					data, _ := json.Marshal(res.StructuredContent)
					if err := json.Unmarshal(data, &out); err != nil || out.Valid != tc.valid {
						t.Errorf("valid = %v, want %v (%s)", out.Valid, tc.valid, data)
					}
				}
				var notes []string
				for _, c := range res.Content[1:] {
					if strings.HasPrefix(c.Text, "note: ") {
						notes = append(notes, c.Text)
					}
				}
				if want := []string{tc.note}; tc.note == "" && len(notes) > 0 || tc.note != "" && cmp.Diff(want, notes) != "" {
					t.Errorf("notes %q, want %q", notes, tc.note)
				}
			}
		})
	}
}

// Every answer names files as the workspace does: never a file:// URI, never the machine's
// path of the root, whatever the tool, in text and structured content alike.
func TestNoMachinePathsInAnswers(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"refs/draft7.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "#/definitions/main",
  "definitions": {"main": {"type": "object", "properties": {"item": {"$ref": "../item.schema.json"}, "gone": {"$ref": "missing.json"}}}}}`,
	}
	for k, v := range everyFiles {
		files[k] = v
	}
	for k, v := range sampleFiles(t) {
		files[k] = v
	}
	writeTree(t, dir, files)
	env := mcpEnv(t, dir)
	p := NewProvider(env, All())
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string][]string{}
	for _, d := range All() {
		calls[d.Name] = append(calls[d.Name], d.Samples...)
	}
	// Calls whose answers carry schema locations: inline schemas, unsatisfiable samples,
	// invalid instances of a schema without $id, unresolved references, contexts.
	calls["validate"] = append(calls["validate"],
		`{"schema": {"value": {"allOf": [{"type": "string"}, {"$ref": "#/$defs/n"}], "$defs": {"n": {"minLength": 2}}}}, "instances": [{"value": 5}]}`,
		`{"schema": {"path": "order.schema.json"}, "instances": [{"value": {"id": 1, "items": [{}]}}]}`,
		`{"schema": {"value": {"$ref": "nowhere.json"}}, "instances": [{"value": 1}]}`,
		`{"schema": {"value": {"$ref": "item.schema.json#/nope"}}, "instances": [{"value": 1}]}`)
	calls["sample"] = append(calls["sample"],
		`{"schema": {"value": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}`,
		`{"schema": {"path": "item.schema.json"}, "count": 3}`)
	calls["schema_context"] = append(calls["schema_context"], `{"id": "refs/draft7.schema.json"}`, `{"id": "item.schema.json"}`)
	calls["diff"] = append(calls["diff"], `{"old": {"path": "order.schema.json"}, "new": {"value": {"type": "object"}}}`)
	calls["coverage"] = append(calls["coverage"], `{"schema": {"value": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}, "tests": [{"value": 1}]}`)
	calls["lint"] = append(calls["lint"], `{"schemas": [{"value": {"$ref": "nowhere.json", "minimum": 5, "maximum": 1}}]}`)
	calls["bundle"] = append(calls["bundle"], `{"schema": {"value": {"$ref": "order.schema.json"}}}`)
	names := make([]string, 0, len(calls))
	for name := range calls {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, args := range calls[name] {
			res := call(t, p, name, args)
			data, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			out := string(data)
			for _, bad := range []string{"file://", "file:\\/\\/", abs, dir, "%28inline"} {
				if strings.Contains(out, bad) {
					t.Errorf("%s %s: the answer holds %q:\n%s", name, args, bad, out)
				}
			}
		}
	}
}

func TestWorkspaceOf(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"repo/jstk.json":          `{}`,
		"repo/schemas/a.json":     `{}`,
		"repo/schemas/sub/b.json": `{}`,
		"repo/.git/HEAD":          ``,
		"lone/.git/HEAD":          ``,
		"lone/sub/c.json":         `{}`,
		"other/d.json":            `{}`,
	})
	for _, tc := range []struct {
		named []string
		root  string
		dirs  []string
	}{
		{nil, ".", []string{"."}},
		{[]string{"repo/schemas/a.json"}, "repo", []string{"repo", "repo/schemas"}},
		{[]string{"repo/schemas/sub/b.json", "other/d.json"}, "repo", []string{"repo", "repo/schemas/sub", "other"}},
		{[]string{"/ws/repo/schemas/sub"}, "repo", []string{"repo", "repo/schemas/sub"}},
		{[]string{"repo/schemas/**/*.json"}, "repo", []string{"repo", "repo/schemas"}},
		{[]string{"*.json"}, ".", []string{"."}},
		{[]string{"lone/sub/c.json"}, "lone/sub", []string{"lone/sub"}},
		{[]string{"other/d.json", "repo/schemas/a.json"}, "other", []string{"other", "repo/schemas"}},
		{[]string{"other/missing.json"}, "other", []string{"other"}},
	} {
		root, dirs := WorkspaceOf(fsys, tc.named)
		if root != tc.root || cmp.Diff(tc.dirs, dirs) != "" {
			t.Errorf("WorkspaceOf(%q) = %q, %q; want %q, %q", tc.named, root, dirs, tc.root, tc.dirs)
		}
	}
}

func TestConfigAtAndSchemaPaths(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"repo/jstk.json": `{"resolve": {"https://e.com/": "schemas/", "https://e.com/x.json": "/abs/x.json"}}`,
		"bad/jstk.json":  `{"resolve": {"https://e.com/": 5}}`,
	})
	cfg, err := LoadConfigAt(fsys, "repo")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"https://e.com/": "repo/schemas", "https://e.com/x.json": "/abs/x.json"}, cfg.Resolve); diff != "" {
		t.Errorf("resolve (-want +got):\n%s", diff)
	}
	if _, err := LoadConfigAt(fsys, "bad"); err == nil || !strings.HasPrefix(err.Error(), "bad/jstk.json:1:") {
		t.Errorf("got %v", err)
	}
	if cfg, err := LoadConfigAt(fsys, "none"); err != nil || len(cfg.Resolve) != 0 {
		t.Errorf("got %v, %v", cfg, err)
	}
	for in, want := range map[any][]string{
		&ValidateInput{Schema: PathDoc("s.json"), Instances: []Doc{PathDoc("i.json")}}: {"s.json"},
		&DiffInput{Schemas: []Doc{PathDoc("a.json"), PathDoc("-")}}:                    {"a.json"},
		&TestInput{Tests: []Doc{PathDoc("t/x.json"), {Text: "{}"}}}:                    {"t/x.json"},
		&InferInput{Instances: []Doc{PathDoc("i.json")}}:                               nil,
		"not a struct": nil,
	} {
		if got := SchemaPaths(in); cmp.Diff(want, got) != "" {
			t.Errorf("SchemaPaths(%T) = %q, want %q", in, got, want)
		}
	}
}

func TestNotes(t *testing.T) {
	var out []string
	n := NewNotes(func(s string) { out = append(out, s) })
	for _, s := range []string{"a", "", "b", "a"} {
		n.Add(s)
	}
	if diff := cmp.Diff([]string{"a", "b"}, n.List()); diff != "" || cmp.Diff(out, n.List()) != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	var none *Notes
	none.Add("x")
	if none.List() != nil {
		t.Error("a nil Notes keeps nothing")
	}
	res := withNotes(&mcp.CallResult{Content: []mcp.Content{mcp.TextContent("report")}}, n)
	if len(res.Content) != 2 || res.Content[1].Text != "note: a\nnote: b" {
		t.Errorf("content %+v", res.Content)
	}
}
