package schema

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
)

// Schema is a compiled schema, ready to evaluate instances. It is immutable and safe for
// concurrent use.
type Schema struct {
	// Draft is the dialect the schema is read in.
	Draft *Draft

	doc   *document
	at    *loc // its place in doc
	val   source.Value
	res   *resource
	info  *compileInfo // shared by the schemas of one compiler
	index int          // its place among the schemas of its compiler (Index)

	always   uint8 // alwaysTrue / alwaysFalse for boolean schemas
	hasRef   bool  // draft <= 7: $ref present, siblings ignored
	needAnn  bool  // has unevaluatedProperties or unevaluatedItems
	onLoop   bool  // on a cycle of in-place applicators (InPlaceLoop)
	toLoop   bool  // reaches a schema on such a cycle through in-place applicators (ReachesInPlaceLoop)
	keywords []string

	types      TypeSet
	typeList   []string // as written, for messages
	enum       []source.Value
	enumStr    map[string]bool // when every enum value is a string
	constV     *source.Value
	minimum    *source.Decimal
	maximum    *source.Decimal
	minLength  int
	maxLength  int
	pattern    Regexp
	patternSrc string
	format     *formatDef
	formatName string
	assertFmt  bool

	minItems, maxItems int
	items              *Schema
	itemsKw            string // "items" or "additionalItems"

	required        []string
	properties      map[string]*Schema
	propKeys        []string // the names of properties, sorted
	additionalProps *Schema

	allOf, anyOf, oneOf []*Schema
	not                 *Schema

	ref *Schema

	propIdx *propIndex // properties and required by name, when it could be built
	groups  kwGroup    // the groups of keywords s has, so that evaluation skips the others
	leaf    bool       // a schema object without references, applicators or subschemas
	pureRef bool       // a schema object whose only assertion is a $ref beside (2019-09 on)
	// numQuick settles the type check and number keywords of most numbers (see numQuick)
	numQuick *numQuick

	*rareKeywords // never nil: noRare when the schema has none of them
}

// rareKeywords are the keywords few schemas have: 2.4% of the schema objects of the
// SchemaStore corpus have any of them (2.9% of the largest schema pair's). The others share
// noRare, which is never written, and a Schema fits in 512 bytes instead of 896: the two
// compiled documents of the largest schema pair (18,092 schemas) hold 29.4 MB instead of
// 36.2. Compilation writes them through rare; evaluation reads them as the Schema's own
// fields.
type rareKeywords struct {
	enumHash map[uint64][]int32 // a long enum of other values than strings, by source.Hash (enumSeed)

	multipleOf *source.Decimal
	exclMin    *source.Decimal
	exclMax    *source.Decimal

	uniqueItems              bool
	prefixItems              []*Schema
	prefixKw                 string // "prefixItems" or "items"
	contains                 *Schema
	minContains, maxContains int

	minProps, maxProps int
	depRequired        []depRequired
	depSchemas         []depSchema
	patternProps       []patternProp
	propertyNames      *Schema

	ifS, thenS, elseS *Schema
	cond              *condTest // set when the schema is only an if/then on one property's constant

	dynRef       *Schema // 2020-12 $dynamicRef: the statically resolved target
	dynAnchor    string  // its anchor name, when dynamic
	recursiveRef *Schema // 2019-09 $recursiveRef: the statically resolved target

	unevalProps *Schema
	unevalItems *Schema

	assertContent    bool // with contentEncoding or contentMediaType
	contentEncoding  string
	contentMediaType string
	contentSchema    *Schema
}

// noRare is the rare keywords of every schema that has none.
var noRare = rareKeywords{minContains: -1, maxContains: -1, minProps: -1, maxProps: -1}

// rare returns the schema's own rare keywords, made when first written.
func (s *Schema) rare() *rareKeywords {
	if s.rareKeywords == &noRare {
		x := noRare
		s.rareKeywords = &x
	}
	return s.rareKeywords
}

const (
	alwaysNone uint8 = iota
	alwaysTrue
	alwaysFalse
)

