package diff

import (
	"context"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestNodeReadersCoverModel holds readNode's table to schema's keyword model: every
// keyword that acts on instances has an entry or is listed in readElsewhere with a reason, and
// every keyword of the table is one of the model's.
func TestNodeReadersCoverModel(t *testing.T) {
	t.Parallel()
	inTable := map[string]bool{}
	for _, h := range algebra.NodeReaders {
		if len(h.Keywords) == 0 || h.Piece == nil && h.Facts == nil {
			t.Errorf("entry of %v is incomplete", h.Keywords)
		}
		for _, kw := range h.Keywords {
			inTable[kw] = true
		}
	}
	inModel := map[string]bool{}
	for i := range schema.Keywords() {
		k := &schema.Keywords()[i]
		inModel[k.Name] = true
		if !algebra.ActsOnInstances(k) {
			continue
		}
		_, listed := algebra.ReadElsewhere[k.Name]
		if !inTable[k.Name] && !listed {
			t.Errorf("%s (%s) acts on instances, and readNode neither reads it nor says why not", k.Name, k.Kind)
		}
		if inTable[k.Name] && listed {
			t.Errorf("%s is read by readNode and listed in readElsewhere", k.Name)
		}
	}
	for kw := range inTable {
		if !inModel[kw] {
			t.Errorf("readNode has an entry for %s, which the model does not know", kw)
		}
	}
	for kw := range algebra.ReadElsewhere {
		if !inModel[kw] {
			t.Errorf("readElsewhere lists %s, which the model does not know", kw)
		}
	}
	// every subschema the compiler applies has a piece handler
	for _, k := range schema.Keywords() {
		if k.Kind == schema.Applicator && k.Shape != schema.NoSchema && algebra.PieceReaders[k.Name] == nil {
			t.Errorf("the applicator %s has no piece handler: its subschemas would be lost", k.Name)
		}
	}
}

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
