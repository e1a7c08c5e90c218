package openapi

import (
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Target follows a schema that is nothing but a local reference ({"$ref": "#/..."}, no other
// member) to the schema it names, repeatedly: comparing the two is comparing their targets.
func (d *Document) Target(ptr string) string {
	for range maxHops {
		v, ok := d.Src.Root.Pointer(ptr)
		if !ok || v.Kind() != source.Object || v.Len() != 1 || v.Key(0) != "$ref" {
			return ptr
		}
		_, rv := v.Member(0)
		if rv.Kind() != source.String || !strings.HasPrefix(rv.Str(), "#/") {
			return ptr
		}
		target := unescapeFragment(rv.Str()[1:])
		if _, ok := d.Src.Root.Pointer(target); !ok {
			return ptr
		}
		ptr = target
	}
	return ptr
}

// Same reports, without compiling anything, that the schemas at oldPtr and newPtr are the
// same text in the same dialect, and so are the schemas they reach through local references:
// they accept the same instances. It is conservative: a reference to another document, an
// identifier, an anchor, a dynamic reference or a $schema anywhere in reach makes it false
// (the comparison then decides). To ask about many locations of the same two documents, use
// one Sameness: it reads each reference target once.
func Same(old *Document, oldItem *Item, oldPtr string, new *Document, newItem *Item, newPtr string) bool {
	return NewSameness(old, new).Same(oldItem, oldPtr, newItem, newPtr)
}

// Sameness answers Same for many locations of two documents in time linear in their size:
// whether the reference targets a schema reaches are the same in both is worked out once per
// target, without recursion (a chain of 100,000 references is a loop, not a stack).
type Sameness struct {
	old, new *Document
	state    map[string]bool // reference target -> its closure is the same in both documents
	steps    int             // values visited, bounded by maxWalk: past it the answer is false
}

// NewSameness prepares Same's questions about old and new.
func NewSameness(old, new *Document) *Sameness {
	return &Sameness{old: old, new: new, state: map[string]bool{}}
}

// Same is the package function Same for the documents of s.
func (s *Sameness) Same(oldItem *Item, oldPtr string, newItem *Item, newPtr string) bool {
	if s.old.Kind.Dialect != s.new.Kind.Dialect || oldItem.Dialect != newItem.Dialect {
		return false
	}
	ov, ok1 := s.old.Src.Root.Pointer(oldPtr)
	nv, ok2 := s.new.Src.Root.Pointer(newPtr)
	if !ok1 || !ok2 || !sameValue(ov, nv) {
		return false
	}
	refs, clean := s.scan(ov)
	if !clean {
		return false
	}
	return s.closed(refs)
}

// closed reports whether every target in refs, and every target they reach, reads the same
// in both documents. It explores the targets not decided yet, then decides all of them: a
// target is bad when it differs or holds what Same does not judge, or reaches a bad one.
func (s *Sameness) closed(refs []string) bool {
	type node struct {
		bad   bool
		edges []string
	}
	graph := map[string]*node{}
	var order []string
	queue := refs
	badSeen := false
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if ok, known := s.state[t]; known {
			badSeen = badSeen || !ok
			continue
		}
		if graph[t] != nil {
			continue
		}
		n := &node{}
		graph[t] = n
		order = append(order, t)
		a, ok1 := s.old.Src.Root.Pointer(t)
		b, ok2 := s.new.Src.Root.Pointer(t)
		if !ok1 || !ok2 || !sameValue(a, b) {
			n.bad = true
		} else {
			var clean bool
			n.edges, clean = s.scan(a)
			n.bad = !clean
			queue = append(queue, n.edges...)
		}
		badSeen = badSeen || n.bad
	}
	if !badSeen {
		for _, t := range order {
			s.state[t] = true
		}
		return true
	}
	// Bad spreads backwards along the references: a target is bad when it reaches one.
	back := map[string][]string{}
	var spread []string
	for _, t := range order {
		n := graph[t]
		if n.bad {
			spread = append(spread, t)
		}
		for _, to := range n.edges {
			if ok, known := s.state[to]; known && !ok && !n.bad {
				n.bad = true
				spread = append(spread, t)
			}
			back[to] = append(back[to], t)
		}
	}
	for len(spread) > 0 {
		t := spread[len(spread)-1]
		spread = spread[:len(spread)-1]
		for _, from := range back[t] {
			if n := graph[from]; !n.bad {
				n.bad = true
				spread = append(spread, from)
			}
		}
	}
	for _, t := range order {
		s.state[t] = !graph[t].bad
	}
	for _, t := range refs {
		if !s.state[t] {
			return false
		}
	}
	return true
}

// unclean are the keywords scan refuses: $schema, and the identifiers and the references
// other than $ref of 2019-09 and 2020-12 (the drafts of OpenAPI 3.1's dialect and the one
// before it), from the keyword model. Draft 4's id is not among them: OpenAPI 3.0 reads no
// identifier, and "id" is a common property name.
var unclean = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"$schema": true}
	for _, name := range schema.KeywordNames(schema.InDraft2019|schema.InDraft2020, func(k *schema.Keyword) bool {
		return k.Kind == schema.Identifier || k.Kind == schema.Reference && k.Name != "$ref"
	}) {
		m[name] = true
	}
	return m
})

// scan lists the local reference targets in v (anywhere inside it) and reports whether v is
// clean: no identifier, anchor, dynamic reference or $schema, and no reference Same cannot
// follow (to another document, or to nothing). It uses a stack of its own.
func (s *Sameness) scan(v source.Value) (refs []string, clean bool) {
	stack := []source.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s.steps++
		if s.steps > maxWalk {
			return nil, false
		}
		switch v.Kind() {
		case source.Array:
			stack = append(stack, v.Items()...)
		case source.Object:
			for i := 0; i < v.Len(); i++ {
				k, val := v.Member(i)
				if unclean()[k.Str()] {
					return nil, false
				}
				if k.Str() == "$ref" && val.Kind() == source.String {
					if !strings.HasPrefix(val.Str(), "#/") {
						return nil, false
					}
					target := unescapeFragment(val.Str()[1:])
					if _, ok := s.old.Src.Root.Pointer(target); !ok {
						return nil, false
					}
					refs = append(refs, target)
					continue
				}
				stack = append(stack, val)
			}
		}
	}
	return refs, true
}

// sameValue is JSON equality with numbers compared as written (1 and 1.0 differ: draft 4
// and OpenAPI 3.0 tell them apart) and members in any order.
func sameValue(a, b source.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case source.Bool:
		return a.Bool() == b.Bool()
	case source.String, source.Number:
		return a.Str() == b.Str()
	case source.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
	case source.Object:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			k, av := a.Member(i)
			bv, ok := b.Get(k.Str())
			if !ok || !sameValue(av, bv) {
				return false
			}
		}
	}
	return true
}
