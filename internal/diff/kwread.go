package diff

import (
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// This file reads a schema object's keywords into its body (readNode): one handler per
// keyword, or per group of keywords read together, in a table held to schema's keyword
// model by TestNodeReadersCoverModel.

// nodeReader is one entry of nodeReaders: the keywords it reads, how it files a subschema
// of one of them among the body's pieces (piece, nil for keywords without subschemas) and
// how it adds their facts (facts, nil for those that make none: allOf is applied by the
// conjunction's closure).
type nodeReader struct {
	keywords []string
	piece    func(r *nodeRead, c schema.Child)
	facts    func(r *nodeRead)
}

// nodeReaders is the table, in the order in which the facts of a body are added (the
// order the engine proves and reports them in): keep it. A keyword may have several
// entries when its facts come at several places (dependencies: the array form with
// dependentRequired, the schema form with dependentSchemas).
var nodeReaders = []nodeReader{
	{keywords: []string{"type"}, facts: readType},
	{keywords: []string{"enum"}, facts: readEnum},
	{keywords: []string{"const"}, facts: readConst},

	{keywords: []string{"multipleOf"}, facts: readMultipleOf},
	{keywords: []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}, facts: readBounds},

	{keywords: []string{"minLength"}, facts: readCount("minLength", fMinLength)},
	{keywords: []string{"maxLength"}, facts: readCount("maxLength", fMaxLength)},
	{keywords: []string{"pattern"}, facts: readPattern},
	{keywords: []string{"format"}, facts: readFormat},
	{keywords: []string{"contentEncoding", "contentMediaType"}, facts: readContent},
	{keywords: []string{"dependencies", "dependentSchemas"}, facts: readRepeatedTriggers},

	{keywords: []string{"minItems"}, facts: readCount("minItems", fMinItems)},
	{keywords: []string{"maxItems"}, facts: readCount("maxItems", fMaxItems)},
	{keywords: []string{"uniqueItems"}, facts: readUnique},
	{keywords: []string{"prefixItems", "items", "additionalItems"}, piece: pieceItems, facts: readItems},
	{keywords: []string{"contains", "minContains", "maxContains"}, piece: pieceContains, facts: readContains},
	{keywords: []string{"unevaluatedItems"}, piece: pieceUnevalItems, facts: readUnevalItems},

	{keywords: []string{"minProperties"}, facts: readCount("minProperties", fMinProps)},
	{keywords: []string{"maxProperties"}, facts: readCount("maxProperties", fMaxProps)},
	{keywords: []string{"required"}, facts: readRequired},
	{keywords: []string{"properties"}, piece: pieceProperties, facts: readProperties},
	{keywords: []string{"patternProperties"}, piece: piecePatternProperties, facts: readPatternProperties},
	{keywords: []string{"additionalProperties"}, piece: pieceAdditional, facts: readAdditional},
	{keywords: []string{"propertyNames"}, piece: piecePropertyNames, facts: readPropertyNames},
	{keywords: []string{"dependencies"}, facts: func(r *nodeRead) { r.depRequired("dependencies") }},
	{keywords: []string{"dependentRequired"}, facts: readDependentRequired},
	{keywords: []string{"dependencies", "dependentSchemas"}, piece: pieceDepSchema, facts: readDepSchemas},
	{keywords: []string{"unevaluatedProperties"}, piece: pieceUnevalProps, facts: readUnevalProps},

	{keywords: []string{"allOf"}, piece: func(r *nodeRead, c schema.Child) { r.n.allOf = append(r.n.allOf, c.Schema) }},
	{keywords: []string{"anyOf"}, piece: pieceAnyOf, facts: readAnyOf},
	{keywords: []string{"oneOf"}, piece: pieceOneOf, facts: readOneOf},
	{keywords: []string{"not"}, piece: pieceNot, facts: readNot},
	{keywords: []string{"if", "then", "else"}, piece: pieceCond, facts: readCond},

	{keywords: annotationKeywords, facts: readAnnotations},
}

// readElsewhere are the keywords of the model that act on instances and have no entry in
// nodeReaders, with the reason.
var readElsewhere = map[string]string{
	"$ref":          "read with the shell (newBody): the closure of a conjunction follows it",
	"$recursiveRef": "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
	"$dynamicRef":   "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
	"nullable":      "read with type (readType): OpenAPI 3.0's nullable adds null to the types beside it",
}

