package mcp

import (
	"encoding/json"
)

// maxDepth is the deepest JSON nesting a message may have. It is encoding/json's own limit, so
// a message within it always decodes; a deeper one is refused with a clear message.
const maxDepth = 10000

// exceedsDepth reports whether b nests arrays and objects deeper than limit. It does not
// validate b; strings (with escapes) are skipped so brackets inside them do not count.
func exceedsDepth(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end, ok := skipString(b, i)
			if !ok {
				return false
			}
			i = end - 1
		case '{', '[':
			depth++
			if depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// scanTopLevel reads the members of the top-level object in b without decoding nested values,
// so it works on messages encoding/json refuses (too deep) and on truncated prefixes. It
// returns the raw members found and whether the object was complete and well formed at the top
// level. Nested values are not validated.
func scanTopLevel(b []byte) (fields map[string][]byte, complete bool) {
	fields = map[string][]byte{}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fields, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return fields, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return fields, false
		}
		end, ok := skipString(b, i)
		if !ok {
			return fields, false
		}
		var key string
		if json.Unmarshal(b[i:end], &key) != nil {
			return fields, false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return fields, false
		}
		i = skipSpace(b, i+1)
		vend, ok := skipValue(b, i)
		if !ok {
			return fields, false
		}
		fields[key] = b[i:vend]
		i = skipSpace(b, vend)
		if i >= len(b) {
			return fields, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return fields, skipSpace(b, i+1) == len(b)
		default:
			return fields, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipValue returns the index just past the value starting at b[i], counting brackets
// iteratively (no recursion, so any depth is fine).
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				break
			}
			j++
		}
		if j == i || j == len(b) {
			// A scalar that runs to the end of the input may have been cut.
			return 0, false
		}
		return j, true
	}
}

// idKind classifies a raw JSON-RPC id.
type idKind int

const (
	idString idKind = iota
	idInteger
	idNull
	idInvalid
)

// classifyID tells whether raw is a valid MCP request id: a JSON string, or a number written as
// an integer literal (no fraction, no exponent).
func classifyID(raw []byte) idKind {
	if len(raw) == 0 {
		return idInvalid
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return idInvalid
		}
		return idString
	case c == '-' || (c >= '0' && c <= '9'):
		if isIntegerLiteral(raw) {
			return idInteger
		}
		return idInvalid
	case string(raw) == "null":
		return idNull
	}
	return idInvalid
}

// isIntegerLiteral reports whether b is a JSON integer: -?(0|[1-9][0-9]*).
func isIntegerLiteral(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	if b[i] == '0' {
		return i+1 == len(b)
	}
	for ; i < len(b); i++ {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

// idKey is the identity of a valid id for duplicate detection and cancellation: strings compare
// by value (so "\u0061" and "a" are the same id) and never equal a number.
func idKey(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return "s" + s
	}
	if string(raw) == "-0" {
		return "n0"
	}
	return "n" + string(raw)
}
