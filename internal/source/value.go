package source

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of JSON value. Invalid is the zero Value's kind: "no value".
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema name of the kind ("object", "number", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value of a parsed document, with the byte offset at which it starts.
//
// Values are immutable and cheap to copy. Strings are decoded; numbers keep their literal
// text so they stay exact (see Decimal). An object keeps its members in document order; a
// key that occurs twice keeps its last value, as JavaScript's JSON.parse does.
type Value struct {
	_ [0]func() // Values do not compare with ==; use Equal

	// ptr is, for a string or number, its text's first byte, and for an array or object,
	// its first child; n is then the text's length or the number of children (an object's
	// children are key, value, key, value, ..., the keys being String values). For a
	// boolean, n is 1 for true. meta holds the kind in its low 8 bits and the offset above.
	// This layout keeps a Value to three words with one pointer, which halves the memory
	// (and the garbage collector's work) of a parsed document compared to separate fields.
	ptr  unsafe.Pointer
	n    int
	meta uint64
}

// meta's low kindBits bits hold the kind, and the flag indexed; the offset lies above.
const (
	kindBits = 8
	kindMask = 1<<7 - 1
	indexed  = 1 << 7 // an object whose members are followed by an index of their names
)

// indexMin is the number of members above which an object is made with an index of its
// members by name, which Get consults instead of scanning them: resolving 30,000
// references into one $defs took 1.9 s, and 100,000 took 24 s.
const indexMin = 32

// memberIndex is the index of a large object's member names: a table of a power of two
// slots, at least twice as many as the members, each 0 (empty) or 1 + the place of a
// member (the first of a name), probed linearly from the name's hash. It holds no pointer
// and takes 4 bytes a slot (a map of the names took about four times as much, in several
// allocations). It rides in the slot after the members: Value{ptr: its first slot, n: its
// length}.
type memberIndex []int32

// indexSeed seeds the names' hash, so that names chosen to collide cannot be written down
// in advance.
var indexSeed = maphash.MakeSeed()

// newIndex returns an empty index for members members.
func newIndex(members int) memberIndex {
	size := 64
	for size < 2*members {
		size <<= 1
	}
	return make(memberIndex, size)
}

// find looks key up among the names of kids (key, value, key, value, ...): it returns the
// member's place, or -1 and the empty slot where key would go.
func (idx memberIndex) find(kids []Value, key string) (member, slot int) {
	mask := len(idx) - 1
	for j := int(maphash.String(indexSeed, key)) & mask; ; j = (j + 1) & mask {
		m := int(idx[j]) - 1
		if m < 0 {
			return -1, j
		}
		if kids[2*m].text() == key {
			return m, j
		}
	}
}

// indexOf returns the index of the names of kids, the first of a name winning.
func indexOf(kids []Value) memberIndex {
	idx := newIndex(len(kids) / 2)
	for i := 0; i < len(kids); i += 2 {
		if m, slot := idx.find(kids, kids[i].text()); m < 0 {
			idx[slot] = int32(i/2 + 1)
		}
	}
	return idx
}

// indexSlot is the Value that carries idx after an object's members.
func indexSlot(idx memberIndex) Value {
	return Value{ptr: unsafe.Pointer(unsafe.SliceData(idx)), n: len(idx)}
}

func mkText(k Kind, off int, s string) Value {
	return Value{ptr: unsafe.Pointer(unsafe.StringData(s)), n: len(s), meta: uint64(off)<<kindBits | uint64(k)}
}

func mkKids(k Kind, off int, kids []Value) Value {
	meta := uint64(off)<<kindBits | uint64(k)
	if k == Object && len(kids) > 2*indexMin {
		// The index rides after the members, in a slot of their own array that elems does
		// not show: Values stay three words, and parsed documents stay immutable.
		withIdx := make([]Value, len(kids)+1)
		copy(withIdx, kids)
		withIdx[len(kids)] = indexSlot(indexOf(kids))
		kids, meta = withIdx[:len(kids)], meta|indexed
	}
	return Value{ptr: unsafe.Pointer(unsafe.SliceData(kids)), n: len(kids), meta: meta}
}

func mkBool(off int, b bool) Value {
	v := Value{meta: uint64(off)<<kindBits | uint64(Bool)}
	if b {
		v.n = 1
	}
	return v
}

func mkNull(off int) Value { return Value{meta: uint64(off)<<kindBits | uint64(Null)} }

// text returns the text of a string or number (and "" for other kinds).
func (v Value) text() string {
	if k := v.Kind(); k != String && k != Number {
		return ""
	}
	return unsafe.String((*byte)(v.ptr), v.n)
}

// elems returns the children of an array or object (nil for other kinds).
func (v Value) elems() []Value {
	if k := v.Kind(); k != Array && k != Object {
		return nil
	}
	return unsafe.Slice((*Value)(v.ptr), v.n)
}

// Kind reports the value's JSON type.
func (v Value) Kind() Kind { return Kind(v.meta & kindMask) }

// IsValid reports whether v holds a value (the zero Value does not).
func (v Value) IsValid() bool { return v.Kind() != Invalid }

// Offset is the byte offset of the value's first byte in its document.
func (v Value) Offset() int { return int(v.meta >> kindBits) }

// Bool returns the value of a boolean.
func (v Value) Bool() bool { return v.Kind() == Bool && v.n != 0 }

// Str returns the decoded text of a string, or the literal of a number.
func (v Value) Str() string { return v.text() }

// Num returns the exact decimal of a number (the zero Decimal for other kinds).
func (v Value) Num() Decimal {
	if v.Kind() != Number {
		return Decimal{}
	}
	d, _ := ParseDecimal(v.text())
	return d
}

// Len is the number of items of an array or members of an object.
func (v Value) Len() int {
	switch v.Kind() {
	case Array:
		return len(v.elems())
	case Object:
		return len(v.elems()) / 2
	}
	return 0
}

// Items returns an array's items; the slice must not be modified.
func (v Value) Items() []Value {
	if v.Kind() != Array {
		return nil
	}
	return v.elems()
}

// Index returns the i-th item of an array.
func (v Value) Index(i int) Value { return v.elems()[i] }

// Member returns the i-th member of an object: its key (a String value carrying the key's
// offset) and its value.
func (v Value) Member(i int) (key, val Value) {
	kids := v.elems()
	return kids[2*i], kids[2*i+1]
}

// Key returns the i-th key of an object.
func (v Value) Key(i int) string { return v.elems()[2*i].text() }

// Get returns the member value for key, and whether it is present.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind() != Object {
		return Value{}, false
	}
	kids := v.elems()
	if v.meta&indexed != 0 {
		slot := unsafe.Slice((*Value)(v.ptr), v.n+1)[v.n]
		if m, _ := memberIndex(unsafe.Slice((*int32)(slot.ptr), slot.n)).find(kids, key); m >= 0 {
			return kids[2*m+1], true
		}
		return Value{}, false
	}
	for i := 0; i < len(kids); i += 2 {
		if kids[i].text() == key {
			return kids[i+1], true
		}
	}
	return Value{}, false
}

