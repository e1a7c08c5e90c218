package source

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// ParseJSON parses one JSON document. Errors are *Error values naming name, line and column.
// A UTF-8 byte order mark at the start is skipped. The document keeps its own copy of src,
// so the caller may reuse src afterwards. With lim.JSONC, comments and trailing commas are
// accepted (see ParseJSONC). An error that JSONC or NDJSON would not have made says so: a
// comment or a trailing comma, several documents one after the other.
func ParseJSON(name string, src []byte, lim *Limits) (*Document, error) {
	if lim != nil && lim.JSONC && !isNDJSONName(name) {
		return ParseJSONC(name, src, lim)
	}
	return parseJSON(name, src, lim, false, false)
}

// ParseJSONShared is ParseJSON for a src that is never modified afterwards: the document
// shares src's memory instead of keeping a copy of it (a line of an NDJSON file read into
// a buffer of its own).
func ParseJSONShared(name string, src []byte, lim *Limits) (*Document, error) {
	if lim != nil && lim.JSONC && !isNDJSONName(name) {
		return ParseJSONC(name, src, lim)
	}
	return parseJSON(name, src, lim, false, true)
}

// ParseJSONC parses one JSONC document ("JSON with comments", as VS Code and TypeScript
// read tsconfig.json and settings.json): JSON with // and /* */ comments and a trailing
// comma allowed after the last member of an object or the last item of an array. Positions
// are those of the text as written. The document's Format is JSONC when the text uses
// either, else JSON.
func ParseJSONC(name string, src []byte, lim *Limits) (*Document, error) {
	return parseJSON(name, src, lim, true, false)
}

func parseJSON(name string, src []byte, lim *Limits, jsonc, share bool) (*Document, error) {
	if int64(len(src)) > lim.maxSize() {
		return nil, &Error{File: name, Msg: sizeMessage(int64(len(src)), lim.maxSize())}
	}
	var text string
	if share {
		src = src[:len(src):len(src)]
		text = bytesString(src)
	} else {
		text = string(src)
		src = stringBytes(text) // the document keeps text; so do the values of strict JSON
	}
	parsed, format := text, JSON
	if jsonc {
		blanked, changed, err := blankJSONC(text)
		if err != nil {
			return nil, errorAt(name, src, 1, err.off, "%s", err.msg)
		}
		if changed {
			parsed, format = blanked, JSONC
		}
	}
	p := parsers.Get().(*jsonParser)
	root, err := p.parse(parsed, skipBOM(parsed), lim.maxDepth())
	p.release()
	if err != nil {
		return nil, errorAt(name, src, 1, err.off, "%s%s", err.msg, hint(name, parsed, err, jsonc))
	}
	return NewDocument(name, format, src, root), nil
}

// LineParser parses small documents one after the other (the lines of an NDJSON file) into
// memory it reuses: the documents it parsed stay valid only until Recycle. The zero value
// is ready to use.
type LineParser struct {
	p    jsonParser
	docs []Document // where the documents are carved from, reused after Recycle
}

// Parse is ParseJSONShared, with the document and its values carved from the parser's
// memory.
func (lp *LineParser) Parse(name string, src []byte, lim *Limits) (*Document, error) {
	if lim != nil && lim.JSONC && !isNDJSONName(name) {
		return ParseJSONC(name, src, lim)
	}
	if int64(len(src)) > lim.maxSize() {
		return nil, &Error{File: name, Msg: sizeMessage(int64(len(src)), lim.maxSize())}
	}
	src = src[:len(src):len(src)]
	text := bytesString(src)
	root, err := lp.p.parse(text, skipBOM(text), lim.maxDepth())
	lp.p.s, lp.p.b = "", nil
	if err != nil {
		return nil, errorAt(name, src, 1, err.off, "%s%s", err.msg, hint(name, text, err, false))
	}
	if len(lp.docs) == cap(lp.docs) {
		lp.docs = make([]Document, 0, 64)
	}
	lp.docs = lp.docs[:len(lp.docs)+1]
	d := &lp.docs[len(lp.docs)-1]
	*d = Document{Name: name, Format: JSON, Root: root, Line: 1, src: src}
	return d, nil
}

