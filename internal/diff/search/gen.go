package search

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/diff/prove"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The generator proposes instances of one schema (the source) that are likely to fail
// another (the hint): boundary values of both sides, strings built from the patterns of
// both sides, objects and arrays varied one member at a time around a minimal valid base.
// Every proposal is checked by jstk's validator before it is believed, so the generator may
// guess freely; it only has to be deterministic (seeded) and bounded.

type gen struct {
	e     *Engine
	rng   *rand.Rand
	cache map[genKey][]source.Value
	stop  func() bool
}

// genKey identifies a request to values: the conjunctions by kid (hint -1 for none).
type genKey struct {
	src, hint  int
	wide, deep bool
}

const (
	quietSize   = 40 // the most JSON values in one member built for a base
	maxDepth    = 12 // deeper than this only minimal values are built
	wideCount   = 40
	narrowCount = 6
)

func (e *Engine) newGen(seed uint64, stop func() bool) *gen {
	return &gen{e: e, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), cache: map[genKey][]source.Value{}, stop: stop}
}

// values returns values valid under src (checked), those that fail hint first. wide asks
// for many variations, otherwise a few.
func (g *gen) values(src, hint *algebra.Conj, depth int, wide bool) []source.Value {
	if depth > 2*maxDepth || g.stop() {
		return nil
	}
	key := genKey{src: src.Kid, hint: -1, wide: wide, deep: depth > maxDepth}
	if hint != nil {
		key.hint = hint.Kid
	}
	if v, ok := g.cache[key]; ok {
		return v
	}
	g.cache[key] = nil // recursion guard: a schema that needs itself yields nothing here
	limit := narrowCount
	if wide {
		limit = wideCount
	}
	var cands []source.Value
	seen := map[string]bool{}
	push := func(v source.Value) {
		if !v.IsValid() {
			return
		}
		k := string(source.AppendJSON(nil, v))
		if seen[k] {
			return
		}
		seen[k] = true
		cands = append(cands, v)
	}
	hints := g.hintViews(hint)
	if wide {
		// the maximal instance: every declared member, recursively (recursive schemas
		// often differ only deep down)
		if v, ok := g.maximal(src, 0, new(int)); ok {
			push(v)
		}
	}
	for _, alt := range g.expandBy(src, hint) {
		m := g.e.Merged(alt)
		if m.Types == 0 {
			continue
		}
		if vals, ok := g.e.FiniteValues(alt, m, m.Types, g.e.Twins); ok && len(m.Enums) > 0 {
			for _, v := range vals {
				push(v)
			}
			continue
		}
		for _, k := range g.kindOrder(m.Types, hints) {
			for _, v := range g.ofKind(k, alt, m, hint, hints, depth, wide) {
				push(v)
			}
		}
	}
	// values the hint excludes with not: valid under src and under what the hint negates
	if hint != nil && depth <= maxDepth {
		for _, n := range g.e.Merged(hint).Nots {
			for _, alt := range g.expand(g.e.With(src, []*schema.Schema{n})) {
				m := g.e.Merged(alt)
				for _, k := range g.kindOrder(m.Types, nil) {
					for _, v := range g.ofKind(k, alt, m, nil, nil, depth, false) {
						push(v)
					}
				}
			}
		}
	}
	// keep the valid ones, those failing the hint first
	var bad, good []source.Value
	cut := false
	for _, v := range cands {
		if g.stop() {
			cut = true
			break
		}
		ok, _ := g.e.Valid(src, v)
		if !ok {
			continue
		}
		if hint != nil {
			if h, _ := g.e.Valid(hint, v); !h {
				bad = append(bad, v)
				continue
			}
		}
		good = append(good, v)
	}
	out := append(bad, good...)
	if len(out) > limit {
		// keep a mix: the first failing ones and the first passing ones
		nb := min(len(bad), limit*2/3)
		out = append(append([]source.Value(nil), bad[:nb]...), good[:min(len(good), limit-nb)]...)
		if len(out) < limit {
			out = append(out, bad[nb:min(len(bad), nb+limit-len(out))]...)
		}
	}
	if cut {
		delete(g.cache, key) // made again, whole, when there is time
	} else {
		g.cache[key] = out
	}
	return out
}

// quiet returns a value of src, preferring one valid under the hint (a quiet base).
func (g *gen) quiet(src, hint *algebra.Conj, depth int) (source.Value, bool) {
	vals := g.values(src, hint, depth, false)
	if len(vals) == 0 {
		return source.Value{}, false
	}
	// The last candidates are the richest (objects with their optional members), which
	// reach deeper; examples are shrunk afterwards. Size stays bounded, or nesting would
	// make instances grow exponentially.
	if hint != nil {
		for i := len(vals) - 1; i >= 0; i-- {
			if valueSize(vals[i], quietSize+1) > quietSize {
				continue
			}
			if ok, _ := g.e.Valid(hint, vals[i]); ok {
				return vals[i], true
			}
		}
	}
	best := vals[0]
	for _, v := range vals {
		if n := valueSize(v, quietSize+1); n <= quietSize && n > valueSize(best, quietSize+1) {
			best = v
		}
	}
	return best, true
}

// expand returns conjunctions covering src, choosing branches of its groups.
func (g *gen) expand(src *algebra.Conj) []*algebra.Conj { return g.expandBy(src, nil) }

