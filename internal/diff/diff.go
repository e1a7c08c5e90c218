// Package diff owns schema compatibility: given an OLD and a NEW JSON Schema, it tells
// whether NEW accepts every instance OLD accepts (backward compatible), the reverse
// (forward), and explains each change with its kind, its keyword in both documents (JSON
// pointer, line, column), its effect on the set of valid instances, and, where one exists,
// an example instance that proves an incompatibility.
//
// Two engines work together. A rule engine aligns both schemas (after resolving $ref,
// reading each side in its own dialect) and proves inclusions between the instance sets
// with sound rules only: a "compatible" or "widen" claim is a proof. A bounded, seeded
// search then proposes instances built from both schemas and checks them with jstk's own
// validator: an instance valid under one side and invalid under the other proves an
// incompatibility and is shown. A direction neither proved nor refuted is "unknown", never
// "compatible".
package diff

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/diff/search"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Verdict is the answer for one direction.
type Verdict string

// The verdicts.
const (
	// Compatible: proved; every instance of one side is valid under the other.
	Compatible Verdict = "compatible"
	// Incompatible: an example instance shows otherwise.
	Incompatible Verdict = "incompatible"
	// Unknown: neither proved nor refuted within the search budget.
	Unknown Verdict = "unknown"
)

// Effect is what a change does to the set of valid instances, at its location.
type Effect string

// The effects.
const (
	// Equivalent: proved to accept exactly the same instances.
	Equivalent Effect = "equivalent"
	// Widen: proved not to reject anything that was accepted; it may accept more.
	Widen Effect = "widen"
	// Narrow: proved not to accept anything that was rejected; it may reject more.
	Narrow Effect = "narrow"
	// Incomparable: examples show it rejects some old instances and accepts some new ones.
	Incomparable Effect = "incomparable"
	// EffectUnknown: not established either way.
	EffectUnknown Effect = "unknown"
)

// Directions for Options.Direction.
const (
	Backward = algebra.Backward
	Forward  = algebra.Forward
	Full     = algebra.Full
)

// Options configure Compare (see algebra.Options, where the engines read them).
type Options = algebra.Options

// Location is a place in a schema file.
type Location = align.Location

// engine is the search's engine with the report's methods.
type engine struct{ *search.Engine }

// newEngine returns the comparison's engine (see algebra.NewEngine).
func newEngine(ctx context.Context, opts Options, bs *algebra.Bodies, size int) *engine {
	return &engine{search.NewEngine(ctx, opts, bs, size)}
}

// Result is the outcome of a comparison: its JSON form is `jstk diff --format json` and the
// MCP tool's structured content.
type Result struct {
	// Backward: does NEW accept every instance OLD accepts?
	Backward Verdict `json:"backward"`
	// Forward: does OLD accept every instance NEW accepts?
	Forward Verdict `json:"forward"`
	// Direction is the direction asked about, and Verdict its answer (for "full": compatible
	// only when both are, incompatible when either is).
	Direction string `json:"direction"`
	// Verdict answers Direction.
	Verdict Verdict `json:"verdict"`
	// BackwardExample is an instance valid under OLD and invalid under NEW, when one was
	// found; ForwardExample the reverse.
	BackwardExample json.RawMessage `json:"backwardExample,omitempty"`
	// ForwardExample is an instance valid under NEW and invalid under OLD.
	ForwardExample json.RawMessage `json:"forwardExample,omitempty"`
	// Changes lists what changed, breaking changes first.
	Changes []Change `json:"changes"`
	// Summary counts the changes by effect.
	Summary Summary `json:"summary"`
	// Old describes the old schema.
	Old Side `json:"old"`
	// New describes the new schema.
	New Side `json:"new"`
	// Search reports the counterexample search.
	Search Search `json:"search"`
	// Check is present when the call asked for a check of Direction.
	Check *Check `json:"check,omitempty"`
	// Page says which part of the change list this result holds, when it was cut.
	Page *Page `json:"page,omitempty"`
	// Document is set when two OpenAPI or AsyncAPI documents were compared
	// (document.Compare): the verdict at each schema location.
	Document *DocumentReport `json:"document,omitempty"`
}

