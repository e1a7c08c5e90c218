package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 26: nothing an input does ends the server. The calls of `jstk mcp` run in an engine
// process; a call that kills it (a stack overflow, a heap past --max-memory) is answered
// isError, naming the fatal error and its input, and the server answers ping and the next
// calls. JSTK_TEST_CRASH=1 arms the worker's test-only triggers (a real stack overflow, a
// heap that grows without end), which prove the supervision whatever bounds the engines
// gain; the real inputs of the issue (400,000 nested groups in a pattern) run with
// JSTK_HOSTILE=full: each crash takes about 30 s and 1 GB here.

// crashEnv arms the worker's test-only crash triggers.
var crashEnv = []string{"JSTK_TEST_CRASH=1"}

// callResult is a tools/call result as the tests read it.
type callResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta map[string]any `json:"_meta"`
}

// result waits for the answer to id and decodes it as a tools/call result.
func (r *rawServer) result(t *testing.T, id string, timeout time.Duration) callResult {
	t.Helper()
	m := r.answer(t, id, timeout)
	var res callResult
	if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("call %s: no tool result (%v): %s; stderr:\n%.3000s", id, err, m["error"], r.stderr)
	}
	return res
}

// stillServes asserts that the server answers ping and a normal validate.
func (r *rawServer) stillServes(t *testing.T, id int) {
	t.Helper()
	r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := r.answer(t, fmt.Sprint(id), time.Minute); m["result"] == nil {
		t.Fatalf("ping after the crash: %s", m["error"])
	}
	r.call(t, fmt.Sprint(id+1), "validate", map[string]any{"schema": valueDoc(map[string]any{"type": "string"}), "instances": []any{valueDoc("x"), valueDoc(1)}})
	res := r.result(t, fmt.Sprint(id+1), time.Minute)
	if res.IsError || !strings.Contains(res.Content[0].Text, "2 instances: 1 valid, 1 invalid") {
		t.Fatalf("validate after the crash: isError %v:\n%s", res.IsError, res.Content[0].Text)
	}
}

// TestHostileCrashIsContained: a call that overflows the stack of the engine process is
// answered isError naming the fatal error, a call that ran beside it is run again and
// answered as if nothing happened, the server answers ping and the next calls, and the
// audit log has a line for every call.
func TestHostileCrashIsContained(t *testing.T) {
	t.Parallel()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	r := startRawEnv(t, workDir, crashEnv, "--audit", audit)
	r.initialize(t)
	crash := map[string]any{"schema": valueDoc(map[string]any{"type": "string", "description": "jstk-test-crash:stack-overflow"}), "instances": []any{valueDoc("x")}}
	beside := map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("medium.ndjson")}}

	// Alone.
	r.call(t, "1", "validate", crash)
	res := r.result(t, "1", 2*time.Minute)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "this input crashed the engine: fatal error: stack overflow") ||
		!strings.Contains(res.Content[0].Text, "nothing else was affected") || !strings.Contains(res.Content[0].Text, "schema: inline value") {
		t.Fatalf("the crashing call: isError %v:\n%s", res.IsError, res.Content[0].Text)
	}
	r.stillServes(t, 2)

	// Beside another call: the other is run again, alone, and answered in full.
	r.call(t, "4", "validate", beside)
	r.call(t, "5", "validate", crash)
	got := map[string]callResult{}
	for len(got) < 2 {
		m := r.next(t, 2*time.Minute)
		id := string(m["id"])
		if id != "4" && id != "5" {
			continue // a notification
		}
		var res callResult
		if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Content) == 0 {
			t.Fatalf("call %s: %s", id, m["error"])
		}
		got[id] = res
	}
	if res := got["5"]; !res.IsError || !strings.Contains(res.Content[0].Text, "fatal error: stack overflow") {
		t.Errorf("the crashing call beside another: isError %v:\n%s", res.IsError, res.Content[0].Text)
	}
	if res := got["4"]; res.IsError || !strings.Contains(res.Content[0].Text, fmt.Sprintf("%d instances", mediumLines)) {
		t.Errorf("the call beside the crash: isError %v:\n%.500s", res.IsError, res.Content[0].Text)
	}
	r.stillServes(t, 6)

	r.stdin.Close()
	<-r.done
	r.cmd.Wait()
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("jstk mcp exited with %d", code)
	}
	lines := readAudit(t, audit) // calls 1, 3, 4, 5 and 7
	if len(lines) != 5 {
		t.Errorf("%d audit lines for 5 calls", len(lines))
	}
	errors := 0
	for _, l := range lines {
		if l["outcome"] == "error" {
			errors++
		}
	}
	if errors != 2 {
		t.Errorf("%d audit lines with outcome error, want the 2 crashes", errors)
	}
	if !strings.Contains(r.stderr.String(), "fatal error: stack overflow") {
		t.Errorf("stderr does not say why the engine ended:\n%.2000s", r.stderr)
	}
}

