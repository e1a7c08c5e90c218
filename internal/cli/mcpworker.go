package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/tools"
)

// callPayload is a tools/call as the supervisor hands it to the worker (see
// appendCallPayload).
type callPayload struct {
	Name            string
	Arguments       json.RawMessage
	Client          mcp.ClientInfo
	ProtocolVersion string
	RunID           string
	Progress        bool
	// ID is the request's JSON-RPC id, and Slot its slot in the answerShare (-1: none):
	// the worker answers the client itself when it can (see answerShare).
	ID   json.RawMessage
	Slot int
}

// appendCallPayload appends c as a job's body: its fields but the arguments each as a
// netstring ("<length>:<bytes>,"), then the arguments as the client sent them. They are
// JSON the server decoded already, so they are copied as they are, neither encoded nor
// scanned again (marshalling them as a json.RawMessage scanned them once here and twice
// more in the worker), and the other fields need no JSON decoder (which took 4.5 us of a
// warm call in the worker).
func appendCallPayload(dst []byte, c callPayload) []byte {
	progress := "0"
	if c.Progress {
		progress = "1"
	}
	for _, f := range [...]string{c.Name, c.ProtocolVersion, c.RunID, c.Client.Name, c.Client.Version, progress, string(c.ID), strconv.Itoa(c.Slot)} {
		dst = strconv.AppendInt(dst, int64(len(f)), 10)
		dst = append(dst, ':')
		dst = append(dst, f...)
		dst = append(dst, ',')
	}
	return append(dst, c.Arguments...)
}

// readCallPayload reads a job's body written by appendCallPayload.
func readCallPayload(b []byte) (callPayload, error) {
	var c callPayload
	var f [8]string
	for i := range f {
		colon := bytes.IndexByte(b, ':')
		n, err := -1, error(nil)
		if colon >= 0 {
			n, err = strconv.Atoi(string(b[:colon]))
		}
		if err != nil || n < 0 || n > len(b)-colon-2 || b[colon+1+n] != ',' {
			return c, fmt.Errorf("field %d is not a netstring", i+1)
		}
		f[i] = string(b[colon+1 : colon+1+n])
		b = b[colon+2+n:]
	}
	c.Name, c.ProtocolVersion, c.RunID, c.Client.Name, c.Client.Version, c.Progress = f[0], f[1], f[2], f[3], f[4], f[5] == "1"
	c.ID = json.RawMessage(f[6])
	slot, err := strconv.Atoi(f[7])
	if err != nil {
		return c, errors.New("field 8 is not a number")
	}
	c.Slot = slot
	c.Arguments = b
	return c, nil
}

// The body of a job's result frame: a byte saying what follows, then it.
const (
	answerResult = 'r' // the tool's result as mcp.EncodeResult writes it
	answerError  = 'e' // the same, of a result with isError true
	answerPanic  = 'p' // a panicAnswer: the tool panicked
	answerSent   = 'd' // the worker sent the answer to the client itself; then '1' if isError, else '0'
)

// panicAnswer is the panic a tool raised in the worker (value and stack), which the
// supervisor raises again for mcp.Server to answer and audit as a panic.
type panicAnswer struct {
	Panic string `json:"panic"`
	Stack string `json:"stack,omitempty"`
}

// progressReport is a call's progress as the worker reports it.
type progressReport struct {
	Progress float64 `json:"p"`
	Total    float64 `json:"t,omitempty"`
	Message  string  `json:"m,omitempty"`
}

// remoteProvider serves the tools of local (their list, the redaction of their
// arguments) and runs their calls in the supervisor's worker.
type remoteProvider struct {
	local  *tools.Provider
	sup    *supervisor
	budget int64        // --max-memory, for the message of a call stopped by it
	share  *answerShare // nil: the server sends every answer
}

func (p *remoteProvider) Tools() []mcp.Tool { return p.local.Tools() }

// RedactArguments is the local provider's (mcp.ArgumentRedactor).
func (p *remoteProvider) RedactArguments(tool string, args any) any {
	return p.local.RedactArguments(tool, args)
}

// Call runs the call in the worker. A call the worker died of is answered isError,
// naming the fatal error (or the memory budget) and the input. The worker's result is
// sent as the worker encoded it (mcp.CallResult.Encoded).
func (p *remoteProvider) Call(ctx context.Context, req *mcp.CallRequest) *mcp.CallResult {
	j := p.job(req)
	raw, err := p.sup.Run(ctx, j.payload, j.hooks)
	j.end(raw)
	return p.result(req, raw, err)
}

