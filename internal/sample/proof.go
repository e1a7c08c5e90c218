package sample

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Generation can fail on a satisfiable schema (a choice that led nowhere, a budget spent),
// so a failed generation proves nothing. "The schema is unsatisfiable" is said only when
// the prover below shows it, with sound rules over the schema's keywords: each rule
// concludes "no value here" from constraints that every value at that place must meet
// (no choice among anyOf, oneOf or if branches is assumed; those are proved branch by
// branch). What it cannot show is left unproved, and the failure says only that no
// instance was found. The rules are checked against an exact bounded oracle in the diff
// tests (internal/diff, TestClassPairs and the generated pairs).

// proofBudget bounds the conjunctions one proof examines; proofDepth the instance levels
// it descends (a required member, a needed item).
const (
	proofBudget = 2000
	proofDepth  = 12
)

// prover shows a schema unsatisfiable.
type prover struct {
	g      *gen
	budget int
}

// unsatisfiable returns why s accepts no value, when the prover can show it (nil
// otherwise).
func (g *gen) unsatisfiable(s *schema.Schema) *reason {
	c := &conj{}
	g.add(c, s, nil)
	p := &prover{g: g, budget: proofBudget}
	r := p.empty(c, schema.TypeAll, "", 0)
	if g.halt != nil || g.ctx.Err() != nil {
		return nil // the run ended while the proof was under way: its checks proved nothing
	}
	return r
}

// annotationOnly are the keywords that assert nothing (schema.Keyword.AssertsNothing).
var annotationOnly = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range schema.KeywordNames(schema.AllDrafts, (*schema.Keyword).AssertsNothing) {
		m[name] = true
	}
	return m
})

// vacuous reports a schema that accepts every value on its own: true, or an object with
// only annotations.
func (g *gen) vacuous(s *schema.Schema) bool {
	switch g.info(s).boolean {
	case 1:
		return true
	case -1:
		return false
	}
	for _, k := range s.Keywords() {
		if !annotationOnly()[k] {
			return false
		}
	}
	return true
}

// sameSchema reports two schemas that accept the same values because they are the same
// text read the same way: the same value, draft and base URI (so their references lead
// to the same places).
func sameSchema(a, b *schema.Schema) bool {
	return a == b || a.Draft == b.Draft && a.BaseURI() == b.BaseURI() && source.Equal(a.Value(), b.Value())
}

// withTwins returns vals followed by the integral numbers among them spelled the other
// way (1 as 1.0, 1.0 as 1): equal values, so both are instances of the enum, but draft 4
// counts only 1 as an integer.
func withTwins(vals []source.Value) []source.Value {
	out := vals
	for _, v := range vals {
		if v.Kind() != source.Number || !v.Num().IsInteger() {
			continue
		}
		lit := v.Str()
		twin := v.Num().String()
		if !strings.ContainsAny(lit, ".eE") {
			twin = lit + ".0"
		}
		if twin != lit {
			out = append(slices.Clip(out), source.NumberValue(twin))
		}
	}
	return out
}

// A proof's reason is a chain: "no branch of the anyOf at A can be satisfied; in its
// first branch, no object fits: ...". Written whole, the chain through 1,000 nested anyOfs
// made a message of 4 MB (each level names a location as long as its depth) that repeated
// one sentence 1,000 times, and cutting it short lost the cause at its end, the one thing
// a reader needs. So a run of alike levels (the same kind of step, taken the same way) is
// told once with its length and its last location; at most maxLevels steps are told, the
// first and the last ones (the cause at the end is always there); a long location or name
// is shortened in its middle; a branching reason (both ways of an if) tells each way with
// half the levels.
const (
	maxLevels = 6
	maxWhere  = 123
	maxArg    = 203
)

// msg writes the reason with the reasons it rests on.
func (r *reason) msg() string {
	var b strings.Builder
	r.write(&b, maxLevels)
	return b.String()
}

// level is a step of a chain told once: the first of a run of n alike reasons, the label
// that leads to it, and the last of the run.
type level struct {
	label       string
	first, last *reason
	n           int
}

