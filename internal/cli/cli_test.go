package cli

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(line, "  ") && f[0] != "mcp" && f[0] != "tools" {
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
		{[]string{"validate", "--schema"}, "flag needs an argument"},
		{[]string{"validate", "x.json"}, "--schema is required"},
		{[]string{"validate", "--schema", "s.json"}, "give at least one INSTANCES argument"},
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
