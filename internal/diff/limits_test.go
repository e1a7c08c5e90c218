package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The walk's limits end a comparison early with what is proved, and say so: a budget of
// parts copied into conjunctions (an allOf of n conditions copies about n^2), and of
// locations.
func TestWalkLimits(t *testing.T) {
	conds := func(max int) string {
		var cs []string
		for i := range 40 {
			cs = append(cs, fmt.Sprintf(`{"if": {"properties": {"t": {"const": "x%d"}}, "required": ["t"]}, "then": {"properties": {"v": {"maximum": %d}}}}`, i, max))
		}
		return `{"type": "object", "properties": {"v": {"type": "integer"}, "w": {"properties": {"z": {"type": "string"}}}}, "allOf": [` + strings.Join(cs, ",") + `]}`
	}
	old, new := compileText(t, "old.json", conds(10)), compileText(t, "new.json", conds(9))
	full, err := Compare(context.Background(), old, new, nil)
	if err != nil || full.Search.ProofIncomplete {
		t.Fatalf("without limits: %v, incomplete %v", err, full != nil && full.Search.ProofIncomplete)
	}
	for _, o := range []*Options{{MaxParts: 100}, {MaxLocations: 2}} {
		r, err := Compare(context.Background(), old, new, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Search.ProofIncomplete {
			t.Errorf("%+v: the comparison does not say it was cut short", *o)
		}
		if r.Backward == Compatible {
			t.Errorf("%+v: backward compatible, though the proof was cut short and maximum was lowered", *o)
		}
	}
}