func (r *reason) write(b *strings.Builder, levels int) {
	// the chain of single causes from r, with runs of alike steps grouped; its length is
	// bounded by the prover's budget, and it is walked without recursion
	var chain []level
	label := ""
	for cur := r; ; {
		if n := len(chain); n > 0 && chain[n-1].last.kind != "" && alike(chain[n-1].last, cur) {
			chain[n-1].last = cur
			chain[n-1].n++
		} else {
			chain = append(chain, level{label: label, first: cur, last: cur, n: 1})
		}
		if len(cur.causes) != 1 {
			break
		}
		label, cur = cur.causes[0].label, cur.causes[0].r
	}
	skipped := 0
	if len(chain) > levels {
		head := levels / 2
		for _, l := range chain[head : len(chain)-(levels-head)] {
			skipped += l.n
		}
		rest := chain[len(chain)-(levels-head):]
		chain = append(chain[:head:head], level{n: -skipped})
		chain = append(chain, rest...)
	}
	for i, l := range chain {
		if i > 0 {
			b.WriteString("; ")
		}
		if l.n < 0 {
			fmt.Fprintf(b, "(%d steps of the proof are left out)", -l.n)
			continue
		}
		if l.label != "" {
			b.WriteString(l.label)
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, l.first.format, shortArgs(l.first.args)...)
		if l.n > 1 {
			fmt.Fprintf(b, " (and so for the %d %ss nested below it, down to the one at %s)", l.n-1, l.last.kind, diag.Middle(l.last.where, maxWhere))
		}
	}
	last := chain[len(chain)-1].last
	if len(last.causes) > 1 {
		// each way in parentheses, so that nested ways read unambiguously
		if levels/2 == 0 {
			b.WriteString(" (why, for each way, is left out)")
			return
		}
		b.WriteString(" (")
		for i, c := range last.causes {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(c.label)
			b.WriteByte(' ')
			c.r.write(b, levels/2)
		}
		b.WriteByte(')')
	}
}

// shortArgs returns args with each long string (a location deep in a schema, a long name)
// shortened in its middle to maxArg bytes.
func shortArgs(args []any) []any {
	out := args
	copied := false
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > maxArg {
			if !copied {
				out, copied = slices.Clone(args), true
			}
			out[i] = diag.Middle(s, maxArg)
		}
	}
	return out
}

// alike reports two steps that read the same: the same kind, taken the same way.
func alike(a, b *reason) bool {
	return a.kind == b.kind && a.format == b.format && len(a.causes) == 1 && len(b.causes) == 1 &&
		a.causes[0].label == b.causes[0].label
}

// because makes r rest on the reasons given as label, reason pairs; kind and where name a
// step that nests (see reason).
func (r *reason) because(kind, where string, causes ...cause) *reason {
	r.kind, r.where, r.causes = kind, where, causes
	return r
}

func proved(ptr, format string, args ...any) *reason {
	return &reason{ptr: ptr, format: format, args: args, static: true}
}

// empty returns why no value whose type is in types satisfies c at ptr, or nil.
func (p *prover) empty(c *conj, types schema.TypeSet, ptr string, depth int) *reason {
	g := p.g
	if p.budget <= 0 || depth > proofDepth || g.halt != nil {
		return nil
	}
	p.budget--
	for _, s := range c.all {
		if g.info(s).boolean == -1 {
			return proved(ptr, "the schema at %s is false: no value is allowed", s.Location())
		}
	}
	for _, n := range c.nots {
		if g.vacuous(n) {
			return proved(ptr, "the not at %s rejects every value (its schema accepts everything)", n.Location())
		}
	}
	t := p.types(c) & types
	if t == 0 {
		return proved(ptr, "no type satisfies every schema here: %s", typeConflict(g, c))
	}
	// an enum or const: its values, each judged by the validator
	for _, s := range c.all {
		in := g.info(s)
		if !in.hasEnum {
			continue
		}
		for _, v := range withTwins(in.enum) {
			if schema.TypeOf(v)&t != 0 && !p.rejects(c, v) {
				return nil // a value of the enum may be an instance
			}
		}
		return proved(ptr, "no value of the enum/const at %s satisfies the other constraints here", s.Location())
	}
	// each type on its own
	var first *reason
	var firstType schema.TypeSet
	rest := t
	for _, tt := range []schema.TypeSet{schema.TypeNull, schema.TypeBoolean, schema.TypeNumber, schema.TypeString, schema.TypeArray, schema.TypeObject} {
		if t&tt == 0 {
			continue
		}
		var r *reason
		switch tt {
		case schema.TypeNumber:
			r = p.noNumber(c, t, ptr)
		case schema.TypeString:
			r = p.noString(c, ptr)
		case schema.TypeArray:
			r = p.noArray(c, ptr, depth)
		case schema.TypeObject:
			r = p.noObject(c, ptr, depth)
		}
		if r == nil {
			continue
		}
		rest &^= tt
		if first == nil {
			first, firstType = r, tt&t
		}
	}
	if rest == 0 {
		if first == nil {
			return nil
		}
		if typeCount(t) > 1 {
			// several types, each ruled out: say so, with the first reason
			return proved(ptr, "no value of any type the schema allows here (%s) fits", typeNames(t)).
				because("", "", cause{"for type " + typeNames(firstType) + ",", first})
		}
		return first
	}
	// the choices: every branch of an anyOf or oneOf ruled out, both ways of an if
	return p.noChoice(c, rest, ptr, depth)
}

