package e2e

// Hostile inputs against time and memory (issue 17, part B): every call can be stopped,
// every run has a budget, memory follows the answer. Each test generates its inputs in a
// workspace of its own and drives the real binary, on the command line and over MCP. The
// tests assert outcomes and sizes, never how long something took: where they wait, they
// wait for a generous deadline that only a hang misses. Timings and peak memory are
// recorded in BENCHMARKS.md ("Hostile workspace: time and memory").
//
// The large cases (a 20,000-schema ring, a 1M-line NDJSON file, 100 concurrent calls) run
// with JSTK_HOSTILE=full (as .ci/run does); by default smaller ones keep `go test ./...`
// fast.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fullHostile reports whether the large cases run.
func fullHostile() bool { return os.Getenv("JSTK_HOSTILE") == "full" }

const (
	// redosPattern backtracks exponentially on redosLine: every match runs into its
	// 2 s limit (the ECMA-262 engine; \s keeps it off Go's linear one).
	redosPattern = `^(\\w+\\s?)*$`
	// hang is how long a test waits before it calls something a hang.
	hang = 10 * time.Second
)

var redosLine = `"` + strings.Repeat("a", 40) + `!"`

// hostileWorkspace writes the inputs of this file to a new directory.
func hostileWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		// 50 lines of hostile strings: 2 s each without a budget for the run.
		"redos.schema.json": `{"type": "string", "pattern": "` + redosPattern + `"}`,
		"redos.ndjson":      strings.Repeat(redosLine+"\n", 50),
		// No string satisfies it, and every check of a candidate backtracks: a sample
		// runs until something stops it.
		"unsat.schema.json": `{"type": "string", "minLength": 30, "allOf": [{"pattern": "` + redosPattern + `"}, {"pattern": "!$"}]}`,
		// 20 hostile examples.
		"examples.schema.json": `{"type": "string", "pattern": "` + redosPattern + `", "examples": [` +
			strings.TrimSuffix(strings.Repeat(redosLine+",", 20), ",") + `]}`,
		"fine.json": `"fine words"`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startIn starts `jstk mcp --root root ARGS...` with pipes, initialized.
func startIn(t *testing.T, root string, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(jstkBin, append([]string{"mcp", "--root", root}, args...)...)
	r := &rawServer{cmd: cmd, stderr: &syncBuffer{}, lines: make(chan []byte, 1024), done: make(chan struct{}), rawOut: &syncBuffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.done)
		defer close(r.lines)
		br := bufio.NewReaderSize(io.TeeReader(stdout, r.rawOut), 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		r.stdin.Close()
		select {
		case <-r.done:
		case <-time.After(hang):
			r.cmd.Process.Kill()
		}
		r.cmd.Wait()
	})
	r.initialize(t)
	return r
}

// call sends a tools/call.
func (r *rawServer) call(t *testing.T, id, tool string, args map[string]any) {
	t.Helper()
	r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, mustJSON(t, args)))
}

// exited waits for the process to exit on its own (a hang after the deadline), and returns
// its exit code, how long it took, and what it wrote on stdout after the start of the wait.
func (r *rawServer) exited(t *testing.T) (code int, took time.Duration, rest []rpcLine) {
	t.Helper()
	start := time.Now()
	var out bytes.Buffer
	timer := time.NewTimer(hang)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-r.lines:
			if ok {
				out.Write(line)
				continue
			}
		case <-timer.C:
			r.cmd.Process.Kill()
			t.Fatalf("jstk mcp did not exit within %v; stderr:\n%s", hang, r.stderr)
		}
		break
	}
	err := r.cmd.Wait()
	took = time.Since(start)
	code = r.cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("jstk mcp died: %v; stderr:\n%s", err, r.stderr)
	}
	return code, took, checkStdout(t, out.Bytes())
}

// peakRSS is the peak resident memory of a running process, in bytes (0 if unknown).
//
// The calls of `jstk mcp` run in its engine process, a child: its peak counts too (the
// sum of the two is what the machine held at most).
func peakRSS(pid int) int64 {
	total := ownPeakRSS(pid)
	for _, c := range childrenOf(pid) {
		total += ownPeakRSS(c)
	}
	return total
}

