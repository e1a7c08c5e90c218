package coverage

import (
	"context"
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Kind is one of the four measures of coverage.
type Kind string

// The four kinds of coverage.
const (
	// Subschemas: each subschema of the schema's files reached by some evaluation; a
	// $defs (or definitions) entry that nothing references is reported as dead.
	Subschemas Kind = "subschemas"
	// Keywords: each keyword that constrains instances applied to a value it can act on (a
	// minLength seen only on numbers does not count).
	Keywords Kind = "keywords"
	// Outcomes: each assertion seen passing and seen failing decisively in an
	// expected-invalid test; each anyOf/oneOf branch selected by a valid instance; if taken
	// both ways; each dependentRequired entry triggered and not; contains matched.
	Outcomes Kind = "outcomes"
	// Values: each enum/const value matched; each type member seen; each required property
	// omitted in an invalid test; each optional property present and absent.
	Values Kind = "values"
)

// Kinds lists the kinds in report order.
var Kinds = []Kind{Subschemas, Keywords, Outcomes, Values}

// KindByName reads a kind's name.
func KindByName(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// item is one thing that can be covered.
type item struct {
	kind  Kind
	entry int    // the entry (row) it belongs to
	label string // "reached", "applied", "pass", "fail", "branch 0", `"red"`, ...
	line  int    // where it is in its file (lcov)
}

// entry is one row of the report: a subschema, or one keyword of it.
type entry struct {
	info    *sinfo
	keyword string // "" for the subschema itself
	line    int
	col     int
	dead    bool
	items   []int
}

// kwID numbers the keywords the evaluator reports events at (schema.Keyword.Traced), from
// 1 in the keyword model's order, for fast dispatch: an index of sinfo.kw and a bit of
// run.seen. kwNone is every other keyword.
type kwID uint8

// kwNone is the number of the keywords without events; maxKwID the greatest number
// (run.seen has a bit for each).
const (
	kwNone  kwID = 0
	maxKwID kwID = 31
)

// kwIDs numbers the traced keywords of the model; kwRequired is required's number. They
// are made by numberKeywords when the first model is (newModel), not at every start of
// jstk: reading the keyword model costs a fraction of a millisecond.
var (
	kwOnce     sync.Once
	kwIDs      map[string]kwID
	kwRequired kwID
	kwByLen    [32][]kwName
)

func numberKeywords() {
	kwIDs = tracedIDs()
	kwRequired = kwIDs["required"]
	kwByLen = byLength(kwIDs)
}

// kwName is a keyword's name with its number.
type kwName struct {
	name string
	id   kwID
}

// byLength lists the numbered keywords by the length of their names, for kwIDOf.
func byLength(ids map[string]kwID) (out [32][]kwName) {
	for name, id := range ids {
		if len(name) < len(out) {
			out[len(name)] = append(out[len(name)], kwName{name, id})
		}
	}
	return out
}

// kwIDOf is kwIDs[kw] for the tracer's hot path, without hashing: a few names of kw's
// length compared.
func kwIDOf(kw string) kwID {
	if len(kw) >= len(kwByLen) {
		return kwIDs[kw]
	}
	for _, k := range kwByLen[len(kw)] {
		if k.name == kw {
			return k.id
		}
	}
	return kwNone
}

// tracedIDs numbers the model's traced keywords. A model with more than maxKwID of them
// stops the program at its start, saying so: coverage would miss keywords otherwise.
func tracedIDs() map[string]kwID {
	names := schema.KeywordNames(schema.AllDrafts|schema.InOpenAPI30, func(k *schema.Keyword) bool { return k.Traced })
	if len(names) > int(maxKwID) {
		panic(fmt.Sprintf("coverage: the keyword model has %d traced keywords, coverage numbers %d: raise maxKwID", len(names), maxKwID))
	}
	ids := make(map[string]kwID, len(names))
	for i, name := range names {
		ids[name] = kwID(i + 1)
	}
	return ids
}

// childKeyword reports an applicator whose application shows only as its subschema being
// reached (the evaluator reports no event of its own: not Traced).
func childKeyword(d *schema.Draft, kw string) bool {
	k, ok := d.Keyword(kw)
	return ok && k.Kind == schema.Applicator && !k.Traced
}

// kwItems are the items of one keyword of one schema (-1: none).
type kwItems struct {
	applied, pass, fail int
}

// depEntry is one entry of dependentRequired (or an array entry of dependencies), in the
// order the evaluator reports them.
type depEntry struct {
	kw, prop     string
	trig, notTrg int
}

// sinfo is what coverage knows of one subschema of the schema's files.
type sinfo struct {
	s       *schema.Schema
	file    string
	ptr     string
	id      int              // index in model.infos
	key     string           // file and pointer, for ordering
	raw     source.Value     // the schema's value
	dead    *source.Document // set for a $defs entry nothing compiled (s is nil)
	ignored bool
	ignKw   map[string]bool // keywords excluded by x-coverage-ignore

	reached int
	kw      [maxKwID + 1]kwItems
	other   map[string]int // applied items of keywords without events ($ref, child keywords)
	// closedFail are the "rejected a property" outcomes of additionalProperties and
	// unevaluatedProperties when they are false.
	closedFail map[string]int
	childItems map[string]*int // applied items of the child keywords (childKeyword)

	typeMembers []string
	typeItems   []int
	enumItems   []int
	constItem   int
	reqNames    names // the required properties
	reqOmit     []int // their "omitted" items
	optional    names // the properties not required
	optPresent  []int
	optAbsent   []int
	// closedApplied are the applied items of a false additionalProperties or
	// unevaluatedProperties; bodyItems those of $dynamicRef and $recursiveRef (applied
	// whenever the schema's keywords are evaluated past its type); refApplied that of $ref.
	closedApplied []int
	bodyItems     []int
	refApplied    int
	anyOfItems    []int
	oneOfItems    []int
	ifThen        int
	ifElse        int
	deps          []depEntry        // evaluator order
	depIndex      map[string]int    // kw NUL prop -> index in deps
	depItems      map[string][2]int // kw NUL prop -> triggered, not triggered
}

// MaxDepth is the deepest a measured subschema lies: the number of reference tokens of
// its JSON Pointer. The model keeps each measured schema's pointer, and a document nested
// thousands of levels deep has too many long ones (their lengths add up to the square of
// its depth); below this depth schemas are left out and counted (Result.Unmeasured).
const MaxDepth = 200

// model is the static list of everything that can be covered.
type model struct {
	ctx      context.Context // nil: never stopped; the walks stop when it is done
	steps    int             // schemas walked, to look at ctx every 1,024
	stopped  bool            // ctx was found done: the walks go no further
	root     *schema.Schema
	items    []item
	entries  []entry
	byLoc    map[string]*sinfo
	infos    []*sinfo
	compiled map[string]bool // file NUL pointer of every compiled schema
	files    map[string]bool // the measured files
	external map[string]bool // files reached through the resolve map
	resolve  map[string]string
	rootDoc  *source.Document
	tooDeep  int // the schemas of the measured files deeper than MaxDepth, left out

	ignores []ignore
}

// ignore leaves out a subtree of a file.
type ignore struct {
	file string // "" for the root schema's file
	ptr  string
}

func newModel(root *schema.Schema, resolve map[string]string) *model {
	kwOnce.Do(numberKeywords)
	return &model{root: root, byLoc: map[string]*sinfo{}, files: map[string]bool{}, external: map[string]bool{},
		resolve: resolve, rootDoc: root.Document()}
}

// measured reports whether a compiled schema lies in the measured files: the root
// schema's document and the files it references by path or by the $id of a workspace
// schema. Not measured: the built-in meta-schemas, and files reached through the resolve
// map (remote URIs mapped to files: dependencies, not the schema under test). The root's
// compilation decides which files those are; other compilations (the tests' targets) only
// add schemas of those files.
func (m *model) measured(t *schema.Schema, root bool) bool {
	f := t.File()
	if root {
		if t.Document() == m.rootDoc {
			return true
		}
		if f == "" {
			return false
		}
		ext, seen := m.external[f]
		if !seen {
			ext = m.mapped(t)
			m.external[f] = ext
		}
		return !ext
	}
	return f != "" && m.files[f]
}

// mapped reports whether t's document was reached through the resolve map: its URI (the
// root's $id, else the URI it was loaded from) is a key of the map or lies under a key
// ending in "/".
func (m *model) mapped(t *schema.Schema) bool {
	uri := ""
	for _, k := range schema.BaseURIKeywords() {
		if v, ok := t.Document().Root.Get(k); ok && v.Kind() == source.String {
			uri = v.Str()
			break
		}
	}
	if uri == "" {
		uri = t.BaseURI()
	}
	uri, _, _ = strings.Cut(uri, "#")
	for key := range m.resolve {
		k := strings.TrimSuffix(key, "#")
		if uri == k || (strings.HasSuffix(k, "/") && strings.HasPrefix(uri, k)) {
			return true
		}
	}
	return false
}

// add records every measured schema reachable from t (a schema of any compilation), and
// returns the view translating that compilation's schemas. The root schema is added first.
func (m *model) add(t *schema.Schema) *view {
	root := t == m.root
	v := &view{nodes: map[*schema.Schema]*node{}}
	schema.Walk(t, func(x *schema.Schema) bool {
		if m.steps++; m.stopped || m.steps&1023 == 0 && m.ctx != nil && m.ctx.Err() != nil {
			m.stopped = true
			return false // no further: Measure reports the context's end
		}
		if !m.measured(x, root) {
			// The root's walk stops at the built-in meta-schemas; a test's schema may lie
			// outside the measured files and reach into them.
			return !root
		}
		if x.Depth() > MaxDepth {
			// Not measured, but the walk goes on: it may reach measured schemas again.
			if root {
				m.tooDeep++
			}
			return true
		}
		if root {
			m.files[x.File()] = true
		}
		si := m.byLoc[x.Location()]
		if si == nil {
			file, ptr := x.Pointer()
			si = &sinfo{s: x, file: file, ptr: ptr}
			m.byLoc[x.Location()] = si
			m.infos = append(m.infos, si)
		}
		v.node(x).info = si
		return true
	})
	for x, n := range v.nodes {
		if n.info == nil {
			continue
		}
		for _, c := range x.Children() {
			if childKeyword(x.Draft, c.Keyword) {
				v.node(c.Schema).parent = n.info.childItem(c.Keyword)
			}
		}
	}
	v.index()
	return v
}

// node returns (making it) the view's node of a schema.
func (v *view) node(s *schema.Schema) *node {
	n := v.nodes[s]
	if n == nil {
		n = &node{}
		v.nodes[s] = n
	}
	return n
}

// childItem is where the applied item of a keyword that shows by its subschemas will be
// (it is numbered by finish, after the views are built).
func (si *sinfo) childItem(kw string) *int {
	if si.childItems == nil {
		si.childItems = map[string]*int{}
	}
	p, ok := si.childItems[kw]
	if !ok {
		p = new(int)
		*p = -1
		si.childItems[kw] = p
	}
	return p
}

// view translates the schemas of one compilation to the model.
type view struct {
	nodes map[*schema.Schema]*node
	// slots hold the nodes again, for the tracer, which looks up the schema of nearly
	// every event: an open-addressing table keyed by the schema's address, several times
	// faster than the map. shift keeps the hash's top bits.
	slots []slot
	shift uint
}

type slot struct {
	s *schema.Schema
	n *node
}

// index fills the slots, at most half full.
func (v *view) index() {
	size := 8
	for size < 2*len(v.nodes) {
		size *= 2
	}
	v.slots = make([]slot, size)
	v.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for s, n := range v.nodes {
		i := v.hash(s)
		for v.slots[i].s != nil {
			i = (i + 1) & (size - 1)
		}
		v.slots[i] = slot{s, n}
	}
}

// hash spreads a schema's address over the slots (Fibonacci hashing). Go's garbage
// collector does not move heap objects, so the address is stable.
func (v *view) hash(s *schema.Schema) int {
	return int(uint64(uintptr(unsafe.Pointer(s))) * 0x9E3779B97F4A7C15 >> v.shift)
}

// lookup returns a schema's node (nil when the compilation's walk did not reach it).
func (v *view) lookup(s *schema.Schema) *node {
	mask := len(v.slots) - 1
	for i := v.hash(s); ; i = (i + 1) & mask {
		sl := &v.slots[i]
		if sl.s == s {
			return sl.n
		}
		if sl.s == nil {
			return nil
		}
	}
}

// node is what the tracer needs of one schema of a compilation: its measured schema (nil
// when not measured), and for a subschema of a keyword that shows only by its subschemas
// being reached (items, allOf, then, ...), the applied item of that keyword.
type node struct {
	info   *sinfo
	parent *int
}

// finish decides what is ignored, finds dead $defs and numbers the items. It is called
// once every compilation has been added.
func (m *model) finish() {
	for _, si := range m.infos {
		si.key = sortKey(si.file, si.ptr)
		si.raw = si.s.Value()
	}
	sort.Slice(m.infos, func(i, j int) bool { return m.infos[i].key < m.infos[j].key })
	for i, si := range m.infos {
		si.id = i
	}
	// x-coverage-ignore: true leaves out a schema and everything under it; a keyword name
	// or a list of them leaves out those keywords.
	for _, si := range m.infos {
		v, ok := si.raw.Get("x-coverage-ignore")
		if !ok {
			continue
		}
		switch v.Kind() {
		case source.Bool:
			if v.Bool() {
				m.ignores = append(m.ignores, ignore{file: si.file, ptr: si.ptr})
			}
		case source.String:
			si.ignKw = map[string]bool{v.Str(): true}
		case source.Array:
			si.ignKw = map[string]bool{}
			for _, k := range v.Items() {
				si.ignKw[k.Str()] = true
			}
		}
	}
	m.compiled = map[string]bool{}
	for _, si := range m.infos {
		si.ignored = m.isIgnored(si.file, si.ptr)
		m.compiled[si.file+"\x00"+si.ptr] = true
	}
	// Dead definitions take their place among the schemas, in pointer order.
	nodes := append(append([]*sinfo(nil), m.infos...), m.findDead()...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].key < nodes[j].key })
	for _, si := range nodes {
		switch {
		case si.dead != nil:
			line, col := si.dead.Locate(si.ptr)
			e := len(m.entries)
			m.entries = append(m.entries, entry{info: si, line: line, col: col, dead: true})
			m.entries[e].items = []int{m.newItem(Subschemas, e, "reached", line)}
		case !si.ignored:
			m.addItems(si)
		}
	}
}

