package cli

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The CLI's subcommands and the MCP tools are generated from one table: both list the same
// names, and each subcommand's help is generated from its descriptor.
func TestCommandsAreTheTools(t *testing.T) {
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"--help"}, Streams{Stdout: &out, Stderr: &out}); code != ExitOK {
		t.Fatalf("jstk --help exits %d", code)
	}
	var commands []string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(line, "  ") && f[0] != "mcp" && f[0] != "tools" && f[0] != "fetch" && f[0] != "store" && f[0] != "lsp" {
			commands = append(commands, f[0])
		}
	}
	var served []string
	for _, tool := range tools.NewProvider(&tools.Env{FS: workspace.Memory(nil)}, tools.All()).Tools() {
		served = append(served, tool.Name)
	}
	sort.Strings(commands)
	sort.Strings(served)
	if diff := cmp.Diff(served, commands); diff != "" {
		t.Errorf("MCP tools (-) and CLI commands (+) differ:\n%s", diff)
	}
	for _, d := range tools.All() {
		var help bytes.Buffer
		if code := Main(context.Background(), []string{d.Name, "--help"}, Streams{Stdout: &help, Stderr: &help}); code != ExitOK {
			t.Errorf("jstk %s --help exits %d: %s", d.Name, code, help.String())
		}
		if !strings.HasPrefix(help.String(), "Usage: jstk "+d.Name+" ") {
			t.Errorf("jstk %s --help: %q", d.Name, help.String())
		}
		for _, alias := range d.Aliases {
			if got, ok := tools.LookupCommand(alias); !ok || got != d {
				t.Errorf("alias %s does not reach %s", alias, d.Name)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: jstk <command>"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"validate", "--schema"}, "jstk validate: --schema needs a value"},
		{[]string{"valdate"}, `unknown command "valdate"; did you mean 'jstk validate'?`},
		{[]string{"cataloge"}, `did you mean 'jstk catalog'?`},
		{[]string{"help", "lnit"}, `did you mean 'jstk lint'?`},
		{[]string{"zzzzzzzz"}, `unknown command "zzzzzzzz" (run`},
		{[]string{"validate", "--asert-format", "--schema", "s", "i"}, "unknown flag --asert-format; did you mean --assert-format?"},
		{[]string{"diff", "--chek", "a", "b"}, "unknown flag --chek; did you mean --check?"},
		{[]string{"infer", "--any-of", "x", "i.json"}, "unknown flag --any-of: it was renamed --alternatives"},
		{[]string{"lint", "--fail-on", "warn", "s"}, `--fail-on "warn": must be one of error, warning, info; did you mean warning?`},
		{[]string{"validate", "--format", "jsno", "--schema", "s", "i"}, `unknown --format "jsno": use text, json, sarif, github; did you mean json?`},
		{[]string{"bundle", "--format", "sarif", "s"}, "--format sarif reports findings, and bundle prints a document: use text, json, yaml"},
		{[]string{"validate", "--max-depth", "deep", "--schema", "s", "i"}, `--max-depth "deep": not a whole number`},
		{[]string{"coverage", "--schema", "s", "--fail-under", "outcome=20", "t"}, `jstk coverage: --fail-under: "outcome=20": expected KIND=PERCENT`},
		{[]string{"sample", "--required-only", "--all-optional", "s"}, "jstk sample: --required-only and --all-optional exclude each other"},
		{[]string{"list_schemas", "--limit", "-1"}, "jstk list_schemas: --offset and --limit must not be negative"},
		{[]string{"mcp", "--roo", "."}, "unknown flag --roo; did you mean --root?"},
		{[]string{"mcp", "--expose", "valdate"}, `unknown tool "valdate"; did you mean validate?`},
		{[]string{"tools", "call", "lnit"}, `unknown tool "lnit"; did you mean lint?`},
		{[]string{"--schema", "s", "validate"}, "--schema before a command: give the command first"},
		{[]string{"validate", "x.json"}, "x.json: no such file or directory"}, // no schema: the file's own is looked for
		{[]string{"validate", "--schema", "s.json"}, "INSTANCES: give at least one instance"},
		{[]string{"schema_context", "a", "b"}, "expected one ID argument, got 2"},
		{[]string{"mcp", "--expose", "nope"}, `unknown tool "nope"`},
		{[]string{"mcp", "extra"}, `unexpected argument "extra"`},
		{[]string{"mcp", "--page-size", "0"}, "--page-size 0: must be between 1 and 1000"},
		{[]string{"validate", "--max-size", "lots", "--schema", "s", "i"}, `invalid size "lots"`},
		{[]string{"validate", "--max-size", "0", "--schema", "s", "i"}, `invalid size "0"`},
		{[]string{"validate", "--max-size", "99999999999GiB", "--schema", "s", "i"}, `invalid size "99999999999GiB"`},
		{[]string{"validate", "--resolve", "nope", "--schema", "s", "i"}, "expected URI=PATH"},
	} {
		var out bytes.Buffer
		code := Main(context.Background(), tc.args, Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out})
		if code != ExitError || !strings.Contains(out.String(), tc.want) {
			t.Errorf("jstk %v: exit %d, output %q, want 2 and %q", tc.args, code, out.String(), tc.want)
		}
	}
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"--version"}, Streams{Stdout: &out}); code != ExitOK || !strings.HasPrefix(out.String(), "jstk ") {
		t.Errorf("--version: %d %q", code, out.String())
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 1, "512B": 512, "10K": 10 << 10, "10KiB": 10 << 10, "10kib": 10 << 10, "500KB": 500000,
		"500 kb": 500000, "2M": 2 << 20, "2MiB": 2 << 20, "2MB": 2000000, "1G": 1 << 30, "1GiB": 1 << 30, "1GB": 1e9,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "0K", "K", "1.5M", "1TB", "lots"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestHelpSpeaksCLI: a command's help names its arguments as the command line does
// (--assert-format, not assertFormat; the JSON names of MCP are for MCP), says what its
// exit codes mean, and jstk mcp's help lists its flags in the same style.
func TestHelpSpeaksCLI(t *testing.T) {
	for _, d := range tools.All() {
		cmd, err := newCommand(d)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		cmd.help(&b)
		help := b.String()
		for i := 0; i < d.Input.NumField(); i++ {
			name, _, _ := strings.Cut(d.Input.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" || name == kebab(name) {
				continue
			}
			if regexp.MustCompile(`(^|[^\w.-])` + name + `\b`).MatchString(help) {
				t.Errorf("jstk %s --help names the argument %s as MCP does, not as %s", d.Name, name, cmd.argName(name))
			}
		}
		if strings.Contains(help, "`") {
			t.Errorf("jstk %s --help keeps a backquote", d.Name)
		}
		// The person's words, not the model's: the description's first sentence (its
		// "Answers: ...") is for MCP only.
		if first, _, _ := strings.Cut(d.Description, "? "); strings.Contains(help, first) || strings.Contains(help, "Use it") {
			t.Errorf("jstk %s --help shows the description written for a model:\n%s", d.Name, help)
		}
		if len(d.ExitCodes) == 0 || !strings.Contains(help, "Exit codes:\n  0  ") {
			t.Errorf("jstk %s --help does not say what its exit codes mean", d.Name)
		}
	}
	var b bytes.Buffer
	if code := Main(context.Background(), []string{"mcp", "--help"}, Streams{Stdout: &b, Stderr: &b}); code != ExitOK {
		t.Fatalf("jstk mcp --help: exit %d", code)
	}
	for _, want := range []string{"\n  --root DIR\n      the workspace", "\n  --max-calls N\n", "(default: one per CPU core)", "\nExit codes:\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("jstk mcp --help lacks %q:\n%s", want, b.String())
		}
	}
	if regexp.MustCompile(`(?m)^  -[a-z]{2,}`).MatchString(b.String()) || strings.Contains(b.String(), "(default 2)") {
		t.Errorf("jstk mcp --help in Go's flag style, or with this machine's CPU count:\n%s", b.String())
	}
}

