package bundle

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// member is an object member to put into a copied document.
type member struct {
	key string
	val source.Value
}

// edits says how a document changes on its way into the bundle.
type edits struct {
	refs  map[string]string   // pointer of a reference's value -> new reference
	drop  map[string]bool     // pointers of members to leave out
	front map[string][]member // pointer of an object -> members to put first
	back  map[string][]member // pointer of an object -> members to add at the end
	// below holds the pointers of the edits and of their ancestors, once copyValue starts:
	// a value elsewhere is copied as it is, without a walk through it.
	below map[string]bool
}

func newEdits() *edits {
	return &edits{refs: map[string]string{}, drop: map[string]bool{}, front: map[string][]member{}, back: map[string][]member{}}
}

// copyValue copies v (at ptr of its document), applying the edits. It goes down only
// where edits are, recursing once per level of the document (which the parsers bound).
func (e *edits) copyValue(v source.Value, ptr string) source.Value {
	if e.below == nil {
		e.below = map[string]bool{}
		mark := func(p string) {
			for !e.below[p] {
				e.below[p] = true
				if p == "" {
					return
				}
				p = p[:max(strings.LastIndexByte(p, '/'), 0)]
			}
		}
		for p := range e.refs {
			mark(p)
		}
		for p := range e.drop {
			mark(p)
		}
		for p := range e.front {
			mark(p)
		}
		for p := range e.back {
			mark(p)
		}
	}
	if !e.below[ptr] {
		return v
	}
	if nv, ok := e.refs[ptr]; ok {
		return source.StringValue(nv)
	}
	switch v.Kind() {
	case source.Object:
		var ob source.ObjectBuilder
		set := map[string]bool{}
		for _, m := range e.front[ptr] {
			ob.Set(m.key, m.val)
			set[m.key] = true
		}
		for i := 0; i < v.Len(); i++ {
			k, val := v.Member(i)
			cp := ptr + "/" + source.EscapeToken(k.Str())
			if set[k.Str()] || e.drop[cp] {
				continue
			}
			ob.Set(k.Str(), e.copyValue(val, cp))
		}
		for _, m := range e.back[ptr] {
			ob.Set(m.key, m.val)
		}
		return ob.Value()
	case source.Array:
		items := make([]source.Value, v.Len())
		for i, it := range v.Items() {
			items[i] = e.copyValue(it, fmt.Sprintf("%s/%d", ptr, i))
		}
		return source.ArrayValue(items...)
	}
	return v
}

// canonicalDialect is the official URI of a draft.
func canonicalDialect(d *schema.Draft) string {
	if d.Version <= 7 {
		return d.URL + "#"
	}
	return d.URL
}

