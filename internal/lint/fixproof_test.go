package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The proof that --fix keeps the instance set: every schema of the JSON-Schema-Test-Suite
// and of schemastore-dev is linted with every rule on and fixed; the fixed schema must
// compile whenever the original does and give the same verdict as the original on every
// instance checked. The counts go to testdata/fix-stats.txt (JSTK_UPDATE=1 rewrites).

// proofStats counts one corpus.
type proofStats struct {
	schemas, fixed, fixes, compared int
	byRule                          map[string]int
	diffs                           []string
}

func (p *proofStats) add(byRule map[string]int) {
	n := 0
	for id, k := range byRule {
		p.byRule[id] += k
		n += k
	}
	if n > 0 {
		p.fixed++
		p.fixes += n
	}
}

func compileText(t testing.TB, uri, name string, text []byte, opts schema.Options) (*schema.Schema, error) {
	doc, err := schema.ParseDocument(name, text, nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(&opts)
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

// sameVerdicts compares two schemas on instances and records every difference.
func sameVerdicts(p *proofStats, label string, a, b *schema.Schema, instances []source.Value) {
	for i, inst := range instances {
		va, ea := a.Valid(inst)
		vb, eb := b.Valid(inst)
		p.compared++
		if va != vb || (ea == nil) != (eb == nil) {
			p.diffs = append(p.diffs, fmt.Sprintf("%s: instance %d: original valid=%v (%v), fixed valid=%v (%v)", label, i, va, ea, vb, eb))
		}
	}
}

func allRulesRunner(loader *schema.Loader, fsys workspace.FS, draft *schema.Draft) *runner {
	opts := &Options{Loader: loader, Draft: draft, Rules: map[string]Setting{"all": "on"}, Fix: true}
	sev, _ := resolveSettings(opts.Rules)
	return &runner{opts: opts, sev: sev, fsys: fsys}
}

func TestFixProofTestSuite(t *testing.T) {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	remotes, err := workspace.Root(filepath.Join(dir, "remotes"))
	if err != nil {
		t.Fatal(err)
	}
	loader := &schema.Loader{FS: remotes, Resolve: map[string]string{"http://localhost:1234/": "."}}
	var report strings.Builder
	for _, sd := range []struct {
		dir   string
		draft *schema.Draft
	}{{"draft4", schema.Draft4}, {"draft6", schema.Draft6}, {"draft7", schema.Draft7},
		{"draft2019-09", schema.Draft2019}, {"draft2020-12", schema.Draft2020}} {
		type tcase struct {
			uri, name string
			schema    source.Value
		}
		var cases []tcase
		var pool []source.Value // every instance of the draft's corpus
		for _, sf := range corpora.SuiteFiles(t, dir, sd.dir) {
			for ci, tc := range sf.Cases.Items() {
				sch, _ := tc.Get("schema")
				cases = append(cases, tcase{uri: fmt.Sprintf("https://jstk.test/%s/%s/%d.json", sd.dir, strings.TrimSuffix(sf.Rel, ".json"), ci),
					name: fmt.Sprintf("%s/%s#%d", sd.dir, sf.Rel, ci), schema: sch})
				tests, _ := tc.Get("tests")
				for _, test := range tests.Items() {
					d, _ := test.Get("data")
					pool = append(pool, d)
				}
			}
		}
		r := allRulesRunner(loader, remotes, sd.draft)
		p := &proofStats{byRule: map[string]int{}}
		for _, c := range cases {
			p.schemas++
			text := source.AppendJSONIndent(nil, c.schema, "", "  ")
			f, err := r.lintText(c.name, c.uri, text)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			fixed, _, byRule := r.fixLoop(c.name, c.uri, text, f, "")
			p.add(byRule)
			if len(byRule) == 0 {
				continue
			}
			opts := schema.Options{Loader: loader, Draft: sd.draft}
			orig, err := compileText(t, c.uri, c.name, text, opts)
			if err != nil {
				continue // the original does not compile: nothing to keep
			}
			fx, err := compileText(t, c.uri, c.name, fixed, opts)
			if err != nil {
				p.diffs = append(p.diffs, fmt.Sprintf("%s: the fixed schema does not compile: %v\n%s", c.name, err, fixed))
				continue
			}
			sameVerdicts(p, c.name, orig, fx, pool)
		}
		fmt.Fprintf(&report, "JSON-Schema-Test-Suite %-13s schemas %5d  fixed %4d  fixes %5d  verdicts compared %9d  differing %d\n",
			sd.dir, p.schemas, p.fixed, p.fixes, p.compared, len(p.diffs))
		writeByRule(&report, p.byRule)
		for _, d := range p.diffs {
			t.Errorf("fix changed the instance set: %s", d)
		}
	}
	t.Log("\n" + report.String())
	checkStatsFile(t, "testdata/fixproof-suite-stats.txt",
		"# --fix proof on the JSON-Schema-Test-Suite: each case's schema fixed with every rule on, then compared with\n"+
			"# the original on every instance of its draft's corpus (go test ./internal/lint -run TestFixProofTestSuite).\n"+report.String())
}

func writeByRule(sb *strings.Builder, m map[string]int) {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(sb, "    %-36s %6d\n", id, m[id])
	}
}

// storeResolve maps SchemaStore's URIs to its files, offline.
var storeResolve = map[string]string{
	"https://json.schemastore.org/": "src/schemas/json/",
	"https://www.schemastore.org/":  "src/schemas/json/",
}

// storeInstances reads the positive and negative instances of a SchemaStore schema.
func storeInstances(t testing.TB, dir, name string) []source.Value {
	var out []source.Value
	for _, sub := range []string{"test", "negative_test"} {
		out = append(out, corpora.Instances(t, filepath.Join(dir, "src", sub, name))...)
	}
	return out
}

func TestFixProofSchemaStore(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	loader := &schema.Loader{FS: fsys, Resolve: storeResolve}
	files, _ := filepath.Glob(filepath.Join(dir, "src", "schemas", "json", "*.json"))
	sort.Strings(files)
	r := allRulesRunner(loader, fsys, nil)
	p := &proofStats{byRule: map[string]int{}}
	withInstances := 0
	// Besides its own instances, each fixed schema meets a sample of the whole corpus's
	// instances (every poolStride-th), which exercises far more of it.
	var pool []source.Value
	for _, sub := range []string{"test", "negative_test"} {
		dirs, _ := os.ReadDir(filepath.Join(dir, "src", sub))
		for _, d := range dirs {
			pool = append(pool, corpora.Instances(t, filepath.Join(dir, "src", sub, d.Name()))...)
		}
	}
	var sample []source.Value
	for i := 0; i < len(pool); i += poolStride {
		sample = append(sample, pool[i])
	}
	for i, file := range files {
		if i%schemaStride != 0 {
			continue
		}
		rel, _ := filepath.Rel(dir, file)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p.schemas++
		uri := schema.FileURI(fsys.Abs(rel))
		f, err := r.lintText(rel, uri, data)
		if err != nil {
			continue
		}
		fixed, _, byRule := r.fixLoop(rel, uri, data, f, "")
		p.add(byRule)
		if len(byRule) == 0 {
			continue
		}
		opts := schema.Options{Loader: loader}
		orig, err := compileText(t, uri, rel, data, opts)
		if err != nil {
			continue
		}
		fx, err := compileText(t, uri, rel, fixed, opts)
		if err != nil {
			p.diffs = append(p.diffs, fmt.Sprintf("%s: the fixed schema does not compile: %v", rel, err))
			continue
		}
		insts := storeInstances(t, dir, strings.TrimSuffix(filepath.Base(rel), ".json"))
		if len(insts) > 0 {
			withInstances++
		}
		sameVerdicts(p, rel, orig, fx, insts)
		sameVerdicts(p, rel+" (corpus sample)", orig, fx, sample)
	}
	var report strings.Builder
	// The number of verdicts compared depends on the sample (smaller under -race), so it is
	// logged, not committed.
	t.Logf("verdicts compared: %d (own instances, and every %d-th of the corpus's %d)", p.compared, poolStride, len(pool))
	fmt.Fprintf(&report, "schemastore-dev schemas %d  fixed %d (%d of them with instances of their own)  fixes %d  differing %d\n",
		p.schemas, p.fixed, withInstances, p.fixes, len(p.diffs))
	writeByRule(&report, p.byRule)
	for _, d := range p.diffs {
		t.Errorf("fix changed the instance set: %s", d)
	}
	t.Log("\n" + report.String())
	if raceEnabled {
		return // a sample: the property is checked above, the counts are the full run's
	}
	checkStatsFile(t, "testdata/fixproof-schemastore-stats.txt",
		"# --fix proof on schemastore-dev: each schema fixed with every rule on, then compared with the original on\n"+
			"# its own positive and negative instances and on a sample of every instance of the corpus\n"+
			"# (go test ./internal/lint -run TestFixProofSchemaStore).\n"+report.String())
}

// checkStatsFile compares a stats text with its committed file, or rewrites it with
// JSTK_UPDATE=1.
func checkStatsFile(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, got)
}
