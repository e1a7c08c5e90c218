package tools_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/cli"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/tools"
)

// A throwaway tool, as a new tool's file and engine would be: its input type, its report
// (which pages, as diag.Pager says), its handler and its descriptor. Nothing else of the
// module knows it.

type wordsInput struct {
	Words  []string `json:"words" desc:"The words to measure."`
	Min    int      `json:"min,omitempty" min:"0" desc:"The fewest letters a word may have: a shorter word is a finding."`
	Offset int      `json:"offset,omitempty" min:"0" desc:"Skip this many words of the list (for paging through long results)."`
	Limit  int      `json:"limit,omitempty" min:"0" default:"100" desc:"List at most this many words (0: the default of the surface; the CLI lists all)."`
}

type word struct {
	Word    string `json:"word"`
	Letters int    `json:"letters"`
	Short   bool   `json:"short"`
}

type wordsReport struct {
	Words []word     `json:"words"`
	Short int        `json:"short"`
	Page  *diag.Page `json:"page,omitempty"`
}

func (r *wordsReport) WriteText(w io.Writer) error {
	p := &diag.Printer{W: w}
	for _, x := range r.Words {
		p.Printf("%s: %s\n", x.Word, diag.Plural(x.Letters, "letter", "letters"))
	}
	p.Printf("%s too short\n", diag.Plural(r.Short, "word is", "words are"))
	return p.Err
}

func (r *wordsReport) Diagnostics() []diag.Diagnostic {
	var ds []diag.Diagnostic
	for _, x := range r.Words {
		if x.Short {
			ds = append(ds, diag.Diagnostic{Code: "words/short", Severity: diag.Warning, Message: x.Word + " is too short"})
		}
	}
	return ds
}

func (r *wordsReport) ExitCode() int {
	if r.Short > 0 {
		return 1
	}
	return 0
}

func (r *wordsReport) PageItems() (int, string, string) { return len(r.Words), "word", "words" }

func (r *wordsReport) PageRecord() *diag.Page { return r.Page }

func (r *wordsReport) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Words, c.Page = diag.Keep(r.Words, k, limit, r.Page)
	return &c
}

func runWords(ctx context.Context, env *tools.Env, in *wordsInput) (*wordsReport, error) {
	if len(in.Words) == 0 {
		return nil, fmt.Errorf("give at least one word")
	}
	r := &wordsReport{}
	for _, w := range in.Words {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := word{Word: w, Letters: len([]rune(w)), Short: len([]rune(w)) < in.Min}
		if x.Short {
			r.Short++
		}
		r.Words = append(r.Words, x)
	}
	if list, page := diag.Cut(r.Words, in.Offset, in.Limit); page != nil {
		r.Words, r.Page = list, page
	}
	return r, nil
}

var wordsTool = tools.Descriptor{
	Name:        "zz_words",
	Title:       "Measure words",
	Summary:     "count the letters of words",
	Usage:       "[--min N] [flags] WORD...",
	Description: "Answers: how many letters has each word, and which are shorter than `min`? A throwaway tool of a test, which proves that a tool is its file plus its engine.",
	Help:        "Counts the letters of each word; a word shorter than `min` is a finding.",
	ExitCodes: []tools.ExitCode{
		{Code: 0, Means: "no word is shorter than `min`"},
		{Code: 1, Means: "a word is shorter than `min`"},
		{Code: 2, Means: "could not run: no word, a usage error"},
	},
	Samples: []string{`{"words": ["a", "bb", "ccc"], "min": 2}`, `{"words": ["x"], "limit": 1, "offset": 0}`},
}

