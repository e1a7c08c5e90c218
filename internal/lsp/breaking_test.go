package lsp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// A schema edit that breaks compatibility with the committed version is a diagnostic
// where it is typed, with the instance that proves it; information by default, warning or
// off as jstk.json says, off in an untrusted workspace.
func TestBreakingChangesAgainstHead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	old := "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"title\": \"Order\",\n  \"description\": \"An order.\",\n  \"type\": \"object\",\n  \"properties\": {\"id\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\"}}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "order.schema.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	run("add", ".")
	run("commit", "-q", "-m", "one")
	edited := strings.Replace(old, `"type": "object",`, `"type": "object", "required": ["id"],`, 1)
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "order.schema.json"))
	diags := func(config string, noConfig bool, text string) []Diagnostic {
		if config != "" {
			if err := os.WriteFile(filepath.Join(dir, "jstk.json"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ss := newSession(t, workspace.OS(), nil)
		ss.srv.opts.NoConfig = noConfig
		defer ss.srv.close()
		ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://` + filepath.ToSlash(dir) + `"}}`)
		open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": uri, "languageId": "json", "version": 1, "text": text}}})
		out := ss.do(string(open))
		var pub struct {
			Params publishDiagnosticsParams `json:"params"`
		}
		if len(out) != 1 || json.Unmarshal(out[0], &pub) != nil {
			t.Fatalf("%s", out)
		}
		return pub.Params.Diagnostics
	}
	if d := diags("", false, old); len(d) != 0 {
		t.Errorf("the committed version: %v", d)
	}
	d := diags("", false, edited)
	if len(d) != 1 || d[0].Severity != SeverityInformation || !strings.HasPrefix(d[0].Code, "breaking/") ||
		!strings.Contains(d[0].Message, "breaks compatibility with the version at HEAD") || !strings.Contains(d[0].Message, "example") {
		t.Fatalf("a newly required property: %+v", d)
	}
	if d[0].Range.Start.Line != 4 {
		t.Errorf("the diagnostic is on line %d, want 4 (where required is typed): %+v", d[0].Range.Start.Line, d[0])
	}
	t.Logf("%s: %s", d[0].Code, d[0].Message)
	if d := diags(`{"lsp": {"breakingChanges": "warning"}}`, false, edited); len(d) != 1 || d[0].Severity != SeverityWarning {
		t.Errorf("breakingChanges warning: %+v", d)
	}
	if d := diags(`{"lsp": {"breakingChanges": "off"}}`, false, edited); len(d) != 0 {
		t.Errorf("breakingChanges off: %+v", d)
	}
	if err := os.Remove(filepath.Join(dir, "jstk.json")); err != nil {
		t.Fatal(err)
	}
	if d := diags("", true, edited); len(d) != 0 {
		t.Errorf("an untrusted workspace: %+v", d)
	}
}
