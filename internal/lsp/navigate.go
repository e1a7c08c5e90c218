package lsp

import (
	"bytes"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// A spot is where the cursor is in a parsed document: the path of tokens to the value (or
// member name) under it, and that value.
type spot struct {
	doc    int          // which document of the stream
	tokens []string     // the path from the root
	value  source.Value // the value at tokens (the member's value when onKey)
	parent source.Value // the object or array holding it (invalid at the root)
	onKey  bool         // the cursor is on the member name
	start  int          // byte range of the token under the cursor, in the text
	end    int
	found  bool // false: the cursor is outside every value
}

// locate finds the innermost value or member name at byte offset off. It walks down one
// level per step, never recursing, and bounds each value by where its next sibling starts
// (a container's end is never scanned for: on a document of a megabyte, that would be
// a megabyte per step).
func locate(p *parsed, off int) spot {
	if len(p.docs) == 0 {
		return spot{}
	}
	i := p.docAt(off)
	doc, base := p.docs[i], p.bases[i]
	src := doc.Source()
	yaml := p.format == source.YAML
	rel := off - base
	v := doc.Root
	end := lastSig(src, len(src), yaml) + 1
	if v.Kind() != source.Object && v.Kind() != source.Array {
		end = tokenEnd(src, v.Offset())
	}
	sp := spot{doc: i, value: v, start: base + v.Offset(), end: base + end}
	if rel < v.Offset() || rel > end {
		return sp
	}
	sp.found = true
	for {
		inner := end // children end before this
		if o := v.Offset(); o < len(src) && (src[o] == '{' || src[o] == '[') {
			inner = end - 1
		}
		var child source.Value
		var tok string
		childEnd := -1
		switch v.Kind() {
		case source.Object:
			n := v.Len()
			for j := 0; j < n; j++ {
				k, val := v.Member(j)
				if rel < k.Offset() {
					break
				}
				ke := tokenEnd(src, k.Offset())
				if rel <= ke {
					sp.tokens = append(sp.tokens, k.Str())
					sp.parent, sp.value, sp.onKey = v, val, true
					sp.start, sp.end = base+k.Offset(), base+ke
					return sp
				}
				bound := inner
				if j+1 < n {
					nk, _ := v.Member(j + 1)
					bound = nk.Offset()
				}
				if e := extent(src, val, bound, yaml); rel >= val.Offset() && rel <= e {
					child, tok, childEnd = val, k.Str(), e
					break
				}
			}
		case source.Array:
			items := v.Items()
			j := sort.Search(len(items), func(j int) bool { return items[j].Offset() > rel }) - 1
			if j >= 0 {
				bound := inner
				if j+1 < len(items) {
					bound = items[j+1].Offset()
				}
				if e := extent(src, items[j], bound, yaml); rel <= e {
					child, tok, childEnd = items[j], strconv.Itoa(j), e
				}
			}
		}
		if childEnd < 0 {
			sp.value, sp.start, sp.end = v, base+v.Offset(), base+end
			return sp
		}
		sp.tokens = append(sp.tokens, tok)
		sp.parent, v, end = v, child, childEnd
	}
}

// extent is the end of v, which ends before bound: a scalar's token end, a container's
// last significant byte before bound.
func extent(src []byte, v source.Value, bound int, yaml bool) int {
	if v.Kind() != source.Object && v.Kind() != source.Array {
		return tokenEnd(src, v.Offset())
	}
	return max(lastSig(src, bound, yaml)+1, v.Offset())
}

// lastSig is the index of the last byte before bound that is not a blank, a comma or, in
// YAML, the dash of a block sequence's next item or a comment.
func lastSig(src []byte, bound int, yaml bool) int {
	i := min(bound, len(src)) - 1
	for i >= 0 {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',':
			i--
		case yaml && c == '-' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\n' || src[i-1] == '\t'):
			i--
		default:
			if yaml {
				// A comment at the end of a line: skip back to before the '#'.
				ls := i
				for ls > 0 && src[ls-1] != '\n' {
					ls--
				}
				if h := bytes.Index(src[ls:i+1], []byte(" #")); h >= 0 {
					i = ls + h
					continue
				}
				if src[ls] == '#' {
					i = ls - 1
					continue
				}
			}
			return i
		}
	}
	return i
}

