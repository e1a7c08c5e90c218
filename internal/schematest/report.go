package schematest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/validate"
)

// Test statuses, as CTRF names them.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
	// StatusOther marks a test that could not be run (its rawStatus is "error").
	StatusOther = "other"
)

// Result is a run's report: a CTRF document (Common Test Report Format, https://ctrf.io),
// the format the peer tools emit, so CI dashboards read it as is. jstk's own details (the
// errors of each instance with their positions, the per-file counts) are in the "extra"
// members CTRF provides for that. Its JSON form is the CLI's --format json output and the
// MCP tool's structuredContent.
type Result struct {
	// ReportFormat is "CTRF" and SpecVersion the CTRF version the report follows.
	ReportFormat string  `json:"reportFormat"`
	SpecVersion  string  `json:"specVersion"`
	Results      Results `json:"results"`

	failedOnly bool // FailedOnly was called: the text leaves out the files that passed
}

// Results are the results of the run.
type Results struct {
	Tool    Tool         `json:"tool"`
	Summary Summary      `json:"summary"`
	Tests   []TestResult `json:"tests"`
	Extra   RunExtra     `json:"extra"`
}

// Tool names the program that ran the tests.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Summary counts the tests; times are milliseconds since the Unix epoch.
type Summary struct {
	Tests   int `json:"tests"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Pending int `json:"pending"`
	Skipped int `json:"skipped"`
	// Other counts the tests that could not be run.
	Other    int   `json:"other"`
	Suites   int   `json:"suites"`
	Start    int64 `json:"start"`
	Stop     int64 `json:"stop"`
	Duration int64 `json:"duration"`
}

// TestResult is one test's outcome.
type TestResult struct {
	// Name is the case's and the test's descriptions ("test N" for a test without one).
	Name string `json:"name"`
	// Status is "passed", "failed", or "other" for a test that could not be run.
	Status string `json:"status"`
	// Duration is the time the test took, in milliseconds.
	Duration int64 `json:"duration"`
	// Suite is the tests file, and the case's description in the suite format.
	Suite []string `json:"suite"`
	// Message says why the test failed or could not run.
	Message string `json:"message,omitempty"`
	// Trace lists the instance's errors, one per line, for a failed test.
	Trace string `json:"trace,omitempty"`
	// RawStatus is "error" for a test that could not be run.
	RawStatus string `json:"rawStatus,omitempty"`
	// Type is "unit".
	Type string `json:"type"`
	// FilePath and Line locate the test in its tests file.
	FilePath string    `json:"filePath"`
	Line     int       `json:"line,omitempty"`
	Extra    TestExtra `json:"extra"`
}

// TestExtra is jstk's detail on one test.
type TestExtra struct {
	// Column locates the test object in its tests file, with Line.
	Column int `json:"column,omitempty"`
	// Expected is "valid" or "invalid"; Actual is what the instance is ("" when it could
	// not be evaluated).
	Expected string `json:"expected"`
	Actual   string `json:"actual,omitempty"`
	// DataFile is the file the instance was read from (dataPath), if not inline.
	DataFile string `json:"dataFile,omitempty"`
	// Errors are all the instance's errors, located in the file that holds the instance.
	Errors []validate.Error `json:"errors"`
	// Unmatched lists the "expect" assertions no error satisfied.
	Unmatched []string `json:"unmatched,omitempty"`
}

// RunExtra is jstk's detail on the run.
type RunExtra struct {
	// Files has one entry per tests file, in the order given.
	Files []FileSummary `json:"files"`
	// Page is set when Tests holds only part of the list.
	Page *diag.Page `json:"page,omitempty"`
}

// FileSummary counts one tests file's tests.
type FileSummary struct {
	// File is the tests file as given.
	File string `json:"file"`
	// Format is "sourcemeta" or "suite" ("" when the file could not be read).
	Format string `json:"format,omitempty"`
	// Target is the sourcemeta format's target.
	Target string `json:"target,omitempty"`
	Total  int    `json:"total"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
	// NotRun counts the tests that could not be run.
	NotRun int `json:"notRun"`
	// Problem says why the file, or a schema in it, could not be used.
	Problem string `json:"problem,omitempty"`
}

// PageItems counts the tests held (diag.Pager).
func (r *Result) PageItems() (int, string, string) { return len(r.Results.Tests), "test", "tests" }

// PageRecord is the result's page record (diag.Pager).
func (r *Result) PageRecord() *diag.Page { return r.Results.Extra.Page }

