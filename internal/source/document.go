// Package source owns jstk's documents: parsing JSON, YAML, TOML and NDJSON into Values that
// remember where they came from, so that any JSON Pointer maps back to a file, line and
// column. Numbers stay exact (Decimal). Limits on size and nesting depth turn hostile input
// into clear errors instead of crashes.
//
// Entry points: ParseFile (format by extension, else by content), Parse (a given format),
// ParseJSON, ParseYAML, ParseTOML, and NDJSONReader for streams that are never held whole.
// Every error about the content of a document is an *Error with file, line and column.
//
// Choices a user may notice, all stated here so that no surface decides otherwise:
//   - JSON is strict (RFC 8259): no comments, trailing commas or NaN; a UTF-8 byte order mark
//     is skipped at the start of a file (and of the first line of NDJSON, nowhere else);
//     a repeated key keeps its first place and its last value, as JSON.parse does.
//   - JSONC (JSON with // and /* */ comments and trailing commas) is read for the files
//     named so (see FormatOf: .jsonc, tsconfig*.json, .vscode/*.json, ...), for text
//     that is JSONC but not JSON when the format is sniffed, and for every JSON document
//     with Limits.JSONC. A strict JSON error that JSONC would not have made says so.
//   - YAML follows the 1.2 core schema (see ParseYAML); a repeated key is an error, as the
//     YAML spec says; .inf and .nan are errors; aliases are expanded within a bound.
//   - TOML dates and times become strings (see ParseTOML); inf and nan are errors.
//   - Invalid UTF-8 is an error everywhere, naming where it is.
//   - Lines end at LF, CR LF or a lone CR; columns count Unicode characters (code points).
package source

import (
	"fmt"
	"sort"
	"sync/atomic"
	"unicode/utf8"
)

// Format is the syntax a document was written in.
type Format uint8

// The document formats jstk reads.
const (
	JSON Format = iota
	YAML
	TOML
	NDJSON
	// JSONC is JSON with comments and trailing commas (see ParseJSONC).
	JSONC
)

