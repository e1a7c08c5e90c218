package diff

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The walk aligns the two schemas, location by location (breadth first, so each location
// is reported at its shortest instance path), and records what changed there: each change
// with its kind, the keyword on both sides, a message, and its effect on the instances that
// reach that location, proved in both directions where the prover can.

// stepKind is how an instance location is reached from its parent.
type stepKind uint8

const (
	stProp       stepKind = iota // member named key
	stPatProp                    // a member whose name matches the pattern key
	stAdditional                 // a member named by no property or pattern
	stItem                       // item at index
	stTail                       // an item after the prefix (index: first position)
	stContains                   // an item matching contains
	stPropName                   // a property name (the instance is the name)
)

// step is one descent into an instance: from a container, valid under o (old side) or n
// (new side), to one of its members or items.
type step struct {
	kind  stepKind
	key   string
	index int
	o, n  *conj // the containers, with their in-place context
}

// pathStep is one step of the path from the root to a location; the paths of a location's
// children share it.
type pathStep struct {
	step
	up    *pathStep // the step before, nil for the first
	depth int       // the steps before this one
}

// item is one aligned location: the conjunctions o and n apply there, with ctxO/ctxN the
// schemas that apply to the same instance from enclosing in-place applicators.
type item struct {
	o, n       *conj
	so, sn     *schema.Schema // the schemas aligned here (for pointers)
	ctxO, ctxN []*schema.Schema
	path       *pathStep // the last step from the root; nil at the root
	ipath      string
	pol        int8 // +1, -1 under not, 0 where the effect on the whole cannot be told
	dom        schema.TypeSet
	root       bool
	branch     bool // a branch of an anyOf or oneOf; its context holds the group and the other branches
	changes    []*change
	fo, fn     *conj // o and n with their context, once made (full)
}

// full returns the conjunctions of an item with their context.
func (e *engine) full(it *item) (*conj, *conj) {
	if it.fo == nil {
		it.fo, it.fn = e.withContext(it.o, it.ctxO), e.withContext(it.n, it.ctxN)
	}
	return it.fo, it.fn
}

// withContext returns c with the schemas ctx first among its roots.
func (e *engine) withContext(c *conj, ctx []*schema.Schema) *conj {
	if len(ctx) == 0 {
		return c
	}
	return e.conjOf(e.joinRoots(ctx, c.roots), c.chosen)
}

// proof is what is known about one direction of one change.
type proof uint8

const (
	pUnknown proof = iota
	pProved        // proved: the change cannot break this direction
	pBroken        // an example shows it breaks this direction
)

// change is one difference at one location.
type change struct {
	kind       string
	level      string
	of, nf     *fact // the keywords on each side (nil when absent)
	on, nn     *node // the schema objects on each side (for pointers of absent keywords)
	okw, nkw   string
	msg        string
	bw, fw     proof
	it         *item
	example    source.Value
	exampleDir int // 1 backward (valid under old), 2 forward
	contra     bool
	failLoc    string        // for a semantic difference: the keyword that failed
	failPos    Location      // and where it is
	failInst   string        // the instance location that failed there
	members    [2]memberToks // the search's split memberPattern, by direction
	placed     *placed       // where its keywords are, when located ahead of the report
	match      [2]*factMatch // matchScore's view of nf (backward) and of (forward), by direction
	ruled      [2]bool       // the rule engine proved the direction (the search's attributions read this)
	whole      bool          // the change is the whole location (one side holds nothing there): no fact to match
}

// memberToks caches a change's member pattern in one direction: its tokens and its
// length in bytes.
type memberToks struct {
	done, ok bool
	toks     []string
	n        int
}

// walk aligns the schemas and returns the locations with their changes.
func (e *engine) walk(old, new *schema.Schema) []*item {
	root := &item{o: e.one(old), n: e.one(new), so: old, sn: new, pol: 1, dom: schema.TypeAll, root: true}
	queue := []*item{root}
	type seenKey struct {
		o, n int
		dom  schema.TypeSet
		pol  int8
	}
	seen := map[seenKey]bool{}
	var items []*item
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		k := seenKey{it.o.kid, it.n.kid, it.dom, it.pol}
		if seen[k] {
			continue
		}
		seen[k] = true
		if len(items) >= e.opts.maxLocations || e.overParts() {
			e.walkTruncated = true
			break
		}
		if e.ctx.Err() != nil {
			break
		}
		if !it.root && e.sameConj(it.o, it.n) {
			continue
		}
		items = append(items, it)
		queue = append(queue, e.compare(it)...)
	}
	return items
}

// cmpCtx collects the changes and child locations of one item.
type cmpCtx struct {
	e        *engine
	it       *item
	fo, fn   *conj   // with context, for proofs and for building instances
	fmo, fmn *merged // their merged views
	lo, ln   *conj   // the location itself, whose keywords are compared
	mo, mn   *merged // their merged views
	dom      schema.TypeSet
	children []*item
}

func (c *cmpCtx) mainO() *node { return c.e.node(c.it.so) }

func (c *cmpCtx) mainN() *node { return c.e.node(c.it.sn) }

// add records a change; its effect is proved from the facts: a new constraint must hold
// for every old instance (backward), an old constraint for every new instance (forward).
func (c *cmpCtx) add(kind string, of, nf []*fact, msg string) *change {
	ch := &change{kind: kind, level: "validation", msg: msg, it: c.it, on: c.mainO(), nn: c.mainN()}
	if len(of) > 0 {
		ch.of = of[0]
	}
	if len(nf) > 0 {
		ch.nf = nf[0]
	}
	ch.bw, ch.fw = pProved, pProved
	for _, f := range nf {
		if !c.e.implies(c.fo, c.fmo, f, c.dom&c.e.live(c.fo), 0) {
			ch.bw = pUnknown
			break
		}
	}
	for _, f := range of {
		if !c.e.implies(c.fn, c.fmn, f, c.dom&c.e.live(c.fn), 0) {
			ch.fw = pUnknown
			break
		}
	}
	c.polarize(ch)
	c.it.changes = append(c.it.changes, ch)
	return ch
}

// addSub records a change whose effect is the inclusion of two conjunctions.
func (c *cmpCtx) addSub(kind string, of, nf *fact, okw, nkw string, vo, vn *conj, forbidO, forbidN bool, dom schema.TypeSet, msg string) *change {
	ch := &change{kind: kind, level: "validation", of: of, nf: nf, okw: okw, nkw: nkw, msg: msg, it: c.it, on: c.mainO(), nn: c.mainN()}
	ch.bw, ch.fw = pUnknown, pUnknown
	if forbidO || (!forbidN && c.e.sub(vo, vn, dom, 1)) {
		ch.bw = pProved
	}
	if forbidN || (!forbidO && c.e.sub(vn, vo, dom, 1)) {
		ch.fw = pProved
	}
	c.polarize(ch)
	c.it.changes = append(c.it.changes, ch)
	return ch
}

