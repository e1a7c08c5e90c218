package algebra

import (
	"math/big"
	"slices"
	"sort"
	"strings"
	"sync"

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
	Keywords []string
	Piece    func(r *nodeRead, c schema.Child)
	Facts    func(r *nodeRead)
}

// NodeReaders is the table, in the order in which the facts of a body are added (the
// order the engine proves and reports them in): keep it. A keyword may have several
// entries when its facts come at several places (dependencies: the array form with
// dependentRequired, the schema form with dependentSchemas).
var NodeReaders = []nodeReader{
	{Keywords: []string{"type"}, Facts: readType},
	{Keywords: []string{"enum"}, Facts: readEnum},
	{Keywords: []string{"const"}, Facts: readConst},

	{Keywords: []string{"multipleOf"}, Facts: readMultipleOf},
	{Keywords: []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"}, Facts: readBounds},

	{Keywords: []string{"minLength"}, Facts: func(r *nodeRead) { r.count("minLength", FMinLength) }},
	{Keywords: []string{"maxLength"}, Facts: func(r *nodeRead) { r.count("maxLength", FMaxLength) }},
	{Keywords: []string{"pattern"}, Facts: readPattern},
	{Keywords: []string{"format"}, Facts: readFormat},
	{Keywords: []string{"contentEncoding", "contentMediaType"}, Facts: readContent},
	{Keywords: []string{"dependencies", "dependentSchemas"}, Facts: readRepeatedTriggers},

	{Keywords: []string{"minItems"}, Facts: func(r *nodeRead) { r.count("minItems", FMinItems) }},
	{Keywords: []string{"maxItems"}, Facts: func(r *nodeRead) { r.count("maxItems", FMaxItems) }},
	{Keywords: []string{"uniqueItems"}, Facts: readUnique},
	{Keywords: []string{"prefixItems", "items", "additionalItems"}, Piece: pieceItems, Facts: readItems},
	{Keywords: []string{"contains", "minContains", "maxContains"}, Piece: pieceContains, Facts: readContains},
	{Keywords: []string{"unevaluatedItems"}, Piece: pieceUnevalItems, Facts: readUnevalItems},

	{Keywords: []string{"minProperties"}, Facts: func(r *nodeRead) { r.count("minProperties", FMinProps) }},
	{Keywords: []string{"maxProperties"}, Facts: func(r *nodeRead) { r.count("maxProperties", FMaxProps) }},
	{Keywords: []string{"required"}, Facts: readRequired},
	{Keywords: []string{"properties"}, Piece: pieceProperties, Facts: readProperties},
	{Keywords: []string{"patternProperties"}, Piece: piecePatternProperties, Facts: readPatternProperties},
	{Keywords: []string{"additionalProperties"}, Piece: pieceAdditional, Facts: readAdditional},
	{Keywords: []string{"propertyNames"}, Piece: piecePropertyNames, Facts: readPropertyNames},
	{Keywords: []string{"dependencies"}, Facts: func(r *nodeRead) { r.depRequired("dependencies") }},
	{Keywords: []string{"dependentRequired"}, Facts: readDependentRequired},
	{Keywords: []string{"dependencies", "dependentSchemas"}, Piece: pieceDepSchema, Facts: readDepSchemas},
	{Keywords: []string{"unevaluatedProperties"}, Piece: pieceUnevalProps, Facts: readUnevalProps},

	{Keywords: []string{"allOf"}, Piece: func(r *nodeRead, c schema.Child) { r.n.allOf = append(r.n.allOf, c.Schema) }},
	{Keywords: []string{"anyOf"}, Piece: pieceAnyOf, Facts: readAnyOf},
	{Keywords: []string{"oneOf"}, Piece: pieceOneOf, Facts: readOneOf},
	{Keywords: []string{"not"}, Piece: pieceNot, Facts: readNot},
	{Keywords: []string{"if", "then", "else"}, Piece: pieceCond, Facts: readCond},

	{Keywords: AnnotationKeywords, Facts: readAnnotations},
}

// ReadElsewhere are the keywords of the model that act on instances and have no entry in
// nodeReaders, with the reason.
var ReadElsewhere = map[string]string{
	"$ref":          "read with the shell (newBody): the closure of a conjunction follows it",
	"$recursiveRef": "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
	"$dynamicRef":   "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
	"nullable":      "read with type (readType): OpenAPI 3.0's nullable adds null to the types beside it",
}

// pieceReaders are the piece handlers of nodeReaders by keyword; readerMask the entries of
// nodeReaders that read a keyword, a bit each (bit i: nodeReaders[i]).
var (
	PieceReaders map[string]func(r *nodeRead, c schema.Child)
	readerMask   map[string]uint64
)

// readersOnce indexes the table (IndexReaders) when the first body is read, not at every
// start of jstk.
var readersOnce sync.Once

// IndexReaders makes pieceReaders and readerMask from the table.
func IndexReaders() {
	if len(NodeReaders) > 64 {
		panic("diff: nodeReaders has more entries than readerMask has bits")
	}
	PieceReaders, readerMask = map[string]func(r *nodeRead, c schema.Child){}, map[string]uint64{}
	for i, h := range NodeReaders {
		for _, kw := range h.Keywords {
			readerMask[kw] |= 1 << i
			if h.Piece != nil {
				PieceReaders[kw] = h.Piece
			}
		}
	}
}

// ActsOnInstances reports a keyword of the model that can change a verdict: applicators,
// assertions, references, and the annotations that assert on request.
func ActsOnInstances(k *schema.Keyword) bool {
	return k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference ||
		k.Kind == schema.Annotation && k.OnRequest
}

// nodeRead is one reading of a body's keywords.
type nodeRead struct {
	e *Engine
	n *Body
	d int // the draft

	repeated []Fact // dependent schemas of a trigger both dependencies and dependentSchemas name
}

// add adds a fact of the body.
func (r *nodeRead) add(f Fact) {
	f.N = r.n
	r.n.Facts = append(r.n.Facts, f)
}

// readNode reads the keywords of n.s into n (the shell is made): the subschemas into its
// pieces, then the facts of each entry of nodeReaders in turn.
func (e *Engine) readNode(n *Body) {
	s := n.S
	if n.IsBool {
		if !n.boolVal {
			n.Facts = append(n.Facts, Fact{Kind: FFalse, N: n})
		}
		return
	}
	if n.dynamic {
		n.Facts = append(n.Facts, Fact{Kind: FDynamic, N: n, kw: dynKw(s)})
	}
	if s.InPlaceLoop() {
		// Its evaluation may apply it to the same instance again, forever: undefined, and
		// jstk's validator stops with an error. Like a dynamic reference, the fact cannot
		// be proved, and proves nothing.
		n.Facts = append(n.Facts, Fact{Kind: FLoop, N: n})
	}
	if n.draft <= 7 && n.ref != nil {
		return // siblings of $ref are ignored in drafts 4 to 7
	}
	readersOnce.Do(IndexReaders)
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
		} else if _, elsewhere := ReadElsewhere[kw]; !elsewhere {
			unread = true
		}
	}
	for i := range NodeReaders {
		if h := &NodeReaders[i]; h.Facts != nil && present&(1<<i) != 0 {
			h.Facts(r)
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
	v, s := r.n.v, r.n.S
	for i := range v.Len() {
		kw := v.Key(i)
		if _, elsewhere := ReadElsewhere[kw]; readerMask[kw] != 0 || elsewhere {
			continue
		}
		if k, ok := s.Draft.Keyword(kw); ok && ActsOnInstances(k) && !s.Ignored(kw) {
			r.add(Fact{Kind: FUnread, kw: source.EscapeToken(kw)})
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
	e.childBuf = n.S.AppendChildren(e.childBuf)
	defer func() { e.childBuf = e.childBuf[:base] }()
	if len(e.childBuf) > base {
		n.pieces = &pieces{}
	}
	for _, c := range e.childBuf[base:] {
		if p := PieceReaders[c.Keyword]; p != nil {
			p(r, c)
		}
	}
}

// count adds a fact of kind k for a keyword whose value is a count.
func (r *nodeRead) count(kw string, k FactKind) {
	if v, ok := r.n.Kw(kw); ok {
		if c, ok := countOf(v); ok {
			r.add(Fact{Kind: k, kw: kw, I: c})
		}
	}
}

// num returns the value of a number keyword, or nil; a number too large to reason about
// exactly adds a dynamic fact.
func (r *nodeRead) num(kw string) *big.Rat {
	v, ok := r.n.Kw(kw)
	if !ok {
		return nil
	}
	x, ok := ratOf(v)
	if !ok {
		r.add(Fact{Kind: FDynamic, kw: kw})
		return nil
	}
	return x
}

// flag reports a boolean keyword that is true.
func (r *nodeRead) flag(kw string) bool {
	v, ok := r.n.Kw(kw)
	return ok && v.Kind() == source.Bool && v.Bool()
}

// str returns the value of a keyword whose value is a string.
func (r *nodeRead) str(kw string) (string, bool) {
	v, ok := r.n.Kw(kw)
	if !ok || v.Kind() != source.String {
		return "", false
	}
	return v.Str(), true
}

func readType(r *nodeRead) {
	v, ok := r.n.Kw("type")
	if !ok {
		return
	}
	if t, ok := typesOf(v, r.n.S.Draft); ok {
		if r.n.S.Nullable() {
			t |= schema.TypeNull // OpenAPI 3.0: nullable adds null to the types
		}
		r.add(Fact{Kind: FType, kw: "type", Types: t})
	}
}

func readEnum(r *nodeRead) {
	if v, ok := r.n.Kw("enum"); ok && v.Kind() == source.Array {
		r.add(Fact{Kind: FEnum, kw: "enum", Vals: v.Items()})
	}
}

// readConst: const came with draft 6, but jstk applies it in draft 4 too unless told to
// be strict (schema.Options.StrictDraft); Ignored says which.
func readConst(r *nodeRead) {
	if v, ok := r.n.Kw("const"); ok {
		r.add(Fact{Kind: FEnum, kw: "const", Vals: []source.Value{v}})
	}
}

func readMultipleOf(r *nodeRead) {
	if m := r.num("multipleOf"); m != nil && m.Sign() > 0 {
		r.add(Fact{Kind: FMultipleOf, kw: "multipleOf", R: m})
	}
}

// readBounds reads the bounds: in draft 4 exclusiveMinimum and exclusiveMaximum are
// booleans that make minimum and maximum exclusive, later they are bounds of their own.
func readBounds(r *nodeRead) {
	if r.d == 4 {
		if m := r.num("minimum"); m != nil {
			r.add(Fact{Kind: FLower, kw: "minimum", B: &Bound{V: m, Excl: r.flag("exclusiveMinimum")}})
		}
		if m := r.num("maximum"); m != nil {
			r.add(Fact{Kind: FUpper, kw: "maximum", B: &Bound{V: m, Excl: r.flag("exclusiveMaximum")}})
		}
		return
	}
	for _, x := range &bounds {
		if m := r.num(x.kw); m != nil {
			r.add(Fact{Kind: x.kind, kw: x.kw, B: &Bound{V: m, Excl: x.excl}})
		}
	}
}

// bounds are the bounds after draft 4, in the order they are read.
var bounds = [...]struct {
	kw   string
	kind FactKind
	excl bool
}{{"minimum", FLower, false}, {"exclusiveMinimum", FLower, true}, {"maximum", FUpper, false}, {"exclusiveMaximum", FUpper, true}}

func readPattern(r *nodeRead) {
	if p, ok := r.str("pattern"); ok {
		r.add(Fact{Kind: FPattern, kw: "pattern", Str: p})
	}
}

// readFormat: a format is a fact only when asserted, and known.
func readFormat(r *nodeRead) {
	if f, ok := r.str("format"); ok && r.n.S.FormatAsserted() && r.e.knownFormat(f) {
		r.add(Fact{Kind: FFormat, kw: "format", Str: f})
	}
}

// readContent: draft 7 asserts the content of a string (base64, JSON) when asked to.
func readContent(r *nodeRead) {
	if r.d != 7 {
		return
	}
	if v, ok := r.str("contentEncoding"); ok && v == "base64" {
		r.add(Fact{Kind: FContent, kw: "contentEncoding", Str: "contentEncoding=base64"})
	}
	if v, ok := r.str("contentMediaType"); ok && v == "application/json" {
		r.add(Fact{Kind: FContent, kw: "contentMediaType", Str: "contentMediaType=application/json"})
	}
}

func readUnique(r *nodeRead) {
	if r.flag("uniqueItems") {
		r.add(Fact{Kind: FUnique, kw: "uniqueItems"})
	}
}

// pieceItems files prefixItems, an items array (before 2020-12) or schema, and
// additionalItems.
func pieceItems(r *nodeRead, c schema.Child) {
	n := r.n
	switch {
	case c.Keyword == "prefixItems" || c.Keyword == "items" && c.Index >= 0:
		n.Prefix = append(n.Prefix, c.Schema)
		n.PrefixKw = c.Keyword
	default: // items as one schema, additionalItems
		n.Items, n.itemsKw = c.Schema, c.Keyword
	}
}

func readItems(r *nodeRead) {
	n := r.n
	for i, p := range n.Prefix {
		r.add(Fact{Kind: FItem, kw: n.PrefixKw + "/" + Itoa(i), I: i, S: p})
	}
	if n.Items != nil {
		r.add(Fact{Kind: FTail, kw: n.itemsKw, I: len(n.Prefix), S: n.Items})
	}
}

func pieceContains(r *nodeRead, c schema.Child) { r.n.contains = c.Schema }

// readContains: contains, with minContains and maxContains from 2019-09.
func readContains(r *nodeRead) {
	if r.n.contains == nil {
		return
	}
	f := Fact{Kind: FContains, kw: "contains", S: r.n.contains, I: 1, J: -1}
	if r.d >= 2019 {
		if v, ok := r.n.Kw("minContains"); ok {
			if c, ok := countOf(v); ok {
				f.I = c
			}
		}
		if v, ok := r.n.Kw("maxContains"); ok {
			if c, ok := countOf(v); ok {
				f.J = c
			}
		}
	}
	r.add(f)
}

func pieceUnevalItems(r *nodeRead, c schema.Child) { r.n.unevalI = c.Schema }

func readUnevalItems(r *nodeRead) {
	if r.n.unevalI != nil {
		r.add(Fact{Kind: FUnevalItems, kw: "unevaluatedItems", S: r.n.unevalI})
	}
}

// readRequired adds each name once.
func readRequired(r *nodeRead) {
	v, ok := r.n.Kw("required")
	if !ok || v.Kind() != source.Array {
		return
	}
	seen := map[string]bool{}
	for i, it := range v.Items() {
		if it.Kind() == source.String && !seen[it.Str()] {
			seen[it.Str()] = true
			r.add(Fact{Kind: FRequired, kw: "required/" + Itoa(i), Str: it.Str()})
		}
	}
}

// pieceProperties takes the compiled schema's own map and sorted names, shared and only
// read.
func pieceProperties(r *nodeRead, _ schema.Child) {
	r.n.Props, r.n.PropOrder = r.n.S.Properties(), r.n.S.PropertyNames()
}

func readProperties(r *nodeRead) {
	for _, k := range r.n.PropOrder {
		r.add(Fact{Kind: FProp, Str: k, S: r.n.Props[k]}) // kw: see keyword
	}
}

func piecePatternProperties(r *nodeRead, c schema.Child) {
	r.n.Patterns = append(r.n.Patterns, patProp{c.Key, c.Schema})
}

func readPatternProperties(r *nodeRead) {
	for _, p := range r.n.Patterns {
		r.add(Fact{Kind: FPatternProp, kw: "patternProperties/" + source.EscapeToken(p.Src), Str: p.Src, S: p.S})
	}
}

func pieceAdditional(r *nodeRead, c schema.Child) { r.n.Additional = c.Schema }

func readAdditional(r *nodeRead) {
	if r.n.Additional != nil {
		r.add(Fact{Kind: FAdditional, kw: "additionalProperties", S: r.n.Additional})
	}
}

func piecePropertyNames(r *nodeRead, c schema.Child) { r.n.propNames = c.Schema }

func readPropertyNames(r *nodeRead) {
	if r.n.propNames != nil {
		r.add(Fact{Kind: FPropNames, kw: "propertyNames", S: r.n.propNames})
	}
}

// depRequired reads dependentRequired, or the array form of dependencies.
func (r *nodeRead) depRequired(kw string) {
	v, ok := r.n.Kw(kw)
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
		r.add(Fact{Kind: FDepRequired, kw: kw + "/" + source.EscapeToken(k.Str()), Str: k.Str(), List: list})
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
		r.repeated = append(r.repeated, Fact{Kind: FDepSchema, kw: c.Keyword + "/" + source.EscapeToken(c.Key), Str: c.Key, S: c.Schema})
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
		r.add(Fact{Kind: FDepSchema, kw: n.depKw[k] + "/" + source.EscapeToken(k), Str: k, S: n.depSchemas[k]})
	}
}

func pieceUnevalProps(r *nodeRead, c schema.Child) { r.n.UnevalP = c.Schema }

func readUnevalProps(r *nodeRead) {
	if r.n.UnevalP != nil {
		r.add(Fact{Kind: FUnevalProps, kw: "unevaluatedProperties", S: r.n.UnevalP})
	}
}

func pieceAnyOf(r *nodeRead, c schema.Child) { r.n.anyOf = append(r.n.anyOf, c.Schema) }

func readAnyOf(r *nodeRead) {
	if len(r.n.anyOf) > 0 {
		r.add(Fact{Kind: FAnyOf, kw: "anyOf", Subs: r.n.anyOf})
	}
}

func pieceOneOf(r *nodeRead, c schema.Child) { r.n.oneOf = append(r.n.oneOf, c.Schema) }

func readOneOf(r *nodeRead) {
	if len(r.n.oneOf) > 0 {
		r.add(Fact{Kind: FOneOf, kw: "oneOf", Subs: r.n.oneOf})
	}
}

func pieceNot(r *nodeRead, c schema.Child) { r.n.not = c.Schema }

func readNot(r *nodeRead) {
	if r.n.not != nil {
		r.add(Fact{Kind: FNot, kw: "not", S: r.n.not})
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
		r.add(Fact{Kind: FCond, kw: "if", Subs: []*schema.Schema{n.ifS, n.thenS, n.elseS}})
	}
}

// readAnnotations keeps the annotations; only the docs level compares them.
func readAnnotations(r *nodeRead) {
	if !r.e.Opts.Docs() {
		return
	}
	for _, kw := range AnnotationKeywords {
		if v, ok := r.n.Raw(kw); ok {
			r.n.Ann = append(r.n.Ann, Annotation{kw, v})
		}
	}
}

// UnreadNames lists the keywords of fUnread facts, each once, in the order met.
func UnreadNames(fs ...[]*Fact) string {
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