// CallAsync is Call for the server's goroutine that read the call, which reads on as soon
// as the job is written to the worker (mcp.AsyncProvider): the result comes on the
// goroutine that reads the worker, and an answer the worker sent the client itself ends
// the call there. A call with progress is not started so (its reports go first).
func (p *remoteProvider) CallAsync(ctx context.Context, req *mcp.CallRequest, done func(func() *mcp.CallResult)) bool {
	if req.Progress != nil {
		return false
	}
	j := p.job(req)
	end := func(raw json.RawMessage, err error) {
		j.end(raw)
		done(func() *mcp.CallResult { return p.result(req, raw, err) })
	}
	started := p.sup.RunAsync(ctx, j.payload, j.hooks, func(raw json.RawMessage, err error) {
		if err != nil || len(raw) > 0 && raw[0] == answerSent {
			end(raw, err) // nothing to write to the client
			return
		}
		go end(raw, err) // the server writes the answer: not on the goroutine reading the worker
	})
	if !started {
		raw, err := p.sup.Run(ctx, j.payload, j.hooks)
		end(raw, err)
	}
	return true
}

// remoteJob is a call as a job for the worker.
type remoteJob struct {
	payload json.RawMessage
	hooks   jobHooks
	// end gives back the call's slot in the answerShare, when it had one, once the job
	// ended with raw: a cancellation that comes from then on finds the call answered, or
	// not, as it is then.
	end func(raw json.RawMessage)
}

// job makes req a job; when the worker may answer the client itself, it takes a slot in
// the answerShare and binds the call's AnswerGate to it.
func (p *remoteProvider) job(req *mcp.CallRequest) remoteJob {
	slot := -1
	var j remoteJob
	if p.share != nil && req.Answer != nil && req.Progress == nil {
		if slot = p.share.slot(); slot >= 0 {
			if !req.Answer.Bind(func() bool { return p.share.cancel(slot) }, func() bool { return p.share.isSent(slot) }) {
				p.share.release(slot) // cancelled already: its answer is not sent
				slot = -1
			}
		}
		if slot >= 0 {
			j.hooks.answered = func() json.RawMessage {
				if sent, isError := p.share.sent(slot); sent {
					return sentAnswer(isError)
				}
				return nil
			}
		}
	}
	j.payload = appendCallPayload(nil, callPayload{Name: req.Name, Arguments: req.Arguments, Client: req.Client,
		ProtocolVersion: req.ProtocolVersion, RunID: req.RunID, Progress: req.Progress != nil, ID: req.ID, Slot: slot})
	if req.Progress != nil {
		j.hooks.progress = func(raw json.RawMessage) {
			var r progressReport
			if json.Unmarshal(raw, &r) == nil {
				req.Progress(r.Progress, r.Total, r.Message)
			}
		}
	}
	j.end = func(raw json.RawMessage) {
		if slot >= 0 {
			sent := len(raw) > 0 && raw[0] == answerSent
			req.Answer.Bind(func() bool { return !sent }, func() bool { return sent })
			p.share.release(slot)
		}
	}
	return j
}

// result is the answer to req of a job that ended with raw or err.
func (p *remoteProvider) result(req *mcp.CallRequest, raw json.RawMessage, err error) *mcp.CallResult {
	if err != nil {
		if c, ok := err.(*crashError); ok {
			if c.memory {
				return mcp.ErrorResult("tool %q stopped: this input exceeded the memory budget of %s (--max-memory): %s; nothing else was affected (run %s)",
					req.Name, mbText(p.budget), describeArguments(req.Arguments), req.RunID)
			}
			return mcp.ErrorResult("tool %q: this input crashed the engine: %s (%s); nothing else was affected (run %s)",
				req.Name, c.reason, describeArguments(req.Arguments), req.RunID)
		}
		return mcp.ErrorResult("tool %q could not run: %v (run %s)", req.Name, err, req.RunID)
	}
	return readAnswer(raw, req)
}

// readAnswer reads the body of a job's result frame (see runJob): the result as the worker
// encoded it, or the worker's panic, raised again here.
func readAnswer(raw []byte, req *mcp.CallRequest) *mcp.CallResult {
	if len(raw) > 1 {
		switch raw[0] {
		case answerSent:
			return &mcp.CallResult{Sent: true, IsError: raw[1] == '1'}
		case answerResult, answerError:
			return &mcp.CallResult{IsError: raw[0] == answerError, Encoded: raw[1:]}
		case answerPanic:
			var a panicAnswer
			if json.Unmarshal(raw[1:], &a) == nil {
				panic(&panics.Error{Value: a.Panic, Stack: []byte(a.Stack)})
			}
		}
	}
	return mcp.ErrorResult("internal error: the engine's answer could not be read: %.40q (run %s)", raw, req.RunID)
}

// sentAnswer is the body of the result frame of an answer the worker sent itself.
func sentAnswer(isError bool) []byte {
	if isError {
		return []byte{answerSent, '1'}
	}
	return []byte{answerSent, '0'}
}