func (c *cmpCtx) polarize(ch *change) {
	switch c.it.pol {
	case -1:
		ch.bw, ch.fw = ch.fw, ch.bw
	case 0:
		if ch.bw != pProved || ch.fw != pProved {
			ch.bw, ch.fw = pUnknown, pUnknown
		}
	}
}

func (c *cmpCtx) child(o, n []*schema.Schema, ctxO, ctxN []*schema.Schema, st *step, ipath string, pol int8, dom schema.TypeSet) *item {
	if c.e.sameRoots(o, n) {
		// the walk skips a location whose two sides are the same schemas: know it before
		// building the views of every unchanged property
		return nil
	}
	it := &item{o: c.e.conjOf(o, nil), n: c.e.conjOf(n, nil), ctxO: ctxO, ctxN: ctxN, ipath: ipath, pol: pol, dom: dom,
		so: firstOr(o, c.it.so), sn: firstOr(n, c.it.sn)}
	it.path = c.it.path
	if st != nil {
		s := *st
		s.o, s.n = c.fo, c.fn
		it.path = &pathStep{step: s, up: c.it.path}
		if c.it.path != nil {
			it.path.depth = c.it.path.depth + 1
		}
	}
	c.children = append(c.children, it)
	return it
}

// inPlace returns the roots that apply to the same instance, for children of applicators.
func (c *cmpCtx) inPlace() ([]*schema.Schema, []*schema.Schema) {
	return c.fo.roots, c.fn.roots
}

// explicitProps returns a lookup of c's properties fact by name (the first in the order
// of c's parts; nil when c does not declare the name), for about names names: a scan of
// the parts when names and parts are few, a map made once otherwise (a scan per name was
// quadratic: 10,000 properties took seconds).
func (e *engine) explicitProps(c *conj, names int) func(string) *fact {
	ps, _ := e.objectParts(c)
	if names <= 16 && len(ps) <= 8 {
		return func(k string) *fact {
			for _, n := range ps {
				if _, ok := n.props[k]; !ok {
					continue // its properties facts are those of its props (readNode)
				}
				for i := range n.facts {
					if f := &n.facts[i]; f.kind == fProp && f.str == k {
						return f
					}
				}
			}
			return nil
		}
	}
	m := make(map[string]*fact, names)
	for _, n := range ps {
		for i := range n.facts {
			if f := &n.facts[i]; f.kind == fProp {
				if _, ok := m[f.str]; !ok {
					m[f.str] = f
				}
			}
		}
	}
	return func(k string) *fact { return m[k] }
}

func factsOf(m *merged, k factKind) []*fact {
	var out []*fact
	for f := range m.facts {
		if f.kind == k {
			out = append(out, f)
		}
	}
	return out
}

func (e *engine) compare(it *item) []*item {
	fo, fn := e.full(it)
	c := &cmpCtx{e: e, it: it, fo: fo, fn: fn, fmo: e.merged(fo), fmn: e.merged(fn), lo: it.o, ln: it.n, mo: e.merged(it.o), mn: e.merged(it.n)}
	// The classes that matter here: those either side admits.
	c.dom = it.dom & (e.live(fo) | e.live(fn))
	mo, mn := c.mo, c.mn
	if it.root {
		od, nd := c.mainO().s.Draft, c.mainN().s.Draft
		if od != nd {
			ch := c.add("dialect-changed", nil, nil, fmt.Sprintf("the schema moved from %s to %s; each side is read in its own dialect", od.Name, nd.Name))
			ch.okw, ch.nkw = "$schema", "$schema"
			ch.bw, ch.fw = pUnknown, pUnknown // set from the whole comparison
		}
	}
	if e.opts.docs() {
		c.annotations()
	}
	if mo.empty || mn.empty {
		if mo.empty != mn.empty {
			if mn.empty {
				c.add("schema-rejects-all", nil, factsOf(mn, fFalse), "the schema now rejects every value (false)")
			} else {
				c.add("schema-accepts-again", factsOf(mo, fFalse), nil, "the schema no longer rejects every value (it was false)")
			}
		}
		return c.children
	}
	if c.emptiness() {
		return c.children
	}
	c.types()
	c.enums()
	if c.dom&schema.TypeNumber != 0 {
		c.numbers()
	}
	if c.dom&schema.TypeString != 0 {
		c.strings()
	}
	if c.dom&schema.TypeArray != 0 {
		c.arrays()
	}
	if c.dom&schema.TypeObject != 0 {
		c.objects()
	}
	c.applicators()
	c.loops()
	return c.children
}

// emptiness reports a side that holds no instance here although no false schema says so
// (a contradiction that hides: an integer range with no integer, a required property that
// cannot be present, a oneOf of one branch twice, ...), as a schema-rejects-all or
// schema-accepts-again change, and reports whether one did: the changes below it do not
// matter. Nothing to something is backward compatible here, something to nothing forward
// compatible; the other direction is for the search to show.
func (c *cmpCtx) emptiness() bool {
	e := c.e
	dom := c.it.dom
	emptyO, emptyN := e.emptyHere(c.fo, dom), e.emptyHere(c.fn, dom)
	if !emptyO && !emptyN {
		return false
	}
	if emptyO && emptyN {
		return true // both hold nothing: nothing changed here
	}
	ch := &change{level: "validation", it: c.it, on: c.mainO(), nn: c.mainN(), whole: true}
	if emptyN {
		ch.kind, ch.msg = "schema-rejects-all", "the schema now rejects every value here (its keywords contradict each other)"
		ch.bw, ch.fw = pUnknown, pProved
	} else {
		ch.kind, ch.msg = "schema-accepts-again", "the schema no longer rejects every value here (its keywords contradicted each other)"
		ch.bw, ch.fw = pProved, pUnknown
	}
	c.polarize(ch)
	c.it.changes = append(c.it.changes, ch)
	return true
}

// loops reports a schema on a loop of in-place applicators on either side (the fact fLoop)
// of a location that changed: its evaluation is undefined, so neither it nor any other
// change here claims an effect.
func (c *cmpCtx) loops() {
	lo, ln := factsOf(c.mo, fLoop), factsOf(c.mn, fLoop)
	if len(lo)+len(ln) == 0 || c.e.sameConj(c.it.o, c.it.n) {
		return
	}
	c.add("reference-loop", lo, ln, "a schema here applies itself to the same instance through a loop of in-place keywords ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas): its evaluation may never end, which the specification leaves undefined and jstk's validator stops with an error, so nothing is claimed about this location")
	for _, ch := range c.it.changes {
		ch.bw, ch.fw = pUnknown, pUnknown
	}
}

// ---- annotations ----

