package diag

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Page says which part of a long list a result holds (validate's instances, lint's
// findings, diff's changes, test's tests, coverage's entries, the catalog's schemas): the
// one page record of every report that pages.
type Page struct {
	// Offset is the index of the first item held.
	Offset int `json:"offset"`
	// Limit is the most items asked for (0: no limit).
	Limit int `json:"limit"`
	// Total is the number of items before the cut.
	Total int `json:"total"`
	// Omitted is the number of items left out.
	Omitted int `json:"omitted"`
}

// Pager is implemented by a report whose main list can be cut: the MCP result budget
// (internal/tools) keeps the first items that fit, and the page record and the text say
// where the next call continues. A report that pages needs nothing else for it.
type Pager interface {
	Report
	// PageItems is how many items the report holds, and the word for one and for many
	// ("instance", "instances").
	PageItems() (n int, one, many string)
	// PageRecord is the report's page record: nil when it holds its whole list.
	PageRecord() *Page
	// KeepFirst returns a copy of the report that holds only its first k items, its page
	// record counting the others as omitted (made with Keep); the report's summaries still
	// count everything. limit is the call's limit, for a page record made here.
	KeepFirst(k, limit int) Report
}

// Keep is what every KeepFirst does: the first k of a report's items, and the page record
// that says so (page's, or a new one over the items, with the items after k omitted).
func Keep[T any](items []T, k, limit int, page *Page) ([]T, *Page) {
	p := &Page{Limit: limit, Total: len(items)}
	if page != nil {
		*p = *page
	}
	p.Omitted += len(items) - k
	return items[:k], p
}

// Cut keeps list[offset:offset+limit] (limit 0: to the end) and returns the page it is, or
// nil when it is the whole list, which is then returned as it is.
func Cut[T any](list []T, offset, limit int) ([]T, *Page) {
	total := len(list)
	offset = min(max(offset, 0), total)
	end := total
	if limit > 0 && offset+limit < total {
		end = offset + limit
	}
	if offset == 0 && end == total {
		return list, nil
	}
	return list[offset:end], &Page{Offset: offset, Limit: limit, Total: total, Omitted: total - (end - offset)}
}

// Plural counts things: "1 test", "2 tests". It is the one helper of the module for the
// word that goes with a count (with PluralWord, for a count written elsewhere).
func Plural(n int, one, many string) string {
	return strconv.Itoa(n) + " " + PluralWord(n, one, many)
}

// PluralWord is the word that goes with a count n: one for 1, many otherwise ("is" or
// "are", "test" or "tests").
func PluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Middle cuts a long text to at most n bytes in its middle, where "..." stands for what
// was left out, at rune boundaries: a location or a value in a message keeps its two ends.
// It is the one middle cut of the module.
func Middle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := max(n-3, 0)
	head, tail := keep/2, len(s)-(keep-keep/2)
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "..." + s[tail:]
}

// Printer prints a text report: it keeps the first write error and writes nothing after
// it.
type Printer struct {
	W   io.Writer
	Err error
}

// Printf prints as fmt.Fprintf does, unless a write failed before.
func (p *Printer) Printf(format string, args ...any) {
	if p.Err == nil {
		_, p.Err = fmt.Fprintf(p.W, format, args...)
	}
}

// Position renders "file:line:column" as the engines' text reports do: the file alone when
// the line is unknown.
func Position(file string, line, col int) string {
	if line > 0 {
		return file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	}
	return file
}
