package infer

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// A --from schema is read as a summary of earlier examples: every location it describes
// becomes a node carrying a seed (what the schema said there), and the new instances are
// observed on top. The seed is shared and never modified; what the new values did to it
// (a string that breaks the seeded format, say) is recorded on the node, so that seeded
// trees merge like any others.

// seed is what a --from schema says about one location.
type seed struct {
	types       kinds
	annotations []annotation
	required    map[string]bool
	hasProps    bool
	closed      bool
	isMap       bool
	mapSeed     *node

	format      string
	formatCheck *schema.Schema // nil for a format infer cannot check: kept as written
	enum        []source.Value
	pattern     string
	re          schema.Regexp
	multipleOf  *source.Decimal

	minimum, maximum     *source.Decimal
	minLength, maxLength int
	minItems, maxItems   int
	minProps, maxProps   int
}

type annotation struct {
	key string
	val source.Value
}

// What new values did to a seed, recorded on the node.
const (
	failFormat uint8 = 1 << iota
	failPattern
	failMultiple
)

// annotationKeywords are copied from the --from schema as they are: $id, $comment, and the
// keyword model's annotations that never assert and hold no subschema (title, default, ...).
var annotationKeywords []string

// understood are the keywords infer reads in the --from schema: the model's core and
// identifier keywords, which it reads past, $ref, which it follows, and the keywords it
// writes itself (the keys of seeders: what infer implements, not what a draft defines).
// Any other keyword of the --from schema is dropped with a note.
var understood map[string]bool

// Reads reports whether infer reads keyword name in a --from schema (copies it, reads past
// it, follows it, or writes it itself); it drops any other keyword with a note. The
// keyword model's contract test (internal/schema) holds it to the notes.
func Reads(name string) bool {
	tablesOnce.Do(makeTables)
	return understood[name] || slices.Contains(annotationKeywords, name)
}

// seedFunc reads one keyword kw of schema s, whose value is v, into node n.
type seedFunc func(sr *seeder, n *node, s *schema.Schema, kw string, v source.Value)

// seeders read the keywords infer writes itself. Made by makeTables: they reach understood
// through seeder.apply.
var seeders map[string]seedFunc

// tablesOnce makes annotationKeywords, understood and seeders (makeTables) when infer first
// reads a --from schema, not at every start of jstk.
var tablesOnce sync.Once

func makeTables() {
	annotationKeywords = append([]string{"$id", "$comment"}, schema.KeywordNames(schema.AllDrafts, func(k *schema.Keyword) bool {
		return k.Kind == schema.Annotation && !k.OnRequest && k.Shape == schema.NoSchema
	})...)
	counted := func(set func(sd *seed, c int)) seedFunc {
		return func(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) { set(n.seed, count(v)) }
	}
	seeders = map[string]seedFunc{
		"type": seedType, "properties": seedProperties, "required": seedRequired,
		"additionalProperties": seedAdditionalProperties, "items": seedItems, "enum": seedEnum, "const": seedConst,
		"format": seedFormat, "pattern": seedPattern, "multipleOf": seedMultipleOf,
		"minimum": seedMinimum, "exclusiveMinimum": seedMinimum, "maximum": seedMaximum, "exclusiveMaximum": seedMaximum,
		"minLength":     counted(func(sd *seed, c int) { sd.minLength = c }),
		"maxLength":     counted(func(sd *seed, c int) { sd.maxLength = c }),
		"minItems":      counted(func(sd *seed, c int) { sd.minItems = c }),
		"maxItems":      counted(func(sd *seed, c int) { sd.maxItems = c }),
		"minProperties": counted(func(sd *seed, c int) { sd.minProps = c }),
		"maxProperties": counted(func(sd *seed, c int) { sd.maxProps = c }),
		"allOf":         seedAllOf,
	}
	understood = map[string]bool{"$ref": true}
	for _, kw := range schema.KeywordNames(schema.AllDrafts, func(k *schema.Keyword) bool {
		return k.Kind == schema.Core || k.Kind == schema.Identifier
	}) {
		understood[kw] = true
	}
	for kw := range seeders {
		understood[kw] = true
	}
}

