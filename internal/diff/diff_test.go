package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// quick are deterministic options for unit tests.
func quick() *Options { return &Options{SearchBudget: time.Minute, SearchCandidates: 3000} }

type verdicts struct{ Backward, Forward Verdict }

func textOf(r *Result) string {
	var sb strings.Builder
	_ = r.WriteText(&sb)
	return sb.String()
}

func TestAssertFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		assert bool
		want   verdicts
	}{{false, verdicts{Compatible, Compatible}}, {true, verdicts{Incompatible, Compatible}}} {
		old, err := compileTextErr("old.json", `{"type":"string"}`, tc.assert)
		if err != nil {
			t.Fatal(err)
		}
		new, err := compileTextErr("new.json", `{"type":"string","format":"email"}`, tc.assert)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compare(context.Background(), old, new, quick())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, verdicts{res.Backward, res.Forward}); diff != "" {
			t.Errorf("assertFormat %v (-want +got):\n%s", tc.assert, diff)
		}
		verifyExamples(t, "format", res, old, new)
	}
}

// TestRefsAcrossFiles resolves $ref between files of a workspace, with pointers and lines
// in the referenced file.
func TestRefsAcrossFiles(t *testing.T) {
	t.Parallel()
	fsys := workspace.Memory(map[string]string{
		"old/main.json": `{"type":"object","properties":{"p":{"$ref":"defs.json#/$defs/point"}}}`,
		"old/defs.json": `{"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
		"new/main.json": `{"type":"object","properties":{"p":{"$ref":"defs.json#/$defs/point"}}}`,
		"new/defs.json": "{\"$defs\":{\"point\":{\"type\":\"object\",\n \"properties\":{\"x\":{\"type\":\"integer\"}}}}}",
	})
	comp := func(name string) *schema.Schema {
		c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
		s, err := c.Compile(schema.FileURI(fsys.Abs(name)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old, new := comp("old/main.json"), comp("new/main.json")
	res, err := Compare(context.Background(), old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != Incompatible || res.Forward != Compatible {
		t.Fatalf("got %s/%s\n%s", res.Backward, res.Forward, textOf(res))
	}
	var ch *Change
	for i := range res.Changes {
		if res.Changes[i].Kind == "type-narrowed" {
			ch = &res.Changes[i]
		}
	}
	if ch == nil {
		t.Fatalf("no type-narrowed change\n%s", textOf(res))
	}
	want := Change{Kind: "type-narrowed", OldPointer: "/$defs/point/properties/x/type", NewPointer: "/$defs/point/properties/x/type",
		Effect: Narrow, Old: Location{File: "old/defs.json", Line: 1, Column: 55}, New: Location{File: "new/defs.json", Line: 2, Column: 21},
		Path: "/p/x", Level: "validation", Breaks: []string{"backward"}, ExampleValidUnder: "old"}
	got := *ch
	got.Message, got.Example = "", nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	if string(ch.Example) != `{"p":{"x":0.5}}` {
		t.Errorf("example %s", ch.Example)
	}
}

func TestOptionsAndReport(t *testing.T) {
	t.Parallel()
	old := compileText(t, "old.json", `{"properties":{"a":{"type":"string"}}}`)
	new := compileText(t, "new.json", `{"properties":{"a":{"type":"string"}},"required":["a"]}`)
	ctx := context.Background()
	if _, err := Compare(ctx, nil, new, nil); err == nil {
		t.Error("nil schema: want an error")
	}
	for _, bad := range []*Options{{Direction: "sideways"}, {Level: "all"}} {
		if _, err := Compare(ctx, old, new, bad); err == nil {
			t.Errorf("options %+v: want an error", bad)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Compare(cctx, old, new, nil); err == nil {
		t.Error("cancelled context: want an error")
	}
	for _, tc := range []struct {
		dir     string
		verdict Verdict
		exit    int
	}{{Backward, Incompatible, 1}, {Forward, Compatible, 0}, {Full, Incompatible, 1}} {
		res, err := Compare(ctx, old, new, &Options{Direction: tc.dir, Check: true, SearchCandidates: 500, SearchBudget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.verdict || res.ExitCode() != tc.exit || res.Check == nil || res.Check.Passed != (tc.exit == 0) {
			t.Errorf("%s: verdict %s exit %d check %+v", tc.dir, res.Verdict, res.ExitCode(), res.Check)
		}
	}
	res, err := Compare(ctx, old, new, &Options{SearchBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != Unknown || res.ExitCode() != 0 || res.Search.BudgetMs != 0 {
		t.Errorf("no search: %s exit %d budget %d", res.Backward, res.ExitCode(), res.Search.BudgetMs)
	}
	res, err = Compare(ctx, old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(res)
	for _, want := range []string{"backward: incompatible", "BREAKING required-added (narrow)", `property "a" is now required`,
		"new: new.json:1:51 /required/0", "example valid under OLD, rejected by NEW: {}"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	ds := res.Diagnostics()
	if len(ds) != 1 || ds[0].Code != "diff/required-added" || ds[0].Severity != "error" || ds[0].Line != 1 || ds[0].Column != 51 {
		t.Errorf("diagnostics %+v", ds)
	}
	res.Cut(1, 5)
	if len(res.Changes) != 0 || res.Page == nil || res.Page.Total != 1 {
		t.Errorf("cut: %d changes, page %+v", len(res.Changes), res.Page)
	}
	if !strings.Contains(textOf(res), "0 of 1 changes shown") {
		t.Errorf("paged text:\n%s", textOf(res))
	}
}

func TestRulesCoverEveryKind(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	if len(kinds) != len(Rules()) || len(kinds) < 100 {
		t.Fatalf("%d kinds, %d rules", len(kinds), len(Rules()))
	}
	for _, r := range Rules() {
		if r.Description == "" || !strings.HasPrefix(r.Code, "diff/") {
			t.Errorf("rule %+v", r)
		}
	}
}

// Examples that fail at the same keyword and instance location in the same direction are
// one semantic difference, shown with its first example (the search had made one change
// per example: 2 is greater than the maximum 1, then 2.0, 3, 3.0, ... 26 in all here).
func TestSemanticDifferenceOnce(t *testing.T) {
	old := compileText(t, "old.json", `{"if":{"const":false},"then":{"multipleOf":2},"else":{"maximum":1}}`)
	new := compileText(t, "new.json", `{"if":{"type":"number"},"then":{"minimum":2}}`)
	res, err := Compare(context.Background(), old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, c := range res.Changes {
		if c.Kind != "semantic-difference" {
			continue
		}
		n++
		key := fmt.Sprint(c.Breaks, c.OldPointer, c.NewPointer)
		if seen[key] {
			t.Errorf("two semantic differences breaking %v at %s / %s", c.Breaks, c.OldPointer, c.NewPointer)
		}
		seen[key] = true
	}
	if n != 2 {
		t.Errorf("%d semantic differences, want one each way\n%s", n, textOf(res))
	}
}
