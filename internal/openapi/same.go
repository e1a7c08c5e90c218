package openapi

import (
	"strings"

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
// (the comparison then decides).
func Same(old *Document, oldItem *Item, oldPtr string, new *Document, newItem *Item, newPtr string) bool {
	if old.Kind.Dialect != new.Kind.Dialect || oldItem.Dialect != newItem.Dialect {
		return false
	}
	ov, ok1 := old.Src.Root.Pointer(oldPtr)
	nv, ok2 := new.Src.Root.Pointer(newPtr)
	if !ok1 || !ok2 || !sameValue(ov, nv) {
		return false
	}
	c := &closure{root: old.Src.Root, seen: map[string]bool{}}
	if !c.walk(ov) {
		return false
	}
	for target := range c.seen {
		a, ok1 := old.Src.Root.Pointer(target)
		b, ok2 := new.Src.Root.Pointer(target)
		if !ok1 || !ok2 || !sameValue(a, b) {
			return false
		}
	}
	return true
}

// closure collects the targets of the local references a schema reaches; walk is false when
// the schema holds something Same does not judge.
type closure struct {
	root  source.Value
	seen  map[string]bool
	steps int
}

func (c *closure) walk(v source.Value) bool {
	c.steps++
	if c.steps > maxWalk {
		return false
	}
	switch v.Kind() {
	case source.Array:
		for _, it := range v.Items() {
			if !c.walk(it) {
				return false
			}
		}
	case source.Object:
		for i := 0; i < v.Len(); i++ {
			k, val := v.Member(i)
			switch k.Str() {
			case "$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor":
				return false
			case "$ref":
				if val.Kind() != source.String {
					break
				}
				if !strings.HasPrefix(val.Str(), "#/") {
					return false
				}
				target := unescapeFragment(val.Str()[1:])
				if c.seen[target] {
					continue
				}
				c.seen[target] = true
				tv, ok := c.root.Pointer(target)
				if !ok || !c.walk(tv) {
					return false
				}
				continue
			}
			if !c.walk(val) {
				return false
			}
		}
	}
	return true
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
