package sample

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// gen generates instances for one schema. It is not safe for concurrent use.
type gen struct {
	ctx  context.Context // the run's: every check made for it is stopped with it
	root *schema.Schema
	opts *Options
	r    *rand.Rand
	// halt is the error that stopped the run: the context ended, or the pattern budget
	// was used up. Generation then winds down without another check.
	halt error
	// attempts is the number of attempts of the last instance, for a stopped run's report.
	attempts int

	infos       map[*schema.Schema]*info
	patterns    map[string]*patternGen
	patternErrs map[string]error
	formats     map[string]*schema.Schema // format checkers by draft and name
	estimates   map[*schema.Schema]int
	dynAnchors  map[string]map[string]*schema.Schema // base URI -> $dynamicAnchor -> schema
	recAnchors  map[string]*schema.Schema            // base URI -> resource root with $recursiveAnchor

	minimal bool // this attempt keeps instances as small as possible
	try     int  // the try of the location being generated (0: first)
	budget  int  // generation steps left in this attempt
	why     *reason
	// contradiction is set when this attempt met a contradiction in the schema.
	contradiction bool
	record        map[string]*conj // instance pointer -> the constraints it was generated for
}

// reason explains why a location could not be satisfied. Its message is formatted only
// when it is read: most reasons are superseded. A proof's reason may rest on others (a
// choice on the reason of its first branch, an object on the reason of a member it needs):
// msg writes the chain, see proof.go.
type reason struct {
	ptr    string
	format string
	args   []any
	static bool // a contradiction in the schema, not a failed attempt

	// kind and where name a level that nests (an "anyOf" at a schema location, an "array"
	// at an instance location), so that a run of alike levels is told once.
	kind, where string
	causes      []cause
}

// cause is a reason another rests on, with the words that lead to it ("in its first
// branch,").
type cause struct {
	label string
	r     *reason
}

func (g *gen) fail(ptr string, static bool, format string, args ...any) {
	if static {
		g.contradiction = true
	}
	// The deepest static contradiction explains best.
	if g.why == nil || static && !g.why.static || static == g.why.static && len(ptr) > len(g.why.ptr) {
		g.why = &reason{ptr: ptr, format: format, args: args, static: static}
	}
}

func newGen(ctx context.Context, root *schema.Schema, opts *Options) *gen {
	g := &gen{ctx: ctx, root: root, opts: opts, infos: map[*schema.Schema]*info{}, patterns: map[string]*patternGen{},
		patternErrs: map[string]error{}, formats: map[string]*schema.Schema{}, estimates: map[*schema.Schema]int{},
		dynAnchors: map[string]map[string]*schema.Schema{}, recAnchors: map[string]*schema.Schema{}}
	schema.Walk(root, func(s *schema.Schema) bool {
		if _, isBool := s.Bool(); isBool {
			return true
		}
		dyn, rec := s.Draft.AnchorKeyword(schema.DynamicAnchor), s.Draft.AnchorKeyword(schema.RecursiveAnchor)
		if v, ok := s.Keyword(dyn); ok && dyn != "" && v.Kind() == source.String {
			m := g.dynAnchors[s.BaseURI()]
			if m == nil {
				m = map[string]*schema.Schema{}
				g.dynAnchors[s.BaseURI()] = m
			}
			m[v.Str()] = s
		}
		if v, ok := s.Keyword(rec); ok && rec != "" && v.Kind() == source.Bool && v.Bool() {
			g.recAnchors[s.BaseURI()] = s
		}
		return true
	})
	return g
}

// conj is the conjunction of constraints on one location: every schema in all must accept
// the value and none in nots may. Choices (anyOf, oneOf, if) are resolved by adding the
// chosen branch to all (and, for oneOf, the other branches to nots).
type conj struct {
	all     []*schema.Schema
	nots    []*schema.Schema
	pending []*schema.Schema // schemas whose choices are not resolved yet
	// scopes holds, for each schema of all, the dynamic scope it was reached through:
	// the base URIs of the resources entered, outermost first.
	scopes map[*schema.Schema][]string
	// member holds the schemas of all; the value is true for a schema that another one of
	// all applies in place with $ref or allOf: validating that one validates it too, so
	// check skips it (a chain of n references is checked once, not n times).
	member map[*schema.Schema]bool
}

func (c *conj) clone() *conj {
	return &conj{all: slices.Clone(c.all), nots: slices.Clone(c.nots), pending: slices.Clone(c.pending),
		scopes: maps.Clone(c.scopes), member: maps.Clone(c.member)}
}

// addFrame is a schema whose in-place subschemas add is expanding.
type addFrame struct {
	s     *schema.Schema
	scope []string
	kids  []addKid
	next  int
}

