package diff

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/diff/search"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// render turns the internal changes into the result's list, breaking ones first.
func (e *engine) render(changes []*align.Change, dir string) []Change {
	out := make([]Change, 0, len(changes))
	loc := locators{}
	for _, ch := range changes {
		c := Change{Kind: ch.Kind, Message: ch.Msg, Level: ch.Level, Effect: effectOf(ch.Bw, ch.Fw)}
		if ch.It != nil {
			c.Path = ch.It.Ipath
		}
		p := ch.Placed
		if p == nil {
			p = loc.place(ch)
		}
		c.OldPointer, c.Old, c.NewPointer, c.New = p.OldPtr, p.Old, p.NewPtr, p.New
		if ch.Kind == "semantic-difference" && ch.FailLoc != "" {
			ptr := ch.FailLoc
			if i := strings.IndexByte(ptr, '#'); i >= 0 {
				ptr = ptr[i+1:]
			}
			if ch.ExampleDir == search.DirForward {
				c.OldPointer, c.Old = ptr, ch.FailPos
			} else {
				c.NewPointer, c.New = ptr, ch.FailPos
			}
		}
		if ch.Bw == align.PBroken {
			c.Breaks = append(c.Breaks, Backward)
		}
		if ch.Fw == align.PBroken {
			c.Breaks = append(c.Breaks, Forward)
		}
		if ch.Contra {
			c.Message += " (the rule engine's claim about this change was refuted by the example; please report this)"
		}
		if ch.Example.IsValid() {
			c.Example = source.AppendJSON(nil, ch.Example)
			c.ExampleValidUnder = "old"
			if ch.ExampleDir == search.DirForward {
				c.ExampleValidUnder = "new"
			}
		}
		out = append(out, c)
	}
	// Sorted through an index: a Change is large, and moving them costs more than comparing.
	ranks := make([]int, len(out))
	order := make([]int, len(out))
	for i := range out {
		ranks[i], order[i] = rank(&out[i], dir), i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &out[i], &out[j]
		if c := cmp.Compare(ranks[i], ranks[j]); c != 0 {
			return c
		}
		if c := strings.Compare(a.New.File, b.New.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.New.Line, b.New.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(a.New.Column, b.New.Column); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	sorted := make([]Change, len(out))
	for k, i := range order {
		sorted[k] = out[i]
	}
	out = sorted
	return out
}

// placeAhead locates the keywords of the walk's changes on a goroutine of its own when
// ahead is set, and returns the function that waits for it (the report calls it, and so
// does the comparison before it returns). Where a keyword is does not depend on the
// search, which runs meanwhile: with two cores the report no longer waits for it. The
// goroutine writes only the changes' placed field, which nothing else touches until the
// wait.
func placeAhead(changes []*align.Change, ahead bool) (wait func()) {
	if !ahead || len(changes) == 0 {
		return func() {}
	}
	done := make(chan struct{})
	var catch panics.Catcher
	go func() {
		defer close(done)
		catch.Do(func() {
			loc := locators{}
			for _, ch := range changes {
				ch.Placed = loc.place(ch)
			}
		})
	}()
	return func() {
		<-done
		catch.Repanic()
	}
}

// locators locate the keywords of one report, a Locator per document.
type locators map[*source.Document]*source.Locator

// place locates the keywords of a change on both sides.
func (ls locators) place(ch *align.Change) *align.Placed {
	p := &align.Placed{}
	p.OldPtr, p.Old = ls.placeOf(ch.Of, ch.On, ch.Okw)
	p.NewPtr, p.New = ls.placeOf(ch.Nf, ch.Nn, ch.Nkw)
	return p
}

// placeOf locates a keyword: the fact's own, or where an absent keyword would be.
func (ls locators) placeOf(f *algebra.Fact, n *algebra.Node, kw string) (string, Location) {
	if f == nil && n == nil {
		return "", Location{}
	}
	var s *schema.Schema
	var ptr string
	if f != nil {
		s, ptr = f.N.S, f.Pointer()
	} else {
		s = n.S
		_, ptr = s.Pointer()
		if kw != "" {
			if _, ok := s.Keyword(strings.SplitN(kw, "/", 2)[0]); ok {
				ptr += "/" + kw
			}
		}
	}
	file, _ := s.Pointer()
	d := s.Document()
	l := ls[d]
	if l == nil {
		l = d.Locator()
		ls[d] = l
	}
	line, col := l.LocateKey(ptr)
	return ptr, Location{File: file, Line: line, Column: col}
}

// askedOf is the direction asked about a change: its own (a change in a document), else
// the result's.
func askedOf(c *Change, dir string) string {
	if c.Direction != "" {
		return c.Direction
	}
	return dir
}

// breaksAsked reports whether a change is shown to break the asked direction.
func breaksAsked(c *Change, dir string) bool {
	dir = askedOf(c, dir)
	for _, b := range c.Breaks {
		if dir == Full || b == dir {
			return true
		}
	}
	return false
}

// mayBreak reports whether a change is not proved harmless for the asked direction.
func mayBreak(c *Change, dir string) bool {
	dir = askedOf(c, dir)
	if c.Level != "validation" || dir == "none" {
		return false
	}
	switch dir {
	case Backward:
		return c.Effect != Equivalent && c.Effect != Widen
	case Forward:
		return c.Effect != Equivalent && c.Effect != Narrow
	}
	return c.Effect != Equivalent
}

func rank(c *Change, dir string) int {
	switch {
	case breaksAsked(c, dir):
		return 0
	case mayBreak(c, dir):
		return 1
	case c.Level == "validation":
		return 2
	}
	return 3
}

// Summarize counts the changes cs of a comparison in the direction dir, as Result.Summary
// holds them.
func Summarize(cs []Change, dir string) Summary {
	s := Summary{Changes: len(cs)}
	for i := range cs {
		c := &cs[i]
		if c.Level == "docs" {
			s.Docs++
			continue
		}
		if breaksAsked(c, dir) {
			s.Breaking++
		}
		switch c.Effect {
		case Equivalent:
			s.Equivalent++
		case Widen:
			s.Widen++
		case Narrow:
			s.Narrow++
		case Incomparable:
			s.Incomparable++
		default:
			s.Unknown++
		}
	}
	return s
}

// ExitCode is 1 when Check was asked and the asked direction is not compatible, else 0.
func (r *Result) ExitCode() int {
	if r.Check != nil && !r.Check.Passed {
		return 1
	}
	return 0
}

// Cut keeps changes [offset, offset+limit) and records the page. The locations of a
// comparison of documents are cut the same way.
func (r *Result) Cut(offset, limit int) {
	if d := r.Document; d != nil {
		n := len(d.Locations)
		from := min(max(offset, 0), n)
		to := n
		if limit > 0 && from+limit < n {
			to = from + limit
		}
		d.Omitted = n - (to - from)
		d.Locations = d.Locations[from:to]
	}
	if list, page := diag.Cut(r.Changes, offset, limit); page != nil {
		r.Changes, r.Page = list, page
	}
}

// PageItems counts the changes held (diag.Pager).
func (r *Result) PageItems() (int, string, string) { return len(r.Changes), "change", "changes" }

// PageRecord is the result's page record (diag.Pager).
func (r *Result) PageRecord() *diag.Page { return r.Page }

// KeepFirst is a copy that holds only the first k changes (diag.Pager).
func (r *Result) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Changes, c.Page = diag.Keep(r.Changes, k, limit, r.Page)
	return &c
}

// verdictText says what a verdict means in each direction (made when a report is printed,
// not at every start).
func verdictText() map[string]map[Verdict]string {
	return map[string]map[Verdict]string{
		Backward: {
			Compatible:   "NEW accepts every instance OLD accepts",
			Incompatible: "NEW rejects some instances OLD accepts",
			Unknown:      "not proved either way; treat as possibly breaking",
		},
		Forward: {
			Compatible:   "OLD accepts every instance NEW accepts",
			Incompatible: "NEW accepts some instances OLD rejects",
			Unknown:      "not proved either way",
		},
	}
}

// WriteText prints the report a reviewer reads: the verdicts first, then each change, the
// breaking ones first, with both locations and the example.
func (r *Result) WriteText(w io.Writer) error {
	pw := &printer{w: w}
	if r.Document != nil {
		r.writeDocument(pw)
	}
	pw.printf("backward: %-12s %s\n", r.Backward, verdictText()[Backward][r.Backward])
	pw.printf("forward:  %-12s %s\n", r.Forward, verdictText()[Forward][r.Forward])
	if r.Check != nil {
		state := "passed"
		if !r.Check.Passed {
			state = "FAILED"
		}
		pw.printf("check (%s): %s\n", r.Check.Direction, state)
		if r.Check.Direction == PerLocation && !r.Check.Passed {
			pw.printf("    (each location in the direction that breaks clients there; a change of the API that breaks them fails it too)\n")
		}
	}
	if len(r.BackwardExample) > 0 {
		pw.printf("example valid under OLD, rejected by NEW: %s\n", clip(string(r.BackwardExample)))
	}
	if len(r.ForwardExample) > 0 {
		pw.printf("example valid under NEW, rejected by OLD: %s\n", clip(string(r.ForwardExample)))
	}
	s := r.Summary
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{s.Breaking, "breaking (" + r.Direction + ")"}, {s.Incomparable, "incomparable"}, {s.Narrow, "narrow"},
		{s.Widen, "widen"}, {s.Unknown, "unknown"}, {s.Equivalent, "equivalent"}, {s.Docs, "documentation"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) > 0 {
		pw.printf("\n%s: %s\n", diag.Plural(s.Changes, "change", "changes"), strings.Join(parts, ", "))
	} else {
		pw.printf("\nno changes\n")
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		tag := "  "
		switch {
		case breaksAsked(c, r.Direction):
			tag = "BREAKING "
		case mayBreak(c, r.Direction):
			tag = "MAY BREAK "
		}
		pw.printf("\n%s%s (%s)", tag, c.Kind, c.Effect)
		if len(c.Breaks) > 0 {
			pw.printf(", breaks %s", strings.Join(c.Breaks, " and "))
		}
		if c.Location != "" {
			pw.printf("\n    at %s (%s)", clipPointer(c.Location), directionWords(c.Direction))
		}
		pw.printf("\n    %s\n", c.Message)
		if c.Path != "" {
			pw.printf("    at instance location %s\n", clipPointer(c.Path))
		}
		pw.printf("    old: %s\n    new: %s\n", whereIn(c, c.Old, c.OldPointer), whereIn(c, c.New, c.NewPointer))
		if len(c.Example) > 0 {
			if c.ExampleValidUnder == "old" {
				pw.printf("    example valid under OLD, rejected by NEW: %s\n", clip(string(c.Example)))
			} else {
				pw.printf("    example valid under NEW, rejected by OLD: %s\n", clip(string(c.Example)))
			}
		}
	}
	if r.Page != nil {
		pw.printf("\n(%d of %d changes shown; ask for more with offset and limit)\n", len(r.Changes), r.Page.Total)
	}
	if r.Search.ProofIncomplete {
		pw.printf("\nnote: the rule engine reached its work limit; what it did not prove is unknown\n")
	}
	if r.Search.Contradictions > 0 {
		pw.printf("\nnote: %d claim(s) of the rule engine were refuted by examples (the examples win); please report this\n", r.Search.Contradictions)
	}
	return pw.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// whereIn is where for a change: a change of an API that one side lacks is absent there.
func whereIn(c *Change, l Location, ptr string) string {
	if c.Location != "" && ptr == "" && l.File == "" {
		return "(absent)"
	}
	return where(l, ptr)
}

func where(l Location, ptr string) string {
	f := l.File
	if f == "" {
		f = "<schema>"
	}
	if l.Line > 0 {
		f += fmt.Sprintf(":%d:%d", l.Line, l.Column)
	}
	if ptr == "" {
		ptr = "(root)"
	}
	return f + " " + clipPointer(ptr)
}

// maxPointer bounds a location in the text report: each change of a chain thousands of
// levels deep printed its whole instance location, so the report grew with the square of
// the depth (9 MB for 4,000 levels). The JSON report keeps every location whole.
const maxPointer = 200

// clipPointer shortens a long JSON Pointer (or a location ending in one) in its middle, at
// token boundaries, saying how many tokens were left out.
func clipPointer(p string) string {
	if len(p) <= maxPointer {
		return p
	}
	head := strings.LastIndexByte(p[:maxPointer/2], '/')
	tail := len(p) - maxPointer/2
	if i := strings.IndexByte(p[tail:], '/'); i >= 0 {
		tail += i
	}
	if head <= 0 || tail <= head {
		return clip(p)
	}
	left := strings.Count(p[head:tail], "/")
	return p[:head] + "/...(" + strconv.Itoa(left) + " more levels)..." + p[tail:]
}

func clip(s string) string {
	if r := []rune(s); len(r) > 400 {
		return string(r[:397]) + "..."
	}
	return s
}

// Diagnostics lists the validation-level changes: an error for a change shown to break
// the asked direction, a warning for one not proved harmless, a note otherwise.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for i := range r.Changes {
		c := &r.Changes[i]
		if c.Level != "validation" {
			continue
		}
		sev := diag.Info
		switch {
		case breaksAsked(c, r.Direction):
			sev = diag.Error
		case mayBreak(c, r.Direction):
			sev = diag.Warning
		}
		d := diag.Diagnostic{Code: "diff/" + c.Kind, Severity: sev, Message: c.Message + " (" + string(c.Effect) + ")",
			File: c.New.File, Line: c.New.Line, Column: c.New.Column, Pointer: c.NewPointer}
		if c.NewPointer == "" && c.New.File == "" && c.Old.File != "" {
			// something of an API the new document lacks: located in the old one
			d.File, d.Line, d.Column, d.Pointer = c.Old.File, c.Old.Line, c.Old.Column, c.OldPointer
		}
		if c.Location != "" {
			d.Message = c.Location + ": " + d.Message
		}
		if len(c.Example) > 0 {
			d.Message += "; example valid under " + strings.ToUpper(c.ExampleValidUnder) + ": " + clip(string(c.Example))
		}
		d.Related = append(d.Related, diag.Related{Message: "old version", File: c.Old.File, Line: c.Old.Line,
			Column: c.Old.Column, Pointer: c.OldPointer})
		out = append(out, d)
	}
	return out
}

