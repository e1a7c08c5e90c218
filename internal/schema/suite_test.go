package schema

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The official JSON-Schema-Test-Suite: every test of every supported draft is run, pass
// counts are compared with testdata/suite-stats.txt, and every failure must be listed with
// its reason in testdata/suite-ledger.txt. Regenerate the stats with JSTK_UPDATE=1.

var suiteDrafts = []struct {
	dir   string
	draft *Draft
}{
	{"draft4", Draft4}, {"draft6", Draft6}, {"draft7", Draft7},
	{"draft2019-09", Draft2019}, {"draft2020-12", Draft2020},
}

type suiteResult struct {
	id       string // draft/path: case / test
	passed   bool
	detail   string
	keywords []string // the keywords of the errors Validate reported, causes too
}

// errorKeywords appends the keywords of errs and of their causes to out.
func errorKeywords(out []string, errs []Error) []string {
	for _, e := range errs {
		out = errorKeywords(append(out, e.Keyword), e.Causes)
	}
	return out
}

// suiteGroup names the group a test file belongs to: core, optional or format.
func suiteGroup(rel string) string {
	switch {
	case strings.HasPrefix(rel, "optional/format/"):
		return "format"
	case strings.HasPrefix(rel, "optional/"):
		return "optional"
	}
	return "core"
}

func runSuite(t *testing.T, dir string) []suiteResult {
	remotes := filepath.Join(dir, "remotes")
	fsys, err := workspace.Root(remotes)
	if err != nil {
		t.Fatal(err)
	}
	var results []suiteResult
	for _, sd := range suiteDrafts {
		for _, sf := range corpora.SuiteFiles(t, dir, sd.dir) {
			rel := sf.Rel
			for ci, tc := range sf.Cases.Items() {
				desc, _ := tc.Get("description")
				sch, _ := tc.Get("schema")
				tests, _ := tc.Get("tests")
				loader := &Loader{FS: fsys, Resolve: map[string]string{"http://localhost:1234/": "."}}
				// Optional behaviour is switched on for the files that test it.
				opts := &Options{Draft: sd.draft, Loader: loader, AssertFormat: sf.Group == "format",
					AssertContent: rel == "optional/content.json"}
				schema, cerr := compileInline(sch, fmt.Sprintf("https://jstk.test/%s/%s/%d.json", sd.dir, strings.TrimSuffix(rel, ".json"), ci), opts)
				for _, test := range tests.Items() {
					td, _ := test.Get("description")
					data, _ := test.Get("data")
					want, _ := test.Get("valid")
					r := suiteResult{id: fmt.Sprintf("%s/%s: %s / %s", sd.dir, rel, desc.Str(), td.Str())}
					if cerr != nil {
						r.detail = "schema: " + cerr.Error()
					} else {
						ok, verr := schema.Valid(data)
						errs, verr2 := schema.Validate(data)
						// Validate's first evaluation, for the verdict alone, hides its
						// mistakes when it says invalid (errors are then collected in full)
						quick := schema.verdict(context.Background(), data)
						r.keywords = errorKeywords(nil, errs)
						switch {
						case verr != nil || verr2 != nil:
							r.detail = fmt.Sprintf("evaluation failed: %v %v", verr, verr2)
						case ok != (len(errs) == 0):
							r.detail = fmt.Sprintf("Valid says %v but Validate found %d errors", ok, len(errs))
						case quick != ok:
							r.detail = fmt.Sprintf("the verdict alone says %v, Valid %v", quick, ok)
						case ok != want.Bool():
							r.detail = fmt.Sprintf("got valid=%v, want %v", ok, want.Bool())
							if len(errs) > 0 {
								r.detail += ": " + errs[0].Message
							}
						default:
							r.passed = true
						}
					}
					results = append(results, r)
				}
			}
		}
	}
	return results
}

func compileInline(v source.Value, uri string, opts *Options) (*Schema, error) {
	text := string(source.AppendJSON(nil, v))
	doc, err := source.ParseJSON(uri, []byte(text), nil)
	if err != nil {
		return nil, err
	}
	c := NewCompiler(opts)
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

func TestJSONSchemaTestSuite(t *testing.T) {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	results := runSuite(t, dir)
	ledger := golden.Ledger(t, "testdata/suite-ledger.txt")
	type count struct{ pass, total int }
	stats := map[string]*count{}
	var unexpected, stale []string
	for _, r := range results {
		draft, rest, _ := strings.Cut(r.id, "/")
		key := draft + " " + suiteGroup(rest)
		if stats[key] == nil {
			stats[key] = &count{}
		}
		stats[key].total++
		_, known := ledger[r.id]
		switch {
		case r.passed:
			stats[key].pass++
			if known {
				stale = append(stale, r.id)
			}
		case !known:
			unexpected = append(unexpected, r.id+"\n\t"+r.detail)
		}
	}
	var sb strings.Builder
	sb.WriteString("# JSON-Schema-Test-Suite pass counts (go test ./internal/schema -run TestJSONSchemaTestSuite; JSTK_UPDATE=1 rewrites)\n")
	for _, sd := range suiteDrafts {
		for _, g := range []string{"core", "optional", "format"} {
			c := stats[sd.dir+" "+g]
			if c == nil {
				continue
			}
			fmt.Fprintf(&sb, "%-13s %-9s %5d / %5d  %6.2f%%\n", sd.dir, g, c.pass, c.total, 100*float64(c.pass)/float64(c.total))
		}
	}
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/suite-stats.txt", sb.String())
	for _, u := range unexpected {
		t.Errorf("unexpected failure (fix it, or list it with its reason in testdata/suite-ledger.txt): %s", u)
	}
	for _, s := range stale {
		t.Errorf("passes now, remove it from testdata/suite-ledger.txt: %s", s)
	}
}

// The evaluator reports failures at the keywords the model marks Fails, and at no other
// (a false schema's errors have no keyword); the suite makes each of them fail somewhere.
func TestSuiteFailingKeywords(t *testing.T) {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	reported := map[string]bool{}
	for _, r := range runSuite(t, dir) {
		for _, kw := range r.keywords {
			reported[kw] = true
		}
	}
	fails := map[string]bool{"": true}
	for _, k := range Keywords() {
		if k.Fails {
			fails[k.Name] = true
		}
	}
	for kw := range reported {
		if !fails[kw] {
			t.Errorf("the evaluator reports failures at %q, which the keyword model does not mark Fails", kw)
		}
	}
	for kw := range fails {
		if !reported[kw] {
			t.Errorf("the keyword model marks %q Fails, but no failure of the JSON-Schema-Test-Suite is reported at it", kw)
		}
	}
}
