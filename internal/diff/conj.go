package diff

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// engine holds the caches of one comparison: the node views, the conjunctions, the proofs.
type engine struct {
	ctx           context.Context
	opts          Options
	bodies        *bodies   // shared with the comparison's other engine
	nodeTabs      []nodeTab // the nodes of each compiler's schemas, by schema number
	nNodes        int
	defaults      map[*body]map[string]source.Value
	regexps       map[string]schema.Regexp
	regexTimeout  time.Duration
	pats          pattern.Cache
	known         map[string]bool
	conjs         map[uint64]*conj // by partsHash, a list through next
	nConjs        int
	hashMask      uint64 // all ones; tests clear it to make every partsHash collide
	byRoots       map[string]*conj
	matchMemo     map[[2]string]bool
	namesMemo     map[*conj][]string
	objParts      map[int]objParts               // objectParts of the larger conjunctions, by kid
	condIdx       map[*merged]map[uint64][]*fact // condRepeated's index of a view's if groups
	hashMemo      map[*source.Document]map[int]uint64
	seed          maphash.Seed
	sameMemo      map[[2]*schema.Schema]int8
	sameTentative [][2]*schema.Schema
	sameStack     []sameFrame // samePair's own stack
	sameReqs      []sameReq
	evalMemo      map[*schema.Schema]int8 // does the in-place closure evaluate properties/items
	epoch         uint32                  // marks the nodes seen by one conjClose
	size          int                     // the schemas of the compilers compared (newEngine)

	// scratch buffers, reused so that looking up what exists already allocates nothing
	keyBuf   []byte
	partsBuf []*node
	rootsBuf []*schema.Schema
	factBuf  []fact
	childBuf []schema.Child
	reading  nodeRead // readNode's state (readNode does not reenter)

	// proofs
	subMemo, disMemo  map[proofKey]bool
	subProg, disProg  map[proofKey]progress
	emptyMemo         map[proofKey]bool     // empty, by conjunction and classes
	emptyProg         map[proofKey]progress // the emptiness questions being answered
	negMemo           map[int][]*schema.Schema
	negPropsMemo      map[int]*negProps
	branchesLeft      int  // the branches the emptiness question under way may still examine (takeBranch)
	branchCuts        int  // the times a question found none left
	inHere            bool // an emptyHere question is under way: the prover's questions take from its branches
	triggered         int  // the dependent schemas triggeredImplies is inside of
	stack, minAssume  int
	steps, stepBudget int
	proofSteps        int
	contradictions    int
	trueConj          *conj
	searchCandidates  int
	searchTimedOut    bool
	walkTruncated     bool
	twins             bool // a side is draft-04: the search also tries 1.0 for an enum's 1 (finiteValues)
	partsCopied       int  // the parts of the conjunctions of several roots made (overParts)
}

type progress struct {
	idx, depth int
}

// nodeTab holds what an engine keeps of one compiler's schemas, by schema number.
type nodeTab struct {
	id     schema.CompilerID
	nodes  []*node
	hashes []uint64 // hashOf, once asked for (0: not yet)
}

// nodeTab returns the table of the compiler of s (its nodes made at its number of schemas
// when first asked for).
func (e *engine) nodeTab(id schema.CompilerID, s *schema.Schema) *nodeTab {
	for k := range e.nodeTabs {
		if e.nodeTabs[k].id == id {
			return &e.nodeTabs[k]
		}
	}
	e.nodeTabs = append(e.nodeTabs, nodeTab{id: id, nodes: make([]*node, schema.CompiledCount(s))})
	return &e.nodeTabs[len(e.nodeTabs)-1]
}

// reach returns xs long enough to have an element i (schemas compiled after the table was
// made have numbers past its end).
func reach[T any](xs []T, i int) []T {
	if i < len(xs) {
		return xs
	}
	return slices.Grow(xs, i+1-len(xs))[:i+1]
}

// newEngine returns an engine reading schemas into bs (nil: bodies of its own) for a
// comparison of schemas from compilers that made size schemas: the maps that grow with
// the schemas the engine meets start at a quarter of it, so that they grow once or twice
// instead of doubling their way up (on the largest pair, of 18,092 schemas, the walk made
// 5,865 conjunctions and compared 8,775 pairs for sameness); its nodes are slices by schema
// number (nodeTab).
func newEngine(ctx context.Context, opts Options, bs *bodies, size int) *engine {
	if bs == nil {
		bs = newBodies()
	}
	e := &engine{
		ctx:          ctx,
		opts:         opts,
		bodies:       bs,
		defaults:     map[*body]map[string]source.Value{},
		regexps:      map[string]schema.Regexp{},
		regexTimeout: 2 * time.Second,
		known:        map[string]bool{},
		conjs:        make(map[uint64]*conj, size/4),
		byRoots:      map[string]*conj{},
		matchMemo:    map[[2]string]bool{},
		namesMemo:    map[*conj][]string{},
		objParts:     map[int]objParts{},
		condIdx:      map[*merged]map[uint64][]*fact{},
		hashMemo:     map[*source.Document]map[int]uint64{},
		seed:         bs.seed,
		sameMemo:     make(map[[2]*schema.Schema]int8, size/4),
		evalMemo:     map[*schema.Schema]int8{},
		subMemo:      map[proofKey]bool{},
		disMemo:      map[proofKey]bool{},
		subProg:      map[proofKey]progress{},
		disProg:      map[proofKey]progress{},
		emptyMemo:    map[proofKey]bool{},
		emptyProg:    map[proofKey]progress{},
		negMemo:      map[int][]*schema.Schema{},
		negPropsMemo: map[int]*negProps{},
		stepBudget:   opts.ProofSteps,
		size:         size,
		hashMask:     ^uint64(0),
	}
	for _, f := range schema.KnownFormats() {
		e.known[f] = true
	}
	e.trueConj = e.conjOf(nil, nil)
	return e
}