// pieceReaders are the piece handlers of nodeReaders by keyword; readerMask the entries of
// nodeReaders that read a keyword, a bit each (bit i: nodeReaders[i]).
var (
	pieceReaders map[string]func(r *nodeRead, c schema.Child)
	readerMask   map[string]uint64
)

func init() { indexReaders() }

// indexReaders makes pieceReaders and readerMask from the table.
func indexReaders() {
	if len(nodeReaders) > 64 {
		panic("diff: nodeReaders has more entries than readerMask has bits")
	}
	pieceReaders, readerMask = map[string]func(r *nodeRead, c schema.Child){}, map[string]uint64{}
	for i, h := range nodeReaders {
		for _, kw := range h.keywords {
			readerMask[kw] |= 1 << i
			if h.piece != nil {
				pieceReaders[kw] = h.piece
			}
		}
	}
}

// actsOnInstances reports a keyword of the model that can change a verdict: applicators,
// assertions, references, and the annotations that assert on request.
func actsOnInstances(k *schema.Keyword) bool {
	return k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference ||
		k.Kind == schema.Annotation && k.OnRequest
}

// nodeRead is one reading of a body's keywords.
type nodeRead struct {
	e *engine
	n *body
	d int // the draft

	repeated []fact // dependent schemas of a trigger both dependencies and dependentSchemas name
}

// add adds a fact of the body.
func (r *nodeRead) add(f fact) {
	f.n = r.n
	r.n.facts = append(r.n.facts, f)
}

// readNode reads the keywords of n.s into n (the shell is made): the subschemas into its
// pieces, then the facts of each entry of nodeReaders in turn.
func (e *engine) readNode(n *body) {
	s := n.s
	if n.isBool {
		if !n.boolVal {
			n.facts = append(n.facts, fact{kind: fFalse, n: n})
		}
		return
	}
	if n.dynamic {
		n.facts = append(n.facts, fact{kind: fDynamic, n: n, kw: dynKw(s)})
	}
	if s.InPlaceLoop() {
		// Its evaluation may apply it to the same instance again, forever: undefined, and
		// jstk's validator stops with an error. Like a dynamic reference, the fact cannot
		// be proved, and proves nothing.
		n.facts = append(n.facts, fact{kind: fLoop, n: n})
	}
	if n.draft <= 7 && n.ref != nil {
		return // siblings of $ref are ignored in drafts 4 to 7
	}
	r := &e.reading
	*r = nodeRead{e: e, n: n, d: n.draft, repeated: r.repeated[:0]}
	r.readPieces()
	// Only the entries one of whose keywords the object has can add facts: find them in
	// one pass over its members, not one lookup of each keyword of the table.
	// A member no entry reads and readElsewhere does not name may be a keyword diff does
	// not read (readUnread).
	var present uint64
	unread := false
	for i := range n.v.Len() {
		kw := n.v.Key(i)
		if m := readerMask[kw]; m != 0 {
			present |= m
		} else if _, elsewhere := readElsewhere[kw]; !elsewhere {
			unread = true
		}
	}
	for i := range nodeReaders {
		if h := &nodeReaders[i]; h.facts != nil && present&(1<<i) != 0 {
			h.facts(r)
		}
	}
	if unread {
		r.readUnread()
	}
	r.n = nil // the body is not the engine's to keep
}

// readUnread adds a fact nothing proves for each keyword of the object that the model says
// acts on instances in its draft, that applies here, and that diff does not read (a
// keyword added to the model and the compiler, not to nodeReaders): the comparison says
// it cannot tell, and names it, rather than prove anything without it.
func (r *nodeRead) readUnread() {
	v, s := r.n.v, r.n.s
	for i := range v.Len() {
		kw := v.Key(i)
		if _, elsewhere := readElsewhere[kw]; readerMask[kw] != 0 || elsewhere {
			continue
		}
		if k, ok := s.Draft.Keyword(kw); ok && actsOnInstances(k) && !s.Ignored(kw) {
			r.add(fact{kind: fUnread, kw: source.EscapeToken(kw)})
		}
	}
}

// readPieces files the subschemas, as the compiler applies them, among the body's
// pieces. The keyword order of a draft-2019 items array is "items"; additionalItems
// without an items array is not applied by the compiler and does not appear among the
// children.
func (r *nodeRead) readPieces() {
	e, n := r.e, r.n
	base := len(e.childBuf)
	e.childBuf = n.s.AppendChildren(e.childBuf)
	defer func() { e.childBuf = e.childBuf[:base] }()
	if len(e.childBuf) > base {
		n.pieces = &pieces{}
	}
	for _, c := range e.childBuf[base:] {
		if p := pieceReaders[c.Keyword]; p != nil {
			p(r, c)
		}
	}
}

