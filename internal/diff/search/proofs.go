package search

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
)

// The proof that every instance of OLD is an instance of NEW (backward) over the whole
// schemas needs neither the walk nor the search, so it runs on an engine of its own while
// the walk runs on the comparison's: on two cores the two overlap instead of following
// each other. The forward proof joins it there when the walk shows it will be needed
// (no change is left for the forward search to try); otherwise it runs after the forward
// search, on the comparison's engine, and only when the search found no example. A
// direction that the search settles with an example needs no proof, and its proof is
// cancelled. The two engines share the compiled schemas, which are only read, and the
// bodies of the comparison (what each schema object says, read once by whichever engine
// asks first, with the merged view of each alone); everything else is each engine's own.
//
// The goroutine costs work (the second engine interns its own conjunctions and proves
// again what the walk's engine may know, and a proof the search makes unnecessary is
// wasted), so it is started only for large schemas, and only while fewer comparisons run
// in the process than it has cores: one large diff on a laptop gets both, while
// comparisons run side by side (a batch, a busy MCP server) keep to one core each.

// besideFrom is the size of the two schema documents together from which the proof gets
// a goroutine of its own. Below it the second engine costs more than it saves: with a
// goroutine for every comparison, the 460 small compat cases took 10% longer (measured
// against the previous commit); 256 KiB itself was chosen, not measured.
const besideFrom = 256 << 10

// large reports whether two schemas are large enough for a goroutine of their own.
func Large(old, new *schema.Schema) bool {
	return len(old.Document().Source())+len(new.Document().Source()) >= besideFrom
}

// comparing counts the comparisons running in the process (Compare calls).
var Comparing atomic.Int32

// proofOutcome is the answer of one whole-schema proof.
type proofOutcome struct {
	Proved bool
	Steps  int // the steps it took (over the budget: not complete)
}

// prover runs whole-schema proofs on a goroutine of its own.
type prover struct {
	e      *Engine // the comparison's engine, for a proof not asked of the goroutine
	old    *schema.Schema
	new    *schema.Schema
	ctx    [2]context.Context
	cancel [2]context.CancelFunc
	out    [2]chan proofOutcome
	asked  [2]bool
	more   chan int      // the forward direction, when it is asked after the start
	done   chan struct{} // closed when the goroutine ends
	catch  panics.Catcher
}

// proofStarts, when set (by tests), is called on the proof goroutine before it proves.
var ProofStarts func()

// enter counts a comparison in and reports whether a core is free for a second
// goroutine: fewer comparisons run, this one included, than there are cores. The caller
// calls leave when the comparison ends.
func Enter() bool { return int(Comparing.Add(1)) < runtime.GOMAXPROCS(0) }

// leave counts a comparison out.
func Leave() { Comparing.Add(-1) }

// startProofs starts proving the backward direction on a goroutine when beside is set
// (otherwise each proof is made on e when asked for); the caller calls stop when done.
func StartProofs(ctx context.Context, e *Engine, old, new *schema.Schema, beside bool) *prover {
	p := &prover{e: e, old: old, new: new}
	if !beside {
		return p
	}
	p.more = make(chan int, 1)
	for i := range p.ctx {
		p.ctx[i], p.cancel[i] = context.WithCancel(ctx)
		p.out[i] = make(chan proofOutcome, 1)
	}
	p.asked[0] = true
	p.done = make(chan struct{})
	go func() {
		defer close(p.done)
		// a panic here would end the process: it is raised again on the comparison's
		// goroutine (by result or stop), where the caller can recover it
		p.catch.Do(func() {
			if ProofStarts != nil {
				ProofStarts()
			}
			pe := NewEngine(p.ctx[0], e.Opts, e.Bodies, e.Size)
			p.out[0] <- pe.wholeSub(p.ctx[0], old, new)
			for range p.more {
				p.out[1] <- pe.wholeSub(p.ctx[1], new, old)
			}
		})
	}()
	return p
}

// wholeSub proves that every instance of a is an instance of b.
func (e *Engine) wholeSub(ctx context.Context, a, b *schema.Schema) proofOutcome {
	if ctx.Err() != nil {
		return proofOutcome{}
	}
	e.Ctx, e.Steps = ctx, 0
	r := e.Sub(e.One(a), e.One(b), schema.TypeAll, 0)
	return proofOutcome{Proved: r, Steps: e.Steps}
}

// ask has the goroutine prove the forward direction too.
func (p *prover) Ask() {
	if p.more != nil && !p.asked[1] {
		p.asked[1] = true
		p.more <- DirForward
	}
}

// result returns the proof of a direction: the goroutine's, or one made now on the
// comparison's engine.
func (p *prover) Result(dir int) proofOutcome {
	if p.asked[dir-1] {
		select {
		case r := <-p.out[dir-1]:
			return r
		case <-p.done:
			select {
			case r := <-p.out[dir-1]:
				return r
			default:
			}
			p.catch.Repanic()
			panic("diff: the proof goroutine ended without an answer")
		}
	}
	if dir == DirBackward {
		return p.e.wholeSub(p.e.Ctx, p.old, p.new)
	}
	return p.e.wholeSub(p.e.Ctx, p.new, p.old)
}

// skip cancels the proof of a direction whose answer is not needed.
func (p *prover) Skip(dir int) {
	if c := p.cancel[dir-1]; c != nil {
		c()
	}
}

// stop cancels what is left, waits for the goroutine to end and raises its panic, if it
// had one that result did not raise.
func (p *prover) Stop() {
	if p.more == nil {
		return
	}
	for _, c := range p.cancel {
		c()
	}
	close(p.more)
	<-p.done
	p.catch.Repanic()
}