// KeepFirst is a copy that holds only the first k tests (diag.Pager).
func (r *Result) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Results.Tests, c.Results.Extra.Page = diag.Keep(r.Results.Tests, k, limit, r.Results.Extra.Page)
	return &c
}

func newResult() *Result {
	return &Result{ReportFormat: "CTRF", SpecVersion: "0.0.0",
		Results: Results{Tool: Tool{Name: "jstk"}, Tests: []TestResult{}, Extra: RunExtra{Files: []FileSummary{}}}}
}

// add appends one file's tests and counts them.
func (r *Result) add(fs FileSummary, tests []TestResult) {
	s := &r.Results.Summary
	s.Suites++
	for _, t := range tests {
		fs.Total++
		s.Tests++
		switch t.Status {
		case StatusPassed:
			fs.Passed++
			s.Passed++
		case StatusFailed:
			fs.Failed++
			s.Failed++
		default:
			fs.NotRun++
			s.Other++
		}
	}
	r.Results.Extra.Files = append(r.Results.Extra.Files, fs)
	r.Results.Tests = append(r.Results.Tests, tests...)
}

func (t *TestResult) setError(msg string) {
	t.Status, t.RawStatus, t.Message = StatusOther, "error", msg
}

func (t *TestResult) fail(msg string) {
	t.Status, t.Message = StatusFailed, msg
	var sb strings.Builder
	validate.WriteErrors(&sb, "", t.Extra.Errors, "")
	t.Trace = sb.String()
}

// ExitCode is 0 when every test passed, 1 when a test failed, and 2 when a tests file, a
// target or an instance could not be used (the report still shows every test that ran).
func (r *Result) ExitCode() int {
	for _, f := range r.Results.Extra.Files {
		if f.Problem != "" || f.NotRun > 0 {
			return 2
		}
	}
	if r.Results.Summary.Other > 0 {
		return 2
	}
	if r.Results.Summary.Failed > 0 {
		return 1
	}
	return 0
}

// WriteText prints the human report: one line per tests file ("file: PASS 12/12"), each
// failed test with its position and the instance's errors, and a summary.
func (r *Result) WriteText(w io.Writer) error {
	tw := &diag.Printer{W: w}
	byFile := map[string][]*TestResult{}
	for i := range r.Results.Tests {
		t := &r.Results.Tests[i]
		byFile[t.FilePath] = append(byFile[t.FilePath], t)
	}
	passedFiles := 0
	for _, f := range r.Results.Extra.Files {
		passed := f.Problem == "" && f.Failed == 0 && f.NotRun == 0
		if passed && r.failedOnly {
			passedFiles++
			continue
		}
		switch {
		case f.Problem != "" && f.Total == 0:
			tw.Printf("%s: ERROR %s\n", f.File, f.Problem)
			continue
		case f.Problem != "":
			tw.Printf("%s: ERROR %d/%d passed\n", f.File, f.Passed, f.Total)
		case f.Failed > 0 || f.NotRun > 0:
			tw.Printf("%s: FAIL %d/%d\n", f.File, f.Passed, f.Total)
		default:
			tw.Printf("%s: PASS %d/%d\n", f.File, f.Passed, f.Total)
		}
		lastNotRun, repeated := "", 0
		flush := func() {
			if repeated > 0 {
				tw.Printf("    (and %s for the same reason)\n", diag.Plural(repeated, "more test", "more tests"))
				repeated = 0
			}
		}
		for _, t := range byFile[f.File] {
			if t.Status == StatusOther && t.Message == lastNotRun {
				repeated++
				continue
			}
			flush()
			lastNotRun = ""
			switch t.Status {
			case StatusFailed:
				tw.Printf("  FAIL %s (%s)\n", t.Name, diag.Position(t.FilePath, t.Line, t.Extra.Column))
				tw.Printf("    %s\n", t.Message)
				if t.Extra.Actual == "invalid" {
					var sb strings.Builder
					validate.WriteErrors(&sb, "", t.Extra.Errors, "      ")
					tw.Printf("%s", sb.String())
				}
			case StatusOther:
				tw.Printf("  NOT RUN %s (%s)\n    %s\n", t.Name, diag.Position(t.FilePath, t.Line, t.Extra.Column), t.Message)
				lastNotRun = t.Message
			}
		}
		flush()
	}
	if p := r.Results.Extra.Page; p != nil {
		tw.Printf("(%d of %d tests listed; ask for more with offset and limit)\n", p.Total-p.Omitted, p.Total)
	}
	if passedFiles > 0 {
		tw.Printf("(%s where every test passed not listed)\n", diag.Plural(passedFiles, "file", "files"))
	}
	s := r.Results.Summary
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	}
	if s.Other > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", s.Other))
	}
	broken := 0
	for _, f := range r.Results.Extra.Files {
		if f.Problem != "" {
			broken++
		}
	}
	if broken > 0 {
		parts = append(parts, diag.Plural(broken, "file", "files")+" could not be used")
	}
	tw.Printf("%s in %s: %s\n", diag.Plural(s.Tests, "test", "tests"), diag.Plural(len(r.Results.Extra.Files), "file", "files"),
		strings.Join(parts, ", "))
	return tw.Err
}

