package coverage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// TestMeasureStopsAtItsBudget: the traced evaluations draw on the run's pattern budget,
// whose end stops the measure with an error saying so.
func TestMeasureStopsAtItsBudget(t *testing.T) {
	line := `"` + strings.Repeat("a", 40) + `!"` + "\n"
	fsys := workspace.Memory(map[string]string{
		"schema.json": `{"pattern": "^(\\w+\\s?)*$"}`,
		"in.ndjson":   strings.Repeat(line, 20),
	})
	s := compileFile(t, fsys, "schema.json")
	ctx := schema.WithRegexBudget(context.Background(), 500*time.Millisecond)
	_, err := Measure(ctx, s, []Source{{Name: "in.ndjson", Path: "in.ndjson"}}, &Options{Options: schematest.Options{FS: fsys}})
	if !errors.Is(err, schema.ErrRegexBudget) || !strings.HasPrefix(err.Error(), "stopped after ") {
		t.Errorf("Measure: %v, want the pattern budget's end", err)
	}
}
