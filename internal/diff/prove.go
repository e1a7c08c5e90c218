package diff

import (
	"math"
	"slices"

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

// maxSplits bounds the alternatives one proof may split a conjunction into (over all its
// anyOf, oneOf and if groups together): a oneOf of 16 branches inside one of two, one of
// whose branches has a oneOf of 3 (function.json's bindings) takes 96.
const maxSplits = 96

// maxSplitBranches bounds the branches of a group split takes (traefik's middlewares are a
// oneOf of 25 closed objects, one name each).
const maxSplitBranches = 32

func (e *engine) spend() bool {
	e.steps++
	e.proofSteps++
	if e.steps&1023 == 0 && (e.ctx.Err() != nil || e.overParts()) {
		e.steps = e.stepBudget + 1
	}
	return e.steps <= e.stepBudget
}

// cacheable tells whether a result may be remembered: a proof that rests on no pair still
// under examination, or a failure that is not due to the step budget running out.
func (e *engine) cacheable(r bool, idx int) bool {
	if r {
		return e.minAssume >= idx
	}
	return e.steps <= e.stepBudget
}

// proofKey identifies a question to the prover: the two conjunctions by their keys, and
// the classes of instances asked about.
type proofKey struct {
	a, b int
	dom  schema.TypeSet
}

func memoKey(a, b *conj, dom schema.TypeSet) proofKey {
	return proofKey{a.kid, b.kid, dom}
}

// sub reports a proof that every instance of a whose class is in dom is an instance of b.
func (e *engine) sub(a, b *conj, dom schema.TypeSet, depth int) bool {
	if a == b || len(b.shells) == 0 {
		return true
	}
	return e.prove(e.subMemo, e.subProg, memoKey(a, b, dom), depth, func() bool { return e.subCore(a, b, dom, depth) })
}

// prove answers a question of the prover (key) with core, memoised in memo. A question met
// again while it is being answered (in prog) is assumed true when an instance level was
// crossed since (a greatest fixpoint over recursive schemas), and an answer that rests on
// an assumption still open is not memoised (see cacheable).
func (e *engine) prove(memo map[proofKey]bool, prog map[proofKey]progress, key proofKey, depth int, core func() bool) bool {
	if r, ok := memo[key]; ok {
		return r
	}
	if p, ok := prog[key]; ok {
		if depth > p.depth {
			e.minAssume = min(e.minAssume, p.idx)
			return true
		}
		return false
	}
	if !e.spend() {
		return false
	}
	if e.stack >= maxProofDepth {
		// As deep as proofs go: the budget counts as spent, and what is not proved yet
		// stays unknown.
		e.steps = e.stepBudget + 1
		return false
	}
	idx := e.stack
	if idx == 0 && !e.inHere {
		e.branchesLeft = maxProofBranches // a question from outside the prover
	}
	e.stack++
	prog[key] = progress{idx, depth}
	saved := e.minAssume
	e.minAssume = math.MaxInt
	r := core()
	delete(prog, key)
	e.stack--
	if e.cacheable(r, idx) {
		memo[key] = r
	}
	if e.minAssume < idx {
		saved = min(saved, e.minAssume)
	}
	e.minAssume = saved
	return r
}

func (e *engine) subCore(a, b *conj, dom schema.TypeSet, depth int) bool {
	if e.sameConj(a, b) {
		return true
	}
	ma := e.merged(a)
	d := dom & e.live(a)
	if d == 0 {
		return true
	}
	mb := e.merged(b)
	if vals, ok := e.finiteValues(a, ma, d, true); ok {
		for _, v := range vals {
			if good, ok := e.valid(b, v); !good || !ok {
				return false
			}
		}
		return true
	}
	if mb.empty {
		// a is empty: proved by the emptiness rules, on a split if need be
		return e.proveFacts(a, factsOf(mb, fFalse)[:1], d, depth, maxSplits)
	}
	// Groups of b that a repeats are satisfied as a whole.
	facts := make([]*fact, 0, mb.nFacts)
	for f := range mb.facts {
		if isGroup(f.kind) && e.groupRepeated(a, ma, f, d, depth) {
			continue
		}
		facts = append(facts, f)
	}
	if e.proveFacts(a, facts, d, depth, maxSplits) {
		return true
	}
	// what a's double negations affirm holds for a too
	if more := e.newAffirmations(a); len(more) > 0 && e.sub(e.with(a, more), b, d, depth) {
		return true
	}
	// an empty a is included in anything; so are its classes that are empty, the others
	// proved class by class
	if e.empty(a, d, depth) {
		return true
	}
	several := 0
	for _, k := range kinds {
		if d&k != 0 {
			several++
		}
	}
	if several < 2 {
		return false
	}
	for _, k := range kinds {
		if dk := d & k; dk != 0 && !e.empty(a, dk, depth) && !e.proveFacts(a, facts, dk, depth, maxSplits) {
			return false
		}
	}
	return true
}

// proveFacts proves each fact for a, splitting a on one of its own anyOf, oneOf or if
// groups when that helps.
func (e *engine) proveFacts(a *conj, facts []*fact, dom schema.TypeSet, depth, splits int) bool {
	ma := e.merged(a)
	d := dom & e.live(a)
	if d == 0 {
		return true
	}
	var failing []*fact
	for _, f := range facts {
		if !e.implies(a, ma, f, d, depth) {
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
		if !e.proveFacts(alt, failing, d, depth, left) {
			return false
		}
	}
	return true
}

func nonNil(ss ...*schema.Schema) []*schema.Schema {
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
func (e *engine) split(a *conj, ma *merged) []*conj {
	groups := make([]*fact, 0, ma.nGroups)
	for g := range ma.groups {
		if g.kind != fCond {
			groups = append(groups, g)
		}
	}
	for g := range ma.groups {
		if g.kind == fCond {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		id := e.groupOf(g)
		switch g.kind {
		case fAnyOf, fOneOf:
			if len(g.subs) > maxSplitBranches {
				continue
			}
			var out []*conj
			ids := e.choice(g)
			for _, br := range g.subs {
				out = append(out, e.with(a, []*schema.Schema{br}, ids...))
			}
			return out
		case fCond:
			i, t, el := g.subs[0], g.subs[1], g.subs[2]
			yes := []*schema.Schema{i}
			if t != nil {
				yes = append(yes, t)
			}
			var no []*schema.Schema
			if el != nil {
				no = append(no, el)
			}
			return []*conj{e.with(a, yes, id), e.with(a, no, id)}
		}
	}
	return nil
}

// groupRepeated reports whether a has a group equivalent to f (branch by branch).
func (e *engine) groupRepeated(a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if f.kind == fCond && ma.nGroups > condScanMax && len(f.subs) > 0 && f.subs[0] != nil {
		return e.condRepeated(ma, f)
	}
	for g := range ma.groups {
		if g.kind != f.kind || len(g.subs) != len(f.subs) {
			continue
		}
		if g == f {
			return true
		}
		if len(g.subs) > 0 && g.subs[0] != nil && f.subs[0] != nil && e.hashOf(g.subs[0]) != e.hashOf(f.subs[0]) && f.kind == fCond {
			continue
		}
		if e.sameBranches(g, f) {
			return true
		}
		if len(g.subs) > 16 || f.kind == fCond {
			continue // conditions are compared by the fCond rule of implies
		}
		ok := true
		for i := range g.subs {
			x, y := g.subs[i], f.subs[i]
			if x == nil || y == nil {
				if x != y {
					ok = false
					break
				}
				continue
			}
			if e.same(x, y) {
				continue
			}
			// context-free equivalence: weaker than within a, but shared by every context
			cx, cy := e.one(x), e.one(y)
			if !e.sub(cx, cy, d, depth) || !e.sub(cy, cx, d, depth) {
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
func (e *engine) sameBranches(g, f *fact) bool {
	for i := range g.subs {
		if g.subs[i] != f.subs[i] && (g.subs[i] == nil || f.subs[i] == nil || !e.same(g.subs[i], f.subs[i])) {
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
func (e *engine) condRepeated(ma *merged, f *fact) bool {
	idx := e.condIdx[ma]
	if idx == nil {
		idx = map[uint64][]*fact{}
		for g := range ma.groups {
			if g.kind == fCond && len(g.subs) > 0 && g.subs[0] != nil {
				h := e.hashOf(g.subs[0])
				idx[h] = append(idx[h], g)
			}
		}
		e.condIdx[ma] = idx
	}
	for _, g := range idx[e.hashOf(f.subs[0])] {
		if len(g.subs) == len(f.subs) && e.sameBranches(g, f) { // f itself among them
			return true
		}
	}
	return false
}

// implies proves one fact of b for every instance of a within d.
func (e *engine) implies(a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if k := f.kindOf(); k != schema.TypeAll && d&k == 0 {
		return true
	}
	if !e.spend() {
		return false
	}
	switch f.kind {
	case fDynamic, fLoop, fUnread: // nothing proves these
		return false
	}
	if (f.s != nil || len(f.subs) > 0) && e.opaqueSubs(f) {
		// A subschema whose evaluation may never end (a loop): the validator stops with
		// an error wherever it is applied, whatever the rest says (an if whose condition
		// loops, a contains of minContains 0 whose schema loops, stop the whole evaluation).
		return false
	}
	// A finite set of values is judged exactly: each value valid under the schema object
	// that holds the fact satisfies the fact.
	if vals, ok := e.finiteValues(a, ma, d, true); ok {
		all := true
		for _, v := range vals {
			if good, err := f.n.s.ValidContext(e.ctx, v); err != nil || !good {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	if h := impliers[f.kind]; h != nil {
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
func (e *engine) triggeredImplies(a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	m := e.merged(e.one(f.s))
	if m.empty || e.triggered >= maxTriggeredDepth {
		return false
	}
	e.triggered++
	defer func() { e.triggered-- }()
	for g := range m.facts {
		if g.kind == fRequired && (g.str == f.str || ma.required[g.str] || ma.depReq[f.str][g.str]) {
			continue
		}
		if !e.implies(a, ma, g, d, depth) {
			return false
		}
	}
	return true
}

// anyOfImplied proves the anyOf f for every instance of a within d: one branch holds them
// all, or, class by class (numbers by their finer classes if need be), one branch holds
// those of the class or the branches together cover them (unionCovers); or the branches
// are negations whose conjunction a is disjoint from.
func (e *engine) anyOfImplied(a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	for _, br := range f.subs {
		if e.sub(a, e.one(br), d, depth) {
			return true
		}
	}
	if xs := e.negatedBranches(f); len(xs) > 0 && e.disjoint(a, e.conjOf(xs, nil), d, depth) {
		return true
	}
	if e.complementCovers(a, f, d, depth) {
		return true
	}
	for _, k := range kinds {
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
func (e *engine) anyBranch(a *conj, f *fact, d schema.TypeSet, depth int) bool {
	for _, br := range f.subs {
		if e.sub(a, e.one(br), d, depth) {
			return true
		}
	}
	return false
}

// oneBranch proves that one branch of the oneOf f holds every instance of a within d and
// the others none.
func (e *engine) oneBranch(a *conj, f *fact, d schema.TypeSet, depth int) bool {
	for j, br := range f.subs {
		if !e.sub(a, e.one(br), d, depth) {
			continue
		}
		ok := true
		for i, other := range f.subs {
			if i != j && !e.disjoint(a, e.one(other), d, depth) {
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
func (e *engine) eachFine(d schema.TypeSet, ok func(schema.TypeSet) bool) bool {
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
func (e *engine) patternsBound(ma *merged, lo, hi int) bool {
	if len(ma.patterns) == 0 {
		return false
	}
	lo = max(lo, ma.minLen)
	if ma.maxLen >= 0 && (hi < 0 || ma.maxLen < hi) {
		hi = ma.maxLen
	}
	if hi >= 0 && lo > hi {
		return true
	}
	var must []*pattern.Automaton
	for _, p := range ma.patterns {
		if x := e.pats.Get(p); x != nil {
			must = append(must, x)
		}
	}
	if len(must) == 0 {
		return false
	}
	_, found, exhaustive := e.pats.Solve(pattern.Query{Must: must, MinLen: lo, MaxLen: hi})
	return exhaustive && !found
}

// opaqueSubs reports a subschema of the applicator f whose conjunction is opaque (a part
// on a loop of in-place applicators).
func (e *engine) opaqueSubs(f *fact) bool {
	if f.s != nil && e.reachesLoop(f.s) {
		return true
	}
	for _, s := range f.subs {
		if s != nil && e.reachesLoop(s) {
			return true
		}
	}
	return false
}

// opaque reports a conjunction a part of which reaches a loop of in-place applicators.
func (e *engine) opaque(c *conj) bool {
	for _, n := range e.parts(c) {
		if e.reachesLoop(n.s) {
			return true
		}
	}
	return false
}

// reachesLoop reports whether evaluating s on an instance may apply a schema on a loop
// of in-place applicators to that same instance (schema.ReachesInPlaceLoop: computed
// once, with the loops, by the compiler; walking it here for each comparison read the
// node of every schema reached, a tenth of a large diff's time).
func (e *engine) reachesLoop(s *schema.Schema) bool { return s.ReachesInPlaceLoop() }

// defaultFills reports whether the reader-defaults policy covers a required property: the
// property's schema (where the fact is) has a default that is valid under it.
func (e *engine) defaultFills(f *fact) bool {
	if !e.opts.RequiredWithDefault {
		return false
	}
	v, ok := e.defaultsOf(f.n)[f.str]
	if !ok {
		return false
	}
	good, err := f.n.props[f.str].ValidContext(e.ctx, v)
	return err == nil && good
}

func (e *engine) isTrue(s *schema.Schema) bool {
	return len(e.one(s).shells) == 0 || e.merged(e.one(s)).nFacts == 0
}

// tailImplies proves that every item of a at positions from..∞ is valid under s.
func (e *engine) tailImplies(a *conj, ma *merged, from int, s *schema.Schema, depth int) bool {
	mx := e.maxItemsOf(a, ma)
	p := e.prefixLen(a)
	target := e.one(s)
	for i := from; i < p; i++ {
		if mx >= 0 && i >= mx {
			return true
		}
		if !e.sub(e.conjOf(e.itemSchemas(a, i), nil), target, schema.TypeAll, depth+1) {
			return false
		}
	}
	start := max(p, from)
	if mx >= 0 && start >= mx {
		return true
	}
	return e.sub(e.conjOf(e.itemSchemas(a, start), nil), target, schema.TypeAll, depth+1)
}

func (e *engine) containsImplies(a *conj, ma *merged, f *fact, depth int) bool {
	c := e.one(f.s)
	minOK := f.i == 0
	for _, g := range ma.contains {
		if !minOK && g.i >= f.i && e.sub(e.one(g.s), c, schema.TypeAll, depth+1) {
			minOK = true
		}
	}
	if !minOK && ma.minItems >= f.i && e.tailImplies(a, ma, 0, f.s, depth) {
		minOK = true
	}
	if !minOK {
		return false
	}
	if f.j < 0 {
		return true
	}
	if mx := e.maxItemsOf(a, ma); mx >= 0 && mx <= f.j {
		return true
	}
	for _, g := range ma.contains {
		if g.j >= 0 && g.j <= f.j && e.sub(c, e.one(g.s), schema.TypeAll, depth+1) {
			return true
		}
	}
	return false
}

// additionalImplies proves that every property of a that owner's properties and
// patternProperties do not cover has a value valid under s.
func (e *engine) additionalImplies(a *conj, owner *body, s *schema.Schema, depth int) bool {
	target := e.one(s)
	var excl []string
	for _, p := range owner.patterns {
		excl = append(excl, p.src)
	}
	for _, k := range e.explicitNames(a) {
		if _, ok := owner.props[k]; ok {
			continue
		}
		covered := false
		for _, p := range excl {
			if e.patternMatches(p, k) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		vc, forbidden := e.valueConj(a, k)
		if !forbidden && !e.sub(vc, target, schema.TypeAll, depth+1) {
			return false
		}
	}
	return e.otherNamesImply(a, "", excl, owner.props, s, depth)
}

// otherNamesImply proves that every property of a whose name is not named explicitly by a,
// matches the pattern in (when given) and none of the patterns excl, has a value valid
// under s.
func (e *engine) otherNamesImply(a *conj, in string, excl []string, exclNames map[string]*schema.Schema, s *schema.Schema, depth int) bool {
	target := e.one(s)
	var region []*pattern.Automaton // names of the region match these
	var outside []*pattern.Automaton
	regionExact := true
	if in != "" {
		if x := e.pats.Get(in); x != nil {
			region = append(region, x)
		} else {
			regionExact = false
		}
	}
	for _, p := range excl {
		if x := e.pats.Get(p); x != nil {
			outside = append(outside, x)
		} else {
			regionExact = false
		}
	}
	// One part of a suffices: its value schemas over-approximate the conjunction.
	for _, n := range e.parts(a) {
		if n.isBool {
			continue
		}
		if e.partCovers(n, region, outside, regionExact, target, depth) {
			return true
		}
	}
	// No part constrains other names: they are unconstrained in a.
	return e.sub(e.trueConj, target, schema.TypeAll, depth+1)
}

func (e *engine) partCovers(n *node, region, outside []*pattern.Automaton, regionExact bool, target *conj, depth int) bool {
	var pats []*pattern.Automaton
	for _, p := range n.patterns {
		x := e.pats.Get(p.src)
		overlap := true
		if x != nil && regionExact {
			_, found, exhaustive := e.pats.Solve(pattern.Query{Must: append(append([]*pattern.Automaton(nil), region...), x), MustNot: outside, MaxLen: -1})
			overlap = found || !exhaustive
		}
		if overlap && !e.sub(e.one(p.s), target, schema.TypeAll, depth+1) {
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
	rest := n.additional
	if rest == nil && n.unevalP != nil && e.unevalAsAdditional(n.body) {
		rest = n.unevalP
	}
	if regionExact {
		_, found, exhaustive := e.pats.Solve(pattern.Query{Must: region, MustNot: append(append([]*pattern.Automaton(nil), outside...), pats...), MaxLen: -1})
		if exhaustive && !found {
			return true
		}
	}
	if rest == nil {
		return e.sub(e.trueConj, target, schema.TypeAll, depth+1)
	}
	return e.sub(e.one(rest), target, schema.TypeAll, depth+1)
}

// ---- disjointness ----

// disjoint reports a proof that no instance with a class in dom is valid under both.
func (e *engine) disjoint(a, b *conj, dom schema.TypeSet, depth int) bool {
	if e.opaque(a) || e.opaque(b) {
		return false // an evaluation that may not end is neither in nor out
	}
	return e.prove(e.disMemo, e.disProg, memoKey(a, b, dom), depth, func() bool { return e.disjointCore(a, b, dom, depth) })
}

func (e *engine) disjointCore(a, b *conj, dom schema.TypeSet, depth int) bool {
	ma, mb := e.merged(a), e.merged(b)
	d := dom & e.live(a) & e.live(b)
	if d == 0 {
		return true
	}
	for _, pair := range [][2]*conj{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		if vals, ok := e.finiteValues(x, e.merged(x), d, true); ok {
			for _, v := range vals {
				if good, ok := e.valid(y, v); good || !ok {
					return false
				}
			}
			return true
		}
	}
	for _, k := range kinds {
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

func (e *engine) disjointKind(a *conj, ma *merged, b *conj, mb *merged, d schema.TypeSet, depth int) bool {
	switch {
	case d&schema.TypeNumber != 0:
		ints := (ma.intOnly() || mb.intOnly()) || d&^(schema.TypeInteger|schema.TypeDotted) == 0
		if rangesDisjoint(ma.lo, mb.hi, ints) || rangesDisjoint(mb.lo, ma.hi, ints) {
			return true
		}
	case d&schema.TypeString != 0:
		if (ma.maxLen >= 0 && ma.maxLen < mb.minLen) || (mb.maxLen >= 0 && mb.maxLen < ma.minLen) {
			return true
		}
		var must []*pattern.Automaton
		exact := true
		for _, p := range append(append([]string(nil), ma.patterns...), mb.patterns...) {
			if x := e.pats.Get(p); x != nil {
				must = append(must, x)
			} else {
				exact = false
			}
		}
		if len(must) > 0 {
			lo, hi := max(ma.minLen, mb.minLen), ma.maxLen
			if hi < 0 || (mb.maxLen >= 0 && mb.maxLen < hi) {
				hi = mb.maxLen
			}
			_, found, exhaustive := e.pats.Solve(pattern.Query{Must: must, MinLen: lo, MaxLen: hi})
			if exhaustive && !found {
				return true
			}
			_ = exact
		}
	case d&schema.TypeArray != 0:
		mxa, mxb := e.maxItemsOf(a, ma), e.maxItemsOf(b, mb)
		if (mxa >= 0 && mxa < mb.minItems) || (mxb >= 0 && mxb < ma.minItems) {
			return true
		}
		for i := 0; i < min(ma.minItems, mb.minItems, 8); i++ {
			if e.disjoint(e.conjOf(e.itemSchemas(a, i), nil), e.conjOf(e.itemSchemas(b, i), nil), schema.TypeAll, depth+1) {
				return true
			}
		}
	case d&schema.TypeObject != 0:
		mxa, mxb := e.maxPropsOf(a, ma), e.maxPropsOf(b, mb)
		if (mxa >= 0 && mxa < mb.minProps) || (mxb >= 0 && mxb < ma.minProps) {
			return true
		}
		if e.closedApart(a, b) {
			return true
		}
		for _, pair := range [][3]any{{a, ma, b}, {b, mb, a}} {
			x, mx, y := pair[0].(*conj), pair[1].(*merged), pair[2].(*conj)
			npx, npy := e.negProps(x), e.negProps(y)
			for _, names := range []map[string]bool{mx.required, npx.required} {
				for _, k := range sortedKeys(names) {
					if e.requiredDisjoint(x, npx, y, npy, k, depth) {
						return true
					}
				}
			}
		}
	}
	// a excludes what b requires, through not
	for _, pair := range [][2]*conj{{a, b}, {b, a}} {
		for _, n := range e.negations(pair[0]) {
			if e.sub(pair[1], e.one(n), d, depth) {
				return true
			}
		}
	}
	// every branch of a group is disjoint from the other side
	for _, pair := range [][2]*conj{{a, b}, {b, a}} {
		for g := range e.merged(pair[0]).groups {
			if g.kind == fCond || len(g.subs) > 16 {
				continue
			}
			all := true
			for _, br := range g.subs {
				if !e.disjoint(e.with(pair[0], []*schema.Schema{br}, e.choice(g)...), pair[1], d, depth) {
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
func (e *engine) closedApart(a, b *conj) bool {
	na, ok := e.closedNames(a)
	if !ok {
		return false
	}
	nb, ok := e.closedNames(b)
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
	ga, oka := e.valid(a, empty)
	gb, okb := e.valid(b, empty)
	return oka && okb && !(ga && gb)
}

// requiredDisjoint reports that no object is in both x and y, given that every object of
// x has the property k: y forbids or lacks it, or no value is left for it by the schemas
// each side applies to it (whether y requires k or not: it judges k's value when there)
// and the values their negations exclude (negProps npx, npy).
func (e *engine) requiredDisjoint(x *conj, npx *negProps, y *conj, npy *negProps, k string, depth int) bool {
	vy, forbidden := e.valueConj(y, k)
	if forbidden || npy.absent[k] {
		return true
	}
	vx, fx := e.valueConj(x, k)
	if fx || e.disjoint(vx, vy, schema.TypeAll, depth+1) {
		return true
	}
	exX, exY := npx.excluded[k], npy.excluded[k]
	return (len(exX) > 0 || len(exY) > 0) && e.valuesDisjoint(vx, exX, vy, exY)
}

// rangesDisjoint reports whether no number is >= lo and <= hi.
func rangesDisjoint(lo, hi *bound, ints bool) bool {
	if lo == nil || hi == nil {
		return false
	}
	l, h := lo.v, hi.v
	lex, hex := lo.excl, hi.excl
	if ints {
		l, h, lex, hex = intLower(lo), intUpper(hi), false, false
	}
	c := l.Cmp(h)
	return c > 0 || (c == 0 && (lex || hex))
}
