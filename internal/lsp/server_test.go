package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readFrames splits the server's output into its messages.
func readFrames(t *testing.T, out []byte) []string {
	t.Helper()
	var msgs []string
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		body, err := readFrame(r, 1<<30)
		if err != nil {
			return msgs
		}
		msgs = append(msgs, string(body))
	}
}

// Serve frames messages, refuses one over the limit without losing the stream (a request
// gets an error, a document a diagnostic), and exits 1 at EOF.
func TestServeFraming(t *testing.T) {
	s := NewServer(Options{FS: workspace.Memory(nil), MaxDocumentSize: 10, Debounce: -1})
	big := strings.Repeat("x", 1<<20+100)
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) +
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/big.json","languageId":"json","version":1,"text":"`+big+`"}}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"x":"`+big+`"}}`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"nope"}`)
	var out bytes.Buffer
	if code := s.Serve(strings.NewReader(in), &out); code != 1 {
		t.Errorf("Serve at EOF without shutdown returned %d, want 1", code)
	}
	msgs := readFrames(t, out.Bytes())
	want := []string{`"id":1,"result"`, `"textDocument/publishDiagnostics","params":{"uri":"file:///ws/big.json"`, `"id":2,"error":{"code":-32600`, `"id":3,"error":{"code":-32601`}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(msgs), len(want), strings.Join(msgs, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(msgs[i], w) {
			t.Errorf("message %d: %.300s\nwant it to contain %s", i, msgs[i], w)
		}
	}
	if !strings.Contains(msgs[1], "over jstk's limit of 10 bytes") {
		t.Errorf("the refused document's diagnostic: %.300s", msgs[1])
	}

	// A broken header ends the session (the stream cannot be trusted), as does exit.
	for _, tc := range []struct {
		in   string
		code int
	}{
		{"Content-Length: x\r\n\r\n{}", 1},
		{"Nonsense\r\n\r\n", 1},
		{"X-Other: 1\r\n\r\n{}", 1},
		{"Content-Length: 10\r\n\r\n{}", 1},
		{"Content-Length: 5", 1},
		{frame(`{"jsonrpc":"2.0","method":"exit"}`), 1},
		{frame(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`) + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`), 0},
	} {
		var out bytes.Buffer
		if code := NewServer(Options{}).Serve(strings.NewReader(tc.in), &out); code != tc.code {
			t.Errorf("%q: exit code %d, want %d", tc.in, code, tc.code)
		}
	}
}

func TestPeekRefused(t *testing.T) {
	id, method, uri := peekRefused([]byte(`{"jsonrpc":"2.0", "id" : 7,"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.json","text":"xxxxx`))
	if string(id) != "7" || method != "textDocument/didOpen" || uri != "file:///a.json" {
		t.Errorf("got %s %q %q", id, method, uri)
	}
	if id, method, uri := peekRefused([]byte(`{"id"`)); id != nil || method != "" || uri != "" {
		t.Errorf("a cut head: got %s %q %q", id, method, uri)
	}
}