type depRequired struct {
	prop     string
	required []string
	kw       string // "dependentRequired" or "dependencies"
}

type depSchema struct {
	prop   string
	schema *Schema
	kw     string // "dependentSchemas" or "dependencies"
}

type patternProp struct {
	src    string
	re     Regexp
	schema *Schema
}

// Pointer returns the schema's JSON Pointer within its document, and the document's file
// name ("" for inline and built-in documents). The pointer is made on each call, in time
// proportional to its length: a walk over every schema of a deeply nested document that
// asks each for its pointer takes time quadratic in the depth.
func (s *Schema) Pointer() (file, ptr string) { return s.doc.name, s.at.String() }

// PointerPrefix returns the first n reference tokens of the schema's JSON Pointer (the
// whole pointer when it has no more), made in time proportional to its length.
func (s *Schema) PointerPrefix(n int) string {
	l := s.at
	for l.depth > n {
		l = l.parent
	}
	return l.String()
}

// Depth returns the number of reference tokens of the schema's JSON Pointer.
func (s *Schema) Depth() int { return s.at.depth }

// File returns the name of the schema's file ("" for inline and built-in documents).
func (s *Schema) File() string { return s.doc.name }

// Location returns the schema's absolute URI: the base URI of its resource, "#", and its
// JSON Pointer relative to the resource; a resource read from a file of the workspace is
// named by the file's name instead of its file:// URI (see Loader.Display). Like Pointer,
// it is made on each call.
func (s *Schema) Location() string {
	base := s.res.at
	if s.res.uri == s.res.doc.uri {
		// A resource with no identifier of its own (a schema inside an OpenAPI document, say)
		// is addressed from its document's root, as its references are.
		base = nil
	}
	return s.res.shown + "#" + s.at.from(base)
}

// Position returns the line and column of the schema's keyword kw ("" for the schema
// itself) in its document: where the member's (last) key starts, or where the schema
// starts when it has no such keyword.
func (s *Schema) Position(kw string) (line, col int) {
	if kw != "" && s.val.Kind() == source.Object {
		for i := s.val.Len() - 1; i >= 0; i-- {
			if k, _ := s.val.Member(i); k.Str() == kw {
				return s.doc.src.Position(k.Offset())
			}
		}
	}
	return s.doc.src.Position(s.val.Offset())
}

// Document returns the parsed document the schema lives in.
func (s *Schema) Document() *source.Document { return s.doc.src }

// Value returns the schema's JSON value.
func (s *Schema) Value() source.Value { return s.val }

// lookedUp, when set (by a test), is told the name of every keyword the compiler looks
// up in a schema object: the keyword model's test checks with it that the compiler reads
// every keyword the model says it must.
var lookedUp func(kw string)

// vocabOff reports whether keyword kw is ignored in a schema of draft d in resource res
// because the meta-schema's $vocabulary leaves out the keyword's vocabulary (2019-09 and
// later; the format vocabulary of 2020-12 is on when either of its two is).
func vocabOff(d *Draft, res *resource, kw string) bool {
	if d.Version < 2019 || res.vocabs == nil {
		return false
	}
	k, ok := d.Keyword(kw)
	if !ok {
		// A keyword of the other draft with vocabularies (prefixItems in 2019-09,
		// additionalItems in 2020-12) goes with its vocabulary there.
		other := Draft2019
		if d.Version == 2019 {
			other = Draft2020
		}
		k, ok = other.Keyword(kw)
	}
	switch {
	case !ok || k.Vocab == "":
		return false
	case k.Vocab == "format-annotation":
		return !res.vocabs["format-annotation"] && !res.vocabs["format-assertion"]
	}
	return !res.vocabs[k.Vocab]
}

// kwReader reads the keywords of one schema object.
type kwReader struct {
	c   *Compiler
	s   *Schema
	v   source.Value
	err error
}

// get returns a keyword's value when the keyword is active in this schema's dialect.
func (r *kwReader) get(kw string) (source.Value, bool) {
	if lookedUp != nil {
		lookedUp(kw)
	}
	if r.err != nil || vocabOff(r.s.Draft, r.s.res, kw) {
		return source.Value{}, false
	}
	return r.v.Get(kw)
}

