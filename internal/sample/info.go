package sample

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Sample's types are schema.TypeSet's classes of values, with "type" read as the draft
// reads it (schema.TypeByName: "integer" is 1 but not 1.0 in draft 4). Sample generates
// whole numbers without a decimal point, so it treats the whole classes as one, and asks
// whether a number may be other than whole with TypeFraction.

// wholeNumbers are the classes of the whole numbers (1, 1.0): what sample generates for
// an integer.
const wholeNumbers = schema.TypeInteger | schema.TypeDotted

// typeOrder lists the types sample generates, each as the classes it covers: the whole
// numbers as "integer", the others as "number".
var typeOrder = []struct {
	name string
	t    schema.TypeSet
}{{"null", schema.TypeNull}, {"boolean", schema.TypeBoolean}, {"integer", wholeNumbers},
	{"number", schema.TypeFraction}, {"string", schema.TypeString}, {"array", schema.TypeArray},
	{"object", schema.TypeObject}}

// typeList names the types of t that typeOrder lists: a number set is "integer" and
// "number", an integer set "integer".
func typeList(t schema.TypeSet) []string {
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

	types   schema.TypeSet // 0: no type keyword
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

	hints schema.TypeSet // types the keywords present suggest
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

// info returns the keyword view of s, made once per schema: the keywords of s read by
// the handlers of infoKeywords, then its subschemas by those of infoChildren.
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
	in.requiredSet, in.propSet = map[string]bool{}, map[string]bool{}
	for _, k := range infoKeywords {
		if !readsIn(s.Draft, k.name) {
			continue
		}
		if v, ok := kw(s, k.name); ok {
			k.read(g, in, v)
		}
	}
	for _, c := range s.Children() {
		if read := infoChildren()[c.Keyword]; read != nil {
			read(g, in, c)
		}
	}
	in.hints = in.suggested()
	return in
}

// suggested returns the types the keywords present suggest.
func (in *info) suggested() schema.TypeSet {
	var t schema.TypeSet
	if in.lower != nil || in.upper != nil || in.multipleOf != nil {
		t |= schema.TypeNumber
	}
	if in.minLen > 0 || in.maxLen >= 0 || in.pattern != nil || in.format != "" {
		t |= schema.TypeString
	}
	if in.minItems > 0 || in.maxItems >= 0 || in.unique || in.prefix != nil || in.items != nil || in.contains != nil {
		t |= schema.TypeArray
	}
	if in.props != nil || in.required != nil || in.patProps != nil || in.addl != nil || in.propNames != nil ||
		in.minProps > 0 || in.maxProps >= 0 || in.depRequired != nil || in.depSchemas != nil {
		t |= schema.TypeObject
	}
	return t
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
