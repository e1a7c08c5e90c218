package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/panics"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 3000) // 6000 bytes
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"plain values are kept", `{"schema":{"path":"a.json"},"count":3,"ok":true,"none":null}`, `{"schema":{"path":"a.json"},"count":3,"ok":true,"none":null}`},
		{"secret-looking keys at any depth", `{"password":"x","PassWord":1,"pass":"x","client_secret":"x","token":{"a":1},"api_key":"x","ApiKey":"x","api-key":"x",
			"auth":"x","Authorization":"x","credentials":["x"],"private_key":"x","privateKey":"x","cookie":"x","session_id":"x","deep":[{"x":{"refresh_token":"x"}}]}`,
			`{"password":"[REDACTED]","PassWord":"[REDACTED]","pass":"[REDACTED]","client_secret":"[REDACTED]","token":"[REDACTED]","api_key":"[REDACTED]","ApiKey":"[REDACTED]","api-key":"[REDACTED]",
			"auth":"[REDACTED]","Authorization":"[REDACTED]","credentials":"[REDACTED]","private_key":"[REDACTED]","privateKey":"[REDACTED]","cookie":"[REDACTED]","session_id":"[REDACTED]","deep":[{"x":{"refresh_token":"[REDACTED]"}}]}`},
		{"names are read as words", `{"author":"a","authors":["a"],"max_tokens":5,"tokenizer":"t","passage":"p","compass":1,"keyword":"k","sessions_dir":"s",
			"refreshToken":"x","APIKey":"x","X-Auth-Token":"x","accesstoken":"x","dbPassword":"x","AWS_SECRET_ACCESS_KEY":"x","jwt":"x","user2Pass":"x"}`,
			`{"author":"a","authors":["a"],"max_tokens":5,"tokenizer":"t","passage":"p","compass":1,"keyword":"k","sessions_dir":"s",
			"refreshToken":"[REDACTED]","APIKey":"[REDACTED]","X-Auth-Token":"[REDACTED]","accesstoken":"[REDACTED]","dbPassword":"[REDACTED]","AWS_SECRET_ACCESS_KEY":"[REDACTED]","jwt":"[REDACTED]","user2Pass":"[REDACTED]"}`},
		{"bearer and basic values", `{"h":["Bearer abcdefgh12345","basic dXNlcjpwYXNz","Bearer x"]}`, `{"h":["[REDACTED]","[REDACTED]","Bearer x"]}`},
		{"a JWT inside a value", `{"text":"token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end"}`, `{"text":"[REDACTED]"}`},
		{"provider keys", `["sk-ant-api03-abcdefghijklmnop","sk-proj-0123456789abcdefXYZ","ghp_0123456789abcdefghijklmnopqrstuvwxyz","AKIAIOSFODNN7EXAMPLE","xoxb-1234567890-abc","AIzaSyA1234567890abcdefghijklmnopqrstuv","-----BEGIN RSA PRIVATE KEY-----\nMII"]`,
			`["[REDACTED]","[REDACTED]","[REDACTED]","[REDACTED]","[REDACTED]","[REDACTED]","[REDACTED]"]`},
		{"look-alikes are kept", `["sk-short","skeleton","Bearer","eyJ.not.jwt","desk-0123456789abcdefghij"]`, `["sk-short","skeleton","Bearer","eyJ.not.jwt","desk-0123456789abcdefghij"]`},
		{"credentials in URLs", `["postgres://admin:pw@db.internal:5432/orders","https://user:pa55@example.com/x","https://ghtoken123@github.com/o/r.git","see mongodb+srv://u:p@c0.example.net/?x=1 now","https://example.com/a@b","mailto:someone@example.com"]`,
			`["postgres://[REDACTED]@db.internal:5432/orders","https://[REDACTED]@example.com/x","https://[REDACTED]@github.com/o/r.git","see mongodb+srv://[REDACTED]@c0.example.net/?x=1 now","https://example.com/a@b","mailto:someone@example.com"]`},
		{"connection strings", `["DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net","Server=db;User Id=sa;Password=hunter2;","Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=abc123="]`,
			`["DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED];EndpointSuffix=core.windows.net","Server=db;User Id=sa;Password=[REDACTED];","Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=[REDACTED]"]`},
		{"more token families", `["sk_live_4eC39HqLyjWDarjtT1zdp7dc","rk_test_51H8abcdefghijklmnop","npm_abcdefghijklmnopqrstuvwxyz0123456789","hf_abcdefghijklmnopqrstuvwxyzABCDEFGH","pk_live_4eC39HqLyjWDarjtT1zdp7dc","npm_short"]`,
			`["[REDACTED]","[REDACTED]","[REDACTED]","[REDACTED]","pk_live_4eC39HqLyjWDarjtT1zdp7dc","npm_short"]`},
		{"credentials inside longer strings", `["curl -H 'Authorization: Bearer abc.def' https://x","then send Bearer abc.def-123 to it","login with password=hunter2Plain&user=a","token: s3cr3t in yaml","api_key=K1;next","\"client_secret\": \"shh\""]`,
			`["curl -H 'Authorization: [REDACTED]' https://x","then send Bearer [REDACTED] to it","login with password=[REDACTED]&user=a","token: [REDACTED] in yaml","api_key=[REDACTED];next","\"client_secret\": \"[REDACTED]\""]`},
		{"prose about credentials is kept", `["a bearer token goes in the header","max_tokens is 5","the passwords table"]`, `["a bearer token goes in the header","max_tokens is 5","the passwords table"]`},
		{"session ids", `{"sessionid":"abc","sessionId":"abc","SESSID":"abc","sessions":3}`, `{"sessionid":"[REDACTED]","sessionId":"[REDACTED]","SESSID":"[REDACTED]","sessions":3}`},
		{"long strings are cut on a rune boundary", fmt.Sprintf(`{"text":%q}`, long), fmt.Sprintf(`{"text":%q}`, strings.Repeat("é", 2048)+"…[1904 more bytes]")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var in, want any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, Redact(in)); d != "" {
				t.Errorf("Redact (-want +got):\n%s", d)
			}
		})
	}
}

