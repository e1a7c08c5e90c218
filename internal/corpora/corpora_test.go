package corpora

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "compat"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JSTK_CORPORA_DIR", dir)
	if got := Dir(t, "compat"); got != filepath.Join(dir, "compat") {
		t.Errorf("Dir = %q", got)
	}
}

func TestMissingCorpusSkips(t *testing.T) {
	t.Setenv("JSTK_CORPORA_DIR", t.TempDir())
	t.Setenv("JSTK_CORPORA", "")
	ran := false
	t.Run("inner", func(t *testing.T) {
		defer func() { ran = true }()
		Dir(t, "nope")
		t.Error("Dir returned for a missing corpus")
	})
	if !ran {
		t.Error("the subtest did not run")
	}
}

func TestFindWalksUpToTheModule(t *testing.T) {
	t.Setenv("JSTK_CORPORA_DIR", "")
	root, ok := find()
	// From internal/corpora the module root is two levels up; the corpora may be absent.
	if ok && filepath.Base(root) != "corpora" {
		t.Errorf("find = %q", root)
	}
}