// expandBy is expand with the hint's branches in view: of a group with more branches than
// are expanded, the branches the hint does not have (an added branch) come first, so
// that a branch added at the end of a long oneOf gets values of its own.
func (g *gen) expandBy(src, hint *algebra.Conj) []*algebra.Conj {
	alts := []*algebra.Conj{src}
	for round := 0; round < 3; round++ {
		var next []*algebra.Conj
		changed := false
		for _, a := range alts {
			m := g.e.Merged(a)
			var grp *algebra.Fact
			for f := range m.Groups {
				grp = f
				break
			}
			if grp == nil {
				next = append(next, a)
				continue
			}
			changed = true
			id := g.e.GroupOf(grp)
			switch grp.Kind {
			case algebra.FCond:
				yes := []*schema.Schema{grp.Subs[0]}
				if grp.Subs[1] != nil {
					yes = append(yes, grp.Subs[1])
				}
				var no []*schema.Schema
				if grp.Subs[2] != nil {
					no = append(no, grp.Subs[2])
				}
				next = append(next, g.e.With(a, yes, id), g.e.With(a, no, id))
			default:
				for i, br := range g.branchOrder(grp, hint) {
					if i >= expandBranches {
						break
					}
					next = append(next, g.e.With(a, []*schema.Schema{br}, id))
				}
			}
		}
		alts = next
		if len(alts) > 16 {
			alts = alts[:16]
		}
		if !changed {
			break
		}
	}
	return alts
}

// expandBranches is how many branches of one group expand takes.
const expandBranches = 8

// branchOrder returns the branches of a group, those that no group of the hint has first
// when there are more than expand takes.
func (g *gen) branchOrder(grp *algebra.Fact, hint *algebra.Conj) []*schema.Schema {
	if hint == nil || len(grp.Subs) <= expandBranches {
		return grp.Subs
	}
	var theirs []*schema.Schema
	for f := range g.e.Merged(hint).Groups {
		if f.Kind == grp.Kind {
			theirs = append(theirs, f.Subs...)
		}
	}
	if len(theirs) == 0 {
		return grp.Subs
	}
	var added, kept []*schema.Schema
	for _, br := range grp.Subs {
		if slices.ContainsFunc(theirs, func(t *schema.Schema) bool { return t == br || g.e.Same(t, br) }) {
			kept = append(kept, br)
		} else {
			added = append(added, br)
		}
	}
	return append(added, kept...)
}

// hintViews returns the merged views of the hint and of its branches.
func (g *gen) hintViews(h *algebra.Conj) []*algebra.Merged {
	if h == nil {
		return nil
	}
	out := []*algebra.Merged{g.e.Merged(h)}
	for f := range g.e.Merged(h).Groups {
		for i, br := range f.Subs {
			if br == nil || i > 8 {
				continue
			}
			out = append(out, g.e.Merged(g.e.One(br)))
		}
	}
	return out
}

// kindOrder lists the classes to build, those the hint rejects first.
func (g *gen) kindOrder(t schema.TypeSet, hints []*algebra.Merged) []schema.TypeSet {
	var first, rest []schema.TypeSet
	for _, k := range algebra.Kinds {
		if t&k == 0 {
			continue
		}
		if len(hints) > 0 && hints[0].Types&k&t != t&k {
			first = append(first, k)
		} else {
			rest = append(rest, k)
		}
	}
	return append(first, rest...)
}

func (g *gen) ofKind(k schema.TypeSet, alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, hints []*algebra.Merged, depth int, wide bool) []source.Value {
	switch k {
	case schema.TypeNull:
		return []source.Value{source.NullValue()}
	case schema.TypeBoolean:
		return []source.Value{source.BoolValue(true), source.BoolValue(false)}
	case schema.TypeNumber:
		return g.numbers(m, hints, wide)
	case schema.TypeString:
		return g.strings(alt, m, hints, wide)
	case schema.TypeArray:
		return g.arrays(alt, m, hint, hints, depth, wide)
	case schema.TypeObject:
		return g.objects(alt, m, hint, hints, depth, wide)
	}
	return nil
}

// ---- numbers ----

func (g *gen) numbers(m *algebra.Merged, hints []*algebra.Merged, wide bool) []source.Value {
	var rs []*big.Rat
	add := func(r *big.Rat) {
		if r != nil {
			rs = append(rs, r)
		}
	}
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	one, half, tiny := big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(1, 1000)
	near := func(b *algebra.Bound, out bool, lower bool) {
		if b == nil {
			return
		}
		add(b.V)
		for _, d := range []*big.Rat{one, half, tiny} {
			if lower == out {
				add(new(big.Rat).Sub(b.V, d))
			} else {
				add(new(big.Rat).Add(b.V, d))
			}
		}
		f := new(big.Rat).SetInt(algebra.FloorRat(b.V))
		add(f)
		add(new(big.Rat).Add(f, one))
	}
	near(m.Lo, false, true)
	near(m.Hi, false, false)
	for _, mu := range m.Mults {
		add(mu)
		add(new(big.Rat).Mul(mu, big.NewRat(2, 1)))
		if m.Lo != nil {
			q := new(big.Rat).SetInt(algebra.CeilRat(new(big.Rat).Quo(m.Lo.V, mu)))
			add(new(big.Rat).Mul(q, mu))
			add(new(big.Rat).Mul(new(big.Rat).Add(q, one), mu))
		}
		if m.Hi != nil {
			q := new(big.Rat).SetInt(algebra.FloorRat(new(big.Rat).Quo(m.Hi.V, mu)))
			add(new(big.Rat).Mul(q, mu))
			add(new(big.Rat).Mul(new(big.Rat).Sub(q, one), mu))
		}
	}
	for _, h := range hints {
		near(h.Lo, true, true)
		near(h.Hi, true, false)
		for _, mu := range h.Mults {
			add(new(big.Rat).Add(mu, new(big.Rat).Mul(mu, half)))
			add(new(big.Rat).Add(mu, one))
			for _, own := range m.Mults {
				// a multiple of ours that is not one of theirs
				for k := int64(1); k <= 12; k++ {
					x := new(big.Rat).Mul(own, big.NewRat(k, 1))
					if !algebra.IsMultiple(x, mu) {
						add(x)
						break
					}
				}
			}
		}
	}
	for _, s := range []string{"0", "1", "-1", "2", "0.5", "1.5", "-2.5", "10", "100", "1000000", "3.14159"} {
		add(rat(s))
	}
	if wide {
		for i := 0; i < 3; i++ {
			add(big.NewRat(g.rng.Int64N(2000)-1000, int64(1+g.rng.IntN(4))))
		}
	}
	var out []source.Value
	seen := map[string]bool{}
	for _, r := range rs {
		if !inRange(m, r) {
			continue
		}
		lit, ok := algebra.RatLiteral(r)
		if !ok {
			continue
		}
		lits := []string{lit}
		if r.IsInt() && m.Types&schema.TypeDotted != 0 {
			lits = append(lits, lit+".0")
		}
		for _, l := range lits {
			v := source.NumberValue(l)
			if seen[l] || schema.TypeOf(v)&m.Types == 0 {
				continue
			}
			seen[l] = true
			out = append(out, v)
		}
	}
	return out
}