// A burst of edits makes one run of diagnostics, for the last version.
func TestDebounce(t *testing.T) {
	ss := newSession(t, workspace.Memory(map[string]string{"s.json": `{"type": "object", "maxProperties": 1}`}), nil)
	ss.srv.opts.Debounce = 50 * time.Millisecond
	ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`)
	ss.srv.handle([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/a.json","languageId":"json","version":1,"text":"{\"$schema\": \"s.json\"}"}}}`))
	for v := 2; v <= 6; v++ {
		ss.srv.handle([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///ws/a.json","version":%d},"contentChanges":[{"range":{"start":{"line":0,"character":20},"end":{"line":0,"character":20}},"text":", \"k%d\": 1"}]}}`, v, v)))
	}
	out := ss.do()
	if len(out) != 1 || !strings.Contains(string(out[0]), `"version":6`) || !strings.Contains(string(out[0]), "maxProperties") {
		t.Errorf("a burst of 6 versions: got %d messages, want one publish of version 6:\n%s", len(out), out)
	}
	ss.srv.close()
}

// workspace/didChangeWatchedFiles re-reads jstk.json and the schemas on disk.
func TestWatchedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s.json", `{"required": ["id"]}`)
	ss := newSession(t, workspace.OS(), nil)
	root := "file://" + filepath.ToSlash(dir)
	ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"workspaceFolders":[{"uri":"` + root + `"}]}}`)
	count := func(out [][]byte) int {
		var m struct {
			Params publishDiagnosticsParams `json:"params"`
		}
		if len(out) != 1 || json.Unmarshal(out[0], &m) != nil {
			t.Fatalf("want one publish: %s", out)
		}
		return len(m.Params.Diagnostics)
	}
	if n := count(ss.do(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + root + `/a.json","languageId":"json","version":1,"text":"{}"}}}`)); n != 0 {
		t.Errorf("no jstk.json: %d diagnostics, want 0", n)
	}
	write("jstk.json", `{"schemas": {"s.json": "*.json"}}`)
	if n := count(ss.do(`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"` + root + `/jstk.json","type":1}]}}`)); n != 1 {
		t.Errorf("jstk.json maps s.json: %d diagnostics, want 1", n)
	}
	write("s.json", `{"required": []}`)
	if n := count(ss.do(`{"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"` + root + `/s.json","type":2}]}}`)); n != 0 {
		t.Errorf("s.json requires nothing now: %d diagnostics, want 0", n)
	}
	// Closing clears the document's diagnostics.
	if n := count(ss.do(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"` + root + `/a.json"}}}`)); n != 0 {
		t.Errorf("closed: %d diagnostics, want 0", n)
	}
	ss.srv.close()
}

// Positions are UTF-16 code units; lines end at LF, CR LF or a lone CR.
func TestTextPositions(t *testing.T) {
	tx := newText("a😀b\r\nc\rd\né")
	for _, tc := range []struct {
		p   Position
		off int
		ok  bool
	}{
		{Position{0, 0}, 0, true}, {Position{0, 1}, 1, true}, {Position{0, 3}, 5, true}, {Position{0, 4}, 6, true},
		{Position{0, 9}, 6, false}, {Position{1, 0}, 8, true}, {Position{2, 1}, 11, true}, {Position{3, 1}, 14, true},
		{Position{9, 0}, 14, false}, {Position{-1, 0}, 0, false},
	} {
		off, ok := tx.offset(tc.p)
		if off != tc.off || ok != tc.ok {
			t.Errorf("offset(%v) = %d, %v; want %d, %v", tc.p, off, ok, tc.off, tc.ok)
		}
		if tc.ok && tx.position(off) != tc.p {
			t.Errorf("position(%d) = %v, want %v", off, tx.position(off), tc.p)
		}
	}
	if got := tx.fromLineCol(1, 3); got != 5 {
		t.Errorf("fromLineCol(1, 3) = %d, want 5 (after the emoji)", got)
	}
	if got := tx.fromLineCol(9, 1); got != len(tx.s) {
		t.Errorf("fromLineCol past the end = %d", got)
	}
}

func TestTokenEnd(t *testing.T) {
	for _, tc := range []struct {
		src  string
		off  int
		want string
	}{
		{`"a\"b", 1`, 0, `"a\"b"`}, {`'it''s' x`, 0, `'it''s'`}, {`[1, "]", {"a": [2]}] x`, 0, `[1, "]", {"a": [2]}]`},
		{`{a: 'x]', b: it's}`, 0, `{a: 'x]', b: it's}`}, {"key: value # c\n", 0, "key"}, {"key: value # c\n", 5, "value"},
		{"a = 1\n", 0, "a"}, {`"open`, 0, `"open`}, {"", 0, ""}, {"[[", 0, "[["},
	} {
		if got := tc.src[tc.off:tokenEnd([]byte(tc.src), tc.off)]; got != tc.want {
			t.Errorf("tokenEnd(%q, %d) = %q, want %q", tc.src, tc.off, got, tc.want)
		}
	}
}

// Code actions carry lint's safe fixes and did-you-mean renames (YAML too), through the
// diagnostics' data.
func TestCodeActions(t *testing.T) {
	ss := newSession(t, workspace.Memory(map[string]string{
		"s.json": `{"properties": {"name": {"type": "string"}, "kind": {"enum": ["cat", "dog"]}}, "additionalProperties": false}`,
	}), nil)
	ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`)
	for _, tc := range []struct {
		uri, lang, text string
		want            []string
	}{
		{"file:///ws/b.yaml", "yaml", "# yaml-language-server: $schema=s.json\nnmae: x\nkind: 'dgo'\n", []string{`"newText":"name"`, `"newText":"'dog'"`}},
		{"file:///ws/f.json", "json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "required": ["a", "a"]}`, []string{`"title":"Fix: remove the repeated value"`}},
		{"file:///ws/k.json", "json", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "objct", "propertys": {}}`, []string{`"newText":"\"object\""`, `"newText":"\"properties\""`}},
	} {
		open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": tc.uri, "languageId": tc.lang, "version": 1, "text": tc.text}}})
		out := ss.do(string(open))
		var pub struct {
			Params publishDiagnosticsParams `json:"params"`
		}
		if len(out) != 1 || json.Unmarshal(out[0], &pub) != nil {
			t.Fatalf("%s: %s", tc.uri, out)
		}
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": map[string]any{
			"textDocument": map[string]any{"uri": tc.uri}, "context": map[string]any{"diagnostics": pub.Params.Diagnostics}}})
		got := string(bytes.Join(ss.do(string(req)), nil))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the code actions %s\nlack %s", tc.uri, got, w)
			}
		}
	}
	ss.srv.close()
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		word string
		want string
	}{{"nmae", "name"}, {"kidn", "kind"}, {"zzzz", ""}, {"Name", "name"}, {strings.Repeat("x", 70), ""}} {
		if got := closest(tc.word, []string{"name", "kind"}); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// With NoConfig, jstk.json is not read: its schemas map associates nothing.
func TestNoConfig(t *testing.T) {
	ss := newSession(t, workspace.Memory(map[string]string{"s.json": `{"required": ["id"]}`, "jstk.json": `{"schemas": {"s.json": "*.json"}}`}), nil)
	ss.srv.opts.NoConfig = true
	ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`)
	out := ss.do(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/a.json","languageId":"json","version":1,"text":"{}"}}}`)
	if len(out) != 1 || !strings.Contains(string(out[0]), `"diagnostics":[]`) {
		t.Errorf("NoConfig: %s", out)
	}
	ss.srv.close()
}

// A $ref to a remote URL is answered from jstk fetch's cache as jstk.lock pins it, as the
// CLI answers it; a workspace opened with NoConfig reads no jstk.lock.
func TestLockedRemote(t *testing.T) {
	remote := []byte(`{"required": ["id"]}`)
	sum := lockfile.Sum(remote)
	cache := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(lockfile.CachePath(cache, sum)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockfile.CachePath(cache, sum), remote, 0o644); err != nil {
		t.Fatal(err)
	}
	lock := fmt.Sprintf(`{"version": 1, "schemas": [{"url": "https://schemas.example/id.json", "sha256": %q, "size": %d, "fetched": "2026-12-03T00:00:00Z"}]}`, sum, len(remote))
	files := map[string]string{
		"s.json":    `{"$ref": "https://schemas.example/id.json"}`,
		"jstk.json": `{"schemas": {"s.json": "*.json"}}`,
		"jstk.lock": lock,
	}
	for _, tc := range []struct {
		noConfig bool
		want     string
	}{{false, `"code":"required"`}, {true, `"diagnostics":[]`}} {
		ss := newSession(t, workspace.Memory(files), nil)
		ss.srv.opts.LockCache, ss.srv.opts.NoConfig = cache, tc.noConfig
		ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`)
		out := ss.do(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/a.json","languageId":"json","version":1,"text":"{}"}}}`)
		if len(out) != 1 || !strings.Contains(string(out[0]), tc.want) {
			t.Errorf("NoConfig %v: got %s, want %s", tc.noConfig, out, tc.want)
		}
		ss.srv.close()
	}
}
