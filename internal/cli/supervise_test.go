package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testWorkerName is the name under which this test binary runs as a worker of the
// supervisor's tests (see TestMain): it answers jobs by their payload's "op".
const testWorkerName = "jstk-supervise-test-worker"

// testWorker serves jobs: "echo" answers its payload, "slow" after 300 ms, "crash" dies with
// a fatal error line on stderr, "memory" dies as a worker past its budget does, "progress"
// reports twice then answers, "wait" answers "cancelled" once cancelled, "hang" never
// answers.
func testWorker() {
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	write := func(m jobMessage) {
		mu.Lock()
		defer mu.Unlock()
		out.Write(appendJobMessage(nil, m))
		out.Flush()
	}
	cancels := map[uint64]chan struct{}{}
	var cmu sync.Mutex
	in := bufio.NewReader(os.Stdin)
	for {
		m, err := readJobMessage(in)
		if err == io.EOF {
			return
		}
		if err != nil {
			os.Exit(3)
		}
		if m.Cancel {
			cmu.Lock()
			if c := cancels[m.Job]; c != nil {
				close(c)
				delete(cancels, m.Job)
			}
			cmu.Unlock()
			continue
		}
		var p struct{ Op string }
		json.Unmarshal(m.Payload, &p)
		c := make(chan struct{})
		cmu.Lock()
		cancels[m.Job] = c
		cmu.Unlock()
		go func() {
			switch p.Op {
			case "slow":
				time.Sleep(300 * time.Millisecond)
			case "crash":
				time.Sleep(50 * time.Millisecond)
				fmt.Fprintln(os.Stderr, "runtime: goroutine stack exceeds 1000000000-byte limit")
				fmt.Fprintln(os.Stderr, "fatal error: stack overflow")
				os.Exit(2)
			case "memory":
				fmt.Fprintln(os.Stderr, "jstk: memory budget of 1 MB exceeded (heap 2 MB): stopping the engine")
				os.Exit(exitMemoryBudget)
			case "progress":
				write(jobMessage{Job: m.Job, Progress: json.RawMessage(`{"p":1}`)})
				write(jobMessage{Job: m.Job, Progress: json.RawMessage(`{"p":2}`)})
			case "hang": // answers nothing, as a job whose worker answered the client itself
				<-c
				return
			case "wait":
				<-c
				write(jobMessage{Job: m.Job, Result: json.RawMessage(`"cancelled"`)})
				return
			}
			write(jobMessage{Job: m.Job, Result: m.Payload})
		}()
	}
}

func newTestSupervisor(t *testing.T) (*supervisor, func() string) {
	var log strings.Builder
	var mu sync.Mutex
	s := newSupervisor(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Args[0] = testWorkerName
		cmd.SysProcAttr = workerAttr()
		return cmd
	}, func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&log, format+"\n", args...)
	})
	t.Cleanup(func() { s.Close(time.Second) })
	return s, func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
}

func job(op string) json.RawMessage { return json.RawMessage(`{"Op":"` + op + `"}`) }

func TestSupervisorRunsJobs(t *testing.T) {
	s, _ := newTestSupervisor(t)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), job("echo"), jobHooks{})
	if err != nil || string(res) != `{"Op":"echo"}` {
		t.Fatalf("echo: %s, %v", res, err)
	}
	var reports []string
	res, err = s.Run(context.Background(), job("progress"), jobHooks{progress: func(r json.RawMessage) { reports = append(reports, string(r)) }})
	if err != nil || string(res) != `{"Op":"progress"}` || strings.Join(reports, " ") != `{"p":1} {"p":2}` {
		t.Fatalf("progress: %s, %v, reports %v", res, err, reports)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err = s.Run(ctx, job("wait"), jobHooks{})
	if err != nil || string(res) != `"cancelled"` {
		t.Fatalf("a cancelled job: %s, %v", res, err)
	}
}