// childrenOf lists the processes whose parent is pid, from /proc/*/stat.
func childrenOf(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kids = append(kids, n)
		}
	}
	return kids
}

// ownPeakRSS is one process's peak resident memory (VmHWM), in bytes.
func ownPeakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for l := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// hostileCalls are the calls that run until something stops them (no budget, no limit).
var hostileCalls = []struct {
	name, tool string
	args       map[string]any
}{
	{"sample", "sample", map[string]any{"schema": pathDoc("unsat.schema.json"), "count": 3}},
	{"validate", "validate", map[string]any{"schema": pathDoc("redos.schema.json"), "instances": []any{pathDoc("redos.ndjson")}}},
}

// TestHostileCallsCanBeStopped: a hostile sample and a hostile validation, which run for
// minutes without a budget, are stopped by notifications/cancelled (never answered; the
// server goes on), by closing stdin and by SIGTERM (the process exits 0 at once).
func TestHostileCallsCanBeStopped(t *testing.T) {
	needTool(t, "sample")
	needTool(t, "validate")
	ws := hostileWorkspace(t)
	unbounded := []string{"--regex-budget", "0", "--timeout", "0"}
	for _, hc := range hostileCalls {
		t.Run(hc.name+"/cancelled", func(t *testing.T) {
			r := startIn(t, ws, unbounded...)
			r.call(t, `"hostile"`, hc.tool, hc.args)
			time.Sleep(300 * time.Millisecond) // under way
			r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hostile"}}`)
			// The server goes on: a call after it is answered (it waits for the stopped
			// call's turn to end: --max-calls is the CPUs, and one may be all there is).
			r.call(t, `"after"`, "validate", map[string]any{"schema": pathDoc("redos.schema.json"), "instances": []any{pathDoc("fine.json")}})
			if m := r.answer(t, `"after"`, hang); m["result"] == nil {
				t.Fatalf("the call after the cancelled one failed: %s", m["error"])
			}
			r.stdin.Close()
			code, _, rest := r.exited(t)
			for _, m := range rest {
				if string(m.ID) == `"hostile"` {
					t.Errorf("the cancelled call was answered: %s", m.Result)
				}
			}
			if code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
		})
		for _, stop := range []string{"EOF", "SIGTERM"} {
			t.Run(hc.name+"/"+stop, func(t *testing.T) {
				r := startIn(t, ws, unbounded...)
				r.call(t, `"hostile"`, hc.tool, hc.args)
				time.Sleep(300 * time.Millisecond)
				if stop == "EOF" {
					r.stdin.Close()
				} else if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				code, took, rest := r.exited(t)
				t.Logf("%s: exit %d %v after %s", hc.name, code, took.Round(time.Millisecond), stop)
				if code != 0 {
					t.Errorf("exit %d after %s, want 0; stderr:\n%s", code, stop, r.stderr)
				}
				for _, m := range rest {
					if string(m.ID) == `"hostile"` && !strings.Contains(string(m.Result), `"isError":true`) {
						t.Errorf("the stopped call was answered as if it had finished: %.300s", m.Result)
					}
				}
			})
		}
	}
}

