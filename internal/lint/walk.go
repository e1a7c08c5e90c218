package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// node is one schema (an object or a boolean) of a document, found by walking the keywords
// that hold subschemas in its dialect.
type node struct {
	ptr    string // JSON Pointer in the document
	val    source.Value
	draft  *schema.Draft
	parent *node
	depth  int    // the nesting of subschemas: 0 at the root, its parent's plus one below
	kw     string // the keyword of the parent that holds this schema ("" at the root)
	key    string // property name, pattern or index under kw ("" for single-schema keywords)
	base   string // absolute base URI (without fragment) that references here resolve against
	// resource is the pointer of the schema resource the node belongs to (its own pointer
	// when it starts one).
	resource string
	// inert is true when the dialect never evaluates this schema where it stands: a sibling
	// of $ref in drafts 4 to 7, or under a keyword the dialect does not know. References may
	// still reach it by JSON Pointer.
	inert bool
	// ignore holds the rule ids suppressed here by x-lint-ignore (own and inherited); nil
	// when none; the key "*" suppresses every rule.
	ignore map[string]bool
}

// isObject reports whether the node is a schema object (not a boolean schema).
func (n *node) isObject() bool { return n.val.Kind() == source.Object }

// get returns a keyword's value.
func (n *node) get(kw string) (source.Value, bool) { return n.val.Get(kw) }

// has reports whether the schema object has keyword kw.
func (n *node) has(kw string) bool { return n.val.Has(kw) }

// str returns a string keyword's value.
func (n *node) str(kw string) (string, bool) {
	v, ok := n.val.Get(kw)
	if !ok || v.Kind() != source.String {
		return "", false
	}
	return v.Str(), true
}

// at returns the pointer of a keyword (and further tokens) of the node.
func (n *node) at(tokens ...string) string {
	var sb strings.Builder
	sb.WriteString(n.ptr)
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(source.EscapeToken(t))
	}
	return sb.String()
}

// hasRefOld reports a draft 4-7 schema whose $ref makes its siblings ignored.
func (n *node) hasRefOld() bool {
	return n.draft.Version <= 7 && n.isObject() && n.has("$ref")
}

// resource is a schema resource of the document: the root, or a subschema with an $id.
type resourceInfo struct {
	ptr     string
	uri     string            // absolute, without fragment
	anchors map[string]string // anchor name -> pointer
}

// walker collects the nodes of a document.
type walker struct {
	f       *file
	maxNode int
	slab    []node // nodes are allocated from it, a block at a time
}

// newNode allocates a node from the walker's current block.
func (w *walker) newNode() *node {
	if len(w.slab) == 0 {
		w.slab = make([]node, min(max(len(w.f.nodes), 16), 1024))
	}
	n := &w.slab[0]
	w.slab = w.slab[1:]
	return n
}

// maxNesting bounds the nesting of the subschemas lint reads: below it, nothing is
// linted and the rule deep-nesting says so. It bounds walk's recursion, and the length of
// the pointers lint keeps for its nodes (a document nested thousands of levels deep would
// otherwise take space quadratic in its depth). Real schemas stay far above it: the
// deepest of SchemaStore's nests 11 levels.
const maxNesting = 100