// Rules lists the diagnostic codes the test engine reports, for SARIF and the docs.
var Rules = []diag.Rule{
	{Code: "test/failed", Description: "A test's instance does not have the expected outcome (valid or invalid), or its errors do not match the test's expect block.", Severity: diag.Error},
	{Code: "test/not-run", Description: "A test could not be run: its instance could not be read or evaluated, or its schema could not be compiled.", Severity: diag.Error},
	{Code: "test/unusable-file", Description: "A tests file could not be read or parsed, is not in a known format, or its target cannot be resolved.", Severity: diag.Error},
}

// Diagnostics lists one diagnostic per failed or unrun test and per unusable file.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, f := range r.Results.Extra.Files {
		if f.Problem != "" && f.Total == 0 {
			out = append(out, diag.Diagnostic{Code: "test/unusable-file", Severity: diag.Error, Message: f.Problem, File: f.File})
		}
	}
	for _, t := range r.Results.Tests {
		var code string
		switch t.Status {
		case StatusFailed:
			code = "test/failed"
		case StatusOther:
			code = "test/not-run"
		default:
			continue
		}
		d := diag.Diagnostic{Code: code, Severity: diag.Error, Message: t.Name + ": " + t.Message,
			File: t.FilePath, Line: t.Line, Column: t.Extra.Column}
		for _, e := range t.Extra.Errors {
			d.Related = append(d.Related, diag.Related{Message: e.Message, File: e.File, Line: e.Line, Column: e.Column,
				Pointer: e.InstanceLocation})
		}
		out = append(out, d)
	}
	return out
}

// Cut keeps tests [offset, offset+limit) and records the page; the summary still counts
// every test.
func (r *Result) Cut(offset, limit int) {
	if list, page := diag.Cut(r.Results.Tests, offset, limit); page != nil {
		r.Results.Tests, r.Results.Extra.Page = list, page
	}
}

// FailedOnly keeps only the tests that failed or could not run; the text report then leaves
// out the files whose tests all passed too.
func (r *Result) FailedOnly() {
	r.failedOnly = true
	kept := []TestResult{}
	for _, t := range r.Results.Tests {
		if t.Status != StatusPassed {
			kept = append(kept, t)
		}
	}
	r.Results.Tests = kept
}

// WriteFormat prints the formats of the test engine's own: junit (JUnit XML, for CI
// systems).
func (r *Result) WriteFormat(w io.Writer, format string) error {
	if diag.Format(format) != diag.JUnit {
		return fmt.Errorf("test reports have no format %q (%s, %s)", format, diag.Join(diag.Common(false), ", "), diag.JUnit)
	}
	return r.writeJUnit(w)
}

// The JUnit report: a document of three levels, written by junitWriter (encoding/xml is not
// linked for it: its initialisation ran at every start of jstk).
type junitSuites struct {
	Name     string
	Tests    int
	Failures int
	Errors   int
	Time     string
	Suites   []junitSuite
}

type junitSuite struct {
	Name     string
	Tests    int
	Failures int
	Errors   int
	Time     string
	Cases    []junitCase
}

type junitCase struct {
	Name      string
	ClassName string
	File      string // left out when empty
	Line      int    // left out when 0
	Time      string
	Failure   *junitProblem
	Error     *junitProblem
}

type junitProblem struct {
	Message string
	Type    string
	Text    string
}

func seconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

