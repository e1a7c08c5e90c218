// Package document owns the comparison of two versions of an OpenAPI or AsyncAPI document
// for the diff: the schema locations both hold (matched by openapi.Match), compared with
// diff.Compare side by side within one budget, each judged in the direction that breaks
// clients there, and the changes of the API itself; the result is a diff.Result with its
// Document report. The schemas' comparison and the reports are diff's.
package document

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
)

// Compare compares two versions of an OpenAPI or AsyncAPI document: every schema
// location both hold (matched by openapi.Match) with Compare, each judged in the direction
// that breaks clients there (opts.Direction, when set, judges every location in that
// direction instead), and what one version holds and the other lacks. The result's
// changes are those of every location (Change.Location names it) and the changes of the
// API itself (operations, parameters, bodies, responses, media types, headers, messages,
// components); Verdict is compatible only when every location is proved compatible in its
// direction and no change of the API breaks clients. The error is non-nil only when the
// comparison could not run (a schema that does not compile, documents of different
// kinds, cancellation).
func Compare(ctx context.Context, old, new *openapi.Document, opts *diff.Options) (*diff.Result, error) {
	if err := comparableDocuments(old, new); err != nil {
		return nil, err
	}
	asked := ""
	if opts != nil {
		asked = opts.Direction
	}
	o, err := opts.Normalized()
	if err != nil {
		return nil, err
	}
	pairs, apiChanges := openapi.Match(old, new)
	d := &docComparison{old: old, new: new, o: o, asked: asked, pairs: pairs}
	d.start()
	if err := d.plan(ctx); err != nil {
		return nil, err
	}
	d.run(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	skipped, err := d.addSearches()
	if err != nil {
		return nil, err
	}
	for i := range pairs {
		d.location(&pairs[i], d.of[i])
	}
	if skipped > 0 {
		d.rep.Notes = append(d.rep.Notes, fmt.Sprintf("%d of %d distinct schema comparisons did not run within the document's budget of %v: "+
			"their locations are unknown (not compared); compare one alone by naming it, FILE#/pointer", skipped, len(d.order), o.DocumentBudget))
	}
	for _, ac := range apiChanges {
		d.apiChange(ac)
	}
	d.finish()
	return d.res, nil
}

// comparableDocuments says why two documents cannot be compared location by location, or
// nil when they can.
func comparableDocuments(old, new *openapi.Document) error {
	if old == nil || new == nil {
		return errors.New("diff: both documents are needed")
	}
	if old.Kind.Kind != new.Kind.Kind {
		return fmt.Errorf("cannot compare an %s document with an %s document", old.Kind.Describe(), new.Kind.Describe())
	}
	if old.Kind.Kind == "swagger" {
		return errors.New("the documents are Swagger 2.0, which is not compared location by location (convert them to OpenAPI 3); name a definition with FILE#/definitions/NAME to compare two schemas")
	}
	return nil
}

// docComparison is one run of CompareDocuments: the documents, the schema comparisons it
// plans and runs, and the result it builds from them.
type docComparison struct {
	old, new *openapi.Document
	o        diff.Options
	asked    string // the direction asked for; "" judges each location in its own
	pairs    []openapi.Pair
	of       []*docJob // by pair: the comparison of its schemas; nil when they are the same
	order    []*docJob // the distinct comparisons, those of locations clients meet first
	res      *diff.Result
	rep      *diff.DocumentReport
	// the verdicts of every location and API change, backward and forward, and of those
	// checked in their direction
	bw, fw, verdict agg
}

// docJob is one comparison of two schemas, whatever the locations that hold them.
type docJob struct {
	old, new *schema.Schema
	name     string
	checked  bool // a location clients meet uses it: compared first
	res      *diff.Result
	err      error
	skipped  bool // not compared within the document's budget
}

// start makes the result and its document report, with no location yet.
func (d *docComparison) start() {
	old, new, o := d.old, d.new, d.o
	res := &diff.Result{Direction: diff.PerLocation, Changes: []diff.Change{}}
	if d.asked != "" {
		res.Direction = d.asked
	}
	rep := &diff.DocumentReport{Kind: old.Kind.Kind, OldVersion: old.Kind.Version, NewVersion: new.Kind.Version, Locations: []diff.LocationResult{}}
	rep.Notes = append(append(rep.Notes, prefixed("old: ", old.Notes())...), prefixed("new: ", new.Notes())...)
	res.Document = rep
	res.Search = diff.Search{Seed: o.Seed, BudgetMs: o.SearchBudget.Milliseconds()}
	if o.SearchBudget < 0 {
		res.Search.BudgetMs = 0
	}
	res.Old = diff.Side{File: old.Name, Draft: dialectName(old)}
	res.New = diff.Side{File: new.Name, Draft: dialectName(new)}
	d.res, d.rep = res, rep
}

// plan makes the comparisons to run: one per distinct pair of schemas, whatever the
// locations that hold it; the same schemas read alike are not compared at all. The
// comparisons of locations clients meet come first, those of a component alone after.
func (d *docComparison) plan(ctx context.Context) error {
	jobs := map[string]*docJob{}
	d.of = make([]*docJob, len(d.pairs))
	same := openapi.NewSameness(d.old, d.new)
	for i := range d.pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := &d.pairs[i]
		oldPtr, newPtr := d.old.Target(p.Old.Schema), d.new.Target(p.New.Schema)
		if same.Same(p.Old, oldPtr, p.New, newPtr) {
			continue
		}
		// a request reads the schemas of an OpenAPI 3.0 document without requiring its
		// readOnly properties, a response without its writeOnly ones (openapi.SchemaAs)
		role := roleOf(p.Direction)
		k := oldPtr + "\x00" + p.Old.Dialect + "\x00" + newPtr + "\x00" + p.New.Dialect + "\x00" + string(role)
		if j := jobs[k]; j != nil {
			d.of[i] = j
			j.checked = j.checked || p.New.Role != openapi.Shared
			continue
		}
		oldS, err := d.old.SchemaAs(oldPtr, role)
		if err != nil {
			return fmt.Errorf("old %s: %w", p.Old.Name, err)
		}
		newS, err := d.new.SchemaAs(newPtr, role)
		if err != nil {
			return fmt.Errorf("new %s: %w", p.New.Name, err)
		}
		j := &docJob{old: oldS, new: newS, name: p.New.Name, checked: p.New.Role != openapi.Shared}
		jobs[k], d.of[i] = j, j
		d.order = append(d.order, j)
	}
	slices.SortStableFunc(d.order, func(a, b *docJob) int {
		switch {
		case a.checked == b.checked:
			return 0
		case a.checked:
			return -1
		}
		return 1
	})
	return nil
}

