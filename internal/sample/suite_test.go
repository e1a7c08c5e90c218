package sample

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The JSON-Schema-Test-Suite as ground truth: for every schema that has at least one valid
// test instance, sample must return an instance that jstk's validator accepts (formats
// asserted for optional/format); the pass rate and every failure, with the reason sample
// gives, are compared with testdata/suite-stats.txt (JSTK_UPDATE=1 rewrites it). Whatever
// sample returns is checked: an instance that does not validate fails the test outright.
// With invalid, every instance returned must be invalid, with exactly one error.

var suiteDrafts = []struct {
	dir   string
	draft *schema.Draft
}{
	{"draft4", schema.Draft4}, {"draft6", schema.Draft6}, {"draft7", schema.Draft7},
	{"draft2019-09", schema.Draft2019}, {"draft2020-12", schema.Draft2020},
}

type suiteCase struct {
	id     string
	draft  string
	schema *schema.Schema
}

// suiteCases compiles every schema of the suite that has a valid test instance.
func suiteCases(t testing.TB) []suiteCase {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	fsys, err := workspace.Root(filepath.Join(dir, "remotes"))
	if err != nil {
		t.Fatal(err)
	}
	var out []suiteCase
	for _, sd := range suiteDrafts {
		for _, sf := range corpora.SuiteFiles(t, dir, sd.dir) {
			rel := sf.Rel
			for ci, tc := range sf.Cases.Items() {
				tests, _ := tc.Get("tests")
				hasValid := false
				for _, test := range tests.Items() {
					if v, _ := test.Get("valid"); v.Bool() {
						hasValid = true
					}
				}
				if !hasValid {
					continue
				}
				desc, _ := tc.Get("description")
				sch, _ := tc.Get("schema")
				uri := fmt.Sprintf("https://jstk.test/%s/%s/%d.json", sd.dir, strings.TrimSuffix(rel, ".json"), ci)
				loader := &schema.Loader{FS: fsys, Resolve: map[string]string{"http://localhost:1234/": "."}}
				opts := &schema.Options{Draft: sd.draft, Loader: loader, AssertFormat: sf.Group == "format"}
				s, err := compileValue(sch, uri, opts)
				if err != nil {
					continue // the validator's own suite reports schemas it cannot compile
				}
				out = append(out, suiteCase{id: fmt.Sprintf("%s/%s: %s", sd.dir, rel, desc.Str()), draft: sd.dir + " " + sf.Group, schema: s})
			}
		}
	}
	return out
}

