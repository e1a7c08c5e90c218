package diff

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
)

// PerLocation is Result.Direction for a comparison of two OpenAPI or AsyncAPI documents
// where each location is judged in the direction that breaks clients there.
const PerLocation = "per-location"

// DocumentReport is what a comparison of two OpenAPI or AsyncAPI documents adds to its
// Result: the kind of documents and one entry per schema location compared.
type DocumentReport struct {
	// Kind is "openapi" or "asyncapi".
	Kind string `json:"kind"`
	// OldVersion and NewVersion are the versions the documents declare ("3.0.3", "2.6.0").
	OldVersion string `json:"oldVersion"`
	// NewVersion is the new document's version.
	NewVersion string `json:"newVersion"`
	// Compared counts the schema locations both documents hold, all compared.
	Compared int `json:"compared"`
	// Unchanged counts those proved equivalent with no change reported (not listed).
	Unchanged int `json:"unchanged"`
	// Locations lists the other compared locations: those with a change or not proved
	// equivalent.
	Locations []LocationResult `json:"locations"`
	// Omitted counts the locations left out of Locations by a limit.
	Omitted int `json:"omitted,omitempty"`
	// Notes says what the documents hold that was not followed or not compared.
	Notes []string `json:"notes,omitempty"`
}

// LocationResult is the verdict at one schema location of two documents.
type LocationResult struct {
	// Location names it: "POST /pets request body application/json".
	Location string `json:"location"`
	// Role is "request", "response" or "component".
	Role string `json:"role"`
	// Direction is the direction that breaks clients here ("backward" for a request,
	// "forward" for a response, the directions of its users for a component); "" for a
	// component nothing uses, which is compared but not checked.
	Direction string `json:"direction"`
	// Via names the old response a new status code was compared with, when the old
	// document did not list that code.
	Via string `json:"via,omitempty"`
	// OldPointer and NewPointer are the schemas in the two documents.
	OldPointer string `json:"oldPointer"`
	// NewPointer is the schema in the new document.
	NewPointer string `json:"newPointer"`
	// Old and New locate them.
	Old Location `json:"old"`
	// New locates NewPointer.
	New Location `json:"new"`
	// Backward and Forward are the verdicts of the two schemas.
	Backward Verdict `json:"backward"`
	// Forward is the forward verdict.
	Forward Verdict `json:"forward"`
	// Verdict answers Direction (compatible when Direction is "").
	Verdict Verdict `json:"verdict"`
	// Checked is set for the locations the overall verdict and --check judge: the requests
	// and responses clients meet. A component is judged through the locations that use it.
	Checked bool `json:"checked"`
	// Changes counts the changes reported at this location.
	Changes int `json:"changes"`
	// Example is an instance that proves the verdict wrong in Direction: valid under the
	// side ExampleValidUnder names, invalid under the other.
	Example json.RawMessage `json:"example,omitempty"`
	// ExampleValidUnder is "old" or "new".
	ExampleValidUnder string `json:"exampleValidUnder,omitempty"`
	// NotCompared is set when the document's budget ran out before this location was
	// compared: its verdicts are unknown.
	NotCompared bool `json:"notCompared,omitempty"`
}

