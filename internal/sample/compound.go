package sample

import (
	"maps"
	"slices"
	"strconv"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// parts returns the infos of c's schema objects (boolean schemas say nothing here).
func (g *gen) parts(c *conj) []*info {
	var out []*info
	for _, s := range c.all {
		if in := g.info(s); in.boolean == 0 {
			out = append(out, in)
		}
	}
	return out
}

// ---- objects ----

func (g *gen) object(c *conj, ptr string, depth int) (source.Value, bool) {
	var names []string
	// dependentSchemas add constraints to the object itself when their property is
	// present: plan, add them, and plan again until nothing changes.
	for round := 0; ; round++ {
		var ok bool
		names, ok = g.planObject(c, ptr, depth)
		if !ok {
			return source.Value{}, false
		}
		n := len(c.all)
		for _, in := range g.parts(c) {
			for _, name := range names {
				if ds, ok := in.depSchemas[name]; ok {
					g.add(c, ds, c.scopes[in.s])
				}
			}
		}
		g.resolve(c, depth)
		if len(c.all) == n || round >= 4 {
			break
		}
	}
	parts := g.parts(c)
	var b source.ObjectBuilder
	for _, name := range names {
		cc := g.memberConj(c, parts, name)
		v, _ := g.generate(cc, ptr+"/"+source.EscapeToken(name), depth+1, nil)
		if !v.IsValid() {
			return source.Value{}, false
		}
		b.Set(name, v)
	}
	return b.Value(), true
}

// memberConj collects the schemas that apply to the member name.
func (g *gen) memberConj(c *conj, parts []*info, name string) *conj {
	cc := &conj{}
	covered := false
	for _, p := range parts {
		matched := false
		if s, ok := p.props[name]; ok {
			g.add(cc, s, c.scopes[p.s])
			matched = true
		}
		for _, pp := range p.patProps {
			if pp.pg.matches(name) {
				g.add(cc, pp.s, c.scopes[p.s])
				matched = true
			}
		}
		if !matched && p.addl != nil {
			g.add(cc, p.addl, c.scopes[p.s])
			matched = true
		}
		covered = covered || matched
	}
	if !covered {
		for _, p := range parts {
			if p.unevalProps != nil {
				g.add(cc, p.unevalProps, c.scopes[p.s])
			}
		}
	}
	return cc
}

// allowed reports whether an object with the constraints of parts may have a member name.
func (g *gen) allowed(parts []*info, name string) bool {
	declared := false
	for _, p := range parts {
		inProps := false
		if _, ok := p.props[name]; ok {
			inProps = true
		}
		for _, pp := range p.patProps {
			if !inProps && pp.pg.matches(name) {
				inProps = true
			}
		}
		if !inProps && p.addl != nil {
			if b, isBool := p.addl.Bool(); isBool && !b {
				return false
			}
		}
		declared = declared || inProps || p.addl != nil
		if p.propNames != nil {
			if ok, err := g.valid(p.propNames, source.StringValue(name)); err != nil || !ok {
				return false
			}
		}
	}
	if !declared {
		for _, p := range parts {
			if p.unevalProps != nil {
				if b, isBool := p.unevalProps.Bool(); isBool && !b {
					return false
				}
			}
		}
	}
	return true
}

// forbidden returns the member names the nots of c rule out (not {required: [...]} and
// not {anyOf: [{required: [...]}, ...]}); ok is false when a not rules out a required
// member.
func (g *gen) forbidden(c *conj, required map[string]bool) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, n := range c.nots {
		lists := requiredLists(g, n)
		for _, l := range lists {
			var free []string
			for _, r := range l {
				if !required[r] {
					free = append(free, r)
				}
			}
			if len(free) == 0 {
				return nil, false
			}
			out[free[0]] = true
		}
	}
	return out, true
}

