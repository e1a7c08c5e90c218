package lint

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Fix is a proposed edit that provably keeps the set of instances the schema accepts.
type Fix struct {
	// Description says what the fix does.
	Description string `json:"description"`
	// Patch is the edit as JSON Patch (RFC 6902) operations on the document.
	Patch []PatchOp `json:"patch"`
	// Edits is the same edit as text replacements (JSON documents only), which keep the
	// rest of the file as it is.
	Edits []TextEdit `json:"edits,omitempty"`
}

// PatchOp is one JSON Patch operation: remove, replace or move.
type PatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// TextEdit replaces the text from (Line, Column) up to (EndLine, EndColumn), exclusive,
// with NewText. Lines and columns are 1-based; columns count characters.
type TextEdit struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	NewText   string `json:"newText"`

	start, end int // byte offsets
}

// removeOp, replaceOp and moveOp build patch operations.
func removeOp(ptr string) PatchOp { return PatchOp{Op: "remove", Path: ptr} }

func replaceOp(ptr string, v source.Value) PatchOp {
	return PatchOp{Op: "replace", Path: ptr, Value: source.AppendJSON(nil, v)}
}

func moveOp(from, to string) PatchOp { return PatchOp{Op: "move", From: from, Path: to} }

// ancestors calls fn with every ancestor of a pointer, from the root down, and then with
// the pointer itself.
func ancestors(p string, fn func(string)) {
	fn("")
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			fn(p[:i])
		}
	}
	if p != "" {
		fn(p)
	}
}

// markAncestors adds a pointer and its ancestors to set. It goes up from the pointer and
// stops at the first one already there, whose ancestors then are too: marking the
// ancestors of every schema of a document takes time proportional to the document, not to
// the sum of the schemas' depths.
func markAncestors(set map[string]bool, p string) {
	for {
		if set[p] {
			return
		}
		set[p] = true
		if p == "" {
			return
		}
		p = p[:max(strings.LastIndexByte(p, '/'), 0)]
	}
}

// fixIndex holds what the safety check of fixes asks about a document, computed once.
type fixIndex struct {
	idAnc     map[string]bool // ancestors-or-self of schemas that declare an $id or anchor
	protExact map[string]bool // local reference targets
	protAnc   map[string]bool // strict ancestors of local reference targets
	// refs are the document's references, by the pointer of their schema: those inside a
	// subtree are a run of it (refsIn). A map from every ancestor of every reference would
	// take space proportional to the sum of their depths.
	refs []*ref
}

// refsIn calls fn with each reference whose schema is at p or below it, until fn returns
// false; it reports whether fn never did.
func (x *fixIndex) refsIn(p string, fn func(*ref) bool) bool {
	i := sort.Search(len(x.refs), func(i int) bool { return x.refs[i].n.ptr >= p })
	for ; i < len(x.refs) && strings.HasPrefix(x.refs[i].n.ptr, p); i++ {
		if q := x.refs[i].n.ptr; (len(q) == len(p) || q[len(p)] == '/') && !fn(x.refs[i]) {
			return false
		}
	}
	return true
}

func (f *file) fixIdx() *fixIndex {
	if f.fx != nil {
		return f.fx
	}
	x := &fixIndex{idAnc: map[string]bool{}, protExact: map[string]bool{}, protAnc: map[string]bool{}}
	// A schema is kept whole when it declares an identifier of its draft, or an anchor of
	// any draft (read as one by a tool that takes the schema for another draft).
	anyAnchor := schema.KeywordNames(schema.AllDrafts, func(k *schema.Keyword) bool { return k.Anchor != schema.NoAnchor })
	for _, n := range f.nodes {
		if n.isObject() && (slices.ContainsFunc(n.draft.Identifiers(), n.has) || slices.ContainsFunc(anyAnchor, n.has)) {
			markAncestors(x.idAnc, n.ptr)
		}
	}
	for _, t := range f.protected {
		x.protExact[t] = true
		if i := strings.LastIndexByte(t, '/'); i >= 0 {
			markAncestors(x.protAnc, t[:i])
		}
	}
	x.refs = append([]*ref(nil), f.refs...)
	sort.SliceStable(x.refs, func(i, j int) bool { return x.refs[i].n.ptr < x.refs[j].n.ptr })
	f.fx = x
	return x
}