// escapeFragment percent-encodes a JSON Pointer for use as a URI fragment.
func escapeFragment(p string) string {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0 {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

// placement computes where every resource of the bundle stands, as URIs relative to an
// imagined location of the bundle (see fake).
type placement struct {
	b        *bundler
	compound bool
	rootID   string // the root's $id in the bundle ("" when it has none)
	pseudo   map[*resource]string
	index    map[string]*resource // pseudo URI -> resource
	unknown  bool                 // a reference needed the bundle's own name
}

func (pl *placement) rootPseudo() string {
	rr := pl.b.root.resources[""]
	if rr.idValue != "" {
		if u, _, err := resolve(fake+unknownName, rr.idValue); err == nil {
			return u
		}
	}
	if pl.rootID != "" {
		return fake + pl.rootID
	}
	return fake + unknownName
}

func (pl *placement) of(r *resource) string {
	if u, ok := pl.pseudo[r]; ok {
		return u
	}
	var u string
	switch {
	case r.doc == pl.b.root && r.ptr == "":
		u = pl.rootPseudo()
	case r.doc != pl.b.root && !pl.compound:
		u = pl.rootPseudo() // inlined documents lose their identifiers
	case r.ptr == "":
		u, _, _ = resolve(pl.rootPseudo(), r.doc.id)
	default:
		u, _, _ = resolve(pl.of(r.parent), r.idValue)
	}
	pl.pseudo[r] = u
	return u
}

// relRef writes a reference from a resource at base to the resource at target.
func (pl *placement) relRef(base, target string) (string, error) {
	if base == target {
		return "", nil
	}
	if !strings.HasPrefix(target, fake) {
		return target, nil
	}
	if !strings.HasPrefix(base, fake) {
		return "", fmt.Errorf("a document with an absolute $id refers to a local file")
	}
	if strings.HasSuffix(target, "/"+unknownName) {
		pl.unknown = true
	}
	bp, tp := strings.TrimPrefix(base, "file://"), strings.TrimPrefix(target, "file://")
	return workspace.RelPath(path.Dir(bp), tp), nil
}

// newRef computes the reference that leads from r's place in the bundle to its target,
// or "" when its value still does.
func (pl *placement) newRef(r *ref) (string, error) {
	b := pl.b
	base := pl.of(r.res)
	if !pl.compound && r.doc != b.root {
		base = pl.rootPseudo()
	}
	// Does the reference, read where it now stands, still lead to its target?
	if pl.compound || r.doc == b.root && r.target == b.root {
		if u, frag, err := resolve(base, r.value); err == nil {
			if t := pl.index[u]; t != nil && t.doc == r.target {
				if p, ok := lookup(t, frag); ok && p == r.targetPtr {
					return "", nil
				}
			}
		}
	}
	var target, frag string
	if pl.compound || r.target == b.root {
		tres := r.target.innermost(r.targetPtr)
		target, frag = pl.of(tres), r.targetPtr[len(tres.ptr):]
	} else {
		// Inlined under the root's definitions, which belong to the root resource.
		target, frag = pl.rootPseudo(), "/definitions/"+source.EscapeToken(r.target.key)+r.targetPtr
	}
	rel, err := pl.relRef(base, target)
	if err != nil {
		return "", fmt.Errorf("%s: %s %q: %v", b.where(r.doc, r.ptr), r.kw, r.value, err)
	}
	if frag == "" && rel != "" {
		return rel, nil
	}
	return rel + "#" + escapeFragment(frag), nil
}

func (b *bundler) build() (*Result, error) {
	root := b.root
	res := &Result{Draft: root.draft.Name, Embedded: []Embedded{}, Mode: "none"}
	var emb []*doc
	for _, d := range b.docs {
		if d != root && !d.builtin {
			emb = append(emb, d)
		}
	}
	if len(emb) == 0 && !b.selfNamed() {
		res.value = root.src.Root
		res.Schema = source.AppendJSON(nil, res.value)
		return res, nil
	}
	compound := root.draft.Version >= 2019
	res.Mode = "inline"
	container := root.draft.DefinitionsKeyword() // $defs exactly when compound
	if compound {
		res.Mode = "compound"
	}
	if root.src.Root.Kind() != source.Object {
		return nil, fmt.Errorf("%s: a boolean root schema cannot hold definitions", root.name)
	}
	b.nameEmbedded(emb, container)
	pl, err := b.place(emb, compound)
	if err != nil {
		return nil, err
	}
	// Build the bundle.
	rootEdits := newEdits()
	rootEdits.refs = root.newRefs
	if pl.rootID != "" {
		rootEdits.front[""] = append(rootEdits.front[""], member{root.draft.IDKeyword(), source.StringValue(pl.rootID)})
	}
	var entries []member
	for _, d := range emb {
		m, err := b.embed(d, compound, res)
		if err != nil {
			return nil, err
		}
		entries = append(entries, m)
		file := b.display(d)
		if file == d.id {
			file = ""
		}
		res.Embedded = append(res.Embedded, Embedded{ID: d.id, Pointer: "/" + source.EscapeToken(container) + "/" + source.EscapeToken(d.key),
			File: file, Draft: d.draft.Name})
	}
	if cv, ok := root.src.Root.Get(container); ok && cv.Kind() == source.Object {
		rootEdits.back["/"+source.EscapeToken(container)] = entries
	} else if len(entries) > 0 {
		var ob source.ObjectBuilder
		for _, m := range entries {
			ob.Set(m.key, m.val)
		}
		rootEdits.back[""] = []member{{container, ob.Value()}}
	}
	res.value = rootEdits.copyValue(root.src.Root, "")
	res.Schema = source.AppendJSON(nil, res.value)
	return res, nil
}

// nameEmbedded gives the embedded documents their identifiers (paths relative to the
// root's, or their URIs), sorts them by it, and gives each its key in the root's
// container of definitions, clear of the keys already there.
func (b *bundler) nameEmbedded(emb []*doc, container string) {
	root := b.root
	rootFile, rootIsFile := filePath(root.uri)
	taken := map[string]bool{}
	if cv, ok := root.src.Root.Get(container); ok && cv.Kind() == source.Object {
		for i := 0; i < cv.Len(); i++ {
			taken[cv.Key(i)] = true
		}
	}
	for _, d := range emb {
		if p, ok := filePath(d.rootURI); ok {
			if rootIsFile {
				d.id = workspace.RelPath(path.Dir(rootFile), p)
			} else {
				d.id = path.Base(p)
			}
		} else {
			d.id = d.rootURI
		}
	}
	sort.SliceStable(emb, func(i, j int) bool { return emb[i].id < emb[j].id })
	for _, d := range emb {
		d.key = d.id
		for n := 2; taken[d.key]; n++ {
			d.key = fmt.Sprintf("%s~%d", d.id, n)
		}
		taken[d.key] = true
	}
}

// place places every resource, then rewrites (each document's newRefs) what no longer
// resolves. A reference that needs the bundle's own name (from an embedded document back
// into the root) gives the root an $id.
func (b *bundler) place(emb []*doc, compound bool) (*placement, error) {
	root := b.root
	var pl *placement
	for attempt := 0; attempt < 2; attempt++ {
		pl = &placement{b: b, compound: compound, pseudo: map[*resource]string{}, index: map[string]*resource{}}
		if attempt == 1 {
			pl.rootID = b.rootName()
		}
		for _, d := range append([]*doc{root}, emb...) {
			if d == root || compound {
				pl.indexResources(d)
			}
		}
		for _, d := range append([]*doc{root}, emb...) {
			if err := pl.rewriteRefs(d); err != nil {
				return nil, err
			}
		}
		if !pl.unknown || root.resources[""].idValue != "" {
			break
		}
	}
	return pl, nil
}

// indexResources indexes document d's resources by their URIs in the bundle (the first of
// each URI, in the order of their pointers).
func (pl *placement) indexResources(d *doc) {
	ptrs := make([]string, 0, len(d.resources))
	for p := range d.resources {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		u := pl.of(d.resources[p])
		if _, dup := pl.index[u]; !dup {
			pl.index[u] = d.resources[p]
		}
	}
}

// rewriteRefs sets document d's newRefs: the references whose values change in the bundle.
func (pl *placement) rewriteRefs(d *doc) error {
	d.newRefs = map[string]string{}
	for _, r := range d.refs {
		if r.target == nil || r.target.builtin {
			continue
		}
		v, err := pl.newRef(r)
		if err != nil {
			return err
		}
		if v != "" && v != r.value {
			d.newRefs[r.ptr] = v
		}
	}
	return nil
}

// embed is the entry of embedded document d in the root's container of definitions: as a
// resource of its own in a compound document (warning in res when its draft is older than
// 2019-09), or with its identifiers and $schema dropped when inlined.
func (b *bundler) embed(d *doc, compound bool, res *Result) (member, error) {
	root := b.root
	e := newEdits()
	e.refs = d.newRefs
	v := d.src.Root
	if compound {
		if v.Kind() == source.Bool {
			v = wrapBool(v)
		}
		e.front[""] = append(e.front[""], member{"$id", source.StringValue(d.id)})
		if d.draft.Version == 4 {
			e.drop["/id"] = true
		}
		if !v.Has("$schema") && d.draft != root.draft {
			e.front[""] = append(e.front[""], member{"$schema", source.StringValue(canonicalDialect(d.draft))})
		}
		if d.draft.Version < 2019 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is %s, embedded with its own $schema in a %s compound document; "+
				"a validator that checks the whole bundle against the %s meta-schema may refuse it", b.display(d), d.draft.Name, root.draft.Name, root.draft.Name))
		}
	} else {
		if err := b.checkDraftMix(d); err != nil {
			return member{}, err
		}
		for _, p := range d.ids {
			e.drop[p] = true
		}
		for _, p := range d.schemas {
			e.drop[p] = true
		}
		e.drop["/$schema"], e.drop["/$id"], e.drop["/id"] = true, true, true
	}
	return member{d.key, e.copyValue(v, "")}, nil
}