// requiredLists recognizes a schema that is only a required list, or an anyOf/oneOf of
// such schemas, and returns the lists (each must not be wholly present).
func requiredLists(g *gen, n *schema.Schema) [][]string {
	in := g.info(n)
	if in.boolean != 0 {
		return nil
	}
	only := func(s *schema.Schema, allowed ...string) bool {
		for _, k := range s.Keywords() {
			if !slices.Contains(allowed, k) {
				return false
			}
		}
		return true
	}
	if in.required != nil && only(n, "required", "type", "$comment", "description") {
		return [][]string{in.required}
	}
	var out [][]string
	for _, list := range [][]*schema.Schema{in.anyOf, in.oneOf} {
		for _, b := range list {
			bi := g.info(b)
			if bi.boolean != 0 || bi.required == nil || !only(b, "required", "$comment", "description") {
				return nil
			}
			out = append(out, bi.required)
		}
	}
	if len(out) > 0 && only(n, "anyOf", "oneOf", "$comment", "description") {
		return out
	}
	return nil
}

// orderedSet is a list of names without duplicates, in insertion order.
type orderedSet struct {
	list []string
	has  map[string]bool
}

func (o *orderedSet) add(k string) {
	if o.has == nil {
		o.has = map[string]bool{}
	}
	if !o.has[k] {
		o.has[k] = true
		o.list = append(o.list, k)
	}
}

// objectPlan is what planObject knows about an object while it picks the members: the
// parts' lists and bounds merged, the members a not rules out, and the members chosen.
type objectPlan struct {
	parts              []*info
	required, declared orderedSet // over all parts, in order of first appearance
	minP, maxP         int        // the strictest minProperties and maxProperties (-1: none)
	forbid, chosen     map[string]bool
	small              bool // as few members as allowed: deep, crowded or minimal
}

// planObject decides which members an object gets.
func (g *gen) planObject(c *conj, ptr string, depth int) ([]string, bool) {
	pl := mergeObjectParts(g.parts(c))
	if pl.minP > maxGenerated {
		g.fail(ptr, false, "%d properties are too many to generate (at most %d)", pl.minP, maxGenerated)
		return nil, false
	}
	forbid, ok := g.forbidden(c, pl.required.has)
	if !ok {
		g.fail(ptr, false, "a not forbids a combination of required properties")
		return nil, false
	}
	pl.forbid = forbid
	for _, r := range pl.required.list {
		if !g.allowed(pl.parts, r) {
			g.fail(ptr, true, "the required property %q is not allowed (additionalProperties, unevaluatedProperties or propertyNames rule it out)", r)
			return nil, false
		}
	}
	optional := g.optionalMembers(pl)
	pl.small = g.minimal || depth > softDepth || g.crowded()
	g.chooseOptional(pl, optional, depth)
	if !g.bringDependencies(pl, ptr) {
		return nil, false
	}
	names, ok := g.capMembers(pl, pl.members(), ptr)
	if !ok {
		return nil, false
	}
	g.raiseMinimum(pl, names)
	g.fillMembers(pl, &names, optional, ptr)
	return names.list, true
}

// mergeObjectParts merges the parts' required and declared members (in order, without
// duplicates) and their minProperties and maxProperties (the strictest of each).
func mergeObjectParts(parts []*info) *objectPlan {
	pl := &objectPlan{parts: parts, maxP: -1}
	for i, p := range parts {
		if i == 0 {
			// The first part's lists are already free of duplicates: share them.
			pl.required = orderedSet{list: slices.Clip(p.required), has: p.requiredSet}
			pl.declared = orderedSet{list: slices.Clip(p.propOrder), has: p.propSet}
			if len(parts) > 1 {
				pl.required.has, pl.declared.has = maps.Clone(pl.required.has), maps.Clone(pl.declared.has)
			}
		} else {
			for _, r := range p.required {
				pl.required.add(r)
			}
			for _, k := range p.propOrder {
				pl.declared.add(k)
			}
		}
		pl.minP = max(pl.minP, p.minProps)
		if p.maxProps >= 0 && (pl.maxP < 0 || p.maxProps < pl.maxP) {
			pl.maxP = p.maxProps
		}
	}
	return pl
}

// optionalMembers chooses the required members and lists the declared ones that may be
// added, in declaration order.
func (g *gen) optionalMembers(pl *objectPlan) []string {
	pl.chosen = map[string]bool{}
	for _, r := range pl.required.list {
		pl.chosen[r] = true
	}
	var optional []string
	for _, k := range pl.declared.list {
		if !pl.chosen[k] && !pl.forbid[k] && g.allowed(pl.parts, k) {
			optional = append(optional, k)
		}
	}
	return optional
}