func (e *engine) knownFormat(f string) bool { return e.known[f] }

// node returns the node of s, its keywords read.
func (e *engine) node(s *schema.Schema) *node {
	n := e.shell(s)
	e.read(n.body)
	return n
}

// conj is a conjunction of schemas applying to the same instance: the given roots and,
// closed over in-place references and allOf, every part they imply. chosen lists the
// anyOf/oneOf/if groups already split on (so they are not split again).
type conj struct {
	kid    int   // numbers the distinct sets of parts and chosen groups: the same set, the same kid
	next   *conj // the next conjunction of other parts whose parts hash the same (engine.conjs)
	roots  []*schema.Schema
	shells []*node // the parts, perhaps not read yet: parts returns them read
	read   bool    // the parts are read
	chosen []int
	m      *merged
	shared *conj // the conjunction of the same parts made first, whose merged view this one uses

	live     schema.TypeSet // the classes it may hold (engine.live), once known
	liveDone bool
}

// groupID identifies one anyOf, oneOf or if group of a node.
func groupID(n *node, k factKind) int { return n.id*8 + int(k-fAnyOf) }

// groupOf identifies the group of an anyOf, oneOf or if fact in e.
func (e *engine) groupOf(f *fact) int { return groupID(e.shell(f.n.s), f.kind) }

// choice returns the ids to choose the group f with, a branch of it added: its id, and for
// a oneOf also its exclusive mark (exclusiveID), which says that the branch added is the
// one its instances match, the others negated (merge). The walk's branchesDisjoint asks
// about the branches within a context that holds their own oneOf, and chooses it without
// the mark: there the exclusion would decide the question it asks.
func (e *engine) choice(f *fact) []int {
	id := e.groupOf(f)
	if f.kind == fOneOf && len(f.subs) <= maxExclusive {
		return []int{id, exclusiveID(id)}
	}
	return []int{id}
}

// exclusiveID is the mark of a oneOf group id among a conjunction's chosen groups: an
// instance valid under the oneOf and under one of its branches is invalid under the
// others. The offsets of groupID's kinds are below 4.
func exclusiveID(id int) int { return id + 4 }

// maxExclusive bounds the branches of a oneOf whose exclusion a choice of a branch brings
// (as many negations as branches).
const maxExclusive = maxSplitBranches

// conjOf returns the conjunction of roots, with groups already chosen.
func (e *engine) conjOf(roots []*schema.Schema, chosen []int) *conj {
	if len(roots) == 1 && roots[0] != nil && len(chosen) == 0 {
		// the most common: one schema, kept on its node instead of under a key
		n := e.shell(roots[0])
		if n.one == nil {
			n.one = e.conjClose(roots, nil)
		}
		return n.one
	}
	// The keys are binary and self-delimiting: counts and ids as uvarints.
	rk := binary.AppendUvarint(e.keyBuf[:0], uint64(len(roots)))
	for _, r := range roots {
		id := uint64(0) // nil
		if r != nil {
			id = uint64(e.shell(r).id) + 1
		}
		rk = binary.AppendUvarint(rk, id)
	}
	rk = appendInts(rk, chosen)
	e.keyBuf = rk
	if c, ok := e.byRoots[string(rk)]; ok {
		return c
	}
	key := string(rk)
	c := e.conjClose(roots, chosen)
	e.byRoots[key] = c
	return c
}

// appendInts appends the count of xs and xs, as uvarints (xs are not negative).
func appendInts(b []byte, xs []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(xs)))
	for _, x := range xs {
		b = binary.AppendUvarint(b, uint64(x))
	}
	return b
}

func (e *engine) conjClose(roots []*schema.Schema, chosen []int) *conj {
	var parts []*node
	if len(roots) == 1 {
		parts = e.closed(roots[0]) // sorted already, and the node's own: not to be changed
	} else {
		for _, r := range roots {
			e.closed(r) // each closure first: closed uses epochs of its own
		}
		e.epoch++ // a node is in the union when its mark is the epoch
		parts = e.partsBuf[:0]
		for _, r := range roots {
			for _, p := range e.closed(r) {
				if p.mark != e.epoch {
					p.mark = e.epoch
					parts = append(parts, p)
				}
			}
		}
		slices.SortFunc(parts, func(a, b *node) int { return a.id - b.id })
		e.partsBuf = parts
	}
	var ch []int
	if len(chosen) > 0 {
		ch = append(ch, chosen...)
		sort.Ints(ch)
	}
	h := e.partsHash(parts, ch)
	var c *conj
	for c = e.conjs[h]; c != nil; c = c.next {
		if slices.Equal(c.shells, parts) && slices.Equal(c.chosen, ch) {
			break
		}
	}
	if c != nil && rootsEqual(c.roots, roots) {
		return c
	}
	var rs []*schema.Schema
	for _, r := range roots {
		if r != nil {
			rs = append(rs, r)
		}
	}
	if c != nil {
		// The same parts reached from other roots: the same constraints, but the roots
		// are this conjunction's own (they say where its keywords are and what is compared
		// with what); the merged view is shared.
		return &conj{kid: c.kid, roots: rs, shells: c.shells, chosen: c.chosen, shared: c}
	}
	if len(roots) != 1 {
		parts = slices.Clone(parts)
		e.partsCopied += len(parts)
	}
	c = &conj{kid: e.nConjs, roots: rs, shells: parts, chosen: ch, next: e.conjs[h]}
	e.nConjs++
	e.conjs[h] = c
	return c
}

