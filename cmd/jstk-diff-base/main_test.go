package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/cli"
)

// repo makes a git repository with one commit of files, then writes changes over them,
// and makes it the working directory for the test.
func repo(t *testing.T, committed, changed map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(files map[string]string) {
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitIn := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(committed)
	gitIn("init", "-q")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "base")
	write(changed)
	t.Chdir(dir)
	return dir
}

func call(args ...string) (int, string) {
	var out bytes.Buffer
	code := run(context.Background(), args, cli.Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out})
	return code, out.String()
}

func TestDiffBase(t *testing.T) {
	t.Setenv("PRE_COMMIT_FROM_REF", "")
	repo(t, map[string]string{
		"schemas/order.json":    `{"type": "object", "properties": {"customer": {"$ref": "customer.json"}}}`,
		"schemas/customer.json": `{"type": "object", "properties": {"name": {"type": "string"}}}`,
		"schemas/loose.json":    `{"type": "object", "required": ["id"]}`,
	}, map[string]string{
		// Breaking: the referenced file, as it was, did not require a name; the old version
		// of order.json must read the old customer.json for the verdict to be right.
		"schemas/customer.json": `{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`,
		"schemas/order.json":    `{"type": "object", "properties": {"customer": {"$ref": "customer.json"}}, "required": ["customer"]}`,
		"schemas/loose.json":    `{"type": "object"}`,
		"schemas/new.json":      `{"type": "string"}`,
	})
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"schemas/loose.json"}, 0, []string{"== schemas/loose.json (HEAD -> now)", "check (backward): passed"}},
		{[]string{"schemas/order.json"}, 1, []string{"check (backward): FAILED", "HEAD (", `"base" (schemas/order.json): incompatible (backward)`, "customer.json:1:"}},
		{[]string{"schemas/customer.json", "schemas/loose.json"}, 1, []string{"== schemas/customer.json", "FAILED", "== schemas/loose.json"}},
		{[]string{"--direction", "forward", "schemas/loose.json"}, 1, []string{"check (forward): FAILED"}},
		{[]string{"schemas/new.json"}, 0, []string{"has no file schemas/new.json (new since then): nothing to compare"}},
		{[]string{"--base=HEAD", "--check", "schemas/loose.json"}, 0, []string{"passed"}},
		{[]string{"--base", "nope", "schemas/loose.json"}, 2, []string{`unknown revision "nope"`}},
		{[]string{"/etc/hostname"}, 2, []string{"not in a git repository"}},
		{[]string{"--mode", "forward-transitive", "schemas/loose.json"}, 1, []string{"check (forward-transitive): FAILED"}},
		{[]string{"--history", "schemas/loose.json"}, 0, []string{"against 1 earlier version(s), mode backward: compatible"}},
		{[]string{}, 2, []string{"usage: jstk-diff-base"}},
		{[]string{"--base"}, 2, []string{"--base needs a revision"}},
	} {
		code, out := call(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	t.Setenv("PRE_COMMIT_FROM_REF", "HEAD")
	if code, out := call("schemas/loose.json"); code != 0 || !strings.Contains(out, "(HEAD -> now)") {
		t.Errorf("PRE_COMMIT_FROM_REF: exit %d\n%s", code, out)
	}
}

// The old version's relative $ref reaches the old version of the file beside it: a.json did
// not change, but b.json, which it refers to, narrowed. Read against the new b.json, the old
// a.json would equal the new one and pass.
func TestOldReferencesReadOldFiles(t *testing.T) {
	repo(t, map[string]string{
		"a.json": `{"$ref": "b.json"}`,
		"b.json": `{"type": "integer", "maximum": 10}`,
	}, map[string]string{
		"b.json": `{"type": "integer", "maximum": 5}`,
	})
	if code, out := call("a.json"); code != 1 || !strings.Contains(out, "FAILED") {
		t.Errorf("exit %d, want 1 (the old a.json reads the old b.json):\n%s", code, out)
	}
}

// jstk.json's per-schema modes decide the check when the hook is given none.
func TestConfigModes(t *testing.T) {
	t.Setenv("PRE_COMMIT_FROM_REF", "")
	repo(t, map[string]string{
		"jstk.json":     `{"compatibility": {"events/*.json": "FORWARD_TRANSITIVE"}}`,
		"events/e.json": `{"type": "object", "required": ["id"]}`,
		"other/o.json":  `{"type": "object", "required": ["id"]}`,
	}, map[string]string{
		"events/e.json": `{"type": "object"}`,
		"other/o.json":  `{"type": "object"}`,
	})
	if code, out := call("events/e.json"); code != 1 || !strings.Contains(out, "check (forward-transitive): FAILED") {
		t.Errorf("events/e.json: exit %d, want 1 (forward-transitive from jstk.json)\n%s", code, out)
	}
	if code, out := call("other/o.json"); code != 0 || !strings.Contains(out, "check (backward): passed") {
		t.Errorf("other/o.json: exit %d, want 0 (no pattern: backward)\n%s", code, out)
	}
}
