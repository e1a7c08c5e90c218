// Package sample owns the sample engine: it generates instances of a JSON Schema, and
// never returns one that jstk's validator has not accepted. Generation reads the schema's
// keywords of every draft from 4 to 2020-12 (references and dynamic references with
// bounded recursion, allOf merged with its siblings, anyOf/oneOf/if choices, not,
// dependencies, property and item applicators, contains, uniqueItems, exact numeric
// bounds and multipleOf, string lengths, ECMA-262 patterns including lookahead, and every
// standard format), checks each part as it goes, retries with other choices when a part
// fails, and validates the whole instance at the end. When no valid instance turns up
// within the budget, the result says why (a contradiction found in the schema, or the
// error the attempts kept hitting) instead of returning an invalid one.
//
// With Invalid, it generates instances that each break exactly one constraint, labelled
// with the error the validator reports for it.
package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Defaults.
const (
	DefaultAttempts = 24   // attempts per instance
	DefaultBudget   = 4000 // generation steps per attempt
)

// Options configure a generation; nil means defaults.
type Options struct {
	// Count is the number of instances to generate (default 1).
	Count int
	// Seed makes the output deterministic: the same seed gives the same bytes.
	Seed int64
	// RequiredOnly leaves out every optional property; AllOptional includes every
	// declared property. By default each optional property is included at random.
	RequiredOnly, AllOptional bool
	// UseExamples takes values from the schema's examples and default keywords, where
	// they satisfy the schema at that place.
	UseExamples bool
	// Invalid generates instances that each violate exactly one constraint.
	Invalid bool
	// Attempts bounds the whole-instance attempts per instance (default 24); Budget the
	// generation steps of one attempt (default 4000).
	Attempts, Budget int
	// MaxBytes, when positive, bounds the JSON of the instances kept, together (the answer
	// of a tool call has a size budget): generation stops at the instance that would pass
	// it, which is not kept, and Result.Omitted counts the instances not given.
	MaxBytes int
}

// Result holds the generated instances. Its JSON form is the CLI's --format json output
// and the MCP tool's structuredContent.
type Result struct {
	// Samples are the generated instances, each valid against the schema (or, with
	// invalid, each violating exactly one constraint).
	Samples []json.RawMessage `json:"samples"`
	// Violations says, for invalid instances, what each one breaks (same order).
	Violations []Violation `json:"violations,omitempty"`
	// Requested is the number of instances asked for; Seed the seed used.
	Requested int   `json:"requested"`
	Seed      int64 `json:"seed"`
	// Failure says why fewer instances than requested were generated.
	Failure *Failure `json:"failure,omitempty"`
	// Omitted counts the instances not given because they would pass Options.MaxBytes;
	// Next is the size of the first of them, in bytes (said in the text).
	Omitted int `json:"omitted,omitempty"`
	Next    int `json:"-"`

	values   []source.Value
	invalid  bool
	maxBytes int // Options.MaxBytes
	size     int // of the instances kept, as counted against maxBytes
}

// Violation is the one error an invalid instance has.
type Violation struct {
	InstanceLocation        string `json:"instanceLocation"`
	KeywordLocation         string `json:"keywordLocation"`
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	Keyword                 string `json:"keyword"`
	Message                 string `json:"message"`
}

// Failure explains why no (more) instances could be generated.
type Failure struct {
	// Reason says what went wrong, in words.
	Reason string `json:"reason"`
	// Unsatisfiable is true when the reason is a proof that no value satisfies the schema
	// (a contradiction in the schema itself); a failure without a proof leaves it false.
	Unsatisfiable bool `json:"unsatisfiable"`
	// InstanceLocation is where in the instance the problem lies.
	InstanceLocation string `json:"instanceLocation"`
	// Attempts is the number of attempts made for the instance that failed.
	Attempts int `json:"attempts"`
	// Stopped is true when the run was stopped by one of its budgets (its time limit, its
	// pattern budget) before it could finish: Reason then says "stopped after N s: ...".
	Stopped bool `json:"stopped,omitempty"`
}

// Values returns the generated instances as values.
func (r *Result) Values() []source.Value { return r.values }

