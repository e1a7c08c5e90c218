package diag

import (
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Group sums up findings that differ only by where they occur and by the values their
// messages quote: the same code, with the same message once quoted strings and numbers are
// set aside. A hundred "format "x-1" is not known" findings are one group of 100.
type Group struct {
	// Count is the number of findings in the group, on every page (listed or not).
	Count    int      `json:"count"`
	Code     string   `json:"code"`
	Severity Severity `json:"severity,omitempty"`
	// Pointer is where the findings are, with "*" for the tokens that vary and "/…"
	// ending it when the depth varies.
	Pointer string `json:"pointer,omitempty"`
	// Message is the findings' message, with "…" for the quoted values and numbers that
	// vary.
	Message string `json:"message"`
	// First locates the first findings of the group (up to GroupExamples).
	First []Location `json:"first"`
}

// Location is where one finding is.
type Location struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

// GroupExamples is how many locations a group lists; MaxGroups how many groups a Grouper
// makes (the findings that would make more are counted in one last group, Overflow).
const (
	GroupExamples = 3
	MaxGroups     = 1000
)

// Grouper collects groups of findings, one at a time: by a key (a code, a keyword and its
// schema location) and the shape of the message.
type Grouper struct {
	byKey     map[string]*grouped
	order     []*grouped
	ungrouped int
}

// Grouped is one group as a Grouper made it, with the data given with its first finding.
type Grouped struct {
	Key     string
	Data    any
	Count   int
	Pointer string
	Message string
	First   []Location
}

type grouped struct {
	Grouped
	literals    []string // the message around its values
	values      []string // the quoted values and numbers of the first message
	varies      []bool
	tokens      []string // the pointer of the first finding, split
	tokVaries   []bool
	depthVaries bool
	minDepth    int // the fewest tokens a pointer of the group had
}

// Add counts one finding: data is kept with the group it starts.
func (g *Grouper) Add(key string, data any, message, pointer string, at Location) {
	literals, values := SplitMessage(message)
	full := key + "\x00" + strings.Join(literals, "\x01")
	gr := g.byKey[full]
	tokens := strings.Split(pointer, "/")
	if gr == nil {
		if len(g.order) >= MaxGroups {
			g.ungrouped++
			return
		}
		if g.byKey == nil {
			g.byKey = map[string]*grouped{}
		}
		gr = &grouped{Grouped: Grouped{Key: key, Data: data}, literals: literals, values: values,
			varies: make([]bool, len(values)), tokens: tokens, tokVaries: make([]bool, len(tokens)), minDepth: len(tokens)}
		g.byKey[full] = gr
		g.order = append(g.order, gr)
	} else {
		for i, v := range values {
			if v != gr.values[i] {
				gr.varies[i] = true
			}
		}
		if len(tokens) != len(gr.tokens) {
			gr.depthVaries = true
			gr.minDepth = min(gr.minDepth, len(tokens))
		}
		for i := 0; i < len(tokens) && i < len(gr.tokens); i++ {
			if tokens[i] != gr.tokens[i] {
				gr.tokVaries[i] = true
			}
		}
	}
	gr.Count++
	if len(gr.First) < GroupExamples {
		gr.First = append(gr.First, at)
	}
}

// Overflow is the message of the last group, which counts the findings of more kinds than
// MaxGroups; its data is nil and it lists no location.
const Overflow = "findings of further kinds, beyond the first 1000"

// Groups returns the groups, the most frequent first (then in the order first seen), and
// last the Overflow group if there were findings of more kinds than MaxGroups.
func (g *Grouper) Groups() []Grouped {
	if len(g.order) == 0 {
		return nil
	}
	out := make([]Grouped, len(g.order))
	for i, gr := range g.order {
		out[i] = gr.Grouped
		var sb strings.Builder
		for j, lit := range gr.literals {
			sb.WriteString(lit)
			if j < len(gr.values) {
				switch {
				case !gr.varies[j]:
					sb.WriteString(gr.values[j])
				case strings.HasPrefix(gr.values[j], `"`):
					sb.WriteString(`"…"`)
				default:
					sb.WriteString("…")
				}
			}
		}
		out[i].Message = sb.String()
		tokens := make([]string, len(gr.tokens))
		for j, t := range gr.tokens {
			if gr.tokVaries[j] {
				t = "*"
			}
			tokens[j] = t
		}
		if gr.depthVaries {
			// the tokens all pointers share, then "…"
			n := 0
			for n < gr.minDepth && !gr.tokVaries[n] {
				n++
			}
			tokens = append(tokens[:n], "…")
			if n == 0 {
				tokens = []string{"", "…"}
			}
		}
		out[i].Pointer = strings.Join(tokens, "/")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	if g.ungrouped > 0 {
		out = append(out, Grouped{Count: g.ungrouped, Message: Overflow})
	}
	return out
}

// GroupDiagnostics groups diagnostics by code, severity and message shape.
func GroupDiagnostics(ds []Diagnostic) []Group {
	var g Grouper
	for _, d := range ds {
		g.Add(d.Code+"\x00"+string(d.Severity), [2]string{d.Code, string(d.Severity)}, d.Message, d.Pointer,
			Location{File: d.File, Line: d.Line, Column: d.Column, Pointer: d.Pointer})
	}
	var groups []Group
	for _, gr := range g.Groups() {
		group := Group{Count: gr.Count, Pointer: gr.Pointer, Message: gr.Message, First: gr.First}
		if cs, ok := gr.Data.([2]string); ok {
			group.Code, group.Severity = cs[0], Severity(cs[1])
		}
		if group.First == nil {
			group.First = []Location{}
		}
		groups = append(groups, group)
	}
	return groups
}

// TextGroups is how many groups WriteGroups prints.
const TextGroups = 10

// WriteGroups prints the groups that repeat (count 2 or more), at most TextGroups of them,
// one line each: "100 × lint/unknown-format at /properties/*/format: format "…" is not
// known; first at a.json:3:5, a.json:4:5, a.json:5:5".
func WriteGroups(w io.Writer, groups []Group) error {
	var sb strings.Builder
	shown, repeated, ungrouped := 0, 0, 0
	for _, g := range groups {
		if g.Code == "" && g.Message == Overflow {
			ungrouped = g.Count
			continue
		}
		if g.Count < 2 {
			continue
		}
		repeated++
		if shown == TextGroups {
			continue
		}
		shown++
		var first []string
		for _, l := range g.First {
			first = append(first, l.String())
		}
		at := ""
		if g.Pointer != "" {
			at = " at " + g.Pointer
		}
		sb.WriteString(strconv.Itoa(g.Count) + " × " + g.Code + at + ": " + g.Message + "; first at " + strings.Join(first, ", ") + "\n")
	}
	if repeated > shown {
		sb.WriteString("(" + strconv.Itoa(repeated-shown) + " more groups of repeated findings)\n")
	}
	if ungrouped > 0 {
		sb.WriteString("(" + strconv.Itoa(ungrouped) + " findings not grouped: there are more than " + strconv.Itoa(MaxGroups) + " kinds)\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// String is "file:line:column", or what of it is known.
func (l Location) String() string {
	s := l.File
	if l.Line > 0 {
		s += ":" + strconv.Itoa(l.Line)
		if l.Column > 0 {
			s += ":" + strconv.Itoa(l.Column)
		}
	}
	if s == "" {
		s = l.Pointer
	}
	return s
}

// SplitMessage splits a message into the text around its quoted strings and numbers, and
// those values: literals has one more element than values. Messages that differ only by
// their values have the same literals.
func SplitMessage(m string) (literals, values []string) {
	start := 0 // of the current literal
	for i := 0; i < len(m); {
		c := m[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(m) && m[j] != '"' {
				if m[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(m) {
				i = len(m) // an unterminated quote is text
				continue
			}
			literals = append(literals, m[start:i])
			values = append(values, m[i:j+1])
			i, start = j+1, j+1
		case isDigit(c) || c == '-' && i+1 < len(m) && isDigit(m[i+1]):
			if i > 0 && (isWordByte(m[i-1]) || m[i-1] == '-') {
				i++
				continue
			}
			j := i + 1
			for j < len(m) && (isDigit(m[j]) || m[j] == '.' && j+1 < len(m) && isDigit(m[j+1]) ||
				(m[j] == 'e' || m[j] == 'E') && j+1 < len(m) && (isDigit(m[j+1]) || m[j+1] == '-' || m[j+1] == '+')) {
				if m[j] == 'e' || m[j] == 'E' {
					j++
				}
				j++
			}
			if j < len(m) && (isWordByte(m[j]) || m[j] == '-' && j+1 < len(m) && isDigit(m[j+1])) {
				for j < len(m) && (isWordByte(m[j]) || m[j] == '-') {
					j++
				}
				i = j // part of a word, such as 2020-12 or 3a
				continue
			}
			literals = append(literals, m[start:i])
			values = append(values, m[i:j])
			i, start = j, j
		default:
			_, size := utf8.DecodeRuneInString(m[i:])
			i += size
		}
	}
	return append(literals, m[start:]), values
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= utf8.RuneSelf
}