type addKid struct {
	s       *schema.Schema
	covered bool // applied in place by the parent ($ref, allOf): the parent's check covers it
}

// add expands s, reached through the dynamic scope from, into c: s itself, what it
// references, its allOf; its choices are queued. It walks with an explicit stack: a chain
// of references as long as the schema allows costs no goroutine stack.
func (g *gen) add(c *conj, s *schema.Schema, from []string) {
	var stack []addFrame
	enter := func(s *schema.Schema, from []string, covered bool) {
		if s == nil {
			return
		}
		if _, in := c.member[s]; in {
			return
		}
		if c.member == nil {
			c.member = map[*schema.Schema]bool{}
		}
		c.member[s] = covered
		c.all = append(c.all, s)
		if _, isBool := s.Bool(); isBool {
			return
		}
		scope := from
		if u := s.BaseURI(); len(scope) == 0 || scope[len(scope)-1] != u {
			scope = append(slices.Clip(scope), u)
		}
		if c.scopes == nil {
			c.scopes = map[*schema.Schema][]string{}
		}
		c.scopes[s] = scope
		var kids []addKid
		if t := s.Ref(); t != nil {
			kids = append(kids, addKid{t, true})
		}
		if t, dyn := s.DynamicRef(); t != nil {
			kids = append(kids, addKid{g.dynamicTarget(scope, s, t, dyn), false})
		}
		for _, a := range g.info(s).allOf {
			kids = append(kids, addKid{a, true})
		}
		stack = append(stack, addFrame{s: s, scope: scope, kids: kids})
	}
	enter(s, from, false)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.kids) {
			k := f.kids[f.next]
			f.next++
			enter(k.s, f.scope, k.covered)
			continue
		}
		// Every in-place subschema is in: queue what s itself asks for.
		in := g.info(f.s)
		if in.not != nil {
			c.nots = append(c.nots, in.not)
		}
		if in.anyOf != nil || in.oneOf != nil || in.ifS != nil {
			c.pending = append(c.pending, f.s)
		}
		stack = stack[:len(stack)-1]
	}
}

// dynamicTarget resolves $dynamicRef / $recursiveRef through the dynamic scope.
func (g *gen) dynamicTarget(scope []string, s, static *schema.Schema, dynamic bool) *schema.Schema {
	if !dynamic {
		return static
	}
	if v, ok := s.Keyword("$dynamicRef"); ok && v.Kind() == source.String {
		name := v.Str()
		if i := lastIndexByte(name, '#'); i >= 0 {
			name = name[i+1:]
		}
		for _, u := range scope {
			if t, ok := g.dynAnchors[u][name]; ok {
				return t
			}
		}
		return static
	}
	for _, u := range scope {
		if t, ok := g.recAnchors[u]; ok {
			return t
		}
	}
	return static
}

func lastIndexByte(s string, b byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == b {
			return i
		}
	}
	return -1
}

// resolve decides every pending choice of c.
func (g *gen) resolve(c *conj, depth int) {
	for len(c.pending) > 0 {
		s := c.pending[0]
		c.pending = c.pending[1:]
		in := g.info(s)
		sc := c.scopes[s]
		if in.anyOf != nil {
			g.add(c, in.anyOf[g.choose(c, in.anyOf, depth)], sc)
		}
		if in.oneOf != nil {
			i := g.choose(c, in.oneOf, depth)
			for j, b := range in.oneOf {
				if j != i {
					c.nots = append(c.nots, b)
				}
			}
			g.add(c, in.oneOf[i], sc)
		}
		if in.ifS != nil {
			// Either the condition holds and then applies, or it fails and else applies.
			holds := g.r.IntN(2) == 0
			if holds {
				g.add(c, in.ifS, sc)
				g.add(c, in.thenS, sc)
			} else {
				c.nots = append(c.nots, in.ifS)
				g.add(c, in.elseS, sc)
			}
		}
	}
}

