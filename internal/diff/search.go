package diff

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The search looks for instances that separate the two schemas: for the backward
// direction, valid under OLD and invalid under NEW. It tries the locations where the rule
// engine saw a change it could not prove harmless first, building values there from the
// source side with the other side as a hint and wrapping them into whole instances, then
// the whole schemas. Every candidate is judged by jstk's validator on the root schemas.
// An example is attributed to the change whose keyword the failing side reports.

const (
	dirBackward = 1
	dirForward  = 2
)

type searcher struct {
	e        *engine
	old, new *schema.Schema
	items    []*item
	dirState               // of the direction being searched
	attr     attributor    // attributes the examples the search finds; it has the changes
	settled  func(dir int) // called when a direction's first example is found
	beside   bool          // examples are made smaller on a goroutine of their own
	shrinks  *shrinker     // the examples being made smaller, until drained
}

// dirState is the state of one direction's search (start), set aside while the other
// direction searches (pause, resume).
type dirState struct {
	tried    map[string]bool
	deadline time.Time
	count    int
	limit    int
	ticks    int
	until    int // the count at which the location being searched has had its share (0: none)
	gen      *gen
	found    bool // an example was found in this direction
}

// postFirstCandidates bounds the candidates a direction tries, once its verdict is settled
// by a first example, to give the other changes examples of their own.
const postFirstCandidates = 256

// expired reports whether the direction's time is up or the comparison cancelled,
// without counting a candidate (stop does).
func (s *searcher) expired() bool {
	return time.Now().After(s.deadline) || s.e.ctx.Err() != nil
}

func (s *searcher) stop() bool {
	s.ticks++
	if s.ticks%8 == 0 {
		s.count++ // generating and judging values at a location costs like candidates
	}
	if s.count >= s.limit || s.expired() || s.e.overParts() {
		s.e.searchTimedOut = true
		return true
	}
	return s.until > 0 && s.count >= s.until
}

// start begins the search of one direction, with its own budget.
func (s *searcher) start(dir int) {
	e := s.e
	s.tried = map[string]bool{}
	s.deadline = time.Now().Add(e.opts.SearchBudget)
	s.count, s.limit, s.ticks, s.found = 0, e.opts.SearchCandidates, 0, false
	s.gen = e.newGen(e.opts.Seed+uint64(dir), s.stop)
}

// pausedSearch is a direction's search set aside: its state, and the time left of its
// budget.
type pausedSearch struct {
	dirState
	left time.Duration
}

// pause sets the current direction's search aside; the time until resume does not count
// against its budget.
func (s *searcher) pause() pausedSearch { return pausedSearch{s.dirState, time.Until(s.deadline)} }

// resume takes up a direction's search where pause left it.
func (s *searcher) resume(p pausedSearch) {
	s.dirState = p.dirState
	s.deadline = time.Now().Add(p.left)
}

// finish ends the search of one direction.
func (s *searcher) finish() {
	s.e.searchCandidates += s.count
}

// targeted searches at the locations with a change not proved harmless in this direction
// and returns the first example found (the zero Value if none). A first pass tries a few
// values at every location, a second pass many, each location with a share of the budget.
func (s *searcher) targeted(dir int) source.Value {
	e, g := s.e, s.gen
	var first source.Value
	var firstJob *shrinkJob // first, made smaller beside the search
	var todo []*item
	for _, it := range s.items {
		if s.needs(it, dir) {
			todo = append(todo, it)
		}
	}
	for pass := 0; pass < 2; pass++ {
		share := 0
		if len(todo) > 0 {
			share = max(64, (s.limit-s.count)/len(todo))
		}
		for _, it := range todo {
			if s.stop() {
				break
			}
			if !s.needs(it, dir) {
				continue
			}
			fo, fn := e.full(it)
			src, hint := fo, fn
			if dir == dirForward {
				src, hint = fn, fo
			}
			// each location gets its share, making values as well as trying them: one
			// whose values cost much (deep objects of many members) no longer leaves the
			// locations after it nothing
			s.until = s.count + share
			vals := g.values(src, hint, 0, pass == 1)
			vals = append(s.unmatched(it, dir, src, hint, vals), vals...)
			vals = append(s.elseValues(src, vals), vals...)
			vals = append(vals, s.siblingValues(it, dir, hint, pass == 1)...)
			unmatchTries := 4
			if pass == 0 {
				s.until = 0 // the first pass tries its few values whatever they cost
			}
			for _, v := range vals {
				if s.stop() || !s.needs(it, dir) {
					break
				}
				for _, x := range s.embed(g, it.path, dir, v) {
					ex, job, ok := s.check(x, dir, it)
					if !ok && unmatchTries > 0 {
						// the other side may accept it whole through another branch of a
						// group around the change: make it fail those too
						unmatchTries--
						if w, changed := s.unmatchWhole(x, dir); changed {
							ex, job, ok = s.check(w, dir, it)
						}
					}
					if ok {
						if !first.IsValid() {
							firstJob = job
							// The verdict is settled: examples for the other changes get a
							// tenth of the candidates left, at most postFirstCandidates. A
							// count, not a share of the time left: the same schemas give the
							// same examples however busy the machine is.
							first = ex
							if s.settled != nil {
								s.settled(dir)
							}
							s.limit = min(s.limit, s.count+min((s.limit-s.count)/10, postFirstCandidates))
						}
						break
					}
				}
			}
			s.until = 0
		}
	}
	s.drain()
	if firstJob != nil {
		first = firstJob.out
	}
	if first.IsValid() {
		s.finish()
	}
	return first
}

