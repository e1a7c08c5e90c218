package align

import (
	"fmt"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
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
	StProp       stepKind = iota // member named key
	StPatProp                    // a member whose name matches the pattern key
	StAdditional                 // a member named by no property or pattern
	StItem                       // item at index
	StTail                       // an item after the prefix (index: first position)
	StContains                   // an item matching contains
	StPropName                   // a property name (the instance is the name)
)

// step is one descent into an instance: from a container, valid under o (old side) or n
// (new side), to one of its members or items.
type Step struct {
	Kind  stepKind
	Key   string
	Index int
	O, N  *algebra.Conj // the containers, with their in-place context
}

// pathStep is one step of the path from the root to a location; the paths of a location's
// children share it.
type PathStep struct {
	Step
	Up    *PathStep // the step before, nil for the first
	Depth int       // the steps before this one
}

// item is one aligned location: the conjunctions o and n apply there, with ctxO/ctxN the
// schemas that apply to the same instance from enclosing in-place applicators.
type Item struct {
	o, n       *algebra.Conj
	So, Sn     *schema.Schema // the schemas aligned here (for pointers)
	CtxO, CtxN []*schema.Schema
	Path       *PathStep // the last step from the root; nil at the root
	Ipath      string
	pol        int8 // +1, -1 under not, 0 where the effect on the whole cannot be told
	dom        schema.TypeSet
	root       bool
	Branch     bool // a branch of an anyOf or oneOf; its context holds the group and the other branches
	Changes    []*Change
	Fo, Fn     *algebra.Conj // o and n with their context, once made (full)
}

// full returns the conjunctions of an item with their context.
func (e *Engine) Full(it *Item) (*algebra.Conj, *algebra.Conj) {
	if it.Fo == nil {
		it.Fo, it.Fn = e.withContext(it.o, it.CtxO), e.withContext(it.n, it.CtxN)
	}
	return it.Fo, it.Fn
}

// withContext returns c with the schemas ctx first among its roots.
func (e *Engine) withContext(c *algebra.Conj, ctx []*schema.Schema) *algebra.Conj {
	if len(ctx) == 0 {
		return c
	}
	return e.ConjOf(e.JoinRoots(ctx, c.Roots), c.Chosen)
}

// proof is what is known about one direction of one change.
type Proof uint8

const (
	PUnknown Proof = iota
	PProved        // proved: the change cannot break this direction
	PBroken        // an example shows it breaks this direction
)

// change is one difference at one location.
type Change struct {
	Kind       string
	Level      string
	Of, Nf     *algebra.Fact // the keywords on each side (nil when absent)
	On, Nn     *algebra.Node // the schema objects on each side (for pointers of absent keywords)
	Okw, Nkw   string
	Msg        string
	Bw, Fw     Proof
	It         *Item
	Example    source.Value
	ExampleDir int // 1 backward (valid under old), 2 forward
	Contra     bool
	FailLoc    string                // for a semantic difference: the keyword that failed
	FailPos    Location              // and where it is
	FailInst   string                // the instance location that failed there
	members    [2]memberToks         // the search's split memberPattern, by direction
	Placed     *Placed               // where its keywords are, when located ahead of the report
	Match      [2]*algebra.FactMatch // matchScore's view of nf (backward) and of (forward), by direction
	Ruled      [2]bool               // the rule engine proved the direction (the search's attributions read this)
	Whole      bool                  // the change is the whole location (one side holds nothing there): no fact to match
}

// memberToks caches a change's member pattern in one direction: its tokens and its
// length in bytes.
type memberToks struct {
	done, Ok bool
	Toks     []string
	N        int
}

// walk aligns the schemas and returns the locations with their changes.
func (e *Engine) Walk(old, new *schema.Schema) []*Item {
	root := &Item{o: e.One(old), n: e.One(new), So: old, Sn: new, pol: 1, dom: schema.TypeAll, root: true}
	queue := []*Item{root}
	type seenKey struct {
		o, n int
		dom  schema.TypeSet
		pol  int8
	}
	seen := map[seenKey]bool{}
	var items []*Item
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		k := seenKey{it.o.Kid, it.n.Kid, it.dom, it.pol}
		if seen[k] {
			continue
		}
		seen[k] = true
		if len(items) >= e.Opts.MaxLocations || e.OverParts() {
			e.WalkTruncated = true
			break
		}
		if e.Ctx.Err() != nil {
			break
		}
		if !it.root && e.SameConj(it.o, it.n) {
			continue
		}
		items = append(items, it)
		queue = append(queue, e.compare(it)...)
	}
	return items
}

// cmpCtx collects the changes and child locations of one item.
type cmpCtx struct {
	e        *Engine
	it       *Item
	fo, fn   *algebra.Conj   // with context, for proofs and for building instances
	fmo, fmn *algebra.Merged // their merged views
	lo, ln   *algebra.Conj   // the location itself, whose keywords are compared
	mo, mn   *algebra.Merged // their merged views
	dom      schema.TypeSet
	children []*Item
}

func (c *cmpCtx) mainO() *algebra.Node { return c.e.Node(c.it.So) }

func (c *cmpCtx) mainN() *algebra.Node { return c.e.Node(c.it.Sn) }

// add records a change; its effect is proved from the facts: a new constraint must hold
// for every old instance (backward), an old constraint for every new instance (forward).
func (c *cmpCtx) add(kind string, of, nf []*algebra.Fact, msg string) *Change {
	ch := &Change{Kind: kind, Level: "validation", Msg: msg, It: c.it, On: c.mainO(), Nn: c.mainN()}
	if len(of) > 0 {
		ch.Of = of[0]
	}
	if len(nf) > 0 {
		ch.Nf = nf[0]
	}
	ch.Bw, ch.Fw = PProved, PProved
	for _, f := range nf {
		if !c.e.Implies(c.fo, c.fmo, f, c.dom&c.e.Live(c.fo), 0) {
			ch.Bw = PUnknown
			break
		}
	}
	for _, f := range of {
		if !c.e.Implies(c.fn, c.fmn, f, c.dom&c.e.Live(c.fn), 0) {
			ch.Fw = PUnknown
			break
		}
	}
	c.polarize(ch)
	c.it.Changes = append(c.it.Changes, ch)
	return ch
}