// staticTypes returns the types a schema allows on its own, following $ref and allOf
// (a schema met again adds nothing). It walks with an explicit stack.
func (g *gen) staticTypes(s *schema.Schema, seen map[*schema.Schema]bool) schema.TypeSet {
	type frame struct {
		t    schema.TypeSet
		kids []*schema.Schema
		next int
	}
	var stack []frame
	// enter starts on s; it returns s's types at once when they need no walk.
	enter := func(s *schema.Schema) (schema.TypeSet, bool) {
		if s == nil || seen[s] {
			return schema.TypeAll, true
		}
		seen[s] = true
		in := g.info(s)
		switch in.boolean {
		case 1:
			return schema.TypeAll, true
		case -1:
			return 0, true
		}
		t := schema.TypeAll
		if in.types != 0 {
			t = in.types
		}
		if in.hasEnum {
			var et schema.TypeSet
			for _, e := range in.enum {
				et |= schema.TypeOf(e)
			}
			t &= et
		}
		var kids []*schema.Schema
		if r := s.Ref(); r != nil {
			kids = append(kids, r)
		}
		kids = append(kids, in.allOf...)
		stack = append(stack, frame{t: t, kids: kids})
		return 0, false
	}
	if t, done := enter(s); done {
		return t
	}
	for {
		f := &stack[len(stack)-1]
		if f.next < len(f.kids) {
			k := f.kids[f.next]
			f.next++
			if t, done := enter(k); done {
				f.t &= t
			}
			continue
		}
		t := f.t
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return t
		}
		stack[len(stack)-1].t &= t
	}
}

// choose picks a branch: one whose types fit the types allowed so far, at random; when
// deep or minimal, the branch that needs the least nesting.
func (g *gen) choose(c *conj, branches []*schema.Schema, depth int) int {
	allowed := g.types(c)
	var fit []int
	for i, b := range branches {
		if g.staticTypes(b, map[*schema.Schema]bool{})&allowed != 0 {
			fit = append(fit, i)
		}
	}
	if len(fit) == 0 {
		for i := range branches {
			fit = append(fit, i)
		}
	}
	if g.minimal || depth > softDepth {
		best, bestCost := fit[0], 1<<30
		start := g.r.IntN(len(fit))
		for k := range fit {
			i := fit[(start+k)%len(fit)]
			if e := g.estimate(branches[i]); e < bestCost {
				best, bestCost = i, e
			}
		}
		return best
	}
	return fit[g.r.IntN(len(fit))]
}

// estimate is how deep an instance of s must nest at least (recursion counts as deep).
// It walks with an explicit stack; a schema met again while its own estimate is under way
// counts 100 (a cycle).
func (g *gen) estimate(s *schema.Schema) int {
	if e, ok := g.estimates[s]; ok {
		return e
	}
	type frame struct {
		s    *schema.Schema
		kids []*schema.Schema
		vals []int
	}
	var stack []frame
	enter := func(s *schema.Schema) {
		g.estimates[s] = 100 // in progress: a cycle
		stack = append(stack, frame{s: s, kids: g.estimateKids(s)})
	}
	enter(s)
	for {
		f := &stack[len(stack)-1]
		if i := len(f.vals); i < len(f.kids) {
			k := f.kids[i]
			if e, ok := g.estimates[k]; ok {
				f.vals = append(f.vals, e)
			} else {
				enter(k)
			}
			continue
		}
		e := g.estimateOf(f.s, f.vals)
		g.estimates[f.s] = e
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return e
		}
		top := &stack[len(stack)-1]
		top.vals = append(top.vals, e)
	}
}

// estimateKids lists the subschemas whose estimates s's depends on, in the order
// estimateOf reads them: $ref, $dynamicRef, allOf, anyOf, oneOf, then the required
// properties and the items when s needs an object or an array.
func (g *gen) estimateKids(s *schema.Schema) []*schema.Schema {
	in := g.info(s)
	if in.boolean != 0 {
		return nil
	}
	var kids []*schema.Schema
	if r := s.Ref(); r != nil {
		kids = append(kids, r)
	}
	if r, _ := s.DynamicRef(); r != nil {
		kids = append(kids, r)
	}
	kids = append(kids, in.allOf...)
	kids = append(kids, in.anyOf...)
	kids = append(kids, in.oneOf...)
	t := in.types
	if t == 0 {
		t = schema.TypeAll
	}
	if t&^(schema.TypeObject|schema.TypeArray) != 0 {
		return kids // a scalar will do
	}
	if t&schema.TypeObject != 0 {
		for _, r := range in.required {
			if p := in.props[r]; p != nil {
				kids = append(kids, p)
			}
		}
	}
	if t&schema.TypeArray != 0 && in.minItems > 0 && in.items != nil {
		kids = append(kids, in.items)
	}
	return kids
}

// estimateOf combines the estimates of s's kids (see estimateKids), in their order.
func (g *gen) estimateOf(s *schema.Schema, vals []int) int {
	in := g.info(s)
	switch in.boolean {
	case 1:
		return 0
	case -1:
		return 1000
	}
	next := func() int {
		v := vals[0]
		vals = vals[1:]
		return v
	}
	e := 0
	if r := s.Ref(); r != nil {
		e = max(e, next())
	}
	if r, _ := s.DynamicRef(); r != nil {
		e = max(e, next())
	}
	for range in.allOf {
		e = max(e, next())
	}
	for _, list := range [][]*schema.Schema{in.anyOf, in.oneOf} {
		m := 1 << 20
		for range list {
			m = min(m, next())
		}
		if list != nil {
			e = max(e, m)
		}
	}
	for _, v := range vals { // required properties and items: one level deeper
		e = max(e, 1+v)
	}
	return e
}

