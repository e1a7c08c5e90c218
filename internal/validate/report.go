package validate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
)

// Rules lists the diagnostic codes validate reports, for SARIF and the docs: one per
// keyword that can fail (schema.Keyword.Fails, in the model's order), plus a value where the schema allows none and an unreadable
// instance. The table is made on the first call and must not be modified.
var Rules = sync.OnceValue(func() []diag.Rule {
	var rules []diag.Rule
	seen := map[string]bool{}
	for _, k := range schema.Keywords() {
		if !k.Fails || seen[k.Name] {
			continue
		}
		seen[k.Name] = true
		rules = append(rules, diag.Rule{Code: "validate/" + k.Name, Severity: diag.Error,
			Description: "An instance fails the schema keyword " + k.Name + "."})
	}
	return append(rules,
		diag.Rule{Code: "validate/false-schema", Description: "An instance has a value where the schema allows none.", Severity: diag.Error},
		diag.Rule{Code: "validate/unreadable", Description: "An instance could not be read or parsed.", Severity: diag.Error},
		diag.Rule{Code: "validate/stopped", Description: "The run was stopped by its time limit or its pattern budget before every instance was checked.", Severity: diag.Error})
})

// SARIFRules returns the rule table, for SARIF output.
func (r *Result) SARIFRules() []diag.Rule { return Rules() }

// TextWriter prints the human report, one instance at a time, so long runs can stream.
type TextWriter struct {
	W   io.Writer
	Err error // the first write error
}

func (t *TextWriter) printf(format string, args ...any) {
	if t.Err == nil {
		_, t.Err = fmt.Fprintf(t.W, format, args...)
	}
}

// Instance prints an instance's errors or problem; a valid instance prints nothing.
func (t *TextWriter) Instance(in *Instance) {
	if in.Problem != "" {
		t.printf("%s\n", in.Problem)
		return
	}
	for i := range in.Errors {
		t.error(in.File, &in.Errors[i], "")
	}
	if in.Truncated {
		loc := in.File
		if in.Line > 0 {
			loc += ":" + strconv.Itoa(in.Line)
		}
		t.printf("%s: more errors not reported: the limit is %d per instance (raise it with maxErrors / --max-errors)\n", loc, countErrors(in.Errors))
	}
}

// countErrors counts errors with their causes.
func countErrors(errs []Error) int {
	n := len(errs)
	for i := range errs {
		n += countErrors(errs[i].Causes)
	}
	return n
}

// WriteErrors prints errors as the text report does: one a line, located in file (or in
// the error's own File when it has one), with its causes indented below it.
func WriteErrors(w io.Writer, file string, errs []Error, indent string) error {
	t := &TextWriter{W: w}
	for i := range errs {
		t.error(file, &errs[i], indent)
	}
	return t.Err
}

func (t *TextWriter) error(file string, e *Error, indent string) {
	at := file
	if e.File != "" {
		at = e.File
	}
	ptr := e.InstanceLocation
	if ptr == "" {
		ptr = "(root)"
	}
	kw := e.Keyword
	if kw == "" {
		kw = "false"
	}
	t.printf("%s%s: %s: %s [%s]\n", indent, diag.Position(at, e.Line, e.Column), ptr, e.Message, kw)
	for i := range e.Causes {
		t.error(file, &e.Causes[i], indent+"    ")
	}
}

// Summary prints the closing count, after saying which part of a long list was shown
// and which errors repeat (the groups of the result).
func (t *TextWriter) Summary(s Summary, page *diag.Page, shown int, groups []Group) {
	if page != nil {
		t.printf("(%d of %d listed instances shown, from offset %d; ask for more with offset and limit)\n", shown, page.Total, page.Offset)
	}
	t.writeGroups(groups)
	parts := []string{diag.Plural(s.Valid, "valid", "valid")}
	if s.Invalid > 0 {
		parts = append(parts, diag.Plural(s.Invalid, "invalid", "invalid"))
	}
	if s.Unreadable > 0 {
		parts = append(parts, diag.Plural(s.Unreadable, "unreadable", "unreadable"))
	}
	t.printf("%s: %s\n", diag.Plural(s.Total, "instance", "instances"), strings.Join(parts, ", "))
}

// Stopped prints why the run ended before its end, if it did.
func (t *TextWriter) Stopped(msg string) {
	if msg != "" {
		t.printf("%s\n", msg)
	}
}

// WriteText prints the human report: every error of every invalid instance, every
// instance that could not be read, and a summary: the errors that repeat, grouped, and the
// counts.
func (r *Result) WriteText(w io.Writer) error {
	t := &TextWriter{W: w}
	if r.Schemas != nil || r.NoSchema != nil {
		r.writeBySchema(t)
		return t.Err
	}
	for i := range r.Instances {
		t.Instance(&r.Instances[i])
	}
	t.Summary(r.Summary, r.Page, len(r.Instances), r.Groups)
	t.Stopped(r.Stopped)
	return t.Err
}

