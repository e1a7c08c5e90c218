package diff

import (
	"math/big"
	"slices"

	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// This file holds what implies knows of each kind of fact: one handler per kind, in a
// table by kind (impliers). implies itself does what is common to every kind (a fact on
// another class of values holds, the budget, loops, finite sets of values) and asks the
// handler of the fact's kind; TestImpliersCoverKinds holds the table to the kinds.

// implier proves one fact f of b for every instance of the conjunction a (merged: ma)
// within d, depth deep in the proof.
type implier func(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool

// impliers are the handlers by fact kind; the kinds nothing proves (fDynamic, fLoop,
// fUnread) have
// none. It is filled by init: the handlers ask the prover, which reaches implies again.
var impliers [nFactKinds]implier

// unproved are the kinds of facts that have no implier, with the reason.
var unproved = map[factKind]string{
	fDynamic: "an unresolved dynamic reference: its target depends on the dynamic scope",
	fLoop:    "a schema on a loop of in-place applicators: its evaluation may never end",
	fUnread:  "a keyword diff does not read: nothing is known of what it does",
}

func init() {
	impliers = [nFactKinds]implier{
		fFalse: impliesFalse, fType: impliesType, fEnum: impliesEnum,
		fLower: impliesLower, fUpper: impliesUpper, fMultipleOf: impliesMultipleOf,
		fMinLength: impliesMinLength, fMaxLength: impliesMaxLength, fPattern: impliesPattern,
		fFormat: impliesFormat, fContent: impliesContent,
		fMinItems: impliesMinItems, fMaxItems: impliesMaxItems, fUnique: impliesUnique,
		fItem: impliesItem, fTail: impliesTail, fContains: impliesContains, fUnevalItems: impliesUnevalItems,
		fMinProps: impliesMinProps, fMaxProps: impliesMaxProps, fRequired: impliesRequired,
		fProp: impliesProp, fPatternProp: impliesPatternProp, fAdditional: impliesAdditional,
		fUnevalProps: impliesUnevalProps, fPropNames: impliesPropNames,
		fDepRequired: impliesDepRequired, fDepSchema: impliesDepSchema,
		fAnyOf: impliesAnyOf, fOneOf: impliesOneOf, fNot: impliesNot, fCond: impliesCond,
	}
}

// impliesFalse: only nothing is valid under false.
func impliesFalse(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return e.empty(a, d, depth)
}

// impliesType: the types a allows within d (not the fractions, when a holds integers only)
// are among the fact's.
func impliesType(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	eff := d
	if ma.intOnly() {
		eff &^= schema.TypeFraction
	}
	return eff&^f.types == 0
}

// impliesEnum: a allows finitely many values, each of them listed.
func impliesEnum(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	vals, ok := e.finiteValues(a, ma, d, true)
	if !ok {
		return false
	}
	return len(missing(vals, f.vals)) == 0
}

// impliesLower: a's lower bound is at least the fact's (on whole numbers only, when a holds
// no fraction).
func impliesLower(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return lowerImplies(ma.lo, f.b, ma.intOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0)
}

// impliesUpper: a's upper bound is at most the fact's (on whole numbers only, when a holds
// no fraction).
func impliesUpper(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return upperImplies(ma.hi, f.b, ma.intOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0)
}

// impliesMultipleOf: one of a's divisors is a multiple of the fact's, a holds whole numbers
// only and 1 is a multiple of the fact's, or a allows one number only, a multiple of it.
func impliesMultipleOf(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	for _, m := range ma.mults {
		if isMultiple(m, f.r) {
			return true
		}
	}
	if (ma.intOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0) && isMultiple(big.NewRat(1, 1), f.r) {
		return true
	}
	if ma.lo != nil && ma.hi != nil && !ma.lo.excl && !ma.hi.excl && ma.lo.v.Cmp(ma.hi.v) == 0 {
		return isMultiple(ma.lo.v, f.r)
	}
	return false
}

// impliesMinLength: a's minimum length is at least the fact's, or a's patterns match no
// shorter string.
func impliesMinLength(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return ma.minLen >= f.i || e.patternsBound(ma, 0, f.i-1)
}

// impliesMaxLength: a's maximum length is at most the fact's, or a's patterns match no
// longer string.
func impliesMaxLength(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return ma.maxLen >= 0 && ma.maxLen <= f.i || e.patternsBound(ma, f.i+1, -1)
}

// impliesPattern: a has the same pattern, or no string of a's lengths matches all of a's
// patterns and not the fact's (an exhaustive search of the automata).
func impliesPattern(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if slices.Contains(ma.patterns, f.str) {
		return true
	}
	b := e.pats.Get(f.str)
	if b == nil {
		return false
	}
	var must []*pattern.Automaton
	for _, p := range ma.patterns {
		if x := e.pats.Get(p); x != nil {
			must = append(must, x)
		}
	}
	_, found, exhaustive := e.pats.Solve(pattern.Query{Must: must, MustNot: []*pattern.Automaton{b}, MinLen: ma.minLen, MaxLen: ma.maxLen})
	return exhaustive && !found
}

// impliesFormat: a asserts the same format.
func impliesFormat(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return slices.Contains(ma.formats, f.str)
}

// impliesContent: a asserts the same content.
func impliesContent(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return slices.Contains(ma.content, f.str)
}

// impliesMinItems: a requires as many items.
func impliesMinItems(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return ma.minItems >= f.i
}

// impliesMaxItems: a allows as many items at most.
func impliesMaxItems(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	mx := e.maxItemsOf(a, ma)
	return mx >= 0 && mx <= f.i
}

// impliesUnique: a requires unique items, or allows one item at most.
func impliesUnique(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	mx := e.maxItemsOf(a, ma)
	return ma.unique || (mx >= 0 && mx <= 1)
}

// impliesItem: a has no item at that position, or the schemas a applies there imply the
// fact's.
func impliesItem(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if mx := e.maxItemsOf(a, ma); mx >= 0 && mx <= f.i {
		return true
	}
	return e.sub(e.conjOf(e.itemSchemas(a, f.i), nil), e.one(f.s), schema.TypeAll, depth+1)
}

// impliesTail: the schemas a applies to the items after the prefix imply the fact's
// (tailImplies).
func impliesTail(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return e.tailImplies(a, ma, f.i, f.s, depth)
}

// impliesContains: see containsImplies.
func impliesContains(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return e.containsImplies(a, ma, f, depth)
}

// impliesUnevalItems: true says nothing; with items, every position is evaluated; read as
// additional items when it can be (unevalItemsAsAdditional).
func impliesUnevalItems(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if e.isTrue(f.s) {
		return true
	}
	if !e.unevalItemsAsAdditional(f.n) || f.n.items != nil {
		return f.n.items != nil // with items every position is evaluated
	}
	return e.tailImplies(a, ma, len(f.n.prefix), f.s, depth)
}

// impliesMinProps: a requires as many properties, or as many names.
func impliesMinProps(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return ma.minProps >= f.i || len(ma.required) >= f.i
}

// impliesMaxProps: a allows as many properties at most.
func impliesMaxProps(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	mx := e.maxPropsOf(a, ma)
	return mx >= 0 && mx <= f.i
}

// impliesRequired: a requires the name, or the reader-defaults policy fills it
// (defaultFills).
func impliesRequired(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if ma.required[f.str] || e.negProps(a).required[f.str] {
		return true
	}
	return e.defaultFills(f)
}

// impliesProp: a forbids the property, or the schemas a applies to its value imply the
// fact's.
func impliesProp(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	vc, forbidden := e.valueConj(a, f.str)
	if forbidden || e.sub(vc, e.one(f.s), schema.TypeAll, depth+1) {
		return true
	}
	// finitely many values, but those a's negations exclude (negProps): each valid
	if ex := e.negProps(a).excluded[f.str]; len(ex) > 0 {
		if vals, ok := e.leftValues(vc, ex); ok {
			for _, v := range vals {
				if good, err := f.s.ValidContext(e.ctx, v); err != nil || !good {
					return false
				}
			}
			return true
		}
	}
	return false
}

// impliesPatternProp: the values of a's names that match the pattern, and of the other
// names that may, are valid under the fact's schema.
func impliesPatternProp(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	for _, k := range e.explicitNames(a) {
		if !e.patternMatches(f.str, k) {
			continue
		}
		vc, forbidden := e.valueConj(a, k)
		if !forbidden && !e.sub(vc, e.one(f.s), schema.TypeAll, depth+1) {
			return false
		}
	}
	return e.otherNamesImply(a, f.str, nil, nil, f.s, depth)
}

// impliesAdditional: see additionalImplies.
func impliesAdditional(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return e.additionalImplies(a, f.n, f.s, depth)
}

// impliesUnevalProps: true, or beside additionalProperties, says nothing; read as
// additionalProperties when it can be (unevalAsAdditional).
func impliesUnevalProps(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if e.isTrue(f.s) || f.n.additional != nil {
		return true
	}
	if !e.unevalAsAdditional(f.n) {
		return false
	}
	return e.additionalImplies(a, f.n, f.s, depth)
}

// impliesPropNames: a's names are finitely many and each valid, or a's propertyNames imply
// the fact's.
func impliesPropNames(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if names, ok := e.closedNames(a); ok {
		for _, k := range names {
			if good, err := f.s.ValidContext(e.ctx, source.StringValue(k)); err != nil || !good {
				return false
			}
		}
		return true
	}
	for _, p := range ma.pnames {
		if e.sub(e.one(p), e.one(f.s), schema.TypeString, depth+1) {
			return true
		}
	}
	return false
}

// impliesDepRequired: a forbids the trigger, or requires each name (where the trigger is,
// or always).
func impliesDepRequired(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if _, forbidden := e.valueConj(a, f.str); forbidden {
		return true
	}
	for _, r := range f.list {
		if !ma.required[r] && !ma.depReq[f.str][r] && r != f.str {
			return false
		}
	}
	return true
}

// impliesDepSchema: a forbids the trigger, implies the schema, does with a dependent schema
// of the same trigger, or does where the trigger is (triggeredImplies).
func impliesDepSchema(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if _, forbidden := e.valueConj(a, f.str); forbidden {
		return true
	}
	if e.sub(a, e.one(f.s), d&schema.TypeObject, depth) {
		return true
	}
	for _, g := range ma.depSch {
		if g.str == f.str && e.sub(e.with(a, []*schema.Schema{g.s}), e.one(f.s), d&schema.TypeObject, depth) {
			return true
		}
	}
	return e.triggeredImplies(a, ma, f, d&schema.TypeObject, depth)
}

// impliesAnyOf: see anyOfImplied.
func impliesAnyOf(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	return e.anyOfImplied(a, ma, f, d, depth)
}

// impliesOneOf: class by class (numbers by their finer classes if need be), one branch
// holds a's instances and the others none.
func impliesOneOf(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	for _, k := range kinds {
		dk := d & k
		if dk == 0 || e.oneBranch(a, f, dk, depth) {
			continue
		}
		if k == schema.TypeNumber && e.eachFine(dk, func(x schema.TypeSet) bool { return e.oneBranch(a, f, x, depth) }) {
			continue
		}
		if e.coverDisjoint(a, ma, f, dk, depth) {
			continue
		}
		return false
	}
	return true
}

// maxCoverDisjoint bounds the branches of a oneOf coverDisjoint examines (as many
// questions as pairs of branches).
const maxCoverDisjoint = 24

// coverDisjoint proves the oneOf f for every instance of a within d when no one branch
// holds them all: the branches together hold them (anyOfImplied), and within a no two
// branches hold the same instance, so each instance matches exactly one.
func (e *engine) coverDisjoint(a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if len(f.subs) < 2 || len(f.subs) > maxCoverDisjoint || !e.anyOfImplied(a, ma, f, d, depth) {
		return false
	}
	for i, bi := range f.subs {
		ai := e.with(a, []*schema.Schema{bi})
		for _, bj := range f.subs[i+1:] {
			if !e.disjoint(ai, e.one(bj), d, depth) {
				return false
			}
		}
	}
	return true
}

// impliesNot: a is disjoint from the schema, or a negates a schema that holds it.
func impliesNot(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	if e.disjoint(a, e.one(f.s), d, depth) {
		return true
	}
	for _, n := range e.negations(a) {
		if e.sub(e.one(f.s), e.one(n), d, depth) {
			return true
		}
	}
	return false
}

// impliesCond: a has a condition with the same if whose branches imply the fact's, or a
// implies the branch each instance takes (then where the if may hold, else where it may
// fail).
func impliesCond(e *engine, a *conj, ma *merged, f *fact, d schema.TypeSet, depth int) bool {
	i, t, el := f.subs[0], f.subs[1], f.subs[2]
	ci := e.one(i)
	// a has a condition with the same if: compare the branches under it
	hi := e.hashOf(i)
	for g := range ma.groups {
		if g.kind != fCond {
			continue
		}
		gi := g.subs[0]
		if e.hashOf(gi) != hi && ma.nGroups > 8 {
			continue // many conditions: only those with the same if are compared
		}
		if !e.same(gi, i) && !(e.sub(e.one(gi), ci, schema.TypeAll, depth) && e.sub(ci, e.one(gi), schema.TypeAll, depth)) {
			continue
		}
		id := e.groupOf(g)
		thenOK := t == nil || e.sub(e.with(a, nonNil(gi, g.subs[1]), id), e.one(t), d, depth)
		elseOK := el == nil || e.sub(a, e.one(el), d, depth) ||
			(g.subs[2] != nil && e.sub(e.with(a, []*schema.Schema{g.subs[2]}, id), e.one(el), d, depth))
		if thenOK && elseOK {
			return true
		}
	}
	thenOK := t == nil || e.sub(a, e.one(t), d, depth) || e.disjoint(a, ci, d, depth) ||
		e.sub(e.with(a, []*schema.Schema{i}), e.one(t), d, depth)
	elseOK := el == nil || e.sub(a, e.one(el), d, depth) || e.sub(a, ci, d, depth)
	return thenOK && elseOK
}
