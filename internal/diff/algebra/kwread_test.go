package algebra

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestNodeReadersCoverModel holds readNode's table to schema's keyword model: every
// keyword that acts on instances has an entry or is listed in readElsewhere with a reason, and
// every keyword of the table is one of the model's.
func TestNodeReadersCoverModel(t *testing.T) {
	t.Parallel()
	inTable := map[string]bool{}
	for _, h := range NodeReaders {
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
		if !ActsOnInstances(k) {
			continue
		}
		_, listed := ReadElsewhere[k.Name]
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
	for kw := range ReadElsewhere {
		if !inModel[kw] {
			t.Errorf("readElsewhere lists %s, which the model does not know", kw)
		}
	}
	// every subschema the compiler applies has a piece handler
	readersOnce.Do(IndexReaders)
	for _, k := range schema.Keywords() {
		if k.Kind == schema.Applicator && k.Shape != schema.NoSchema && PieceReaders[k.Name] == nil {
			t.Errorf("the applicator %s has no piece handler: its subschemas would be lost", k.Name)
		}
	}
}