// count adds a fact of kind k for a keyword whose value is a count.
func (r *nodeRead) count(kw string, k factKind) {
	if v, ok := r.n.kw(kw); ok {
		if c, ok := countOf(v); ok {
			r.add(fact{kind: k, kw: kw, i: c})
		}
	}
}

// readCount is the handler of a count keyword.
func readCount(kw string, k factKind) func(r *nodeRead) {
	return func(r *nodeRead) { r.count(kw, k) }
}

// num returns the value of a number keyword, or nil; a number too large to reason about
// exactly adds a dynamic fact.
func (r *nodeRead) num(kw string) *big.Rat {
	v, ok := r.n.kw(kw)
	if !ok {
		return nil
	}
	x, ok := ratOf(v)
	if !ok {
		r.add(fact{kind: fDynamic, kw: kw})
		return nil
	}
	return x
}

// flag reports a boolean keyword that is true.
func (r *nodeRead) flag(kw string) bool {
	v, ok := r.n.kw(kw)
	return ok && v.Kind() == source.Bool && v.Bool()
}

// str returns the value of a keyword whose value is a string.
func (r *nodeRead) str(kw string) (string, bool) {
	v, ok := r.n.kw(kw)
	if !ok || v.Kind() != source.String {
		return "", false
	}
	return v.Str(), true
}

func readType(r *nodeRead) {
	v, ok := r.n.kw("type")
	if !ok {
		return
	}
	if t, ok := typesOf(v, r.n.s.Draft); ok {
		if r.n.s.Nullable() {
			t |= schema.TypeNull // OpenAPI 3.0: nullable adds null to the types
		}
		r.add(fact{kind: fType, kw: "type", types: t})
	}
}

func readEnum(r *nodeRead) {
	if v, ok := r.n.kw("enum"); ok && v.Kind() == source.Array {
		r.add(fact{kind: fEnum, kw: "enum", vals: v.Items()})
	}
}

// readConst: const came with draft 6, but jstk applies it in draft 4 too unless told to
// be strict (schema.Options.StrictDraft); Ignored says which.
func readConst(r *nodeRead) {
	if v, ok := r.n.kw("const"); ok {
		r.add(fact{kind: fEnum, kw: "const", vals: []source.Value{v}})
	}
}

func readMultipleOf(r *nodeRead) {
	if m := r.num("multipleOf"); m != nil && m.Sign() > 0 {
		r.add(fact{kind: fMultipleOf, kw: "multipleOf", r: m})
	}
}

// readBounds reads the bounds: in draft 4 exclusiveMinimum and exclusiveMaximum are
// booleans that make minimum and maximum exclusive, later they are bounds of their own.
func readBounds(r *nodeRead) {
	if r.d == 4 {
		if m := r.num("minimum"); m != nil {
			r.add(fact{kind: fLower, kw: "minimum", b: &bound{v: m, excl: r.flag("exclusiveMinimum")}})
		}
		if m := r.num("maximum"); m != nil {
			r.add(fact{kind: fUpper, kw: "maximum", b: &bound{v: m, excl: r.flag("exclusiveMaximum")}})
		}
		return
	}
	for _, x := range &bounds {
		if m := r.num(x.kw); m != nil {
			r.add(fact{kind: x.kind, kw: x.kw, b: &bound{v: m, excl: x.excl}})
		}
	}
}

// bounds are the bounds after draft 4, in the order they are read.
var bounds = [...]struct {
	kw   string
	kind factKind
	excl bool
}{{"minimum", fLower, false}, {"exclusiveMinimum", fLower, true}, {"maximum", fUpper, false}, {"exclusiveMaximum", fUpper, true}}

func readPattern(r *nodeRead) {
	if p, ok := r.str("pattern"); ok {
		r.add(fact{kind: fPattern, kw: "pattern", str: p})
	}
}

// readFormat: a format is a fact only when asserted, and known.
func readFormat(r *nodeRead) {
	if f, ok := r.str("format"); ok && r.n.s.FormatAsserted() && r.e.knownFormat(f) {
		r.add(fact{kind: fFormat, kw: "format", str: f})
	}
}

