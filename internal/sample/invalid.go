package sample

import (
	"context"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// An invalid instance is a valid one with one mutation aimed at one constraint (a
// required member removed, a bound crossed, a type changed, ...). It is kept only when the
// validator then reports exactly one error, which becomes its label.

type mutation struct {
	kind string // the keyword aimed at
	ptr  string
	// apply returns the mutated value for the one at ptr (ok false: not applicable).
	apply func(v source.Value) (source.Value, bool)
}

func (g *gen) invalidInstance(ctx context.Context, i int, used map[string]int) (source.Value, *Violation, *Failure, bool) {
	attempts := 0
	tried := 0
	for a := 0; a < g.opts.Attempts; a++ {
		if ctx.Err() != nil {
			return source.Value{}, nil, nil, false
		}
		base, f, ok := g.validInstance(ctx, i*g.opts.Attempts+a)
		attempts++
		if g.halt != nil {
			return source.Value{}, nil, nil, false
		}
		if !ok {
			f.Reason = "no valid instance to start from: " + f.Reason
			return source.Value{}, nil, f, false
		}
		muts := g.mutations(base)
		// Constraints not broken yet come first, in a random order; replacing the whole
		// instance by a value of another type is the least telling change, so it comes last.
		g.r.Shuffle(len(muts), func(x, y int) { muts[x], muts[y] = muts[y], muts[x] })
		rank := func(m mutation) int {
			r := 2 * used[m.kind]
			if m.ptr == "" && m.kind == "type" {
				r++
			}
			return r
		}
		sort.SliceStable(muts, func(x, y int) bool { return rank(muts[x]) < rank(muts[y]) })
		for _, m := range muts {
			tried++
			v, ok := mutateAt(base, m.ptr, m.apply)
			if !ok {
				continue
			}
			errs, err := g.root.ValidateContext(ctx, v)
			if err != nil {
				g.stopOn(err)
				if g.halt != nil {
					return source.Value{}, nil, nil, false
				}
			}
			if err != nil || len(errs) != 1 {
				continue
			}
			used[m.kind]++
			e := errs[0]
			return v, &Violation{InstanceLocation: e.InstanceLocation, KeywordLocation: e.KeywordLocation,
				AbsoluteKeywordLocation: e.AbsoluteKeywordLocation, Keyword: e.Keyword, Message: e.Message}, nil, true
		}
		if len(muts) == 0 && a >= 2 {
			break
		}
	}
	reason := "no change of a valid instance broke exactly one constraint"
	if tried == 0 {
		reason = "the schema constrains nothing that a change could break (it accepts every instance)"
	}
	return source.Value{}, nil, &Failure{Reason: reason, Attempts: attempts}, false
}

// mutateAt replaces the value at ptr by fn(value).
func mutateAt(root source.Value, ptr string, fn func(source.Value) (source.Value, bool)) (source.Value, bool) {
	toks, ok := source.SplitPointer(ptr)
	if !ok {
		return source.Value{}, false
	}
	var rec func(v source.Value, toks []string) (source.Value, bool)
	rec = func(v source.Value, toks []string) (source.Value, bool) {
		if len(toks) == 0 {
			return fn(v)
		}
		switch v.Kind() {
		case source.Object:
			var b source.ObjectBuilder
			found := false
			for i := 0; i < v.Len(); i++ {
				k, val := v.Member(i)
				if k.Str() == toks[0] {
					nv, ok := rec(val, toks[1:])
					if !ok {
						return source.Value{}, false
					}
					val, found = nv, true
				}
				b.Set(k.Str(), val)
			}
			return b.Value(), found
		case source.Array:
			idx, err := strconv.Atoi(toks[0])
			items := slices.Clone(v.Items())
			if err != nil || idx < 0 || idx >= len(items) {
				return source.Value{}, false
			}
			nv, ok := rec(items[idx], toks[1:])
			if !ok {
				return source.Value{}, false
			}
			items[idx] = nv
			return source.ArrayValue(items...), true
		}
		return source.Value{}, false
	}
	return rec(root, toks)
}

// variant returns a value like v but different from it (a string or number changed by
// i), so that added items do not break uniqueItems as well.
func variant(v source.Value, i int) source.Value {
	switch v.Kind() {
	case source.String:
		return source.StringValue(v.Str() + strconv.Itoa(i+2))
	case source.Number:
		r := ratOf(v)
		return numberValue(r.Add(r, big.NewRat(int64(i+1000), 1)))
	}
	return v
}

func withoutMember(v source.Value, key string) source.Value {
	var b source.ObjectBuilder
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		if k.Str() != key {
			b.Set(k.Str(), val)
		}
	}
	return b.Value()
}