func TestSupervisorContainsCrashes(t *testing.T) {
	s, log := newTestSupervisor(t)
	_, err := s.Run(context.Background(), job("crash"), jobHooks{})
	var c *crashError
	if !errors.As(err, &c) || c.reason != "fatal error: stack overflow" || c.memory {
		t.Fatalf("a crash alone: %v", err)
	}
	if res, err := s.Run(context.Background(), job("echo"), jobHooks{}); err != nil || string(res) != `{"Op":"echo"}` {
		t.Fatalf("after a crash, a new worker: %s, %v", res, err)
	}
	// Beside other jobs: they are run again, alone, and answered; the crash is named.
	var wg sync.WaitGroup
	results := make([]string, 3)
	for i, op := range []string{"slow", "crash", "slow"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 1 {
				time.Sleep(20 * time.Millisecond) // the slow ones are running
			}
			res, err := s.Run(context.Background(), job(op), jobHooks{})
			if err != nil {
				results[i] = "error: " + err.Error()
			} else {
				results[i] = string(res)
			}
		}()
	}
	wg.Wait()
	want := []string{`{"Op":"slow"}`, "error: fatal error: stack overflow", `{"Op":"slow"}`}
	if strings.Join(results, "|") != strings.Join(want, "|") {
		t.Errorf("jobs beside a crash: %q, want %q", results, want)
	}
	if l := log(); !strings.Contains(l, "is run again, alone") || !strings.Contains(l, "engine: fatal error: stack overflow") {
		t.Errorf("the log:\n%s", l)
	}
	_, err = s.Run(context.Background(), job("memory"), jobHooks{})
	if !errors.As(err, &c) || !c.memory {
		t.Fatalf("past the memory budget: %v", err)
	}
}

func TestSupervisorClose(t *testing.T) {
	s, _ := newTestSupervisor(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), job("wait"), jobHooks{})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	s.Close(100 * time.Millisecond) // the job does not end: the worker is killed
	select {
	case err := <-done:
		if err == nil {
			t.Error("a job killed at Close has no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	if _, err := s.Run(context.Background(), job("echo"), jobHooks{}); err != errClosed {
		t.Errorf("a job after Close: %v", err)
	}
}

func TestMemoryBudgetSources(t *testing.T) {
	if got := parseMeminfo([]byte("MemFree: 1 kB\nMemTotal:       24683756 kB\n")); got != 24683756<<10 {
		t.Errorf("parseMeminfo: %d", got)
	}
	if got := parseMeminfo([]byte("nothing")); got != 0 {
		t.Errorf("parseMeminfo of nothing: %d", got)
	}
	for in, want := range map[string]int64{"max\n": 0, "9223372036854771712\n": 0, "2147483648\n": 2 << 30, "junk": 0} {
		if got := parseCgroupLimit([]byte(in)); got != want {
			t.Errorf("parseCgroupLimit(%q) = %d, want %d", in, got, want)
		}
	}
	if m, p := machineMemory(), meminfoMemory(); runtime.GOOS == "linux" && (m != p || m <= 0) {
		t.Errorf("machineMemory: %d bytes, /proc/meminfo says %d", m, p)
	}
	if b := defaultMemoryBudget(); b < 0 {
		t.Errorf("defaultMemoryBudget: %d", b)
	}
}

func TestDescribeArguments(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema":{"path":"a.json"},"instances":[{"value":{"a":1}},{"text":"x: 1"}],"limit":3}`: `instances: [inline value of 7 bytes; inline text of 4 bytes], schema: file "a.json"`,
		`{"limit":3}`: "arguments of 11 bytes",
		`{"schemas":[{"path":"1"},{"path":"2"},{"path":"3"},{"path":"4"},{"path":"5"}]}`: `schemas: [file "1"; file "2"; file "3"; and 2 more]`,
	} {
		if got := describeArguments(json.RawMessage(in)); got != want {
			t.Errorf("describeArguments(%s) = %s, want %s", in, got, want)
		}
	}
}

// BenchmarkSupervisorRoundTrip: what the engine process adds to a call: one job to the
// worker and back (the test worker answers at once).
func BenchmarkSupervisorRoundTrip(b *testing.B) {
	s := newSupervisor(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Args[0] = testWorkerName
		return cmd
	}, func(string, ...any) {})
	defer s.Close(time.Second)
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	payload := job("echo")
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := s.Run(context.Background(), payload, jobHooks{}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
}

