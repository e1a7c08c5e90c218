package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// SchemaStore's own tests, with NO schema named: every positive instance of
// src/test/<name>/ is placed at a path that a fileMatch pattern of <name>'s catalog entry
// matches (with the instance's extension), and `jstk validate` must find that schema for it
// and accept it; every negative one (src/negative_test) must be rejected. The rates go to
// testdata/schemastore-assoc-stats.txt; an instance that cannot be placed (its entry has no
// pattern with its extension) is counted apart.

// placeholder rewrites a pattern into a path it matches: "**/" goes, wildcards become
// letters, a class its first character, !(...) a name it excludes.
var (
	rmGlobstar = regexp.MustCompile(`(^|/)\*\*(/|$)`)
	rmNot      = regexp.MustCompile(`!\([^)]*\)`)
	rmClass    = regexp.MustCompile(`\[!?\^?(.)[^\]]*\]`)
	rmBrace    = regexp.MustCompile(`\{([^,}]*)[^}]*\}`)
)

func placeholder(p string) string {
	p = strings.TrimPrefix(p, "/")
	p = rmGlobstar.ReplaceAllString(p, "$1")
	p = rmNot.ReplaceAllString(p, "issue")
	p = rmClass.ReplaceAllString(p, "$1")
	p = rmBrace.ReplaceAllString(p, "$1")
	p = strings.ReplaceAll(p, "**", "x")
	p = strings.ReplaceAll(p, "*", "x")
	p = strings.ReplaceAll(p, "?", "x")
	return strings.TrimPrefix(p, "/")
}

type placed struct {
	id, file, url string
	positive      bool
}

