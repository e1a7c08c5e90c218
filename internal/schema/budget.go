package schema

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRegexBudget is the time one run may spend matching patterns on the backtracking
// engine, all matches together (see WithRegexBudget).
const DefaultRegexBudget = 10 * time.Second

// ErrRegexBudget is wrapped by the error of a match refused or cut short because the
// run's pattern budget (WithRegexBudget) is used up.
var ErrRegexBudget = errors.New("pattern budget used up")

// regexBudget is the time a run may still spend matching patterns.
type regexBudget struct {
	limit time.Duration
	start time.Time    // when the run began, for "stopped after"
	used  atomic.Int64 // nanoseconds spent in matches so far, every goroutine of the run
	last  atomic.Value // string: the pattern whose match used up the budget
}

type regexBudgetKey struct{}

// WithRegexBudget returns a context under which every pattern match (ValidContext,
// ValidateContext, TraceContext, Regexp.MatchContext) draws on one budget of d: the total
// time of all matches of the run, whichever goroutine makes them. A match that would go
// past it is stopped when the budget ends, and every later match is refused at once, with
// a *StoppedError wrapping ErrRegexBudget. d <= 0 means no budget (each match is still
// bounded by its own time limit).
//
// Only patterns that run on the backtracking engine count: those translated to Go's
// linear-time engine cannot hang and are not timed.
func WithRegexBudget(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return context.WithValue(ctx, regexBudgetKey{}, (*regexBudget)(nil))
	}
	return context.WithValue(ctx, regexBudgetKey{}, &regexBudget{limit: d, start: time.Now()})
}

func budgetOf(ctx context.Context) *regexBudget {
	b, _ := ctx.Value(regexBudgetKey{}).(*regexBudget)
	return b
}

func (b *regexBudget) remaining() time.Duration {
	return b.limit - time.Duration(b.used.Load())
}

func (b *regexBudget) spent(d time.Duration) { b.used.Add(int64(d)) }

// exhausted is the error of a match the budget stopped or refused.
func (b *regexBudget) exhausted(pattern string) error {
	b.last.CompareAndSwap(nil, pattern)
	pattern, _ = b.last.Load().(string)
	return &StoppedError{
		After: time.Since(b.start),
		Reason: fmt.Sprintf("pattern matching took the whole time budget of this run (%s); the last pattern was %s; "+
			"raise the budget with --regex-budget", Seconds(b.limit), strconv.Quote(shortPattern(pattern))),
		Err: ErrRegexBudget,
	}
}

func shortPattern(p string) string {
	if len(p) > 80 {
		return p[:77] + "..."
	}
	return p
}

// StoppedError is the error of a run that was stopped by one of its budgets (its time
// limit, its pattern budget) rather than finished: it says after how long and why.
type StoppedError struct {
	// After is how long the run had been going.
	After time.Duration
	// Reason says which budget ended, and how to raise it.
	Reason string
	// Err is the cause: ErrRegexBudget, or context.DeadlineExceeded for a time limit.
	Err error
}

func (e *StoppedError) Error() string {
	return "stopped after " + Seconds(e.After) + ": " + e.Reason
}

func (e *StoppedError) Unwrap() error { return e.Err }

// Seconds renders a duration for messages: "10 s", "0.25 s", "1.5 s".
func Seconds(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s >= 10:
		return strconv.FormatFloat(float64(int64(s+0.5)), 'f', -1, 64) + " s"
	case s >= 1:
		return strconv.FormatFloat(float64(int64(s*10+0.5))/10, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(float64(int64(s*100+0.5))/100, 'f', -1, 64) + " s"
}

// BudgetSpent returns, once the pattern budget of ctx's run is used up, the error its end
// gives (a *StoppedError wrapping ErrRegexBudget), and nil before. Engines that take an
// evaluation error for "cannot decide" and go on check it when they finish, so that a run
// cut short by its budget says so.
func BudgetSpent(ctx context.Context) error {
	b := budgetOf(ctx)
	if b == nil || b.remaining() > 0 {
		return nil
	}
	last, _ := b.last.Load().(string)
	return b.exhausted(last)
}

// runLimits is what a run was given, for the message of the budget that stops it.
type runLimits struct {
	start   time.Time
	timeout time.Duration
}

type runLimitsKey struct{}

// WithTimeout is context.WithTimeout for a run: when the time limit stops the run,
// Stopped turns the context's error into a *StoppedError that says so. d <= 0 means no
// time limit (the context is only made cancellable).
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	lim := &runLimits{start: time.Now(), timeout: d}
	ctx = context.WithValue(ctx, runLimitsKey{}, lim)
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// Stopped describes the error of a run that ended early: a *StoppedError is returned as
// it is; the deadline of a run started by WithTimeout becomes a *StoppedError naming the
// time limit and how to raise it; anything else (a cancellation, an error of the input)
// is returned unchanged.
func Stopped(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*StoppedError](err); ok {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		if lim, ok := ctx.Value(runLimitsKey{}).(*runLimits); ok && lim.timeout > 0 {
			return &StoppedError{After: time.Since(lim.start),
				Reason: fmt.Sprintf("the time limit of this run (%s) was reached; raise it with --timeout", Seconds(lim.timeout)),
				Err:    err}
		}
	}
	return err
}

// IsStopped reports whether err is a run stopped by one of its budgets (a *StoppedError,
// or a context past its deadline), as opposed to an input that could not be used or a run
// cancelled by its caller.
func IsStopped(err error) bool {
	if _, ok := errors.AsType[*StoppedError](err); ok {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// EndsRun reports whether err ends the run it happened in, and not only one evaluation:
// the run's context was cancelled or passed its deadline, or its pattern budget is used up.
// Engines stop at such an error instead of taking it for one value that could not be
// decided.
func EndsRun(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrRegexBudget)
}

// Halt keeps the first error that ended a run whose workers evaluate in parallel. Its zero
// value is ready to use; it is safe for concurrent use, and a nil *Halt records nothing.
type Halt struct {
	mu  sync.Mutex
	err error
}

// Note records err when it ends the run (see EndsRun) and reports whether the run has
// ended.
func (h *Halt) Note(err error) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil && err != nil && EndsRun(err) {
		h.err = err
	}
	return h.err != nil
}

// Err returns the error that ended the run, or nil.
func (h *Halt) Err() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}
