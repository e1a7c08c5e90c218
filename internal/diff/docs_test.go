package diff

import (
	"os"
	"strings"
	"testing"
)

// TestKindDocs keeps the change-kind table of docs/diff.md in step with the rule table
// (JSTK_UPDATE=1 rewrites it).
func TestKindDocs(t *testing.T) {
	const path = "../../docs/diff.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", path, err)
	}
	const start, end = "<!-- kinds:start -->\n", "<!-- kinds:end -->"
	text := string(data)
	i, j := strings.Index(text, start), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the %q ... %q markers", path, start, end)
	}
	var sb strings.Builder
	sb.WriteString("| kind | what changed |\n|---|---|\n")
	for _, r := range Rules() {
		sb.WriteString("| `" + strings.TrimPrefix(r.Code, "diff/") + "` | " + r.Description + " |\n")
	}
	got := text[:i+len(start)] + sb.String() + text[j:]
	if got == text {
		return
	}
	if os.Getenv("JSTK_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the change-kind table is out of date; run JSTK_UPDATE=1 go test ./internal/diff -run TestKindDocs", path)
}
