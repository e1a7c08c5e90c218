package coverage

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
)

// Result is a measure's report. Its JSON form is the CLI's --format json output and the
// MCP tool's structuredContent.
type Result struct {
	// Schema is the measured schema's file.
	Schema string `json:"schema"`
	// Summary has the four measures.
	Summary Summary `json:"summary"`
	// Inputs counts what was evaluated.
	Inputs Inputs `json:"inputs"`
	// Entries are the rows of the table: each subschema (keyword "") and each of its
	// keywords, with their items. By default only the entries with something missing are
	// listed (Listed "incomplete"); ListAll lists every entry (Listed "all").
	Entries []Entry `json:"entries"`
	// Listed says which entries Entries holds: "incomplete" or "all".
	Listed string `json:"listed"`
	// Thresholds are the --fail-under checks.
	Thresholds []Threshold `json:"thresholds"`
	// Passed is false when a threshold is not met.
	Passed bool `json:"passed"`
	// Problems are inputs that could not be used (unreadable, unparsable, an unresolvable
	// target, an evaluation that could not complete).
	Problems []string `json:"problems"`
	// Page is set when Entries holds only part of the list.
	Page *diag.Page `json:"page,omitempty"`
	// Unmeasured counts the subschemas of the measured files that lie deeper than
	// MaxDepth, which the measure leaves out.
	Unmeasured int `json:"unmeasured,omitempty"`

	all      []Entry
	complete int
}

// Summary has the four measures.
type Summary struct {
	Subschemas Ratio `json:"subschemas"`
	Keywords   Ratio `json:"keywords"`
	Outcomes   Ratio `json:"outcomes"`
	Values     Ratio `json:"values"`
}

// Ratio counts the items of one kind covered.
type Ratio struct {
	Covered int `json:"covered"`
	Total   int `json:"total"`
	// Percent is 100 * covered / total, 100 when there is nothing to cover.
	Percent float64 `json:"percent"`
}

func (s *Summary) of(k Kind) *Ratio {
	switch k {
	case Subschemas:
		return &s.Subschemas
	case Keywords:
		return &s.Keywords
	case Outcomes:
		return &s.Outcomes
	}
	return &s.Values
}

// Inputs counts what was evaluated.
type Inputs struct {
	// Tests counts tests of tests files; Instances counts plain instances.
	Tests     int `json:"tests"`
	Instances int `json:"instances"`
	Valid     int `json:"valid"`
	Invalid   int `json:"invalid"`
	// Unexpected counts the tests whose instance did not have the expected outcome; they
	// are measured as they are (a failing outcome counts only in a test that expects it).
	Unexpected      int      `json:"unexpected"`
	UnexpectedTests []string `json:"unexpectedTests,omitempty"`
}

