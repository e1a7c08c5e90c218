package diff

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/diff/search"
	"github.com/jstk-dev/jstk/internal/panics"
)

// The whole-schema proofs give the same results on a goroutine of their own as on the
// comparison's engine, whichever direction the search settles first.
func TestProofsBeside(t *testing.T) {
	t.Parallel()
	pairs := []struct{ name, old, new string }{
		{"backward breaks", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
		{"forward breaks", `{"type":"object","required":["a"]}`, `{"type":"object"}`},
		{"equivalent spellings", `{"type":"integer","exclusiveMinimum":4}`, `{"type":"integer","minimum":5}`},
		{"recursive and compatible", `{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`,
			`{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}}}}},"$ref":"#/$defs/t"}`},
		{"both break", `{"enum":["a","b"]}`, `{"enum":["b","c"]}`},
	}
	options := map[string]Options{
		"search":    {SearchBudget: time.Minute, SearchCandidates: 3000},
		"no search": {SearchBudget: -1},
	}
	for _, p := range pairs {
		old, new := compileText(t, "old.json", p.old), compileText(t, "new.json", p.new)
		for oname, opts := range options {
			o, err := opts.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			var got [2]string
			for i, beside := range []bool{false, true} {
				res, err := compare(context.Background(), old, new, o, beside)
				if err != nil {
					t.Fatalf("%s, %s: %v", p.name, oname, err)
				}
				got[i] = jsonOf(t, res)
			}
			if d := cmp.Diff(got[0], got[1]); d != "" {
				t.Errorf("%s, %s: on one engine and beside differ (-one +beside):\n%s", p.name, oname, d)
			}
		}
	}
}

// A cancelled comparison stops its proof goroutine and says so.
func TestProofsBesideCancelled(t *testing.T) {
	t.Parallel()
	old := compileText(t, "old.json", `{"type":"object","properties":{"a":{"type":"string"}}}`)
	new := compileText(t, "new.json", `{"type":"object","properties":{"a":{"type":"number"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, _ := (&Options{}).Normalize()
	if _, err := compare(ctx, old, new, o, true); err == nil {
		t.Fatal("a cancelled comparison gave a result")
	}
}

// A panic on the proof goroutine reaches the comparison's goroutine, where a caller (the
// MCP server) can recover it, whether or not its answer was still needed.
func TestProofPanicReachesCaller(t *testing.T) {
	// not parallel: it sets proofStarts
	search.ProofStarts = func() { panic("boom") }
	defer func() { search.ProofStarts = nil }()
	o, _ := (&Options{SearchBudget: time.Minute, SearchCandidates: 100}).Normalize()
	for _, p := range []struct{ name, old, new string }{
		{"answer needed", `{"type":"integer"}`, `{"type":"number"}`},
		{"answer not needed", `{"type":"object"}`, `{"type":"object","required":["a"]}`},
	} {
		old, new := compileText(t, "old.json", p.old), compileText(t, "new.json", p.new)
		got := func() (r any) {
			defer func() { r = recover() }()
			compare(context.Background(), old, new, o, true)
			return nil
		}()
		if e, ok := got.(*panics.Error); !ok || e.Value != "boom" {
			t.Errorf("%s: recovered %#v, want the proof goroutine's panic", p.name, got)
		}
	}
}

// TestPlaceAheadRaisesPanic checks that a panic while locating changes ahead of the report
// reaches the goroutine that waits, as a *panics.Error, instead of ending the process.
func TestPlaceAheadRaisesPanic(t *testing.T) {
	wait := placeAhead([]*align.Change{{On: &algebra.Node{}}}, true) // a node without a body cannot be located
	defer func() {
		r := recover()
		if _, ok := r.(*panics.Error); !ok {
			t.Fatalf("recovered %v, want a *panics.Error", r)
		}
		wait() // a second wait neither blocks nor raises again
	}()
	wait()
}
