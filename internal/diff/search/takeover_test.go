package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// union is a discriminated union on "kind" with a branch for "a" and a catch-all that
// excludes the values of excluded (with not and an enum); added, when not "", is one more
// branch. at wraps it: "" at the root, "prop" under a property, "items" as array items.
func union(excluded, added, at string) string {
	u := `{"type":"object","properties":{"kind":{"type":"string"}},"oneOf":[` +
		`{"properties":{"kind":{"const":"a"}},"required":["kind"]},` +
		`{"not":{"properties":{"kind":{"enum":[` + excluded + `]}},"required":["kind"]}}`
	if added != "" {
		u += `,` + added
	}
	u += `]}`
	switch at {
	case "prop":
		return `{"type":"object","properties":{"spec":` + u + `}}`
	case "items":
		return `{"type":"array","items":` + u + `}`
	}
	return u
}

// A branch added to a union whose catch-all now excludes its value takes over instances
// the catch-all accepted: one that carries the new value and misses what the new branch
// asks besides is valid under OLD and invalid under NEW. The search makes it (takenOver),
// at the root, under a property and in items (contexts), also where the missing part is
// inside a member (breakDeep); the forward direction is the same with the sides swapped.
func TestTakenOverBranch(t *testing.T) {
	t.Parallel()
	flat := `{"properties":{"kind":{"const":"b"},"url":{"type":"string"}},"required":["kind","url"]}`
	deep := `{"properties":{"kind":{"const":"b"},"cfg":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}},"required":["kind","cfg"]}`
	for _, tc := range []struct{ name, added, at string }{
		{"flat at the root", flat, ""},
		{"deep at the root", deep, ""},
		{"flat under a property", flat, "prop"},
		{"deep under a property", deep, "prop"},
		{"flat in items", flat, "items"},
		{"deep in items", deep, "items"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before, after := union(`"a"`, "", tc.at), union(`"a","b"`, tc.added, tc.at)
			for _, dir := range []string{"backward", "forward"} {
				oldText, newText := before, after
				if dir == "forward" {
					oldText, newText = after, before
				}
				old, new := compileText(t, "old.json", oldText), compileText(t, "new.json", newText)
				res, err := diff.Compare(context.Background(), old, new, quick())
				if err != nil {
					t.Fatal(err)
				}
				verifyExamples(t, tc.name, res, old, new)
				got, ex := res.Backward, res.BackwardExample
				if dir == "forward" {
					got, ex = res.Forward, res.ForwardExample
				}
				if got != diff.Incompatible || !strings.Contains(string(ex), `"b"`) {
					t.Errorf("%s: %s with example %s, want incompatible with an instance of kind b\n%s", dir, got, ex, textOf(res))
				}
			}
		})
	}
}