// rejects reports that the validator rules v out under c: a schema of c finds it invalid,
// or a not of c finds it valid, with no error. A check that could not be completed (a
// reference loop, a nesting too deep, the run ended) proves nothing.
func (p *prover) rejects(c *conj, v source.Value) bool {
	g := p.g
	for _, s := range c.all {
		if c.member[s] {
			continue // covered by the schema that applies it in place
		}
		if ok, err := g.valid(s, v); err == nil && !ok {
			return true
		}
	}
	for _, n := range c.nots {
		if ok, err := g.valid(n, v); err == nil && ok {
			return true
		}
	}
	return false
}

// types returns the types every schema of c allows: those of the type keywords, less
// those a not that is only a type removes.
func (p *prover) types(c *conj) schema.TypeSet {
	g := p.g
	t := schema.TypeAll
	for _, s := range c.all {
		if in := g.info(s); in.types != 0 {
			t &= in.types
		}
	}
	for _, n := range c.nots {
		// in.types is read in n's draft: a not of draft 4's "integer" leaves 1.0 in.
		if in := g.info(n); in.types != 0 && onlyType(n) {
			t &^= in.types
		}
	}
	return t
}

// noNumber shows that no number (no integer when t allows only integers) satisfies the
// bounds and multiples of c.
func (p *prover) noNumber(c *conj, t schema.TypeSet, ptr string) *reason {
	integer := t&schema.TypeFraction == 0
	b := p.g.numberBounds(c, integer)
	if b.lower != nil && b.upper != nil {
		if cmp := b.lower.Cmp(b.upper); cmp > 0 || cmp == 0 && (b.lowerExcl || b.upperExcl) {
			return proved(ptr, "no number is in range: the lower bound %s (at %s) is not below the upper bound %s (at %s)",
				ratString(b.lower), b.lowerAt, ratString(b.upper), b.upperAt)
		}
	}
	if b.multiple != nil {
		lo, hi := multiplesRange(b)
		if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
			if integer && b.multiple.Cmp(big.NewRat(1, 1)) == 0 {
				return proved(ptr, "no integer lies within the bounds here (above %s, below %s)", ratString(b.lower), ratString(b.upper))
			}
			return proved(ptr, "no multiple of %s lies within the bounds here", ratString(b.multiple))
		}
	}
	return nil
}

// noString shows that no string fits the lengths of c.
func (p *prover) noString(c *conj, ptr string) *reason {
	lo, hi := 0, -1
	for _, s := range c.all {
		in := p.g.info(s)
		lo = max(lo, in.minLen)
		if in.maxLen >= 0 && (hi < 0 || in.maxLen < hi) {
			hi = in.maxLen
		}
	}
	if hi >= 0 && lo > hi {
		return proved(ptr, "no string fits: minLength %d is greater than maxLength %d", lo, hi)
	}
	return nil
}

// inPlaceChoices reports whether something of c may evaluate members or items in place
// through a choice or a dependent schema, which the unevaluated keywords take into account.
func (p *prover) inPlaceChoices(c *conj) bool {
	if len(c.pending) > 0 {
		return true
	}
	for _, s := range c.all {
		in := p.g.info(s)
		if in.depSchemas != nil {
			return true
		}
		if _, dyn := s.DynamicRef(); dyn {
			return true
		}
	}
	return false
}