// chooseOptional chooses optional members: all of them with AllOptional, none with
// RequiredOnly; otherwise a few at random, fewer the deeper the object (a big recursive
// schema would explode).
func (g *gen) chooseOptional(pl *objectPlan, optional []string, depth int) {
	switch {
	case g.opts.AllOptional && !pl.small:
		for _, k := range optional {
			pl.chosen[k] = true
		}
	case g.opts.RequiredOnly || pl.small:
	default:
		limit := max(1, 8>>depth)
		order := g.r.Perm(len(optional))
		taken := 0
		for _, i := range order {
			if taken >= limit {
				break
			}
			if k := optional[i]; g.r.IntN(2) == 0 && g.estimateMember(pl.parts, k) < 100 {
				pl.chosen[k] = true
				taken++
			}
		}
	}
}

// bringDependencies applies dependentRequired: a chosen member brings its dependencies.
// A member dropped because a dependency of its cannot be had stays out: another member
// depending on it would otherwise bring it back, and the two undo each other forever
// (a -> b, b -> c, c not allowed: a brought b, b was dropped, a brought it again). A
// required member whose dependency cannot be had fails the plan.
func (g *gen) bringDependencies(pl *objectPlan, ptr string) bool {
	dropped := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, p := range pl.parts {
			for _, k := range p.depOrder {
				if !pl.chosen[k] {
					continue
				}
				for _, d := range p.depRequired[k] {
					if pl.chosen[d] {
						continue
					}
					changed = true
					if pl.forbid[d] || dropped[d] || !g.allowed(pl.parts, d) {
						// Drop the member that needs it, unless it is required.
						if pl.required.has[k] {
							g.fail(ptr, true, "the required property %q depends on %q, which is not allowed", k, d)
							return false
						}
						delete(pl.chosen, k)
						dropped[k] = true
						break
					}
					pl.chosen[d] = true
				}
			}
		}
	}
	return true
}

// members lists the chosen members in order: the required ones, the declared ones, then
// the dependencies that were brought in.
func (pl *objectPlan) members() orderedSet {
	var names orderedSet
	for _, k := range pl.required.list {
		names.add(k)
	}
	for _, k := range pl.declared.list {
		if pl.chosen[k] {
			names.add(k)
		}
	}
	for _, p := range pl.parts {
		for _, k := range p.depOrder {
			for _, d := range p.depRequired[k] {
				if pl.chosen[d] {
					names.add(d)
				}
			}
		}
	}
	return names
}

// capMembers keeps at most maxProperties of names, the required ones always and the
// others in order; it fails when the required ones alone are too many.
func (g *gen) capMembers(pl *objectPlan, names orderedSet, ptr string) (orderedSet, bool) {
	if pl.maxP < 0 || len(names.list) <= pl.maxP {
		return names, true
	}
	var kept orderedSet
	for _, k := range names.list {
		if pl.required.has[k] || len(kept.list) < pl.maxP {
			kept.add(k)
		}
	}
	if len(kept.list) > pl.maxP {
		g.fail(ptr, true, "%d properties are required but maxProperties is %d", len(kept.list), pl.maxP)
		return orderedSet{}, false
	}
	return kept, true
}

// raiseMinimum asks for members of an object that would otherwise be empty: a map
// (members described by additionalProperties or patternProperties) gets an entry or two
// at random; an open object with nothing declared gets a member of its own on later tries.
func (g *gen) raiseMinimum(pl *objectPlan, names orderedSet) {
	if len(pl.declared.list) != 0 || len(names.list) != 0 || pl.small || pl.maxP == 0 {
		return
	}
	switch {
	case isMap(pl.parts) && g.r.IntN(2) == 0:
		pl.minP = max(pl.minP, 1+g.r.IntN(2))
	case g.try > 0:
		pl.minP = max(pl.minP, 1)
	}
	if pl.maxP >= 0 {
		pl.minP = min(pl.minP, pl.maxP)
	}
}

// isMap reports whether a part describes members it does not name: additionalProperties
// other than false, or patternProperties.
func isMap(parts []*info) bool {
	for _, p := range parts {
		if p.addl != nil {
			if b, isBool := p.addl.Bool(); !isBool || b {
				return true
			}
		}
		if len(p.patProps) > 0 {
			return true
		}
	}
	return false
}

