package diff

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestCompareStopsAtItsBudget: the evaluations of a comparison draw on the run's pattern
// budget; a comparison whose checks ran out of it says so instead of giving verdicts its
// undecided checks shaped, and a cancelled one stops with the context's error.
func TestCompareStopsAtItsBudget(t *testing.T) {
	old := compileText(t, "old.json", `{"type": "string", "pattern": "^(\\w+\\s?)*$"}`)
	new := compileText(t, "new.json", `{"type": "string", "pattern": "^(\\w+\\s?)*$", "not": {"pattern": "!$"}, "minLength": 30}`)
	ctx := schema.WithRegexBudget(context.Background(), time.Nanosecond)
	_, err := Compare(ctx, old, new, nil)
	if !errors.Is(err, schema.ErrRegexBudget) || !strings.HasPrefix(err.Error(), "stopped after ") {
		t.Errorf("Compare: %v, want the pattern budget's end", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compare(cancelled, old, new, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Compare: %v, want context.Canceled", err)
	}
	if _, err := Compare(context.Background(), old, new, nil); err != nil {
		t.Errorf("Compare without a budget: %v", err)
	}
}
