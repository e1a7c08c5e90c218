package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/tools"
)

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, ok := tools.Lookup(name); !ok {
		t.Skipf("the descriptor table has no %s tool", name)
	}
}

// smallCall is a quick validate call that succeeds.
var smallCall = map[string]any{"schema": pathDoc("small.schema.json"), "instances": []any{pathDoc("small.json")}}

// progressOf returns the progress notifications of a token among received messages, in
// wire order, and the index of the response to the request with the given id (-1 if none).
func progressOf(t *testing.T, msgs []jsonrpc.Message, token any, id jsonrpc.ID) (ps []sdk.ProgressNotificationParams, answer int) {
	t.Helper()
	answer = -1
	for i, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Request:
			if m.Method != "notifications/progress" {
				continue
			}
			var p sdk.ProgressNotificationParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatalf("notifications/progress params: %v", err)
			}
			if fmt.Sprint(p.ProgressToken) == fmt.Sprint(token) {
				ps = append(ps, p)
			}
		case *jsonrpc.Response:
			if m.ID == id {
				answer = i
			}
		}
	}
	return ps, answer
}

// requestID finds the id the SDK gave the tools/call that carried a progress token.
func requestID(t *testing.T, sent []jsonrpc.Message, token any) jsonrpc.ID {
	t.Helper()
	for _, m := range sent {
		r, ok := m.(*jsonrpc.Request)
		if !ok || r.Method != "tools/call" {
			continue
		}
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if json.Unmarshal(r.Params, &p) == nil && fmt.Sprint(p.Meta["progressToken"]) == fmt.Sprint(token) {
			return r.ID
		}
	}
	t.Fatalf("no tools/call with progress token %v was sent", token)
	return jsonrpc.ID{}
}

// TestProgress: a long validate that carries a progress token gets increasing
// notifications/progress with that token, all before its answer, each with the bytes read of
// the file's size as total (how many depends on how long the run takes: at most one per
// 250 ms, which internal/mcp tests with a clock of its own); the SDK hands them to the
// client's handler; a call without a token gets none.
func TestProgress(t *testing.T) {
	needTool(t, "validate")
	for i, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			var handled atomic.Int32
			s := startSession(t, options{era: era, client: &sdk.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { handled.Add(1) },
			}})
			token := []any{"progress-" + era, 4242}[i%2] // a string token in one era, a number in the other
			params := &sdk.CallToolParams{Name: "validate", Arguments: map[string]any{
				"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("medium.ndjson")}, "invalidOnly": true}}
			params.SetProgressToken(token)
			res, err := s.CallTool(t.Context(), params)
			if err != nil || res.IsError {
				t.Fatalf("validate: %v %v", err, res)
			}
			var sum struct{ Summary struct{ Total, Valid int } }
			if err := json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &sum); err != nil || sum.Summary.Total != mediumLines || sum.Summary.Valid != mediumLines {
				t.Fatalf("summary %+v (%v), want %d valid instances", sum.Summary, err, mediumLines)
			}
			ps, answer := progressOf(t, s.rec.received(), token, requestID(t, s.rec.sent(), token))
			if len(ps) == 0 {
				t.Fatalf("no progress notification for %d instances", mediumLines)
			}
			if answer < 0 {
				t.Fatal("the answer was not recorded")
			}
			// Progress counts the bytes read, of the file's size.
			fi, err := os.Stat(filepath.Join(workDir, "medium.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			size := float64(fi.Size())
			last := 0.0
			for _, p := range ps {
				if p.Progress <= last || p.Progress > size || p.Total != size || !strings.HasSuffix(p.Message, " instances validated") {
					t.Errorf("progress %v of %v (%q) after %v: want increasing bytes of the file's %v", p.Progress, p.Total, p.Message, last, size)
				}
				last = p.Progress
			}
			for _, m := range s.rec.received()[answer+1:] {
				if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/progress" {
					t.Errorf("a progress notification after the answer: %s", r.Params)
				}
			}
			before := len(s.rec.received())
			s.call(t, "validate", map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("medium.ndjson")}, "invalidOnly": true})
			for _, m := range s.rec.received()[before:] {
				if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/progress" {
					t.Errorf("progress for a call without a progress token: %s", r.Params)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for handled.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if handled.Load() == 0 {
				t.Error("the SDK client's progress handler was never called")
			}
		})
	}
}

