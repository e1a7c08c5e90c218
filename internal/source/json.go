package source

import (
	"encoding/binary"
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
	p jsonParser
}

// Parse is ParseJSONShared, with the document's values carved from the parser's memory.
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
	return NewDocument(name, JSON, src, root), nil
}

// Recycle says that no value of a document parsed so far is used any more: the next
// documents reuse their memory (on the valid path of a stream, where nothing is kept of an
// instance, no memory is taken per value).
func (lp *LineParser) Recycle() {
	lp.p.slab = lp.p.slab[:0]
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
	if cap(p.slab) > 8192 {
		p.slab = nil
	}
	if cap(p.scratch) > 1<<16 {
		p.scratch = nil
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
	start int            // offset of its '[' or '{'
	mark  int            // where its children begin in jsonParser.stack
	obj   bool           // an object (else an array)
	key   string         // object: the key whose value is being parsed
	koff  int            // object: the offset of that key
	index map[string]int // object: key -> stack position of its value, once the object is large
	seen  uint64         // object: a one-word Bloom filter of its keys (see keyBit)
}

// jsonParser parses JSON text without recursion, so that nesting is bounded only by the depth
// limit. A parser may be reused; it keeps its buffers between documents.
type jsonParser struct {
	s       string
	b       []byte // s, as bytes to read words from
	i       int
	stack   []Value     // children of the containers being parsed
	slab    []Value     // where children slices are carved from (see children)
	frames  []jsonFrame // the containers being parsed, innermost last
	scratch []byte      // where strings with escapes are decoded
	err     *jsonError
}

// parseJSONText parses s, which must hold exactly one JSON value (surrounded by whitespace).
// String values share memory with s. A leading byte order mark is skipped.
func parseJSONText(s string, maxDepth int) (Value, *jsonError) {
	var p jsonParser
	return p.parse(s, skipBOM(s), maxDepth)
}

// parse parses s from offset start; s must hold exactly one JSON value from there on.
func (p *jsonParser) parse(s string, start, maxDepth int) (Value, *jsonError) {
	p.s, p.b, p.i, p.err = s, stringBytes(s), start, nil
	if p.stack == nil {
		p.stack, p.frames = make([]Value, 0, 64), make([]jsonFrame, 0, 8)
	}
	p.stack, p.frames = p.stack[:0], p.frames[:0]
	p.skipSpace()
	if p.i >= len(s) {
		return Value{}, &jsonError{p.i, "empty document: expected a JSON value"}
	}
	v := p.value(maxDepth)
	if p.err != nil {
		clear(p.stack[:cap(p.stack)])
		return Value{}, p.err
	}
	p.skipSpace()
	if p.i < len(s) {
		return Value{}, &jsonError{p.i, "unexpected " + describe(s, p.i) + " after the JSON value"}
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

func (p *jsonParser) skipSpace() {
	s, i := p.s, p.i
	for i < len(s) && isSpace[s[i]] {
		i++
	}
	p.i = i
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

// value parses one value, with everything nested in it, starting at p.i. On error it
// returns the zero Value with p.err set.
func (p *jsonParser) value(maxDepth int) Value {
	var v Value
	for {
		// Parse a value, or open a container and go on with its first member.
		if p.i >= len(p.s) {
			p.fail(p.i, "unexpected end of input: expected a value")
			return Value{}
		}
		start := p.i
		switch c := p.s[p.i]; c {
		case '{', '[':
			if len(p.frames) >= maxDepth {
				p.fail(p.i, depthMessage(maxDepth))
				return Value{}
			}
			p.i++
			p.skipSpace()
			if c == '[' {
				if p.i < len(p.s) && p.s[p.i] == ']' {
					p.i++
					v = mkKids(Array, start, emptyKids)
					break
				}
				p.frames = append(p.frames, jsonFrame{start: start, mark: len(p.stack)})
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				v = mkKids(Object, start, emptyKids)
				break
			}
			p.frames = append(p.frames, jsonFrame{start: start, mark: len(p.stack), obj: true})
			if !p.memberKey(&p.frames[len(p.frames)-1]) {
				return Value{}
			}
			continue
		case '"':
			str, ok := p.str()
			if !ok {
				return Value{}
			}
			v = mkText(String, start, str)
		case 't':
			v = p.literal("true", mkBool(start, true))
		case 'f':
			v = p.literal("false", mkBool(start, false))
		case 'n':
			v = p.literal("null", mkNull(start))
		default:
			if c == '-' || (c >= '0' && c <= '9') {
				v = p.number()
			} else {
				p.fail(p.i, "unexpected "+describe(p.s, p.i)+": expected a value")
			}
		}
		if p.err != nil {
			return Value{}
		}

		// v is complete: add it to its container, closing every container that ends here.
		for {
			if len(p.frames) == 0 {
				return v
			}
			f := &p.frames[len(p.frames)-1]
			if f.obj {
				p.addMember(f, v)
			} else {
				p.stack = append(p.stack, v)
			}
			p.skipSpace()
			if p.i >= len(p.s) {
				if f.obj {
					p.fail(p.i, "unexpected end of input: expected ',' or '}' to continue the object")
				} else {
					p.fail(p.i, "unexpected end of input: expected ',' or ']' to continue the array")
				}
				return Value{}
			}
			c := p.s[p.i]
			if c == ',' {
				p.i++
				p.skipSpace()
				if f.obj && !p.memberKey(f) {
					return Value{}
				}
				break // parse the next member
			}
			if f.obj && c == '}' || !f.obj && c == ']' {
				p.i++
				kind := Array
				if f.obj {
					kind = Object
				}
				v = mkKids(kind, f.start, p.children(f.mark))
				p.frames = p.frames[:len(p.frames)-1]
				continue
			}
			if f.obj {
				p.fail(p.i, "unexpected "+describe(p.s, p.i)+": expected ',' or '}' in the object")
			} else {
				p.fail(p.i, "unexpected "+describe(p.s, p.i)+": expected ',' or ']' in the array")
			}
			return Value{}
		}
	}
}

// memberKey parses `"key" :` and leaves p.i at the member's value.
func (p *jsonParser) memberKey(f *jsonFrame) bool {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		p.fail(p.i, "unexpected "+describe(p.s, p.i)+": expected a member name in double quotes")
		return false
	}
	f.koff = p.i
	key, ok := p.str()
	if !ok {
		return false
	}
	f.key = key
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		p.fail(p.i, "unexpected "+describe(p.s, p.i)+": expected ':' after the member name")
		return false
	}
	p.i++
	p.skipSpace()
	return true
}

// addMember adds the member f.key: v to the object of f. A repeated key keeps its first
// place (and the offset of its first occurrence) and its last value, as JSON.parse does.
func (p *jsonParser) addMember(f *jsonFrame, v Value) {
	key := f.key
	bit := keyBit(key)
	if f.index != nil {
		if j, ok := f.index[key]; ok {
			p.stack[j] = v
			return
		}
	} else if f.seen&bit != 0 {
		for j := f.mark; j < len(p.stack); j += 2 {
			if p.stack[j].text() == key {
				p.stack[j+1] = v
				return
			}
		}
	}
	f.seen |= bit
	p.stack = append(p.stack, mkText(String, f.koff, key), v)
	if f.index != nil {
		f.index[key] = len(p.stack) - 1
	} else if n := (len(p.stack) - f.mark) / 2; n > 32 {
		f.index = make(map[string]int, 2*n)
		for j := f.mark; j < len(p.stack); j += 2 {
			f.index[p.stack[j].text()] = j + 1
		}
	}
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

func (p *jsonParser) literal(word string, v Value) Value {
	if !strings.HasPrefix(p.s[p.i:], word) {
		p.fail(p.i, "invalid literal: expected "+word)
		return Value{}
	}
	p.i += len(word)
	return v
}

func (p *jsonParser) number() Value {
	s, start := p.s, p.i
	i := p.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			p.fail(i-1, "invalid number: leading zero")
			return Value{}
		}
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.fail(i, "invalid number: expected a digit")
		return Value{}
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			p.fail(i, "invalid number: expected a digit after the decimal point")
			return Value{}
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
			return Value{}
		}
	}
	p.i = i
	return mkText(Number, start, s[start:i])
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

// plainWord reports whether none of the eight bytes of x is '"', '\\', a control character or
// non-ASCII.
func plainWord(x uint64) bool {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x-0x20*ones)|(q-ones)|(b-ones)|x)&highs == 0
}

