package gitread

import (
	"bytes"
	"compress/zlib"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// git runs git in dir (the tests make repositories with it; the package never runs it).
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Head reads what git show HEAD:path prints: from loose objects, from a pack with deltas
// (after git gc), through a linked worktree, and says ErrNotCommitted for the rest.
func TestHead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := strings.Repeat(`{"type": "object", "properties": {"a": {"type": "string"}}}`+"\n", 200)
	write("s/schema.json", big)
	write("other.txt", "x")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "one")
	fsys := workspace.OS()
	check := func(when string) {
		t.Helper()
		want := git(t, dir, "show", "HEAD:s/schema.json")
		got, err := Head(fsys, filepath.Join(dir, "s", "schema.json"))
		if err != nil || string(got) != want {
			t.Errorf("%s: Head = %.60q, %v; want %.60q", when, got, err, want)
		}
		if _, err := Head(fsys, filepath.Join(dir, "s", "new.json")); !errors.Is(err, ErrNotCommitted) {
			t.Errorf("%s: an uncommitted file: %v", when, err)
		}
	}
	check("loose")
	write("s/schema.json", big+`{"more": true}`+"\n")
	git(t, dir, "commit", "-q", "-am", "two")
	git(t, dir, "gc", "-q", "--aggressive")
	if m, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack")); len(m) == 0 {
		t.Fatal("git gc made no pack")
	}
	check("packed")
	git(t, dir, "pack-refs", "--all")
	check("packed refs")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", wt)
	got, err := Head(fsys, filepath.Join(wt, "s", "schema.json"))
	if err != nil || !bytes.HasSuffix(got, []byte(`{"more": true}`+"\n")) {
		t.Errorf("linked worktree: %v", err)
	}
	if _, err := Head(fsys, "/"); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("outside a repository: %v", err)
	}
}

func TestBadDeltas(t *testing.T) {
	for _, d := range [][]byte{{}, {3}, {3, 1, 0x90}, {3, 1, 0x91, 9, 1}, {3, 2, 5, 'a'}, {3, 1, 0}, {3, 9, 1, 'x'}} {
		if _, err := applyDelta([]byte("abc"), d); err == nil {
			t.Errorf("applyDelta(abc, %v) took a bad delta", d)
		}
	}
	out, err := applyDelta([]byte("abc"), []byte{3, 5, 0x91, 1, 2, 3, 'x', 'y', 'z'})
	if err != nil || string(out) != "bcxyz" {
		t.Errorf("applyDelta = %q, %v", out, err)
	}
	if _, err := readIdx("x.idx", []byte("nope")); err == nil {
		t.Error("readIndex took junk")
	}
}

// A repository without commits, a .git file that is not a gitdir file, broken objects.
func TestOddRepositories(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	fsys := workspace.OS()
	empty := t.TempDir()
	git(t, empty, "init", "-q")
	if err := os.WriteFile(filepath.Join(empty, "a.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Head(fsys, filepath.Join(empty, "a.json")); !errors.Is(err, ErrNotCommitted) {
		t.Errorf("no commit yet: %v", err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, ".git"), []byte("nonsense"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Head(fsys, filepath.Join(bad, "a.json")); err == nil {
		t.Error("a .git file that is no gitdir file was taken")
	}
	// A loose object that is not zlib, and one without a header.
	if _, err := decodeLoose(strings.NewReader("not zlib"), "x"); err == nil {
		t.Error("loose took junk")
	}
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	z.Write([]byte("blob-without-header"))
	z.Close()
	if _, err := decodeLoose(&b, "x"); err == nil {
		t.Error("loose took an object without a header")
	}
	if _, err := ParseHash("xyz"); err == nil {
		t.Error("parseID took junk")
	}
	if _, err := parseTree(Hash{}, []byte("100644 a")); err == nil {
		t.Error("parseTree took a cut entry")
	}
	idx := append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, make([]byte, 256*4)...)
	idx[8+255*4+3] = 5 // five objects, and no room for them
	if _, err := readIdx("x.idx", idx); err == nil {
		t.Error("readIndex took a truncated index")
	}
}