// addSub records a change whose effect is the inclusion of two conjunctions.
func (c *cmpCtx) addSub(kind string, of, nf *algebra.Fact, okw, nkw string, vo, vn *algebra.Conj, forbidO, forbidN bool, dom schema.TypeSet, msg string) *Change {
	ch := &Change{Kind: kind, Level: "validation", Of: of, Nf: nf, Okw: okw, Nkw: nkw, Msg: msg, It: c.it, On: c.mainO(), Nn: c.mainN()}
	ch.Bw, ch.Fw = PUnknown, PUnknown
	if forbidO || (!forbidN && c.e.Sub(vo, vn, dom, 1)) {
		ch.Bw = PProved
	}
	if forbidN || (!forbidO && c.e.Sub(vn, vo, dom, 1)) {
		ch.Fw = PProved
	}
	c.polarize(ch)
	c.it.Changes = append(c.it.Changes, ch)
	return ch
}

func (c *cmpCtx) polarize(ch *Change) {
	switch c.it.pol {
	case -1:
		ch.Bw, ch.Fw = ch.Fw, ch.Bw
	case 0:
		if ch.Bw != PProved || ch.Fw != PProved {
			ch.Bw, ch.Fw = PUnknown, PUnknown
		}
	}
}

func (c *cmpCtx) child(o, n []*schema.Schema, ctxO, ctxN []*schema.Schema, st *Step, ipath string, pol int8, dom schema.TypeSet) *Item {
	if c.e.SameRoots(o, n) {
		// the walk skips a location whose two sides are the same schemas: know it before
		// building the views of every unchanged property
		return nil
	}
	it := &Item{o: c.e.ConjOf(o, nil), n: c.e.ConjOf(n, nil), CtxO: ctxO, CtxN: ctxN, Ipath: ipath, pol: pol, dom: dom,
		So: firstOr(o, c.it.So), Sn: firstOr(n, c.it.Sn)}
	it.Path = c.it.Path
	if st != nil {
		s := *st
		s.O, s.N = c.fo, c.fn
		it.Path = &PathStep{Step: s, Up: c.it.Path}
		if c.it.Path != nil {
			it.Path.Depth = c.it.Path.Depth + 1
		}
	}
	c.children = append(c.children, it)
	return it
}

// inPlace returns the roots that apply to the same instance, for children of applicators.
func (c *cmpCtx) inPlace() ([]*schema.Schema, []*schema.Schema) {
	return c.fo.Roots, c.fn.Roots
}

// explicitProps returns a lookup of c's properties fact by name (the first in the order
// of c's parts; nil when c does not declare the name), for about names names: a scan of
// the parts when names and parts are few, a map made once otherwise (a scan per name was
// quadratic: 10,000 properties took seconds).
func (e *Engine) explicitProps(c *algebra.Conj, names int) func(string) *algebra.Fact {
	ps, _ := e.ObjectParts(c)
	if names <= 16 && len(ps) <= 8 {
		return func(k string) *algebra.Fact {
			for _, n := range ps {
				if _, ok := n.Props[k]; !ok {
					continue // its properties facts are those of its props (readNode)
				}
				for i := range n.Facts {
					if f := &n.Facts[i]; f.Kind == algebra.FProp && f.Str == k {
						return f
					}
				}
			}
			return nil
		}
	}
	m := make(map[string]*algebra.Fact, names)
	for _, n := range ps {
		for i := range n.Facts {
			if f := &n.Facts[i]; f.Kind == algebra.FProp {
				if _, ok := m[f.Str]; !ok {
					m[f.Str] = f
				}
			}
		}
	}
	return func(k string) *algebra.Fact { return m[k] }
}

