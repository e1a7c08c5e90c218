package sample

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// Sample's tables have a handler for every keyword of the model that can change a
// verdict (applicators, assertions, the annotations asserted on request) and for the
// annotations it takes examples from, in every draft of the keyword: a keyword added to
// the model fails here until sample reads it. (The keyword model's contract test in
// internal/schema asks Reads the same question, and runs sample on each keyword.)
func TestInfoTablesCoverModel(t *testing.T) {
	t.Parallel()
	handled := map[string]bool{}
	for _, k := range infoKeywords {
		if handled[k.name] {
			t.Errorf("%s has two handlers", k.name)
		}
		handled[k.name] = true
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
			if !Reads(d, k.Name) {
				t.Errorf("sample does not read %s in %s", k.Name, d)
			}
		}
	}
	// Where the model does not have a keyword, sample reads it only as a hint (examples
	// in draft 4): contentEncoding in draft 6, minContains in draft 7 are not read.
	for _, c := range []struct {
		d    *schema.Draft
		name string
		want bool
	}{{schema.Draft6, "contentEncoding", false}, {schema.Draft7, "minContains", false},
		{schema.Draft7, "dependentRequired", false}, {schema.Draft4, "examples", true}, {schema.Draft4, "$dynamicRef", false}} {
		if got := Reads(c.d, c.name); got != c.want {
			t.Errorf("Reads(%s, %s) = %v, want %v", c.d, c.name, got, c.want)
		}
	}
	for name := range handled {
		if !inModel[name] {
			t.Errorf("handler of %s, which the model does not know", name)
		}
	}
	for name := range infoChildren() {
		if !inModel[name] {
			t.Errorf("handler of the subschemas of %s, which the model does not know", name)
		}
	}
}