// TestRedactValues: by shape only, a schema keeps its property names and their subschemas,
// and still loses what looks like a credential.
func TestRedactValues(t *testing.T) {
	t.Parallel()
	var in, want any
	if err := json.Unmarshal([]byte(`{"properties":{"password":{"type":"string","minLength":8},"token":{"default":"sk-ant-api03-abcdefghijklmnop"}},"$id":"https://u:p@x.test/s"}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"properties":{"password":{"type":"string","minLength":8},"token":{"default":"[REDACTED]"}},"$id":"https://[REDACTED]@x.test/s"}`), &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, RedactValues(in)); d != "" {
		t.Errorf("RedactValues (-want +got):\n%s", d)
	}
}

func TestAuditLines(t *testing.T) {
	t.Parallel()
	var audit bytes.Buffer
	opts := testOptions()
	opts.Audit = &audit
	ss := newSession(t, newFakeProvider(), opts)
	ss.do(request("1", "tools/call", `{"name":"echo","arguments":{"x":"a"},`+modernMeta+`}`)) // modern, before any initialize
	ss.do(request("2", "tools/call", `{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`))
	ss.do(initLine, initializedLine)
	ss.do(request("3", "tools/call", `{"name":"echo","arguments":{"x":"a","password":"hunter2","n":12345678901234567890,
		"nested":{"apiKey":"k","list":[{"Authorization":"Bearer abc"},"Bearer abcdefghijkl","ok"]},"note":"sk-ant-api03-abcdefghijklmnopqrstuv"}}`))
	ss.do(request("4", "tools/call", `{"name":"fail"}`))
	ss.do(request("5", "tools/call", `{"name":"panic"}`))
	ss.do("&"+request("6", "tools/call", `{"name":"slow"}`), cancel("6"))
	ss.do(request("7", "tools/call", `{"name":"count","arguments":{"s":"`+strings.Repeat("a", 300<<10)+`"}}`))
	many := make([]string, 70)
	for i := range many {
		many[i] = strings.Repeat("b", 4000)
	}
	manyJSON, _ := json.Marshal(map[string]any{"s": many})
	ss.do(request("8", "tools/call", `{"name":"count","arguments":`+string(manyJSON)+`}`))
	ss.do(request("9", "tools/list", ""), request("10", "tools/call", `{"name":"nope"}`)) // not audited: no call ran

	line := func(ms int, run, who, tool, args, outcome string) string {
		at := "2026-09-02T10:00:00Z"
		if ms > 0 {
			at = fmt.Sprintf("2026-09-02T10:00:00.%03dZ", ms)
		}
		return fmt.Sprintf(`{"time":%q,"runId":%q,"invoker":{"kind":"agent","id":%q,"via":"mcp"},"tool":%q,"arguments":%s,"outcome":%q,"durationMs":1.5}`,
			at, run, who, tool, args, outcome)
	}
	want := []string{
		line(0, "run-1", "modern-client", "echo", `{"x":"a"}`, "ok"),
		line(3, "run-2", "unknown", "echo", `{}`, "ok"),
		line(6, "run-3", "golden", "echo", `{"x":"a","password":"[REDACTED]","n":12345678901234567890,
			"nested":{"apiKey":"[REDACTED]","list":[{"Authorization":"[REDACTED]"},"[REDACTED]","ok"]},"note":"[REDACTED]"}`, "ok"),
		line(9, "run-4", "golden", "fail", `{}`, "error"),
		strings.TrimSuffix(line(12, "run-5", "golden", "panic", `{}`, "panic"), "}") + `,"panic":"boom","stack":"STACK"}`,
		line(15, "run-6", "golden", "slow", `{}`, "cancelled"),
		line(18, "run-7", "golden", "count", `{"s":"`+strings.Repeat("a", 4096)+`…[303104 more bytes]"}`, "ok"),
		line(21, "run-8", "golden", "count", fmt.Sprintf(`{"jstk/omitted":"arguments of %d bytes after redaction are too large for the audit log"}`, len(manyJSON)), "ok"),
	}
	got := bytes.Split(bytes.TrimSuffix(audit.Bytes(), []byte("\n")), []byte("\n"))
	for i, l := range got {
		// A panic's stack is that of the goroutine that panicked: it names the tool's code.
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil || m["outcome"] != "panic" {
			continue
		}
		if stack, _ := m["stack"].(string); !strings.Contains(stack, "(*fakeProvider).Call") {
			t.Errorf("the stack of the panic does not name the tool's code:\n%s", stack)
		}
		m["stack"] = "STACK"
		got[i], _ = json.Marshal(m)
	}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("audit lines (-want +got):\n%s", d)
	}
	if !slices.ContainsFunc(ss.logged, func(l string) bool {
		return strings.Contains(l, `tool "panic" (run run-5) panicked: boom`) && strings.Contains(l, "(*fakeProvider).Call")
	}) {
		t.Errorf("the log does not hold the panic with its run id and stack: %q", ss.logged)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestAuditWriteErrorIsLogged(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.Audit = failingWriter{}
	ss := newSession(t, newFakeProvider(), opts)
	got := ss.do(initLine, request("1", "tools/call", `{"name":"fail"}`))
	if len(got) != 2 {
		t.Fatalf("got %d messages, want 2 (the call is answered even when the audit fails)", len(got))
	}
	if !slicesContains(ss.logged, "mcp: writing the audit line of run run-1: disk full") {
		t.Errorf("log %q lacks the audit write error", ss.logged)
	}
}

func slicesContains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// workerPanics is a provider whose tool "worker" panics on a goroutine of its own, carried
// back to the tool's goroutine by a panics.Catcher as the engines do, and whose tool "long"
// panics with a value of 10,000 bytes.
type workerPanics struct{}

func (workerPanics) Tools() []Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	return []Tool{{Name: "worker", InputSchema: obj}, {Name: "long", InputSchema: obj}}
}