// Recycle says that no document parsed so far, nor any of its values, is used any more: the
// next documents reuse their memory (on the valid path of a stream, where nothing is kept
// of an instance, no memory is taken per value or per document). Strings are not
// recycled: a decoded string (one with escapes) stays valid as long as it is used, as a
// string without escapes does (it shares the line's memory), so that a string taken
// from a document before Recycle (a key of a map, a part of a message) never changes.
func (lp *LineParser) Recycle() {
	if lp.p.spilled {
		// The chunk's values point into earlier chunks (see spilled): forgotten, so that
		// only the chunk itself is reused.
		clear(lp.p.slab)
		lp.p.spilled = false
	}
	lp.p.slab = lp.p.slab[:0]
	clear(lp.docs) // nor do the documents' places keep old roots and texts alive
	lp.docs = lp.docs[:0]
}

// parsers keeps parsers and their buffers between documents: a stream of small documents
// (the lines of an NDJSON file, the files of a directory) otherwise makes a parse stack and a
// slab of children per document, which on small workloads was most of the memory a run
// touched.
var parsers = sync.Pool{New: func() any { return new(jsonParser) }}

// release puts p back in the pool: it forgets the text and the values it held (so the pool
// keeps no document alive but through the rest of the slab, which the document's values
// share) and drops buffers a large document grew.
func (p *jsonParser) release() {
	p.s, p.b, p.err = "", nil, nil
	if cap(p.stack) > 1024 {
		p.stack = nil
	} else {
		clear(p.stack[:cap(p.stack)])
	}
	if cap(p.frames) > 64 {
		p.frames = nil
	} else {
		clear(p.frames[:cap(p.frames)])
	}
	if cap(p.slab) > 8192 || p.spilled {
		p.slab, p.spilled = nil, false
	}
	if cap(p.scratch) > 1<<16 {
		p.scratch = nil
	}
	if cap(p.arena) > 1<<16 {
		p.arena = nil
	}
	parsers.Put(p)
}

// blankJSONC turns JSONC text into JSON text of the same length: every byte of a comment
// but line breaks, and every trailing comma, becomes a space. So the offsets of the values
// are those of the text as written, whose lines and columns the document reports. It says
// whether anything changed; an unterminated block comment is an error at its start.
func blankJSONC(s string) (string, bool, *jsonError) {
	if !strings.ContainsAny(s, "/,") {
		return s, false, nil
	}
	b := []byte(s)
	changed := false
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			if b[k] != '\n' && b[k] != '\r' {
				b[k] = ' '
			}
		}
		changed = true
	}
	comma := -1    // a comma after a value, not yet followed by anything but space
	value := false // the last significant byte ended a value
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			comma, value = -1, true
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			end := i + 2
			for end < len(b) && b[end] != '\n' && b[end] != '\r' {
				end++
			}
			blank(i, end)
			i = end - 1
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return "", false, &jsonError{i, "unterminated comment: expected */"}
			}
			blank(i, i+2+end+2)
			i += 2 + end + 1
		case c == ',':
			comma = -1
			if value {
				comma = i
			}
			value = false
		case c == '}' || c == ']':
			if comma >= 0 {
				blank(comma, comma+1)
			}
			comma, value = -1, true
		case c == '{' || c == '[' || c == ':':
			comma, value = -1, false
		case !isSpace[c]:
			comma, value = -1, true
		}
	}
	return string(b), changed, nil
}

// hint says what a strict JSON error may mean: a comment or a trailing comma (JSONC), or a
// second document after the first (NDJSON, unless the name says NDJSON already).
func hint(name, s string, err *jsonError, jsonc bool) string {
	off := err.off
	if off >= len(s) {
		return ""
	}
	if !jsonc && s[off] == '/' && off+1 < len(s) && (s[off+1] == '/' || s[off+1] == '*') {
		return " (comments are not JSON; if this is JSONC, name the file .jsonc or use --jsonc)"
	}
	if !jsonc && (s[off] == '}' || s[off] == ']') {
		i := off - 1
		for i >= 0 && isSpace[s[i]] {
			i--
		}
		if i >= 0 && s[i] == ',' {
			return " (a trailing comma is not JSON; if this is JSONC, name the file .jsonc or use --jsonc)"
		}
	}
	if strings.HasSuffix(err.msg, "after the JSON value") && startsLikeJSON(s[off]) && !isNDJSONName(name) {
		return ": the text holds more than one JSON document (NDJSON reads one per line: name the file .ndjson or .jsonl)"
	}
	return ""
}

// isNDJSONName reports a name whose extension says NDJSON.
func isNDJSONName(name string) bool {
	f, ok := FormatOf(name)
	return ok && f == NDJSON
}