// CompareDocuments compares two versions of an OpenAPI or AsyncAPI document: every schema
// location both hold (matched by openapi.Match) with Compare, each judged in the direction
// that breaks clients there (opts.Direction, when set, judges every location in that
// direction instead), and what one version holds and the other lacks. The result's
// changes are those of every location (Change.Location names it) and the changes of the
// API itself (operations, parameters, bodies, responses, media types, headers, messages,
// components); Verdict is compatible only when every location is proved compatible in its
// direction and no change of the API breaks clients. The error is non-nil only when the
// comparison could not run (a schema that does not compile, documents of different
// kinds, cancellation).
func CompareDocuments(ctx context.Context, old, new *openapi.Document, opts *Options) (*Result, error) {
	if old == nil || new == nil {
		return nil, errors.New("diff: both documents are needed")
	}
	if old.Kind.Kind != new.Kind.Kind {
		return nil, fmt.Errorf("cannot compare an %s document with an %s document", old.Kind.Describe(), new.Kind.Describe())
	}
	if old.Kind.Kind == "swagger" {
		return nil, errors.New("the documents are Swagger 2.0, which is not compared location by location (convert them to OpenAPI 3); name a definition with FILE#/definitions/NAME to compare two schemas")
	}
	asked := ""
	if opts != nil {
		asked = opts.Direction
	}
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	pairs, apiChanges := openapi.Match(old, new)
	res := &Result{Direction: PerLocation, Changes: []Change{}}
	if asked != "" {
		res.Direction = asked
	}
	rep := &DocumentReport{Kind: old.Kind.Kind, OldVersion: old.Kind.Version, NewVersion: new.Kind.Version, Locations: []LocationResult{}}
	rep.Notes = append(append(rep.Notes, prefixed("old: ", old.Notes())...), prefixed("new: ", new.Notes())...)
	res.Document = rep
	res.Search = Search{Seed: o.Seed, BudgetMs: o.SearchBudget.Milliseconds()}
	if o.SearchBudget < 0 {
		res.Search.BudgetMs = 0
	}
	res.Old = Side{File: old.Name, Draft: dialectName(old)}
	res.New = Side{File: new.Name, Draft: dialectName(new)}
	var bw, fw, verdict agg
	// Each distinct pair of schemas is compared once, whatever the locations that hold it;
	// the same schemas read alike are not compared at all. The comparisons run side by side.
	type job struct {
		old, new *schema.Schema
		name     string
		checked  bool // a location clients meet uses it: compared first
		res      *Result
		err      error
		skipped  bool // not compared within the document's budget
	}
	jobs := map[string]*job{}
	var order []*job
	of := make([]*job, len(pairs)) // nil: unchanged
	same := openapi.NewSameness(old, new)
	for i := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := &pairs[i]
		oldPtr, newPtr := old.Target(p.Old.Schema), new.Target(p.New.Schema)
		if same.Same(p.Old, oldPtr, p.New, newPtr) {
			continue
		}
		// a request reads the schemas of an OpenAPI 3.0 document without requiring its
		// readOnly properties, a response without its writeOnly ones (openapi.SchemaAs)
		role := roleOf(p.Direction)
		k := oldPtr + "\x00" + p.Old.Dialect + "\x00" + newPtr + "\x00" + p.New.Dialect + "\x00" + string(role)
		if j := jobs[k]; j != nil {
			of[i] = j
			j.checked = j.checked || p.New.Role != openapi.Shared
			continue
		}
		oldS, err := old.SchemaAs(oldPtr, role)
		if err != nil {
			return nil, fmt.Errorf("old %s: %w", p.Old.Name, err)
		}
		newS, err := new.SchemaAs(newPtr, role)
		if err != nil {
			return nil, fmt.Errorf("new %s: %w", p.New.Name, err)
		}
		j := &job{old: oldS, new: newS, name: p.New.Name, checked: p.New.Role != openapi.Shared}
		jobs[k], of[i] = j, j
		order = append(order, j)
	}
	// The locations clients meet are compared first; a component alone only after them.
	slices.SortStableFunc(order, func(a, b *job) int {
		switch {
		case a.checked == b.checked:
			return 0
		case a.checked:
			return -1
		}
		return 1
	})
	lo := o
	lo.Direction, lo.Check = Full, false
	// One budget for the whole: a document of thousands of schemas that reach each other
	// (a chain of references through the components) is compared in its time, not for ever.
	budget, stopBudget := context.WithTimeout(ctx, o.DocumentBudget)
	defer stopBudget()
	next := make(chan *job)
	var wg sync.WaitGroup
	var catch panics.Catcher // a worker's panic is raised again after the wait
	for range min(runtime.GOMAXPROCS(0), max(len(order), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if budget.Err() != nil {
					j.skipped = true
					continue
				}
				catch.Do(func() { j.res, j.err = Compare(budget, j.old, j.new, &lo) })
				if j.err != nil && ctx.Err() == nil && budget.Err() != nil {
					j.res, j.err, j.skipped = nil, nil, true
				}
			}
		}()
	}
	for _, j := range order {
		next <- j
	}
	close(next)
	wg.Wait()
	catch.Repanic()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	skipped := 0
	for _, j := range order {
		if j.err != nil {
			return nil, fmt.Errorf("%s: %w", j.name, j.err)
		}
		if j.skipped {
			skipped++
			continue
		}
		r := j.res
		res.Search.Candidates += r.Search.Candidates
		res.Search.Exhausted = res.Search.Exhausted || r.Search.Exhausted
		res.Search.ProofIncomplete = res.Search.ProofIncomplete || r.Search.ProofIncomplete
		res.Search.Contradictions += r.Search.Contradictions
	}
	for i := range pairs {
		p := &pairs[i]
		dir := p.Direction
		if asked != "" {
			dir = asked
		}
		rep.Compared++
		if of[i] == nil {
			rep.Unchanged++ // the same schemas, read alike: nothing to compare
			continue
		}
		if of[i].skipped {
			lr := LocationResult{Location: p.New.Name, Role: string(p.New.Role), Direction: dir, Via: p.Via,
				OldPointer: p.Old.Schema, NewPointer: p.New.Schema, Backward: Unknown, Forward: Unknown,
				Checked: dir != "" && p.New.Role != openapi.Shared, NotCompared: true, Verdict: Compatible}
			lr.Old = locate(old, p.Old.Schema)
			lr.New = locate(new, p.New.Schema)
			bw.add(Unknown)
			fw.add(Unknown)
			if dir != "" {
				lr.Verdict = Unknown
				if lr.Checked {
					verdict.add(Unknown)
				}
			}
			rep.Locations = append(rep.Locations, lr)
			continue
		}
		r := of[i].res
		bw.add(r.Backward)
		fw.add(r.Forward)
		lr := LocationResult{Location: p.New.Name, Role: string(p.New.Role), Direction: dir, Via: p.Via,
			OldPointer: p.Old.Schema, NewPointer: p.New.Schema, Backward: r.Backward, Forward: r.Forward, Verdict: Compatible,
			Changes: len(r.Changes), Checked: dir != "" && p.New.Role != openapi.Shared}
		lr.Old = locate(old, p.Old.Schema)
		lr.New = locate(new, p.New.Schema)
		if dir != "" {
			lr.Verdict = verdictIn(dir, r)
			if lr.Checked {
				verdict.add(lr.Verdict)
			}
			switch {
			case (dir == Backward || dir == Full) && len(r.BackwardExample) > 0:
				lr.Example, lr.ExampleValidUnder = r.BackwardExample, "old"
			case (dir == Forward || dir == Full) && len(r.ForwardExample) > 0:
				lr.Example, lr.ExampleValidUnder = r.ForwardExample, "new"
			}
		}
		for _, c := range r.Changes {
			c.Location, c.Direction = p.New.Name, dir
			if dir == "" {
				c.Direction = "none"
			}
			res.Changes = append(res.Changes, c)
		}
		if len(r.Changes) == 0 && r.Backward == Compatible && r.Forward == Compatible {
			rep.Unchanged++
			continue
		}
		rep.Locations = append(rep.Locations, lr)
	}
	if skipped > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d distinct schema comparisons did not run within the document's budget of %v: "+
			"their locations are unknown (not compared); compare one alone by naming it, FILE#/pointer", skipped, len(order), o.DocumentBudget))
	}
	for _, ac := range apiChanges {
		c := apiChange(old, new, ac)
		if asked != "" && c.Direction != "" {
			c.Direction = asked
		}
		res.Changes = append(res.Changes, c)
		for _, b := range c.Breaks {
			if b == Backward {
				bw.add(Incompatible)
			} else {
				fw.add(Incompatible)
			}
			verdict.add(Incompatible)
		}
	}
	res.Backward, res.Forward = bw.verdict(), fw.verdict()
	res.Verdict = verdict.verdict()
	if asked != "" {
		switch asked {
		case Backward:
			res.Verdict = res.Backward
		case Forward:
			res.Verdict = res.Forward
		default:
			res.Verdict = both(res.Backward, res.Forward)
		}
	}
	sortChanges(res.Changes)
	res.Summary = summarize(res.Changes, res.Direction)
	if o.Check {
		res.Check = &Check{Direction: res.Direction, Passed: res.Verdict == Compatible}
	}
	return res, nil
}