// str parses a string starting at the opening quote and returns its decoded text.
func (p *jsonParser) str() (string, bool) {
	s := p.s
	start := p.i + 1
	i := start
	for {
		// Skip eight plain bytes at a time, then one at a time.
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64(p.b[i:])) {
			i += 8
		}
		for i < len(s) && strPlain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return s[start:i], true
		case c == '\\':
			return p.strSlow(start, i)
		case c < 0x20:
			p.fail(i, "control character "+strconv.QuoteRune(rune(c))+" in string: escape it")
			return "", false
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				p.fail(i, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(c), 16)+" in string")
				return "", false
			}
			i += n
		}
	}
	p.fail(p.i, "unterminated string")
	return "", false
}

// strSlow decodes a string that has escapes; s[start:i] has none.
func (p *jsonParser) strSlow(start, i int) (string, bool) {
	s := p.s
	buf := append(p.scratch[:0], s[start:i]...) // decoded here, then copied once
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			p.scratch = buf[:0]
			return string(buf), true
		case c == '\\':
			if i+1 >= len(s) {
				p.fail(i, "unterminated string")
				return "", false
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
					return "", false
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
				return "", false
			}
			i += 2
		case c < 0x20:
			p.fail(i, "control character "+strconv.QuoteRune(rune(c))+" in string: escape it")
			return "", false
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
				return "", false
			}
			buf = append(buf, s[i:i+n]...)
			i += n
		}
	}
	p.fail(p.i, "unterminated string")
	return "", false
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

// children moves the values pushed since mark into a slice of their own, carved from the
// slab: one allocation serves many containers.
func (p *jsonParser) children(mark int) []Value {
	n := len(p.stack) - mark
	if n > cap(p.slab)-len(p.slab) {
		size := max(n, min(max(len(p.s)/8, 32), 8192))
		p.slab = make([]Value, 0, size)
	}
	l := len(p.slab)
	kids := p.slab[l : l+n : l+n]
	p.slab = p.slab[:l+n]
	copy(kids, p.stack[mark:])
	p.stack = p.stack[:mark] // what lies beyond is overwritten soon, so not cleared
	return kids
}

// emptyKids is the children of every empty array and object: values are never modified, so
// they may share it.
var emptyKids = []Value{}