func TestSchemaStoreWithoutSchema(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	s := store.Open(workspace.OS(), dir)
	cat, err := s.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string][]string{} // schema file -> patterns of its entries
	for _, e := range cat.Entries() {
		if f, ok := store.File(e.URL); ok {
			patterns[f] = append(patterns[f], e.FileMatch...)
		}
	}
	skip := map[string]bool{}
	if data, err := os.ReadFile(filepath.Join(dir, "src", "schema-validation.json")); err == nil {
		if doc, err := source.ParseJSON("schema-validation.json", data, nil); err == nil {
			if st, ok := doc.Root.Get("skiptest"); ok {
				for _, v := range st.Items() {
					skip[v.Str()] = true
				}
			}
		}
	}
	files := map[string]string{}
	var cases []placed
	unplaced, noPattern := map[bool]int{}, map[bool]int{}
	for _, side := range []struct {
		dir      string
		positive bool
	}{{"src/test", true}, {"src/negative_test", false}} {
		names, err := os.ReadDir(filepath.Join(dir, side.dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !n.IsDir() || skip[n.Name()+".json"] || !s.Has("https://www.schemastore.org/"+n.Name()+".json") {
				continue
			}
			tests, _ := os.ReadDir(filepath.Join(dir, side.dir, n.Name()))
			for _, tf := range tests {
				ext := path.Ext(tf.Name())
				target := ""
				ps := patterns[n.Name()+".json"]
				if len(ps) == 0 {
					noPattern[side.positive]++
					continue
				}
				for _, p := range ps {
					if c := placeholder(p); fits(ext, path.Ext(c)) {
						target = c
						break
					}
				}
				if target == "" {
					unplaced[side.positive]++
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, side.dir, n.Name(), tf.Name()))
				if err != nil {
					t.Fatal(err)
				}
				id := fmt.Sprintf("%s %s %s", map[bool]string{true: "positive", false: "negative"}[side.positive], n.Name(), tf.Name())
				// deep enough that SchemaStore's "../../schemas/json/x.json" stays inside
				file := path.Join(fmt.Sprintf("w/x/y/c%04d", len(cases)), target)
				files[file] = string(data)
				// A declaration of the instance's own (a modeline, #:schema, $schema) is
				// written for SchemaStore's layout: the schema is put where it says.
				if d, ok := assoc.Declaration(file, data, nil); ok && d.Schema != "" && !strings.Contains(d.Schema, "://") &&
					path.Base(d.Schema) == n.Name()+".json" && !strings.HasPrefix(d.Schema, "..") {
					if _, done := files[d.Schema]; !done {
						sd, _, _, _ := s.Open("https://www.schemastore.org/" + n.Name() + ".json")
						files[d.Schema] = string(sd)
					}
				}
				cases = append(cases, placed{id: id, file: file, url: "https://www.schemastore.org/" + n.Name() + ".json", positive: side.positive})
			}
		}
	}
	fsys := workspace.Memory(files)
	env := &Env{FS: fsys, Config: &Config{}, Store: s, Remotes: []schema.Remote{s}, Cache: NewSchemaCache(64)}
	res, err := runValidate(context.Background(), env, &ValidateInput{AssertFormat: true})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		rule, schema string
		valid        bool
		problem      string
	}
	got := map[string]*outcome{}
	for _, in := range res.Instances {
		o := got[in.File]
		if o == nil {
			o = &outcome{valid: true}
			if in.Association != nil {
				o.rule, o.schema = string(in.Association.Rule), in.Association.Schema
			}
			got[in.File] = o
		}
		o.valid = o.valid && in.Valid
		if in.Problem != "" {
			o.problem = in.Problem
		}
	}
	for _, n := range res.NoSchema {
		got[n.File] = &outcome{rule: string(n.Association.Rule), problem: n.Association.Why}
	}
	var pos, posOK, neg, negOK, byCatalog, elsewhere, ties, declared int
	var misses []string
	for _, c := range cases {
		o := got[c.file]
		if c.positive {
			pos++
		} else {
			neg++
		}
		switch {
		case o == nil:
			misses = append(misses, c.id+": not reported")
			continue
		case o.rule == string(assoc.ByCatalog):
			byCatalog++
		}
		f1, ok := store.File(o.schema)
		if !ok && !strings.Contains(o.schema, "://") {
			f1 = path.Base(o.schema) // the copy placed where its declaration says
		}
		f2, _ := store.File(c.url)
		sameSchema := f1 != "" && f1 == f2
		switch {
		case o.rule == string(assoc.Tie):
			ties++
		case !sameSchema && o.rule != string(assoc.ByCatalog):
			declared++ // its own modeline or $schema names another file (SchemaStore's layout)
		case !sameSchema:
			elsewhere++
		}
		switch {
		case c.positive && o.valid && o.problem == "" && sameSchema:
			posOK++
		case !c.positive && !o.valid && o.problem == "" && sameSchema:
			negOK++
		default:
			misses = append(misses, fmt.Sprintf("%s at %s: rule %s, schema %s, valid %v %s", c.id, c.file, o.rule, o.schema, o.valid, o.problem))
		}
	}
	stats := fmt.Sprintf("# SchemaStore's tests with no schema named: each instance placed at a name its entry's fileMatch matches\n"+
		"# (go test ./internal/tools -run TestSchemaStoreWithoutSchema; JSTK_UPDATE=1 rewrites)\n"+
		"positive instances accepted: %4d / %4d  %6.2f%%\n"+
		"negative instances rejected: %4d / %4d  %6.2f%%\n"+
		"associated by fileMatch:     %4d / %4d (the others by their own $schema or modeline)\n"+
		"a tie of equally specific entries, reported (manifest.json, ...): %d\n"+
		"their own declaration names another schema, which wins over the catalog: %d\n"+
		"associated by fileMatch with another schema: %d\n"+
		"not placed: the entry has no fileMatch: %d positive, %d negative\n"+
		"not placed: no pattern with the instance's format: %d positive, %d negative\n",
		posOK, pos, pct(posOK, pos), negOK, neg, pct(negOK, neg), byCatalog, len(cases), ties, declared, elsewhere,
		noPattern[true], noPattern[false], unplaced[true], unplaced[false])
	t.Log("\n" + stats)
	sort.Strings(misses)
	for _, m := range misses {
		t.Log(m)
	}
	golden.Check(t, "testdata/schemastore-assoc-stats.txt", stats)
}

// fits reports whether an instance with extension ext may be placed at a name with
// extension target: the same format, or JSON (which YAML reads too) at a YAML name.
func fits(ext, target string) bool {
	yaml := func(e string) bool { return e == ".yaml" || e == ".yml" }
	return ext == target || yaml(ext) && yaml(target) || ext == ".json" && (yaml(target) || target == ".jsonc")
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
