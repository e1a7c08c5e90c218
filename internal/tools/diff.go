package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/diff/document"
	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
)

// DiffInput are the arguments of diff. Over MCP the two schemas are old and new; on the
// command line they are the two positional arguments OLD NEW.
type DiffInput struct {
	// Old is the old schema (MCP).
	Old Doc `json:"old,omitempty" cli:"-" role:"schema" brief:"-" desc:"The old version of the schema (the one existing data and readers were written against); FILE#/pointer names one inside a document. Two whole OpenAPI or AsyncAPI documents are compared location by location."`
	// New is the new schema (MCP).
	New Doc `json:"new" cli:"-" role:"schema" brief:"-" desc:"The new version of the schema."`
	// Schemas are OLD and NEW as positional arguments (CLI).
	Schemas []Doc `json:"schemas,omitempty" cli:"only" role:"schema" desc:"The OLD and the NEW schema, in that order."`

	// Direction is the direction judged.
	Direction string `json:"direction,omitempty" enum:"backward,forward,full" default:"\"backward\"" brief:"-" desc:"The direction to judge: backward (default: NEW accepts every instance OLD accepts, so new readers accept old data), forward (OLD accepts every instance NEW accepts), or full (both). The result always carries both verdicts; this decides verdict and --check."`
	// Check makes an incompatible or unknown verdict a failure.
	Check bool `json:"check,omitempty" brief:"Fail unless proved compatible" desc:"Fail (exit code 1 on the command line) unless the asked direction is proved compatible; unknown fails too."`
	// RequiredWithDefault is the reader-defaults policy.
	RequiredWithDefault string `json:"requiredWithDefault,omitempty" enum:"breaking,compatible" default:"\"breaking\"" brief:"A new required property with a default" desc:"How to judge a newly required property that has a default in the reading schema: breaking (default, pure validation) or compatible (a reader fills in the default, as Confluent Schema Registry assumes)."`
	// AssertFormat makes format an assertion.
	AssertFormat bool `json:"assertFormat,omitempty" brief:"-" desc:"Treat format keywords as assertions (by default they are annotations and format changes do not affect validity)."`
	// Level chooses validation or docs changes.
	Level string `json:"level,omitempty" enum:"validation,docs" default:"\"validation\"" brief:"docs: also annotation changes" desc:"validation (default) reports changes to what is valid; docs also reports title, description, default, examples, deprecated, readOnly, writeOnly and $comment changes."`
	// SearchBudget is in milliseconds per direction.
	SearchBudget int `json:"searchBudget,omitempty" min:"0" default:"1000" brief:"Milliseconds per direction" desc:"Milliseconds the counterexample search may spend per direction (default 1000)."`
	// Seed makes the search reproducible.
	Seed int `json:"seed,omitempty" min:"0" brief:"-" desc:"Seed of the counterexample search, for reproducible examples (default 1)."`
	// Offset skips changes (paging).
	Offset int `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many changes of the list (for paging through long results)."`
	// History compares the file with its earlier committed versions.
	History bool `json:"history,omitempty" brief:"-" desc:"Compare the one FILE with its earlier committed git versions (renames followed, each resolved as of its commit; at most 100 unless last or since)."`
	// Rev is the revision of the file compared with its history (default: the working tree).
	Rev string `json:"rev,omitempty" brief:"-" desc:"The git revision of FILE to check (default: the working tree)."`
	// Against lists revisions to compare with.
	Against []string `json:"against,omitempty" cli:"flag" brief:"-" desc:"Git revisions (comma-separated or repeated) to compare FILE with."`
	// Last bounds the history to the last N earlier versions.
	Last int `json:"last,omitempty" min:"0" brief:"-" desc:"With history: only the last N earlier versions."`
	// Since bounds the history to the versions since a revision.
	Since string `json:"since,omitempty" brief:"-" desc:"With history: only the versions since this revision or tag."`
	// Mode is the compatibility mode of a history check.
	Mode string `json:"mode,omitempty" brief:"backward|forward|full[-transitive]|none" desc:"backward, forward, full (the latest earlier version), their -transitive variants (every earlier one), none; Confluent names too. Default: jstk.json \"compatibility\", else direction."`
	// Limit bounds the changes listed (paging).
	Limit int `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many changes (0: the default of the surface; the CLI lists all)."`
}

func init() {
	register(define(Descriptor{
		Name:        "diff",
		Title:       "Check a schema change",
		Summary:     "tell whether a schema change is breaking, with each change explained and an example that proves it",
		Usage:       "OLD NEW [flags] | --history FILE | --against REV[,REV...] FILE",
		Description: "Is this schema change breaking? Use it instead of reading schemas. backward (NEW accepts all OLD accepts), forward: compatible (proved), incompatible (with an example) or unknown. Also OpenAPI/AsyncAPI, and a file's git history (history, mode).",
		Help:        "Compares OLD with NEW and gives a verdict in each direction: backward (NEW accepts everything OLD accepts) and forward (the reverse) are each compatible (proved), incompatible (shown by an instance, checked against both) or unknown. Each change is listed and explained. Also compares OpenAPI and AsyncAPI documents, schema by schema, and a file with its earlier versions in git (--history, --against) under a compatibility mode (--mode).",
		ExitCodes:   diffExitCodes,
		CollectLate: true,
		Samples:     diffSamples,
	}, runDiff))
}

