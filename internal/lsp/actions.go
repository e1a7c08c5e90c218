package lsp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// textEdit is an LSP text edit.
type textEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// fixData is what a diagnostic carries (its data) for code actions: a title and the
// edits of one fix of its document.
type fixData struct {
	Title string     `json:"title"`
	Edits []textEdit `json:"edits"`
}

type codeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        map[string]any `json:"edit"`
}

// withData attaches a fix to a diagnostic.
func withData(d *Diagnostic, f fixData) {
	if b, err := json.Marshal(f); err == nil {
		d.Data = b
	}
}

// lintFixes attaches lint's safe fixes (those jstk lint --fix applies: proven to keep the
// set of valid instances, JSON documents only) to the diagnostics of the same findings.
// findings and diags are in the same order.
func lintFixes(t *text, findings []lint.Finding, diags []Diagnostic) {
	for i := range findings {
		f := findings[i].Fix
		if f == nil || len(f.Edits) == 0 || i >= len(diags) {
			continue
		}
		var edits []textEdit
		for _, e := range f.Edits {
			a, b := t.fromLineCol(e.Line, e.Column), t.fromLineCol(e.EndLine, e.EndColumn)
			edits = append(edits, textEdit{Range: Range{Start: t.position(a), End: t.position(b)}, NewText: e.NewText})
		}
		withData(&diags[i], fixData{Title: "Fix: " + f.Description, Edits: edits})
	}
}

// didYouMean attaches, to the validation errors about a member name that the schema does
// not allow and about a string not in an enum, the rename to the nearest name or value the
// schema knows.
func (s *Server) didYouMean(p *parsed, schemaName string, ptrs []string, diags []Diagnostic) {
	r := s.schemaReader()
	for i := range diags {
		d := &diags[i]
		if i >= len(ptrs) {
			break
		}
		toks, ok := source.SplitPointer(ptrs[i])
		if !ok || len(toks) == 0 {
			continue
		}
		a, okA := p.t.offset(d.Range.Start)
		b, okB := p.t.offset(d.Range.End)
		if !okA || !okB || b <= a {
			continue
		}
		old := p.t.s[a:b]
		switch d.Code {
		case "additionalProperties", "unevaluatedProperties":
			var names []string
			for _, n := range r.schemaFor(schemaName, toks[:len(toks)-1]) {
				if props, ok := n.v.Get("properties"); ok && props.Kind() == source.Object {
					for j := 0; j < props.Len(); j++ {
						names = append(names, props.Key(j))
					}
				}
			}
			name := toks[len(toks)-1]
			if best := closest(name, names); best != "" && best != name {
				withData(d, fixData{Title: "Did you mean " + strconv.Quote(best) + "?",
					Edits: []textEdit{{Range: d.Range, NewText: requote(old, best)}}})
			}
		case "enum":
			var values []string
			for _, n := range r.schemaFor(schemaName, toks) {
				if e, ok := n.v.Get("enum"); ok && e.Kind() == source.Array {
					for _, x := range e.Items() {
						if x.Kind() == source.String {
							values = append(values, x.Str())
						}
					}
				}
			}
			if !strings.HasPrefix(old, `"`) && !strings.HasPrefix(old, "'") && p.format != source.YAML {
				continue // not a string
			}
			cur := strings.Trim(old, `"'`)
			if best := closest(cur, values); best != "" && best != cur {
				withData(d, fixData{Title: "Did you mean " + strconv.Quote(best) + "?",
					Edits: []textEdit{{Range: d.Range, NewText: requote(old, best)}}})
			}
		}
	}
}

// requote writes s quoted as old was: JSON's double quotes, YAML's single quotes, or plain.
func requote(old, s string) string {
	switch {
	case strings.HasPrefix(old, `"`):
		b, _ := json.Marshal(s)
		return string(b)
	case strings.HasPrefix(old, "'"):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// codeActions answers textDocument/codeAction with the fixes the diagnostics in the
// request's context carry.
func (s *Server) codeActions(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
		Context      struct {
			Diagnostics []Diagnostic `json:"diagnostics"`
		} `json:"context"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	out := []codeAction{}
	for _, d := range p.Context.Diagnostics {
		if len(d.Data) == 0 || d.Source != "jstk" {
			continue
		}
		var f fixData
		if json.Unmarshal(d.Data, &f) != nil || len(f.Edits) == 0 {
			continue
		}
		out = append(out, codeAction{Title: f.Title, Kind: "quickfix", Diagnostics: []Diagnostic{d}, IsPreferred: true,
			Edit: map[string]any{"changes": map[string][]textEdit{p.TextDocument.URI: f.Edits}}})
	}
	return out, nil
}

// closest is the candidate nearest to word when one is near enough to be what was meant:
// within an edit distance of a third of its length (at least 1, at most 3), the nearest
// first, then the first in order.
func closest(word string, candidates []string) string {
	best, bestD := "", 4
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d <= min(max(1, len(c)/3), 3) && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b, in bytes (a swap of
// two neighbours counts one).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// schemaTypes are the names the type keyword takes.
var schemaTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// schemaDidYouMean attaches, to lint's findings in a schema, the rename of a misspelt
// keyword to the keyword of the draft it is nearest (lint names it in its message), and of
// a type name that no draft knows to the nearest one.
func schemaDidYouMean(p *parsed, ds []diag.Diagnostic, out []Diagnostic) {
	for i := range out {
		if i >= len(ds) || len(p.docs) == 0 {
			break
		}
		toks, ok := source.SplitPointer(ds[i].Pointer)
		if !ok || len(toks) == 0 {
			continue
		}
		doc := p.docs[0]
		d := draftOf(doc)
		last := toks[len(toks)-1]
		switch {
		case out[i].Code == "misspelled-keyword":
			var names []string
			for _, k := range schema.Keywords() {
				if k.Drafts.Has(d) {
					names = append(names, k.Name)
				}
			}
			if best := closest(last, names); best != "" && best != last {
				a, _ := p.t.offset(out[i].Range.Start)
				b, _ := p.t.offset(out[i].Range.End)
				withData(&out[i], fixData{Title: "Did you mean " + strconv.Quote(best) + "?",
					Edits: []textEdit{{Range: out[i].Range, NewText: requote(p.t.s[a:b], best)}}})
			}
		case out[i].Code == "invalid-schema" && last == "type":
			v, ok := doc.Root.Pointer(ds[i].Pointer)
			if !ok || v.Kind() != source.String {
				continue
			}
			if best := closest(v.Str(), schemaTypes); best != "" && best != v.Str() {
				start, end := p.bases[0]+v.Offset(), p.bases[0]+tokenEnd(doc.Source(), v.Offset())
				r := Range{Start: p.t.position(start), End: p.t.position(end)}
				withData(&out[i], fixData{Title: "Did you mean " + strconv.Quote(best) + "?",
					Edits: []textEdit{{Range: r, NewText: requote(p.t.s[start:end], best)}}})
			}
		}
	}
}
