package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// view is what a request needs of an open document: its parse and its association.
type view struct {
	d     *document
	p     *parsed
	assoc Association
	snap  snapshot
}

// viewOf parses the document (once per version: the parse is kept) and associates it.
func (s *Server) viewOf(uri string) (*view, *rpcError) {
	s.mu.Lock()
	d := s.docs[uri]
	if d == nil {
		s.mu.Unlock()
		return nil, errorf(CodeInvalidParams, "%s is not open: send textDocument/didOpen first", uri)
	}
	t, snap, cached := d.text, s.snapshot(), d.parsed
	s.mu.Unlock()
	p := cached
	if p == nil || p.t != t {
		p = parse(d, t, snap.env.Limits)
		s.mu.Lock()
		if d.text == t {
			d.parsed = p
		}
		s.mu.Unlock()
	}
	v := &view{d: d, p: p, snap: snap}
	var first *source.Document
	if p.err == nil && len(p.docs) > 0 {
		first = p.docs[0]
	}
	v.assoc = snap.assoc.Associate(d.name, t.b, first)
	return v, nil
}

// at reads the position params and finds the spot under the cursor; ok is false for a
// position out of the document or a document that does not parse.
func (s *Server) at(params json.RawMessage) (*view, spot, bool, *rpcError) {
	var p positionParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, spot{}, false, errorf(CodeInvalidParams, "%v", err)
	}
	v, rerr := s.viewOf(p.TextDocument.URI)
	if rerr != nil {
		return nil, spot{}, false, rerr
	}
	off, ok := v.p.t.offset(p.Position)
	if !ok || v.p.err != nil {
		return v, spot{}, false, nil
	}
	sp := locate(v.p, off)
	return v, sp, sp.found, nil
}

// hover describes, in an instance, the schema at the cursor (title, description, type,
// constraints, default); in a schema, the keyword under the cursor (its kind, what it acts
// on, the drafts that define it).
func (s *Server) hover(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	v, sp, ok, rerr := s.at(params)
	if rerr != nil || !ok {
		return nil, rerr
	}
	r := Range{Start: v.p.t.position(sp.start), End: v.p.t.position(sp.end)}
	if v.assoc.IsSchema {
		if !sp.onKey {
			return nil, nil
		}
		doc := v.p.docs[sp.doc]
		d := draftOf(doc)
		if !schemaPlace(d, sp.tokens[:len(sp.tokens)-1]) {
			return nil, nil
		}
		text := keywordDoc(d, sp.tokens[len(sp.tokens)-1])
		if text == "" {
			return nil, nil
		}
		return hover{Contents: markupContent{Kind: "markdown", Value: text}, Range: &r}, nil
	}
	if v.assoc.Schema == "" {
		return nil, nil
	}
	nodes := s.schemaReader().schemaFor(v.assoc.Schema, sp.tokens)
	if ctx.Err() != nil || len(nodes) == 0 {
		return nil, nil
	}
	text := describe(nodes)
	if text == "" {
		return nil, nil
	}
	return hover{Contents: markupContent{Kind: "markdown", Value: text}, Range: &r}, nil
}

// describe writes what the subschemas say about a value, in markdown: title,
// description, the constraints, where the schema is.
func describe(nodes []node) string {
	var parts []string
	str := func(kw string) string {
		for _, n := range nodes {
			if x, ok := n.v.Get(kw); ok && x.Kind() == source.String {
				return x.Str()
			}
		}
		return ""
	}
	if t := str("title"); t != "" {
		parts = append(parts, "**"+t+"**")
	}
	if d := str("description"); d != "" {
		parts = append(parts, d)
	}
	var lines []string
	seen := map[string]bool{}
	for _, n := range nodes {
		for _, kw := range []string{"type", "enum", "const", "format", "pattern", "minimum", "maximum",
			"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems",
			"maxItems", "uniqueItems", "minProperties", "maxProperties", "required", "default", "deprecated", "readOnly", "writeOnly"} {
			x, ok := n.v.Get(kw)
			if !ok {
				continue
			}
			line := fmt.Sprintf("- `%s`: `%s`", kw, compact(n.doc, x))
			if !seen[line] {
				seen[line] = true
				lines = append(lines, line)
			}
		}
	}
	if len(lines) > 0 {
		parts = append(parts, strings.Join(lines, "\n"))
	}
	if len(parts) == 0 {
		return ""
	}
	n := nodes[0]
	parts = append(parts, fmt.Sprintf("Schema: `%s#%s`", path.Base(n.file), n.ptr))
	return strings.Join(parts, "\n\n")
}

