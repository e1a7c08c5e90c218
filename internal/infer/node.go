package infer

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/source"
)

// order ranks the first sighting of a property: the instance's sequence number, then the
// position of the member in the depth-first walk of that instance. Taking the minimum of
// two orders is commutative, so the order of properties in the output does not depend on
// how the input was split between workers.
type order struct {
	seq uint64
	idx uint32
}

func (a order) less(b order) bool {
	if a.seq != b.seq {
		return a.seq < b.seq
	}
	return a.idx < b.idx
}

// node summarizes every value seen at one location of the instances. Every field merges
// commutatively and associatively (counts add, bounds widen, sets unite with a cap), so
// workers can summarize parts of the input independently and be merged in any order with
// the same result.
type node struct {
	count int64 // values seen here

	nNull, nBool, nInt, nNum, nStr, nArr, nObj int64 // per kind; nNum counts non-integers

	// strings
	strMin, strMax int    // length in code points
	formats        uint16 // the formats every string seen so far satisfies
	values         map[string]int64
	valuesOver     bool // more distinct strings than tracked: no enum

	// numbers
	numMin, numMax source.Decimal

	// arrays
	items          *node
	arrMin, arrMax int

	// objects
	props          map[string]*prop
	objMin, objMax int
	mapVals        *node // set when the object had too many distinct keys to track: a map
	shapes         map[string]*shape
	shapesOver     bool

	// seed holds what a --from schema said about this location (shared, read-only), and
	// seedFail what the values seen did to it.
	seed     *seed
	seedFail uint8
}

type prop struct {
	n       *node
	present int64
	first   order
}

// shape gathers the objects with one set of keys, for --any-of.
type shape struct {
	n     *node
	first order
}

// limits that bound the memory of a summary, and the channel that stops its merges.
type caps struct {
	values int // distinct strings tracked per location
	keys   int // distinct keys per object location before it is treated as a map
	shapes int // distinct key sets per location (anyOf mode)

	// done, closed when the run is cancelled, stops a merge where it is: a merge of worker
	// summaries, or the cascade of merges one instance can set off (a location turned into
	// a map at every level), takes seconds on a large input, and the run is abandoned
	// anyway. Nil: never stops.
	done <-chan struct{}
}

// stopped reports whether the run the merges belong to was cancelled.
func (c caps) stopped() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// observer adds instances to a summary.
type observer struct {
	opts   *Options
	bounds bool // track value ranges and lengths (--bounds, or a --from schema that has them)
	caps   caps
	fmts   *formatSet
	anyOf  bool
	draft4 bool
	seq    uint64
	idx    uint32
}

func (o *observer) observe(n *node, v source.Value) {
	n.count++
	switch v.Kind() {
	case source.Null:
		n.nNull++
	case source.Bool:
		n.nBool++
	case source.Number:
		o.number(n, v)
	case source.String:
		o.str(n, v.Str())
	case source.Array:
		items := v.Items()
		if n.nArr == 0 || len(items) < n.arrMin {
			n.arrMin = len(items)
		}
		if len(items) > n.arrMax {
			n.arrMax = len(items)
		}
		n.nArr++
		if len(items) > 0 && n.items == nil {
			n.items = &node{}
		}
		for _, it := range items {
			o.observe(n.items, it)
		}
	case source.Object:
		o.object(n, v)
	}
}

// isInteger reports whether a number counts as an integer in the output dialect: in draft 4
// a literal with a decimal point does not.
func (o *observer) isInteger(v source.Value) bool {
	lit := v.Str()
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	if o.draft4 && strings.Contains(lit, ".") && !strings.ContainsAny(lit, "eE") {
		return false
	}
	return v.Num().IsInteger()
}

func (o *observer) number(n *node, v source.Value) {
	if o.isInteger(v) {
		n.nInt++
	} else {
		n.nNum++
	}
	if !o.bounds && n.seed == nil {
		return
	}
	d := v.Num()
	if n.seed != nil {
		n.checkNumber(d)
	}
	if n.nInt+n.nNum == 1 {
		n.numMin, n.numMax = d, d
	} else {
		if d.Cmp(n.numMin) < 0 {
			n.numMin = d
		}
		if d.Cmp(n.numMax) > 0 {
			n.numMax = d
		}
	}
}

