package schema

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// document is one loaded schema document.
type document struct {
	src     *source.Document
	uri     string // retrieval URI, without fragment
	name    string // file name for messages ("" for built-in meta-schemas)
	builtin bool
	fromFS  bool // read through the loader from a file
	// resources are in document order, the root's first; a container's in the order its
	// schemas were entered, after its root.
	resources []*resource
	root      *loc
	locs      map[locKey]*loc // the places made so far, by parent and token
	container *containerInfo  // set for a document that holds schemas without being one (container.go)
}

// A loc is a place in a schema document: the place of its parent and the last reference
// token of its JSON Pointer. Each place is made once, when indexing or a reference first
// reaches it, and holds what is known there: the value, the schema compiled from it, the
// resource that starts there. A document nested thousands of levels deep thus keeps the
// locations of its schemas in space linear in its size, where their pointer strings would
// take space quadratic in its depth: a pointer string is made only when asked for (an
// error, Pointer, Location).
type loc struct {
	parent *loc
	tok    string       // the last reference token, escaped ("" at the root)
	depth  int          // the number of reference tokens
	val    source.Value // the value there (invalid when the pointer leads nowhere)
	schema *Schema      // the schema compiled there, if any
	res    *resource    // the resource that starts there, if any
	in     *resource    // the innermost resource enclosing the place, once resourceAt found it
}

type locKey struct {
	parent *loc
	tok    string // escaped
}

// child returns the place below l at the reference token tok (unescaped).
func (d *document) child(l *loc, tok string) *loc {
	etok := source.EscapeToken(tok)
	k := locKey{l, etok}
	if c, ok := d.locs[k]; ok {
		return c
	}
	c := &loc{parent: l, tok: etok, depth: l.depth + 1}
	c.val, _ = l.val.At(tok)
	d.locs[k] = c
	return c
}

// locate returns the place at a JSON Pointer relative to from, and false when the pointer
// is malformed or leads nowhere in the document.
func (d *document) locate(from *loc, ptr string) (*loc, bool) {
	toks, ok := source.SplitPointer(ptr)
	if !ok {
		return nil, false
	}
	l := from
	for _, t := range toks {
		l = d.child(l, t)
		if !l.val.IsValid() {
			return nil, false
		}
	}
	return l, true
}

// String returns the place's JSON Pointer ("" for the document root).
func (l *loc) String() string { return l.from(nil) }

// from returns the JSON Pointer of l relative to a, one of its ancestors (nil: the root).
func (l *loc) from(a *loc) string {
	n := 0
	for x := l; x != a && x.parent != nil; x = x.parent {
		n += 1 + len(x.tok)
	}
	b := make([]byte, n)
	for x := l; x != a && x.parent != nil; x = x.parent {
		n -= len(x.tok)
		copy(b[n:], x.tok)
		n--
		b[n] = '/'
	}
	return string(b)
}

// resource is a schema resource: a schema with its own base URI (the document root, or a
// subschema with an $id).
type resource struct {
	doc       *document
	at        *loc   // its root
	uri       string // absolute base URI, without fragment
	shown     string // uri as a person is shown it (Loader.Display), set with its first schema
	draft     *Draft
	vocabs    map[string]bool // active vocabularies by short name; nil: all of the draft's
	anchors   map[string]*loc
	dynamic   map[string]bool // names declared with $dynamicAnchor
	recursive bool            // root has "$recursiveAnchor": true

	// Filled when compilation ends, for the dynamic references that may land here.
	root       *Schema
	dynSchemas map[string]*Schema
}

// resourceAt returns the innermost resource that encloses the place l, remembering it on
// the places it went through.
func resourceAt(l *loc) *resource {
	x := l
	for x.res == nil && x.in == nil {
		x = x.parent
	}
	r := x.res
	if r == nil {
		r = x.in
	}
	for y := l; y != x; y = y.parent {
		y.in = r
	}
	return r
}

