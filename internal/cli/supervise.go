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
	"strconv"
	"strings"
	"sync"
	"time"
)

// The supervision of `jstk mcp` (and of any server that runs untrusted input through the
// engines): Go cannot recover from a stack overflow, an out-of-memory or a runtime fatal
// error, and jstk runs third-party parsers on untrusted text, so the engines run in a
// worker process, a child of the server running this same binary. The server keeps the
// protocol session (framing, initialize, ping, tools/list, cancellation, progress, audit)
// and hands each call to the supervisor as a job: an opaque JSON payload in, an opaque
// JSON result out. The supervisor knows nothing of the client's protocol or framing, so a
// language server with Content-Length framing can use it as it is.
//
// When the worker dies, the jobs it was running end with a *crashError: the one job it
// was running alone is the culprit; jobs that ran beside others are retried once, each
// alone in a new worker, so that a second death names its culprit for certain. A new
// worker is started when the next job needs one.

// The job protocol between supervisor and worker (the same program on both ends): frames
// of a header line and a body each way, the body opaque JSON that is never re-encoded.
//
//	supervisor -> worker: "J <job> <n>\n" and n bytes   run a job with this payload
//	                      "C <job> 0\n"                 cancel it (its result still comes)
//	worker -> supervisor: "P <job> <n>\n" and n bytes   a progress report
//	                      "R <job> <n>\n" and n bytes   the job's end
//
// (A JSON object per line, as before, cost a marshal, a validation of the body and an
// unmarshal at each end of each message: most of a warm call's time in the pipes.)
type jobMessage struct {
	Job      uint64
	Payload  json.RawMessage
	Cancel   bool
	Progress json.RawMessage
	Result   json.RawMessage
}

// appendJobMessage appends m's frame to dst.
func appendJobMessage(dst []byte, m jobMessage) []byte {
	kind, body := byte('J'), m.Payload
	switch {
	case m.Cancel:
		kind, body = 'C', nil
	case m.Result != nil:
		kind, body = 'R', m.Result
	case m.Progress != nil:
		kind, body = 'P', m.Progress
	}
	dst = append(dst, kind, ' ')
	dst = strconv.AppendUint(dst, m.Job, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, '\n')
	return append(dst, body...)
}

// maxJobMessage bounds a frame's body (a corrupt header must not make the reader allocate
// without end).
const maxJobMessage = 1 << 31

// readJobMessage reads one frame; io.EOF when the stream ends between frames. The body
// is a new slice, the caller's to keep.
func readJobMessage(br *bufio.Reader) (jobMessage, error) {
	var m jobMessage
	head, err := br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF && len(head) == 0 {
			return m, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return m, err
	}
	f := strings.Fields(string(head))
	if len(f) != 3 || len(f[0]) != 1 {
		return m, fmt.Errorf("a bad frame header %.60q", head)
	}
	kind := f[0][0]
	job, err1 := strconv.ParseUint(f[1], 10, 64)
	n, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || n < 0 || n > maxJobMessage {
		return m, fmt.Errorf("a bad frame header %.60q", head)
	}
	m.Job = job
	var body []byte
	if n > 0 || kind != 'C' {
		body = make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return m, io.ErrUnexpectedEOF
		}
	}
	switch kind {
	case 'J':
		m.Payload = body
	case 'C':
		m.Cancel = true
	case 'P':
		m.Progress = body
	case 'R':
		m.Result = body
	default:
		return m, fmt.Errorf("a frame of unknown kind %q", kind)
	}
	return m, nil
}

// Exit codes of a worker that stops itself.
const (
	// exitMemoryBudget: the worker's heap passed its memory budget (see watchMemory).
	exitMemoryBudget = 3
)

// crashError is how a job ends when the worker died while running it.
type crashError struct {
	// reason is the first line of the fatal error ("fatal error: stack overflow"), or how
	// the worker ended ("signal: killed").
	reason string
	// memory is set when the worker stopped itself over its memory budget.
	memory bool
}

func (e *crashError) Error() string { return e.reason }