// run runs the planned comparisons side by side, in both directions each, within one
// budget for the whole: a document of thousands of schemas that reach each other (a chain
// of references through the components) is compared in its time, not for ever. A
// comparison the budget stops is skipped, not failed; a worker's panic is raised again
// here.
func (d *docComparison) run(ctx context.Context) {
	lo := d.o
	lo.Direction, lo.Check = diff.Full, false
	budget, stopBudget := context.WithTimeout(ctx, d.o.DocumentBudget)
	defer stopBudget()
	next := make(chan *docJob)
	var wg sync.WaitGroup
	var catch panics.Catcher
	for range min(runtime.GOMAXPROCS(0), max(len(d.order), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if budget.Err() != nil {
					j.skipped = true
					continue
				}
				catch.Do(func() { j.res, j.err = diff.Compare(budget, j.old, j.new, &lo) })
				if j.err != nil && ctx.Err() == nil && budget.Err() != nil {
					j.res, j.err, j.skipped = nil, nil, true
				}
			}
		}()
	}
	for _, j := range d.order {
		next <- j
	}
	close(next)
	wg.Wait()
	catch.Repanic()
}

// addSearches adds the searches of the comparisons that ran to the result's and returns
// how many were skipped, or the first comparison's error.
func (d *docComparison) addSearches() (skipped int, err error) {
	s := &d.res.Search
	for _, j := range d.order {
		if j.err != nil {
			return 0, fmt.Errorf("%s: %w", j.name, j.err)
		}
		if j.skipped {
			skipped++
			continue
		}
		r := j.res
		s.Candidates += r.Search.Candidates
		s.Exhausted = s.Exhausted || r.Search.Exhausted
		s.ProofIncomplete = s.ProofIncomplete || r.Search.ProofIncomplete
		s.Contradictions += r.Search.Contradictions
	}
	return skipped, nil
}

// location adds the verdict of one matched location, whose schemas the comparison j
// compared (nil: the same schemas, read alike), and its changes, each named by the
// location and judged in its direction.
func (d *docComparison) location(p *openapi.Pair, j *docJob) {
	dir := p.Direction
	if d.asked != "" {
		dir = d.asked
	}
	d.rep.Compared++
	switch {
	case j == nil:
		d.rep.Unchanged++ // nothing to compare
	case j.skipped:
		d.rep.Locations = append(d.rep.Locations, d.notCompared(p, dir))
	default:
		d.compared(p, dir, j.res)
	}
}

