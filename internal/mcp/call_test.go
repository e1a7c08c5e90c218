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

func TestConcurrentCallsAreEachAnsweredOnce(t *testing.T) {
	t.Parallel()
	p := newFakeProvider()
	p.started = make(chan string, 100)
	opts := testOptions()
	opts.MaxConcurrent = 100 // every call runs at once
	ss := newSession(t, p, opts)
	ss.do(initLine)
	const n = 40
	var lines []string
	for i := range n {
		lines = append(lines, "&"+request(fmt.Sprint(i), "tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"i":%d}}`, i)))
		lines = append(lines, "&"+request(fmt.Sprint(1000+i), "tools/call", `{"name":"slow"}`))
	}
	got := ss.do(lines...)
	for range n { // every slow call is running concurrently
		<-p.started
	}
	for i := range n {
		got = append(got, ss.do("&"+cancel(fmt.Sprint(1000+i)))...)
	}
	ss.srv.Wait()
	got = append(got, ss.do()...)
	ids := map[string]int{}
	for _, b := range got {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				StructuredContent struct{ I int } `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		ids[string(m.ID)]++
		if fmt.Sprint(m.Result.StructuredContent.I) != string(m.ID) {
			t.Errorf("response %s carries the result of call %d", m.ID, m.Result.StructuredContent.I)
		}
	}
	want := map[string]int{}
	for i := range n {
		want[fmt.Sprint(i)] = 1
	}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("answered ids (-want +got):\n%s", d)
	}
}

func TestShutdownContextStopsCallsButTheyAreAnswered(t *testing.T) {
	t.Parallel()
	var audit bytes.Buffer
	opts := testOptions()
	opts.Audit = &audit
	ss := newSession(t, newFakeProvider(), opts)
	ctx, stop := context.WithCancel(context.Background())
	ss.ctx = ctx
	ss.do(initLine)
	ss.do("&" + request("1", "tools/call", `{"name":"slow"}`))
	stop()
	ss.srv.Wait()
	got := ss.do()
	want := []string{okReply("1", `{"content":[{"type":"text","text":"stopped: context canceled"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`)}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !strings.Contains(audit.String(), `"outcome":"cancelled"`) {
		t.Errorf("audit %s: want outcome cancelled", audit.String())
	}
}

// lateProvider keeps each call's Progress function for use after the call returned.
type lateProvider struct {
	fakeProvider
	progress chan func(float64, float64, string)
}

func (p *lateProvider) Call(ctx context.Context, req *CallRequest) *CallResult {
	p.progress <- req.Progress
	if req.Name == "slow" {
		<-ctx.Done()
	}
	return &CallResult{Content: []Content{TextContent("done")}}
}

func TestProgressAfterTheAnswerOrTheCancellationIsDropped(t *testing.T) {
	t.Parallel()
	p := &lateProvider{fakeProvider: *newFakeProvider(), progress: make(chan func(float64, float64, string), 2)}
	ss := newSession(t, p, nil)
	ss.do(initLine)

	got := ss.do(request("1", "tools/call", `{"name":"echo","_meta":{"progressToken":1}}`))
	late := <-p.progress
	late(5, 10, "late")
	got = append(got, ss.do()...)
	want := []string{okReply("1", `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("answered call (-want +got):\n%s", d)
	}

	got = ss.do("&" + request("2", "tools/call", `{"name":"slow","_meta":{"progressToken":2}}`))
	running := <-p.progress
	running(1, 0, "while running")
	got = append(got, ss.do(cancel("2"))...)
	running(2, 0, "after cancel")
	got = append(got, ss.do()...)
	want = []string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1,"message":"while running"}}`}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("cancelled call (-want +got):\n%s", d)
	}
}

// badToolsProvider lists tools the server must leave out.
type badToolsProvider struct{ fakeProvider }

func (badToolsProvider) Tools() []Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []Tool{
		{Name: "good", InputSchema: obj},
		{Name: "noschema"},
		{Name: "Bad.Name", InputSchema: obj},
		{Name: "good", Description: "a second one", InputSchema: obj},
		{Name: "array_schema", InputSchema: json.RawMessage(`[]`)},
		{Name: "union_schema", InputSchema: json.RawMessage(`{"type":"object","oneOf":[]}`)},
		{Name: "string_output", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "bad_meta", InputSchema: obj, Meta: map[string]any{"c": make(chan int)}},
	}
}

func TestInvalidToolsAreLeftOutAndLogged(t *testing.T) {
	t.Parallel()
	ss := newSession(t, &badToolsProvider{}, nil)
	got := ss.do(initLine, request("1", "tools/list", ""))[1:]
	want := []string{okReply("1", `{"tools":[{"name":"good","inputSchema":{"type":"object"}},{"name":"noschema","inputSchema":{"type":"object"}}]}`)}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	wantLog := []string{
		`mcp: tool left out: tool name "Bad.Name" does not match ^[a-z][a-z0-9_]{0,63}$`,
		`mcp: tool left out: a second tool is named "good"`,
		`mcp: tool left out: tool "array_schema": inputSchema: not a JSON object`,
		`mcp: tool left out: tool "union_schema": inputSchema: a top-level "oneOf" is not allowed`,
		`mcp: tool left out: tool "string_output": outputSchema: the root must have "type": "object"`,
		`mcp: tool left out: "bad_meta" cannot be encoded: json: unsupported type: chan int`,
	}
	if d := cmp.Diff(wantLog, ss.logged); d != "" {
		t.Errorf("log (-want +got):\n%s", d)
	}
}

type panickingTools struct{ fakeProvider }

func (panickingTools) Tools() []Tool { panic("no tools today") }

func TestToolsPanicLeavesAnEmptyList(t *testing.T) {
	t.Parallel()
	ss := newSession(t, &panickingTools{}, nil)
	got := ss.do(initLine, request("1", "tools/list", ""), request("2", "tools/call", `{"name":"echo"}`))[1:]
	want := []string{okReply("1", `{"tools":[]}`), errReply("2", -32602, `Invalid params: unknown tool "echo"`)}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(ss.logged) == 0 || !strings.Contains(ss.logged[0], "no tools today") {
		t.Errorf("log %q lacks the panic", ss.logged)
	}
}

func TestValidateTool(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "validate"}, ""},
		{Tool{Name: "schema_context", InputSchema: json.RawMessage(` {"type":"object","properties":{}} `)}, ""},
		{Tool{Name: strings.Repeat("a", 64)}, ""},
		{Tool{Name: strings.Repeat("a", 65)}, `tool name "` + strings.Repeat("a", 65) + `" does not match ^[a-z][a-z0-9_]{0,63}$`},
		{Tool{Name: ""}, `tool name "" does not match ^[a-z][a-z0-9_]{0,63}$`},
		{Tool{Name: "1st"}, `tool name "1st" does not match ^[a-z][a-z0-9_]{0,63}$`},
		{Tool{Name: "list-schemas"}, `tool name "list-schemas" does not match ^[a-z][a-z0-9_]{0,63}$`},
		{Tool{Name: "x", InputSchema: json.RawMessage(`{"$ref":"#/$defs/a","type":"object"}`)}, `tool "x": inputSchema: a top-level "$ref" is not allowed`},
		{Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","anyOf":[]}`)}, `tool "x": inputSchema: a top-level "anyOf" is not allowed`},
		{Tool{Name: "x", InputSchema: json.RawMessage(`{"type":["object","null"]}`)}, `tool "x": inputSchema: the root must have "type": "object"`},
		{Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object"`)}, `tool "x": inputSchema: unexpected end of JSON input`},
		{Tool{Name: "x", InputSchema: json.RawMessage("{\"type\":\"object\",\"title\":\"\xff\"}")}, `tool "x": inputSchema: not valid UTF-8`},
		{Tool{Name: "x", OutputSchema: json.RawMessage(`true`)}, `tool "x": outputSchema: not a JSON object`},
	}
	for _, c := range cases {
		got := ""
		if err := ValidateTool(&c.tool); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("ValidateTool(%q) = %q, want %q", c.tool.Name, got, c.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	srv := NewServer(newFakeProvider(), nil)
	var mu sync.Mutex
	var out [][]byte
	send := func(b []byte) { mu.Lock(); out = append(out, b); mu.Unlock() }
	ctx := context.Background()
	srv.Handle(ctx, []byte(request("1", "server/discover", `{`+modernMeta+`}`)), send)
	srv.Handle(ctx, []byte(request("2", "tools/call", `{"name":"fail",`+modernMeta+`}`)), send)
	srv.Wait()
	want := []string{okReply("1", `{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],
		"capabilities":{"tools":{"listChanged":false}},"ttlMs":3600000,"cacheScope":"public","resultType":"complete",
		"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"jstk","version":"(devel)"}}}`)}
	if d := diffMessages(t, want, out[:1]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var call struct {
		Result struct {
			Meta map[string]any `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out[1], &call); err != nil {
		t.Fatal(err)
	}
	if id, _ := call.Result.Meta[MetaRunID].(string); len(id) != 26 {
		t.Errorf("default run id %q: want 26 random base32 characters", id)
	}

	opts := &Options{ListTTL: -time.Second, Instructions: "Use validate first.", PageSize: -1, MaxMessageSize: -1}
	srv = NewServer(newFakeProvider(), opts)
	out = nil
	srv.Handle(ctx, []byte(request("1", "server/discover", `{`+modernMeta+`}`)), send)
	srv.Handle(ctx, []byte(request("2", "initialize", `{"protocolVersion":"2025-11-25"}`)), send)
	want = []string{
		okReply("1", `{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],
		"capabilities":{"tools":{"listChanged":false}},"instructions":"Use validate first.","ttlMs":0,"cacheScope":"public","resultType":"complete",
		"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"jstk","version":"(devel)"}}}`),
		okReply("2", `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"jstk","version":"(devel)"},"instructions":"Use validate first."}`),
	}
	if d := diffMessages(t, want, out); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSupportedVersionsIsACopy(t *testing.T) {
	t.Parallel()
	v := SupportedVersions()
	v[0] = "changed"
	if SupportedVersions()[0] != Version20260728 {
		t.Error("SupportedVersions returned shared storage")
	}
}

func TestErrorResultAndContent(t *testing.T) {
	t.Parallel()
	got := ErrorResult("cannot read %s", "a.json")
	want := &CallResult{Content: []Content{{Type: "text", Text: "cannot read a.json"}}, IsError: true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestHandleIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	ss := newSession(t, newFakeProvider(), nil)
	ss.do(initLine)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				id := fmt.Sprintf(`"g%d-%d"`, g, i)
				for _, line := range []string{
					request(id, "ping", ""),
					request(id, "tools/list", `{`+modernMeta+`}`),
					request(id, "tools/call", `{"name":"echo","arguments":{"i":1}}`),
				} {
					ss.srv.Handle(context.Background(), []byte(line), ss.send)
				}
			}
		})
	}
	wg.Wait()
	ss.srv.Wait()
	// Each goroutine reuses an id only after the requests before it were answered (ping and
	// tools/list are answered within Handle), so every request is answered exactly once.
	counts := map[string]int{}
	for _, b := range ss.do() {
		var m struct{ ID string }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		counts[m.ID]++
	}
	for g := range 4 {
		for i := range 25 {
			if n := counts[fmt.Sprintf("g%d-%d", g, i)]; n != 3 {
				t.Errorf("id g%d-%d answered %d times, want 3", g, i, n)
			}
		}
	}
}

// encodingProvider answers as a provider in another process does: each result of the fake
// provider already encoded by EncodeResult.
type encodingProvider struct{ *fakeProvider }

func (p encodingProvider) Call(ctx context.Context, req *CallRequest) *CallResult {
	res := p.fakeProvider.Call(ctx, req)
	if res == nil {
		return nil
	}
	b, err := EncodeResult(res, req, ClientInfo{Name: "jstk-test", Version: "1.2.3"})
	if err != nil {
		return ErrorResult("encoding: %v", err)
	}
	return &CallResult{IsError: res.IsError, Encoded: b}
}

// fixedProvider answers every call with res.
type fixedProvider struct {
	*fakeProvider
	res *CallResult
}

func (p fixedProvider) Call(context.Context, *CallRequest) *CallResult { return p.res }

// A result encoded by EncodeResult is sent as the server would have encoded it, byte for
// byte, on both protocol eras; one that is not an object is an internal error.
func TestEncodedResultIsSentAsItIs(t *testing.T) {
	lines := []string{initLine, initializedLine}
	for i, tool := range []string{"echo", "count", "client", "fail", "nilresult", "progress"} {
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"x":"<&>\u2028"}}}`, 10+i, tool),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":"m%d","method":"tools/call","params":{"name":%q,"arguments":{},%s}}`, i, tool, modernMeta))
	}
	want := newSession(t, newFakeProvider(), nil).do(lines...)
	got := newSession(t, encodingProvider{newFakeProvider()}, nil).do(lines...)
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("message %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}

	ss := newSession(t, fixedProvider{newFakeProvider(), &CallResult{Encoded: json.RawMessage(`[1]`)}}, nil)
	out := ss.do(initLine, initializedLine, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if len(out) != 2 || !bytes.Contains(out[1], []byte(`could not be encoded: the result is not a JSON object`)) {
		t.Errorf("a result that is not an object: %s", bytes.Join(out, []byte("\n")))
	}
}

// HandleDeferred answers what needs no call as Handle does, and returns a tools/call's work
// instead of starting it: nothing is sent, and Wait does not end, until the caller runs it.
func TestHandleDeferredReturnsTheCall(t *testing.T) {
	t.Parallel()
	ss := newSession(t, newFakeProvider(), nil)
	ss.do(initLine, initializedLine)
	if call := ss.srv.HandleDeferred(ss.ctx, []byte(request("1", "ping", "")), ss.send); call != nil {
		t.Errorf("ping returned a call")
	}
	if got := ss.do(); len(got) != 1 || !strings.Contains(string(got[0]), `"id":1`) {
		t.Errorf("ping: got %q, want its answer at once", got)
	}
	call := ss.srv.HandleDeferred(ss.ctx, []byte(request("2", "tools/call", `{"name":"echo","arguments":{"x":"y"}}`)), ss.send)
	if call == nil {
		t.Fatal("tools/call returned no call")
	}
	if ss.srv.WaitTimeout(10 * time.Millisecond) {
		t.Error("Wait ended before the call ran")
	}
	if got := ss.do(); len(got) != 0 {
		t.Errorf("sent before the call ran: %q", got)
	}
	call()
	if !ss.srv.WaitTimeout(time.Minute) {
		t.Fatal("Wait did not end after the call ran")
	}
	got := ss.do()
	if len(got) != 1 || !strings.Contains(string(got[0]), `"id":2`) || !strings.Contains(string(got[0]), `"x":"y"`) {
		t.Errorf("after the call: got %q, want its answer", got)
	}
	// A call refused before it starts (an unknown tool) is answered at once, with no call.
	if call := ss.srv.HandleDeferred(ss.ctx, []byte(request("3", "tools/call", `{"name":"nope"}`)), ss.send); call != nil {
		t.Error("an unknown tool returned a call")
	}
	if got := ss.do(); len(got) != 1 || !strings.Contains(string(got[0]), "unknown tool") {
		t.Errorf("unknown tool: got %q", got)
	}
}
