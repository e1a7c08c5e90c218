package diff

import (
	"math/big"
	"slices"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Unions that cover: an anyOf none of whose branches holds every instance of a class, but
// whose branches together do. Two shapes are decided: branches that constrain the class
// only by one measure (a number's value, a string's length, an array's length, an
// object's number of properties), whose ranges together cover the range of the
// instances (anyOf [{maxItems: 2}, {minItems: 2}] against an array); and branches that
// are each the negation of a schema, whose union is the complement of the conjunction of
// those schemas (anyOf [{not: X}, {not: Y}] holds for every instance that is not in both
// X and Y).

// interval is a range of a measure: lo and hi nil when unbounded.
type interval struct {
	lo, hi *bound
}

// measureOf returns the range of class k that the schema s alone allows, when bounds of
// one measure are all it says about that class (besides the class itself).
func (e *engine) measureOf(s *schema.Schema, k schema.TypeSet) (interval, bool) {
	m := e.merged(e.one(s))
	if m.empty || m.types&k != k || len(m.enums) > 0 {
		return interval{}, false
	}
	lower, upper := measureKinds(k)
	for f := range m.facts {
		switch {
		case f.kind == fType:
		case f.kind == lower || f.kind == upper:
		case isGroup(f.kind) || f.kind == fNot || f.kind == fFalse || f.kind == fDynamic || f.kind == fLoop || f.kind == fUnread || f.kind == fEnum:
			return interval{}, false
		case f.kindOf()&k != 0:
			return interval{}, false
		}
	}
	return e.rangeOf(nil, m, k), true
}

// measureKinds are the facts that bound the measure of class k.
func measureKinds(k schema.TypeSet) (lower, upper factKind) {
	switch {
	case k&schema.TypeNumber != 0:
		return fLower, fUpper
	case k == schema.TypeString:
		return fMinLength, fMaxLength
	case k == schema.TypeArray:
		return fMinItems, fMaxItems
	}
	return fMinProps, fMaxProps
}

// rangeOf is the range of the measure of class k in the merged view m (of the
// conjunction c, when given: what it allows besides m's own bounds, as the items a closed
// tuple allows, counts too).
func (e *engine) rangeOf(c *conj, m *merged, k schema.TypeSet) interval {
	count := func(lo, hi int) interval {
		r := interval{lo: &bound{v: big.NewRat(int64(lo), 1)}}
		if hi >= 0 {
			r.hi = &bound{v: big.NewRat(int64(hi), 1)}
		}
		return r
	}
	switch {
	case k&schema.TypeNumber != 0:
		return interval{m.lo, m.hi}
	case k == schema.TypeString:
		return count(m.minLen, m.maxLen)
	case k == schema.TypeArray:
		hi := m.maxItems
		if c != nil {
			hi = e.maxItemsOf(c, m)
		}
		return count(m.minItems, hi)
	}
	hi := m.maxProps
	if c != nil {
		hi = e.maxPropsOf(c, m)
	}
	return count(max(m.minProps, len(m.required)), hi)
}

// unionCovers reports that the branches of the anyOf f whose only constraint on class k
// is a range of its measure together cover the range of a's instances of that class.
func (e *engine) unionCovers(a *conj, ma *merged, f *fact, k schema.TypeSet) bool {
	if len(f.subs) > 24 {
		return false
	}
	var parts []interval
	for _, br := range f.subs {
		if r, ok := e.measureOf(br, k); ok {
			parts = append(parts, r)
		}
	}
	if len(parts) < 2 {
		return false
	}
	ints := k&schema.TypeNumber == 0 || k&schema.TypeFraction == 0 || ma.intOnly()
	return covers(e.rangeOf(a, ma, k), parts, ints)
}

// covers reports whether the ranges parts together cover target (over the integers when
// ints is set).
func covers(target interval, parts []interval, ints bool) bool {
	if ints {
		target = intRange(target)
		for i := range parts {
			parts[i] = intRange(parts[i])
		}
	}
	// sweep from target's lower end: cur is the first point not yet covered ("at or
	// above cur" when incl, "above cur" otherwise; nil cur: from minus infinity)
	cur, incl := lowerPoint(target.lo)
	for range len(parts) + 1 {
		if past(cur, incl, target.hi) {
			return true
		}
		var best *interval
		for i := range parts {
			p := &parts[i]
			if !admits(p.lo, cur, incl) {
				continue
			}
			if best == nil || higher(p.hi, best.hi) {
				best = p
			}
		}
		if best == nil {
			return false
		}
		if best.hi == nil {
			return true
		}
		next, nincl := best.hi.v, best.hi.excl // after an exclusive end, the end itself is next
		if cur != nil && (next.Cmp(cur) < 0 || next.Cmp(cur) == 0 && (nincl || !incl)) {
			return false // no progress
		}
		cur, incl = next, nincl
		if ints {
			cur, incl = new(big.Rat).Add(next, big.NewRat(1, 1)), true
		}
	}
	return false
}

// lowerPoint is the first point of a range with lower bound lo.
func lowerPoint(lo *bound) (*big.Rat, bool) {
	if lo == nil {
		return nil, true
	}
	return lo.v, !lo.excl
}

// past reports whether the first uncovered point is beyond upper bound hi.
func past(cur *big.Rat, incl bool, hi *bound) bool {
	if hi == nil || cur == nil {
		return false
	}
	c := cur.Cmp(hi.v)
	return c > 0 || c == 0 && (hi.excl || !incl)
}

// admits reports whether a range with lower bound lo contains the point cur (incl) or
// the points just above it.
func admits(lo *bound, cur *big.Rat, incl bool) bool {
	if lo == nil {
		return true
	}
	if cur == nil {
		return false
	}
	c := lo.v.Cmp(cur)
	return c < 0 || c == 0 && (!lo.excl || !incl)
}

// higher reports whether upper bound a reaches beyond b.
func higher(a, b *bound) bool {
	if a == nil {
		return b != nil
	}
	if b == nil {
		return false
	}
	c := a.v.Cmp(b.v)
	return c > 0 || c == 0 && !a.excl && b.excl
}

// intRange turns a range into the inclusive range of the integers in it.
func intRange(r interval) interval {
	var out interval
	if r.lo != nil {
		out.lo = &bound{v: intLower(r.lo)}
	}
	if r.hi != nil {
		out.hi = &bound{v: intUpper(r.hi)}
	}
	return out
}

// negatedBranches returns the schemas X of an anyOf whose every branch is the negation of
// a schema ({not: X}), or nil.
func (e *engine) negatedBranches(f *fact) []*schema.Schema {
	out := make([]*schema.Schema, 0, len(f.subs))
	for _, br := range f.subs {
		g := e.soleFact(br)
		if g == nil || g.kind != fNot {
			return nil
		}
		out = append(out, g.s)
	}
	return out
}

// complementCovers proves an anyOf that has a branch {not: X} and a branch Y holding
// every instance of a that X holds: an instance of a is either not in X, or in X and so
// in Y (anyOf [{not: X}, X] holds everything).
func (e *engine) complementCovers(a *conj, f *fact, d schema.TypeSet, depth int) bool {
	if len(f.subs) > 24 {
		return false
	}
	for i, br := range f.subs {
		g := e.soleFact(br)
		if g == nil || g.kind != fNot {
			continue
		}
		inX := e.with(a, []*schema.Schema{g.s})
		for j, y := range f.subs {
			if j != i && e.sub(inX, e.one(y), d, depth) {
				return true
			}
		}
	}
	return false
}

// singletons returns the values of the classes d of c when each class holds at most one
// value (a number range of one point, strings of length 0, arrays with no item, objects
// with no property), with null and the booleans.
func (e *engine) singletons(c *conj, m *merged, d schema.TypeSet) ([]source.Value, bool) {
	var out []source.Value
	if d&schema.TypeNumber != 0 {
		if m.lo == nil || m.hi == nil || m.lo.excl || m.hi.excl || m.lo.v.Cmp(m.hi.v) != 0 {
			return nil, false
		}
		lit, ok := ratLiteral(m.lo.v)
		if !ok {
			return nil, false
		}
		out = append(out, source.NumberValue(lit))
	}
	if d&schema.TypeString != 0 {
		if m.maxLen != 0 {
			return nil, false
		}
		out = append(out, source.StringValue(""))
	}
	if d&schema.TypeArray != 0 {
		if m.maxItems != 0 && !e.noItems(c) {
			return nil, false
		}
		out = append(out, source.ArrayValue())
	}
	if d&schema.TypeObject != 0 {
		if m.maxProps != 0 && !e.noMembers(c) {
			return nil, false
		}
		var b source.ObjectBuilder
		out = append(out, b.Value())
	}
	if d&schema.TypeNull != 0 {
		out = append(out, source.NullValue())
	}
	if d&schema.TypeBoolean != 0 {
		out = append(out, source.BoolValue(true), source.BoolValue(false))
	}
	return out, true
}

// noItems reports a part of c that allows no item at all.
func (e *engine) noItems(c *conj) bool {
	for _, n := range e.parts(c) {
		if len(n.prefix) == 0 && n.items != nil && isFalse(n.items) || len(n.prefix) > 0 && isFalse(n.prefix[0]) {
			return true
		}
	}
	return false
}

// noMembers reports a part of c that allows no property at all: additionalProperties
// false, no patternProperties, and only properties whose schema is false.
func (e *engine) noMembers(c *conj) bool {
	for _, n := range e.parts(c) {
		if n.additional == nil || !isFalse(n.additional) || len(n.patterns) > 0 {
			continue
		}
		if !slices.ContainsFunc(n.propOrder, func(k string) bool { return !isFalse(n.props[k]) }) {
			return true
		}
	}
	return false
}

func isFalse(s *schema.Schema) bool {
	v, isBool := s.Bool()
	return isBool && !v
}
