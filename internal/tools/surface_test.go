package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// Errors name arguments as the calling surface does: MCP's JSON names by default, the
// command line's flags when Env.ArgName says so; the handler's code is the same.
func TestSurfaceNames(t *testing.T) {
	mcp := &Env{FS: workspace.Memory(nil)}
	cli := &Env{FS: workspace.Memory(nil), ArgName: func(n string) string { return "--" + strings.ToLower(n) }}
	for _, tt := range []struct{ got, want string }{
		{mcp.arg("failUnder"), "argument failUnder"},
		{mcp.args("offset", "limit"), "arguments offset and limit"},
		{mcp.args("a", "b", "c"), "arguments a, b and c"},
		{mcp.args("count"), "argument count"},
		{mcp.name("list"), "list"},
		{cli.arg("failUnder"), "--failunder"},
		{cli.args("offset", "limit"), "--offset and --limit"},
		{cli.name("list"), "--list"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	d, _ := Lookup("coverage")
	in := &CoverageInput{Schema: PathDoc("s.json"), Tests: []Doc{PathDoc("t.json")}, FailUnder: []string{"outcome=20"}}
	for env, want := range map[*Env]string{mcp: `argument failUnder: "outcome=20"`, cli: `--failunder: "outcome=20"`} {
		if _, err := d.Run(context.Background(), env, in); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v, want it to start with %q", err, want)
		}
	}
}
