package schema

import (
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file is the compiler's side of the keyword model: one handler per keyword, or per
// group of keywords that compile together (prefixItems, items and additionalItems; if,
// then and else), each reading its keywords of one schema object into the Schema's fields.
// The identifiers ($id, $anchor, ...) are read when a document is indexed (resource.go),
// not here.

// kwCompiler compiles the keywords it names of one schema object.
type kwCompiler struct {
	keywords []string // the keywords compile reads
	compile  func(r *kwReader)
}

// kwCompilers is the table of handlers. Their order is the order in which a schema's
// subschemas begin (and so their Index) and which error of a schema with several is
// reported: keep it. It is filled on first use (compilerTable), not at package
// initialisation: the handlers compile subschemas, which reach the table again, and most
// runs of jstk compile nothing.
var (
	kwCompilers     []kwCompiler
	kwCompilersOnce sync.Once
)

// compilerTable returns kwCompilers, filling it the first time.
func compilerTable() []kwCompiler {
	kwCompilersOnce.Do(fillCompilerTable)
	return kwCompilers
}

func fillCompilerTable() {
	kwCompilers = []kwCompiler{
		{[]string{"$ref"}, compileRef},
		{[]string{"$recursiveRef"}, compileRecursiveRef},
		{[]string{"$dynamicRef"}, compileDynamicRef},

		{[]string{"type"}, compileType},
		{[]string{"enum"}, compileEnum},
		{[]string{"const"}, compileConst},

		{[]string{"multipleOf"}, compileMultipleOf},
		{[]string{"minimum"}, func(r *kwReader) { r.s.minimum = r.number("minimum") }},
		{[]string{"maximum"}, func(r *kwReader) { r.s.maximum = r.number("maximum") }},
		{[]string{"exclusiveMinimum"}, compileExclusiveMinimum},
		{[]string{"exclusiveMaximum"}, compileExclusiveMaximum},

		{[]string{"minLength"}, func(r *kwReader) { r.s.minLength = r.count("minLength") }},
		{[]string{"maxLength"}, func(r *kwReader) { r.s.maxLength = r.count("maxLength") }},
		{[]string{"pattern"}, compilePattern},
		{[]string{"format"}, compileFormat},
		{[]string{"contentEncoding"}, compileContentEncoding},
		{[]string{"contentMediaType"}, compileContentMediaType},
		{[]string{"contentSchema"}, compileContentSchema},

		{[]string{"minItems"}, func(r *kwReader) { r.s.minItems = r.count("minItems") }},
		{[]string{"maxItems"}, func(r *kwReader) { r.s.maxItems = r.count("maxItems") }},
		{[]string{"uniqueItems"}, compileUniqueItems},
		{[]string{"prefixItems", "items", "additionalItems"}, compileItems},
		{[]string{"contains"}, compileContains},
		{[]string{"minContains"}, rareCount("minContains", from19, func(x *rareKeywords) *int { return &x.minContains })},
		{[]string{"maxContains"}, rareCount("maxContains", from19, func(x *rareKeywords) *int { return &x.maxContains })},

		{[]string{"minProperties"}, rareCount("minProperties", AllDrafts, func(x *rareKeywords) *int { return &x.minProps })},
		{[]string{"maxProperties"}, rareCount("maxProperties", AllDrafts, func(x *rareKeywords) *int { return &x.maxProps })},
		{[]string{"required"}, compileRequired},
		{[]string{"properties"}, compileProperties},
		{[]string{"patternProperties"}, compilePatternProperties},
		{[]string{"additionalProperties"}, func(r *kwReader) { r.s.additionalProps = r.schema("additionalProperties") }},
		{[]string{"propertyNames"}, compilePropertyNames},
		{[]string{"dependencies"}, compileDependencies},
		{[]string{"dependentSchemas"}, compileDependentSchemas},
		{[]string{"dependentRequired"}, compileDependentRequired},

		{[]string{"allOf"}, func(r *kwReader) { r.s.allOf = r.schemaList("allOf") }},
		{[]string{"anyOf"}, func(r *kwReader) { r.s.anyOf = r.schemaList("anyOf") }},
		{[]string{"oneOf"}, func(r *kwReader) { r.s.oneOf = r.schemaList("oneOf") }},
		{[]string{"not"}, func(r *kwReader) { r.s.not = r.schema("not") }},
		{[]string{"if", "then", "else"}, compileIf},
		{[]string{"unevaluatedProperties"}, compileUnevaluatedProperties},
		{[]string{"unevaluatedItems"}, compileUnevaluatedItems},
	}
}

// compileKeywords reads every keyword of a schema object, handler by handler, until one
// says the rest are ignored ($ref before 2019-09).
func (c *Compiler) compileKeywords(s *Schema, v source.Value) error {
	var r *kwReader
	if n := len(c.readers); n > 0 {
		r, c.readers = c.readers[n-1], c.readers[:n-1]
	} else {
		r = new(kwReader)
	}
	*r = kwReader{c: c, s: s, v: v}
	for i := 0; i < v.Len(); i++ {
		s.keywords = append(s.keywords, v.Key(i))
	}
	table := compilerTable()
	for i := range table {
		table[i].compile(r)
		if s.hasRef {
			break
		}
	}
	err := r.err
	if err == nil {
		s.buildPropIndex()
		s.groups = s.keywordGroups()
		s.pureRef = !s.hasRef && !s.needAnn && s.groups == groupRefs && s.types == 0 && s.ref != nil &&
			s.dynRef == nil && s.recursiveRef == nil
		s.leaf = !s.hasRef && !s.needAnn && s.groups&(groupRefs|groupArray|groupObject|groupApplicators) == 0
		s.buildNumQuick()
	}
	*r = kwReader{}
	c.readers = append(c.readers, r)
	return err
}

// lenient reports whether a keyword of later drafts (const, contains, propertyNames from
// draft 6, if from draft 7) is read in this schema: in its drafts, and in earlier ones
// unless Options.StrictDraft.
func (r *kwReader) lenient(since int) bool {
	return r.s.Draft.Version >= since || !r.c.opts.StrictDraft
}

// compileRef reads $ref. Before 2019-09, a $ref makes its siblings ignored (hasRef stops
// compileKeywords).
func compileRef(r *kwReader) {
	if r.s.Draft.Version <= 7 {
		if _, ok := r.get("$ref"); !ok {
			return
		}
		r.s.hasRef = true
	}
	r.s.ref = r.ref("$ref")
}

func compileRecursiveRef(r *kwReader) {
	if r.s.Draft.Version != 2019 {
		return
	}
	if t := r.ref("$recursiveRef"); t != nil {
		r.s.rare().recursiveRef = t
	}
}

// compileDynamicRef reads $dynamicRef (2020-12): its static target, and its anchor name
// when the reference is dynamic, that is when the static target declares a $dynamicAnchor
// of that name.
func compileDynamicRef(r *kwReader) {
	s := r.s
	if s.Draft.Version < 2020 {
		return
	}
	dv, ok := r.get("$dynamicRef")
	if !ok || dv.Kind() != source.String {
		return
	}
	t := r.ref("$dynamicRef")
	if t == nil {
		return
	}
	x := s.rare()
	x.dynRef = t
	_, frag, _ := ResolveURI(s.res.uri, dv.Str())
	if frag != "" && t.res.dynamic[frag] {
		if av, ok := t.Value().Get(t.Draft.AnchorKeyword(DynamicAnchor)); ok && av.Str() == frag {
			x.dynAnchor = frag
		}
	}
}

// compileType reads type: a name or a list of names (and OpenAPI 3.0's nullable with it).
func compileType(r *kwReader) {
	s, d := r.s, r.s.Draft
	tv, ok := r.get("type")
	if !ok {
		return
	}
	switch tv.Kind() {
	case source.String:
		s.types = TypeByName(tv.Str(), d)
		s.typeList = []string{tv.Str()}
		if s.types == 0 {
			r.fail("type", "unknown type %q", tv.Str())
		}
	case source.Array:
		for _, t := range tv.Items() {
			tt := TypeByName(t.Str(), d)
			if t.Kind() != source.String || tt == 0 {
				r.fail("type", "unknown type %s", string(source.AppendJSON(nil, t)))
			}
			s.types |= tt
			s.typeList = append(s.typeList, t.Str())
		}
	default:
		r.fail("type", "type must be a string or an array of strings")
	}
	if d.oas30 && s.nullable() {
		s.types |= TypeNull
		s.typeList = append(s.typeList, "null")
	}
}

// compileEnum reads enum, with a set of its values when they are more than four strings
// and a hash index when they are many of other kinds.
func compileEnum(r *kwReader) {
	s := r.s
	ev, ok := r.get("enum")
	if !ok {
		return
	}
	if ev.Kind() != source.Array {
		r.fail("enum", "enum must be an array")
		return
	}
	s.enum = ev.Items()
	allStr := len(s.enum) > 4
	for _, e := range s.enum {
		allStr = allStr && e.Kind() == source.String
	}
	switch {
	case allStr:
		s.enumStr = map[string]bool{}
		for _, e := range s.enum {
			s.enumStr[e.Str()] = true
		}
	case len(s.enum) > enumScanMax:
		x := s.rare()
		x.enumHash = make(map[uint64][]int32, len(s.enum))
		for i, e := range s.enum {
			h := source.Hash(enumSeed, e)
			x.enumHash[h] = append(x.enumHash[h], int32(i))
		}
	}
}

func compileConst(r *kwReader) {
	if !r.lenient(6) {
		return
	}
	if cv, ok := r.get("const"); ok {
		r.s.constV = &cv
	}
}

func compileMultipleOf(r *kwReader) {
	if m := r.number("multipleOf"); m != nil {
		r.s.rare().multipleOf = m
		if m.Sign() <= 0 {
			r.fail("multipleOf", "multipleOf must be greater than 0")
		}
	}
}

// compileExclusiveMinimum reads exclusiveMinimum: a number, or in draft 4 a boolean that
// makes minimum exclusive (compiled after minimum).
func compileExclusiveMinimum(r *kwReader) {
	s := r.s
	if s.Draft.Version != 4 {
		if m := r.number("exclusiveMinimum"); m != nil {
			s.rare().exclMin = m
		}
		return
	}
	if b, ok := r.get("exclusiveMinimum"); ok && b.Kind() == source.Bool && b.Bool() && s.minimum != nil {
		s.rare().exclMin, s.minimum = s.minimum, nil
	}
}

// compileExclusiveMaximum is compileExclusiveMinimum's twin.
func compileExclusiveMaximum(r *kwReader) {
	s := r.s
	if s.Draft.Version != 4 {
		if m := r.number("exclusiveMaximum"); m != nil {
			s.rare().exclMax = m
		}
		return
	}
	if b, ok := r.get("exclusiveMaximum"); ok && b.Kind() == source.Bool && b.Bool() && s.maximum != nil {
		s.rare().exclMax, s.maximum = s.maximum, nil
	}
}

func compilePattern(r *kwReader) {
	pv, ok := r.get("pattern")
	if !ok {
		return
	}
	if pv.Kind() != source.String {
		r.fail("pattern", "pattern must be a string")
		return
	}
	r.s.patternSrc = pv.Str()
	re, err := r.c.regexp(pv.Str())
	if err != nil {
		r.fail("pattern", "pattern %s is not a valid ECMA-262 regular expression: %v", QuotePattern(pv.Str()), err)
	}
	r.s.pattern = re
}

// compileFormat reads format, asserted with Options.AssertFormat or, in 2020-12, the
// format-assertion vocabulary.
func compileFormat(r *kwReader) {
	s := r.s
	fv, ok := r.get("format")
	if !ok || fv.Kind() != source.String {
		return
	}
	s.formatName = fv.Str()
	s.format = formats()[fv.Str()]
	s.assertFmt = r.c.opts.AssertFormat || (s.Draft.Version >= 2020 && s.res.vocabs != nil && s.res.vocabs["format-assertion"])
	if fn, ok := r.c.opts.Formats[fv.Str()]; ok && fn != nil {
		// a format of the caller's: always asserted (defining it asks for it), on values
		// of every type
		s.format = &formatDef{name: fv.Str(), value: fn}
		s.assertFmt = true
	}
}

func compileContentEncoding(r *kwReader) {
	if r.s.Draft.Version < 7 {
		return
	}
	if cv, ok := r.get("contentEncoding"); ok && cv.Kind() == source.String {
		x := r.s.rare()
		x.contentEncoding, x.assertContent = cv.Str(), r.c.opts.AssertContent
	}
}

func compileContentMediaType(r *kwReader) {
	if r.s.Draft.Version < 7 {
		return
	}
	if cv, ok := r.get("contentMediaType"); ok && cv.Kind() == source.String {
		x := r.s.rare()
		x.contentMediaType, x.assertContent = cv.Str(), r.c.opts.AssertContent
	}
}

func compileContentSchema(r *kwReader) {
	if r.s.Draft.Version < 2019 {
		return
	}
	if cs := r.schema("contentSchema"); cs != nil {
		r.s.rare().contentSchema = cs
	}
}

func compileUniqueItems(r *kwReader) {
	if uv, ok := r.get("uniqueItems"); ok && uv.Kind() == source.Bool && uv.Bool() {
		r.s.rare().uniqueItems = true
	}
}

// compileItems reads the keywords of an array's items by position: prefixItems and items
// in 2020-12; items (a schema, or an array of schemas followed by additionalItems) before.
func compileItems(r *kwReader) {
	s := r.s
	prefix := func(kw string) {
		if l := r.schemaList(kw); l != nil {
			x := s.rare()
			x.prefixItems, x.prefixKw = l, kw
		}
	}
	if s.Draft.Version >= 2020 {
		prefix("prefixItems")
		s.items, s.itemsKw = r.schema("items"), "items"
		return
	}
	iv, ok := r.get("items")
	switch {
	case !ok:
	case iv.Kind() == source.Array:
		prefix("items")
		s.items, s.itemsKw = r.schema("additionalItems"), "additionalItems"
	default:
		s.items, s.itemsKw = r.schema("items"), "items"
	}
}

func compileContains(r *kwReader) {
	if !r.lenient(6) {
		return
	}
	if cs := r.schema("contains"); cs != nil {
		r.s.rare().contains = cs
	}
}

// rareCount returns the handler of a count kept among the rare keywords, read in the
// drafts of ds.
func rareCount(kw string, ds DraftSet, field func(*rareKeywords) *int) func(r *kwReader) {
	return func(r *kwReader) {
		if !ds.Has(r.s.Draft) {
			return
		}
		if n := r.count(kw); n >= 0 {
			*field(r.s.rare()) = n
		}
	}
}

func compileRequired(r *kwReader) {
	if rv, ok := r.get("required"); ok {
		r.s.required = r.stringList("required", rv)
	}
}

func compileProperties(r *kwReader) {
	s := r.s
	pv, ok := r.get("properties")
	if !ok {
		return
	}
	if pv.Kind() != source.Object {
		r.fail("properties", "properties must be an object")
		return
	}
	s.properties = make(map[string]*Schema, pv.Len())
	for i := 0; i < pv.Len(); i++ {
		k, _ := pv.Member(i)
		s.properties[k.Str()] = r.sub("properties", k.Str())
	}
	s.propKeys = sortedKeys(s.properties)
}

func compilePatternProperties(r *kwReader) {
	pv, ok := r.get("patternProperties")
	if !ok {
		return
	}
	if pv.Kind() != source.Object {
		r.fail("patternProperties", "patternProperties must be an object")
		return
	}
	for i := 0; i < pv.Len(); i++ {
		k, _ := pv.Member(i)
		re, err := r.c.regexp(k.Str())
		if err != nil {
			r.fail("patternProperties", "pattern %s is not a valid ECMA-262 regular expression: %v", QuotePattern(k.Str()), err)
			return
		}
		x := r.s.rare()
		x.patternProps = append(x.patternProps, patternProp{k.Str(), re, r.sub("patternProperties", k.Str())})
	}
}

func compilePropertyNames(r *kwReader) {
	if !r.lenient(6) {
		return
	}
	if pn := r.schema("propertyNames"); pn != nil {
		r.s.rare().propertyNames = pn
	}
}

// compileDependencies reads dependencies (drafts 4-7, still honoured later for
// compatibility), which holds both lists of required names and schemas; 2019-09 split it
// into dependentRequired and dependentSchemas.
func compileDependencies(r *kwReader) {
	dv, ok := r.get("dependencies")
	if !ok || dv.Kind() != source.Object {
		return
	}
	for i := 0; i < dv.Len(); i++ {
		k, val := dv.Member(i)
		x := r.s.rare()
		if val.Kind() == source.Array {
			x.depRequired = append(x.depRequired, depRequired{k.Str(), r.stringList("dependencies", val), "dependencies"})
			continue
		}
		x.depSchemas = append(x.depSchemas, depSchema{k.Str(), r.sub("dependencies", k.Str()), "dependencies"})
	}
}

func compileDependentSchemas(r *kwReader) {
	if r.s.Draft.Version < 2019 {
		return
	}
	dv, ok := r.get("dependentSchemas")
	if !ok || dv.Kind() != source.Object {
		return
	}
	for i := 0; i < dv.Len(); i++ {
		k, _ := dv.Member(i)
		x := r.s.rare()
		x.depSchemas = append(x.depSchemas, depSchema{k.Str(), r.sub("dependentSchemas", k.Str()), "dependentSchemas"})
	}
}

func compileDependentRequired(r *kwReader) {
	if r.s.Draft.Version < 2019 {
		return
	}
	dv, ok := r.get("dependentRequired")
	if !ok || dv.Kind() != source.Object {
		return
	}
	for i := 0; i < dv.Len(); i++ {
		k, val := dv.Member(i)
		x := r.s.rare()
		x.depRequired = append(x.depRequired, depRequired{k.Str(), r.stringList("dependentRequired", val), "dependentRequired"})
	}
}

// compileIf reads if, and then and else only beside it.
func compileIf(r *kwReader) {
	if !r.lenient(7) {
		return
	}
	if i := r.schema("if"); i != nil {
		x := r.s.rare()
		x.ifS, x.thenS, x.elseS = i, r.schema("then"), r.schema("else")
	}
}

func compileUnevaluatedProperties(r *kwReader) {
	if r.s.Draft.Version < 2019 {
		return
	}
	if up := r.schema("unevaluatedProperties"); up != nil {
		r.s.rare().unevalProps = up
		r.s.needAnn = true
	}
}

func compileUnevaluatedItems(r *kwReader) {
	if r.s.Draft.Version < 2019 {
		return
	}
	if ui := r.schema("unevaluatedItems"); ui != nil {
		r.s.rare().unevalItems = ui
		r.s.needAnn = true
	}
}