func (e *Engine) compare(it *Item) []*Item {
	fo, fn := e.Full(it)
	c := &cmpCtx{e: e, it: it, fo: fo, fn: fn, fmo: e.Merged(fo), fmn: e.Merged(fn), lo: it.o, ln: it.n, mo: e.Merged(it.o), mn: e.Merged(it.n)}
	// The classes that matter here: those either side admits.
	c.dom = it.dom & (e.Live(fo) | e.Live(fn))
	mo, mn := c.mo, c.mn
	if it.root {
		od, nd := c.mainO().S.Draft, c.mainN().S.Draft
		if od != nd {
			ch := c.add("dialect-changed", nil, nil, fmt.Sprintf("the schema moved from %s to %s; each side is read in its own dialect", od.Name, nd.Name))
			ch.Okw, ch.Nkw = "$schema", "$schema"
			ch.Bw, ch.Fw = PUnknown, PUnknown // set from the whole comparison
		}
	}
	if e.Opts.Docs() {
		c.annotations()
	}
	if mo.Empty || mn.Empty {
		if mo.Empty != mn.Empty {
			if mn.Empty {
				c.add("schema-rejects-all", nil, algebra.FactsOf(mn, algebra.FFalse), "the schema now rejects every value (false)")
			} else {
				c.add("schema-accepts-again", algebra.FactsOf(mo, algebra.FFalse), nil, "the schema no longer rejects every value (it was false)")
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
	emptyO, emptyN := e.EmptyHere(c.fo, dom), e.EmptyHere(c.fn, dom)
	if !emptyO && !emptyN {
		return false
	}
	if emptyO && emptyN {
		return true // both hold nothing: nothing changed here
	}
	ch := &Change{Level: "validation", It: c.it, On: c.mainO(), Nn: c.mainN(), Whole: true}
	if emptyN {
		ch.Kind, ch.Msg = "schema-rejects-all", "the schema now rejects every value here (its keywords contradict each other)"
		ch.Bw, ch.Fw = PUnknown, PProved
	} else {
		ch.Kind, ch.Msg = "schema-accepts-again", "the schema no longer rejects every value here (its keywords contradicted each other)"
		ch.Bw, ch.Fw = PProved, PUnknown
	}
	c.polarize(ch)
	c.it.Changes = append(c.it.Changes, ch)
	return true
}

// loops reports a schema on a loop of in-place applicators on either side (the fact fLoop)
// of a location that changed: its evaluation is undefined, so neither it nor any other
// change here claims an effect.
func (c *cmpCtx) loops() {
	lo, ln := algebra.FactsOf(c.mo, algebra.FLoop), algebra.FactsOf(c.mn, algebra.FLoop)
	if len(lo)+len(ln) == 0 || c.e.SameConj(c.it.o, c.it.n) {
		return
	}
	c.add("reference-loop", lo, ln, "a schema here applies itself to the same instance through a loop of in-place keywords ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas): its evaluation may never end, which the specification leaves undefined and jstk's validator stops with an error, so nothing is claimed about this location")
	for _, ch := range c.it.Changes {
		ch.Bw, ch.Fw = PUnknown, PUnknown
	}
}

// ---- annotations ----

func (c *cmpCtx) annotations() {
	get := func(cj *algebra.Conj) map[string]algebra.Annotation {
		out := map[string]algebra.Annotation{}
		for _, n := range c.e.Parts(cj) {
			for _, a := range n.Ann {
				if _, ok := out[a.Kw]; !ok {
					out[a.Kw] = a
				}
			}
		}
		return out
	}
	ao, an := get(c.it.o), get(c.it.n)
	for _, kw := range algebra.AnnotationKeywords {
		x, okx := ao[kw]
		y, oky := an[kw]
		if okx && oky && source.Equal(x.V, y.V) || !okx && !oky {
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
			msg = fmt.Sprintf("%s changed from %s to %s", kw, short(x.V), short(y.V))
		} else if oky {
			msg = fmt.Sprintf("%s added: %s", kw, short(y.V))
		}
		ch := &Change{Kind: Kebab(strings.TrimPrefix(kw, "$")) + "-" + verb, Level: "docs", Okw: kw, Nkw: kw, Msg: msg, It: c.it,
			On: c.mainO(), Nn: c.mainN(), Bw: PProved, Fw: PProved}
		c.it.Changes = append(c.it.Changes, ch)
	}
}

func Kebab(s string) string {
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
	to, tn := c.mo.Types&c.dom, c.mn.Types&c.dom
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
	msg := fmt.Sprintf("type changed from %s to %s", algebra.TypeText(to), algebra.TypeText(tn))
	if added := tn &^ to; added != 0 && to&^tn == 0 {
		msg = fmt.Sprintf("now also admits %s (was %s)", algebra.TypeText(added), algebra.TypeText(to))
	} else if removed := to &^ tn; removed != 0 && tn&^to == 0 {
		msg = fmt.Sprintf("no longer admits %s (now %s)", algebra.TypeText(removed), algebra.TypeText(tn))
	}
	ch := c.add(kind, algebra.FactsOf(c.mo, algebra.FType), algebra.FactsOf(c.mn, algebra.FType), msg)
	ch.Okw, ch.Nkw = "type", "type"
}

func valueSet(m *algebra.Merged) ([]source.Value, bool) {
	if len(m.Enums) == 0 {
		return nil, false
	}
	others := make([]*algebra.ValueIndex, len(m.Enums)-1)
	for i, other := range m.Enums[1:] {
		others[i] = algebra.NewValueIndex(other)
	}
	out := &algebra.ValueIndex{}
	for _, v := range m.Enums[0] {
		in := true
		for _, other := range others {
			if !other.Has(v) {
				in = false
				break
			}
		}
		if in && !out.Has(v) {
			out.Add(v)
		}
	}
	return out.Vs, true
}

func (c *cmpCtx) enums() {
	vo, hasO := valueSet(c.mo)
	vn, hasN := valueSet(c.mn)
	if !hasO && !hasN {
		return
	}
	fo, fn := algebra.FactsOf(c.mo, algebra.FEnum), algebra.FactsOf(c.mn, algebra.FEnum)
	word := func(fs []*algebra.Fact) string {
		if len(fs) > 0 && fs[0].KwName() == "const" {
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
	added, removed := algebra.Missing(vn, vo), algebra.Missing(vo, vn)
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

func boundFacts(m *algebra.Merged, k algebra.FactKind, b *algebra.Bound) []*algebra.Fact {
	var out []*algebra.Fact
	for f := range m.Facts {
		if f.Kind == k && f.B.V.Cmp(b.V) == 0 && f.B.Excl == b.Excl {
			out = append(out, f)
		}
	}
	return out[:min(len(out), 1)]
}

func sameBound(a, b *algebra.Bound) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.V.Cmp(b.V) == 0 && a.Excl == b.Excl
}

func (c *cmpCtx) numbers() {
	for _, side := range []struct {
		k     algebra.FactKind
		name  string
		lower bool
	}{{algebra.FLower, "minimum", true}, {algebra.FUpper, "maximum", false}} {
		var bo, bn *algebra.Bound
		if side.lower {
			bo, bn = c.mo.Lo, c.mn.Lo
		} else {
			bo, bn = c.mo.Hi, c.mn.Hi
		}
		if sameBound(bo, bn) {
			continue
		}
		var of, nf []*algebra.Fact
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
		case side.lower && algebra.TighterLower(bn, bo), !side.lower && algebra.TighterUpper(bn, bo):
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
		c.add(kind, of, nf, fmt.Sprintf("numbers must be %s (was %s)", algebra.BoundText(bn, side.lower), algebra.BoundText(bo, side.lower)))
	}
	mo, mn := c.mo.Mults, c.mn.Mults
	fo, fn := algebra.FactsOf(c.mo, algebra.FMultipleOf), algebra.FactsOf(c.mn, algebra.FMultipleOf)
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
		s, ok := algebra.RatLiteral(r)
		if !ok {
			s = r.RatString()
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " and ")
}

// ---- counts (lengths, items, properties) ----

func (c *cmpCtx) count(name string, kmin, kmax algebra.FactKind, omin, nmin, omax, nmax int, unit string) {
	if omin != nmin {
		fo, fn := algebra.FactsOf(c.mo, kmin), algebra.FactsOf(c.mn, kmin)
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
		fo, fn := algebra.FactsOf(c.mo, kmax), algebra.FactsOf(c.mn, kmax)
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
	c.count("length", algebra.FMinLength, algebra.FMaxLength, c.mo.MinLen, c.mn.MinLen, c.mo.MaxLen, c.mn.MaxLen, "characters")
	po, pn := c.mo.Patterns, c.mn.Patterns
	fo, fn := algebra.FactsOf(c.mo, algebra.FPattern), algebra.FactsOf(c.mn, algebra.FPattern)
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
	co, cn := c.mo.Content, c.mn.Content
	if a, r := strDiff(cn, co), strDiff(co, cn); len(a)+len(r) > 0 {
		c.add("content-changed", algebra.FactsOf(c.mo, algebra.FContent), algebra.FactsOf(c.mn, algebra.FContent),
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
	get := func(cj *algebra.Conj) (string, *algebra.Node) {
		for _, n := range c.e.Parts(cj) {
			if v, ok := n.Kw("format"); ok && v.Kind() == source.String {
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
	ffo, ffn := algebra.FactsOf(c.mo, algebra.FFormat), algebra.FactsOf(c.mn, algebra.FFormat)
	if len(ffo) == 0 && len(ffn) == 0 {
		msg += "; format is an annotation here and does not change validity (see --assert-format)"
	}
	ch := c.add(kind, ffo, ffn, msg)
	ch.Okw, ch.Nkw = "format", "format"
	if no != nil {
		ch.On = no
	}
	if nn != nil {
		ch.Nn = nn
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

func pick(fs []*algebra.Fact, strs []string) []*algebra.Fact {
	var out []*algebra.Fact
	for _, f := range fs {
		if slices.Contains(strs, f.Str) {
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
	c.count("items", algebra.FMinItems, algebra.FMaxItems, c.mo.MinItems, c.mn.MinItems, e.MaxItemsOf(c.lo, c.mo), e.MaxItemsOf(c.ln, c.mn), "items")
	if c.mo.Unique != c.mn.Unique {
		if c.mn.Unique {
			c.add("unique-items-added", nil, algebra.FactsOf(c.mn, algebra.FUnique), "items must now be unique")
		} else {
			c.add("unique-items-removed", algebra.FactsOf(c.mo, algebra.FUnique), nil, "items no longer need to be unique")
		}
	}
	po, pn := e.PrefixLen(c.lo), e.PrefixLen(c.ln)
	for i := 0; i < max(po, pn); i++ {
		so, sn := e.ItemSchemas(c.lo, i), e.ItemSchemas(c.ln, i)
		st := &Step{Kind: StItem, Index: i}
		ip := c.it.Ipath + "/" + strconv.Itoa(i)
		switch {
		case i < po && i < pn:
			c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
		case i < pn:
			ch := c.addSub("prefix-item-added", nil, factAt(c.mn, algebra.FItem, i), "", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), false, false, schema.TypeAll,
				fmt.Sprintf("item %d now has a schema of its own", i))
			ch.Okw = e.itemsKwOf(c.lo)
			c.childIfReal(so, sn, st, ip)
		default:
			ch := c.addSub("prefix-item-removed", factAt(c.mo, algebra.FItem, i), nil, "", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), false, false, schema.TypeAll,
				fmt.Sprintf("item %d no longer has a schema of its own", i))
			ch.Nkw = e.itemsKwOf(c.ln)
			c.childIfReal(so, sn, st, ip)
		}
	}
	to, tn := algebra.FactsOf(c.mo, algebra.FTail), algebra.FactsOf(c.mn, algebra.FTail)
	start := max(po, pn)
	so, sn := e.ItemSchemas(c.lo, start), e.ItemSchemas(c.ln, start)
	st := &Step{Kind: StTail, Index: start}
	ip := c.it.Ipath + "/*"
	switch {
	case len(to) > 0 && len(tn) > 0:
		c.childOrChange("items", to[0], tn[0], so, sn, st, ip)
	case len(tn) > 0:
		ch := c.addSub("items-added", nil, tn[0], "", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), false, false, schema.TypeAll, "items now have a schema ("+tn[0].Keyword()+")")
		ch.Okw = "items"
		c.childIfReal(so, sn, st, ip)
	case len(to) > 0:
		ch := c.addSub("items-removed", to[0], nil, "", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), false, false, schema.TypeAll, "items no longer have a schema ("+to[0].Keyword()+")")
		ch.Nkw = "items"
		c.childIfReal(so, sn, st, ip)
	}
	// contains
	co, cn := algebra.FactsOf(c.mo, algebra.FContains), algebra.FactsOf(c.mn, algebra.FContains)
	switch {
	case len(co) > 0 && len(cn) > 0:
		x, y := co[0], cn[0]
		pol := c.it.pol
		if x.J >= 0 || y.J >= 0 {
			pol = 0
		}
		if !c.e.Same(x.S, y.S) {
			c.child([]*schema.Schema{x.S}, []*schema.Schema{y.S}, nil, nil, &Step{Kind: StContains}, c.it.Ipath+"/*", pol, schema.TypeAll)
		}
		if x.I != y.I {
			c.add(incDec("min-contains", x.I, y.I), co, cn, fmt.Sprintf("at least %d items must match contains (was %d)", y.I, x.I))
		}
		if x.J != y.J {
			kind := incDec("max-contains", x.J, y.J)
			if x.J < 0 {
				kind = "max-contains-added"
			} else if y.J < 0 {
				kind = "max-contains-removed"
			}
			c.add(kind, co, cn, fmt.Sprintf("at most %s items may match contains (was %s)", limitText(y.J), limitText(x.J)))
		}
	case len(cn) > 0:
		c.add("contains-added", nil, cn, "arrays must now contain a matching item")
	case len(co) > 0:
		c.add("contains-removed", co, nil, "arrays no longer need a matching item")
	}
	uo, un := algebra.FactsOf(c.mo, algebra.FUnevalItems), algebra.FactsOf(c.mn, algebra.FUnevalItems)
	c.pairKeyword("unevaluated-items", uo, un, nil, st, ip)
}

func incDec(name string, o, n int) string {
	if n > o {
		return name + "-increased"
	}
	return name + "-decreased"
}

func (e *Engine) itemsKwOf(cj *algebra.Conj) string {
	for _, n := range e.Parts(cj) {
		if n.PrefixKw != "" {
			return n.PrefixKw
		}
	}
	return "items"
}

func factAt(m *algebra.Merged, k algebra.FactKind, i int) *algebra.Fact {
	for f := range m.Facts {
		if f.Kind == k && f.I == i {
			return f
		}
	}
	return nil
}

// childIfReal descends into a pair where only one side has a schema of its own, when the
// other side still has something to compare with (a pattern, additionalProperties, items).
func (c *cmpCtx) childIfReal(so, sn []*schema.Schema, st *Step, ip string) {
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
func (c *cmpCtx) childOrChange(name string, of, nf *algebra.Fact, so, sn []*schema.Schema, st *Step, ip string) {
	if c.e.Same(of.S, nf.S) {
		return
	}
	_, bo := of.S.Bool()
	_, bn := nf.S.Bool()
	if bo || bn {
		c.addSub(name+"-changed", of, nf, "", "", c.e.ConjOf(so, nil), c.e.ConjOf(sn, nil), false, false, schema.TypeAll,
			fmt.Sprintf("%s changed from %s to %s", of.Keyword(), short(of.S.Value()), short(nf.S.Value())))
		return
	}
	c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
}

// pairKeyword handles keywords whose value is one schema applying to the instance or its
// parts (unevaluatedProperties, unevaluatedItems, propertyNames).
func (c *cmpCtx) pairKeyword(name string, fo, fn []*algebra.Fact, ctx []*schema.Schema, st *Step, ip string) {
	switch {
	case len(fo) > 0 && len(fn) > 0:
		if c.e.Same(fo[0].S, fn[0].S) {
			return
		}
		_, bo := fo[0].S.Bool()
		_, bn := fn[0].S.Bool()
		if bo || bn || st == nil {
			c.add(name+"-changed", fo, fn, fmt.Sprintf("%s changed from %s to %s", fo[0].Keyword(), short(fo[0].S.Value()), short(fn[0].S.Value())))
			return
		}
		c.child([]*schema.Schema{fo[0].S}, []*schema.Schema{fn[0].S}, nil, nil, st, ip, c.it.pol, schema.TypeAll)
	case len(fn) > 0:
		c.add(name+"-added", nil, fn, fmt.Sprintf("%s added: %s", fn[0].Keyword(), short(fn[0].S.Value())))
	case len(fo) > 0:
		c.add(name+"-removed", fo, nil, fmt.Sprintf("%s removed (was %s)", fo[0].Keyword(), short(fo[0].S.Value())))
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
	c.count("properties", algebra.FMinProps, algebra.FMaxProps, c.mo.MinProps, c.mn.MinProps, c.mo.MaxProps, c.mn.MaxProps, "properties")
}

// requiredNames reports each name required on one side only, in the order of the names.
func (c *cmpCtx) requiredNames() {
	var names []string
	for k := range c.mo.Required {
		names = append(names, k)
	}
	for k := range c.mn.Required {
		if !c.mo.Required[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		inO, inN := c.mo.Required[k], c.mn.Required[k]
		switch {
		case inN && !inO:
			ch := c.add("required-added", nil, reqFacts(c.mn, k), fmt.Sprintf("property %q is now required", k))
			if c.e.Opts.RequiredWithDefault && ch.Bw == PProved && !c.mo.Required[k] {
				ch.Msg += " (it has a default, and --required-with-default=compatible counts that as compatible)"
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
	for _, cj := range []*algebra.Conj{c.lo, c.ln} {
		for _, n := range e.Parts(cj) {
			for _, k := range n.PropOrder {
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
func (c *cmpCtx) property(k string, xo, xn *algebra.Fact) {
	e := c.e
	so, forbidO := e.ValueSchemas(c.lo, k)
	sn, forbidN := e.ValueSchemas(c.ln, k)
	if xo != nil && xn != nil && !forbidO && !forbidN && e.SameRoots(so, sn) {
		return // unchanged (child would skip it): no step or path made for it
	}
	st := &Step{Kind: StProp, Key: k}
	ip := c.it.Ipath + "/" + source.EscapeToken(k)
	switch {
	case xo != nil && xn != nil:
		if forbidO || forbidN {
			if forbidO != forbidN {
				c.addSub("property-changed", xo, xn, "", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
					fmt.Sprintf("property %q is %s", k, map[bool]string{true: "now forbidden", false: "no longer forbidden"}[forbidN]))
			}
			return
		}
		c.child(so, sn, nil, nil, st, ip, c.it.pol, schema.TypeAll)
	case xn != nil:
		c.addSub("property-added", nil, xn, "properties", "", e.ConjOf(so, nil), e.ConjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
			fmt.Sprintf("property %q added%s", k, modelText(e, c.lo, k, forbidO, so)))
		if !forbidO && !forbidN {
			c.childIfReal(so, sn, st, ip)
		}
	case xo != nil:
		c.addSub("property-removed", xo, nil, "", "properties", e.ConjOf(so, nil), e.ConjOf(sn, nil), forbidO, forbidN, schema.TypeAll,
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
	pto, ptn := map[string][]*algebra.Fact{}, map[string][]*algebra.Fact{}
	c.e.patternFacts(c.lo, pto)
	c.e.patternFacts(c.ln, ptn)
	for _, p := range keysOfEither(pto, ptn) {
		c.patternProperty(p, pto, ptn)
	}
}

// patternFacts adds the patternProperties facts of a conjunction to out, by their pattern.
func (e *Engine) patternFacts(cj *algebra.Conj, out map[string][]*algebra.Fact) {
	for _, n := range e.Parts(cj) {
		for i := range n.Facts {
			if f := &n.Facts[i]; f.Kind == algebra.FPatternProp {
				out[f.Str] = append(out[f.Str], f)
			}
		}
	}
}

// patternProperty compares the pattern p of either side: on both, its schemas are a child
// location; on one only, the names it matches move in or out of the reach of
// additionalProperties, which is a change and may be a location to compare.
func (c *cmpCtx) patternProperty(p string, pto, ptn map[string][]*algebra.Fact) {
	fo, fn := pto[p], ptn[p]
	st := &Step{Kind: StPatProp, Key: p}
	ip := c.it.Ipath + "/<" + p + ">"
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
	ao, an := algebra.FactsOf(c.mo, algebra.FAdditional), algebra.FactsOf(c.mn, algebra.FAdditional)
	ast := &Step{Kind: StAdditional}
	aip := c.it.Ipath + "/*"
	switch {
	case len(ao) > 0 && len(an) > 0:
		c.childOrChange("additional-properties", ao[0], an[0], []*schema.Schema{ao[0].S}, []*schema.Schema{an[0].S}, ast, aip)
	case len(an) > 0:
		c.add("additional-properties-added", nil, an, "other properties are now limited: additionalProperties "+short(an[0].S.Value()))
	case len(ao) > 0:
		c.add("additional-properties-removed", ao, nil, "other properties are no longer limited (additionalProperties was "+short(ao[0].S.Value())+")")
	}
	c.pairKeyword("unevaluated-properties", algebra.FactsOf(c.mo, algebra.FUnevalProps), algebra.FactsOf(c.mn, algebra.FUnevalProps), nil, nil, aip)
}

// propertyNames compares propertyNames: on both sides, a child location of strings.
func (c *cmpCtx) propertyNames() {
	pno, pnn := algebra.FactsOf(c.mo, algebra.FPropNames), algebra.FactsOf(c.mn, algebra.FPropNames)
	switch {
	case len(pno) > 0 && len(pnn) > 0:
		if !c.e.Same(pno[0].S, pnn[0].S) {
			c.child([]*schema.Schema{pno[0].S}, []*schema.Schema{pnn[0].S}, nil, nil, &Step{Kind: StPropName}, c.it.Ipath+"/<name>", c.it.pol, schema.TypeString)
		}
	case len(pnn) > 0:
		c.add("property-names-added", nil, pnn, "property names are now limited: "+short(pnn[0].S.Value()))
	case len(pno) > 0:
		c.add("property-names-removed", pno, nil, "property names are no longer limited")
	}
}

// dependentRequired compares dependentRequired (and the lists of dependencies) trigger by
// trigger: the names a trigger requires grow (extended), shrink (narrowed) or both.
func (c *cmpCtx) dependentRequired() {
	dro, drn := byTrigger(c.mo, algebra.FDepRequired), byTrigger(c.mn, algebra.FDepRequired)
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
	dso, dsn := byTrigger(c.mo, algebra.FDepSchema), byTrigger(c.mn, algebra.FDepSchema)
	ctxO, ctxN := c.inPlace()
	for _, t := range keysOfEither(dso, dsn) {
		fo, fn := dso[t], dsn[t]
		switch {
		case len(fo) > 0 && len(fn) > 0:
			if !c.e.Same(fo[0].S, fn[0].S) {
				c.child([]*schema.Schema{fo[0].S}, []*schema.Schema{fn[0].S}, ctxO, ctxN, nil, c.it.Ipath, c.it.pol, c.dom&schema.TypeObject)
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
func (c *cmpCtx) patternVsAdditional(pto, ptn map[string][]*algebra.Fact, fo, fn []*algebra.Fact, st *Step, ip string) {
	withP, without := pto, ptn
	if fn != nil {
		withP, without = ptn, pto
	}
	if len(withP) != 1 || len(without) != 0 {
		return
	}
	ao, an := algebra.FactsOf(c.mo, algebra.FAdditional), algebra.FactsOf(c.mn, algebra.FAdditional)
	if fo != nil && len(an) == 1 && len(ao) == 0 {
		c.childIfReal(schemasOf(fo), []*schema.Schema{an[0].S}, st, ip)
	}
	if fn != nil && len(ao) == 1 && len(an) == 0 {
		c.childIfReal([]*schema.Schema{ao[0].S}, schemasOf(fn), st, ip)
	}
}

func reqFacts(m *algebra.Merged, k string) []*algebra.Fact {
	for f := range m.Facts {
		if f.Kind == algebra.FRequired && f.Str == k {
			return []*algebra.Fact{f}
		}
	}
	return nil
}

func schemasOf(fs []*algebra.Fact) []*schema.Schema {
	var out []*schema.Schema
	for _, f := range fs {
		out = append(out, f.S)
	}
	return out
}

// byTrigger groups the facts of kind k (fDepRequired or fDepSchema) by their property;
// nil when the view has none, as most have.
func byTrigger(m *algebra.Merged, k algebra.FactKind) map[string][]*algebra.Fact {
	if k == algebra.FDepRequired && len(m.DepReq) == 0 || k == algebra.FDepSchema && len(m.DepSch) == 0 {
		return nil
	}
	out := map[string][]*algebra.Fact{}
	for f := range m.Facts {
		if f.Kind == k {
			out[f.Str] = append(out[f.Str], f)
		}
	}
	return out
}

// keysOfEither returns the keys of a and b, sorted, each once.
func keysOfEither(a, b map[string][]*algebra.Fact) []string {
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

func listOf(fs []*algebra.Fact) []string {
	var out []string
	for _, f := range fs {
		for _, x := range f.List {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// modelText says how the other side treated a property it does not name.
func modelText(e *Engine, cj *algebra.Conj, k string, forbidden bool, subs []*schema.Schema) string {
	switch {
	case forbidden:
		return " (the other version does not allow it: closed content model)"
	case len(subs) == 0:
		return " (the other version allows it with any value: open content model)"
	}
	for _, n := range e.Parts(cj) {
		for _, p := range n.Patterns {
			if e.PatternMatches(p.Src, k) {
				return fmt.Sprintf(" (the other version covers it with patternProperties %q)", p.Src)
			}
		}
	}
	return " (the other version covers it with additionalProperties)"
}

// ---- applicators ----

func (c *cmpCtx) applicators() {
	e := c.e
	ctxO, ctxN := c.inPlace()
	for _, k := range []algebra.FactKind{algebra.FAnyOf, algebra.FOneOf} {
		name := map[algebra.FactKind]string{algebra.FAnyOf: "any-of", algebra.FOneOf: "one-of"}[k]
		go_, gn := groupsOf(c.mo, k), groupsOf(c.mn, k)
		for i := 0; i < max(len(go_), len(gn)); i++ {
			switch {
			case i < len(go_) && i < len(gn):
				c.alignBranches(name, go_[i], gn[i], ctxO, ctxN)
			case i < len(gn):
				c.add(name+"-added", nil, []*algebra.Fact{gn[i]}, fmt.Sprintf("%s with %d branches added", gn[i].Keyword(), len(gn[i].Subs)))
			default:
				c.add(name+"-removed", []*algebra.Fact{go_[i]}, nil, fmt.Sprintf("%s with %d branches removed", go_[i].Keyword(), len(go_[i].Subs)))
			}
		}
	}
	// not
	no, nn := algebra.FactsOf(c.mo, algebra.FNot), algebra.FactsOf(c.mn, algebra.FNot)
	for i := 0; i < max(len(no), len(nn)); i++ {
		switch {
		case i < len(no) && i < len(nn):
			if !e.Same(no[i].S, nn[i].S) {
				c.child([]*schema.Schema{no[i].S}, []*schema.Schema{nn[i].S}, nil, nil, nil, c.it.Ipath, -c.it.pol, c.dom)
			}
		case i < len(nn):
			c.add("not-added", nil, nn[i:i+1], "values must now not match "+short(nn[i].S.Value()))
		default:
			c.add("not-removed", no[i:i+1], nil, "values no longer need to avoid "+short(no[i].S.Value()))
		}
	}
	// if/then/else
	co, cn := groupsOf(c.mo, algebra.FCond), groupsOf(c.mn, algebra.FCond)
	for i := 0; i < max(len(co), len(cn)); i++ {
		switch {
		case i < len(co) && i < len(cn):
			x, y := co[i], cn[i]
			if !e.Same(x.Subs[0], y.Subs[0]) {
				c.child(x.Subs[:1], y.Subs[:1], ctxO, ctxN, nil, c.it.Ipath, 0, c.dom)
			}
			for j, word := range []string{"", "then", "else"} {
				if j == 0 {
					continue
				}
				a, b := x.Subs[j], y.Subs[j]
				switch {
				case a != nil && b != nil:
					if !e.Same(a, b) {
						c.child([]*schema.Schema{a}, []*schema.Schema{b}, withS(ctxO, x.Subs[0], j == 1), withS(ctxN, y.Subs[0], j == 1), nil, c.it.Ipath, c.it.pol, c.dom)
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
	dyo, dyn := algebra.FactsOf(c.mo, algebra.FDynamic), algebra.FactsOf(c.mn, algebra.FDynamic)
	if len(dyo)+len(dyn) > 0 && !c.e.SameConj(c.it.o, c.it.n) {
		ch := c.add("dynamic-reference", dyo, dyn, "a dynamic reference ($dynamicRef, $recursiveRef) or a number too large to reason about exactly is involved; only the search can judge this location")
		ch.Bw, ch.Fw = PUnknown, PUnknown
	}
	if uo, un := algebra.FactsOf(c.mo, algebra.FUnread), algebra.FactsOf(c.mn, algebra.FUnread); len(uo)+len(un) > 0 && !c.e.SameConj(c.it.o, c.it.n) {
		ch := c.add("keyword-not-read", uo, un, "diff does not read "+algebra.UnreadNames(uo, un)+"; only the search can judge this location")
		ch.Bw, ch.Fw = PUnknown, PUnknown
	}

}

func withS(ctx []*schema.Schema, s *schema.Schema, add bool) []*schema.Schema {
	if !add {
		return ctx
	}
	return append(append([]*schema.Schema(nil), ctx...), s)
}

func groupsOf(m *algebra.Merged, k algebra.FactKind) []*algebra.Fact {
	var out []*algebra.Fact
	for g := range m.Groups {
		if g.Kind == k {
			out = append(out, g)
		}
	}
	return out
}

// alignBranches pairs the branches of two anyOf or oneOf groups: identical branches first,
// then branches referring to the same definition, then by position when the counts agree,
// then by shape.
func (c *cmpCtx) alignBranches(name string, gO, gN *algebra.Fact, ctxO, ctxN []*schema.Schema) {
	e := c.e
	no, nn := len(gO.Subs), len(gN.Subs)
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
	match(func(i, j int) bool { return e.Same(gO.Subs[i], gN.Subs[j]) })
	match(func(i, j int) bool {
		ri, rj := e.refText(gO.Subs[i]), e.refText(gN.Subs[j])
		return ri != "" && ri == rj
	})
	if no == nn {
		match(func(i, j int) bool { return i == j })
	}
	match(func(i, j int) bool { return e.signature(gO.Subs[i]) == e.signature(gN.Subs[j]) })
	pol := c.it.pol
	if gO.Kind == algebra.FOneOf && !(e.branchesDisjoint(c.fo, gO) && e.branchesDisjoint(c.fn, gN)) {
		pol = 0
	}
	for i, j := range pairO {
		if j >= 0 && !e.Same(gO.Subs[i], gN.Subs[j]) {
			if ch := c.child([]*schema.Schema{gO.Subs[i]}, []*schema.Schema{gN.Subs[j]}, ctxO, ctxN, nil, c.it.Ipath, pol, c.dom); ch != nil {
				ch.Branch = true
			}
		}
	}
	for j, i := range pairN {
		if i < 0 {
			ch := c.add(name+"-branch-added", []*algebra.Fact{gO}, []*algebra.Fact{gN}, fmt.Sprintf("%s gained branch %d: %s", gN.Keyword(), j, short(gN.Subs[j].Value())))
			ch.Nkw = gN.Keyword() + "/" + strconv.Itoa(j)
		}
	}
	for i, j := range pairO {
		if j < 0 {
			ch := c.add(name+"-branch-removed", []*algebra.Fact{gO}, []*algebra.Fact{gN}, fmt.Sprintf("%s lost branch %d: %s", gO.Keyword(), i, short(gO.Subs[i].Value())))
			ch.Okw = gO.Keyword() + "/" + strconv.Itoa(i)
		}
	}
}

func (e *Engine) refText(s *schema.Schema) string {
	if v, ok := e.Node(s).Raw("$ref"); ok && v.Kind() == source.String {
		return v.Str()
	}
	return ""
}

// signature summarises a branch for alignment: its types, required names and constants.
func (e *Engine) signature(s *schema.Schema) string {
	c := e.One(s)
	m := e.Merged(c)
	var req []string
	for k := range m.Required {
		req = append(req, k)
	}
	sort.Strings(req)
	sig := algebra.Itoa(int(m.Types)) + "|" + strings.Join(req, ",")
	for _, n := range e.Parts(c) {
		for _, k := range n.PropOrder {
			if ps := n.Props[k]; ps != nil {
				if v, ok := e.Node(ps).Raw("const"); ok {
					sig += "|" + k + "=" + short(v)
				}
			}
		}
	}
	return sig
}

// branchesDisjoint proves the branches of a oneOf pairwise disjoint within ctx: then the
// oneOf is a plain union and its branches can be judged one by one.
func (e *Engine) branchesDisjoint(ctx *algebra.Conj, g *algebra.Fact) bool {
	if len(g.Subs) > 24 {
		return false
	}
	for i := range g.Subs {
		for j := i + 1; j < len(g.Subs); j++ {
			if !e.Disjoint(e.With(ctx, []*schema.Schema{g.Subs[i]}, e.GroupOf(g)), e.One(g.Subs[j]), schema.TypeAll, 0) {
				return false
			}
		}
	}
	return true
}

// otherNameFacts are the facts about properties no property or pattern names.
func otherNameFacts(m *algebra.Merged) []*algebra.Fact {
	return append(algebra.FactsOf(m, algebra.FAdditional), algebra.FactsOf(m, algebra.FUnevalProps)...)
}

func firstOr(ss []*schema.Schema, def *schema.Schema) *schema.Schema {
	if len(ss) > 0 && ss[0] != nil {
		return ss[0]
	}
	return def
}

// memberTokens returns memberPattern for the change's fact in direction dir, split once.
func (ch *Change) MemberTokens(dir int, f *algebra.Fact) *memberToks {
	m := &ch.members[dir-1]
	if !m.done {
		m.done = true
		var pat string
		if pat, m.Ok = memberPattern(ch.It.Ipath, f); m.Ok {
			m.Toks, _ = source.SplitPointer(pat)
			m.N = len(pat)
		}
	}
	return m
}

// placed is where the keywords of a change are, found ahead of the report (placeAhead).
type Placed struct {
	OldPtr, NewPtr string
	Old, New       Location
}

// Location is a place in a schema file.
type Location struct {
	// File is the file name as given ("" for inline schemas).
	File string `json:"file,omitempty"`
	// Line is the 1-based line.
	Line int `json:"line,omitempty"`
	// Column is the 1-based column, in characters.
	Column int `json:"column,omitempty"`
}

// memberPattern returns the instance location pattern of the member a fact constrains.
func memberPattern(ipath string, f *algebra.Fact) (string, bool) {
	switch f.Kind {
	case algebra.FProp:
		return ipath + "/" + source.EscapeToken(f.Str), true
	case algebra.FItem:
		return ipath + "/" + strconv.Itoa(f.I), true
	case algebra.FPatternProp:
		return ipath + "/<" + f.Str + ">", true
	case algebra.FAdditional, algebra.FTail, algebra.FUnevalProps, algebra.FUnevalItems:
		return ipath + "/*", true
	}
	return "", false
}