// ResolveURI resolves the URI reference ref against base, as $ref is resolved: it returns
// the absolute URI without its fragment, and the fragment, percent-decoded.
func ResolveURI(base, ref string) (string, string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", fmt.Errorf("invalid URI reference %q: %w", ref, err)
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", fmt.Errorf("invalid base URI %q: %w", base, err)
	}
	u := b.ResolveReference(r)
	frag := u.Fragment
	if u.RawFragment != "" {
		if f, err := url.PathUnescape(u.RawFragment); err == nil {
			frag = f
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), frag, nil
}

// eachSubschema calls fn for every subschema directly under the schema object v, with
// the one or two reference tokens (unescaped) that lead to it from v.
// $defs holds schemas only from 2019-09 on: in older drafts an $id under it is not indexed
// (see IndexedShape).
func eachSubschema(d *Draft, v source.Value, fn func(kw, key string, keyed bool, child source.Value)) {
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		shape := d.IndexedShape(k.Str())
		if shape == NoSchema {
			continue
		}
		kw := k.Str()
		switch shape {
		case OneSchema:
			fn(kw, "", false, val)
		case SchemaArray:
			for j, item := range val.Items() {
				fn(kw, strconv.Itoa(j), true, item)
			}
		case SchemaOrArray:
			if val.Kind() == source.Array {
				for j, item := range val.Items() {
					fn(kw, strconv.Itoa(j), true, item)
				}
			} else {
				fn(kw, "", false, val)
			}
		case SchemaMap, DepsMap:
			if val.Kind() != source.Object {
				continue
			}
			for j := 0; j < val.Len(); j++ {
				pk, pv := val.Member(j)
				if shape == DepsMap && pv.Kind() == source.Array {
					continue
				}
				fn(kw, pk.Str(), true, pv)
			}
		}
	}
}

// index walks a document, with a stack of its own (a document may be nested as deep as its
// parser allows), and registers its resources and anchors.
func (c *Compiler) index(doc *document, rootDraft *Draft, rootVocabs map[string]bool) error {
	doc.root = &loc{val: doc.src.Root}
	doc.locs = map[locKey]*loc{}
	root := &resource{doc: doc, at: doc.root, uri: doc.uri, draft: rootDraft, vocabs: rootVocabs}
	doc.root.res = root
	doc.resources = append(doc.resources, root)
	if err := c.indexFrom(doc, root); err != nil {
		return err
	}
	if err := c.register(doc.uri, root); err != nil {
		return err
	}
	for _, r := range doc.resources {
		if err := c.register(r.uri, r); err != nil {
			return err
		}
	}
	return nil
}

// indexFrom walks the schema at the root of r and its subschemas, with a stack of its own,
// adding the resources and anchors they declare to doc.
func (c *Compiler) indexFrom(doc *document, r *resource) error {
	type item struct {
		at  *loc
		res *resource
	}
	stack := []item{{r.at, r}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		res, err := c.indexValue(doc, it.at, it.res)
		if err != nil || res == nil {
			if err != nil {
				return err
			}
			continue
		}
		mark := len(stack)
		eachSubschema(res.draft, it.at.val, func(kw, key string, keyed bool, _ source.Value) {
			l := doc.child(it.at, kw)
			if keyed {
				l = doc.child(l, key)
			}
			stack = append(stack, item{l, res})
		})
		slices.Reverse(stack[mark:]) // in document order
	}
	return nil
}

// register makes r reachable under uri.
func (c *Compiler) register(uri string, r *resource) error {
	prev, ok := c.res[uri]
	switch {
	case !ok, prev == r, prev.doc.builtin && !r.doc.builtin:
		c.res[uri] = r
		return nil
	case prev.doc.src == r.doc.src && prev.at.String() == r.at.String():
		return nil // one document under two URIs
	case r.doc.builtin && !prev.doc.builtin:
		// A document declared a built-in meta-schema's $id: it keeps meaning itself inside
		// that document, and resolve finds the built-in one for every other document.
		return nil
	}
	return c.schemaErr(r.doc, r.at.String(), "duplicate schema identifier %q (also at %s)", uri, prev.doc.describe(prev.at))
}

