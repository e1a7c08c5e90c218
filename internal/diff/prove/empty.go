package prove

import (
	"math/big"
	"slices"
	"sync"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Emptiness: a conjunction that no instance satisfies, in some or all of its classes. It
// hides in many spellings (an integer range with no integer in it, more items needed than
// a closed tuple allows, a required property that cannot be present, a oneOf whose
// branches overlap completely, a not of something that accepts everything, an enum whose
// values all fail the other keywords), and it decides changes: nothing to something is
// forward-incompatible only, and so on.
//
// Two levels. live gives the classes a conjunction may still hold after cheap rules that
// look at its merged view alone; every proof reads its classes from there. empty proves
// the rest with rules that ask the prover (a member that must be present and cannot be,
// the branches of a group, a negation that covers a class); it is a question to the
// prover like any other: memoised, assumed for recursive schemas met again below an
// instance level (a greatest fixpoint is sound here too, instances being finite), and
// bounded by the step budget. The prover asks it as the inclusion in the false schema
// (sub(a, false)), where it can also split a on its groups.

var (
	falseOnce   sync.Once
	falseSchema *schema.Schema
)

// theFalse returns a compiled false schema, the target of emptiness questions.
func theFalse() *schema.Schema {
	falseOnce.Do(func() {
		doc, err := source.ParseJSON("false.json", []byte("false"), nil)
		if err != nil {
			panic(err)
		}
		c := schema.NewCompiler(&schema.Options{Draft: schema.Draft2020})
		const uri = "urn:jstk:diff:false"
		if err := c.AddDocument(uri, doc); err != nil {
			panic(err)
		}
		if falseSchema, err = c.Compile(uri); err != nil {
			panic(err)
		}
	})
	return falseSchema
}

// falseConj is the conjunction of the false schema alone.
func (e *Engine) falseConj() *algebra.Conj { return e.One(theFalse()) }

// ProvedEmpty reports a proof that s accepts no instance.
func (e *Engine) ProvedEmpty(s *schema.Schema) bool {
	return e.Sub(e.One(s), e.falseConj(), schema.TypeAll, 0)
}

// fineKinds are the classes a negation may cover one at a time: numbers split as the
// drafts split them.
var fineKinds = []schema.TypeSet{schema.TypeNull, schema.TypeBoolean, schema.TypeInteger, schema.TypeDotted, schema.TypeFraction, schema.TypeString, schema.TypeArray, schema.TypeObject}

// Live returns the classes of instances c may hold: its merged types less those the cheap
// rules of liveTypes rule out. It is kept on the conjunction.
func (e *Engine) Live(c *algebra.Conj) schema.TypeSet {
	if c.LiveDone {
		return c.Live
	}
	m := e.Merged(c)
	t := m.Types
	if t != 0 && !e.opaque(c) {
		t = e.liveTypes(c, m, t)
	}
	c.Live, c.LiveDone = t, true
	return t
}

// liveTypes removes from t the classes c cannot hold by its merged view: numbers with no
// number (no integer, no multiple) in range, arrays that need more items than they may
// have, objects that need more properties than they may have or a property they may not
// have, and the classes a negation accepts entirely.
func (e *Engine) liveTypes(c *algebra.Conj, m *algebra.Merged, t schema.TypeSet) schema.TypeSet {
	if m.NGroups > 0 && e.repeatedOneOf(m) {
		return 0
	}
	if m.NGroups > 0 {
		t &^= e.oneOfOverlaps(m, t)
	}
	if t&schema.TypeNumber != 0 && noNumber(m, t) {
		t &^= schema.TypeNumber
	}
	if t&schema.TypeArray != 0 && e.noArray(c, m) {
		t &^= schema.TypeArray
	}
	if t&schema.TypeObject != 0 && e.noObject(c, m) {
		t &^= schema.TypeObject
	}
	if len(m.Nots) > 0 {
		for _, n := range e.negations(c) {
			for _, k := range fineKinds {
				if t&k != 0 && e.coversKind(n, k) {
					t &^= k
				}
			}
		}
	}
	return t
}

// repeatedOneOf reports a oneOf of m each of whose branches is the same schema as another
// (oneOf [A, A]): an instance matching a branch matches two, so none is valid.
func (e *Engine) repeatedOneOf(m *algebra.Merged) bool {
	for g := range m.Groups {
		if g.Kind != algebra.FOneOf || len(g.Subs) > 24 {
			continue
		}
		all := true
		for i, br := range g.Subs {
			twin := false
			for j, o := range g.Subs {
				if j != i && e.sameDeref(br, o) {
					twin = true
					break
				}
			}
			if !twin {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// oneOfOverlaps returns the classes of t that a oneOf of m rejects whole: two of its
// branches each accept every instance of the class (oneOf [{type: object, ...}, {...}]
// with neither branch saying anything of strings), so that a string matches both and
// fails the oneOf. A oneOf whose branches set no type excludes in this way every class
// its branches do not constrain.
func (e *Engine) oneOfOverlaps(m *algebra.Merged, t schema.TypeSet) schema.TypeSet {
	var out schema.TypeSet
	for g := range m.Groups {
		if g.Kind != algebra.FOneOf || len(g.Subs) > 24 {
			continue
		}
		for _, k := range fineKinds {
			if t&k == 0 || out&k != 0 {
				continue
			}
			n := 0
			for _, br := range g.Subs {
				if e.coversKind(br, k) {
					n++
					if n == 2 {
						out |= k
						break
					}
				}
			}
		}
	}
	return out
}

// sameDeref is same for the schemas a chain of plain references leads to: two
// references to definitions of the same text are the same schema.
func (e *Engine) sameDeref(a, b *schema.Schema) bool {
	return e.Same(e.deref(a), e.deref(b))
}

// deref follows a schema that is only a reference to its target, a few times.
func (e *Engine) deref(s *schema.Schema) *schema.Schema {
	for range 8 {
		t := s.Ref()
		if t == nil || !onlyRef(s) {
			return s
		}
		s = t
	}
	return s
}

// onlyRef reports a schema whose $ref is all it applies: siblings are ignored (drafts 4
// to 7) or are annotations.
func onlyRef(s *schema.Schema) bool {
	if s.Draft.Version <= 7 {
		return true
	}
	for _, k := range s.Keywords() {
		if k != "$ref" && !annotationOnly()[k] {
			return false
		}
	}
	return true
}

// annotationOnly are the keywords that assert nothing and apply nothing
// (schema.Keyword.AssertsNothing).
var annotationOnly = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range schema.KeywordNames(schema.AllDrafts, (*schema.Keyword).AssertsNothing) {
		m[name] = true
	}
	return m
})

// noNumber reports that no number of the classes t allows satisfies the bounds and
// multiples of m.
func noNumber(m *algebra.Merged, t schema.TypeSet) bool {
	if m.Lo == nil || m.Hi == nil {
		return false
	}
	var step *big.Rat
	for _, r := range m.Mults {
		step = source.LCMRat(step, r)
	}
	if t&schema.TypeFraction == 0 || m.IntOnly() {
		step = source.LCMRat(step, big.NewRat(1, 1))
	}
	if step == nil {
		return rangesDisjoint(m.Lo, m.Hi, false)
	}
	// the smallest multiple of step at or above lo, against hi
	q := new(big.Rat).Quo(m.Lo.V, step)
	k := algebra.CeilRat(q)
	if m.Lo.Excl && q.IsInt() {
		k.Add(k, big.NewInt(1))
	}
	x := new(big.Rat).Mul(new(big.Rat).SetInt(k), step)
	c := x.Cmp(m.Hi.V)
	return c > 0 || c == 0 && m.Hi.Excl
}

// noArray reports arrays of c needing more items than they may have: minItems, or the
// matches a contains needs, beyond maxItems, a closed tuple or a position whose schema is
// false; or a contains that needs more matches than it allows.
func (e *Engine) noArray(c *algebra.Conj, m *algebra.Merged) bool {
	need := m.MinItems
	for _, f := range m.Contains {
		if f.J >= 0 && f.I > f.J {
			return true
		}
		need = max(need, f.I)
	}
	if need == 0 {
		return false
	}
	mx := e.MaxItemsOf(c, m)
	return mx >= 0 && need > mx
}

// noObject reports objects of c needing more properties than they may have, or a
// required property they may not have.
func (e *Engine) noObject(c *algebra.Conj, m *algebra.Merged) bool {
	need := max(m.MinProps, len(m.Required))
	if need == 0 {
		return false
	}
	if e.forbidsSomeName(c) {
		for k := range m.Required {
			if _, forbidden := e.ValueSchemas(c, k); forbidden {
				return true
			}
		}
	}
	if !e.hasClosedPart(c) {
		return false
	}
	mx := e.MaxPropsOf(c, m)
	return mx >= 0 && need > mx
}

// forbidsSomeName reports a part of c that may forbid a property by its name
// (forbidsNames): without one, no required property is forbidden.
func (e *Engine) forbidsSomeName(c *algebra.Conj) bool {
	for _, n := range e.Parts(c) {
		if n.ForbidsNames {
			return true
		}
	}
	return false
}

// hasClosedPart reports a part of c with additionalProperties false and no
// patternProperties: the names it allows are finite (closedNames).
func (e *Engine) hasClosedPart(c *algebra.Conj) bool {
	for _, n := range e.Parts(c) {
		if n.Additional == nil || len(n.Patterns) > 0 {
			continue
		}
		if v, isBool := n.Additional.Bool(); isBool && !v {
			return true
		}
	}
	return false
}

// negations returns the schemas c's instances must not match: those of its nots, with a
// not of an anyOf read as a not of each branch (De Morgan). A not of a not (double
// negation) is an assertion, not a negation: see affirmations.
func (e *Engine) negations(c *algebra.Conj) []*schema.Schema {
	m := e.Merged(c)
	if len(m.Nots) == 0 {
		return nil
	}
	if x, ok := e.NegMemo[c.Kid]; ok {
		return x
	}
	var out []*schema.Schema
	var expand func(n *schema.Schema, depth int)
	expand = func(n *schema.Schema, depth int) {
		if f := e.soleFact(n); f != nil && depth < 4 {
			switch f.Kind {
			case algebra.FAnyOf:
				for _, br := range f.Subs {
					expand(br, depth+1)
				}
				return
			case algebra.FNot:
				return // a double negation: an affirmation
			}
		}
		out = append(out, n)
	}
	for _, n := range m.Nots {
		expand(n, 0)
	}
	e.NegMemo[c.Kid] = out
	return out
}

// affirmations returns the schemas c's instances must match through a double negation:
// M for a not of a not of M, and through a not of an anyOf of nots.
func (e *Engine) affirmations(c *algebra.Conj) []*schema.Schema {
	m := e.Merged(c)
	var out []*schema.Schema
	var expand func(n *schema.Schema, depth int)
	expand = func(n *schema.Schema, depth int) {
		f := e.soleFact(n)
		if f == nil || depth >= 4 {
			return
		}
		switch f.Kind {
		case algebra.FNot:
			out = append(out, f.S)
		case algebra.FAnyOf:
			for _, br := range f.Subs {
				expand(br, depth+1)
			}
		}
	}
	for _, n := range m.Nots {
		expand(n, 0)
	}
	return out
}

// newAffirmations returns the affirmations of c that are not among its parts yet. The
// parts are sorted by id: a conjunction grown along a chain of double negations has
// thousands of them.
func (e *Engine) newAffirmations(c *algebra.Conj) []*schema.Schema {
	var out []*schema.Schema
	for _, m := range e.affirmations(c) {
		id := e.Shell(m).Id
		if _, found := slices.BinarySearchFunc(c.Shells, id, func(n *algebra.Node, id int) int { return n.Id - id }); !found {
			out = append(out, m)
		}
	}
	return out
}

// soleFact returns the only fact of the conjunction of s alone, when it has exactly one.
func (e *Engine) soleFact(s *schema.Schema) *algebra.Fact {
	m := e.Merged(e.One(s))
	if m.NFacts != 1 {
		return nil
	}
	for f := range m.Facts {
		return f
	}
	return nil
}

// coversKind reports, from its merged view alone, that n accepts every instance of class
// k: it allows the class and none of its facts constrains it.
func (e *Engine) coversKind(n *schema.Schema, k schema.TypeSet) bool {
	m := e.Merged(e.One(n))
	if m.Empty || m.Types&k != k || len(m.Enums) > 0 {
		return false
	}
	for f := range m.Facts {
		switch f.Kind {
		case algebra.FType:
			continue
		case algebra.FFalse, algebra.FDynamic, algebra.FLoop, algebra.FUnread, algebra.FAnyOf, algebra.FOneOf, algebra.FNot, algebra.FCond, algebra.FEnum:
			return false
		}
		if f.KindOf()&k != 0 {
			return false
		}
	}
	return true
}

// Empty reports a proof that no instance of a within d exists, by the rules of
// emptyRules beyond those of live.
func (e *Engine) Empty(a *algebra.Conj, d schema.TypeSet, depth int) bool {
	d &= e.Live(a)
	if d == 0 {
		return true
	}
	if e.opaque(a) {
		return false // its evaluation may not end
	}
	return e.prove(e.EmptyMemo, e.EmptyProg, algebra.ProofKey{A: a.Kid, B: -1, Dom: d}, depth, func() bool { return e.emptyRules(a, d, depth) })
}

// EmptyHere reports a proof that no instance of a within d exists by what a says at its
// own instance level: the rules of live, its negations and its groups (every branch of an
// anyOf empty here, every branch of a oneOf empty here or included in another). The walk
// asks it of every location it compares; the members and items an instance must have are
// left to empty (the proofs), which reaches far deeper at a far greater cost. One
// question examines at most maxHereBranches branches (see takeBranch).
func (e *Engine) EmptyHere(a *algebra.Conj, d schema.TypeSet) bool {
	saved, savedIn := e.BranchesLeft, e.InHere
	e.BranchesLeft, e.InHere = maxHereBranches, true
	r := e.emptyHereAt(a, d)
	e.BranchesLeft, e.InHere = saved, savedIn
	return r
}

func (e *Engine) emptyHereAt(a *algebra.Conj, d schema.TypeSet) bool {
	d &= e.Live(a)
	if d == 0 {
		return true
	}
	ma := e.Merged(a)
	if ma.NGroups == 0 && len(ma.Nots) == 0 || e.opaque(a) {
		return false
	}
	key := algebra.ProofKey{A: a.Kid, B: -2, Dom: d}
	if r, ok := e.EmptyMemo[key]; ok {
		return r
	}
	e.EmptyMemo[key] = false // met again while being answered: not proved
	r := e.emptyParts(a, ma, d, 0, e.emptyHereAt)
	if e.Steps <= e.StepBudget {
		e.EmptyMemo[key] = r
	} else {
		delete(e.EmptyMemo, key)
	}
	return r
}

// Splitting a conjunction on its groups to show it empty examines one conjunction per
// branch, and the conjunctions of the branches chosen so far are as many as the sets of
// them: 16 independent anyOfs at one location once took 35 s and 1 GB. A question of the
// walk (emptyHere) may examine maxHereBranches branches, a question of the prover asked
// from outside it (prove at the bottom of its stack) maxProofBranches, over all the
// emptiness questions it leads to. The recursion of emptyHere goes one branch deeper per
// branch examined, so this bounds its depth too. Past the bound nothing more is proved
// (a "not proved" is remembered like one the splits of proveFacts leave: sound, and the
// questions asked again do not spend the step budget again).
const (
	maxHereBranches  = 64
	maxProofBranches = 2048
)

// takeBranch spends one branch of the question under way, and reports false (counting a
// cut) when none is left.
func (e *Engine) takeBranch() bool {
	if e.BranchesLeft <= 0 {
		e.BranchCuts++
		return false
	}
	e.BranchesLeft--
	return true
}

// emptyRules proves that a holds no instance within d: class by class (strings no pattern
// lets through within their lengths, arrays with a needed item that cannot be, objects
// with a required property whose value cannot be), through a negation that covers a
// class or all of a, or through a group none of whose branches can hold (every anyOf
// branch empty here; every oneOf branch empty here or included in another, so that an
// instance matching it matches two).
func (e *Engine) emptyRules(a *algebra.Conj, d schema.TypeSet, depth int) bool {
	ma := e.Merged(a)
	rest := d
	for _, k := range algebra.Kinds {
		if rest&k != 0 && e.kindEmpty(a, ma, k, depth) {
			rest &^= k
		}
	}
	if rest == 0 {
		return true
	}
	return e.emptyParts(a, ma, rest, depth, func(alt *algebra.Conj, d schema.TypeSet) bool { return e.Empty(alt, d, depth) })
}

// emptyParts proves that a holds no instance within d by its values when they are
// finite, its negations (one covers a class, or a is included in it), what its double
// negations affirm, and its groups, asking sub for the emptiness of a branch.
func (e *Engine) emptyParts(a *algebra.Conj, ma *algebra.Merged, d schema.TypeSet, depth int, sub func(*algebra.Conj, schema.TypeSet) bool) bool {
	if vals, ok := e.FiniteValues(a, ma, d, true); ok {
		return len(vals) == 0
	}
	rest := d
	for _, n := range e.negations(a) {
		cn := e.One(n)
		for _, k := range fineKinds {
			if rest&k != 0 && e.Sub(e.TrueConj, cn, k, depth) {
				rest &^= k
			}
		}
		if rest == 0 || e.Sub(a, cn, rest, depth) {
			return true
		}
	}
	if more := e.newAffirmations(a); len(more) > 0 && e.takeBranch() && sub(e.With(a, more), rest) {
		return true
	}
	for g := range ma.Groups {
		if g.Kind == algebra.FCond || len(g.Subs) > 16 {
			continue
		}
		ids := e.Choice(g)
		all := true
		for i, br := range g.Subs {
			if !e.takeBranch() {
				return false
			}
			alt := e.With(a, []*schema.Schema{br}, ids...)
			if sub(alt, rest) {
				continue
			}
			if g.Kind == algebra.FOneOf && e.coveredByOther(alt, g, i, rest, depth) {
				continue
			}
			all = false
			break
		}
		if all {
			return true
		}
	}
	return false
}

// coveredByOther reports that every instance of alt (a with branch i of the oneOf g) is
// valid under another branch of g too, so that it matches two.
func (e *Engine) coveredByOther(alt *algebra.Conj, g *algebra.Fact, i int, d schema.TypeSet, depth int) bool {
	if len(g.Subs) > 12 {
		return false
	}
	for j, o := range g.Subs {
		if j == i {
			continue
		}
		if e.sameDeref(g.Subs[i], o) || e.Sub(alt, e.One(o), d, depth) {
			return true
		}
	}
	return false
}

// kindEmpty proves that a holds no instance of class k by what its instances of that
// class must contain: a string the patterns let through within the lengths, the items an
// array must have, the properties an object must have.
func (e *Engine) kindEmpty(a *algebra.Conj, ma *algebra.Merged, k schema.TypeSet, depth int) bool {
	switch k {
	case schema.TypeString:
		// one pattern with no upper length: empty only if its language is (rare), not
		// worth compiling every pattern of a large schema for
		if len(ma.Patterns) == 0 || len(ma.Patterns) == 1 && ma.MaxLen < 0 {
			return false
		}
		must := e.automata(ma.Patterns)
		if len(must) == 0 {
			return false
		}
		_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: must, MinLen: ma.MinLen, MaxLen: ma.MaxLen})
		return exhaustive && !found
	case schema.TypeArray:
		need := ma.MinItems
		for _, f := range ma.Contains {
			need = max(need, f.I)
		}
		for i := 0; i < need && i < 8; i++ {
			if e.Empty(e.ConjOf(e.ItemSchemas(a, i), nil), schema.TypeAll, depth+1) {
				return true
			}
		}
		for _, f := range ma.Contains {
			if f.I > 0 && e.containsEmpty(a, f, depth) {
				return true
			}
		}
	case schema.TypeObject:
		for _, name := range algebra.SortedKeys(ma.Required) {
			vc, forbidden := e.ValueConj(a, name)
			if forbidden || e.Empty(vc, schema.TypeAll, depth+1) {
				return true
			}
		}
	}
	return false
}

// containsEmpty proves that no item of a can match contains f: its schema with the
// schemas of every position (the first ones, and the rest) is empty.
func (e *Engine) containsEmpty(a *algebra.Conj, f *algebra.Fact, depth int) bool {
	p := e.PrefixLen(a)
	for i := 0; i <= p; i++ {
		c := e.ConjOf(append(e.ItemSchemas(a, i), f.S), nil)
		if !e.Empty(c, schema.TypeAll, depth+1) {
			return false
		}
	}
	return true
}
