package schema

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// suiteCase is one case of the JSON-Schema-Test-Suite, ready for the benchmarks.
type suiteCase struct {
	uri   string
	doc   *source.Document
	opts  Options
	tests []source.Value
}

// suiteCases reads the core cases of every draft of the JSON-Schema-Test-Suite.
func suiteCases(b *testing.B) []suiteCase {
	dir := corpora.Dir(b, "JSON-Schema-Test-Suite")
	fsys, err := workspace.Root(filepath.Join(dir, "remotes"))
	if err != nil {
		b.Fatal(err)
	}
	var out []suiteCase
	for _, sd := range suiteDrafts {
		for _, sf := range corpora.SuiteFiles(b, dir, sd.dir) {
			if sf.Group != "core" {
				continue
			}
			for ci, tc := range sf.Cases.Items() {
				sch, _ := tc.Get("schema")
				tests, _ := tc.Get("tests")
				uri := fmt.Sprintf("https://jstk.test/%s/%s/%d.json", sd.dir, strings.TrimSuffix(sf.Rel, ".json"), ci)
				doc, err := source.ParseJSON(uri, source.AppendJSON(nil, sch), nil)
				if err != nil {
					b.Fatal(err)
				}
				var data []source.Value
				for _, t := range tests.Items() {
					d, _ := t.Get("data")
					data = append(data, d)
				}
				out = append(out, suiteCase{uri: uri, doc: doc, tests: data, opts: Options{Draft: sd.draft,
					Loader: &Loader{FS: fsys, Resolve: map[string]string{"http://localhost:1234/": "."}}}})
			}
		}
	}
	return out
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start ("cpu-ns/op"): on a machine
// shared with other work it moves much less than the wall time per operation, which
// counts the waits for a core too.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

func (sc *suiteCase) compile() (*Schema, error) {
	c := NewCompiler(&sc.opts)
	if err := c.AddDocument(sc.uri, sc.doc); err != nil {
		return nil, err
	}
	return c.Compile(sc.uri)
}

// BenchmarkCompileSuite compiles the schema of every core case of the JSON-Schema-Test-Suite
// (all drafts), each with a compiler of its own: reading keywords, resolving references and
// meta-validating.
func BenchmarkCompileSuite(b *testing.B) {
	cases := suiteCases(b)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for i := range cases {
			_, _ = cases[i].compile() // the few that do not compile cost all the same
		}
	}
	reportCPU(b, start)
}

// BenchmarkValidateSuite evaluates every instance of every core case of the
// JSON-Schema-Test-Suite against its compiled schema, collecting errors.
func BenchmarkValidateSuite(b *testing.B) {
	type compiled struct {
		s     *Schema
		tests []source.Value
	}
	var all []compiled
	for _, sc := range suiteCases(b) {
		if s, err := sc.compile(); err == nil {
			all = append(all, compiled{s, sc.tests})
		}
	}
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for _, c := range all {
			for _, d := range c.tests {
				if _, err := c.s.Validate(d); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	reportCPU(b, start)
}

// BenchmarkValidateOrders evaluates the reference workload's instances (bench-gen.py, in
// /tmp/bench or $JSTK_BENCH_DIR), parsed beforehand: the evaluation alone, on one
// goroutine, as `jstk validate` runs it on each line (ValidateLimitContext). The first
// 2,000 lines are read: about 2 MB, which stays in the caches, as a line does that
// `jstk validate` evaluates right after parsing it.
func BenchmarkValidateOrders(b *testing.B) {
	dir := os.Getenv("JSTK_BENCH_DIR")
	if dir == "" {
		dir = "/tmp/bench"
	}
	fsys, err := workspace.Root(dir)
	if err != nil {
		b.Skip(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "data.jsonl"))
	if err != nil {
		b.Skipf("no reference workload (%v): run bench-gen.py in %s", err, dir)
	}
	s, err := NewCompiler(&Options{Loader: &Loader{FS: fsys}}).Compile(FileURI(fsys.Abs("schema.json")))
	if err != nil {
		b.Fatal(err)
	}
	var docs []source.Value
	var size int
	for line := range strings.Lines(string(data)) {
		if len(docs) == 2_000 {
			break
		}
		d, err := source.ParseJSON("data.jsonl", []byte(line), nil)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d.Root)
		size += len(line)
	}
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		for _, v := range docs {
			if errs, _, err := s.ValidateLimitContext(ctx, v, 100); err != nil || errs != nil {
				b.Fatalf("%v %v: the workload should be valid", errs, err)
			}
		}
	}
	reportCPU(b, start)
}