// stringBytes returns the bytes of s without copying them. They must never be modified.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// bytesString returns b as a string without copying it. b must never be modified afterwards.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// skipBOM returns the length of a leading byte order mark of s (0 or 3).
func skipBOM(s string) int {
	if strings.HasPrefix(s, bom) {
		return len(bom)
	}
	return 0
}

func sizeMessage(size, limit int64) string {
	return "document of " + strconv.FormatInt(size, 10) + " bytes exceeds the limit of " +
		strconv.FormatInt(limit, 10) + " bytes (raise it with --max-size)"
}

func depthMessage(limit int) string {
	if limit >= MaxDepthCeiling {
		return "nesting deeper than " + strconv.Itoa(limit) + " levels, the most jstk reads"
	}
	return "nesting deeper than " + strconv.Itoa(limit) + " levels (raise the limit with --max-depth)"
}

// jsonError is a syntax error at a byte offset.
type jsonError struct {
	off int
	msg string
}

// jsonFrame is an array or object whose members are being parsed.
type jsonFrame struct {
	start int    // offset of its '[' or '{'
	mark  int    // where its children begin in jsonParser.stack
	obj   bool   // an object (else an array)
	seen  uint64 // object: a one-word Bloom filter of its keys (see keyBit)
	index int    // object: 1 + the place in jsonParser.indexes of its names' index, once it has more than indexMin members
}

// jsonParser parses JSON text without recursion, so that nesting is bounded only by the depth
// limit. A parser may be reused; it keeps its buffers between documents.
//
// It makes one pass over the text, with the position in a local variable: a value's
// children are pushed on a stack (an object's key first, pushed as soon as it is read, so
// that a repeated key is found before its value is added) and moved, when the container
// closes, to a slice carved from a slab that many containers share. Strings without
// escapes are slices of the text, found eight bytes at a time; strings with escapes are
// decoded into an arena of bytes that many strings share. Numbers keep their text. No
// line or column is computed: errors carry a byte offset, turned into a position only
// when reported.
type jsonParser struct {
	s       string
	b       []byte        // s, as bytes to read words from
	stack   []Value       // children of the containers being parsed
	slab    []Value       // where children slices are carved from (see carve)
	frames  []jsonFrame   // the containers being parsed, innermost last
	scratch []byte        // where strings with escapes are decoded
	arena   []byte        // where decoded strings are kept (see keep)
	indexes []memberIndex // the name indexes of the large objects being parsed (frames hold no pointer)
	err     *jsonError

	// docStart is where the document being parsed starts in the slab's current chunk.
	// spilled says that a document went on from one chunk into the next since the slab was
	// last handed on to the next documents (by release or Recycle). A chunk is shared by
	// the documents carved from it, and each keeps the whole chunk alive: the values of
	// the others in it, and what those values point to. After a spill the current chunk
	// points into the one before; handed on as it is, it would make a chain from each new
	// document back through every one parsed before it (a pooled parser held 169 MB after
	// 200 parses of a 354 KB document). So release drops such a chunk, and Recycle, whose
	// documents are all dead, clears it: a chunk handed on holds only documents wholly
	// inside it, and what a document keeps alive is bounded by a chunk.
	docStart int
	spilled  bool
}

// parseJSONText parses s, which must hold exactly one JSON value (surrounded by whitespace).
// String values share memory with s. A leading byte order mark is skipped.
func parseJSONText(s string, maxDepth int) (Value, *jsonError) {
	var p jsonParser
	return p.parse(s, skipBOM(s), maxDepth)
}

// parse parses s from offset start; s must hold exactly one JSON value from there on.
func (p *jsonParser) parse(s string, start, maxDepth int) (Value, *jsonError) {
	p.s, p.b, p.err = s, stringBytes(s), nil
	p.docStart = len(p.slab)
	if p.stack == nil {
		p.stack, p.frames = make([]Value, 0, 64), make([]jsonFrame, 0, 8)
	}
	i := skipSpace(s, start)
	if i >= len(s) {
		return Value{}, &jsonError{i, "empty document: expected a JSON value"}
	}
	v, i := p.value(i, maxDepth)
	if p.err != nil {
		clear(p.stack[:cap(p.stack)])
		clear(p.indexes[:cap(p.indexes)])
		p.indexes = p.indexes[:0]
		return Value{}, p.err
	}
	i = skipSpace(s, i)
	if i < len(s) {
		return Value{}, &jsonError{i, "unexpected " + describe(s, i) + " after the JSON value"}
	}
	return v, nil
}

func (p *jsonParser) fail(off int, msg string) {
	if p.err == nil {
		p.err = &jsonError{off, msg}
	}
}