// maxPartsCopied bounds the parts an engine copies into conjunctions of several roots
// (8 bytes each): a location under a context of n parts copies them all, so n locations
// under an allOf of n conditions copy n^2 (10,000 conditions took 3 GB). The largest
// schema-pair copies 146k in the walk and 74k in the backward proof.
const maxPartsCopied = 16 << 20

// overParts reports whether the engine has copied more parts than its options allow
// (maxPartsCopied by default): the walk, the proofs and the search then stop, and the
// verdict says what is unknown.
func (e *engine) overParts() bool { return e.opts.maxParts > 0 && e.partsCopied > e.opts.maxParts }

// partsHash hashes the ids of parts and the chosen groups ch, the identity of a
// conjunction's constraints.
func (e *engine) partsHash(parts []*node, ch []int) uint64 {
	b := binary.AppendUvarint(e.keyBuf[:0], uint64(len(parts)))
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(p.id))
	}
	b = appendInts(b, ch)
	e.keyBuf = b
	return maphash.Bytes(e.seed, b) & e.hashMask
}

// closed returns s and the schemas it implies in place (through $ref and allOf), sorted
// by id: the parts of the conjunction of s alone, made once and kept on its node. The
// closure of nil is empty.
func (e *engine) closed(s *schema.Schema) []*node {
	if s == nil {
		return nil
	}
	n := e.shell(s)
	if !n.isClosed {
		e.epoch++
		parts := e.closeOver(nil, s, e.epoch)
		slices.SortFunc(parts, func(a, b *node) int { return a.id - b.id })
		n.closure, n.isClosed = slices.Clip(parts), true
	}
	return n.closure
}

// closeOver appends s and the schemas it implies in place (through $ref and allOf) to
// parts, each node once per epoch. It keeps a stack of its own: a chain of references can
// be as long as the documents allow.
func (e *engine) closeOver(parts []*node, s *schema.Schema, epoch uint32) []*node {
	stack := []*schema.Schema{s}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil {
			continue
		}
		n := e.shell(s)
		if n.mark == epoch {
			continue
		}
		n.mark = epoch
		if n.isBool && n.boolVal {
			continue // true adds nothing
		}
		parts = append(parts, n)
		// Pushed in reverse, so that they are taken in the order they stand.
		if n.hasAll { // read with the shell; the pieces of another may be being read
			for i := len(n.allOf) - 1; i >= 0; i-- {
				stack = append(stack, n.allOf[i])
			}
		}
		for i := len(n.dynRefs) - 1; i >= 0; i-- {
			stack = append(stack, n.dynRefs[i])
		}
		stack = append(stack, n.ref)
	}
	return parts
}

// rootsEqual reports whether rs is roots without its nil entries.
func rootsEqual(rs, roots []*schema.Schema) bool {
	i := 0
	for _, r := range roots {
		if r == nil {
			continue
		}
		if i >= len(rs) || rs[i] != r {
			return false
		}
		i++
	}
	return i == len(rs)
}

// parts returns the parts of c, their keywords read.
func (e *engine) parts(c *conj) []*node {
	if !c.read {
		c.read = true
		for _, n := range c.shells {
			e.read(n.body)
		}
	}
	return c.shells
}

func (e *engine) one(s *schema.Schema) *conj {
	if s == nil {
		return e.trueConj
	}
	return e.conjOf([]*schema.Schema{s}, nil)
}

// with returns c with more roots (and more groups chosen).
func (e *engine) with(c *conj, more []*schema.Schema, chosen ...int) *conj {
	return e.conjOf(e.joinRoots(c.roots, more), append(append([]int(nil), c.chosen...), chosen...))
}

// joinRoots returns a followed by b in the engine's scratch slice, for conjOf, which keeps
// no reference to the roots it is given.
func (e *engine) joinRoots(a, b []*schema.Schema) []*schema.Schema {
	e.rootsBuf = append(append(e.rootsBuf[:0], a...), b...)
	return e.rootsBuf
}

// merged aggregates the facts of a conjunction.
type merged struct {
	empty    bool
	types    schema.TypeSet
	enums    [][]source.Value
	lo, hi   *bound
	mults    []*big.Rat
	minLen   int
	maxLen   int // -1: none
	patterns []string
	formats  []string
	content  []string
	minItems int
	maxItems int // -1: none
	unique   bool
	minProps int
	maxProps int // -1: none
	required map[string]bool
	depReq   map[string]map[string]bool
	nots     []*schema.Schema
	contains []*fact
	depSch   []*fact
	pnames   []*schema.Schema

	// The facts of the view are those of the conjunction's parts, in order, but the groups
	// already chosen (facts and groups go through them): a view does not copy them, since
	// the conjunctions of a location under a large context (the branches of an allOf of
	// 270 conditions) would each copy the context's.
	parts   []*node
	chosen  []int
	nFacts  int // the facts of the view
	nGroups int // the anyOf, oneOf and if groups among them
}

// isGroup reports whether facts of kind k are groups (anyOf, oneOf, if).
func isGroup(k factKind) bool { return k == fAnyOf || k == fOneOf || k == fCond }

