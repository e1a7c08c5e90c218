package e2e

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestManyCallsKeepMemoryFlat: the engine process's memory follows the call it runs, not
// the number of calls it ran. A pooled JSON parser once chained each document it parsed to
// the next, so that every large argument and instance stayed alive: 300 calls with a 354 KB
// instance left the engine at 786 MB. Here 160 calls with a 360 KB instance each (carried as
// arguments and parsed again as the instance) may not grow the engine by more than 64 MB
// between the 40th call and the last (80 and the 20th under the race detector); before the
// fix they grew it from 173 to 550 MB.
func TestManyCallsKeepMemoryFlat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the engine process's resident memory from /proc")
	}
	t.Parallel()
	r := startRaw(t)
	r.initialize(t)
	args := `{"schema":{"value":{"type":"array","items":{"type":"object","required":["a"]}}},"instances":[{"value":` + string(bigArray(8000)) + `}]}`
	calls, mark := 160, 40
	if raceEnabled {
		calls, mark = 80, 20 // the race build takes about 0.1 s a call
	}
	var engine int
	var atMark int64
	for i := 1; i <= calls; i++ {
		id := strconv.Itoa(i)
		r.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"validate","arguments":`+args+`}}`)
		m := r.answer(t, id, time.Minute)
		if res := string(m["result"]); !strings.Contains(res, `"valid":true`) || strings.Contains(res, `"isError":true`) {
			t.Fatalf("call %d: %.300s", i, res)
		}
		if i == mark {
			kids := childrenOf(r.cmd.Process.Pid)
			if len(kids) != 1 {
				t.Fatalf("the server has %d children, want its one engine process", len(kids))
			}
			engine, atMark = kids[0], residentMB(t, kids[0])
		}
	}
	last := residentMB(t, engine)
	t.Logf("engine process: %d MB after %d calls, %d MB after %d", atMark, mark, last, calls)
	if last-atMark > 64 {
		t.Errorf("the engine process grew from %d to %d MB over %d calls of the same size", atMark, last, calls-mark)
	}
}

// TestValidateManyFilesKeepsMemoryFlat: validating a directory keeps no file's document
// once it is checked. With the pooled parser's chain (see TestManyCallsKeepMemoryFlat), 200
// files of 354 KB took `jstk validate` to a peak of 207-214 MB; now 36-44 MB.
func TestValidateManyFilesKeepsMemoryFlat(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"schema.json": []byte(`{"type": "array", "items": {"type": "object", "required": ["a"]}}`)}
	doc := bigArray(8000)
	for i := range 150 {
		files[fmt.Sprintf("data/f%03d.json", i)] = doc
	}
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/data", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(dir+"/"+name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runHostile(t, dir, "validate", "--schema", "schema.json", "data")
	r.check(t, 0, 1000, 100, "150 instances: 150 valid")
}

// residentMB is the resident memory of process pid (VmRSS), in megabytes.
func residentMB(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS of %d: %v", pid, err)
			}
			return kb >> 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
