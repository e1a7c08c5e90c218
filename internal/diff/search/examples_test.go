package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// TestExamplesReadLikeData: an example fills a string under a format with a value of
// that format and writes numbers in their shortest form, in the text and in the JSON,
// whether or not the format is asserted, as long as it proves the same break.
func TestExamplesReadLikeData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"format filled", `{"type":"object","properties":{"email":{"type":"string","format":"email"}}}`,
			`{"type":"object","properties":{"email":{"type":"string","format":"email","maxLength":3}}}`, `{"email":"a@example.com"}`},
		{"format in a branch", `{"type":"object","properties":{"d":{"anyOf":[{"type":"string","format":"date"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"d":{"type":"null"}}}`, `{"d":"2024-01-02"}`},
		{"shortest number", `{"enum":[10.0,1]}`, `{"enum":[1]}`, `10`},
		{"a format kept out when it would not break", `{"type":"object","properties":{"e":{"type":"string","format":"email"}}}`,
			`{"type":"object","properties":{"e":{"type":"string","format":"email","minLength":1}}}`, `{"e":""}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old := compileText(t, "old.json", tc.old)
			new := compileText(t, "new.json", tc.new)
			res, err := diff.Compare(context.Background(), old, new, quick())
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.BackwardExample); got != tc.want {
				t.Errorf("backward example %s, want %s\n%s", got, tc.want, textOf(res))
			}
			if !strings.Contains(textOf(res), "rejected by NEW: "+tc.want) {
				t.Errorf("text without %s\n%s", tc.want, textOf(res))
			}
			for _, c := range res.Changes {
				if len(c.Example) > 0 && c.ExampleValidUnder == "old" && string(c.Example) != tc.want {
					t.Errorf("%s: example %s, want %s", c.Kind, c.Example, tc.want)
				}
			}
			verifyExamples(t, tc.name, res, old, new)
		})
	}
}
