package prove

import (
	"math"
	"slices"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The prover answers "is every instance of A an instance of B?" (sub) and "can no instance
// be in both?" (disjoint) with a yes that is a proof, or a no that only means "not proved".
// Rules only ever conclude yes from sufficient conditions. For recursive schemas a pair
// under examination counts as proved when it is met again after descending into a member
// or an item (a greatest fixpoint, sound because instances are finite); results that rest
// on such an assumption are not cached until the assumption itself is proved.

// maxProofDepth bounds the nesting of the prover's questions (each takes about 2 KB of
// the goroutine's stack through sub, subCore, proveFacts, implies, ...): schemas nested or
// chained by references deeper than that are compared down to it, and the rest is
// unknown. Real schemas nest a few dozen levels.
const maxProofDepth = 10_000

// maxTriggeredDepth bounds the dependent schemas triggeredImplies follows inside each
// other.
const maxTriggeredDepth = 32

// MaxSplits bounds the alternatives one proof may split a conjunction into (over all its
// anyOf, oneOf and if groups together): a oneOf of 16 branches inside one of two, one of
// whose branches has a oneOf of 3 (function.json's bindings) takes 96.
const MaxSplits = 96

func (e *Engine) spend() bool {
	e.Steps++
	e.ProofSteps++
	if e.Steps&1023 == 0 && (e.Ctx.Err() != nil || e.OverParts()) {
		e.Steps = e.StepBudget + 1
	}
	return e.Steps <= e.StepBudget
}

// cacheable tells whether a result may be remembered: a proof that rests on no pair still
// under examination, or a failure that is not due to the step budget running out.
func (e *Engine) cacheable(r bool, idx int) bool {
	if r {
		return e.MinAssume >= idx
	}
	return e.Steps <= e.StepBudget
}

func memoKey(a, b *algebra.Conj, dom schema.TypeSet) algebra.ProofKey {
	return algebra.ProofKey{A: a.Kid, B: b.Kid, Dom: dom}
}

// Sub reports a proof that every instance of a whose class is in dom is an instance of b.
func (e *Engine) Sub(a, b *algebra.Conj, dom schema.TypeSet, depth int) bool {
	if a == b || len(b.Shells) == 0 {
		return true
	}
	return e.prove(e.SubMemo, e.SubProg, memoKey(a, b, dom), depth, func() bool { return e.subCore(a, b, dom, depth) })
}

// prove answers a question of the prover (key) with core, memoised in memo. A question met
// again while it is being answered (in prog) is assumed true when an instance level was
// crossed since (a greatest fixpoint over recursive schemas), and an answer that rests on
// an assumption still open is not memoised (see cacheable).
func (e *Engine) prove(memo map[algebra.ProofKey]bool, prog map[algebra.ProofKey]algebra.Progress, key algebra.ProofKey, depth int, core func() bool) bool {
	if r, ok := memo[key]; ok {
		return r
	}
	if p, ok := prog[key]; ok {
		if depth > p.Depth {
			e.MinAssume = min(e.MinAssume, p.Idx)
			return true
		}
		return false
	}
	if !e.spend() {
		return false
	}
	if e.Stack >= maxProofDepth {
		// As deep as proofs go: the budget counts as spent, and what is not proved yet
		// stays unknown.
		e.Steps = e.StepBudget + 1
		return false
	}
	idx := e.Stack
	if idx == 0 && !e.InHere {
		e.BranchesLeft = maxProofBranches // a question from outside the prover
	}
	e.Stack++
	prog[key] = algebra.Progress{Idx: idx, Depth: depth}
	saved := e.MinAssume
	e.MinAssume = math.MaxInt
	r := core()
	delete(prog, key)
	e.Stack--
	if e.cacheable(r, idx) {
		memo[key] = r
	}
	if e.MinAssume < idx {
		saved = min(saved, e.MinAssume)
	}
	e.MinAssume = saved
	return r
}

func (e *Engine) subCore(a, b *algebra.Conj, dom schema.TypeSet, depth int) bool {
	if e.SameConj(a, b) {
		return true
	}
	ma := e.Merged(a)
	d := dom & e.Live(a)
	if d == 0 {
		return true
	}
	mb := e.Merged(b)
	if vals, ok := e.FiniteValues(a, ma, d, true); ok {
		for _, v := range vals {
			if good, ok := e.Valid(b, v); !good || !ok {
				return false
			}
		}
		return true
	}
	if mb.Empty {
		// a is empty: proved by the emptiness rules, on a split if need be
		return e.ProveFacts(a, algebra.FactsOf(mb, algebra.FFalse)[:1], d, depth, MaxSplits)
	}
	// Groups of b that a repeats are satisfied as a whole.
	facts := make([]*algebra.Fact, 0, mb.NFacts)
	for f := range mb.Facts {
		if algebra.IsGroup(f.Kind) && e.groupRepeated(a, ma, f, d, depth) {
			continue
		}
		facts = append(facts, f)
	}
	if e.ProveFacts(a, facts, d, depth, MaxSplits) {
		return true
	}
	// what a's double negations affirm holds for a too
	if more := e.newAffirmations(a); len(more) > 0 && e.Sub(e.With(a, more), b, d, depth) {
		return true
	}
	// an empty a is included in anything; so are its classes that are empty, the others
	// proved class by class
	if e.Empty(a, d, depth) {
		return true
	}
	several := 0
	for _, k := range algebra.Kinds {
		if d&k != 0 {
			several++
		}
	}
	if several < 2 {
		return false
	}
	for _, k := range algebra.Kinds {
		if dk := d & k; dk != 0 && !e.Empty(a, dk, depth) && !e.ProveFacts(a, facts, dk, depth, MaxSplits) {
			return false
		}
	}
	return true
}

// ProveFacts proves each fact for a, splitting a on one of its own anyOf, oneOf or if
// groups when that helps.
func (e *Engine) ProveFacts(a *algebra.Conj, facts []*algebra.Fact, dom schema.TypeSet, depth, splits int) bool {
	ma := e.Merged(a)
	d := dom & e.Live(a)
	if d == 0 {
		return true
	}
	var failing []*algebra.Fact
	for _, f := range facts {
		if !e.Implies(a, ma, f, d, depth) {
			failing = append(failing, f)
		}
	}
	if len(failing) == 0 {
		return true
	}
	alts := e.split(a, ma)
	if alts == nil || len(alts) > splits {
		return false
	}
	// the allowance shrinks with every split, by one at least: a chain of groups of one
	// branch nested in each other is as long as the schema makes it
	left := splits / len(alts)
	if len(alts) == 1 {
		left = splits - 1
	}
	for _, alt := range alts {
		if !e.ProveFacts(alt, failing, d, depth, left) {
			return false
		}
	}
	return true
}

func NonNil(ss ...*schema.Schema) []*schema.Schema {
	var out []*schema.Schema
	for _, s := range ss {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// split returns conjunctions whose union covers a, from one of its unchosen groups: an
// anyOf or oneOf first, an if/then/else otherwise.
func (e *Engine) split(a *algebra.Conj, ma *algebra.Merged) []*algebra.Conj {
	groups := make([]*algebra.Fact, 0, ma.NGroups)
	for g := range ma.Groups {
		if g.Kind != algebra.FCond {
			groups = append(groups, g)
		}
	}
	for g := range ma.Groups {
		if g.Kind == algebra.FCond {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		id := e.GroupOf(g)
		switch g.Kind {
		case algebra.FAnyOf, algebra.FOneOf:
			if len(g.Subs) > algebra.MaxSplitBranches {
				continue
			}
			var out []*algebra.Conj
			ids := e.Choice(g)
			for _, br := range g.Subs {
				out = append(out, e.With(a, []*schema.Schema{br}, ids...))
			}
			return out
		case algebra.FCond:
			i, t, el := g.Subs[0], g.Subs[1], g.Subs[2]
			yes := []*schema.Schema{i}
			if t != nil {
				yes = append(yes, t)
			}
			var no []*schema.Schema
			if el != nil {
				no = append(no, el)
			}
			return []*algebra.Conj{e.With(a, yes, id), e.With(a, no, id)}
		}
	}
	return nil
}

// groupRepeated reports whether a has a group equivalent to f (branch by branch).
func (e *Engine) groupRepeated(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if f.Kind == algebra.FCond && ma.NGroups > condScanMax && len(f.Subs) > 0 && f.Subs[0] != nil {
		return e.condRepeated(ma, f)
	}
	for g := range ma.Groups {
		if g.Kind != f.Kind || len(g.Subs) != len(f.Subs) {
			continue
		}
		if g == f {
			return true
		}
		if len(g.Subs) > 0 && g.Subs[0] != nil && f.Subs[0] != nil && e.HashOf(g.Subs[0]) != e.HashOf(f.Subs[0]) && f.Kind == algebra.FCond {
			continue
		}
		if e.sameBranches(g, f) {
			return true
		}
		if len(g.Subs) > 16 || f.Kind == algebra.FCond {
			continue // conditions are compared by the fCond rule of implies
		}
		ok := true
		for i := range g.Subs {
			x, y := g.Subs[i], f.Subs[i]
			if x == nil || y == nil {
				if x != y {
					ok = false
					break
				}
				continue
			}
			if e.Same(x, y) {
				continue
			}
			// context-free equivalence: weaker than within a, but shared by every context
			cx, cy := e.One(x), e.One(y)
			if !e.Sub(cx, cy, d, depth) || !e.Sub(cy, cx, d, depth) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// sameBranches reports whether two groups of as many branches have the same schemas,
// branch by branch.
func (e *Engine) sameBranches(g, f *algebra.Fact) bool {
	for i := range g.Subs {
		if g.Subs[i] != f.Subs[i] && (g.Subs[i] == nil || f.Subs[i] == nil || !e.Same(g.Subs[i], f.Subs[i])) {
			return false
		}
	}
	return true
}

// condScanMax is the most groups of a view that groupRepeated scans for an if group; a
// view with more indexes its if groups by the hash of their if schema (condRepeated): with
// an allOf of n conditions on both sides the scan made each proof of the allOf n^2 hashes
// (10,000 conditions: 12 s).
const condScanMax = 16

// condRepeated is groupRepeated for an if group f (its if schema not nil) and a view with
// many groups: an if group repeats f when its schemas are the same, branch by branch, and
// so only one whose if schema hashes alike can.
func (e *Engine) condRepeated(ma *algebra.Merged, f *algebra.Fact) bool {
	idx := e.CondIdx[ma]
	if idx == nil {
		idx = map[uint64][]*algebra.Fact{}
		for g := range ma.Groups {
			if g.Kind == algebra.FCond && len(g.Subs) > 0 && g.Subs[0] != nil {
				h := e.HashOf(g.Subs[0])
				idx[h] = append(idx[h], g)
			}
		}
		e.CondIdx[ma] = idx
	}
	for _, g := range idx[e.HashOf(f.Subs[0])] {
		if len(g.Subs) == len(f.Subs) && e.sameBranches(g, f) { // f itself among them
			return true
		}
	}
	return false
}

// Implies proves one fact of b for every instance of a within d.
func (e *Engine) Implies(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if k := f.KindOf(); k != schema.TypeAll && d&k == 0 {
		return true
	}
	if !e.spend() {
		return false
	}
	switch f.Kind {
	case algebra.FDynamic, algebra.FLoop, algebra.FUnread: // nothing proves these
		return false
	}
	if (f.S != nil || len(f.Subs) > 0) && e.opaqueSubs(f) {
		// A subschema whose evaluation may never end (a loop): the validator stops with
		// an error wherever it is applied, whatever the rest says (an if whose condition
		// loops, a contains of minContains 0 whose schema loops, stop the whole evaluation).
		return false
	}
	// A finite set of values is judged exactly: each value valid under the schema object
	// that holds the fact satisfies the fact.
	if vals, ok := e.FiniteValues(a, ma, d, true); ok {
		all := true
		for _, v := range vals {
			if good, err := f.N.S.ValidContext(e.Ctx, v); err != nil || !good {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	if h := impliers[f.Kind]; h != nil {
		return h(e, a, ma, f, d, depth)
	}
	return false
}

// triggeredImplies proves the dependent schema f for the objects of a that have its
// trigger, fact by fact: a fact that requires the trigger (or what a requires, or what
// the trigger requires there) holds for them; the others must hold for every object of a.
// A fact of f's schema may be a dependent schema in turn, asked of implies without a
// question to the prover in between: dependent schemas nested in each other (or chained
// by references) are followed maxTriggeredDepth deep, and below that nothing is proved.
func (e *Engine) triggeredImplies(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	m := e.Merged(e.One(f.S))
	if m.Empty || e.Triggered >= maxTriggeredDepth {
		return false
	}
	e.Triggered++
	defer func() { e.Triggered-- }()
	for g := range m.Facts {
		if g.Kind == algebra.FRequired && (g.Str == f.Str || ma.Required[g.Str] || ma.DepReq[f.Str][g.Str]) {
			continue
		}
		if !e.Implies(a, ma, g, d, depth) {
			return false
		}
	}
	return true
}

// anyOfImplied proves the anyOf f for every instance of a within d: one branch holds them
// all, or, class by class (numbers by their finer classes if need be), one branch holds
// those of the class or the branches together cover them (unionCovers); or the branches
// are negations whose conjunction a is disjoint from.
func (e *Engine) anyOfImplied(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for _, br := range f.Subs {
		if e.Sub(a, e.One(br), d, depth) {
			return true
		}
	}
	if xs := e.negatedBranches(f); len(xs) > 0 && e.Disjoint(a, e.ConjOf(xs, nil), d, depth) {
		return true
	}
	if e.complementCovers(a, f, d, depth) {
		return true
	}
	for _, k := range algebra.Kinds {
		dk := d & k
		if dk == 0 || e.anyBranch(a, f, dk, depth) {
			continue
		}
		if k == schema.TypeNumber && e.eachFine(dk, func(x schema.TypeSet) bool { return e.anyBranch(a, f, x, depth) || e.unionCovers(a, ma, f, x) }) {
			continue
		}
		if k != schema.TypeNumber && e.unionCovers(a, ma, f, dk) {
			continue
		}
		return false
	}
	return true
}

// anyBranch proves that one branch of the group f holds every instance of a within d.
func (e *Engine) anyBranch(a *algebra.Conj, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for _, br := range f.Subs {
		if e.Sub(a, e.One(br), d, depth) {
			return true
		}
	}
	return false
}

// oneBranch proves that one branch of the oneOf f holds every instance of a within d and
// the others none.
func (e *Engine) oneBranch(a *algebra.Conj, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for j, br := range f.Subs {
		if !e.Sub(a, e.One(br), d, depth) {
			continue
		}
		ok := true
		for i, other := range f.Subs {
			if i != j && !e.Disjoint(a, e.One(other), d, depth) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// eachFine reports whether ok holds for each of the finer classes of numbers in d.
func (e *Engine) eachFine(d schema.TypeSet, ok func(schema.TypeSet) bool) bool {
	for _, x := range []schema.TypeSet{schema.TypeInteger, schema.TypeDotted, schema.TypeFraction} {
		if d&x != 0 && !ok(x) {
			return false
		}
	}
	return true
}

// patternsBound reports that no string of a length in [lo, hi] (hi < 0: unbounded)
// within ma's lengths matches all of ma's patterns: the patterns bound the length (".+"
// needs one character, "^.{0,5}$" allows five at most).
func (e *Engine) patternsBound(ma *algebra.Merged, lo, hi int) bool {
	if len(ma.Patterns) == 0 {
		return false
	}
	lo = max(lo, ma.MinLen)
	if ma.MaxLen >= 0 && (hi < 0 || ma.MaxLen < hi) {
		hi = ma.MaxLen
	}
	if hi >= 0 && lo > hi {
		return true
	}
	must := e.automata(ma.Patterns)
	if len(must) == 0 {
		return false
	}
	_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: must, MinLen: lo, MaxLen: hi})
	return exhaustive && !found
}

// opaqueSubs reports a subschema of the applicator f whose conjunction is opaque (a part
// on a loop of in-place applicators).
func (e *Engine) opaqueSubs(f *algebra.Fact) bool {
	if f.S != nil && e.ReachesLoop(f.S) {
		return true
	}
	for _, s := range f.Subs {
		if s != nil && e.ReachesLoop(s) {
			return true
		}
	}
	return false
}

// opaque reports a conjunction a part of which reaches a loop of in-place applicators.
func (e *Engine) opaque(c *algebra.Conj) bool {
	for _, n := range e.Parts(c) {
		if e.ReachesLoop(n.S) {
			return true
		}
	}
	return false
}

// ReachesLoop reports whether evaluating s on an instance may apply a schema on a loop
// of in-place applicators to that same instance (schema.ReachesInPlaceLoop: computed
// once, with the loops, by the compiler; walking it here for each comparison read the
// node of every schema reached, a tenth of a large diff's time).
func (e *Engine) ReachesLoop(s *schema.Schema) bool { return s.ReachesInPlaceLoop() }

// defaultFills reports whether the reader-defaults policy covers a required property: the
// property's schema (where the fact is) has a default that is valid under it.
func (e *Engine) defaultFills(f *algebra.Fact) bool {
	if !e.Opts.RequiredWithDefault {
		return false
	}
	v, ok := e.DefaultsOf(f.N)[f.Str]
	if !ok {
		return false
	}
	good, err := f.N.Props[f.Str].ValidContext(e.Ctx, v)
	return err == nil && good
}

func (e *Engine) isTrue(s *schema.Schema) bool {
	return len(e.One(s).Shells) == 0 || e.Merged(e.One(s)).NFacts == 0
}

// tailImplies proves that every item of a at positions from..∞ is valid under s.
func (e *Engine) tailImplies(a *algebra.Conj, ma *algebra.Merged, from int, s *schema.Schema, depth int) bool {
	mx := e.MaxItemsOf(a, ma)
	p := e.PrefixLen(a)
	target := e.One(s)
	for i := from; i < p; i++ {
		if mx >= 0 && i >= mx {
			return true
		}
		if !e.Sub(e.ConjOf(e.ItemSchemas(a, i), nil), target, schema.TypeAll, depth+1) {
			return false
		}
	}
	start := max(p, from)
	if mx >= 0 && start >= mx {
		return true
	}
	return e.Sub(e.ConjOf(e.ItemSchemas(a, start), nil), target, schema.TypeAll, depth+1)
}

func (e *Engine) containsImplies(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, depth int) bool {
	c := e.One(f.S)
	minOK := f.I == 0
	for _, g := range ma.Contains {
		if !minOK && g.I >= f.I && e.Sub(e.One(g.S), c, schema.TypeAll, depth+1) {
			minOK = true
		}
	}
	if !minOK && ma.MinItems >= f.I && e.tailImplies(a, ma, 0, f.S, depth) {
		minOK = true
	}
	if !minOK {
		return false
	}
	if f.J < 0 {
		return true
	}
	if mx := e.MaxItemsOf(a, ma); mx >= 0 && mx <= f.J {
		return true
	}
	for _, g := range ma.Contains {
		if g.J >= 0 && g.J <= f.J && e.Sub(c, e.One(g.S), schema.TypeAll, depth+1) {
			return true
		}
	}
	return false
}

// additionalImplies proves that every property of a that owner's properties and
// patternProperties do not cover has a value valid under s.
func (e *Engine) additionalImplies(a *algebra.Conj, owner *algebra.Body, s *schema.Schema, depth int) bool {
	target := e.One(s)
	var excl []string
	for _, p := range owner.Patterns {
		excl = append(excl, p.Src)
	}
	for _, k := range e.ExplicitNames(a) {
		if _, ok := owner.Props[k]; ok {
			continue
		}
		covered := false
		for _, p := range excl {
			if e.PatternMatches(p, k) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		vc, forbidden := e.ValueConj(a, k)
		if !forbidden && !e.Sub(vc, target, schema.TypeAll, depth+1) {
			return false
		}
	}
	return e.otherNamesImply(a, "", excl, owner.Props, s, depth)
}

// otherNamesImply proves that every property of a whose name is not named explicitly by a,
// matches the pattern in (when given) and none of the patterns excl, has a value valid
// under s.
func (e *Engine) otherNamesImply(a *algebra.Conj, in string, excl []string, exclNames map[string]*schema.Schema, s *schema.Schema, depth int) bool {
	target := e.One(s)
	var region []*pattern.Automaton // names of the region match these
	var outside []*pattern.Automaton
	regionExact := true
	if in != "" {
		if x := e.Pats.Get(in); x != nil {
			region = append(region, x)
		} else {
			regionExact = false
		}
	}
	for _, p := range excl {
		if x := e.Pats.Get(p); x != nil {
			outside = append(outside, x)
		} else {
			regionExact = false
		}
	}
	// One part of a suffices: its value schemas over-approximate the conjunction.
	for _, n := range e.Parts(a) {
		if n.IsBool {
			continue
		}
		if e.partCovers(n, region, outside, regionExact, target, depth) {
			return true
		}
	}
	// No part constrains other names: they are unconstrained in a.
	return e.Sub(e.TrueConj, target, schema.TypeAll, depth+1)
}

func (e *Engine) partCovers(n *algebra.Node, region, outside []*pattern.Automaton, regionExact bool, target *algebra.Conj, depth int) bool {
	var pats []*pattern.Automaton
	for _, p := range n.Patterns {
		x := e.Pats.Get(p.Src)
		overlap := true
		if x != nil && regionExact {
			_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: append(append([]*pattern.Automaton(nil), region...), x), MustNot: outside, MaxLen: -1})
			overlap = found || !exhaustive
		}
		if overlap && !e.Sub(e.One(p.S), target, schema.TypeAll, depth+1) {
			return false
		}
		if x == nil {
			pats = nil
			regionExact = false
		} else if regionExact {
			pats = append(pats, x)
		}
	}
	// names of the region that match none of n's patterns get n's additional schema
	rest := n.Additional
	if rest == nil && n.UnevalP != nil && e.UnevalAsAdditional(n.Body) {
		rest = n.UnevalP
	}
	if regionExact {
		_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: region, MustNot: append(append([]*pattern.Automaton(nil), outside...), pats...), MaxLen: -1})
		if exhaustive && !found {
			return true
		}
	}
	if rest == nil {
		return e.Sub(e.TrueConj, target, schema.TypeAll, depth+1)
	}
	return e.Sub(e.One(rest), target, schema.TypeAll, depth+1)
}

// ---- disjointness ----

// Disjoint reports a proof that no instance with a class in dom is valid under both.
func (e *Engine) Disjoint(a, b *algebra.Conj, dom schema.TypeSet, depth int) bool {
	if e.opaque(a) || e.opaque(b) {
		return false // an evaluation that may not end is neither in nor out
	}
	return e.prove(e.DisMemo, e.DisProg, memoKey(a, b, dom), depth, func() bool { return e.disjointCore(a, b, dom, depth) })
}

func (e *Engine) disjointCore(a, b *algebra.Conj, dom schema.TypeSet, depth int) bool {
	ma, mb := e.Merged(a), e.Merged(b)
	d := dom & e.Live(a) & e.Live(b)
	if d == 0 {
		return true
	}
	for _, pair := range [][2]*algebra.Conj{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		if vals, ok := e.FiniteValues(x, e.Merged(x), d, true); ok {
			for _, v := range vals {
				if good, ok := e.Valid(y, v); good || !ok {
					return false
				}
			}
			return true
		}
	}
	for _, k := range algebra.Kinds {
		dk := d & k
		if dk == 0 {
			continue
		}
		if !e.disjointKind(a, ma, b, mb, dk, depth) {
			return false
		}
	}
	return true
}

func (e *Engine) disjointKind(a *algebra.Conj, ma *algebra.Merged, b *algebra.Conj, mb *algebra.Merged, d schema.TypeSet, depth int) bool {
	switch {
	case d&schema.TypeNumber != 0:
		ints := (ma.IntOnly() || mb.IntOnly()) || d&^(schema.TypeInteger|schema.TypeDotted) == 0
		if rangesDisjoint(ma.Lo, mb.Hi, ints) || rangesDisjoint(mb.Lo, ma.Hi, ints) {
			return true
		}
	case d&schema.TypeString != 0:
		if e.stringsDisjoint(ma, mb) {
			return true
		}
	case d&schema.TypeArray != 0:
		if e.arraysDisjoint(a, ma, b, mb, depth) {
			return true
		}
	case d&schema.TypeObject != 0:
		if e.objectsDisjoint(a, ma, b, mb, depth) {
			return true
		}
	}
	return e.excludedThroughNot(a, b, d, depth) || e.branchesDisjointFrom(a, b, d, depth)
}

// stringsDisjoint reports a proof that no string satisfies the lengths and patterns of
// both ma and mb.
func (e *Engine) stringsDisjoint(ma, mb *algebra.Merged) bool {
	if (ma.MaxLen >= 0 && ma.MaxLen < mb.MinLen) || (mb.MaxLen >= 0 && mb.MaxLen < ma.MinLen) {
		return true
	}
	must := e.automata(ma.Patterns, mb.Patterns)
	if len(must) > 0 {
		lo, hi := max(ma.MinLen, mb.MinLen), ma.MaxLen
		if hi < 0 || (mb.MaxLen >= 0 && mb.MaxLen < hi) {
			hi = mb.MaxLen
		}
		_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: must, MinLen: lo, MaxLen: hi})
		if exhaustive && !found {
			return true
		}
	}
	return false
}

// arraysDisjoint reports a proof that no array is an instance of both a and b: their
// lengths, or an item both must have.
func (e *Engine) arraysDisjoint(a *algebra.Conj, ma *algebra.Merged, b *algebra.Conj, mb *algebra.Merged, depth int) bool {
	mxa, mxb := e.MaxItemsOf(a, ma), e.MaxItemsOf(b, mb)
	if (mxa >= 0 && mxa < mb.MinItems) || (mxb >= 0 && mxb < ma.MinItems) {
		return true
	}
	for i := 0; i < min(ma.MinItems, mb.MinItems, 8); i++ {
		if e.Disjoint(e.ConjOf(e.ItemSchemas(a, i), nil), e.ConjOf(e.ItemSchemas(b, i), nil), schema.TypeAll, depth+1) {
			return true
		}
	}
	return false
}

// objectsDisjoint reports a proof that no object is an instance of both a and b: their
// numbers of properties, or a property one requires that the other forbids or whose values
// the two keep apart.
func (e *Engine) objectsDisjoint(a *algebra.Conj, ma *algebra.Merged, b *algebra.Conj, mb *algebra.Merged, depth int) bool {
	mxa, mxb := e.MaxPropsOf(a, ma), e.MaxPropsOf(b, mb)
	if (mxa >= 0 && mxa < mb.MinProps) || (mxb >= 0 && mxb < ma.MinProps) {
		return true
	}
	if e.closedApart(a, b) {
		return true
	}
	for _, pair := range [][3]any{{a, ma, b}, {b, mb, a}} {
		x, mx, y := pair[0].(*algebra.Conj), pair[1].(*algebra.Merged), pair[2].(*algebra.Conj)
		npx, npy := e.negProps(x), e.negProps(y)
		for _, names := range []map[string]bool{mx.Required, npx.Required} {
			for _, k := range algebra.SortedKeys(names) {
				if e.requiredDisjoint(x, npx, y, npy, k, depth) {
					return true
				}
			}
		}
	}
	return false
}

// excludedThroughNot reports a proof that one of a and b excludes, through not, what the
// other requires.
func (e *Engine) excludedThroughNot(a, b *algebra.Conj, d schema.TypeSet, depth int) bool {
	for _, pair := range [][2]*algebra.Conj{{a, b}, {b, a}} {
		for _, n := range e.negations(pair[0]) {
			if e.Sub(pair[1], e.One(n), d, depth) {
				return true
			}
		}
	}
	return false
}

// branchesDisjointFrom reports a proof that every branch of a group of one of a and b is
// disjoint from the other.
func (e *Engine) branchesDisjointFrom(a, b *algebra.Conj, d schema.TypeSet, depth int) bool {
	for _, pair := range [][2]*algebra.Conj{{a, b}, {b, a}} {
		for g := range e.Merged(pair[0]).Groups {
			if g.Kind == algebra.FCond || len(g.Subs) > 16 {
				continue
			}
			all := true
			for _, br := range g.Subs {
				if !e.Disjoint(e.With(pair[0], []*schema.Schema{br}, e.Choice(g)...), pair[1], d, depth) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
	}
	return false
}

// closedApart reports that a and b allow property names none of which the other allows,
// so that an object of both has no property, and that the empty object is invalid under
// one of them (judged by the validator on their roots).
func (e *Engine) closedApart(a, b *algebra.Conj) bool {
	na, ok := e.ClosedNames(a)
	if !ok {
		return false
	}
	nb, ok := e.ClosedNames(b)
	if !ok {
		return false
	}
	for _, x := range na {
		if slices.Contains(nb, x) {
			return false
		}
	}
	var ob source.ObjectBuilder
	empty := ob.Value()
	ga, oka := e.Valid(a, empty)
	gb, okb := e.Valid(b, empty)
	return oka && okb && !(ga && gb)
}

// requiredDisjoint reports that no object is in both x and y, given that every object of
// x has the property k: y forbids or lacks it, or no value is left for it by the schemas
// each side applies to it (whether y requires k or not: it judges k's value when there)
// and the values their negations exclude (negProps npx, npy).
func (e *Engine) requiredDisjoint(x *algebra.Conj, npx *algebra.NegProps, y *algebra.Conj, npy *algebra.NegProps, k string, depth int) bool {
	vy, forbidden := e.ValueConj(y, k)
	if forbidden || npy.Absent[k] {
		return true
	}
	vx, fx := e.ValueConj(x, k)
	if fx || e.Disjoint(vx, vy, schema.TypeAll, depth+1) {
		return true
	}
	exX, exY := npx.Excluded[k], npy.Excluded[k]
	return (len(exX) > 0 || len(exY) > 0) && e.valuesDisjoint(vx, exX, vy, exY)
}

// rangesDisjoint reports whether no number is >= lo and <= hi.
func rangesDisjoint(lo, hi *algebra.Bound, ints bool) bool {
	if lo == nil || hi == nil {
		return false
	}
	l, h := lo.V, hi.V
	lex, hex := lo.Excl, hi.Excl
	if ints {
		l, h, lex, hex = algebra.IntLower(lo), algebra.IntUpper(hi), false, false
	}
	c := l.Cmp(h)
	return c > 0 || (c == 0 && (lex || hex))
}

// automata returns the automata of the patterns of every list that has one: a pattern
// without an automaton is left out, since no string matching the rest means no string
// matching all.
func (e *Engine) automata(lists ...[]string) []*pattern.Automaton {
	var must []*pattern.Automaton
	for _, l := range lists {
		for _, p := range l {
			if x := e.Pats.Get(p); x != nil {
				must = append(must, x)
			}
		}
	}
	return must
}
