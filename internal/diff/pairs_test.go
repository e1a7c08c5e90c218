package diff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/sample"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The 300 real (old, new) SchemaStore pairs of ../shared/corpora/schema-pairs carry no
// verdict: every pair must complete without error (a reference that cannot be resolved
// offline is reported as such), every example must separate the two versions, every
// compatible verdict must hold on instances nobody chose for it (checkClaims), and the
// verdicts go into testdata/schema-pairs-stats.txt (JSTK_UPDATE=1 rewrites it).

// pairsLoader reads the corpora directory, mapping SchemaStore URLs to schemastore-dev.
func pairsLoader(t testing.TB) (workspace.FS, *schema.Loader) {
	t.Helper()
	root := filepath.Dir(corpora.Dir(t, "schema-pairs"))
	fsys, err := workspace.Root(root)
	if err != nil {
		t.Fatal(err)
	}
	store := "schemastore-dev/src/schemas/json/"
	return fsys, &schema.Loader{FS: fsys, Resolve: map[string]string{
		"https://json.schemastore.org/": store, "http://json.schemastore.org/": store,
		"https://www.schemastore.org/": store, "http://www.schemastore.org/": store,
	}}
}

func pairNames(t testing.TB) []string {
	dir := corpora.Dir(t, "schema-pairs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "new.json")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

// compilePair compiles the two versions of a pair, each with a compiler of its own. Each
// version is placed where it lived in SchemaStore (meta.json's path, inside
// schemastore-dev), so that its relative references resolve to its siblings there.
func compilePair(fsys workspace.FS, loader *schema.Loader, name string) (old, new *schema.Schema, err error) {
	var meta struct {
		Path string `json:"path"`
	}
	if data, err := workspace.ReadFile(fsys, "schema-pairs/"+name+"/meta.json", 1<<20); err == nil {
		_ = json.Unmarshal(data, &meta)
	}
	comp := func(side string) (*schema.Schema, error) {
		file := "schema-pairs/" + name + "/" + side + ".json"
		c := schema.NewCompiler(&schema.Options{Draft: schema.Draft7, Loader: loader})
		if meta.Path == "" {
			return c.Compile(schema.FileURI(fsys.Abs(file)))
		}
		data, err := workspace.ReadFile(fsys, file, 64<<20)
		if err != nil {
			return nil, err
		}
		doc, err := schema.ParseDocument(file, data, nil)
		if err != nil {
			return nil, err
		}
		uri := schema.FileURI(fsys.Abs("schemastore-dev/" + meta.Path))
		if err := c.AddDocument(uri, doc); err != nil {
			return nil, err
		}
		return c.Compile(uri)
	}
	if old, err = comp("old"); err != nil {
		return nil, nil, fmt.Errorf("old: %w", err)
	}
	if new, err = comp("new"); err != nil {
		return nil, nil, fmt.Errorf("new: %w", err)
	}
	return old, new, nil
}

func pairOptions() *Options {
	return &Options{SearchBudget: 10 * time.Minute, SearchCandidates: pairCandidates}
}

// pairOutcome is the result of one pair.
type pairOutcome struct {
	line     string
	counts   []string
	failures []string
	tried    [2]int // instances a compatible verdict was tried on: sampled, SchemaStore's
}

func TestSchemaPairs(t *testing.T) {
	fsys, loader := pairsLoader(t)
	names := pairNames(t)
	if corpusPairStep > 1 {
		var some []string
		for i := 0; i < len(names); i += corpusPairStep {
			some = append(some, names[i])
		}
		t.Logf("under the race detector: one pair in %d, %d of %d (all of them, and their stats, run without -race)", corpusPairStep, len(some), len(names))
		names = some
	}
	start := time.Now()
	outcomes := make([]pairOutcome, len(names))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				outcomes[i] = runPair(fsys, loader, names[i])
			}
		}()
	}
	for i := range names {
		work <- i
	}
	close(work)
	wg.Wait()
	counts := map[string]int{}
	var lines []string
	var tried [2]int
	for _, o := range outcomes {
		tried[0] += o.tried[0]
		tried[1] += o.tried[1]
		for _, f := range o.failures {
			t.Error(f)
		}
		for _, c := range o.counts {
			counts[c]++
		}
		lines = append(lines, o.line)
	}
	t.Logf("%d pairs in %v", len(names), time.Since(start))
	var sb strings.Builder
	sb.WriteString("# diff over schema-pairs (go test ./internal/diff -run TestSchemaPairs; JSTK_UPDATE=1 rewrites)\n")
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(&sb, "pairs %d\n", len(names))
	fmt.Fprintf(&sb, "compatible verdicts tried on %d sampled and %d SchemaStore instances: none refuted\n", tried[0], tried[1])
	for _, k := range keys {
		fmt.Fprintf(&sb, "%-24s %d\n", k, counts[k])
	}
	sb.WriteString("#\n")
	for _, l := range lines {
		sb.WriteString(l + "\n")
	}
	if corpusPairStep == 1 {
		golden.Check(t, "testdata/schema-pairs-stats.txt", sb.String())
	}
}

