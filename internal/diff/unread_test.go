package diff

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
)

// A keyword the compiler applies and readNode does not read (here uniqueItems, its entry
// taken out of the table) makes diff answer unknown and name it, never "compatible": the
// rule engine, which knows nothing of it, would otherwise prove the schemas equivalent
// (and, with the search on, be refuted by its example).
// Not parallel: it changes the table while it runs (the parallel tests wait for it).
func TestUnreadKeywordIsUnknown(t *testing.T) {
	saved := algebra.NodeReaders
	defer func() { algebra.NodeReaders = saved; algebra.IndexReaders() }()
	algebra.NodeReaders = nil
	for _, h := range saved {
		if !slices.Contains(h.Keywords, "uniqueItems") {
			algebra.NodeReaders = append(algebra.NodeReaders, h)
		}
	}
	algebra.IndexReaders()

	old := compileText(t, "old.json", `{"type": "array"}`)
	new := compileText(t, "new.json", `{"type": "array", "uniqueItems": true}`)
	for _, budget := range []time.Duration{-1, time.Minute} {
		res, err := Compare(context.Background(), old, new, &Options{SearchBudget: budget, SearchCandidates: 3000})
		if err != nil {
			t.Fatal(err)
		}
		// forward holds: every instance of new is an array, whatever uniqueItems does
		if res.Backward == Compatible || res.Forward != Compatible {
			t.Errorf("search budget %v: backward %s, forward %s; want backward not compatible, forward compatible", budget, res.Backward, res.Forward)
		}
		var got []string
		for _, c := range res.Changes {
			got = append(got, c.Kind+": "+c.Message+" at "+c.NewPointer)
		}
		want := "keyword-not-read: diff does not read uniqueItems; only the search can judge this location at /uniqueItems"
		if !slices.Contains(got, want) {
			t.Errorf("search budget %v: changes\n%s\nwant among them %q", budget, strings.Join(got, "\n"), want)
		}
		if res.Search.Contradictions != 0 {
			t.Errorf("search budget %v: %d contradictions", budget, res.Search.Contradictions)
		}
	}
}