// noArray shows that no array satisfies c: the lengths it needs and allows, the items it
// needs (each at least one value), the contains counts.
func (p *prover) noArray(c *conj, ptr string, depth int) *reason {
	g := p.g
	parts := g.parts(c)
	lo, hi := 0, -1
	hiAt := ""
	for _, in := range parts {
		lo = max(lo, in.minItems)
		if in.maxItems >= 0 && (hi < 0 || in.maxItems < hi) {
			hi, hiAt = in.maxItems, "maxItems at "+in.s.Location()
		}
		if in.items != nil {
			if b, isBool := in.items.Bool(); isBool && !b && (hi < 0 || len(in.prefix) < hi) {
				hi, hiAt = len(in.prefix), fmt.Sprintf("no item after the %d positions of %s", len(in.prefix), in.s.Location())
			}
		}
		if in.contains != nil {
			if in.maxContains >= 0 && in.minContains > in.maxContains {
				return proved(ptr, "minContains %d is greater than maxContains %d", in.minContains, in.maxContains)
			}
			lo = max(lo, in.minContains)
		}
	}
	if hi >= 0 && lo > hi {
		return proved(ptr, "no array length fits: at least %d items are needed but at most %d are allowed (%s)", lo, hi, hiAt)
	}
	// each position an array must have needs a value
	for i := 0; i < lo && i < 8; i++ {
		ic := p.itemConj(c, parts, i)
		if ic == nil {
			continue
		}
		if r := p.empty(ic, schema.TypeAll, ptr+"/"+strconv.Itoa(i), depth+1); r != nil {
			return proved(ptr, "no array fits: it needs an item at %d", i).
				because("array", atPtr(ptr), cause{"and at " + atPtr(r.ptr) + ",", r})
		}
	}
	return nil
}

// itemConj is the conjunction of the schemas that apply to the item at position i of an
// array of c, when it is known (nil when unevaluatedItems may depend on choices).
func (p *prover) itemConj(c *conj, parts []*info, i int) *conj {
	g := p.g
	ic := &conj{}
	covered := g.addItemSchemas(ic, c, parts, i)
	if !covered {
		for _, in := range parts {
			if in.unevalItems != nil {
				if p.inPlaceChoices(c) || in.contains != nil {
					return nil
				}
				g.add(ic, in.unevalItems, c.scopes[in.s])
			}
		}
	}
	return ic
}

// noObject shows that no object satisfies c: the members it requires (each must be
// allowed and have a value), their number against maxProperties, the members a closed
// object allows against minProperties.
func (p *prover) noObject(c *conj, ptr string, depth int) *reason {
	g := p.g
	parts := g.parts(c)
	var required orderedSet
	minP, maxP := 0, -1
	for _, in := range parts {
		for _, r := range in.required {
			required.add(r)
		}
		minP = max(minP, in.minProps)
		if in.maxProps >= 0 && (maxP < 0 || in.maxProps < maxP) {
			maxP = in.maxProps
		}
	}
	// a required member brings the members it requires (dependentRequired)
	for i := 0; i < len(required.list); i++ {
		for _, in := range parts {
			for _, d := range in.depRequired[required.list[i]] {
				required.add(d)
			}
		}
	}
	if maxP >= 0 && len(required.list) > maxP {
		return proved(ptr, "%d properties are required but maxProperties is %d", len(required.list), maxP)
	}
	choices := p.inPlaceChoices(c)
	for _, name := range required.list {
		if p.forbidden(parts, choices, name) {
			return proved(ptr, "the required property %q is not allowed (additionalProperties, unevaluatedProperties or propertyNames rule it out)", name)
		}
		if mc := p.memberConj(c, parts, choices, name); mc != nil {
			if r := p.empty(mc, schema.TypeAll, ptr+"/"+source.EscapeToken(name), depth+1); r != nil {
				return proved(ptr, "no object fits: it needs the property %q", name).
					because("object", atPtr(ptr), cause{"and at " + atPtr(r.ptr) + ",", r})
			}
		}
	}
	if minP > 0 {
		for _, in := range parts {
			b, isBool := boolOf(in.addl)
			if !isBool || b || len(in.patProps) > 0 {
				continue
			}
			n := 0
			for _, k := range in.propOrder {
				if !p.forbidden(parts, choices, k) {
					n++
				}
			}
			if n < minP {
				return proved(ptr, "at least %d properties are needed (minProperties) but only %d are allowed (additionalProperties is false at %s)", minP, n, in.s.Location())
			}
		}
	}
	return nil
}

func boolOf(s *schema.Schema) (value, isBool bool) {
	if s == nil {
		return false, false
	}
	return s.Bool()
}

