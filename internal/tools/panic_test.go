package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// A handler's panic, behind the real provider and the real server, is recovered once, by the
// protocol core: answered isError with the run id, audited as outcome "panic" with the run
// id and the stack of the goroutine that panicked (on the log too), and the server serves
// the next call. diff compiles OLD on the handler's goroutine and NEW on a worker of its
// own, whose panic a panics.Catcher carries back: both are tried.
func TestPanicBehindTheProviderIsAuditedOnce(t *testing.T) {
	// not parallel: it replaces compileArg
	defer func() { compileArg = (*SchemaArg).Compile }()
	for _, side := range []string{"old", "new"} {
		t.Run(side, func(t *testing.T) {
			compileArg = func(a *SchemaArg, env *Env, o SchemaOptions) (*schema.Schema, error) {
				if a.Arg == side {
					panic("boom in " + side)
				}
				return a.Compile(env, o)
			}
			var audit bytes.Buffer
			var mu sync.Mutex
			var logged []string
			n := 0
			srv := mcp.NewServer(NewProvider(&Env{FS: workspace.Memory(map[string]string{"a.json": `{}`})}, All()), &mcp.Options{
				Audit:    &audit,
				NewRunID: func() string { n++; return fmt.Sprintf("run-%d", n) },
				Logf: func(format string, args ...any) {
					mu.Lock()
					defer mu.Unlock()
					logged = append(logged, fmt.Sprintf(format, args...))
				},
			})
			var out [][]byte
			send := func(b []byte) { mu.Lock(); defer mu.Unlock(); out = append(out, bytes.Clone(b)) }
			ctx := context.Background()
			srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), send)
			srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), send)
			callLine := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"diff","arguments":{"old":{"path":"a.json"},"new":{"path":"a.json"}}}}`
			srv.Handle(ctx, fmt.Appendf(nil, callLine, 1), send)
			srv.Wait()
			compileArg = (*SchemaArg).Compile
			srv.Handle(ctx, fmt.Appendf(nil, callLine, 2), send)
			srv.Wait()

			type answer struct {
				Result struct {
					Content []struct{ Text string }
					IsError bool
					Meta    map[string]any `json:"_meta"`
				}
			}
			var answers []answer
			for _, b := range out[1:] { // out[0] answers initialize
				var a answer
				if err := json.Unmarshal(b, &a); err != nil {
					t.Fatal(err)
				}
				answers = append(answers, a)
			}
			if len(answers) != 2 {
				t.Fatalf("%d answers to two calls: %s", len(answers), out)
			}
			first := answers[0].Result
			if want := `internal error: tool "diff" panicked: boom in ` + side + ` (run run-1)`; !first.IsError || len(first.Content) != 1 || first.Content[0].Text != want || first.Meta["jstk/runId"] != "run-1" {
				t.Errorf("the panicking call was answered %+v, want isError %q", first, want)
			}
			if second := answers[1].Result; second.IsError {
				t.Errorf("the next call was not served: %+v", second)
			}

			type auditLine struct{ RunID, Tool, Outcome, Panic, Stack string }
			var lines []auditLine
			for _, l := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
				var a auditLine
				if err := json.Unmarshal([]byte(l), &a); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, a)
			}
			if len(lines) != 2 {
				t.Fatalf("%d audit lines for two calls:\n%s", len(lines), audit.String())
			}
			p := lines[0]
			if p.RunID != "run-1" || p.Tool != "diff" || p.Outcome != "panic" || p.Panic != "boom in "+side {
				t.Errorf("audit line of the panic: %+v", p)
			}
			// The stack is the panicking goroutine's: it names the replaced compileArg, and
			// for NEW the worker's Catcher.
			if !strings.Contains(p.Stack, "TestPanicBehindTheProviderIsAuditedOnce") || (side == "new") != strings.Contains(p.Stack, "(*Catcher).Do") {
				t.Errorf("the audited stack is not that of the panic on the %s side:\n%s", side, p.Stack)
			}
			if lines[1].RunID != "run-2" || lines[1].Outcome != "ok" || lines[1].Stack != "" {
				t.Errorf("audit line of the next call: %+v", lines[1])
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logged) != 1 || !strings.Contains(logged[0], `tool "diff" (run run-1) panicked: boom in `+side) || !strings.Contains(logged[0], p.Stack) {
				t.Errorf("the log does not hold the panic once with its run id and stack: %q", logged)
			}
		})
	}
}