func compileValue(v source.Value, uri string, opts *schema.Options) (*schema.Schema, error) {
	doc, err := source.ParseJSON(uri, source.AppendJSON(nil, v), nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(opts)
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

func TestJSONSchemaTestSuite(t *testing.T) {
	cases := suiteCases(t)
	type count struct{ pass, total int }
	stats := map[string]*count{}
	var failures []string
	all := &count{}
	unsat := 0
	for _, sc := range cases {
		res, err := Generate(context.Background(), sc.schema, &Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if stats[sc.draft] == nil {
			stats[sc.draft] = &count{}
		}
		stats[sc.draft].total++
		all.total++
		if len(res.Values()) == 1 {
			errs, err := sc.schema.Validate(res.Values()[0])
			if err != nil || len(errs) > 0 {
				t.Errorf("%s: sample returned an invalid instance %s: %v %v", sc.id, res.Samples[0], err, errs)
				continue
			}
			stats[sc.draft].pass++
			all.pass++
			continue
		}
		if res.Failure == nil {
			t.Errorf("%s: no instance and no failure", sc.id)
			continue
		}
		if res.Failure.Unsatisfiable {
			// a valid test instance refutes it
			unsat++
			t.Errorf("%s: claimed unsatisfiable, but the suite has a valid instance: %s", sc.id, res.Failure.Reason)
		}
		failures = append(failures, sc.id+"\t"+res.Failure.Reason)
	}
	var sb strings.Builder
	sb.WriteString("# sample over JSON-Schema-Test-Suite: schemas with a valid test instance for which sample returns a valid instance\n")
	sb.WriteString("# (go test ./internal/sample -run TestJSONSchemaTestSuite; JSTK_UPDATE=1 rewrites)\n")
	keys := make([]string, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := stats[k]
		fmt.Fprintf(&sb, "%-22s %4d / %4d  %6.2f%%\n", k, c.pass, c.total, 100*float64(c.pass)/float64(c.total))
	}
	fmt.Fprintf(&sb, "%-22s %4d / %4d  %6.2f%%\n", "all", all.pass, all.total, 100*float64(all.pass)/float64(all.total))
	fmt.Fprintf(&sb, "claimed unsatisfiable (each refuted by the suite's valid instance): %d\n", unsat)
	sb.WriteString("# schemas without a sample, with the reason sample gives\n")
	for _, f := range failures {
		sb.WriteString(f + "\n")
	}
	t.Log("\n" + sb.String())
	if rate := float64(all.pass) / float64(all.total); rate < 0.98 {
		t.Errorf("valid samples for %.2f%% of the suite's schemas, want at least 98%%", 100*rate)
	}
	golden.Check(t, "testdata/suite-stats.txt", sb.String())
}

func TestJSONSchemaTestSuiteInvalid(t *testing.T) {
	cases := suiteCases(t)
	made, total := 0, 0
	for _, sc := range cases {
		res, err := Generate(context.Background(), sc.schema, &Options{Seed: 1, Count: 2, Invalid: true})
		if err != nil {
			t.Fatal(err)
		}
		total++
		if len(res.Values()) > 0 {
			made++
		}
		for i, v := range res.Values() {
			errs, err := sc.schema.Validate(v)
			if err != nil || len(errs) != 1 {
				t.Errorf("%s: invalid sample %d has %d errors (want exactly 1): %s", sc.id, i, len(errs), res.Samples[i])
				continue
			}
			if errs[0].KeywordLocation != res.Violations[i].KeywordLocation {
				t.Errorf("%s: invalid sample %d is labelled %s but fails %s", sc.id, i, res.Violations[i].KeywordLocation, errs[0].KeywordLocation)
			}
		}
	}
	t.Logf("invalid instances made for %d of %d schemas", made, total)
}

var (
	storeOnce    sync.Once
	storeSchemas map[string]*schema.Schema
	storeErrs    map[string]error
)

// schemaStore compiles every schema of schemastore-dev (once for all tests), resolving
// references between them offline. It returns the compiled schemas by file name, and the
// compile errors.
func schemaStore(t testing.TB) (map[string]*schema.Schema, map[string]error) {
	dir := filepath.Join(corpora.Dir(t, "schemastore-dev"), "src", "schemas", "json")
	storeOnce.Do(func() { storeSchemas, storeErrs = compileStore(t, dir) })
	return storeSchemas, storeErrs
}

func compileStore(t testing.TB, dir string) (map[string]*schema.Schema, map[string]error) {
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	loader := &schema.Loader{FS: fsys, IndexRoot: ".", Resolve: map[string]string{
		"https://json.schemastore.org/": ".", "https://www.schemastore.org/": ".",
		"http://json.schemastore.org/": ".", "http://www.schemastore.org/": "."}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, bad := map[string]*schema.Schema{}, map[string]error{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		c := schema.NewCompiler(&schema.Options{Loader: loader})
		s, err := c.Compile(schema.FileURI(fsys.Abs(e.Name())))
		if err != nil {
			bad[e.Name()] = err
			continue
		}
		out[e.Name()] = s
	}
	return out, bad
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestSchemaStore(t *testing.T) {
	schemas, bad := schemaStore(t)
	var failures []string
	pass, withValid, sampledWithValid, unsat := 0, 0, 0, 0
	start := time.Now()
	testDir := filepath.Join(corpora.Dir(t, "schemastore-dev"), "src", "test")
	for _, name := range sortedNames(schemas) {
		s := schemas[name]
		// SchemaStore's CI instances valid under it (src/test/<name>/): the schema is
		// satisfiable, and sample must say nothing else
		entries, _ := os.ReadDir(filepath.Join(testDir, strings.TrimSuffix(name, ".json")))
		hasValid := len(entries) > 0
		if hasValid {
			withValid++
		}
		res, err := Generate(context.Background(), s, &Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Values()) == 1 {
			errs, err := s.Validate(res.Values()[0])
			if err != nil || len(errs) > 0 {
				t.Errorf("%s: sample returned an invalid instance: %v %v", name, err, errs)
				continue
			}
			pass++
			if hasValid {
				sampledWithValid++
			}
			continue
		}
		if res.Failure.Unsatisfiable {
			unsat++
			if hasValid {
				t.Errorf("%s: claimed unsatisfiable, but SchemaStore has instances valid under it: %s", name, res.Failure.Reason)
			}
		}
		failures = append(failures, name+"\t"+res.Failure.Reason)
	}
	t.Logf("sampled %d schemas in %v", len(schemas), time.Since(start))
	total := len(schemas)
	var sb strings.Builder
	sb.WriteString("# sample over schemastore-dev: schemas for which sample returns an instance valid against it\n")
	sb.WriteString("# (go test ./internal/sample -run TestSchemaStore$; JSTK_UPDATE=1 rewrites)\n")
	fmt.Fprintf(&sb, "schemas %d, compiled by jstk %d, valid sample %d = %.2f%% of the compiled, %.2f%% of all\n",
		total+len(bad), total, pass, 100*float64(pass)/float64(total), 100*float64(pass)/float64(total+len(bad)))
	fmt.Fprintf(&sb, "compiled schemas with SchemaStore test instances %d, valid sample %d; claimed unsatisfiable %d\n", withValid, sampledWithValid, unsat)
	sb.WriteString("# schemas that jstk's compiler rejects (no sample possible)\n")
	for _, name := range sortedNames(bad) {
		msg := strings.SplitN(bad[name].Error(), "\n", 2)[0]
		sb.WriteString(name + "\t" + msg + "\n")
	}
	sb.WriteString("# schemas without a sample, with the reason sample gives\n")
	for _, f := range failures {
		sb.WriteString(f + "\n")
	}
	t.Log("\n" + sb.String())
	if rate := float64(pass) / float64(total+len(bad)); rate < 0.97 {
		t.Errorf("valid samples for %.2f%% of the schemas, want at least 97%%", 100*rate)
	}
	golden.Check(t, "testdata/schemastore-stats.txt", sb.String())
}

func TestSchemaStoreInvalid(t *testing.T) {
	schemas, _ := schemaStore(t)
	made := 0
	for i, name := range sortedNames(schemas) {
		if raceEnabled && i%4 != 0 {
			continue // every fourth schema under the race detector
		}
		s := schemas[name]
		res, err := Generate(context.Background(), s, &Options{Seed: 1, Count: 2, Invalid: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Values()) > 0 {
			made++
		}
		for i, v := range res.Values() {
			errs, err := s.Validate(v)
			if err != nil || len(errs) != 1 {
				t.Errorf("%s: invalid sample %d has %d errors (want exactly 1)", name, i, len(errs))
			}
		}
	}
	t.Logf("invalid instances made for %d of %d schemas", made, len(schemas))
}
