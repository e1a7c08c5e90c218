package infer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/partition"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// sobj is a schema object being written: keywords in the order they will be printed.
type sobj struct {
	keys   []string
	vals   []any // string, bool, int, int64, source.Decimal, source.Value, *sobj, []any
	hint   string
	schema bool // a schema, not an object of schemas (properties) or of definitions
}

func (o *sobj) set(k string, v any) {
	for i, kk := range o.keys {
		if kk == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (o *sobj) get(k string) (any, bool) {
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// value converts the schema to a source.Value.
func (o *sobj) value() source.Value {
	var b source.ObjectBuilder
	for i, k := range o.keys {
		b.Set(k, anyValue(o.vals[i]))
	}
	return b.Value()
}

func anyValue(x any) source.Value {
	switch x := x.(type) {
	case string:
		return source.StringValue(x)
	case bool:
		return source.BoolValue(x)
	case int:
		return source.IntValue(int64(x))
	case int64:
		return source.IntValue(x)
	case source.Decimal:
		return source.NumberValue(x.String())
	case source.Value:
		return x
	case *sobj:
		return x.value()
	case []any:
		items := make([]source.Value, len(x))
		for i, it := range x {
			items[i] = anyValue(it)
		}
		return source.ArrayValue(items...)
	}
	panic("infer: cannot encode schema value")
}

// emitter turns a summary into a schema.
type emitter struct {
	opts  *Options
	fmts  *formatSet
	draft *schema.Draft
}

func (e *emitter) typeNames(n *node) []string {
	var ts []string
	st := seedTypes(n)
	if n.nObj > 0 || n.virtObj() > 0 || st&kObject != 0 {
		ts = append(ts, "object")
	}
	if n.nArr > 0 || st&kArray != 0 {
		ts = append(ts, "array")
	}
	if n.nStr > 0 || st&kString != 0 {
		ts = append(ts, "string")
	}
	switch {
	case n.nNum > 0 || st&kNumber != 0:
		ts = append(ts, "number")
	case n.nInt > 0 || st&kInteger != 0:
		ts = append(ts, "integer")
	}
	if n.nBool > 0 || st&kBoolean != 0 {
		ts = append(ts, "boolean")
	}
	if n.nNull > 0 || st&kNull != 0 {
		ts = append(ts, "null")
	}
	return ts
}

func typeValue(ts []string) any {
	if len(ts) == 1 {
		return ts[0]
	}
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// schema writes the schema of one location; hint names it (the property it belongs to).
func (e *emitter) schema(n *node, hint string) *sobj {
	s := &sobj{hint: hint, schema: true}
	e.annotations(s, n)
	if n.count == 0 && n.seed == nil {
		return s
	}
	if alts := e.alternatives(n, hint); alts != nil {
		s.set("anyOf", alts)
		return s
	}
	n = withShapesMerged(n)
	ts := e.typeNames(n)
	if len(ts) == 0 {
		return s
	}
	s.set("type", typeValue(ts))
	e.typeKeywords(s, n, ts, hint)
	return s
}

// typeKeywords adds the keywords of each type present at n.
func (e *emitter) typeKeywords(s *sobj, n *node, ts []string, hint string) {
	has := func(t string) bool {
		for _, x := range ts {
			if x == t {
				return true
			}
		}
		return false
	}
	if has("string") {
		e.stringKeywords(s, n, ts)
	}
	if has("number") || has("integer") {
		e.numberKeywords(s, n)
	}
	if has("array") {
		e.arrayKeywords(s, n, hint)
	}
	if has("object") {
		e.objectKeywords(s, n)
	}
}

func (e *emitter) stringKeywords(s *sobj, n *node, ts []string) {
	format := ""
	if n.nStr > 0 {
		format = e.fmts.best(n.formats)
	}
	if sd := n.seed; sd != nil && sd.format != "" && (n.nStr == 0 || sd.formatKept(n)) {
		format = sd.format
	}
	if format != "" {
		s.set("format", format)
	}
	if vals := e.enumValues(n, format, ts); vals != nil {
		s.set("enum", vals)
	}
	if sd := n.seed; sd != nil && sd.patternHolds(n) {
		s.set("pattern", sd.pattern)
	}
	lo, hi, ok := n.strMin, n.strMax, n.nStr > 0
	if sd := n.seed; sd != nil {
		lo, hi, ok = sd.widenInts(lo, hi, ok, sd.minLength, sd.maxLength)
	}
	if ok {
		e.sizeBounds(s, "minLength", "maxLength", lo, hi, n.seed, func(sd *seed) (int, int) { return sd.minLength, sd.maxLength })
	}
}

// enumValues returns the enum of a location's strings, or nil: when the strings repeat
// enough (at least EnumMinCount of them, fewer distinct values than both EnumMaxValues
// and the square root of their number), have no format, and the location holds no other
// kind than strings and null. A seeded enum is kept when every string seen is in it.
func (e *emitter) enumValues(n *node, format string, ts []string) []any {
	for _, t := range ts {
		if t != "string" && t != "null" {
			return nil
		}
	}
	if sd := n.seed; sd != nil && sd.enum != nil {
		return sd.mergedEnum(n, e.opts.EnumMaxValues)
	}
	if format != "" || n.valuesOver || len(n.values) == 0 {
		return nil
	}
	d := int64(len(n.values))
	if n.nStr < int64(e.opts.EnumMinCount) || d > int64(e.opts.EnumMaxValues) || d*d >= n.nStr {
		return nil
	}
	vals := sortedKeys(n.values)
	out := make([]any, 0, len(vals)+1)
	for _, v := range vals {
		out = append(out, v)
	}
	if n.nNull > 0 {
		out = append(out, source.NullValue())
	}
	return out
}

func (e *emitter) numberKeywords(s *sobj, n *node) {
	have := n.nInt+n.nNum > 0
	lo, hi := n.numMin, n.numMax
	sd := n.seed
	if sd != nil {
		if sd.minimum != nil && (!have || sd.minimum.Cmp(lo) < 0) {
			lo = *sd.minimum
		}
		if sd.maximum != nil && (!have || sd.maximum.Cmp(hi) > 0) {
			hi = *sd.maximum
		}
	}
	if e.opts.Bounds && have || sd != nil && sd.minimum != nil {
		s.set("minimum", lo)
	}
	if e.opts.Bounds && have || sd != nil && sd.maximum != nil {
		s.set("maximum", hi)
	}
	if sd != nil && sd.multipleHolds(n) {
		s.set("multipleOf", *sd.multipleOf)
	}
}

func (e *emitter) arrayKeywords(s *sobj, n *node, hint string) {
	if n.items != nil && (n.items.count > 0 || n.items.seed != nil) {
		s.set("items", e.schema(n.items, singular(hint)))
	}
	lo, hi, ok := n.arrMin, n.arrMax, n.nArr > 0
	if sd := n.seed; sd != nil {
		lo, hi, ok = sd.widenInts(lo, hi, ok, sd.minItems, sd.maxItems)
	}
	if ok {
		e.sizeBounds(s, "minItems", "maxItems", lo, hi, n.seed, func(sd *seed) (int, int) { return sd.minItems, sd.maxItems })
	}
}

func (e *emitter) objectKeywords(s *sobj, n *node) {
	if vals := e.mapValues(n); vals != nil {
		s.set("additionalProperties", e.schema(vals, singular(s.hint)))
	} else {
		keys := orderedProps(n)
		if len(keys) > 0 {
			props := &sobj{}
			for _, k := range keys {
				props.set(k, e.schema(n.props[k].n, k))
			}
			s.set("properties", props)
		}
		var req []any
		total := n.nObj + n.virtObj()
		for _, k := range keys {
			present := n.props[k].present
			if n.virtObj() > 0 && n.seed.required[k] {
				present++
			}
			if present == total && total > 0 {
				req = append(req, k)
			}
		}
		if len(req) > 0 {
			s.set("required", req)
		}
		if e.opts.Closed || n.seed != nil && n.seed.closed {
			s.set("additionalProperties", false)
		}
	}
	lo, hi, ok := n.objMin, n.objMax, n.nObj > 0
	if sd := n.seed; sd != nil {
		lo, hi, ok = sd.widenInts(lo, hi, ok, sd.minProps, sd.maxProps)
	}
	if ok {
		e.sizeBounds(s, "minProperties", "maxProperties", lo, hi, n.seed, func(sd *seed) (int, int) { return sd.minProps, sd.maxProps })
	}
}

// sizeBounds writes a pair of size keywords: both with --bounds, else the sides a --from
// schema had (widened to what was seen). hi < 0 is no upper bound.
func (e *emitter) sizeBounds(s *sobj, minKw, maxKw string, lo, hi int, sd *seed, sides func(*seed) (int, int)) {
	slo, shi := -1, -1
	if sd != nil {
		slo, shi = sides(sd)
	}
	if e.opts.Bounds || slo >= 0 {
		s.set(minKw, lo)
	}
	if hi >= 0 && (e.opts.Bounds || shi >= 0) {
		s.set(maxKw, hi)
	}
}

// orderedProps lists the properties of n in the order they were first seen.
func orderedProps(n *node) []string {
	keys := sortedKeys(n.props)
	sort.SliceStable(keys, func(i, j int) bool { return n.props[keys[i]].first.less(n.props[keys[j]].first) })
	return keys
}

// mapValues returns the merged node of an object location's values when the location is
// a map (too many keys to track, keys that look like data, or many keys that vary between
// objects with values of one type), or nil.
func (e *emitter) mapValues(n *node) *node {
	if n.mapVals != nil {
		return n.mapVals
	}
	if n.seed != nil && n.seed.isMap {
		return e.mergedProps(n)
	}
	k := len(n.props)
	if k < 2 || n.nObj == 0 || n.seed != nil && n.seed.hasProps {
		return nil
	}
	var sig kinds
	var present int64
	for i, key := range sortedKeys(n.props) {
		p := n.props[key]
		ks := nodeKinds(p.n)
		if i == 0 {
			sig = ks
		} else if ks != sig {
			return nil
		}
		present += p.present
	}
	dataKeys := true
	for key := range n.props {
		if !dataLike(key) {
			dataKeys = false
			break
		}
	}
	avg := float64(present) / float64(n.nObj)
	if (dataKeys && k >= 3) || (k >= e.opts.MapMinKeys && avg*2 <= float64(k)) {
		return e.mergedProps(n)
	}
	return nil
}

func (e *emitter) mergedProps(n *node) *node {
	vals := make([]*node, 0, len(n.props)+1)
	for _, key := range sortedKeys(n.props) {
		vals = append(vals, n.props[key].n)
	}
	if n.seed != nil && n.seed.mapSeed != nil {
		vals = append(vals, n.seed.mapSeed)
	}
	if m := union(vals); m != nil {
		return m
	}
	return &node{}
}

// dataLike reports keys that are data rather than names: numbers, UUIDs, dates, long hex.
func dataLike(k string) bool {
	if k == "" {
		return false
	}
	if _, err := strconv.ParseFloat(k, 64); err == nil {
		return true
	}
	if prefilter("uuid", k) || prefilter("date", k) || prefilter("date-time", k) {
		return true
	}
	if len(k) >= 8 {
		for i := 0; i < len(k); i++ {
			c := k[i]
			if !isDigit(c) && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
				return false
			}
		}
		return true
	}
	return false
}

// kinds is a set of JSON Schema types.
type kinds uint8

const (
	kNull kinds = 1 << iota
	kBoolean
	kInteger
	kNumber
	kString
	kArray
	kObject
)

func nodeKinds(n *node) kinds {
	var k kinds
	if n.nNull > 0 {
		k |= kNull
	}
	if n.nBool > 0 {
		k |= kBoolean
	}
	if n.nInt > 0 || n.nNum > 0 {
		k |= kNumber // integers and numbers are one family for map detection
	}
	if n.nStr > 0 {
		k |= kString
	}
	if n.nArr > 0 {
		k |= kArray
	}
	if n.nObj > 0 {
		k |= kObject
	}
	return k
}

// alternatives writes the anyOf of differently shaped objects (--any-of), or nil when the
// objects of n form one group.
func (e *emitter) alternatives(n *node, hint string) []any {
	if !e.opts.AnyOf || n.shapesOver || len(n.shapes) < 2 || n.seed != nil && n.seed.hasProps {
		return nil
	}
	if e.mapValues(withShapesMerged(n)) != nil {
		return nil // objects with varying keys of one type are a map, not alternatives
	}
	groups := groupShapes(n.shapes)
	if len(groups) < 2 {
		return nil
	}
	var alts []any
	for _, g := range groups {
		s := &sobj{hint: hint, schema: true}
		s.set("type", "object")
		e.objectKeywords(s, g)
		alts = append(alts, s)
	}
	// The other kinds seen here form one more alternative.
	rest := *n
	rest.nObj, rest.props, rest.shapes, rest.mapVals = 0, nil, nil, nil
	if ts := e.typeNames(&rest); len(ts) > 0 {
		s := &sobj{hint: hint, schema: true}
		s.set("type", typeValue(ts))
		e.typeKeywords(s, &rest, ts, hint)
		alts = append(alts, s)
	}
	return alts
}

// withShapesMerged returns n with the objects of its shapes (--any-of) merged into its
// properties, for writing one object schema.
func withShapesMerged(n *node) *node {
	if len(n.shapes) == 0 {
		return n
	}
	m := *n
	m.shapes = nil
	srcs := []*node{n}
	for _, sig := range sortedKeys(n.shapes) {
		srcs = append(srcs, n.shapes[sig].n)
	}
	unionMembers(&m, srcs)
	return &m
}

// groupShapes merges key sets into groups of similar objects: two shapes join when they
// share at least half of the keys of their union (Jaccard similarity), transitively.
// Shapes are taken in the order they were first seen, so the grouping is deterministic.
func groupShapes(shapes map[string]*shape) []*node {
	sigs := sortedKeys(shapes)
	sort.SliceStable(sigs, func(i, j int) bool { return shapes[sigs[i]].first.less(shapes[sigs[j]].first) })
	sets := partition.New(len(sigs))
	keysOf := make([]map[string]bool, len(sigs))
	for i, s := range sigs {
		keysOf[i] = map[string]bool{}
		if s != "" {
			for _, k := range strings.Split(s, "\x00") {
				keysOf[i][k] = true
			}
		}
	}
	for i := range sigs {
		for j := i + 1; j < len(sigs); j++ {
			inter := 0
			for k := range keysOf[i] {
				if keysOf[j][k] {
					inter++
				}
			}
			union := len(keysOf[i]) + len(keysOf[j]) - inter
			if union == 0 || 2*inter >= union {
				sets.Join(i, j)
			}
		}
	}
	var out []*node
	for _, items := range sets.Groups() {
		ms := make([]*node, len(items))
		for k, i := range items {
			ms[k] = shapes[sigs[i]].n
		}
		out = append(out, union(ms)) // one node is shared as it is: the emission only reads it
	}
	return out
}

// singular names the items of an array from the array's name.
func singular(name string) string {
	switch {
	case name == "":
		return ""
	case strings.HasSuffix(name, "ies") && len(name) > 4:
		return name[:len(name)-3] + "y"
	case strings.HasSuffix(name, "sses"):
		return name[:len(name)-2]
	case strings.HasSuffix(name, "s") && !strings.HasSuffix(name, "ss") && len(name) > 3:
		return name[:len(name)-1]
	}
	return name + "Item"
}

// ---- bounded depth ----

// maxDepth is the deepest nesting the inferred schema of instances read under lim may
// have: the instances' own limit, and at most source.DefaultMaxDepth, which common JSON
// decoders accept (Go's among them: deeper, an MCP answer could not be written), less room
// for the envelope of an answer and for the $defs that extractDefs may add.
func maxDepth(lim *source.Limits) int {
	d := source.DefaultMaxDepth
	if lim != nil && lim.MaxDepth > 0 {
		d = min(d, lim.MaxDepth)
	}
	return max(d-10, 8)
}

// cutDeep replaces the schemas of doc nested deeper than limit-2 levels (doc being at level
// 1) by empty schemas, which accept every value, so the schema stays sound and nests at
// most limit levels. It returns a note saying where, or "" when nothing was cut. Its walk
// keeps a stack of its own.
func cutDeep(doc *sobj, limit int) string {
	type step struct {
		up  int // the step before, -1 at the root
		tok string
	}
	type visit struct {
		x     any
		depth int // the nesting of x
		at    int // its last step
	}
	steps := []step{}
	stack := []visit{{doc, 1, -1}}
	cut, first := 0, -1
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var keys []string
		var vals []any
		switch x := it.x.(type) {
		case *sobj:
			keys, vals = x.keys, x.vals
		case []any:
			vals = x
		}
		for i := len(vals) - 1; i >= 0; i-- {
			v := vals[i]
			o, isObj := v.(*sobj)
			_, isArr := v.([]any)
			if !isObj && !isArr {
				continue
			}
			tok := strconv.Itoa(i)
			if keys != nil {
				tok = source.EscapeToken(keys[i])
			}
			steps = append(steps, step{it.at, tok})
			if isObj && o.schema && it.depth+1 > limit-2 {
				vals[i] = &sobj{schema: true, hint: o.hint}
				if cut++; first < 0 || len(steps)-1 < first {
					first = len(steps) - 1
				}
				continue
			}
			stack = append(stack, visit{v, it.depth + 1, len(steps) - 1})
		}
	}
	if cut == 0 {
		return ""
	}
	var toks []string
	for s := first; s >= 0; s = steps[s].up {
		toks = append(toks, steps[s].tok)
	}
	slices.Reverse(toks)
	where := "/" + strings.Join(toks, "/")
	where = diag.Middle(where, 200)
	more := ""
	if cut > 1 {
		more = fmt.Sprintf(" and %d other places", cut-1)
	}
	return fmt.Sprintf("the inferred schema nests deeper than %d levels: it is cut at %s%s, where any value is accepted", limit, where, more)
}

// ---- repeated shapes into $defs ----

// canonTable numbers the canonical forms of the schema objects of a tree: two get the same
// number exactly when their canonical texts are equal, the text with keys sorted and the
// required names sorted (so that schemas that differ only in the order of their keywords
// or properties compare equal), and size is the length of that text. Both are made bottom
// up, each object's from its children's numbers: a deep tree takes time linear in its size,
// where the texts themselves would take the square of its depth.
type canonTable struct {
	ids  map[string]int
	id   map[*sobj]int
	size map[*sobj]int
}

func newCanonTable() *canonTable {
	return &canonTable{ids: map[string]int{}, id: map[*sobj]int{}, size: map[*sobj]int{}}
}

// eachChild calls fn with every schema object among the values of o, inside arrays too.
func eachChild(o *sobj, fn func(*sobj)) {
	var stack []any
	for i := len(o.vals) - 1; i >= 0; i-- {
		stack = append(stack, o.vals[i])
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case *sobj:
			fn(x)
		case []any:
			for i := len(x) - 1; i >= 0; i-- {
				stack = append(stack, x[i])
			}
		}
	}
}

// number numbers root and every schema object under it, children first, with a stack of
// its own.
func (t *canonTable) number(root *sobj) {
	type frame struct {
		o    *sobj
		open bool
	}
	stack := []frame{{o: root}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if _, done := t.id[f.o]; done {
			stack = stack[:len(stack)-1]
			continue
		}
		if !f.open {
			f.open = true
			o := f.o
			eachChild(o, func(c *sobj) {
				if _, done := t.id[c]; !done {
					stack = append(stack, frame{o: c})
				}
			})
			continue
		}
		o := f.o
		stack = stack[:len(stack)-1]
		key, size := t.form(o)
		id, ok := t.ids[key]
		if !ok {
			id = len(t.ids)
			t.ids[key] = id
		}
		t.id[o], t.size[o] = id, size
	}
}

// form returns the key of o's canonical text, with its numbered children standing for
// theirs, and the text's length.
func (t *canonTable) form(o *sobj) (string, int) {
	idx := make([]int, len(o.keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return o.keys[idx[a]] < o.keys[idx[b]] })
	var sb strings.Builder
	size := 2 + max(len(idx)-1, 0)
	sb.WriteByte('{')
	for n, i := range idx {
		if n > 0 {
			sb.WriteByte(',')
		}
		k := strconv.Quote(o.keys[i])
		sb.WriteString(k)
		sb.WriteByte(':')
		size += len(k) + 1
		if o.keys[i] == "required" {
			if list, ok := o.vals[i].([]any); ok {
				strs := make([]string, len(list))
				for j, v := range list {
					strs[j], _ = v.(string)
				}
				sort.Strings(strs)
				q := strconv.Quote(strings.Join(strs, "\x00"))
				sb.WriteString(q)
				size += len(q)
				continue
			}
		}
		size += t.valueForm(o.vals[i], &sb)
	}
	sb.WriteByte('}')
	return sb.String(), size
}

// valueForm writes the key of a value's canonical text and returns the text's length. A
// numbered schema object stands as "#" and its number (no JSON text starts with "#").
func (t *canonTable) valueForm(x any, sb *strings.Builder) int {
	switch x := x.(type) {
	case *sobj:
		sb.WriteByte('#')
		sb.WriteString(strconv.Itoa(t.id[x]))
		return t.size[x]
	case []any:
		size := 2 + max(len(x)-1, 0)
		sb.WriteByte('[')
		for i, v := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			size += t.valueForm(v, sb)
		}
		sb.WriteByte(']')
		return size
	}
	text := source.AppendJSON(nil, anyValue(x))
	sb.Write(text)
	return len(text)
}