// Diagnostics lists one diagnostic per error (causes become related locations).
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for i := range r.Instances {
		out = append(out, InstanceDiagnostics(&r.Instances[i])...)
	}
	return append(out, r.StoppedDiagnostics()...)
}

// StoppedDiagnostics is the diagnostic of a run stopped before its end (none otherwise).
func (r *Result) StoppedDiagnostics() []diag.Diagnostic {
	if r.Stopped == "" {
		return nil
	}
	return []diag.Diagnostic{{Code: "validate/stopped", Severity: diag.Error, Message: r.Stopped}}
}

// InstanceDiagnostics converts one instance's errors.
func InstanceDiagnostics(in *Instance) []diag.Diagnostic {
	if in.Problem != "" {
		return []diag.Diagnostic{{Code: "validate/unreadable", Severity: diag.Error, Message: in.Problem,
			File: in.File, Line: in.Line}}
	}
	out := make([]diag.Diagnostic, 0, len(in.Errors))
	for _, e := range in.Errors {
		code := "validate/" + e.Keyword
		if e.Keyword == "" {
			code = "validate/false-schema"
		}
		d := diag.Diagnostic{Code: code, Severity: diag.Error, Message: e.Message, File: in.File,
			Line: e.Line, Column: e.Column, Pointer: e.InstanceLocation, Keyword: e.Keyword}
		if e.Schema != nil {
			d.Related = append(d.Related, diag.Related{Message: "schema keyword " + e.KeywordLocation,
				File: e.Schema.File, Line: e.Schema.Line, Column: e.Schema.Column})
		}
		for _, c := range e.Causes {
			d.Related = append(d.Related, diag.Related{Message: c.InstanceLocation + ": " + c.Message,
				File: in.File, Line: c.Line, Column: c.Column, Pointer: c.InstanceLocation})
		}
		out = append(out, d)
	}
	return out
}

// PageItems counts the instances held (diag.Pager).
func (r *Result) PageItems() (int, string, string) { return len(r.Instances), "instance", "instances" }

// PageRecord is the result's page record (diag.Pager).
func (r *Result) PageRecord() *diag.Page { return r.Page }

// KeepFirst is a copy that holds only the first k instances (diag.Pager).
func (r *Result) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Instances, c.Page = diag.Keep(r.Instances, k, limit, r.Page)
	return &c
}

// Cut keeps instances [offset, offset+limit) and records the page.
func (r *Result) Cut(offset, limit int) {
	if list, page := diag.Cut(r.Instances, offset, limit); page != nil {
		r.Instances, r.Page = list, page
	}
}

// writeBySchema prints the report of a run that found each file's schema: for each schema,
// its files with their verdict and where the schema came from, and the errors of the
// invalid ones; then the files without a schema; then the summary.
func (r *Result) writeBySchema(t *TextWriter) {
	current := "\x00"
	for i := range r.Instances {
		in := &r.Instances[i]
		a := in.Association
		schema := ""
		if a != nil {
			schema = a.Schema
		}
		if schema != current {
			current = schema
			if schema == "" {
				t.printf("could not be checked:\n")
			}
			for _, u := range r.Schemas {
				if u.Schema == schema {
					t.printf("%s: %s\n", schema, useCounts(u))
				}
			}
		}
		verdict := "valid"
		switch {
		case in.Problem != "":
			verdict = "unreadable"
		case !in.Valid:
			verdict = "invalid"
		}
		at := in.File
		if in.Line > 0 {
			at += ":" + strconv.Itoa(in.Line)
		}
		why := ""
		if a != nil {
			why = " (" + a.Why + ")"
		}
		t.printf("  %s: %s%s\n", at, verdict, why)
		if in.Problem != "" {
			t.printf("    %s\n", in.Problem)
			continue
		}
		for j := range in.Errors {
			t.error(in.File, &in.Errors[j], "    ")
		}
	}
	if len(r.NoSchema) > 0 {
		t.printf("no schema: %s\n", diag.Plural(len(r.NoSchema), "file", "files"))
		for _, n := range r.NoSchema {
			t.printf("  %s: %s\n", n.File, n.Association.Why)
		}
	}
	t.Summary(r.Summary, r.Page, len(r.Instances), r.Groups)
	if len(r.NoSchema) > 0 {
		t.printf("%s without a schema%s\n", diag.Plural(len(r.NoSchema), "file", "files"),
			map[bool]string{true: " (an error: --require-schema)", false: ""}[r.RequireSchema])
	}
	t.Stopped(r.Stopped)
}

// useCounts says how a schema's instances fared.
func useCounts(u SchemaUse) string {
	parts := []string{diag.Plural(u.Valid, "valid", "valid")}
	if u.Invalid > 0 {
		parts = append(parts, diag.Plural(u.Invalid, "invalid", "invalid"))
	}
	if u.Unreadable > 0 {
		parts = append(parts, diag.Plural(u.Unreadable, "unreadable", "unreadable"))
	}
	return diag.Plural(u.Instances, "instance", "instances") + ", " + strings.Join(parts, ", ")
}
