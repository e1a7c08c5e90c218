package assoc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func TestGlob(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		anchor  Anchor
		yes, no []string
	}{
		{"package.json", Anywhere, []string{"package.json", "a/b/package.json"}, []string{"package.json5", "xpackage.json"}},
		{"tsconfig*.json", Anywhere, []string{"tsconfig.json", "src/tsconfig.build.json"}, []string{"tsconfig.jsonc"}},
		{"**/.github/workflows/*.yml", Anywhere, []string{".github/workflows/ci.yml", "sub/.github/workflows/x.yml"}, []string{".github/workflows/a/ci.yml", ".github/ci.yml"}},
		{".vscode/settings.json", Anywhere, []string{".vscode/settings.json", "a/.vscode/settings.json"}, []string{"settings.json"}},
		{"/root.json", Anywhere, []string{"root.json"}, []string{"a/root.json"}},
		{"**/.github/ISSUE_TEMPLATE/!(config).yml", Anywhere, []string{".github/ISSUE_TEMPLATE/bug.yml"}, []string{".github/ISSUE_TEMPLATE/config.yml"}},
		{"**/manifests/?/*/*.yaml", Anywhere, []string{"manifests/m/x/y.yaml"}, []string{"manifests/mm/x/y.yaml"}},
		{"*.{yml,yaml}", Anywhere, []string{"a.yml", "b/a.yaml"}, []string{"a.json"}},
		{"[abc]x.json", Anywhere, []string{"ax.json"}, []string{"dx.json"}},
		{"[!abc]x.json", Anywhere, []string{"dx.json"}, []string{"ax.json"}},
		{"**/workflow-templates/**.properties.json", Anywhere, []string{"workflow-templates/a.properties.json"}, []string{"a.properties.json"}},
		{"orders/*.json", Rooted, []string{"orders/a.json"}, []string{"x/orders/a.json", "orders/a/b.json"}},
		{"orders/**/*.json", Rooted, []string{"orders/a.json", "orders/a/b/c.json"}, []string{"x/orders/a.json"}},
		{"*.yaml", Rooted, []string{"a.yaml", "deep/a.yaml"}, []string{"a.yml"}},
		{"./x.json", Rooted, []string{"x.json"}, nil},
		{`a\*.json`, Anywhere, []string{"a*.json"}, []string{"ab.json"}},
	}
	for _, c := range cases {
		g, err := CompileGlob(c.pattern, c.anchor)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		for _, y := range c.yes {
			if !g.Match(y) {
				t.Errorf("%s does not match %s", c.pattern, y)
			}
		}
		for _, n := range c.no {
			if g.Match(n) {
				t.Errorf("%s matches %s", c.pattern, n)
			}
		}
	}
}

func TestGlobErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "[abc", "{a,b", "a}", "a//b", "!(x", "@(x)", "a(b", "{a,{b}}", `a\`, "[z-a]", strings.Repeat("x", 2000), strings.Repeat("a?", 40)} {
		if _, err := CompileGlob(p, Anywhere); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

func TestCatalogSpecificity(t *testing.T) {
	t.Parallel()
	c, errs := NewCatalog("Store 1234567", []Entry{
		{Name: "any yaml", URL: "https://x/any.json", FileMatch: []string{"*.yml"}},
		{Name: "workflow", URL: "https://x/wf.json", FileMatch: []string{".github/workflows/*.yml"}},
		{Name: "ci exact", URL: "https://x/ci.json", FileMatch: []string{"ci.yml"}},
		{Name: "tie a", URL: "https://x/a.json", FileMatch: []string{"tie.json"}},
		{Name: "tie b", URL: "https://x/b.json", FileMatch: []string{"tie.json"}},
		{Name: "same url", URL: "https://x/a.json", FileMatch: []string{"tie.json", "bad["}},
		{Name: "no match", URL: "https://x/n.json"},
		{Name: "rc", URL: "https://x/rc.json", FileMatch: []string{"*rc"}},
	})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `entry "same url": fileMatch "bad[" is not a valid glob`) {
		t.Errorf("errors: %v", errs)
	}
	if c.Patterns() != 7 || len(c.Entries()) != 8 {
		t.Errorf("%d patterns, %d entries", c.Patterns(), len(c.Entries()))
	}
	name := func(hs []Hit) string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Entry.Name+"="+h.Pattern)
		}
		return strings.Join(out, ",")
	}
	for path, want := range map[string]string{
		".github/workflows/ci.yml": "workflow=.github/workflows/*.yml", // a path pattern over a bare name
		"ci.yml":                   "ci exact=ci.yml",                  // a longer literal over a shorter
		"x.yml":                    "any yaml=*.yml",
		"tie.json":                 "tie a=tie.json,tie b=tie.json", // a true tie, same-URL entries counted once
		"none.txt":                 "",
		".bashrc":                  "rc=*rc",
	} {
		if got := name(c.Match(path)); got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
	var nilCat *Catalog
	if nilCat.Match("x") != nil {
		t.Error("a nil catalog matched")
	}
}

func TestAssociate(t *testing.T) {
	t.Parallel()
	cat, _ := NewCatalog("SchemaStore 3b6446a", []Entry{
		{Name: "package.json", URL: "https://www.schemastore.org/package.json", FileMatch: []string{"package.json"}},
		{Name: "a", URL: "https://x/a.json", FileMatch: []string{"tie.json"}},
		{Name: "b", URL: "https://x/b.json", FileMatch: []string{"tie.json"}},
	})
	m, err := NewMapping("proj", "schemas/order.json", []string{"orders/*.json", "!orders/skip.json"})
	if err != nil {
		t.Fatal(err)
	}
	a := &Associator{Root: "proj", Config: "jstk.json", Mappings: []*Mapping{m}, Catalog: func() (*Catalog, error) { return cat, nil }}
	cases := []struct {
		name, data string
		want       Association
	}{
		{"proj/package.json", `{"name": "x"}`, Association{Schema: "https://www.schemastore.org/package.json", Rule: ByCatalog, Pattern: "package.json", Entry: "package.json", Catalog: "SchemaStore 3b6446a",
			Why: "by fileMatch `package.json` of SchemaStore's package.json"}},
		{"proj/orders/a.json", `{}`, Association{Schema: "proj/schemas/order.json", Rule: ByConfig, Pattern: "orders/*.json", Entry: "schemas/order.json",
			Why: "by jstk.json's \"schemas\" entry \"schemas/order.json\", glob `orders/*.json`"}},
		{"proj/orders/skip.json", `{}`, Association{Rule: None, Why: "no $schema, no mapping in jstk.json and no catalog entry names one"}},
		{"proj/orders/package.json", "{\n \"$schema\": \"../s.json\"}", Association{Schema: "proj/s.json", Rule: BySchemaMember, Line: 2, Why: "by its $schema member (line 2)"}},
		{"proj/s.yaml", "# yaml-language-server: $schema=https://x/y.json\na: 1\n", Association{Schema: "https://x/y.json", Rule: ByModeline, Line: 1, Why: "by its yaml-language-server modeline (line 1)"}},
		{"proj/s.toml", "\n#:schema ./t.json\na = 1\n", Association{Schema: "proj/t.json", Rule: ByDirective, Line: 2, Why: "by its #:schema directive (line 2)"}},
		{"proj/s.toml", "a = 1\n#:schema ./t.json\n", Association{Rule: None, Why: "no $schema, no mapping in jstk.json and no catalog entry names one"}},
		{"proj/m.json", `{"$schema": "http://json-schema.org/draft-07/schema#"}`, Association{Schema: "http://json-schema.org/draft-07/schema", Rule: IsSchema, Line: 1,
			Why: "a schema: its $schema (line 1) names the draft-07 meta-schema"}},
		{"proj/tie.json", `{}`, Association{Rule: Tie, Catalog: "SchemaStore 3b6446a",
			Tie: []string{"https://x/a.json (a, fileMatch `tie.json`)", "https://x/b.json (b, fileMatch `tie.json`)"},
			Why: "no schema chosen: 2 entries of SchemaStore match equally: https://x/a.json (a, fileMatch `tie.json`), https://x/b.json (b, fileMatch `tie.json`); name one in jstk.json's \"schemas\" or with $schema"}},
		{"proj/g.yaml", "# yaml-language-server: $schema=\na: 1\n", Association{Rule: ByModeline, Line: 1, Why: "its yaml-language-server modeline names no schema",
			Problem: "proj/g.yaml:1: its yaml-language-server modeline names no schema: write `# yaml-language-server: $schema=<path or URL>` or remove the line"}},
		{"proj/g2.yaml", "# yaml-language-server: $schema = x\na: 1\n", Association{Rule: ByModeline, Line: 1, Why: "its yaml-language-server modeline \"$schema = x\" is not a path or a URI",
			Problem: "proj/g2.yaml:1: its yaml-language-server modeline \"$schema = x\" is not a path or a URI: write `# yaml-language-server: $schema=<path or URL>` or remove the line"}},
		{"proj/n.json", `{"$schema": 3}`, Association{Rule: BySchemaMember, Line: 1, Why: "its $schema member is not a string",
			Problem: "proj/n.json:1: \"$schema\" is not a string; make it the path or URI of the file's schema"}},
		{"proj/arr.json", `[1]`, Association{Rule: None, Why: "no $schema, no mapping in jstk.json and no catalog entry names one"}},
		{"proj/bad.json", `{"$schema": `, Association{Rule: None, Why: "no $schema, no mapping in jstk.json and no catalog entry names one"}},
	}
	for _, c := range cases {
		got := a.Associate(c.name, []byte(c.data), nil)
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	// The argument comes first; a parsed document is used as it is.
	arg := &Associator{Argument: "s.json"}
	if got := arg.Associate("x.json", nil, nil); got.Rule != ByArgument || got.Schema != "s.json" {
		t.Errorf("argument: %+v", got)
	}
	docs, err := source.Parse("d.json", []byte(`{"$schema": "https://x/s.json"}`), source.JSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := (&Associator{}).Associate("d.json", nil, docs[0]); got.Rule != BySchemaMember || got.Schema != "https://x/s.json" {
		t.Errorf("parsed: %+v", got)
	}
	// A catalog that cannot be read is said.
	broken := &Associator{Catalog: func() (*Catalog, error) { return nil, errors.New("no catalog") }}
	if got := broken.Associate("x.json", []byte(`{}`), nil); got.Problem != "no catalog" {
		t.Errorf("broken catalog: %+v", got)
	}
	if _, err := NewMapping(".", "s.json", []string{"!x"}); err == nil {
		t.Error("a mapping of only exclusions was taken")
	}
	if _, err := NewMapping(".", "s.json", []string{"[x"}); err == nil || !strings.Contains(err.Error(), `glob "[x"`) {
		t.Errorf("bad glob: %v", err)
	}
}

func TestWalk(t *testing.T) {
	t.Parallel()
	fsys := workspace.Memory(map[string]string{
		"a.json":                      "{}",
		".gitignore":                  "build/\n*.log\n!keep.log\n",
		"build/x.json":                "{}",
		"x.log":                       "",
		"keep.log":                    "",
		"node_modules/p/package.json": "{}",
		".git/config":                 "",
		".github/workflows/ci.yml":    "",
		".hidden/x.json":              "{}",
		"sub/.gitignore":              "local.json\n",
		"sub/local.json":              "{}",
		"sub/b.yaml":                  "",
	})
	files, errs := Walk(context.Background(), fsys, []string{"."}, &WalkOptions{Hidden: func(n string) bool { return n == ".github" }})
	want := []string{".gitignore", "a.json", "keep.log", ".github/workflows/ci.yml", "sub/.gitignore", "sub/b.yaml"}
	if d := cmp.Diff(want, files); d != "" || len(errs) > 0 {
		t.Errorf("walk (-want +got):\n%s%v", d, errs)
	}
	// Named, a hidden directory is walked; a file is itself; a glob expands.
	files, errs = Walk(context.Background(), fsys, []string{".hidden", "build/x.json", "sub/*.yaml", "missing"}, nil)
	if d := cmp.Diff([]string{".hidden/x.json", "build/x.json", "sub/b.yaml"}, files); d != "" || len(errs) != 1 {
		t.Errorf("named (-want +got):\n%s%v", d, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, errs := Walk(ctx, fsys, []string{"."}, nil); len(errs) == 0 {
		t.Error("a cancelled walk went on")
	}
}

func ExampleAssociator_Associate() {
	cat, _ := NewCatalog("SchemaStore 3b6446a", []Entry{
		{Name: "tsconfig.json", URL: "https://www.schemastore.org/tsconfig.json", FileMatch: []string{"tsconfig*.json"}},
	})
	a := &Associator{Catalog: func() (*Catalog, error) { return cat, nil }}
	x := a.Associate("web/tsconfig.json", []byte(`{"compilerOptions": {}}`), nil)
	fmt.Println(x.Schema)
	fmt.Println(x.Why)
	// Output:
	// https://www.schemastore.org/tsconfig.json
	// by fileMatch `tsconfig*.json` of SchemaStore's tsconfig.json
}