// selfNamed reports whether the root refers to itself by file name (which must be
// rewritten even when nothing is embedded).
func (b *bundler) selfNamed() bool {
	for _, r := range b.root.refs {
		if r.target == b.root && !strings.HasPrefix(r.value, "#") {
			return true
		}
	}
	return false
}

// rootName is the name the root takes as its $id when embedded documents refer back to
// it.
func (b *bundler) rootName() string {
	if p, ok := filePath(b.root.uri); ok && path.Ext(p) != "" {
		return path.Base(p)
	}
	return "schema.json"
}

// wrapBool turns a boolean document into an object that can carry an $id.
func wrapBool(v source.Value) source.Value {
	var ob source.ObjectBuilder
	ob.Set("allOf", source.ArrayValue(v))
	return ob.Value()
}

// changedKeywords are keywords of drafts 4 to 7 whose meaning differs between them even
// where both know them.
var changedKeywords = map[string][2]int{
	"exclusiveMinimum": {4, 6}, // a boolean in draft 4, a number from draft 6 on
	"exclusiveMaximum": {4, 6},
}

// knows reports whether draft v (4, 6 or 7) defines keyword kw and reads it to decide
// validity: an applicator, assertion, reference or identifier, or an annotation that
// asserts on request (format, contentEncoding, contentMediaType).
func knows(v int, kw string) bool {
	for _, d := range schema.Drafts {
		if d.Version != v {
			continue
		}
		k, ok := d.Keyword(kw)
		return ok && k.Support == schema.Defined && (k.OnRequest || k.Kind != schema.Annotation && k.Kind != schema.Core)
	}
	return false
}