// supervisor runs jobs in a worker process, restarting it when it dies.
type supervisor struct {
	// command makes the worker's command (not started); its Stdin, Stdout and Stderr are
	// set by the supervisor.
	command func() *exec.Cmd
	// logf receives what the supervisor says (stderr); the worker's stderr is copied to it.
	logf func(format string, args ...any)
	// dead, if not nil, is told the process id of each worker that ended, once it has.
	dead func(pid int)

	// solo is held shared by a job that runs beside others, exclusively by a retried job.
	solo sync.RWMutex

	mu      sync.Mutex
	cur     *worker // nil before the first job and after a death
	closed  bool
	nextJob uint64
}

// worker is one worker process.
type worker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	in    io.Writer  // stdin, written with raw system calls when it can be (see pipeIO)
	wmu   sync.Mutex // serializes writes to stdin
	wbuf  []byte     // the frame being written, under wmu

	mu   sync.Mutex
	jobs map[uint64]*pendingJob
	dead *crashError // set when the worker has died
	gone chan struct{}
}

type pendingJob struct {
	progress func(json.RawMessage)
	answered func() json.RawMessage // see jobHooks
	done     chan json.RawMessage   // Run's: the result; closed without one when the worker died
	// end is RunAsync's instead of done: it gets the result (ok), or the worker died.
	end   func(res json.RawMessage, ok bool)
	alone bool // the only job of the worker when it died
}

// finish ends j with its result res (ok), or as the worker's death.
func (j *pendingJob) finish(res json.RawMessage, ok bool) {
	switch {
	case j.end != nil:
		j.end(res, ok)
	case ok:
		j.done <- res
	default:
		close(j.done)
	}
}

// newSupervisor returns a supervisor of the workers that command makes.
func newSupervisor(command func() *exec.Cmd, logf func(string, ...any)) *supervisor {
	return &supervisor{command: command, logf: logf}
}

// errClosed ends a job given to a supervisor that is shutting down.
var errClosed = errors.New("the server is shutting down")

// Start starts a worker if none runs, so that the first job finds it ready.
func (s *supervisor) Start() error {
	_, err := s.worker()
	return err
}

// worker returns the running worker, starting one if needed.
func (s *supervisor) worker() (*worker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if s.cur != nil {
		return s.cur, nil
	}
	cmd := s.command()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the engine process: %w", err)
	}
	w := &worker{cmd: cmd, stdin: stdin, in: rawWriter(stdin), jobs: map[uint64]*pendingJob{}, gone: make(chan struct{})}
	fatal := make(chan string, 1)
	go copyStderr(stderr, s.logf, fatal)
	go s.read(w, rawReader(stdout), fatal)
	s.cur = w
	return w, nil
}

// maxWorkerStderr bounds what one worker may write to the server's stderr (a crash of a
// deep stack writes megabytes of traceback).
const maxWorkerStderr = 16 << 10

// copyStderr copies the worker's stderr to logf, up to maxWorkerStderr bytes, and sends
// the first line that says why the process died ("fatal error: ...", "panic: ...",
// "runtime: out of memory ...", or jstk's own memory-budget line) on fatal.
func copyStderr(r io.Reader, logf func(string, ...any), fatal chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	first, copied, dropped := "", 0, 0
	for sc.Scan() {
		line := sc.Text()
		if first == "" && isFatalLine(line) {
			first = strings.TrimSpace(line)
		}
		if copied < maxWorkerStderr {
			copied += len(line) + 1
			logf("engine: %s", line)
		} else {
			dropped += len(line) + 1
		}
	}
	if dropped > 0 {
		logf("engine: ... %d more bytes of the engine's error output not shown", dropped)
	}
	fatal <- first
}

