package prove

import (
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"math/big"

	"github.com/jstk-dev/jstk/internal/schema"
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
	lo, hi *algebra.Bound
}

// measureOf returns the range of class k that the schema s alone allows, when bounds of
// one measure are all it says about that class (besides the class itself).
func (e *Engine) measureOf(s *schema.Schema, k schema.TypeSet) (interval, bool) {
	m := e.Merged(e.One(s))
	if m.Empty || m.Types&k != k || len(m.Enums) > 0 {
		return interval{}, false
	}
	lower, upper := measureKinds(k)
	for f := range m.Facts {
		switch {
		case f.Kind == algebra.FType:
		case f.Kind == lower || f.Kind == upper:
		case algebra.IsGroup(f.Kind) || f.Kind == algebra.FNot || f.Kind == algebra.FFalse || f.Kind == algebra.FDynamic || f.Kind == algebra.FLoop || f.Kind == algebra.FUnread || f.Kind == algebra.FEnum:
			return interval{}, false
		case f.KindOf()&k != 0:
			return interval{}, false
		}
	}
	return e.rangeOf(nil, m, k), true
}

// measureKinds are the facts that bound the measure of class k.
func measureKinds(k schema.TypeSet) (lower, upper algebra.FactKind) {
	switch {
	case k&schema.TypeNumber != 0:
		return algebra.FLower, algebra.FUpper
	case k == schema.TypeString:
		return algebra.FMinLength, algebra.FMaxLength
	case k == schema.TypeArray:
		return algebra.FMinItems, algebra.FMaxItems
	}
	return algebra.FMinProps, algebra.FMaxProps
}

// rangeOf is the range of the measure of class k in the merged view m (of the
// conjunction c, when given: what it allows besides m's own bounds, as the items a closed
// tuple allows, counts too).
func (e *Engine) rangeOf(c *algebra.Conj, m *algebra.Merged, k schema.TypeSet) interval {
	count := func(lo, hi int) interval {
		r := interval{lo: &algebra.Bound{V: big.NewRat(int64(lo), 1)}}
		if hi >= 0 {
			r.hi = &algebra.Bound{V: big.NewRat(int64(hi), 1)}
		}
		return r
	}
	switch {
	case k&schema.TypeNumber != 0:
		return interval{m.Lo, m.Hi}
	case k == schema.TypeString:
		return count(m.MinLen, m.MaxLen)
	case k == schema.TypeArray:
		hi := m.MaxItems
		if c != nil {
			hi = e.MaxItemsOf(c, m)
		}
		return count(m.MinItems, hi)
	}
	hi := m.MaxProps
	if c != nil {
		hi = e.MaxPropsOf(c, m)
	}
	return count(max(m.MinProps, len(m.Required)), hi)
}

// unionCovers reports that the branches of the anyOf f whose only constraint on class k
// is a range of its measure together cover the range of a's instances of that class.
func (e *Engine) unionCovers(a *algebra.Conj, ma *algebra.Merged, f *algebra.Fact, k schema.TypeSet) bool {
	if len(f.Subs) > 24 {
		return false
	}
	var parts []interval
	for _, br := range f.Subs {
		if r, ok := e.measureOf(br, k); ok {
			parts = append(parts, r)
		}
	}
	if len(parts) < 2 {
		return false
	}
	ints := k&schema.TypeNumber == 0 || k&schema.TypeFraction == 0 || ma.IntOnly()
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
		next, nincl := best.hi.V, best.hi.Excl // after an exclusive end, the end itself is next
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
func lowerPoint(lo *algebra.Bound) (*big.Rat, bool) {
	if lo == nil {
		return nil, true
	}
	return lo.V, !lo.Excl
}

// past reports whether the first uncovered point is beyond upper bound hi.
func past(cur *big.Rat, incl bool, hi *algebra.Bound) bool {
	if hi == nil || cur == nil {
		return false
	}
	c := cur.Cmp(hi.V)
	return c > 0 || c == 0 && (hi.Excl || !incl)
}

// admits reports whether a range with lower bound lo contains the point cur (incl) or
// the points just above it.
func admits(lo *algebra.Bound, cur *big.Rat, incl bool) bool {
	if lo == nil {
		return true
	}
	if cur == nil {
		return false
	}
	c := lo.V.Cmp(cur)
	return c < 0 || c == 0 && (!lo.Excl || !incl)
}

// higher reports whether upper bound a reaches beyond b.
func higher(a, b *algebra.Bound) bool {
	if a == nil {
		return b != nil
	}
	if b == nil {
		return false
	}
	c := a.V.Cmp(b.V)
	return c > 0 || c == 0 && !a.Excl && b.Excl
}

// intRange turns a range into the inclusive range of the integers in it.
func intRange(r interval) interval {
	var out interval
	if r.lo != nil {
		out.lo = &algebra.Bound{V: algebra.IntLower(r.lo)}
	}
	if r.hi != nil {
		out.hi = &algebra.Bound{V: algebra.IntUpper(r.hi)}
	}
	return out
}

// negatedBranches returns the schemas X of an anyOf whose every branch is the negation of
// a schema ({not: X}), or nil.
func (e *Engine) negatedBranches(f *algebra.Fact) []*schema.Schema {
	out := make([]*schema.Schema, 0, len(f.Subs))
	for _, br := range f.Subs {
		g := e.soleFact(br)
		if g == nil || g.Kind != algebra.FNot {
			return nil
		}
		out = append(out, g.S)
	}
	return out
}

// complementCovers proves an anyOf that has a branch {not: X} and a branch Y holding
// every instance of a that X holds: an instance of a is either not in X, or in X and so
// in Y (anyOf [{not: X}, X] holds everything).
func (e *Engine) complementCovers(a *algebra.Conj, f *algebra.Fact, d schema.TypeSet, depth int) bool {
	if len(f.Subs) > 8 {
		return false
	}
	for i, br := range f.Subs {
		g := e.soleFact(br)
		if g == nil || g.Kind != algebra.FNot {
			continue
		}
		inX := e.With(a, []*schema.Schema{g.S})
		for j, y := range f.Subs {
			if j != i && e.Sub(inX, e.One(y), d, depth) {
				return true
			}
		}
	}
	return false
}