// WriteText writes the instances: one indented JSON document for a single instance,
// NDJSON (one compact document per line) for more. Invalid instances are written as
// {"instance": ..., "violates": {...}}. A failure follows as a line of text.
func (r *Result) WriteText(w io.Writer) error {
	var buf []byte
	for i, v := range r.values {
		doc := v
		if r.invalid {
			var b source.ObjectBuilder
			b.Set("instance", v)
			vb, _ := source.FromAny(map[string]any{
				"instanceLocation": r.Violations[i].InstanceLocation,
				"keywordLocation":  r.Violations[i].KeywordLocation,
				"keyword":          r.Violations[i].Keyword,
				"message":          r.Violations[i].Message,
			})
			b.Set("violates", vb)
			doc = b.Value()
		}
		if r.Requested == 1 {
			buf = source.AppendJSONIndent(buf, doc, "", "  ")
		} else {
			buf = source.AppendJSON(buf, doc)
		}
		buf = append(buf, '\n')
	}
	if f := r.Failure; f != nil {
		buf = fmt.Appendf(buf, "%s\n", f.message(r))
	}
	if r.Omitted > 0 {
		what := "ask for fewer"
		if len(r.values) == 0 {
			what = "a run without a size bound (the command line) gives it"
		}
		buf = fmt.Appendf(buf, "sample: %d of %d instances given: instance %d is %d bytes, more than the %d bytes this answer has left for instances; %s\n",
			len(r.values), r.Requested, len(r.values)+1, r.Next, r.maxBytes-r.size, what)
	}
	_, err := w.Write(buf)
	return err
}

func (f *Failure) message(r *Result) string {
	if f.Stopped {
		return fmt.Sprintf("sample: %d of %d instances generated; %s", len(r.values), r.Requested, f.Reason)
	}
	what := "no valid instance was"
	if r.invalid {
		what = "no instance violating exactly one constraint was"
	}
	loc := ""
	if f.InstanceLocation != "" {
		loc = " (at " + f.InstanceLocation + ")"
	}
	if f.Unsatisfiable {
		return fmt.Sprintf("sample: %d of %d instances generated; the schema is unsatisfiable: %s%s",
			len(r.values), r.Requested, f.Reason, loc)
	}
	return fmt.Sprintf("sample: %d of %d instances generated; %s found in %d attempts (the schema is not shown unsatisfiable): %s%s",
		len(r.values), r.Requested, what, f.Attempts, f.Reason, loc)
}

// Diagnostics reports a failure.
func (r *Result) Diagnostics() []diag.Diagnostic {
	if r.Failure == nil {
		return nil
	}
	code := "sample/not-found"
	switch {
	case r.Failure.Stopped:
		code = "sample/stopped"
	case r.Failure.Unsatisfiable:
		code = "sample/unsatisfiable"
	}
	return []diag.Diagnostic{{Code: code, Severity: diag.Error, Message: r.Failure.message(r), Pointer: r.Failure.InstanceLocation}}
}

// ExitCode is 1 when fewer instances than requested were generated, 2 when a budget
// stopped the run (it could not finish).
func (r *Result) ExitCode() int {
	switch {
	case r.Failure != nil && r.Failure.Stopped:
		return 2
	case r.Failure != nil:
		return 1
	}
	return 0
}