func inRange(m *algebra.Merged, r *big.Rat) bool {
	if m.Lo != nil {
		c := r.Cmp(m.Lo.V)
		if c < 0 || (c == 0 && m.Lo.Excl) {
			return false
		}
	}
	if m.Hi != nil {
		c := r.Cmp(m.Hi.V)
		if c > 0 || (c == 0 && m.Hi.Excl) {
			return false
		}
	}
	for _, mu := range m.Mults {
		if !algebra.IsMultiple(r, mu) {
			return false
		}
	}
	return true
}

// ---- strings ----

var formatSamples = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"date-time": {"2024-01-02T03:04:05Z"}, "date": {"2024-01-02"}, "time": {"03:04:05Z"},
		"duration": {"P1D"}, "email": {"a@example.com"}, "idn-email": {"a@example.com"},
		"hostname": {"example.com"}, "idn-hostname": {"example.com"}, "ipv4": {"192.0.2.1"},
		"ipv6": {"2001:db8::1"}, "uri": {"https://example.com/a"}, "uri-reference": {"a/b"},
		"iri": {"https://example.com/a"}, "iri-reference": {"a/b"}, "uuid": {"123e4567-e89b-12d3-a456-426614174000"},
		"uri-template": {"https://example.com/{id}"}, "json-pointer": {"/a/b"}, "relative-json-pointer": {"0/a"},
		"regex": {"^a+$"},
	}
})

func (g *gen) strings(alt *algebra.Conj, m *algebra.Merged, hints []*algebra.Merged, wide bool) []source.Value {
	var out []string
	e := g.e
	var must []*pattern.Automaton
	exact := true
	for _, p := range m.Patterns {
		if a := e.Pats.Get(p); a != nil {
			must = append(must, a)
		} else {
			exact = false
		}
	}
	maxL := m.MaxLen
	targets := []int{m.MinLen, max(m.MinLen, 1), max(m.MinLen, 3)}
	for _, h := range hints {
		if h.MaxLen >= 0 {
			targets = append(targets, h.MaxLen+1)
		}
		if h.MinLen > 0 {
			targets = append(targets, h.MinLen-1)
		}
	}
	if maxL >= 0 {
		targets = append(targets, maxL)
	}
	avoid := map[string]bool{}
	for _, t := range targets {
		if t < m.MinLen || (maxL >= 0 && t > maxL) || t > 4096 {
			continue
		}
		if len(must) > 0 {
			if w, found, _ := g.e.Pats.Solve(pattern.Query{Must: must, MinLen: t, MaxLen: maxL, Avoid: avoid}); found {
				out = append(out, w)
				avoid[w] = true
			}
		} else {
			out = append(out, strings.Repeat("a", t))
		}
	}
	// strings that match our patterns but not one of theirs
	for _, h := range hints {
		for _, p := range h.Patterns {
			b := e.Pats.Get(p)
			if b == nil {
				continue
			}
			if w, found, _ := g.e.Pats.Solve(pattern.Query{Must: must, MustNot: []*pattern.Automaton{b}, MinLen: m.MinLen, MaxLen: maxL}); found {
				out = append(out, w)
			}
		}
		for _, f := range h.Formats {
			out = append(out, "not a "+f)
		}
		for _, c := range h.Content {
			if strings.HasPrefix(c, "contentEncoding") {
				out = append(out, "%%%")
			} else {
				out = append(out, "{not json")
			}
		}
	}
	for _, n := range g.e.Parts(alt) {
		if v, ok := n.Kw("format"); ok && v.Kind() == source.String {
			out = append(out, formatSamples()[v.Str()]...)
		}
	}
	if !exact || len(must) == 0 {
		out = append(out, "", "a", "abc", "Hello World", "2024-01-02", "x-1", "0", "true", "a@example.com")
	}
	if wide {
		var sb strings.Builder
		for i := 0; i < 1+g.rng.IntN(8); i++ {
			sb.WriteByte(byte('a' + g.rng.IntN(26)))
		}
		out = append(out, sb.String())
	}
	var vals []source.Value
	for _, s := range out {
		vals = append(vals, source.StringValue(s))
	}
	return vals
}

// ---- arrays ----

func (g *gen) arrays(alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, hints []*algebra.Merged, depth int, wide bool) []source.Value {
	e := g.e
	hint = g.hintFor(hint, schema.TypeArray)
	a := &arrayShape{g: g, alt: alt, hint: hint, maxN: e.MaxItemsOf(alt, m), depth: depth}
	a.n0 = m.MinItems
	for _, f := range m.Contains {
		a.n0 = max(a.n0, f.I)
	}
	if depth > maxDepth {
		wide = false
	}
	a.base = make([]source.Value, 0, a.n0)
	for i := 0; i < a.n0; i++ {
		v, ok := g.quiet(a.item(alt, i), a.item(hint, i), depth+1)
		if !ok {
			return nil
		}
		a.base = append(a.base, v)
	}
	// contains: let the first items match it
	for _, f := range m.Contains {
		for i := 0; i < f.I && i < len(a.base); i++ {
			if v, ok := g.quiet(e.With(a.item(alt, i), []*schema.Schema{f.S}), nil, depth+1); ok {
				a.base[i] = v
			}
		}
	}
	out := []source.Value{source.ArrayValue(slices.Clone(a.base)...)}
	if !wide {
		if a.n0 == 0 && (a.maxN < 0 || a.maxN >= 1) {
			if v, ok := g.quiet(a.item(alt, 0), a.item(hint, 0), depth+1); ok {
				out = append(out, source.ArrayValue(v))
			}
		}
		return out
	}
	out = a.lengths(out, hints)
	out = a.positions(out)
	out = a.duplicates(out, m)
	return a.missContains(out, hints)
}

