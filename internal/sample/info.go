package sample

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// typeSet is a set of JSON Schema types.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumber // numbers that need not be integers
	tString
	tArray
	tObject

	tAll = tNull | tBoolean | tInteger | tNumber | tString | tArray | tObject
)

var typeOrder = []struct {
	name string
	t    typeSet
}{{"null", tNull}, {"boolean", tBoolean}, {"integer", tInteger}, {"number", tNumber},
	{"string", tString}, {"array", tArray}, {"object", tObject}}

func typeByName(n string) typeSet {
	for _, t := range typeOrder {
		if t.name == n {
			if t.t == tNumber {
				return tNumber | tInteger // a number may be an integer
			}
			return t.t
		}
	}
	return 0
}

func (t typeSet) names() []string {
	var out []string
	for _, x := range typeOrder {
		if t&x.t != 0 {
			out = append(out, x.name)
		}
	}
	return out
}

type patProp struct {
	src string
	pg  *patternGen
	s   *schema.Schema
}

// info is the keyword view of one schema object that generation needs: the raw
// assertions (read with the dialect's rules: ignored keywords are left out) and the
// subschemas of the applicators.
type info struct {
	s       *schema.Schema
	boolean int8 // 1: true schema, -1: false schema, 0: an object
	version int

	types   typeSet // 0: no type keyword
	enum    []source.Value
	hasEnum bool

	lower, upper           *big.Rat
	lowerExcl, upperExcl   bool
	multipleOf             *big.Rat
	minLen, maxLen         int
	pattern                *patternGen
	patternErr             error
	format                 string
	contentEnc, contentMed string

	minItems, maxItems       int
	unique                   bool
	prefix                   []*schema.Schema
	items                    *schema.Schema
	contains                 *schema.Schema
	minContains, maxContains int
	unevalItems              *schema.Schema

	props       map[string]*schema.Schema
	propOrder   []string // without duplicates
	propSet     map[string]bool
	requiredSet map[string]bool
	patProps    []patProp
	addl        *schema.Schema
	propNames   *schema.Schema
	required    []string
	minProps    int
	maxProps    int
	depRequired map[string][]string
	depOrder    []string
	depSchemas  map[string]*schema.Schema
	unevalProps *schema.Schema

	allOf, anyOf, oneOf []*schema.Schema
	not                 *schema.Schema
	ifS, thenS, elseS   *schema.Schema

	examples []source.Value

	hints typeSet // types the keywords present suggest
}

// kw returns a keyword's value when the dialect applies it here.
func kw(s *schema.Schema, name string) (source.Value, bool) {
	if s.Ignored(name) {
		return source.Value{}, false
	}
	return s.Keyword(name)
}

// ratOf returns a number exactly, or nil when it is not a number or its exponent is too
// large to compute with (|exponent| > 4000).
func ratOf(v source.Value) *big.Rat {
	if v.Kind() != source.Number {
		return nil
	}
	text := v.Num().String()
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimPrefix(text[i+1:], "+")); err != nil || e > 4000 || e < -4000 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil
	}
	return r
}

func countOf(v source.Value, def int) int {
	if v.Kind() != source.Number {
		return def
	}
	d := v.Num()
	i, ok := d.Int64()
	if !ok {
		if d.Sign() > 0 {
			return 1 << 30
		}
		return def
	}
	if i > 1<<30 {
		return 1 << 30
	}
	return int(i)
}

