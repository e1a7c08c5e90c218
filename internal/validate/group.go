package validate

import (
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
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
	// First locates the first errors of the group (up to diag.GroupExamples).
	First []Occurrence `json:"first"`
}

// Occurrence locates one error.
type Occurrence struct {
	File             string `json:"file"`
	Line             int    `json:"line,omitempty"`
	Column           int    `json:"column,omitempty"`
	InstanceLocation string `json:"instanceLocation"`
}

// MaxGroups is how many groups a run makes (the errors that would make more are counted in
// one last group, whose message is diag.Overflow).
const MaxGroups = diag.MaxGroups

// grouper collects the groups of a run, one instance at a time.
type grouper struct{ g diag.Grouper }

// add counts the top-level errors of an instance (its causes belong to them).
func (g *grouper) add(in *Instance) {
	for i := range in.Errors {
		e := &in.Errors[i]
		// the data is a copy: a pointer into the instance would keep all of it
		g.g.Add(e.Keyword+"\x00"+e.KeywordLocation, [2]string{e.Keyword, e.KeywordLocation}, e.Message, e.InstanceLocation,
			diag.Location{File: in.File, Line: e.Line, Column: e.Column, Pointer: e.InstanceLocation})
	}
}

// groups returns the groups, the most frequent first (then in the order first seen), and
// last the diag.Overflow group if there were errors of more kinds than MaxGroups.
func (g *grouper) groups() []Group {
	var out []Group
	for _, gr := range g.g.Groups() {
		group := Group{Count: gr.Count, InstanceLocation: gr.Pointer, Message: gr.Message, First: []Occurrence{}}
		if kw, ok := gr.Data.([2]string); ok {
			group.Keyword, group.KeywordLocation = kw[0], kw[1]
		}
		for _, l := range gr.First {
			group.First = append(group.First, Occurrence{File: l.File, Line: l.Line, Column: l.Column, InstanceLocation: l.Pointer})
		}
		out = append(out, group)
	}
	return out
}

// writeGroups prints the groups of repeated errors (count 2 or more), at most
// textGroups of them, as the summary of a long report.
func (t *TextWriter) writeGroups(groups []Group) {
	shown, repeated, ungrouped := 0, 0, 0
	for _, g := range groups {
		if g.Keyword == "" && g.Message == diag.Overflow {
			ungrouped = g.Count
			continue
		}
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
			first = append(first, diag.Position(o.File, o.Line, o.Column))
		}
		t.printf("%d × %s at %s: %s; first at %s\n", g.Count, kw, at, g.Message, strings.Join(first, ", "))
	}
	if repeated > shown {
		t.printf("(%d more groups of repeated errors)\n", repeated-shown)
	}
	if ungrouped > 0 {
		t.printf("(%s not grouped: the run has more than %d kinds of error)\n", diag.Plural(ungrouped, "error", "errors"), MaxGroups)
	}
}

// textGroups is how many groups the text report prints.
const textGroups = diag.TextGroups