// arrayShape is what the arrays made for one array kind share: the two sides, the items
// every array starts with (base, n0 of them), the most items alt allows (maxN, -1: no
// bound) and the length of its tuple (pre).
type arrayShape struct {
	g          *gen
	alt, hint  *algebra.Conj
	base       []source.Value
	n0, maxN   int
	pre, depth int
}

// item returns the conjunction of the schemas of item i of c (nil for nil).
func (a *arrayShape) item(c *algebra.Conj, i int) *algebra.Conj {
	if c == nil {
		return nil
	}
	return a.g.e.ConjOf(a.g.e.ItemSchemas(c, i), nil)
}

// lengths adds to out arrays of the lengths around the other side's bounds, and one past
// each side's tuple.
func (a *arrayShape) lengths(out []source.Value, hints []*algebra.Merged) []source.Value {
	g, e := a.g, a.g.e
	// lengths: around the other side's bounds, and one past each side's tuple (a position
	// one side closes or gives another schema)
	lengths := []int{1, 2}
	for _, h := range hints {
		if h.MaxItems >= 0 {
			lengths = append(lengths, h.MaxItems+1)
		}
		if h.MinItems > 0 {
			lengths = append(lengths, h.MinItems-1)
		}
	}
	a.pre = e.PrefixLen(a.alt)
	lengths = append(lengths, a.pre, a.pre+1)
	if a.hint != nil {
		hp := e.PrefixLen(a.hint)
		lengths = append(lengths, hp, hp+1)
		if mx := e.MaxItemsOf(a.hint, e.Merged(a.hint)); mx >= 0 {
			lengths = append(lengths, mx+1)
		}
	}
	for _, L := range lengths {
		if L <= a.n0 || (a.maxN >= 0 && L > a.maxN) || L > 64 {
			continue
		}
		arr := slices.Clone(a.base)
		ok := true
		for i := len(arr); i < L; i++ {
			v, good := g.quiet(a.item(a.alt, i), a.item(a.hint, i), a.depth+1)
			if !good {
				ok = false
				break
			}
			arr = append(arr, v)
		}
		if ok {
			out = append(out, source.ArrayValue(arr...))
		}
	}
	return out
}

// positions adds to out arrays that vary one position at a time.
func (a *arrayShape) positions(out []source.Value) []source.Value {
	g, e := a.g, a.g.e
	// one position at a time: those an array must have, and those of the tuples
	positions := max(a.n0, 1)
	if a.hint != nil {
		positions = max(positions, min(max(a.pre, e.PrefixLen(a.hint))+1, 5))
	}
	for i := 0; i < positions && i < 5; i++ {
		if a.maxN >= 0 && i >= a.maxN {
			break
		}
		for _, v := range g.values(a.item(a.alt, i), a.item(a.hint, i), a.depth+1, false) {
			arr := slices.Clone(a.base)
			for len(arr) <= i {
				w, ok := g.quiet(a.item(a.alt, len(arr)), a.item(a.hint, len(arr)), a.depth+1)
				if !ok {
					break
				}
				arr = append(arr, w)
			}
			if len(arr) > i {
				arr[i] = v
				out = append(out, source.ArrayValue(arr...))
			}
		}
	}
	return out
}

// duplicates adds to out an array with a repeated item, for uniqueItems on the other side.
func (a *arrayShape) duplicates(out []source.Value, m *algebra.Merged) []source.Value {
	g := a.g
	// duplicates, for uniqueItems on the other side
	if !m.Unique && (a.maxN < 0 || a.maxN >= 2) {
		if v, ok := g.quiet(a.item(a.alt, 0), nil, a.depth+1); ok {
			arr := append(slices.Clone(a.base), v, v)
			if len(a.base) >= 1 {
				arr = append(slices.Clone(a.base), a.base[len(a.base)-1])
			}
			out = append(out, source.ArrayValue(arr...))
		}
	}
	return out
}

// missContains adds to out arrays of an item that does not match the other side's
// contains.
func (a *arrayShape) missContains(out []source.Value, hints []*algebra.Merged) []source.Value {
	g, e := a.g, a.g.e
	// items that do not match the other side's contains
	for _, h := range hints {
		for _, f := range h.Contains {
			vals := g.values(a.item(a.alt, 0), e.One(f.S), a.depth+1, false)
			for _, v := range vals {
				if ok, _ := f.S.ValidContext(g.e.Ctx, v); !ok {
					out = append(out, source.ArrayValue(v))
					break
				}
			}
		}
	}
	return out
}

// ---- objects ----

// objBuilder collects members in order.
type objBuilder struct {
	keys []string
	vals map[string]source.Value
}

func (b *objBuilder) set(k string, v source.Value) {
	if b.vals == nil {
		b.vals = map[string]source.Value{}
	}
	if _, ok := b.vals[k]; !ok {
		b.keys = append(b.keys, k)
	}
	b.vals[k] = v
}

func (b *objBuilder) clone() *objBuilder {
	c := &objBuilder{keys: slices.Clone(b.keys), vals: map[string]source.Value{}}
	for k, v := range b.vals {
		c.vals[k] = v
	}
	return c
}

func (b *objBuilder) without(k string) *objBuilder {
	c := b.clone()
	if _, ok := c.vals[k]; ok {
		delete(c.vals, k)
		c.keys = slices.DeleteFunc(c.keys, func(x string) bool { return x == k })
	}
	return c
}

func (b *objBuilder) value() source.Value {
	var ob source.ObjectBuilder
	for _, k := range b.keys {
		ob.Set(k, b.vals[k])
	}
	return ob.Value()
}

func (g *gen) valueOf(c *algebra.Conj, name string) (*algebra.Conj, bool) {
	if c == nil {
		return nil, false
	}
	return g.e.ValueConj(c, name)
}