// isShape reports whether a schema is worth a definition of its own: an object schema
// with at least two properties.
func isShape(o *sobj) bool {
	p, ok := o.get("properties")
	if !ok {
		return false
	}
	props, _ := p.(*sobj)
	return props != nil && len(props.keys) >= 2
}

// extractDefs moves object shapes that occur more than once into $defs (definitions
// before 2019-09) and refers to them with $ref. The largest repeated shape (the longest
// canonical text) goes first; then the count is taken again, until no shape repeats. Its
// walks keep stacks of their own.
func extractDefs(root *sobj, draft *schema.Draft) {
	defsKw := draft.DefinitionsKeyword()
	defs := &sobj{}
	used := map[string]bool{}
	for range 1000 {
		t := newCanonTable()
		t.number(root)
		for _, v := range defs.vals {
			if o, ok := v.(*sobj); ok {
				t.number(o)
			}
		}
		// Count the shapes, depth first in document order; the tops (the root and the
		// definitions) are not counted themselves.
		counts := map[int]int{}
		first := map[int]*sobj{}
		var order []int
		type visit struct {
			x   any
			top bool
		}
		var stack []visit
		for i := len(defs.vals) - 1; i >= 0; i-- {
			stack = append(stack, visit{defs.vals[i], true})
		}
		stack = append(stack, visit{root, true})
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			var kids []any
			switch x := it.x.(type) {
			case *sobj:
				if !it.top && isShape(x) {
					c := t.id[x]
					if counts[c] == 0 {
						first[c] = x
						order = append(order, c)
					}
					counts[c]++
				}
				kids = x.vals
			case []any:
				kids = x
			}
			for i := len(kids) - 1; i >= 0; i-- {
				stack = append(stack, visit{kids[i], false})
			}
		}
		best, bestSize := -1, 0
		for _, c := range order {
			if counts[c] >= 2 && t.size[first[c]] > bestSize {
				best, bestSize = c, t.size[first[c]]
			}
		}
		if best < 0 {
			break
		}
		body := first[best]
		name := defName(body.hint, used)
		used[name] = true
		ref := &sobj{schema: true}
		ref.set("$ref", "#/"+defsKw+"/"+name)
		// Replace every occurrence by the reference (the numbers are those of the tree as
		// it was when counted: a replaced shape is not gone into).
		replace := func(vals []any) {
			slots := [][]any{vals}
			for len(slots) > 0 {
				vs := slots[len(slots)-1]
				slots = slots[:len(slots)-1]
				for i, v := range vs {
					switch x := v.(type) {
					case *sobj:
						if isShape(x) && t.id[x] == best {
							vs[i] = ref
						} else {
							slots = append(slots, x.vals)
						}
					case []any:
						slots = append(slots, x)
					}
				}
			}
		}
		replace(root.vals)
		replace(defs.vals)
		// The body's own children may hold other repeated shapes: replace inside it,
		// but not the body itself.
		replace(body.vals)
		defs.set(name, body)
	}
	if len(defs.keys) > 0 {
		root.set(defsKw, defs)
	}
}

func defName(hint string, used map[string]bool) string {
	var sb strings.Builder
	for _, r := range hint {
		if r < 128 && (isAlpha(byte(r)) || isDigit(byte(r)) || r == '_' || r == '-') {
			sb.WriteRune(r)
		}
	}
	name := sb.String()
	if name == "" {
		name = "shape"
	}
	if !used[name] {
		return name
	}
	for i := 2; i < math.MaxInt32; i++ {
		n := name + strconv.Itoa(i)
		if !used[n] {
			return n
		}
	}
	return name
}