// TestHostileWorkerEndsWithServer: the engine process never outlives the server, whether
// it ends at EOF, at SIGTERM or is killed.
func TestHostileWorkerEndsWithServer(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "sigterm", "sigkill"} {
		t.Run(how, func(t *testing.T) {
			r := startRawIn(t, workDir)
			r.initialize(t)
			r.call(t, "1", "validate", map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("small.json")}})
			r.result(t, "1", time.Minute)
			kids := childrenOf(r.cmd.Process.Pid)
			if len(kids) != 1 {
				t.Fatalf("the server has %d children, want its one engine process", len(kids))
			}
			switch how {
			case "eof":
				r.stdin.Close()
			case "sigterm":
				r.cmd.Process.Signal(syscall.SIGTERM)
			case "sigkill":
				r.cmd.Process.Kill()
			}
			<-r.done
			r.cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for alive(kids[0]) {
				if time.Now().After(deadline) {
					t.Fatalf("the engine process %d outlived the server (%s)", kids[0], how)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// alive reports whether the process pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(data[i+1:]), []byte("Z"))
}

// bigArray is a JSON array of n small objects (about 45 bytes each).
func bigArray(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":%d,"b":"xxxxxxxxxxxxxxxxxxxxxxx"}`, i)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// TestHostileMemoryBudget: a call whose heap passes --max-memory is stopped with an error
// that says so and names its input, and the server answers ping and the next calls; the
// CLI stops a run past its budget with exit code 2.
func TestHostileMemoryBudget(t *testing.T) {
	t.Parallel()
	dir := writeHostile(t, map[string][]byte{
		"big.json":    bigArray(800_000),
		"array.json":  []byte(`{"type": "array"}`),
		"string.json": []byte(`{"type": "string"}`),
	})
	r := startRawEnv(t, dir, crashEnv, "--max-memory", "32M")
	r.initialize(t)
	for i, c := range []struct {
		name string
		args map[string]any
	}{
		{"a 35 MB array", map[string]any{"schema": pathDoc("array.json"), "instances": []any{pathDoc("big.json")}}},
		{"a heap that grows without end", map[string]any{"schema": pathDoc("string.json"), "instances": []any{textDoc(`"jstk-test-crash:memory"`)}}},
	} {
		id := fmt.Sprint(10 * (i + 1))
		r.call(t, id, "validate", c.args)
		res := r.result(t, id, 2*time.Minute)
		if !res.IsError || !strings.Contains(res.Content[0].Text, "exceeded the memory budget of 32 MB (--max-memory)") ||
			!strings.Contains(res.Content[0].Text, "instances: [") {
			t.Errorf("%s: isError %v:\n%s", c.name, res.IsError, res.Content[0].Text)
		}
		r.stillServes(t, 10*(i+1)+1)
	}

	cmd := exec.Command(jstkBin, "validate", "--max-memory", "32M", "--schema", filepath.Join(dir, "array.json"), filepath.Join(dir, "big.json"))
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "exceeded the memory budget of 32 MB") ||
		!strings.Contains(string(out), "big.json") {
		t.Errorf("jstk validate past its budget: %v:\n%s", err, out)
	}
	if out, err := exec.Command(jstkBin, "validate", "--max-memory", "2GiB", "--schema", filepath.Join(dir, "array.json"), filepath.Join(dir, "big.json")).CombinedOutput(); err != nil {
		t.Errorf("jstk validate within its budget: %v:\n%s", err, out)
	}
}

// TestHostileAuditSecretsInTexts: the secrets of text documents, and those inside longer
// strings, never reach the audit log; an unparsable text is logged by size and hash only.
func TestHostileAuditSecretsInTexts(t *testing.T) {
	t.Parallel()
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	r := startRawIn(t, workDir, "--audit", audit)
	r.initialize(t)
	object := valueDoc(map[string]any{"type": "object"})
	calls := []map[string]any{
		{"schema": object, "instances": []any{textDoc("user: a\npassword: hunter2Plain\n")}},
		{"schema": object, "instances": []any{valueDoc(map[string]any{"note": "curl -H 'Authorization: Bearer abc.def' https://api.example.com"})}},
		{"schema": object, "instances": []any{textDoc("{\"note\": \"call with Bearer abc.def now\", \"api_key\": \"k3yK3yK3y\"}")}},
		{"schema": object, "instances": []any{textDoc("{not: [valid, hunter2Broken")}},
		{"schema": textDoc("type: object\nproperties:\n  password: {type: string}\n"), "instances": []any{textDoc("password = \"hunter2Toml\"\n")}},
	}
	for i, args := range calls {
		r.call(t, fmt.Sprint(i+1), "validate", args)
		r.result(t, fmt.Sprint(i+1), time.Minute)
	}
	r.stdin.Close()
	<-r.done
	r.cmd.Wait()
	raw, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2Plain", "abc.def", "k3yK3yK3y", "hunter2Broken", "hunter2Toml"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the audit log holds %q", secret)
		}
	}
	lines := readAudit(t, audit)
	if len(lines) != len(calls) {
		t.Fatalf("%d audit lines for %d calls:\n%s", len(lines), len(calls), raw)
	}
	for _, want := range []string{`"user":"a"`, `"password":"[REDACTED]"`, `Authorization: [REDACTED]`, `"sha256":"`, `"properties":{"password":{"type":"string"}}`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the audit log lacks %s:\n%s", want, raw)
		}
	}
}