// isFatalLine reports whether a line of a Go program's stderr says why it died.
func isFatalLine(line string) bool {
	for _, p := range []string{"fatal error:", "panic:", "runtime: out of memory", "jstk: memory budget", "SIGSEGV", "SIGBUS"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// read delivers the worker's messages to its jobs until it dies, then ends them.
func (s *supervisor) read(w *worker, stdout io.Reader, fatal <-chan string) {
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		m, err := readJobMessage(br)
		if err != nil {
			if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
				// Out of step with the stream, the worker is of no use: it is stopped, and
				// its jobs end as a crash.
				s.logf("engine: an unreadable message: %v", err)
				_ = w.cmd.Process.Kill()
			}
			break
		}
		w.mu.Lock()
		j := w.jobs[m.Job]
		if j != nil && m.Result != nil {
			delete(w.jobs, m.Job)
		}
		w.mu.Unlock()
		switch {
		case j == nil:
		case m.Result != nil:
			j.finish(m.Result, true)
		case m.Progress != nil && j.progress != nil:
			j.progress(m.Progress)
		}
	}
	// Stdout closed: the worker is ending. Why comes from its exit status and stderr.
	w.stdin.Close()
	waitErr := w.cmd.Wait()
	if s.dead != nil {
		s.dead(w.cmd.Process.Pid)
	}
	reason := ""
	select {
	case reason = <-fatal:
	case <-time.After(time.Second):
	}
	crash := &crashError{reason: reason}
	if st := w.cmd.ProcessState; st != nil && st.ExitCode() == exitMemoryBudget {
		crash.memory = true
	}
	if crash.reason == "" {
		switch {
		case waitErr != nil:
			crash.reason = waitErr.Error()
		default:
			crash.reason = "the engine process ended"
		}
	}
	s.mu.Lock()
	if s.cur == w {
		s.cur = nil
	}
	closed := s.closed
	s.mu.Unlock()
	w.mu.Lock()
	w.dead = crash
	// A job the worker answered the client for, before it died, ends with that answer;
	// the others end as a crash, and the one of them that ran alone is its culprit.
	type ending struct {
		j   *pendingJob
		res json.RawMessage // nil: not answered
	}
	var ends []ending
	open := 0
	for id, j := range w.jobs {
		delete(w.jobs, id)
		e := ending{j: j}
		if j.answered != nil {
			e.res = j.answered()
		}
		if e.res == nil {
			open++
		}
		ends = append(ends, e)
	}
	for _, e := range ends {
		e.j.alone = e.res == nil && open == 1
	}
	w.mu.Unlock()
	for _, e := range ends {
		e.j.finish(e.res, e.res != nil)
	}
	close(w.gone)
	if !closed {
		s.logf("the engine process ended (%s); a new one starts with the next call", crash.reason)
	}
}

// send writes one message to the worker; an error means the worker is dying (read will
// end its jobs).
func (w *worker) send(m jobMessage) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.wbuf = appendJobMessage(w.wbuf[:0], m)
	_, err := w.in.Write(w.wbuf)
	if cap(w.wbuf) > 64<<10 {
		w.wbuf = nil // not kept for the next message
	}
	return err
}

// jobHooks are what a job's owner hears of it besides its result.
type jobHooks struct {
	// progress, if not nil, receives the job's progress reports.
	progress func(json.RawMessage)
	// answered, if not nil, is asked, when the worker died running the job, for the job's
	// result if the worker had answered the client itself before it died (nil: it had
	// not).
	answered func() json.RawMessage
}

// Run runs one job and returns its result; h says what else to tell of it. When ctx
// ends, the worker is told to cancel the job, and Run waits for its result as it waits for
// any. When the worker dies, Run retries the job once, alone, unless it was already alone
// (or had answered the client itself); then it returns a *crashError. Once the job is
// written to the worker, a reading that ctx's call runs on is handed on (handOffReading).
func (s *supervisor) Run(ctx context.Context, payload json.RawMessage, h jobHooks) (json.RawMessage, error) {
	return s.run(ctx, payload, h, false)
}

// run is Run of a job that is already retried (runs alone, and is not retried again).
func (s *supervisor) run(ctx context.Context, payload json.RawMessage, h jobHooks, retried bool) (json.RawMessage, error) {
	for {
		lock, unlock := s.solo.RLock, s.solo.RUnlock
		if retried {
			lock, unlock = s.solo.Lock, s.solo.Unlock
		}
		lock()
		res, crash, err := s.runOnce(ctx, payload, h)
		unlock()
		switch {
		case err != nil:
			return nil, err
		case crash == nil:
			return res, nil
		case retried || crash.alone || ctx.Err() != nil:
			return nil, crash.err
		}
		s.logf(retryNote)
		retried = true
	}
}

// retryNote is what the supervisor logs when it runs a job again.
const retryNote = "a call that ran beside the one that crashed the engine is run again, alone"