// Change is one difference between the schemas.
type Change struct {
	// Kind is a stable identifier from the rule table (Rules), e.g. "required-added".
	Kind string `json:"kind"`
	// OldPointer and NewPointer are JSON Pointers into the two documents: the keyword that
	// changed, or where it would be when it is absent on that side.
	OldPointer string `json:"oldPointer"`
	// NewPointer is the pointer into the new document.
	NewPointer string `json:"newPointer"`
	// Effect on the instances reaching this location.
	Effect Effect `json:"effect"`
	// Message says what changed, in words.
	Message string `json:"message"`
	// Example proves the change breaks a direction: valid under the side named by
	// ExampleValidUnder ("old" or "new") and invalid under the other.
	Example json.RawMessage `json:"example,omitempty"`
	// ExampleValidUnder names the side ("old" or "new") the example is valid under.
	ExampleValidUnder string `json:"exampleValidUnder,omitempty"`
	// Breaks lists the directions ("backward", "forward") an example shows this change
	// breaks.
	Breaks []string `json:"breaks,omitempty"`
	// Old and New locate the pointers in their files.
	Old Location `json:"old"`
	// New locates NewPointer in its file.
	New Location `json:"new"`
	// Path is the instance location the change applies to ("/items/*/name"; "" the root).
	Path string `json:"path"`
	// Level is "validation", or "docs" for annotation changes.
	Level string `json:"level"`
	// Location names the place in an OpenAPI or AsyncAPI document the change is at
	// ("POST /pets request body application/json"), when documents were compared.
	Location string `json:"location,omitempty"`
	// Direction is, when documents were compared, the direction that breaks clients at
	// Location ("backward", "forward", "full"; "none" for a component nothing uses). It
	// takes the place of the result's direction for this change.
	Direction string `json:"direction,omitempty"`
}

// Summary counts the changes by effect.
type Summary struct {
	// Changes is the number of changes (before paging).
	Changes int `json:"changes"`
	// Breaking counts the changes an example shows break the asked direction.
	Breaking int `json:"breaking"`
	// Equivalent counts the changes proved equivalent.
	Equivalent int `json:"equivalent"`
	// Widen counts the widening changes.
	Widen int `json:"widen"`
	// Narrow counts the narrowing changes.
	Narrow int `json:"narrow"`
	// Incomparable counts the changes that break both directions.
	Incomparable int `json:"incomparable"`
	// Unknown counts the changes whose effect is not established.
	Unknown int `json:"unknown"`
	// Docs counts the annotation changes (--level docs).
	Docs int `json:"docs"`
}

// Side describes one of the two schemas.
type Side struct {
	// File is the schema's file name ("" for inline schemas).
	File string `json:"file,omitempty"`
	// Draft is the dialect the schema is read in.
	Draft string `json:"draft"`
}

// Search reports the counterexample search.
type Search struct {
	// Seed is the seed the search ran with.
	Seed uint64 `json:"seed"`
	// BudgetMs is the time budget per direction (0: no search).
	BudgetMs int64 `json:"budgetMs"`
	// Candidates counts the instances tried, both directions together.
	Candidates int `json:"candidates"`
	// Exhausted is true when the search stopped at its time or candidate budget.
	Exhausted bool `json:"exhausted"`
	// ProofIncomplete is true when the rule engine ran out of steps or locations.
	ProofIncomplete bool `json:"proofIncomplete"`
	// Contradictions counts examples that refuted a claim of the rule engine (the example
	// wins; a non-zero count is a bug to report).
	Contradictions int `json:"contradictions"`
}

// Check is the outcome of --check.
type Check struct {
	// Direction is the direction checked.
	Direction string `json:"direction"`
	// Passed is true when it is proved compatible.
	Passed bool `json:"passed"`
}

// Page says which part of a long change list a result holds.
type Page struct {
	// Offset is the index of the first change held.
	Offset int `json:"offset"`
	// Limit is the most changes asked for (0: no limit).
	Limit int `json:"limit"`
	// Total is the number of changes before the cut.
	Total int `json:"total"`
	// Omitted is the number of changes left out.
	Omitted int `json:"omitted"`
}

// Compare compares two compiled schemas. The error is non-nil only when the comparison
// could not run (nil schemas, invalid options, cancellation); incompatibilities are data.
func Compare(ctx context.Context, old, new *schema.Schema, opts *Options) (*Result, error) {
	if old == nil || new == nil {
		return nil, errors.New("diff: both schemas are needed")
	}
	o, err := opts.Normalize()
	if err != nil {
		return nil, err
	}
	free := search.Enter()
	defer search.Leave()
	return compare(ctx, old, new, o, free && search.Large(old, new))
}