// sortKey orders schemas by file, then pointer, token by token, numbers as numbers (so
// that /a/2 comes before /a/10): tokens are separated by a byte below any character, and
// numbers are padded to 20 digits behind a byte that sorts them before names.
func sortKey(file, ptr string) string {
	b := make([]byte, 0, len(file)+len(ptr)+8)
	b = append(b, file...)
	for len(ptr) > 0 {
		ptr = ptr[1:] // the "/"
		tok := ptr
		if i := strings.IndexByte(ptr, '/'); i >= 0 {
			tok, ptr = ptr[:i], ptr[i:]
		} else {
			ptr = ""
		}
		b = append(b, 0)
		numeric := len(tok) > 0 && len(tok) <= 20
		for i := 0; i < len(tok) && numeric; i++ {
			numeric = tok[i] >= '0' && tok[i] <= '9'
		}
		if numeric {
			b = append(b, 1)
			for range 20 - len(tok) {
				b = append(b, '0')
			}
		}
		b = append(b, tok...)
	}
	return string(b)
}

func (m *model) isIgnored(file, ptr string) bool {
	for _, ig := range m.ignores {
		f := ig.file
		if f == "" {
			f = m.root.File()
		}
		if f == file && (ptr == ig.ptr || strings.HasPrefix(ptr, ig.ptr+"/") || ig.ptr == "") {
			return true
		}
	}
	return false
}

