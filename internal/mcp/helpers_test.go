package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeProvider is the Provider of the tests. Its tools:
//
//	echo      structuredContent = the arguments, text "echo"
//	count     structuredContent = {"bytes": len(arguments)}
//	client    structuredContent = the caller's ClientInfo and protocol version
//	slow      blocks until its context is done, then answers "stopped" (isError)
//	progress  sends progress 1/3, 2/3, 2/3 again (dropped), NaN (dropped), 3/3, then answers
//	panic     panics
//	fail      answers isError
//	nilresult answers nil
//	badresult answers structuredContent that is not JSON
type fakeProvider struct {
	tools []Tool
	// started receives the run id of each slow call once it is running, when non-nil.
	started chan string
}

var readOnly = &Annotations{ReadOnlyHint: true, IdempotentHint: true}

func newFakeProvider() *fakeProvider {
	obj := json.RawMessage(`{"type":"object"}`)
	return &fakeProvider{tools: []Tool{
		{Name: "echo", Title: "Echo", Description: "Returns its arguments.", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`),
			OutputSchema: obj, Annotations: readOnly, Meta: map[string]any{"jstk/contract": map[string]any{"access": "read"}}},
		{Name: "count", Description: "Counts argument bytes.", InputSchema: obj},
		{Name: "client", Description: "Names the caller.", InputSchema: obj},
		{Name: "slow", Description: "Waits for cancellation.", InputSchema: obj},
		{Name: "progress", Description: "Reports progress.", InputSchema: obj},
		{Name: "panic", Description: "Panics.", InputSchema: obj},
		{Name: "fail", Description: "Cannot run.", InputSchema: obj},
		{Name: "nilresult", Description: "Returns nil.", InputSchema: obj},
		{Name: "badresult", Description: "Returns bad JSON.", InputSchema: obj},
	}}
}

func (p *fakeProvider) Tools() []Tool { return p.tools }

func (p *fakeProvider) Call(ctx context.Context, req *CallRequest) *CallResult {
	switch req.Name {
	case "echo":
		return &CallResult{Content: []Content{TextContent("echo")}, StructuredContent: req.Arguments}
	case "count":
		return &CallResult{Content: []Content{{Text: fmt.Sprint(len(req.Arguments))}}, StructuredContent: map[string]int{"bytes": len(req.Arguments)}}
	case "client":
		return &CallResult{StructuredContent: map[string]string{"name": req.Client.Name, "version": req.Client.Version, "protocolVersion": req.ProtocolVersion}}
	case "slow":
		if p.started != nil {
			p.started <- req.RunID
		}
		<-ctx.Done()
		return ErrorResult("stopped: %v", ctx.Err())
	case "progress":
		if req.Progress != nil {
			req.Progress(1, 3, "one")
			req.Progress(2, 3, "two")
			req.Progress(2, 3, "not increasing")
			req.Progress(nanValue(), 3, "not finite")
			req.Progress(3, 0, "")
		}
		return &CallResult{Content: []Content{TextContent("done")}}
	case "panic":
		panic("boom")
	case "fail":
		return ErrorResult("could not run: %s", "no input")
	case "nilresult":
		return nil
	case "badresult":
		return &CallResult{StructuredContent: json.RawMessage(`{bad`)}
	}
	return ErrorResult("no such tool %q", req.Name)
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// fakeClock advances by 1.5 ms each time it is read.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.t
	c.t = c.t.Add(1500 * time.Microsecond)
	return now
}

// testOptions returns deterministic options: run ids run-1, run-2, ...; a fake clock.
func testOptions() *Options {
	var mu sync.Mutex
	n := 0
	clock := &fakeClock{t: time.Date(2026, 9, 2, 10, 0, 0, 0, time.UTC)}
	return &Options{
		Name: "jstk-test", Version: "1.2.3",
		Now: clock.Now,
		// The fake clock moves 1.5 ms a reading: the conversations see every report
		// (TestProgressInterval tests the interval).
		ProgressInterval: -1,
		NewRunID: func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return fmt.Sprintf("run-%d", n)
		},
	}
}

// session drives a Server like the stdio loop does and records what it sends.
type session struct {
	t      testing.TB
	srv    *Server
	ctx    context.Context
	mu     sync.Mutex
	out    [][]byte
	logged []string
}

func newSession(t testing.TB, p Provider, opts *Options) *session {
	ss := &session{t: t, ctx: context.Background()}
	if opts == nil {
		opts = testOptions()
	}
	opts.Logf = func(format string, args ...any) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		ss.logged = append(ss.logged, fmt.Sprintf(format, args...))
	}
	ss.srv = NewServer(p, opts)
	return ss
}

// send is the session's send function; it checks that every message is one JSON-RPC 2.0 object.
func (ss *session) send(b []byte) {
	if err := checkMessage(b); err != nil {
		ss.t.Errorf("server sent an invalid message: %v\n%.300s", err, b)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.out = append(ss.out, bytes.Clone(b))
}

// checkMessage verifies the properties every outgoing message has: a single JSON object, no
// newline, "jsonrpc": "2.0", and either a response (id + exactly one of result/error) or a
// notification (method, no id).
func checkMessage(b []byte) error {
	if bytes.ContainsAny(b, "\n") {
		return fmt.Errorf("contains a newline")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return fmt.Errorf(`"jsonrpc" is %s`, m["jsonrpc"])
	}
	_, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	_, hasMethod := m["method"]
	switch {
	case hasID && hasResult != hasError && !hasMethod:
		if hasError {
			var e struct {
				Code    *int    `json:"code"`
				Message *string `json:"message"`
			}
			if json.Unmarshal(m["error"], &e) != nil || e.Code == nil || e.Message == nil {
				return fmt.Errorf("malformed error object %s", m["error"])
			}
		}
		if hasResult && (len(m["result"]) == 0 || m["result"][0] != '{') {
			return fmt.Errorf("result is not an object")
		}
	case !hasID && hasMethod && !hasResult && !hasError:
	default:
		return fmt.Errorf("neither a response nor a notification")
	}
	return nil
}

// do handles each line, waiting for in-flight calls after each line, except after lines
// prefixed with "&" (left running). It returns and forgets what was sent.
func (ss *session) do(lines ...string) [][]byte {
	for _, line := range lines {
		wait := true
		if rest, ok := strings.CutPrefix(line, "&"); ok {
			line, wait = rest, false
		}
		ss.srv.Handle(ss.ctx, []byte(line), ss.send)
		if wait {
			ss.srv.Wait()
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := ss.out
	ss.out = nil
	return out
}

// parseJSON decodes JSON keeping numbers exact.
func parseJSON(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %.200q: %v", b, err)
	}
	return v
}

// diffMessages compares messages as parsed JSON.
func diffMessages(t testing.TB, want []string, got [][]byte) string {
	t.Helper()
	w := make([]any, len(want))
	for i, s := range want {
		w[i] = parseJSON(t, []byte(s))
	}
	g := make([]any, len(got))
	for i, b := range got {
		g[i] = parseJSON(t, b)
	}
	return cmp.Diff(w, g)
}

const (
	initLine        = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	modernMeta      = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"modern-client","version":"2"}}`
	serverInfoJSON  = `{"name":"jstk-test","version":"1.2.3"}`
)

func errReply(id string, code int, message string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, message)
}

func okReply(id, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func request(id, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

func cancel(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id)
}

// nested returns depth levels of arrays around 0.
func nested(depth int) string { return strings.Repeat("[", depth) + "0" + strings.Repeat("]", depth) }