// TestHostileRunsHaveBudgets: the same inputs with budgets end as results that say why,
// on the command line and over MCP.
func TestHostileRunsHaveBudgets(t *testing.T) {
	needTool(t, "validate")
	ws := hostileWorkspace(t)
	cli := []struct {
		args []string
		out  string // in stdout or stderr
	}{
		{[]string{"validate", "--regex-budget", "500ms", "--schema", "redos.schema.json", "redos.ndjson"}, "stopped after "},
		{[]string{"validate", "--timeout", "0.5s", "--regex-budget", "0", "--schema", "redos.schema.json", "redos.ndjson"}, "the time limit of this run (0.5 s) was reached"},
		{[]string{"sample", "--count", "2", "--regex-budget", "500ms", "unsat.schema.json"}, "instances generated; stopped after "},
		{[]string{"lint", "--regex-budget", "500ms", "examples.schema.json"}, "jstk lint: stopped after "},
	}
	for _, c := range cli {
		cmd := exec.Command(jstkBin, c.args...)
		cmd.Dir = ws
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), c.out) {
			t.Errorf("jstk %s: exit %d, output:\n%s\nwant exit 2 and %q", strings.Join(c.args, " "), code, out, c.out)
		}
	}
	r := startIn(t, ws, "--regex-budget", "500ms")
	r.call(t, "1", "validate", map[string]any{"schema": pathDoc("redos.schema.json"), "instances": []any{pathDoc("redos.ndjson")}})
	m := r.answer(t, "1", 60*time.Second)
	var res struct {
		IsError           bool
		StructuredContent struct {
			Stopped string
			Valid   bool
			Summary struct{ Total int }
		}
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || res.IsError || res.StructuredContent.Valid ||
		!strings.HasPrefix(res.StructuredContent.Stopped, "stopped after ") || res.StructuredContent.Summary.Total >= 50 {
		t.Errorf("validate over MCP: %s (%v); want a result stopped by its budget", m["result"], err)
	}
}

// TestHostileValidateMemory: a paged validation keeps its page, not the instances; a cap
// on concurrent calls keeps the rest in line. Peak memory is read from /proc.
func TestHostileValidateMemory(t *testing.T) {
	needTool(t, "validate")
	// Before: 1M lines with limit 1 peaked at 660 MB, 100 calls on 10,000 lines at 1 GB.
	lines, calls, bound := 30_000, 10, int64(200<<20)
	if fullHostile() {
		lines, calls, bound = 1_000_000, 100, 300<<20
	}
	ws := t.TempDir()
	if err := writeOrders(filepath.Join(ws, "big.ndjson"), lines); err != nil {
		t.Fatal(err)
	}
	if err := writeOrders(filepath.Join(ws, "10k.ndjson"), 10_000); err != nil {
		t.Fatal(err)
	}
	schemas, err := filepath.Glob("../../examples/*.schema.json")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no example schemas (%v)", err)
	}
	for _, f := range schemas {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := startIn(t, ws)
	for _, args := range []map[string]any{
		{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("big.ndjson")}, "limit": 1},
		{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("big.ndjson")}, "invalidOnly": true},
	} {
		r.call(t, "1", "validate", args)
		m := r.answer(t, "1", 5*time.Minute)
		var res struct {
			StructuredContent struct {
				Instances []json.RawMessage
				Summary   struct{ Total int }
			}
		}
		if err := json.Unmarshal(m["result"], &res); err != nil || res.StructuredContent.Summary.Total != lines || len(res.StructuredContent.Instances) > 1 {
			t.Fatalf("validate %v: %.300s: %d instances listed, %d counted (%v); want at most 1 and %d", args, m["result"], len(res.StructuredContent.Instances), res.StructuredContent.Summary.Total, err, lines)
		}
	}
	paged := peakRSS(r.cmd.Process.Pid)
	for i := range calls {
		r.call(t, strconv.Itoa(100+i), "validate", map[string]any{"schema": pathDoc("order.schema.json"), "instances": []any{pathDoc("10k.ndjson")}})
	}
	for range calls {
		m := r.next(t, 5*time.Minute)
		if m["result"] == nil {
			t.Fatalf("a concurrent call failed: %s", m["error"])
		}
	}
	concurrent := peakRSS(r.cmd.Process.Pid)
	t.Logf("peak RSS: %d MB after %d lines paged, %d MB after %d concurrent calls on 10,000 lines", paged>>20, lines, concurrent>>20, calls)
	if !raceEnabled && (paged > bound || concurrent > bound) { // the race detector's memory is its own
		t.Errorf("peak RSS %d MB (paged), %d MB (concurrent); want under %d MB", paged>>20, concurrent>>20, bound>>20)
	}
}

