package search_test

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// Each pair of schemas that differ by one keyword and break a direction gets an example
// for it: valid under one side, invalid under the other, attributed to a change at the
// keyword; with the search off, no direction is incompatible (only examples show that).
func TestExamplesByKeyword(t *testing.T) {
	t.Parallel()
	for _, p := range keywordPairs(t) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			old, new := compileText(t, "old.json", p.Old), compileText(t, "new.json", p.New)
			res, err := diff.Compare(context.Background(), old, new, quick())
			if err != nil {
				t.Fatal(err)
			}
			verifyExamples(t, p.Name, res, old, new)
			if (p.Backward == diff.Incompatible) != (len(res.BackwardExample) > 0) || (p.Forward == diff.Incompatible) != (len(res.ForwardExample) > 0) {
				t.Errorf("examples %s / %s for verdicts %s/%s\n%s", res.BackwardExample, res.ForwardExample, p.Backward, p.Forward, textOf(res))
			}
			attributed := false
			for _, c := range res.Changes {
				attributed = attributed || len(c.Example) > 0
			}
			if (p.Backward == diff.Incompatible || p.Forward == diff.Incompatible) && !attributed {
				t.Errorf("no change carries an example\n%s", textOf(res))
			}
			off, err := diff.Compare(context.Background(), old, new, &diff.Options{SearchBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			if off.Backward == diff.Incompatible || off.Forward == diff.Incompatible || len(off.BackwardExample)+len(off.ForwardExample) > 0 {
				t.Errorf("without the search: %s/%s with examples %s / %s", off.Backward, off.Forward, off.BackwardExample, off.ForwardExample)
			}
		})
	}
}