// readAudit returns the decoded lines of an audit file.
func readAudit(t *testing.T, file string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for l := range strings.Lines(string(data)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("audit line is not a JSON object: %v: %q", err, l)
		}
		lines = append(lines, m)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("the audit file does not end with a newline")
	}
	return lines
}

// waitAudit polls the audit file until it holds at least n lines.
func waitAudit(t *testing.T, file string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if data, _ := os.ReadFile(file); bytes.Count(data, []byte("\n")) >= n {
			return readAudit(t, file)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit file did not reach %d lines", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCancellation: a long validate cancelled by the client's context (the SDK sends
// notifications/cancelled) is stopped and never answered, its audit outcome is "cancelled",
// and the server keeps serving.
func TestCancellation(t *testing.T) {
	needTool(t, "validate")
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			progressed := make(chan struct{}, 1)
			s := startSession(t, options{era: era, args: []string{"--audit", audit}, client: &sdk.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
					select {
					case progressed <- struct{}{}:
					default:
					}
				},
			}})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			params := &sdk.CallToolParams{Name: "validate", Arguments: map[string]any{
				"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("big.ndjson")}, "limit": 1}}
			params.SetProgressToken("cancel-me")
			errc := make(chan error, 1)
			go func() {
				_, err := s.CallTool(ctx, params)
				errc <- err
			}()
			select {
			case <-progressed: // the call is running on the server
			case err := <-errc:
				t.Fatalf("the long call ended before any progress: %v", err)
			case <-time.After(60 * time.Second):
				t.Fatal("no progress from the long call")
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
			}
			// The server stops the call: its audit line (written when the handler returns)
			// comes, with outcome "cancelled".
			lines := waitAudit(t, audit, 1)
			if got := lines[0]["outcome"]; got != mcp.OutcomeCancelled {
				t.Errorf("audit outcome %v, want %q: %v", got, mcp.OutcomeCancelled, lines[0])
			}
			// The server keeps serving; this answer comes after anything the cancelled call
			// could have sent.
			if res := s.call(t, "validate", smallCall); res.IsError {
				t.Fatalf("a call after the cancellation failed: %s", text(t, res))
			}
			id := requestID(t, s.rec.sent(), "cancel-me")
			if _, answer := progressOf(t, s.rec.received(), "cancel-me", id); answer >= 0 {
				t.Errorf("the cancelled request %v was answered", id)
			}
			cancelled := false
			for _, m := range s.rec.sent() {
				if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" {
					cancelled = true
				}
			}
			if !cancelled {
				t.Error("the SDK sent no notifications/cancelled (the test proves nothing)")
			}
		})
	}
}