// TestJobFrames reads back what appendJobMessage writes, each kind of message, and refuses a
// frame that is cut short or whose header is not one.
func TestJobFrames(t *testing.T) {
	msgs := []jobMessage{
		{Job: 1, Payload: json.RawMessage(`{"name":"validate","arguments":{"a":"x\ny"}}`)},
		{Job: 2, Cancel: true},
		{Job: 3, Progress: json.RawMessage(`{"p":1}`)},
		{Job: 18446744073709551615, Result: json.RawMessage(`{}`)},
		{Job: 5, Result: json.RawMessage(``)},
	}
	var stream []byte
	for _, m := range msgs {
		stream = appendJobMessage(stream, m)
	}
	br := bufio.NewReader(strings.NewReader(string(stream)))
	for i, want := range msgs {
		got, err := readJobMessage(br)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if want.Result != nil && len(want.Result) == 0 {
			want.Result = json.RawMessage{} // an empty body reads back as an empty, not a nil, slice
		}
		if got.Job != want.Job || got.Cancel != want.Cancel || string(got.Payload) != string(want.Payload) ||
			string(got.Progress) != string(want.Progress) || string(got.Result) != string(want.Result) ||
			(want.Result != nil) != (got.Result != nil) {
			t.Errorf("message %d: got %+v, want %+v", i, got, want)
		}
	}
	if _, err := readJobMessage(br); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
	for _, bad := range []string{"R 1 10\n{}", "R 1\n", "X 1 0\n", "R one 2\n{}", "R 1 -1\n", "{\"job\":1}\n", "R 1 2"} {
		if m, err := readJobMessage(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q read as %+v", bad, m)
		}
	}
}

// A job that the worker answered the client for itself, when the worker dies, ends with
// that answer: it is neither run again nor the culprit, so the crash beside it was alone.
func TestSupervisorJobAnsweredBeforeDeath(t *testing.T) {
	s, log := newTestSupervisor(t)
	var dead []int
	s.dead = func(pid int) { dead = append(dead, pid) }
	done := make(chan json.RawMessage)
	go func() {
		res, err := s.Run(context.Background(), job("hang"), jobHooks{answered: func() json.RawMessage { return json.RawMessage(`"sent"`) }})
		if err != nil {
			t.Errorf("the answered job: %v", err)
		}
		done <- res
	}()
	time.Sleep(100 * time.Millisecond) // the hang job runs
	_, err := s.Run(context.Background(), job("crash"), jobHooks{answered: func() json.RawMessage { return nil }})
	var c *crashError
	if !errors.As(err, &c) || !strings.Contains(c.reason, "stack overflow") {
		t.Errorf("the crash: %v", err)
	}
	if res := <-done; string(res) != `"sent"` {
		t.Errorf("the answered job ended with %s", res)
	}
	if strings.Contains(log(), "run again") {
		t.Errorf("a job was run again:\n%s", log())
	}
	if len(dead) != 1 || dead[0] <= 0 {
		t.Errorf("dead was told %v", dead)
	}
}

// asyncResult is what RunAsync's done got.
type asyncResult struct {
	res json.RawMessage
	err error
}

// runAsync runs a job with RunAsync, failing the test if it does not start.
func runAsync(t *testing.T, s *supervisor, ctx context.Context, payload json.RawMessage, h jobHooks) <-chan asyncResult {
	t.Helper()
	c := make(chan asyncResult, 1)
	if !s.RunAsync(ctx, payload, h, func(res json.RawMessage, err error) { c <- asyncResult{res, err} }) {
		t.Fatalf("RunAsync did not start %s", payload)
	}
	return c
}