func (o *observer) str(n *node, s string) {
	l := 0
	if o.bounds {
		l = utf8.RuneCountInString(s)
	}
	if n.nStr == 0 {
		n.strMin, n.strMax = l, l
		n.formats = o.fmts.all
	} else {
		n.strMin = min(n.strMin, l)
		n.strMax = max(n.strMax, l)
	}
	n.nStr++
	if n.seed != nil {
		n.checkString(s)
	}
	if n.formats != 0 {
		n.formats = o.fmts.match(s, n.formats)
	}
	if !n.valuesOver {
		if n.values == nil {
			n.values = map[string]int64{}
		}
		if _, ok := n.values[s]; ok || len(n.values) < o.caps.values {
			n.values[s]++
		} else {
			n.values, n.valuesOver = nil, true
		}
	}
}

func (o *observer) object(n *node, v source.Value) {
	k := v.Len()
	if n.nObj == 0 || k < n.objMin {
		n.objMin = k
	}
	if k > n.objMax {
		n.objMax = k
	}
	n.nObj++
	if o.anyOf && !n.shapesOver {
		sig := signature(v)
		if n.shapes == nil {
			n.shapes = map[string]*shape{}
		}
		sh := n.shapes[sig]
		if sh == nil {
			if len(n.shapes) >= o.caps.shapes {
				collapseShapes(n, o.caps)
			} else {
				sh = &shape{n: &node{}, first: order{o.seq, o.idx}}
				n.shapes[sig] = sh
			}
		}
		if sh != nil {
			// The shape node counts the object; the location's own node keeps only the
			// kind counts and sizes.
			sh.n.count++
			o.members(sh.n, v)
			sh.n.nObj++
			sh.n.objMin, sh.n.objMax = minMaxInit(sh.n.nObj, sh.n.objMin, sh.n.objMax, k)
			return
		}
	}
	o.members(n, v)
}

func minMaxInit(seen int64, lo, hi, v int) (int, int) {
	if seen == 1 {
		return v, v
	}
	return min(lo, v), max(hi, v)
}

// members adds an object's members to the properties of n (or its map values).
func (o *observer) members(n *node, v source.Value) {
	for i := 0; i < v.Len(); i++ {
		key, val := v.Member(i)
		o.idx++
		if n.mapVals != nil {
			o.observe(n.mapVals, val)
			continue
		}
		if n.props == nil {
			n.props = map[string]*prop{}
		}
		p := n.props[key.Str()]
		if p == nil {
			if len(n.props) >= o.caps.keys {
				toMap(n, o.caps)
				o.observe(n.mapVals, val)
				continue
			}
			p = &prop{n: &node{}, first: order{o.seq, o.idx}}
			n.props[key.Str()] = p
		}
		p.present++
		o.observe(p.n, val)
	}
}

// toMap turns an object location with too many keys into a map: every property's values
// merge into one node, under the same caps as the rest of the summary.
func toMap(n *node, c caps) {
	m := &node{}
	for _, k := range sortedProps(n.props) {
		mergeNode(m, n.props[k].n, c)
	}
	n.mapVals, n.props = m, nil
}

// collapseShapes gives up tracking key sets: every shape merges into the location's node.
func collapseShapes(n *node, c caps) {
	for _, sig := range sortedKeys(n.shapes) {
		mergeObjects(n, n.shapes[sig].n, c)
	}
	n.shapes, n.shapesOver = nil, true
}

