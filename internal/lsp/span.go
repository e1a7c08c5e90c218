package lsp

import (
	"bytes"

	"github.com/jstk-dev/jstk/internal/source"
)

// tokenEnd is the byte offset just past the token that starts at off: a quoted string, a
// bracketed array or object (to its matching bracket), or a plain scalar or key (to a
// delimiter of JSON, YAML or TOML, trailing blanks left out). It never looks past the end
// of src.
func tokenEnd(src []byte, off int) int {
	if off < 0 || off >= len(src) {
		return max(0, min(off, len(src)))
	}
	switch c := src[off]; c {
	case '"', '\'':
		return quotedEnd(src, off)
	case '{', '[':
		depth := 0
		for i := off; i < len(src); i++ {
			switch src[i] {
			case '"':
				i = quotedEnd(src, i) - 1
			case '\'':
				// A YAML single-quoted scalar starts after a bracket, a comma or a colon;
				// elsewhere the quote is part of a plain scalar.
				if p := bytes.TrimRight(src[off:i], " \t\r\n"); len(p) > 0 && bytes.IndexByte([]byte("[{,:"), p[len(p)-1]) >= 0 {
					i = quotedEnd(src, i) - 1
				}
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(src)
	}
	end := off
	for end < len(src) {
		c := src[end]
		if c == ',' || c == '}' || c == ']' || c == '\n' || c == '\r' || c == '=' {
			break
		}
		if c == ':' && (end+1 == len(src) || src[end+1] == ' ' || src[end+1] == '\n' || src[end+1] == '\r' || src[end+1] == '\t') {
			break
		}
		if c == '#' && end > off && (src[end-1] == ' ' || src[end-1] == '\t') {
			break
		}
		end++
	}
	for end > off+1 && (src[end-1] == ' ' || src[end-1] == '\t') {
		end--
	}
	if end == off {
		end = min(off+1, len(src))
	}
	return end
}

// quotedEnd is the offset past the string that starts with the quote at off: a double
// quote ends at the next unescaped double quote, a single quote at the next single quote
// that is not doubled (YAML's escape).
func quotedEnd(src []byte, off int) int {
	q := src[off]
	for i := off + 1; i < len(src); i++ {
		switch {
		case q == '"' && src[i] == '\\':
			i++
		case src[i] == q:
			if q == '\'' && i+1 < len(src) && src[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(src)
}

// valueEnd is the offset past v in src: its token, or for a block collection of YAML or
// TOML (one that does not start with a bracket) the end of its last descendant.
func valueEnd(src []byte, v source.Value) int {
	start := v.Offset()
	for start < len(src) && src[start] != '{' && src[start] != '[' {
		n := v.Len()
		if (v.Kind() != source.Object && v.Kind() != source.Array) || n == 0 {
			break
		}
		if v.Kind() == source.Object {
			_, v = v.Member(n - 1)
		} else {
			v = v.Index(n - 1)
		}
		start = v.Offset()
	}
	return tokenEnd(src, v.Offset())
}
