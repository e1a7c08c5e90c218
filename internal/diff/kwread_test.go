package diff

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// notRead are the keywords of the model that act on instances and have no entry in
// nodeReaders, with the reason.
var notRead = map[string]string{
	"$ref":          "read with the shell (newBody): the closure of a conjunction follows it",
	"$recursiveRef": "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
	"$dynamicRef":   "read with the shell (newBody): a dynamic one is a fact of its own (fDynamic)",
}

// actsOnInstances reports a keyword of the model that can change a verdict: applicators,
// assertions, references, and the annotations that assert on request.
func actsOnInstances(k *schema.Keyword) bool {
	return k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference ||
		k.Kind == schema.Annotation && k.OnRequest
}

// TestNodeReadersCoverModel holds readNode's table to schema's keyword model: every
// keyword that acts on instances has an entry or is listed in notRead with a reason, and
// every keyword of the table is one of the model's.
func TestNodeReadersCoverModel(t *testing.T) {
	t.Parallel()
	inTable := map[string]bool{}
	for _, h := range nodeReaders {
		if len(h.keywords) == 0 || h.piece == nil && h.facts == nil {
			t.Errorf("entry of %v is incomplete", h.keywords)
		}
		for _, kw := range h.keywords {
			inTable[kw] = true
		}
	}
	inModel := map[string]bool{}
	for i := range schema.Keywords() {
		k := &schema.Keywords()[i]
		inModel[k.Name] = true
		if !actsOnInstances(k) {
			continue
		}
		_, listed := notRead[k.Name]
		if !inTable[k.Name] && !listed {
			t.Errorf("%s (%s) acts on instances, and readNode neither reads it nor says why not", k.Name, k.Kind)
		}
		if inTable[k.Name] && listed {
			t.Errorf("%s is read by readNode and listed in notRead", k.Name)
		}
	}
	for kw := range inTable {
		if !inModel[kw] {
			t.Errorf("readNode has an entry for %s, which the model does not know", kw)
		}
	}
	for kw := range notRead {
		if !inModel[kw] {
			t.Errorf("notRead lists %s, which the model does not know", kw)
		}
	}
	// every subschema the compiler applies has a piece handler
	for _, k := range schema.Keywords() {
		if k.Kind == schema.Applicator && k.Shape != schema.NoSchema && pieceReaders[k.Name] == nil {
			t.Errorf("the applicator %s has no piece handler: its subschemas would be lost", k.Name)
		}
	}
}