func signature(v source.Value) string {
	keys := make([]string, v.Len())
	for i := range keys {
		keys[i] = v.Key(i)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedProps(m map[string]*prop) []string { return sortedKeys(m) }

// mergeNode adds everything b has seen to a, and consumes b: a takes over the children of b
// that it has no counterpart of, instead of copying them, so b must not be used afterwards
// (every caller drops it: a worker's summary, the properties of a location turned into a
// map, the shapes of a location that gave up tracking them). A merge so costs the size of
// what a and b have in common, and the merges of a whole run cost no more than the nodes
// it made: copying made them quadratic in the depth of deep objects whose keys vary
// (collapsing shapes or keys again at every level).
func mergeNode(a, b *node, c caps) {
	if b == nil || a == b || c.stopped() {
		return
	}
	mergeCounts(a, b)
	mergeValues(a, b, c)
	if b.items != nil {
		if a.items == nil {
			a.items = b.items
		} else {
			mergeNode(a.items, b.items, c)
		}
	}
	mergeMembers(a, b, c)
	mergeShapes(a, b, c)
	mergeSeed(a, b)
}

// mergeCounts adds b's counts, lengths, bounds and formats to a's: everything of a node but
// its values, children and seed.
func mergeCounts(a, b *node) {
	a.count += b.count
	a.nNull += b.nNull
	a.nBool += b.nBool
	// strings
	if b.nStr > 0 {
		if a.nStr == 0 {
			a.strMin, a.strMax, a.formats = b.strMin, b.strMax, b.formats
		} else {
			a.strMin, a.strMax = min(a.strMin, b.strMin), max(a.strMax, b.strMax)
			a.formats &= b.formats
		}
		a.nStr += b.nStr
	}
	// numbers
	if b.nInt+b.nNum > 0 {
		if a.nInt+a.nNum == 0 {
			a.numMin, a.numMax = b.numMin, b.numMax
		} else {
			if b.numMin.Cmp(a.numMin) < 0 {
				a.numMin = b.numMin
			}
			if b.numMax.Cmp(a.numMax) > 0 {
				a.numMax = b.numMax
			}
		}
		a.nInt += b.nInt
		a.nNum += b.nNum
	}
	// arrays
	if b.nArr > 0 {
		if a.nArr == 0 {
			a.arrMin, a.arrMax = b.arrMin, b.arrMax
		} else {
			a.arrMin, a.arrMax = min(a.arrMin, b.arrMin), max(a.arrMax, b.arrMax)
		}
		a.nArr += b.nArr
	}
	// objects
	if b.nObj > 0 {
		if a.nObj == 0 {
			a.objMin, a.objMax = b.objMin, b.objMax
		} else {
			a.objMin, a.objMax = min(a.objMin, b.objMin), max(a.objMax, b.objMax)
		}
		a.nObj += b.nObj
	}
}

// mergeObjects adds the object part of b (a shape's node) to a's members; the kind counts
// of a already include those objects.
func mergeObjects(a, b *node, c caps) {
	mergeMembers(a, b, c)
}

func mergeMembers(a, b *node, c caps) {
	switch {
	case b.mapVals != nil:
		if a.mapVals == nil {
			toMap(a, c)
		}
		mergeNode(a.mapVals, b.mapVals, c)
	case a.mapVals != nil:
		for _, k := range sortedProps(b.props) {
			mergeNode(a.mapVals, b.props[k].n, c)
		}
	default:
		keys := sortedProps(b.props)
		for i, k := range keys {
			bp := b.props[k]
			if a.props == nil {
				a.props = map[string]*prop{}
			}
			ap := a.props[k]
			if ap == nil {
				if c.keys > 0 && len(a.props) >= c.keys {
					// Too many keys: a becomes a map, and the properties of b not merged
					// yet join its values.
					toMap(a, c)
					for _, k := range keys[i:] {
						mergeNode(a.mapVals, b.props[k].n, c)
					}
					return
				}
				a.props[k] = bp
				continue
			}
			ap.present += bp.present
			if bp.first.less(ap.first) {
				ap.first = bp.first
			}
			mergeNode(ap.n, bp.n, c)
		}
	}
}

func mergeValues(a, b *node, c caps) {
	if a.valuesOver {
		return
	}
	if b.valuesOver {
		a.values, a.valuesOver = nil, true
		return
	}
	for _, s := range sortedKeys(b.values) {
		if a.values == nil {
			a.values = map[string]int64{}
		}
		if _, ok := a.values[s]; !ok && c.values > 0 && len(a.values) >= c.values {
			a.values, a.valuesOver = nil, true
			return
		}
		a.values[s] += b.values[s]
	}
}

func mergeShapes(a, b *node, c caps) {
	if len(b.shapes) == 0 && !b.shapesOver {
		return
	}
	if a.shapesOver || b.shapesOver {
		if !a.shapesOver {
			collapseShapes(a, c)
		}
		for _, sig := range sortedKeys(b.shapes) {
			mergeObjects(a, b.shapes[sig].n, c)
		}
		return
	}
	sigs := sortedKeys(b.shapes)
	for i, sig := range sigs {
		bs := b.shapes[sig]
		if a.shapes == nil {
			a.shapes = map[string]*shape{}
		}
		as := a.shapes[sig]
		if as == nil {
			if c.shapes > 0 && len(a.shapes) >= c.shapes {
				// Too many key sets: a gives up tracking them, and the shapes of b not
				// merged yet join its members.
				collapseShapes(a, c)
				for _, sig := range sigs[i:] {
					mergeObjects(a, b.shapes[sig].n, c)
				}
				return
			}
			a.shapes[sig] = bs
			continue
		}
		if bs.first.less(as.first) {
			as.first = bs.first
		}
		mergeNode(as.n, bs.n, c)
	}
}
