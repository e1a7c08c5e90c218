package openapi

import (
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// maxWalk bounds the values the usage walk visits, per role.
const maxWalk = 2_000_000

// usage finds, for each component schema, which roles use it: the request and response
// schemas that reach it through local references, directly or through other schemas.
func (d *Document) usage() {
	comps := map[string]*Item{}
	for _, it := range d.items {
		if it.Kind == Component {
			comps[it.Schema] = it
		}
	}
	if len(comps) == 0 {
		return
	}
	for _, role := range []Role{Request, Response} {
		w := &walker{root: d.Src.Root, seen: map[string]bool{}}
		for _, it := range d.items {
			if it.Schema != "" && it.Role == role {
				if v, ok := d.Src.Root.Pointer(it.Schema); ok {
					w.walk(v)
				}
			}
		}
		for target := range w.seen {
			for p := target; p != ""; p = parentPointer(p) {
				if c, ok := comps[p]; ok {
					if len(c.Uses) == 0 || c.Uses[len(c.Uses)-1] != role {
						c.Uses = append(c.Uses, role)
					}
					break
				}
			}
		}
	}
}

func parentPointer(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// walker follows the local references of schemas, with a stack of its own: a chain of
// 100,000 references is a loop, not a recursion.
type walker struct {
	root  source.Value
	seen  map[string]bool // reference targets reached
	steps int
}

func (w *walker) walk(v source.Value) {
	stack := []source.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		w.steps++
		if w.steps > maxWalk {
			return
		}
		switch v.Kind() {
		case source.Array:
			stack = append(stack, v.Items()...)
		case source.Object:
			for i := 0; i < v.Len(); i++ {
				k, val := v.Member(i)
				if k.Str() == "$ref" && val.Kind() == source.String && strings.HasPrefix(val.Str(), "#") {
					target := unescapeFragment(val.Str()[1:])
					if w.seen[target] {
						continue
					}
					w.seen[target] = true
					if tv, ok := w.root.Pointer(target); ok {
						stack = append(stack, tv)
					}
					continue
				}
				stack = append(stack, val)
			}
		}
	}
}