// unmatched returns values of src made from vals that the other side's groups at the
// location reject as a whole: where the other side still accepts a value through another
// branch of an anyOf or oneOf (the branch changed, its siblings did not), members are
// changed until no branch does (gen.unmatch). For a branch of a group, the other side's
// location is its context, the group with every branch.
func (s *searcher) unmatched(it *item, dir int, src, hint *conj, vals []source.Value) []source.Value {
	target := hint
	if it.branch {
		ctx := it.ctxN
		if dir == dirForward {
			ctx = it.ctxO
		}
		target = s.e.conjOf(ctx, nil)
	}
	if s.e.merged(target).nGroups == 0 {
		return nil
	}
	var out []source.Value
	for i, v := range vals {
		if i >= 6 || s.stop() {
			break
		}
		if ok, _ := s.e.valid(target, v); !ok {
			continue // rejected already
		}
		if w, ok := s.gen.unmatch(v, src, target); ok {
			out = append(out, w)
		}
	}
	return out
}

// siblingValues returns, for a branch of a oneOf or anyOf, values of the whole group on
// the source side (its other branches among them): a branch that widens breaks a oneOf
// where it now accepts what another branch alone accepted ({crate_name, min_version},
// valid under the plugin branch only, until the crate branch stopped requiring binary),
// and such a value is no value of the changed branch.
func (s *searcher) siblingValues(it *item, dir int, hint *conj, wide bool) []source.Value {
	if !it.branch || s.found {
		return nil // once the direction has an example, the candidates left go to the changes' own values
	}
	ctx := it.ctxO
	if dir == dirForward {
		ctx = it.ctxN
	}
	if len(ctx) == 0 {
		return nil
	}
	return s.gen.values(s.e.conjOf(ctx, nil), hint, 0, wide)
}

// elseValues returns values of src made from vals that fail the condition of an
// if/then/else whose else src holds: at a location reached through else (the walk gives
// it the group's context, not the negated condition), a value the condition accepts is
// judged by then, and the change in else is never reached. A member of each such value
// is changed until the condition rejects it (gen.breakBranch).
func (s *searcher) elseValues(src *conj, vals []source.Value) []source.Value {
	e := s.e
	var ifs []*schema.Schema
	for f := range e.merged(src).groups {
		if f.kind == fCond && f.subs[0] != nil && f.subs[2] != nil && slices.Contains(src.roots, f.subs[2]) {
			ifs = append(ifs, f.subs[0])
		}
	}
	if len(ifs) == 0 {
		return nil
	}
	var out []source.Value
	for i, v := range vals {
		if i >= 6 || s.stop() {
			break
		}
		w, changed := v, false
		for _, cond := range ifs {
			if ok, err := cond.ValidContext(e.ctx, w); err != nil || !ok {
				continue
			}
			x, ok := s.gen.breakBranch(w, src, cond)
			if !ok {
				changed = false
				break
			}
			w, changed = x, true
		}
		if changed {
			out = append(out, w)
		}
	}
	return out
}