func (r *kwReader) fail(kw, format string, args ...any) {
	if r.err == nil {
		ptr := r.s.at.String()
		if kw != "" {
			ptr += "/" + source.EscapeToken(kw)
		}
		r.err = r.c.schemaErrAt(r.s.doc, ptr, format, args...)
	}
}

// sub begins the subschema of this schema at the reference tokens toks (unescaped).
func (r *kwReader) sub(toks ...string) *Schema {
	if r.err != nil {
		return nil
	}
	l := r.s.at
	for _, t := range toks {
		l = r.s.doc.child(l, t)
	}
	s, err := r.c.compileAt(r.s.doc, l)
	if err != nil {
		r.err = err
		return nil
	}
	return s
}

func (r *kwReader) schema(kw string) *Schema {
	if _, ok := r.get(kw); !ok {
		return nil
	}
	return r.sub(kw)
}

func (r *kwReader) schemaList(kw string) []*Schema {
	v, ok := r.get(kw)
	if !ok {
		return nil
	}
	if v.Kind() != source.Array {
		r.fail(kw, "%s must be an array of schemas", kw)
		return nil
	}
	out := make([]*Schema, v.Len())
	for i := range v.Items() {
		out[i] = r.sub(kw, strconv.Itoa(i))
	}
	return out
}

func (r *kwReader) count(kw string) int {
	v, ok := r.get(kw)
	if !ok {
		return -1
	}
	d := v.Num()
	n, isInt := d.Int64()
	if v.Kind() != source.Number || !d.IsInteger() || d.Sign() < 0 {
		r.fail(kw, "%s must be a non-negative integer", kw)
		return -1
	}
	if !isInt || n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n)
}

func (r *kwReader) number(kw string) *source.Decimal {
	v, ok := r.get(kw)
	if !ok {
		return nil
	}
	if v.Kind() != source.Number {
		r.fail(kw, "%s must be a number", kw)
		return nil
	}
	d, err := source.ParseDecimal(v.Str())
	if err != nil {
		r.fail(kw, "%s: %v", kw, err)
		return nil
	}
	return &d
}

func (r *kwReader) stringList(kw string, v source.Value) []string {
	if v.Kind() != source.Array {
		r.fail(kw, "%s must be an array of strings", kw)
		return nil
	}
	out := make([]string, 0, v.Len())
	for _, item := range v.Items() {
		if item.Kind() != source.String {
			r.fail(kw, "%s must be an array of strings", kw)
			return nil
		}
		out = append(out, item.Str())
	}
	return out
}

func (r *kwReader) ref(kw string) *Schema {
	v, ok := r.get(kw)
	if !ok {
		return nil
	}
	if v.Kind() != source.String {
		r.fail(kw, "%s must be a string", kw)
		return nil
	}
	u, frag, err := ResolveURI(r.s.res.uri, v.Str())
	if err != nil {
		r.fail(kw, "%v", err)
		return nil
	}
	target, err := r.c.resolve(u, frag, r.s)
	if err != nil {
		if se, ok := err.(*SchemaError); ok {
			r.err = se
			return nil
		}
		r.fail(kw, "cannot resolve %s %q: %v", kw, v.Str(), err)
		return nil
	}
	return target
}

// builtin meta-schemas are compiled once per process.
var (
	builtinMu    sync.Mutex
	builtinCache = map[string]*Schema{}
	builtinComp  *Compiler
)

func builtinMeta(uri string) (*Schema, error) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if s, ok := builtinCache[uri]; ok {
		return s, nil
	}
	if builtinComp == nil {
		builtinComp = NewCompiler(&Options{NoMetaValidation: true})
	}
	s, err := builtinComp.Compile(uri)
	if err != nil {
		return nil, fmt.Errorf("built-in meta-schema %s: %v", uri, err)
	}
	builtinCache[uri] = s
	return s, nil
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
