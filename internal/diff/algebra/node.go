package algebra

import (
	"hash/maphash"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// body is one schema object read in its own dialect: draft-04 boolean exclusive bounds
// become exclusive bounds, a draft-07 items array becomes prefix items with additionalItems
// as the tail, dependencies split into dependentRequired and dependentSchemas, $ref
// siblings are dropped where the draft ignores them. Everything the engine knows about a
// schema object comes from here, so each side is read in its own dialect.
//
// What a body says depends only on the schema and the comparison's options, so the
// engines of one comparison share it (see bodies): its shell is installed once, its
// keywords are read once under its own lock, and after that nothing writes to it or to its
// facts (the proof's goroutine copies facts while the search runs); what an engine learns
// about a body on its own goes on its node or in its own tables.
type Body struct {
	S     *schema.Schema
	v     source.Value // the schema's JSON value
	draft int

	mu   sync.Mutex  // held while the keywords are read
	done atomic.Bool // the keywords are read (facts and the raw pieces below)

	IsBool  bool
	boolVal bool
	hasAll  bool  // an applied allOf: its keywords are read with the shell
	nGroups int32 // the anyOf, oneOf and if facts among facts
	// forbidsNames: the body may forbid a property by its name (forbidsNames)
	ForbidsNames bool

	ref     *schema.Schema // $ref target (in place)
	dynRefs []*schema.Schema
	dynamic bool // a $dynamicRef/$recursiveRef whose target depends on the dynamic scope

	Facts []Fact // the assertions and applicators of this object, in a fixed order

	*pieces // the subschemas; noPieces for a schema without any

	Ann []Annotation // at --level docs

	merged atomic.Pointer[Merged] // the merged view of the body alone, once made
}

// pieces are the subschemas of a body as the compiler applies them, the raw material of
// the generator and the walk. A schema with no subschema (about half of them, the leaves)
// shares noPieces, which is never written.
type pieces struct {
	Props      map[string]*schema.Schema
	PropOrder  []string
	Patterns   []patProp
	Additional *schema.Schema
	Prefix     []*schema.Schema
	PrefixKw   string
	Items      *schema.Schema
	itemsKw    string
	UnevalP    *schema.Schema
	unevalI    *schema.Schema
	allOf      []*schema.Schema
	anyOf      []*schema.Schema
	oneOf      []*schema.Schema
	not        *schema.Schema
	ifS        *schema.Schema
	thenS      *schema.Schema
	elseS      *schema.Schema
	depSchemas map[string]*schema.Schema
	depKw      map[string]string
	propNames  *schema.Schema
	contains   *schema.Schema
}

var noPieces pieces

// node is one engine's view of a body: the number the engine gave it when first met
// (which orders conjunctions, so it is the engine's own) and the engine's marks.
type Node struct {
	*Body
	Id   int
	mark uint32 // the engine's epoch when conjClose last saw this node
	one  *Conj  // the conjunction of this schema alone (conjOf), once made

	closure  []*Node // this node and those it implies in place, by id (closed)
	isClosed bool
}

// Bodies holds the bodies of one comparison, shared by its engines. The bodies of the
// schemas of the compilers compared sit in slices by schema number (schema.Index), made at
// their full size when the comparison starts and read without a lock: a body is installed
// with a compare-and-swap, and the engine that loses the race takes the winner's. Schemas
// of other compilers (none in a comparison jstk makes) go in a map under a lock.
//
// When two engines run, they also share the hashes of the compared documents' values
// (shareHashes: a hashTable by document, the map read-only once made), made with one seed.
type Bodies struct {
	tabs   []bodyTab
	mu     sync.Mutex
	other  map[*schema.Schema]*Body
	seed   maphash.Seed
	hashes map[*source.Document]*hashTable
}

type bodyTab struct {
	id     schema.CompilerID
	bodies []atomic.Pointer[Body]
}

// newBodies returns the table for a comparison of schemas made by the compilers of ss.
func NewBodies(ss ...*schema.Schema) *Bodies {
	t := &Bodies{seed: maphash.MakeSeed(), hashes: map[*source.Document]*hashTable{}}
	for _, s := range ss {
		if s == nil {
			continue
		}
		if id, _ := s.Index(); !slices.ContainsFunc(t.tabs, func(b bodyTab) bool { return b.id == id }) {
			t.tabs = append(t.tabs, bodyTab{id: id, bodies: make([]atomic.Pointer[Body], schema.CompiledCount(s))})
		}
	}
	return t
}

// shareHashes makes the tables in which the engines of a comparison share the hashes of
// the values of the documents of ss (a comparison with one engine keeps them in its own
// maps). The arrays and objects hashed are about two thirds of the schemas: 12k in each
// document of the largest pair, which has 9k schemas on each side.
func (t *Bodies) ShareHashes(ss ...*schema.Schema) {
	for _, s := range ss {
		if doc := s.Document(); t.hashes[doc] == nil {
			t.hashes[doc] = newHashTable(2 * schema.CompiledCount(s))
		}
	}
}

// hashTable is a fixed-size table of value hashes (not 0) by key (a value's offset and
// kind, not 0), read and written by several goroutines without a lock: a slot's key is
// claimed by compare-and-swap, then its hash is stored. A reader that finds the key before
// its hash computes the hash itself, and the same one, since the engines share the seed.
// A full table stores nothing more (put says so; the engines keep those in maps).
type hashTable struct {
	slots []hashSlot
	mask  uint64
	full  atomic.Bool // a put found no slot: the next ones do not look
}

type hashSlot struct {
	key, hash atomic.Uint64
}

// maxProbes bounds a lookup in a hashTable.
const maxProbes = 32

func newHashTable(n int) *hashTable {
	size := 64
	for size < n {
		size *= 2
	}
	return &hashTable{slots: make([]hashSlot, size), mask: uint64(size - 1)}
}

func (t *hashTable) start(key uint64) uint64 { return (key * 0x9e3779b97f4a7c15 >> 17) & t.mask }

// get returns the hash stored for key, if it is.
func (t *hashTable) get(key uint64) (uint64, bool) {
	i := t.start(key)
	for range maxProbes {
		switch t.slots[i].key.Load() {
		case key:
			h := t.slots[i].hash.Load()
			return h, h != 0
		case 0:
			return 0, false
		}
		i = (i + 1) & t.mask
	}
	return 0, false
}

// put stores h (not 0) for key, and reports whether it could (not when the slots it may
// take are full).
func (t *hashTable) put(key, h uint64) bool {
	if t.full.Load() {
		return false
	}
	i := t.start(key)
	for range maxProbes {
		sl := &t.slots[i]
		k := sl.key.Load()
		if k == 0 && sl.key.CompareAndSwap(0, key) {
			k = key
		} else if k == 0 {
			k = sl.key.Load() // another goroutine claimed it first
		}
		if k == key {
			sl.hash.Store(h)
			return true
		}
		i = (i + 1) & t.mask
	}
	t.full.Store(true)
	return false
}

// shell returns the body of s, made when first asked for with what a conjunction's
// closure needs: whether it is a boolean schema, $ref, a static $dynamicRef/$recursiveRef,
// allOf.
func (t *Bodies) shell(s *schema.Schema) *Body {
	id, i := s.Index()
	for k := range t.tabs {
		if tab := &t.tabs[k]; tab.id == id && i < len(tab.bodies) {
			if b := tab.bodies[i].Load(); b != nil {
				return b
			}
			b := newBody(s)
			if tab.bodies[i].CompareAndSwap(nil, b) {
				return b
			}
			return tab.bodies[i].Load()
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.other[s]; ok {
		return b
	}
	if t.other == nil {
		t.other = map[*schema.Schema]*Body{}
	}
	b := newBody(s)
	t.other[s] = b
	return b
}

// newBody makes the body of s with what its shell needs (bodies.shell).
func newBody(s *schema.Schema) *Body {
	b := &Body{S: s, draft: s.Draft.Version, v: s.Value(), pieces: &noPieces}
	if v, isBool := s.Bool(); isBool {
		b.IsBool, b.boolVal = true, v
		return b
	}
	b.ref = s.Ref()
	if t, dyn := s.DynamicRef(); t != nil {
		if dyn {
			b.dynamic = true
		} else {
			b.dynRefs = append(b.dynRefs, t)
		}
	}
	if b.draft <= 7 && b.ref != nil {
		return b // siblings of $ref are ignored in drafts 4 to 7
	}
	_, b.hasAll = b.v.Get("allOf")
	return b
}

type patProp struct {
	Src string
	S   *schema.Schema
}

type Annotation struct {
	Kw string
	V  source.Value
}

// factKind names one kind of constraint.
type FactKind uint8

const (
	FFalse       FactKind = iota // the schema is false: nothing is valid
	FType                        // types
	FEnum                        // vals (enum, or const as a one-element list)
	FLower                       // b
	FUpper                       // b
	FMultipleOf                  // r
	FMinLength                   // i
	FMaxLength                   // i
	FPattern                     // str
	FFormat                      // str (only when asserted)
	FContent                     // str: "contentEncoding=base64" or "contentMediaType=application/json" (draft 7)
	FMinItems                    // i
	FMaxItems                    // i
	FUnique                      //
	FItem                        // i (position), s
	FTail                        // i (first position), s: items after the prefix
	FContains                    // s, i = min, j = max (-1: none)
	FMinProps                    // i
	FMaxProps                    // i
	FRequired                    // str
	FProp                        // str (name), s
	FPatternProp                 // str (pattern), s
	FAdditional                  // s; applies to names not in n.props and not matching n.patterns
	FPropNames                   // s
	FDepRequired                 // str (trigger), list
	FDepSchema                   // str (trigger), s
	FUnevalProps                 // s
	FUnevalItems                 // s
	FAnyOf                       // subs
	FOneOf                       // subs
	FNot                         // s
	FCond                        // subs = [if, then or nil, else or nil]
	FDynamic                     // an unresolved dynamic reference
	FLoop                        // the schema lies on a loop of in-place applicators (schema.InPlaceLoop)
	FUnread                      // kw: a keyword of the model that acts on instances and that readNode does not read

	NFactKinds // the number of kinds
)

// fact is one constraint of one schema object.
type Fact struct {
	Kind  FactKind
	Types schema.TypeSet
	N     *Body
	kw    string // the keyword's pointer relative to the schema, escaped ("maxLength"); see keyword
	Vals  []source.Value
	B     *Bound
	R     *big.Rat
	I, J  int
	Str   string
	List  []string
	S     *schema.Schema
	Subs  []*schema.Schema
}

// factMatch is what matchScore compares validation errors with, for one fact.
type FactMatch struct {
	Loc    string // the fact's location()
	Ploc   string // for required: the location of the keyword itself
	Quoted string // for required: the quoted name
}

// kindOf is the instance class a fact constrains (schema.TypeAll for applicators).
func (f *Fact) KindOf() schema.TypeSet {
	switch f.Kind {
	case FLower, FUpper, FMultipleOf:
		return schema.TypeNumber
	case FMinLength, FMaxLength, FPattern, FFormat, FContent:
		return schema.TypeString
	case FMinItems, FMaxItems, FUnique, FItem, FTail, FContains, FUnevalItems:
		return schema.TypeArray
	case FMinProps, FMaxProps, FRequired, FProp, FPatternProp, FAdditional, FPropNames, FDepRequired, FDepSchema, FUnevalProps:
		return schema.TypeObject
	}
	return schema.TypeAll
}

// kw returns a keyword's value when the dialect applies it, from the node's cached value.
func (n *Body) Kw(kw string) (source.Value, bool) {
	if n.IsBool {
		return source.Value{}, false
	}
	v, ok := n.v.Get(kw)
	if !ok || n.S.Ignored(kw) {
		return source.Value{}, false
	}
	return v, true
}

// raw returns a keyword's value whether or not the dialect applies it.
func (n *Body) Raw(kw string) (source.Value, bool) {
	if n.IsBool {
		return source.Value{}, false
	}
	return n.v.Get(kw)
}

func countOf(v source.Value) (int, bool) {
	if v.Kind() != source.Number {
		return 0, false
	}
	d := v.Num()
	if !d.IsInteger() || d.Sign() < 0 {
		return 0, false
	}
	n, ok := d.Int64()
	if !ok || n > 1<<31 {
		return 1 << 31, true
	}
	return int(n), true
}

// shell returns the node of s, made when first met (which fixes its id) on the body
// the comparison's engines share. A body with allOf has its keywords read at once (allOf
// comes with the other subschemas); the others are read on first use (node, and the parts
// of a conjunction): a proof that finds two conjunctions the same never needs them.
func (e *Engine) Shell(s *schema.Schema) *Node {
	id, i := s.Index()
	t := e.nodeTab(id, s)
	t.nodes = reach(t.nodes, i)
	if n := t.nodes[i]; n != nil {
		return n
	}
	n := &Node{Body: e.Bodies.shell(s), Id: e.nNodes}
	e.nNodes++
	t.nodes[i] = n
	if n.hasAll {
		e.read(n.Body)
	}
	return n
}

// read reads the keywords of b once, whichever engine asks first.
func (e *Engine) read(b *Body) {
	if b.done.Load() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done.Load() {
		return
	}
	// the facts are gathered in a scratch slice and copied once, at their final size
	b.Facts = e.factBuf[:0]
	e.readNode(b)
	e.factBuf = b.Facts[:0]
	b.Facts = slices.Clone(b.Facts)
	if len(b.Facts) == 0 {
		b.Facts = nil
	}
	for i := range b.Facts {
		if IsGroup(b.Facts[i].Kind) {
			b.nGroups++
		}
	}
	b.ForbidsNames = forbidsNames(b)
	b.done.Store(true)
}

// forbidsNames reports a body that may forbid a property by its name, as partSchemas
// decides it: the body is false, or a property, pattern, additional or unevaluated
// properties schema of it is false. A conjunction none of whose parts does forbids no
// property (noObject asks no further).
func forbidsNames(b *Body) bool {
	if b.IsBool {
		return !b.boolVal
	}
	if b.Additional != nil && isFalse(b.Additional) || b.UnevalP != nil && isFalse(b.UnevalP) {
		return true
	}
	for _, s := range b.Props {
		if isFalse(s) {
			return true
		}
	}
	for _, p := range b.Patterns {
		if isFalse(p.S) {
			return true
		}
	}
	return false
}

// defaultsOf returns the defaults of n's properties (property name -> default), for the
// reader-defaults policy. They are read on first use, by each engine for itself: building
// the nodes of every property subtree up front would cost the walk as much as the
// comparison itself.
func (e *Engine) DefaultsOf(n *Body) map[string]source.Value {
	if d, ok := e.defaults[n]; ok {
		return d
	}
	var d map[string]source.Value
	for _, k := range n.PropOrder {
		if v, ok := e.Node(n.Props[k]).Kw("default"); ok {
			if d == nil {
				d = map[string]source.Value{}
			}
			d[k] = v
		}
	}
	e.defaults[n] = d
	return d
}

// annotationKeywords are reported at --level docs.
var AnnotationKeywords = []string{"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}

func dynKw(s *schema.Schema) string {
	if _, ok := s.Keyword("$dynamicRef"); ok {
		return "$dynamicRef"
	}
	return "$recursiveRef"
}

func Itoa(i int) string {
	if i >= 0 && i < 10 {
		return string(rune('0' + i))
	}
	var b [20]byte
	p := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}

// patternMatches tells whether a property name matches a patternProperties source, with
// jstk's own ECMA-262 matcher.
func (e *Engine) PatternMatches(src, name string) bool {
	k := [2]string{src, name}
	if m, ok := e.matchMemo[k]; ok {
		return m
	}
	m := e.patternMatch(src, name)
	e.matchMemo[k] = m
	return m
}

func (e *Engine) patternMatch(src, name string) bool {
	re, ok := e.regexps[src]
	if !ok {
		r, err := schema.CompileRegexp(src, e.regexTimeout)
		if err != nil {
			r = nil
		}
		e.regexps[src] = r
		re = r
	}
	if re == nil {
		return false
	}
	m, err := re.MatchContext(e.Ctx, name)
	return err == nil && m
}

// keyword is the path of a fact's keyword relative to its schema ("" for the schema
// itself). A property's is made when asked: most are never shown.
func (f *Fact) Keyword() string {
	if f.Kind == FProp {
		return "properties/" + source.EscapeToken(f.Str)
	}
	return f.kw
}

// pointer is the JSON Pointer of a fact's keyword in its document.
func (f *Fact) Pointer() string {
	_, p := f.N.S.Pointer()
	if kw := f.Keyword(); kw != "" {
		return p + "/" + kw
	}
	return p
}

// location is the fact's absolute keyword location, as the validator reports it.
func (f *Fact) Location() string {
	if kw := f.Keyword(); kw != "" {
		return f.N.S.Location() + "/" + kw
	}
	return f.N.S.Location()
}

// kwName is the keyword of a fact (the first token of its path).
func (f *Fact) KwName() string {
	if f.Kind == FProp {
		return "properties"
	}
	k, _, _ := strings.Cut(f.kw, "/")
	return k
}
