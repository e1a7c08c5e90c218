package lint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// lintOne lints one inline document with every rule on.
func lintOne(t *testing.T, name, text string, settings map[string]Setting) *Result {
	t.Helper()
	fsys := workspace.Memory(map[string]string{name: text})
	if settings == nil {
		settings = map[string]Setting{"all": "on"}
	}
	res, err := Run(context.Background(), []Source{{Name: name, Path: name}}, fsys, &Options{Rules: settings, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ruleIDs(res *Result) map[string]int {
	m := map[string]int{}
	for _, f := range res.Findings {
		m[f.Rule]++
	}
	return m
}

// TestRuleExamples checks every rule on its own examples: the bad one is reported, the good
// one is not. The findings on the bad examples are kept in testdata/rules.golden.
func TestRuleExamples(t *testing.T) {
	var report strings.Builder
	for _, r := range Rules() {
		if r.Bad == "" || r.Good == "" {
			t.Errorf("rule %s: needs a bad and a good example", r.ID)
			continue
		}
		if r.Summary == "" || len(r.Explanation) < 40 {
			t.Errorf("rule %s: needs a summary and an explanation", r.ID)
		}
		bad := lintOne(t, "bad.json", r.Bad, nil)
		if ruleIDs(bad)[r.ID] == 0 {
			t.Errorf("rule %s: its bad example is not reported; findings: %v", r.ID, ruleIDs(bad))
		}
		if len(bad.Problems) > 0 {
			t.Errorf("rule %s: bad example unreadable: %v", r.ID, bad.Problems)
		}
		good := lintOne(t, "good.json", r.Good, nil)
		if n := ruleIDs(good)[r.ID]; n > 0 {
			for _, f := range good.Findings {
				if f.Rule == r.ID {
					t.Errorf("rule %s: its good example is reported: %s: %s", r.ID, f.Pointer, f.Message)
				}
			}
		}
		fmt.Fprintf(&report, "== %s\n", r.ID)
		for _, f := range bad.Findings {
			if f.Rule != r.ID {
				continue
			}
			fx := ""
			if f.Fix != nil {
				fx = " [fix: " + f.Fix.Description + "]"
			}
			fmt.Fprintf(&report, "%d:%d %s: %s%s\n", f.Line, f.Column, f.Pointer, f.Message, fx)
		}
	}
	golden.Check(t, "testdata/rules.golden", report.String())
}