// readContent: draft 7 asserts the content of a string (base64, JSON) when asked to.
func readContent(r *nodeRead) {
	if r.d != 7 {
		return
	}
	if v, ok := r.str("contentEncoding"); ok && v == "base64" {
		r.add(fact{kind: fContent, kw: "contentEncoding", str: "contentEncoding=base64"})
	}
	if v, ok := r.str("contentMediaType"); ok && v == "application/json" {
		r.add(fact{kind: fContent, kw: "contentMediaType", str: "contentMediaType=application/json"})
	}
}

func readUnique(r *nodeRead) {
	if r.flag("uniqueItems") {
		r.add(fact{kind: fUnique, kw: "uniqueItems"})
	}
}

// pieceItems files prefixItems, an items array (before 2020-12) or schema, and
// additionalItems.
func pieceItems(r *nodeRead, c schema.Child) {
	n := r.n
	switch {
	case c.Keyword == "prefixItems" || c.Keyword == "items" && c.Index >= 0:
		n.prefix = append(n.prefix, c.Schema)
		n.prefixKw = c.Keyword
	default: // items as one schema, additionalItems
		n.items, n.itemsKw = c.Schema, c.Keyword
	}
}

func readItems(r *nodeRead) {
	n := r.n
	for i, p := range n.prefix {
		r.add(fact{kind: fItem, kw: n.prefixKw + "/" + itoa(i), i: i, s: p})
	}
	if n.items != nil {
		r.add(fact{kind: fTail, kw: n.itemsKw, i: len(n.prefix), s: n.items})
	}
}

func pieceContains(r *nodeRead, c schema.Child) { r.n.contains = c.Schema }

// readContains: contains, with minContains and maxContains from 2019-09.
func readContains(r *nodeRead) {
	if r.n.contains == nil {
		return
	}
	f := fact{kind: fContains, kw: "contains", s: r.n.contains, i: 1, j: -1}
	if r.d >= 2019 {
		if v, ok := r.n.kw("minContains"); ok {
			if c, ok := countOf(v); ok {
				f.i = c
			}
		}
		if v, ok := r.n.kw("maxContains"); ok {
			if c, ok := countOf(v); ok {
				f.j = c
			}
		}
	}
	r.add(f)
}

func pieceUnevalItems(r *nodeRead, c schema.Child) { r.n.unevalI = c.Schema }

func readUnevalItems(r *nodeRead) {
	if r.n.unevalI != nil {
		r.add(fact{kind: fUnevalItems, kw: "unevaluatedItems", s: r.n.unevalI})
	}
}

// readRequired adds each name once.
func readRequired(r *nodeRead) {
	v, ok := r.n.kw("required")
	if !ok || v.Kind() != source.Array {
		return
	}
	seen := map[string]bool{}
	for i, it := range v.Items() {
		if it.Kind() == source.String && !seen[it.Str()] {
			seen[it.Str()] = true
			r.add(fact{kind: fRequired, kw: "required/" + itoa(i), str: it.Str()})
		}
	}
}

// pieceProperties takes the compiled schema's own map and sorted names, shared and only
// read.
func pieceProperties(r *nodeRead, _ schema.Child) {
	r.n.props, r.n.propOrder = r.n.s.Properties(), r.n.s.PropertyNames()
}

func readProperties(r *nodeRead) {
	for _, k := range r.n.propOrder {
		r.add(fact{kind: fProp, str: k, s: r.n.props[k]}) // kw: see keyword
	}
}

func piecePatternProperties(r *nodeRead, c schema.Child) {
	r.n.patterns = append(r.n.patterns, patProp{c.Key, c.Schema})
}

func readPatternProperties(r *nodeRead) {
	for _, p := range r.n.patterns {
		r.add(fact{kind: fPatternProp, kw: "patternProperties/" + source.EscapeToken(p.src), str: p.src, s: p.s})
	}
}

func pieceAdditional(r *nodeRead, c schema.Child) { r.n.additional = c.Schema }

func readAdditional(r *nodeRead) {
	if r.n.additional != nil {
		r.add(fact{kind: fAdditional, kw: "additionalProperties", s: r.n.additional})
	}
}

func piecePropertyNames(r *nodeRead, c schema.Child) { r.n.propNames = c.Schema }

func readPropertyNames(r *nodeRead) {
	if r.n.propNames != nil {
		r.add(fact{kind: fPropNames, kw: "propertyNames", s: r.n.propNames})
	}
}

// depRequired reads dependentRequired, or the array form of dependencies.
func (r *nodeRead) depRequired(kw string) {
	v, ok := r.n.kw(kw)
	if !ok || v.Kind() != source.Object {
		return
	}
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		if val.Kind() != source.Array {
			continue
		}
		var list []string
		for _, it := range val.Items() {
			list = append(list, it.Str())
		}
		r.add(fact{kind: fDepRequired, kw: kw + "/" + source.EscapeToken(k.Str()), str: k.Str(), list: list})
	}
}

