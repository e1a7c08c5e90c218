package coverage

import (
	"context"
	"errors"
	"strconv"
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

// TestMeasureStopsWhileWalking: a run whose context ends while the schema is being walked
// (a chain of thousands of schemas takes seconds) stops there, with the context's error,
// and walks no further.
func TestMeasureStopsWhileWalking(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$ref": "#/$defs/a0", "$defs": {`)
	for i := range 3000 {
		b.WriteString(`"a` + strconv.Itoa(i) + `": {"not": {"not": {"$ref": "#/$defs/a` + strconv.Itoa(i+1) + `"}}}, `)
	}
	b.WriteString(`"a3000": {}}}`)
	fsys := workspace.Memory(map[string]string{"schema.json": b.String(), "in.json": `{}`})
	s := compileFile(t, fsys, "schema.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := newModel(s, nil)
	m.ctx = ctx
	m.add(s)
	if !m.stopped || m.steps > 1024 {
		t.Errorf("the walk went on after the context ended: %d schemas walked (stopped %v)", m.steps, m.stopped)
	}
	_, err := Measure(ctx, s, []Source{{Name: "in.json", Path: "in.json"}}, &Options{Options: schematest.Options{FS: fsys}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Measure: %v, want the context's end", err)
	}
}
