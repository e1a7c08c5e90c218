package algebra_test

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// Every schema of the pairs by keyword, read twice (two compilations of the same text), is
// compatible with itself both ways with no change of validation, and proved compatible
// backward against true: the readers give the same facts to the same keywords, and what
// they read never claims more than the schema says.
func TestReadersSelfCompatible(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range keywordPairs(t) {
		for _, text := range []string{p.Old, p.New} {
			if seen[text] {
				continue
			}
			seen[text] = true
			a, b := compileText(t, "a.json", text), compileText(t, "b.json", text)
			res, err := diff.Compare(context.Background(), a, b, quick())
			if err != nil {
				t.Fatal(err)
			}
			if res.Backward != diff.Compatible || res.Forward != diff.Compatible {
				t.Errorf("%s: %s against itself: %s/%s\n%s", p.Name, text, res.Backward, res.Forward, textOf(res))
			}
			for _, c := range res.Changes {
				if c.Level == "validation" {
					t.Errorf("%s: %s against itself: %s %s", p.Name, text, c.Kind, c.Message)
				}
			}
			all := compileText(t, "true.json", `true`)
			res, err = diff.Compare(context.Background(), a, all, quick())
			if err != nil {
				t.Fatal(err)
			}
			if res.Backward != diff.Compatible {
				t.Errorf("%s: %s against true: backward %s\n%s", p.Name, text, res.Backward, textOf(res))
			}
			verifyExamples(t, p.Name, res, a, all)
		}
	}
}
