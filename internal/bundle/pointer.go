package bundle

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Extract makes a schema document of the schema s, compiled from a JSON Pointer of its
// document (retrieved from uri: a schema document, or one that holds schemas, such as an
// OpenAPI document), for Bundle to bundle. Its root is the schema s; every schema of the
// document outside it that s reaches through $ref is taken in under $defs (definitions
// before 2019-09), named by the last token of its pointer, and every $ref to a schema of
// the document is rewritten to where that schema now is. References to other documents
// stay as written: the document keeps uri, so they resolve as they did. The root names its
// dialect with $schema. The values keep their offsets in the document's text, so the new
// document still locates them in the file.
//
// It refuses what it cannot make mean the same: a schema in OpenAPI 3.0's dialect, which
// no JSON Schema draft has; a schema whose base URI an enclosing $id sets; a dynamic
// reference that leads out of the schema.
func Extract(s *schema.Schema, uri string) (*source.Document, error) {
	src := s.Document()
	_, ptr := s.Pointer()
	where := src.Name + "#" + ptr
	if s.Draft.IsOpenAPI30() {
		return nil, fmt.Errorf("%s is in OpenAPI 3.0's schema dialect (nullable, boolean exclusiveMinimum), which no JSON Schema "+
			"draft has: a bundle would not validate as it does (bundle a schema of an OpenAPI 3.1 document, or a JSON Schema document)", where)
	}
	rootVal, ok := src.Root.Pointer(ptr)
	if !ok {
		return nil, fmt.Errorf("%s: nothing there", where)
	}
	idKey := s.Draft.IDKeyword() // never "": OpenAPI 3.0 is refused above
	if _, own := rootVal.Get(idKey); !own && strings.TrimSuffix(s.BaseURI(), "#") != strings.TrimSuffix(uri, "#") {
		return nil, fmt.Errorf("%s lies under an %s of its document (its base URI is %s): bundling it alone is not supported", where, idKey, s.BaseURI())
	}

	refs, targets, err := extractRefs(s, where)
	if err != nil {
		return nil, err
	}

	// Each target outside the schema is taken in whole, unless it lies in another one.
	sort.Strings(targets)
	var units []string
	for _, t := range targets {
		if len(units) > 0 && within(t, units[len(units)-1]) {
			continue
		}
		units = append(units, t)
	}
	defsKw := s.Draft.DefinitionsKeyword()
	taken := map[string]bool{}
	if dv, ok := rootVal.Get(defsKw); ok && dv.Kind() == source.Object {
		for i := 0; i < dv.Len(); i++ {
			taken[dv.Key(i)] = true
		}
	}
	names := unitNames(units, taken)
	// moved says where a pointer of src is in the new document.
	moved := func(p string) (string, bool) {
		if within(p, ptr) {
			return p[len(ptr):], true
		}
		for i, u := range units {
			if within(p, u) {
				return "/" + defsKw + "/" + source.EscapeToken(names[i]) + p[len(u):], true
			}
		}
		return "", false
	}
	rewrite := func(v source.Value, at string) source.Value {
		nv, _ := rewriteRefs(v, at, func(refAt string) (string, bool) {
			to, ok := refs[refAt]
			if !ok {
				return "", false
			}
			p, ok := moved(to)
			if !ok {
				return "", false
			}
			return "#" + (&url.URL{Fragment: p}).EscapedFragment(), true
		})
		return nv
	}

	root := rewrite(rootVal, ptr)
	if root.Kind() != source.Object {
		return source.NewDocument(src.Name, source.JSON, src.Source(), root), nil // a boolean schema
	}
	var b source.ObjectBuilder
	if _, ok := root.Get("$schema"); !ok && s.Draft.URL != "" {
		b.Set("$schema", source.StringValue(s.Draft.URL))
	}
	for i := 0; i < root.Len(); i++ {
		k, v := root.Member(i)
		if k.Str() != defsKw || len(units) == 0 {
			b.Set(k.Str(), v)
		}
	}
	if len(units) > 0 {
		var defs source.ObjectBuilder
		if dv, ok := root.Get(defsKw); ok && dv.Kind() == source.Object {
			for i := 0; i < dv.Len(); i++ {
				k, v := dv.Member(i)
				defs.Set(k.Str(), v)
			}
		}
		for i, u := range units {
			v, _ := src.Root.Pointer(u)
			defs.Set(names[i], rewrite(v, u))
		}
		b.Set(defsKw, defs.Value())
	}
	return source.NewDocument(src.Name, source.JSON, src.Source(), b.Value().WithOffset(root.Offset())), nil
}

