package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/tools"
)

// rpcLine is one stdout line of `jstk mcp`, decoded strictly.
type rpcLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data"`
	} `json:"error"`
}

// checkStdout asserts that stdout is a sequence of complete lines, each one JSON-RPC 2.0
// message: a response (an id, and exactly one of result or error) or a notification that a
// server may send (notifications/progress). It returns the decoded lines.
func checkStdout(t *testing.T, out []byte) []rpcLine {
	t.Helper()
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Errorf("stdout does not end with a newline: ...%q", out[max(0, len(out)-200):])
	}
	var lines []rpcLine
	for l := range bytes.Lines(out) {
		var members map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(l))
		if err := dec.Decode(&members); err != nil || dec.More() {
			t.Errorf("stdout line is not one JSON object (%v): %.300q", err, l)
			continue
		}
		var m rpcLine
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("stdout line is not a JSON-RPC message (%v): %.300q", err, l)
			continue
		}
		_, hasID := members["id"]
		switch {
		case m.JSONRPC != "2.0":
			t.Errorf("stdout line without \"jsonrpc\": \"2.0\": %.300q", l)
		case hasID && m.Method == "" && (m.Result == nil) != (m.Error == nil):
			// a response
		case !hasID && m.Method == "notifications/progress":
		default:
			t.Errorf("stdout line is neither a response nor a progress notification: %.300q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestStdoutIsOnlyJSONRPC feeds the raw binary a script of hostile and odd lines, ending in
// EOF in the middle of a line: every byte it writes to stdout is a JSON-RPC message, each
// request with a valid id is answered exactly once, with the expected kind of answer, and
// the process exits 0 at EOF.
func TestStdoutIsOnlyJSONRPC(t *testing.T) {
	needTool(t, "validate")
	hugeSize := 10 << 20 // more than the stdio loop's 1 MiB read buffer
	if raceEnabled {
		hugeSize = 2 << 20 // still more than the buffer; the race build is slow to scan it
	}
	huge := `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"` + strings.Repeat("x", hugeSize) + `"}}`
	deep := `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}}`
	call := func(id, args string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"validate","arguments":` + args + `}}`
	}
	script := []string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`garbage`,
		``,
		"   \t ",
		`[{"jsonrpc":"2.0","id":"in-batch","method":"ping"}]`,
		`[]`,
		huge,
		"{\"jsonrpc\":\"2.0\",\"id\":\"utf8\",\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}",
		deep,
		`{"jsonrpc":"1.0","id":"v1","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`null`, `42`, `"text"`, `{}`,
		`{"jsonrpc":"2.0","method":"no/such/notification"}`,
		`{"jsonrpc":"2.0","id":"a-response","result":{}}`,
		`{"jsonrpc":"2.0","id":"unknown-method","method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":"bad-params","method":"tools/list","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":"unknown-tool","method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		call("bad-args", `{"instances":"x"}`),
		call("handler-error", `{"schema":{"path":"broken.schema.json"},"instances":[{"path":"small.json"}]}`),
		call("outside", `{"schema":{"path":"link-out.json"},"instances":[{"path":"small.json"}]}`),
		call("findings", `{"schema":{"path":"order.schema.json"},"instances":[{"path":"orders-with-errors.ndjson"}]}`),
		call("progress", `{"schema":{"path":"order.schema.json"},"instances":[{"path":"medium.ndjson"}],"invalidOnly":true},"_meta":{"progressToken":"p"}`),
		`{"jsonrpc":"2.0","id":"discover-no-meta","method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":"modern","method":"tools/list","params":{` + modernMeta + `}}`,
		`{"jsonrpc":"2.0","id":"future","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":"crlf","method":"ping"}` + "\r",
		`{"jsonrpc":"2.0","id":"last","method":"ping"}`,
	}
	input := strings.Join(script, "\n") + "\n" + `{"jsonrpc":"2.0","id":"cut","method":"pi` // EOF mid-line
	// The answer expected for every request with a valid id: "result", "isError" (a result
	// with isError: true), or the error code.
	want := map[string]string{
		`"init"`: "result", `"huge"`: "result", `"deep"`: "-32600", `"v1"`: "-32600",
		`"unknown-method"`: "-32601", `"bad-params"`: "-32602", `"unknown-tool"`: "-32602",
		`"bad-args"`: "isError", `"handler-error"`: "isError", `"outside"`: "isError",
		`"findings"`: "result", `"progress"`: "result", `"discover-no-meta"`: "-32602", `"modern"`: "result",
		`"future"`: "-32022", `"crlf"`: "result", `"last"`: "result",
	}
	// Answered with id null: garbage, two batches, invalid UTF-8, id null, id 1.5, null, 42,
	// "text", {} and the line cut by EOF.
	const nullIDErrors = 11

	// The whole script is written at once and stdin closes at its end: calls still running
	// then must finish (a loaded machine may take over the default half second of --drain).
	cmd := exec.Command(jstkBin, "mcp", "--root", workDir, "--drain", "10m")
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("jstk mcp: %v (want exit 0 at EOF); stderr:\n%s", err, stderr.String())
	}
	got := map[string]string{}
	nulls, progress := 0, 0
	for _, m := range checkStdout(t, stdout.Bytes()) {
		switch {
		case m.Method == "notifications/progress":
			progress++
			continue
		case string(m.ID) == "null":
			nulls++
			continue
		}
		kind := "result"
		if m.Error != nil {
			kind = fmt.Sprint(m.Error.Code)
		} else if bytes.Contains(m.Result, []byte(`"isError":true`)) {
			kind = "isError"
		}
		if prev, dup := got[string(m.ID)]; dup {
			t.Errorf("id %s answered twice (%s, %s)", m.ID, prev, kind)
		}
		got[string(m.ID)] = kind
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers by id (-want +got):\n%s", diff)
	}
	if nulls != nullIDErrors {
		t.Errorf("%d errors with id null, want %d", nulls, nullIDErrors)
	}
	if progress == 0 {
		t.Errorf("no progress notification for the call with a progress token")
	}
}

// TestEOFWaitsForCallsInFlight: stdin closed while eight calls run concurrently, each with a
// large answer (every instance invalid) and progress notifications: given the time to
// finish (--drain; by default calls still running half a second after EOF are cancelled,
// see hostile_budget_test.go), every call is answered, each message is written whole on its
// own line, and the process exits 0.
func TestEOFWaitsForCallsInFlight(t *testing.T) {
	needTool(t, "validate")
	strict := `{"value":{"properties":{"id":{"pattern":"^NEVER"},"status":{"const":"never"}}}}`
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}` + "\n")
	const n = 8
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"validate","arguments":{"schema":%s,"instances":[{"path":"medium.ndjson"}]},"_meta":{"progressToken":%d}}}`+"\n", i, strict, i)
	}
	cmd := exec.Command(jstkBin, "mcp", "--root", workDir, "--drain", "10m")
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("jstk mcp: %v; stderr:\n%s", err, stderr.String())
	}
	answered, progress := map[string]int{}, 0
	for _, m := range checkStdout(t, stdout.Bytes()) {
		switch {
		case m.Method == "notifications/progress":
			progress++
		case m.Result != nil && string(m.ID) != "0":
			var res struct {
				IsError           bool
				StructuredContent struct{ Summary struct{ Invalid int } }
			}
			if err := json.Unmarshal(m.Result, &res); err != nil || res.IsError || res.StructuredContent.Summary.Invalid != mediumLines {
				t.Errorf("call %s: isError %v, %d invalid (%v); want %d invalid", m.ID, res.IsError, res.StructuredContent.Summary.Invalid, err, mediumLines)
			}
			answered[string(m.ID)]++
		}
	}
	if len(answered) != n {
		t.Errorf("%d of %d calls in flight at EOF were answered: %v", len(answered), n, answered)
	}
	if progress < n {
		t.Errorf("%d progress notifications for %d calls with a progress token", progress, n)
	}
	if stdout.Len() < n*tools.DefaultLimit*100 {
		t.Errorf("only %d bytes on stdout: the answers are not the large ones this test needs", stdout.Len())
	}
}

