package schema

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/source"
)

// hostilePattern backtracks exponentially on hostileSubject: every match of it runs into
// its time limit.
const (
	hostilePattern = `^(\w+\s?)*$`
	hostileSubject = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
)

// TestRegexBudgetStopsTheRun: a run's matches share one budget. Matches that each stay
// within their own limit still end once their total reaches the budget, with a
// *StoppedError wrapping ErrRegexBudget; every later match is refused at once.
func TestRegexBudgetStopsTheRun(t *testing.T) {
	s, err := compileFiles(t, map[string]string{"s.json": `{"pattern": "` + strings.ReplaceAll(hostilePattern, `\`, `\\`) + `"}`},
		"s.json", &Options{RegexTimeout: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithRegexBudget(context.Background(), 400*time.Millisecond)
	v := source.StringValue(hostileSubject)
	var timeouts, stopped int
	var stop error
	for range 20 {
		_, err := s.ValidContext(ctx, v)
		switch {
		case errors.Is(err, ErrRegexBudget):
			stopped++
			stop = err
		case errors.Is(err, ErrRegexTimeout):
			timeouts++
		default:
			t.Fatalf("a hostile match gave %v, want a time-out or the budget's end", err)
		}
	}
	// 400 ms of budget hold at most 3 whole matches of 150 ms: the 20 matches cannot all
	// have run.
	if timeouts > 3 || stopped < 17 {
		t.Errorf("%d matches timed out and %d were stopped by the budget; want at most 3 and at least 17", timeouts, stopped)
	}
	var se *StoppedError
	if !errors.As(stop, &se) || !strings.HasPrefix(stop.Error(), "stopped after ") ||
		!strings.Contains(stop.Error(), "--regex-budget") || !strings.Contains(stop.Error(), strconv.Quote(hostilePattern)) {
		t.Errorf("the budget's end is %v, want a *StoppedError naming the pattern and --regex-budget", stop)
	}
	// Another run has a budget of its own.
	if _, err := s.ValidContext(WithRegexBudget(context.Background(), time.Minute), v); !errors.Is(err, ErrRegexTimeout) {
		t.Errorf("a new run's first match gave %v, want its own time-out", err)
	}
}

// TestMatchContext: a match ends at the context's deadline (before its own, longer, limit)
// and a cancelled context refuses it; the linear-time engine needs neither.
func TestMatchContext(t *testing.T) {
	re, err := CompileRegexp(hostilePattern, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := re.MatchContext(ctx, hostileSubject); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a match past the context's deadline gave %v, want context.DeadlineExceeded", err)
	}
	// A cancellation reaches a match under way (whose own limit is an hour).
	running, cancelRunning := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancelRunning)
	if _, err := re.MatchContext(running, hostileSubject); !errors.Is(err, context.Canceled) {
		t.Errorf("a match whose context was cancelled while it ran gave %v, want context.Canceled", err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := re.MatchContext(done, "abc"); !errors.Is(err, context.Canceled) {
		t.Errorf("a match in a cancelled context gave %v, want context.Canceled", err)
	}
	if ok, err := re.MatchContext(WithRegexBudget(context.Background(), time.Second), "ab c"); err != nil || !ok {
		t.Errorf("a benign match gave %v, %v; want true", ok, err)
	}
	lin, err := CompileRegexp(`^[a-z]+$`, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := lin.MatchContext(done, "abc"); err != nil || !ok {
		t.Errorf("the linear-time engine gave %v, %v; want true without looking at the context", ok, err)
	}
}

// TestEvaluationStopsWhenCancelled: every entry point stops a long evaluation with the
// context's error.
func TestEvaluationStopsWhenCancelled(t *testing.T) {
	s := mustCompile(t, `{"items": {"anyOf": [{"type": "string"}, {"properties": {"a": {"minimum": 3}}}]}}`)
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 50000 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"a": 5}`)
	}
	sb.WriteString("]")
	v := parse(t, sb.String()).Root
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.ValidContext(ctx, v); !errors.Is(err, context.Canceled) {
		t.Errorf("ValidContext: %v, want context.Canceled", err)
	}
	if _, err := s.ValidateContext(ctx, v); !errors.Is(err, context.Canceled) {
		t.Errorf("ValidateContext: %v, want context.Canceled", err)
	}
	if _, _, err := s.ValidateLimitContext(ctx, v, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("ValidateLimitContext: %v, want context.Canceled", err)
	}
	steps := 0
	if _, err := s.TraceReplaysContext(ctx, v, func(Event) { steps++ }, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("TraceReplaysContext: %v, want context.Canceled", err)
	}
	if steps > 2*ctxEvery {
		t.Errorf("the cancelled trace took %d steps, want at most %d", steps, 2*ctxEvery)
	}
	// Without cancellation the same evaluation completes, and the pooled evaluator keeps no
	// trace of the cancelled runs.
	if ok, err := s.ValidContext(context.Background(), v); err != nil || !ok {
		t.Errorf("ValidContext: %v, %v; want valid", ok, err)
	}
}

func TestStopped(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	err := Stopped(ctx, ctx.Err())
	if !IsStopped(err) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.HasPrefix(err.Error(), "stopped after ") || !strings.Contains(err.Error(), "--timeout") {
		t.Errorf("Stopped(deadline) = %v, want a *StoppedError naming --timeout", err)
	}
	if err := Stopped(ctx, context.Canceled); err != context.Canceled || IsStopped(err) {
		t.Errorf("Stopped(cancelled) = %v, want context.Canceled unchanged", err)
	}
	other := errors.New("unreadable")
	if err := Stopped(ctx, other); err != other || Stopped(ctx, nil) != nil {
		t.Errorf("Stopped changed an error that is not a budget's")
	}
	plain, cancel2 := WithTimeout(context.Background(), 0)
	cancel2()
	if _, ok := plain.Deadline(); ok || plain.Err() == nil {
		t.Errorf("WithTimeout(0) must be cancellable and have no deadline")
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "10 s"},
		{10400 * time.Millisecond, "10 s"},
		{1500 * time.Millisecond, "1.5 s"},
		{250 * time.Millisecond, "0.25 s"},
		{0, "0 s"},
		{3 * time.Minute, "180 s"},
	}
	var got, want []string
	for _, tt := range tests {
		got = append(got, Seconds(tt.d))
		want = append(want, tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Seconds (-want +got):\n%s", diff)
	}
}

// TestHugeCountsInMessages: a count beyond what evaluation keeps (2^31-1) is reported as
// the schema writes it, not as the clamped number.
func TestHugeCountsInMessages(t *testing.T) {
	s := mustCompile(t, `{"minLength": 1e18, "properties": {"a": {"minItems": 99999999999}}}`)
	errs, err := s.Validate(parse(t, `"abc"`).Root)
	if err != nil || len(errs) != 1 || errs[0].Message != "string is 3 characters long, less than the minimum of 1000000000000000000" {
		t.Errorf("errors %+v (%v)", errs, err)
	}
	errs, err = s.Validate(parse(t, `{"a": []}`).Root)
	if err != nil || len(errs) != 1 || errs[0].Message != "array has 0 items, fewer than the minimum of 99999999999" {
		t.Errorf("errors %+v (%v)", errs, err)
	}
}