// safe checks a fix against what a textual rule cannot see: a reference elsewhere in the
// document into what the fix removes, moves or renumbers; an identifier or anchor inside it
// (other documents may refer to it); a reference inside it that does not resolve (a fix
// never deletes a reference it cannot follow).
func (f *file) safe(fix *Fix) bool {
	x := f.fixIdx()
	for _, op := range fix.Patch {
		var gone []string // subtrees that disappear or move
		switch op.Op {
		case "remove", "replace":
			gone = append(gone, op.Path)
		case "add":
			if _, exists := f.doc.Root.Pointer(op.Path); exists {
				return false
			}
			continue
		case "move":
			gone = append(gone, op.From)
			if _, exists := f.doc.Root.Pointer(op.Path); exists {
				return false
			}
		default:
			return false
		}
		// Removing an array item renumbers the items after it.
		if op.Op == "remove" {
			if parent, last, ok := splitLast(op.Path); ok {
				if pv, ok := f.doc.Root.Pointer(parent); ok && pv.Kind() == source.Array {
					i, _ := strconv.Atoi(last)
					for j := i + 1; j < pv.Len(); j++ {
						gone = append(gone, parent+"/"+strconv.Itoa(j))
					}
				}
			}
		}
		for _, g := range gone {
			// A replacement keeps the meaning of what it replaces (every fix is an
			// equivalence), so references to it stay right; references into it do not.
			if x.protAnc[g] || x.protExact[g] && op.Op != "replace" {
				return false
			}
			if x.idAnc[g] {
				return false
			}
			if !x.refsIn(g, func(r *ref) bool {
				return r.bad == "" && (!r.local || r.found) && (r.local || f.external(r) == nil)
			}) {
				return false
			}
		}
	}
	return true
}

func splitLast(ptr string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", "", false
	}
	toks, ok := source.SplitPointer(ptr[i:])
	if !ok || len(toks) != 1 {
		return "", "", false
	}
	return ptr[:i], toks[0], true
}

// ---- text edits (JSON documents) ----

// textIndex answers where values end in a JSON document's text, and which objects repeat
// a key (where text and parsed value disagree).
type textIndex struct {
	src    []byte
	indent string   // one level of indentation, as the document uses it
	spans  [][2]int // start and end offsets of every value, by start (a pre-order walk)
	dups   []dupKey // repeated keys
	dupObj map[string]bool
}

func (f *file) textIdx() *textIndex {
	if f.text == nil {
		src := f.doc.Source()
		t := &textIndex{src: src, indent: detectIndent(src), dupObj: map[string]bool{}}
		t.dups = t.scan()
		for _, d := range t.dups {
			parent, _, _ := splitLast(d.ptr)
			t.dupObj[parent] = true
		}
		f.text = t
	}
	return f.text
}

// detectIndent finds the indentation unit of a JSON text (two spaces when unknown).
func detectIndent(src []byte) string {
	lines := strings.SplitN(string(src[:min(len(src), 4096)]), "\n", 64)
	for _, l := range lines[1:] {
		t := strings.TrimLeft(l, " \t")
		if len(t) < len(l) && t != "" {
			return l[:len(l)-len(t)]
		}
	}
	return "  "
}

// end returns the offset just after the JSON value that starts at i.
func (t *textIndex) end(i int) int {
	j := sort.Search(len(t.spans), func(k int) bool { return t.spans[k][0] >= i })
	if j < len(t.spans) && t.spans[j][0] == i && t.spans[j][1] > 0 {
		return t.spans[j][1]
	}
	return t.skip(i)
}

// skip finds the end of the value at i by reading it.
func (t *textIndex) skip(i int) int {
	s := t.src
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return t.strEnd(i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = t.strEnd(j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\r\n,]}", rune(s[j])) {
		j++
	}
	return j
}

