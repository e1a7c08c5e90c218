package lsp

import (
	"unicode/utf16"
	"unicode/utf8"
)

// text is one version of a document's content with its line index. Lines end at LF,
// CR LF or a lone CR, as LSP and the source package both say.
type text struct {
	s     string
	b     []byte // s as bytes, for the scanners
	lines []int  // byte offset of each line's start
}

func newText(s string) *text {
	t := &text{s: s, b: []byte(s), lines: []int{0}}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			t.lines = append(t.lines, i+1)
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// lineEnd is the byte offset where line i's content ends (before its line break).
func (t *text) lineEnd(i int) int {
	end := len(t.s)
	if i+1 < len(t.lines) {
		end = t.lines[i+1]
	}
	for end > t.lines[i] && (t.s[end-1] == '\n' || t.s[end-1] == '\r') {
		end--
	}
	return end
}

// offset turns an LSP position (UTF-16 code units) into a byte offset. A position past
// the end of its line is the line's end, a line past the end of the text the text's
// end; ok is false then, and for a negative position.
func (t *text) offset(p Position) (off int, ok bool) {
	if p.Line < 0 || p.Character < 0 {
		return 0, false
	}
	if p.Line >= len(t.lines) {
		return len(t.s), false
	}
	i, end := t.lines[p.Line], t.lineEnd(p.Line)
	units := 0
	for i < end && units < p.Character {
		r, n := utf8.DecodeRuneInString(t.s[i:])
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && n <= 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		i += n
	}
	return i, units == p.Character
}

// position turns a byte offset into an LSP position.
func (t *text) position(off int) Position {
	off = max(0, min(off, len(t.s)))
	line := t.lineOf(off)
	units := 0
	for i := t.lines[line]; i < off; {
		r, n := utf8.DecodeRuneInString(t.s[i:])
		if r == utf8.RuneError && n <= 1 {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
		i += n
	}
	return Position{Line: line, Character: units}
}

// lineOf finds the line holding byte offset off.
func (t *text) lineOf(off int) int {
	lo, hi := 0, len(t.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// fromLineCol turns a source position (1-based line, 1-based column counting code
// points) into a byte offset.
func (t *text) fromLineCol(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(t.lines) {
		return len(t.s)
	}
	i, end := t.lines[line-1], t.lineEnd(line-1)
	for c := 1; c < col && i < end; c++ {
		_, n := utf8.DecodeRuneInString(t.s[i:])
		i += n
	}
	return i
}

// apply makes the text after one content change: the whole text without a range, else
// the range replaced. A range out of the text is clamped to it.
func (t *text) apply(c contentChange) *text {
	if c.Range == nil {
		return newText(c.Text)
	}
	a, _ := t.offset(c.Range.Start)
	b, _ := t.offset(c.Range.End)
	if b < a {
		a, b = b, a
	}
	return newText(t.s[:a] + c.Text + t.s[b:])
}