func (n *node) virtObj() int64 {
	if n.seed != nil && n.seed.types&kObject != 0 {
		return 1
	}
	return 0
}

func seedTypes(n *node) kinds {
	if n.seed == nil {
		return 0
	}
	return n.seed.types
}

// widenInts combines observed bounds with seeded ones: the lower bound is the smaller and
// the upper the larger; a seeded bound that is absent leaves that side open (-1) when
// nothing was observed.
func (sd *seed) widenInts(lo, hi int, seen bool, slo, shi int) (int, int, bool) {
	if !seen {
		if slo < 0 && shi < 0 {
			return 0, 0, false
		}
		return max(slo, 0), shi, true
	}
	if slo >= 0 {
		lo = min(lo, slo)
	}
	if shi >= 0 {
		hi = max(hi, shi)
	}
	return lo, hi, true
}

// formatKept reports whether every string seen satisfies the seeded format.
func (sd *seed) formatKept(n *node) bool { return n.seedFail&failFormat == 0 }

// mergedEnum is the seeded enum with every string seen added, or nil when that makes more
// than maxValues values (or too many strings were seen to tell).
func (sd *seed) mergedEnum(n *node, maxValues int) []any {
	if n.nStr > 0 && n.valuesOver {
		return nil
	}
	var out []any
	have := map[string]bool{}
	hasNull := false
	for _, v := range sd.enum {
		switch v.Kind() {
		case source.String:
			have[v.Str()] = true
		case source.Null:
			hasNull = true
			continue
		}
		out = append(out, v)
	}
	for _, s := range sortedKeys(n.values) {
		if !have[s] {
			out = append(out, s)
		}
	}
	if n.nNull > 0 || hasNull {
		out = append(out, source.NullValue())
	}
	if len(out) > max(maxValues, len(sd.enum)) {
		return nil
	}
	return out
}

func mergeSeed(a, b *node) {
	if a.seed == nil {
		a.seed = b.seed
	}
	a.seedFail |= b.seedFail
}

// checkString records what s does to the seed of n.
func (n *node) checkString(s string) {
	sd := n.seed
	if sd.formatCheck != nil && n.seedFail&failFormat == 0 {
		if ok, err := sd.formatCheck.Valid(source.StringValue(s)); err != nil || !ok {
			n.seedFail |= failFormat
		}
	}
	if sd.re != nil && n.seedFail&failPattern == 0 {
		if ok, err := sd.re.Match(s); err != nil || !ok {
			n.seedFail |= failPattern
		}
	}
}

func (n *node) checkNumber(d source.Decimal) {
	if sd := n.seed; sd.multipleOf != nil && !d.MultipleOf(*sd.multipleOf) {
		n.seedFail |= failMultiple
	}
}

// patternHolds and multipleHolds report whether every value seen satisfies the seeded
// pattern and multipleOf.
func (sd *seed) patternHolds(n *node) bool { return sd.pattern != "" && n.seedFail&failPattern == 0 }
func (sd *seed) multipleHolds(n *node) bool {
	return sd.multipleOf != nil && n.seedFail&failMultiple == 0
}

// seeder builds the seeded tree of a --from schema.
type seeder struct {
	draft   *schema.Draft
	notes   []string
	noted   map[string]bool         // the notes, as a set
	stack   []*schema.Schema        // the schemas being applied, outermost first
	onStack map[*schema.Schema]bool // the same, as a set
	fmts    map[string]*schema.Schema
}

// note records a note about s: its location, then the message. Past maxNotes notes, one
// last says that more were left out, and the others are not even made (a location is as
// long as the schema is deep).
func (sr *seeder) note(s *schema.Schema, format string, args ...any) {
	if len(sr.notes) > maxNotes {
		return
	}
	if len(sr.notes) == maxNotes {
		sr.notes = append(sr.notes, "further notes about the --from schema are left out")
		return
	}
	msg := location(s) + fmt.Sprintf(format, args...)
	if !sr.noted[msg] {
		if sr.noted == nil {
			sr.noted = map[string]bool{}
		}
		sr.noted[msg] = true
		sr.notes = append(sr.notes, msg)
	}
}