// agg aggregates verdicts: incompatible when any is, compatible when all are (or there
// are none), unknown otherwise.
type agg struct{ incompatible, unknown bool }

func (a *agg) add(v Verdict) {
	switch v {
	case Incompatible:
		a.incompatible = true
	case Unknown:
		a.unknown = true
	}
}

func (a *agg) verdict() Verdict {
	switch {
	case a.incompatible:
		return Incompatible
	case a.unknown:
		return Unknown
	}
	return Compatible
}

// roleOf is the role whose view of an OpenAPI 3.0 document a location is read in, by the
// direction that matters there: a request's (backward), a response's (forward), or none.
func roleOf(dir string) openapi.Role {
	switch dir {
	case Backward:
		return openapi.Request
	case Forward:
		return openapi.Response
	}
	return openapi.Shared
}

// verdictIn is a comparison's verdict in a direction.
func verdictIn(dir string, r *Result) Verdict {
	switch dir {
	case Backward:
		return r.Backward
	case Forward:
		return r.Forward
	}
	return both(r.Backward, r.Forward)
}

func both(b, f Verdict) Verdict {
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

func locate(d *openapi.Document, ptr string) Location {
	line, col := d.Src.LocateKey(ptr)
	return Location{File: d.Name, Line: line, Column: col}
}

// apiChange turns a change of the API into a Change of the result.
func apiChange(old, new *openapi.Document, ac openapi.Change) Change {
	c := Change{Kind: ac.Kind, Message: ac.Message, Level: "validation"}
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
		c.Effect = EffectUnknown
	case ac.Breaks == Backward:
		c.Effect = Narrow
	case ac.Breaks == Forward:
		c.Effect = Widen
	case strings.HasSuffix(ac.Kind, "-added"), strings.HasSuffix(ac.Kind, "-optional"), ac.Kind == "schema-removed":
		c.Effect = Widen
	default:
		c.Effect = Narrow
	}
	return c
}

// sortChanges puts the changes shown to break the direction that matters where they are
// first, then those not proved harmless, keeping the order of locations otherwise.
func sortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int { return cmp.Compare(rank(&a, ""), rank(&b, "")) })
}

// VerdictLines states a comparison of documents in short lines, as the fixtures of
// internal/openapi/testdata/pairs state what they expect: "location NAME: DIRECTION
// VERDICT" for each listed location ("unused backward V forward V" for a component nothing
// uses), "change KIND NAME[: breaks DIRECTION]" for each change of the API, "unchanged N"
// and "verdict V". They are sorted.
func VerdictLines(r *Result) []string {
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
		if _, ok := openapi.ChangeKinds[c.Kind]; !ok {
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
