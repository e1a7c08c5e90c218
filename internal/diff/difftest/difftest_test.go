package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/diff"
)

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// The checks pass on a real comparison, and each catches the lie it is there for.
func TestVerifyExamples(t *testing.T) {
	old := CompileText(t, "old.json", `{"type":"object","properties":{"a":{"type":"string"}}}`)
	new := CompileText(t, "new.json", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)
	res, err := diff.Compare(context.Background(), old, new, Quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != diff.Incompatible || !strings.Contains(TextOf(res), "required") {
		t.Fatalf("want backward incompatible at required:\n%s", TextOf(res))
	}
	r := &recorder{TB: t}
	VerifyExamples(r, "real", res, old, new)
	if len(r.errs) != 0 {
		t.Errorf("a real comparison: %v", r.errs)
	}
	for _, tc := range []struct {
		name string
		lie  func(*diff.Result)
		want string
	}{
		{"an example valid under both", func(r *diff.Result) { r.BackwardExample = json.RawMessage(`{"a":"x"}`) }, "valid under old true, under new true"},
		{"an example that does not parse", func(r *diff.Result) { r.BackwardExample = json.RawMessage(`{`) }, "does not parse"},
		{"an incompatible direction without one", func(r *diff.Result) { r.BackwardExample = nil }, "backward incompatible without an example"},
		{"a forward break without one", func(r *diff.Result) { r.Forward = diff.Incompatible; r.ForwardExample = nil }, "forward incompatible without an example"},
	} {
		lied := *res
		tc.lie(&lied)
		r := &recorder{TB: t}
		VerifyExamples(r, tc.name, &lied, old, new)
		if !strings.Contains(strings.Join(r.errs, "\n"), tc.want) {
			t.Errorf("%s: errors %v, want one with %q", tc.name, r.errs, tc.want)
		}
	}
}

func TestKeywordPairs(t *testing.T) {
	for _, p := range KeywordPairs(t) {
		if p.Name == "" || p.Old == "" || p.New == "" || p.Backward == "" || p.Forward == "" {
			t.Errorf("an incomplete pair: %+v", p)
		}
	}
}