// runPair compares one pair and checks its examples and claims.
func runPair(fsys workspace.FS, loader *schema.Loader, name string) pairOutcome {
	var o pairOutcome
	old, new, err := compilePair(fsys, loader, name)
	if err != nil {
		// Not diff's failure: a reference that cannot be resolved offline, or a version
		// that is not a valid schema. Reported as such.
		kind := "could not run: invalid schema"
		if errors.Is(err, schema.ErrUnresolved) || strings.Contains(err.Error(), "cannot resolve $ref") {
			kind = "could not run: unresolved $ref"
		}
		msg := strings.SplitN(err.Error(), "\n", 2)[0]
		if len(msg) > 160 {
			msg = msg[:157] + "..."
		}
		o.counts = append(o.counts, kind)
		o.line = fmt.Sprintf("%-44s %s: %s", name, kind, msg)
		return o
	}
	res, err := Compare(context.Background(), old, new, pairOptions())
	if err != nil {
		o.failures = append(o.failures, fmt.Sprintf("%s: %v", name, err))
		o.line = name + " error"
		return o
	}
	rec := &recorder{}
	verifyExamples(rec, name, res, old, new)
	o.failures = append(o.failures, rec.errs...)
	if res.Search.Contradictions > 0 {
		o.failures = append(o.failures, fmt.Sprintf("%s: %d claim(s) of the rule engine refuted by examples", name, res.Search.Contradictions))
	}
	for _, ch := range res.Changes {
		if _, ok := kindDocs()[ch.Kind]; !ok && ch.Level == "validation" {
			o.failures = append(o.failures, fmt.Sprintf("%s: change kind %q is not in the rule table", name, ch.Kind))
		}
	}
	o.tried, o.failures = checkClaims(fsys, name, res, old, new, o.failures)
	o.counts = append(o.counts, "backward "+string(res.Backward), "forward "+string(res.Forward))
	if len(res.Changes) == 0 {
		o.counts = append(o.counts, "no change")
	}
	if res.Search.ProofIncomplete {
		o.counts = append(o.counts, "proof incomplete")
	}
	o.line = fmt.Sprintf("%-44s backward %-12s forward %-12s changes %4d (breaking %d, unknown %d)",
		name, res.Backward, res.Forward, res.Summary.Changes, res.Summary.Breaking, res.Summary.Unknown)
	return o
}

// recorder collects the errors of verifyExamples from a goroutine.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// checkClaims tries each compatible verdict of a pair on instances nobody chose to fit it,
// appending to failures one line per verdict an instance refutes: those trySamples
// generates, and for a pair whose new side is SchemaStore's current version, the
// instances SchemaStore's CI checks against it: forward, those valid under NEW
// (src/test) must be valid under OLD; backward, those invalid under NEW
// (src/negative_test) must be invalid under OLD. An instance jstk does not judge as
// labelled is left out. It returns how many instances of each kind were tried.
func checkClaims(fsys workspace.FS, name string, res *Result, old, new *schema.Schema, failures []string) ([2]int, []string) {
	var tried [2]int
	tried[0], failures = trySamples(name, res, old, new, failures)
	var meta struct {
		Schema string `json:"schema"`
		Head   bool   `json:"is_current_head_version"`
	}
	if data, err := workspace.ReadFile(fsys, "schema-pairs/"+name+"/meta.json", 1<<20); err == nil {
		_ = json.Unmarshal(data, &meta)
	}
	if !meta.Head || meta.Schema == "" {
		return tried, failures
	}
	for _, c := range []struct {
		dir   string
		claim bool
		store string // SchemaStore's instances of the claim
		valid bool   // they are valid under NEW
	}{{"backward", res.Backward == Compatible, "negative_test", false}, {"forward", res.Forward == Compatible, "test", true}} {
		if !c.claim {
			continue
		}
		dir := "schemastore-dev/src/" + c.store + "/" + strings.TrimSuffix(meta.Schema, ".json")
		entries, _ := fsys.ReadDir(dir)
		for _, e := range entries {
			file := dir + "/" + e.Name()
			format, ok := source.FormatOf(file)
			if !ok || e.IsDir() {
				continue
			}
			data, err := workspace.ReadFile(fsys, file, 16<<20)
			if err != nil {
				continue
			}
			docs, err := source.Parse(file, data, format, nil)
			if err != nil {
				continue
			}
			for _, d := range docs {
				nv, errN := new.Valid(d.Root)
				ov, errO := old.Valid(d.Root)
				if errN != nil || errO != nil || nv != c.valid {
					continue
				}
				tried[1]++
				if ov != nv {
					failures = append(failures, fmt.Sprintf("%s: %s compatible, refuted by %s", name, c.dir, file))
				}
			}
		}
	}
	return tried, failures
}

// trySamples tries each compatible verdict of a comparison on instances sample generates
// (seeded, so the counts are stable) valid under the side the verdict reads from:
// backward, OLD's must be valid under NEW; forward, NEW's under OLD. It appends a line to
// failures for each verdict refuted, and returns how many instances it tried.
func trySamples(name string, res *Result, old, new *schema.Schema, failures []string) (int, []string) {
	tried := 0
	for _, c := range []struct {
		dir      string
		claim    bool
		from, to *schema.Schema
	}{{"backward", res.Backward == Compatible, old, new}, {"forward", res.Forward == Compatible, new, old}} {
		if !c.claim {
			continue
		}
	sampling:
		for _, opts := range []sample.Options{{Count: 10, Seed: 1}, {Count: 10, Seed: 2, AllOptional: true}, {Count: 5, Seed: 3, RequiredOnly: true}} {
			r, err := sample.Generate(context.Background(), c.from, &opts)
			if err != nil {
				continue
			}
			for _, v := range r.Values() {
				tried++
				if ok, err := c.to.Valid(v); err == nil && !ok {
					failures = append(failures, fmt.Sprintf("%s: %s compatible, refuted by a sampled instance: %s", name, c.dir, source.AppendJSON(nil, v)))
					break sampling
				}
			}
		}
	}
	return tried, failures
}
