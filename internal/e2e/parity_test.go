package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/jstk-dev/jstk/internal/tools"
)

// parityCases are calls made both ways: as MCP arguments and as the same CLI command line
// (run in the parity workspace, so paths read the same: it has no link out of it, which the
// CLI would follow and MCP refuse). The inputs are small enough that MCP's default limit does
// not page, or both sides pass the same limit.
var parityCases = []struct {
	name string
	tool string
	args map[string]any
	argv []string // after the command name
}{
	{"validate valid", "validate",
		map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("orders.ndjson"), pathDoc("order.yaml")}},
		[]string{"--schema", "order.schema.json", "orders.ndjson", "order.yaml"}},
	{"validate findings and an unreadable line", "validate",
		map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("orders.ndjson"), pathDoc("orders-with-errors.ndjson"), pathDoc("order.yaml")}},
		[]string{"--schema", "order.schema.json", "orders.ndjson", "orders-with-errors.ndjson", "order.yaml"}},
	{"validate a directory and a glob, invalid only, formats asserted", "validate",
		map[string]any{"schema": pathDoc("small.schema.json"), "instances": []any{pathDoc("sub"), pathDoc("small*.json")}, "invalidOnly": true, "assertFormat": true},
		[]string{"--schema", "small.schema.json", "--invalid-only", "--assert-format", "sub", "small*.json"}},
	{"validate a page", "validate",
		map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("orders.ndjson"), pathDoc("orders-with-errors.ndjson")}, "offset": 2, "limit": 3},
		[]string{"--schema", "order.schema.json", "--offset", "2", "--limit", "3", "orders.ndjson", "orders-with-errors.ndjson"}},
	{"validate a missing instance", "validate",
		map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("nope.json")}},
		[]string{"--schema", "order.schema.json", "nope.json"}},
	{"infer", "infer",
		map[string]any{"instances": []any{pathDoc("orders.ndjson"), pathDoc("order.yaml")}},
		[]string{"orders.ndjson", "order.yaml"}},
	{"infer closed with bounds", "infer",
		map[string]any{"instances": []any{pathDoc("orders.ndjson")}, "closed": true, "bounds": true, "draft": "7"},
		[]string{"--closed", "--bounds", "--draft", "7", "orders.ndjson"}},
	{"sample several", "sample",
		map[string]any{"schema": pathDoc("order.schema.json"), "count": 3, "seed": 7},
		[]string{"--count", "3", "--seed", "7", "order.schema.json"}},
	{"sample one", "sample",
		map[string]any{"schema": pathDoc("customer.schema.json"), "seed": 1},
		[]string{"--seed", "1", "customer.schema.json"}},
	{"sample invalid", "sample",
		map[string]any{"schema": pathDoc("order.schema.json"), "count": 2, "seed": 3, "invalid": true},
		[]string{"--count", "2", "--seed", "3", "--invalid", "order.schema.json"}},
	{"bundle", "bundle",
		map[string]any{"schema": pathDoc("order.schema.json")},
		[]string{"order.schema.json"}},
	{"diff", "diff",
		map[string]any{"old": pathDoc("customer.schema.json"), "new": pathDoc("order.schema.json"), "direction": "full"},
		[]string{"--direction", "full", "customer.schema.json", "order.schema.json"}},
	{"test", "test",
		map[string]any{"tests": []any{pathDoc("small.tests.json"), pathDoc("suite.tests.json")}},
		[]string{"small.tests.json", "suite.tests.json"}},
	{"coverage", "coverage",
		map[string]any{"schema": pathDoc("order.schema.json"), "tests": []any{pathDoc("orders.ndjson"), pathDoc("order.yaml")}},
		[]string{"--schema", "order.schema.json", "orders.ndjson", "order.yaml"}},
	{"list_schemas", "list_schemas",
		map[string]any{"query": "order"},
		[]string{"--query", "order"}},
	{"list_schemas of paths", "list_schemas",
		map[string]any{"paths": []any{"order.schema.json", "customer.schema.json", "sub"}},
		[]string{"order.schema.json", "customer.schema.json", "sub"}},
	{"schema_context", "schema_context",
		map[string]any{"id": "customer.schema.json", "limit": 2, "maxText": 100},
		[]string{"--limit", "2", "--max-text", "100", "customer.schema.json"}},
	{"lint", "lint",
		map[string]any{"schemas": []any{pathDoc("order.schema.json"), pathDoc("customer.schema.json"), pathDoc("small.schema.json")}},
		[]string{"order.schema.json", "customer.schema.json", "small.schema.json"}},
}

// ignoreClock leaves out of a comparison the members that hold wall-clock readings (the CTRF
// report of test has start and stop times and durations in milliseconds), which no two runs
// share.
var ignoreClock = cmpopts.IgnoreMapEntries(func(k string, v any) bool {
	_, isNumber := v.(float64)
	return isNumber && (k == "start" || k == "stop" || k == "duration")
})

// runCLI runs `jstk ARGS...` in the parity workspace and returns its stdout. It fails the test
// unless the command printed a report: exit 0 or 1, or 2 with a report (validate exits 2 when
// an instance cannot be read, and still reports every instance).
func runCLI(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(jstkBin, args...)
	cmd.Dir = parityDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 && (code != 2 || stdout.Len() == 0) {
		t.Fatalf("jstk %v: exit %d (%v), stderr:\n%s", args, code, err, stderr.String())
	}
	return stdout.Bytes()
}

// TestParityWithCLI: for the same arguments, the MCP result's text content equals the CLI's
// text output byte for byte, and its structuredContent equals the CLI's --format json output,
// compared as parsed JSON.
func TestParityWithCLI(t *testing.T) {
	type cliOutput struct{ text, json []byte }
	cli := make([]*cliOutput, len(parityCases)) // nil for a tool the table does not have
	for i, c := range parityCases {
		if _, ok := tools.Lookup(c.tool); ok {
			cli[i] = &cliOutput{
				text: runCLI(t, append([]string{c.tool}, c.argv...)...),
				json: runCLI(t, append([]string{c.tool, "--format", "json"}, c.argv...)...),
			}
		}
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, options{era: era, root: parityDir})
			ran := 0
			for i, c := range parityCases {
				if cli[i] == nil {
					continue
				}
				ran++
				res := s.call(t, c.tool, c.args)
				if res.IsError {
					t.Errorf("%s: isError: %s", c.name, text(t, res))
					continue
				}
				if diff := cmp.Diff(string(cli[i].text), text(t, res)); diff != "" {
					t.Errorf("%s: MCP text differs from `jstk %s %v` (-cli +mcp):\n%s", c.name, c.tool, c.argv, diff)
				}
				var want, got any
				if err := json.Unmarshal(cli[i].json, &want); err != nil {
					t.Fatalf("%s: the CLI's --format json output does not parse: %v\n%s", c.name, err, cli[i].json)
				}
				if err := json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, ignoreClock); diff != "" {
					t.Errorf("%s: structuredContent differs from `jstk %s --format json %v` (-cli +mcp):\n%s", c.name, c.tool, c.argv, diff)
				}
			}
			if ran == 0 {
				t.Fatal("no parity case ran")
			}
		})
	}
}
