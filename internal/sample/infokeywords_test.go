package sample

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// readElsewhere are the keywords that constrain instances which sample follows outside
// its tables: the references, through schema.Schema.Ref and DynamicRef (gen.go).
var readElsewhere = map[string]bool{"$ref": true, "$dynamicRef": true, "$recursiveRef": true}

// knownGaps are the keywords, by draft, that the compiler applies and sample does not
// read: const in draft 4, which the compiler applies unless Options.StrictDraft (a
// Lenient keyword) and sample reads from draft 6 on only.
var knownGaps = map[string]int{"const": 4}

// Sample's tables have a handler for every keyword of the model that can change a
// verdict (applicators, assertions, the annotations asserted on request) and for the
// annotations it takes examples from, in every draft of the keyword: a keyword added to
// the model fails here until sample reads it.
func TestInfoTablesCoverModel(t *testing.T) {
	t.Parallel()
	since := map[string]int{}
	for _, k := range infoKeywords {
		if _, dup := since[k.name]; dup {
			t.Errorf("%s has two handlers", k.name)
		}
		since[k.name] = k.since
	}
	inModel := map[string]bool{}
	for _, k := range schema.Keywords() {
		inModel[k.Name] = true
		must := k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference ||
			k.OnRequest || k.Name == "examples" || k.Name == "default"
		if !must {
			continue
		}
		for _, d := range k.Drafts.Drafts() {
			s, hasValue := since[k.Name]
			read := hasValue && s <= d.Version || infoChildren[k.Name] != nil || readElsewhere[k.Name]
			if !read && knownGaps[k.Name] != d.Version {
				t.Errorf("sample does not read %s in %s", k.Name, d)
			}
		}
	}
	for name := range since {
		if !inModel[name] {
			t.Errorf("handler of %s, which the model does not know", name)
		}
	}
	for name := range infoChildren {
		if !inModel[name] {
			t.Errorf("handler of the subschemas of %s, which the model does not know", name)
		}
	}
}