// A node is a subschema: the file it is in, its pointer there and its value.
type node struct {
	file string
	doc  *source.Document
	ptr  string
	v    source.Value
}

// schemas reads schema files through the server's FS, each once per request.
type schemas struct {
	fs    workspace.FS
	limit int64
	docs  map[string]*source.Document
}

func (s *Server) schemaReader() *schemas {
	return &schemas{fs: s.overlay, limit: s.opts.MaxDocumentSize, docs: map[string]*source.Document{}}
}

func (r *schemas) load(name string) *source.Document {
	if d, ok := r.docs[name]; ok {
		return d
	}
	var doc *source.Document
	if data, err := workspace.ReadFile(r.fs, name, r.limit); err == nil {
		if docs, err := source.ParseFile(name, data, nil); err == nil && len(docs) > 0 {
			doc = docs[0]
		}
	}
	r.docs[name] = doc
	return doc
}

// root is the root node of a schema file.
func (r *schemas) root(name string) (node, bool) {
	d := r.load(name)
	if d == nil {
		return node{}, false
	}
	return node{file: name, doc: d, v: d.Root}, true
}

// resolve follows a reference written in n's file: "other.json#/pointer", "#anchor", ...
// Only files of the workspace are followed (not URIs, which the engines resolve).
func (r *schemas) resolve(from node, ref string) (node, bool) {
	file, frag, _ := strings.Cut(ref, "#")
	target := from.file
	if file != "" {
		if strings.Contains(file, "://") || strings.HasPrefix(file, "urn:") {
			return node{}, false
		}
		target = path.Join(path.Dir(from.file), file)
	}
	n, ok := r.root(target)
	if !ok {
		return node{}, false
	}
	if frag == "" {
		return n, true
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if strings.HasPrefix(frag, "/") {
		v, ok := n.doc.Root.Pointer(frag)
		return node{file: target, doc: n.doc, ptr: frag, v: v}, ok
	}
	// An anchor: the subschema whose $anchor (or $dynamicAnchor) is frag.
	var found node
	walkValues(n.doc.Root, func(ptr string, v source.Value) bool {
		if v.Kind() != source.Object {
			return true
		}
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := v.Get(kw); ok && a.Kind() == source.String && a.Str() == frag {
				found = node{file: target, doc: n.doc, ptr: ptr, v: v}
				return false
			}
		}
		return true
	})
	return found, found.doc != nil
}