func (t *textIndex) strEnd(i int) int {
	s := t.src
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

// dupKey is a repeated key found in a JSON text.
type dupKey struct {
	ptr string // pointer of the member
	key string
}

// scan walks the whole text once: it records where every value ends and every repeated
// key. Its recursion is bounded by scanMaxDepth; the pointer of a value is made only for a
// repeated key (a deep document's pointers would take space quadratic in its depth).
func (t *textIndex) scan() []dupKey {
	src := t.src
	var out []dupKey
	var toks []string // the reference tokens (escaped) of the value being scanned
	pointer := func() string { return "/" + strings.Join(toks, "/") }
	skipWS := func(i int) int {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
			i++
		}
		return i
	}
	var walk func(i int, depth int) int
	walk = func(i int, depth int) int {
		i = skipWS(i)
		if i >= len(src) || depth > scanMaxDepth {
			return len(src)
		}
		start := i
		slot := len(t.spans)
		t.spans = append(t.spans, [2]int{start, 0})
		switch src[i] {
		case '{':
			// The first key alone needs no set: most schema objects have few keys, and a
			// document of many one-key objects would otherwise make a map for each.
			var first string
			var seen map[string]bool
			n := 0
			i = skipWS(i + 1)
			for i < len(src) && src[i] != '}' {
				if src[i] != '"' {
					return len(src)
				}
				e := t.strEnd(i)
				key := string(src[i+1 : e-1])
				if strings.IndexByte(key, '\\') >= 0 {
					var k string
					if json.Unmarshal(src[i:e], &k) != nil {
						return len(src)
					}
					key = k
				}
				toks = append(toks, source.EscapeToken(key))
				switch {
				case n == 0:
					first = key
				case n == 1 && key == first || seen[key]:
					out = append(out, dupKey{ptr: pointer(), key: key})
				}
				if n == 1 {
					seen = map[string]bool{first: true}
				}
				if seen != nil {
					seen[key] = true
				}
				n++
				i = skipWS(e)
				if i < len(src) && src[i] == ':' {
					i++
				}
				i = skipWS(walk(i, depth+1))
				toks = toks[:len(toks)-1]
				if i < len(src) && src[i] == ',' {
					i = skipWS(i + 1)
				}
			}
			t.spans[slot][1] = min(i+1, len(src))
			return i + 1
		case '[':
			i = skipWS(i + 1)
			for k := 0; i < len(src) && src[i] != ']'; k++ {
				toks = append(toks, strconv.Itoa(k))
				i = skipWS(walk(i, depth+1))
				toks = toks[:len(toks)-1]
				if i < len(src) && src[i] == ',' {
					i = skipWS(i + 1)
				}
			}
			t.spans[slot][1] = min(i+1, len(src))
			return i + 1
		}
		e := t.skip(i)
		t.spans[slot][1] = e
		return e
	}
	start := 0
	if len(src) >= 3 && string(src[:3]) == "\uFEFF" {
		start = 3
	}
	walk(start, 0)
	return out
}

// scanMaxDepth bounds the nesting that textIndex.scan follows (and so its recursion): as
// deep as the parsers accept by default, which a document linted has passed.
const scanMaxDepth = source.DefaultMaxDepth

// edits turns a fix's patch into text edits, when the document is JSON and every object on
// the way is free of repeated keys (where text and value disagree).
func (f *file) edits(fix *Fix) {
	if f.doc.Format != source.JSON {
		return
	}
	t := f.textIdx()
	// Each added member takes the place of a member the fix removes from the same object:
	// the edit rewrites that member.
	partner := map[int]int{} // add index -> remove index
	taken := map[int]bool{}
	for i, op := range fix.Patch {
		if op.Op != "add" {
			continue
		}
		parent, _, ok := splitLast(op.Path)
		if !ok {
			return
		}
		for k, o := range fix.Patch {
			if o.Op == "remove" && !taken[k] {
				if p, _, ok := splitLast(o.Path); ok && p == parent {
					partner[i], taken[k] = k, true
					break
				}
			}
		}
		if _, ok := partner[i]; !ok {
			return
		}
	}
	var out []TextEdit
	for i, op := range fix.Patch {
		if taken[i] {
			continue
		}
		if op.Op != "add" {
			e, ok := f.opEdit(t, op)
			if !ok {
				return
			}
			out = append(out, e)
			continue
		}
		rm := fix.Patch[partner[i]]
		if _, ok := f.opEdit(t, rm); !ok {
			return
		}
		parent, key, _ := splitLast(op.Path)
		_, oldKey, _ := splitLast(rm.Path)
		pv, _ := f.doc.Root.Pointer(parent)
		ks, vs := -1, -1
		for m := 0; m < pv.Len(); m++ {
			k, v := pv.Member(m)
			if k.Str() == oldKey {
				ks, vs = k.Offset(), v.Offset()
			}
		}
		nd, err := source.ParseJSON("", op.Value, nil)
		if ks < 0 || err != nil {
			return
		}
		e := TextEdit{start: ks, end: t.end(vs)}
		e.NewText = string(source.AppendJSON(nil, source.StringValue(key))) + string(t.src[t.strEnd(ks):vs]) + t.render(nd.Root, vs, e.end)
		out = append(out, e)
	}
	for i := range out {
		out[i].Line, out[i].Column = f.doc.Position(out[i].start)
		out[i].EndLine, out[i].EndColumn = f.doc.Position(out[i].end)
	}
	fix.Edits = out
}