// fillMembers meets minProperties: more declared members, then invented names. Falling
// short is reported, and the plan stands.
func (g *gen) fillMembers(pl *objectPlan, names *orderedSet, optional []string, ptr string) {
	for _, k := range optional {
		if len(names.list) >= pl.minP {
			break
		}
		names.add(k)
	}
	for tries := 0; len(names.list) < pl.minP && tries < 4*pl.minP+8; tries++ {
		name := g.newName(pl.parts, tries)
		if name != "" && !names.has[name] && !pl.forbid[name] && g.allowed(pl.parts, name) {
			names.add(name)
		}
	}
	if len(names.list) < pl.minP {
		g.fail(ptr, false, "could not find %d property names that the schema allows", pl.minP)
	}
}

// estimateMember is how deep the value of a member must nest.
func (g *gen) estimateMember(parts []*info, name string) int {
	e := 0
	for _, p := range parts {
		if s, ok := p.props[name]; ok {
			e = max(e, g.estimate(s))
		}
	}
	return e
}

// newName invents a member name: from propertyNames, from a patternProperties pattern, or
// a plain one.
func (g *gen) newName(parts []*info, try int) string {
	for _, p := range parts {
		if p.propNames != nil && try%2 == 0 {
			cc := &conj{}
			g.add(cc, p.propNames, nil)
			g.resolve(cc, 0)
			if g.types(cc)&schema.TypeString != 0 {
				if v, ok := g.str(cc, ""); ok && g.check(cc, v) {
					return v.Str()
				}
			}
		}
	}
	var pats []patProp
	for _, p := range parts {
		pats = append(pats, p.patProps...)
	}
	if len(pats) > 0 && try%3 != 2 {
		pp := pats[g.r.IntN(len(pats))]
		if s, ok := pp.pg.fit(g.r, 1, 40, 6, nil); ok {
			return s
		}
	}
	name := words[g.r.IntN(len(words))]
	if try >= 4 {
		name += strconv.Itoa(try)
	}
	return name
}

// maxGenerated bounds the items, properties and characters one value may need: a
// schema asking for more is reported rather than exhausting memory.
const maxGenerated = 100000

// ---- arrays ----

type containsRule struct {
	s        *schema.Schema
	min, max int
	scope    []string
}

// arrayPlan is what array knows about an array while it plans the items: the parts'
// bounds merged, their contains rules, and how the rules share the items.
type arrayPlan struct {
	parts     []*info
	lo, hi    int // the strictest minItems and maxItems (-1: none), items: false counted
	unique    bool
	prefixLen int // the longest prefixItems (items as an array before 2020-12)
	rules     []containsRule
	need      int  // how many items at the end must match contains
	separate  bool // each rule gets need items of its own, rather than all sharing them
	limited   bool // some rule has maxContains
}

func (g *gen) array(c *conj, ptr string, depth int) (source.Value, bool) {
	pl := mergeArrayParts(c, g.parts(c))
	if !g.planContains(pl, ptr) {
		return source.Value{}, false
	}
	n, ok := g.arrayLength(pl, ptr, depth)
	if !ok {
		return source.Value{}, false
	}
	owner := pl.owners(n)
	var items []source.Value
	for i := 0; i < n; i++ {
		cc := g.itemConj(c, pl, owner, i, i >= n-pl.need)
		var avoid []source.Value
		if pl.unique {
			avoid = items
		}
		v, _ := g.generate(cc, ptr+"/"+strconv.Itoa(i), depth+1, avoid)
		if !v.IsValid() {
			return source.Value{}, false
		}
		items = append(items, v)
	}
	return source.ArrayValue(items...), true
}

// mergeArrayParts merges the parts' length bounds (items: false after a prefix bounds
// the length too), uniqueItems, prefixes and contains rules.
func mergeArrayParts(c *conj, parts []*info) *arrayPlan {
	pl := &arrayPlan{parts: parts, hi: -1}
	for _, p := range parts {
		pl.lo = max(pl.lo, p.minItems)
		if p.maxItems >= 0 && (pl.hi < 0 || p.maxItems < pl.hi) {
			pl.hi = p.maxItems
		}
		pl.unique = pl.unique || p.unique
		pl.prefixLen = max(pl.prefixLen, len(p.prefix))
		if p.items != nil {
			if b, isBool := p.items.Bool(); isBool && !b && (pl.hi < 0 || len(p.prefix) < pl.hi) {
				pl.hi = len(p.prefix)
			}
		}
		if p.contains != nil {
			pl.rules = append(pl.rules, containsRule{p.contains, p.minContains, p.maxContains, c.scopes[p.s]})
		}
	}
	return pl
}

