package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The benchmarks measure the real process through pipes, without the SDK client, so what is
// timed is jstk (and the operating system), not a client library. Besides ns/op they report
// percentiles of the per-request latencies (the targets are medians and tails).
//
//	go test -run '^$' -bench . -benchtime 300x -count 5 ./internal/e2e

const (
	initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	discoverRequest   = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`
)

// BenchmarkStartToInitialize: from starting `jstk mcp` to reading its answer to initialize.
func BenchmarkStartToInitialize(b *testing.B) { benchStart(b, initializeRequest) }

// BenchmarkStartToDiscover: from starting `jstk mcp` to reading its answer to server/discover.
func BenchmarkStartToDiscover(b *testing.B) { benchStart(b, discoverRequest) }

func benchStart(b *testing.B, request string) {
	var lat []time.Duration
	for b.Loop() {
		cmd := exec.Command(jstkBin, "mcp", "--root", workDir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := io.WriteString(stdin, request+"\n"); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadBytes('\n')
		lat = append(lat, time.Since(start))
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) {
			b.Fatalf("answer %q, %v", line, err)
		}
		b.StopTimer() // the exit is not part of the measure
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportLatency(b, lat, time.Millisecond, "ms", 50, 90)
}

// reportLatency reports the given percentiles of lat, in unit.
func reportLatency(b *testing.B, lat []time.Duration, unit time.Duration, name string, percentiles ...int) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	for _, p := range percentiles {
		i := min(len(lat)-1, (len(lat)*p+99)/100-1)
		b.ReportMetric(float64(lat[max(0, i)])/float64(unit), fmt.Sprintf("p%d-%s", p, name))
	}
}

// warmServer is a started, initialized `jstk mcp` with raw pipes, for request round trips.
type warmServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

func startWarm(b *testing.B, flags ...string) *warmServer {
	b.Helper()
	cmd := exec.Command(jstkBin, append([]string{"mcp", "--root", workDir}, flags...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w := &warmServer{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20)}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	w.roundTrip(b, initializeRequest)
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return w
}

// roundTrip writes one request and reads one line, which must be its successful answer.
func (w *warmServer) roundTrip(b *testing.B, request string) {
	if _, err := io.WriteString(w.stdin, request+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := w.stdout.ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"result"`)) || bytes.Contains(line, []byte(`"isError":true`)) {
		b.Fatalf("answer %.300q, %v", line, err)
	}
}

// The small validate calls: a schema and an instance given inline, or as workspace files.
var smallValidate = map[string]string{
	"inline": `{"schema":{"value":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}},"instances":[{"value":{"a":1}}]}`,
	"files":  `{"schema":{"path":"small.schema.json"},"instances":[{"path":"small.json"}]}`,
}

func callRequest(id int, args string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"validate","arguments":` + args + `}}`
}

// BenchmarkValidateRoundTrip: one tools/call validate at a time on a warm server (the
// compiled schema is cached after the first call), from writing the request to reading the
// answer; with the engine process (the default) and without it (isolate=false). Besides the
// latency it reports cpu-us/call: the CPU time (user and system, from /proc) of the server
// and its engine process over the timed calls, divided by their number (Linux only; the
// clock ticks are 10 ms, so take it from runs of 1000 calls or more).
//
//	go test -run '^$' -bench ValidateRoundTrip -benchtime 2000x ./internal/e2e
//
// JSTK_E2E_BIN=path runs a binary built beforehand (to alternate two builds: go test -c, then
// the test binary with JSTK_E2E_BIN of each in turn).
// warmVariants are the warm servers the MCP benchmarks call: the call's arguments (a key
// of smallValidate) and jstk mcp's flags.
var warmVariants = []struct {
	name, args string
	flags      []string
}{
	{"inline", "inline", nil},
	{"files", "files", nil},
	{"inline-isolate=false", "inline", []string{"--isolate=false"}},
}

func BenchmarkValidateRoundTrip(b *testing.B) {
	for _, v := range warmVariants {
		b.Run(v.name, func(b *testing.B) {
			w := startWarm(b, v.flags...)
			for i := range 50 { // warm: compile and cache the schema, fault the code in
				w.roundTrip(b, callRequest(1000+i, smallValidate[v.args]))
			}
			var lat []time.Duration
			id := 2000
			cpu0, cpuOK := processTreeCPU(w.cmd.Process.Pid)
			for b.Loop() {
				id++
				req := callRequest(id, smallValidate[v.args])
				start := time.Now()
				w.roundTrip(b, req)
				lat = append(lat, time.Since(start))
			}
			cpu1, _ := processTreeCPU(w.cmd.Process.Pid)
			reportLatency(b, lat, time.Microsecond, "us", 50, 90, 99)
			if cpuOK && len(lat) > 0 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(time.Microsecond)/float64(len(lat)), "cpu-us/call")
			}
		})
	}
}

// BenchmarkThroughput8: tools/call validate with 8 requests in flight on a warm server (in
// the engine process, and in the server's own for inline-isolate=false); the metric calls/s
// is b.N over the time to send them all and read every answer. (b.N rather than b.Loop: the
// loop body is not one operation but a window of eight.)
func BenchmarkThroughput8(b *testing.B) {
	for _, v := range warmVariants {
		b.Run(v.name, func(b *testing.B) {
			w := startWarm(b, v.flags...)
			for i := range 20 {
				w.roundTrip(b, callRequest(1000+i, smallValidate[v.args]))
			}
			reqs := make([]string, b.N)
			for i := range reqs {
				reqs[i] = callRequest(10_000+i, smallValidate[v.args]) + "\n"
			}
			window := make(chan struct{}, 8) // a slot per request in flight
			failed := make(chan struct{})    // closed when an answer is wrong
			var readErr error                // set before failed is closed
			var wg sync.WaitGroup
			wg.Add(1)
			b.ResetTimer()
			start := time.Now()
			go func() {
				defer wg.Done()
				for range b.N {
					line, err := w.stdout.ReadBytes('\n')
					if err != nil || bytes.Contains(line, []byte(`"isError":true`)) || !bytes.Contains(line, []byte(`"result"`)) {
						readErr = fmt.Errorf("answer %.300q, %v", line, err)
						close(failed)
						return
					}
					<-window
				}
			}()
		send:
			for _, r := range reqs {
				select {
				case window <- struct{}{}:
				case <-failed:
					break send
				}
				if _, err := io.WriteString(w.stdin, r); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if readErr != nil {
				b.Fatal(readErr)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
		})
	}
}