// facts yields every fact of the view, for proving the conjunction.
func (m *merged) facts(yield func(*fact) bool) {
	for _, n := range m.parts {
		for i := range n.facts {
			f := &n.facts[i]
			if len(m.chosen) > 0 && isGroup(f.kind) && chosen(m.chosen, groupID(n, f.kind)) {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// groups yields the anyOf, oneOf and if groups of the view that are not chosen.
func (m *merged) groups(yield func(*fact) bool) {
	if m.nGroups == 0 {
		return
	}
	for _, n := range m.parts {
		if n.nGroups == 0 {
			continue
		}
		for i := range n.facts {
			f := &n.facts[i]
			if !isGroup(f.kind) || (len(m.chosen) > 0 && chosen(m.chosen, groupID(n, f.kind))) {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

func (c *conj) chosenHas(id int) bool { return chosen(c.chosen, id) }

// chosen reports whether the group id is among ids.
func chosen(ids []int, id int) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func (e *engine) merged(c *conj) *merged {
	if c.shared != nil {
		return e.merged(c.shared)
	}
	if c.m != nil {
		return c.m
	}
	if len(c.shells) == 1 && len(c.chosen) == 0 {
		// One schema object and no group chosen: the view depends on the body alone, and
		// the comparison's engines share it (two that make it at once make the same).
		b := c.shells[0].body
		if m := b.merged.Load(); m != nil {
			c.m = m
			return m
		}
		b.merged.CompareAndSwap(nil, e.merge(c))
		c.m = b.merged.Load()
		return c.m
	}
	c.m = e.merge(c)
	return c.m
}

// merge makes the merged view of c.
func (e *engine) merge(c *conj) *merged {
	m := &merged{types: schema.TypeAll, maxLen: -1, maxItems: -1, maxProps: -1, parts: e.parts(c), chosen: c.chosen}
	for _, n := range m.parts {
		for i := range n.facts {
			f := &n.facts[i]
			if isGroup(f.kind) {
				if c.chosenHas(groupID(n, f.kind)) {
					if f.kind == fOneOf && c.chosenHas(exclusiveID(groupID(n, f.kind))) {
						m.nots = e.otherBranches(m.nots, f, m.parts)
					}
					continue
				}
				m.nGroups++
			}
			m.nFacts++
			switch f.kind {
			case fFalse:
				m.empty = true
			case fType:
				m.types &= f.types
			case fEnum:
				m.enums = append(m.enums, f.vals)
				if len(f.vals) == 0 {
					m.empty = true
				}
			case fLower:
				if tighterLower(f.b, m.lo) {
					m.lo = f.b
				}
			case fUpper:
				if tighterUpper(f.b, m.hi) {
					m.hi = f.b
				}
			case fMultipleOf:
				m.mults = append(m.mults, f.r)
			case fMinLength:
				m.minLen = max(m.minLen, f.i)
			case fMaxLength:
				if m.maxLen < 0 || f.i < m.maxLen {
					m.maxLen = f.i
				}
			case fPattern:
				m.patterns = append(m.patterns, f.str)
			case fFormat:
				m.formats = append(m.formats, f.str)
			case fContent:
				m.content = append(m.content, f.str)
			case fMinItems:
				m.minItems = max(m.minItems, f.i)
			case fMaxItems:
				if m.maxItems < 0 || f.i < m.maxItems {
					m.maxItems = f.i
				}
			case fUnique:
				m.unique = true
			case fMinProps:
				m.minProps = max(m.minProps, f.i)
			case fMaxProps:
				if m.maxProps < 0 || f.i < m.maxProps {
					m.maxProps = f.i
				}
			case fRequired:
				if m.required == nil {
					m.required = map[string]bool{}
				}
				m.required[f.str] = true
			case fDepRequired:
				if m.depReq == nil {
					m.depReq = map[string]map[string]bool{}
				}
				if m.depReq[f.str] == nil {
					m.depReq[f.str] = map[string]bool{}
				}
				for _, r := range f.list {
					m.depReq[f.str][r] = true
				}
			case fDepSchema:
				m.depSch = append(m.depSch, f)
			case fPropNames:
				m.pnames = append(m.pnames, f.s)
			case fContains:
				m.contains = append(m.contains, f)
			case fNot:
				m.nots = append(m.nots, f.s)
			}
		}
	}
	if m.minLen > 0 && m.maxLen >= 0 && m.minLen > m.maxLen {
		m.types &^= schema.TypeString
	}
	if m.maxItems >= 0 && m.minItems > m.maxItems {
		m.types &^= schema.TypeArray
	}
	if m.maxProps >= 0 && (m.minProps > m.maxProps || len(m.required) > m.maxProps) {
		m.types &^= schema.TypeObject
	}
	if m.lo != nil && m.hi != nil {
		c := m.lo.v.Cmp(m.hi.v)
		if c > 0 || (c == 0 && (m.lo.excl || m.hi.excl)) {
			m.types &^= schema.TypeNumber
		}
	}
	if m.empty {
		m.types = 0
	}
	return m
}

// otherBranches appends to nots the branches of the oneOf f other than the one among
// parts (the branch chosen): an instance of the parts is valid under the oneOf and under
// that branch, so under no other. When no branch is among the parts, nothing is appended.
func (e *engine) otherBranches(nots []*schema.Schema, f *fact, parts []*node) []*schema.Schema {
	in := -1
	for i, br := range f.subs {
		id := e.shell(br).id
		if _, ok := slices.BinarySearchFunc(parts, id, func(p *node, id int) int { return p.id - id }); ok {
			in = i
			break
		}
	}
	if in < 0 {
		return nots
	}
	for i, br := range f.subs {
		if i != in {
			nots = append(nots, br)
		}
	}
	return nots
}

// intOnly reports whether the numbers of m are all integers (a multipleOf that is an
// integer).
func (m *merged) intOnly() bool {
	for _, r := range m.mults {
		if r.IsInt() {
			return true
		}
	}
	return false
}

// ---- values of a conjunction ----

// valid tells whether v is valid under every root of c; ok is false when the validator
// could not decide (a pattern timed out).
func (e *engine) valid(c *conj, v source.Value) (valid, ok bool) {
	for _, r := range c.roots {
		good, err := r.ValidContext(e.ctx, v)
		if err != nil {
			return false, false
		}
		if !good {
			return false, true
		}
	}
	return true, true
}

// finiteValues returns every value c may hold within d, when that set is known and finite.
// With twins, each integral number of an enum is also spelled the other way (1 and 1.0):
// the two are equal, so both are instances of the enum, but a draft-04 type integer tells
// them apart (1.0 is not an integer there). Proofs ask for twins (one that judged an enum
// [1] by 1 alone missed 1.0); the search when a side is draft-04 (engine.twins).
func (e *engine) finiteValues(c *conj, m *merged, d schema.TypeSet, twins bool) ([]source.Value, bool) {
	var cands []source.Value
	switch {
	case len(m.enums) > 0:
		cands = m.enums[0]
	case d&^(schema.TypeNull|schema.TypeBoolean) == 0:
		cands = []source.Value{source.NullValue(), source.BoolValue(true), source.BoolValue(false)}
	default:
		// each class holds one value at most (an empty object, ...)
		vals, ok := e.singletons(c, m, d)
		if !ok {
			return nil, false
		}
		cands = vals
	}
	if twins {
		var more []source.Value
		for _, v := range cands {
			if t, ok := twin(v); ok {
				more = append(more, t)
			}
		}
		if more != nil {
			cands = append(slices.Clip(cands), more...)
		}
	}
	var out []source.Value
	for _, v := range cands {
		if schema.TypeOf(v)&d == 0 {
			continue
		}
		good, ok := e.valid(c, v)
		if !ok {
			return nil, false
		}
		if good {
			out = append(out, v)
		}
	}
	return out, true
}

// twin returns an integral number spelled the other way: 1 as 1.0 (schema.TypeInteger
// to schema.TypeDotted), 1.0 or 1e0 in the decimal's own spelling, 1 (to
// schema.TypeInteger).
func twin(v source.Value) (source.Value, bool) {
	if v.Kind() != source.Number || !v.Num().IsInteger() {
		return source.Value{}, false
	}
	if lit := v.Str(); schema.TypeOf(v) == schema.TypeInteger && !strings.ContainsAny(lit, "eE") {
		return source.NumberValue(lit + ".0"), true
	}
	return source.NumberValue(v.Num().String()), true
}

// ---- objects: which schemas apply to a property ----

// evaluatesInPlace reports whether the in-place applicators of s (through $ref, allOf,
// anyOf, oneOf, if/then/else, dependentSchemas) contain keywords that evaluate properties
// or items, which makes unevaluatedProperties/Items of s depend on annotations.
func (e *engine) evaluatesInPlace(n *body) bool {
	for _, s := range inPlaceSubs(nil, n) {
		if s != nil && e.evaluates(s) {
			return true
		}
	}
	return n.dynamic
}

// inPlaceSubs appends the schemas the in-place applicators of n apply (nil for those
// absent).
func inPlaceSubs(out []*schema.Schema, n *body) []*schema.Schema {
	out = append(out, n.ref)
	out = append(out, n.dynRefs...)
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	out = append(out, n.ifS, n.thenS, n.elseS)
	for _, s := range n.depSchemas {
		out = append(out, s)
	}
	return out
}

// evaluates reports whether s, or a schema it applies in place, has keywords that evaluate
// properties or items, or a dynamic reference; a schema met again while it is being
// looked at counts as evaluating (conservative). The search is depth first, with a stack
// of its own: chains of references can be as long as the documents allow.
func (e *engine) evaluates(s *schema.Schema) bool {
	switch e.evalMemo[s] {
	case 1, 3:
		return true
	case 2:
		return false
	}
	type frame struct {
		s                *schema.Schema
		start, next, end int // its in-place subschemas in subs
		dynamic          bool
	}
	var frames []frame
	var subs []*schema.Schema
	// open starts looking at t, and reports true when t evaluates by its own keywords.
	open := func(t *schema.Schema) bool {
		e.evalMemo[t] = 1
		n := e.node(t)
		if len(n.props) > 0 || len(n.patterns) > 0 || n.additional != nil || n.unevalP != nil ||
			len(n.prefix) > 0 || n.items != nil || n.contains != nil || n.unevalI != nil {
			e.evalMemo[t] = 3
			return true
		}
		start := len(subs)
		subs = inPlaceSubs(subs, n.body)
		frames = append(frames, frame{s: t, start: start, next: start, end: len(subs), dynamic: n.dynamic})
		return false
	}
	found := open(s)
	for !found && len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.next == f.end {
			if f.dynamic {
				found = true
				break
			}
			e.evalMemo[f.s] = 2
			subs, frames = subs[:f.start], frames[:len(frames)-1]
			continue
		}
		t := subs[f.next]
		f.next++
		if t == nil {
			continue
		}
		switch e.evalMemo[t] {
		case 1, 3:
			found = true
		case 0:
			found = open(t)
		}
	}
	// Every schema being looked at applies, in place, the one found.
	for _, f := range frames {
		e.evalMemo[f.s] = 3
	}
	return found
}

// unevalAsAdditional reports whether unevaluatedProperties/Items of n acts like
// additionalProperties/items: nothing in place evaluates anything.
func (e *engine) unevalAsAdditional(n *body) bool { return !e.evaluatesInPlace(n) }

// unevalItemsAsAdditional reports whether unevaluatedItems of n acts like additionalItems:
// nothing in place evaluates items, and n has no contains that does (from 2020-12, the
// items contains matches count as evaluated, so adding contains can let items through).
func (e *engine) unevalItemsAsAdditional(n *body) bool {
	return e.unevalAsAdditional(n) && (n.contains == nil || n.draft < 2020)
}

// objectParts returns the parts of c that say something about its properties (the false
// schema too), in order, and, for a larger conjunction, an index of them by property name.
// A large conjunction keeps them, by kid: under the 270 conditions of an allOf, a
// property's schemas were looked for in 271 parts, of which one or two have properties;
// under an allOf of n parts that each declare a property, every name was looked for in
// every part (10,000 parts: 10^8 lookups).
func (e *engine) objectParts(c *conj) ([]*node, *nameIndex) {
	parts := e.parts(c)
	if len(parts) <= 8 {
		return parts, nil
	}
	if x, ok := e.objParts[c.kid]; ok {
		return x.parts, x.names
	}
	var x objParts
	x.parts = []*node{} // not nil: none is known
	for _, n := range parts {
		if n.isBool && !n.boolVal || len(n.props) > 0 || len(n.patterns) > 0 || n.additional != nil ||
			n.unevalP != nil || n.propNames != nil {
			x.parts = append(x.parts, n)
		}
	}
	if len(x.parts) > 8 {
		x.names = &nameIndex{byName: map[string][]int{}}
		for i, n := range x.parts {
			if n.isBool || len(n.patterns) > 0 || n.additional != nil || n.unevalP != nil || n.propNames != nil {
				x.names.every = append(x.names.every, i)
			}
			for k := range n.props {
				x.names.byName[k] = append(x.names.byName[k], i)
			}
		}
	}
	e.objParts[c.kid] = x
	return x.parts, x.names
}

// objParts is what objectParts keeps for a large conjunction.
type objParts struct {
	parts []*node
	names *nameIndex // nil when the parts are few
}

// nameIndex says which of a conjunction's object parts may have something to say about a
// property name: those that declare it, and those that speak of every name (false,
// patternProperties, additionalProperties, unevaluatedProperties, propertyNames); the
// others are skipped, since they add nothing for it (valueSchemas).
type nameIndex struct {
	byName map[string][]int // the parts declaring the name, by place
	every  []int
}

// parts calls visit with the places of the parts that may speak of name, in order, until
// it returns false.
func (x *nameIndex) parts(name string, visit func(i int) bool) {
	a, b := x.byName[name], x.every
	for len(a) > 0 || len(b) > 0 {
		var i int
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			i, a = a[0], a[1:]
		case len(a) > 0 && a[0] == b[0]:
			i, a, b = a[0], a[1:], b[1:]
		default:
			i, b = b[0], b[1:]
		}
		if !visit(i) {
			return
		}
	}
}

// valueSchemas returns the schemas that apply to the value of property name in c, and
// whether the property is forbidden outright.
func (e *engine) valueSchemas(c *conj, name string) (subs []*schema.Schema, forbidden bool) {
	parts, names := e.objectParts(c)
	if names == nil {
		for _, n := range parts {
			if subs, forbidden = e.partSchemas(n, name, subs); forbidden {
				return nil, true
			}
		}
		return subs, false
	}
	names.parts(name, func(i int) bool {
		subs, forbidden = e.partSchemas(parts[i], name, subs)
		return !forbidden
	})
	if forbidden {
		return nil, true
	}
	return subs, false
}

// partSchemas appends to subs the schemas that one part n applies to the value of
// property name, or reports the property forbidden by it.
func (e *engine) partSchemas(n *node, name string, subs []*schema.Schema) ([]*schema.Schema, bool) {
	if n.isBool {
		return subs, !n.boolVal
	}
	start := len(subs) // the schemas of this part go on subs directly
	if s, ok := n.props[name]; ok {
		subs = append(subs, s)
	}
	matched := len(subs) > start
	for _, p := range n.patterns {
		if e.patternMatches(p.src, name) {
			subs = append(subs, p.s)
			matched = true
		}
	}
	if !matched {
		if n.additional != nil {
			subs = append(subs, n.additional)
		} else if n.unevalP != nil && e.unevalAsAdditional(n.body) {
			subs = append(subs, n.unevalP)
		}
	}
	for _, s := range subs[start:] {
		if v, isBool := s.Bool(); isBool && !v {
			return subs, true
		}
	}
	if n.propNames != nil {
		if ok, _ := n.propNames.ValidContext(e.ctx, source.StringValue(name)); !ok {
			return subs, true
		}
	}
	return subs, false
}

// valueConj returns the conjunction of the schemas that apply to c's property name, or
// forbidden. It is not remembered: on the largest pair nine in ten (conjunction, name)
// pairs were asked once, and most make the conjunction of one schema, kept on its node.
func (e *engine) valueConj(c *conj, name string) (*conj, bool) {
	subs, forbidden := e.valueSchemas(c, name)
	if forbidden {
		return nil, true
	}
	return e.conjOf(subs, nil), false
}

// explicitNames lists the property names c names explicitly (properties and required).
func (e *engine) explicitNames(c *conj) []string {
	if out, ok := e.namesMemo[c]; ok {
		return out
	}
	out := e.collectNames(c)
	e.namesMemo[c] = out
	return out
}

func (e *engine) collectNames(c *conj) []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, n := range e.parts(c) {
		for _, k := range n.propOrder {
			add(k)
		}
		for _, f := range n.facts {
			if f.kind == fRequired {
				add(f.str)
			}
			if f.kind == fDepRequired {
				add(f.str)
				for _, r := range f.list {
					add(r)
				}
			}
			if f.kind == fDepSchema {
				add(f.str)
			}
		}
	}
	sort.Strings(out)
	return out
}

// closedNames returns the only property names c allows, when that set is finite.
func (e *engine) closedNames(c *conj) ([]string, bool) {
	for _, n := range e.parts(c) {
		if n.additional == nil || len(n.patterns) > 0 {
			continue
		}
		if v, isBool := n.additional.Bool(); isBool && !v {
			var out []string
			for _, k := range n.propOrder {
				if _, forbidden := e.valueConj(c, k); !forbidden {
					out = append(out, k)
				}
			}
			return out, true
		}
	}
	return nil, false
}

// ---- arrays ----

// itemSchemas returns the schemas that apply to the item at position i.
func (e *engine) itemSchemas(c *conj, i int) []*schema.Schema {
	var out []*schema.Schema
	for _, n := range e.parts(c) {
		switch {
		case i < len(n.prefix):
			out = append(out, n.prefix[i])
		case n.items != nil:
			out = append(out, n.items)
		case n.unevalI != nil && e.unevalItemsAsAdditional(n.body):
			out = append(out, n.unevalI)
		}
	}
	return out
}

// prefixLen is the longest prefix of positions c treats individually.
func (e *engine) prefixLen(c *conj) int {
	p := 0
	for _, n := range e.parts(c) {
		p = max(p, len(n.prefix))
	}
	return p
}

// maxItemsOf is the largest length an array of c may have (-1: unbounded).
func (e *engine) maxItemsOf(c *conj, m *merged) int {
	best := m.maxItems
	for _, n := range e.parts(c) {
		if n.items == nil {
			continue
		}
		if v, isBool := n.items.Bool(); isBool && !v {
			if best < 0 || len(n.prefix) < best {
				best = len(n.prefix)
			}
		}
	}
	// a position whose schema is false ends the array before it
	limit := e.prefixLen(c)
	for i := 0; i < limit && (best < 0 || i < best); i++ {
		for _, s := range e.itemSchemas(c, i) {
			if v, isBool := s.Bool(); isBool && !v {
				best = i
			}
		}
	}
	return best
}

// maxPropsOf is the most properties an object of c may have (-1: unbounded).
func (e *engine) maxPropsOf(c *conj, m *merged) int {
	best := m.maxProps
	if names, ok := e.closedNames(c); ok && (best < 0 || len(names) < best) {
		best = len(names)
	}
	return best
}

// ---- structural sameness ----

// same reports whether two schemas are the same text in the same dialect whose references
// lead to schemas that are the same in turn: then they accept the same instances. It is a
// bisimulation check: pairs under examination count as the same, and the successes of one
// top-level check are only remembered when the whole check succeeds.
func (e *engine) same(a, b *schema.Schema) bool { return e.samePair(a, b, true) }

func (e *engine) samePair(a, b *schema.Schema, checkText bool) bool {
	if r, done := e.sameKnown(a, b, checkText); done {
		return r
	}
	// Depth first, with a stack of its own (sameStack, and the pairs each frame is still
	// to check in sameReqs): a long chain of references or a deep nest of subschemas
	// does not recurse.
	base, reqBase := len(e.sameStack), len(e.sameReqs)
	ok := e.sameOpen(a, b, checkText)
	for ok && len(e.sameStack) > base {
		f := &e.sameStack[len(e.sameStack)-1]
		if f.next == f.end {
			// Every pair it leads to is the same (or under examination): so is it, if the
			// whole check succeeds.
			e.sameTentative = append(e.sameTentative, f.k)
			e.sameReqs = e.sameReqs[:f.start]
			e.sameStack = e.sameStack[:len(e.sameStack)-1]
			continue
		}
		q := e.sameReqs[f.next]
		f.next++
		if r, done := e.sameKnown(q.a, q.b, q.text); done {
			ok = r
			continue
		}
		ok = e.sameOpen(q.a, q.b, q.text)
	}
	if !ok {
		// The pairs under examination that led to the failing one are not the same either.
		for _, f := range e.sameStack[base:] {
			e.sameMemo[f.k] = 3
		}
		e.sameStack, e.sameReqs = e.sameStack[:base], e.sameReqs[:reqBase]
	}
	for _, t := range e.sameTentative {
		if ok {
			e.sameMemo[t] = 2
		} else if e.sameMemo[t] == 1 {
			delete(e.sameMemo, t)
		}
	}
	e.sameTentative = e.sameTentative[:0]
	return ok
}

// sameReq is a pair of schemas that samePair is still to check.
type sameReq struct {
	a, b *schema.Schema
	text bool // compare their texts too (see samePair)
}

// sameFrame is a pair under examination: the pairs it leads to are sameReqs[start:end],
// and next is the first not yet checked.
type sameFrame struct {
	k                [2]*schema.Schema
	start, next, end int
}

// sameKnown answers samePair when it needs no examination: the same schema, one missing,
// different texts, or a pair met before (under examination counts as the same).
func (e *engine) sameKnown(a, b *schema.Schema, checkText bool) (same, known bool) {
	if a == b {
		return true, true
	}
	if a == nil || b == nil {
		return false, true
	}
	if checkText && e.hashOf(a) != e.hashOf(b) {
		// Different text, known without a memo: every pair this check examines has the
		// same text (children of the same text, targets that are checked in turn), so
		// no pair under examination is of different text.
		return false, true
	}
	switch e.sameMemo[[2]*schema.Schema{a, b}] {
	case 1, 2:
		return true, true // 1: under examination (coinductive), 2: the same
	case 3:
		return false, true
	}
	return false, false
}

// sameOpen puts a pair under examination: it checks what the two schemas hold themselves
// and pushes a frame with the pairs they lead to (their references' targets, then their
// children). It reports false, and records the pair as not the same, when they differ.
func (e *engine) sameOpen(a, b *schema.Schema, checkText bool) bool {
	k := [2]*schema.Schema{a, b}
	start := len(e.sameReqs)
	if !e.sameShape(a, b, checkText) {
		e.sameReqs = e.sameReqs[:start]
		e.sameMemo[k] = 3
		return false
	}
	e.sameMemo[k] = 1
	e.sameStack = append(e.sameStack, sameFrame{k: k, start: start, next: start, end: len(e.sameReqs)})
	return true
}

// sameShape compares what two schemas hold themselves, and appends to sameReqs the pairs
// that must be the same in turn.
func (e *engine) sameShape(a, b *schema.Schema, checkText bool) bool {
	va, ba := a.Bool()
	vb, bb := b.Bool()
	if ba || bb {
		return ba && bb && va == vb // true and false mean the same in every draft
	}
	if a.Draft != b.Draft || a.FormatAsserted() != b.FormatAsserted() {
		return false
	}
	if checkText && !source.Equal(a.Value(), b.Value()) { // the hashes are alike (samePair)
		return false
	}
	for _, kw := range a.Keywords() {
		if a.Ignored(kw) != b.Ignored(kw) {
			return false
		}
	}
	if (a.Ref() == nil) != (b.Ref() == nil) {
		return false
	}
	if a.Ref() != nil {
		e.sameReqs = append(e.sameReqs, sameReq{a.Ref(), b.Ref(), true})
	}
	ta, da := a.DynamicRef()
	tb, db := b.DynamicRef()
	if da != db || (ta == nil) != (tb == nil) {
		return false
	}
	if ta != nil {
		e.sameReqs = append(e.sameReqs, sameReq{ta, tb, true})
	}
	base := len(e.childBuf)
	e.childBuf = a.AppendChildren(e.childBuf)
	mid := len(e.childBuf)
	e.childBuf = b.AppendChildren(e.childBuf)
	ca, cb := e.childBuf[base:mid], e.childBuf[mid:]
	defer func() { e.childBuf = e.childBuf[:base] }()
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i].Keyword != cb[i].Keyword || ca[i].Key != cb[i].Key || ca[i].Index != cb[i].Index {
			return false
		}
		e.sameReqs = append(e.sameReqs, sameReq{ca[i].Schema, cb[i].Schema, false})
	}
	return true
}

// sameRoots reports whether two lists of schemas are the same schemas, position by
// position (none missing): the conjunctions they make are then the same (sameConj).
func (e *engine) sameRoots(a, b []*schema.Schema) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] == nil || b[i] == nil || !e.same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameConj reports whether two conjunctions are made of the same schemas.
func (e *engine) sameConj(a, b *conj) bool {
	return a == b || (len(a.chosen) == 0 && len(b.chosen) == 0 && e.sameRoots(a.roots, b.roots))
}

// ---- structural hashes ----

// hashOf is a hash of a schema's JSON value in which equal values (source.Equal: object
// members in any order, 1 == 1.0) hash alike; values of one document are hashed once.
func (e *engine) hashOf(s *schema.Schema) uint64 {
	if v, isBool := s.Bool(); isBool {
		if v {
			return 0x9e3779b97f4a7c15
		}
		return 0x7f4a7c159e3779b9
	}
	// a schema's hash is kept by its number; 0 stands for none (a hash of 0 is made again)
	id, i := s.Index()
	t := e.nodeTab(id, s)
	if t.hashes == nil {
		t.hashes = make([]uint64, len(t.nodes))
	}
	t.hashes = reach(t.hashes, i)
	if h := t.hashes[i]; h != 0 {
		return h
	}
	h := e.hashValue(e.valueHashesOf(s.Document()), s.Value())
	t.hashes[i] = h
	return h
}

// valueHashes memoises the hashes of one document's arrays and objects, by offset and
// kind: in the comparison's table shared by its engines (the documents compared), and in
// the engine's own map (other documents, and what a full table cannot hold: a document
// with far more arrays and objects than schemas would otherwise be hashed again for each
// schema above them).
type valueHashes struct {
	shared *hashTable
	local  map[int]uint64
}

func (m valueHashes) get(mk int) (uint64, bool) {
	if m.shared != nil {
		if h, ok := m.shared.get(uint64(mk)); ok {
			return h, true
		}
	}
	h, ok := m.local[mk]
	return h, ok
}

func (m valueHashes) put(mk int, h uint64) {
	if m.shared == nil || !m.shared.put(uint64(mk), h) {
		m.local[mk] = h
	}
}

func (e *engine) valueHashesOf(doc *source.Document) valueHashes {
	memo := e.hashMemo[doc]
	if memo == nil {
		memo = map[int]uint64{}
		e.hashMemo[doc] = memo
	}
	return valueHashes{shared: e.bodies.hashes[doc], local: memo}
}

// hashValue hashes v, a value of the document whose hashes memo holds. The hash of an
// array or object is never 0 (the tables' mark of none).
func (e *engine) hashValue(memo valueHashes, v source.Value) uint64 {
	k := v.Kind()
	mk := v.Offset()<<4 | int(k)
	if k == source.Object || k == source.Array {
		if h, ok := memo.get(mk); ok {
			return h
		}
	}
	const prime = 1099511628211
	h := uint64(k+1) * 0x9e3779b97f4a7c15
	mix := func(x uint64) { h = (h ^ x) * prime }
	switch k {
	case source.Bool:
		if v.Bool() {
			mix(1)
		}
	case source.String:
		mix(maphash.String(e.seed, v.Str()))
	case source.Number:
		lit := v.Str()
		if strings.ContainsAny(lit, ".eE") {
			lit = v.Num().String() // 1.0 and 1 hash alike
		}
		mix(maphash.String(e.seed, lit))
	case source.Array:
		for _, it := range v.Items() {
			mix(e.hashValue(memo, it))
		}
	case source.Object:
		var sum uint64
		for i := 0; i < v.Len(); i++ {
			kk, val := v.Member(i)
			sum += (maphash.String(e.seed, kk.Str()) ^ e.hashValue(memo, val)*31) * prime
		}
		mix(sum)
	}
	if k == source.Object || k == source.Array {
		h |= 1
		memo.put(mk, h)
	}
	return h
}
