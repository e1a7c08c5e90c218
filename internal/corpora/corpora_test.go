package corpora

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func TestFindFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "compat"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JSTK_CORPORA_DIR", dir)
	if got := Dir(t, "compat"); got != filepath.Join(dir, "compat") {
		t.Errorf("Dir = %q", got)
	}
}

func TestMissingCorpusSkips(t *testing.T) {
	t.Setenv("JSTK_CORPORA_DIR", t.TempDir())
	t.Setenv("JSTK_CORPORA", "")
	tty := filepath.Join(t.TempDir(), "tty") // not the terminal of whoever runs these tests
	defer func(old string) { terminal = old }(terminal)
	terminal = tty
	ran := false
	t.Run("inner", func(t *testing.T) {
		defer func() { ran = true }()
		Dir(t, "nope")
		t.Error("Dir returned for a missing corpus")
	})
	if !ran {
		t.Error("the subtest did not run")
	}
	if _, err := os.Stat(tty); err == nil {
		t.Error("the notice created a file where there was no terminal")
	}
}

func TestAnnounceWritesOneLineToTheTerminal(t *testing.T) {
	tty := filepath.Join(t.TempDir(), "tty")
	if err := os.WriteFile(tty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	announce(tty, "compat")
	announce(filepath.Join(t.TempDir(), "absent", "tty"), "not written") // no terminal: nothing, no error
	got, err := os.ReadFile(tty)
	if err != nil {
		t.Fatal(err)
	}
	want := "corpora: reference suites SKIPPED: ../shared/corpora/compat is absent (README.md, \"Tests\", says where it comes from)\n"
	if string(got) != want {
		t.Errorf("the terminal got %q, want %q", got, want)
	}
}

func TestFindWalksUpToTheModule(t *testing.T) {
	t.Setenv("JSTK_CORPORA_DIR", "")
	root, ok := find()
	// From internal/corpora the module root is two levels up; the corpora may be absent.
	if ok && filepath.Base(root) != "corpora" {
		t.Errorf("find = %q", root)
	}
}

func TestSchemaStoreSchemas(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"src/schema-validation.json":        `{"skiptest": ["skipped.json"]}`,
		"src/schemas/json/a.json":           `{}`,
		"src/schemas/json/b.json":           `{}`,
		"src/schemas/json/skipped.json":     `{}`,
		"src/test/b/one.json":               `1`,
		"src/test/a/one.json":               `1`,
		"src/test/a/two.yaml":               `2`,
		"src/negative_test/a/bad.json":      `"x"`,
		"src/test/skipped/one.json":         `1`,
		"src/test/no-schema/one.json":       `1`,
		"src/negative_test/only-neg/x.json": `1`,
		"src/schemas/json/only-neg.json":    `{}`,
		"src/test/not-a-dir.json":           `1`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := SchemaStoreSchemas(t, dir, fsys)
	want := []StoreSchema{
		{Name: "a", Schema: "src/schemas/json/a.json", Positive: []string{"src/test/a/one.json", "src/test/a/two.yaml"},
			Negative: []string{"src/negative_test/a/bad.json"}},
		{Name: "b", Schema: "src/schemas/json/b.json", Positive: []string{"src/test/b/one.json"}},
		{Name: "only-neg", Schema: "src/schemas/json/only-neg.json", Negative: []string{"src/negative_test/only-neg/x.json"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SchemaStoreSchemas (-want +got):\n%s", diff)
	}
	if SchemaStoreResolve["https://json.schemastore.org/"] != "src/schemas/json/" {
		t.Errorf("resolve map: %v", SchemaStoreResolve)
	}
}

func TestInstances(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.json": `{"a": 1}`, "b.yaml": "x: 1\n---\nx: 2\n", "broken.json": `{"a": `} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range Instances(t, dir) {
		got = append(got, string(source.AppendJSON(nil, v)))
	}
	if diff := cmp.Diff([]string{`{"a":1}`, `{"x":1}`, `{"x":2}`}, got); diff != "" {
		t.Errorf("Instances (-want +got):\n%s", diff)
	}
	if got := Instances(t, filepath.Join(dir, "none")); got != nil {
		t.Errorf("a missing directory: %v", got)
	}
}

func TestSuiteFiles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"tests/draft7/type.json":                 `[{"description": "t", "schema": {}, "tests": []}]`,
		"tests/draft7/optional/bignum.json":      `[]`,
		"tests/draft7/optional/format/date.json": `[]`,
		"tests/draft7/notes.txt":                 `not a test file`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, f := range SuiteFiles(t, dir, "draft7") {
		got = append(got, f.Rel+" "+f.Group+" "+string(source.AppendJSON(nil, f.Cases))[:2])
	}
	want := []string{"optional/bignum.json optional []", "optional/format/date.json format []", `type.json core [{`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SuiteFiles (-want +got):\n%s", diff)
	}
}
