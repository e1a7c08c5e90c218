package schematest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestRunStopsAtItsBudget: the tests' evaluations draw on the run's pattern budget, whose
// end stops the run with an error saying so (20 hostile tests took 2 s each before).
func TestRunStopsAtItsBudget(t *testing.T) {
	var tests []string
	for i := range 20 {
		tests = append(tests, fmt.Sprintf(`{"description": "t%d", "data": "%s!", "valid": false}`, i, strings.Repeat("a", 40)))
	}
	suite := `[{"description": "hostile", "schema": {"pattern": "^(\\w+\\s?)*$"}, "tests": [` + strings.Join(tests, ",") + `]}]`
	ctx := schema.WithRegexBudget(context.Background(), 500*time.Millisecond)
	_, err := Run(ctx, []Source{{Name: "suite.json", Text: []byte(suite)}}, nil)
	if !errors.Is(err, schema.ErrRegexBudget) || !strings.HasPrefix(err.Error(), "stopped after ") {
		t.Errorf("Run: %v, want the pattern budget's end", err)
	}
}
