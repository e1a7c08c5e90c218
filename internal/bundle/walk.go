package bundle

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// doc is one document of the bundle: the root or a document it references.
type doc struct {
	uri   string // retrieval URI
	name  string // file name as the loader gives it ("" for built-in meta-schemas)
	src   *source.Document
	draft *schema.Draft
	// builtin documents (the official meta-schemas) are known to every validator and are
	// never embedded.
	builtin bool
	// resources are the schema resources of the document, by pointer.
	resources map[string]*resource
	refs      []*ref
	ids       []string // pointers of the identifier keywords ($id, id) of subschemas
	schemas   []string // pointers of "$schema" keywords below the root
	objects   []object // the schema objects, the root's first
	// rootURI is the URI of the document's root resource ($id, else the retrieval URI).
	rootURI string

	// Set when the output is built.
	key string // the document's key under $defs/definitions
	id  string // its $id in the bundle (compound documents)
	// newRefs are the references rewritten for the bundle: pointer of the value -> value.
	newRefs map[string]string
}

// resource is a schema resource: the document root or a subschema with an $id.
type resource struct {
	doc     *doc
	ptr     string
	uri     string // absolute, without fragment
	idValue string // the $id as written ("" for a root without $id)
	parent  *resource
	anchors map[string]string // anchor -> pointer
	draft   *schema.Draft
}

// ref is one reference keyword.
type ref struct {
	doc   *doc
	ptr   string // pointer of the reference's string value
	kw    string
	value string
	res   *resource // the resource the reference is in (its base)

	target    *doc
	targetPtr string
}

// object is a schema object of a document, with its place: its pointer, which a deeply
// nested document has too many long ones of to keep, is made only when asked for.
type object struct {
	v  source.Value
	at *source.Trail
}

// index walks a document: its resources, anchors, references and identifiers. The walk
// recurses once per level of the document's nesting, which the parsers bound
// (source.MaxDepthCeiling at most).
func (d *doc) index() {
	d.resources = map[string]*resource{}
	root := &resource{doc: d, ptr: "", uri: d.uri, anchors: map[string]string{}, draft: d.draft}
	d.resources[""] = root
	d.walk(d.src.Root, nil, root, true)
	d.rootURI = root.uri
}

// walk indexes the schema v at the place at.
func (d *doc) walk(v source.Value, at *source.Trail, res *resource, isRoot bool) {
	if v.Kind() != source.Object {
		return
	}
	d.objects = append(d.objects, object{v: v, at: at})
	ptr := "" // made when first needed
	pointer := func() string {
		if ptr == "" && !isRoot {
			ptr = at.String()
		}
		return ptr
	}
	dr := res.draft
	_, hasRef := v.Get("$ref")
	idk := dr.IDKeyword()
	if idv, ok := v.Get(idk); ok && idv.Kind() == source.String && !(hasRef && dr.Version <= 7) {
		id := idv.Str()
		nd := dr
		if !isRoot && dr.Version >= 2019 {
			if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String {
				if x, ok := schema.DraftByName(sv.Str()); ok {
					nd = x
				}
			}
		}
		if strings.HasPrefix(id, "#") && dr.Version <= 7 {
			res.anchors[id[1:]] = pointer()
		} else if u, frag, err := resolve(res.uri, id); err == nil {
			if isRoot {
				res.uri, res.idValue, res.draft = u, id, nd
			} else {
				res = &resource{doc: d, ptr: pointer(), uri: u, idValue: id, parent: res, anchors: map[string]string{}, draft: nd}
				d.resources[pointer()] = res
			}
			if frag != "" {
				res.anchors[frag] = pointer()
			}
			dr = nd
		}
		d.ids = append(d.ids, pointer()+"/"+idk)
	}
	if !isRoot {
		if _, ok := v.Get("$schema"); ok {
			d.schemas = append(d.schemas, pointer()+"/$schema")
		}
	}
	for _, akw := range dr.Anchors() {
		if a, ok := v.Get(akw); ok && a.Kind() == source.String {
			if _, dup := res.anchors[a.Str()]; !dup {
				res.anchors[a.Str()] = pointer()
			}
		}
	}
	for _, kw := range dr.RefKeywords() {
		if rv, ok := v.Get(kw); ok && rv.Kind() == source.String {
			d.refs = append(d.refs, &ref{doc: d, ptr: pointer() + "/" + source.EscapeToken(kw), kw: kw, value: rv.Str(), res: res})
		}
	}
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		base := "/" + source.EscapeToken(k.Str())
		switch dr.SubschemaShape(k.Str()) {
		case schema.OneSchema:
			d.walk(val, &source.Trail{Up: at, Rel: base}, res, false)
		case schema.SchemaArray:
			for j, it := range val.Items() {
				d.walk(it, &source.Trail{Up: at, Rel: base + "/" + strconv.Itoa(j)}, res, false)
			}
		case schema.SchemaOrArray:
			if val.Kind() == source.Array {
				for j, it := range val.Items() {
					d.walk(it, &source.Trail{Up: at, Rel: base + "/" + strconv.Itoa(j)}, res, false)
				}
			} else {
				d.walk(val, &source.Trail{Up: at, Rel: base}, res, false)
			}
		case schema.SchemaMap, schema.DepsMap:
			if val.Kind() != source.Object {
				continue
			}
			for j := 0; j < val.Len(); j++ {
				pk, pv := val.Member(j)
				if pv.Kind() == source.Array {
					continue
				}
				d.walk(pv, &source.Trail{Up: at, Rel: base + "/" + source.EscapeToken(pk.Str())}, res, false)
			}
		}
	}
}

// resolve resolves a reference against a base URI: the absolute URI without fragment,
// and the (decoded) fragment.
func resolve(base, ref string) (string, string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", err
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	u := b.ResolveReference(r)
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	return u.String(), frag, nil
}

// innermost returns the resource of d that encloses ptr most closely.
func (d *doc) innermost(ptr string) *resource {
	best := d.resources[""]
	for p, r := range d.resources {
		if (ptr == p || strings.HasPrefix(ptr, p+"/")) && len(p) > len(best.ptr) {
			best = r
		}
	}
	return best
}
