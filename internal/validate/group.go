package validate

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Group sums up errors that differ only by where they occur and by the values their
// messages quote: the same keyword at the same schema location, with the same message once
// quoted strings and numbers are set aside. Ten thousand NDJSON lines whose id fails the
// same pattern are one group with count 10000.
type Group struct {
	// Count is the number of errors in the group, in every instance checked (listed on
	// the page asked for or not).
	Count int `json:"count"`
	// Keyword and KeywordLocation are those of every error of the group.
	Keyword         string `json:"keyword"`
	KeywordLocation string `json:"keywordLocation"`
	// InstanceLocation is where the errors are, with "*" for the tokens that vary (array
	// indices, property names) and "/…" ending it when the depth varies.
	InstanceLocation string `json:"instanceLocation"`
	// Message is the errors' message, with "…" for the quoted values and numbers that vary.
	Message string `json:"message"`
	// First locates the first errors of the group (up to GroupExamples).
	First []Occurrence `json:"first"`
}

// Occurrence locates one error.
type Occurrence struct {
	File             string `json:"file"`
	Line             int    `json:"line,omitempty"`
	Column           int    `json:"column,omitempty"`
	InstanceLocation string `json:"instanceLocation"`
}

// GroupExamples is how many occurrences a group lists; MaxGroups how many groups a run
// keeps (the errors that would make more are counted in Result.Ungrouped).
const (
	GroupExamples = 3
	MaxGroups     = 1000
)

// grouper collects the groups of a run, one instance at a time.
type grouper struct {
	byKey     map[string]*group
	order     []*group
	ungrouped int
}

type group struct {
	Group
	slots       []string // the quoted values and numbers of the first message
	varies      []bool   // whether the slot varies
	literals    []string // the message around the slots
	tokens      []string // the instance location of the first error, split
	tokVaries   []bool
	depthVaries bool
}

// add counts the top-level errors of an instance (its causes belong to them).
func (g *grouper) add(in *Instance) {
	for i := range in.Errors {
		g.addError(in.File, &in.Errors[i])
	}
}

func (g *grouper) addError(file string, e *Error) {
	literals, slots := splitMessage(e.Message)
	key := e.Keyword + "\x00" + e.KeywordLocation + "\x00" + strings.Join(literals, "\x01")
	gr := g.byKey[key]
	if gr == nil {
		if len(g.order) >= MaxGroups {
			g.ungrouped++
			return
		}
		if g.byKey == nil {
			g.byKey = map[string]*group{}
		}
		tokens := strings.Split(e.InstanceLocation, "/")
		gr = &group{Group: Group{Keyword: e.Keyword, KeywordLocation: e.KeywordLocation},
			slots: slots, varies: make([]bool, len(slots)), literals: literals,
			tokens: tokens, tokVaries: make([]bool, len(tokens))}
		g.byKey[key] = gr
		g.order = append(g.order, gr)
	} else {
		for i, s := range slots {
			if s != gr.slots[i] {
				gr.varies[i] = true
			}
		}
		tokens := strings.Split(e.InstanceLocation, "/")
		if len(tokens) != len(gr.tokens) {
			gr.depthVaries = true
		}
		for i := 0; i < len(tokens) && i < len(gr.tokens); i++ {
			if tokens[i] != gr.tokens[i] {
				gr.tokVaries[i] = true
			}
		}
	}
	gr.Count++
	if len(gr.First) < GroupExamples {
		gr.First = append(gr.First, Occurrence{File: file, Line: e.Line, Column: e.Column, InstanceLocation: e.InstanceLocation})
	}
}

// groups returns the groups, the most frequent first (then in the order first seen).
func (g *grouper) groups() []Group {
	if len(g.order) == 0 {
		return nil
	}
	out := make([]Group, len(g.order))
	for i, gr := range g.order {
		out[i] = gr.Group
		var sb strings.Builder
		for j, lit := range gr.literals {
			sb.WriteString(lit)
			if j < len(gr.slots) {
				switch {
				case !gr.varies[j]:
					sb.WriteString(gr.slots[j])
				case strings.HasPrefix(gr.slots[j], `"`):
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
			tokens = append(tokens, "…")
		}
		out[i].InstanceLocation = strings.Join(tokens, "/")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// splitMessage splits a message into the text around its quoted strings and numbers, and
// those values ("slots"): literals has one more element than slots.
func splitMessage(m string) (literals, slots []string) {
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
			slots = append(slots, m[i:j+1])
			i, start = j+1, j+1
		case isDigit(c) || c == '-' && i+1 < len(m) && isDigit(m[i+1]):
			if i > 0 && isWordByte(m[i-1]) {
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
			if j < len(m) && isWordByte(m[j]) {
				i = j // part of a word, such as 2020-12 or a3
				continue
			}
			literals = append(literals, m[start:i])
			slots = append(slots, m[i:j])
			i, start = j, j
		default:
			_, size := utf8.DecodeRuneInString(m[i:])
			i += size
		}
	}
	return append(literals, m[start:]), slots
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= utf8.RuneSelf
}

// writeGroups prints the groups of repeated errors (count 2 or more), at most
// textGroups of them, as the summary of a long report.
func (t *TextWriter) writeGroups(groups []Group, ungrouped int) {
	shown, repeated := 0, 0
	for _, g := range groups {
		if g.Count < 2 {
			continue
		}
		repeated++
		if shown == textGroups {
			continue
		}
		shown++
		kw := g.Keyword
		if kw == "" {
			kw = "false"
		}
		at := g.InstanceLocation
		if at == "" {
			at = "(root)"
		}
		var first []string
		for _, o := range g.First {
			first = append(first, diagLocation(o.File, o.Line, o.Column))
		}
		t.printf("%d × %s at %s: %s; first at %s\n", g.Count, kw, at, g.Message, strings.Join(first, ", "))
	}
	if repeated > shown {
		t.printf("(%d more groups of repeated errors)\n", repeated-shown)
	}
	if ungrouped > 0 {
		t.printf("(%s not grouped: the run has more than %d kinds of error)\n", plural(ungrouped, "error", "errors"), MaxGroups)
	}
}

// textGroups is how many groups the text report prints.
const textGroups = 10