// notCompared is the verdict of a location whose comparison the budget skipped: unknown.
func (d *docComparison) notCompared(p *openapi.Pair, dir string) diff.LocationResult {
	lr := diff.LocationResult{Location: p.New.Name, Role: string(p.New.Role), Direction: dir, Via: p.Via,
		OldPointer: p.Old.Schema, NewPointer: p.New.Schema, Backward: diff.Unknown, Forward: diff.Unknown,
		Checked: dir != "" && p.New.Role != openapi.Shared, NotCompared: true, Verdict: diff.Compatible}
	lr.Old = locate(d.old, p.Old.Schema)
	lr.New = locate(d.new, p.New.Schema)
	d.bw.add(diff.Unknown)
	d.fw.add(diff.Unknown)
	if dir != "" {
		lr.Verdict = diff.Unknown
		if lr.Checked {
			d.verdict.add(diff.Unknown)
		}
	}
	return lr
}

// compared adds the verdict of a location whose schemas were compared, with r, and its
// changes; a location proved unchanged is counted, not listed.
func (d *docComparison) compared(p *openapi.Pair, dir string, r *diff.Result) {
	d.bw.add(r.Backward)
	d.fw.add(r.Forward)
	lr := diff.LocationResult{Location: p.New.Name, Role: string(p.New.Role), Direction: dir, Via: p.Via,
		OldPointer: p.Old.Schema, NewPointer: p.New.Schema, Backward: r.Backward, Forward: r.Forward, Verdict: diff.Compatible,
		Changes: len(r.Changes), Checked: dir != "" && p.New.Role != openapi.Shared}
	lr.Old = locate(d.old, p.Old.Schema)
	lr.New = locate(d.new, p.New.Schema)
	if dir != "" {
		lr.Verdict = verdictIn(dir, r)
		if lr.Checked {
			d.verdict.add(lr.Verdict)
		}
		lr.Example, lr.ExampleValidUnder = exampleIn(dir, r)
	}
	for _, c := range r.Changes {
		c.Location, c.Direction = p.New.Name, dir
		if dir == "" {
			c.Direction = "none"
		}
		d.res.Changes = append(d.res.Changes, c)
	}
	if len(r.Changes) == 0 && r.Backward == diff.Compatible && r.Forward == diff.Compatible {
		d.rep.Unchanged++
		return
	}
	d.rep.Locations = append(d.rep.Locations, lr)
}

// exampleIn is the instance of r that proves it incompatible in the direction dir, and the
// side it is valid under ("old" or "new"); none when r has none.
func exampleIn(dir string, r *diff.Result) (json.RawMessage, string) {
	switch {
	case (dir == diff.Backward || dir == diff.Full) && len(r.BackwardExample) > 0:
		return r.BackwardExample, "old"
	case (dir == diff.Forward || dir == diff.Full) && len(r.ForwardExample) > 0:
		return r.ForwardExample, "new"
	}
	return nil, ""
}

// apiChange adds a change of the API itself (an operation, a parameter, a response, ...),
// which breaks clients in the directions it names.
func (d *docComparison) apiChange(ac openapi.Change) {
	c := apiChange(d.old, d.new, ac)
	if d.asked != "" && c.Direction != "" {
		c.Direction = d.asked
	}
	d.res.Changes = append(d.res.Changes, c)
	for _, b := range c.Breaks {
		if b == diff.Backward {
			d.bw.add(diff.Incompatible)
		} else {
			d.fw.add(diff.Incompatible)
		}
		d.verdict.add(diff.Incompatible)
	}
}

// finish sets the result's verdicts (in the direction asked for, when one was), sorts its
// changes and sums them up.
func (d *docComparison) finish() {
	res := d.res
	res.Backward, res.Forward = d.bw.verdict(), d.fw.verdict()
	res.Verdict = d.verdict.verdict()
	switch d.asked {
	case "":
	case diff.Backward:
		res.Verdict = res.Backward
	case diff.Forward:
		res.Verdict = res.Forward
	default:
		res.Verdict = both(res.Backward, res.Forward)
	}
	diff.SortChanges(res.Changes)
	res.Summary = diff.Summarize(res.Changes, res.Direction)
	if d.o.Check {
		res.Check = &diff.Check{Direction: res.Direction, Passed: res.Verdict == diff.Compatible}
	}
}

