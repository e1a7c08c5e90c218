package validate

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestStoppedByThePatternBudget: 50 hostile lines took 2 s each; the run's pattern budget
// ends it as a result: the instances checked before, in order, and why it stopped.
func TestStoppedByThePatternBudget(t *testing.T) {
	s := compileSchema(t, `{"type": "string", "pattern": "^(\\w+\\s?)*$"}`)
	var in bytes.Buffer
	in.WriteString("\"fine words\"\n\"more fine words\"\n")
	for range 50 {
		in.WriteString(`"` + strings.Repeat("a", 40) + "!\"\n")
	}
	for _, workers := range []int{1, 3} {
		ctx := schema.WithRegexBudget(context.Background(), 300*time.Millisecond)
		res, err := Run(ctx, s, []Source{{Name: "in.ndjson", Text: in.Bytes()}}, nil, &Options{Workers: workers})
		if err != nil {
			t.Fatalf("Run: %v, want a result", err)
		}
		if !strings.HasPrefix(res.Stopped, "stopped after ") || !strings.Contains(res.Stopped, "--regex-budget") || res.Valid || res.ExitCode() != 2 {
			t.Errorf("workers %d: stopped %q, valid %v, exit %d; want stopped by the pattern budget, exit 2", workers, res.Stopped, res.Valid, res.ExitCode())
		}
		// The two fine lines come first; a hostile line may have timed out on its own
		// before the budget ended; nothing after the line the budget ended at is reported.
		if res.Summary.Valid != 2 || res.Summary.Total > 2+3 || len(res.Instances) != res.Summary.Total {
			t.Errorf("workers %d: summary %+v, %d instances", workers, res.Summary, len(res.Instances))
		}
		var text strings.Builder
		if err := res.WriteText(&text); err != nil || !strings.HasSuffix(text.String(), res.Stopped+"\n") {
			t.Errorf("text %q (%v), want it to end with why the run stopped", text.String(), err)
		}
		if d := res.Diagnostics(); len(d) == 0 || d[len(d)-1].Code != "validate/stopped" {
			t.Errorf("diagnostics %+v, want validate/stopped last", d)
		}
	}
	// A single document stopped the same way.
	ctx := schema.WithRegexBudget(context.Background(), time.Nanosecond)
	res, err := Run(ctx, s, []Source{{Name: "one.json", Text: []byte(`"` + strings.Repeat("a", 40) + `!"`)}}, nil, nil)
	if err != nil || res.Stopped == "" || res.Summary.Total != 0 {
		t.Errorf("one document: %+v, %v; want it stopped, nothing counted", res, err)
	}
	// A cancelled run is an error, not a result.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(cancelled, s, []Source{{Name: "in.ndjson", Text: in.Bytes()}}, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
