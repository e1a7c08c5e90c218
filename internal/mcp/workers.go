package mcp

import "time"

// WorkerIdle is how long a goroutine of Workers that ran a function waits for the next
// before it ends.
const WorkerIdle = 5 * time.Second

// Workers runs functions on goroutines that ran earlier ones and wait for the next, or,
// when none waits, on new ones. A tool call grows its goroutine's stack to tens of
// kilobytes (decoding, the tool, encoding the answer); a new goroutine grows it again,
// copying it at each doubling, where a waiting one has it already: with a new goroutine
// for each call, runtime.morestack took a sixth of the CPU of a warm call in the server's
// process, and as much in the engine process's. It is safe for concurrent use.
type Workers struct {
	idle    chan func()
	idleFor time.Duration
}

// NewWorkers returns Workers whose goroutines wait idleFor for the next function.
func NewWorkers(idleFor time.Duration) *Workers {
	return &Workers{idle: make(chan func()), idleFor: idleFor}
}

// Go runs f on a waiting goroutine, or on a new one.
func (w *Workers) Go(f func()) {
	select {
	case w.idle <- f:
	default:
		go w.run(f)
	}
}

// run runs f, then the functions Go hands it, until none comes for w.idleFor.
func (w *Workers) run(f func()) {
	t := time.NewTimer(w.idleFor)
	defer t.Stop()
	for {
		f()
		f = nil // its memory is not kept while the goroutine waits
		t.Reset(w.idleFor)
		select {
		case f = <-w.idle:
		case <-t.C:
			return
		}
	}
}
