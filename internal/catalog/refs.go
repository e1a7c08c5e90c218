package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Ref is one reference keyword of a schema ($ref, and $dynamicRef or $recursiveRef where
// the draft has them), with where it leads.
type Ref struct {
	// Pointer is the JSON Pointer of the keyword in its file; Line and Column locate it.
	Pointer string `json:"pointer"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Keyword is "$ref", "$dynamicRef" or "$recursiveRef".
	Keyword string `json:"keyword"`
	// Ref is the reference as written.
	Ref string `json:"ref"`
	// Target is where the reference leads; nil when it resolves nowhere.
	Target *Target `json:"target,omitempty"`
	// Unresolved says why the reference resolves nowhere, and how to map it.
	Unresolved string `json:"unresolved,omitempty"`

	base string // the base URI the reference is resolved against
	uri  string // the target's absolute URI without fragment
	frag string // the target's fragment, unescaped
}

// Target is where a reference leads.
type Target struct {
	// URI is the absolute URI the reference stands for, with its fragment; a file of the
	// workspace without $id is named by its workspace path, never by its file:// URI.
	URI string `json:"uri"`
	// Path is the workspace file holding the target ("" for a built-in meta-schema).
	Path string `json:"path,omitempty"`
	// ID is the catalog id of the target schema, when it is a schema of the workspace.
	ID string `json:"id,omitempty"`
	// Pointer is the JSON Pointer of the target in its file.
	Pointer string `json:"pointer"`
	// Local is true for a target in the same document.
	Local bool `json:"local,omitempty"`
	// Builtin is true for a target in one of the built-in meta-schemas.
	Builtin bool `json:"builtin,omitempty"`
}

// resourceInfo is a schema resource of a document: the root or a subschema with an $id.
type resourceInfo struct {
	uri     string
	ptr     string
	anchors map[string]string // name -> JSON Pointer
}

func (r *resourceInfo) anchor(name, ptr string) {
	if r.anchors == nil {
		r.anchors = map[string]string{}
	}
	if _, dup := r.anchors[name]; !dup {
		r.anchors[name] = ptr
	}
}

// draftOf returns the draft a file is read in (2020-12 without $schema; nil when $schema is
// not understood), following a custom meta-schema of the workspace to its own $schema.
func (w *Workspace) draftOf(f *fileInfo) *schema.Draft {
	if !f.hasMeta {
		return schema.Draft2020
	}
	if d, ok := schema.DraftByName(f.dialect); ok {
		return d
	}
	u, _, err := schema.ResolveURI(schema.FileURI(w.fsys.Abs(f.path)), f.dialect)
	if err != nil {
		return nil
	}
	if t := w.locate(u, nil, nil); t.path != "" {
		if mf, ok := w.files[t.path]; ok && mf.metaLike && mf.path != f.path {
			if !mf.hasMeta {
				return schema.Draft2020
			}
			if d, ok := schema.DraftByName(mf.dialect); ok {
				return d
			}
		}
	}
	return nil
}

// analyze reads a schema's metadata, resources and references.
func (w *Workspace) analyze(s *schemaDoc) {
	f := s.file
	e := &s.entry
	e.Dialect = f.dialect
	s.res = map[string]*resourceInfo{}
	if f.doc == nil {
		p := Problem{Message: "cannot be read: " + strings.TrimPrefix(f.err.Error(), f.path+": ")}
		var se *source.Error
		if errors.As(f.err, &se) {
			p = Problem{Line: se.Line, Column: se.Column, Message: "cannot be parsed: " + se.Msg}
		}
		s.metaErrs = []Problem{p}
		e.Problem = located(p)
		return
	}
	s.draft = w.draftOf(f)
	d := s.draft
	if d == nil {
		d = schema.Draft2020 // only to find references; the entry's draft stays unknown
	} else {
		e.Draft = d.Name
	}
	root := f.doc.Root
	if t, ok := root.Get("title"); ok && t.Kind() == source.String {
		e.Title = oneLine(t.Str(), 160)
	}
	if t, ok := root.Get("description"); ok && t.Kind() == source.String {
		e.Description = shortDescription(t.Str())
	}
	for _, k := range schema.DefinitionsKeywords() {
		if v, ok := root.Get(k); ok {
			e.Defs += v.Len()
		}
	}
	if v, ok := root.Get("properties"); ok {
		e.Properties = v.Len()
	}
	fileURI := schema.FileURI(w.fsys.Abs(f.path))
	rootRes := &resourceInfo{uri: fileURI}
	if id, ok := rootID(root, d); ok && strings.HasPrefix(id, "#") && d.Version <= 7 {
		rootRes.anchor(id[1:], "")
	} else if ok {
		if u, frag, err := schema.ResolveURI(fileURI, id); err == nil {
			rootRes.uri = u
			if frag != "" {
				rootRes.anchor(frag, "")
			}
		}
	}
	s.res[fileURI] = rootRes
	s.res[rootRes.uri] = rootRes
	s.places, s.walked = map[placeKey]*source.Trail{}, map[*source.Trail]bool{}
	w.walk(s, root, nil, d, rootRes, true)
	w.followLocal(s, d)
	s.places, s.walked = nil, nil
	for _, r := range s.refs {
		w.resolve(s, r)
	}
}

// rootID returns the $id (draft 4: id) of a schema object, when the dialect reads it.
func rootID(v source.Value, d *schema.Draft) (string, bool) {
	idv, ok := v.Get(d.IDKeyword())
	if !ok || idv.Kind() != source.String {
		return "", false
	}
	if v.Has("$ref") && d.Version <= 7 {
		return "", false // $ref makes its siblings, $id too, be ignored
	}
	return idv.Str(), true
}

// walk visits the schema objects of a document, recording resources, anchors and
// references. It recurses once per level of the document, which the parsers bound
// (source.MaxDepthCeiling at most), and makes a pointer only where it records something.
// at is the place of v (see schemaDoc.place); a place walked already is not walked again.
func (w *Workspace) walk(s *schemaDoc, v source.Value, at *source.Trail, d *schema.Draft, res *resourceInfo, isRoot bool) {
	if v.Kind() != source.Object || s.walked[at] {
		return
	}
	s.walked[at] = true
	ptr := "" // made when first needed
	pointer := func() string {
		if ptr == "" && at != nil {
			ptr = at.String()
		}
		return ptr
	}
	if !isRoot {
		if id, ok := rootID(v, d); ok {
			if d.Version >= 2019 {
				if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String {
					if nd, ok := schema.DraftByName(sv.Str()); ok {
						d = nd
					}
				}
			}
			if strings.HasPrefix(id, "#") && d.Version <= 7 {
				res.anchor(id[1:], pointer())
			} else if u, frag, err := schema.ResolveURI(res.uri, id); err == nil {
				nr := &resourceInfo{uri: u, ptr: pointer()}
				if _, dup := s.res[u]; !dup {
					s.res[u] = nr
				}
				res = nr
				if frag != "" {
					res.anchor(frag, pointer())
				}
			}
		}
	}
	for _, akw := range d.Anchors() {
		if a, ok := v.Get(akw); ok && a.Kind() == source.String {
			res.anchor(a.Str(), pointer())
		}
	}
	for _, kw := range d.RefKeywords() {
		if rv, ok := v.Get(kw); ok && rv.Kind() == source.String {
			kp := pointer() + "/" + kw
			line, col := s.file.doc.Locator().LocateKeyIn(v, "/"+kw)
			s.refs = append(s.refs, &Ref{Pointer: kp, Line: line, Column: col, Keyword: kw, Ref: rv.Str(), base: res.uri})
		}
	}
	if v.Has("$ref") && d.Version <= 7 {
		return // the siblings of $ref are ignored, and so are the references below them
	}
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		shape := d.IndexedShape(k.Str())
		if shape == schema.NoSchema {
			continue
		}
		key := "/" + escapeToken(k.Str())
		switch {
		case shape == schema.OneSchema || (shape == schema.SchemaOrArray && val.Kind() != source.Array):
			w.walk(s, val, s.place(at, key), d, res, false)
		case shape == schema.SchemaArray || shape == schema.SchemaOrArray:
			kt := s.place(at, key)
			for j, item := range val.Items() {
				w.walk(s, item, s.place(kt, "/"+strconv.Itoa(j)), d, res, false)
			}
		default: // maps of schemas
			kt := s.place(at, key)
			for j := 0; j < val.Len(); j++ {
				pk, pv := val.Member(j)
				w.walk(s, pv, s.place(kt, "/"+escapeToken(pk.Str())), d, res, false)
			}
		}
	}
}

// location is where an absolute URI (without fragment) leads in the workspace.
type location struct {
	path    string // workspace file, when found
	scanned bool   // the file was read by the scan
	builtin bool   // a built-in meta-schema
	reason  string // why it leads nowhere
}

// builtins finds only the built-in meta-schemas.
var builtins = &schema.Loader{}

// locate finds the document of an absolute URI as the schema loader does: the resolve map
// (an exact entry, else the longest prefix ending in "/"); else a built-in meta-schema;
// else a file of the workspace for a file:// URI, or the file next to the referring
// document (the reference from, made in the schema s) that the URI's relative path leads
// to; else the root $id of the one document of the workspace that declares it.
func (w *Workspace) locate(u string, from *Ref, s *schemaDoc) location {
	if _, _, err := builtins.Load(u); err == nil {
		return location{builtin: true}
	}
	if name, ok := w.fromMap(u); ok {
		return w.fileAt(name, fmt.Sprintf("the resolve map sends %s to %s, which does not exist", w.display(u), name))
	}
	if p, ok := fileURIPath(u); ok {
		name, inside := w.fsys.Rel(p)
		if !inside {
			return location{reason: "the file is outside the workspace"}
		}
		return w.fileAt(name, fmt.Sprintf("no such file %s", name))
	}
	tried := w.beside(u, from, s)
	if tried.path != "" {
		return tried
	}
	switch files := w.ids[u]; len(files) {
	case 0:
	case 1:
		return location{path: files[0], scanned: true}
	default:
		return location{reason: fmt.Sprintf("%d files of the workspace declare the $id %s: %s; say which one with "+
			"--resolve %s=PATH or in jstk.json {\"resolve\": {\"%s\": \"PATH\"}}", len(files), u, strings.Join(files, ", "), u, u)}
	}
	return location{reason: fmt.Sprintf("no resolve mapping covers %s, it is not a built-in meta-schema, and no file "+
		"of the workspace has this $id%s; map it with --resolve %s=PATH or in jstk.json {\"resolve\": {\"%s\": \"PATH\"}}",
		u, tried.reason, u, u)}
}

// fileAt locates a workspace file by name.
func (w *Workspace) fileAt(name, missing string) location {
	if _, ok := w.files[name]; ok {
		return location{path: name, scanned: true}
	}
	if fi, err := w.fsys.Stat(name); err == nil && fi.Mode().IsRegular() {
		return location{path: name}
	}
	return location{reason: missing}
}

// fromMap applies the resolve map as the schema loader does; a name without extension
// that does not exist is tried with ".json" added.
func (w *Workspace) fromMap(u string) (string, bool) {
	if p, ok := w.opts.Resolve[u]; ok {
		return p, true
	}
	best := ""
	for k := range w.opts.Resolve {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(u, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return "", false
	}
	rest := strings.TrimPrefix(u, best)
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	name := path.Join(w.opts.Resolve[best], rest)
	if path.Ext(name) == "" && !w.exists(name) && w.exists(name+".json") {
		name += ".json"
	}
	return name, true
}

func (w *Workspace) exists(name string) bool {
	if _, ok := w.files[name]; ok {
		return true
	}
	_, err := w.fsys.Stat(name)
	return err == nil
}

func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return path.Clean(u.Path), true
}

// resolve finds the document of a reference (its fragment is checked later, once every
// schema is analyzed).
func (w *Workspace) resolve(s *schemaDoc, r *Ref) {
	u, frag, err := schema.ResolveURI(r.base, r.Ref)
	if err != nil {
		r.Unresolved = err.Error()
		return
	}
	r.uri, r.frag = u, frag
	full := w.display(u)
	if frag != "" || strings.Contains(r.Ref, "#") {
		full += "#" + frag
	}
	if res, ok := s.res[u]; ok {
		r.Target = &Target{URI: full, Path: s.file.path, Local: true, Pointer: res.ptr}
		return
	}
	loc := w.locate(u, r, s)
	switch {
	case loc.builtin:
		r.Target = &Target{URI: full, Builtin: true}
		if strings.HasPrefix(frag, "/") {
			r.Target.Pointer = frag
		}
	case loc.path != "":
		r.Target = &Target{URI: full, Path: loc.path}
		if strings.HasPrefix(frag, "/") {
			r.Target.Pointer = frag
		}
	default:
		r.Unresolved = loc.reason
	}
}

// checkFragments resolves the fragments of references into the documents they lead to,
// once every schema of the workspace is analyzed.
func (w *Workspace) checkFragments() {
	for _, s := range w.schemas {
		for _, r := range s.refs {
			if r.Target == nil || r.Target.Builtin {
				continue
			}
			t, ok := w.byPath[r.Target.Path]
			if !ok || t.file.doc == nil {
				if ok || w.files[r.Target.Path] != nil {
					r.Unresolved = fmt.Sprintf("%s is not a schema: %s", r.Target.Path, w.notSchema(r.Target.Path))
					r.Target = nil
				}
				continue // a file the scan did not read: its content is unknown
			}
			u, frag := r.uri, r.frag
			res := t.res[u]
			if res == nil {
				res = t.res[schema.FileURI(w.fsys.Abs(t.file.path))]
			}
			switch {
			case frag == "":
				r.Target.Pointer = res.ptr
			case strings.HasPrefix(frag, "/"):
				p := res.ptr + frag
				if _, ok := t.file.doc.Root.Pointer(p); !ok {
					r.Unresolved = fmt.Sprintf("%s has no value at %s", t.file.path, p)
					r.Target = nil
					continue
				}
				r.Target.Pointer = p
			default:
				p, ok := res.anchors[frag]
				if !ok {
					r.Unresolved = fmt.Sprintf("no anchor %q in %s", frag, u)
					r.Target = nil
					continue
				}
				r.Target.Pointer = p
			}
		}
	}
}

// notSchema says why a file read by the scan is not a schema.
func (w *Workspace) notSchema(name string) string {
	f := w.files[name]
	switch {
	case f == nil:
		return "it was not read"
	case f.err != nil:
		return unreadable(f)
	}
	return "its root is " + kindArticle(f.rootKind)
}

// unreadable says why a file cannot be read or parsed, without repeating its name.
func unreadable(f *fileInfo) string {
	var se *source.Error
	if errors.As(f.err, &se) && se.File == f.path {
		se := *se
		se.File = ""
		return "it cannot be parsed: " + strings.TrimPrefix(se.Error(), "<input>:")
	}
	return "it cannot be read: " + strings.TrimPrefix(f.err.Error(), f.path+": ")
}

func kindArticle(k source.Kind) string {
	switch k {
	case source.Array, source.Object:
		return "an " + k.String()
	case source.Null:
		return "null"
	}
	return "a " + k.String()
}

// oneLine collapses white space and cuts text to at most max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	cut := string(r[:max-1])
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// shortDescription is the first sentence of a description, at most 160 characters.
func shortDescription(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i > 10 {
			s = s[:i+1]
			break
		}
	}
	return oneLine(s, 160)
}

// escapeToken escapes a JSON Pointer reference token.
func escapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