// TestANewToolIsItsFileAndItsEngine adds a tool to the table, as a new tool's file does and
// nothing more, and uses it as a person and an agent would: the command line with its flags,
// its help and exit codes, and its formats; the MCP server over stdio with tools/list and a
// call whose answer is paged to fit the result budget; the generated artefacts; and the
// checks every tool of the table passes. A tool that needed a line somewhere else (an exit
// code table, a paging switch, a sample list) would fail here.
func TestANewToolIsItsFileAndItsEngine(t *testing.T) {
	remove := tools.AddForTest(wordsTool, runWords)
	defer remove()
	d, ok := tools.Lookup("zz_words")
	if !ok {
		t.Fatal("the tool is not in the table")
	}
	tools.CheckTool(t, d)

	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errs bytes.Buffer
		code = cli.Main(context.Background(), args, cli.Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs})
		return code, out.String(), errs.String()
	}
	// The command line: flags from the input type, positional words, exit codes.
	if code, out, errs := run("zz_words", "--min", "2", "a", "bb"); code != 1 || out != "a: 1 letter\nbb: 2 letters\n1 word is too short\n" {
		t.Errorf("jstk zz_words --min 2 a bb: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := run("zz_words", "abc"); code != 0 || !strings.Contains(out, "abc: 3 letters") {
		t.Errorf("jstk zz_words abc: exit %d\n%s", code, out)
	}
	if code, out, _ := run("zz_words", "--format", "json", "--min", "3", "abc", "de"); code != 1 {
		t.Errorf("--format json: exit %d", code)
	} else {
		var r wordsReport
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Short != 1 || len(r.Words) != 2 {
			t.Errorf("--format json: %v\n%s", err, out)
		}
	}
	if code, out, _ := run("zz_words", "--format", "sarif", "--min", "3", "de"); code != 1 || !strings.Contains(out, "words/short") {
		t.Errorf("--format sarif: exit %d\n%s", code, out)
	}
	if code, _, errs := run("zz_words"); code != 2 || !strings.Contains(errs, "give at least one WORDS argument") {
		t.Errorf("jstk zz_words without words: exit %d\n%s", code, errs)
	}
	if code, _, errs := run("zz_words", "--nope", "a"); code != 2 || !strings.Contains(errs, "usage: jstk zz_words [--min N] [flags] WORD...") {
		t.Errorf("jstk zz_words --nope: exit %d\n%s", code, errs)
	}
	code, help, _ := run("zz_words", "--help")
	for _, want := range []string{"Usage: jstk zz_words [--min N] [flags] WORD...", "Count the letters of words.",
		"a word shorter than --min is a finding", "  --min N\n", "Exit codes:\n  0  no word is shorter than --min\n  1  a word is shorter than --min\n  2  could not run"} {
		if code != 0 || !strings.Contains(help, want) {
			t.Errorf("jstk zz_words --help: exit %d, does not say %q:\n%s", code, want, help)
		}
	}
	if _, list, _ := run("--help"); !strings.Contains(list, "zz_words") {
		t.Errorf("jstk --help does not list the tool:\n%s", list)
	}

	// The MCP server, in-process over stdio: listed, called, and paged to fit a small budget.
	many := make([]string, 400)
	for i := range many {
		many[i] = fmt.Sprintf("word-%03d", i)
	}
	args, _ := json.Marshal(map[string]any{"words": many, "limit": 400})
	lines := []string{
		`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}`,
		`{"jsonrpc": "2.0", "method": "notifications/initialized"}`,
		`{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": null}}`,
		`{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "zz_words", "arguments": {"words": ["a", "bb"], "min": 2}}}`,
		`{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "zz_words", "arguments": ` + string(args) + `}}`,
	}
	var out, errs bytes.Buffer
	code = cli.Main(context.Background(), []string{"mcp", "--isolate=false", "--root", t.TempDir(), "--page-size", "1000", "--max-result-bytes", "3000"},
		cli.Streams{Stdin: strings.NewReader(strings.Join(lines, "\n") + "\n"), Stdout: &out, Stderr: &errs})
	if code != 0 {
		t.Fatalf("jstk mcp: exit %d\n%s", code, errs.String())
	}
	answers := map[float64]map[string]any{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line of stdout is not JSON: %v\n%s", err, sc.Text())
		}
		if id, ok := m["id"].(float64); ok {
			answers[id] = m
		}
	}
	result := func(id float64) map[string]any {
		r, _ := answers[id]["result"].(map[string]any)
		if r == nil {
			t.Fatalf("no result for request %v: %v\nstderr:\n%s", id, answers[id], errs.String())
		}
		return r
	}
	listed := false
	for _, x := range result(2)["tools"].([]any) {
		if tool := x.(map[string]any); tool["name"] == "zz_words" {
			listed = true
			schema, _ := json.Marshal(tool["inputSchema"])
			if !strings.Contains(string(schema), `"words"`) || !strings.Contains(string(schema), `"required":["words"]`) {
				t.Errorf("tools/list: the input schema of zz_words: %s", schema)
			}
		}
	}
	if !listed {
		t.Error("tools/list does not list zz_words")
	}
	small := result(3)
	if small["isError"] == true || small["structuredContent"].(map[string]any)["short"] != 1.0 {
		t.Errorf("tools/call: %v", small)
	}
	paged := result(4)
	text := paged["content"].([]any)[0].(map[string]any)["text"].(string)
	page, _ := paged["structuredContent"].(map[string]any)["page"].(map[string]any)
	if page == nil || page["total"] != 400.0 || page["omitted"].(float64) == 0 || !strings.Contains(text, "words shown, to keep the answer under 3000 bytes; continue with offset") {
		t.Errorf("the long call was not paged to fit the budget: page %v\n%s", page, text)
	}

	// What is generated from the table names it: the reference of the commands, the MCP
	// tools' table, the VS Code tools.
	for _, kind := range []string{"reference", "mcp-tools", "vscode"} {
		data, err := cli.Artefact(kind)
		if err != nil || !bytes.Contains(data, []byte("zz_words")) {
			t.Errorf("the %s artefact does not name zz_words (%v)", kind, err)
		}
	}
}