// unmatchWhole returns x (a whole instance) changed so that the other side's groups reject
// it (gen.unmatch over the root schemas), when x is valid under the source side and the
// other side accepts it.
func (s *searcher) unmatchWhole(x source.Value, dir int) (source.Value, bool) {
	e := s.e
	src, other := e.one(s.old), e.one(s.new)
	if dir == dirForward {
		src, other = other, src
	}
	if e.merged(other).nGroups == 0 {
		return source.Value{}, false
	}
	if ok, _ := e.valid(src, x); !ok {
		return source.Value{}, false
	}
	if ok, _ := e.valid(other, x); !ok {
		return source.Value{}, false
	}
	return s.gen.unmatch(x, src, other)
}

// generic searches from the whole schemas. When the direction is proved, it is a short
// backstop (an example would reveal a bug in a rule, and would win).
func (s *searcher) generic(dir int, proved bool) source.Value {
	e := s.e
	src, hint := e.one(s.old), e.one(s.new)
	if dir == dirForward {
		src, hint = hint, src
	}
	if proved {
		s.limit = min(s.limit, s.count+200)
	}
	var root *item
	if len(s.items) > 0 {
		root = s.items[0]
	}
	for _, x := range s.gen.values(src, hint, 0, true) {
		if s.stop() {
			break
		}
		if ex, job, ok := s.check(x, dir, root); ok {
			s.drain()
			if job != nil {
				ex = job.out
			}
			return ex
		}
	}
	return source.Value{}
}

// needsAny reports whether some item needs the search in a direction.
func (s *searcher) needsAny(dir int) bool {
	for _, it := range s.items {
		if s.needs(it, dir) {
			return true
		}
	}
	return false
}

// needs reports whether an item has a change whose direction is neither proved nor shown.
func (s *searcher) needs(it *item, dir int) bool {
	for _, ch := range it.changes {
		if ch.level != "validation" {
			continue
		}
		p := ch.bw
		if dir == dirForward {
			p = ch.fw
		}
		if p == pUnknown {
			return true
		}
	}
	return false
}

