package search

import (
	"slices"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/source"
)

// Examples that read like data. A shrunk example keeps only what its break needs, so a
// string that a format describes is often "" and a number may be spelled 10.0. Polishing
// fills each such string with a value of its format ("a@example.com" for an email) and
// writes each number in its shortest form (10), one value at a time, keeping a change
// only when the example still proves the same break (re-checked with the validator, and
// for a change's example, still failing at that change). Formats are filled whether or
// not they are asserted: a reader expects an email where the schema says email.

// polishBudget bounds the validations spent on one example.
const polishBudget = 64

// polish returns x, valid under the side dir reads from, with its format strings filled
// and its numbers in their shortest form where keep still holds.
func (s *Searcher) polish(x source.Value, dir int, keep func(source.Value) bool) source.Value {
	src := s.Old
	if dir == DirForward {
		src = s.New
	}
	budget := polishBudget
	try := func(y source.Value) bool {
		if budget <= 0 || s.E.Ctx.Err() != nil {
			return false
		}
		budget--
		return keep(y)
	}
	out, _ := s.polishAt(x, s.E.One(src), 0, try)
	return out
}

// polishAt polishes v, whose schemas are those of c, as part of a whole example that
// accept tries (with v replaced by its argument); it reports whether v changed.
func (s *Searcher) polishAt(v source.Value, c *algebra.Conj, depth int, accept func(source.Value) bool) (source.Value, bool) {
	e := s.E
	if depth > 32 {
		return v, false
	}
	changed := false
	switch v.Kind() {
	case source.String:
		for _, f := range e.formatsOf(c) {
			for _, sample := range formatSamples()[f] {
				if sample == v.Str() {
					return v, false
				}
				if y := source.StringValue(sample); accept(y) {
					return y, true
				}
			}
		}
	case source.Number:
		if short := v.Num().String(); short != v.Str() {
			if y := source.NumberValue(short); accept(y) {
				return y, true
			}
		}
	case source.Object:
		for i := 0; i < v.Len(); i++ {
			k, member := v.Member(i)
			vc, forbidden := e.ValueConj(c, k.Str())
			if forbidden {
				continue
			}
			cur := v
			rebuild := func(m source.Value) source.Value {
				var b source.ObjectBuilder
				for j := 0; j < cur.Len(); j++ {
					kj, mj := cur.Member(j)
					if j == i {
						mj = m
					}
					b.Set(kj.Str(), mj)
				}
				return b.Value()
			}
			if p, ok := s.polishAt(member, vc, depth+1, func(m source.Value) bool { return accept(rebuild(m)) }); ok {
				v, changed = rebuild(p), true
			}
		}
	case source.Array:
		items := v.Items()
		for i, it := range items {
			ic := e.ConjOf(e.ItemSchemas(c, i), nil)
			cur := items
			rebuild := func(m source.Value) source.Value {
				out := slices.Clone(cur)
				out[i] = m
				return source.ArrayValue(out...)
			}
			if p, ok := s.polishAt(it, ic, depth+1, func(m source.Value) bool { return accept(rebuild(m)) }); ok {
				items = slices.Clone(items)
				items[i] = p
				v, changed = source.ArrayValue(items...), true
			}
		}
	}
	return v, changed
}

// formatsOf returns the formats the schemas of c name (asserted or not), those of the
// branches of its groups too, known formats only.
func (e *Engine) formatsOf(c *algebra.Conj) []string {
	var out []string
	add := func(cj *algebra.Conj) {
		for _, n := range e.Parts(cj) {
			if v, ok := n.Kw("format"); ok && v.Kind() == source.String {
				if _, known := formatSamples()[v.Str()]; known && !slices.Contains(out, v.Str()) {
					out = append(out, v.Str())
				}
			}
		}
	}
	add(c)
	for g := range e.Merged(c).Groups {
		for _, br := range g.Subs {
			if br != nil {
				add(e.One(br))
			}
		}
	}
	return out
}

// PolishExamples polishes the examples of the changes and of the two directions (ex, by
// direction - 1). A direction's example is most often a change's too: it then takes the
// change's polished example, which still separates the sides.
func (s *Searcher) PolishExamples(ex *[2]source.Value) {
	done := [2]map[string]source.Value{{}, {}}
	for _, ch := range s.Attr.Changes {
		if !ch.Example.IsValid() || ch.Level != "validation" {
			continue
		}
		raw := string(source.AppendJSON(nil, ch.Example))
		keep := s.separates(ch.ExampleDir, nil, nil, ch.It)
		if ch.FailLoc == "" && ch.It != nil {
			keep = s.separates(ch.ExampleDir, ch, &s.Attr, ch.It)
		}
		ch.Example = s.polish(ch.Example, ch.ExampleDir, keep)
		done[ch.ExampleDir-1][raw] = ch.Example
	}
	var root *align.Item
	if len(s.Items) > 0 {
		root = s.Items[0]
	}
	for dir := DirBackward; dir <= DirForward; dir++ {
		x := ex[dir-1]
		if !x.IsValid() {
			continue
		}
		if p, ok := done[dir-1][string(source.AppendJSON(nil, x))]; ok {
			ex[dir-1] = p
			continue
		}
		ex[dir-1] = s.polish(x, dir, s.separates(dir, nil, nil, root))
	}
}