// compact is a value's text, shortened for a hover line.
func compact(doc *source.Document, v source.Value) string {
	src := doc.Source()
	s := string(src[v.Offset():min(valueEnd(src, v), len(src))])
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// keywordDoc describes a keyword of the draft d, from the keyword model.
func keywordDoc(d *schema.Draft, name string) string {
	k, ok := d.Keyword(name)
	if !ok {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s)", name, k.Kind)
	if m := keywordMeaning()[name]; m != "" {
		b.WriteString(": " + m)
	}
	b.WriteString("\n\n")
	if k.Types != schema.TypeAll && k.Kind != schema.Core && k.Kind != schema.Identifier {
		fmt.Fprintf(&b, "Acts on: %s instances.\n\n", k.Types)
	}
	var names []string
	for _, x := range k.Drafts.Drafts() {
		names = append(names, x.Name)
	}
	fmt.Fprintf(&b, "Drafts: %s (this document: %s).", strings.Join(names, ", "), d.Name)
	switch k.Support {
	case schema.Conventional:
		b.WriteString(" Not a keyword of this draft, but the customary place of reusable schemas.")
	case schema.Compatible:
		b.WriteString(" A keyword of earlier drafts that jstk still applies; lint reports it.")
	case schema.PointerOnly:
		b.WriteString(" A later draft's keyword: here only reachable by JSON Pointer.")
	case schema.Lenient:
		b.WriteString(" A later draft's keyword, which jstk applies as other validators do.")
	}
	if k.Vocab != "" {
		fmt.Fprintf(&b, " Vocabulary: %s.", k.Vocab)
	}
	return b.String()
}

// keywordMeaning is one line on what a keyword means, for hover.
var keywordMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"$schema": "the dialect (meta-schema) this schema is written in", "$id": "the schema's base URI",
		"id": "the schema's base URI", "$ref": "applies the schema this URI reference names",
		"$defs": "reusable schemas, for $ref", "definitions": "reusable schemas, for $ref",
		"$anchor": "names this subschema within its resource", "$dynamicRef": "a reference resolved through the dynamic scope",
		"$dynamicAnchor": "an anchor $dynamicRef may reach", "$comment": "a comment for readers of the schema",
		"type": "the instance's JSON type must be this one (or one of these)", "enum": "the instance must equal one of these values",
		"const": "the instance must equal this value", "format": "a semantic format (date-time, email, uri, ...)",
		"minimum": "a number must be at least this", "maximum": "a number must be at most this",
		"exclusiveMinimum": "a number must be greater than this", "exclusiveMaximum": "a number must be less than this",
		"multipleOf": "a number must be a multiple of this", "minLength": "a string must have at least this many characters",
		"maxLength": "a string must have at most this many characters", "pattern": "a string must match this regular expression (ECMA-262)",
		"items": "the schema of the array's items", "prefixItems": "the schemas of the array's first items, in order",
		"additionalItems": "the schema of the items after those items lists", "contains": "some item must be valid against this schema",
		"minItems": "an array must have at least this many items", "maxItems": "an array must have at most this many items",
		"uniqueItems": "the array's items must all differ", "properties": "the schemas of the object's named members",
		"patternProperties": "the schemas of the members whose names match a pattern", "additionalProperties": "the schema of the members neither properties nor patternProperties name",
		"required": "these members must be present", "propertyNames": "every member name must be valid against this schema",
		"minProperties": "an object must have at least this many members", "maxProperties": "an object must have at most this many members",
		"dependentRequired": "if a member is present, these must be too", "dependentSchemas": "if a member is present, the object must be valid against this schema",
		"dependencies": "if a member is present, these members must be too, or the object valid against this schema",
		"allOf":        "valid against every one of these schemas", "anyOf": "valid against at least one of these schemas",
		"oneOf": "valid against exactly one of these schemas", "not": "must not be valid against this schema",
		"if": "chooses then or else by whether the instance is valid against it", "then": "applies when if holds", "else": "applies when if fails",
		"unevaluatedProperties": "the schema of the members no other keyword evaluated", "unevaluatedItems": "the schema of the items no other keyword evaluated",
		"title": "a short name of the value", "description": "what the value is", "default": "the value to assume when absent",
		"examples": "example values", "deprecated": "the value should not be used any more", "readOnly": "the value is managed by its owner",
		"writeOnly": "the value is never returned", "contentEncoding": "how a string encodes binary data", "contentMediaType": "the media type of a string's content",
	}
})