// TestAudit: --audit writes one JSON line per call with the runId of the result's _meta, the
// invoker {"kind": "agent", "id": clientInfo.name, "via": "mcp"}, the tool, the arguments
// with secret-looking values redacted, the outcome and the duration.
func TestAudit(t *testing.T) {
	needTool(t, "validate")
	secrets := []string{"hunter2", "sk-abcdefghijklmnopqrstuvwxyz", "Bearer abcdefghijklmnopqrst", "ghp_" + strings.Repeat("a1", 18)}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			s := startSession(t, options{era: era, args: []string{"--audit", audit}})
			calls := []struct {
				args    map[string]any
				outcome string
			}{
				{smallCall, mcp.OutcomeOK},
				{map[string]any{"schema": pathDoc("broken.schema.json"), "instances": []any{pathDoc("small.json")}}, mcp.OutcomeError},
				{map[string]any{"schema": valueDoc(map[string]any{"type": "object"}), "instances": []any{valueDoc(map[string]any{
					"password": secrets[0], "note": secrets[1], "header": secrets[2], "nested": []any{map[string]any{"apiKey": "plain", "x": secrets[3]}}})}}, mcp.OutcomeOK},
				{map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("orders-with-errors.ndjson")}}, mcp.OutcomeOK}, // findings are ok
				{map[string]any{"schema": pathDoc("order.schema.json")}, mcp.OutcomeError},                                                        // invalid arguments
			}
			var runIDs []string
			for _, c := range calls {
				res := s.call(t, "validate", c.args)
				id, _ := res.Meta["jstk/runId"].(string)
				runIDs = append(runIDs, id)
			}
			s.close(t) // the server writes every audit line before it exits
			lines := readAudit(t, audit)
			if len(lines) != len(calls) {
				t.Fatalf("%d audit lines for %d calls", len(lines), len(calls))
			}
			byRun := map[string]map[string]any{}
			for _, l := range lines {
				byRun[fmt.Sprint(l["runId"])] = l
			}
			for i, c := range calls {
				l := byRun[runIDs[i]]
				if l == nil {
					t.Errorf("call %d: no audit line with runId %q", i, runIDs[i])
					continue
				}
				keys := slices.Sorted(func(yield func(string) bool) {
					for k := range l {
						if !yield(k) {
							return
						}
					}
				})
				if diff := cmp.Diff([]string{"arguments", "durationMs", "invoker", "outcome", "runId", "time", "tool"}, keys); diff != "" {
					t.Errorf("call %d: audit line members (-want +got):\n%s", i, diff)
				}
				want := map[string]any{"kind": "agent", "id": clientName, "via": "mcp"}
				if diff := cmp.Diff(want, l["invoker"]); diff != "" {
					t.Errorf("call %d: invoker (-want +got):\n%s", i, diff)
				}
				if l["tool"] != "validate" || l["outcome"] != c.outcome {
					t.Errorf("call %d: tool %v, outcome %v; want validate, %s", i, l["tool"], l["outcome"], c.outcome)
				}
				if d, ok := l["durationMs"].(float64); !ok || d < 0 {
					t.Errorf("call %d: durationMs %v", i, l["durationMs"])
				}
				if ts, _ := l["time"].(string); func() bool { _, err := time.Parse(time.RFC3339Nano, ts); return err != nil }() {
					t.Errorf("call %d: time %q is not RFC 3339", i, l["time"])
				}
			}
			raw, _ := os.ReadFile(audit)
			for _, sec := range secrets {
				if bytes.Contains(raw, []byte(sec)) {
					t.Errorf("the audit log holds the secret %q", sec)
				}
			}
			inst := byRun[runIDs[2]]["arguments"].(map[string]any)["instances"].([]any)[0].(map[string]any)["value"]
			want := map[string]any{"password": mcp.Redacted, "note": mcp.Redacted, "header": mcp.Redacted,
				"nested": []any{map[string]any{"apiKey": mcp.Redacted, "x": mcp.Redacted}}}
			if diff := cmp.Diff(want, inst); diff != "" {
				t.Errorf("redacted arguments (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]any{"path": "broken.schema.json"}, byRun[runIDs[1]]["arguments"].(map[string]any)["schema"]); diff != "" {
				t.Errorf("plain arguments are not kept as given (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExposeExclude: --expose and --exclude choose the listed tools, a tool left out cannot
// be called, and stderr says at start what was left out and why.
func TestExposeExclude(t *testing.T) {
	needTool(t, "validate")
	all := tableNames()
	others := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == "validate" })
	cases := []struct {
		name    string
		args    []string
		listed  []string
		stderr  []string
		refused string // a tool that must not be callable
	}{
		{"expose one", []string{"--expose", "validate"}, []string{"validate"},
			append([]string{"serving 1 tools (validate)"}, prefixAll("not serving ", others, ": not named by --expose")...), others[0]},
		{"exclude one", []string{"--exclude", "validate"}, others,
			[]string{"not serving validate: excluded by --exclude"}, "validate"},
		{"both", []string{"--expose", "validate," + others[0], "--exclude", others[0]}, []string{"validate"},
			[]string{"not serving " + others[0] + ": excluded by --exclude"}, others[0]},
		{"neither", nil, all, []string{fmt.Sprintf("serving %d tools (%s)", len(all), strings.Join(all, ", "))}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, era := range eras {
				s := startSession(t, options{era: era, args: c.args})
				var names []string
				for _, tool := range listAll(t, s) {
					names = append(names, tool.Name)
				}
				if diff := cmp.Diff(c.listed, names); diff != "" {
					t.Errorf("%s: listed tools (-want +got):\n%s", era, diff)
				}
				if c.refused != "" {
					_, err := s.CallTool(t.Context(), &sdk.CallToolParams{Name: c.refused, Arguments: map[string]any{}})
					var werr *jsonrpc.Error
					if !errors.As(err, &werr) || werr.Code != mcp.CodeInvalidParams || !strings.Contains(werr.Message, c.refused) {
						t.Errorf("%s: calling the left-out %s: %v, want error %d naming it", era, c.refused, err, mcp.CodeInvalidParams)
					}
				}
				s.close(t)
				for _, w := range c.stderr {
					if !strings.Contains(s.stderr.String(), w) {
						t.Errorf("%s: stderr does not say %q:\n%s", era, w, s.stderr)
					}
				}
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		for _, flag := range []string{"--expose", "--exclude"} {
			cmd := exec.Command(jstkBin, "mcp", "--root", workDir, flag, "validate,nope")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("%s nope: exit %d (%v), want 2", flag, code, err)
			}
			if !strings.Contains(stderr.String(), `unknown tool "nope"`) || stdout.Len() != 0 {
				t.Errorf("%s nope: stdout %q, stderr %q", flag, stdout.String(), stderr.String())
			}
		}
	})
}

func prefixAll(prefix string, names []string, suffix string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n + suffix
	}
	return out
}

