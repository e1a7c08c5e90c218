// Package diag owns the one diagnostic model every engine reports with, and the printers
// that turn a report into text, JSON, SARIF or GitHub workflow annotations.
//
// An engine's result implements Report: its own text rendering (the human report, which MCP
// also returns as content), its JSON form (the struct itself, which MCP returns as
// structuredContent), and a flat list of Diagnostics for the SARIF and GitHub printers.
package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Severity ranks a diagnostic.
type Severity string

// The severities, from most to least severe.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Rank orders severities: error 3, warning 2, info 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// ParseSeverity reads a severity name.
func ParseSeverity(s string) (Severity, bool) {
	switch Severity(strings.ToLower(s)) {
	case Error:
		return Error, true
	case Warning:
		return Warning, true
	case Info:
		return Info, true
	}
	return "", false
}

// Diagnostic is one finding, located in a file.
type Diagnostic struct {
	// Code is a stable kebab-case identifier from an engine's rule table, e.g.
	// "validate/type" or "diff/required-added".
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	// Pointer is the JSON Pointer of the value the diagnostic is about, in File.
	Pointer string `json:"pointer"`
	// Keyword is the JSON Schema keyword involved, if any.
	Keyword string    `json:"keyword,omitempty"`
	Related []Related `json:"related,omitempty"`
}

// Related is another place that explains a diagnostic (the schema keyword an instance
// failed, the old version of a changed schema, ...).
type Related struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

// Location renders "file:line:column", leaving out what is unknown.
func (d *Diagnostic) Location() string {
	return location(d.File, d.Line, d.Column)
}

func location(file string, line, col int) string {
	s := file
	if s == "" {
		s = "<input>"
	}
	if line > 0 {
		s += ":" + strconv.Itoa(line)
		if col > 0 {
			s += ":" + strconv.Itoa(col)
		}
	}
	return s
}

// Sort orders diagnostics by file, line, column, then code, for stable output.
func Sort(ds []Diagnostic) {
	SortBy(ds, func(d *Diagnostic) Place { return Place{File: d.File, Line: d.Line, Column: d.Column, Code: d.Code} })
}

// Place holds the keys of the one order of findings: where they are, then what they are.
type Place struct {
	// File, Line and Column are where the finding is (0: unknown, first).
	File         string
	Line, Column int
	// Pointer is the JSON Pointer of what it is about, for findings at one position.
	Pointer string
	// Code is its rule or code, last.
	Code string
}

// SortBy orders findings of any type (an engine's own: lint's) by the place each has: file,
// line, column, pointer, then code; findings at one place keep their order.
func SortBy[T any](xs []T, place func(*T) Place) {
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := place(&xs[i]), place(&xs[j])
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Code < b.Code
	})
}

// Report is what an engine's result offers the printers.
type Report interface {
	// WriteText writes the human report.
	WriteText(w io.Writer) error
	// Diagnostics lists the findings.
	Diagnostics() []Diagnostic
}

// Tool names the program in SARIF output.
type Tool struct {
	Name    string
	Version string
	URI     string
	Rules   []Rule // the rule table, for SARIF's rule metadata
}

// Rule describes one diagnostic code.
type Rule struct {
	Code        string
	Description string
	Severity    Severity
}

// Write prints a report in a format.
func Write(w io.Writer, f Format, r Report, tool Tool) error {
	switch f {
	case Text, "":
		return r.WriteText(w)
	case JSON:
		return WriteJSON(w, r)
	case SARIF:
		return WriteSARIF(w, tool, r.Diagnostics())
	case GitHub:
		return WriteGitHub(w, r.Diagnostics())
	}
	return fmt.Errorf("unknown output format %q (%s)", f, Join(Common(false), ", "))
}

// WriteJSON prints v as indented JSON followed by a newline, as json.Encoder does with a
// two-space indent and no HTML escaping, except that values nested deeper than
// MaxIndentDepth levels are written compact: indenting a result that holds a document
// nested thousands of levels deep (an inferred or bundled schema) would take space
// quadratic in its depth.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := appendIndented(make([]byte, 0, buf.Len()+buf.Len()/2), bytes.TrimSuffix(buf.Bytes(), []byte("\n")), MaxIndentDepth)
	_, err := w.Write(append(out, '\n'))
	return err
}

// MaxIndentDepth is the deepest level WriteJSON indents (as source.MaxIndentDepth).
const MaxIndentDepth = 64

// appendIndented appends the compact JSON text src indented as json.Indent does (no prefix,
// two spaces), down to maxDepth levels of nesting; the containers below are copied as
// they are.
func appendIndented(dst, src []byte, maxDepth int) []byte {
	newline := func(dst []byte, depth int) []byte {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, "  "...)
		}
		return dst
	}
	open := 0     // containers open
	compact := -1 // when >= 0, the containers open before the one written compact
	inStr, esc := false, false
	for i, c := range src {
		if inStr {
			dst = append(dst, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			dst = append(dst, c)
		case '{', '[':
			if compact < 0 && open >= maxDepth {
				compact = open
			}
			open++
			dst = append(dst, c)
			if compact < 0 && i+1 < len(src) && src[i+1] != '}' && src[i+1] != ']' {
				dst = newline(dst, open)
			}
		case '}', ']':
			open--
			if compact < 0 && src[i-1] != '{' && src[i-1] != '[' {
				dst = newline(dst, open)
			}
			dst = append(dst, c)
			if compact == open {
				compact = -1
			}
		case ',':
			dst = append(dst, c)
			if compact < 0 {
				dst = newline(dst, open)
			}
		case ':':
			dst = append(dst, c)
			if compact < 0 {
				dst = append(dst, ' ')
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// WriteGitHub prints GitHub Actions workflow commands, one annotation per diagnostic.
func WriteGitHub(w io.Writer, ds []Diagnostic) error {
	for _, d := range ds {
		level := "error"
		switch d.Severity {
		case Warning:
			level = "warning"
		case Info:
			level = "notice"
		}
		var props []string
		if d.File != "" {
			props = append(props, "file="+ghProperty(d.File))
		}
		if d.Line > 0 {
			props = append(props, "line="+strconv.Itoa(d.Line))
		}
		if d.Column > 0 {
			props = append(props, "col="+strconv.Itoa(d.Column))
		}
		if d.Code != "" {
			props = append(props, "title="+ghProperty(d.Code))
		}
		msg := d.Message
		if d.Pointer != "" {
			msg = d.Pointer + ": " + msg
		}
		line := "::" + level
		if len(props) > 0 {
			line += " " + strings.Join(props, ",")
		}
		if _, err := fmt.Fprintf(w, "%s::%s\n", line, ghData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