func (r *Result) writeJUnit(w io.Writer) error {
	s := r.Results.Summary
	doc := junitSuites{Name: "jstk test", Tests: s.Tests, Failures: s.Failed, Errors: s.Other, Time: seconds(s.Duration)}
	index := map[string]int{}
	for _, f := range r.Results.Extra.Files {
		index[f.File] = len(doc.Suites)
		js := junitSuite{Name: f.File, Tests: f.Total, Failures: f.Failed, Errors: f.NotRun, Time: seconds(0)}
		if f.Problem != "" && f.Total == 0 {
			js.Tests, js.Errors = 1, 1
			js.Cases = append(js.Cases, junitCase{Name: "(tests file)", ClassName: f.File, File: f.File, Time: seconds(0),
				Error: &junitProblem{Message: f.Problem, Type: "unusable-file"}})
			doc.Tests++
			doc.Errors++
		}
		doc.Suites = append(doc.Suites, js)
	}
	var total []int64 = make([]int64, len(doc.Suites))
	for _, t := range r.Results.Tests {
		i, ok := index[t.FilePath]
		if !ok {
			continue
		}
		jc := junitCase{Name: t.Name, ClassName: strings.Join(t.Suite, " / "), File: t.FilePath, Line: t.Line, Time: seconds(t.Duration)}
		total[i] += t.Duration
		switch t.Status {
		case StatusFailed:
			jc.Failure = &junitProblem{Message: t.Message, Type: "failed", Text: t.Trace}
		case StatusOther:
			jc.Error = &junitProblem{Message: t.Message, Type: "not-run"}
		}
		doc.Suites[i].Cases = append(doc.Suites[i].Cases, jc)
	}
	for i := range doc.Suites {
		doc.Suites[i].Time = seconds(total[i])
	}
	return doc.write(w)
}

// write prints the report as encoding/xml's Encoder, indented by two spaces, after
// xml.Header (the test of the package compares them).
func (doc *junitSuites) write(w io.Writer) error {
	var x junitWriter
	x.b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	x.open(0, "testsuites", "name", doc.Name, "tests", strconv.Itoa(doc.Tests), "failures", strconv.Itoa(doc.Failures),
		"errors", strconv.Itoa(doc.Errors), "time", doc.Time)
	for _, js := range doc.Suites {
		x.open(1, "testsuite", "name", js.Name, "tests", strconv.Itoa(js.Tests), "failures", strconv.Itoa(js.Failures),
			"errors", strconv.Itoa(js.Errors), "time", js.Time)
		for _, jc := range js.Cases {
			attrs := []string{"name", jc.Name, "classname", jc.ClassName}
			if jc.File != "" {
				attrs = append(attrs, "file", jc.File)
			}
			if jc.Line != 0 {
				attrs = append(attrs, "line", strconv.Itoa(jc.Line))
			}
			x.open(2, "testcase", append(attrs, "time", jc.Time)...)
			for _, p := range []struct {
				tag string
				p   *junitProblem
			}{{"failure", jc.Failure}, {"error", jc.Error}} {
				if p.p != nil {
					x.open(3, p.tag, "message", p.p.Message, "type", p.p.Type)
					x.escape(p.p.Text)
					x.close(3, p.tag, true)
				}
			}
			x.close(2, "testcase", jc.Failure == nil && jc.Error == nil)
		}
		x.close(1, "testsuite", len(js.Cases) == 0)
	}
	x.close(0, "testsuites", len(doc.Suites) == 0)
	x.b.WriteString("\n")
	_, err := io.WriteString(w, x.b.String())
	return err
}

// junitWriter writes XML as encoding/xml's Encoder with an indent of two spaces does: an
// element on a line of its own at its depth, its end tag on the same line when it holds no
// element, never self-closed; attribute values and text escaped as xml.EscapeText does.
type junitWriter struct{ b strings.Builder }

// open writes a start tag at depth with attributes given as name, value pairs.
func (x *junitWriter) open(depth int, tag string, attrs ...string) {
	if depth > 0 {
		x.b.WriteByte('\n')
	}
	x.b.WriteString(strings.Repeat("  ", depth))
	x.b.WriteString("<" + tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.b.WriteString(" " + attrs[i] + "=\"")
		x.escape(attrs[i+1])
		x.b.WriteByte('"')
	}
	x.b.WriteByte('>')
}

// close writes an end tag: on the line of its start tag when the element holds no element
// (inline), else on a line of its own at depth.
func (x *junitWriter) close(depth int, tag string, inline bool) {
	if !inline {
		x.b.WriteString("\n" + strings.Repeat("  ", depth))
	}
	x.b.WriteString("</" + tag + ">")
}

// escape writes s as XML text: the five markup characters, tab, newline and carriage
// return as character references, what XML cannot hold (invalid UTF-8, control
// characters, U+FFFE and U+FFFF) as U+FFFD.
func (x *junitWriter) escape(s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if xmlChar(r) && (r != utf8.RuneError || width > 1) {
				continue
			}
			esc = "\uFFFD"
		}
		x.b.WriteString(s[last : i-width])
		x.b.WriteString(esc)
		last = i
	}
	x.b.WriteString(s[last:])
}

// xmlChar reports whether XML 1.0 allows r in a document (its Char production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
