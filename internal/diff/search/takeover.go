package search

import (
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// A branch added to a oneOf or anyOf of NEW often takes over instances another branch
// accepted: a discriminated union whose catch-all now excludes the new branch's value
// (with not, an enum, a not required). An instance of OLD that carries the new value but
// misses what the new branch asks for besides (a required member, a member of another
// type) is then valid under OLD and invalid under NEW: the new branch rejects it, and
// the branch that accepted it no longer takes it. takenOver makes such instances: values
// of the new branch (with OLD there, with OLD's context there, and alone), changed
// (breakDeep) until the new branch rejects them while OLD still accepts them. Forward,
// the same with the sides swapped: a branch OLD had and NEW dropped.

// maxTakeOverValues bounds the values of each kind takenOver changes.
const maxTakeOverValues = 6

// maxBreakDepth bounds the members breakDeep descends through.
const maxBreakDepth = 3

// takenOver returns, at a location where the other side's oneOf or anyOf has a branch the
// source side's lacks (backward: NEW gained it; forward: OLD lost it), values that src
// (the source side there) or its context there accepts and that branch is made to
// reject.
func (s *Searcher) takenOver(it *align.Item, dir int, src *algebra.Conj) []source.Value {
	if s.found {
		return nil
	}
	e := s.E
	var out []source.Value
	for _, ch := range it.Changes {
		suffix, g, kw, p := "-branch-added", ch.Nf, ch.Nkw, ch.Bw
		if dir == DirForward {
			suffix, g, kw, p = "-branch-removed", ch.Of, ch.Okw, ch.Fw
		}
		if !strings.HasSuffix(ch.Kind, suffix) || g == nil || p != align.PUnknown {
			continue
		}
		j, err := strconv.Atoi(kw[strings.LastIndexByte(kw, '/')+1:])
		if err != nil || j < 0 || j >= len(g.Subs) {
			continue
		}
		br := g.Subs[j]
		// the instance need not take OLD's branch here: valid under the context (the
		// enclosing group with its other branches) is enough
		srcs := []*algebra.Conj{src}
		from := []*algebra.Conj{e.With(src, []*schema.Schema{br}), e.One(br)}
		for _, ctx := range s.contexts(it, dir) {
			srcs = append(srcs, ctx)
			from = append(from, e.With(ctx, []*schema.Schema{br}))
		}
		var vals []source.Value
		for _, c := range from {
			n := 0
			for _, v := range s.gen.values(c, src, 0, true) {
				if n == maxTakeOverValues || s.stop() {
					break
				}
				if v.Kind() == source.Object {
					vals = append(vals, v)
					n++
				}
			}
		}
		for _, v := range vals {
			for _, sc := range srcs {
				if s.stop() {
					return out
				}
				out = append(out, s.gen.breakDeep(v, sc, br, 0)...)
			}
		}
	}
	return out
}

// contexts returns what the source side of the direction applies around the item's
// location: the enclosing groups with their other branches (its context), and everything
// the parent container applies to the instance there (its items schemas or its member's),
// when the item is reached by an item or a named member.
func (s *Searcher) contexts(it *align.Item, dir int) []*algebra.Conj {
	e := s.E
	ctx := it.CtxO
	if dir == DirForward {
		ctx = it.CtxN
	}
	var out []*algebra.Conj
	if len(ctx) > 0 {
		out = append(out, e.ConjOf(ctx, nil))
	}
	if p := it.Path; p != nil {
		parent := p.O
		if dir == DirForward {
			parent = p.N
		}
		var subs []*schema.Schema
		switch {
		case parent == nil:
		case p.Kind == align.StItem || p.Kind == align.StTail:
			subs = e.ItemSchemas(parent, p.Index)
		case p.Kind == align.StProp:
			subs, _ = e.ValueSchemas(parent, p.Key)
		}
		if len(subs) > 0 {
			out = append(out, e.ConjOf(subs, nil))
		}
	}
	return out
}

// breakDeep returns changes of the object v that src accepts and br rejects: a member
// whose value br judges changed the same way inside (against the schema br applies to
// it), deepest first, then members changed or removed one at a time (breakBranchN).
func (g *gen) breakDeep(v source.Value, src *algebra.Conj, br *schema.Schema, depth int) []source.Value {
	e := g.e
	if v.Kind() != source.Object || depth > maxBreakDepth || g.stop() {
		return nil
	}
	keep := func(w source.Value) bool { return g.breaks(w, src, br) }
	var out []source.Value
	cb := e.One(br)
	for _, k := range e.ExplicitNames(cb) {
		m, present := v.Get(k)
		if !present || m.Kind() != source.Object {
			continue
		}
		subs, forbidden := e.ValueSchemas(cb, k)
		if forbidden || len(subs) != 1 {
			continue
		}
		vc, forbidden := e.ValueConj(src, k)
		if forbidden {
			continue
		}
		for _, x := range g.breakDeep(m, vc, subs[0], depth+1) {
			var b objBuilder
			for i := 0; i < v.Len(); i++ {
				key, val := v.Member(i)
				b.set(key.Str(), val)
			}
			b.set(k, x)
			if w := b.value(); keep(w) {
				out = append(out, w)
				break
			}
		}
	}
	return append(out, g.breakBranchN(v, src, br, maxTakeOverValues)...)
}

// breaks reports whether w is valid under src and invalid under br: a change of an
// instance that keeps it in the source side and takes it out of the branch.
func (g *gen) breaks(w source.Value, src *algebra.Conj, br *schema.Schema) bool {
	if ok, _ := g.e.Valid(src, w); !ok {
		return false
	}
	ok, err := br.ValidContext(g.e.Ctx, w)
	return err == nil && !ok
}