func (c *cmpCtx) annotations() {
	get := func(cj *conj) map[string]annotation {
		out := map[string]annotation{}
		for _, n := range c.e.parts(cj) {
			for _, a := range n.ann {
				if _, ok := out[a.kw]; !ok {
					out[a.kw] = a
				}
			}
		}
		return out
	}
	ao, an := get(c.it.o), get(c.it.n)
	for _, kw := range annotationKeywords {
		x, okx := ao[kw]
		y, oky := an[kw]
		if okx && oky && source.Equal(x.v, y.v) || !okx && !oky {
			continue
		}
		verb := "changed"
		switch {
		case !okx:
			verb = "added"
		case !oky:
			verb = "removed"
		}
		msg := fmt.Sprintf("%s %s", kw, verb)
		if okx && oky {
			msg = fmt.Sprintf("%s changed from %s to %s", kw, short(x.v), short(y.v))
		} else if oky {
			msg = fmt.Sprintf("%s added: %s", kw, short(y.v))
		}
		ch := &change{kind: kebab(strings.TrimPrefix(kw, "$")) + "-" + verb, level: "docs", okw: kw, nkw: kw, msg: msg, it: c.it,
			on: c.mainO(), nn: c.mainN(), bw: pProved, fw: pProved}
		c.it.changes = append(c.it.changes, ch)
	}
}

func kebab(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				sb.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// short renders a value for a message.
func short(v source.Value) string {
	b := string(source.AppendJSON(nil, v))
	if len(b) <= 60 { // no more runes than bytes
		return b
	}
	if r := []rune(b); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return b
}

// ---- types, enum, const ----

func (c *cmpCtx) types() {
	to, tn := c.mo.types&c.dom, c.mn.types&c.dom
	if to == tn {
		return
	}
	var kind string
	switch {
	case to&^tn == 0:
		kind = "type-extended"
	case tn&^to == 0:
		kind = "type-narrowed"
	default:
		kind = "type-changed"
	}
	msg := fmt.Sprintf("type changed from %s to %s", typeText(to), typeText(tn))
	if added := tn &^ to; added != 0 && to&^tn == 0 {
		msg = fmt.Sprintf("now also admits %s (was %s)", typeText(added), typeText(to))
	} else if removed := to &^ tn; removed != 0 && tn&^to == 0 {
		msg = fmt.Sprintf("no longer admits %s (now %s)", typeText(removed), typeText(tn))
	}
	ch := c.add(kind, factsOf(c.mo, fType), factsOf(c.mn, fType), msg)
	ch.okw, ch.nkw = "type", "type"
}

func valueSet(m *merged) ([]source.Value, bool) {
	if len(m.enums) == 0 {
		return nil, false
	}
	others := make([]*valueIndex, len(m.enums)-1)
	for i, other := range m.enums[1:] {
		others[i] = newValueIndex(other)
	}
	out := &valueIndex{}
	for _, v := range m.enums[0] {
		in := true
		for _, other := range others {
			if !other.has(v) {
				in = false
				break
			}
		}
		if in && !out.has(v) {
			out.add(v)
		}
	}
	return out.vs, true
}

func (c *cmpCtx) enums() {
	vo, hasO := valueSet(c.mo)
	vn, hasN := valueSet(c.mn)
	if !hasO && !hasN {
		return
	}
	fo, fn := factsOf(c.mo, fEnum), factsOf(c.mn, fEnum)
	word := func(fs []*fact) string {
		if len(fs) > 0 && fs[0].kwName() == "const" {
			return "const"
		}
		return "enum"
	}
	switch {
	case !hasO:
		c.add(word(fn)+"-added", nil, fn, fmt.Sprintf("values are now limited to %s", valueList(vn)))
		return
	case !hasN:
		c.add(word(fo)+"-removed", fo, nil, fmt.Sprintf("values are no longer limited to %s", valueList(vo)))
		return
	}
	added, removed := missing(vn, vo), missing(vo, vn)
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	kw := word(fn)
	if word(fo) != kw {
		kw = "enum"
	}
	var kind, msg string
	switch {
	case len(removed) == 0:
		kind, msg = kw+"-extended", "values added: "+valueList(added)
	case len(added) == 0:
		kind, msg = kw+"-narrowed", "values removed: "+valueList(removed)
	default:
		kind, msg = kw+"-changed", fmt.Sprintf("values removed: %s; values added: %s", valueList(removed), valueList(added))
	}
	c.add(kind, fo, fn, msg)
}

func valueList(vs []source.Value) string {
	var parts []string
	for i, v := range vs {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(vs)-6))
			break
		}
		parts = append(parts, short(v))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

// ---- numbers ----

func boundFacts(m *merged, k factKind, b *bound) []*fact {
	var out []*fact
	for f := range m.facts {
		if f.kind == k && f.b.v.Cmp(b.v) == 0 && f.b.excl == b.excl {
			out = append(out, f)
		}
	}
	return out[:min(len(out), 1)]
}

func sameBound(a, b *bound) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.v.Cmp(b.v) == 0 && a.excl == b.excl
}

func (c *cmpCtx) numbers() {
	for _, side := range []struct {
		k     factKind
		name  string
		lower bool
	}{{fLower, "minimum", true}, {fUpper, "maximum", false}} {
		var bo, bn *bound
		if side.lower {
			bo, bn = c.mo.lo, c.mn.lo
		} else {
			bo, bn = c.mo.hi, c.mn.hi
		}
		if sameBound(bo, bn) {
			continue
		}
		var of, nf []*fact
		if bo != nil {
			of = boundFacts(c.mo, side.k, bo)
		}
		if bn != nil {
			nf = boundFacts(c.mn, side.k, bn)
		}
		var kind string
		switch {
		case bo == nil:
			kind = side.name + "-added"
		case bn == nil:
			kind = side.name + "-removed"
		case side.lower && tighterLower(bn, bo), !side.lower && tighterUpper(bn, bo):
			kind = side.name + "-increased"
			if !side.lower {
				kind = side.name + "-decreased"
			}
		default:
			kind = side.name + "-decreased"
			if !side.lower {
				kind = side.name + "-increased"
			}
		}
		c.add(kind, of, nf, fmt.Sprintf("numbers must be %s (was %s)", boundText(bn, side.lower), boundText(bo, side.lower)))
	}
	mo, mn := c.mo.mults, c.mn.mults
	fo, fn := factsOf(c.mo, fMultipleOf), factsOf(c.mn, fMultipleOf)
	if ratSetEqual(mo, mn) {
		return
	}
	switch {
	case len(mo) == 0:
		c.add("multiple-of-added", nil, fn, "numbers must now be a multiple of "+ratList(mn))
	case len(mn) == 0:
		c.add("multiple-of-removed", fo, nil, "numbers no longer need to be a multiple of "+ratList(mo))
	default:
		c.add("multiple-of-changed", fo, fn, fmt.Sprintf("numbers must be a multiple of %s (was %s)", ratList(mn), ratList(mo)))
	}
}

func ratSetEqual(a, b []*big.Rat) bool {
	has := func(xs []*big.Rat, r *big.Rat) bool {
		return slices.ContainsFunc(xs, func(x *big.Rat) bool { return x.Cmp(r) == 0 })
	}
	for _, r := range a {
		if !has(b, r) {
			return false
		}
	}
	for _, r := range b {
		if !has(a, r) {
			return false
		}
	}
	return true
}

