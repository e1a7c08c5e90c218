package prove_test

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// Each pair of schemas that differ by one keyword gets its verdicts: the direction the
// keyword cannot break is proved compatible (a proof, never a guess; unknown where the
// pairs file says diff does not decide), the other shown incompatible by an example; the
// swapped pair gets the same verdicts swapped.
func TestVerdictsByKeyword(t *testing.T) {
	t.Parallel()
	for _, p := range keywordPairs(t) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			old, new := compileText(t, "old.json", p.Old), compileText(t, "new.json", p.New)
			res, err := diff.Compare(context.Background(), old, new, quick())
			if err != nil {
				t.Fatal(err)
			}
			if res.Backward != p.Backward || res.Forward != p.Forward {
				t.Errorf("verdicts %s/%s, want %s/%s\n%s", res.Backward, res.Forward, p.Backward, p.Forward, textOf(res))
			}
			if res.Search.Contradictions != 0 {
				t.Errorf("%d claims refuted by examples\n%s", res.Search.Contradictions, textOf(res))
			}
			swapped, err := diff.Compare(context.Background(), new, old, quick())
			if err != nil {
				t.Fatal(err)
			}
			if swapped.Backward != p.Forward || swapped.Forward != p.Backward {
				t.Errorf("swapped: verdicts %s/%s, want %s/%s", swapped.Backward, swapped.Forward, p.Forward, p.Backward)
			}
		})
	}
}
