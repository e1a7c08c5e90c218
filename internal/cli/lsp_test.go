package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// lspClient talks to jstk lsp, run by Main over pipes, as an editor does.
type lspClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan int
	next int
}

func startLSP(t *testing.T, args ...string) *lspClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	c := &lspClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan int, 1)}
	go func() {
		code := Main(context.Background(), append([]string{"lsp"}, args...), Streams{Stdin: inR, Stdout: outW, Stderr: &stderr})
		outW.Close()
		c.done <- code
	}()
	return c
}

func (c *lspClient) send(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

func (c *lspClient) request(method string, params any) {
	c.next++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
}

func (c *lspClient) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// read reads one message of the server.
func (c *lspClient) read() map[string]any {
	c.t.Helper()
	n := -1
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading the server's header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.out, body); err != nil {
		c.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("%v: %s", err, body)
	}
	return m
}

// diagnostics waits for the diagnostics published for uri.
func (c *lspClient) diagnostics(uri string) []any {
	c.t.Helper()
	for {
		m := c.read()
		if m["method"] == "textDocument/publishDiagnostics" {
			p := m["params"].(map[string]any)
			if p["uri"] == uri {
				return p["diagnostics"].([]any)
			}
		}
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// A place is a message at a line and column (1-based, code points), as the CLI prints.
type place struct {
	Line, Column int
	Message      string
}

// fromLSP turns an LSP position (UTF-16) in text into a line and a column of code points.
func fromLSP(text string, line, char int) (int, int) {
	lines := strings.Split(text, "\n")
	l := lines[line]
	units, col := 0, 1
	for _, r := range l {
		if units >= char {
			break
		}
		units += len(utf16.Encode([]rune{r}))
		col++
	}
	return line + 1, col
}

// TestLSPSaysWhatTheCLISays opens files in jstk lsp and runs jstk validate and jstk lint on
// them: every diagnostic's message, line and column equals what the CLI prints.
func TestLSPSaysWhatTheCLISays(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2},
    "age": {"type": "integer", "minimum": 0},
    "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
    "nested": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
  },
  "required": ["name", "age"],
  "additionalProperties": false
}
`,
		"a.json":    "{\n  \"name\": \"é\",\n  \"age\": -1.5,\n  \"tags\": [\"a\", \"😀\", 3],\n  \"nested\": {\"x\": 1},\n  \"extra\": null\n}\n",
		"b.yaml":    "name: ok\nage: 3\n---\nname: x\ntags: [a, c]\nnested:\n  id: 7\n  more: true\n",
		"c.toml":    "name = \"日本\"\nage = \"no\"\n[nested]\nid = 1\n",
		"lint.json": "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"strin\",\n  \"required\": [\"a\", \"a\"],\n  \"minimum\": 3\n}\n",
		"jstk.json": `{"schemas": {"schema.json": ["*.json", "*.yaml", "*.toml", "!lint.json", "!schema.json", "!jstk.json"]}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startLSP(t, "--debounce", "0")
	c.request("initialize", map[string]any{"rootUri": fileURI(dir)})
	c.read()
	c.notify("initialized", map[string]any{})
	checked := 0
	for _, name := range []string{"a.json", "b.yaml", "c.toml", "lint.json"} {
		path := filepath.Join(dir, name)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fileURI(path), "languageId": strings.TrimPrefix(filepath.Ext(name), "."), "version": 1, "text": files[name]}})
		var got []place
		for _, d := range c.diagnostics(fileURI(path)) {
			d := d.(map[string]any)
			start := d["range"].(map[string]any)["start"].(map[string]any)
			l, col := fromLSP(files[name], int(start["line"].(float64)), int(start["character"].(float64)))
			got = append(got, place{l, col, d["message"].(string)})
		}
		var want []place
		var out, errOut bytes.Buffer
		if name == "lint.json" {
			Main(context.Background(), []string{"lint", "--format", "json", path}, Streams{Stdout: &out, Stderr: &errOut})
			var r struct{ Findings []place }
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v\n%s%s", name, err, out.String(), errOut.String())
			}
			want = r.Findings
		} else {
			Main(context.Background(), []string{"validate", "--format", "json", "--schema", filepath.Join(dir, "schema.json"), path}, Streams{Stdout: &out, Stderr: &errOut})
			var r struct{ Instances []struct{ Errors []place } }
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v\n%s%s", name, err, out.String(), errOut.String())
			}
			for _, in := range r.Instances {
				want = append(want, in.Errors...)
			}
		}
		sortPlaces(got)
		sortPlaces(want)
		if len(want) < 2 {
			t.Errorf("%s: the CLI reports %d findings; the test wants a file with several", name, len(want))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: jstk lsp says\n%v\njstk says\n%v", name, got, want)
		}
		checked += len(want)
	}
	t.Logf("%d diagnostics equal the CLI's", checked)
	c.request("shutdown", nil)
	c.read()
	c.notify("exit", nil)
	select {
	case code := <-c.done:
		if code != 0 {
			t.Errorf("exit after shutdown: code %d, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("jstk lsp did not exit")
	}
}

func sortPlaces(ps []place) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		if ps[i].Column != ps[j].Column {
			return ps[i].Column < ps[j].Column
		}
		return ps[i].Message < ps[j].Message
	})
}

