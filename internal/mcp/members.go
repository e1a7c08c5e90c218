package mcp

import (
	"encoding/json"
	"unicode/utf8"
)

// members returns the members of obj, a JSON object that json.Valid accepted, as
// json.Unmarshal into a map[string]json.RawMessage returns them: keys unescaped, a later
// member replacing an earlier one of the same key, each value its exact text (sharing obj's
// memory). One pass without validation: the message was validated once as a whole. (Decoding
// the message into a map took 10 us of a warm call, and params and params._meta, each
// validated again, 5 us more: a Go profile of the server.)
func members(obj []byte) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, 8)
	i := skipSpaces(obj, 1)
	if obj[i] == '}' {
		return m
	}
	for {
		end := stringEnd(obj, i)
		key := unquote(obj[i:end])
		i = skipSpaces(obj, end)
		i = skipSpaces(obj, i+1) // the colon
		end = valueEnd(obj, i)
		m[key] = obj[i:end:end]
		i = skipSpaces(obj, end)
		if obj[i] == '}' {
			return m
		}
		i = skipSpaces(obj, i+1) // the comma
	}
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts (with its quote) at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index after the value that starts at i.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}

// unquote decodes a valid JSON string (with its quotes).
func unquote(raw []byte) string {
	if s, ok := plainString(raw); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// plainString returns the content of a JSON string (with its quotes) that has no escape
// and only printable ASCII or valid UTF-8, which it stands for as it is; ok is false for
// any other.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '\\' || c == '"' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}