// RunAsync ends its jobs as Run does, without a goroutine waiting: results, progress,
// cancellation, a crash alone and one beside other jobs (run again, alone); it starts
// nothing when no worker runs, when a job runs alone, or after Close.
func TestSupervisorRunAsync(t *testing.T) {
	s, log := newTestSupervisor(t)
	if s.RunAsync(context.Background(), job("echo"), jobHooks{}, func(json.RawMessage, error) { t.Error("done of a job not started") }) {
		t.Fatal("RunAsync started a job with no worker running")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if r := <-runAsync(t, s, context.Background(), job("echo"), jobHooks{}); r.err != nil || string(r.res) != `{"Op":"echo"}` {
		t.Fatalf("echo: %s, %v", r.res, r.err)
	}
	var mu sync.Mutex
	var reports []string
	r := <-runAsync(t, s, context.Background(), job("progress"), jobHooks{progress: func(r json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, string(r))
	}})
	mu.Lock()
	if r.err != nil || strings.Join(reports, " ") != `{"p":1} {"p":2}` {
		t.Errorf("progress: %s, %v, reports %v", r.res, r.err, reports)
	}
	mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	waiting := runAsync(t, s, ctx, job("wait"), jobHooks{})
	cancel()
	if r := <-waiting; r.err != nil || string(r.res) != `"cancelled"` {
		t.Fatalf("a cancelled job: %s, %v", r.res, r.err)
	}

	// A crash alone is its own culprit.
	var c *crashError
	if r := <-runAsync(t, s, context.Background(), job("crash"), jobHooks{}); !errors.As(r.err, &c) || c.reason != "fatal error: stack overflow" {
		t.Fatalf("a crash alone: %v", r.err)
	}
	// Beside others: they are run again, alone (in Run's goroutine of their own).
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	slow1 := runAsync(t, s, context.Background(), job("slow"), jobHooks{})
	slow2 := runAsync(t, s, context.Background(), job("slow"), jobHooks{})
	time.Sleep(20 * time.Millisecond)
	crash := runAsync(t, s, context.Background(), job("crash"), jobHooks{})
	for i, ch := range []<-chan asyncResult{slow1, slow2} {
		if r := <-ch; r.err != nil || string(r.res) != `{"Op":"slow"}` {
			t.Errorf("job %d beside a crash: %s, %v", i, r.res, r.err)
		}
	}
	if r := <-crash; !errors.As(r.err, &c) {
		t.Errorf("the crash beside others: %v", r.err)
	}
	if !strings.Contains(log(), "is run again, alone") {
		t.Errorf("the log:\n%s", log())
	}

	// A job running alone (a retried one) holds the others back: RunAsync starts nothing.
	s.solo.Lock()
	started := s.RunAsync(context.Background(), job("echo"), jobHooks{}, func(json.RawMessage, error) {})
	s.solo.Unlock()
	if started {
		t.Error("RunAsync started a job beside one that runs alone")
	}
	s.Close(time.Second)
	if s.RunAsync(context.Background(), job("echo"), jobHooks{}, func(json.RawMessage, error) {}) {
		t.Error("RunAsync started a job after Close")
	}
}

// A job of RunAsync whose worker answered the client before it died ends with that
// answer; one cancelled before the death is not run again (the crash, which ran beside
// it, is: once).
func TestSupervisorRunAsyncDeath(t *testing.T) {
	s, log := newTestSupervisor(t)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	answered := runAsync(t, s, context.Background(), job("hang"), jobHooks{answered: func() json.RawMessage { return json.RawMessage(`"sent"`) }})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := runAsync(t, s, ctx, job("hang"), jobHooks{}) // its cancellation ends nothing: it hangs
	time.Sleep(100 * time.Millisecond)
	crash := runAsync(t, s, context.Background(), job("crash"), jobHooks{})
	if r := <-answered; r.err != nil || string(r.res) != `"sent"` {
		t.Errorf("the answered job: %s, %v", r.res, r.err)
	}
	var c *crashError
	if r := <-cancelled; !errors.As(r.err, &c) {
		t.Errorf("the cancelled job: %s, %v", r.res, r.err)
	}
	if r := <-crash; !errors.As(r.err, &c) {
		t.Errorf("the crash: %v", r.err)
	}
	if n := strings.Count(log(), "run again"); n != 1 {
		t.Errorf("%d jobs were run again, want the crash alone:\n%s", n, log())
	}
}