// definition goes from a $ref (or an instance's $schema) to what it names, across files;
// from an instance member to the subschema that governs it.
func (s *Server) definition(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	v, sp, ok, rerr := s.at(params)
	if rerr != nil || !ok {
		return nil, rerr
	}
	r := s.schemaReader()
	here := node{file: v.d.name, doc: v.p.docs[sp.doc]}
	if !sp.onKey && sp.value.Kind() == source.String && len(sp.tokens) > 0 {
		switch kw := sp.tokens[len(sp.tokens)-1]; {
		case kw == "$ref" || kw == "$dynamicRef" || kw == "$recursiveRef":
			if t, ok := r.resolve(here, sp.value.Str()); ok {
				return []Location{s.locationOf(t)}, nil
			}
			return nil, nil
		case kw == "$schema" && len(sp.tokens) == 1 && v.assoc.Schema != "":
			if t, ok := r.root(v.assoc.Schema); ok {
				return []Location{s.locationOf(t)}, nil
			}
			return nil, nil
		}
	}
	if v.assoc.IsSchema || v.assoc.Schema == "" || len(sp.tokens) == 0 {
		return nil, nil
	}
	// The subschema the member's own keyword names (the first gathered); the rest are what
	// it refers to.
	nodes := r.schemaFor(v.assoc.Schema, sp.tokens)
	if len(nodes) == 0 || ctx.Err() != nil {
		return nil, nil
	}
	return []Location{s.locationOf(nodes[0])}, nil
}

// locationOf is where a node is written.
func (s *Server) locationOf(n node) Location {
	t := newText(string(n.doc.Source()))
	return Location{URI: s.uriOf(n.file), Range: Range{Start: t.position(n.v.Offset()), End: t.position(valueEnd(n.doc.Source(), n.v))}}
}

// documentLinks links every $ref to another file, and an instance's $schema, to the file.
func (s *Server) documentLinks(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	v, rerr := s.viewOf(p.TextDocument.URI)
	if rerr != nil {
		return nil, rerr
	}
	out := []documentLink{}
	if v.p.err != nil {
		return out, nil
	}
	t := v.p.t
	link := func(base int, doc *source.Document, val source.Value, target string) {
		start, end := base+val.Offset(), base+valueEnd(doc.Source(), val)
		out = append(out, documentLink{Range: Range{Start: t.position(start), End: t.position(end)}, Target: target})
	}
	for i, doc := range v.p.docs {
		base := v.p.bases[i]
		walkValues(doc.Root, func(ptr string, val source.Value) bool {
			if ctx.Err() != nil {
				return false
			}
			if val.Kind() != source.Object {
				return true
			}
			for _, kw := range []string{"$ref", "$schema"} {
				x, ok := val.Get(kw)
				if !ok || x.Kind() != source.String || (kw == "$schema" && ptr != "") {
					continue
				}
				ref := x.Str()
				file, _, _ := strings.Cut(ref, "#")
				switch {
				case file == "":
				case strings.Contains(file, "://"):
					link(base, doc, x, ref)
				default:
					link(base, doc, x, s.uriOf(path.Join(path.Dir(v.d.name), file)))
				}
			}
			return true
		})
	}
	return out, nil
}