// findDead lists the $defs and definitions entries of measured schemas that were never
// compiled: nothing references them.
func (m *model) findDead() []*sinfo {
	var dead []*sinfo
	for _, si := range m.infos {
		if si.ignored {
			continue
		}
		for _, kw := range schema.DefinitionsKeywords() {
			defs, ok := si.raw.Get(kw)
			if !ok || defs.Kind() != source.Object {
				continue
			}
			for i := 0; i < defs.Len(); i++ {
				k, v := defs.Member(i)
				ptr := si.ptr + "/" + source.EscapeToken(kw) + "/" + source.EscapeToken(k.Str())
				if m.compiled[si.file+"\x00"+ptr] || m.isIgnored(si.file, ptr) {
					continue
				}
				if ig, ok := v.Get("x-coverage-ignore"); ok && ig.Kind() == source.Bool && ig.Bool() {
					continue
				}
				if v.Kind() != source.Object && v.Kind() != source.Bool {
					continue
				}
				dead = append(dead, &sinfo{file: si.file, ptr: ptr, key: sortKey(si.file, ptr), reached: -1, dead: si.s.Document()})
			}
		}
	}
	return dead
}

func (m *model) newItem(k Kind, e int, label string, line int) int {
	m.items = append(m.items, item{kind: k, entry: e, label: label, line: line})
	return len(m.items) - 1
}