func readDependentRequired(r *nodeRead) {
	if r.d >= 2019 {
		r.depRequired("dependentRequired")
	}
}

// pieceDepSchema files a dependent schema (dependentSchemas, or the schema form of
// dependencies) by its trigger. When both keywords name the same trigger, the second is
// kept as a fact of its own (readRepeatedTriggers).
func pieceDepSchema(r *nodeRead, c schema.Child) {
	n := r.n
	if n.depSchemas == nil {
		n.depSchemas, n.depKw = map[string]*schema.Schema{}, map[string]string{}
	}
	if _, dup := n.depSchemas[c.Key]; dup {
		r.repeated = append(r.repeated, fact{kind: fDepSchema, kw: c.Keyword + "/" + source.EscapeToken(c.Key), str: c.Key, s: c.Schema})
		return
	}
	n.depSchemas[c.Key], n.depKw[c.Key] = c.Schema, c.Keyword
}

// readRepeatedTriggers adds the dependent schemas of pieceDepSchema's repeated triggers,
// where they have always come: with the subschemas, before the facts on arrays.
func readRepeatedTriggers(r *nodeRead) {
	for _, f := range r.repeated {
		r.add(f)
	}
}

// readDepSchemas adds the dependent schemas by trigger, in the order of the triggers.
func readDepSchemas(r *nodeRead) {
	n := r.n
	var triggers []string
	for k := range n.depSchemas {
		triggers = append(triggers, k)
	}
	sort.Strings(triggers)
	for _, k := range triggers {
		r.add(fact{kind: fDepSchema, kw: n.depKw[k] + "/" + source.EscapeToken(k), str: k, s: n.depSchemas[k]})
	}
}

func pieceUnevalProps(r *nodeRead, c schema.Child) { r.n.unevalP = c.Schema }

func readUnevalProps(r *nodeRead) {
	if r.n.unevalP != nil {
		r.add(fact{kind: fUnevalProps, kw: "unevaluatedProperties", s: r.n.unevalP})
	}
}

func pieceAnyOf(r *nodeRead, c schema.Child) { r.n.anyOf = append(r.n.anyOf, c.Schema) }

func readAnyOf(r *nodeRead) {
	if len(r.n.anyOf) > 0 {
		r.add(fact{kind: fAnyOf, kw: "anyOf", subs: r.n.anyOf})
	}
}

func pieceOneOf(r *nodeRead, c schema.Child) { r.n.oneOf = append(r.n.oneOf, c.Schema) }

func readOneOf(r *nodeRead) {
	if len(r.n.oneOf) > 0 {
		r.add(fact{kind: fOneOf, kw: "oneOf", subs: r.n.oneOf})
	}
}

func pieceNot(r *nodeRead, c schema.Child) { r.n.not = c.Schema }

func readNot(r *nodeRead) {
	if r.n.not != nil {
		r.add(fact{kind: fNot, kw: "not", s: r.n.not})
	}
}

// pieceCond files if, then and else.
func pieceCond(r *nodeRead, c schema.Child) {
	switch c.Keyword {
	case "if":
		r.n.ifS = c.Schema
	case "then":
		r.n.thenS = c.Schema
	default:
		r.n.elseS = c.Schema
	}
}

// readCond: a condition without then or else says nothing.
func readCond(r *nodeRead) {
	n := r.n
	if n.ifS != nil && (n.thenS != nil || n.elseS != nil) {
		r.add(fact{kind: fCond, kw: "if", subs: []*schema.Schema{n.ifS, n.thenS, n.elseS}})
	}
}

// readAnnotations keeps the annotations; only the docs level compares them.
func readAnnotations(r *nodeRead) {
	if !r.e.opts.docs() {
		return
	}
	for _, kw := range annotationKeywords {
		if v, ok := r.n.raw(kw); ok {
			r.n.ann = append(r.n.ann, annotation{kw, v})
		}
	}
}

// unreadNames lists the keywords of fUnread facts, each once, in the order met.
func unreadNames(fs ...[]*fact) string {
	var names []string
	for _, side := range fs {
		for _, f := range side {
			if !slices.Contains(names, f.kw) {
				names = append(names, f.kw)
			}
		}
	}
	return strings.Join(names, ", ")
}
