package catalog

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// ContextAt returns the context of the schema at the JSON Pointer ptr inside the document
// that id names (a schema of the catalog by its id or path, or any parsed file of the
// workspace by its path, such as an OpenAPI document): the schema there, its shape, the
// references it makes and those made to it or inside it, the document's problems located
// inside it, and its text (as JSON). ptr "" is Context. The id may also carry the pointer:
// "openapi.yaml#/components/schemas/Pet".
func (w *Workspace) ContextAt(id, ptr string, lim ContextLimits) *Context {
	id = strings.TrimSpace(id)
	if ptr == "" {
		if i := strings.Index(id, "#/"); i >= 0 && len(w.lookup(id)) == 0 {
			frag, err := url.PathUnescape(id[i+1:])
			if err == nil {
				id, ptr = id[:i], frag
			}
		}
	}
	if ptr == "" {
		return w.Context(id, lim)
	}
	c := &Context{ID: id + "#" + ptr, Pointer: ptr, Workspace: w.scanned}
	if !strings.HasPrefix(ptr, "/") {
		c.Error = fmt.Sprintf("%q is not a JSON Pointer: it must start with \"/\" (e.g. /components/schemas/Pet)", ptr)
		return c
	}
	var s *schemaDoc
	var f *fileInfo
	switch matches := w.lookup(id); len(matches) {
	case 0:
		f = w.files[path.Clean(strings.TrimPrefix(id, "./"))]
	case 1:
		s, f = matches[0], matches[0].file
	default:
		c.Error = fmt.Sprintf("%d schemas of the workspace have the id %q; ask for one of them by its path", len(matches), id)
		for _, m := range matches {
			c.Candidates = append(c.Candidates, Candidate{ID: m.file.path, Path: m.file.path})
		}
		return c
	}
	if f == nil {
		c.Error = fmt.Sprintf("no schema or file of the workspace has the id %q (an id is a schema's absolute $id or a "+
			"workspace path, exactly); list_schemas lists them", id)
		c.Candidates = w.candidates(id)
		c.unknownID = true
		return c
	}
	doc, err := w.reread(f)
	if err == nil && doc == nil {
		err = f.err
	}
	if err != nil {
		c.Error = fmt.Sprintf("%s cannot be read: %v", f.path, err)
		return c
	}
	v, ok := doc.Root.Pointer(ptr)
	if !ok {
		c.Error = source.NothingAt(f.path, doc.Root, ptr)
		return c
	}
	if v.Kind() != source.Object && v.Kind() != source.Bool {
		c.Error = fmt.Sprintf("%s#%s is %s, not a schema", f.path, ptr, kindName(v))
		return c
	}
	c.Found = true
	if s != nil {
		e := s.entry
		c.Schema = &e
	}
	if f.api != nil {
		c.Document = f.path + ": " + describeAPI(f.api) + " document"
	}
	om := &Omitted{}
	limit := func(n int) int {
		if lim.Limit > 0 && n > lim.Limit {
			return lim.Limit
		}
		return n
	}
	sh := shapeOf(doc, v)
	n := limit(len(sh.Properties))
	om.Properties, sh.Properties = len(sh.Properties)-n, sh.Properties[:n]
	n = limit(len(sh.Defs))
	om.Defs, sh.Defs = len(sh.Defs)-n, sh.Defs[:n]
	c.Shape = sh
	text := string(source.AppendJSONIndent(nil, v, "", "  ")) + "\n"
	c.Text, om.TextCharacters, om.TextLines = cutText(text, lim.MaxText)

	refs := w.refsInside(s, f, doc, ptr)
	counts := RefCounts{}
	for _, r := range refs {
		counts.Total++
		switch {
		case r.Target == nil:
			counts.Unresolved++
		case r.Target.Local:
			counts.Local++
		case r.Target.Builtin:
			counts.Builtin++
		default:
			counts.Workspace++
		}
	}
	c.RefCounts = &counts
	n = limit(len(refs))
	om.References, c.References = len(refs)-n, refs[:n]
	incoming := w.refsTo(f, doc, ptr)
	n = limit(len(incoming))
	om.ReferencedBy, c.ReferencedBy = len(incoming)-n, incoming[:n]
	var problems []Problem
	if s != nil {
		for _, p := range s.problems() {
			if within(p.Pointer, ptr) {
				problems = append(problems, p)
			}
		}
	}
	n = limit(len(problems))
	om.Problems, c.Problems = len(problems)-n, problems[:n]
	if *om != (Omitted{}) {
		c.Omitted = om
	}
	return c
}