// Has reports whether an object has a member named key.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// At follows JSON Pointer reference tokens (already unescaped) from v.
func (v Value) At(tokens ...string) (Value, bool) {
	for _, t := range tokens {
		switch v.Kind() {
		case Object:
			c, ok := v.Get(t)
			if !ok {
				return Value{}, false
			}
			v = c
		case Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.elems()) || (len(t) > 1 && t[0] == '0') || t[0] == '+' {
				return Value{}, false
			}
			v = v.elems()[i]
		default:
			return Value{}, false
		}
	}
	return v, true
}

// Pointer resolves a JSON Pointer ("" is the whole value, "/a/0" a member's first item).
func (v Value) Pointer(ptr string) (Value, bool) {
	toks, ok := SplitPointer(ptr)
	if !ok {
		return Value{}, false
	}
	return v.At(toks...)
}

// Constructors, for values built in code (offsets are zero).

// NullValue returns JSON null.
func NullValue() Value { return mkNull(0) }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value { return mkBool(0, b) }

// StringValue returns a JSON string.
func StringValue(s string) Value { return mkText(String, 0, s) }

// NumberValue returns a JSON number from its literal; the literal must be valid JSON number
// syntax (see IsNumberLiteral).
func NumberValue(literal string) Value { return mkText(Number, 0, literal) }