// isLaterKeyword reports a keyword of draft d (2019-09 or later) that draft 7 does not
// define and that decides validity: an applicator, assertion or reference.
func isLaterKeyword(d *schema.Draft, kw string) bool {
	k, ok := d.Keyword(kw)
	return ok && k.Support == schema.Defined && !schema.Draft7.Defines(kw) &&
		(k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference)
}

// checkDraftMix refuses to inline a document whose keywords the root's draft reads
// differently.
func (b *bundler) checkDraftMix(d *doc) error {
	rv, dv := b.root.draft.Version, d.draft.Version
	if rv == dv {
		return nil
	}
	for _, o := range d.objects {
		v := o.v
		for i := 0; i < v.Len(); i++ {
			k := v.Key(i)
			differs := false
			if dv >= 2019 {
				switch {
				case isLaterKeyword(d.draft, k):
					differs = true
				case k == "$ref":
					differs = hasSiblingAssertions(v, d.draft) // 2019-09 applies them, drafts 4 to 7 ignore them
				default:
					differs = knows(rv, k) != knows(7, k) && k != "$id"
				}
			} else {
				differs = knows(rv, k) != knows(dv, k) && k != "$id" && k != "id"
				if c, ok := changedKeywords[k]; ok && (rv < c[1]) != (dv < c[1]) {
					differs = true
				}
			}
			if differs {
				return fmt.Errorf("%w: %s is %s and uses %s (at %s), which a %s schema reads differently; give the root "+
					"a $schema of 2019-09 or later to bundle it as an embedded resource", ErrDraftMix, b.display(d),
					d.draft.Name, k, o.at.String()+"/"+source.EscapeToken(k), b.root.draft.Name)
			}
		}
	}
	return nil
}

// hasSiblingAssertions reports a schema object of draft d with keywords beside $ref that
// validate: applicators, assertions, other references, annotations asserted on request,
// and keywords d does not know.
func hasSiblingAssertions(v source.Value, d *schema.Draft) bool {
	for i := 0; i < v.Len(); i++ {
		name := v.Key(i)
		k, ok := d.Keyword(name)
		switch {
		case !ok, k.OnRequest, k.Kind == schema.Applicator, k.Kind == schema.Assertion:
			return true
		case k.Kind == schema.Reference && name != "$ref":
			return true
		}
	}
	return false
}
