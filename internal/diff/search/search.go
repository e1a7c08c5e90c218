package search

import (
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
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
	DirBackward = 1
	DirForward  = 2
)

type Searcher struct {
	E        *Engine
	Old, New *schema.Schema
	Items    []*align.Item
	dirState               // of the direction being searched
	Attr     Attributor    // attributes the examples the search finds; it has the changes
	Settled  func(dir int) // called when a direction's first example is found
	Beside   bool          // examples are made smaller on a goroutine of their own
	Shrinks  *Shrinker     // the examples being made smaller, until drained
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
func (s *Searcher) expired() bool {
	return time.Now().After(s.deadline) || s.E.Ctx.Err() != nil
}

func (s *Searcher) stop() bool {
	s.ticks++
	if s.ticks%8 == 0 {
		s.count++ // generating and judging values at a location costs like candidates
	}
	if s.count >= s.limit || s.expired() || s.E.OverParts() {
		s.E.SearchTimedOut = true
		return true
	}
	return s.until > 0 && s.count >= s.until
}

// start begins the search of one direction, with its own budget.
func (s *Searcher) Start(dir int) {
	e := s.E
	s.tried = map[string]bool{}
	s.deadline = time.Now().Add(e.Opts.SearchBudget)
	s.count, s.limit, s.ticks, s.found = 0, e.Opts.SearchCandidates, 0, false
	s.gen = e.newGen(e.Opts.Seed+uint64(dir), s.stop)
}

// pausedSearch is a direction's search set aside: its state, and the time left of its
// budget.
type PausedSearch struct {
	dirState
	left time.Duration
}

// pause sets the current direction's search aside; the time until resume does not count
// against its budget.
func (s *Searcher) Pause() PausedSearch { return PausedSearch{s.dirState, time.Until(s.deadline)} }

// resume takes up a direction's search where pause left it.
func (s *Searcher) Resume(p PausedSearch) {
	s.dirState = p.dirState
	s.deadline = time.Now().Add(p.left)
}

// finish ends the search of one direction.
func (s *Searcher) Finish() {
	s.E.SearchCandidates += s.count
}

// targeted searches at the locations with a change not proved harmless in this direction
// and returns the first example found (the zero Value if none). A first pass tries a few
// values at every location, a second pass many, each location with a share of the budget.
func (s *Searcher) Targeted(dir int) source.Value {
	e, g := s.E, s.gen
	var first source.Value
	var firstJob *ShrinkJob // first, made smaller beside the search
	var todo []*align.Item
	for _, it := range s.Items {
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
			fo, fn := e.Full(it)
			src, hint := fo, fn
			if dir == DirForward {
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
				for _, x := range s.embed(g, it.Path, dir, v) {
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
							if s.Settled != nil {
								s.Settled(dir)
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
	s.Drain()
	if firstJob != nil {
		first = firstJob.Out
	}
	if first.IsValid() {
		s.Finish()
	}
	return first
}

// unmatched returns values of src made from vals that the other side's groups at the
// location reject as a whole: where the other side still accepts a value through another
// branch of an anyOf or oneOf (the branch changed, its siblings did not), members are
// changed until no branch does (gen.unmatch). For a branch of a group, the other side's
// location is its context, the group with every branch.
func (s *Searcher) unmatched(it *align.Item, dir int, src, hint *algebra.Conj, vals []source.Value) []source.Value {
	target := hint
	if it.Branch {
		ctx := it.CtxN
		if dir == DirForward {
			ctx = it.CtxO
		}
		target = s.E.ConjOf(ctx, nil)
	}
	if s.E.Merged(target).NGroups == 0 {
		return nil
	}
	var out []source.Value
	for i, v := range vals {
		if i >= 6 || s.stop() {
			break
		}
		if ok, _ := s.E.Valid(target, v); !ok {
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
func (s *Searcher) siblingValues(it *align.Item, dir int, hint *algebra.Conj, wide bool) []source.Value {
	if !it.Branch || s.found {
		return nil // once the direction has an example, the candidates left go to the changes' own values
	}
	ctx := it.CtxO
	if dir == DirForward {
		ctx = it.CtxN
	}
	if len(ctx) == 0 {
		return nil
	}
	return s.gen.values(s.E.ConjOf(ctx, nil), hint, 0, wide)
}

// elseValues returns values of src made from vals that fail the condition of an
// if/then/else whose else src holds: at a location reached through else (the walk gives
// it the group's context, not the negated condition), a value the condition accepts is
// judged by then, and the change in else is never reached. A member of each such value
// is changed until the condition rejects it (gen.breakBranch).
func (s *Searcher) elseValues(src *algebra.Conj, vals []source.Value) []source.Value {
	e := s.E
	var ifs []*schema.Schema
	for f := range e.Merged(src).Groups {
		if f.Kind == algebra.FCond && f.Subs[0] != nil && f.Subs[2] != nil && slices.Contains(src.Roots, f.Subs[2]) {
			ifs = append(ifs, f.Subs[0])
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
			if ok, err := cond.ValidContext(e.Ctx, w); err != nil || !ok {
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
func (s *Searcher) unmatchWhole(x source.Value, dir int) (source.Value, bool) {
	e := s.E
	src, other := e.One(s.Old), e.One(s.New)
	if dir == DirForward {
		src, other = other, src
	}
	if e.Merged(other).NGroups == 0 {
		return source.Value{}, false
	}
	if ok, _ := e.Valid(src, x); !ok {
		return source.Value{}, false
	}
	if ok, _ := e.Valid(other, x); !ok {
		return source.Value{}, false
	}
	return s.gen.unmatch(x, src, other)
}

// generic searches from the whole schemas. When the direction is proved, it is a short
// backstop (an example would reveal a bug in a rule, and would win).
func (s *Searcher) Generic(dir int, proved bool) source.Value {
	e := s.E
	src, hint := e.One(s.Old), e.One(s.New)
	if dir == DirForward {
		src, hint = hint, src
	}
	if proved {
		s.limit = min(s.limit, s.count+200)
	}
	var root *align.Item
	if len(s.Items) > 0 {
		root = s.Items[0]
	}
	for _, x := range s.gen.values(src, hint, 0, true) {
		if s.stop() {
			break
		}
		if ex, job, ok := s.check(x, dir, root); ok {
			s.Drain()
			if job != nil {
				ex = job.Out
			}
			return ex
		}
	}
	return source.Value{}
}

// needsAny reports whether some item needs the search in a direction.
func (s *Searcher) NeedsAny(dir int) bool {
	for _, it := range s.Items {
		if s.needs(it, dir) {
			return true
		}
	}
	return false
}

// needs reports whether an item has a change whose direction is neither proved nor shown.
func (s *Searcher) needs(it *align.Item, dir int) bool {
	for _, ch := range it.Changes {
		if ch.Level != "validation" {
			continue
		}
		p := ch.Bw
		if dir == DirForward {
			p = ch.Fw
		}
		if p == align.PUnknown {
			return true
		}
	}
	return false
}

// embed wraps a value into whole instances along a path of steps.
func (s *Searcher) embed(g *gen, path *align.PathStep, dir int, v source.Value) []source.Value {
	cur := []source.Value{v}
	for p := path; p != nil; p = p.Up {
		st, i := &p.Step, p.Depth
		src, hint := st.O, st.N
		if dir == DirForward {
			src, hint = st.N, st.O
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
func (s *Searcher) inParent(p *align.PathStep, dir int, src *algebra.Conj) *algebra.Conj {
	up := p.Up
	if up == nil || up.Kind != align.StProp || src == nil {
		return src
	}
	outer := up.O
	if dir == DirForward {
		outer = up.N
	}
	if outer == nil {
		return src
	}
	more, forbidden := s.E.ValueSchemas(outer, up.Key)
	if forbidden || len(more) == 0 {
		return src
	}
	return s.E.With(src, more)
}

// check judges one candidate; on success it attributes the example and returns it. An
// example explained by a change is made smaller by the returned job, beside the search
// when it may be (the search goes on as it would after the shrink: which change the
// example is attributed to is known, and so is what the search does next); the job's
// result is the example once the search drains its shrinks.
func (s *Searcher) check(x source.Value, dir int, at *align.Item) (source.Value, *ShrinkJob, bool) {
	k := string(source.AppendJSON(nil, x))
	if s.tried[k] {
		return source.Value{}, nil, false
	}
	s.tried[k] = true
	s.count++
	src, other := s.Old, s.New
	if dir == DirForward {
		src, other = s.New, s.Old
	}
	ok, err := src.ValidContext(s.E.Ctx, x)
	if err != nil || !ok {
		return source.Value{}, nil, false
	}
	read := x
	if s.E.Opts.RequiredWithDefault {
		read = s.E.fillDefaults(s.E.One(other), x, 0)
	}
	ok, err = other.ValidContext(s.E.Ctx, read)
	if err != nil || ok {
		return source.Value{}, nil, false
	}
	errs := s.failures(other, read)
	s.prepare(dir)
	ch := s.Attr.best(dir, errs, at, x)
	if ch != nil && ch.Example.IsValid() && s.found {
		s.assign(ch, x, dir) // only the first example of a change is shown: no need to shrink
		return x, nil, true
	}
	s.found = true
	if ch != nil {
		job := &ShrinkJob{S: s, X: x, Ch: ch, Dir: dir, at: at, Shows: !ch.Example.IsValid(), deadline: s.deadline,
			attr: Attributor{Changes: s.Attr.Changes[:len(s.Attr.Changes):len(s.Attr.Changes)]}}
		s.assign(ch, x, dir)
		s.ShrinkBeside(job)
		return x, job, true
	}
	x = s.shrink(x, s.separates(dir, nil, nil, at), s.expired)
	read = x
	if s.E.Opts.RequiredWithDefault {
		read = s.E.fillDefaults(s.E.One(other), x, 0)
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
func (s *Searcher) failures(sch *schema.Schema, v source.Value) []schema.Error {
	errs, _, err := sch.ValidateLimitContext(s.E.Ctx, v, maxFailures)
	if err != nil {
		return nil
	}
	return errs
}

// separates returns the test an example keeps passing while it is made smaller: valid on
// the source side of dir, invalid on the other and, when ch is set, failing where ch is
// (attributed by a).
func (s *Searcher) separates(dir int, ch *align.Change, a *Attributor, at *align.Item) func(source.Value) bool {
	src, other := s.Old, s.New
	if dir == DirForward {
		src, other = s.New, s.Old
	}
	return func(y source.Value) bool {
		if ok, err := src.ValidContext(s.E.Ctx, y); err != nil || !ok {
			return false
		}
		r := y
		if s.E.Opts.RequiredWithDefault {
			r = s.E.fillDefaults(s.E.One(other), y, 0)
		}
		if ok, err := other.ValidContext(s.E.Ctx, r); err != nil || ok {
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
type ShrinkJob struct {
	S        *Searcher
	X        source.Value // the example
	Out      source.Value // the smaller example, once run
	Ch       *align.Change
	Dir      int
	at       *align.Item
	Shows    bool // the example is the one ch shows
	attr     Attributor
	deadline time.Time // the direction's (none when zero)
}

func (j *ShrinkJob) run() {
	j.Out = j.S.shrink(j.X, j.S.separates(j.Dir, j.Ch, &j.attr, j.at), j.expired)
}

// expired reports whether the job should stop: the comparison is cancelled, or the
// direction's time is up (a validation of a large example can take long, and a search
// makes up to one job per change).
func (j *ShrinkJob) expired() bool {
	return j.S.E.Ctx.Err() != nil || !j.deadline.IsZero() && time.Now().After(j.deadline)
}

// shrinker makes examples smaller on a goroutine of its own, in the order they come.
type Shrinker struct {
	Jobs  chan *ShrinkJob
	Done  []*ShrinkJob // in the order they came
	End   chan struct{}
	catch panics.Catcher
}

// shrinkBeside makes the example of job smaller: on the shrinker's goroutine when the
// search has a core beside it (and the reader-defaults policy, which reads with the
// comparison's engine, is off), at once otherwise.
func (s *Searcher) ShrinkBeside(job *ShrinkJob) {
	if !s.Beside || s.E.Opts.RequiredWithDefault {
		job.run()
		s.settle(job)
		return
	}
	if s.Shrinks == nil {
		sh := &Shrinker{Jobs: make(chan *ShrinkJob, 64), End: make(chan struct{})}
		s.Shrinks = sh
		go func() {
			defer close(sh.End)
			sh.catch.Do(func() {
				for j := range sh.Jobs {
					j.run() // once the comparison is cancelled, the example as found
				}
			})
		}()
	}
	s.Shrinks.Done = append(s.Shrinks.Done, job)
	s.Shrinks.Jobs <- job
}

// drain waits for the examples being made smaller and shows them. Meanwhile it runs the
// jobs still queued itself (a job gives the same example on either goroutine): the search
// waited for the shrinker about 3 ms per comparison of the largest pair.
func (s *Searcher) Drain() {
	if sh := s.Shrinks; sh != nil {
		sh.help()
	}
	if sh := s.StopShrinks(); sh != nil {
		sh.catch.Repanic()
		for _, j := range sh.Done {
			s.settle(j)
		}
	}
}

// help runs the queued jobs on the calling goroutine until none is left or one panics
// (the panic is kept for Repanic, as the shrinker's own).
func (sh *Shrinker) help() {
	for {
		select {
		case j := <-sh.Jobs:
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
func (s *Searcher) StopShrinks() *Shrinker {
	sh := s.Shrinks
	if sh == nil {
		return nil
	}
	s.Shrinks = nil
	close(sh.Jobs)
	<-sh.End
	return sh
}

// settle shows the smaller example of a done job on its change.
func (s *Searcher) settle(j *ShrinkJob) {
	if j.Shows {
		j.Ch.Example = j.Out
	}
}

// shrinkBudget bounds the validations spent making one example smaller.
const shrinkBudget = 120

// shrink makes an example smaller while it still separates the schemas: members and
// items are dropped, values replaced by simpler ones, greedily, until stop says so.
func (s *Searcher) shrink(x source.Value, keep func(source.Value) bool, stop func() bool) source.Value {
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
func (e *Engine) fillDefaults(c *algebra.Conj, x source.Value, depth int) source.Value {
	if depth > 32 {
		return x
	}
	switch x.Kind() {
	case source.Object:
		var b source.ObjectBuilder
		for i := 0; i < x.Len(); i++ {
			k, v := x.Member(i)
			vc, forbidden := e.ValueConj(c, k.Str())
			if !forbidden {
				v = e.fillDefaults(vc, v, depth+1)
			}
			b.Set(k.Str(), v)
		}
		m := e.Merged(c)
		var req []string
		for k := range m.Required {
			req = append(req, k)
		}
		sort.Strings(req)
		for _, k := range req {
			if x.Has(k) {
				continue
			}
			for _, n := range e.Parts(c) {
				if d, ok := e.DefaultsOf(n.Body)[k]; ok {
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
			out[i] = e.fillDefaults(e.ConjOf(e.ItemSchemas(c, i), nil), v, depth+1)
		}
		return source.ArrayValue(out...)
	}
	return x
}

// prepare makes, before the first attribution in a direction, what the attributions
// read of each change: what its fact is compared with and whether the rule engine proved
// the direction. Nothing writes to them after, so examples can be attributed on two
// goroutines at once; the changes the search adds (orphans) have no fact to match.
func (s *Searcher) prepare(dir int) {
	if s.Attr.prepared[dir-1] {
		return
	}
	s.Attr.prepared[dir-1] = true
	for _, ch := range s.Attr.Changes {
		f, p := ch.Nf, ch.Bw
		if dir == DirForward {
			f, p = ch.Of, ch.Fw
		}
		ch.Ruled[dir-1] = p == align.PProved
		if ch.Level != "validation" || f == nil {
			continue
		}
		matchScore(f, &ch.Match[dir-1], nil)
		if ch.It != nil {
			ch.MemberTokens(dir, f)
		}
	}
}

// attributor attributes examples to changes. The search's own sees the changes as they
// grow; a shrinkJob has one that sees those known when it was made.
type Attributor struct {
	Changes  []*align.Change
	splits   map[string][]string // split instance locations, within one best
	prepared [2]bool             // by direction (the search's own)
}

// best returns the change whose keyword the failing side reports for the example x, or
// nil. A change whose direction the rule engine proved only qualifies when the failure is
// at its own keyword on a matching instance path and x gets to the change's location on
// the side it is valid on (reached): that is a refuted claim (a bug, counted and shown).
func (a *Attributor) best(dir int, errs []schema.Error, at *align.Item, x source.Value) *align.Change {
	var best *align.Change
	bestScore := 0
	if a.splits == nil {
		a.splits = map[string][]string{}
	}
	clear(a.splits)
	for _, ch := range a.Changes {
		if ch.Level != "validation" {
			continue
		}
		f, proved := ch.Nf, ch.Ruled[dir-1]
		if dir == DirForward {
			f = ch.Of
		}
		if f == nil {
			// a location one side of which holds nothing: any failure at or below it
			if ch.Whole && !proved && ch.It != nil && a.errorBelow(a.split(ch.It.Ipath), errs) {
				if score := 2*len(ch.It.Ipath) + 1; score > bestScore {
					best, bestScore = ch, score
				}
			}
			continue
		}
		score, strong, inst := matchScore(f, &ch.Match[dir-1], errs)
		// whether the error is on the change's instance path matters only for a match
		pathOK := score != 0 && ch.It != nil && a.pathMatches(ch.It.Ipath, inst)
		switch {
		case score == 0:
		case proved && (!(strong && pathOK) || regionDependent(f.Kind) || !a.reached(ch, dir, x, inst)):
			score = 0
		case strong && pathOK:
			score *= 4
		case strong:
			score *= 2
		}
		// a member's schema (reached through $ref, the validator reports the target's
		// location): an error at or below that member of the instance
		if score == 0 && !proved && ch.It != nil {
			if m := ch.MemberTokens(dir, f); m.Ok && a.errorBelow(m.Toks, errs) {
				score = 2 * m.N
			}
		}
		if score == 0 {
			continue
		}
		if ch.It == at {
			score++
		}
		if score > bestScore {
			best, bestScore = ch, score
		}
	}
	return best
}

// assign records an example on a change.
func (s *Searcher) assign(ch *align.Change, x source.Value, dir int) {
	p := &ch.Bw
	if dir == DirForward {
		p = &ch.Fw
	}
	if *p == align.PProved {
		ch.Contra = true
		s.E.Contradictions++
	}
	*p = align.PBroken
	if !ch.Example.IsValid() {
		ch.Example, ch.ExampleDir = x, dir
	}
}

// matchScore rates how well a fact explains validation errors: an error at or inside the
// fact's keyword is strong and scores by the keyword's length; an error at an applicator
// that contains the fact is weak. inst is the instance location of the best error. *m
// keeps what the errors are compared with, made on first use: it is the change's, not the
// fact's, since facts are shared with the proof's goroutine.
func matchScore(f *algebra.Fact, m **algebra.FactMatch, errs []schema.Error) (score int, strong bool, inst string) {
	if *m == nil {
		fm := &algebra.FactMatch{Loc: f.Location()}
		if f.Kind == algebra.FRequired {
			fm.Ploc = strings.TrimSuffix(fm.Loc, "/"+lastToken(fm.Loc))
			fm.Quoted = strconv.Quote(f.Str)
		}
		*m = fm
	}
	return matchErrors(f, *m, errs, 0, false, "")
}

// matchErrors is matchScore over errs and their causes, from the best match so far.
func matchErrors(f *algebra.Fact, m *algebra.FactMatch, errs []schema.Error, score int, strong bool, inst string) (int, bool, string) {
	loc := m.Loc
	for i := range errs {
		er := &errs[i]
		el := er.AbsoluteKeywordLocation
		sc, st := 0, false
		switch {
		case f.Kind == algebra.FRequired:
			if el == m.Ploc && strings.Contains(er.Message, m.Quoted) {
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
func (a *Attributor) pathMatches(pattern, inst string) bool {
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
func (a *Attributor) reached(ch *align.Change, dir int, x source.Value, inst string) bool {
	c := ch.It.Fo
	if dir == DirForward {
		c = ch.It.Fn
	}
	if c == nil || !x.IsValid() {
		return true
	}
	p, q := a.split(ch.It.Ipath), a.split(inst)
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
	for _, r := range c.Roots {
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
func (s *Searcher) orphan(dir int, errs []schema.Error, at *align.Item) *align.Change {
	if at == nil && len(s.Items) > 0 {
		at = s.Items[0]
	}
	who, other := "OLD", "NEW"
	if dir == DirForward {
		who, other = "NEW", "OLD"
	}
	msg := "an instance valid under " + who + " is rejected by " + other
	var failLoc, failInst string
	var failPos align.Location
	if leaf := deepest(errs); leaf != nil {
		loc := leaf.InstanceLocation
		if loc == "" {
			loc = "(root)"
		}
		msg += " at " + loc + ": " + leaf.Message
		failLoc, failInst = leaf.AbsoluteKeywordLocation, leaf.InstanceLocation
		file, line, col := leaf.SchemaPosition()
		failPos = align.Location{File: file, Line: line, Column: col}
	}
	// Another example failing at the same keyword and instance location, in the same
	// direction (an orphan's example direction, set when it is made), is the same difference
	// (the messages differ only by the value), whichever location the search was at: the
	// report names it once, with its first example. Over the compat cases' reports this
	// made 76 such changes 14; over all the corpus reports, 2,954 made 426.
	for _, ch := range s.Attr.Changes {
		if ch.Kind == "semantic-difference" && ch.ExampleDir == dir && ch.FailLoc == failLoc && ch.FailInst == failInst {
			return ch
		}
	}
	ch := &align.Change{Kind: "semantic-difference", Level: "validation", It: at, Bw: align.PUnknown, Fw: align.PUnknown,
		On: s.E.Node(s.Old), Nn: s.E.Node(s.New), Msg: msg, FailLoc: failLoc, FailPos: failPos, FailInst: failInst}
	if at != nil {
		ch.On, ch.Nn = s.E.Node(at.So), s.E.Node(at.Sn)
	}
	s.Attr.Changes = append(s.Attr.Changes, ch)
	if at != nil {
		at.Changes = append(at.Changes, ch)
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

// split returns the tokens of a pointer (nil when it is not one), splitting each
// distinct pointer once per best.
func (a *Attributor) split(ptr string) []string {
	if toks, ok := a.splits[ptr]; ok {
		return toks
	}
	toks, _ := source.SplitPointer(ptr)
	a.splits[ptr] = toks
	return toks
}

// errorBelow tells whether an error (or a cause) is at or below an instance location
// pattern (its tokens p).
func (a *Attributor) errorBelow(p []string, errs []schema.Error) bool {
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
func regionDependent(k algebra.FactKind) bool {
	switch k {
	case algebra.FAdditional, algebra.FUnevalProps, algebra.FTail, algebra.FUnevalItems, algebra.FPatternProp:
		return true
	}
	return false
}