func (f *file) opEdit(t *textIndex, op PatchOp) (TextEdit, bool) {
	path := op.Path
	if op.Op == "move" {
		path = op.From
	}
	parentPtr, last, ok := splitLast(path)
	if !ok {
		return TextEdit{}, false
	}
	pv, ok := f.doc.Root.Pointer(parentPtr)
	if !ok {
		return TextEdit{}, false
	}
	// Every object on the way must be free of repeated keys.
	clean := true
	ancestors(parentPtr, func(a string) { clean = clean && !t.dupObj[a] })
	if !clean {
		return TextEdit{}, false
	}
	// Locate the member or item.
	idx := -1
	var starts, ends []int
	switch pv.Kind() {
	case source.Object:
		for i := 0; i < pv.Len(); i++ {
			k, val := pv.Member(i)
			starts = append(starts, k.Offset())
			ends = append(ends, t.end(val.Offset()))
			if k.Str() == last {
				idx = i
			}
		}
	case source.Array:
		for _, it := range pv.Items() {
			starts = append(starts, it.Offset())
			ends = append(ends, t.end(it.Offset()))
		}
		idx, _ = strconv.Atoi(last)
		if idx >= len(starts) {
			idx = -1
		}
	}
	if idx < 0 {
		return TextEdit{}, false
	}
	switch op.Op {
	case "remove":
		switch {
		case idx > 0:
			return TextEdit{start: ends[idx-1], end: ends[idx]}, true
		case len(starts) > 1:
			return TextEdit{start: starts[0], end: starts[1]}, true
		}
		open := pv.Offset()
		return TextEdit{start: open + 1, end: t.end(open) - 1}, true
	case "replace":
		cur, _ := f.doc.Root.Pointer(path)
		start := cur.Offset()
		end := t.end(start)
		var nv source.Value
		doc, err := source.ParseJSON("", op.Value, nil)
		if err != nil {
			return TextEdit{}, false
		}
		nv = doc.Root
		return TextEdit{start: start, end: end, NewText: t.render(nv, start, end)}, true
	case "move":
		if pv.Kind() != source.Object {
			return TextEdit{}, false
		}
		toParent, toKey, ok := splitLast(op.Path)
		if !ok || toParent != parentPtr {
			return TextEdit{}, false
		}
		ks := starts[idx]
		return TextEdit{start: ks, end: t.strEnd(ks), NewText: string(source.AppendJSON(nil, source.StringValue(toKey)))}, true
	}
	return TextEdit{}, false
}

// render prints a value to replace the text [start, end): on one line when the old text was
// on one line or the new value is short, else indented like the surrounding lines.
func (t *textIndex) render(v source.Value, start, end int) string {
	inline := inlineJSON(nil, v)
	oneLine := !strings.ContainsAny(string(t.src[start:end]), "\r\n")
	if oneLine || len(inline) <= 60 || v.Len() == 0 {
		return string(inline)
	}
	ls := strings.LastIndexAny(string(t.src[:start]), "\r\n") + 1
	prefix := string(t.src[ls:start])
	prefix = prefix[:len(prefix)-len(strings.TrimLeft(prefix, " \t"))]
	return string(source.AppendJSONIndent(nil, v, prefix, t.indent))
}

// inlineJSON prints a value on one line with a space after each comma and colon.
func inlineJSON(buf []byte, v source.Value) []byte {
	switch v.Kind() {
	case source.Array:
		buf = append(buf, '[')
		for i, it := range v.Items() {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = inlineJSON(buf, it)
		}
		return append(buf, ']')
	case source.Object:
		buf = append(buf, '{')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			k, val := v.Member(i)
			buf = source.AppendJSON(buf, k)
			buf = append(buf, ": "...)
			buf = inlineJSON(buf, val)
		}
		return append(buf, '}')
	}
	return source.AppendJSON(buf, v)
}

// chooseEdits picks, in order, the fixes whose edits do not overlap those picked before,
// and counts the picked fixes by rule.
func chooseEdits(fs []Finding) ([]TextEdit, map[string]int) {
	var picked []TextEdit
	byRule := map[string]int{}
	overlaps := func(e TextEdit) bool {
		for _, p := range picked {
			if e.start < p.end && p.start < e.end || e.start == p.start {
				return true
			}
		}
		return false
	}
	for _, fd := range fs {
		if fd.Fix == nil || len(fd.Fix.Edits) == 0 {
			continue
		}
		ok := true
		for i, e := range fd.Fix.Edits {
			if overlaps(e) {
				ok = false
			}
			for _, o := range fd.Fix.Edits[:i] {
				if e.start < o.end && o.start < e.end {
					ok = false
				}
			}
		}
		if ok {
			picked = append(picked, fd.Fix.Edits...)
			byRule[fd.Rule]++
		}
	}
	return picked, byRule
}

// applyEdits applies non-overlapping edits to a text.
func applyEdits(src []byte, edits []TextEdit) []byte {
	es := append([]TextEdit(nil), edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].start < es[j].start })
	var out []byte
	prev := 0
	for _, e := range es {
		out = append(out, src[prev:e.start]...)
		out = append(out, e.NewText...)
		prev = e.end
	}
	return append(out, src[prev:]...)
}
