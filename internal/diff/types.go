package diff

import (
	"math/big"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// typeSet is a set of instance classes. Numbers are split three ways because the drafts
// disagree on what "integer" means: draft 4 counts 1.0 as a number but not an integer,
// later drafts count it as an integer.
type typeSet uint8

const (
	tNull   typeSet = 1 << iota
	tBool           // true, false
	tInt            // integer values written without a decimal point (or with an exponent)
	tDotted         // integer values written with a decimal point and no exponent: 1.0
	tFrac           // numbers that are not integers
	tString         //
	tArray          //
	tObject         //

	tNumber   = tInt | tDotted | tFrac
	tAll      = tNull | tBool | tNumber | tString | tArray | tObject
	tNone     = typeSet(0)
	numberish = tNumber
)

// kinds are the classes the prover reasons about one at a time.
var kinds = []typeSet{tNull, tBool, tNumber, tString, tArray, tObject}

// typesOf returns the classes a "type" keyword value admits in a draft.
func typesOf(v source.Value, draft int) (typeSet, bool) {
	one := func(name string) (typeSet, bool) {
		switch name {
		case "null":
			return tNull, true
		case "boolean":
			return tBool, true
		case "number":
			return tNumber, true
		case "integer":
			if draft == 4 {
				return tInt, true
			}
			return tInt | tDotted, true
		case "string":
			return tString, true
		case "array":
			return tArray, true
		case "object":
			return tObject, true
		}
		return 0, false
	}
	switch v.Kind() {
	case source.String:
		return one(v.Str())
	case source.Array:
		var t typeSet
		for _, it := range v.Items() {
			x, ok := one(it.Str())
			if !ok {
				return 0, false
			}
			t |= x
		}
		return t, true
	}
	return 0, false
}

// classOf returns the class of an instance value.
func classOf(v source.Value) typeSet {
	switch v.Kind() {
	case source.Null:
		return tNull
	case source.Bool:
		return tBool
	case source.String:
		return tString
	case source.Array:
		return tArray
	case source.Object:
		return tObject
	case source.Number:
		lit := v.Str()
		if !strings.ContainsAny(lit, ".eE") {
			return tInt
		}
		if !v.Num().IsInteger() {
			return tFrac
		}
		if strings.Contains(lit, ".") && !strings.ContainsAny(lit, "eE") {
			return tDotted
		}
		return tInt
	}
	return 0
}

// names renders a type set in JSON Schema words.
func (t typeSet) names() []string {
	var out []string
	if t&tNull != 0 {
		out = append(out, "null")
	}
	if t&tBool != 0 {
		out = append(out, "boolean")
	}
	switch t & tNumber {
	case tNumber:
		out = append(out, "number")
	case tInt | tDotted:
		out = append(out, "integer")
	case tInt:
		out = append(out, "integer (draft-04: without a decimal point)")
	case tDotted:
		out = append(out, "integer written with a decimal point (such as 1.0)")
	case tFrac:
		out = append(out, "non-integer number")
	case tInt | tFrac:
		out = append(out, "number not written like 1.0")
	case tDotted | tFrac:
		out = append(out, "number with a decimal point")
	}
	if t&tString != 0 {
		out = append(out, "string")
	}
	if t&tArray != 0 {
		out = append(out, "array")
	}
	if t&tObject != 0 {
		out = append(out, "object")
	}
	return out
}

func (t typeSet) String() string {
	if t == 0 {
		return "nothing"
	}
	if t == tAll {
		return "any type"
	}
	return strings.Join(t.names(), ", ")
}

// ---- exact numbers ----

// ratOf converts a JSON number to an exact rational; ok is false for absurd exponents.
func ratOf(v source.Value) (*big.Rat, bool) {
	if v.Kind() != source.Number {
		return nil, false
	}
	return ratOfLiteral(v.Str())
}

func ratOfLiteral(lit string) (*big.Rat, bool) {
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		e := strings.TrimLeft(lit[i+1:], "+-")
		if len(e) > 3 || (len(e) == 3 && e > "400") {
			return nil, false
		}
	}
	if len(lit) > 500 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(lit)
	return r, ok
}

// ratLiteral renders a rational with a terminating decimal expansion as a JSON number.
func ratLiteral(r *big.Rat) (string, bool) {
	if r.IsInt() {
		return r.Num().String(), true
	}
	d := new(big.Int).Set(r.Denom())
	count := func(p int64) int {
		n, bp, m := 0, big.NewInt(p), new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(d, bp, m)
			if rem.Sign() != 0 {
				return n
			}
			d, n = q, n+1
		}
	}
	twos, fives := count(2), count(5)
	if d.Cmp(big.NewInt(1)) != 0 || twos > 2000 || fives > 2000 {
		return "", false
	}
	s := r.FloatString(max(twos, fives))
	s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s, true
}

// isMultiple reports whether a is an integer multiple of m (m > 0).
func isMultiple(a, m *big.Rat) bool {
	q := new(big.Rat).Quo(a, m)
	return q.IsInt()
}

// bound is a numeric bound: a value and whether it is exclusive.
type bound struct {
	v    *big.Rat
	excl bool
}

// tighterLower reports whether lower bound a is stricter than b (admits fewer numbers).
func tighterLower(a, b *bound) bool {
	if b == nil {
		return a != nil
	}
	if a == nil {
		return false
	}
	c := a.v.Cmp(b.v)
	return c > 0 || (c == 0 && a.excl && !b.excl)
}

// tighterUpper reports whether upper bound a is stricter than b.
func tighterUpper(a, b *bound) bool {
	if b == nil {
		return a != nil
	}
	if a == nil {
		return false
	}
	c := a.v.Cmp(b.v)
	return c < 0 || (c == 0 && a.excl && !b.excl)
}

// lowerImplies reports whether every number satisfying lower bound a (and, when ints is
// true, being an integer) satisfies lower bound b.
func lowerImplies(a, b *bound, ints bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	av, aex := a.v, a.excl
	if ints {
		av, aex = intLower(a), false
	}
	c := av.Cmp(b.v)
	if c > 0 {
		return true
	}
	if c < 0 {
		return false
	}
	return aex || !b.excl
}

// upperImplies is lowerImplies for upper bounds.
func upperImplies(a, b *bound, ints bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	av, aex := a.v, a.excl
	if ints {
		av, aex = intUpper(a), false
	}
	c := av.Cmp(b.v)
	if c < 0 {
		return true
	}
	if c > 0 {
		return false
	}
	return aex || !b.excl
}

// intLower returns the smallest integer satisfying lower bound a.
func intLower(a *bound) *big.Rat {
	n := ceilRat(a.v)
	if a.excl && new(big.Rat).SetInt(n).Cmp(a.v) == 0 {
		n.Add(n, big.NewInt(1))
	}
	return new(big.Rat).SetInt(n)
}

// intUpper returns the largest integer satisfying upper bound a.
func intUpper(a *bound) *big.Rat {
	n := floorRat(a.v)
	if a.excl && new(big.Rat).SetInt(n).Cmp(a.v) == 0 {
		n.Sub(n, big.NewInt(1))
	}
	return new(big.Rat).SetInt(n)
}

func floorRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod rounds toward negative infinity for positive denominators
}

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// boundText renders a bound for messages: "> 5", ">= 5".
func boundText(b *bound, lower bool) string {
	if b == nil {
		return "none"
	}
	s, ok := ratLiteral(b.v)
	if !ok {
		s = b.v.RatString()
	}
	switch {
	case lower && b.excl:
		return "> " + s
	case lower:
		return ">= " + s
	case b.excl:
		return "< " + s
	}
	return "<= " + s
}
