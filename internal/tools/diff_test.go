package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// OLD and NEW are compiled side by side, yet the errors read as if in turn: OLD's first,
// then NEW's; standard input still works for one of them.
func TestDiffLoadsBothSides(t *testing.T) {
	files := map[string]string{
		"good.json":  `{"type": "object"}`,
		"bad.json":   `{"type": 5}`,
		"worse.json": `{"minimum": "x"}`,
	}
	tests := []struct {
		name, old, new, stdin, want string
	}{
		{"both good", "good.json", "good.json", "", ""},
		{"old bad", "bad.json", "good.json", "", "bad.json"},
		{"new bad", "good.json", "bad.json", "", "bad.json"},
		{"both bad: old first", "worse.json", "bad.json", "", "worse.json"},
		{"missing new", "good.json", "nothere.json", "", "nothere.json"},
		{"old from stdin", "-", "good.json", `{"type": "string"}`, ""},
		{"new from stdin, bad", "good.json", "-", `{"type": 5}`, "type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{FS: workspace.Memory(files), Stdin: strings.NewReader(tc.stdin)}
			in := &DiffInput{Schemas: []Doc{{Path: tc.old}, {Path: tc.new}}}
			res, err := runDiff(context.Background(), env, in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tc.want == "" && res == nil:
				t.Fatal("no result")
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}