// Entry is one row: a subschema, or one keyword of it.
type Entry struct {
	// File and Pointer locate the subschema; Line and Column its keyword (or, for the
	// subschema itself, its value).
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	// Keyword is "" for the subschema itself.
	Keyword string `json:"keyword"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	// Dead marks a $defs or definitions entry that nothing references.
	Dead bool `json:"dead,omitempty"`
	// Hits counts how often the subschema was reached or the keyword applied (once per
	// value it acted on; for the applicators of items and members, once per item or
	// member).
	Hits uint64 `json:"hits"`
	// Items are the entry's things to cover (the first: "reached" or "applied"), and
	// Missing the labels of those no evaluation covered.
	Items   []Item   `json:"items"`
	Missing []string `json:"missing"`
}

// Item is one thing that can be covered: its kind, what it is ("pass", "branch 1",
// `"red"`, `"name" absent`, ...), how often it was seen, and its line in the schema file.
type Item struct {
	Kind  Kind   `json:"kind"`
	Label string `json:"label"`
	Hits  uint64 `json:"hits"`
	Line  int    `json:"line"`
}

// Threshold is one --fail-under check: the kind's percentage against its minimum.
type Threshold struct {
	Kind    Kind    `json:"kind"`
	Min     float64 `json:"min"`
	Percent float64 `json:"percent"`
	Met     bool    `json:"met"`
}

// PageItems counts the entries held (diag.Pager).
func (r *Result) PageItems() (int, string, string) { return len(r.Entries), "entry", "entries" }

// PageRecord is the result's page record (diag.Pager).
func (r *Result) PageRecord() *diag.Page { return r.Page }

// KeepFirst is a copy that holds only the first k entries (diag.Pager).
func (r *Result) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Entries, c.Page = diag.Keep(r.Entries, k, limit, r.Page)
	return &c
}

func newResult(s *schema.Schema) *Result {
	file := s.File()
	return &Result{Schema: file, Entries: []Entry{}, Thresholds: []Threshold{}, Problems: []string{}, Passed: true,
		Listed: "incomplete"}
}

// count records one unit's outcome.
func (r *Result) count(u *unit, oc outcome) {
	r.Problems = append(r.Problems, oc.problems...)
	if u.plain {
		r.Inputs.Instances += oc.instances
		r.Inputs.Valid += oc.validCount
		r.Inputs.Invalid += oc.instances - oc.validCount
		return
	}
	if len(oc.problems) > 0 {
		return
	}
	r.Inputs.Tests++
	if oc.valid {
		r.Inputs.Valid++
	} else {
		r.Inputs.Invalid++
	}
	if oc.valid != oc.expectValid {
		r.Inputs.Unexpected++
		if len(r.Inputs.UnexpectedTests) < 20 {
			r.Inputs.UnexpectedTests = append(r.Inputs.UnexpectedTests, u.name)
		}
	}
}

func percent(covered, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(covered) / float64(total)
}

// round2 rounds a percentage for display and JSON.
func round2(p float64) float64 { return math.Round(p*100) / 100 }

// build turns the hits into entries, measures and threshold checks.
func (r *Result) build(m *model, hits []uint64, failUnder map[Kind]float64) {
	for i, it := range m.items {
		ms := r.Summary.of(it.kind)
		ms.Total++
		if hits[i] > 0 {
			ms.Covered++
		}
	}
	exact := map[Kind]float64{}
	for _, k := range Kinds {
		ms := r.Summary.of(k)
		exact[k] = percent(ms.Covered, ms.Total)
		ms.Percent = round2(exact[k])
	}
	for _, k := range Kinds {
		want, ok := failUnder[k]
		if !ok {
			continue
		}
		t := Threshold{Kind: k, Min: want, Percent: round2(exact[k]), Met: exact[k] >= want}
		r.Thresholds = append(r.Thresholds, t)
		r.Passed = r.Passed && t.Met
	}
	// One backing array for every entry's items and missing labels.
	items := make([]Item, 0, len(m.items))
	zero := 0
	for _, h := range hits {
		if h == 0 {
			zero++
		}
	}
	missing := make([]string, 0, zero) // never nil: an entry's Missing is [] in JSON
	r.all = make([]Entry, 0, len(m.entries))
	for _, e := range m.entries {
		out := Entry{File: e.info.file, Pointer: e.info.ptr, Keyword: e.keyword, Line: e.line, Column: e.col,
			Dead: e.dead}
		first, firstMissing := len(items), len(missing)
		for k, it := range e.items {
			item := m.items[it]
			if k == 0 {
				out.Hits = hits[it]
			}
			label := item.label
			if e.dead {
				label = "reached (dead: nothing references it)"
			}
			items = append(items, Item{Kind: item.kind, Label: label, Hits: hits[it], Line: item.line})
			if hits[it] == 0 {
				missing = append(missing, label)
			}
		}
		out.Items = items[first:len(items):len(items)]
		out.Missing = missing[firstMissing:len(missing):len(missing)]
		r.all = append(r.all, out)
		if len(out.Missing) == 0 {
			r.complete++
		}
	}
	r.list(false)
}

// list chooses the entries listed: all of them, or those with something missing.
func (r *Result) list(all bool) {
	r.Entries = []Entry{}
	r.Listed = "incomplete"
	if all {
		r.Listed = "all"
	}
	for _, e := range r.all {
		if all || len(e.Missing) > 0 {
			r.Entries = append(r.Entries, e)
		}
	}
}

// ListAll lists every entry, complete or not (by default only the entries with something
// missing are listed).
func (r *Result) ListAll() { r.list(true) }

// Cut keeps entries [offset, offset+limit) and records the page.
func (r *Result) Cut(offset, limit int) {
	if list, page := diag.Cut(r.Entries, offset, limit); page != nil {
		r.Entries, r.Page = list, page
	}
}

// ExitCode is 2 when an input could not be used, 1 when a threshold is not met, else 0.
func (r *Result) ExitCode() int {
	switch {
	case len(r.Problems) > 0:
		return 2
	case !r.Passed:
		return 1
	}
	return 0
}

// WriteText prints the human report: problems, the four measures, the table of entries
// (pointer, keyword, hits, what is missing) and the thresholds.
func (r *Result) WriteText(w io.Writer) error {
	tw := &diag.Printer{W: w}
	for _, p := range r.Problems {
		tw.Printf("error: %s\n", p)
	}
	in := r.Inputs
	var what []string
	if in.Tests > 0 {
		what = append(what, diag.Plural(in.Tests, "test", "tests"))
	}
	if in.Instances > 0 || in.Tests == 0 {
		what = append(what, diag.Plural(in.Instances, "instance", "instances"))
	}
	tw.Printf("%s: coverage by %s (%d valid, %d invalid)\n", r.Schema, strings.Join(what, " and "), in.Valid, in.Invalid)
	if in.Unexpected > 0 {
		tw.Printf("note: %s did not have the expected outcome (run jstk test): %s\n",
			diag.Plural(in.Unexpected, "test", "tests"), strings.Join(in.UnexpectedTests, ", "))
	}
	if r.Unmeasured > 0 {
		tw.Printf("note: %s nested deeper than %d levels (JSON Pointer tokens) not measured\n",
			diag.Plural(r.Unmeasured, "subschema", "subschemas"), MaxDepth)
	}
	width := 0
	for _, k := range Kinds {
		ms := r.Summary.of(k)
		width = max(width, len(fmt.Sprintf("%d/%d", ms.Covered, ms.Total)))
	}
	for _, k := range Kinds {
		ms := r.Summary.of(k)
		tw.Printf("  %-11s %*s  %6.2f%%\n", k, width, fmt.Sprintf("%d/%d", ms.Covered, ms.Total), ms.Percent)
	}
	if len(r.Entries) > 0 {
		rows := [][]string{{"LOCATION", "POINTER", "KEYWORD", "HITS", "MISSING"}}
		for _, e := range r.Entries {
			kw := e.Keyword
			if kw == "" {
				kw = "(schema)"
			}
			ptr := e.Pointer
			if ptr == "" {
				ptr = "#"
			}
			rows = append(rows, []string{diag.Position(e.File, e.Line, e.Column), ptr, kw,
				strconv.FormatUint(e.Hits, 10), strings.Join(e.Missing, ", ")})
		}
		tw.Printf("\n")
		writeTable(tw, rows)
	}
	if r.Page != nil {
		tw.Printf("(%d of %d entries listed; ask for more with offset and limit)\n", r.Page.Total-r.Page.Omitted, r.Page.Total)
	}
	if r.Listed == "incomplete" && r.complete > 0 {
		tw.Printf("(%s fully covered, not listed; --all lists every entry)\n", diag.Plural(r.complete, "entry", "entries"))
	}
	for _, t := range r.Thresholds {
		verdict := "ok  "
		if !t.Met {
			verdict = "FAIL"
		}
		tw.Printf("%s %s %.2f%% (--fail-under %s=%g)\n", verdict, t.Kind, t.Percent, t.Kind, t.Min)
	}
	return tw.Err
}

// writeTable prints rows in aligned columns; the last column is not padded.
func writeTable(tw *diag.Printer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		var sb strings.Builder
		for i, c := range row {
			switch {
			case i == len(row)-1:
				sb.WriteString(c)
			case i == 3: // hits: right-aligned
				sb.WriteString(strings.Repeat(" ", widths[i]-len(c)) + c + "  ")
			default:
				sb.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))+2))
			}
		}
		tw.Printf("%s\n", strings.TrimRight(sb.String(), " "))
	}
}

// Rules lists the diagnostic codes coverage reports, for SARIF and the docs.
var Rules = []diag.Rule{
	{Code: "coverage/uncovered", Description: "A subschema, keyword, outcome or value of the schema that no test or instance exercised.", Severity: diag.Info},
	{Code: "coverage/dead-definition", Description: "A $defs or definitions entry that nothing references.", Severity: diag.Warning},
	{Code: "coverage/under-threshold", Description: "A kind of coverage is under its --fail-under threshold.", Severity: diag.Error},
	{Code: "coverage/unusable-input", Description: "An input could not be used.", Severity: diag.Error},
}

// Diagnostics lists the listed entries with something missing, the unmet thresholds and
// the problems.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, p := range r.Problems {
		out = append(out, diag.Diagnostic{Code: "coverage/unusable-input", Severity: diag.Error, Message: p})
	}
	for _, t := range r.Thresholds {
		if !t.Met {
			out = append(out, diag.Diagnostic{Code: "coverage/under-threshold", Severity: diag.Error, File: r.Schema,
				Message: fmt.Sprintf("%s coverage %.2f%% is under %g%%", t.Kind, t.Percent, t.Min)})
		}
	}
	for _, e := range r.Entries {
		if len(e.Missing) == 0 {
			continue
		}
		d := diag.Diagnostic{Code: "coverage/uncovered", Severity: diag.Info, File: e.File, Line: e.Line,
			Column: e.Column, Pointer: e.Pointer, Keyword: e.Keyword}
		what := "subschema"
		if e.Keyword != "" {
			what = e.Keyword
		}
		d.Message = fmt.Sprintf("%s not covered: %s", what, strings.Join(e.Missing, ", "))
		if e.Dead {
			d.Code, d.Severity = "coverage/dead-definition", diag.Warning
			d.Message = "nothing references this definition"
		}
		out = append(out, d)
	}
	return out
}

// WriteFormat prints the formats of the coverage engine's own: diag.LCOV.
func (r *Result) WriteFormat(w io.Writer, format string) error {
	if diag.Format(format) != diag.LCOV {
		return fmt.Errorf("coverage reports have no format %q (%s, %s)", format, diag.Join(diag.Common(false), ", "), diag.LCOV)
	}
	return r.writeLCOV(w)
}

// writeLCOV prints the lcov tracefile: per schema file, each subschema as a function (named
// by its JSON Pointer), each keyword as a line (hit when applied; a line holding several
// keywords counts its least applied one), and each outcome and value as a branch of its
// keyword. Every entry is written, whatever Entries lists.
func (r *Result) writeLCOV(w io.Writer) error {
	tw := &diag.Printer{W: w}
	var files []string
	byFile := map[string][]Entry{}
	for _, e := range r.all {
		if _, ok := byFile[e.File]; !ok {
			files = append(files, e.File)
		}
		byFile[e.File] = append(byFile[e.File], e)
	}
	for _, f := range files {
		tw.Printf("TN:\nSF:%s\n", f)
		entries := byFile[f]
		fnf, fnh := 0, 0
		for _, e := range entries {
			if e.Keyword != "" {
				continue
			}
			name := lcovName(e.Pointer)
			tw.Printf("FN:%d,%s\nFNDA:%d,%s\n", e.Line, name, e.Hits, name)
			fnf++
			if e.Hits > 0 {
				fnh++
			}
		}
		tw.Printf("FNF:%d\nFNH:%d\n", fnf, fnh)
		brf, brh := 0, 0
		lines := map[int]uint64{}
		for block, e := range entries {
			if e.Keyword == "" {
				continue
			}
			if h, ok := lines[e.Line]; !ok || e.Hits < h {
				lines[e.Line] = e.Hits
			}
			for branch, it := range e.Items[1:] {
				taken := "-"
				if e.Hits > 0 {
					taken = strconv.FormatUint(it.Hits, 10)
				}
				tw.Printf("BRDA:%d,%d,%d,%s\n", it.Line, block, branch, taken)
				brf++
				if it.Hits > 0 {
					brh++
				}
			}
		}
		tw.Printf("BRF:%d\nBRH:%d\n", brf, brh)
		nums := make([]int, 0, len(lines))
		for l := range lines {
			nums = append(nums, l)
		}
		sort.Ints(nums)
		lh := 0
		for _, l := range nums {
			tw.Printf("DA:%d,%d\n", l, lines[l])
			if lines[l] > 0 {
				lh++
			}
		}
		tw.Printf("LF:%d\nLH:%d\nend_of_record\n", len(nums), lh)
	}
	return tw.Err
}

// lcovName names a subschema in lcov: its pointer ("#" for the root), without the
// characters the format cannot carry.
func lcovName(ptr string) string {
	if ptr == "" {
		return "#"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, ptr)
}