func (d *document) describe(at *loc) string {
	name := d.name
	if name == "" {
		name = d.uri
	}
	return name + "#" + at.String()
}

// indexValue registers what the schema at l declares (its $id, anchors, dialect) and
// returns the resource its subschemas belong to, or nil when l holds no schema object.
func (c *Compiler) indexValue(doc *document, l *loc, res *resource) (*resource, error) {
	v := l.val
	if v.Kind() != source.Object {
		return nil, nil
	}
	isRoot := l == res.at // the document's root, or a schema entered in a container
	d := res.draft
	_, hasRef := v.Get("$ref")
	idKey := d.IDKeyword()
	idv, hasID := lookUp(v, idKey)
	if hasID && (idKey == "" || idv.Kind() != source.String || (hasRef && d.Version <= 7)) {
		hasID = false // draft <= 7: $ref makes its siblings, $id too, be ignored
	}
	// A subschema that starts a resource may declare its own dialect (2019-09 and later).
	if !isRoot && hasID && d.Version >= 2019 {
		if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String {
			nd, vocabs, err := c.dialectOf(sv.Str(), res.uri)
			if err != nil {
				return nil, c.schemaErr(doc, l.String()+"/$schema", "%v", err)
			}
			d = nd
			res = &resource{doc: doc, at: l, uri: res.uri, draft: nd, vocabs: vocabs}
		}
	}
	if hasID {
		id := idv.Str()
		if strings.HasPrefix(id, "#") && d.Version <= 7 {
			res.addAnchor(id[1:], l)
		} else {
			u, frag, err := ResolveURI(res.uri, id)
			if err != nil {
				return nil, c.schemaErr(doc, l.String()+"/"+idKey, "%v", err)
			}
			if frag != "" && d.Version >= 2019 {
				return nil, c.schemaErr(doc, l.String()+"/$id", "$id %q must not contain a fragment (use $anchor)", id)
			}
			if isRoot {
				res.uri = u
			} else {
				nr := &resource{doc: doc, at: l, uri: u, draft: d, vocabs: res.vocabs}
				doc.resources = append(doc.resources, nr)
				l.res = nr
				res = nr
			}
			if frag != "" {
				res.addAnchor(frag, l)
			}
		}
	}
	// The anchors of the draft ($anchor from 2019-09, $dynamicAnchor in 2020-12), and
	// 2019-09's $recursiveAnchor at a resource's root, from the keyword model.
	for _, akw := range d.Anchors() {
		if a, ok := lookUp(v, akw); ok && a.Kind() == source.String {
			res.addAnchor(a.Str(), l)
			if akw == d.AnchorKeyword(DynamicAnchor) {
				if res.dynamic == nil {
					res.dynamic = map[string]bool{}
				}
				res.dynamic[a.Str()] = true
			}
		}
	}
	if rkw := d.AnchorKeyword(RecursiveAnchor); rkw != "" && res.at == l {
		if a, ok := lookUp(v, rkw); ok && a.Kind() == source.Bool && a.Bool() {
			res.recursive = true
		}
	}
	return res, nil
}

// lookUp returns the value of keyword kw of the schema object v, telling lookedUp.
func lookUp(v source.Value, kw string) (source.Value, bool) {
	if lookedUp != nil {
		lookedUp(kw)
	}
	return v.Get(kw)
}

func (r *resource) addAnchor(name string, at *loc) {
	if r.anchors == nil {
		r.anchors = map[string]*loc{}
	}
	if _, dup := r.anchors[name]; !dup {
		r.anchors[name] = at
	}
}
