package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// everyFiles is a small workspace every tool can be called on.
var everyFiles = map[string]string{
	"order.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Order",
  "type": "object", "required": ["id", "items"],
  "properties": {"id": {"type": "string", "pattern": "^O-[0-9]{3}$"}, "items": {"type": "array", "minItems": 1,
    "items": {"$ref": "item.schema.json"}}, "note": {"type": "string"}}}`,
	"item.schema.json": `{"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}`,
	"orders.ndjson":    "{\"id\": \"O-001\", \"items\": [{\"sku\": \"a\", \"qty\": 2}]}\n{\"id\": \"x\", \"items\": []}\n",
	"order.tests.json": `{"target": "order.schema.json", "tests": [
  {"description": "good", "valid": true, "data": {"id": "O-002", "items": [{"sku": "b"}]}},
  {"description": "no items", "valid": false, "data": {"id": "O-003", "items": []}, "expect": {"keywordLocation": "/properties/items/minItems"}}]}`,
	"suite.json": `[{"description": "ints", "schema": {"type": "integer"}, "tests": [{"description": "one", "data": 1, "valid": true}]}]`,
}

// sampleFiles is the sample workspace the tools' Samples are calls on: the files of
// examples/ and of testdata/sample.
func sampleFiles(t testing.TB) map[string]string {
	t.Helper()
	files := map[string]string{}
	read := func(root string) {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && root == examplesDir {
					return filepath.SkipDir // a program (mcp-client), not a document
				}
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read(examplesDir)
	read(filepath.Join("testdata", "sample"))
	return files
}

// examplesDir holds the shipped examples.
var examplesDir = filepath.Join("..", "..", "examples")

// sampleCalls are the Samples of every tool of the table, by "tool i".
func sampleCalls(t testing.TB) map[string]string {
	calls := map[string]string{}
	for _, d := range All() {
		if len(d.Samples) == 0 {
			t.Errorf("tool %s has no Samples in its descriptor", d.Name)
		}
		for i, args := range d.Samples {
			calls[fmt.Sprintf("%s %d", d.Name, i)] = args
		}
	}
	return calls
}

func TestEveryToolThroughTheProvider(t *testing.T) {
	env := &Env{FS: workspace.Memory(sampleFiles(t)), Cache: NewSchemaCache(4)}
	p := NewProvider(env, All())
	for _, d := range All() {
		if len(d.Samples) == 0 {
			t.Errorf("tool %s has no Samples in its descriptor", d.Name)
		}
		checkExitCodes(t, d)
		for i, args := range d.Samples {
			t.Run(fmt.Sprintf("%s/%d", d.Name, i), func(t *testing.T) {
				checkSample(t, p, env, d, args)
			})
		}
	}
}

// checkExitCodes: a descriptor says what 0 and 2 mean, and 1 at most besides, in order.
func checkExitCodes(t *testing.T, d *Descriptor) {
	t.Helper()
	var codes []int
	for _, c := range d.ExitCodes {
		codes = append(codes, c.Code)
		if strings.TrimSpace(c.Means) == "" {
			t.Errorf("%s: exit code %d means nothing", d.Name, c.Code)
		}
	}
	if !slices.Equal(codes, []int{0, 2}) && !slices.Equal(codes, []int{0, 1, 2}) {
		t.Errorf("%s: exit codes %v, want 0, 2 and perhaps 1 between them", d.Name, codes)
	}
}

// checkSample calls a tool with one of its samples over MCP and through the CLI's path, and
// checks what every tool's answer must be.
func checkSample(t *testing.T, p *Provider, env *Env, d *Descriptor, args string) {
	t.Helper()
	res := call(t, p, d.Name, args)
	if res.IsError {
		t.Fatalf("isError: %+v", res.Content)
	}
	if len(res.Content) == 0 || strings.TrimSpace(res.Content[0].Text) == "" {
		t.Fatal("no text")
	}
	conforms(t, d, res.StructuredContent)
	// The same call through the CLI's path prints in every common format.
	in, err := p.decode(d, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	report, err := d.Run(context.Background(), env, in)
	if err != nil {
		t.Fatal(err)
	}
	if code := report.ExitCode(); !slices.ContainsFunc(d.ExitCodes, func(c ExitCode) bool { return c.Code == code }) {
		t.Errorf("exit code %d, which the descriptor's ExitCodes do not say", code)
	}
	for _, f := range []diag.Format{diag.Text, diag.JSON, diag.SARIF, diag.GitHub} {
		var buf bytes.Buffer
		if err := diag.Write(&buf, f, report, diag.Tool{Name: "jstk"}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if fm, ok := report.(Formatter); ok {
		for _, f := range d.Formats {
			var buf bytes.Buffer
			if err := fm.WriteFormat(&buf, string(f)); err != nil || buf.Len() == 0 {
				t.Errorf("--format %s: %v", f, err)
			}
		}
		// A format the tool does not print is refused with the list the registry
		// gives for it.
		offered := diag.Join(append(diag.Common(d.Document), d.Formats...), ", ")
		if err := fm.WriteFormat(io.Discard, "nope"); err == nil || !strings.Contains(err.Error(), `"nope" (`+offered+")") {
			t.Errorf("--format nope: %v, want an error naming %s", err, offered)
		}
	}
	if n, ok := report.(Noter); ok {
		_ = n.Notes()
	}
	if r, ok := report.(interface{ SARIFRules() []diag.Rule }); ok && len(r.SARIFRules()) == 0 {
		t.Error("empty SARIF rule table")
	}
	if _, paged := reflect.TypeOf(in).Elem().FieldByName("Limit"); paged && Streamable(in) {
		t.Error("a call paged by default over MCP is not streamable")
	}
}

func TestDocArguments(t *testing.T) {
	env := &Env{FS: workspace.Memory(everyFiles), Stdin: strings.NewReader(`{"type": "string"}`)}
	s, err := LoadSchema(env, PathDoc("-"), "schema", SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(mustParse(t, `"x"`)); !ok {
		t.Error("stdin schema")
	}
	if _, err := LoadSchema(&Env{FS: env.FS}, PathDoc("-"), "schema", SchemaOptions{}); err == nil {
		t.Error("stdin without a reader must be refused")
	}
	big := &Env{FS: env.FS, Stdin: strings.NewReader(strings.Repeat(" ", 100)), Limits: nil}
	big.Limits = nil
	if b, _ := (jsonValue{}).MarshalJSON(); string(b) != "null" {
		t.Errorf("empty value marshals as %s", b)
	}
	if b, _ := (jsonValue("[1]")).MarshalJSON(); string(b) != "[1]" {
		t.Errorf("value marshals as %s", b)
	}
	_ = big
}

func mustParse(t *testing.T, text string) source.Value {
	t.Helper()
	d, err := source.ParseJSON("v.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Root
}

// The MCP server runs tools/call concurrently on one provider, one schema cache and one
// workspace: every tool's sample call, and calls on schemas of each draft, run at once
// give what they give alone (go test -race checks the sharing).
func TestEveryToolConcurrently(t *testing.T) {
	files := sampleFiles(t)
	drafts := map[string]string{"d4": "http://json-schema.org/draft-04/schema#", "d6": "http://json-schema.org/draft-06/schema#",
		"d7": "http://json-schema.org/draft-07/schema#", "d2019": "https://json-schema.org/draft/2019-09/schema"}
	calls := sampleCalls(t)
	for name, uri := range drafts {
		files[name+".json"] = `{"$schema": "` + uri + `", "type": "object", "properties": {"n": {"type": "integer", "maximum": 3}, "m": {"items": {"items": {"type": ["string", "null"]}}}}}`
		calls["validate "+name] = `{"schema": {"path": "` + name + `.json"}, "instances": [{"value": {"n": 2}}, {"value": {"n": 4}}]}`
		calls["diff "+name] = `{"old": {"path": "` + name + `.json"}, "new": {"path": "order.schema.json"}}`
	}
	// The diff's search is bounded by time (a second per direction by default): on a busy
	// machine the calls run side by side may find fewer examples than one alone. Given
	// minutes, each stops at what it finds, as it does alone: the answers must match.
	for c, args := range calls {
		if strings.HasPrefix(c, "diff") {
			calls[c] = strings.TrimSuffix(args, "}") + `, "searchBudget": 600000}`
		}
	}
	tool := func(call string) string { name, _, _ := strings.Cut(call, " "); return name }
	want := map[string]string{}
	{
		env := &Env{FS: workspace.Memory(files), Cache: NewSchemaCache(4)}
		p := NewProvider(env, All())
		for c, args := range calls {
			want[c] = resultText(t, call(t, p, tool(c), args))
		}
	}
	env := &Env{FS: workspace.Memory(files), Cache: NewSchemaCache(4)}
	p := NewProvider(env, All())
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string][]string{}
	for round := 0; round < 3; round++ {
		for c, args := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := p.Call(context.Background(), &mcp.CallRequest{Name: tool(c), Arguments: json.RawMessage(args)})
				text := resultText(t, res)
				mu.Lock()
				got[c] = append(got[c], text)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for c, texts := range got {
		for _, text := range texts {
			if text != want[c] {
				t.Errorf("%s: concurrently\n%s\nalone\n%s", c, text, want[c])
				break
			}
		}
	}
}

// resultText is a call's content and structured content, as text to compare, without
// the clock's readings (the test tool's CTRF report has start, stop and durations).
func resultText(t *testing.T, res *mcp.CallResult) string {
	data, err := json.Marshal(struct {
		Content    any
		Structured any
		IsError    bool
	}{res.Content, res.StructuredContent, res.IsError})
	if err != nil {
		t.Error(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Error(err)
	}
	var drop func(any)
	drop = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range []string{"start", "stop", "duration"} {
				delete(x, k)
			}
			for _, y := range x {
				drop(y)
			}
		case []any:
			for _, y := range x {
				drop(y)
			}
		}
	}
	drop(v)
	data, _ = json.Marshal(v)
	return string(data)
}

// openLog is a workspace that records the files opened.
type openLog struct {
	workspace.FS
	mu     sync.Mutex
	opened []string
}

func (o *openLog) Open(name string) (io.ReadCloser, error) {
	o.mu.Lock()
	o.opened = append(o.opened, name)
	o.mu.Unlock()
	return o.FS.Open(name)
}

// TestNoHandlerReadsTheConfig: jstk.json is the surfaces' to read (or not: jstk tools call
// --no-config), and a tool sees only what Env.Config hands it. Every tool, called with no
// configuration on a workspace whose jstk.json is broken, runs without opening it; the lint
// tool applies the lint block of the configuration it is handed.
func TestNoHandlerReadsTheConfig(t *testing.T) {
	files := sampleFiles(t)
	files[ConfigFile] = `{"lint": 1, "unknown": true}`
	fsys := &openLog{FS: workspace.Memory(files)}
	p := NewProvider(&Env{FS: fsys}, All())
	for c, args := range sampleCalls(t) {
		name, _, _ := strings.Cut(c, " ")
		if res := call(t, p, name, args); res.IsError {
			t.Errorf("%s: isError: %+v", c, res.Content)
		}
	}
	for _, name := range fsys.opened {
		if path.Base(name) == ConfigFile {
			t.Errorf("a handler opened %s", name)
		}
	}

	lintWith := func(cfg *Config) *lintReport {
		t.Helper()
		env := &Env{FS: workspace.Memory(everyFiles), Config: cfg}
		r, err := runLint(context.Background(), env, &LintInput{Schemas: []Doc{PathDoc("item.schema.json")}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	has := func(r *lintReport, rule string) bool {
		return slices.ContainsFunc(r.Findings, func(f lint.Finding) bool { return f.Rule == rule })
	}
	if r := lintWith(nil); !has(r, "missing-dialect") || r.FailOn != "warning" {
		t.Errorf("no configuration: missing-dialect %v, failOn %q", has(r, "missing-dialect"), r.FailOn)
	}
	cfg := &Config{Lint: LintConfig{Rules: map[string]string{"missing-dialect": "off"}, FailOn: "info"}}
	if r := lintWith(cfg); has(r, "missing-dialect") || r.FailOn != "info" {
		t.Errorf("the lint block: missing-dialect %v, failOn %q", has(r, "missing-dialect"), r.FailOn)
	}
}