// RunAsync is Run for a caller that does not wait. When a worker runs and no job runs
// alone, it writes the job to the worker and returns true; done then gets what Run would
// have returned, on the goroutine that reads the worker (or, for a job run again after a
// death, on a goroutine of its own). Otherwise it returns false, starting nothing, for the
// caller to use Run. When ctx ends, the worker is told to cancel the job.
func (s *supervisor) RunAsync(ctx context.Context, payload json.RawMessage, h jobHooks, done func(json.RawMessage, error)) bool {
	if !s.solo.TryRLock() {
		return false // a job runs alone
	}
	s.mu.Lock()
	w := s.cur
	if w == nil || s.closed {
		s.mu.Unlock()
		s.solo.RUnlock()
		return false
	}
	s.nextJob++
	id := s.nextJob
	s.mu.Unlock()
	j := &pendingJob{progress: h.progress, answered: h.answered}
	stop := func() bool { return false }
	j.end = func(res json.RawMessage, ok bool) {
		stop()
		s.solo.RUnlock()
		if ok {
			done(res, nil)
			return
		}
		w.mu.Lock()
		crash := w.dead
		w.mu.Unlock()
		if j.alone || ctx.Err() != nil {
			done(nil, crash)
			return
		}
		go func() {
			s.logf(retryNote)
			done(s.run(ctx, payload, h, true))
		}()
	}
	w.mu.Lock()
	if w.dead != nil {
		w.mu.Unlock()
		s.solo.RUnlock()
		return false
	}
	w.jobs[id] = j
	written := make(chan struct{})
	stop = context.AfterFunc(ctx, func() {
		<-written // the cancellation follows the job
		_ = w.send(jobMessage{Job: id, Cancel: true})
	})
	w.mu.Unlock()
	_ = w.send(jobMessage{Job: id, Payload: payload}) // an error: the worker is dying, and read ends the job
	close(written)
	return true
}

// jobCrash is a job's end in a worker that died.
type jobCrash struct {
	err   *crashError
	alone bool
}

func (s *supervisor) runOnce(ctx context.Context, payload json.RawMessage, h jobHooks) (json.RawMessage, *jobCrash, error) {
	w, err := s.worker()
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.nextJob++
	id := s.nextJob
	s.mu.Unlock()
	j := &pendingJob{progress: h.progress, answered: h.answered, done: make(chan json.RawMessage, 1)}
	for {
		w.mu.Lock()
		if w.dead == nil {
			w.jobs[id] = j
			w.mu.Unlock()
			break
		}
		// Died since worker() returned it, before the job was given: the next one runs it.
		w.mu.Unlock()
		if w, err = s.worker(); err != nil {
			return nil, nil, err
		}
	}
	if w.send(jobMessage{Job: id, Payload: payload}) != nil {
		<-w.gone
	}
	handOffReading(ctx)
	cancelled := false
	for {
		var stop <-chan struct{}
		if !cancelled {
			stop = ctx.Done()
		}
		select {
		case res, ok := <-j.done:
			if ok {
				return res, nil, nil
			}
			w.mu.Lock()
			crash := w.dead
			w.mu.Unlock()
			return nil, &jobCrash{err: crash, alone: j.alone}, nil
		case <-stop:
			cancelled = true
			_ = w.send(jobMessage{Job: id, Cancel: true})
		}
	}
}

// Close stops the worker: its stdin closes (it ends when its jobs have), and after wait it
// is killed.
func (s *supervisor) Close(wait time.Duration) {
	s.mu.Lock()
	s.closed = true
	w := s.cur
	s.cur = nil
	s.mu.Unlock()
	if w == nil {
		return
	}
	w.wmu.Lock()
	w.stdin.Close()
	w.wmu.Unlock()
	select {
	case <-w.gone:
	case <-time.After(wait):
		_ = w.cmd.Process.Kill()
		<-w.gone
	}
}

// workerProcess is the environment variable that makes `jstk mcp` a worker: it holds the
// process id of the supervisor, so that it is never taken from a user's environment.
const workerProcess = "JSTK_ENGINE_WORKER_OF"

// isWorker reports whether this process is a worker of its parent.
func isWorker() bool {
	v := os.Getenv(workerProcess)
	return v != "" && v == fmt.Sprint(os.Getppid())
}