// nestedGroups is a pattern of n nested groups around "a": 2n+1 bytes.
// TestHostileNestedGroups: a pattern of 400,000 nested groups (regexp2's parser overflowed
// its stack on it) through every route of the issue: each call is answered (isError) and
// the server answers ping and the next calls.
func TestHostileNestedGroups(t *testing.T) {
	if !hostileFull() {
		t.Skip("JSTK_HOSTILE=full runs it (each crash of the engine takes about 30 s and 1 GB)")
	}
	t.Parallel()
	pattern := nestedGroups(400_000)
	groups := map[string]any{"type": "string", "pattern": pattern}
	dir := writeHostile(t, map[string][]byte{"groups.schema.json": []byte(mustJSONBytes(t, groups))})
	r := startRawIn(t, dir)
	r.initialize(t)
	routes := []struct {
		tool string
		args map[string]any
	}{
		{"validate", map[string]any{"schema": valueDoc(groups), "instances": []any{valueDoc("a")}}},
		{"validate", map[string]any{"schema": valueDoc(map[string]any{"format": "regex"}), "assertFormat": true, "instances": []any{valueDoc(pattern)}}},
		{"lint", map[string]any{"schemas": []any{valueDoc(groups)}}},
		{"sample", map[string]any{"schema": valueDoc(groups)}},
		{"list_schemas", map[string]any{}},
	}
	for i, c := range routes {
		id := fmt.Sprint(100 * (i + 1))
		start := time.Now()
		r.call(t, id, c.tool, c.args)
		res := r.result(t, id, 5*time.Minute)
		// Answered: isError "crashed the engine" while regexp2's parser has no depth limit,
		// whatever the engines say of the pattern once it has one.
		t.Logf("%s (route %d): isError %v after %v: %.300s", c.tool, i, res.IsError, time.Since(start).Round(time.Millisecond), res.Content[0].Text)
		r.stillServes(t, 100*(i+1)+1)
	}
}

func mustJSONBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestIsolateFalse: with --isolate=false the calls run in the server's own process (no
// engine process is started).
func TestIsolateFalse(t *testing.T) {
	t.Parallel()
	r := startRawIn(t, workDir, "--isolate=false")
	r.initialize(t)
	r.stillServes(t, 1)
	if kids := childrenOf(r.cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("the server has %d children with --isolate=false", len(kids))
	}
}

// TestEngineAnswersAsTheServerDoes: the engine process writes small answers to the
// client itself (Linux, a blocking pipe: as here); what the client reads is what the
// server sends when it relays every answer (JSTK_MCP_DIRECT=0), but for the run ids. A
// result too large for one atomic write, and ping and tools/list between the calls, come
// from the server on the same stream without breaking a line.
func TestEngineAnswersAsTheServerDoes(t *testing.T) {
	t.Parallel()
	run := func(env []string, direct bool) []string {
		r := startRawEnv(t, workDir, env)
		r.initialize(t)
		calls := []map[string]any{
			{"schema": valueDoc(map[string]any{"type": "string"}), "instances": []any{valueDoc("x"), valueDoc(1)}},
			{"schema": valueDoc(map[string]any{"type": "integer"}), "instances": []any{valueDoc(2)}},
			{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("medium.ndjson")}},
		}
		var got []string
		for i, args := range calls {
			r.call(t, fmt.Sprint(10+i), "validate", args)
			r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 20+i))
		}
		r.send(t, `{"jsonrpc":"2.0","id":30,"method":"tools/list"}`)
		for len(got) < 2*len(calls)+1 {
			m := r.next(t, time.Minute)
			if m["id"] == nil {
				continue
			}
			b, _ := json.Marshal(m)
			got = append(got, runIDs.ReplaceAllString(string(b), `"jstk/runId":"R"`))
		}
		// The engine process holds the client's stream as its fd 4 only on the direct path.
		// It is looked at once the calls are answered: the engine has run them, so it is
		// past its exec (a child seen between fork and exec has not its descriptors yet).
		// A scan of /proc may still miss it, or catch a descriptor being replaced: asked
		// again, for at most 10 s, until it shows one engine and, on the direct path, its fd 4.
		out, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", r.cmd.Process.Pid))
		var kids []int
		fd4 := ""
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if kids = childrenOf(r.cmd.Process.Pid); len(kids) == 1 {
				fd4, _ = os.Readlink(fmt.Sprintf("/proc/%d/fd/4", kids[0]))
			}
			if len(kids) == 1 && (fd4 == out || !direct) || time.Now().After(deadline) {
				break
			}
		}
		if len(kids) != 1 {
			t.Fatalf("%d engine processes", len(kids))
		} else if (fd4 == out) != direct || out == "" {
			t.Fatalf("direct %v: the engine's fd 4 is %q, the server's stdout %q", direct, fd4, out)
		}
		r.stdin.Close()
		<-r.done
		r.cmd.Wait()
		slices.Sort(got)
		return got
	}
	relayed, direct := run([]string{"JSTK_MCP_DIRECT=0"}, false), run(nil, true)
	if !slices.Equal(relayed, direct) {
		t.Errorf("answers differ:\nrelayed: %.3000s\ndirect:  %.3000s", relayed, direct)
	}
	if len(direct) != 7 || !strings.Contains(strings.Join(direct, "\n"), fmt.Sprintf("%d instances", mediumLines)) {
		t.Errorf("answers: %.3000s", direct)
	}
}

// runIDs matches the run id of a result.
var runIDs = regexp.MustCompile(`"jstk/runId":"[^"]*"`)