// describeArguments says in a few words which input a call was given: the paths, and the
// size of inline documents, never their content.
func describeArguments(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		if len(args) <= 100 {
			return "arguments " + string(args)
		}
		return fmt.Sprintf("arguments of %d bytes", len(args))
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		if d := describeDoc(m[k]); d != "" {
			parts = append(parts, k+": "+d)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("arguments of %d bytes", len(args))
	}
	s := strings.Join(parts, ", ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// describeDoc describes a document argument (or a list of them); "" for other arguments.
func describeDoc(raw json.RawMessage) string {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		var ds []string
		for _, e := range list {
			if d := describeDoc(e); d != "" {
				ds = append(ds, d)
			}
		}
		if len(ds) > 3 {
			ds = append(ds[:3], fmt.Sprintf("and %d more", len(ds)-3))
		}
		if len(ds) == 0 {
			return ""
		}
		return "[" + strings.Join(ds, "; ") + "]"
	}
	var d struct {
		Path  string          `json:"path"`
		Text  string          `json:"text"`
		Value json.RawMessage `json:"value"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &d) != nil {
		return ""
	}
	switch {
	case d.Path != "":
		return fmt.Sprintf("file %q", d.Path)
	case d.Text != "":
		return fmt.Sprintf("inline text of %d bytes", len(d.Text))
	case len(d.Value) > 0:
		return fmt.Sprintf("inline value of %d bytes", len(d.Value))
	}
	return ""
}

// workerCommand returns the command of a worker of this `jstk mcp`: the same binary and
// arguments, marked as a worker of this process.
func workerCommand(args []string) (func() *exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding jstk's own program to run the engines in: %w", err)
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		// Linux: this very program, even when an upgrade has replaced the file since.
		exe = "/proc/self/exe"
	}
	env := append(os.Environ(), fmt.Sprintf("%s=%d", workerProcess, os.Getpid()))
	return func() *exec.Cmd {
		cmd := exec.Command(exe, append([]string{"mcp"}, args...)...)
		cmd.Env = env
		cmd.SysProcAttr = workerAttr()
		return cmd
	}, nil
}

// serveWorker runs the jobs the supervisor sends on in, answering on out, until in ends;
// then the jobs still running are cancelled and get grace to answer. It stops the process
// (exitMemoryBudget) when the heap passes budget.
//
// share, if not nil, is the server's answerShare: a call's answer is sent to the client
// through it when it can be.
func serveWorker(ctx context.Context, p mcp.Provider, server mcp.ClientInfo, in io.Reader, out io.Writer, errOut io.Writer, budget int64, grace time.Duration, share *answerShare) int {
	stop := watchMemory(budget, func(heap uint64) {
		fmt.Fprintf(errOut, "jstk: memory budget of %s exceeded (heap %d MB): stopping the engine\n", mbText(budget), heap>>20)
		os.Exit(exitMemoryBudget)
	})
	defer stop()
	var wmu sync.Mutex
	bw := bufio.NewWriterSize(out, 64<<10)
	var frame []byte // under wmu
	write := func(m jobMessage) {
		wmu.Lock()
		defer wmu.Unlock()
		frame = appendJobMessage(frame[:0], m)
		bw.Write(frame)
		bw.Flush()
		if cap(frame) > 64<<10 {
			frame = nil
		}
	}
	var mu sync.Mutex
	running := map[uint64]context.CancelFunc{}
	var wg sync.WaitGroup
	testCrash := os.Getenv("JSTK_TEST_CRASH") == "1"
	logf := func(format string, args ...any) { fmt.Fprintf(errOut, "jstk: "+format+"\n", args...) }
	// The jobs run on goroutines that wait for the next job (see mcp.Workers): a new one
	// for each job grew its stack again in the validator, a sixth of a warm call's CPU here.
	workers := mcp.NewWorkers(mcp.WorkerIdle)
	br := bufio.NewReaderSize(in, 1<<20)
	ended := make(chan struct{})
	var read func()
	read = func() {
		for {
			m, err := readJobMessage(br)
			if err != nil {
				if err != io.EOF {
					fmt.Fprintf(errOut, "jstk: the engine got an unreadable message: %v\n", err)
				}
				close(ended)
				return
			}
			if m.Cancel {
				mu.Lock()
				if c := running[m.Job]; c != nil {
					c()
				}
				mu.Unlock()
				continue
			}
			jctx, cancel := context.WithCancel(ctx)
			mu.Lock()
			running[m.Job] = cancel
			n := len(running)
			mu.Unlock()
			wg.Add(1)
			job := func() {
				defer wg.Done()
				b := runJob(jctx, p, m, write, server, logf, testCrash, share)
				mu.Lock()
				delete(running, m.Job)
				mu.Unlock()
				cancel()
				write(jobMessage{Job: m.Job, Result: b})
			}
			// The job runs where it was read, as a call of the server's own process does
			// (see runReading): 124-135 -> 103-106 us p50 with the blocking reads above.
			if !runReading(workers, job, n > 1 || br.Buffered() > 0, read, nil) {
				return
			}
		}
	}
	workers.Go(read)
	<-ended
	// The supervisor closed the pipe (or died): stop.
	mu.Lock()
	for _, c := range running {
		c()
	}
	mu.Unlock()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
	return ExitOK
}

// runJob runs one call, returning the body of its result frame (a panic is caught and
// carried). server is the serverInfo the results carry (the server's); logf writes to the
// engine's error output, which the server logs.
func runJob(ctx context.Context, p mcp.Provider, m jobMessage, write func(jobMessage), server mcp.ClientInfo, logf func(string, ...any), testCrash bool, share *answerShare) (body []byte) {
	c, err := readCallPayload(m.Payload)
	req := &mcp.CallRequest{Name: c.Name, Arguments: c.Arguments, Client: c.Client, ProtocolVersion: c.ProtocolVersion, RunID: c.RunID}
	if err != nil {
		return encodeAnswer(mcp.ErrorResult("internal error: the call could not be read: %v", err), req, server, logf)
	}
	if testCrash {
		crashForTest(c.Arguments)
	}
	if c.Progress {
		req.Progress = func(progress, total float64, message string) {
			b, err := json.Marshal(progressReport{progress, total, message})
			if err == nil {
				write(jobMessage{Job: m.Job, Progress: b})
			}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			stack := debug.Stack()
			if pe, ok := r.(*panics.Error); ok && pe != nil && len(pe.Stack) > 0 {
				stack = pe.Stack
			}
			b, _ := json.Marshal(panicAnswer{Panic: fmt.Sprint(r), Stack: string(stack)})
			body = append([]byte{answerPanic}, b...)
		}
	}()
	res := p.Call(ctx, req)
	if res == nil {
		res = mcp.ErrorResult("internal error: tool %q returned no result", c.Name)
	}
	body = encodeAnswer(res, req, server, logf)
	// The answer's line is longer than body: a body past the bound is not copied into one.
	if share != nil && c.Slot >= 0 && len(c.ID) > 0 && len(body) <= answerDirectMax {
		line := append(mcp.AppendResponse(make([]byte, 0, len(body)+len(c.ID)+64), c.ID, body[1:]), '\n')
		if len(line) <= answerDirectMax && share.write(c.Slot, line, body[0] == answerError) {
			return sentAnswer(body[0] == answerError)
		}
	}
	return body
}

// encodeAnswer is the body of the result frame of res, encoded as the server sends it. A
// result that cannot be encoded is logged, as the server logs one, and answered isError.
func encodeAnswer(res *mcp.CallResult, req *mcp.CallRequest, server mcp.ClientInfo, logf func(string, ...any)) []byte {
	b, err := mcp.EncodeResult(res, req, server)
	if err != nil {
		logf("tool %q (run %s): the result cannot be sent: %v", req.Name, req.RunID, err)
		res = mcp.ErrorResult("internal error: the result of tool %q could not be encoded: %v", req.Name, err)
		b, _ = mcp.EncodeResult(res, req, server)
	}
	kind := byte(answerResult)
	if res.IsError {
		kind = answerError
	}
	return append([]byte{kind}, b...)
}

// Test-only crash triggers: with JSTK_TEST_CRASH=1 in the environment (the end-to-end
// tests set it), a call whose arguments hold one of these strings dies as an input that
// finds a fatal path would: a real stack overflow, or a heap that grows without end. They
// prove the supervision whatever the engines' own limits become.
const (
	testCrashStack  = "jstk-test-crash:stack-overflow"
	testCrashMemory = "jstk-test-crash:memory"
)

// testCrashNever is a depth recurseForever never reaches.
var testCrashNever = -1

// testHoard keeps what the memory trigger allocates.
var testHoard [][]byte

func crashForTest(args json.RawMessage) {
	switch {
	case bytes.Contains(args, []byte(testCrashStack)):
		debug.SetMaxStack(64 << 20) // overflow quickly
		recurseForever(0)
	case bytes.Contains(args, []byte(testCrashMemory)):
		for {
			b := make([]byte, 8<<20)
			for i := range b {
				b[i] = byte(i)
			}
			testHoard = append(testHoard, b)
			time.Sleep(time.Millisecond)
		}
	}
}

// recurseForever overflows the stack: Go's "fatal error: stack overflow" (long before n
// reaches testCrashNever).
func recurseForever(n int) int {
	if n == testCrashNever {
		return 0
	}
	var pad [64]byte
	pad[n%64] = byte(n)
	return recurseForever(n+1) + int(pad[(n+1)%64])
}
