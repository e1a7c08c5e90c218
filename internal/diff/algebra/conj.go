package algebra

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

// Engine holds the caches of one comparison: the node views, the conjunctions, the proofs.
type Engine struct {
	Ctx           context.Context
	Opts          Options
	Bodies        *Bodies   // shared with the comparison's other engine
	nodeTabs      []nodeTab // the nodes of each compiler's schemas, by schema number
	nNodes        int
	defaults      map[*Body]map[string]source.Value
	regexps       map[string]schema.Regexp
	regexTimeout  time.Duration
	Pats          pattern.Cache
	known         map[string]bool
	Conjs         map[uint64]*Conj // by partsHash, a list through next
	NConjs        int
	HashMask      uint64 // all ones; tests clear it to make every partsHash collide
	byRoots       map[string]*Conj
	matchMemo     map[[2]string]bool
	namesMemo     map[*Conj][]string
	objParts      map[int]objParts               // objectParts of the larger conjunctions, by kid
	CondIdx       map[*Merged]map[uint64][]*Fact // condRepeated's index of a view's if groups
	hashMemo      map[*source.Document]map[int]uint64
	seed          maphash.Seed
	sameMemo      map[[2]*schema.Schema]int8
	sameTentative [][2]*schema.Schema
	sameStack     []sameFrame // samePair's own stack
	sameReqs      []sameReq
	evalMemo      map[*schema.Schema]int8 // does the in-place closure evaluate properties/items
	epoch         uint32                  // marks the nodes seen by one conjClose
	Size          int                     // the schemas of the compilers compared (newEngine)

	// scratch buffers, reused so that looking up what exists already allocates nothing
	keyBuf   []byte
	partsBuf []*Node
	rootsBuf []*schema.Schema
	factBuf  []Fact
	childBuf []schema.Child
	reading  nodeRead // readNode's state (readNode does not reenter)

	// proofs
	SubMemo, DisMemo  map[ProofKey]bool
	SubProg, DisProg  map[ProofKey]Progress
	EmptyMemo         map[ProofKey]bool     // empty, by conjunction and classes
	EmptyProg         map[ProofKey]Progress // the emptiness questions being answered
	NegMemo           map[int][]*schema.Schema
	BranchesLeft      int  // the branches the emptiness question under way may still examine (takeBranch)
	BranchCuts        int  // the times a question found none left
	InHere            bool // an emptyHere question is under way: the prover's questions take from its branches
	Triggered         int  // the dependent schemas triggeredImplies is inside of
	Stack, MinAssume  int
	Steps, StepBudget int
	ProofSteps        int
	Contradictions    int
	TrueConj          *Conj
	SearchCandidates  int
	SearchTimedOut    bool
	WalkTruncated     bool
	Twins             bool // a side is draft-04: the search also tries 1.0 for an enum's 1 (finiteValues)
	partsCopied       int  // the parts of the conjunctions of several roots made (overParts)
}

type Progress struct {
	Idx, Depth int
}

// nodeTab holds what an engine keeps of one compiler's schemas, by schema number.
type nodeTab struct {
	id     schema.CompilerID
	nodes  []*Node
	hashes []uint64 // hashOf, once asked for (0: not yet)
}