func withMember(v source.Value, key string, val source.Value) source.Value {
	var b source.ObjectBuilder
	for i := 0; i < v.Len(); i++ {
		k, x := v.Member(i)
		b.Set(k.Str(), x)
	}
	b.Set(key, val)
	return b.Value()
}

// mutations lists the changes that aim at one constraint each, at every location of the
// instance whose constraints were recorded.
func (g *gen) mutations(base source.Value) []mutation {
	ptrs := make([]string, 0, len(g.record))
	for p := range g.record {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	var out []mutation
	add := func(kind, ptr string, fn func(source.Value) (source.Value, bool)) {
		out = append(out, mutation{kind, ptr, fn})
	}
	for _, ptr := range ptrs {
		c := g.record[ptr]
		cur, ok := base.Pointer(ptr)
		if !ok {
			continue
		}
		allowed := g.types(c)
		// type: a value of a type no schema here allows.
		for _, alt := range []source.Value{source.NullValue(), source.BoolValue(true), source.IntValue(7),
			source.NumberValue("7.5"), source.StringValue("x"), source.ArrayValue(), (&source.ObjectBuilder{}).Value()} {
			if allowed&schema.TypeOf(alt) == 0 {
				add("type", ptr, func(source.Value) (source.Value, bool) { return alt, true })
			}
		}
		parts := g.parts(c)
		for _, p := range parts {
			g.partMutations(p, ptr, cur, add)
		}
	}
	return out
}

// addMutation records a mutation: the keyword it aims at, where, and how it turns the
// valid value into one that keyword rejects (false when it cannot).
type addMutation func(kind, ptr string, fn func(source.Value) (source.Value, bool))

// partMutations lists the mutations of the value cur at ptr that aim at the constraints
// of one schema object p: enum, then those of cur's kind.
func (g *gen) partMutations(p *info, ptr string, cur source.Value, add addMutation) {
	if p.hasEnum {
		enumMutations(ptr, cur, add)
	}
	switch cur.Kind() {
	case source.Number:
		numberMutations(p, ptr, add)
	case source.String:
		g.stringMutations(p, ptr, cur.Str(), add)
	case source.Object:
		g.objectMutations(p, ptr, cur, add)
	case source.Array:
		arrayMutations(p, ptr, cur.Items(), add)
	}
}

// enumMutations changes a string, number or boolean into another of its kind.
func enumMutations(ptr string, cur source.Value, add addMutation) {
	switch cur.Kind() {
	case source.String:
		add("enum", ptr, func(v source.Value) (source.Value, bool) { return source.StringValue(v.Str() + "-other"), true })
	case source.Number:
		add("enum", ptr, func(v source.Value) (source.Value, bool) {
			r := ratOf(v)
			return numberValue(r.Add(r, big.NewRat(1, 1))), true
		})
	case source.Bool:
		add("enum", ptr, func(v source.Value) (source.Value, bool) { return source.BoolValue(!v.Bool()), true })
	}
}

// numberMutations crosses the bounds by a step (multipleOf, or 1) and falls between
// multiples.
func numberMutations(p *info, ptr string, add addMutation) {
	step := big.NewRat(1, 1)
	if p.multipleOf != nil {
		step = p.multipleOf
	}
	if p.lower != nil {
		add("minimum", ptr, func(source.Value) (source.Value, bool) {
			r := new(big.Rat).Set(p.lower)
			if !p.lowerExcl {
				r.Sub(r, step)
			}
			return numberValue(r), true
		})
	}
	if p.upper != nil {
		add("maximum", ptr, func(source.Value) (source.Value, bool) {
			r := new(big.Rat).Set(p.upper)
			if !p.upperExcl {
				r.Add(r, step)
			}
			return numberValue(r), true
		})
	}
	if p.multipleOf != nil {
		add("multipleOf", ptr, func(v source.Value) (source.Value, bool) {
			r := ratOf(v)
			half := new(big.Rat).Quo(p.multipleOf, big.NewRat(2, 1))
			return numberValue(r.Add(r, half)), true
		})
	}
}

// stringMutations cuts or lengthens the string s, finds a string the pattern does not
// match, and writes a string no asserted format accepts.
func (g *gen) stringMutations(p *info, ptr string, s string, add addMutation) {
	if p.minLen > 0 {
		add("minLength", ptr, func(source.Value) (source.Value, bool) {
			rs := []rune(s)
			if len(rs) >= p.minLen {
				rs = rs[:p.minLen-1]
			}
			return source.StringValue(string(rs)), true
		})
	}
	if p.maxLen >= 0 {
		add("maxLength", ptr, func(source.Value) (source.Value, bool) {
			t := s
			for utf8.RuneCountInString(t) <= p.maxLen {
				t += "x"
			}
			return source.StringValue(t), true
		})
	}
	if p.pattern != nil {
		add("pattern", ptr, func(source.Value) (source.Value, bool) { return notMatching(p.pattern, s) })
	}
	if p.format != "" && p.s.FormatAsserted() && g.formatChecker(p.format, p.s.Draft) != nil {
		add("format", ptr, func(source.Value) (source.Value, bool) {
			return source.StringValue("not a " + p.format + " %"), true
		})
	}
}

// notMatching finds a string near s that pat does not match.
func notMatching(pat *patternGen, s string) (source.Value, bool) {
	rs := []rune(s)
	var same []string // same length first, so that no length bound breaks too
	if len(rs) > 0 {
		same = append(same, "~"+string(rs[1:]), string(rs[:len(rs)-1])+"~", strings.Repeat("~", len(rs)), strings.Repeat("0", len(rs)))
	}
	for _, cand := range append(same, "", "~", "~~ ~~", " ", "0", "a", strings.ToUpper(s), s+"~", "~"+s) {
		if !pat.matches(cand) {
			return source.StringValue(cand), true
		}
	}
	return source.Value{}, false
}

// objectMutations removes required members and dependencies, adds a member where none
// may be added, crosses the member counts, and adds a name propertyNames rejects.
func (g *gen) objectMutations(p *info, ptr string, cur source.Value, add addMutation) {
	for _, r := range p.required {
		if cur.Has(r) {
			add("required", ptr, func(v source.Value) (source.Value, bool) { return withoutMember(v, r), true })
		}
	}
	if p.addl != nil {
		if b, isBool := p.addl.Bool(); isBool && !b {
			add("additionalProperties", ptr, func(v source.Value) (source.Value, bool) { return g.unexpectedMember(p, v) })
		}
	}
	if p.maxProps >= 0 {
		add("maxProperties", ptr, func(v source.Value) (source.Value, bool) {
			for i := 0; v.Len() <= p.maxProps; i++ {
				name := "extra" + strconv.Itoa(i)
				if !v.Has(name) {
					v = withMember(v, name, source.StringValue("x"))
				}
			}
			return v, true
		})
	}
	if p.minProps > 0 {
		add("minProperties", ptr, func(v source.Value) (source.Value, bool) {
			for v.Len() >= p.minProps && v.Len() > 0 {
				v = withoutMember(v, v.Key(v.Len()-1))
			}
			return v, true
		})
	}
	for _, k := range p.depOrder {
		if !cur.Has(k) {
			continue
		}
		for _, d := range p.depRequired[k] {
			if cur.Has(d) {
				add("dependentRequired", ptr, func(v source.Value) (source.Value, bool) { return withoutMember(v, d), true })
			}
		}
	}
	if p.propNames != nil {
		add("propertyNames", ptr, func(v source.Value) (source.Value, bool) { return g.badName(p, v) })
	}
}

// unexpectedMember adds to v a member p does not allow (its additionalProperties is false).
func (g *gen) unexpectedMember(p *info, v source.Value) (source.Value, bool) {
	name := "unexpectedProperty"
	for v.Has(name) || g.allowed([]*info{p}, name) {
		name += "X"
		if len(name) > 64 {
			return source.Value{}, false
		}
	}
	return withMember(v, name, source.StringValue("x")), true
}

// badName adds to v a member whose name p's propertyNames rejects.
func (g *gen) badName(p *info, v source.Value) (source.Value, bool) {
	for _, name := range []string{"", "~", "0", "Invalid Name!", strings.Repeat("x", 300)} {
		if ok, _ := g.valid(p.propNames, source.StringValue(name)); !ok && !v.Has(name) {
			return withMember(v, name, source.StringValue("x")), true
		}
	}
	return source.Value{}, false
}

// arrayMutations cuts or lengthens the array items and repeats an item.
func arrayMutations(p *info, ptr string, items []source.Value, add addMutation) {
	if p.minItems > 0 {
		add("minItems", ptr, func(source.Value) (source.Value, bool) {
			return source.ArrayValue(items[:p.minItems-1]...), true
		})
	}
	if p.maxItems >= 0 && len(items) > 0 {
		add("maxItems", ptr, func(source.Value) (source.Value, bool) {
			out := slices.Clone(items)
			for i := 0; len(out) <= p.maxItems; i++ {
				out = append(out, variant(items[i%len(items)], i))
			}
			return source.ArrayValue(out...), true
		})
	}
	if p.unique && len(items) > 0 {
		add("uniqueItems", ptr, func(source.Value) (source.Value, bool) {
			out := append(slices.Clone(items), items[0])
			return source.ArrayValue(out...), true
		})
	}
}