// diffExitCodes say what the exit codes of diff mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var diffExitCodes = []ExitCode{
	{0, "the schemas were compared: without `check`, whatever the verdicts (jstk diff is a report;\n`check` makes it a gate); with `check`, the asked direction is compatible"},
	{1, "`check`, and the asked direction is incompatible or unknown"},
	{2, "could not run: an unreadable, invalid or unresolvable schema, a usage error, a run stopped"},
}

// diffSamples are calls of diff on the sample workspace (Descriptor.Samples).
var diffSamples = []string{
	`{"old": {"path": "customer.schema.json"}, "new": {"path": "customer.schema.json"}}`,
	`{"old": {"value": {"type": "object"}}, "new": {"value": {"type": "object", "required": ["id"]}}, "direction": "full", "check": true, "level": "docs", "limit": 5}`,
}

// diffReport is the diff result as a tool report: the engine's result and its changes
// grouped.
type diffReport struct {
	*diff.Result
	// History is the result of a check against earlier versions (--history, --against),
	// in place of Result.
	History *historyReport `json:"history,omitempty"`
	// Groups sums up the changes of every page by kind, severity and message shape.
	Groups []diag.Group `json:"groups,omitempty"`
}

// KeepFirst is a copy that holds only the first k changes, its groups whole (diag.Pager).
func (r *diffReport) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Result = r.Result.KeepFirst(k, limit).(*diff.Result)
	return &c
}

// WriteText prints the human report, then the changes that repeat, grouped.
func (r *diffReport) WriteText(w io.Writer) error {
	if r.History != nil {
		return r.History.WriteText(w)
	}
	return withGroups(w, r.Result.WriteText, r.Groups, true)
}

// ExitCode is 1 when the check failed.
func (r *diffReport) ExitCode() int {
	if r.History != nil {
		return r.History.ExitCode()
	}
	return r.Result.ExitCode()
}

// Diagnostics lists the changes (of a history: the first break of each version).
func (r *diffReport) Diagnostics() []diag.Diagnostic {
	if r.History != nil {
		return r.History.Diagnostics()
	}
	return r.Result.Diagnostics()
}

// grouped groups a result's changes, then cuts its page.
func grouped(res *diff.Result, offset, limit int) *diffReport {
	groups := diag.GroupDiagnostics(res.Diagnostics())
	if offset > 0 || limit > 0 {
		res.Cut(offset, limit)
	}
	return &diffReport{Result: res, Groups: groups}
}

func runDiff(ctx context.Context, env *Env, in *DiffInput) (*diffReport, error) {
	history := in.History || len(in.Against) > 0
	if err := diffInputs(env, in, history); err != nil {
		return nil, err
	}
	if history {
		return runDiffHistory(ctx, env, in)
	}
	if len(in.Schemas) > 0 {
		if len(in.Schemas) != 2 {
			return nil, fmt.Errorf("give exactly two schemas, OLD and NEW (got %d)", len(in.Schemas))
		}
		in.Old, in.New = in.Schemas[0], in.Schemas[1]
	}
	if in.Offset < 0 || in.Limit < 0 || in.SearchBudget < 0 || in.Seed < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit", "searchBudget", "seed"))
	}
	so := SchemaOptions{AssertFormat: in.AssertFormat, Ctx: ctx}
	oa, err := OpenSchemaArg(env, in.Old, "old")
	if err != nil {
		return nil, err
	}
	na, err := OpenSchemaArg(env, in.New, "new")
	if err != nil {
		return nil, err
	}
	opts := &diff.Options{
		Direction:           in.Direction,
		Check:               in.Check,
		RequiredWithDefault: in.RequiredWithDefault == "compatible",
		Level:               in.Level,
		SearchBudget:        time.Duration(in.SearchBudget) * time.Millisecond,
		Seed:                uint64(in.Seed),
		// two documents: twenty times the search budget for all their comparisons
		DocumentBudget: 20 * time.Duration(in.SearchBudget) * time.Millisecond,
	}
	if oldAPI, newAPI, err := apiPair(env, oa, na, so); err != nil {
		return nil, err
	} else if oldAPI != nil {
		res, err := document.Compare(ctx, oldAPI, newAPI, opts)
		if err != nil {
			return nil, err
		}
		return grouped(res, in.Offset, in.Limit), nil
	}
	old, new, err := loadPair(env, oa, na, so)
	if err != nil {
		return nil, err
	}
	res, err := diff.Compare(ctx, old, new, opts)
	if err != nil {
		return nil, err
	}
	return grouped(res, in.Offset, in.Limit), nil
}