// baseObject builds a minimal object of alt: its required properties (and those they
// require in turn), padded to minProperties; force names a member that must be present.
func (g *gen) baseObject(alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, depth int, force string, forceV *source.Value) (*objBuilder, bool) {
	b := &objBuilder{}
	if forceV != nil { // the empty name is a name too
		b.set(force, *forceV)
	}
	var names []string
	for k := range m.Required {
		names = append(names, k)
	}
	sort.Strings(names)
	for i := 0; i < len(names); i++ {
		k := names[i]
		if _, ok := b.vals[k]; ok {
			continue
		}
		vc, forbidden := g.e.ValueConj(alt, k)
		if forbidden {
			return nil, false
		}
		hc, _ := g.valueOf(hint, k)
		v, ok := g.quiet(vc, hc, depth+1)
		if !ok {
			return nil, false
		}
		b.set(k, v)
		for _, r := range sortedSet(m.DepReq[k]) {
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	if m.MinProps > len(b.keys) {
		g.addOptional(b, alt, m, depth, m.MinProps)
	}
	return b, true
}

func sortedSet(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// addOptional adds to b members that alt allows but does not require, each with a value
// that can be made, in optionalNames order, until b has n members or no name is left.
func (g *gen) addOptional(b *objBuilder, alt *algebra.Conj, m *algebra.Merged, depth, n int) {
	for _, k := range g.optionalNames(alt, m) {
		if len(b.keys) >= n {
			return
		}
		if _, ok := b.vals[k]; ok {
			continue
		}
		vc, forbidden := g.e.ValueConj(alt, k)
		if forbidden {
			continue
		}
		if v, ok := g.quiet(vc, nil, depth+1); ok {
			b.set(k, v)
		}
	}
}

// optionalNames lists names an object of alt may carry: its properties, names for its
// patterns, then a fresh name.
func (g *gen) optionalNames(alt *algebra.Conj, m *algebra.Merged) []string {
	var out []string
	for _, k := range g.e.ExplicitNames(alt) {
		if !m.Required[k] {
			out = append(out, k)
		}
	}
	for _, n := range g.e.Parts(alt) {
		for _, p := range n.Patterns {
			if name, ok := g.nameFor(p.Src, alt); ok {
				out = append(out, name)
			}
		}
	}
	for i := 0; i < 4; i++ {
		out = append(out, g.freshNameN(alt, nil, i))
	}
	return out
}

// hintNames lists the property names the hint names, in itself, its branches and its
// negations.
func (g *gen) hintNames(hint *algebra.Conj) []string {
	if hint == nil {
		return nil
	}
	out := slices.Clone(g.e.ExplicitNames(hint))
	m := g.e.Merged(hint)
	var subs []*schema.Schema
	for f := range m.Groups {
		subs = append(subs, f.Subs...)
	}
	subs = append(subs, m.Nots...)
	for _, s := range subs {
		if s == nil {
			continue
		}
		for _, k := range g.e.ExplicitNames(g.e.One(s)) {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// nameFor returns a property name matching pattern src that alt does not name explicitly.
func (g *gen) nameFor(src string, alt *algebra.Conj) (string, bool) {
	a := g.e.Pats.Get(src)
	if a == nil {
		return "", false
	}
	avoid := map[string]bool{}
	for _, k := range g.e.ExplicitNames(alt) {
		avoid[k] = true
	}
	w, found, _ := g.e.Pats.Solve(pattern.Query{Must: []*pattern.Automaton{a}, MinLen: 1, MaxLen: -1, Avoid: avoid})
	return w, found && g.e.PatternMatches(src, w)
}

// namesBetween returns, for each pattern of either side, a name it matches that no
// pattern of the other side does.
func (g *gen) namesBetween(a, b *algebra.Conj) []string {
	if b == nil {
		return nil
	}
	pats := func(c *algebra.Conj) (srcs []string, autos []*pattern.Automaton) {
		for _, n := range g.e.Parts(c) {
			for _, p := range n.Patterns {
				if x := g.e.Pats.Get(p.Src); x != nil {
					srcs, autos = append(srcs, p.Src), append(autos, x)
				}
			}
		}
		return srcs, autos
	}
	sa, aa := pats(a)
	sb, ab := pats(b)
	var out []string
	for _, side := range []struct {
		srcs  []string
		autos []*pattern.Automaton
		other []*pattern.Automaton
	}{{sa, aa, ab}, {sb, ab, aa}} {
		for i, x := range side.autos {
			// (a question per pattern, each over the other side's patterns: hundreds of
			// them take seconds, so a cancelled comparison stops here)
			if len(out) >= 8 || g.e.Ctx.Err() != nil {
				return out
			}
			if w, found, _ := g.e.Pats.Solve(pattern.Query{Must: []*pattern.Automaton{x}, MustNot: side.other, MinLen: 1, MaxLen: -1}); found && g.e.PatternMatches(side.srcs[i], w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// freshName returns a name that neither side names and no pattern of either side matches.
func (g *gen) freshName(a, b *algebra.Conj) string { return g.freshNameN(a, b, 0) }

// freshNameN returns the n-th such name.
func (g *gen) freshNameN(a, b *algebra.Conj, n int) string {
	taken := func(k string) bool {
		for _, c := range []*algebra.Conj{a, b} {
			if c == nil {
				continue
			}
			for _, n := range g.e.Parts(c) {
				if _, ok := n.Props[k]; ok {
					return true
				}
				for _, p := range n.Patterns {
					if g.e.PatternMatches(p.Src, k) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, k := range []string{"extra", "x-extra", "zz_other", "jstk_1", "Q9", "~", "extra2", "extra3", "extra4"} {
		if !taken(k) {
			if n == 0 {
				return k
			}
			n--
		}
	}
	return "jstk-extra-property-" + strconv.Itoa(n)
}

// hintFor narrows a hint with anyOf/oneOf/if groups to the branch that admits a kind, so
// that the members and items of that branch guide the values.
func (g *gen) hintFor(hint *algebra.Conj, k schema.TypeSet) *algebra.Conj {
	if hint == nil || g.e.Merged(hint).NGroups == 0 {
		return hint
	}
	for _, alt := range g.expand(hint) {
		if g.e.Merged(alt).Types&k != 0 {
			return alt
		}
	}
	return hint
}

// objects returns objects of alt to try against the other side (hint, hints): a minimal
// one with the members it requires, and one with its optional members too; when wide, also
// objects with each member that matters varied or left out, with more members than the
// other side allows, and with the triggers of the other side's dependencies.
func (g *gen) objects(alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, hints []*algebra.Merged, depth int, wide bool) []source.Value {
	if depth > maxDepth {
		wide = false
	}
	hint = g.hintFor(hint, schema.TypeObject)
	base, ok := g.baseObject(alt, m, hint, depth, "", nil)
	if !ok {
		return nil
	}
	out := []source.Value{base.value()}
	if !wide {
		// also one with the optional properties filled, which reaches deeper
		full := g.filled(base, alt, hint, g.e.ExplicitNames(alt), math.MaxInt, depth)
		if len(full.keys) > len(base.keys) {
			out = append(out, full.value())
		}
		return out
	}
	names := g.objectNames(alt, hint)
	// a second base with every name present (quiet values), to reach members that only
	// matter together
	full := g.filled(base, alt, hint, names, len(base.keys)+24, depth)
	bases := []*objBuilder{base}
	if len(full.keys) > len(base.keys) {
		bases = append(bases, full)
		out = append(out, full.value())
	}
	varied := g.namesToVary(alt, m, hint, hints, base, names)
	for _, bb := range bases {
		out = g.appendVaried(out, bb, varied, alt, m, hint, depth)
	}
	out = append(out, g.overMaxProperties(base, alt, m, hints, depth)...)
	// a trigger of the other side's dependentSchemas, with the members its schema speaks
	// of varied against it
	out = append(out, g.triggered(alt, base, hint, depth)...)
	return append(out, g.untriggered(base, alt, hints, depth)...)
}

// filled returns a copy of base with quiet values of the names it lacks and alt allows,
// in their order, until it has limit members.
func (g *gen) filled(base *objBuilder, alt, hint *algebra.Conj, names []string, limit, depth int) *objBuilder {
	full := base.clone()
	for _, k := range names {
		// (each name is matched against every pattern: hundreds of names and patterns take
		// seconds, so a cancelled comparison stops here)
		if len(full.keys) >= limit || g.e.Ctx.Err() != nil {
			break
		}
		if _, ok := full.vals[k]; ok {
			continue
		}
		vc, forbidden := g.e.ValueConj(alt, k)
		if forbidden {
			continue
		}
		hc, _ := g.valueOf(hint, k)
		if v, ok := g.quiet(vc, hc, depth+1); ok {
			full.set(k, v)
		}
	}
	return full
}

// objectNames returns the names an object of alt may vary, each once: ours, theirs, names
// for the patterns of both sides, names one side's patterns match and the other's do not
// (a pattern that changed), and a fresh one.
func (g *gen) objectNames(alt, hint *algebra.Conj) []string {
	var names []string
	seen := map[string]bool{}
	addName := func(k string) {
		if !seen[k] {
			seen[k] = true
			names = append(names, k)
		}
	}
	for _, k := range g.e.ExplicitNames(alt) {
		addName(k)
	}
	for _, k := range g.hintNames(hint) {
		addName(k)
	}
	for _, c := range []*algebra.Conj{alt, hint} {
		if c == nil {
			continue
		}
		for _, n := range g.e.Parts(c) {
			for _, p := range n.Patterns {
				if name, ok := g.nameFor(p.Src, alt); ok {
					addName(name)
				}
			}
		}
	}
	for _, name := range g.namesBetween(alt, hint) {
		addName(name)
	}
	addName(g.freshName(alt, hint))
	return names
}

// namesToVary keeps of names those alt allows whose schemas differ between the two sides,
// or whose presence matters to one of them; when there are few names, also those base
// has, whatever the other side says of them.
func (g *gen) namesToVary(alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, hints []*algebra.Merged, base *objBuilder, names []string) []string {
	var varied []string
	for _, k := range names {
		if g.e.Ctx.Err() != nil { // (hundreds of names each against hundreds of patterns)
			break
		}
		vc, forbidden := g.e.ValueConj(alt, k)
		if forbidden {
			continue
		}
		hc, hforbidden := g.valueOf(hint, k)
		if hint != nil && !hforbidden && hc != nil && g.e.SameConj(vc, hc) && !hintRequires(hints, k) && !m.Required[k] {
			if _, present := base.vals[k]; !present || len(names) > 12 {
				continue
			}
		}
		varied = append(varied, k)
	}
	return varied
}

// appendVaried appends to out copies of bb with each varied name given up to three other
// values, and without it when alt does not require it; it stops early when the search
// must stop.
func (g *gen) appendVaried(out []source.Value, bb *objBuilder, varied []string, alt *algebra.Conj, m *algebra.Merged, hint *algebra.Conj, depth int) []source.Value {
	for _, k := range varied {
		if g.stop() {
			break
		}
		vc, forbidden := g.e.ValueConj(alt, k)
		if forbidden {
			continue
		}
		hc, _ := g.valueOf(hint, k)
		vals := g.values(vc, hc, depth+1, false)
		cur, present := bb.vals[k]
		n := 0
		for _, v := range vals {
			if n >= 3 {
				break
			}
			if present && source.Equal(v, cur) {
				continue
			}
			b := bb.clone()
			b.set(k, v)
			out = append(out, b.value())
			n++
		}
		if present && !m.Required[k] {
			out = append(out, bb.without(k).value())
		}
	}
	return out
}

// overMaxProperties returns, for each maxProperties of the other side that base does not
// already exceed, base with optional members added up to one more than it allows.
func (g *gen) overMaxProperties(base *objBuilder, alt *algebra.Conj, m *algebra.Merged, hints []*algebra.Merged, depth int) []source.Value {
	var out []source.Value
	for _, h := range hints {
		if h.MaxProps < 0 || h.MaxProps+1 <= len(base.keys) {
			continue
		}
		b := base.clone()
		g.addOptional(b, alt, m, depth, h.MaxProps+1)
		out = append(out, b.value())
	}
	return out
}

// untriggered returns base with a trigger of the other side's dependentRequired added
// without what it requires, for each trigger base lacks and alt allows.
func (g *gen) untriggered(base *objBuilder, alt *algebra.Conj, hints []*algebra.Merged, depth int) []source.Value {
	var out []source.Value
	for _, h := range hints {
		for _, t := range algebra.SortedKeys(h.DepReq) {
			if _, ok := base.vals[t]; ok {
				continue
			}
			vc, forbidden := g.e.ValueConj(alt, t)
			if forbidden {
				continue
			}
			if v, ok := g.quiet(vc, nil, depth+1); ok {
				b := base.clone()
				b.set(t, v)
				out = append(out, b.value())
			}
		}
	}
	return out
}

// triggered returns objects of alt with a trigger of a dependent schema of hint, alone
// and with the members the dependent schema names given values that fail it.
func (g *gen) triggered(alt *algebra.Conj, base *objBuilder, hint *algebra.Conj, depth int) []source.Value {
	if hint == nil {
		return nil
	}
	var out []source.Value
	for _, f := range g.e.Merged(hint).DepSch {
		vc, forbidden := g.e.ValueConj(alt, f.Str)
		if forbidden {
			continue
		}
		v, ok := g.quiet(vc, nil, depth+1)
		if !ok {
			continue
		}
		b := base.clone()
		b.set(f.Str, v)
		out = append(out, b.value())
		dep := g.e.With(hint, []*schema.Schema{f.S})
		for _, k := range g.e.ExplicitNames(g.e.One(f.S)) {
			if k == f.Str {
				continue
			}
			kc, forbidden := g.e.ValueConj(alt, k)
			if forbidden {
				continue
			}
			hc, _ := g.valueOf(dep, k)
			for i, x := range g.values(kc, hc, depth+1, false) {
				if i >= 3 {
					break
				}
				c := b.clone()
				c.set(k, x)
				out = append(out, c.value())
			}
		}
	}
	return out
}

// unmatch changes v, valid under src, into a value still valid under src that target
// rejects, branch by branch: while a branch of one of target's anyOf or oneOf groups
// accepts it, a member that branch names gets a value of src that fails the branch (or,
// when the branch requires it and src does not, goes). ok is false when that fails.
func (g *gen) unmatch(v source.Value, src, target *algebra.Conj) (source.Value, bool) {
	e := g.e
	var branches []*schema.Schema
	for f := range e.Merged(target).Groups {
		if f.Kind == algebra.FAnyOf || f.Kind == algebra.FOneOf {
			branches = append(branches, f.Subs...)
		}
	}
	for round := 0; round < 8 && round < len(branches)+1; round++ {
		if ok, _ := e.Valid(target, v); !ok {
			return v, true
		}
		if g.stop() {
			return v, false
		}
		progressed := false
		for _, br := range branches {
			if ok, err := br.ValidContext(e.Ctx, v); err != nil || !ok {
				continue
			}
			if w, ok := g.breakBranch(v, src, br); ok {
				v, progressed = w, true
				break
			}
		}
		if !progressed {
			return v, false
		}
	}
	ok, _ := e.Valid(target, v)
	return v, !ok
}

// breakBranch changes one member of the object v (valid under src) so that it is still
// valid under src and invalid under br.
func (g *gen) breakBranch(v source.Value, src *algebra.Conj, br *schema.Schema) (source.Value, bool) {
	if ws := g.breakBranchN(v, src, br, 1); len(ws) > 0 {
		return ws[0], true
	}
	return source.Value{}, false
}

// breakBranchN is breakBranch's changes, up to n of them: each is valid under src and
// invalid under br, but only the whole schemas tell whether it breaks a direction (a member
// removed may hand the object to another branch), so the caller tries several.
func (g *gen) breakBranchN(v source.Value, src *algebra.Conj, br *schema.Schema, n int) []source.Value {
	e := g.e
	if v.Kind() != source.Object || n <= 0 {
		return nil
	}
	cb := e.One(br)
	mb := e.Merged(cb)
	ms := e.Merged(src)
	keep := func(w source.Value) bool { return g.breaks(w, src, br) }
	var out []source.Value
	add := func(w source.Value) bool {
		out = append(out, w)
		return len(out) == n
	}
	var b objBuilder
	for i := 0; i < v.Len(); i++ {
		k, m := v.Member(i)
		b.set(k.Str(), m)
	}
	for _, k := range e.ExplicitNames(cb) {
		if _, present := b.vals[k]; present && mb.Required[k] && !ms.Required[k] {
			if w := b.without(k).value(); keep(w) && add(w) {
				return out
			}
		}
		vc, forbidden := e.ValueConj(src, k)
		if forbidden {
			continue
		}
		hc, hforbidden := e.ValueConj(cb, k)
		if hforbidden {
			if _, present := b.vals[k]; !present {
				if x, ok := g.quiet(vc, nil, 1); ok {
					c := b.clone()
					c.set(k, x)
					if w := c.value(); keep(w) && add(w) {
						return out
					}
				}
			}
			continue
		}
		for i, x := range g.values(vc, hc, 1, false) {
			if i >= 4 {
				break
			}
			c := b.clone()
			c.set(k, x)
			if w := c.value(); keep(w) && add(w) {
				return out
			}
		}
	}
	return out
}

// ---- building an instance around a value ----

// maxCondsByMember bounds the if/then/else groups byMember examines.
const maxCondsByMember = 32

// byMember returns src with the if/then/else groups it has chosen by the member key,
// whose value will be child: where the condition's schema of the member rejects child,
// the condition fails (else); where it accepts child, it is taken to hold (if and then).
// Objects discriminated by a member ({if: {properties: {type: {const: "upload"}}}, then:
// ...} once per type) are built by the branch their discriminator names, not by the
// first ones expand meets. A guess like expand's: every value built is judged.
func (g *gen) byMember(src *algebra.Conj, key string, child source.Value) *algebra.Conj {
	m := g.e.Merged(src)
	if m.NGroups == 0 {
		return src
	}
	var add []*schema.Schema
	var ids []int
	n := 0
	for f := range m.Groups {
		if f.Kind != algebra.FCond || f.Subs[0] == nil {
			continue
		}
		if n++; n > maxCondsByMember {
			break
		}
		subs, forbidden := g.e.ValueSchemas(g.e.One(f.Subs[0]), key)
		if forbidden || len(subs) == 0 {
			continue
		}
		ok, known := g.e.Valid(g.e.ConjOf(subs, nil), child)
		if !known {
			continue
		}
		switch {
		case ok:
			add = append(add, prove.NonNil(f.Subs[0], f.Subs[1])...)
		case f.Subs[2] != nil:
			add = append(add, f.Subs[2])
		}
		ids = append(ids, g.e.GroupOf(f))
	}
	if len(ids) == 0 {
		return src
	}
	return g.e.With(src, add, ids...)
}

// around returns containers of src (valid, when possible) that hold child where st says.
func (g *gen) around(src, hint *algebra.Conj, st align.Step, child source.Value, depth int) []source.Value {
	var out []source.Value
	if st.Kind == align.StProp {
		src = g.byMember(src, st.Key, child)
	}
	for _, alt := range g.expand(src) {
		m := g.e.Merged(alt)
		switch st.Kind {
		case align.StProp, align.StPatProp, align.StAdditional, align.StPropName:
			if m.Types&schema.TypeObject == 0 {
				continue
			}
			name := st.Key
			val := child
			switch st.Kind {
			case align.StPatProp:
				n, ok := g.nameFor(st.Key, alt)
				if !ok {
					continue
				}
				name = n
			case align.StAdditional:
				name = g.freshName(alt, nil)
			case align.StPropName:
				if child.Kind() != source.String {
					continue
				}
				name = child.Str()
				vc, forbidden := g.e.ValueConj(alt, name)
				if forbidden {
					continue
				}
				v, ok := g.quiet(vc, nil, depth+1)
				if !ok {
					continue
				}
				val = v
			}
			b, ok := g.baseObject(alt, m, hint, depth, name, &val)
			if !ok {
				continue
			}
			out = append(out, b.value())
		case align.StItem, align.StTail, align.StContains:
			if m.Types&schema.TypeArray == 0 {
				continue
			}
			pos := st.Index
			if st.Kind == align.StContains {
				pos = 0
			}
			var arr []source.Value
			ok := true
			for i := 0; i < pos; i++ {
				v, good := g.quiet(g.e.ConjOf(g.e.ItemSchemas(alt, i), nil), nil, depth+1)
				if !good {
					ok = false
					break
				}
				arr = append(arr, v)
			}
			if !ok {
				continue
			}
			arr = append(arr, child)
			for i := len(arr); i < m.MinItems; i++ {
				v, good := g.quiet(g.e.ConjOf(g.e.ItemSchemas(alt, i), nil), nil, depth+1)
				if !good {
					break
				}
				arr = append(arr, v)
			}
			out = append(out, source.ArrayValue(arr...))
		}
		if len(out) >= 2 {
			break
		}
	}
	return out
}

// valueSize counts the JSON values in v, stopping at limit.
func valueSize(v source.Value, limit int) int {
	n := 1
	switch v.Kind() {
	case source.Array:
		for _, it := range v.Items() {
			if n >= limit {
				return n
			}
			n += valueSize(it, limit-n)
		}
	case source.Object:
		for i := 0; i < v.Len() && n < limit; i++ {
			_, val := v.Member(i)
			n += valueSize(val, limit-n)
		}
	}
	return n
}

func hintRequires(hints []*algebra.Merged, k string) bool {
	for _, h := range hints {
		if h.Required[k] {
			return true
		}
		if _, ok := h.DepReq[k]; ok {
			return true
		}
		for _, f := range h.DepSch {
			if f.Str == k {
				return true
			}
		}
	}
	return false
}

// maximalDepth and maximalSize bound the maximal instance.
const (
	maximalDepth = 8
	maximalSize  = 300
)

// maximal builds a valid value of src with every declared property present, recursively.
func (g *gen) maximal(src *algebra.Conj, depth int, size *int) (source.Value, bool) {
	if depth > maximalDepth || *size > maximalSize || g.stop() {
		return g.quiet(src, nil, depth+maxDepth)
	}
	for _, alt := range g.expand(src) {
		m := g.e.Merged(alt)
		var v source.Value
		switch {
		case m.Types&schema.TypeObject != 0:
			b, ok := g.baseObject(alt, m, nil, depth, "", nil)
			if !ok {
				continue
			}
			for i, k := range g.e.ExplicitNames(alt) {
				if i >= 24 {
					break
				}
				vc, forbidden := g.e.ValueConj(alt, k)
				if forbidden {
					continue
				}
				if x, ok := g.maximal(vc, depth+1, size); ok {
					b.set(k, x)
					*size += valueSize(x, maximalSize)
				}
			}
			v = b.value()
		case m.Types&schema.TypeArray != 0:
			var items []source.Value
			for i := 0; i < max(1, m.MinItems) && i < 8; i++ {
				x, ok := g.maximal(g.e.ConjOf(g.e.ItemSchemas(alt, i), nil), depth+1, size)
				if !ok {
					break
				}
				items = append(items, x)
			}
			v = source.ArrayValue(items...)
		default:
			x, ok := g.quiet(alt, nil, depth+maxDepth)
			if !ok {
				continue
			}
			v = x
		}
		if ok, _ := g.e.Valid(src, v); ok {
			return v, true
		}
	}
	return g.quiet(src, nil, depth+maxDepth)
}
