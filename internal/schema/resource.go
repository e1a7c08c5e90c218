package schema

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// document is one loaded schema document.
type document struct {
	src       *source.Document
	uri       string // retrieval URI, without fragment
	name      string // file name for messages ("" for built-in meta-schemas)
	builtin   bool
	fromFS    bool           // read through the loader from a file
	resources []*resource    // sorted by pointer
	container *containerInfo // set for a document that holds schemas without being one (container.go)
}

// resource is a schema resource: a schema with its own base URI (the document root, or a
// subschema with an $id).
type resource struct {
	doc       *document
	ptr       string // JSON Pointer of its root in doc
	uri       string // absolute base URI, without fragment
	draft     *Draft
	vocabs    map[string]bool // active vocabularies by short name; nil: all of the draft's
	anchors   map[string]string
	dynamic   map[string]bool // names declared with $dynamicAnchor
	recursive bool            // root has "$recursiveAnchor": true

	// Filled when compilation ends, for the dynamic references that may land here.
	root       *Schema
	dynSchemas map[string]*Schema
}

func (r *resource) hasVocab(v string) bool {
	if r.vocabs == nil {
		return true
	}
	return r.vocabs[v]
}

// resourceAt returns the innermost resource of doc that encloses ptr.
func (d *document) resourceAt(ptr string) *resource {
	var best *resource
	for _, r := range d.resources {
		if r.ptr == ptr || r.ptr == "" || strings.HasPrefix(ptr, r.ptr+"/") {
			if best == nil || len(r.ptr) > len(best.ptr) {
				best = r
			}
		}
	}
	return best
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

// eachSubschema calls fn for every subschema directly under the schema object v.
// $defs holds schemas only from 2019-09 on: in older drafts an $id under it is not indexed.
func eachSubschema(d *Draft, v source.Value, fn func(ptrSuffix string, child source.Value)) {
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		shape := d.SubschemaShape(k.Str())
		if shape == NoSchema || (d.Version < 2019 && k.Str() == "$defs") {
			continue
		}
		key := "/" + source.EscapeToken(k.Str())
		switch shape {
		case OneSchema:
			fn(key, val)
		case SchemaArray:
			for j, item := range val.Items() {
				fn(key+"/"+strconv.Itoa(j), item)
			}
		case SchemaOrArray:
			if val.Kind() == source.Array {
				for j, item := range val.Items() {
					fn(key+"/"+strconv.Itoa(j), item)
				}
			} else {
				fn(key, val)
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
				fn(key+"/"+source.EscapeToken(pk.Str()), pv)
			}
		}
	}
}

// index walks a document and registers its resources and anchors.
func (c *Compiler) index(doc *document, rootDraft *Draft, rootVocabs map[string]bool) error {
	root := &resource{doc: doc, ptr: "", uri: doc.uri, draft: rootDraft, vocabs: rootVocabs}
	doc.resources = append(doc.resources, root)
	if err := c.indexValue(doc, doc.src.Root, "", root, true); err != nil {
		return err
	}
	sort.Slice(doc.resources, func(i, j int) bool { return doc.resources[i].ptr < doc.resources[j].ptr })
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

// register makes r reachable under uri.
func (c *Compiler) register(uri string, r *resource) error {
	prev, ok := c.res[uri]
	switch {
	case !ok, prev == r, prev.doc.builtin && !r.doc.builtin:
		c.res[uri] = r
		return nil
	case prev.doc.src == r.doc.src && prev.ptr == r.ptr:
		return nil
	case r.doc.builtin && !prev.doc.builtin:
		// A document declared a built-in meta-schema's $id: it keeps meaning itself inside
		// that document, and resolve finds the built-in one for every other document.
		return nil
	}
	return c.schemaErr(r.doc, r.ptr, "duplicate schema identifier %q (also at %s)", uri, prev.doc.describe(prev.ptr))
}

func (d *document) describe(ptr string) string {
	name := d.name
	if name == "" {
		name = d.uri
	}
	return name + "#" + ptr
}

func (c *Compiler) indexValue(doc *document, v source.Value, ptr string, res *resource, isRoot bool) error {
	if v.Kind() != source.Object {
		return nil
	}
	d := res.draft
	_, hasRef := v.Get("$ref")
	idv, hasID := v.Get(d.idKey)
	if hasID && (d.idKey == "" || idv.Kind() != source.String || (hasRef && d.Version <= 7)) {
		hasID = false // draft <= 7: $ref makes its siblings, $id too, be ignored
	}
	// A subschema that starts a resource may declare its own dialect (2019-09 and later).
	if !isRoot && hasID && d.Version >= 2019 {
		if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String {
			nd, vocabs, err := c.dialectOf(sv.Str(), res.uri)
			if err != nil {
				return c.schemaErr(doc, ptr+"/$schema", "%v", err)
			}
			d = nd
			res = &resource{doc: doc, ptr: ptr, uri: res.uri, draft: nd, vocabs: vocabs}
		}
	}
	if hasID {
		id := idv.Str()
		if strings.HasPrefix(id, "#") && d.Version <= 7 {
			res.addAnchor(id[1:], ptr)
		} else {
			u, frag, err := ResolveURI(res.uri, id)
			if err != nil {
				return c.schemaErr(doc, ptr+"/"+d.idKey, "%v", err)
			}
			if frag != "" && d.Version >= 2019 {
				return c.schemaErr(doc, ptr+"/$id", "$id %q must not contain a fragment (use $anchor)", id)
			}
			if isRoot {
				res.uri = u
			} else {
				nr := &resource{doc: doc, ptr: ptr, uri: u, draft: d, vocabs: res.vocabs}
				doc.resources = append(doc.resources, nr)
				res = nr
			}
			if frag != "" {
				res.addAnchor(frag, ptr)
			}
		}
	}
	if d.Version >= 2019 {
		if a, ok := v.Get("$anchor"); ok && a.Kind() == source.String {
			res.addAnchor(a.Str(), ptr)
		}
		if d.Version >= 2020 {
			if a, ok := v.Get("$dynamicAnchor"); ok && a.Kind() == source.String {
				res.addAnchor(a.Str(), ptr)
				if res.dynamic == nil {
					res.dynamic = map[string]bool{}
				}
				res.dynamic[a.Str()] = true
			}
		}
		if d.Version == 2019 && res.ptr == ptr {
			if a, ok := v.Get("$recursiveAnchor"); ok && a.Kind() == source.Bool && a.Bool() {
				res.recursive = true
			}
		}
	}
	var err error
	eachSubschema(d, v, func(suffix string, child source.Value) {
		if err == nil {
			err = c.indexValue(doc, child, ptr+suffix, res, false)
		}
	})
	return err
}

func (r *resource) addAnchor(name, ptr string) {
	if r.anchors == nil {
		r.anchors = map[string]string{}
	}
	if _, dup := r.anchors[name]; !dup {
		r.anchors[name] = ptr
	}
}