// counted reports whether keyword kw of s (whose value is raw) constrains instances and
// is measured.
func counted(s *schema.Schema, raw source.Value, kw string) bool {
	k, ok := s.Draft.Keyword(kw)
	if !ok || s.Ignored(kw) {
		return false // not a keyword of the schema's draft (see schema.Keywords), or ignored
	}
	v, _ := raw.Get(kw)
	switch kw {
	case "format":
		return s.FormatAsserted()
	case "uniqueItems":
		return v.Kind() == source.Bool && v.Bool()
	case "minContains", "maxContains":
		return raw.Has("contains") && !s.Ignored("contains")
	case "additionalItems":
		items, ok := raw.Get("items")
		return ok && items.Kind() == source.Array
	case "$recursiveRef", "$dynamicRef":
		return true
	case "then", "else":
		return raw.Has("if") && !s.Ignored("if")
	case "required":
		return v.Kind() == source.Array && v.Len() > 0
	case "$ref":
		return s.Ref() != nil
	}
	// In draft 4 exclusiveMinimum and exclusiveMaximum are not Traced: booleans that
	// modify minimum and maximum, measured with them.
	return k.Traced || k.Kind == schema.Applicator
}

// addItems creates the entries and items of one schema.
func (m *model) addItems(si *sinfo) {
	s := si.s
	raw := si.raw
	doc := s.Document()
	line, col := doc.Position(raw.Offset())
	e := len(m.entries)
	m.entries = append(m.entries, entry{info: si, line: line, col: col})
	si.reached = m.newItem(Subschemas, e, "reached", line)
	m.entries[e].items = []int{si.reached}
	for i := range si.kw {
		si.kw[i] = kwItems{-1, -1, -1}
	}
	si.constItem, si.ifThen, si.ifElse, si.refApplied = -1, -1, -1, -1
	if raw.Kind() != source.Object {
		return
	}
	for i := 0; i < raw.Len(); i++ {
		k, v := raw.Member(i)
		kw := k.Str()
		if si.ignKw[kw] || !counted(s, raw, kw) {
			continue
		}
		m.addKeyword(si, raw, kw, k, v)
	}
	si.orderDeps(raw)
	for kw, p := range si.childItems {
		if it, ok := si.other[kw]; ok {
			*p = it
		}
	}
}

