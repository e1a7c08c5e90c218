package infer

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
)

// Soundness over real data: for every schema of schemastore-dev, a schema is inferred
// from its positive instances, and each of them must be valid against it (checked by
// jstk's validator, formats asserted). Precision is the share of the schema's negative
// instances that the inferred schema rejects; it is a figure, not a pass mark, and is
// compared with testdata/schemastore-stats.txt (JSTK_UPDATE=1 rewrites it).

func readInstances(t *testing.T, dir string) []source.Value {
	t.Helper()
	var out []source.Value
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := source.ParseFile(p, data, nil)
		if err != nil {
			continue // an instance jstk cannot read is not this test's concern
		}
		for _, d := range docs {
			out = append(out, d.Root)
		}
	}
	return out
}

type precision struct{ rejected, total int }

func inferAndCheck(t *testing.T, name string, pos, neg []source.Value, opts *Options) (precision, []string) {
	sum, err := NewSummary(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range pos {
		sum.Add(v)
	}
	res := sum.Result()
	s, err := compileResult(res, true)
	if err != nil {
		return precision{}, []string{fmt.Sprintf("%s: inferred schema does not compile: %v", name, err)}
	}
	var unsound []string
	for i, v := range pos {
		errs, err := s.Validate(v)
		if err != nil || len(errs) > 0 {
			msg := fmt.Sprint(err)
			if len(errs) > 0 {
				msg = errs[0].InstanceLocation + ": " + errs[0].Message
			}
			unsound = append(unsound, fmt.Sprintf("%s: instance %d rejected: %s", name, i, msg))
		}
	}
	var p precision
	for _, v := range neg {
		p.total++
		if ok, _ := s.Valid(v); !ok {
			p.rejected++
		}
	}
	return p, unsound
}

func compileResult(res *Result, assertFormat bool) (*schema.Schema, error) {
	uri := "urn:jstk:test:inferred"
	doc, err := source.ParseJSON(uri, res.Schema, nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(&schema.Options{AssertFormat: assertFormat})
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

func TestSchemaStoreSoundness(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	testDir := filepath.Join(dir, "src", "test")
	negDir := filepath.Join(dir, "src", "negative_test")
	entries, err := os.ReadDir(testDir)
	if err != nil {
		t.Fatal(err)
	}
	variants := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"closed+bounds", Options{Closed: true, Bounds: true}},
		{"draft-04", Options{Draft: schema.Draft4}},
		{"anyOf+closed", Options{AnyOf: true, Closed: true}},
	}
	if raceEnabled {
		variants = variants[3:] // the variant with the most code paths
	}
	type tally struct {
		schemas, instances, withNeg int
		p                           precision
	}
	tallies := make([]tally, len(variants))
	var perSchema []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pos := readInstances(t, filepath.Join(testDir, e.Name()))
		if len(pos) == 0 {
			continue
		}
		neg := readInstances(t, filepath.Join(negDir, e.Name()))
		line := e.Name()
		for vi, v := range variants {
			opts := v.opts
			p, unsound := inferAndCheck(t, e.Name(), pos, neg, &opts)
			for _, u := range unsound {
				t.Errorf("unsound (%s): %s", v.name, u)
			}
			tl := &tallies[vi]
			tl.schemas++
			tl.instances += len(pos)
			if len(neg) > 0 {
				tl.withNeg++
				tl.p.rejected += p.rejected
				tl.p.total += p.total
				line += fmt.Sprintf("  %s %d/%d", v.name, p.rejected, p.total)
			}
		}
		if len(neg) > 0 {
			perSchema = append(perSchema, line)
		}
	}
	sort.Strings(perSchema)
	var sb strings.Builder
	sb.WriteString("# infer over schemastore-dev (go test ./internal/infer -run TestSchemaStoreSoundness; JSTK_UPDATE=1 rewrites)\n")
	sb.WriteString("# soundness: every positive instance is valid against the schema inferred from them (any failure fails the test)\n")
	sb.WriteString("# precision: negative instances rejected by that inferred schema\n")
	for vi, v := range variants {
		tl := tallies[vi]
		fmt.Fprintf(&sb, "%-14s schemas %d, positive instances %d (all accepted); precision %d/%d = %.1f%% over %d schemas with negatives\n",
			v.name, tl.schemas, tl.instances, tl.p.rejected, tl.p.total, 100*float64(tl.p.rejected)/float64(max(tl.p.total, 1)), tl.withNeg)
	}
	sb.WriteString("# per schema (negative instances rejected / negative instances)\n")
	for _, l := range perSchema {
		sb.WriteString(l + "\n")
	}
	t.Log("\n" + strings.SplitN(sb.String(), "# per schema", 2)[0])
	if !raceEnabled {
		golden.Check(t, "testdata/schemastore-stats.txt", sb.String())
	}
}
