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
	inStr, esc := false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// topScanner reads the members of a top-level JSON object fed in pieces, in constant memory,
// without decoding nested values: it works on messages too deep for encoding/json, on
// truncated prefixes, and on lines too long to keep. It records which of the members "id",
// "method", "result" and "error" are present and keeps the raw id (up to maxIDBytes). Nested
// values are not validated.
type topScanner struct {
	state   scanState
	depth   int  // nesting inside the current value
	inStr   bool // inside a string of the current value
	esc     bool // after a backslash inside a string
	key     []byte
	keyLong bool
	capture bool // the current value is the id
	id      []byte
	idLong  bool

	hasID, hasMethod, hasResult, hasError bool
}

type scanState int

const (
	sStart scanState = iota
	sKeyOrEnd
	sKeyNext
	sKey
	sColon
	sValueStart
	sValue
	sScalar
	sAfterValue
	sDone
	sBroken
)

const (
	maxKeyBytes = 256
	maxIDBytes  = 4096
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// Write feeds the next piece of the message; it never fails.
func (t *topScanner) Write(p []byte) (int, error) {
	for _, c := range p {
		t.step(c)
	}
	return len(p), nil
}

func (t *topScanner) step(c byte) {
	switch t.state {
	case sStart:
		if c == '{' {
			t.state = sKeyOrEnd
		} else if !isSpace(c) {
			t.state = sBroken
		}
	case sKeyOrEnd, sKeyNext:
		switch {
		case c == '"':
			t.state, t.key, t.keyLong, t.esc = sKey, t.key[:0], false, false
		case c == '}' && t.state == sKeyOrEnd:
			t.state = sDone
		case !isSpace(c):
			t.state = sBroken
		}
	case sKey:
		t.stepKey(c)
	case sColon:
		if c == ':' {
			t.state = sValueStart
		} else if !isSpace(c) {
			t.state = sBroken
		}
	case sValueStart:
		t.stepValueStart(c)
	case sValue:
		t.stepValue(c)
	case sScalar:
		if c == ',' || c == '}' || isSpace(c) {
			t.state = sAfterValue
			t.step(c)
			return
		}
		t.keep(c)
	case sAfterValue:
		switch {
		case c == ',':
			t.state = sKeyNext
		case c == '}':
			t.state = sDone
		case !isSpace(c):
			t.state = sBroken
		}
	case sDone:
		if !isSpace(c) {
			t.state = sBroken
		}
	}
}

// stepKey takes a byte of a member's name.
func (t *topScanner) stepKey(c byte) {
	if !t.esc && c == '"' {
		t.state = sColon
		return
	}
	t.esc = !t.esc && c == '\\'
	if len(t.key) < maxKeyBytes {
		t.key = append(t.key, c)
	} else {
		t.keyLong = true
	}
}

// stepValueStart takes a byte where a member's value may start.
func (t *topScanner) stepValueStart(c byte) {
	if isSpace(c) {
		return
	}
	t.startValue()
	t.keep(c)
	switch c {
	case '"':
		t.state, t.inStr, t.esc, t.depth = sValue, true, false, 0
	case '{', '[':
		t.state, t.inStr, t.depth = sValue, false, 1
	case ',', '}', ']', ':':
		t.state = sBroken
	default:
		t.state = sScalar
	}
}

// stepValue takes a byte of a string, object or array value.
func (t *topScanner) stepValue(c byte) {
	t.keep(c)
	if t.inStr {
		switch {
		case t.esc:
			t.esc = false
		case c == '\\':
			t.esc = true
		case c == '"':
			t.inStr = false
			if t.depth == 0 {
				t.state = sAfterValue
			}
		}
		return
	}
	switch c {
	case '"':
		t.inStr, t.esc = true, false
	case '{', '[':
		t.depth++
	case '}', ']':
		t.depth--
		if t.depth == 0 {
			t.state = sAfterValue
		}
	}
}

// startValue notes which member the value that starts now belongs to.
func (t *topScanner) startValue() {
	t.capture = false
	if t.keyLong {
		return
	}
	var name string
	if json.Unmarshal(append(append([]byte{'"'}, t.key...), '"'), &name) != nil {
		return
	}
	switch name {
	case "id":
		t.hasID, t.capture, t.id, t.idLong = true, true, t.id[:0], false
	case "method":
		t.hasMethod = true
	case "result":
		t.hasResult = true
	case "error":
		t.hasError = true
	}
}

func (t *topScanner) keep(c byte) {
	if !t.capture {
		return
	}
	if len(t.id) < maxIDBytes {
		t.id = append(t.id, c)
	} else {
		t.idLong = true
	}
}

// complete reports whether the input so far is one whole object at the top level.
func (t *topScanner) complete() bool { return t.state == sDone }

// validID returns the raw id when it was read whole and is a valid request id.
func (t *topScanner) validID() json.RawMessage {
	if !t.hasID || t.idLong {
		return nil
	}
	if k := classifyID(t.id); k == idString || k == idInteger {
		return json.RawMessage(t.id)
	}
	return nil
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