func (workerPanics) Call(ctx context.Context, req *CallRequest) *CallResult {
	if req.Name == "long" {
		panic(strings.Repeat("é", 5000))
	}
	var catch panics.Catcher
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		catch.Do(panicInWorker)
	}()
	wg.Wait()
	catch.Repanic()
	return &CallResult{}
}

func panicInWorker() { panic("worker boom") }

func TestPanicOfAWorkerIsAuditedWithTheWorkersStack(t *testing.T) {
	t.Parallel()
	var audit bytes.Buffer
	opts := testOptions()
	opts.Audit = &audit
	ss := newSession(t, &workerPanics{}, opts)
	ss.do(initLine, initializedLine)
	got := ss.do(request("1", "tools/call", `{"name":"worker"}`), request("2", "tools/call", `{"name":"long"}`))
	want := []string{
		okReply("1", `{"content":[{"type":"text","text":"internal error: tool \"worker\" panicked: worker boom (run run-1)"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`),
		okReply("2", `{"content":[{"type":"text","text":"internal error: tool \"long\" panicked: `+strings.Repeat("é", 2048)+`…[5904 more bytes] (run run-2)"}],"isError":true,"_meta":{"jstk/runId":"run-2"}}`),
	}
	if d := diffMessages(t, want, got); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}
	var lines []struct{ RunID, Outcome, Panic, Stack string }
	dec := json.NewDecoder(&audit)
	for dec.More() {
		var l struct{ RunID, Outcome, Panic, Stack string }
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2", len(lines))
	}
	if l := lines[0]; l.RunID != "run-1" || l.Outcome != "panic" || l.Panic != "worker boom" ||
		!strings.Contains(l.Stack, "mcp.panicInWorker") || !strings.Contains(l.Stack, "(*Catcher).Do") {
		t.Errorf("audit line %+v: want run-1, outcome panic, and the stack of the worker that panicked", l)
	}
	if l := lines[1]; l.RunID != "run-2" || l.Outcome != "panic" || len(l.Panic) > 4200 || !strings.HasSuffix(l.Panic, "…[5904 more bytes]") {
		t.Errorf("audit line of a long panic: %.100q, want it cut at 4 KiB", l.Panic)
	}
}
