package lint

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// hostileExamples is a schema whose examples each make its pattern backtrack
// exponentially (every match runs into its 2 s limit).
func hostileExamples(n int) []byte {
	var ex []string
	for i := range n {
		ex = append(ex, fmt.Sprintf(`"%s!%d"`, strings.Repeat("a", 40), i))
	}
	return fmt.Appendf(nil, `{"type": "string", "pattern": "^(\\w+\\s?)*$", "examples": [%s]}`, strings.Join(ex, ", "))
}

// TestRunStopsAtItsBudget: checking examples draws on the run's pattern budget, and its
// end stops the run with an error saying so; a cancelled run stops with the context's
// error. Without the budget, 20 examples took 20 matches of 2 s each.
func TestRunStopsAtItsBudget(t *testing.T) {
	srcs := []Source{{Name: "s.json", Text: hostileExamples(20)}}
	ctx := schema.WithRegexBudget(context.Background(), 500*time.Millisecond)
	_, err := Run(ctx, srcs, nil, nil)
	if !errors.Is(err, schema.ErrRegexBudget) || !strings.HasPrefix(err.Error(), "stopped after ") {
		t.Errorf("Run: %v, want the pattern budget's end", err)
	}
	ctx, cancel := schema.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = Run(ctx, srcs, nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "--timeout") {
		t.Errorf("Run: %v, want the time limit's end", err)
	}
}
