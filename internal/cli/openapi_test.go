package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/diff/document"
	"github.com/jstk-dev/jstk/internal/openapi/fixture"
)

// Every fixture pair through the command line: `jstk diff --check --format json` exits 1
// exactly when the fixture says the check fails, with the verdicts the fixture states.
func TestDiffDocumentPairs(t *testing.T) {
	pairs, err := fixture.Read(filepath.Join("..", "..", fixture.Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, text := range p.Files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out, errs bytes.Buffer
			code := Main(context.Background(), []string{"diff", "--check", "--format", "json",
				filepath.Join(dir, p.Old), filepath.Join(dir, p.New)}, Streams{Stdout: &out, Stderr: &errs})
			want := ExitFindings
			if p.CheckPasses() {
				want = ExitOK
			}
			if code != want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, want, errs.String())
			}
			var r diff.Result
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			lines, _ := p.Expected()
			if d := cmp.Diff(lines, document.VerdictLines(&r)); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}
