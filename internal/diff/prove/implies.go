package prove

import (
	"math/big"
	"slices"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
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
type implier func(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool

// impliers are the handlers by fact kind; the kinds nothing proves (fDynamic, fLoop,
// fUnread) have
// none. It is filled by init: the handlers ask the prover, which reaches implies again.
var impliers [algebra.NFactKinds]implier

// unproved are the kinds of facts that have no implier, with the reason.
func unproved() map[algebra.FactKind]string {
	return map[algebra.FactKind]string{
		algebra.FDynamic: "an unresolved dynamic reference: its target depends on the dynamic scope",
		algebra.FLoop:    "a schema on a loop of in-place applicators: its evaluation may never end",
		algebra.FUnread:  "a keyword diff does not read: nothing is known of what it does",
	}
}

func init() {
	impliers = [algebra.NFactKinds]implier{
		algebra.FFalse: impliesFalse, algebra.FType: impliesType, algebra.FEnum: impliesEnum,
		algebra.FLower: impliesLower, algebra.FUpper: impliesUpper, algebra.FMultipleOf: impliesMultipleOf,
		algebra.FMinLength: impliesMinLength, algebra.FMaxLength: impliesMaxLength, algebra.FPattern: impliesPattern,
		algebra.FFormat: impliesFormat, algebra.FContent: impliesContent,
		algebra.FMinItems: impliesMinItems, algebra.FMaxItems: impliesMaxItems, algebra.FUnique: impliesUnique,
		algebra.FItem: impliesItem, algebra.FTail: impliesTail, algebra.FContains: impliesContains, algebra.FUnevalItems: impliesUnevalItems,
		algebra.FMinProps: impliesMinProps, algebra.FMaxProps: impliesMaxProps, algebra.FRequired: impliesRequired,
		algebra.FProp: impliesProp, algebra.FPatternProp: impliesPatternProp, algebra.FAdditional: impliesAdditional,
		algebra.FUnevalProps: impliesUnevalProps, algebra.FPropNames: impliesPropNames,
		algebra.FDepRequired: impliesDepRequired, algebra.FDepSchema: impliesDepSchema,
		algebra.FAnyOf: impliesAnyOf, algebra.FOneOf: impliesOneOf, algebra.FNot: impliesNot, algebra.FCond: impliesCond,
	}
}

// impliesFalse: only nothing is valid under false.
func impliesFalse(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return e.Empty(a, d, depth)
}

// impliesType: the types a allows within d (not the fractions, when a holds integers only)
// are among the fact's.
func impliesType(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	eff := d
	if ma.IntOnly() {
		eff &^= schema.TypeFraction
	}
	return eff&^f.Types == 0
}

// impliesEnum: a allows finitely many values, each of them listed.
func impliesEnum(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	vals, ok := e.FiniteValues(a, ma, d, true)
	if !ok {
		return false
	}
	return len(algebra.Missing(vals, f.Vals)) == 0
}

// impliesLower: a's lower bound is at least the fact's (on whole numbers only, when a holds
// no fraction).
func impliesLower(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return algebra.LowerImplies(ma.Lo, f.B, ma.IntOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0)
}

// impliesUpper: a's upper bound is at most the fact's (on whole numbers only, when a holds
// no fraction).
func impliesUpper(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return algebra.UpperImplies(ma.Hi, f.B, ma.IntOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0)
}

// impliesMultipleOf: one of a's divisors is a multiple of the fact's, a holds whole numbers
// only and 1 is a multiple of the fact's, or a allows one number only, a multiple of it.
func impliesMultipleOf(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for _, m := range ma.Mults {
		if algebra.IsMultiple(m, f.R) {
			return true
		}
	}
	if (ma.IntOnly() || d&schema.TypeNumber&^(schema.TypeInteger|schema.TypeDotted) == 0) && algebra.IsMultiple(big.NewRat(1, 1), f.R) {
		return true
	}
	if ma.Lo != nil && ma.Hi != nil && !ma.Lo.Excl && !ma.Hi.Excl && ma.Lo.V.Cmp(ma.Hi.V) == 0 {
		return algebra.IsMultiple(ma.Lo.V, f.R)
	}
	return false
}

// impliesMinLength: a's minimum length is at least the fact's, or a's patterns match no
// shorter string.
func impliesMinLength(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return ma.MinLen >= f.I || e.patternsBound(ma, 0, f.I-1)
}

// impliesMaxLength: a's maximum length is at most the fact's, or a's patterns match no
// longer string.
func impliesMaxLength(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return ma.MaxLen >= 0 && ma.MaxLen <= f.I || e.patternsBound(ma, f.I+1, -1)
}

// impliesPattern: a has the same pattern, or no string of a's lengths matches all of a's
// patterns and not the fact's (an exhaustive search of the automata).
func impliesPattern(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if slices.Contains(ma.Patterns, f.Str) {
		return true
	}
	b := e.Pats.Get(f.Str)
	if b == nil {
		return false
	}
	_, found, exhaustive := e.Pats.Solve(pattern.Query{Must: e.automata(ma.Patterns), MustNot: []*pattern.Automaton{b}, MinLen: ma.MinLen, MaxLen: ma.MaxLen})
	return exhaustive && !found
}

// impliesFormat: a asserts the same format.
func impliesFormat(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return slices.Contains(ma.Formats, f.Str)
}

// impliesContent: a asserts the same content.
func impliesContent(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return slices.Contains(ma.Content, f.Str)
}

// impliesMinItems: a requires as many items.
func impliesMinItems(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return ma.MinItems >= f.I
}

// impliesMaxItems: a allows as many items at most.
func impliesMaxItems(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	mx := e.MaxItemsOf(a, ma)
	return mx >= 0 && mx <= f.I
}

// impliesUnique: a requires unique items, or allows one item at most.
func impliesUnique(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	mx := e.MaxItemsOf(a, ma)
	return ma.Unique || (mx >= 0 && mx <= 1)
}

// impliesItem: a has no item at that position, or the schemas a applies there imply the
// fact's.
func impliesItem(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if mx := e.MaxItemsOf(a, ma); mx >= 0 && mx <= f.I {
		return true
	}
	return e.Sub(e.ConjOf(e.ItemSchemas(a, f.I), nil), e.One(f.S), schema.TypeAll, depth+1)
}

// impliesTail: the schemas a applies to the items after the prefix imply the fact's
// (tailImplies).
func impliesTail(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return e.tailImplies(a, ma, f.I, f.S, depth)
}

// impliesContains: see containsImplies.
func impliesContains(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return e.containsImplies(a, ma, f, depth)
}

// impliesUnevalItems: true says nothing; with items, every position is evaluated; read as
// additional items when it can be (unevalItemsAsAdditional).
func impliesUnevalItems(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if e.isTrue(f.S) {
		return true
	}
	if !e.UnevalItemsAsAdditional(f.N) || f.N.Items != nil {
		return f.N.Items != nil // with items every position is evaluated
	}
	return e.tailImplies(a, ma, len(f.N.Prefix), f.S, depth)
}

// impliesMinProps: a requires as many properties, or as many names.
func impliesMinProps(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return ma.MinProps >= f.I || len(ma.Required) >= f.I
}

// impliesMaxProps: a allows as many properties at most.
func impliesMaxProps(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	mx := e.MaxPropsOf(a, ma)
	return mx >= 0 && mx <= f.I
}

// impliesRequired: a requires the name, or the reader-defaults policy fills it
// (defaultFills).
func impliesRequired(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if ma.Required[f.Str] || e.negProps(a).Required[f.Str] {
		return true
	}
	return e.defaultFills(f)
}

// impliesProp: a forbids the property, or the schemas a applies to its value imply the
// fact's.
func impliesProp(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	vc, forbidden := e.ValueConj(a, f.Str)
	if forbidden || e.Sub(vc, e.One(f.S), schema.TypeAll, depth+1) {
		return true
	}
	// finitely many values, but those a's negations exclude (negProps): each valid
	if ex := e.negProps(a).Excluded[f.Str]; len(ex) > 0 {
		if vals, ok := e.leftValues(vc, ex); ok {
			for _, v := range vals {
				if good, err := f.S.ValidContext(e.Ctx, v); err != nil || !good {
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
func impliesPatternProp(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for _, k := range e.ExplicitNames(a) {
		if !e.PatternMatches(f.Str, k) {
			continue
		}
		vc, forbidden := e.ValueConj(a, k)
		if !forbidden && !e.Sub(vc, e.One(f.S), schema.TypeAll, depth+1) {
			return false
		}
	}
	return e.otherNamesImply(a, f.Str, nil, nil, f.S, depth)
}

// impliesAdditional: see additionalImplies.
func impliesAdditional(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return e.additionalImplies(a, f.N, f.S, depth)
}

// impliesUnevalProps: true, or beside additionalProperties, says nothing; read as
// additionalProperties when it can be (unevalAsAdditional).
func impliesUnevalProps(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if e.isTrue(f.S) || f.N.Additional != nil {
		return true
	}
	if !e.UnevalAsAdditional(f.N) {
		return false
	}
	return e.additionalImplies(a, f.N, f.S, depth)
}

// impliesPropNames: a's names are finitely many and each valid, or a's propertyNames imply
// the fact's.
func impliesPropNames(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if names, ok := e.ClosedNames(a); ok {
		for _, k := range names {
			if good, err := f.S.ValidContext(e.Ctx, source.StringValue(k)); err != nil || !good {
				return false
			}
		}
		return true
	}
	for _, p := range ma.Pnames {
		if e.Sub(e.One(p), e.One(f.S), schema.TypeString, depth+1) {
			return true
		}
	}
	return false
}

// impliesDepRequired: a forbids the trigger, or requires each name (where the trigger is,
// or always).
func impliesDepRequired(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if _, forbidden := e.ValueConj(a, f.Str); forbidden {
		return true
	}
	for _, r := range f.List {
		if !ma.Required[r] && !ma.DepReq[f.Str][r] && r != f.Str {
			return false
		}
	}
	return true
}

// impliesDepSchema: a forbids the trigger, implies the schema, does with a dependent schema
// of the same trigger, or does where the trigger is (triggeredImplies).
func impliesDepSchema(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if _, forbidden := e.ValueConj(a, f.Str); forbidden {
		return true
	}
	if e.Sub(a, e.One(f.S), d&schema.TypeObject, depth) {
		return true
	}
	for _, g := range ma.DepSch {
		if g.Str == f.Str && e.Sub(e.With(a, []*schema.Schema{g.S}), e.One(f.S), d&schema.TypeObject, depth) {
			return true
		}
	}
	return e.triggeredImplies(a, ma, f, d&schema.TypeObject, depth)
}

// impliesAnyOf: see anyOfImplied.
func impliesAnyOf(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	return e.anyOfImplied(a, ma, f, d, depth)
}

// impliesOneOf: class by class (numbers by their finer classes if need be), one branch
// holds a's instances and the others none.
func impliesOneOf(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	for _, k := range algebra.Kinds {
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
func (e *Engine) coverDisjoint(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if len(f.Subs) < 2 || len(f.Subs) > maxCoverDisjoint || !e.anyOfImplied(a, ma, f, d, depth) {
		return false
	}
	for i, bi := range f.Subs {
		ai := e.With(a, []*schema.Schema{bi})
		for _, bj := range f.Subs[i+1:] {
			if !e.Disjoint(ai, e.One(bj), d, depth) {
				return false
			}
		}
	}
	return true
}

// impliesNot: a is disjoint from the schema, or a negates a schema that holds it.
func impliesNot(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if e.Disjoint(a, e.One(f.S), d, depth) {
		return true
	}
	for _, n := range e.negations(a) {
		if e.Sub(e.One(f.S), e.One(n), d, depth) {
			return true
		}
	}
	return false
}

// impliesCond: a has a condition with the same if whose branches imply the fact's, or a
// implies the branch each instance takes (then where the if may hold, else where it may
// fail).
func impliesCond(e *Engine, a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	i, t, el := f.Subs[0], f.Subs[1], f.Subs[2]
	ci := e.One(i)
	// a has a condition with the same if: compare the branches under it
	hi := e.HashOf(i)
	for g := range ma.Groups {
		if g.Kind != algebra.FCond {
			continue
		}
		gi := g.Subs[0]
		if e.HashOf(gi) != hi && ma.NGroups > 8 {
			continue // many conditions: only those with the same if are compared
		}
		if !e.Same(gi, i) && !(e.Sub(e.One(gi), ci, schema.TypeAll, depth) && e.Sub(ci, e.One(gi), schema.TypeAll, depth)) {
			continue
		}
		id := e.GroupOf(g)
		thenOK := t == nil || e.Sub(e.With(a, NonNil(gi, g.Subs[1]), id), e.One(t), d, depth)
		elseOK := el == nil || e.Sub(a, e.One(el), d, depth) ||
			(g.Subs[2] != nil && e.Sub(e.With(a, []*schema.Schema{g.Subs[2]}, id), e.One(el), d, depth))
		if thenOK && elseOK {
			return true
		}
	}
	thenOK := t == nil || e.Sub(a, e.One(t), d, depth) || e.Disjoint(a, ci, d, depth) ||
		e.Sub(e.With(a, []*schema.Schema{i}), e.One(t), d, depth)
	elseOK := el == nil || e.Sub(a, e.One(el), d, depth) || e.Sub(a, ci, d, depth)
	return thenOK && elseOK
}
