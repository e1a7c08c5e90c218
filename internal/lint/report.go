package lint

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
)

// RuleInfo describes a rule in a listing (jstk lint --list).
type RuleInfo struct {
	ID       string        `json:"id"`
	Category Category      `json:"category"`
	Severity diag.Severity `json:"severity"`
	// Enabled says whether the rule runs with the configuration given.
	Enabled bool   `json:"enabled"`
	Fixable bool   `json:"fixable"`
	Summary string `json:"summary"`
	// Peer names the sourcemeta CLI rules this rule covers.
	Peer []string `json:"peer,omitempty"`
}

// List describes every rule under a configuration: whether it is enabled and at which
// severity.
func List(settings map[string]Setting) ([]RuleInfo, error) {
	sev, err := resolveSettings(settings)
	if err != nil {
		return nil, err
	}
	out := make([]RuleInfo, 0, len(rules))
	for _, r := range rules {
		s, on := sev[r.ID]
		if !on {
			s = r.Severity
		}
		out = append(out, RuleInfo{ID: r.ID, Category: r.Category, Severity: s, Enabled: on, Fixable: r.Fixable,
			Summary: r.Summary, Peer: r.Peer})
	}
	return out, nil
}

// Output is a fixed document the CLI may write.
type Output struct {
	Path string
	Data []byte
}

// Outputs returns the fixed documents (with Options.Fix).
func (r *Result) Outputs() []Output {
	out := make([]Output, len(r.outputs))
	for i, o := range r.outputs {
		out[i] = Output{Path: o.path, Data: o.data}
	}
	return out
}

// ExitCode is the CLI's exit status: 2 when a document could not be read, 1 when a finding
// is at or above the fail-on severity, else 0.
func (r *Result) ExitCode() int {
	if r.Summary.Unreadable > 0 {
		return 2
	}
	failOn := r.FailOn
	if failOn == "" {
		failOn = diag.Warning
	}
	for _, f := range r.Findings {
		if f.Severity.Rank() >= failOn.Rank() {
			return 1
		}
	}
	if r.Page != nil && r.Summary.Findings > 0 {
		// Findings left out of the page still count.
		switch {
		case failOn == diag.Info:
			return 1
		case failOn == diag.Warning && r.Summary.Errors+r.Summary.Warnings > 0:
			return 1
		case r.Summary.Errors > 0:
			return 1
		}
	}
	return 0
}

// Diagnostics lists one diagnostic per finding and per unreadable document.
func (r *Result) Diagnostics() []diag.Diagnostic {
	out := make([]diag.Diagnostic, 0, len(r.Findings)+len(r.Problems))
	for _, p := range r.Problems {
		out = append(out, diag.Diagnostic{Code: "lint/unreadable", Severity: diag.Error, Message: p.Message, File: p.File})
	}
	for _, f := range r.Findings {
		out = append(out, diag.Diagnostic{Code: "lint/" + f.Rule, Severity: f.Severity, Message: f.Message,
			File: f.File, Line: f.Line, Column: f.Column, Pointer: f.Pointer, Keyword: f.Keyword})
	}
	return out
}

// Cut keeps findings [offset, offset+limit) and records the page; the summary still
// counts all.
func (r *Result) Cut(offset, limit int) {
	if list, page := diag.Cut(r.Findings, offset, limit); page != nil {
		r.Findings, r.Page = list, page
	}
}

// PageItems counts the findings held (diag.Pager).
func (r *Result) PageItems() (int, string, string) { return len(r.Findings), "finding", "findings" }

// PageRecord is the result's page record (diag.Pager).
func (r *Result) PageRecord() *diag.Page { return r.Page }

// KeepFirst is a copy that holds only the first k findings (diag.Pager).
func (r *Result) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Findings, c.Page = diag.Keep(r.Findings, k, limit, r.Page)
	return &c
}

// WriteText prints the human report: one line per finding, the documents that could not
// be read, what was fixed, and a summary.
func (r *Result) WriteText(w io.Writer) error {
	if r.Rules != nil {
		return WriteRules(w, r.Rules)
	}
	tw := &textWriter{w: w}
	for _, p := range r.Problems {
		tw.printf("%s: error: %s [unreadable]\n", p.File, strings.TrimPrefix(p.Message, p.File+": "))
	}
	for _, f := range r.Findings {
		loc := f.File
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column)
		}
		ptr := f.Pointer
		if ptr == "" {
			ptr = "(root)"
		}
		fixable := ""
		if f.Fix != nil {
			fixable = ", fixable"
		}
		tw.printf("%s: %s: %s: %s [%s%s]\n", loc, f.Severity, ptr, f.Message, f.Rule, fixable)
	}
	if r.Page != nil {
		tw.printf("(%d of %d findings shown; ask for more with offset and limit)\n", len(r.Findings), r.Page.Total)
	}
	for _, fx := range r.Fixed {
		if fx.Skipped != "" {
			tw.printf("%s: not fixed: %s\n", fx.File, fx.Skipped)
		} else {
			tw.printf("%s: applied %s\n", fx.File, diag.Plural(fx.Applied, "fix", "fixes"))
		}
	}
	s := r.Summary
	parts := []string{}
	for _, p := range []struct {
		n          int
		one, other string
	}{{s.Errors, "error", "errors"}, {s.Warnings, "warning", "warnings"}, {s.Infos, "info", "infos"}} {
		if p.n > 0 {
			parts = append(parts, diag.Plural(p.n, p.one, p.other))
		}
	}
	head := diag.Plural(s.Files, "schema", "schemas") + " linted"
	if s.Unreadable > 0 {
		head += fmt.Sprintf(" (%d unreadable)", s.Unreadable)
	}
	if len(parts) == 0 {
		tw.printf("%s: no findings\n", head)
	} else {
		tail := ""
		if s.Fixable > 0 {
			tail = fmt.Sprintf("; %d fixable with --fix", s.Fixable)
		}
		tw.printf("%s: %s%s\n", head, strings.Join(parts, ", "), tail)
	}
	return tw.err
}

type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// WriteRules prints a rule listing as text.
func WriteRules(w io.Writer, infos []RuleInfo) error {
	tw := &textWriter{w: w}
	cat := Category("")
	enabled := 0
	for i, ri := range infos {
		if ri.Category != cat {
			cat = ri.Category
			if i > 0 {
				tw.printf("\n")
			}
			tw.printf("%s\n", strings.ToUpper(string(cat)))
		}
		state := string(ri.Severity)
		if !ri.Enabled {
			state = "off"
		} else {
			enabled++
		}
		fixable := ""
		if ri.Fixable {
			fixable = " (fixable)"
		}
		tw.printf("  %-36s %-8s %s%s\n", ri.ID, state, ri.Summary, fixable)
	}
	tw.printf("\n%d rules, %d enabled. Configure them in jstk.json (\"lint\": {\"rules\": {\"<id>\": \"off\"}}) or with --rules id=off.\n",
		len(infos), enabled)
	return tw.err
}