// walkValues visits every value of v with its pointer, depth first, with a stack of its own
// (no recursion on the input), until visit returns false.
func walkValues(v source.Value, visit func(ptr string, v source.Value) bool) {
	type item struct {
		ptr string
		v   source.Value
	}
	stack := []item{{"", v}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !visit(it.ptr, it.v) {
			return
		}
		switch it.v.Kind() {
		case source.Object:
			for j := it.v.Len() - 1; j >= 0; j-- {
				k, c := it.v.Member(j)
				stack = append(stack, item{it.ptr + "/" + escapeToken(k.Str()), c})
			}
		case source.Array:
			items := it.v.Items()
			for j := len(items) - 1; j >= 0; j-- {
				stack = append(stack, item{it.ptr + "/" + strconv.Itoa(j), items[j]})
			}
		}
	}
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// maxNodes bounds the subschemas gathered for one place (a $ref cycle, a huge allOf).
const maxNodes = 64

// expand gathers the subschemas that apply along with n: n itself, what its $ref names,
// and its allOf, anyOf, oneOf, then and else branches, transitively, each once.
func (r *schemas) expand(start []node) []node {
	var out []node
	seen := map[string]bool{}
	queue := append([]node(nil), start...)
	for len(queue) > 0 && len(out) < maxNodes {
		n := queue[0]
		queue = queue[1:]
		key := n.file + "#" + n.ptr
		if seen[key] || n.v.Kind() != source.Object {
			continue
		}
		seen[key] = true
		out = append(out, n)
		if ref, ok := n.v.Get("$ref"); ok && ref.Kind() == source.String {
			if t, ok := r.resolve(n, ref.Str()); ok {
				queue = append(queue, t)
			}
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if arr, ok := n.v.Get(kw); ok && arr.Kind() == source.Array {
				for j, it := range arr.Items() {
					queue = append(queue, node{file: n.file, doc: n.doc, ptr: n.ptr + "/" + kw + "/" + strconv.Itoa(j), v: it})
				}
			}
		}
		for _, kw := range []string{"then", "else"} {
			if c, ok := n.v.Get(kw); ok {
				queue = append(queue, node{file: n.file, doc: n.doc, ptr: n.ptr + "/" + kw, v: c})
			}
		}
	}
	return out
}

// child is the subschema one of n's keywords applies to the member or item tok, if any.
func child(n node, kw string, v source.Value, ptr string) node {
	return node{file: n.file, doc: n.doc, ptr: n.ptr + "/" + kw + ptr, v: v}
}

// step gathers the subschemas that apply to the member or item tok of an instance the
// nodes apply to.
func (r *schemas) step(nodes []node, tok string) []node {
	var out []node
	for _, n := range r.expand(nodes) {
		v := n.v
		matched := false
		if props, ok := v.Get("properties"); ok && props.Kind() == source.Object {
			if c, ok := props.Get(tok); ok {
				out = append(out, child(n, "properties", c, "/"+escapeToken(tok)))
				matched = true
			}
		}
		if pp, ok := v.Get("patternProperties"); ok && pp.Kind() == source.Object {
			for j := 0; j < pp.Len(); j++ {
				k, c := pp.Member(j)
				if re, err := regexp.Compile(k.Str()); err == nil && re.MatchString(tok) {
					out = append(out, child(n, "patternProperties", c, "/"+escapeToken(k.Str())))
					matched = true
				}
			}
		}
		if idx, err := strconv.Atoi(tok); err == nil && idx >= 0 {
			if pi, ok := v.Get("prefixItems"); ok && pi.Kind() == source.Array && idx < pi.Len() {
				out = append(out, child(n, "prefixItems", pi.Index(idx), "/"+tok))
				matched = true
			} else if it, ok := v.Get("items"); ok {
				switch {
				case it.Kind() == source.Array && idx < it.Len():
					out = append(out, child(n, "items", it.Index(idx), "/"+tok))
					matched = true
				case it.Kind() == source.Object:
					out = append(out, child(n, "items", it, ""))
					matched = true
				}
			}
		}
		if !matched {
			if ap, ok := v.Get("additionalProperties"); ok && ap.Kind() == source.Object {
				out = append(out, child(n, "additionalProperties", ap, ""))
			}
		}
	}
	return out
}

// schemaFor gathers the subschemas that apply at the instance path tokens.
func (r *schemas) schemaFor(schemaName string, tokens []string) []node {
	root, ok := r.root(schemaName)
	if !ok {
		return nil
	}
	nodes := []node{root}
	for _, t := range tokens {
		nodes = r.step(nodes, t)
		if len(nodes) == 0 {
			return nil
		}
	}
	return r.expand(nodes)
}

// draftOf is the draft a schema document declares, 2020-12 when it says none.
func draftOf(doc *source.Document) *schema.Draft {
	if doc != nil && doc.Root.Kind() == source.Object {
		if v, ok := doc.Root.Get("$schema"); ok && v.Kind() == source.String {
			if d, ok := schema.DraftByName(v.Str()); ok {
				return d
			}
		}
	}
	return schema.Draft2020
}

// schemaPlace says, for a path in a schema document, whether the value there is a schema
// (so that its members are keywords), following the shapes of the keyword model.
func schemaPlace(d *schema.Draft, tokens []string) bool {
	const (
		isSchema = iota
		isMap    // a map of name -> schema
		isArray  // an array of schemas
		isEither // a schema or an array of schemas
		isOther
	)
	state := isSchema
	for _, t := range tokens {
		switch state {
		case isSchema:
			switch d.SubschemaShape(t) {
			case schema.OneSchema:
				state = isSchema
			case schema.SchemaArray:
				state = isArray
			case schema.SchemaMap, schema.DepsMap:
				state = isMap
			case schema.SchemaOrArray:
				state = isEither
			default:
				state = isOther
			}
		case isMap, isArray:
			state = isSchema
		case isEither:
			if _, err := strconv.Atoi(t); err == nil {
				state = isSchema
			} else {
				state = isOther
			}
		default:
			return false
		}
	}
	return state == isSchema || state == isEither
}