// TestToolsListPaging walks tools/list through the raw protocol in both eras, following
// nextCursor, with --expose varying the count and --page-size the pages: every page holds
// at most the page size, the pages together are the chosen tools in order, and a cursor
// the server did not make is refused with -32602.
func TestToolsListPaging(t *testing.T) {
	all := tableNames()
	for _, expose := range [][]string{nil, all[:1], all[:min(2, len(all))]} {
		for _, size := range []int{mcp.DefaultPageSize, 1, 2, 4} {
			for _, era := range eras {
				n := len(all)
				if expose != nil {
					n = len(expose)
				}
				name := fmt.Sprintf("%s/%d-tools/page-%d", era, n, size)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					args := []string{"--page-size", fmt.Sprint(size)}
					want := all
					if expose != nil {
						args, want = append(args, "--expose", strings.Join(expose, ",")), expose
					}
					r := startRaw(t, args...)
					meta := ""
					if era == legacyEra {
						r.initialize(t)
					} else {
						meta = modernMeta
					}
					var names []string
					cursor, pages := "", 0
					for {
						params := []string{}
						if meta != "" {
							params = append(params, meta)
						}
						if cursor != "" {
							params = append(params, `"cursor":`+mustJSON(t, cursor))
						}
						pages++
						id := fmt.Sprint(pages)
						r.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{`+strings.Join(params, ",")+`}}`)
						m := r.answer(t, id, 30*time.Second)
						var res struct {
							Tools      []struct{ Name string }
							NextCursor *string
							TTLMs      *int64  `json:"ttlMs"`
							CacheScope *string `json:"cacheScope"`
							ResultType *string `json:"resultType"`
						}
						if err := json.Unmarshal(m["result"], &res); err != nil {
							t.Fatalf("tools/list: %s %s", m["error"], err)
						}
						if len(res.Tools) > size || len(res.Tools) == 0 {
							t.Errorf("page %d holds %d tools (page size %d)", pages, len(res.Tools), size)
						}
						if modern := era == modernEra; modern != (res.TTLMs != nil && res.CacheScope != nil && res.ResultType != nil) {
							t.Errorf("%s: ttlMs %v, cacheScope %v, resultType %v", era, res.TTLMs, res.CacheScope, res.ResultType)
						}
						for _, tool := range res.Tools {
							names = append(names, tool.Name)
						}
						if res.NextCursor == nil {
							break
						}
						if *res.NextCursor == "" || pages > 100 {
							t.Fatalf("nextCursor %q on page %d", *res.NextCursor, pages)
						}
						cursor = *res.NextCursor
					}
					if diff := cmp.Diff(want, names); diff != "" {
						t.Errorf("the pages together (-want +got):\n%s", diff)
					}
					if wantPages := (len(want) + size - 1) / size; pages != wantPages {
						t.Errorf("%d pages for %d tools, want %d", pages, len(want), wantPages)
					}
					for i, bad := range []string{`"not-a-cursor"`, `""`, `7`} {
						params := `"cursor":` + bad
						if meta != "" {
							params = meta + "," + params
						}
						id := fmt.Sprint(1000 + i)
						r.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{`+params+`}}`)
						var e struct{ Code int }
						if m := r.answer(t, id, 30*time.Second); json.Unmarshal(m["error"], &e) != nil || e.Code != mcp.CodeInvalidParams {
							t.Errorf("cursor %s: %s, want error %d", bad, m["error"], mcp.CodeInvalidParams)
						}
					}
				})
			}
		}
	}
}