// embed wraps a value into whole instances along a path of steps.
func (s *searcher) embed(g *gen, path *pathStep, dir int, v source.Value) []source.Value {
	cur := []source.Value{v}
	for p := path; p != nil; p = p.up {
		st, i := &p.step, p.depth
		src, hint := st.o, st.n
		if dir == dirForward {
			src, hint = st.n, st.o
		}
		src = s.inParent(p, dir, src)
		var next []source.Value
		for _, c := range cur {
			next = append(next, g.around(src, hint, *st, c, i)...)
			if len(next) >= 2 {
				break
			}
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

// inParent returns src, the container of step p, with the schemas its parent's container
// applies to it when p's container is a named member: a location inside a branch of a
// oneOf carries the branch's schema of the member, not the one its context declares
// (bundle.properties.minify requires enabled; jsBundle's minify, the branch's, does not),
// and a container built without it is invalid as a whole.
func (s *searcher) inParent(p *pathStep, dir int, src *conj) *conj {
	up := p.up
	if up == nil || up.kind != stProp || src == nil {
		return src
	}
	outer := up.o
	if dir == dirForward {
		outer = up.n
	}
	if outer == nil {
		return src
	}
	more, forbidden := s.e.valueSchemas(outer, up.key)
	if forbidden || len(more) == 0 {
		return src
	}
	return s.e.with(src, more)
}

// check judges one candidate; on success it attributes the example and returns it. An
// example explained by a change is made smaller by the returned job, beside the search
// when it may be (the search goes on as it would after the shrink: which change the
// example is attributed to is known, and so is what the search does next); the job's
// result is the example once the search drains its shrinks.
func (s *searcher) check(x source.Value, dir int, at *item) (source.Value, *shrinkJob, bool) {
	k := string(source.AppendJSON(nil, x))
	if s.tried[k] {
		return source.Value{}, nil, false
	}
	s.tried[k] = true
	s.count++
	src, other := s.old, s.new
	if dir == dirForward {
		src, other = s.new, s.old
	}
	ok, err := src.ValidContext(s.e.ctx, x)
	if err != nil || !ok {
		return source.Value{}, nil, false
	}
	read := x
	if s.e.opts.RequiredWithDefault {
		read = s.e.fillDefaults(s.e.one(other), x, 0)
	}
	ok, err = other.ValidContext(s.e.ctx, read)
	if err != nil || ok {
		return source.Value{}, nil, false
	}
	errs := s.failures(other, read)
	s.prepare(dir)
	ch := s.attr.best(dir, errs, at, x)
	if ch != nil && ch.example.IsValid() && s.found {
		s.assign(ch, x, dir) // only the first example of a change is shown: no need to shrink
		return x, nil, true
	}
	s.found = true
	if ch != nil {
		job := &shrinkJob{s: s, x: x, ch: ch, dir: dir, at: at, shows: !ch.example.IsValid(), deadline: s.deadline,
			attr: attributor{changes: s.attr.changes[:len(s.attr.changes):len(s.attr.changes)]}}
		s.assign(ch, x, dir)
		s.shrinkBeside(job)
		return x, job, true
	}
	x = s.shrink(x, s.separates(dir, nil, nil, at), s.expired)
	read = x
	if s.e.opts.RequiredWithDefault {
		read = s.e.fillDefaults(s.e.one(other), x, 0)
	}
	errs = s.failures(other, read)
	s.assign(s.orphan(dir, errs, at), x, dir)
	return x, nil, true
}

// maxFailures bounds the errors an attribution reads: collecting the errors of every
// branch of nested oneOfs is exponential in the depth of the instance (a oneOf of twelve
// recursive branches took minutes on an instance eight levels deep), and the best
// explanation is among the first errors.
const maxFailures = 512

// failures returns the errors of v under sch, at most maxFailures of them (none when the
// evaluation could not be completed, the run's context cancelled included).
func (s *searcher) failures(sch *schema.Schema, v source.Value) []schema.Error {
	errs, _, err := sch.ValidateLimitContext(s.e.ctx, v, maxFailures)
	if err != nil {
		return nil
	}
	return errs
}

// separates returns the test an example keeps passing while it is made smaller: valid on
// the source side of dir, invalid on the other and, when ch is set, failing where ch is
// (attributed by a).
func (s *searcher) separates(dir int, ch *change, a *attributor, at *item) func(source.Value) bool {
	src, other := s.old, s.new
	if dir == dirForward {
		src, other = s.new, s.old
	}
	return func(y source.Value) bool {
		if ok, err := src.ValidContext(s.e.ctx, y); err != nil || !ok {
			return false
		}
		r := y
		if s.e.opts.RequiredWithDefault {
			r = s.e.fillDefaults(s.e.one(other), y, 0)
		}
		if ok, err := other.ValidContext(s.e.ctx, r); err != nil || ok {
			return false
		}
		if ch == nil {
			return true
		}
		errs := s.failures(other, r)
		if len(errs) == 0 {
			return false
		}
		// the smaller example must still fail where the chosen change is
		return a.best(dir, errs, at, y) == ch
	}
}

// A shrinkJob makes one example smaller. What it needs is fixed when it is made (the
// example, its change, the changes then known and the rule engine's proofs, which the
// search does not change), so it gives the same example on whichever goroutine it runs
// and whenever, unless the direction's time is up (then it stops where it is, as the
// search does).
type shrinkJob struct {
	s        *searcher
	x        source.Value // the example
	out      source.Value // the smaller example, once run
	ch       *change
	dir      int
	at       *item
	shows    bool // the example is the one ch shows
	attr     attributor
	deadline time.Time // the direction's (none when zero)
}

func (j *shrinkJob) run() {
	j.out = j.s.shrink(j.x, j.s.separates(j.dir, j.ch, &j.attr, j.at), j.expired)
}

// expired reports whether the job should stop: the comparison is cancelled, or the
// direction's time is up (a validation of a large example can take long, and a search
// makes up to one job per change).
func (j *shrinkJob) expired() bool {
	return j.s.e.ctx.Err() != nil || !j.deadline.IsZero() && time.Now().After(j.deadline)
}

// shrinker makes examples smaller on a goroutine of its own, in the order they come.
type shrinker struct {
	jobs  chan *shrinkJob
	done  []*shrinkJob // in the order they came
	end   chan struct{}
	catch panics.Catcher
}

// shrinkBeside makes the example of job smaller: on the shrinker's goroutine when the
// search has a core beside it (and the reader-defaults policy, which reads with the
// comparison's engine, is off), at once otherwise.
func (s *searcher) shrinkBeside(job *shrinkJob) {
	if !s.beside || s.e.opts.RequiredWithDefault {
		job.run()
		s.settle(job)
		return
	}
	if s.shrinks == nil {
		sh := &shrinker{jobs: make(chan *shrinkJob, 64), end: make(chan struct{})}
		s.shrinks = sh
		go func() {
			defer close(sh.end)
			sh.catch.Do(func() {
				for j := range sh.jobs {
					j.run() // once the comparison is cancelled, the example as found
				}
			})
		}()
	}
	s.shrinks.done = append(s.shrinks.done, job)
	s.shrinks.jobs <- job
}

// drain waits for the examples being made smaller and shows them. Meanwhile it runs the
// jobs still queued itself (a job gives the same example on either goroutine): the search
// waited for the shrinker about 3 ms per comparison of the largest pair.
func (s *searcher) drain() {
	if sh := s.shrinks; sh != nil {
		sh.help()
	}
	if sh := s.stopShrinks(); sh != nil {
		sh.catch.Repanic()
		for _, j := range sh.done {
			s.settle(j)
		}
	}
}

// help runs the queued jobs on the calling goroutine until none is left or one panics
// (the panic is kept for Repanic, as the shrinker's own).
func (sh *shrinker) help() {
	for {
		select {
		case j := <-sh.jobs:
			if !sh.catch.Do(j.run) {
				return
			}
		default:
			return
		}
	}
}

// stopShrinks ends the shrinker's goroutine, if one runs, once its jobs are done, and
// returns the shrinker (the comparison calls it on its way out, so that a panic of the
// search leaves no goroutine behind).
func (s *searcher) stopShrinks() *shrinker {
	sh := s.shrinks
	if sh == nil {
		return nil
	}
	s.shrinks = nil
	close(sh.jobs)
	<-sh.end
	return sh
}

// settle shows the smaller example of a done job on its change.
func (s *searcher) settle(j *shrinkJob) {
	if j.shows {
		j.ch.example = j.out
	}
}

// shrinkBudget bounds the validations spent making one example smaller.
const shrinkBudget = 120

// shrink makes an example smaller while it still separates the schemas: members and
// items are dropped, values replaced by simpler ones, greedily, until stop says so.
func (s *searcher) shrink(x source.Value, keep func(source.Value) bool, stop func() bool) source.Value {
	budget := shrinkBudget
	for budget > 0 {
		var next source.Value
		simpler(x, func(y source.Value) bool {
			if budget <= 0 {
				return true
			}
			if stop() {
				budget = 0
				return true
			}
			budget--
			if keep(y) {
				next = y
				return true
			}
			return false
		})
		if !next.IsValid() {
			break
		}
		x = next
	}
	return x
}

// simpler offers one-step simplifications of v to try, most aggressive first, until try
// accepts one (then it returns true).
func simpler(v source.Value, try func(source.Value) bool) bool {
	switch v.Kind() {
	case source.Object:
		n := v.Len()
		rebuild := func(skip int, repl *source.Value) source.Value {
			var b source.ObjectBuilder
			for j := 0; j < n; j++ {
				k, val := v.Member(j)
				switch {
				case j == skip && repl == nil:
				case j == skip:
					b.Set(k.Str(), *repl)
				default:
					b.Set(k.Str(), val)
				}
			}
			return b.Value()
		}
		for i := 0; i < n; i++ { // drop a member
			if try(rebuild(i, nil)) {
				return true
			}
		}
		for i := 0; i < n; i++ { // simplify a member
			_, val := v.Member(i)
			if simpler(val, func(sv source.Value) bool { return try(rebuild(i, &sv)) }) {
				return true
			}
		}
	case source.Array:
		items := v.Items()
		for i := len(items) - 1; i >= 0; i-- { // drop an item (from the end first)
			if try(source.ArrayValue(append(append([]source.Value(nil), items[:i]...), items[i+1:]...)...)) {
				return true
			}
		}
		for i, it := range items {
			if simpler(it, func(sv source.Value) bool {
				c := append([]source.Value(nil), items...)
				c[i] = sv
				return try(source.ArrayValue(c...))
			}) {
				return true
			}
		}
	case source.String:
		if v.Str() != "" {
			if try(source.StringValue("")) {
				return true
			}
			if r := []rune(v.Str()); len(r) > 1 && try(source.StringValue(string(r[:1]))) {
				return true
			}
		}
	case source.Number:
		if v.Str() != "0" {
			return try(source.IntValue(0))
		}
	}
	return false
}

// fillDefaults applies the reader-defaults policy: a required property missing from an
// object gets the default its schema declares, recursively.
func (e *engine) fillDefaults(c *conj, x source.Value, depth int) source.Value {
	if depth > 32 {
		return x
	}
	switch x.Kind() {
	case source.Object:
		var b source.ObjectBuilder
		for i := 0; i < x.Len(); i++ {
			k, v := x.Member(i)
			vc, forbidden := e.valueConj(c, k.Str())
			if !forbidden {
				v = e.fillDefaults(vc, v, depth+1)
			}
			b.Set(k.Str(), v)
		}
		m := e.merged(c)
		var req []string
		for k := range m.required {
			req = append(req, k)
		}
		sort.Strings(req)
		for _, k := range req {
			if x.Has(k) {
				continue
			}
			for _, n := range e.parts(c) {
				if d, ok := e.defaultsOf(n.body)[k]; ok {
					b.Set(k, d)
					break
				}
			}
		}
		return b.Value()
	case source.Array:
		items := x.Items()
		out := make([]source.Value, len(items))
		for i, v := range items {
			out[i] = e.fillDefaults(e.conjOf(e.itemSchemas(c, i), nil), v, depth+1)
		}
		return source.ArrayValue(out...)
	}
	return x
}

// prepare makes, before the first attribution in a direction, what the attributions
// read of each change: what its fact is compared with and whether the rule engine proved
// the direction. Nothing writes to them after, so examples can be attributed on two
// goroutines at once; the changes the search adds (orphans) have no fact to match.
func (s *searcher) prepare(dir int) {
	if s.attr.prepared[dir-1] {
		return
	}
	s.attr.prepared[dir-1] = true
	for _, ch := range s.attr.changes {
		f, p := ch.nf, ch.bw
		if dir == dirForward {
			f, p = ch.of, ch.fw
		}
		ch.ruled[dir-1] = p == pProved
		if ch.level != "validation" || f == nil {
			continue
		}
		matchScore(f, &ch.match[dir-1], nil)
		if ch.it != nil {
			ch.memberTokens(dir, f)
		}
	}
}

// attributor attributes examples to changes. The search's own sees the changes as they
// grow; a shrinkJob has one that sees those known when it was made.
type attributor struct {
	changes  []*change
	splits   map[string][]string // split instance locations, within one best
	prepared [2]bool             // by direction (the search's own)
}

// best returns the change whose keyword the failing side reports for the example x, or
// nil. A change whose direction the rule engine proved only qualifies when the failure is
// at its own keyword on a matching instance path and x gets to the change's location on
// the side it is valid on (reached): that is a refuted claim (a bug, counted and shown).
func (a *attributor) best(dir int, errs []schema.Error, at *item, x source.Value) *change {
	var best *change
	bestScore := 0
	if a.splits == nil {
		a.splits = map[string][]string{}
	}
	clear(a.splits)
	for _, ch := range a.changes {
		if ch.level != "validation" {
			continue
		}
		f, proved := ch.nf, ch.ruled[dir-1]
		if dir == dirForward {
			f = ch.of
		}
		if f == nil {
			// a location one side of which holds nothing: any failure at or below it
			if ch.whole && !proved && ch.it != nil && a.errorBelow(a.split(ch.it.ipath), errs) {
				if score := 2*len(ch.it.ipath) + 1; score > bestScore {
					best, bestScore = ch, score
				}
			}
			continue
		}
		score, strong, inst := matchScore(f, &ch.match[dir-1], errs)
		// whether the error is on the change's instance path matters only for a match
		pathOK := score != 0 && ch.it != nil && a.pathMatches(ch.it.ipath, inst)
		switch {
		case score == 0:
		case proved && (!(strong && pathOK) || regionDependent(f.kind) || !a.reached(ch, dir, x, inst)):
			score = 0
		case strong && pathOK:
			score *= 4
		case strong:
			score *= 2
		}
		// a member's schema (reached through $ref, the validator reports the target's
		// location): an error at or below that member of the instance
		if score == 0 && !proved && ch.it != nil {
			if m := ch.memberTokens(dir, f); m.ok && a.errorBelow(m.toks, errs) {
				score = 2 * m.n
			}
		}
		if score == 0 {
			continue
		}
		if ch.it == at {
			score++
		}
		if score > bestScore {
			best, bestScore = ch, score
		}
	}
	return best
}

// assign records an example on a change.
func (s *searcher) assign(ch *change, x source.Value, dir int) {
	p := &ch.bw
	if dir == dirForward {
		p = &ch.fw
	}
	if *p == pProved {
		ch.contra = true
		s.e.contradictions++
	}
	*p = pBroken
	if !ch.example.IsValid() {
		ch.example, ch.exampleDir = x, dir
	}
}

// matchScore rates how well a fact explains validation errors: an error at or inside the
// fact's keyword is strong and scores by the keyword's length; an error at an applicator
// that contains the fact is weak. inst is the instance location of the best error. *m
// keeps what the errors are compared with, made on first use: it is the change's, not the
// fact's, since facts are shared with the proof's goroutine.
func matchScore(f *fact, m **factMatch, errs []schema.Error) (score int, strong bool, inst string) {
	if *m == nil {
		fm := &factMatch{loc: f.location()}
		if f.kind == fRequired {
			fm.ploc = strings.TrimSuffix(fm.loc, "/"+lastToken(fm.loc))
			fm.quoted = strconv.Quote(f.str)
		}
		*m = fm
	}
	return matchErrors(f, *m, errs, 0, false, "")
}

// matchErrors is matchScore over errs and their causes, from the best match so far.
func matchErrors(f *fact, m *factMatch, errs []schema.Error, score int, strong bool, inst string) (int, bool, string) {
	loc := m.loc
	for i := range errs {
		er := &errs[i]
		el := er.AbsoluteKeywordLocation
		sc, st := 0, false
		switch {
		case f.kind == fRequired:
			if el == m.ploc && strings.Contains(er.Message, m.quoted) {
				sc, st = len(loc), true
			}
		case el == loc || underPointer(el, loc):
			sc, st = len(loc), true
		case underPointer(loc, el):
			sc = len(el)
		}
		if sc > score || (sc == score && st && !strong) {
			score, strong, inst = sc, st, er.InstanceLocation
		}
		if len(er.Causes) > 0 {
			score, strong, inst = matchErrors(f, m, er.Causes, score, strong, inst)
		}
	}
	return score, strong, inst
}

// underPointer reports whether location p is below location q (q + "/" is its prefix).
func underPointer(p, q string) bool {
	return len(p) > len(q) && p[len(q)] == '/' && strings.HasPrefix(p, q)
}

// pathMatches tells whether an instance location is one the pattern of a change's
// location describes ("*" and "<...>" stand for any token). Errors at a member of the
// location (a missing or extra property) also match.
func (a *attributor) pathMatches(pattern, inst string) bool {
	p, q := a.split(pattern), a.split(inst)
	if len(q) < len(p) || len(q) > len(p)+1 {
		return false
	}
	for i, tok := range p {
		if tok == "*" || strings.HasPrefix(tok, "<") || tok == q[i] {
			continue
		}
		return false
	}
	return true
}

// reached reports whether x, an example for dir, gets to ch's location on the side it is
// valid on: whether the part of x there (at the failing instance location inst, cut to the
// location's depth) is valid under that side's schemas with their context, the
// conjunction the change's claim was proved for. An example can fail at a proved change's
// keyword without getting there on the other side: a condition that changed (an if, a
// branch's context) sends it there under one side only. When the part cannot be told, it
// counts as reached.
func (a *attributor) reached(ch *change, dir int, x source.Value, inst string) bool {
	c := ch.it.fo
	if dir == dirForward {
		c = ch.it.fn
	}
	if c == nil || !x.IsValid() {
		return true
	}
	p, q := a.split(ch.it.ipath), a.split(inst)
	v := x
	for i, tok := range p {
		if i >= len(q) {
			return true
		}
		if tok == "<name>" { // a property name: the part is the name itself
			if i != len(p)-1 {
				return true
			}
			v = source.StringValue(q[i])
			break
		}
		next, ok := v.At(q[i])
		if !ok {
			return true
		}
		v = next
	}
	for _, r := range c.roots {
		if ok, err := r.Valid(v); err == nil && !ok {
			return false
		}
	}
	return true
}

func lastToken(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// orphan records an example no change explains: a difference the rule engine did not
// describe. It points at the keyword that failed.
func (s *searcher) orphan(dir int, errs []schema.Error, at *item) *change {
	if at == nil && len(s.items) > 0 {
		at = s.items[0]
	}
	who, other := "OLD", "NEW"
	if dir == dirForward {
		who, other = "NEW", "OLD"
	}
	msg := "an instance valid under " + who + " is rejected by " + other
	var failLoc, failInst string
	var failPos Location
	if leaf := deepest(errs); leaf != nil {
		loc := leaf.InstanceLocation
		if loc == "" {
			loc = "(root)"
		}
		msg += " at " + loc + ": " + leaf.Message
		failLoc, failInst = leaf.AbsoluteKeywordLocation, leaf.InstanceLocation
		file, line, col := leaf.SchemaPosition()
		failPos = Location{File: file, Line: line, Column: col}
	}
	// Another example failing at the same keyword and instance location, in the same
	// direction (an orphan's example direction, set when it is made), is the same difference
	// (the messages differ only by the value), whichever location the search was at: the
	// report names it once, with its first example. Over the compat cases' reports this
	// made 76 such changes 14; over all the corpus reports, 2,954 made 426.
	for _, ch := range s.attr.changes {
		if ch.kind == "semantic-difference" && ch.exampleDir == dir && ch.failLoc == failLoc && ch.failInst == failInst {
			return ch
		}
	}
	ch := &change{kind: "semantic-difference", level: "validation", it: at, bw: pUnknown, fw: pUnknown,
		on: s.e.node(s.old), nn: s.e.node(s.new), msg: msg, failLoc: failLoc, failPos: failPos, failInst: failInst}
	if at != nil {
		ch.on, ch.nn = s.e.node(at.so), s.e.node(at.sn)
	}
	s.attr.changes = append(s.attr.changes, ch)
	if at != nil {
		at.changes = append(at.changes, ch)
	}
	return ch
}

// deepest returns the innermost error, the most specific explanation.
func deepest(errs []schema.Error) *schema.Error {
	var best *schema.Error
	bestDepth := -1
	var visit func(es []schema.Error)
	visit = func(es []schema.Error) {
		for i := range es {
			d := strings.Count(es[i].KeywordLocation, "/")
			if len(es[i].Causes) == 0 && d > bestDepth {
				best, bestDepth = &es[i], d
			}
			visit(es[i].Causes)
		}
	}
	visit(errs)
	return best
}

// memberTokens returns memberPattern for the change's fact in direction dir, split once.
func (ch *change) memberTokens(dir int, f *fact) *memberToks {
	m := &ch.members[dir-1]
	if !m.done {
		m.done = true
		var pat string
		if pat, m.ok = memberPattern(ch.it.ipath, f); m.ok {
			m.toks, _ = source.SplitPointer(pat)
			m.n = len(pat)
		}
	}
	return m
}

// memberPattern returns the instance location pattern of the member a fact constrains.
func memberPattern(ipath string, f *fact) (string, bool) {
	switch f.kind {
	case fProp:
		return ipath + "/" + source.EscapeToken(f.str), true
	case fItem:
		return ipath + "/" + strconv.Itoa(f.i), true
	case fPatternProp:
		return ipath + "/<" + f.str + ">", true
	case fAdditional, fTail, fUnevalProps, fUnevalItems:
		return ipath + "/*", true
	}
	return "", false
}

// split returns the tokens of a pointer (nil when it is not one), splitting each
// distinct pointer once per best.
func (a *attributor) split(ptr string) []string {
	if toks, ok := a.splits[ptr]; ok {
		return toks
	}
	toks, _ := source.SplitPointer(ptr)
	a.splits[ptr] = toks
	return toks
}

// errorBelow tells whether an error (or a cause) is at or below an instance location
// pattern (its tokens p).
func (a *attributor) errorBelow(p []string, errs []schema.Error) bool {
	for i := range errs {
		er := &errs[i]
		q := a.split(er.InstanceLocation)
		if len(q) >= len(p) {
			ok := true
			for j, tok := range p {
				if tok != "*" && !strings.HasPrefix(tok, "<") && tok != q[j] {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		if a.errorBelow(p, er.Causes) {
			return true
		}
	}
	return false
}

// regionDependent tells whether which members or items a keyword applies to depends on its
// siblings (properties, patternProperties, prefix items, annotations): a failure there may
// come from a change of a sibling, not of the keyword.
func regionDependent(k factKind) bool {
	switch k {
	case fAdditional, fUnevalProps, fTail, fUnevalItems, fPatternProp:
		return true
	}
	return false
}
