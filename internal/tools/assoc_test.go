package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// fixtureRepo is a repository with real file names, each associated by one rule of the
// order (DESIGN.md section 3a).
var fixtureRepo = map[string]string{
	"jstk.json": `{"schemas": {
		"schemas/workflow.schema.json": ".github/workflows/*.yml",
		"schemas/order.schema.json": ["orders/**/*.json", "!orders/drafts/*.json"]
	}}`,
	".gitignore": "dist/\n",
	// the catalog, by fileMatch
	"package.json":                `{"name": "fixture", "version": "1.0.0", "private": true}`,
	"tsconfig.json":               "{\n  // JSONC: comments and trailing commas\n  \"compilerOptions\": {\"strict\": true,},\n}\n",
	".github/dependabot.yml":      "version: 2\nupdates:\n  - package-ecosystem: gomod\n    directory: /\n    schedule:\n      interval: weekly\n",
	".azuredevops/dependabot.yml": "updates: []\n", // invalid: version is required
	// jstk.json's map, with an exclusion
	".github/workflows/ci.yml":  "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
	".github/workflows/bad.yml": "name: 3\n",
	"orders/2026/a.json":        `{"id": 1}`,
	"orders/drafts/x.json":      `{"id": "draft"}`,
	// declarations
	"docker-compose.yml":   "# yaml-language-server: $schema=schemas/compose.schema.json\nservices:\n  web:\n    image: nginx\n",
	"pyproject.toml":       "#:schema ./schemas/pyproject.schema.json\n[project]\nname = \"fixture\"\n",
	"renovate.json":        `{"$schema": "https://docs.renovatebot.com/renovate-schema.json", "extends": []}`,
	"config/settings.json": `{"$schema": "../schemas/order.schema.json", "id": "one"}`,
	"schemas/order.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["id"],
		"properties": {"id": {"type": "integer"}}}`,
	"schemas/workflow.schema.json":  `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["jobs"], "properties": {"name": {"type": "string"}}}`,
	"schemas/compose.schema.json":   `{"type": "object", "required": ["services"]}`,
	"schemas/pyproject.schema.json": `{"type": "object", "properties": {"project": {"type": "object", "required": ["name"]}}}`,
	// none, and ignored
	".pre-commit-config.yaml":     "repos: []\n",
	"README.md":                   "# fixture\n",
	"dist/package.json":           `{"name": 3}`,
	"node_modules/x/package.json": `{"name": 3}`,
}

// snapshot returns the store of the corpora's SchemaStore snapshot (read in place).
func snapshot(t testing.TB) *store.Store {
	t.Helper()
	return store.Open(workspace.OS(), corpora.Dir(t, "schemastore-dev"))
}

func fixtureEnv(t *testing.T, files map[string]string) *Env {
	t.Helper()
	fsys := workspace.Memory(files)
	cfg, err := LoadConfig(fsys)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot(t)
	return &Env{FS: fsys, Config: cfg, Resolve: cfg.Resolve, Store: s, Remotes: []schema.Remote{s}, Cache: NewSchemaCache(8)}
}

func TestValidateWithoutSchema(t *testing.T) {
	env := fixtureEnv(t, fixtureRepo)
	res, err := runValidate(context.Background(), env, &ValidateInput{})
	if err != nil {
		t.Fatal(err)
	}
	type verdict struct{ Rule, Schema, Verdict string }
	got := map[string]verdict{}
	for _, in := range res.Instances {
		v := "valid"
		switch {
		case in.Problem != "":
			v = "problem"
		case !in.Valid:
			v = "invalid"
		}
		got[in.File] = verdict{string(in.Association.Rule), in.Association.Schema, v}
	}
	for _, n := range res.NoSchema {
		got[n.File] = verdict{string(n.Association.Rule), "", "none"}
	}
	ss := "https://www.schemastore.org/"
	want := map[string]verdict{
		"package.json":                  {"catalog", ss + "package.json", "valid"},
		"tsconfig.json":                 {"catalog", ss + "tsconfig.json", "valid"},
		".github/dependabot.yml":        {"catalog", ss + "dependabot-2.0.json", "valid"},
		".azuredevops/dependabot.yml":   {"catalog", ss + "dependabot-2.0.json", "invalid"},
		".github/workflows/ci.yml":      {"config", "schemas/workflow.schema.json", "valid"},
		".github/workflows/bad.yml":     {"config", "schemas/workflow.schema.json", "invalid"},
		"orders/2026/a.json":            {"config", "schemas/order.schema.json", "valid"},
		"orders/drafts/x.json":          {"none", "", "none"},
		"docker-compose.yml":            {"modeline", "schemas/compose.schema.json", "valid"},
		"pyproject.toml":                {"directive", "schemas/pyproject.schema.json", "valid"},
		"renovate.json":                 {"$schema", "https://docs.renovatebot.com/renovate-schema.json", "problem"},
		"config/settings.json":          {"$schema", "schemas/order.schema.json", "invalid"},
		"schemas/order.schema.json":     {"meta-schema", "https://json-schema.org/draft/2020-12/schema", "valid"},
		"schemas/workflow.schema.json":  {"meta-schema", "http://json-schema.org/draft-07/schema", "valid"},
		"schemas/compose.schema.json":   {"none", "", "none"},
		"schemas/pyproject.schema.json": {"none", "", "none"},
		".pre-commit-config.yaml":       {"none", "", "none"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("associations and verdicts (-want +got):\n%s", d)
	}
	if res.ExitCode() != 2 { // renovate.json's schema cannot be had offline
		t.Errorf("exit %d", res.ExitCode())
	}
	var text strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"https://www.schemastore.org/tsconfig.json: 1 instance, 1 valid\n  tsconfig.json: valid (by fileMatch `tsconfig*.json` of SchemaStore's tsconfig.json)",
		"  .github/workflows/ci.yml: valid (by jstk.json's \"schemas\" entry \"schemas/workflow.schema.json\", glob `.github/workflows/*.yml`)",
		"  docker-compose.yml: valid (by its yaml-language-server modeline (line 1))",
		"  pyproject.toml: valid (by its #:schema directive (line 1))",
		"  config/settings.json: invalid (by its $schema member (line 1))\n    config/settings.json:1:51: /id: value must be integer, not string [type]",
		"no schema: 4 files\n",
		"4 files without a schema\n",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the report lacks %q:\n%s", s, text.String())
		}
	}
	// --format json carries the association of each file.
	data, err := json.Marshal(res)
	if err != nil || !strings.Contains(string(data), `"association":{"schema":"https://www.schemastore.org/package.json","rule":"catalog","pattern":"package.json","entry":"package.json"`) {
		t.Errorf("json: %v %.400s", err, data)
	}

	// --require-schema: a file without a schema is a finding.
	files := map[string]string{"package.json": fixtureRepo["package.json"], "notes.json": `{}`}
	res, err = runValidate(context.Background(), fixtureEnv(t, files), &ValidateInput{RequireSchema: true})
	if err != nil || res.ExitCode() != 1 || res.Valid {
		t.Errorf("require-schema: exit %d valid %v %v", res.ExitCode(), res.Valid, err)
	}
	res, _ = runValidate(context.Background(), fixtureEnv(t, files), &ValidateInput{})
	if res.ExitCode() != 0 || !res.Valid {
		t.Errorf("without require-schema: exit %d", res.ExitCode())
	}
}

func TestValidateWithoutSchemaBadInput(t *testing.T) {
	ctx := context.Background()
	env := fixtureEnv(t, map[string]string{
		"jstk.json": `{"schemas": {"schemas/missing.json": "*.yaml"}}`,
		"a.yaml":    "a: 1\n",
	})
	if _, err := runValidate(ctx, env, &ValidateInput{}); err == nil ||
		!strings.Contains(err.Error(), `jstk.json:1:14: the schema "schemas/missing.json" of "schemas" does not exist`) {
		t.Errorf("missing mapped schema: %v", err)
	}
	if _, err := LoadConfig(workspace.Memory(map[string]string{"jstk.json": `{"schemas": {"s.json": "[x"}}`})); err == nil ||
		!strings.Contains(err.Error(), `schema "s.json": glob "[x"`) {
		t.Errorf("bad glob: %v", err)
	}
	env = fixtureEnv(t, map[string]string{
		"g.yaml": "# yaml-language-server: $schema=\na: 1\n",
		"o.json": `{"$schema": "../outside.json"}`,
	})
	res, err := runValidate(ctx, env, &ValidateInput{})
	if err != nil {
		t.Fatal(err)
	}
	problems := map[string]string{}
	for _, in := range res.Instances {
		problems[in.File] = in.Problem
	}
	if !strings.Contains(problems["g.yaml"], "g.yaml:1: its yaml-language-server modeline names no schema: write `# yaml-language-server: $schema=<path or URL>`") {
		t.Errorf("garbage modeline: %q", problems["g.yaml"])
	}
	if !strings.Contains(problems["o.json"], "o.json: schema ../outside.json") {
		t.Errorf("outside: %q", problems["o.json"])
	}
	if _, err := runValidate(ctx, env, &ValidateInput{Instances: []Doc{{Text: "{}"}}}); err == nil {
		t.Error("an inline instance without a schema was taken")
	}
}

// Over MCP the validate tool takes no schema and finds each file's inside its root; a
// $schema that leaves the root is refused as every path is.
func TestValidateWithoutSchemaOverMCP(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"package.json":  fixtureRepo["package.json"],
		"escape.json":   `{"$schema": "../../etc/x.json"}`,
		"tsconfig.json": fixtureRepo["tsconfig.json"],
	}
	writeFiles(t, dir, files)
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot(t)
	env := &Env{FS: fsys, Store: s, Remotes: []schema.Remote{s}}
	d, _ := Lookup("validate")
	p := NewProvider(env, []*Descriptor{d})
	r := p.Call(context.Background(), &mcp.CallRequest{Name: "validate", Arguments: json.RawMessage(`{}`)})
	if r.IsError {
		t.Fatalf("%+v", r)
	}
	out, _ := json.Marshal(r.StructuredContent)
	var res validate.Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	byFile := map[string]validate.Instance{}
	for _, in := range res.Instances {
		byFile[in.File] = in
	}
	if in := byFile["package.json"]; !in.Valid || in.Association == nil || in.Association.Rule != assoc.ByCatalog {
		t.Errorf("package.json: %+v", in)
	}
	if in := byFile["escape.json"]; !strings.Contains(in.Problem, "climbs out of the workspace") {
		t.Errorf("escape.json: %+v", in)
	}
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
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

// list_schemas and schema_context say which workspace files each schema applies to.
func TestSchemasSayWhatTheyApplyTo(t *testing.T) {
	files := map[string]string{
		"jstk.json":                 `{"schemas": {"schemas/order.schema.json": "orders/*.json"}}`,
		"schemas/order.schema.json": fixtureRepo["schemas/order.schema.json"],
		"self.json":                 `{"$schema": "schemas/order.schema.json", "id": 1}`,
	}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("orders/o%02d.json", i)] = `{"id": 1}`
	}
	env := fixtureEnv(t, files)
	l, err := runListSchemas(context.Background(), env, &ListSchemasInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Schemas) != 1 || l.Schemas[0].AppliesToCount != 13 || len(l.Schemas[0].AppliesTo) != maxAppliesTo || l.Schemas[0].AppliesTo[0] != "self.json" {
		t.Fatalf("%+v", l.Schemas)
	}
	var text strings.Builder
	if err := l.WriteText(&text); err != nil || !strings.Contains(text.String(), "    applies to self.json, orders/o00.json") || !strings.Contains(text.String(), "(and 3 more)") {
		t.Errorf("%v %s", err, text.String())
	}
	c, err := runSchemaContext(context.Background(), env, &SchemaContextInput{ID: "schemas/order.schema.json"})
	if err != nil || c.Schema == nil || c.Schema.AppliesToCount != 13 {
		t.Fatalf("%v %+v", err, c)
	}
	text.Reset()
	if err := c.WriteText(&text); err != nil || !strings.Contains(text.String(), "applies to: self.json, orders/o00.json") {
		t.Errorf("%v %s", err, text.String())
	}
}

// A $schema naming a SchemaStore URL that the store does not hold says so, and what to do.
func TestNotVendored(t *testing.T) {
	env := fixtureEnv(t, map[string]string{"x.json": `{"$schema": "https://json.schemastore.org/no-such-thing.json"}`})
	res, err := runValidate(context.Background(), env, &ValidateInput{})
	if err != nil || len(res.Instances) != 1 || !strings.Contains(res.Instances[0].Problem, "not vendored: https://json.schemastore.org/no-such-thing.json; map it") {
		t.Errorf("%v %+v", err, res.Instances)
	}
}

// Without a built-in store, the catalog matches nothing and one note says how to get one;
// jstk.json turns the catalog off or points at a snapshot.
func TestNoStore(t *testing.T) {
	files := map[string]string{"package.json": fixtureRepo["package.json"], "x.json": `{"$schema": "https://json.schemastore.org/package.json"}`}
	notes := NewNotes(nil)
	s := store.None()
	env := &Env{FS: workspace.Memory(files), Store: s, Remotes: []schema.Remote{s}, Notes: notes}
	res, err := runValidate(context.Background(), env, &ValidateInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NoSchema) != 1 || res.NoSchema[0].File != "package.json" || len(notes.List()) != 1 || !strings.Contains(notes.List()[0], "no SchemaStore catalog built in") {
		t.Errorf("no store: %+v %q", res.NoSchema, notes.List())
	}
	if len(res.Instances) != 1 || !strings.Contains(res.Instances[0].Problem, "not vendored: https://json.schemastore.org/package.json") {
		t.Errorf("a SchemaStore URL without a store: %+v", res.Instances)
	}
	// A store that cannot be read is said for each file it would match.
	bad := store.FromBytes("bad", []byte("not a zip"))
	env = &Env{FS: workspace.Memory(map[string]string{"package.json": "{}"}), Store: bad}
	res, err = runValidate(context.Background(), env, &ValidateInput{})
	if err != nil || len(res.Instances) != 1 || !strings.Contains(res.Instances[0].Problem, "not a SchemaStore file") {
		t.Errorf("unreadable store: %v %+v", err, res.Instances)
	}
	for _, tc := range []struct{ text, want string }{
		{`{"schemastore": false}`, "off"},
		{`{"schemastore": "snap"}`, "snap"},
		{`{"schemastore": 3}`, `"schemastore" must be false`},
		{`{"schemas": []}`, `"schemas" must map schemas to globs`},
		{`{"schemas": {"s.json": 3}}`, `must be a glob or a list of globs`},
		{`{"schemas": {"s.json": [3]}}`, `the globs of "s.json" must be strings`},
	} {
		cfg, err := LoadConfig(workspace.Memory(map[string]string{"jstk.json": tc.text}))
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v", tc.text, err)
			}
		case tc.want == "off" && !cfg.NoCatalog, tc.want == "snap" && cfg.SchemaStore != "snap", tc.want != "off" && tc.want != "snap":
			t.Errorf("%s: %+v", tc.text, cfg)
		}
	}
}

// Over MCP, a workspace of many files without a schema still answers within the budget.
func TestValidateWithoutSchemaBudget(t *testing.T) {
	files := map[string]string{"package.json": fixtureRepo["package.json"]}
	for i := 0; i < 600; i++ {
		files[fmt.Sprintf("data/n%03d.json", i)] = `{"a": 1}`
	}
	s := snapshot(t)
	env := &Env{FS: workspace.Memory(files), Store: s, Remotes: []schema.Remote{s}}
	d, _ := Lookup("validate")
	r := NewProvider(env, []*Descriptor{d}).Call(context.Background(), &mcp.CallRequest{Name: "validate", Arguments: json.RawMessage(`{}`)})
	data, _ := json.Marshal(r)
	if r.IsError || len(data) > DefaultMaxResultBytes {
		t.Errorf("isError %v, %d bytes", r.IsError, len(data))
	}
	if !strings.Contains(string(data), "package.json") {
		t.Errorf("the answer lost the validated file: %.300s", data)
	}
}

// TestCatalogMatchesFromTheRepository: a file named on its own (as pre-commit names staged
// files) makes its folder the workspace root; the catalog still matches its path from the
// repository (the folder with .git), else from the file system's root, as an editor does.
func TestCatalogMatchesFromTheRepository(t *testing.T) {
	s := snapshot(t)
	for _, tc := range []struct{ name, root, file string }{
		{"in a repository", ".github", ".github/dependabot.yml"},
		{"no repository", "repo/.github", "repo/.github/dependabot.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{tc.file: fixtureRepo[".github/dependabot.yml"]}
			if tc.name == "in a repository" {
				files[".git/HEAD"] = "ref: refs/heads/main\n"
			}
			env := &Env{FS: workspace.Memory(files), Root: tc.root, Store: s, Remotes: []schema.Remote{s}, Cache: NewSchemaCache(8)}
			a, err := Associator(env)
			if err != nil {
				t.Fatal(err)
			}
			got := a.Associate(tc.file, []byte(files[tc.file]), nil)
			if got.Rule != assoc.ByCatalog || !strings.HasSuffix(got.Schema, "dependabot-2.0.json") {
				t.Errorf("%s with root %s: %+v, want dependabot-2.0.json by the catalog", tc.file, tc.root, got)
			}
		})
	}
}