// agg aggregates verdicts: incompatible when any is, compatible when all are (or there
// are none), unknown otherwise.
type agg struct{ incompatible, unknown bool }

func (a *agg) add(v diff.Verdict) {
	switch v {
	case diff.Incompatible:
		a.incompatible = true
	case diff.Unknown:
		a.unknown = true
	}
}

func (a *agg) verdict() diff.Verdict {
	switch {
	case a.incompatible:
		return diff.Incompatible
	case a.unknown:
		return diff.Unknown
	}
	return diff.Compatible
}

// roleOf is the role whose view of an OpenAPI 3.0 document a location is read in, by the
// direction that matters there: a request's (backward), a response's (forward), or none.
func roleOf(dir string) openapi.Role {
	switch dir {
	case diff.Backward:
		return openapi.Request
	case diff.Forward:
		return openapi.Response
	}
	return openapi.Shared
}

// verdictIn is a comparison's verdict in a direction.
func verdictIn(dir string, r *diff.Result) diff.Verdict {
	switch dir {
	case diff.Backward:
		return r.Backward
	case diff.Forward:
		return r.Forward
	}
	return both(r.Backward, r.Forward)
}

func both(b, f diff.Verdict) diff.Verdict {
	var a agg
	a.add(b)
	a.add(f)
	return a.verdict()
}

func prefixed(p string, notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = p + n
	}
	return out
}

func dialectName(d *openapi.Document) string {
	switch d.Kind.Kind {
	case "openapi":
		if strings.HasPrefix(d.Kind.Version, "3.0") {
			return "openapi-3.0"
		}
		return "2020-12"
	case "asyncapi":
		return "draft-07"
	}
	return ""
}

func locate(d *openapi.Document, ptr string) diff.Location {
	line, col := d.Src.LocateKey(ptr)
	return diff.Location{File: d.Name, Line: line, Column: col}
}

// apiChange turns a change of the API into a Change of the result.
func apiChange(old, new *openapi.Document, ac openapi.Change) diff.Change {
	c := diff.Change{Kind: ac.Kind, Message: ac.Message, Level: "validation"}
	var it *openapi.Item
	if ac.Old != nil {
		c.OldPointer, c.Old = ac.Old.Pointer, locate(old, ac.Old.Pointer)
		it = ac.Old
	}
	if ac.New != nil {
		c.NewPointer, c.New = ac.New.Pointer, locate(new, ac.New.Pointer)
		it = ac.New
	}
	c.Location = it.Name
	c.Direction = it.Direction()
	if c.Direction == "" {
		c.Direction = "none"
	}
	if ac.Breaks != "" {
		c.Breaks = []string{ac.Breaks}
		c.Direction = ac.Breaks
	}
	switch {
	case ac.Kind == "not-compared":
		c.Effect = diff.EffectUnknown
	case ac.Breaks == diff.Backward:
		c.Effect = diff.Narrow
	case ac.Breaks == diff.Forward:
		c.Effect = diff.Widen
	case strings.HasSuffix(ac.Kind, "-added"), strings.HasSuffix(ac.Kind, "-optional"), ac.Kind == "schema-removed":
		c.Effect = diff.Widen
	default:
		c.Effect = diff.Narrow
	}
	return c
}

// VerdictLines states a comparison of documents in short lines, as the fixtures of
// internal/openapi/testdata/pairs state what they expect: "location NAME: DIRECTION
// VERDICT" for each listed location ("unused backward V forward V" for a component nothing
// uses), "change KIND NAME[: breaks DIRECTION]" for each change of the API, "unchanged N"
// and "verdict V". They are sorted.
func VerdictLines(r *diff.Result) []string {
	var out []string
	if d := r.Document; d != nil {
		for _, l := range d.Locations {
			if l.Direction == "" {
				out = append(out, fmt.Sprintf("location %s: unused backward %s forward %s", l.Location, l.Backward, l.Forward))
			} else {
				out = append(out, fmt.Sprintf("location %s: %s %s", l.Location, l.Direction, l.Verdict))
			}
		}
		out = append(out, fmt.Sprintf("unchanged %d", d.Unchanged))
	}
	for _, c := range r.Changes {
		if _, ok := openapi.ChangeKinds()[c.Kind]; !ok {
			continue
		}
		line := "change " + c.Kind + " " + c.Location
		if len(c.Breaks) > 0 {
			line += ": breaks " + strings.Join(c.Breaks, " and ")
		}
		out = append(out, line)
	}
	out = append(out, "verdict "+string(r.Verdict))
	slices.Sort(out)
	return out
}