// addKeyword creates the entry and items of one keyword (key k, value v) of a schema.
func (m *model) addKeyword(si *sinfo, raw source.Value, kw string, k, v source.Value) {
	s := si.s
	doc := s.Document()
	line, col := doc.Position(k.Offset())
	e := len(m.entries)
	m.entries = append(m.entries, entry{info: si, keyword: kw, line: line, col: col})
	// add creates an item; at, when valid, is the value it is about (an enum value, a
	// property name), whose line it takes.
	add := func(kind Kind, label string, at source.Value) int {
		l := line
		if at.IsValid() {
			l, _ = doc.Position(at.Offset())
		}
		it := m.newItem(kind, e, label, l)
		m.entries[e].items = append(m.entries[e].items, it)
		return it
	}
	none := source.Value{}
	applied := add(Keywords, "applied", none)
	id := kwIDs[kw]
	if id != kwNone {
		si.kw[id].applied = applied
	} else {
		if si.other == nil {
			si.other = map[string]int{}
		}
		si.other[kw] = applied
	}
	switch kw {
	case "$ref":
		si.refApplied = applied
	case "$dynamicRef", "$recursiveRef":
		si.bodyItems = append(si.bodyItems, applied)
	}
	addOutcomes(si, s, raw, kw, v, id, applied, add)
	addValues(si, s, raw, kw, v, add)
}

