package search

import (
	"context"
	"runtime"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/source"
)

// enter says a core is free while fewer comparisons run than there are cores, and leave
// gives it back.
func TestEnterLeave(t *testing.T) {
	// not parallel: it reads the count of running comparisons
	before := Comparing.Load()
	n := 0
	for Enter() {
		n++
		if n > 1024 {
			t.Fatal("enter never says no")
		}
	}
	if want := runtime.GOMAXPROCS(0) - 1 - int(before); n != max(want, 0) {
		t.Errorf("%d comparisons got a free core with %d running, want %d", n, before, max(want, 0))
	}
	for ; n >= 0; n-- { // the n that got a core, and the one that did not
		Leave()
	}
	if got := Comparing.Load(); got != before {
		t.Errorf("comparing = %d after leave, want %d", got, before)
	}
}

// drainPanic drains the shrinks of s and returns what it panicked with, if anything.
func drainPanic(s *Searcher) (r any) {
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
	o, _ := (&algebra.Options{}).Normalize()
	s := &Searcher{E: NewEngine(context.Background(), o, nil, 0), Beside: true} // no schemas: the shrink panics
	job := &ShrinkJob{S: s, X: source.IntValue(1), Ch: &align.Change{}, Dir: DirBackward, Shows: true}
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
	o, _ := (&algebra.Options{}).Normalize()
	s := &Searcher{E: NewEngine(ctx, o, nil, 0), Beside: true}
	ch := &align.Change{}
	job := &ShrinkJob{S: s, X: source.IntValue(7), Ch: ch, Dir: DirBackward, Shows: true}
	s.ShrinkBeside(job)
	s.Drain()
	if !source.Equal(job.Out, source.IntValue(7)) || !source.Equal(ch.Example, source.IntValue(7)) {
		t.Errorf("out %v, example %v: want the example as found", job.Out, ch.Example)
	}
}

// drain runs the jobs still queued itself: with no shrinker goroutine to take them, each is
// done by the caller, and a panic among them reaches the caller as the shrinker's would.
func TestDrainRunsQueuedJobs(t *testing.T) {
	queue := func(s *Searcher, xs ...int64) []*ShrinkJob {
		sh := &Shrinker{Jobs: make(chan *ShrinkJob, len(xs)), End: make(chan struct{})}
		close(sh.End) // no goroutine: stopShrinks returns at once
		s.Shrinks = sh
		var jobs []*ShrinkJob
		for _, x := range xs {
			j := &ShrinkJob{S: s, X: source.IntValue(x), Ch: &align.Change{}, Dir: DirBackward, Shows: true}
			jobs = append(jobs, j)
			sh.Done = append(sh.Done, j)
			sh.Jobs <- j
		}
		return jobs
	}
	o, _ := (&algebra.Options{}).Normalize()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a cancelled comparison's jobs keep their examples: no schemas needed
	s := &Searcher{E: NewEngine(ctx, o, nil, 0), Beside: true}
	jobs := queue(s, 3, 4, 5)
	s.Drain()
	for i, j := range jobs {
		if want := source.IntValue(int64(3 + i)); !source.Equal(j.Ch.Example, want) {
			t.Errorf("job %d: example %v, want %v", i, j.Ch.Example, want)
		}
	}
	s = &Searcher{E: NewEngine(context.Background(), o, nil, 0), Beside: true} // no schemas: the shrink panics
	queue(s, 1)
	if got := drainPanic(s); !isPanicsError(got) {
		t.Fatalf("recovered %#v, want the job's panic", got)
	}
}