// types returns the types every schema of c allows.
func (g *gen) types(c *conj) schema.TypeSet {
	t := schema.TypeAll
	for _, s := range c.all {
		in := g.info(s)
		if in.boolean == -1 {
			return 0
		}
		if in.types != 0 {
			t &= in.types
		}
	}
	// A not that is only a type takes those types away.
	for _, n := range c.nots {
		in := g.info(n)
		if in.boolean == 1 {
			return 0
		}
		if in.types != 0 && onlyType(n) {
			t &^= in.types
		}
	}
	return t
}

// onlyType reports a schema whose only assertion is type. Its list is sample's choice of
// the keywords beside type that leave a schema a bare type (not a kind of the model).
func onlyType(s *schema.Schema) bool {
	for _, k := range s.Keywords() {
		switch k {
		case "type", "$schema", "$id", "id", "title", "description", "$comment", "examples", "default":
		default:
			return false
		}
	}
	return true
}

// check reports whether v satisfies c. A schema that another of c applies in place is
// checked by that one's check.
func (g *gen) check(c *conj, v source.Value) bool {
	for _, s := range c.all {
		if c.member[s] {
			continue
		}
		if ok, err := g.valid(s, v); err != nil || !ok {
			return false
		}
	}
	for _, n := range c.nots {
		if ok, err := g.valid(n, v); err == nil && ok {
			return false
		}
	}
	return true
}

// valid checks v against s within the run. An error that ends the run (the context
// ended, the pattern budget is used up) halts the generation: its budget drops to zero,
// so that it winds down without another check.
func (g *gen) valid(s *schema.Schema, v source.Value) (bool, error) {
	if g.halt != nil {
		return false, g.halt
	}
	ok, err := s.ValidContext(g.ctx, v)
	if err != nil {
		g.stopOn(err)
	}
	return ok, err
}

// stopOn halts the generation when err ends the run.
func (g *gen) stopOn(err error) {
	if g.halt == nil && schema.EndsRun(err) {
		g.halt = err
		g.budget = 0
	}
}

// crowded reports whether this attempt has generated so much already that what remains
// should be kept small.
func (g *gen) crowded() bool { return g.budget < g.opts.Budget*3/4 }

// Depths beyond which instances are kept small, and beyond which generation gives up.
const (
	softDepth = 6
	hardDepth = 48
)

// generate produces a value for the constraints of one location. It retries with other
// choices and other random values while the result does not satisfy the constraints,
// and returns its last try (which the caller's check will reject) when none does, or the
// zero Value when no try produced a value at all.
func (g *gen) generate(base *conj, ptr string, depth int, avoid []source.Value) (source.Value, bool) {
	tries := 4
	if depth > 2 {
		tries = 3
	}
	var last source.Value
	saved := g.try
	defer func() { g.try = saved }()
	for try := 0; try < tries; try++ {
		g.try = try
		if g.budget <= 0 {
			g.fail(ptr, false, "the generation budget was used up")
			break
		}
		g.budget--
		c := base.clone()
		g.resolve(c, depth)
		v, ok := g.value(c, ptr, depth, avoid)
		if !ok {
			continue
		}
		last = v
		if g.check(c, v) && !containsValue(avoid, v) {
			if g.record != nil {
				g.record[ptr] = c
			}
			return v, true
		}
	}
	return last, false // the zero Value when nothing could be made at all
}

func containsValue(list []source.Value, v source.Value) bool {
	for _, x := range list {
		if source.Equal(x, v) {
			return true
		}
	}
	return false
}