// directionWords says which direction matters at a location of a document.
func directionWords(dir string) string {
	switch dir {
	case Backward:
		return "backward matters: clients send it"
	case Forward:
		return "forward matters: clients receive it"
	case Full:
		return "both directions matter"
	}
	return "not used by any operation: not checked"
}

// writeDocument prints the head of a comparison of two documents: what was compared and the
// verdict at each location that is not unchanged.
func (r *Result) writeDocument(pw *printer) {
	d := r.Document
	name := map[string]string{"openapi": "OpenAPI", "asyncapi": "AsyncAPI"}[d.Kind]
	pw.printf("%s %s -> %s: %s compared, %d unchanged\n", name, d.OldVersion, d.NewVersion, diag.Plural(d.Compared, "schema location", "schema locations"), d.Unchanged)
	for _, l := range d.Locations {
		tag := "ok       "
		switch {
		case l.Direction == "":
			tag = "unused   "
		case l.Verdict == Incompatible:
			tag = "BREAKING "
		case l.Verdict == Unknown:
			tag = "MAY BREAK"
		}
		verdict := string(l.Verdict)
		if l.Direction != "" {
			verdict = l.Direction + " " + verdict
		} else {
			verdict = "backward " + string(l.Backward) + ", forward " + string(l.Forward)
		}
		pw.printf("  %s %s: %s", tag, l.Location, verdict)
		if l.Via != "" {
			pw.printf(" (compared with old response %s)", l.Via)
		}
		if l.Direction != "" && !l.Checked {
			pw.printf(" (a component: checked where it is used)")
		}
		if l.NotCompared {
			pw.printf(" (not compared: the document's budget ran out)")
		}
		pw.printf("\n")
		if len(l.Example) > 0 {
			pw.printf("            example valid under %s, rejected by %s: %s\n", strings.ToUpper(l.ExampleValidUnder),
				map[string]string{"old": "NEW", "new": "OLD"}[l.ExampleValidUnder], clip(string(l.Example)))
		}
	}
	if d.Omitted > 0 {
		pw.printf("  (%d more locations not shown; ask for more with offset and limit)\n", d.Omitted)
	}
	for _, n := range d.Notes {
		pw.printf("note: %s\n", n)
	}
	pw.printf("\n")
}

// SortChanges puts the changes shown to break the direction that matters where they are
// first, then those not proved harmless, keeping the order of locations otherwise.
func SortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int { return cmp.Compare(rank(&a, ""), rank(&b, "")) })
}