func (g *gen) info(s *schema.Schema) *info {
	if in, ok := g.infos[s]; ok {
		return in
	}
	in := &info{s: s, version: s.Draft.Version, minLen: 0, maxLen: -1, maxItems: -1, maxProps: -1,
		minContains: 1, maxContains: -1}
	g.infos[s] = in
	if b, isBool := s.Bool(); isBool {
		in.boolean = -1
		if b {
			in.boolean = 1
		}
		return in
	}
	v := in.version
	if tv, ok := kw(s, "type"); ok {
		switch tv.Kind() {
		case source.String:
			in.types = typeByName(tv.Str())
		case source.Array:
			for _, t := range tv.Items() {
				in.types |= typeByName(t.Str())
			}
		}
	}
	if ev, ok := kw(s, "enum"); ok && ev.Kind() == source.Array {
		in.enum, in.hasEnum = ev.Items(), true
	}
	if v >= 6 {
		if cv, ok := kw(s, "const"); ok {
			in.enum, in.hasEnum = []source.Value{cv}, true
		}
	}
	// numbers
	if mv, ok := kw(s, "minimum"); ok {
		in.lower = ratOf(mv)
	}
	if mv, ok := kw(s, "maximum"); ok {
		in.upper = ratOf(mv)
	}
	if ev, ok := kw(s, "exclusiveMinimum"); ok {
		if v == 4 {
			in.lowerExcl = ev.Kind() == source.Bool && ev.Bool()
		} else if r := ratOf(ev); r != nil && (in.lower == nil || r.Cmp(in.lower) >= 0) {
			in.lower, in.lowerExcl = r, true
		}
	}
	if ev, ok := kw(s, "exclusiveMaximum"); ok {
		if v == 4 {
			in.upperExcl = ev.Kind() == source.Bool && ev.Bool()
		} else if r := ratOf(ev); r != nil && (in.upper == nil || r.Cmp(in.upper) <= 0) {
			in.upper, in.upperExcl = r, true
		}
	}
	if v == 4 {
		in.lowerExcl = in.lowerExcl && in.lower != nil
		in.upperExcl = in.upperExcl && in.upper != nil
	}
	if mv, ok := kw(s, "multipleOf"); ok {
		if r := ratOf(mv); r != nil && r.Sign() > 0 {
			in.multipleOf = r
		}
	}
	// strings
	if mv, ok := kw(s, "minLength"); ok {
		in.minLen = countOf(mv, 0)
	}
	if mv, ok := kw(s, "maxLength"); ok {
		in.maxLen = countOf(mv, -1)
	}
	if pv, ok := kw(s, "pattern"); ok && pv.Kind() == source.String {
		in.pattern, in.patternErr = g.patternGen(pv.Str())
	}
	if fv, ok := kw(s, "format"); ok && fv.Kind() == source.String {
		in.format = fv.Str()
	}
	if v >= 7 {
		if cv, ok := kw(s, "contentEncoding"); ok && cv.Kind() == source.String {
			in.contentEnc = cv.Str()
		}
		if cv, ok := kw(s, "contentMediaType"); ok && cv.Kind() == source.String {
			in.contentMed = cv.Str()
		}
	}
	// arrays
	if mv, ok := kw(s, "minItems"); ok {
		in.minItems = countOf(mv, 0)
	}
	if mv, ok := kw(s, "maxItems"); ok {
		in.maxItems = countOf(mv, -1)
	}
	if uv, ok := kw(s, "uniqueItems"); ok && uv.Kind() == source.Bool {
		in.unique = uv.Bool()
	}
	if v >= 2019 {
		if mv, ok := kw(s, "minContains"); ok {
			in.minContains = countOf(mv, 1)
		}
		if mv, ok := kw(s, "maxContains"); ok {
			in.maxContains = countOf(mv, -1)
		}
	}
	// objects
	in.requiredSet, in.propSet = map[string]bool{}, map[string]bool{}
	if rv, ok := kw(s, "required"); ok && rv.Kind() == source.Array {
		for _, r := range rv.Items() {
			if r.Kind() == source.String && !in.requiredSet[r.Str()] {
				in.required = append(in.required, r.Str())
				in.requiredSet[r.Str()] = true
			}
		}
	}
	if mv, ok := kw(s, "minProperties"); ok {
		in.minProps = countOf(mv, 0)
	}
	if mv, ok := kw(s, "maxProperties"); ok {
		in.maxProps = countOf(mv, -1)
	}
	addDep := func(name string, list source.Value) {
		if in.depRequired == nil {
			in.depRequired = map[string][]string{}
		}
		if _, seen := in.depRequired[name]; !seen {
			in.depOrder = append(in.depOrder, name)
		}
		for _, r := range list.Items() {
			if r.Kind() == source.String {
				in.depRequired[name] = append(in.depRequired[name], r.Str())
			}
		}
	}
	if dv, ok := kw(s, "dependencies"); ok && dv.Kind() == source.Object {
		for i := 0; i < dv.Len(); i++ {
			k, val := dv.Member(i)
			if val.Kind() == source.Array {
				addDep(k.Str(), val)
			}
		}
	}
	if v >= 2019 {
		if dv, ok := kw(s, "dependentRequired"); ok && dv.Kind() == source.Object {
			for i := 0; i < dv.Len(); i++ {
				k, val := dv.Member(i)
				addDep(k.Str(), val)
			}
		}
	}
	if pv, ok := kw(s, "properties"); ok && pv.Kind() == source.Object {
		for i := 0; i < pv.Len(); i++ {
			if k := pv.Key(i); !in.propSet[k] {
				in.propOrder = append(in.propOrder, k)
				in.propSet[k] = true
			}
		}
	}
	for _, c := range s.Children() {
		switch c.Keyword {
		case "properties":
			if in.props == nil {
				in.props = map[string]*schema.Schema{}
			}
			in.props[c.Key] = c.Schema
		case "patternProperties":
			pg, err := g.patternGen(c.Key)
			if err == nil {
				in.patProps = append(in.patProps, patProp{c.Key, pg, c.Schema})
			}
		case "additionalProperties":
			in.addl = c.Schema
		case "propertyNames":
			in.propNames = c.Schema
		case "dependentSchemas", "dependencies":
			if in.depSchemas == nil {
				in.depSchemas = map[string]*schema.Schema{}
			}
			in.depSchemas[c.Key] = c.Schema
		case "prefixItems":
			in.prefix = append(in.prefix, c.Schema)
		case "items":
			if c.Index >= 0 {
				in.prefix = append(in.prefix, c.Schema)
			} else {
				in.items = c.Schema
			}
		case "additionalItems":
			in.items = c.Schema
		case "contains":
			in.contains = c.Schema
		case "allOf":
			in.allOf = append(in.allOf, c.Schema)
		case "anyOf":
			in.anyOf = append(in.anyOf, c.Schema)
		case "oneOf":
			in.oneOf = append(in.oneOf, c.Schema)
		case "not":
			in.not = c.Schema
		case "if":
			in.ifS = c.Schema
		case "then":
			in.thenS = c.Schema
		case "else":
			in.elseS = c.Schema
		case "unevaluatedProperties":
			in.unevalProps = c.Schema
		case "unevaluatedItems":
			in.unevalItems = c.Schema
		}
	}
	if ev, ok := kw(s, "examples"); ok && ev.Kind() == source.Array {
		in.examples = append(in.examples, ev.Items()...)
	}
	if dv, ok := kw(s, "default"); ok {
		in.examples = append(in.examples, dv)
	}
	// hints
	if in.lower != nil || in.upper != nil || in.multipleOf != nil {
		in.hints |= tNumber | tInteger
	}
	if in.minLen > 0 || in.maxLen >= 0 || in.pattern != nil || in.format != "" {
		in.hints |= tString
	}
	if in.minItems > 0 || in.maxItems >= 0 || in.unique || in.prefix != nil || in.items != nil || in.contains != nil {
		in.hints |= tArray
	}
	if in.props != nil || in.required != nil || in.patProps != nil || in.addl != nil || in.propNames != nil ||
		in.minProps > 0 || in.maxProps >= 0 || in.depRequired != nil || in.depSchemas != nil {
		in.hints |= tObject
	}
	return in
}

// patternGen returns the generator of a pattern, made once per pattern.
func (g *gen) patternGen(src string) (*patternGen, error) {
	if pg, ok := g.patterns[src]; ok {
		return pg, g.patternErrs[src]
	}
	pg, err := newPatternGen(src)
	if pg != nil {
		pg.ctx, pg.stop = g.ctx, g.stopOn
	}
	g.patterns[src] = pg
	g.patternErrs[src] = err
	return pg, err
}