var formatNames = [...]string{"JSON", "YAML", "TOML", "NDJSON", "JSONC"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Default limits.
const (
	DefaultMaxSize  = 256 << 20 // bytes per document
	DefaultMaxDepth = 10000     // nesting of arrays and objects
)

// Limits bound what a parser accepts. A zero field means the default.
type Limits struct {
	MaxSize  int64 // largest document in bytes (for NDJSON: largest line)
	MaxDepth int   // deepest nesting of arrays and objects
	// MaxAliasNodes bounds the number of values the aliases of one YAML document may expand
	// to (default DefaultMaxAliasNodes), so that a "billion laughs" document fails fast.
	MaxAliasNodes int
	// JSONC reads every JSON document as JSONC (comments and trailing commas accepted), not
	// only the files whose names say JSONC (see FormatOf). NDJSON lines stay strict.
	JSONC bool
}

func (l *Limits) maxSize() int64 {
	if l == nil || l.MaxSize <= 0 {
		return DefaultMaxSize
	}
	return l.MaxSize
}

// MaxDepthCeiling is the deepest nesting a limit can allow: every walk over a parsed
// document (printing, comparing, hashing, inferring, evaluating) takes one step of
// recursion or of an explicit stack per level, and this keeps the deepest of them far
// below what the goroutine stack allows. A larger Limits.MaxDepth counts as this.
const MaxDepthCeiling = 100_000

func (l *Limits) maxDepth() int {
	if l == nil || l.MaxDepth <= 0 {
		return DefaultMaxDepth
	}
	return min(l.MaxDepth, MaxDepthCeiling)
}

// Document is one parsed document: its root value and what is needed to turn an offset into
// a line and column.
type Document struct {
	Name   string // the file name as the user gave it ("-" for stdin, "" for inline text)
	Format Format
	Root   Value
	// Line is the 1-based line of the document's first byte in its file: 1, except for a
	// line of an NDJSON file or a later document of a multi-document YAML file.
	Line int

	src   []byte
	lines atomic.Pointer[[]int] // offsets of line starts, computed on first use
	marks atomic.Pointer[[]int] // characters before each markEvery-byte block, for long lines
}

// NewDocument wraps a root value parsed from src.
func NewDocument(name string, format Format, src []byte, root Value) *Document {
	return &Document{Name: name, Format: format, Root: root, Line: 1, src: src}
}

// Source returns the document's text (for a line of an NDJSON file: that line). The slice
// may share memory with the parsed values and must not be modified.
func (d *Document) Source() []byte { return d.src }

// Position turns a byte offset into a 1-based line and column of the file. Columns count
// Unicode characters, not bytes. A line ends at LF, CR LF or a lone CR, as in editors.
// Position is safe for concurrent use.
func (d *Document) Position(off int) (line, col int) {
	lp := d.lines.Load()
	if lp == nil {
		starts := lineStarts(d.src)
		lp = &starts
		d.lines.Store(lp)
	}
	lines := *lp
	if off < 0 {
		off = 0
	}
	if off > len(d.src) {
		off = len(d.src)
	}
	i := sort.Search(len(lines), func(i int) bool { return lines[i] > off }) - 1
	start := lines[i]
	base := d.Line
	if base < 1 {
		base = 1
	}
	col = d.charsBetween(start, off) + 1
	if start == 0 && off >= len(bom) && string(d.src[:len(bom)]) == bom {
		col-- // a byte order mark is invisible in editors
	}
	return base + i, col
}

// markEvery is the spacing, in bytes, of the character counts kept for long lines.
const markEvery = 512

// charsBetween counts the characters of src[from:to]: the bytes that do not continue a
// UTF-8 sequence. Within one line of at most a few blocks it counts directly; across a long
// line (a minified 20 MB document is one line) it uses counts kept per block of the
// document, so locating many errors on one line stays linear.
func (d *Document) charsBetween(from, to int) int {
	if to-from <= 4*markEvery {
		return utf8.RuneCount(d.src[from:to])
	}
	return d.charsBefore(to) - d.charsBefore(from)
}

// charsBefore counts the characters of src[:off].
func (d *Document) charsBefore(off int) int {
	mp := d.marks.Load()
	if mp == nil {
		marks := make([]int, len(d.src)/markEvery+1)
		n := 0
		for i, c := range d.src {
			if i%markEvery == 0 {
				marks[i/markEvery] = n
			}
			if c&0xC0 != 0x80 {
				n++
			}
		}
		mp = &marks
		d.marks.Store(mp)
	}
	b := off / markEvery
	n := (*mp)[b]
	for _, c := range d.src[b*markEvery : off] {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// bom is the UTF-8 byte order mark, accepted (and skipped) at the start of a file.
const bom = "\uFEFF"

// Locate returns the line and column of the value at a JSON Pointer, or of its nearest
// existing ancestor when the pointer does not exist (a missing property is reported where
// its object starts).
func (d *Document) Locate(ptr string) (line, col int) {
	toks, _ := SplitPointer(ptr)
	return d.Position(d.Root.nearest(toks).Offset())
}

// LocateKey is like Locate, but for an object member it returns the position of the
// member's key rather than its value. To locate many pointers, use a Locator.
func (d *Document) LocateKey(ptr string) (line, col int) {
	return (&Locator{d: d, scan: true}).LocateKey(ptr)
}

// A Locator locates many JSON Pointers in one document, as LocateKey does, faster when
// they go through large objects: the members of each object of more than a few members
// that it goes through are indexed once. A Locator is not safe for concurrent use.
type Locator struct {
	d     *Document
	scan  bool                         // never index (one pointer: the index would not pay)
	index map[*Value]map[string][2]int // by an object's first element: first and last index of each name
}

// indexFrom is the size from which a Locator indexes an object's members.
const indexFrom = 16

// Locator returns a new Locator of d.
func (d *Document) Locator() *Locator { return &Locator{d: d} }

// LocateKey returns the position of the key of the member at ptr, or where Locate puts
// ptr when that is not an object member.
func (l *Locator) LocateKey(ptr string) (line, col int) {
	return l.LocateKeyIn(l.d.Root, ptr)
}

// LocateKeyIn is LocateKey for a pointer rel relative to v, a value of the document: what
// LocateKey gives for v's pointer followed by rel. It walks from v, not from the root, so
// locating many pointers below values already at hand (the subschemas of a deeply nested
// document) takes time proportional to their relative parts.
func (l *Locator) LocateKeyIn(v Value, rel string) (line, col int) {
	toks, _ := SplitPointer(rel)
	if len(toks) == 0 {
		return l.d.Position(v.Offset())
	}
	rest := toks[:len(toks)-1]
	for len(rest) > 0 {
		c, ok := l.at(v, rest[0], false)
		if !ok {
			break
		}
		v, rest = c, rest[1:]
	}
	if v.Kind() == Object {
		if k, ok := l.at(v, toks[len(toks)-1], true); ok {
			return l.d.Position(k.Offset())
		}
	}
	if len(rest) == 0 {
		// the pointer's parent exists: the nearest existing value is it or its member
		if c, ok := l.at(v, toks[len(toks)-1], false); ok {
			v = c
		}
	}
	return l.d.Position(v.Offset())
}

// at returns v's member or item named tok: for an object, the value of the first member
// of that name (as Get), or the key of the last one when key is set.
func (l *Locator) at(v Value, tok string, key bool) (Value, bool) {
	if v.Kind() != Object || l.scan || v.n < 2*indexFrom {
		if v.Kind() == Object && key {
			kids := v.elems()
			for i := len(kids) - 2; i >= 0; i -= 2 {
				if kids[i].text() == tok {
					return kids[i], true
				}
			}
			return Value{}, false
		}
		return v.At(tok)
	}
	kids := v.elems()
	idx := l.index[&kids[0]]
	if idx == nil {
		idx = make(map[string][2]int, len(kids)/2)
		for i := 0; i < len(kids); i += 2 {
			name := kids[i].text()
			if fl, ok := idx[name]; ok {
				idx[name] = [2]int{fl[0], i}
			} else {
				idx[name] = [2]int{i, i}
			}
		}
		if l.index == nil {
			l.index = map[*Value]map[string][2]int{}
		}
		l.index[&kids[0]] = idx
	}
	fl, ok := idx[tok]
	if !ok {
		return Value{}, false
	}
	if key {
		return kids[fl[1]], true
	}
	return kids[fl[0]+1], true
}

func (v Value) nearest(toks []string) Value {
	for i := range toks {
		c, ok := v.At(toks[i])
		if !ok {
			return v
		}
		v = c
	}
	return v
}

// lineStarts returns the offsets at which lines begin: 0, and after each LF, CR LF or lone
// CR.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, 64)
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts
}

// Error is a document that could not be read or parsed, with where it went wrong.
type Error struct {
	File   string // as given by the user
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Msg    string
}

func (e *Error) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", name, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", name, e.Line, e.Msg)
	}
	return name + ": " + e.Msg
}

// errorAt builds an Error for offset off of src.
func errorAt(name string, src []byte, firstLine, off int, format string, args ...any) *Error {
	d := &Document{Name: name, src: src, Line: firstLine}
	line, col := d.Position(off)
	return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}
