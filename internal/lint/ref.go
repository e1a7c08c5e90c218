package lint

import (
	"errors"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// ref is one reference keyword of the document.
type ref struct {
	n     *node
	kw    string // "$ref", "$dynamicRef", "$recursiveRef"
	value string
	uri   string // absolute target URI without fragment
	frag  string
	bad   string // the reference itself cannot be parsed
	// local is true when the target URI is a resource of this document; found then says
	// whether the fragment exists, and target is its pointer.
	local  bool
	found  bool
	target string
	// external resolution, done on demand
	checked bool
	extErr  error
}

// resolveRefs finds every reference of the document and resolves the local ones.
func (f *file) resolveRefs() {
	if f.refsDone {
		return
	}
	f.refsDone = true
	f.refsOf = map[*node][]*ref{}
	for _, n := range f.nodes {
		if !n.isObject() || n.inert {
			continue
		}
		for _, kw := range n.draft.RefKeywords() {
			v, ok := n.get(kw)
			if !ok || v.Kind() != source.String {
				continue
			}
			r := &ref{n: n, kw: kw, value: v.Str()}
			f.refs = append(f.refs, r)
			f.refsOf[n] = append(f.refsOf[n], r)
			u, frag, err := schema.ResolveURI(n.base, v.Str())
			if err != nil {
				if inner := errors.Unwrap(err); inner != nil {
					err = inner // the parser's words: the finding already says what is invalid
				}
				r.bad = err.Error()
				continue
			}
			r.uri, r.frag = u, frag
			ri, ok := f.resources[u]
			if !ok {
				continue
			}
			r.local = true
			switch {
			case frag == "":
				r.target, r.found = ri.ptr, true
			case strings.HasPrefix(frag, "/"):
				if _, ok := f.doc.Root.Pointer(ri.ptr + frag); ok {
					r.target, r.found = ri.ptr+frag, true
				}
			default:
				if p, ok := ri.anchors[frag]; ok {
					r.target, r.found = p, true
				}
			}
			if r.found {
				f.protected = append(f.protected, r.target)
			}
		}
	}
}

// external resolves a reference to another document through the loader, and returns
// why it cannot be resolved (nil when it can).
func (f *file) external(r *ref) error {
	if r.checked {
		return r.extErr
	}
	r.checked = true
	f.compiledRoot()
	cp := &f.comp
	// The root's compilation already failed on this very reference.
	var se *schema.SchemaError
	if cp.rootErr != nil && errors.As(cp.rootErr, &se) && se.Pointer == r.n.at(r.kw) {
		r.extErr = cp.rootErr
		return r.extErr
	}
	if cp.dirty || cp.c == nil {
		if cp.rebuilds >= maxRebuilds {
			return nil // cannot tell; say nothing
		}
		cp.rebuilds++
		c, err := f.newCompiler(false)
		if err != nil {
			return nil
		}
		cp.c, cp.dirty = c, false
	}
	target := r.uri
	if r.frag != "" {
		target += "#" + r.frag
	}
	if _, err := cp.c.Compile(target); err != nil {
		cp.dirty = true
		r.extErr = err
	}
	return r.extErr
}