// value generates a value for resolved constraints.
func (g *gen) value(c *conj, ptr string, depth int, avoid []source.Value) (source.Value, bool) {
	if depth > hardDepth {
		g.fail(ptr, false, "the schema recurses deeper than %d levels here", hardDepth)
		return source.Value{}, false
	}
	for _, s := range c.all {
		if g.info(s).boolean == -1 {
			g.fail(ptr, true, "the schema at %s is false: no value is allowed", s.Location())
			return source.Value{}, false
		}
	}
	if g.opts.UseExamples {
		if v, ok := g.example(c, avoid); ok {
			return v, true
		}
	}
	if vals, ok := g.enumCandidates(c); ok {
		var good []source.Value
		for _, v := range vals {
			if !containsValue(avoid, v) && g.check(c, v) {
				good = append(good, v)
			}
		}
		if len(good) == 0 {
			// 1.0 for an enum's 1, where only that spelling passes (draft 4's integer)
			for _, v := range withTwins(vals)[len(vals):] {
				if !containsValue(avoid, v) && g.check(c, v) {
					good = append(good, v)
				}
			}
		}
		if len(good) == 0 {
			g.fail(ptr, avoid == nil, "no value of the enum/const at %s satisfies the other constraints here", enumSource(g, c))
			return source.Value{}, false
		}
		return good[g.r.IntN(len(good))], true
	}
	t := g.types(c)
	if t == 0 {
		g.fail(ptr, true, "no type satisfies every schema here: %s", typeConflict(g, c))
		return source.Value{}, false
	}
	// Types in order of preference; when one cannot be made, the next is tried.
	for _, tt := range g.typeOrder(c, t) {
		var v source.Value
		var ok bool
		switch tt {
		case schema.TypeNull:
			v, ok = source.NullValue(), true
		case schema.TypeBoolean:
			v, ok = source.BoolValue(g.r.IntN(2) == 0), true
		case wholeNumbers:
			v, ok = g.number(c, ptr, true)
		case schema.TypeFraction:
			v, ok = g.number(c, ptr, false)
		case schema.TypeString:
			v, ok = g.str(c, ptr)
		case schema.TypeArray:
			v, ok = g.array(c, ptr, depth)
		case schema.TypeObject:
			v, ok = g.object(c, ptr, depth)
		}
		if ok {
			return v, true
		}
	}
	return source.Value{}, false
}

// example returns a valid schema example or default (--use-examples).
func (g *gen) example(c *conj, avoid []source.Value) (source.Value, bool) {
	var cands []source.Value
	for _, s := range c.all {
		cands = append(cands, g.info(s).examples...)
	}
	if len(cands) == 0 {
		return source.Value{}, false
	}
	start := g.r.IntN(len(cands))
	for k := range cands {
		v := cands[(start+k)%len(cands)]
		if !containsValue(avoid, v) && g.check(c, v) {
			return v, true
		}
	}
	return source.Value{}, false
}

// enumCandidates returns the values of the first enum or const among c's schemas.
func (g *gen) enumCandidates(c *conj) ([]source.Value, bool) {
	for _, s := range c.all {
		if in := g.info(s); in.hasEnum {
			return in.enum, true
		}
	}
	return nil, false
}

func enumSource(g *gen, c *conj) string {
	for _, s := range c.all {
		if g.info(s).hasEnum {
			return s.Location()
		}
	}
	return "?"
}

func typeConflict(g *gen, c *conj) string {
	var parts []string
	for _, s := range c.all {
		in := g.info(s)
		if in.types != 0 {
			parts = append(parts, fmt.Sprintf("%v at %s", typeList(in.types), s.Location()))
		}
	}
	for _, n := range c.nots {
		if in := g.info(n); in.types != 0 && onlyType(n) {
			parts = append(parts, fmt.Sprintf("not %v at %s", typeList(in.types), n.Location()))
		}
	}
	if len(parts) == 0 {
		return "the constraints exclude every type"
	}
	return joinWords(parts)
}

func joinWords(parts []string) string {
	out := ""
	for i, p := range parts {
		switch {
		case i == 0:
		case i == len(parts)-1:
			out += " and "
		default:
			out += ", "
		}
		out += p
	}
	return out
}

// typeOrder orders the allowed types: those the keywords suggest first; without hints,
// a string first on a first try (the most readable guess), any order on later tries.
func (g *gen) typeOrder(c *conj, t schema.TypeSet) []schema.TypeSet {
	var hints schema.TypeSet
	for _, s := range c.all {
		hints |= g.info(s).hints
	}
	var first, rest []schema.TypeSet
	for _, x := range typeOrder {
		switch {
		case t&x.t == 0:
		case hints&x.t != 0:
			first = append(first, x.t)
		default:
			rest = append(rest, x.t)
		}
	}
	shuffle := func(list []schema.TypeSet) {
		g.r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	}
	shuffle(first)
	shuffle(rest)
	if g.try == 0 || g.minimal {
		// Readable first: a string, then what is not null.
		slices.SortStableFunc(rest, func(a, b schema.TypeSet) int { return typeRank(a) - typeRank(b) })
	}
	return append(first, rest...)
}

func typeRank(t schema.TypeSet) int {
	switch t {
	case schema.TypeString:
		return 0
	case schema.TypeNull:
		return 2
	}
	return 1
}