// isSpace marks the four JSON whitespace bytes.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// skipSpace returns the offset of the first byte at or after i that is not white space.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace[s[i]] {
		i++
		for i+8 <= len(s) && s[i:i+8] == "        " { // indentation, eight bytes at a time
			i += 8
		}
	}
	return i
}

// describe names the character at offset i for an error message.
func describe(s string, i int) string {
	if i >= len(s) {
		return "end of input"
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return "invalid UTF-8 byte 0x" + strconv.FormatUint(uint64(s[i]), 16)
	}
	return "character " + strconv.QuoteRune(r)
}

// value parses one value, with everything nested in it, starting at offset i, which holds
// no white space. It returns the value and the offset after it; on error, the zero Value
// with p.err set.
func (p *jsonParser) value(i, maxDepth int) (Value, int) {
	s := p.s
	stack, frames := p.stack[:0], p.frames[:0] // kept in p on success, for the next document
	var v Value
	for {
		// Parse a value, or open a container and go on with its first member.
		if i >= len(s) {
			p.fail(i, "unexpected end of input: expected a value")
			return Value{}, i
		}
		switch c := s[i]; c {
		case '"':
			str, end := p.str(i)
			if end < 0 {
				return Value{}, i
			}
			v, i = mkText(String, i, str), end
		case '{', '[':
			if len(frames) >= maxDepth {
				p.fail(i, depthMessage(maxDepth))
				return Value{}, i
			}
			start := i
			i = skipSpace(s, i+1)
			if c == '[' {
				if i < len(s) && s[i] == ']' {
					v, i = mkKids(Array, start, emptyKids), i+1
					break
				}
				frames = append(frames, jsonFrame{start: start, mark: len(stack)})
				continue
			}
			if i < len(s) && s[i] == '}' {
				v, i = mkKids(Object, start, emptyKids), i+1
				break
			}
			frames = append(frames, jsonFrame{start: start, mark: len(stack), obj: true})
			key, end := p.memberKey(i)
			if end < 0 {
				return Value{}, i
			}
			stack, i = append(stack, key), end
			continue
		case 't':
			if !strings.HasPrefix(s[i:], "true") {
				p.fail(i, "invalid literal: expected true")
				return Value{}, i
			}
			v, i = mkBool(i, true), i+4
		case 'f':
			if !strings.HasPrefix(s[i:], "false") {
				p.fail(i, "invalid literal: expected false")
				return Value{}, i
			}
			v, i = mkBool(i, false), i+5
		case 'n':
			if !strings.HasPrefix(s[i:], "null") {
				p.fail(i, "invalid literal: expected null")
				return Value{}, i
			}
			v, i = mkNull(i), i+4
		default:
			if c != '-' && (c < '0' || c > '9') {
				p.fail(i, "unexpected "+describe(s, i)+": expected a value")
				return Value{}, i
			}
			end := p.number(i)
			if end < 0 {
				return Value{}, i
			}
			v, i = mkText(Number, i, s[i:end]), end
		}

		// v is complete: add it to its container, closing every container that ends here.
		for {
			if len(frames) == 0 {
				p.stack, p.frames = stack, frames
				return v, i
			}
			f := &frames[len(frames)-1]
			if f.obj {
				stack = p.add(f, stack, v)
			} else {
				stack = append(stack, v)
			}
			i = skipSpace(s, i)
			if i >= len(s) {
				if f.obj {
					p.fail(i, "unexpected end of input: expected ',' or '}' to continue the object")
				} else {
					p.fail(i, "unexpected end of input: expected ',' or ']' to continue the array")
				}
				return Value{}, i
			}
			c := s[i]
			if c == ',' {
				i = skipSpace(s, i+1)
				if f.obj {
					key, end := p.memberKey(i)
					if end < 0 {
						return Value{}, i
					}
					stack, i = append(stack, key), end
				}
				break // parse the next member
			}
			if f.obj && c == '}' || !f.obj && c == ']' {
				v, i = p.close(f, stack[f.mark:]), i+1
				stack, frames = stack[:f.mark], frames[:len(frames)-1]
				continue
			}
			if f.obj {
				p.fail(i, "unexpected "+describe(s, i)+": expected ',' or '}' in the object")
			} else {
				p.fail(i, "unexpected "+describe(s, i)+": expected ',' or ']' in the array")
			}
			return Value{}, i
		}
	}
}