// TestHostileRing: schemas referring to each other in a ring are catalogued (each compiled
// once, not the whole ring per schema): list_schemas answers, every schema compiles.
func TestHostileRing(t *testing.T) {
	needTool(t, "list_schemas")
	n := 2000
	if fullHostile() {
		n = 20_000
	}
	ws := t.TempDir()
	for i := range n {
		text := fmt.Sprintf(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://ring.test/s%d.json", "type": "object", "properties": {"next": {"$ref": "s%d.json"}}}`, i, (i+1)%n)
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("s%d.schema.json", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := startIn(t, ws)
	start := time.Now()
	r.call(t, "1", "list_schemas", map[string]any{"problemsOnly": true, "limit": 5})
	m := r.answer(t, "1", 2*time.Minute)
	t.Logf("list_schemas on a ring of %d: %v, peak RSS %d MB", n, time.Since(start).Round(time.Millisecond), peakRSS(r.cmd.Process.Pid)>>20)
	var res struct {
		IsError           bool
		StructuredContent struct {
			Matched   int
			Workspace struct{ Schemas int }
		}
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || res.IsError || res.StructuredContent.Matched != 0 || res.StructuredContent.Workspace.Schemas != n {
		t.Errorf("list_schemas: %.500s (%v); want %d schemas, none with a problem", m["result"], err, n)
	}
}

// TestHostileBoundary: a symbolic link, absolute or relative, is judged by where it leads;
// the audit log is never readable through a tool, and keeps secrets out and schemas in.
func TestHostileBoundary(t *testing.T) {
	needTool(t, "validate")
	ws := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "s.json"), []byte(`{"type": "object", "properties": {"password": {"type": "string", "minLength": 8}}}`), 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret.json"), []byte(`{"type": "string"}`), 0o644))
	must(os.Symlink(filepath.Join(ws, "s.json"), filepath.Join(ws, "abs-in.json")))
	must(os.Symlink("s.json", filepath.Join(ws, "rel-in.json")))
	must(os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(ws, "abs-out.json")))
	audit := filepath.Join(ws, "logs", "audit.jsonl")
	must(os.MkdirAll(filepath.Dir(audit), 0o755))
	must(os.Symlink("logs/audit.jsonl", filepath.Join(ws, "audit-link.json")))
	r := startIn(t, ws, "--audit", audit)
	results := map[string]string{}
	for i, path := range []string{"abs-in.json", "rel-in.json", "abs-out.json", "logs/audit.jsonl", "audit-link.json"} {
		id := strconv.Itoa(i + 1)
		r.call(t, id, "validate", map[string]any{"schema": pathDoc(path), "instances": []any{map[string]any{"value": map[string]any{"password": "hunter2", "db": "postgres://admin:pw@db/x"}}}})
		results[path] = string(r.answer(t, id, hang)["result"])
	}
	for path, want := range map[string]string{
		"abs-in.json":      "string is 7 characters long, less than the minimum of 8",
		"rel-in.json":      "string is 7 characters long, less than the minimum of 8",
		"abs-out.json":     "leads outside the workspace",
		"logs/audit.jsonl": "refused: it is the audit log of this server",
		"audit-link.json":  "refused: it is the audit log of this server",
	} {
		if !strings.Contains(results[path], want) {
			t.Errorf("validate with schema %s: %.400s; want %q", path, results[path], want)
		}
	}
	r.call(t, "9", "validate", map[string]any{"schema": map[string]any{"value": map[string]any{"properties": map[string]any{"password": map[string]any{"minLength": 8}}}},
		"instances": []any{map[string]any{"value": map[string]any{"password": "hunter2"}}}})
	r.answer(t, "9", hang)
	r.stdin.Close()
	if code, _, _ := r.exited(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	log, err := os.ReadFile(audit)
	must(err)
	for _, secret := range []string{"hunter2", "admin:pw"} {
		if bytes.Contains(log, []byte(secret)) {
			t.Errorf("the audit log holds %q:\n%s", secret, log)
		}
	}
	if !bytes.Contains(log, []byte(`"schema":{"value":{"properties":{"password":{"minLength":8}}}}`)) {
		t.Errorf("the audit log redacted the schema's property password, a subschema:\n%s", log)
	}
}
