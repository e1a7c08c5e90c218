package diff

import (
	"context"
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
			o, err := opts.normalize()
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
	o, _ := (&Options{}).normalize()
	if _, err := compare(ctx, old, new, o, true); err == nil {
		t.Fatal("a cancelled comparison gave a result")
	}
}

// enter says a core is free while fewer comparisons run than there are cores, and leave
// gives it back.
func TestEnterLeave(t *testing.T) {
	// not parallel: it reads the count of running comparisons
	before := comparing.Load()
	n := 0
	for enter() {
		n++
		if n > 1024 {
			t.Fatal("enter never says no")
		}
	}
	if want := runtime.GOMAXPROCS(0) - 1 - int(before); n != max(want, 0) {
		t.Errorf("%d comparisons got a free core with %d running, want %d", n, before, max(want, 0))
	}
	for ; n >= 0; n-- { // the n that got a core, and the one that did not
		leave()
	}
	if got := comparing.Load(); got != before {
		t.Errorf("comparing = %d after leave, want %d", got, before)
	}
}

// A panic on the proof goroutine reaches the comparison's goroutine, where a caller (the
// MCP server) can recover it, whether or not its answer was still needed.
func TestProofPanicReachesCaller(t *testing.T) {
	// not parallel: it sets proofStarts
	proofStarts = func() { panic("boom") }
	defer func() { proofStarts = nil }()
	o, _ := (&Options{SearchBudget: time.Minute, SearchCandidates: 100}).normalize()
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
	wait := placeAhead([]*change{{on: &node{}}}, true) // a node without a body cannot be located
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
func drainPanic(s *searcher) (r any) {
	defer func() { r = recover() }()
	s.drain()
	return nil
}

func isPanicsError(r any) bool {
	_, ok := r.(*panics.Error)
	return ok
}

// A panic while an example is made smaller beside the search reaches the goroutine that
// drains the shrinks, as a *panics.Error, and leaves no goroutine behind.
func TestShrinkPanicReachesCaller(t *testing.T) {
	o, _ := (&Options{}).normalize()
	s := &searcher{e: newEngine(context.Background(), o, nil, 0), beside: true} // no schemas: the shrink panics
	job := &shrinkJob{s: s, x: source.IntValue(1), ch: &change{}, dir: dirBackward, shows: true}
	s.shrinkBeside(job)
	if got := drainPanic(s); !isPanicsError(got) {
		t.Fatalf("recovered %#v, want the shrink's panic", got)
	}
	if s.shrinks != nil || s.stopShrinks() != nil {
		t.Error("the shrinker is still there after drain")
	}
}

// Once the comparison is cancelled, the shrinker skips its jobs: the examples waiting to be
// made smaller are shown as they were found.
func TestShrinkAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, _ := (&Options{}).normalize()
	s := &searcher{e: newEngine(ctx, o, nil, 0), beside: true}
	ch := &change{}
	job := &shrinkJob{s: s, x: source.IntValue(7), ch: ch, dir: dirBackward, shows: true}
	s.shrinkBeside(job)
	s.drain()
	if !source.Equal(job.out, source.IntValue(7)) || !source.Equal(ch.example, source.IntValue(7)) {
		t.Errorf("out %v, example %v: want the example as found", job.out, ch.example)
	}
}

// drain runs the jobs still queued itself: with no shrinker goroutine to take them, each is
// done by the caller, and a panic among them reaches the caller as the shrinker's would.
func TestDrainRunsQueuedJobs(t *testing.T) {
	queue := func(s *searcher, xs ...int64) []*shrinkJob {
		sh := &shrinker{jobs: make(chan *shrinkJob, len(xs)), end: make(chan struct{})}
		close(sh.end) // no goroutine: stopShrinks returns at once
		s.shrinks = sh
		var jobs []*shrinkJob
		for _, x := range xs {
			j := &shrinkJob{s: s, x: source.IntValue(x), ch: &change{}, dir: dirBackward, shows: true}
			jobs = append(jobs, j)
			sh.done = append(sh.done, j)
			sh.jobs <- j
		}
		return jobs
	}
	o, _ := (&Options{}).normalize()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a cancelled comparison's jobs keep their examples: no schemas needed
	s := &searcher{e: newEngine(ctx, o, nil, 0), beside: true}
	jobs := queue(s, 3, 4, 5)
	s.drain()
	for i, j := range jobs {
		if want := source.IntValue(int64(3 + i)); !source.Equal(j.ch.example, want) {
			t.Errorf("job %d: example %v, want %v", i, j.ch.example, want)
		}
	}
	s = &searcher{e: newEngine(context.Background(), o, nil, 0), beside: true} // no schemas: the shrink panics
	queue(s, 1)
	if got := drainPanic(s); !isPanicsError(got) {
		t.Fatalf("recovered %#v, want the job's panic", got)
	}
}