// diffInputs checks the arguments that concern history and modes, and settles the file
// of a history check and the direction a mode gives a two-file check (--mode, else
// jstk.json's mode for NEW).
func diffInputs(env *Env, in *DiffInput, history bool) error {
	if history && len(in.Schemas) > 0 {
		if len(in.Schemas) != 1 {
			return fmt.Errorf("with --history or --against give one schema FILE (got %d)", len(in.Schemas))
		}
		in.New = in.Schemas[0]
	} else if history && in.New.Path == "" && in.Old.Path != "" {
		in.New = in.Old
	}
	if !history && (in.Rev != "" || in.Last != 0 || in.Since != "") {
		return fmt.Errorf("%s need history (or against)", env.args("rev", "last", "since"))
	}
	if in.Last < 0 {
		return fmt.Errorf("%s must not be negative", env.arg("last"))
	}
	if history {
		return nil
	}
	if len(in.Schemas) == 2 && in.Mode == "" && in.Direction == "" {
		// a per-schema mode of jstk.json gives the direction of a two-file check
		if m, ok := configMode(env, in.Schemas[1].Path); ok {
			if mode, err := ParseMode(m); err == nil {
				setMode(in, mode)
			}
		}
	}
	if in.Mode != "" {
		mode, err := ParseMode(in.Mode)
		if err != nil {
			return fmt.Errorf("%s: %w", env.arg("mode"), err)
		}
		setMode(in, mode)
	}
	return nil
}

// setMode makes a two-file check ask about a mode's direction; mode none checks nothing.
func setMode(in *DiffInput, mode Mode) {
	in.Direction = mode.Direction
	if mode.Direction == "" {
		in.Check = false
	}
}

// runDiffHistory is runDiff of --history and --against: the result keeps the shape of a
// diff's (its output schema), the overall verdict in the asked direction, the versions
// under History.
func runDiffHistory(ctx context.Context, env *Env, in *DiffInput) (*diffReport, error) {
	if in.SearchBudget < 0 || in.Seed < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("searchBudget", "seed"))
	}
	h, err := runHistory(ctx, env, in, &diff.Options{
		Direction:           in.Direction,
		RequiredWithDefault: in.RequiredWithDefault == "compatible",
		Level:               in.Level,
		SearchBudget:        time.Duration(in.SearchBudget) * time.Millisecond,
		Seed:                uint64(in.Seed),
	})
	if err != nil {
		return nil, err
	}
	res := &diff.Result{Direction: diff.Backward, Changes: []diff.Change{}}
	if m, err := ParseMode(h.Mode); err == nil && m.Direction != "" {
		res.Direction = m.Direction
	}
	switch v := diff.Verdict(h.Verdict); v {
	case diff.Compatible, diff.Incompatible, diff.Unknown:
		res.Verdict = v
	}
	return &diffReport{Result: res, History: h}, nil
}

// apiPair returns the two documents when OLD and NEW are both whole OpenAPI or AsyncAPI
// documents (no pointer): they are compared location by location. Only a document that
// mentions such a root key is parsed here (Compile parses the others once).
func apiPair(env *Env, oa, na *SchemaArg, so SchemaOptions) (*openapi.Document, *openapi.Document, error) {
	if oa.Doc.Pointer != "" || na.Doc.Pointer != "" || !mayBeAPI(oa.Data) || !mayBeAPI(na.Data) {
		return nil, nil, nil
	}
	opts, err := so.compilerOptions(env)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range []*SchemaArg{oa, na} {
		if _, err := a.Parse(env, opts); err != nil {
			return nil, nil, err
		}
	}
	if oa.API() == nil || na.API() == nil {
		return nil, nil, nil // a schema beside a document: the document is refused when compiled
	}
	return oa.API(), na.API(), nil
}

// mayBeAPI tells, without parsing, whether a document may be an OpenAPI or AsyncAPI one.
func mayBeAPI(data []byte) bool {
	return bytes.Contains(data, []byte("openapi")) || bytes.Contains(data, []byte("asyncapi")) || bytes.Contains(data, []byte("swagger"))
}

// compileArg is SchemaArg.Compile, replaced by tests.
var compileArg = (*SchemaArg).Compile

// loadPair compiles OLD and NEW side by side (both were read already); an error of OLD is
// reported before one of NEW.
func loadPair(env *Env, o, n *SchemaArg, so SchemaOptions) (old, new *schema.Schema, err error) {
	var nerr error
	var catch panics.Catcher // a panic of the goroutine is raised again here, where the caller recovers
	done := make(chan struct{})
	go func() {
		defer close(done)
		catch.Do(func() { new, nerr = compileArg(n, env, so) })
	}()
	func() {
		defer func() { <-done }() // NEW's goroutine ends before the call does, even when OLD panics
		old, err = compileArg(o, env, so)
	}()
	catch.Repanic()
	switch {
	case err != nil:
		return nil, nil, err
	case nerr != nil:
		return nil, nil, nerr
	}
	return old, new, nil
}