func ratList(rs []*big.Rat) string {
	var parts []string
	for _, r := range rs {
		s, ok := ratLiteral(r)
		if !ok {
			s = r.RatString()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " and ")
}

// ---- counts (lengths, items, properties) ----

func (c *cmpCtx) count(name string, kmin, kmax factKind, omin, nmin, omax, nmax int, unit string) {
	if omin != nmin {
		fo, fn := factsOf(c.mo, kmin), factsOf(c.mn, kmin)
		kind := "min-" + name + "-increased"
		switch {
		case len(fo) == 0:
			kind = "min-" + name + "-added"
		case len(fn) == 0:
			kind = "min-" + name + "-removed"
		case nmin < omin:
			kind = "min-" + name + "-decreased"
		}
		if len(fo) > 0 || len(fn) > 0 {
			c.add(kind, fo, fn, fmt.Sprintf("at least %d %s required (was %d)", nmin, unit, omin))
		}
	}
	if omax != nmax {
		fo, fn := factsOf(c.mo, kmax), factsOf(c.mn, kmax)
		kind := "max-" + name + "-decreased"
		switch {
		case len(fo) == 0:
			kind = "max-" + name + "-added"
		case len(fn) == 0:
			kind = "max-" + name + "-removed"
		case nmax > omax:
			kind = "max-" + name + "-increased"
		}
		if len(fo) > 0 || len(fn) > 0 {
			c.add(kind, fo, fn, fmt.Sprintf("at most %s %s allowed (was %s)", limitText(nmax), unit, limitText(omax)))
		}
	}
}

func limitText(n int) string {
	if n < 0 {
		return "any number of"
	}
	return strconv.Itoa(n)
}

// ---- strings ----

func (c *cmpCtx) strings() {
	c.count("length", fMinLength, fMaxLength, c.mo.minLen, c.mn.minLen, c.mo.maxLen, c.mn.maxLen, "characters")
	po, pn := c.mo.patterns, c.mn.patterns
	fo, fn := factsOf(c.mo, fPattern), factsOf(c.mn, fPattern)
	added, removed := strDiff(pn, po), strDiff(po, pn)
	switch {
	case len(added) == 0 && len(removed) == 0:
	case len(removed) == 0:
		c.add("pattern-added", nil, pick(fn, added), fmt.Sprintf("strings must now match %s", quoteList(added)))
	case len(added) == 0:
		c.add("pattern-removed", pick(fo, removed), nil, fmt.Sprintf("strings no longer need to match %s", quoteList(removed)))
	default:
		c.add("pattern-changed", pick(fo, removed), pick(fn, added), fmt.Sprintf("strings must match %s (was %s)", quoteList(added), quoteList(removed)))
	}
	c.formats()
	co, cn := c.mo.content, c.mn.content
	if a, r := strDiff(cn, co), strDiff(co, cn); len(a)+len(r) > 0 {
		c.add("content-changed", factsOf(c.mo, fContent), factsOf(c.mn, fContent),
			fmt.Sprintf("draft-07 content assertions changed: now %s (was %s)", orNone(cn), orNone(co)))
	}
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// formats reports format changes: asserted formats as validation changes, the others as
// annotations (which do not change what is valid).
func (c *cmpCtx) formats() {
	get := func(cj *conj) (string, *node) {
		for _, n := range c.e.parts(cj) {
			if v, ok := n.kw("format"); ok && v.Kind() == source.String {
				return v.Str(), n
			}
		}
		return "", nil
	}
	fo, no := get(c.lo)
	fnn, nn := get(c.ln)
	if fo == fnn {
		return
	}
	kind := "format-changed"
	switch {
	case fo == "":
		kind = "format-added"
	case fnn == "":
		kind = "format-removed"
	}
	msg := fmt.Sprintf("format %s (was %s)", orQuote(fnn), orQuote(fo))
	ffo, ffn := factsOf(c.mo, fFormat), factsOf(c.mn, fFormat)
	if len(ffo) == 0 && len(ffn) == 0 {
		msg += "; format is an annotation here and does not change validity (see --assert-format)"
	}
	ch := c.add(kind, ffo, ffn, msg)
	ch.okw, ch.nkw = "format", "format"
	if no != nil {
		ch.on = no
	}
	if nn != nil {
		ch.nn = nn
	}
}

func orQuote(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}

func strDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func pick(fs []*fact, strs []string) []*fact {
	var out []*fact
	for _, f := range fs {
		if slices.Contains(strs, f.str) {
			out = append(out, f)
		}
	}
	return out
}

func quoteList(xs []string) string {
	n := 0
	for _, x := range xs {
		n += len(x) + len(" and ") + 2
	}
	b := make([]byte, 0, n)
	for i, x := range xs {
		if i > 0 {
			b = append(b, " and "...)
		}
		b = appendQuote(b, x)
	}
	return string(b)
}

// appendQuote appends strconv.Quote(s) to b, without its rune-by-rune work when s is
// printable ASCII (patterns, most often), where only the quote and the backslash are
// escaped.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	for {
		i := strings.IndexAny(s, `"\`)
		if i < 0 {
			break
		}
		b = append(b, s[:i]...)
		b = append(b, '\\', s[i])
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

// ---- arrays ----

func (c *cmpCtx) arrays() {
	e := c.e
	c.count("items", fMinItems, fMaxItems, c.mo.minItems, c.mn.minItems, e.maxItemsOf(c.lo, c.mo), e.maxItemsOf(c.ln, c.mn), "items")
	if c.mo.unique != c.mn.unique {
		if c.mn.unique {
			c.add("unique-items-added", nil, factsOf(c.mn, fUnique), "items must now be unique")
		} else {
			c.add("unique-items-removed", factsOf(c.mo, fUnique), nil, "items no longer need to be unique")
		}
	}
	po, pn := e.prefixLen(c.lo), e.prefixLen(c.ln)
	for i := 0; i < max(po, pn); i++ {
		so, sn := e.itemSchemas(c.lo, i), e.itemSchemas(c.ln, i)
		st := &step{kind: stItem, index: i}
		ip := c.it.ipath + "/" + strconv.Itoa(i)
		switch {
		case i < po && i < pn:
			c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
		case i < pn:
			ch := c.addSub("prefix-item-added", nil, factAt(c.mn, fItem, i), "", "", e.conjOf(so, nil), e.conjOf(sn, nil), false, false, schema.TypeAll,
				fmt.Sprintf("item %d now has a schema of its own", i))
			ch.okw = e.itemsKwOf(c.lo)
			c.childIfReal(so, sn, st, ip)
		default:
			ch := c.addSub("prefix-item-removed", factAt(c.mo, fItem, i), nil, "", "", e.conjOf(so, nil), e.conjOf(sn, nil), false, false, schema.TypeAll,
				fmt.Sprintf("item %d no longer has a schema of its own", i))
			ch.nkw = e.itemsKwOf(c.ln)
			c.childIfReal(so, sn, st, ip)
		}
	}
	to, tn := factsOf(c.mo, fTail), factsOf(c.mn, fTail)
	start := max(po, pn)
	so, sn := e.itemSchemas(c.lo, start), e.itemSchemas(c.ln, start)
	st := &step{kind: stTail, index: start}
	ip := c.it.ipath + "/*"
	switch {
	case len(to) > 0 && len(tn) > 0:
		c.childOrChange("items", to[0], tn[0], so, sn, st, ip)
	case len(tn) > 0:
		ch := c.addSub("items-added", nil, tn[0], "", "", e.conjOf(so, nil), e.conjOf(sn, nil), false, false, schema.TypeAll, "items now have a schema ("+tn[0].keyword()+")")
		ch.okw = "items"
		c.childIfReal(so, sn, st, ip)
	case len(to) > 0:
		ch := c.addSub("items-removed", to[0], nil, "", "", e.conjOf(so, nil), e.conjOf(sn, nil), false, false, schema.TypeAll, "items no longer have a schema ("+to[0].keyword()+")")
		ch.nkw = "items"
		c.childIfReal(so, sn, st, ip)
	}
	// contains
	co, cn := factsOf(c.mo, fContains), factsOf(c.mn, fContains)
	switch {
	case len(co) > 0 && len(cn) > 0:
		x, y := co[0], cn[0]
		pol := c.it.pol
		if x.j >= 0 || y.j >= 0 {
			pol = 0
		}
		if !c.e.same(x.s, y.s) {
			c.child([]*schema.Schema{x.s}, []*schema.Schema{y.s}, nil, nil, &step{kind: stContains}, c.it.ipath+"/*", pol, schema.TypeAll)
		}
		if x.i != y.i {
			c.add(incDec("min-contains", x.i, y.i), co, cn, fmt.Sprintf("at least %d items must match contains (was %d)", y.i, x.i))
		}
		if x.j != y.j {
			kind := incDec("max-contains", x.j, y.j)
			if x.j < 0 {
				kind = "max-contains-added"
			} else if y.j < 0 {
				kind = "max-contains-removed"
			}
			c.add(kind, co, cn, fmt.Sprintf("at most %s items may match contains (was %s)", limitText(y.j), limitText(x.j)))
		}
	case len(cn) > 0:
		c.add("contains-added", nil, cn, "arrays must now contain a matching item")
	case len(co) > 0:
		c.add("contains-removed", co, nil, "arrays no longer need a matching item")
	}
	uo, un := factsOf(c.mo, fUnevalItems), factsOf(c.mn, fUnevalItems)
	c.pairKeyword("unevaluated-items", uo, un, nil, st, ip)
}

func incDec(name string, o, n int) string {
	if n > o {
		return name + "-increased"
	}
	return name + "-decreased"
}

func (e *engine) itemsKwOf(cj *conj) string {
	for _, n := range e.parts(cj) {
		if n.prefixKw != "" {
			return n.prefixKw
		}
	}
	return "items"
}

func factAt(m *merged, k factKind, i int) *fact {
	for f := range m.facts {
		if f.kind == k && f.i == i {
			return f
		}
	}
	return nil
}

// childIfReal descends into a pair where only one side has a schema of its own, when the
// other side still has something to compare with (a pattern, additionalProperties, items).
func (c *cmpCtx) childIfReal(so, sn []*schema.Schema, st *step, ip string) {
	if len(so) == 0 || len(sn) == 0 {
		return
	}
	for _, s := range append(append([]*schema.Schema(nil), so...), sn...) {
		if _, isBool := s.Bool(); isBool {
			return
		}
	}
	c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
}

// childOrChange compares two subschemas of the same keyword: a boolean schema on either
// side is one change, anything else a location to compare.
func (c *cmpCtx) childOrChange(name string, of, nf *fact, so, sn []*schema.Schema, st *step, ip string) {
	if c.e.same(of.s, nf.s) {
		return
	}
	_, bo := of.s.Bool()
	_, bn := nf.s.Bool()
	if bo || bn {
		c.addSub(name+"-changed", of, nf, "", "", c.e.conjOf(so, nil), c.e.conjOf(sn, nil), false, false, schema.TypeAll,
			fmt.Sprintf("%s changed from %s to %s", of.keyword(), short(of.s.Value()), short(nf.s.Value())))
		return
	}
	c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
}

// pairKeyword handles keywords whose value is one schema applying to the instance or its
// parts (unevaluatedProperties, unevaluatedItems, propertyNames).
func (c *cmpCtx) pairKeyword(name string, fo, fn []*fact, ctx []*schema.Schema, st *step, ip string) {
	switch {
	case len(fo) > 0 && len(fn) > 0:
		if c.e.same(fo[0].s, fn[0].s) {
			return
		}
		_, bo := fo[0].s.Bool()
		_, bn := fn[0].s.Bool()
		if bo || bn || st == nil {
			c.add(name+"-changed", fo, fn, fmt.Sprintf("%s changed from %s to %s", fo[0].keyword(), short(fo[0].s.Value()), short(fn[0].s.Value())))
			return
		}
		c.child([]*schema.Schema{fo[0].s}, []*schema.Schema{fn[0].s}, nil, nil, st, ip, c.it.pol, schema.TypeAll)
	case len(fn) > 0:
		c.add(name+"-added", nil, fn, fmt.Sprintf("%s added: %s", fn[0].keyword(), short(fn[0].s.Value())))
	case len(fo) > 0:
		c.add(name+"-removed", fo, nil, fmt.Sprintf("%s removed (was %s)", fo[0].keyword(), short(fo[0].s.Value())))
	}
}

// ---- objects ----

// objects compares the keywords that constrain objects, one keyword or group of keywords
// at a time, in the order their changes are reported. (The calls are direct, not through
// a table of methods: a call through a function value makes the compiler move c to the
// heap, one allocation more per location compared.)
func (c *cmpCtx) objects() {
	c.propertyCounts()
	c.requiredNames()
	c.properties()
	c.patternProperties()
	c.additionalProperties()
	c.propertyNames()
	c.dependentRequired()
	c.dependentSchemas()
}

// propertyCounts compares minProperties and maxProperties.
func (c *cmpCtx) propertyCounts() {
	c.count("properties", fMinProps, fMaxProps, c.mo.minProps, c.mn.minProps, c.mo.maxProps, c.mn.maxProps, "properties")
}

// requiredNames reports each name required on one side only, in the order of the names.
func (c *cmpCtx) requiredNames() {
	var names []string
	for k := range c.mo.required {
		names = append(names, k)
	}
	for k := range c.mn.required {
		if !c.mo.required[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		inO, inN := c.mo.required[k], c.mn.required[k]
		switch {
		case inN && !inO:
			ch := c.add("required-added", nil, reqFacts(c.mn, k), fmt.Sprintf("property %q is now required", k))
			if c.e.opts.RequiredWithDefault && ch.bw == pProved && !c.mo.required[k] {
				ch.msg += " (it has a default, and --required-with-default=compatible counts that as compatible)"
			}
		case inO && !inN:
			c.add("required-removed", reqFacts(c.mo, k), nil, fmt.Sprintf("property %q is no longer required", k))
		}
	}
}

// properties compares the properties either side declares, one by one, in the order of
// their names.
func (c *cmpCtx) properties() {
	e := c.e
	// the names are gathered here, not by a function that returns them: a slice that
	// does not leave the function starts on the stack
	var props []string
	seen := map[string]bool{}
	for _, cj := range []*conj{c.lo, c.ln} {
		for _, n := range e.parts(cj) {
			for _, k := range n.propOrder {
				if !seen[k] {
					seen[k] = true
					props = append(props, k)
				}
			}
		}
	}
	sort.Strings(props)
	explicitO, explicitN := e.explicitProps(c.lo, len(props)), e.explicitProps(c.ln, len(props))
	for _, k := range props {
		c.property(k, explicitO(k), explicitN(k))
	}
}

// property compares the property k, which the old side declares with the fact xo and the
// new side with xn (nil when it does not): declared on both, it is a child location (or
// a change when either side forbids it); declared on one, it is added or removed, judged
// against the schemas the other side's content model gives it, and compared with them
// when they are real schemas.
func (c *cmpCtx) property(k string, xo, xn *fact) {
	e := c.e
	so, forbidO := e.valueSchemas(c.lo, k)
	sn, forbidN := e.valueSchemas(c.ln, k)
	if xo != nil && xn != nil && !forbidO && !forbidN && e.sameRoots(so, sn) {
		return // unchanged (child would skip it): no step or path made for it
	}
	st := &step{kind: stProp, key: k}
	ip := c.it.ipath + "/" + source.EscapeToken(k)
	switch {
	case xo != nil && xn != nil:
		if forbidO || forbidN {
			if forbidO != forbidN {
				c.addSub("property-changed", xo, xn, "", "", e.conjOf(so, nil), e.conjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
					fmt.Sprintf("property %q is %s", k, map[bool]string{true: "now forbidden", false: "no longer forbidden"}[forbidN]))
			}
			return
		}
		c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
	case xn != nil:
		c.addSub("property-added", nil, xn, "properties", "", e.conjOf(so, nil), e.conjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
			fmt.Sprintf("property %q added%s", k, modelText(e, c.lo, k, forbidO, so)))
		if !forbidO && !forbidN {
			c.childIfReal(so, sn, st, ip)
		}
	case xo != nil:
		c.addSub("property-removed", xo, nil, "", "properties", e.conjOf(so, nil), e.conjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
			fmt.Sprintf("property %q removed%s", k, modelText(e, c.ln, k, forbidN, sn)))
		if !forbidO && !forbidN {
			c.childIfReal(so, sn, st, ip)
		}
	}
}

// patternProperties compares the patternProperties of the two sides, pattern by pattern
// (by their source text, sorted).
func (c *cmpCtx) patternProperties() {
	// made here and filled by patternFacts: maps that do not leave the function start on
	// the stack
	pto, ptn := map[string][]*fact{}, map[string][]*fact{}
	c.e.patternFacts(c.lo, pto)
	c.e.patternFacts(c.ln, ptn)
	for _, p := range keysOfEither(pto, ptn) {
		c.patternProperty(p, pto, ptn)
	}
}

// patternFacts adds the patternProperties facts of a conjunction to out, by their pattern.
func (e *engine) patternFacts(cj *conj, out map[string][]*fact) {
	for _, n := range e.parts(cj) {
		for i := range n.facts {
			if f := &n.facts[i]; f.kind == fPatternProp {
				out[f.str] = append(out[f.str], f)
			}
		}
	}
}

// patternProperty compares the pattern p of either side: on both, its schemas are a child
// location; on one only, the names it matches move in or out of the reach of
// additionalProperties, which is a change and may be a location to compare.
func (c *cmpCtx) patternProperty(p string, pto, ptn map[string][]*fact) {
	fo, fn := pto[p], ptn[p]
	st := &step{kind: stPatProp, key: p}
	ip := c.it.ipath + "/<" + p + ">"
	switch {
	case len(fo) > 0 && len(fn) > 0:
		c.childOrChange("pattern-property", fo[0], fn[0], schemasOf(fo), schemasOf(fn), st, ip)
	case len(fn) > 0:
		// the names it matches leave the reach of additionalProperties: the old side's
		// additionalProperties must still hold for them
		c.add("pattern-property-added", otherNameFacts(c.mo), fn, fmt.Sprintf("properties matching %q now have a schema", p))
		c.patternVsAdditional(pto, ptn, nil, fn, st, ip)
	default:
		c.add("pattern-property-removed", fo, otherNameFacts(c.mn), fmt.Sprintf("properties matching %q no longer have a schema", p))
		c.patternVsAdditional(pto, ptn, fo, nil, st, ip)
	}
}

// additionalProperties compares what applies to the properties that properties and
// patternProperties leave: additionalProperties, then unevaluatedProperties.
func (c *cmpCtx) additionalProperties() {
	ao, an := factsOf(c.mo, fAdditional), factsOf(c.mn, fAdditional)
	ast := &step{kind: stAdditional}
	aip := c.it.ipath + "/*"
	switch {
	case len(ao) > 0 && len(an) > 0:
		c.childOrChange("additional-properties", ao[0], an[0], []*schema.Schema{ao[0].s}, []*schema.Schema{an[0].s}, ast, aip)
	case len(an) > 0:
		c.add("additional-properties-added", nil, an, "other properties are now limited: additionalProperties "+short(an[0].s.Value()))
	case len(ao) > 0:
		c.add("additional-properties-removed", ao, nil, "other properties are no longer limited (additionalProperties was "+short(ao[0].s.Value())+")")
	}
	c.pairKeyword("unevaluated-properties", factsOf(c.mo, fUnevalProps), factsOf(c.mn, fUnevalProps), nil, nil, aip)
}

// propertyNames compares propertyNames: on both sides, a child location of strings.
func (c *cmpCtx) propertyNames() {
	pno, pnn := factsOf(c.mo, fPropNames), factsOf(c.mn, fPropNames)
	switch {
	case len(pno) > 0 && len(pnn) > 0:
		if !c.e.same(pno[0].s, pnn[0].s) {
			c.child([]*schema.Schema{pno[0].s}, []*schema.Schema{pnn[0].s}, nil, nil, &step{kind: stPropName}, c.it.ipath+"/<name>", c.it.pol, schema.TypeString)
		}
	case len(pnn) > 0:
		c.add("property-names-added", nil, pnn, "property names are now limited: "+short(pnn[0].s.Value()))
	case len(pno) > 0:
		c.add("property-names-removed", pno, nil, "property names are no longer limited")
	}
}

// dependentRequired compares dependentRequired (and the lists of dependencies) trigger by
// trigger: the names a trigger requires grow (extended), shrink (narrowed) or both.
func (c *cmpCtx) dependentRequired() {
	dro, drn := byTrigger(c.mo, fDepRequired), byTrigger(c.mn, fDepRequired)
	for _, t := range keysOfEither(dro, drn) {
		fo, fn := dro[t], drn[t]
		lo, ln := listOf(fo), listOf(fn)
		switch {
		case len(fo) > 0 && len(fn) > 0:
			added, removed := strDiff(ln, lo), strDiff(lo, ln)
			if len(added)+len(removed) == 0 {
				continue
			}
			kind := "dependent-required-changed"
			if len(removed) == 0 {
				kind = "dependent-required-extended"
			} else if len(added) == 0 {
				kind = "dependent-required-narrowed"
			}
			c.add(kind, fo, fn, fmt.Sprintf("when %q is present, %s must be too (was %s)", t, quoteList(ln), quoteList(lo)))
		case len(fn) > 0:
			c.add("dependent-required-added", nil, fn, fmt.Sprintf("when %q is present, %s must be too", t, quoteList(ln)))
		default:
			c.add("dependent-required-removed", fo, nil, fmt.Sprintf("%q no longer requires %s", t, quoteList(lo)))
		}
	}
}

// dependentSchemas compares dependentSchemas (and the schemas of dependencies) trigger by
// trigger: they apply to the same object, so a schema on both sides is a child location
// in place.
func (c *cmpCtx) dependentSchemas() {
	dso, dsn := byTrigger(c.mo, fDepSchema), byTrigger(c.mn, fDepSchema)
	ctxO, ctxN := c.inPlace()
	for _, t := range keysOfEither(dso, dsn) {
		fo, fn := dso[t], dsn[t]
		switch {
		case len(fo) > 0 && len(fn) > 0:
			if !c.e.same(fo[0].s, fn[0].s) {
				c.child([]*schema.Schema{fo[0].s}, []*schema.Schema{fn[0].s}, ctxO, ctxN, nil, c.it.ipath, c.it.pol, c.dom&schema.TypeObject)
			}
		case len(fn) > 0:
			c.add("dependent-schema-added", nil, fn, fmt.Sprintf("objects with %q must now also match a schema", t))
		default:
			c.add("dependent-schema-removed", fo, nil, fmt.Sprintf("objects with %q no longer need to match a schema", t))
		}
	}
}

// patternVsAdditional compares the schemas that apply to the names a pattern matches on
// the side that has it (its only pattern, fo or fn) and on the side that has no pattern
// but additionalProperties (the same names under another spelling: patternProperties
// ".*" against additionalProperties), so that what changed inside them is found too.
func (c *cmpCtx) patternVsAdditional(pto, ptn map[string][]*fact, fo, fn []*fact, st *step, ip string) {
	withP, without := pto, ptn
	if fn != nil {
		withP, without = ptn, pto
	}
	if len(withP) != 1 || len(without) != 0 {
		return
	}
	ao, an := factsOf(c.mo, fAdditional), factsOf(c.mn, fAdditional)
	if fo != nil && len(an) == 1 && len(ao) == 0 {
		c.childIfReal(schemasOf(fo), []*schema.Schema{an[0].s}, st, ip)
	}
	if fn != nil && len(ao) == 1 && len(an) == 0 {
		c.childIfReal([]*schema.Schema{ao[0].s}, schemasOf(fn), st, ip)
	}
}

func reqFacts(m *merged, k string) []*fact {
	for f := range m.facts {
		if f.kind == fRequired && f.str == k {
			return []*fact{f}
		}
	}
	return nil
}

func schemasOf(fs []*fact) []*schema.Schema {
	var out []*schema.Schema
	for _, f := range fs {
		out = append(out, f.s)
	}
	return out
}

// byTrigger groups the facts of kind k (fDepRequired or fDepSchema) by their property;
// nil when the view has none, as most have.
func byTrigger(m *merged, k factKind) map[string][]*fact {
	if k == fDepRequired && len(m.depReq) == 0 || k == fDepSchema && len(m.depSch) == 0 {
		return nil
	}
	out := map[string][]*fact{}
	for f := range m.facts {
		if f.kind == k {
			out[f.str] = append(out[f.str], f)
		}
	}
	return out
}

// keysOfEither returns the keys of a and b, sorted, each once.
func keysOfEither(a, b map[string][]*fact) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func listOf(fs []*fact) []string {
	var out []string
	for _, f := range fs {
		for _, x := range f.list {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// modelText says how the other side treated a property it does not name.
func modelText(e *engine, cj *conj, k string, forbidden bool, subs []*schema.Schema) string {
	switch {
	case forbidden:
		return " (the other version does not allow it: closed content model)"
	case len(subs) == 0:
		return " (the other version allows it with any value: open content model)"
	}
	for _, n := range e.parts(cj) {
		for _, p := range n.patterns {
			if e.patternMatches(p.src, k) {
				return fmt.Sprintf(" (the other version covers it with patternProperties %q)", p.src)
			}
		}
	}
	return " (the other version covers it with additionalProperties)"
}

// ---- applicators ----

func (c *cmpCtx) applicators() {
	e := c.e
	ctxO, ctxN := c.inPlace()
	for _, k := range []factKind{fAnyOf, fOneOf} {
		name := map[factKind]string{fAnyOf: "any-of", fOneOf: "one-of"}[k]
		go_, gn := groupsOf(c.mo, k), groupsOf(c.mn, k)
		for i := 0; i < max(len(go_), len(gn)); i++ {
			switch {
			case i < len(go_) && i < len(gn):
				c.alignBranches(name, go_[i], gn[i], ctxO, ctxN)
			case i < len(gn):
				c.add(name+"-added", nil, []*fact{gn[i]}, fmt.Sprintf("%s with %d branches added", gn[i].keyword(), len(gn[i].subs)))
			default:
				c.add(name+"-removed", []*fact{go_[i]}, nil, fmt.Sprintf("%s with %d branches removed", go_[i].keyword(), len(go_[i].subs)))
			}
		}
	}
	// not
	no, nn := factsOf(c.mo, fNot), factsOf(c.mn, fNot)
	for i := 0; i < max(len(no), len(nn)); i++ {
		switch {
		case i < len(no) && i < len(nn):
			if !e.same(no[i].s, nn[i].s) {
				c.child([]*schema.Schema{no[i].s}, []*schema.Schema{nn[i].s}, nil, nil, nil, c.it.ipath, -c.it.pol, c.dom)
			}
		case i < len(nn):
			c.add("not-added", nil, nn[i:i+1], "values must now not match "+short(nn[i].s.Value()))
		default:
			c.add("not-removed", no[i:i+1], nil, "values no longer need to avoid "+short(no[i].s.Value()))
		}
	}
	// if/then/else
	co, cn := groupsOf(c.mo, fCond), groupsOf(c.mn, fCond)
	for i := 0; i < max(len(co), len(cn)); i++ {
		switch {
		case i < len(co) && i < len(cn):
			x, y := co[i], cn[i]
			if !e.same(x.subs[0], y.subs[0]) {
				c.child(x.subs[:1], y.subs[:1], ctxO, ctxN, nil, c.it.ipath, 0, c.dom)
			}
			for j, word := range []string{"", "then", "else"} {
				if j == 0 {
					continue
				}
				a, b := x.subs[j], y.subs[j]
				switch {
				case a != nil && b != nil:
					if !e.same(a, b) {
						c.child([]*schema.Schema{a}, []*schema.Schema{b}, withS(ctxO, x.subs[0], j == 1), withS(ctxN, y.subs[0], j == 1), nil, c.it.ipath, c.it.pol, c.dom)
					}
				case b != nil:
					c.add(word+"-added", nil, cn[i:i+1], word+" added to the if/then/else")
				case a != nil:
					c.add(word+"-removed", co[i:i+1], nil, word+" removed from the if/then/else")
				}
			}
		case i < len(cn):
			c.add("if-added", nil, cn[i:i+1], "an if/then/else condition was added")
		default:
			c.add("if-removed", co[i:i+1], nil, "an if/then/else condition was removed")
		}
	}
	dyo, dyn := factsOf(c.mo, fDynamic), factsOf(c.mn, fDynamic)
	if len(dyo)+len(dyn) > 0 && !c.e.sameConj(c.it.o, c.it.n) {
		ch := c.add("dynamic-reference", dyo, dyn, "a dynamic reference ($dynamicRef, $recursiveRef) or a number too large to reason about exactly is involved; only the search can judge this location")
		ch.bw, ch.fw = pUnknown, pUnknown
	}
	if uo, un := factsOf(c.mo, fUnread), factsOf(c.mn, fUnread); len(uo)+len(un) > 0 && !c.e.sameConj(c.it.o, c.it.n) {
		ch := c.add("keyword-not-read", uo, un, "diff does not read "+unreadNames(uo, un)+"; only the search can judge this location")
		ch.bw, ch.fw = pUnknown, pUnknown
	}

}

func withS(ctx []*schema.Schema, s *schema.Schema, add bool) []*schema.Schema {
	if !add {
		return ctx
	}
	return append(append([]*schema.Schema(nil), ctx...), s)
}

func groupsOf(m *merged, k factKind) []*fact {
	var out []*fact
	for g := range m.groups {
		if g.kind == k {
			out = append(out, g)
		}
	}
	return out
}

// alignBranches pairs the branches of two anyOf or oneOf groups: identical branches first,
// then branches referring to the same definition, then by position when the counts agree,
// then by shape.
func (c *cmpCtx) alignBranches(name string, gO, gN *fact, ctxO, ctxN []*schema.Schema) {
	e := c.e
	no, nn := len(gO.subs), len(gN.subs)
	pairO, pairN := make([]int, no), make([]int, nn)
	for i := range pairO {
		pairO[i] = -1
	}
	for j := range pairN {
		pairN[j] = -1
	}
	match := func(ok func(i, j int) bool) {
		for i := 0; i < no; i++ {
			if pairO[i] >= 0 {
				continue
			}
			for j := 0; j < nn; j++ {
				if pairN[j] < 0 && ok(i, j) {
					pairO[i], pairN[j] = j, i
					break
				}
			}
		}
	}
	match(func(i, j int) bool { return e.same(gO.subs[i], gN.subs[j]) })
	match(func(i, j int) bool {
		ri, rj := e.refText(gO.subs[i]), e.refText(gN.subs[j])
		return ri != "" && ri == rj
	})
	if no == nn {
		match(func(i, j int) bool { return i == j })
	}
	match(func(i, j int) bool { return e.signature(gO.subs[i]) == e.signature(gN.subs[j]) })
	pol := c.it.pol
	if gO.kind == fOneOf && !(e.branchesDisjoint(c.fo, gO) && e.branchesDisjoint(c.fn, gN)) {
		pol = 0
	}
	for i, j := range pairO {
		if j >= 0 && !e.same(gO.subs[i], gN.subs[j]) {
			if ch := c.child([]*schema.Schema{gO.subs[i]}, []*schema.Schema{gN.subs[j]}, ctxO, ctxN, nil, c.it.ipath, pol, c.dom); ch != nil {
				ch.branch = true
			}
		}
	}
	for j, i := range pairN {
		if i < 0 {
			ch := c.add(name+"-branch-added", []*fact{gO}, []*fact{gN}, fmt.Sprintf("%s gained branch %d: %s", gN.keyword(), j, short(gN.subs[j].Value())))
			ch.nkw = gN.keyword() + "/" + strconv.Itoa(j)
		}
	}
	for i, j := range pairO {
		if j < 0 {
			ch := c.add(name+"-branch-removed", []*fact{gO}, []*fact{gN}, fmt.Sprintf("%s lost branch %d: %s", gO.keyword(), i, short(gO.subs[i].Value())))
			ch.okw = gO.keyword() + "/" + strconv.Itoa(i)
		}
	}
}

func (e *engine) refText(s *schema.Schema) string {
	if v, ok := e.node(s).raw("$ref"); ok && v.Kind() == source.String {
		return v.Str()
	}
	return ""
}

// signature summarises a branch for alignment: its types, required names and constants.
func (e *engine) signature(s *schema.Schema) string {
	c := e.one(s)
	m := e.merged(c)
	var req []string
	for k := range m.required {
		req = append(req, k)
	}
	sort.Strings(req)
	sig := itoa(int(m.types)) + "|" + strings.Join(req, ",")
	for _, n := range e.parts(c) {
		for _, k := range n.propOrder {
			if ps := n.props[k]; ps != nil {
				if v, ok := e.node(ps).raw("const"); ok {
					sig += "|" + k + "=" + short(v)
				}
			}
		}
	}
	return sig
}

// branchesDisjoint proves the branches of a oneOf pairwise disjoint within ctx: then the
// oneOf is a plain union and its branches can be judged one by one.
func (e *engine) branchesDisjoint(ctx *conj, g *fact) bool {
	if len(g.subs) > 24 {
		return false
	}
	for i := range g.subs {
		for j := i + 1; j < len(g.subs); j++ {
			if !e.disjoint(e.with(ctx, []*schema.Schema{g.subs[i]}, e.groupOf(g)), e.one(g.subs[j]), schema.TypeAll, 0) {
				return false
			}
		}
	}
	return true
}

// otherNameFacts are the facts about properties no property or pattern names.
func otherNameFacts(m *merged) []*fact {
	return append(factsOf(m, fAdditional), factsOf(m, fUnevalProps)...)
}

func firstOr(ss []*schema.Schema, def *schema.Schema) *schema.Schema {
	if len(ss) > 0 && ss[0] != nil {
		return ss[0]
	}
	return def
}