// within reports whether pointer p is ptr or lies under it.
func within(p, ptr string) bool {
	return p == ptr || strings.HasPrefix(p, ptr+"/")
}

// refsInside lists the references made inside the schema at ptr: those the catalog
// resolved, for a catalogued schema; else (an OpenAPI or AsyncAPI document, a file that is
// no schema) every "$ref" under ptr, a local one resolved in the document.
func (w *Workspace) refsInside(s *schemaDoc, f *fileInfo, doc *source.Document, ptr string) []Ref {
	var ext, local []Ref
	add := func(r Ref) {
		if r.Target != nil && r.Target.Local {
			local = append(local, r)
		} else {
			ext = append(ext, r)
		}
	}
	if s != nil {
		for _, r := range s.refs {
			if within(r.Pointer, ptr) {
				add(*r)
			}
		}
		return append(ext, local...)
	}
	eachRef(doc, ptr, func(at string, ref string) {
		line, col := doc.LocateKey(at)
		r := Ref{Pointer: at, Line: line, Column: col, Keyword: "$ref", Ref: ref}
		if frag, ok := strings.CutPrefix(ref, "#"); ok {
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
			if _, ok := doc.Root.Pointer(frag); ok {
				r.Target = &Target{URI: f.path + "#" + frag, Path: f.path, Pointer: frag, Local: true}
			} else {
				r.Unresolved = fmt.Sprintf("%s has nothing at #%s", f.path, frag)
			}
		} else {
			r.Unresolved = "a reference to another document is followed when a tool compiles the schema (validate, lint, bundle), not by the catalog of an " +
				"OpenAPI or AsyncAPI document"
		}
		add(r)
	})
	return append(ext, local...)
}

// refsTo lists the references, from the schemas of the workspace and from the document
// itself, whose target is the schema at ptr of f or lies inside it; those made inside it
// are not listed.
func (w *Workspace) refsTo(f *fileInfo, doc *source.Document, ptr string) []Incoming {
	var out []Incoming
	for _, s := range w.schemas {
		for _, r := range s.refs {
			if r.Target == nil || r.Target.Path != f.path || !within(r.Target.Pointer, ptr) {
				continue
			}
			if s.file == f && within(r.Pointer, ptr) {
				continue
			}
			out = append(out, Incoming{From: s.entry.ID, Path: s.file.path, Pointer: r.Pointer, Line: r.Line, Column: r.Column, Ref: r.Ref})
		}
	}
	if _, catalogued := w.byPath[f.path]; !catalogued {
		eachRef(doc, "", func(at, ref string) {
			frag, ok := strings.CutPrefix(ref, "#")
			if !ok || within(at, ptr) {
				return
			}
			if u, err := url.PathUnescape(frag); err == nil {
				frag = u
			}
			if within(frag, ptr) {
				line, col := doc.LocateKey(at)
				out = append(out, Incoming{From: f.path, Path: f.path, Pointer: at, Line: line, Column: col, Ref: ref})
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line || out[i].Line == out[j].Line && out[i].Column < out[j].Column
	})
	return out
}

// eachRef calls fn with the pointer and value of every "$ref" string member under ptr, in
// document order, with an explicit stack (the depth is the document's, bounded by the
// parser's limit, not by the goroutine stack).
func eachRef(doc *source.Document, ptr string, fn func(at, ref string)) {
	root, ok := doc.Root.Pointer(ptr)
	if !ok {
		return
	}
	type item struct {
		v  source.Value
		at string
	}
	stack := []item{{root, ptr}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var kids []item
		switch it.v.Kind() {
		case source.Object:
			for i := 0; i < it.v.Len(); i++ {
				k, v := it.v.Member(i)
				at := it.at + "/" + source.EscapeToken(k.Str())
				if k.Str() == "$ref" && v.Kind() == source.String {
					fn(at, v.Str())
					continue
				}
				kids = append(kids, item{v, at})
			}
		case source.Array:
			for i, v := range it.v.Items() {
				kids = append(kids, item{v, fmt.Sprintf("%s/%d", it.at, i)})
			}
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

func kindName(v source.Value) string {
	switch v.Kind() {
	case source.Array:
		return "an array"
	case source.Null:
		return "null"
	}
	return "a " + v.Kind().String()
}