// addOutcomes creates the outcome items of keyword kw (numbered id, value v) of a schema:
// the branches of anyOf and oneOf, then and else of if, the entries of the dependencies,
// the rejections of a closed object, and pass and fail of the other traced keywords that
// can fail.
func addOutcomes(si *sinfo, s *schema.Schema, raw source.Value, kw string, v source.Value, id kwID, applied int,
	add func(kind Kind, label string, at source.Value) int) {
	none := source.Value{}
	switch kw {
	case "contains":
		si.kw[id].pass = add(Outcomes, "matched", none)
		// With minContains 0 an array without a match passes: contains cannot fail.
		if mc, ok := raw.Get("minContains"); !ok || !counted(s, raw, "minContains") || mc.Num().Sign() != 0 {
			si.kw[id].fail = add(Outcomes, "fail", none)
		}
	case "anyOf", "oneOf":
		var branches []int
		for i, b := range v.Items() {
			branches = append(branches, add(Outcomes, "branch "+strconv.Itoa(i), b))
		}
		if kw == "anyOf" {
			si.anyOfItems = branches
		} else {
			si.oneOfItems = branches
		}
		si.kw[id].fail = add(Outcomes, "fail", none)
	case "if":
		if raw.Has("then") || raw.Has("else") {
			si.ifThen = add(Outcomes, "then", none)
			si.ifElse = add(Outcomes, "else", none)
		} else {
			si.ifThen = add(Outcomes, "true", none)
			si.ifElse = add(Outcomes, "false", none)
		}
	case "dependentRequired", "dependencies":
		hasArray := false
		for i := 0; i < v.Len(); i++ {
			dk, dv := v.Member(i)
			if dv.Kind() != source.Array {
				continue
			}
			hasArray = true
			if si.depItems == nil {
				si.depItems = map[string][2]int{}
			}
			q := strconv.Quote(dk.Str())
			si.depItems[kw+"\x00"+dk.Str()] = [2]int{add(Outcomes, q+" triggered", dk), add(Outcomes, q+" not triggered", dk)}
		}
		if hasArray {
			si.kw[id].fail = add(Outcomes, "fail", none)
		}
	case "additionalProperties", "unevaluatedProperties":
		if v.Kind() == source.Bool && !v.Bool() {
			if si.closedFail == nil {
				si.closedFail = map[string]int{}
			}
			si.closedFail[kw] = add(Outcomes, "rejected a property", none)
			si.closedApplied = append(si.closedApplied, applied)
		}
	default:
		// The other keywords the evaluator reports events at and that can fail (the
		// assertions, format asserted, not): outcomes pass and fail.
		if k, _ := s.Draft.Keyword(kw); id != kwNone && k.Fails {
			si.kw[id].pass = add(Outcomes, "pass", none)
			si.kw[id].fail = add(Outcomes, "fail", none)
		}
	}
}