// forbidden reports a member name no object of the parts may have: additionalProperties
// false where it is neither a property nor matches a pattern, a false property or pattern
// schema, propertyNames (judged by the validator), or unevaluatedProperties false when
// nothing evaluates it and no choice could.
func (p *prover) forbidden(parts []*info, choices bool, name string) bool {
	declared := false
	for _, in := range parts {
		matched := false
		if s, ok := in.props[name]; ok {
			matched = true
			if b, isBool := s.Bool(); isBool && !b {
				return true
			}
		}
		for _, pp := range in.patProps {
			if pp.pg.matches(name) {
				matched = true
				if b, isBool := pp.s.Bool(); isBool && !b {
					return true
				}
			}
		}
		if !matched && in.addl != nil {
			if b, isBool := in.addl.Bool(); isBool && !b {
				return true
			}
		}
		declared = declared || matched || in.addl != nil
		if in.propNames != nil {
			if ok, err := p.g.valid(in.propNames, source.StringValue(name)); err == nil && !ok {
				return true
			}
		}
	}
	if !declared && !choices {
		for _, in := range parts {
			if b, isBool := boolOf(in.unevalProps); isBool && !b {
				return true
			}
		}
	}
	return false
}

// memberConj is the conjunction of the schemas that apply to member name (nil when
// unevaluatedProperties may depend on choices).
func (p *prover) memberConj(c *conj, parts []*info, choices bool, name string) *conj {
	g := p.g
	mc := &conj{}
	covered := false
	for _, in := range parts {
		matched := false
		if s, ok := in.props[name]; ok {
			g.add(mc, s, c.scopes[in.s])
			matched = true
		}
		for _, pp := range in.patProps {
			if pp.pg.matches(name) {
				g.add(mc, pp.s, c.scopes[in.s])
				matched = true
			}
		}
		if !matched && in.addl != nil {
			g.add(mc, in.addl, c.scopes[in.s])
			matched = true
		}
		covered = covered || matched
	}
	if !covered {
		for _, in := range parts {
			if in.unevalProps != nil {
				if choices {
					return nil
				}
				g.add(mc, in.unevalProps, c.scopes[in.s])
			}
		}
	}
	return mc
}

// noChoice shows that every way through the choices of c is ruled out: all branches of
// an anyOf, every branch of a oneOf either ruled out or repeated (a value matching it
// would match twice), or an if whose then and else ways are both ruled out.
func (p *prover) noChoice(c *conj, types schema.TypeSet, ptr string, depth int) *reason {
	g := p.g
	for _, s := range c.pending {
		in := g.info(s)
		sc := c.scopes[s]
		with := func(extra ...*schema.Schema) *conj {
			c2 := c.clone()
			c2.pending = nil // the other choices still hold, but need not be resolved
			for _, x := range extra {
				g.add(c2, x, sc)
			}
			return c2
		}
		if in.anyOf != nil {
			var first *reason
			all := true
			for _, b := range in.anyOf {
				r := p.empty(with(b), types, ptr, depth)
				if r == nil {
					all = false
					break
				}
				if first == nil {
					first = r
				}
			}
			if all {
				return proved(ptr, "no branch of the anyOf at %s can be satisfied", s.Location()).
					because("anyOf", s.Location(), cause{"in its first branch,", first})
			}
		}
		if in.oneOf != nil {
			all := true
			for i, b := range in.oneOf {
				repeated := false
				for j, o := range in.oneOf {
					if j != i && sameSchema(b, o) {
						repeated = true
						break
					}
				}
				if !repeated && p.empty(with(b), types, ptr, depth) == nil {
					all = false
					break
				}
			}
			if all {
				return proved(ptr, "no branch of the oneOf at %s can be satisfied alone: each is unsatisfiable here or repeats another (a value matching it would match both)", s.Location())
			}
		}
		if in.ifS != nil && in.elseS != nil {
			yes := p.empty(with(in.ifS, in.thenS), types, ptr, depth)
			if yes != nil {
				if no := p.empty(with(in.elseS), types, ptr, depth); no != nil {
					return proved(ptr, "neither way of the if at %s can be satisfied", s.Location()).
						because("if", s.Location(), cause{"with if and then,", yes}, cause{"with else,", no})
				}
			}
		}
	}
	return nil
}

// atPtr names an instance location for a reader: the root is "the root".
func atPtr(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// typeNames lists the JSON types of t: "string or integer".
func typeNames(t schema.TypeSet) string {
	var names []string
	for _, tn := range typeOrder {
		if t&tn.t != 0 && !(tn.t == wholeNumbers && t&schema.TypeFraction != 0) {
			names = append(names, tn.name)
		}
	}
	return strings.Join(names, " or ")
}

// typeCount is how many JSON types t has, the classes of numbers counted as one.
func typeCount(t schema.TypeSet) int {
	n := bits.OnesCount8(uint8(t &^ schema.TypeNumber))
	if t&schema.TypeNumber != 0 {
		n++
	}
	return n
}
