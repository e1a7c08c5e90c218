package prove

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
)

// TestImpliersCoverKinds holds implies' table to the kinds of facts: every kind has a
// handler, or is listed in unproved with a reason (and not both).
func TestImpliersCoverKinds(t *testing.T) {
	t.Parallel()
	for k := range algebra.NFactKinds {
		_, listed := unproved()[k]
		if (impliers[k] != nil) == listed {
			t.Errorf("fact kind %d: has a handler %v, listed as unproved %v", k, impliers[k] != nil, listed)
		}
	}
}