// planContains decides how many items must match the contains rules. Several contains
// (under allOf) may need items of their own ([A, B] for a contains of A and one of B):
// every other try gives each its own items, when the length allows. A rule whose
// minContains is above its maxContains fails the plan.
func (g *gen) planContains(pl *arrayPlan, ptr string) bool {
	sum, needing := 0, 0
	for _, r := range pl.rules {
		pl.need = max(pl.need, r.min)
		sum += r.min
		if r.min > 0 {
			needing++
		}
		if r.max >= 0 && r.min > r.max {
			g.fail(ptr, true, "minContains %d is greater than maxContains %d", r.min, r.max)
			return false
		}
		pl.limited = pl.limited || r.max >= 0
	}
	pl.separate = needing > 1 && g.try%2 == 0 && (pl.hi < 0 || sum <= pl.hi)
	if pl.separate {
		pl.need = sum
	}
	pl.lo = max(pl.lo, pl.need)
	return true
}

// arrayLength picks the number of items: the least allowed, or a few more (up to the
// longest prefix) when the value is not to be small.
func (g *gen) arrayLength(pl *arrayPlan, ptr string, depth int) (int, bool) {
	lo, hi := pl.lo, pl.hi
	if lo > maxGenerated {
		g.fail(ptr, false, "%d items are too many to generate (at most %d)", lo, maxGenerated)
		return 0, false
	}
	if hi >= 0 && lo > hi {
		g.fail(ptr, true, "no array length fits: at least %d items are needed but at most %d are allowed", lo, hi)
		return 0, false
	}
	n := lo
	if !g.minimal && depth <= softDepth && !g.crowded() {
		n = lo + g.r.IntN(3)
		if pl.prefixLen > n && g.r.IntN(2) == 0 {
			n = pl.prefixLen
		}
	}
	if hi >= 0 && n > hi {
		n = hi
	}
	return n, true
}

// owners says, for each of n items, which contains rule it is a match of when the rules
// are separate, or -1: every rule that needs matches (shared) when the item is among the
// last need items.
func (pl *arrayPlan) owners(n int) []int {
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	if pl.separate {
		i := n - pl.need
		for k, r := range pl.rules {
			for j := 0; j < r.min && i < n; j++ {
				owner[i] = k
				i++
			}
		}
	}
	return owner
}

// addItemSchemas adds to cc the schemas that parts apply to item i of an array of c (its
// prefixItems or tuple position, else items) and reports whether any does.
func (g *gen) addItemSchemas(cc, c *conj, parts []*info, i int) bool {
	covered := false
	for _, p := range parts {
		switch {
		case i < len(p.prefix):
			g.add(cc, p.prefix[i], c.scopes[p.s])
			covered = true
		case p.items != nil:
			g.add(cc, p.items, c.scopes[p.s])
			covered = true
		}
	}
	return covered
}

// itemConj collects the schemas that apply to item i: prefixItems or items, the contains
// rules it must match (forced: it is among the last need items) or, where maxContains
// limits the matches, must not match, and unevaluatedItems when nothing else covers it.
func (g *gen) itemConj(c *conj, pl *arrayPlan, owner []int, i int, forced bool) *conj {
	cc := &conj{}
	covered := g.addItemSchemas(cc, c, pl.parts, i)
	for k, r := range pl.rules {
		switch {
		case pl.separate && forced && owner[i] != k:
		case forced && r.min > 0:
			g.add(cc, r.s, r.scope)
			covered = true
		case pl.limited && !forced:
			cc.nots = append(cc.nots, r.s)
		}
	}
	if !covered {
		for _, p := range pl.parts {
			if p.unevalItems != nil {
				g.add(cc, p.unevalItems, c.scopes[p.s])
			}
		}
	}
	return cc
}
