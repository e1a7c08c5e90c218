package diag

import (
	"fmt"
	"io"
	"strconv"
)

// Page says which part of a long list a result holds (validate's instances, test's
// tests, coverage's entries).
type Page struct {
	Offset  int `json:"offset"`
	Limit   int `json:"limit"`
	Total   int `json:"total"`
	Omitted int `json:"omitted"`
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