// IntValue returns a JSON number holding i.
func IntValue(i int64) Value { return mkText(Number, 0, strconv.FormatInt(i, 10)) }

// ArrayValue returns a JSON array of items.
func ArrayValue(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return mkKids(Array, 0, items)
}

// ObjectBuilder accumulates the members of an object in order.
type ObjectBuilder struct {
	kids  []Value
	names map[string]int // the place of each key in kids, once there are more than indexMin
}

// Set appends a member, or replaces the value of an existing key in place.
func (b *ObjectBuilder) Set(key string, val Value) {
	if b.names != nil {
		if i, ok := b.names[key]; ok {
			b.kids[i+1] = val
			return
		}
		b.names[key] = len(b.kids)
		b.kids = append(b.kids, StringValue(key), val)
		return
	}
	for i := 0; i < len(b.kids); i += 2 {
		if b.kids[i].text() == key {
			b.kids[i+1] = val
			return
		}
	}
	b.kids = append(b.kids, StringValue(key), val)
	if len(b.kids) > 2*indexMin {
		b.names = make(map[string]int, len(b.kids))
		for i := 0; i < len(b.kids); i += 2 {
			b.names[b.kids[i].text()] = i
		}
	}
}

// Value returns the object built so far. Later calls of Set do not change it.
func (b *ObjectBuilder) Value() Value {
	return mkKids(Object, 0, slices.Clone(b.kids))
}

// WithMember returns a copy of the object v whose i-th member has the value val; the keys,
// the other members and their offsets are kept, so a document rewritten in part still
// locates what it kept.
func (v Value) WithMember(i int, val Value) Value {
	kids := slices.Clone(v.elems())
	kids[2*i+1] = val
	return mkKids(Object, v.Offset(), kids)
}

// WithoutMember returns a copy of the object v without its i-th member, keeping the
// offsets of the others.
func (v Value) WithoutMember(i int) Value {
	kids := slices.Delete(slices.Clone(v.elems()), 2*i, 2*i+2)
	return mkKids(Object, v.Offset(), kids)
}

// WithOffset returns v with its offset set to off.
func (v Value) WithOffset(off int) Value {
	v.meta = uint64(off)<<kindBits | v.meta&(1<<kindBits-1)
	return v
}

// plainInt reports whether s is an integer written -?(0|[1-9][0-9]*), the one way to
// write its value but for the sign of 0.
func plainInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Hash hashes v with seed so that Equal values hash alike: numbers by their exact value
// (1, 1.0 and 1e0 alike), objects whatever the order of their members.
func Hash(seed maphash.Seed, v Value) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	writeHash(&h, v)
	return h.Sum64()
}

func writeHash(h *maphash.Hash, v Value) {
	h.WriteByte(byte(v.Kind()))
	switch v.Kind() {
	case Bool:
		if v.Bool() {
			h.WriteByte(1)
		}
	case String:
		h.WriteString(v.Str())
	case Number:
		h.WriteString(v.Num().String())
	case Array:
		for _, it := range v.Items() {
			writeHash(h, it)
		}
	case Object:
		var sum uint64
		for i := 0; i < v.Len(); i++ {
			k, val := v.Member(i)
			var mh maphash.Hash
			mh.SetSeed(h.Seed())
			mh.WriteString(k.Str())
			writeHash(&mh, val)
			sum += mh.Sum64()
		}
		var b [8]byte
		for i := range b {
			b[i] = byte(sum >> (8 * i))
		}
		h.Write(b[:])
	}
}

