package validate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// SchemaStore's own test data: every instance under src/test/<name>/ must be valid against
// src/schemas/json/<name>.json and every one under src/negative_test/<name>/ invalid, with
// formats asserted (SchemaStore checks with Ajv and ajv-formats) and the skip list of
// src/schema-validation.json honoured. Agreement per side goes to
// testdata/schemastore-stats.txt; every disagreement must be listed with its reason in
// testdata/schemastore-ledger.txt.

type storeCase struct {
	id       string // positive|negative <schema> <file>
	positive bool
	agreed   bool
	detail   string
}

// schemastoreLoader maps SchemaStore's URLs to its files, offline.
func schemastoreLoader(fsys workspace.FS) *schema.Loader {
	return &schema.Loader{FS: fsys, Resolve: map[string]string{
		"https://json.schemastore.org/": "src/schemas/json/",
		"http://json.schemastore.org/":  "src/schemas/json/",
		"https://www.schemastore.org/":  "src/schemas/json/",
	}}
}

func runSchemaStore(t *testing.T, dir string) []storeCase {
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfgData, err := os.ReadFile(filepath.Join(dir, "src", "schema-validation.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := source.ParseJSON("schema-validation.json", cfgData, nil)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	if st, ok := cfg.Root.Get("skiptest"); ok {
		for _, v := range st.Items() {
			skip[v.Str()] = true
		}
	}
	var cases []storeCase
	for _, side := range []struct {
		dir      string
		positive bool
	}{{"src/test", true}, {"src/negative_test", false}} {
		names, err := os.ReadDir(filepath.Join(dir, side.dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !n.IsDir() || skip[n.Name()+".json"] {
				continue
			}
			schemaFile := "src/schemas/json/" + n.Name() + ".json"
			if _, err := fsys.Stat(schemaFile); err != nil {
				continue
			}
			c := schema.NewCompiler(&schema.Options{AssertFormat: true, Loader: schemastoreLoader(fsys)})
			s, cerr := c.Compile(schema.FileURI(fsys.Abs(schemaFile)))
			files, _ := workspace.Expand(fsys, []string{path.Join(side.dir, n.Name())}, nil)
			for _, f := range files {
				sc := storeCase{id: fmt.Sprintf("%s %s %s", map[bool]string{true: "positive", false: "negative"}[side.positive], n.Name(), path.Base(f)), positive: side.positive}
				sc.agreed, sc.detail = checkStoreInstance(fsys, s, cerr, f, side.positive)
				cases = append(cases, sc)
			}
		}
	}
	return cases
}

func checkStoreInstance(fsys workspace.FS, s *schema.Schema, cerr error, file string, positive bool) (bool, string) {
	if cerr != nil {
		return false, "schema: " + cerr.Error()
	}
	data, err := workspace.ReadFile(fsys, file, 0)
	if err != nil {
		return false, err.Error()
	}
	f, ok := source.FormatOf(file)
	if !ok {
		f = source.Sniff(data)
	}
	docs, err := source.Parse(file, data, f, nil)
	if err != nil {
		// An unparsable negative instance counts as rejected.
		return !positive, "parse: " + err.Error()
	}
	valid := true
	var first string
	for _, d := range docs {
		errs, err := s.Validate(d.Root)
		if err != nil {
			return false, "evaluation: " + err.Error()
		}
		if len(errs) > 0 {
			valid = false
			if first == "" {
				first = errs[0].InstanceLocation + ": " + errs[0].Message
			}
		}
	}
	if valid == positive {
		return true, ""
	}
	if positive {
		return false, "rejected: " + first
	}
	return false, "accepted"
}

func TestSchemaStore(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	cases := runSchemaStore(t, dir)
	ledger := golden.Ledger(t, "testdata/schemastore-ledger.txt")
	var pos, posOK, neg, negOK int
	var unexpected, stale []string
	for _, c := range cases {
		if c.positive {
			pos++
		} else {
			neg++
		}
		_, known := ledger[c.id]
		switch {
		case c.agreed:
			if c.positive {
				posOK++
			} else {
				negOK++
			}
			if known {
				stale = append(stale, c.id)
			}
		case !known:
			unexpected = append(unexpected, c.id+"\t"+c.detail)
		}
	}
	stats := fmt.Sprintf("# SchemaStore agreement (go test ./internal/validate -run TestSchemaStore; JSTK_UPDATE=1 rewrites)\n"+
		"positive instances accepted: %4d / %4d  %6.2f%%\n"+
		"negative instances rejected: %4d / %4d  %6.2f%%\n", posOK, pos, pct(posOK, pos), negOK, neg, pct(negOK, neg))
	t.Log("\n" + stats)
	golden.Check(t, "testdata/schemastore-stats.txt", stats)
	sort.Strings(unexpected)
	for _, u := range unexpected {
		t.Errorf("unexpected disagreement (fix it, or list it with its reason in testdata/schemastore-ledger.txt):\n%s", u)
	}
	for _, s := range stale {
		t.Errorf("agrees now, remove it from testdata/schemastore-ledger.txt: %s", s)
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