// compare is Compare with normalized options; beside runs the whole-schema proofs on a
// goroutine of their own (see startProofs).
func compare(ctx context.Context, old, new *schema.Schema, o Options, beside bool) (*Result, error) {
	bs := algebra.NewBodies(old, new)
	if beside {
		bs.ShareHashes(old, new)
	}
	e := newEngine(ctx, o, bs, schema.CompiledCount(old, new))
	e.Twins = old.Draft.Version == 4 || new.Draft.Version == 4
	proofs := search.StartProofs(ctx, e.Engine, old, new, beside)
	defer proofs.Stop()
	items := e.Walk(old, new)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	incomplete := e.WalkTruncated || e.Steps > e.StepBudget
	var changes []*align.Change
	for _, it := range items {
		changes = append(changes, it.Changes...)
	}
	placing := placeAhead(changes, beside)
	defer placing()
	s := &search.Searcher{E: e.Engine, Old: old, New: new, Items: items, Attr: search.Attributor{Changes: changes}, Settled: proofs.Skip, Beside: beside}
	defer s.StopShrinks()
	if o.SearchBudget <= 0 || !s.NeedsAny(search.DirForward) {
		proofs.Ask() // the forward proof will be needed
	}
	// For each direction: the search at the changed locations first; when it finds no
	// example, the rule engine's proof on the whole schemas (begun beside the walk, see
	// startProofs); then the search on the whole schemas (a backstop when proved, the only
	// hope when not). Both targeted searches run before the first proof is awaited, so
	// that the forward one overlaps the backward proof.
	var ex [2]source.Value // by direction - 1
	var paused [2]search.PausedSearch
	for _, dir := range []int{search.DirBackward, search.DirForward} {
		if o.SearchBudget > 0 {
			s.Start(dir)
			ex[dir-1] = s.Targeted(dir) // on an example, proofs.skip(dir) was called
			paused[dir-1] = s.Pause()
		}
	}
	decide := func(dir int) (bool, source.Value) {
		if ex[dir-1].IsValid() {
			return false, ex[dir-1]
		}
		if o.SearchBudget > 0 {
			s.Resume(paused[dir-1]) // the proof counts against the direction's time, as before
		}
		r := proofs.Result(dir)
		e.Steps = r.Steps // the search after it spends from what the proof left
		if e.Steps > e.StepBudget {
			incomplete = true
		}
		var found source.Value
		if o.SearchBudget > 0 {
			found = s.Generic(dir, r.Proved)
			s.Finish()
		}
		return r.Proved, found
	}
	bwProved, bwEx := decide(search.DirBackward)
	fwProved, fwEx := decide(search.DirForward)
	if o.SearchBudget > 0 {
		polished := [2]source.Value{bwEx, fwEx}
		s.PolishExamples(&polished)
		bwEx, fwEx = polished[0], polished[1]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := schema.BudgetSpent(ctx); err != nil {
		return nil, err // checks that ran out of pattern time decided nothing
	}
	changes = s.Attr.Changes // with those the search added
	res := &Result{Direction: o.Direction}
	res.Backward = verdict(bwProved, bwEx)
	res.Forward = verdict(fwProved, fwEx)
	if bwEx.IsValid() {
		res.BackwardExample = source.AppendJSON(nil, bwEx)
	}
	if fwEx.IsValid() {
		res.ForwardExample = source.AppendJSON(nil, fwEx)
	}
	switch o.Direction {
	case Backward:
		res.Verdict = res.Backward
	case Forward:
		res.Verdict = res.Forward
	default:
		switch {
		case res.Backward == Incompatible || res.Forward == Incompatible:
			res.Verdict = Incompatible
		case res.Backward == Compatible && res.Forward == Compatible:
			res.Verdict = Compatible
		default:
			res.Verdict = Unknown
		}
	}
	// The dialect change takes the effect of the whole comparison, and a direction proved
	// for the whole is proved for every change: no instance breaks it anywhere.
	for _, ch := range changes {
		if ch.Kind == "dialect-changed" {
			ch.Bw, ch.Fw = wholeProof(res.Backward), wholeProof(res.Forward)
		}
		if ch.Level == "validation" && res.Backward == Compatible && ch.Bw == align.PUnknown {
			ch.Bw = align.PProved
		}
		if ch.Level == "validation" && res.Forward == Compatible && ch.Fw == align.PUnknown {
			ch.Fw = align.PProved
		}
	}
	placing()
	res.Changes = e.render(changes, o.Direction)
	res.Summary = Summarize(res.Changes, o.Direction)
	res.Old = side(old)
	res.New = side(new)
	res.Search = Search{Seed: o.Seed, BudgetMs: o.SearchBudget.Milliseconds(), Candidates: e.SearchCandidates,
		Exhausted: e.SearchTimedOut, ProofIncomplete: incomplete, Contradictions: e.Contradictions}
	if o.SearchBudget < 0 {
		res.Search.BudgetMs = 0
	}
	if o.Check {
		res.Check = &Check{Direction: o.Direction, Passed: res.Verdict == Compatible}
	}
	return res, nil
}

func verdict(proved bool, ex source.Value) Verdict {
	switch {
	case ex.IsValid():
		return Incompatible
	case proved:
		return Compatible
	}
	return Unknown
}

func wholeProof(v Verdict) align.Proof {
	switch v {
	case Compatible:
		return align.PProved
	case Incompatible:
		return align.PBroken
	}
	return align.PUnknown
}

func side(s *schema.Schema) Side {
	file, _ := s.Pointer()
	return Side{File: file, Draft: s.Draft.Name}
}

// effectOf turns the two directions' proofs into an effect.
func effectOf(bw, fw align.Proof) Effect {
	switch {
	case bw == align.PProved && fw == align.PProved:
		return Equivalent
	case bw == align.PProved:
		return Widen
	case fw == align.PProved:
		return Narrow
	case bw == align.PBroken && fw == align.PBroken:
		return Incomparable
	}
	return EffectUnknown
}