// sigtermDuringCall starts a long validate on a raw server (with an audit log), waits until
// it reports progress, sends SIGTERM, and returns the rest of stdout, the exit code, and the
// audit file.
func sigtermDuringCall(t *testing.T) (rest []rpcLine, code int, audit string) {
	t.Helper()
	audit = filepath.Join(t.TempDir(), "audit.jsonl")
	// A generous grace: a cancelled call on a loaded machine (the race build, other tests)
	// once took more than the default half second to answer.
	r := startRaw(t, "--audit", audit, "--grace", "30s")
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"validate","arguments":{"schema":{"path":"order.schema.json"},"instances":[{"path":"big.ndjson"}],"limit":1},"_meta":{"progressToken":"t"}}}`)
	if m := r.next(t, 60*time.Second); !strings.Contains(string(m["method"]), "notifications/progress") {
		t.Fatalf("want progress first, got %v", m)
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for line := range r.lines {
		out.Write(line)
	}
	err := r.cmd.Wait()
	code = r.cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("jstk mcp did not exit on its own after SIGTERM: %v", err)
	}
	return checkStdout(t, out.Bytes()), code, audit
}

// TestSIGTERMExitsCleanly: SIGTERM while a call runs ends the process with exit 0, and what
// it wrote to stdout up to then is whole JSON-RPC lines.
func TestSIGTERMExitsCleanly(t *testing.T) {
	needTool(t, "validate")
	_, code, _ := sigtermDuringCall(t)
	if code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
}

// TestSIGTERMAnswersTheCallInFlight: after SIGTERM the call in flight is stopped and still
// answered, and its audit line written, before the process exits, as internal/mcp's doc
// comment tells the stdio loop to do ("at EOF (and after SIGTERM) call Server.Wait so that
// in-flight calls finish and their responses are written, then exit 0").
func TestSIGTERMAnswersTheCallInFlight(t *testing.T) {
	needTool(t, "validate")
	rest, code, audit := sigtermDuringCall(t)
	if code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
	answered := false
	for _, m := range rest {
		answered = answered || string(m.ID) == `"long"`
	}
	if !answered {
		t.Errorf("the call in flight at SIGTERM was not answered")
	}
	data, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"outcome":"`+mcp.OutcomeCancelled+`"`)) {
		t.Errorf("no audit line with outcome %q for the call stopped by SIGTERM; audit file: %q", mcp.OutcomeCancelled, data)
	}
}

// TestNothingButProtocolOnStdoutAtStart: the start-up report goes to stderr; with no input
// the process writes nothing to stdout and exits 0.
func TestNothingButProtocolOnStdoutAtStart(t *testing.T) {
	cmd := exec.Command(jstkBin, "mcp", "--root", workDir)
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("jstk mcp: %v", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout without any request: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("serving %d tools", len(tools.All()))) {
		t.Errorf("stderr does not report the tools served: %q", stderr.String())
	}
}