// nodeTab returns the table of the compiler of s (its nodes made at its number of schemas
// when first asked for).
func (e *Engine) nodeTab(id schema.CompilerID, s *schema.Schema) *nodeTab {
	for k := range e.nodeTabs {
		if e.nodeTabs[k].id == id {
			return &e.nodeTabs[k]
		}
	}
	e.nodeTabs = append(e.nodeTabs, nodeTab{id: id, nodes: make([]*Node, schema.CompiledCount(s))})
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

// NewEngine returns an engine reading schemas into bs (nil: bodies of its own) for a
// comparison of schemas from compilers that made size schemas: the maps that grow with
// the schemas the engine meets start at a quarter of it, so that they grow once or twice
// instead of doubling their way up (on the largest pair, of 18,092 schemas, the walk made
// 5,865 conjunctions and compared 8,775 pairs for sameness); its nodes are slices by schema
// number (nodeTab).
func NewEngine(ctx context.Context, opts Options, bs *Bodies, size int) *Engine {
	if bs == nil {
		bs = NewBodies()
	}
	e := &Engine{
		Ctx:          ctx,
		Opts:         opts,
		Bodies:       bs,
		defaults:     map[*Body]map[string]source.Value{},
		regexps:      map[string]schema.Regexp{},
		regexTimeout: 2 * time.Second,
		known:        map[string]bool{},
		Conjs:        make(map[uint64]*Conj, size/4),
		byRoots:      map[string]*Conj{},
		matchMemo:    map[[2]string]bool{},
		namesMemo:    map[*Conj][]string{},
		objParts:     map[int]objParts{},
		CondIdx:      map[*Merged]map[uint64][]*Fact{},
		hashMemo:     map[*source.Document]map[int]uint64{},
		seed:         bs.seed,
		sameMemo:     make(map[[2]*schema.Schema]int8, size/4),
		evalMemo:     map[*schema.Schema]int8{},
		SubMemo:      map[ProofKey]bool{},
		DisMemo:      map[ProofKey]bool{},
		SubProg:      map[ProofKey]Progress{},
		DisProg:      map[ProofKey]Progress{},
		EmptyMemo:    map[ProofKey]bool{},
		EmptyProg:    map[ProofKey]Progress{},
		NegMemo:      map[int][]*schema.Schema{},
		StepBudget:   opts.ProofSteps,
		Size:         size,
		HashMask:     ^uint64(0),
	}
	for _, f := range schema.KnownFormats() {
		e.known[f] = true
	}
	e.TrueConj = e.ConjOf(nil, nil)
	return e
}

func (e *Engine) knownFormat(f string) bool { return e.known[f] }

// node returns the node of s, its keywords read.
func (e *Engine) Node(s *schema.Schema) *Node {
	n := e.Shell(s)
	e.read(n.Body)
	return n
}

// conj is a conjunction of schemas applying to the same instance: the given roots and,
// closed over in-place references and allOf, every part they imply. chosen lists the
// anyOf/oneOf/if groups already split on (so they are not split again).
type Conj struct {
	Kid    int   // numbers the distinct sets of parts and chosen groups: the same set, the same kid
	Next   *Conj // the next conjunction of other parts whose parts hash the same (engine.conjs)
	Roots  []*schema.Schema
	Shells []*Node // the parts, perhaps not read yet: parts returns them read
	read   bool    // the parts are read
	Chosen []int
	m      *Merged
	shared *Conj // the conjunction of the same parts made first, whose merged view this one uses

	Live     schema.TypeSet // the classes it may hold (engine.live), once known
	LiveDone bool
}

// groupID identifies one anyOf, oneOf or if group of a node.
func groupID(n *Node, k FactKind) int { return n.Id*8 + int(k-FAnyOf) }

// groupOf identifies the group of an anyOf, oneOf or if fact in e.
func (e *Engine) GroupOf(f *Fact) int { return groupID(e.Shell(f.N.S), f.Kind) }

// conjOf returns the conjunction of roots, with groups already chosen.
func (e *Engine) ConjOf(roots []*schema.Schema, chosen []int) *Conj {
	if len(roots) == 1 && roots[0] != nil && len(chosen) == 0 {
		// the most common: one schema, kept on its node instead of under a key
		n := e.Shell(roots[0])
		if n.one == nil {
			n.one = e.ConjClose(roots, nil)
		}
		return n.one
	}
	// The keys are binary and self-delimiting: counts and ids as uvarints.
	rk := binary.AppendUvarint(e.keyBuf[:0], uint64(len(roots)))
	for _, r := range roots {
		id := uint64(0) // nil
		if r != nil {
			id = uint64(e.Shell(r).Id) + 1
		}
		rk = binary.AppendUvarint(rk, id)
	}
	rk = appendInts(rk, chosen)
	e.keyBuf = rk
	if c, ok := e.byRoots[string(rk)]; ok {
		return c
	}
	key := string(rk)
	c := e.ConjClose(roots, chosen)
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

func (e *Engine) ConjClose(roots []*schema.Schema, chosen []int) *Conj {
	var parts []*Node
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
		slices.SortFunc(parts, func(a, b *Node) int { return a.Id - b.Id })
		e.partsBuf = parts
	}
	var ch []int
	if len(chosen) > 0 {
		ch = append(ch, chosen...)
		sort.Ints(ch)
	}
	h := e.partsHash(parts, ch)
	var c *Conj
	for c = e.Conjs[h]; c != nil; c = c.Next {
		if slices.Equal(c.Shells, parts) && slices.Equal(c.Chosen, ch) {
			break
		}
	}
	if c != nil && rootsEqual(c.Roots, roots) {
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
		return &Conj{Kid: c.Kid, Roots: rs, Shells: c.Shells, Chosen: c.Chosen, shared: c}
	}
	if len(roots) != 1 {
		parts = slices.Clone(parts)
		e.partsCopied += len(parts)
	}
	c = &Conj{Kid: e.NConjs, Roots: rs, Shells: parts, Chosen: ch, Next: e.Conjs[h]}
	e.NConjs++
	e.Conjs[h] = c
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
func (e *Engine) OverParts() bool { return e.Opts.MaxParts > 0 && e.partsCopied > e.Opts.MaxParts }

// partsHash hashes the ids of parts and the chosen groups ch, the identity of a
// conjunction's constraints.
func (e *Engine) partsHash(parts []*Node, ch []int) uint64 {
	b := binary.AppendUvarint(e.keyBuf[:0], uint64(len(parts)))
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(p.Id))
	}
	b = appendInts(b, ch)
	e.keyBuf = b
	return maphash.Bytes(e.seed, b) & e.HashMask
}

