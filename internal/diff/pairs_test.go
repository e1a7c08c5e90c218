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
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The 300 real (old, new) SchemaStore pairs of ../shared/corpora/schema-pairs carry no
// verdict: every pair must complete without error (a reference that cannot be resolved
// offline is reported as such), every example must separate the two versions, and the
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
}

func TestSchemaPairs(t *testing.T) {
	fsys, loader := pairsLoader(t)
	names := pairNames(t)
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
	for _, o := range outcomes {
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
	for _, k := range keys {
		fmt.Fprintf(&sb, "%-24s %d\n", k, counts[k])
	}
	sb.WriteString("#\n")
	for _, l := range lines {
		sb.WriteString(l + "\n")
	}
	golden.Check(t, "testdata/schema-pairs-stats.txt", sb.String())
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
		if _, ok := kindDocs[ch.Kind]; !ok && ch.Level == "validation" {
			o.failures = append(o.failures, fmt.Sprintf("%s: change kind %q is not in the rule table", name, ch.Kind))
		}
	}
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