// memberKey parses `"key" :` at i and returns the key (a String value at the key's offset)
// and the offset of the member's value; on error, -1 with p.err set.
func (p *jsonParser) memberKey(i int) (Value, int) {
	s := p.s
	if i >= len(s) || s[i] != '"' {
		p.fail(i, "unexpected "+describe(s, i)+": expected a member name in double quotes")
		return Value{}, -1
	}
	var key string
	end := -1
	if b := p.b; i+17 <= len(b) {
		// Most names are short and plain: find the closing quote in the next two words.
		if m := specials(binary.LittleEndian.Uint64(b[i+1 : i+9])); m != 0 {
			if j := i + 1 + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				key, end = s[i+1:j], j+1
			}
		} else if m := specials(binary.LittleEndian.Uint64(b[i+9 : i+17])); m != 0 {
			if j := i + 9 + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				key, end = s[i+1:j], j+1
			}
		}
	}
	if end < 0 {
		if key, end = p.str(i); end < 0 {
			return Value{}, -1
		}
	}
	k := mkText(String, i, key)
	if end < len(s) && s[end] == ':' { // the usual `"key":`
		return k, skipSpace(s, end+1)
	}
	end = skipSpace(s, end)
	if end >= len(s) || s[end] != ':' {
		p.fail(end, "unexpected "+describe(s, end)+": expected ':' after the member name")
		return Value{}, -1
	}
	return k, skipSpace(s, end+1)
}

// add adds v to the object of f, whose key is on the top of stack, and returns the stack. A
// repeated key keeps its first place (and the offset of its first occurrence) and its last
// value, as JSON.parse does.
func (p *jsonParser) add(f *jsonFrame, stack []Value, v Value) []Value {
	top := len(stack) - 1
	key := stack[top].text()
	if f.index != 0 {
		idx := p.indexes[f.index-1]
		m, slot := idx.find(stack[f.mark:], key)
		if m >= 0 {
			stack[f.mark+2*m+1] = v
			return stack[:top]
		}
		stack = append(stack, v)
		if n := (len(stack) - f.mark) / 2; 2*n > len(idx) {
			p.indexes[f.index-1] = indexOf(stack[f.mark:]) // grown
		} else {
			idx[slot] = int32(n)
		}
		return stack
	}
	bit := keyBit(key)
	if f.seen&bit != 0 {
		for j := f.mark; j < top; j += 2 {
			if stack[j].text() == key {
				stack[j+1] = v
				return stack[:top]
			}
		}
	}
	f.seen |= bit
	stack = append(stack, v)
	if n := (len(stack) - f.mark) / 2; n > indexMin {
		p.indexes = append(p.indexes, indexOf(stack[f.mark:]))
		f.index = len(p.indexes)
	}
	return stack
}

// keyBit hashes a key to one bit of a word: when the bit of a key is not set in an object's
// filter, the object does not have the key yet, and looking for it can be skipped.
func keyBit(key string) uint64 {
	h := uint64(len(key))
	if n := len(key); n > 0 {
		h = h*31 + uint64(key[0])
		h = h*31 + uint64(key[n-1])
		h = h*31 + uint64(key[n/2])
	}
	return 1 << (h * 0x9E3779B97F4A7C15 >> 58)
}

// close makes the array or object of f from its children, moved from the stack to a slice of
// the slab. An object of more than indexMin members keeps the index of its names that add
// made, in a slot after its members (see mkKids).
func (p *jsonParser) close(f *jsonFrame, kids []Value) Value {
	if f.index == 0 {
		kind := Array
		if f.obj {
			kind = Object
		}
		out := p.carve(len(kids))
		if len(kids) <= 16 {
			for k := range out { // cheaper than copy's call for a few values
				out[k] = kids[k]
			}
		} else {
			copy(out, kids)
		}
		return mkKids(kind, f.start, out)
	}
	out := p.carve(len(kids) + 1)
	copy(out, kids)
	out[len(kids)] = indexSlot(p.indexes[f.index-1])
	p.indexes[f.index-1] = nil
	p.indexes = p.indexes[:f.index-1]
	return Value{ptr: unsafe.Pointer(unsafe.SliceData(out)), n: len(kids), meta: uint64(f.start)<<kindBits | uint64(Object) | indexed}
}

// number parses a number at i and returns the offset after it; on error, -1 with p.err set.
func (p *jsonParser) number(i int) int {
	s := p.s
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			p.fail(i-1, "invalid number: leading zero")
			return -1
		}
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.fail(i, "invalid number: expected a digit")
		return -1
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			p.fail(i, "invalid number: expected a digit after the decimal point")
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			p.fail(i, "invalid number: expected a digit in the exponent")
			return -1
		}
	}
	return i
}