// closed returns s and the schemas it implies in place (through $ref and allOf), sorted
// by id: the parts of the conjunction of s alone, made once and kept on its node. The
// closure of nil is empty.
func (e *Engine) closed(s *schema.Schema) []*Node {
	if s == nil {
		return nil
	}
	n := e.Shell(s)
	if !n.isClosed {
		e.epoch++
		parts := e.closeOver(nil, s, e.epoch)
		slices.SortFunc(parts, func(a, b *Node) int { return a.Id - b.Id })
		n.closure, n.isClosed = slices.Clip(parts), true
	}
	return n.closure
}

// closeOver appends s and the schemas it implies in place (through $ref and allOf) to
// parts, each node once per epoch. It keeps a stack of its own: a chain of references can
// be as long as the documents allow.
func (e *Engine) closeOver(parts []*Node, s *schema.Schema, epoch uint32) []*Node {
	stack := []*schema.Schema{s}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil {
			continue
		}
		n := e.Shell(s)
		if n.mark == epoch {
			continue
		}
		n.mark = epoch
		if n.IsBool && n.boolVal {
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
func (e *Engine) Parts(c *Conj) []*Node {
	if !c.read {
		c.read = true
		for _, n := range c.Shells {
			e.read(n.Body)
		}
	}
	return c.Shells
}

func (e *Engine) One(s *schema.Schema) *Conj {
	if s == nil {
		return e.TrueConj
	}
	return e.ConjOf([]*schema.Schema{s}, nil)
}

// with returns c with more roots (and more groups chosen).
func (e *Engine) With(c *Conj, more []*schema.Schema, chosen ...int) *Conj {
	return e.ConjOf(e.JoinRoots(c.Roots, more), append(append([]int(nil), c.Chosen...), chosen...))
}

// joinRoots returns a followed by b in the engine's scratch slice, for conjOf, which keeps
// no reference to the roots it is given.
func (e *Engine) JoinRoots(a, b []*schema.Schema) []*schema.Schema {
	e.rootsBuf = append(append(e.rootsBuf[:0], a...), b...)
	return e.rootsBuf
}

// merged aggregates the facts of a conjunction.
type Merged struct {
	Empty    bool
	Types    schema.TypeSet
	Enums    [][]source.Value
	Lo, Hi   *Bound
	Mults    []*big.Rat
	MinLen   int
	MaxLen   int // -1: none
	Patterns []string
	Formats  []string
	Content  []string
	MinItems int
	MaxItems int // -1: none
	Unique   bool
	MinProps int
	MaxProps int // -1: none
	Required map[string]bool
	DepReq   map[string]map[string]bool
	Nots     []*schema.Schema
	Contains []*Fact
	DepSch   []*Fact
	Pnames   []*schema.Schema

	// The facts of the view are those of the conjunction's parts, in order, but the groups
	// already chosen (facts and groups go through them): a view does not copy them, since
	// the conjunctions of a location under a large context (the branches of an allOf of
	// 270 conditions) would each copy the context's.
	parts   []*Node
	chosen  []int
	NFacts  int // the facts of the view
	NGroups int // the anyOf, oneOf and if groups among them
}

// isGroup reports whether facts of kind k are groups (anyOf, oneOf, if).
func IsGroup(k FactKind) bool { return k == FAnyOf || k == FOneOf || k == FCond }

// facts yields every fact of the view, for proving the conjunction.
func (m *Merged) Facts(yield func(*Fact) bool) {
	for _, n := range m.parts {
		for i := range n.Facts {
			f := &n.Facts[i]
			if len(m.chosen) > 0 && IsGroup(f.Kind) && chosen(m.chosen, groupID(n, f.Kind)) {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

// groups yields the anyOf, oneOf and if groups of the view that are not chosen.
func (m *Merged) Groups(yield func(*Fact) bool) {
	if m.NGroups == 0 {
		return
	}
	for _, n := range m.parts {
		if n.nGroups == 0 {
			continue
		}
		for i := range n.Facts {
			f := &n.Facts[i]
			if !IsGroup(f.Kind) || (len(m.chosen) > 0 && chosen(m.chosen, groupID(n, f.Kind))) {
				continue
			}
			if !yield(f) {
				return
			}
		}
	}
}

func (c *Conj) chosenHas(id int) bool { return chosen(c.Chosen, id) }

// chosen reports whether the group id is among ids.
func chosen(ids []int, id int) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func (e *Engine) Merged(c *Conj) *Merged {
	if c.shared != nil {
		return e.Merged(c.shared)
	}
	if c.m != nil {
		return c.m
	}
	if len(c.Shells) == 1 && len(c.Chosen) == 0 {
		// One schema object and no group chosen: the view depends on the body alone, and
		// the comparison's engines share it (two that make it at once make the same).
		b := c.Shells[0].Body
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
func (e *Engine) merge(c *Conj) *Merged {
	m := &Merged{Types: schema.TypeAll, MaxLen: -1, MaxItems: -1, MaxProps: -1, parts: e.Parts(c), chosen: c.Chosen}
	for _, n := range m.parts {
		for i := range n.Facts {
			f := &n.Facts[i]
			if IsGroup(f.Kind) {
				if c.chosenHas(groupID(n, f.Kind)) {
					continue
				}
				m.NGroups++
			}
			m.NFacts++
			switch f.Kind {
			case FFalse:
				m.Empty = true
			case FType:
				m.Types &= f.Types
			case FEnum:
				m.Enums = append(m.Enums, f.Vals)
				if len(f.Vals) == 0 {
					m.Empty = true
				}
			case FLower:
				if TighterLower(f.B, m.Lo) {
					m.Lo = f.B
				}
			case FUpper:
				if TighterUpper(f.B, m.Hi) {
					m.Hi = f.B
				}
			case FMultipleOf:
				m.Mults = append(m.Mults, f.R)
			case FMinLength:
				m.MinLen = max(m.MinLen, f.I)
			case FMaxLength:
				if m.MaxLen < 0 || f.I < m.MaxLen {
					m.MaxLen = f.I
				}
			case FPattern:
				m.Patterns = append(m.Patterns, f.Str)
			case FFormat:
				m.Formats = append(m.Formats, f.Str)
			case FContent:
				m.Content = append(m.Content, f.Str)
			case FMinItems:
				m.MinItems = max(m.MinItems, f.I)
			case FMaxItems:
				if m.MaxItems < 0 || f.I < m.MaxItems {
					m.MaxItems = f.I
				}
			case FUnique:
				m.Unique = true
			case FMinProps:
				m.MinProps = max(m.MinProps, f.I)
			case FMaxProps:
				if m.MaxProps < 0 || f.I < m.MaxProps {
					m.MaxProps = f.I
				}
			case FRequired:
				if m.Required == nil {
					m.Required = map[string]bool{}
				}
				m.Required[f.Str] = true
			case FDepRequired:
				if m.DepReq == nil {
					m.DepReq = map[string]map[string]bool{}
				}
				if m.DepReq[f.Str] == nil {
					m.DepReq[f.Str] = map[string]bool{}
				}
				for _, r := range f.List {
					m.DepReq[f.Str][r] = true
				}
			case FDepSchema:
				m.DepSch = append(m.DepSch, f)
			case FPropNames:
				m.Pnames = append(m.Pnames, f.S)
			case FContains:
				m.Contains = append(m.Contains, f)
			case FNot:
				m.Nots = append(m.Nots, f.S)
			}
		}
	}
	if m.MinLen > 0 && m.MaxLen >= 0 && m.MinLen > m.MaxLen {
		m.Types &^= schema.TypeString
	}
	if m.MaxItems >= 0 && m.MinItems > m.MaxItems {
		m.Types &^= schema.TypeArray
	}
	if m.MaxProps >= 0 && (m.MinProps > m.MaxProps || len(m.Required) > m.MaxProps) {
		m.Types &^= schema.TypeObject
	}
	if m.Lo != nil && m.Hi != nil {
		c := m.Lo.V.Cmp(m.Hi.V)
		if c > 0 || (c == 0 && (m.Lo.Excl || m.Hi.Excl)) {
			m.Types &^= schema.TypeNumber
		}
	}
	if m.Empty {
		m.Types = 0
	}
	return m
}

// intOnly reports whether the numbers of m are all integers (a multipleOf that is an
// integer).
func (m *Merged) IntOnly() bool {
	for _, r := range m.Mults {
		if r.IsInt() {
			return true
		}
	}
	return false
}

// ---- values of a conjunction ----

// valid tells whether v is valid under every root of c; ok is false when the validator
// could not decide (a pattern timed out).
func (e *Engine) Valid(c *Conj, v source.Value) (valid, ok bool) {
	for _, r := range c.Roots {
		good, err := r.ValidContext(e.Ctx, v)
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
func (e *Engine) FiniteValues(c *Conj, m *Merged, d schema.TypeSet, twins bool) ([]source.Value, bool) {
	var cands []source.Value
	switch {
	case len(m.Enums) > 0:
		cands = m.Enums[0]
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
		good, ok := e.Valid(c, v)
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
func (e *Engine) evaluatesInPlace(n *Body) bool {
	for _, s := range inPlaceSubs(nil, n) {
		if s != nil && e.evaluates(s) {
			return true
		}
	}
	return n.dynamic
}

// inPlaceSubs appends the schemas the in-place applicators of n apply (nil for those
// absent).
func inPlaceSubs(out []*schema.Schema, n *Body) []*schema.Schema {
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
func (e *Engine) evaluates(s *schema.Schema) bool {
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
		n := e.Node(t)
		if len(n.Props) > 0 || len(n.Patterns) > 0 || n.Additional != nil || n.UnevalP != nil ||
			len(n.Prefix) > 0 || n.Items != nil || n.contains != nil || n.unevalI != nil {
			e.evalMemo[t] = 3
			return true
		}
		start := len(subs)
		subs = inPlaceSubs(subs, n.Body)
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
func (e *Engine) UnevalAsAdditional(n *Body) bool { return !e.evaluatesInPlace(n) }

// unevalItemsAsAdditional reports whether unevaluatedItems of n acts like additionalItems:
// nothing in place evaluates items, and n has no contains that does (from 2020-12, the
// items contains matches count as evaluated, so adding contains can let items through).
func (e *Engine) UnevalItemsAsAdditional(n *Body) bool {
	return e.UnevalAsAdditional(n) && (n.contains == nil || n.draft < 2020)
}

// objectParts returns the parts of c that say something about its properties (the false
// schema too), in order, and, for a larger conjunction, an index of them by property name.
// A large conjunction keeps them, by kid: under the 270 conditions of an allOf, a
// property's schemas were looked for in 271 parts, of which one or two have properties;
// under an allOf of n parts that each declare a property, every name was looked for in
// every part (10,000 parts: 10^8 lookups).
func (e *Engine) ObjectParts(c *Conj) ([]*Node, *NameIndex) {
	parts := e.Parts(c)
	if len(parts) <= 8 {
		return parts, nil
	}
	if x, ok := e.objParts[c.Kid]; ok {
		return x.parts, x.names
	}
	var x objParts
	x.parts = []*Node{} // not nil: none is known
	for _, n := range parts {
		if n.IsBool && !n.boolVal || len(n.Props) > 0 || len(n.Patterns) > 0 || n.Additional != nil ||
			n.UnevalP != nil || n.propNames != nil {
			x.parts = append(x.parts, n)
		}
	}
	if len(x.parts) > 8 {
		x.names = &NameIndex{ByName: map[string][]int{}}
		for i, n := range x.parts {
			if n.IsBool || len(n.Patterns) > 0 || n.Additional != nil || n.UnevalP != nil || n.propNames != nil {
				x.names.Every = append(x.names.Every, i)
			}
			for k := range n.Props {
				x.names.ByName[k] = append(x.names.ByName[k], i)
			}
		}
	}
	e.objParts[c.Kid] = x
	return x.parts, x.names
}

// objParts is what objectParts keeps for a large conjunction.
type objParts struct {
	parts []*Node
	names *NameIndex // nil when the parts are few
}

// nameIndex says which of a conjunction's object parts may have something to say about a
// property name: those that declare it, and those that speak of every name (false,
// patternProperties, additionalProperties, unevaluatedProperties, propertyNames); the
// others are skipped, since they add nothing for it (valueSchemas).
type NameIndex struct {
	ByName map[string][]int // the parts declaring the name, by place
	Every  []int
}

// parts calls visit with the places of the parts that may speak of name, in order, until
// it returns false.
func (x *NameIndex) Parts(name string, visit func(i int) bool) {
	a, b := x.ByName[name], x.Every
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
func (e *Engine) ValueSchemas(c *Conj, name string) (subs []*schema.Schema, forbidden bool) {
	parts, names := e.ObjectParts(c)
	if names == nil {
		for _, n := range parts {
			if subs, forbidden = e.PartSchemas(n, name, subs); forbidden {
				return nil, true
			}
		}
		return subs, false
	}
	names.Parts(name, func(i int) bool {
		subs, forbidden = e.PartSchemas(parts[i], name, subs)
		return !forbidden
	})
	if forbidden {
		return nil, true
	}
	return subs, false
}

// partSchemas appends to subs the schemas that one part n applies to the value of
// property name, or reports the property forbidden by it.
func (e *Engine) PartSchemas(n *Node, name string, subs []*schema.Schema) ([]*schema.Schema, bool) {
	if n.IsBool {
		return subs, !n.boolVal
	}
	start := len(subs) // the schemas of this part go on subs directly
	if s, ok := n.Props[name]; ok {
		subs = append(subs, s)
	}
	matched := len(subs) > start
	for _, p := range n.Patterns {
		if e.PatternMatches(p.Src, name) {
			subs = append(subs, p.S)
			matched = true
		}
	}
	if !matched {
		if n.Additional != nil {
			subs = append(subs, n.Additional)
		} else if n.UnevalP != nil && e.UnevalAsAdditional(n.Body) {
			subs = append(subs, n.UnevalP)
		}
	}
	for _, s := range subs[start:] {
		if v, isBool := s.Bool(); isBool && !v {
			return subs, true
		}
	}
	if n.propNames != nil {
		if ok, _ := n.propNames.ValidContext(e.Ctx, source.StringValue(name)); !ok {
			return subs, true
		}
	}
	return subs, false
}

// valueConj returns the conjunction of the schemas that apply to c's property name, or
// forbidden. It is not remembered: on the largest pair nine in ten (conjunction, name)
// pairs were asked once, and most make the conjunction of one schema, kept on its node.
func (e *Engine) ValueConj(c *Conj, name string) (*Conj, bool) {
	subs, forbidden := e.ValueSchemas(c, name)
	if forbidden {
		return nil, true
	}
	return e.ConjOf(subs, nil), false
}

// explicitNames lists the property names c names explicitly (properties and required).
func (e *Engine) ExplicitNames(c *Conj) []string {
	if out, ok := e.namesMemo[c]; ok {
		return out
	}
	out := e.collectNames(c)
	e.namesMemo[c] = out
	return out
}

func (e *Engine) collectNames(c *Conj) []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, n := range e.Parts(c) {
		for _, k := range n.PropOrder {
			add(k)
		}
		for _, f := range n.Facts {
			if f.Kind == FRequired {
				add(f.Str)
			}
			if f.Kind == FDepRequired {
				add(f.Str)
				for _, r := range f.List {
					add(r)
				}
			}
			if f.Kind == FDepSchema {
				add(f.Str)
			}
		}
	}
	sort.Strings(out)
	return out
}

// closedNames returns the only property names c allows, when that set is finite.
func (e *Engine) ClosedNames(c *Conj) ([]string, bool) {
	for _, n := range e.Parts(c) {
		if n.Additional == nil || len(n.Patterns) > 0 {
			continue
		}
		if v, isBool := n.Additional.Bool(); isBool && !v {
			var out []string
			for _, k := range n.PropOrder {
				if _, forbidden := e.ValueConj(c, k); !forbidden {
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
func (e *Engine) ItemSchemas(c *Conj, i int) []*schema.Schema {
	var out []*schema.Schema
	for _, n := range e.Parts(c) {
		switch {
		case i < len(n.Prefix):
			out = append(out, n.Prefix[i])
		case n.Items != nil:
			out = append(out, n.Items)
		case n.unevalI != nil && e.UnevalItemsAsAdditional(n.Body):
			out = append(out, n.unevalI)
		}
	}
	return out
}

// prefixLen is the longest prefix of positions c treats individually.
func (e *Engine) PrefixLen(c *Conj) int {
	p := 0
	for _, n := range e.Parts(c) {
		p = max(p, len(n.Prefix))
	}
	return p
}

// maxItemsOf is the largest length an array of c may have (-1: unbounded).
func (e *Engine) MaxItemsOf(c *Conj, m *Merged) int {
	best := m.MaxItems
	for _, n := range e.Parts(c) {
		if n.Items == nil {
			continue
		}
		if v, isBool := n.Items.Bool(); isBool && !v {
			if best < 0 || len(n.Prefix) < best {
				best = len(n.Prefix)
			}
		}
	}
	// a position whose schema is false ends the array before it
	limit := e.PrefixLen(c)
	for i := 0; i < limit && (best < 0 || i < best); i++ {
		for _, s := range e.ItemSchemas(c, i) {
			if v, isBool := s.Bool(); isBool && !v {
				best = i
			}
		}
	}
	return best
}

// maxPropsOf is the most properties an object of c may have (-1: unbounded).
func (e *Engine) MaxPropsOf(c *Conj, m *Merged) int {
	best := m.MaxProps
	if names, ok := e.ClosedNames(c); ok && (best < 0 || len(names) < best) {
		best = len(names)
	}
	return best
}

// ---- structural sameness ----

// same reports whether two schemas are the same text in the same dialect whose references
// lead to schemas that are the same in turn: then they accept the same instances. It is a
// bisimulation check: pairs under examination count as the same, and the successes of one
// top-level check are only remembered when the whole check succeeds.
func (e *Engine) Same(a, b *schema.Schema) bool { return e.samePair(a, b, true) }

func (e *Engine) samePair(a, b *schema.Schema, checkText bool) bool {
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
func (e *Engine) sameKnown(a, b *schema.Schema, checkText bool) (same, known bool) {
	if a == b {
		return true, true
	}
	if a == nil || b == nil {
		return false, true
	}
	if checkText && e.HashOf(a) != e.HashOf(b) {
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
func (e *Engine) sameOpen(a, b *schema.Schema, checkText bool) bool {
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
func (e *Engine) sameShape(a, b *schema.Schema, checkText bool) bool {
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
func (e *Engine) SameRoots(a, b []*schema.Schema) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] == nil || b[i] == nil || !e.Same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameConj reports whether two conjunctions are made of the same schemas.
func (e *Engine) SameConj(a, b *Conj) bool {
	return a == b || (len(a.Chosen) == 0 && len(b.Chosen) == 0 && e.SameRoots(a.Roots, b.Roots))
}

// ---- structural hashes ----

// hashOf is a hash of a schema's JSON value in which equal values (source.Equal: object
// members in any order, 1 == 1.0) hash alike; values of one document are hashed once.
func (e *Engine) HashOf(s *schema.Schema) uint64 {
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

func (e *Engine) valueHashesOf(doc *source.Document) valueHashes {
	memo := e.hashMemo[doc]
	if memo == nil {
		memo = map[int]uint64{}
		e.hashMemo[doc] = memo
	}
	return valueHashes{shared: e.Bodies.hashes[doc], local: memo}
}

// hashValue hashes v, a value of the document whose hashes memo holds. The hash of an
// array or object is never 0 (the tables' mark of none).
func (e *Engine) hashValue(memo valueHashes, v source.Value) uint64 {
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

// singletons returns the values of the classes d of c when each class holds at most one
// value (a number range of one point, strings of length 0, arrays with no item, objects
// with no property), with null and the booleans.
func (e *Engine) singletons(c *Conj, m *Merged, d schema.TypeSet) ([]source.Value, bool) {
	var out []source.Value
	if d&schema.TypeNumber != 0 {
		if m.Lo == nil || m.Hi == nil || m.Lo.Excl || m.Hi.Excl || m.Lo.V.Cmp(m.Hi.V) != 0 {
			return nil, false
		}
		lit, ok := RatLiteral(m.Lo.V)
		if !ok {
			return nil, false
		}
		out = append(out, source.NumberValue(lit))
	}
	if d&schema.TypeString != 0 {
		if m.MaxLen != 0 {
			return nil, false
		}
		out = append(out, source.StringValue(""))
	}
	if d&schema.TypeArray != 0 {
		if m.MaxItems != 0 && !e.noItems(c) {
			return nil, false
		}
		out = append(out, source.ArrayValue())
	}
	if d&schema.TypeObject != 0 {
		if m.MaxProps != 0 && !e.noMembers(c) {
			return nil, false
		}
		var b source.ObjectBuilder
		out = append(out, b.Value())
	}
	if d&schema.TypeNull != 0 {
		out = append(out, source.NullValue())
	}
	if d&schema.TypeBoolean != 0 {
		out = append(out, source.BoolValue(true), source.BoolValue(false))
	}
	return out, true
}

// noItems reports a part of c that allows no item at all.
func (e *Engine) noItems(c *Conj) bool {
	for _, n := range e.Parts(c) {
		if len(n.Prefix) == 0 && n.Items != nil && isFalse(n.Items) || len(n.Prefix) > 0 && isFalse(n.Prefix[0]) {
			return true
		}
	}
	return false
}

// noMembers reports a part of c that allows no property at all: additionalProperties
// false, no patternProperties, and only properties whose schema is false.
func (e *Engine) noMembers(c *Conj) bool {
	for _, n := range e.Parts(c) {
		if n.Additional == nil || !isFalse(n.Additional) || len(n.Patterns) > 0 {
			continue
		}
		if !slices.ContainsFunc(n.PropOrder, func(k string) bool { return !isFalse(n.Props[k]) }) {
			return true
		}
	}
	return false
}

func isFalse(s *schema.Schema) bool {
	v, isBool := s.Bool()
	return isBool && !v
}

// proofKey identifies a question to the prover: the two conjunctions by their keys, and
// the classes of instances asked about.
type ProofKey struct {
	A, B int
	Dom  schema.TypeSet
}

func FactsOf(m *Merged, k FactKind) []*Fact {
	var out []*Fact
	for f := range m.Facts {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}