// completion proposes, in an instance, the member names the schema knows (required first,
// each with a snippet by its type) and the values it allows (enum, const, true, false,
// null); in a schema, the keywords of its draft and the targets of $ref.
func (s *Server) completion(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var pp positionParams
	if err := json.Unmarshal(params, &pp); err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	v, rerr := s.viewOf(pp.TextDocument.URI)
	if rerr != nil {
		return nil, rerr
	}
	off, ok := v.p.t.offset(pp.Position)
	if !ok {
		return completionList{Items: []completionItem{}}, nil
	}
	p := v.p
	if p.err != nil {
		// Typing leaves the document broken: complete on the text with the token being
		// typed closed, if that parses.
		p = repaired(v.d, p.t, off, v.snap.env.Limits)
		if p == nil {
			return completionList{Items: []completionItem{}}, nil
		}
		v.assoc = v.snap.assoc.Associate(v.d.name, p.t.b, p.docs[0])
	}
	sp := locate(p, off)
	if !sp.found && len(p.docs) > 0 && p.format != source.JSON && p.format != source.JSONC {
		// Past the last member of a YAML or TOML document: a new member of its root.
		if root := p.docs[p.docAt(off)].Root; root.Kind() == source.Object || root.Kind() == source.Null {
			sp = spot{doc: p.docAt(off), value: root, found: true, start: off, end: off}
		}
	}
	if !sp.found {
		return completionList{Items: []completionItem{}}, nil
	}
	obj := sp.value
	if sp.onKey {
		obj = sp.parent
	}
	inKey := sp.onKey || (sp.value.Kind() == source.Object && off > sp.start && off < sp.end) || sp.start == off && sp.end == off
	path := sp.tokens
	if sp.onKey {
		path = path[:len(path)-1]
	}
	var items []completionItem
	if v.assoc.IsSchema {
		d := draftOf(p.docs[sp.doc])
		switch {
		case inKey && schemaPlace(d, path):
			items = keywordItems(d, p.docs[sp.doc].Format)
		case !inKey && len(sp.tokens) > 0 && sp.tokens[len(sp.tokens)-1] == "$ref":
			items = refItems(p.docs[sp.doc])
		}
	} else if v.assoc.Schema != "" {
		r := s.schemaReader()
		if inKey {
			items = propertyItems(r.schemaFor(v.assoc.Schema, path), obj, p.docs[sp.doc].Format)
			if sp.onKey && sp.start < off {
				// The name being typed is replaced, its quotes too.
				end := off
				if end < len(v.p.t.s) && v.p.t.s[end] == '"' && v.p.t.s[sp.start] == '"' {
					end++
				}
				r := Range{Start: v.p.t.position(sp.start), End: v.p.t.position(end)}
				for i := range items {
					items[i].TextEdit = &textEdit{Range: r, NewText: items[i].InsertText}
					items[i].FilterText = v.p.t.s[sp.start:sp.start+1] + items[i].Label
					if v.p.t.s[sp.start] != '"' {
						items[i].FilterText = items[i].Label
					}
				}
			}
		} else {
			items = valueItems(r.schemaFor(v.assoc.Schema, sp.tokens), p.docs[sp.doc].Format)
		}
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	if items == nil {
		items = []completionItem{}
	}
	return completionList{Items: items}, nil
}

// repaired parses the text with what is being typed at off closed in a few usual ways.
func repaired(d *document, t *text, off int, lim *source.Limits) *parsed {
	for _, fill := range []string{`""`, `"": null`, `": null`, `null`, `: null`, `"`, `": null}`, `""}`, `": null,`} {
		nt := newText(t.s[:off] + fill + t.s[off:])
		if p := parse(d, nt, lim); p.err == nil {
			return p
		}
	}
	return nil
}

// propertyItems are the member names the subschemas know that the object does not have.
func propertyItems(nodes []node, obj source.Value, f source.Format) []completionItem {
	required := map[string]bool{}
	for _, n := range nodes {
		if req, ok := n.v.Get("required"); ok && req.Kind() == source.Array {
			for _, x := range req.Items() {
				required[x.Str()] = true
			}
		}
	}
	var items []completionItem
	seen := map[string]bool{}
	for _, n := range nodes {
		props, ok := n.v.Get("properties")
		if !ok || props.Kind() != source.Object {
			continue
		}
		for j := 0; j < props.Len(); j++ {
			k, sub := props.Member(j)
			name := k.Str()
			if seen[name] || (obj.Kind() == source.Object && obj.Has(name)) {
				continue
			}
			seen[name] = true
			it := completionItem{Label: name, Kind: kindProperty, InsertTextFormat: formatSnip,
				InsertText: memberSnippet(name, sub, f), SortText: "1" + name}
			if required[name] {
				it.SortText, it.Detail = "0"+name, "required"
			}
			if d, ok := sub.Get("description"); ok && d.Kind() == source.String {
				it.Documentation = &markupContent{Kind: "markdown", Value: d.Str()}
			}
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].SortText < items[j].SortText })
	return items
}