// Equal reports whether a and b are the same JSON value: numbers compare by mathematical
// value (1 equals 1.0), object members regardless of order.
func Equal(a, b Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case Null, Invalid:
		return true
	case Bool:
		return a.Bool() == b.Bool()
	case String:
		return a.text() == b.text()
	case Number:
		at, bt := a.text(), b.text()
		if at == bt {
			return true
		}
		if plainInt(at) && plainInt(bt) {
			// two integers written without leading zeros are equal only as the same text,
			// or as 0 and -0
			return strings.TrimPrefix(at, "-") == "0" && strings.TrimPrefix(bt, "-") == "0"
		}
		return a.Num().Cmp(b.Num()) == 0
	case Array:
		ak, bk := a.elems(), b.elems()
		if len(ak) != len(bk) {
			return false
		}
		for i := range ak {
			if !Equal(ak[i], bk[i]) {
				return false
			}
		}
		return true
	case Object:
		ak, bk := a.elems(), b.elems()
		if len(ak) != len(bk) {
			return false
		}
		for i := 0; i < len(ak); i += 2 {
			bv, ok := b.Get(ak[i].text())
			if !ok || !Equal(ak[i+1], bv) {
				return false
			}
		}
		return true
	}
	return false
}

// SplitPointer splits a JSON Pointer into unescaped reference tokens. It reports false when
// ptr is neither empty nor starts with "/", or holds an invalid "~" escape.
func SplitPointer(ptr string) ([]string, bool) {
	if ptr == "" {
		return nil, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var sb strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				sb.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, false
			}
			if t[j+1] == '0' {
				sb.WriteByte('~')
			} else {
				sb.WriteByte('/')
			}
			j++
		}
		toks[i] = sb.String()
	}
	return toks, true
}

// EscapeToken escapes one JSON Pointer reference token ("~" -> "~0", "/" -> "~1").
func EscapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return tokenEscaper.Replace(t)
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// A Trail is a JSON Pointer kept as the trail before it and the rest (Rel, escaped, "" or
// starting with "/"), for walks over a document that need the pointers of few of the places
// they go through: the pointers of every place of a document nested thousands of levels
// deep take space quadratic in its depth, their trails linear. The nil Trail is the root.
type Trail struct {
	Up  *Trail
	Rel string
}

// String returns the JSON Pointer, made in time proportional to its length.
func (t *Trail) String() string {
	n := 0
	for x := t; x != nil; x = x.Up {
		n += len(x.Rel)
	}
	b := make([]byte, n)
	for x := t; x != nil; x = x.Up {
		n -= len(x.Rel)
		copy(b[n:], x.Rel)
	}
	return string(b)
}

// JoinPointer builds a JSON Pointer from unescaped tokens.
func JoinPointer(tokens ...string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(EscapeToken(t))
	}
	return sb.String()
}

// Identity returns a number that identifies a non-empty array or object for as long as its
// document lives (0 for other values): evaluation uses it to remember verdicts.
func (v Value) Identity() uintptr {
	if k := v.Kind(); (k == Array || k == Object) && v.n > 0 {
		return uintptr(v.ptr)
	}
	return 0
}

// NothingAt says that the document name, whose root is root, has nothing at the JSON
// Pointer ptr, and what the nearest place that exists holds (its first 20 keys).
func NothingAt(name string, root Value, ptr string) string {
	toks, _ := SplitPointer(ptr)
	at, v := "", root
	for _, t := range toks {
		next, ok := v.At(t)
		if !ok {
			break
		}
		at += "/" + EscapeToken(t)
		v = next
	}
	msg := fmt.Sprintf("%s has nothing at #%s", name, ptr)
	if v.Kind() == Object && v.Len() > 0 {
		var keys []string
		for i := 0; i < v.Len() && i < 20; i++ {
			keys = append(keys, v.Key(i))
		}
		if v.Len() > 20 {
			keys = append(keys, fmt.Sprintf("... (%d more)", v.Len()-20))
		}
		where := "#" + at
		if at == "" {
			where = "its root"
		}
		msg += fmt.Sprintf("; %s holds: %s", where, strings.Join(keys, ", "))
	}
	return msg
}
