package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHide: a hidden file (the audit log of jstk mcp) cannot be read or stat'ed through
// the workspace by any name, a symbolic link or a hard link to it included, and no listing
// shows it; every other file is as before.
func TestHide(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	audit := filepath.Join(tr.root, "sub", "audit.jsonl")
	if err := os.WriteFile(audit, []byte(`{"arguments":{"token":"[REDACTED]"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/audit.jsonl", filepath.Join(tr.root, "audit-link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(audit, filepath.Join(tr.root, "audit-abs-link.json")); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(tr.root, "audit-hard.json")
	if err := os.Link(audit, hard); err != nil {
		t.Fatal(err)
	}
	fsys, err := Root(tr.root)
	if err != nil {
		t.Fatal(err)
	}
	if err := Hide(fsys, audit); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/audit.jsonl", audit, "sub/../sub/audit.jsonl", "audit-link.json", "audit-abs-link.json", "audit-hard.json", "dir-in/audit.jsonl"} {
		if _, err := readAll(t, fsys, name); err == nil || !strings.Contains(err.Error(), "refused: it is the audit log") {
			t.Errorf("ReadFile(%q) = %v, want it refused as the audit log", name, err)
		}
		if _, err := fsys.Stat(name); err == nil {
			t.Errorf("Stat(%q) succeeds on the audit log", name)
		}
	}
	es, err := fsys.ReadDir("sub")
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(es, func(e os.DirEntry) bool { return e.Name() == "audit.jsonl" }) {
		t.Error("ReadDir lists the audit log")
	}
	files, _ := Expand(fsys, []string{"."}, []string{".json", ".jsonl"})
	if slices.Contains(files, "sub/audit.jsonl") || slices.Contains(files, "audit-hard.json") {
		t.Errorf("Expand lists the audit log: %v", files)
	}
	if got, err := readAll(t, fsys, "a.json"); err != nil || got != `{"a":1}` {
		t.Errorf("a.json: %q, %v", got, err)
	}
	// Hiding needs the file, and does nothing on another FS.
	if err := Hide(fsys, filepath.Join(tr.root, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Hide of a missing file: %v", err)
	}
	if err := Hide(Memory(nil), audit); err != nil {
		t.Errorf("Hide on memory: %v", err)
	}
}
