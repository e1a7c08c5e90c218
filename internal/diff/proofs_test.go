package diff

import (
	"context"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/diff/search"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/source"
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

// enter says a core is free while fewer comparisons run than there are cores, and leave
// gives it back.
func TestEnterLeave(t *testing.T) {
	// not parallel: it reads the count of running comparisons
	before := search.Comparing.Load()
	n := 0
	for search.Enter() {
		n++
		if n > 1024 {
			t.Fatal("enter never says no")
		}
	}
	if want := runtime.GOMAXPROCS(0) - 1 - int(before); n != max(want, 0) {
		t.Errorf("%d comparisons got a free core with %d running, want %d", n, before, max(want, 0))
	}
	for ; n >= 0; n-- { // the n that got a core, and the one that did not
		search.Leave()
	}
	if got := search.Comparing.Load(); got != before {
		t.Errorf("comparing = %d after leave, want %d", got, before)
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

// drainPanic drains the shrinks of s and returns what it panicked with, if anything.
func drainPanic(s *search.Searcher) (r any) {
	defer func() { r = recover() }()
	s.Drain()
	return nil
}

func isPanicsError(r any) bool {
	_, ok := r.(*panics.Error)
	return ok
}

// A panic while an example is made smaller beside the search reaches the goroutine that
// drains the shrinks, as a *panics.Error, and leaves no goroutine behind.
func TestShrinkPanicReachesCaller(t *testing.T) {
	o, _ := (&Options{}).Normalize()
	s := &search.Searcher{E: newEngine(context.Background(), o, nil, 0).Engine, Beside: true} // no schemas: the shrink panics
	job := &search.ShrinkJob{S: s, X: source.IntValue(1), Ch: &align.Change{}, Dir: search.DirBackward, Shows: true}
	s.ShrinkBeside(job)
	if got := drainPanic(s); !isPanicsError(got) {
		t.Fatalf("recovered %#v, want the shrink's panic", got)
	}
	if s.Shrinks != nil || s.StopShrinks() != nil {
		t.Error("the shrinker is still there after drain")
	}
}

// Once the comparison is cancelled, the shrinker skips its jobs: the examples waiting to be
// made smaller are shown as they were found.
func TestShrinkAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, _ := (&Options{}).Normalize()
	s := &search.Searcher{E: newEngine(ctx, o, nil, 0).Engine, Beside: true}
	ch := &align.Change{}
	job := &search.ShrinkJob{S: s, X: source.IntValue(7), Ch: ch, Dir: search.DirBackward, Shows: true}
	s.ShrinkBeside(job)
	s.Drain()
	if !source.Equal(job.Out, source.IntValue(7)) || !source.Equal(ch.Example, source.IntValue(7)) {
		t.Errorf("out %v, example %v: want the example as found", job.Out, ch.Example)
	}
}

// drain runs the jobs still queued itself: with no shrinker goroutine to take them, each is
// done by the caller, and a panic among them reaches the caller as the shrinker's would.
func TestDrainRunsQueuedJobs(t *testing.T) {
	queue := func(s *search.Searcher, xs ...int64) []*search.ShrinkJob {
		sh := &search.Shrinker{Jobs: make(chan *search.ShrinkJob, len(xs)), End: make(chan struct{})}
		close(sh.End) // no goroutine: stopShrinks returns at once
		s.Shrinks = sh
		var jobs []*search.ShrinkJob
		for _, x := range xs {
			j := &search.ShrinkJob{S: s, X: source.IntValue(x), Ch: &align.Change{}, Dir: search.DirBackward, Shows: true}
			jobs = append(jobs, j)
			sh.Done = append(sh.Done, j)
			sh.Jobs <- j
		}
		return jobs
	}
	o, _ := (&Options{}).Normalize()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a cancelled comparison's jobs keep their examples: no schemas needed
	s := &search.Searcher{E: newEngine(ctx, o, nil, 0).Engine, Beside: true}
	jobs := queue(s, 3, 4, 5)
	s.Drain()
	for i, j := range jobs {
		if want := source.IntValue(int64(3 + i)); !source.Equal(j.Ch.Example, want) {
			t.Errorf("job %d: example %v, want %v", i, j.Ch.Example, want)
		}
	}
	s = &search.Searcher{E: newEngine(context.Background(), o, nil, 0).Engine, Beside: true} // no schemas: the shrink panics
	queue(s, 1)
	if got := drainPanic(s); !isPanicsError(got) {
		t.Fatalf("recovered %#v, want the job's panic", got)
	}
}
