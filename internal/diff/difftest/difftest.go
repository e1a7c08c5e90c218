// Package difftest holds what the tests of diff's rooms (algebra, prove, align, search)
// share: compiling a schema from text, comparing as diff.Compare does, and the checks every
// comparison must pass (its examples separate the two schemas as they say). It is imported by
// tests only; diff's own tests, inside package diff, keep theirs (they cannot import a
// package that imports diff).
package difftest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Quick are deterministic options for unit tests.
func Quick() *diff.Options {
	return &diff.Options{SearchBudget: time.Minute, SearchCandidates: 3000}
}

// CompileText compiles a schema given as JSON text (2020-12 unless it says otherwise),
// under a URI of its own.
func CompileText(t testing.TB, name, text string) *schema.Schema {
	t.Helper()
	doc, err := source.ParseJSON(name, []byte(text), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := schema.NewCompiler(&schema.Options{Draft: schema.Draft2020})
	uri := "file:///jstk-test/" + name
	if err := c.AddDocument(uri, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// TextOf is r's text report.
func TextOf(r *diff.Result) string {
	var sb strings.Builder
	_ = r.WriteText(&sb)
	return sb.String()
}

// VerifyExamples checks that every example of r separates old and new as it says, that no
// example refutes a claim, and that an incompatible direction has its example.
func VerifyExamples(t testing.TB, id string, r *diff.Result, old, new *schema.Schema) {
	t.Helper()
	check := func(raw json.RawMessage, validUnderOld bool, what string) {
		doc, err := source.ParseJSON("example", raw, nil)
		if err != nil {
			t.Errorf("%s: %s example does not parse: %v", id, what, err)
			return
		}
		vo, _ := old.Valid(doc.Root)
		vn, _ := new.Valid(doc.Root)
		if vo != validUnderOld || vn == validUnderOld {
			t.Errorf("%s: %s example %s: valid under old %v, under new %v", id, what, raw, vo, vn)
		}
	}
	if len(r.BackwardExample) > 0 {
		check(r.BackwardExample, true, "backward")
	}
	if len(r.ForwardExample) > 0 {
		check(r.ForwardExample, false, "forward")
	}
	for _, ch := range r.Changes {
		if len(ch.Example) > 0 {
			check(ch.Example, ch.ExampleValidUnder == "old", ch.Kind)
		}
		for _, b := range ch.Breaks {
			if (b == diff.Backward && (ch.Effect == diff.Widen || ch.Effect == diff.Equivalent)) || (b == diff.Forward && (ch.Effect == diff.Narrow || ch.Effect == diff.Equivalent)) {
				t.Errorf("%s: %s claims %s but an example breaks %s", id, ch.Kind, ch.Effect, b)
			}
		}
	}
	if r.Backward == diff.Incompatible && len(r.BackwardExample) == 0 {
		t.Errorf("%s: backward incompatible without an example", id)
	}
	if r.Forward == diff.Incompatible && len(r.ForwardExample) == 0 {
		t.Errorf("%s: forward incompatible without an example", id)
	}
}

// KeywordPair is one pair of internal/diff/testdata/pairs-by-keyword.json.
type KeywordPair struct {
	Name, Old, New    string
	Backward, Forward diff.Verdict
}

// KeywordPairs reads the pairs of schemas that differ by one keyword, with their verdicts,
// from a room's tests (the file is in the folder above).
func KeywordPairs(t *testing.T) []KeywordPair {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "pairs-by-keyword.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Pairs []KeywordPair }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Pairs) < 40 {
		t.Fatalf("%d pairs", len(f.Pairs))
	}
	return f.Pairs
}