// addValues creates the value items of keyword kw (value v) of a schema: the enum values,
// const, the members of type, the required and the optional properties.
func addValues(si *sinfo, s *schema.Schema, raw source.Value, kw string, v source.Value,
	add func(kind Kind, label string, at source.Value) int) {
	none := source.Value{}
	switch kw {
	case "enum":
		for _, ev := range v.Items() {
			si.enumItems = append(si.enumItems, add(Values, short(ev), ev))
		}
	case "const":
		si.constItem = add(Values, short(v), none)
	case "type":
		members := []source.Value{v}
		if v.Kind() == source.Array {
			members = v.Items()
		}
		for _, t := range members {
			si.typeMembers = append(si.typeMembers, t.Str())
			si.typeItems = append(si.typeItems, add(Values, t.Str(), t))
		}
	case "required":
		for _, r := range v.Items() {
			if si.reqNames.index(r.Str()) < 0 {
				si.reqNames.add(r.Str())
				si.reqOmit = append(si.reqOmit, add(Values, strconv.Quote(r.Str())+" omitted", r))
			}
		}
	case "properties":
		req := map[string]bool{}
		if rv, ok := raw.Get("required"); ok && counted(s, raw, "required") && !si.ignKw["required"] {
			for _, r := range rv.Items() {
				req[r.Str()] = true
			}
		}
		for i := 0; i < v.Len(); i++ {
			pk, _ := v.Member(i)
			name := pk.Str()
			if req[name] || si.optional.index(name) >= 0 {
				continue
			}
			q := strconv.Quote(name)
			si.optional.add(name)
			si.optPresent = append(si.optPresent, add(Values, q+" present", pk))
			si.optAbsent = append(si.optAbsent, add(Values, q+" absent", pk))
		}
	}
}

// orderDeps lists the required-list dependencies in the order the evaluator reports them:
// the array entries of dependencies, then those of dependentRequired (2019-09 and later),
// whether measured or not, so that an entry can be told by its position.
func (si *sinfo) orderDeps(raw source.Value) {
	s := si.s
	for _, kw := range []string{"dependencies", "dependentRequired"} {
		if _, ok := s.Draft.Keyword(kw); !ok || s.Ignored(kw) {
			continue
		}
		v, ok := raw.Get(kw)
		if !ok || v.Kind() != source.Object {
			continue
		}
		for i := 0; i < v.Len(); i++ {
			k, dv := v.Member(i)
			if dv.Kind() != source.Array {
				continue
			}
			d := depEntry{kw: kw, prop: k.Str(), trig: -1, notTrg: -1}
			if it, ok := si.depItems[kw+"\x00"+k.Str()]; ok {
				d.trig, d.notTrg = it[0], it[1]
			}
			if si.depIndex == nil {
				si.depIndex = map[string]int{}
			}
			si.depIndex[kw+"\x00"+k.Str()] = len(si.deps)
			si.deps = append(si.deps, d)
		}
	}
}

// names is a set of property names kept in order; index finds one by a linear scan while
// the set is small (faster than hashing, on the tracer's hot path), by a map beyond.
type names struct {
	list   []string
	byName map[string]int
}

const namesScan = 8

func (n *names) add(name string) {
	n.list = append(n.list, name)
	if len(n.list) > namesScan {
		if n.byName == nil {
			n.byName = make(map[string]int, len(n.list))
			for i, s := range n.list {
				n.byName[s] = i
			}
		}
		n.byName[name] = len(n.list) - 1
	}
}

func (n *names) index(name string) int {
	if n.byName != nil {
		if i, ok := n.byName[name]; ok {
			return i
		}
		return -1
	}
	for i, s := range n.list {
		if s == name {
			return i
		}
	}
	return -1
}

// short renders a value for a label, cut to a readable length.
func short(v source.Value) string {
	b := source.AppendJSON(nil, v)
	r := []rune(string(b))
	if len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return string(r)
}
