package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// testResolve is the resolve map of testdata/workspace.txtar.
var testResolve = map[string]string{
	"https://schemas.example.org/": "vendor/",
	"https://example.com/shared/":  "shared/",
}

// loadArchive reads a txtar archive: its workspace files, its calls, and its golden answers.
func loadArchive(t *testing.T, name string) (*txtar.Archive, map[string]string, []string) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var calls []string
	for _, f := range ar.Files {
		switch {
		case f.Name == "calls":
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				calls = append(calls, strings.TrimSpace(line))
			}
		case strings.HasPrefix(f.Name, "want/"):
		default:
			files[f.Name] = string(f.Data)
		}
	}
	return ar, files, calls
}

// testWorkspace scans the workspace of testdata/workspace.txtar.
func testWorkspace(t *testing.T) *Workspace {
	t.Helper()
	_, files, _ := loadArchive(t, "workspace.txtar")
	w, err := Scan(context.Background(), workspace.Memory(files), &Options{Resolve: testResolve})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// run performs one call of the archive, returning its text and JSON answers.
func run(t *testing.T, w *Workspace, call string) (string, string) {
	t.Helper()
	verb, arg, _ := strings.Cut(call, " ")
	var text bytes.Buffer
	var v any
	switch verb {
	case "list":
		var q Query
		if err := json.Unmarshal([]byte(arg), &q); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		l, err := w.List(q)
		if err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		if err := l.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		v = l
	case "context":
		var in struct {
			ID string
			ContextLimits
		}
		if err := json.Unmarshal([]byte(arg), &in); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		c := w.Context(in.ID, in.ContextLimits)
		if err := c.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		v = c
	default:
		t.Fatalf("unknown call %q", call)
	}
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return text.String(), string(js) + "\n"
}

// TestGolden performs the calls of testdata/workspace.txtar and compares the answers with
// the archive's want/ files; JSTK_UPDATE=1 rewrites them.
func TestGolden(t *testing.T) {
	ar, _, calls := loadArchive(t, "workspace.txtar")
	w := testWorkspace(t)
	want := map[string]string{}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			want[f.Name] = string(f.Data)
		}
	}
	got := map[string]string{}
	for i, call := range calls {
		text, js := run(t, w, call)
		got[fmt.Sprintf("want/%02d.txt", i)] = text
		got[fmt.Sprintf("want/%02d.json", i)] = js
	}
	if os.Getenv("JSTK_UPDATE") != "" {
		var kept []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				kept = append(kept, f)
			}
		}
		for i := range calls {
			for _, ext := range []string{".txt", ".json"} {
				name := fmt.Sprintf("want/%02d%s", i, ext)
				kept = append(kept, txtar.File{Name: name, Data: []byte(got[name])})
			}
		}
		ar.Files = kept
		if err := os.WriteFile(filepath.Join("testdata", "workspace.txtar"), txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, call := range calls {
		for _, ext := range []string{".txt", ".json"} {
			name := fmt.Sprintf("want/%02d%s", i, ext)
			if diff := cmp.Diff(want[name], got[name]); diff != "" {
				t.Errorf("%s (%s) (-want +got):\n%s", name, call, diff)
			}
		}
	}
	if len(want) != 2*len(calls) {
		t.Errorf("the archive has %d golden files for %d calls; regenerate with JSTK_UPDATE=1", len(want), len(calls))
	}
}