// extractRefs lists the references of the schemas s reaches in its own document
// (refs: the pointer of each $ref member to that of its target), and the targets outside
// s; a dynamic reference that leads out of s is an error (where names s).
func extractRefs(s *schema.Schema, where string) (refs map[string]string, targets []string, err error) {
	src := s.Document()
	_, ptr := s.Pointer()
	refs = map[string]string{}
	schema.Walk(s, func(t *schema.Schema) bool {
		if t.Document() != src {
			return false // another document: its references are its own
		}
		// Pointers are made only for the schemas with a reference: those of every schema
		// of a document nested thousands of levels deep take space quadratic in its depth.
		if r := t.Ref(); r != nil && r.Document() == src {
			_, at := t.Pointer()
			_, to := r.Pointer()
			refs[at+"/$ref"] = to
			if !within(to, ptr) {
				targets = append(targets, to)
			}
		}
		if d, dynamic := t.DynamicRef(); d != nil && d.Document() == src {
			if _, to := d.Pointer(); dynamic || !within(to, ptr) {
				_, at := t.Pointer()
				err = fmt.Errorf("%s: the dynamic reference at %s leads out of the schema: bundling it alone is not supported", where, at)
			}
		}
		return true
	})
	return refs, targets, err
}

// unitNames names the units taken in whole under the new document's definitions: each
// by the last token of its pointer ("schema" for none), numbered clear of the names
// taken (which it adds to).
func unitNames(units []string, taken map[string]bool) []string {
	names := make([]string, len(units))
	for i, u := range units {
		toks, _ := source.SplitPointer(u)
		base := "schema"
		if len(toks) > 0 && toks[len(toks)-1] != "" {
			base = toks[len(toks)-1]
		}
		name := base
		for n := 2; taken[name]; n++ {
			name = base + "-" + strconv.Itoa(n)
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// within reports whether pointer p is ptr or lies under it.
func within(p, ptr string) bool {
	return p == ptr || strings.HasPrefix(p, ptr+"/")
}

// rewriteRefs returns v (the value at the pointer at) with the "$ref" strings that to
// gives a new value for replaced, and whether it replaced any; the rest, and every offset,
// is kept. It walks with a stack of its own, keeping each place's pointer as a trail that
// is spelt out only at a "$ref": the depth is the document's, which only its parser bounds.
func rewriteRefs(v source.Value, at string, to func(refAt string) (string, bool)) (source.Value, bool) {
	// A frame is a container being rewritten: out is its copy once a member changed
	// (objects), items its items and their copy once one changed (arrays).
	type frame struct {
		v       source.Value
		trail   *source.Trail
		next    int
		out     source.Value
		items   []source.Value
		copied  bool
		changed bool
	}
	open := func(v source.Value, t *source.Trail) *frame {
		f := &frame{v: v, trail: t, out: v}
		if v.Kind() == source.Array {
			f.items = v.Items()
		}
		return f
	}
	container := func(v source.Value) bool { return v.Kind() == source.Object || v.Kind() == source.Array }
	if !container(v) {
		return v, false
	}
	stack := []*frame{open(v, &source.Trail{Rel: at})}
	for {
		f := stack[len(stack)-1]
		if f.v.Kind() == source.Object && f.next < f.v.Len() {
			i := f.next
			f.next++
			k, m := f.v.Member(i)
			switch {
			case k.Str() == "$ref" && m.Kind() == source.String:
				t := &source.Trail{Up: f.trail, Rel: "/" + source.EscapeToken(k.Str())}
				if ref, ok := to(t.String()); ok {
					f.out, f.changed = f.out.WithMember(i, source.StringValue(ref).WithOffset(m.Offset())), true
				}
			case container(m):
				stack = append(stack, open(m, &source.Trail{Up: f.trail, Rel: "/" + source.EscapeToken(k.Str())}))
			}
			continue
		}
		if f.v.Kind() == source.Array && f.next < len(f.items) {
			i := f.next
			f.next++
			if container(f.items[i]) {
				stack = append(stack, open(f.items[i], &source.Trail{Up: f.trail, Rel: "/" + strconv.Itoa(i)}))
			}
			continue
		}
		// f is done: its value goes to its parent, which takes it in where it changed.
		stack = stack[:len(stack)-1]
		nv := f.out
		if f.v.Kind() == source.Array && f.changed {
			nv = source.ArrayValue(f.items...).WithOffset(f.v.Offset())
		}
		if len(stack) == 0 {
			return nv, f.changed
		}
		if !f.changed {
			continue
		}
		p := stack[len(stack)-1]
		i := p.next - 1
		if p.v.Kind() == source.Object {
			p.out = p.out.WithMember(i, nv)
		} else {
			if !p.copied {
				p.items, p.copied = append([]source.Value(nil), p.items...), true
			}
			p.items[i] = nv
		}
		p.changed = true
	}
}