// jstk lsp exits 1 when stdin closes without shutdown, and writes nothing but protocol on
// stdout.
func TestLSPExitsAtEOF(t *testing.T) {
	c := startLSP(t)
	c.request("initialize", map[string]any{})
	m := c.read()
	if m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	c.in.Close()
	select {
	case code := <-c.done:
		if code != 1 {
			t.Errorf("exit at EOF: code %d, want 1", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("jstk lsp did not exit at EOF")
	}
}

// applyEdits applies LSP text edits (UTF-16 positions; ranges that do not overlap) to text.
func applyEdits(t *testing.T, text string, edits []any) string {
	t.Helper()
	type edit struct {
		a, b int
		s    string
	}
	lines := strings.SplitAfter(text, "\n")
	off := func(p map[string]any) int {
		l, ch := int(p["line"].(float64)), int(p["character"].(float64))
		o := 0
		for i := 0; i < l; i++ {
			o += len(lines[i])
		}
		units := 0
		for i, r := range lines[l] {
			if units >= ch {
				return o + i
			}
			units += len(utf16.Encode([]rune{r}))
		}
		return o + len(lines[l])
	}
	var es []edit
	for _, e := range edits {
		e := e.(map[string]any)
		r := e["range"].(map[string]any)
		es = append(es, edit{off(r["start"].(map[string]any)), off(r["end"].(map[string]any)), e["newText"].(string)})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].a > es[j].a })
	for _, e := range es {
		text = text[:e.a] + e.s + text[e.b:]
	}
	return text
}

// The code actions: lint's safe fixes change the file exactly as jstk lint --fix does, and
// a misspelt member name or enum value gets the rename to what the schema knows.
func TestLSPCodeActions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"fixme.json": "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"title\": \"T\",\n  \"description\": \"D\",\n  \"type\": \"object\",\n  \"required\": [\"a\", \"a\"],\n  \"properties\": {\"a\": {\"type\": \"string\", \"allOf\": [{\"type\": \"string\"}, {\"type\": \"string\"}]}}\n}\n",
		"s.json":     `{"properties": {"name": {"type": "string"}, "kind": {"enum": ["cat", "dog"]}}, "additionalProperties": false}`,
		"a.json":     "{\"$schema\": \"s.json\", \"nmae\": \"x\", \"kind\": \"dgo\"}",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startLSP(t, "--debounce", "0")
	c.request("initialize", map[string]any{"rootUri": fileURI(dir)})
	c.read()
	actions := func(name string) []any {
		uri := fileURI(filepath.Join(dir, name))
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "json", "version": 1, "text": files[name]}})
		diags := c.diagnostics(uri)
		c.request("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 99, "character": 0}},
			"context": map[string]any{"diagnostics": diags}})
		for {
			m := c.read()
			if m["id"] != nil {
				return m["result"].([]any)
			}
		}
	}
	// Every fix applied, as --fix applies them all.
	var edits []any
	for _, a := range actions("fixme.json") {
		for _, es := range a.(map[string]any)["edit"].(map[string]any)["changes"].(map[string]any) {
			edits = append(edits, es.([]any)...)
		}
	}
	if len(edits) == 0 {
		t.Fatal("fixme.json: no code action; lint has safe fixes for it")
	}
	got := applyEdits(t, files["fixme.json"], edits)
	var out, errOut bytes.Buffer
	Main(context.Background(), []string{"lint", "--fix", filepath.Join(dir, "fixme.json")}, Streams{Stdout: &out, Stderr: &errOut})
	want, err := os.ReadFile(filepath.Join(dir, "fixme.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the code actions make\n%s\njstk lint --fix makes\n%s", got, want)
	}

	var titles []string
	for _, a := range actions("a.json") {
		a := a.(map[string]any)
		titles = append(titles, a["title"].(string))
		edits = a["edit"].(map[string]any)["changes"].(map[string]any)[fileURI(filepath.Join(dir, "a.json"))].([]any)
		files["a.json"] = applyEdits(t, files["a.json"], edits)
	}
	if fmt.Sprint(titles) != `[Did you mean "name"? Did you mean "dog"?]` || files["a.json"] != `{"$schema": "s.json", "name": "x", "kind": "dog"}` {
		t.Errorf("did-you-mean: %q makes %s", titles, files["a.json"])
	}
	c.in.Close()
	<-c.done
}

func TestLSPUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lsp", "--help"}, ExitOK, "Usage: jstk lsp"},
		{[]string{"lsp", "--debunce", "1s"}, ExitError, "unknown flag --debunce; did you mean --debounce?"},
		{[]string{"lsp", "extra"}, ExitError, `unexpected argument "extra"`},
	} {
		var out bytes.Buffer
		if code := Main(context.Background(), tc.args, Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}); code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, out.String(), tc.code, tc.want)
		}
	}
}