// walk visits every schema of the document, depth first in document order, down to
// maxNesting levels.
func (w *walker) walk(v source.Value, ptr string, parent *node, kw, key string, inert bool) {
	if v.Kind() != source.Object && v.Kind() != source.Bool {
		return
	}
	if len(w.f.nodes) >= w.maxNode {
		w.f.truncated = true
		return
	}
	n := w.newNode()
	*n = node{ptr: ptr, val: v, parent: parent, kw: kw, key: key, inert: inert}
	if parent != nil {
		n.depth = parent.depth + 1
	}
	if n.depth > maxNesting {
		if w.f.tooDeep == nil {
			w.f.tooDeep = n
		}
		return
	}
	if parent == nil {
		n.draft = w.f.rootDraft
		n.base = w.f.uri
		n.resource = ""
	} else {
		n.draft, n.base, n.resource = parent.draft, parent.base, parent.resource
		n.ignore = parent.ignore
	}
	w.f.nodes = append(w.f.nodes, n)
	if v.Kind() != source.Object {
		return
	}
	if iv, ok := v.Get("x-lint-ignore"); ok {
		n.ignore = ignoreSet(n.ignore, iv)
	}
	_, hasRef := v.Get("$ref")
	w.identify(n, hasRef)
	for _, akw := range n.draft.Anchors() {
		if a, ok := v.Get(akw); ok && a.Kind() == source.String {
			w.f.addAnchor(n.resource, a.Str(), ptr)
		}
	}
	refSiblingsInert := n.draft.Version <= 7 && hasRef
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		name := k.Str()
		sh := n.draft.SubschemaShape(name)
		if sh == 0 {
			continue
		}
		// Places of definitions are never evaluated in place (reached by reference): $ref
		// does not make them inert.
		childInert := inert || (refSiblingsInert && !isDefinitionsKeyword(name))
		w.walkChildren(val, ptr+"/"+source.EscapeToken(name), n, name, sh, childInert)
	}
}

// walkChildren walks the subschemas of keyword name (at pointer base), held in shape sh.
func (w *walker) walkChildren(val source.Value, base string, n *node, name string, sh schema.Shape, inert bool) {
	switch sh {
	case schema.OneSchema:
		w.walk(val, base, n, name, "", inert)
	case schema.SchemaArray:
		for j, item := range val.Items() {
			w.walk(item, base+"/"+strconv.Itoa(j), n, name, strconv.Itoa(j), inert)
		}
	case schema.SchemaOrArray:
		if val.Kind() == source.Array {
			for j, item := range val.Items() {
				w.walk(item, base+"/"+strconv.Itoa(j), n, name, strconv.Itoa(j), inert)
			}
		} else {
			w.walk(val, base, n, name, "", inert)
		}
	case schema.SchemaMap, schema.DepsMap:
		if val.Kind() != source.Object {
			return
		}
		for j := 0; j < val.Len(); j++ {
			pk, pv := val.Member(j)
			if sh == schema.DepsMap && pv.Kind() == source.Array {
				continue
			}
			w.walk(pv, base+"/"+source.EscapeToken(pk.Str()), n, name, pk.Str(), inert)
		}
	}
}

// ignoreSet is the set of rules a node's x-lint-ignore value iv turns off, with those its
// parent's (inherited) turns off.
func ignoreSet(inherited map[string]bool, iv source.Value) map[string]bool {
	ig := map[string]bool{}
	for k := range inherited {
		ig[k] = true
	}
	switch iv.Kind() {
	case source.Bool:
		if iv.Bool() {
			ig["*"] = true
		}
	case source.String:
		ig[iv.Str()] = true
	case source.Array:
		for _, it := range iv.Items() {
			if it.Kind() == source.String {
				ig[it.Str()] = true
			}
		}
	}
	return ig
}

// identify reads node n's identifier: a subschema may change dialect when it starts a
// resource (2019-09 and later), and its id names a resource or an anchor.
func (w *walker) identify(n *node, hasRef bool) {
	v, parent, ptr := n.val, n.parent, n.ptr
	idv, ok := v.Get(idKeyword(n.draft))
	if !ok || idv.Kind() != source.String || hasRef && n.draft.Version <= 7 {
		return
	}
	id := idv.Str()
	if parent != nil && n.draft.Version >= 2019 {
		if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String {
			if d, ok := schema.DraftByName(sv.Str()); ok {
				n.draft = d
			}
		}
	}
	if strings.HasPrefix(id, "#") && n.draft.Version <= 7 {
		w.f.addAnchor(n.resource, id[1:], ptr)
	} else if u, frag, err := schema.ResolveURI(n.base, id); err == nil {
		n.base = u
		if parent != nil {
			n.resource = ptr
		}
		w.f.addResource(n.resource, u)
		if frag != "" {
			w.f.addAnchor(n.resource, frag, ptr)
		}
	}
}

// isDefinitionsKeyword reports keywords that hold reusable definitions in some draft
// (schema.DefinitionsKeywords).
func isDefinitionsKeyword(kw string) bool { return slices.Contains(schema.DefinitionsKeywords(), kw) }
