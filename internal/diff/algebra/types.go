package algebra

import (
	"math/big"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The classes of instances are schema.TypeSet's: numbers are split three ways because the
// drafts disagree on what "integer" means (draft 4 counts 1.0 as a number but not an
// integer, later drafts count it as an integer), and schema.TypeOf classes a value.

// kinds are the classes the prover reasons about one at a time.
var Kinds = []schema.TypeSet{schema.TypeNull, schema.TypeBoolean, schema.TypeNumber, schema.TypeString, schema.TypeArray, schema.TypeObject}

// typesOf returns the classes a "type" keyword value admits in draft d (schema.TypeByName
// of its name, or of each of its names); ok is false when one of them is not a type.
func typesOf(v source.Value, d *schema.Draft) (schema.TypeSet, bool) {
	switch v.Kind() {
	case source.String:
		t := schema.TypeByName(v.Str(), d)
		return t, t != 0
	case source.Array:
		var t schema.TypeSet
		for _, it := range v.Items() {
			x := schema.TypeByName(it.Str(), d)
			if x == 0 {
				return 0, false
			}
			t |= x
		}
		return t, true
	}
	return 0, false
}

// typeNames renders a type set in JSON Schema words, one per class of the set, the
// numbers as the drafts name them.
func typeNames(t schema.TypeSet) []string {
	var out []string
	if t&schema.TypeNull != 0 {
		out = append(out, "null")
	}
	if t&schema.TypeBoolean != 0 {
		out = append(out, "boolean")
	}
	switch t & schema.TypeNumber {
	case schema.TypeNumber:
		out = append(out, "number")
	case schema.TypeInteger | schema.TypeDotted:
		out = append(out, "integer")
	case schema.TypeInteger:
		out = append(out, "integer (draft-04: without a decimal point)")
	case schema.TypeDotted:
		out = append(out, "integer written with a decimal point (such as 1.0)")
	case schema.TypeFraction:
		out = append(out, "non-integer number")
	case schema.TypeInteger | schema.TypeFraction:
		out = append(out, "number not written like 1.0")
	case schema.TypeDotted | schema.TypeFraction:
		out = append(out, "number with a decimal point")
	}
	if t&schema.TypeString != 0 {
		out = append(out, "string")
	}
	if t&schema.TypeArray != 0 {
		out = append(out, "array")
	}
	if t&schema.TypeObject != 0 {
		out = append(out, "object")
	}
	return out
}

// typeText is the text of a type set in diff's messages: its names, with commas (not
// schema.TypeSet's String, which joins with "or"); "nothing", "any type".
func TypeText(t schema.TypeSet) string {
	if t == 0 {
		return "nothing"
	}
	if t == schema.TypeAll {
		return "any type"
	}
	return strings.Join(typeNames(t), ", ")
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
func RatLiteral(r *big.Rat) (string, bool) {
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
func IsMultiple(a, m *big.Rat) bool {
	q := new(big.Rat).Quo(a, m)
	return q.IsInt()
}

// bound is a numeric bound: a value and whether it is exclusive.
type Bound struct {
	V    *big.Rat
	Excl bool
}

// tighterLower reports whether lower bound a is stricter than b (admits fewer numbers).
func TighterLower(a, b *Bound) bool {
	if b == nil {
		return a != nil
	}
	if a == nil {
		return false
	}
	c := a.V.Cmp(b.V)
	return c > 0 || (c == 0 && a.Excl && !b.Excl)
}

// tighterUpper reports whether upper bound a is stricter than b.
func TighterUpper(a, b *Bound) bool {
	if b == nil {
		return a != nil
	}
	if a == nil {
		return false
	}
	c := a.V.Cmp(b.V)
	return c < 0 || (c == 0 && a.Excl && !b.Excl)
}

// lowerImplies reports whether every number satisfying lower bound a (and, when ints is
// true, being an integer) satisfies lower bound b.
func LowerImplies(a, b *Bound, ints bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	av, aex := a.V, a.Excl
	if ints {
		av, aex = IntLower(a), false
	}
	c := av.Cmp(b.V)
	if c > 0 {
		return true
	}
	if c < 0 {
		return false
	}
	return aex || !b.Excl
}

// upperImplies is lowerImplies for upper bounds.
func UpperImplies(a, b *Bound, ints bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	av, aex := a.V, a.Excl
	if ints {
		av, aex = IntUpper(a), false
	}
	c := av.Cmp(b.V)
	if c < 0 {
		return true
	}
	if c > 0 {
		return false
	}
	return aex || !b.Excl
}

// intLower returns the smallest integer satisfying lower bound a.
func IntLower(a *Bound) *big.Rat {
	n := CeilRat(a.V)
	if a.Excl && new(big.Rat).SetInt(n).Cmp(a.V) == 0 {
		n.Add(n, big.NewInt(1))
	}
	return new(big.Rat).SetInt(n)
}

// intUpper returns the largest integer satisfying upper bound a.
func IntUpper(a *Bound) *big.Rat {
	n := FloorRat(a.V)
	if a.Excl && new(big.Rat).SetInt(n).Cmp(a.V) == 0 {
		n.Sub(n, big.NewInt(1))
	}
	return new(big.Rat).SetInt(n)
}

func FloorRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod rounds toward negative infinity for positive denominators
}

func CeilRat(r *big.Rat) *big.Int {
	q := FloorRat(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// boundText renders a bound for messages: "> 5", ">= 5".
func BoundText(b *Bound, lower bool) string {
	if b == nil {
		return "none"
	}
	s, ok := RatLiteral(b.V)
	if !ok {
		s = b.V.RatString()
	}
	switch {
	case lower && b.Excl:
		return "> " + s
	case lower:
		return ">= " + s
	case b.Excl:
		return "< " + s
	}
	return "<= " + s
}

func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
