package source

// This file keeps the JSON parser as it was before issue 29 made it faster, unchanged but
// for its names, as the oracle of FuzzJSONOracle: the new parser must give the same value,
// the same error and the same position on every input.

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// oldError is a syntax error at a byte offset.
type oldError struct {
	off int
	msg string
}

// oldFrame is an array or object whose members are being parsed.
type oldFrame struct {
	start int            // offset of its '[' or '{'
	mark  int            // where its children begin in oldParser.stack
	obj   bool           // an object (else an array)
	key   string         // object: the key whose value is being parsed
	koff  int            // object: the offset of that key
	index map[string]int // object: key -> stack position of its value, once the object is large
	seen  uint64         // object: a one-word Bloom filter of its keys (see oldKeyBit)
}

// oldParser parses JSON text without recursion, so that nesting is bounded only by the depth
// limit. A parser may be reused; it keeps its buffers between documents.
type oldParser struct {
	s       string
	b       []byte // s, as bytes to read words from
	i       int
	stack   []Value    // children of the containers being parsed
	slab    []Value    // where children slices are carved from (see children)
	frames  []oldFrame // the containers being parsed, innermost last
	scratch []byte     // where strings with escapes are decoded
	err     *oldError
}

// parse parses s from offset start; s must hold exactly one JSON value from there on.
func (p *oldParser) parse(s string, start, maxDepth int) (Value, *oldError) {
	p.s, p.b, p.i, p.err = s, stringBytes(s), start, nil
	if p.stack == nil {
		p.stack, p.frames = make([]Value, 0, 64), make([]oldFrame, 0, 8)
	}
	p.stack, p.frames = p.stack[:0], p.frames[:0]
	p.skipSpace()
	if p.i >= len(s) {
		return Value{}, &oldError{p.i, "empty document: expected a JSON value"}
	}
	v := p.value(maxDepth)
	if p.err != nil {
		clear(p.stack[:cap(p.stack)])
		return Value{}, p.err
	}
	p.skipSpace()
	if p.i < len(s) {
		return Value{}, &oldError{p.i, "unexpected " + oldDescribe(s, p.i) + " after the JSON value"}
	}
	return v, nil
}

func (p *oldParser) fail(off int, msg string) {
	if p.err == nil {
		p.err = &oldError{off, msg}
	}
}

// oldIsSpace marks the four JSON whitespace bytes.
var oldIsSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (p *oldParser) skipSpace() {
	s, i := p.s, p.i
	for i < len(s) && oldIsSpace[s[i]] {
		i++
	}
	p.i = i
}

// oldDescribe names the character at offset i for an error message.
func oldDescribe(s string, i int) string {
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
func (p *oldParser) value(maxDepth int) Value {
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
				p.fail(p.i, oldDepthMessage(maxDepth))
				return Value{}
			}
			p.i++
			p.skipSpace()
			if c == '[' {
				if p.i < len(p.s) && p.s[p.i] == ']' {
					p.i++
					v = mkKids(Array, start, oldEmptyKids)
					break
				}
				p.frames = append(p.frames, oldFrame{start: start, mark: len(p.stack)})
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				v = mkKids(Object, start, oldEmptyKids)
				break
			}
			p.frames = append(p.frames, oldFrame{start: start, mark: len(p.stack), obj: true})
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
				p.fail(p.i, "unexpected "+oldDescribe(p.s, p.i)+": expected a value")
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
				p.fail(p.i, "unexpected "+oldDescribe(p.s, p.i)+": expected ',' or '}' in the object")
			} else {
				p.fail(p.i, "unexpected "+oldDescribe(p.s, p.i)+": expected ',' or ']' in the array")
			}
			return Value{}
		}
	}
}

// memberKey parses `"key" :` and leaves p.i at the member's value.
func (p *oldParser) memberKey(f *oldFrame) bool {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		p.fail(p.i, "unexpected "+oldDescribe(p.s, p.i)+": expected a member name in double quotes")
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
		p.fail(p.i, "unexpected "+oldDescribe(p.s, p.i)+": expected ':' after the member name")
		return false
	}
	p.i++
	p.skipSpace()
	return true
}

// addMember adds the member f.key: v to the object of f. A repeated key keeps its first
// place (and the offset of its first occurrence) and its last value, as JSON.parse does.
func (p *oldParser) addMember(f *oldFrame, v Value) {
	key := f.key
	bit := oldKeyBit(key)
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

// oldKeyBit hashes a key to one bit of a word: when the bit of a key is not set in an object's
// filter, the object does not have the key yet, and looking for it can be skipped.
func oldKeyBit(key string) uint64 {
	h := uint64(len(key))
	if n := len(key); n > 0 {
		h = h*31 + uint64(key[0])
		h = h*31 + uint64(key[n-1])
		h = h*31 + uint64(key[n/2])
	}
	return 1 << (h * 0x9E3779B97F4A7C15 >> 58)
}

func (p *oldParser) literal(word string, v Value) Value {
	if !strings.HasPrefix(p.s[p.i:], word) {
		p.fail(p.i, "invalid literal: expected "+word)
		return Value{}
	}
	p.i += len(word)
	return v
}

func (p *oldParser) number() Value {
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

// oldStrPlain marks the bytes a string may hold without a closer look: not '"', '\\', a control
// character or a non-ASCII byte.
var oldStrPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	oldOnes  = 0x0101010101010101
	oldHighs = 0x8080808080808080
)

// oldPlainWord reports whether none of the eight bytes of x is '"', '\\', a control character or
// non-ASCII.
func oldPlainWord(x uint64) bool {
	q := x ^ ('"' * oldOnes)
	b := x ^ ('\\' * oldOnes)
	return ((x-0x20*oldOnes)|(q-oldOnes)|(b-oldOnes)|x)&oldHighs == 0
}

// str parses a string starting at the opening quote and returns its decoded text.
func (p *oldParser) str() (string, bool) {
	s := p.s
	start := p.i + 1
	i := start
	for {
		// Skip eight plain bytes at a time, then one at a time.
		for i+8 <= len(s) && oldPlainWord(binary.LittleEndian.Uint64(p.b[i:])) {
			i += 8
		}
		for i < len(s) && oldStrPlain[s[i]] {
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
func (p *oldParser) strSlow(start, i int) (string, bool) {
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
				r, ok := oldHex4(s, i+2)
				if !ok {
					p.fail(i, `invalid \u escape: expected 4 hex digits`)
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := oldHex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
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
			for j < len(s) && oldStrPlain[s[j]] {
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

func oldHex4(s string, i int) (rune, bool) {
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
func (p *oldParser) children(mark int) []Value {
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

// oldEmptyKids is the children of every empty array and object: values are never modified, so
// they may share it.
var oldEmptyKids = []Value{}

func oldDepthMessage(limit int) string {
	if limit >= MaxDepthCeiling {
		return "nesting deeper than " + strconv.Itoa(limit) + " levels, the most jstk reads"
	}
	return "nesting deeper than " + strconv.Itoa(limit) + " levels (raise the limit with --max-depth)"
}