// memberSnippet is a member with a placeholder for its value by the type its schema says.
func memberSnippet(name string, sub source.Value, f source.Format) string {
	typ := ""
	if t, ok := sub.Get("type"); ok && t.Kind() == source.String {
		typ = t.Str()
	}
	switch f {
	case source.YAML:
		switch typ {
		case "object":
			return name + ":\n  $0"
		case "array":
			return name + ":\n  - $0"
		}
		return name + ": $0"
	case source.TOML:
		switch typ {
		case "string":
			return name + ` = "$0"`
		case "array":
			return name + " = [$0]"
		}
		return name + " = $0"
	}
	q, _ := json.Marshal(name)
	switch typ {
	case "string":
		return string(q) + `: "$0"`
	case "object":
		return string(q) + ": {$0}"
	case "array":
		return string(q) + ": [$0]"
	case "boolean":
		return string(q) + ": ${1|true,false|}"
	}
	return string(q) + ": $0"
}

// valueItems are the values the subschemas allow: enum and const values, booleans and null.
func valueItems(nodes []node, f source.Format) []completionItem {
	var items []completionItem
	seen := map[string]bool{}
	add := func(label string) {
		if !seen[label] {
			seen[label] = true
			items = append(items, completionItem{Label: label, Kind: kindValue, InsertText: label, InsertTextFormat: formatPlain})
		}
	}
	for _, n := range nodes {
		if e, ok := n.v.Get("enum"); ok && e.Kind() == source.Array {
			for _, x := range e.Items() {
				add(compact(n.doc, x))
			}
		}
		if c, ok := n.v.Get("const"); ok {
			add(compact(n.doc, c))
		}
		if t, ok := n.v.Get("type"); ok {
			var types []string
			if t.Kind() == source.String {
				types = []string{t.Str()}
			} else if t.Kind() == source.Array {
				for _, x := range t.Items() {
					types = append(types, x.Str())
				}
			}
			for _, ty := range types {
				switch ty {
				case "boolean":
					add("true")
					add("false")
				case "null":
					add("null")
				}
			}
		}
	}
	return items
}

// keywordItems are the keywords of the draft d.
func keywordItems(d *schema.Draft, f source.Format) []completionItem {
	var items []completionItem
	seen := map[string]bool{}
	for _, k := range schema.Keywords() {
		if !k.Drafts.Has(d) || seen[k.Name] || k.Support == schema.OpenAPI || k.Support == schema.PointerOnly {
			continue
		}
		seen[k.Name] = true
		it := completionItem{Label: k.Name, Kind: kindKeyword, Detail: k.Kind.String(), InsertText: k.Name, InsertTextFormat: formatPlain}
		if m := keywordMeaning()[k.Name]; m != "" {
			it.Documentation = &markupContent{Kind: "markdown", Value: m}
		}
		if f == source.JSON || f == source.JSONC {
			it.InsertText = `"` + k.Name + `": $0`
			it.InsertTextFormat = formatSnip
		}
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	return items
}

// refItems are the local targets a $ref may name: every subschema under a definitions
// keyword of the document.
func refItems(doc *source.Document) []completionItem {
	var items []completionItem
	for _, kw := range schema.DefinitionsKeywords() {
		defs, ok := doc.Root.Get(kw)
		if !ok || defs.Kind() != source.Object {
			continue
		}
		for j := 0; j < defs.Len(); j++ {
			k, _ := defs.Member(j)
			target := "#/" + kw + "/" + escapeToken(k.Str())
			items = append(items, completionItem{Label: target, Kind: kindRef, InsertText: target, InsertTextFormat: formatPlain})
		}
	}
	return items
}