// strPlain marks the bytes a string may hold without a closer look: not '"', '\\', a control
// character or a non-ASCII byte.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials returns a word whose byte k has its high bit set when byte k of x (read little
// endian) is '"', '\\', a control character or non-ASCII, and possibly, after such a byte,
// for others: the lowest set bit is always that of the first such byte.
func specials(x uint64) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x - 0x20*ones) | (q - ones) | (b - ones) | x) & highs
}

// str parses a string at i, its opening quote, and returns its decoded text and the offset
// after its closing quote; on error, -1 with p.err set.
func (p *jsonParser) str(i int) (string, int) {
	s, b := p.s, p.b
	j := i + 1
	for {
		// Skip eight plain bytes at a time, then one at a time.
		if j+8 <= len(b) {
			m := specials(binary.LittleEndian.Uint64(b[j : j+8]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		} else {
			for j < len(s) && strPlain[s[j]] {
				j++
			}
			if j >= len(s) {
				p.fail(i, "unterminated string")
				return "", -1
			}
		}
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1
		case c == '\\':
			return p.strSlow(i, j)
		case c < 0x20:
			p.fail(j, "control character "+strconv.QuoteRune(rune(c))+" in string: escape it")
			return "", -1
		case c >= 0xC2 && c <= 0xDF && j+1 < len(s) && s[j+1]&0xC0 == 0x80:
			j += 2 // a well-formed character of two bytes
		case (c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF) && j+2 < len(s) && s[j+1]&0xC0 == 0x80 && s[j+2]&0xC0 == 0x80:
			j += 3 // of three bytes (not E0 or ED, whose second byte has a narrower range)
		default:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && n == 1 {
				p.fail(j, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(c), 16)+" in string")
				return "", -1
			}
			j += n
		}
	}
}

// strSlow decodes the string whose opening quote is at q and which has an escape at i (and
// none before).
func (p *jsonParser) strSlow(q, i int) (string, int) {
	s := p.s
	buf := append(p.scratch[:0], s[q+1:i]...) // decoded here, then kept in the arena
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.scratch = buf[:0]
			return p.keep(buf), i + 1
		case c == '\\':
			if i+1 >= len(s) {
				p.fail(i, "unterminated string")
				return "", -1
			}
			e := s[i+1]
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					p.fail(i, `invalid \u escape: expected 4 hex digits`)
					return "", -1
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							buf = utf8.AppendRune(buf, d)
							i += 6
							continue
						}
					}
					r = utf8.RuneError // a lone surrogate has no UTF-8 form
				}
				buf = utf8.AppendRune(buf, r)
				continue
			default:
				r, _ := utf8.DecodeRuneInString(s[i+1:])
				p.fail(i, "invalid escape "+strconv.Quote(`\`+string(r))+" in string")
				return "", -1
			}
			i += 2
		case c < 0x20:
			p.fail(i, "control character "+strconv.QuoteRune(rune(c))+" in string: escape it")
			return "", -1
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && strPlain[s[j]] {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				p.fail(i, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(c), 16)+" in string")
				return "", -1
			}
			buf = append(buf, s[i:i+n]...)
			i += n
		}
	}
	p.fail(q, "unterminated string")
	return "", -1
}

// keep copies a decoded string into the arena, which many strings share: one allocation
// serves many. The arena's bytes are never written again once kept.
func (p *jsonParser) keep(b []byte) string {
	if len(b) > cap(p.arena)-len(p.arena) {
		p.arena = make([]byte, 0, max(len(b), min(max(len(p.s)/16, 256), 16<<10)))
	}
	l := len(p.arena)
	p.arena = append(p.arena, b...)
	return bytesString(p.arena[l:len(p.arena):len(p.arena)])
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// carve returns n values' room from the slab: one allocation serves many containers.
func (p *jsonParser) carve(n int) []Value {
	if n > cap(p.slab)-len(p.slab) {
		size := max(n, min(max(len(p.s)/8, 32), 8192))
		p.spilled = p.spilled || len(p.slab) > p.docStart
		p.slab, p.docStart = make([]Value, 0, size), 0
	}
	l := len(p.slab)
	p.slab = p.slab[:l+n]
	return p.slab[l : l+n : l+n]
}

// emptyKids is the children of every empty array and object: values are never modified, so
// they may share it.
var emptyKids = []Value{}