// maxNotes bounds the notes about a --from schema.
const maxNotes = 100

func location(s *schema.Schema) string {
	_, ptr := s.Pointer()
	if ptr == "" {
		return "#"
	}
	return "#" + ptr
}

// maxSeedDepth bounds the nesting of the schemas a --from schema is read through (its
// subschemas, and the targets of its references): apply recurses once per level, and the
// schema inferred is cut at the input's depth limit anyway.
const maxSeedDepth = 5000

// build returns the seeded node for s.
func (sr *seeder) build(s *schema.Schema) *node {
	n := &node{}
	sr.apply(n, s)
	return n
}

// apply adds what s says to n.
func (sr *seeder) apply(n *node, s *schema.Schema) {
	if b, isBool := s.Bool(); isBool {
		if !b {
			sr.note(s, ": the false schema accepts nothing; infer reads it as saying nothing")
		}
		return
	}
	if sr.onStack[s] {
		sr.note(s, ": a recursive $ref is not followed; the recursion is cut there")
		return
	}
	if len(sr.stack) >= maxSeedDepth {
		sr.note(s, ": nested deeper than %d schemas (through subschemas and $ref); not followed below", maxSeedDepth)
		return
	}
	if sr.onStack == nil {
		sr.onStack = map[*schema.Schema]bool{}
	}
	sr.stack = append(sr.stack, s)
	sr.onStack[s] = true
	defer func() {
		sr.stack = sr.stack[:len(sr.stack)-1]
		delete(sr.onStack, s)
	}()
	if n.seed == nil {
		n.seed = &seed{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	}
	sd := n.seed
	if t := s.Ref(); t != nil {
		sr.apply(n, t)
	}
	for _, kw := range s.Keywords() {
		if s.Ignored(kw) {
			continue
		}
		v, _ := s.Keyword(kw)
		if slices.Contains(annotationKeywords, kw) {
			if kw == "$id" && len(sr.stack) > 1 {
				continue
			}
			sd.annotations = append(sd.annotations, annotation{kw, v})
			continue
		}
		if !understood[kw] {
			sr.note(s, "/%s: not kept (infer writes no %s)", kw, kw)
			continue
		}
		sr.keyword(n, s, kw, v)
	}
}

func typeKinds(name string) kinds {
	switch name {
	case "null":
		return kNull
	case "boolean":
		return kBoolean
	case "integer":
		return kInteger
	case "number":
		return kNumber
	case "string":
		return kString
	case "array":
		return kArray
	case "object":
		return kObject
	}
	return 0
}

func valueKinds(v source.Value) kinds {
	switch v.Kind() {
	case source.Null:
		return kNull
	case source.Bool:
		return kBoolean
	case source.Number:
		if v.Num().IsInteger() {
			return kInteger
		}
		return kNumber
	case source.String:
		return kString
	case source.Array:
		return kArray
	case source.Object:
		return kObject
	}
	return 0
}

func count(v source.Value) int {
	if v.Kind() != source.Number {
		return -1
	}
	i, ok := v.Num().Int64()
	if !ok || i < 0 || i > 1<<31 {
		return -1
	}
	return int(i)
}

func (sr *seeder) keyword(n *node, s *schema.Schema, kw string, v source.Value) {
	if f, ok := seeders[kw]; ok {
		f(sr, n, s, kw, v)
	}
}

func seedType(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	if v.Kind() == source.String {
		n.seed.types |= typeKinds(v.Str())
	}
	for _, t := range v.Items() {
		n.seed.types |= typeKinds(t.Str())
	}
}

func seedProperties(sr *seeder, n *node, s *schema.Schema, _ string, v source.Value) {
	n.seed.hasProps = true
	n.seed.types |= kObject
	for i, c := range s.Children() {
		if c.Keyword != "properties" {
			continue
		}
		if n.props == nil {
			n.props = map[string]*prop{}
		}
		p := n.props[c.Key]
		if p == nil {
			p = &prop{n: &node{}, first: order{seq: 0, idx: uint32(propIndex(v, c.Key, i))}}
			n.props[c.Key] = p
		}
		sr.apply(p.n, c.Schema)
	}
}

func seedRequired(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	if n.seed.required == nil {
		n.seed.required = map[string]bool{}
	}
	for _, r := range v.Items() {
		n.seed.required[r.Str()] = true
	}
}

func seedAdditionalProperties(sr *seeder, n *node, s *schema.Schema, kw string, v source.Value) {
	sd := n.seed
	if v.Kind() == source.Bool {
		sd.closed = !v.Bool()
		return
	}
	for _, c := range s.Children() {
		if c.Keyword == kw {
			sd.isMap = true
			sd.types |= kObject
			sd.mapSeed = sr.build(c.Schema)
		}
	}
}

func seedItems(sr *seeder, n *node, s *schema.Schema, kw string, v source.Value) {
	if v.Kind() == source.Array {
		sr.note(s, "/items: a list of item schemas is not kept (infer writes one schema for all items)")
		return
	}
	for _, c := range s.Children() {
		if c.Keyword == kw && c.Index < 0 {
			n.seed.types |= kArray
			if n.items == nil {
				n.items = &node{}
			}
			sr.apply(n.items, c.Schema)
		}
	}
}

func seedEnum(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	n.seed.enum = v.Items()
	for _, e := range n.seed.enum {
		n.seed.types |= valueKinds(e)
	}
}

func seedConst(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	n.seed.enum = []source.Value{v}
	n.seed.types |= valueKinds(v)
}

func seedFormat(sr *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	if v.Kind() != source.String {
		return
	}
	sd := n.seed
	sd.format = v.Str()
	if slices.Contains(schema.KnownFormats(), sd.format) {
		chk, ok := sr.fmts[sd.format]
		if !ok {
			var err error
			chk, err = compileFormat(sd.format, sr.draft)
			if err != nil {
				chk = nil
			}
			sr.fmts[sd.format] = chk
		}
		sd.formatCheck = chk
	}
}

func seedPattern(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	re, err := schema.CompileRegexp(v.Str(), 2*time.Second)
	if err == nil {
		n.seed.pattern, n.seed.re = v.Str(), re
	}
}

func seedMultipleOf(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	d := v.Num()
	n.seed.multipleOf = &d
}

// seedMinimum reads minimum and exclusiveMinimum: the least bound is kept.
func seedMinimum(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	if v.Kind() == source.Number {
		d := v.Num()
		if n.seed.minimum == nil || d.Cmp(*n.seed.minimum) < 0 {
			n.seed.minimum = &d
		}
	}
}

// seedMaximum reads maximum and exclusiveMaximum: the greatest bound is kept.
func seedMaximum(_ *seeder, n *node, _ *schema.Schema, _ string, v source.Value) {
	if v.Kind() == source.Number {
		d := v.Num()
		if n.seed.maximum == nil || d.Cmp(*n.seed.maximum) > 0 {
			n.seed.maximum = &d
		}
	}
}

func seedAllOf(sr *seeder, n *node, s *schema.Schema, kw string, _ source.Value) {
	for _, c := range s.Children() {
		if c.Keyword == kw {
			sr.apply(n, c.Schema)
		}
	}
}

// propIndex is the position of a property in the properties keyword, for output order.
func propIndex(props source.Value, key string, fallback int) int {
	for i := 0; i < props.Len(); i++ {
		if props.Key(i) == key {
			return i
		}
	}
	return fallback
}

// annotations writes the seeded annotations of n first, in the order the schema had them.
func (e *emitter) annotations(s *sobj, n *node) {
	if n.seed == nil {
		return
	}
	for _, a := range n.seed.annotations {
		s.set(a.key, a.val)
	}
}