func TestSpeak(t *testing.T) {
	d, _ := tools.Lookup("coverage")
	cmd, err := newCommand(d)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"unless assertFormat is set":         "unless --assert-format is set",
		"set `failUnder` or `all`; `schema`": "set --fail-under or --all; --schema",
		"lint.failOn and x.assertFormat":     "lint.failOn and x.assertFormat",
		"`tests` and `nope`":                 "TESTS and `nope`",
		"a schema and its `pointer`":         "a schema and its FILE#/pointer",
		"backwardExample":                    "backwardExample",
	} {
		if got := cmd.speak(in); got != want {
			t.Errorf("speak(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"validate", "lint", "list_schemas", "catalog", "context", "schema_context", "diff", "test"}
	for in, want := range map[string]string{
		"valdate": "validate", "vaildate": "validate", "VALIDATE": "validate", "lnit": "lint", "list": "list_schemas",
		"catalogue": "catalog", "contxt": "context", "dif": "diff", "tset": "test", "xyz": "", "v": "", "schemas": "list_schemas",
	} {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

// panicker is an MCP tool provider whose one tool panics, on its own goroutine or, carried
// by a panics.Catcher, from a worker.
type panicker struct{ worker bool }

func (panicker) Tools() []mcp.Tool { return nil }

func (p panicker) Call(context.Context, *mcp.CallRequest) *mcp.CallResult {
	if !p.worker {
		panic("boom")
	}
	var catch panics.Catcher
	done := make(chan struct{})
	go func() { defer close(done); catch.Do(workerPanics) }()
	<-done
	catch.Repanic()
	return nil
}

func workerPanics() { panic("worker boom") }

// A panic on the CLI's ways in is a clear error with its stack, exit 2: `jstk tools call`
// still answers isError as MCP does; a command says it on stderr.
func TestPanicIsAnInternalError(t *testing.T) {
	for _, worker := range []bool{false, true} {
		var stderr bytes.Buffer
		st := Streams{Stdout: io.Discard, Stderr: &stderr}
		res := callTool(context.Background(), panicker{worker}, &mcp.CallRequest{Name: "validate"}, st)
		want := `internal error: tool "validate" panicked: boom`
		inStack := "cli.panicker.Call"
		if worker {
			want = `internal error: tool "validate" panicked: worker boom`
			inStack = "cli.workerPanics"
		}
		if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
			t.Errorf("worker %v: result %+v, want isError %q", worker, res, want)
		}
		if got := stderr.String(); !strings.HasPrefix(got, "jstk tools call: internal error: ") || !strings.Contains(got, "this is a bug in jstk") || !strings.Contains(got, inStack) {
			t.Errorf("worker %v: stderr does not say the panic with its stack:\n%s", worker, got)
		}
	}
	var stderr bytes.Buffer
	code := internalError(Streams{Stderr: &stderr}, commandOf([]string{"validate", "--schema", "s.json"}), "boom", []byte("goroutine 1 [running]:\n"))
	if want := "jstk validate: internal error: boom\njstk validate: this is a bug in jstk; please report it with the stack below (https://github.com/jstk-dev/jstk/issues)\ngoroutine 1 [running]:\n"; code != ExitError || stderr.String() != want {
		t.Errorf("internalError: exit %d, stderr\n%s\nwant exit 2 and\n%s", code, stderr.String(), want)
	}
	for args, want := range map[string]string{"": "", "validate x": "validate", "tools call lint": "tools call", "tools --help": "tools", "mcp --root x": "mcp"} {
		if got := commandOf(strings.Fields(args)); got != want {
			t.Errorf("commandOf(%q) = %q, want %q", args, got, want)
		}
	}
}