func (o *Options) withDefaults() *Options {
	c := Options{}
	if o != nil {
		c = *o
	}
	if c.Count <= 0 {
		c.Count = 1
	}
	if c.Attempts <= 0 {
		c.Attempts = DefaultAttempts
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	return &c
}

// Generate generates instances of s. Every check it makes runs within ctx: a cancelled
// context stops it at once, with the context's error. A run stopped by a budget (the
// context's deadline, the pattern budget of schema.WithRegexBudget) is a result: the
// instances generated so far, and a Failure marked Stopped that says after how long and
// why.
func Generate(ctx context.Context, s *schema.Schema, opts *Options) (*Result, error) {
	o := opts.withDefaults()
	g := newGen(ctx, s, o)
	res := &Result{Samples: []json.RawMessage{}, Requested: o.Count, Seed: o.Seed, invalid: o.Invalid, maxBytes: o.MaxBytes}
	used := map[string]int{}
	for i := 0; i < o.Count; i++ {
		var v source.Value
		var viol *Violation
		var ok bool
		var failure *Failure
		if o.Invalid {
			v, viol, failure, ok = g.invalidInstance(ctx, i, used)
		} else {
			v, failure, ok = g.validInstance(ctx, i)
		}
		if err := g.halt; err != nil || ctx.Err() != nil {
			if err == nil {
				err = ctx.Err()
			}
			if !schema.IsStopped(err) && !errors.Is(err, schema.ErrRegexBudget) {
				return nil, err // cancelled
			}
			res.Failure = &Failure{Reason: schema.Stopped(ctx, err).Error(), Stopped: true, Attempts: g.attempts}
			break
		}
		if !ok {
			res.Failure = failure
			break
		}
		data := source.AppendJSON(nil, v)
		if o.MaxBytes > 0 {
			n := len(data) + 1
			if viol != nil {
				n += len(viol.InstanceLocation) + len(viol.KeywordLocation) + len(viol.AbsoluteKeywordLocation) + len(viol.Message) + 100
			}
			if res.size+n > o.MaxBytes {
				res.Omitted, res.Next = o.Count-len(res.Samples), len(data)
				break
			}
			res.size += n
		}
		res.values = append(res.values, v)
		res.Samples = append(res.Samples, data)
		if viol != nil {
			res.Violations = append(res.Violations, *viol)
		}
	}
	return res, nil
}

// seed prepares the random source of one attempt: a function of the seed, the instance
// and the attempt only, so that output is reproducible.
func (g *gen) seed(i, attempt int) {
	g.r = rand.New(rand.NewPCG(uint64(g.opts.Seed), uint64(i)<<20|uint64(attempt)))
	g.minimal = attempt%3 == 2 || attempt >= g.opts.Attempts*2/3
	g.budget = g.opts.Budget
}

// validInstance generates one valid instance, or says why it could not.
func (g *gen) validInstance(ctx context.Context, i int) (source.Value, *Failure, bool) {
	g.why = nil
	var lastErr *schema.Error
	var evalErr error // validation itself failed (a reference loop, a pattern out of time)
	attempts, contradicted := 0, 0
	defer func() { g.attempts = attempts }()
	for a := 0; a < g.opts.Attempts; a++ {
		if ctx.Err() != nil || g.halt != nil {
			return source.Value{}, nil, false
		}
		attempts++
		g.seed(i, a)
		g.contradiction = false
		g.record = map[string]*conj{}
		c := &conj{}
		g.add(c, g.root, nil)
		v, _ := g.generate(c, "", 0, nil)
		if v.IsValid() {
			errs, err := g.root.ValidateContext(ctx, v)
			if err == nil && len(errs) == 0 {
				return v, nil, true
			}
			if err != nil {
				g.stopOn(err)
				if g.halt != nil {
					return source.Value{}, nil, false
				}
			}
			if len(errs) > 0 {
				lastErr = &errs[0]
			}
			if err != nil {
				evalErr = err
				if errors.Is(err, schema.ErrRegexTimeout) {
					break // another attempt would run out of time the same way
				}
			}
		}
		// A contradiction that every attempt runs into does not go away with more.
		if g.contradiction {
			contradicted++
		}
		if contradicted == attempts && attempts >= 6 {
			break
		}
	}
	f := &Failure{Attempts: attempts}
	// Only a proof says the schema is unsatisfiable: the attempts may have failed on a
	// satisfiable schema (a choice that led nowhere).
	r := g.unsatisfiable(g.root)
	if ctx.Err() != nil || g.halt != nil {
		return source.Value{}, nil, false // stopped: said by the caller
	}
	if r != nil {
		f.Reason, f.InstanceLocation, f.Unsatisfiable = r.msg(), r.ptr, true
		return source.Value{}, f, false
	}
	switch {
	case g.why != nil && g.why.static:
		f.Reason, f.InstanceLocation = "the attempts kept failing here: "+g.why.msg(), g.why.ptr
	case lastErr != nil:
		f.Reason = fmt.Sprintf("the generated instances kept failing %s: %s", lastErr.KeywordLocation, lastErr.Message)
		f.InstanceLocation = lastErr.InstanceLocation
		if g.why != nil {
			f.Reason += " (" + g.why.msg() + ")"
		}
	case g.why != nil:
		f.Reason, f.InstanceLocation = g.why.msg(), g.why.ptr
	case evalErr != nil:
		f.Reason = "the generated instances could not be validated: " + evalErr.Error()
	default:
		f.Reason = "the generated instances could not be validated"
	}
	return source.Value{}, f, false
}
