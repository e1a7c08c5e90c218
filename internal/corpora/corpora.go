// Package corpora locates the reference corpora that jstk's engines are checked against
// (../shared/corpora beside the repository) and decides what a test does when they are
// missing: skip with a clear message, or fail when JSTK_CORPORA=required.
package corpora

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Dir returns the directory of the named corpus ("JSON-Schema-Test-Suite",
// "schemastore-dev", "compat", "schema-pairs"). When the corpora are absent it skips the
// test, or fails it when the environment variable JSTK_CORPORA is "required".
func Dir(t testing.TB, name string) string {
	t.Helper()
	root, ok := find()
	if ok {
		dir := filepath.Join(root, name)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	msg := "corpus " + name + " not found at ../shared/corpora (beside the repository); " +
		"these tests check jstk against reference material and need it"
	if os.Getenv("JSTK_CORPORA") == "required" {
		t.Fatal(msg + " (JSTK_CORPORA=required)")
	}
	skipNotice.Do(func() { announce(terminal, name) })
	t.Skip(msg)
	return ""
}

// skipNotice makes the notice of a skipped reference suite once per test binary.
var skipNotice sync.Once

// terminal is where the notice goes: the controlling terminal, when there is one.
var terminal = "/dev/tty"

// announce writes a line naming the test binary's package and the missing corpus to the
// file tty, when it can be opened. `go test ./...` shows a passing package's output only with -v (its "ok"
// line would hide the skip), so the person at the terminal is told directly; without a
// terminal (a pipe, CI) nothing is written, and the skip stays in the test log.
func announce(tty, corpus string) {
	f, err := os.OpenFile(tty, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	fmt.Fprintf(f, "%s: reference suites SKIPPED: ../shared/corpora/%s is absent (README.md, \"Tests\", says where it comes from)\n", pkg, corpus)
}

// find walks up from the working directory to the module root and looks beside it.
func find() (string, bool) {
	if d := os.Getenv("JSTK_CORPORA_DIR"); d != "" {
		return d, true
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpora")
			_, err := os.Stat(c)
			return c, err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// SchemaStoreResolve maps SchemaStore's URLs to its files in the schemastore-dev corpus,
// so its schemas resolve offline.
var SchemaStoreResolve = map[string]string{
	"https://json.schemastore.org/": "src/schemas/json/",
	"http://json.schemastore.org/":  "src/schemas/json/",
	"https://www.schemastore.org/":  "src/schemas/json/",
}

// StoreSchema is one SchemaStore schema with its instance files, named relative to the
// corpus directory.
type StoreSchema struct {
	Name     string   // the schema's name, e.g. "package"
	Schema   string   // src/schemas/json/<name>.json
	Positive []string // src/test/<name>/*: instances that must be valid
	Negative []string // src/negative_test/<name>/*: instances that must be invalid
}

// SchemaStoreSchemas lists, sorted by name, the schemas of the schemastore-dev corpus at
// dir (read through fsys, rooted there) that have test instances, leaving out those that
// src/schema-validation.json's skiptest list names.
func SchemaStoreSchemas(tb testing.TB, dir string, fsys workspace.FS) []StoreSchema {
	tb.Helper()
	cfg, err := os.ReadFile(filepath.Join(dir, "src", "schema-validation.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var sv struct {
		Skiptest []string `json:"skiptest"`
	}
	if err := json.Unmarshal(cfg, &sv); err != nil {
		tb.Fatal(err)
	}
	skip := map[string]bool{}
	for _, s := range sv.Skiptest {
		skip[s] = true
	}
	byName := map[string]*StoreSchema{}
	for _, side := range []string{"src/test", "src/negative_test"} {
		entries, err := os.ReadDir(filepath.Join(dir, side))
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range entries {
			file := "src/schemas/json/" + e.Name() + ".json"
			if !e.IsDir() || skip[e.Name()+".json"] {
				continue
			}
			if _, err := fsys.Stat(file); err != nil {
				continue
			}
			files, _ := workspace.Expand(fsys, []string{path.Join(side, e.Name())}, nil)
			s := byName[e.Name()]
			if s == nil {
				s = &StoreSchema{Name: e.Name(), Schema: file}
				byName[e.Name()] = s
			}
			if side == "src/test" {
				s.Positive = files
			} else {
				s.Negative = files
			}
		}
	}
	out := make([]StoreSchema, 0, len(byName))
	for _, s := range byName {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Instances reads every document of the files directly in directory d (JSON, YAML,
// TOML...; a YAML stream gives each of its documents), in name order. A missing directory
// gives none; a file the parser refuses is left out, since it checks nothing.
func Instances(tb testing.TB, d string) []source.Value {
	tb.Helper()
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var out []source.Value
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(d, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		docs, err := source.ParseFile(e.Name(), data, nil)
		if err != nil {
			continue
		}
		for _, doc := range docs {
			out = append(out, doc.Root)
		}
	}
	return out
}

// SuiteFile is one test file of the JSON-Schema-Test-Suite, parsed.
type SuiteFile struct {
	Path  string       // the file
	Rel   string       // its slash-separated path under tests/<draft>/, e.g. "optional/format/date.json"
	Group string       // "core", "optional", or "format" (optional/format/)
	Cases source.Value // its array of {description, schema, tests}
}

// SuiteFiles reads the .json test files of one draft directory ("draft4", "draft6",
// "draft7", "draft2019-09", "draft2020-12") of the JSON-Schema-Test-Suite at dir, in path
// order.
func SuiteFiles(tb testing.TB, dir, draft string) []SuiteFile {
	tb.Helper()
	base := filepath.Join(dir, "tests", draft)
	var paths []string
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	out := make([]SuiteFile, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := source.ParseJSON(p, data, nil)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		group := "core"
		switch {
		case strings.HasPrefix(rel, "optional/format/"):
			group = "format"
		case strings.HasPrefix(rel, "optional/"):
			group = "optional"
		}
		out = append(out, SuiteFile{Path: p, Rel: rel, Group: group, Cases: doc.Root})
	}
	return out
}
