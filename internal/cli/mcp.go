package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const mcpUsage = `Usage: jstk mcp [--root DIR] [--expose a,b] [--exclude c] [--audit FILE] [--page-size N]
                [--max-result-bytes N] [--timeout D] [--regex-budget D] [--max-calls N] [--drain D]
                [--grace D] [--max-memory SIZE] [--isolate=false]

Serves jstk's commands as Model Context Protocol tools over stdio (newline-delimited
JSON-RPC 2.0), for AI agents. Every tool is read-only and confined to the workspace root:
paths outside it, ".." that climbs out, and symbolic links that lead out are refused.
Stdout carries only protocol messages; diagnostics go to stderr.

The calls run in an engine process, a child of the server: a call that crashes it (a stack
overflow, an out-of-memory, any fatal error) or passes --max-memory is answered with an error
naming its input, and the server starts a new one and keeps serving. A call that ran beside
it is run again, alone.

At EOF on stdin the calls in flight get --drain to finish, then are cancelled; on SIGTERM
or SIGINT they are cancelled at once. The answers of the cancelled calls that end within
--grace (half a second) are sent, and the server exits 0.

Flags:
`

// Defaults of jstk mcp.
const (
	// DefaultCallTimeout bounds each tool call.
	DefaultCallTimeout = 60 * time.Second
	// DefaultDrain is how long calls in flight at EOF may take to finish.
	DefaultDrain = 500 * time.Millisecond
	// DefaultGrace is how long cancelled calls may take to send their answers.
	DefaultGrace = 500 * time.Millisecond
)

// runMCP serves the descriptor table over stdio until EOF or a termination signal.
func runMCP(ctx context.Context, args []string, st Streams) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", ".", "the workspace: every file argument is resolved inside this directory")
	expose := fs.String("expose", "", "serve only these tools (comma-separated)")
	exclude := fs.String("exclude", "", "do not serve these tools (comma-separated)")
	audit := fs.String("audit", "", "append one JSON line per tool call to `FILE`")
	pageSize := fs.Int("page-size", mcp.DefaultPageSize, "tools per tools/list page (1-1000)")
	maxCalls := fs.Int("max-calls", runtime.NumCPU(), "tool calls that run at once; the others wait their turn (default: one per CPU core)")
	maxResult := fs.Int("max-result-bytes", tools.DefaultMaxResultBytes, fmt.Sprintf("the budget of each tool result: its text and structured content together stay under this many bytes, and what is left out is said (default %d; at least %d; 0: no budget)", tools.DefaultMaxResultBytes, tools.MinMaxResultBytes))
	drain := DefaultDrain
	fs.Func("drain", "how long the calls in flight at EOF may take to finish before they are cancelled (default 500ms)", func(s string) error {
		d, err := parseDuration(s)
		drain = d
		return err
	})
	grace := DefaultGrace
	fs.Func("grace", "how long the calls cancelled at shutdown may take to send their answers before the server exits (default 500ms)", func(s string) error {
		d, err := parseDuration(s)
		grace = d
		return err
	})
	g := &globals{}
	g.registerLimits(fs)
	g.registerBudgets(fs, DefaultCallTimeout)
	var mem memoryFlag
	mem.register(fs, "the engines serving the calls")
	isolate := fs.Bool("isolate", true, "run the calls in an engine process that the server restarts when an input crashes it; false: in the server's own process, about 0.05 ms faster a call, but an input that crashes the engine ends the session")
	worker := isWorker()
	if code, done := parseOwnFlags(fs, args, st, "mcp", "[flags]", mcpUsage,
		"  0  stdin closed or a termination signal (the calls in flight are answered within the\n"+
			"     drain and grace times)\n  2  could not start: a usage error, a workspace or jstk.json that cannot be read\n"); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(st.Stderr, "jstk mcp: unexpected argument %q\n", fs.Arg(0))
		return ExitError
	}
	if *pageSize < 1 || *pageSize > 1000 {
		fmt.Fprintf(st.Stderr, "jstk mcp: --page-size %d: must be between 1 and 1000\n", *pageSize)
		return ExitError
	}
	if *maxResult != 0 && *maxResult < tools.MinMaxResultBytes {
		fmt.Fprintf(st.Stderr, "jstk mcp: --max-result-bytes %d: must be 0 (no budget) or at least %d\n", *maxResult, tools.MinMaxResultBytes)
		return ExitError
	}
	if *maxResult == 0 {
		*maxResult = -1 // tools.Env: negative is no budget
	}
	if *maxCalls < 1 {
		fmt.Fprintf(st.Stderr, "jstk mcp: --max-calls %d: must be at least 1\n", *maxCalls)
		return ExitError
	}
	selected, left, err := selectTools(*expose, *exclude)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk mcp: %v\n", err)
		return ExitError
	}
	fsys, err := workspace.Root(*root)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk mcp: %v\n", err)
		return ExitError
	}
	cfg, err := tools.LoadConfig(fsys)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk mcp: %v\n", err)
		return ExitError
	}
	for _, r := range g.resolve {
		u, p, _ := tools.ParseResolve(r)
		cfg.Resolve[u] = p
	}
	// The $id index of the root is built by the first call that needs it, and renewed for
	// every call (reading again only the files that changed), as the catalog is.
	env := &tools.Env{FS: fsys, Resolve: cfg.Resolve, Config: cfg, Cache: tools.NewSchemaCache(64),
		Index: tools.NewIndex(fsys, []string{"."}, g.limits()), Limits: g.limits(),
		Timeout: g.timeout, RegexBudget: g.regexBudget, MaxResultBytes: *maxResult}
	g.setStore(env, cfg, fsys)
	addLockRemote(env, fsys, ".") // last: after any store entry
	local := tools.NewProvider(env, selected)
	stamped()
	// The server's info, which the engine process writes into the results it encodes.
	info := mcp.ClientInfo{Name: "jstk", Version: Version}
	if worker {
		// The engine process of a server: it runs the calls the server hands it. The audit
		// log is the server's; no tool may read it.
		if *audit != "" {
			if err := workspace.Hide(fsys, *audit); err != nil {
				fmt.Fprintf(st.Stderr, "jstk mcp: --audit: %v\n", err)
				return ExitError
			}
		}
		// Its pipes are the server's alone. The jobs are read with blocking reads, which
		// wake the reading thread itself when a job comes (through the poller, a warm call
		// took 103-106 us p50 against 124-135 us, 6 alternating rounds); the frames to the
		// server are written with raw system calls (see pipeIO).
		in, out := st.Stdin, st.Stdout
		var std rawGuard
		if p, restore, ok := pipeIO(out, &std); ok {
			defer restore()
			out = p
		}
		var share *answerShare
		if os.Getenv(answersEnv) == "1" {
			if share, err = openAnswerShare(); err != nil {
				fmt.Fprintf(st.Stderr, "jstk: the server's stream cannot be written: %v; the server sends every answer\n", err)
			}
		}
		return serveWorker(ctx, local, info, in, out, st.Stderr, mem.budget, grace, share)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(st.Stderr, "jstk mcp: "+format+"\n", args...) }
	opts := &mcp.Options{Name: info.Name, Version: info.Version, PageSize: *pageSize, MaxConcurrent: *maxCalls, Logf: logf}
	if *audit != "" {
		f, err := os.OpenFile(*audit, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintf(st.Stderr, "jstk mcp: --audit: %v\n", err)
			return ExitError
		}
		defer f.Close()
		opts.Audit = f
		// The log may lie inside the workspace: no tool may read it back.
		if err := workspace.Hide(fsys, *audit); err != nil {
			fmt.Fprintf(st.Stderr, "jstk mcp: --audit: %v\n", err)
			return ExitError
		}
	}
	names := make([]string, len(selected))
	for i, d := range selected {
		names[i] = d.Name
	}
	// The client's stream is read and written as it is, not as the engine process's pipes
	// are (pipeIO): on a quiet machine raw system calls through the poller made a call in
	// the server's own process (--isolate=false) slower, 128-130 against 98-111 us p50, and
	// an isolated one no faster (3 alternating rounds of BenchmarkValidateRoundTrip); and the
	// client's pipe may be shared with another process (a launcher), whose O_NONBLOCK flag
	// pipeIO would change.
	fmt.Fprintf(st.Stderr, "jstk mcp: serving %d tools (%s) for workspace %s\n", len(selected), strings.Join(names, ", "), fsys.Abs("."))
	for _, l := range left {
		fmt.Fprintf(st.Stderr, "jstk mcp: not serving %s\n", l)
	}
	if !*isolate {
		stopWatch := watchMemory(mem.budget, func(heap uint64) {
			fmt.Fprintf(st.Stderr, "jstk mcp: stopped: the memory budget of %s was exceeded (heap %d MB); run with --isolate (the default) to stop only the call that exceeds it\n", mbText(mem.budget), heap>>20)
			os.Exit(ExitError)
		})
		defer stopWatch()
		srv := mcp.NewServer(local, opts)
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return serve(ctx, srv, mcp.DefaultMaxMessageSize, st, drain, grace, nil, true, nil)
	}
	// The calls run in an engine process, started once the first message is answered and
	// again after a call crashes it: see supervise.go.
	command, err := workerCommand(args)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk mcp: %v\n", err)
		return ExitError
	}
	// The engine sends small answers to the client itself, on the stream it is given
	// (see answerShare); JSTK_MCP_DIRECT=0 has the server send them all.
	var share *answerShare
	if os.Getenv("JSTK_MCP_DIRECT") != "0" {
		share = newAnswerShare(st.Stdout)
	}
	base := command
	command = func() *exec.Cmd {
		cmd := base()
		if share == nil {
			cmd.Env = append(cmd.Env, answersEnv+"=0")
			return cmd
		}
		cmd.Env = append(cmd.Env, answersEnv+"=1")
		cmd.ExtraFiles = share.files()
		return cmd
	}
	sup := newSupervisor(command, logf)
	if share != nil {
		sup.dead = share.dead
	}
	// The engine process starts once the first message is answered (initialize, as a rule),
	// so that it does not slow that answer down, and is ready by the first call.
	firstAnswered := func() {
		go func() {
			if err := sup.Start(); err != nil && err != errClosed {
				logf("%v", err)
			}
		}()
	}
	srv := mcp.NewServer(&remoteProvider{local: local, sup: sup, budget: mem.budget, share: share}, opts)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := serve(ctx, srv, mcp.DefaultMaxMessageSize, st, drain, grace, firstAnswered, false, share)
	sup.Close(grace)
	return code
}

// selectTools applies --expose and --exclude, and says what was left out and why.
func selectTools(expose, exclude string) ([]*tools.Descriptor, []string, error) {
	split := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n != "" {
				m[n] = true
			}
		}
		return m
	}
	exp, exc := split(expose), split(exclude)
	for _, m := range []map[string]bool{exp, exc} {
		for n := range m {
			if _, ok := tools.Lookup(n); !ok {
				var all []string
				for _, d := range tools.All() {
					all = append(all, d.Name)
				}
				return nil, nil, fmt.Errorf("unknown tool %q%s (tools: %s)", n, didYouMean(n, all, "%s"), strings.Join(all, ", "))
			}
		}
	}
	var selected []*tools.Descriptor
	var left []string
	for _, d := range tools.All() {
		switch {
		case len(exp) > 0 && !exp[d.Name]:
			left = append(left, d.Name+": not named by --expose")
		case exc[d.Name]:
			left = append(left, d.Name+": excluded by --exclude")
		default:
			selected = append(selected, d)
		}
	}
	return selected, left, nil
}

// serve is the stdio loop: one message per line in, one per line out. A line longer than
// the server's limit is fed piece by piece to an mcp.Oversize, never held whole, and
// answered with an error that still carries its id.
//
// It ends at EOF, after the calls in flight had drain to finish (then they are cancelled),
// or when ctx ends (a signal: the calls are cancelled at once). Either way the cancelled
// calls get grace to send their answers; then nothing more is written, and it
// returns 0, whether or not a call is still stuck in work it cannot interrupt.
//
// first, if not nil, is called once, after the first message was handled. inline says
// that the server's own process runs the calls; otherwise they run in the engine process:
// the goroutine that read a call reads on once the engine has it (see
// remoteProvider.CallAsync; a call with progress hands the reading on, handOffReading).
// share, if not nil, is shared with the engine process, which writes answers to the
// client's stream too: each message is written holding its lock.
func serve(ctx context.Context, srv *mcp.Server, limit int, st Streams, drain, grace time.Duration, first func(), inline bool, share *answerShare) int {
	calls, cancelCalls := context.WithCancel(ctx)
	defer cancelCalls()
	var mu sync.Mutex
	closed := false
	out := bufio.NewWriterSize(st.Stdout, 64<<10)
	send := func(msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		if share != nil {
			share.lockForServer()
			defer share.unlockForServer()
		}
		out.Write(msg)
		out.WriteByte('\n')
		out.Flush()
	}
	// The messages are handled on the goroutine that reads them, one after the other:
	// handing each line to another goroutine cost a thread's wake-up per message. A
	// tools/call runs on the reading goroutine too (see runReading). One that the engine
	// process runs ends there as soon as the engine has its job (mcp.AsyncProvider), and
	// its result comes on the goroutine that reads the engine: the next message is read
	// at once, by the same goroutine, and no goroutine waits for the result (isolated p50,
	// 20 alternating rounds: 106.1 -> 96.1 us). One with progress waits for the engine,
	// and hands the reading on as soon as the engine has its job (handOffReading).
	// hmu orders the handling before the shutdown: once stopped, no message is handled.
	var hmu sync.Mutex
	stopped := false
	// handle handles one message; call is the tool call it started, for the caller to run.
	handle := func(ctx context.Context, line []byte, over *mcp.Oversize) (call func(), ok bool) {
		hmu.Lock()
		defer hmu.Unlock()
		if stopped {
			return nil, false
		}
		if over != nil {
			srv.RefuseOversize(over, send)
		} else {
			call = srv.HandleDeferred(ctx, line, send)
		}
		if first != nil {
			first()
			first = nil
		}
		return call, true
	}
	// shutdown stops the handling, cancels the calls still running, waits briefly for
	// their answers, and closes the output: a call that ends later must not write half a
	// line as the process exits.
	shutdown := func() {
		hmu.Lock()
		stopped = true
		hmu.Unlock()
		cancelCalls()
		srv.WaitTimeout(grace)
		mu.Lock()
		closed = true
		if share != nil {
			share.shut(grace) // no engine writes from now on
		}
		mu.Unlock()
	}
	done := make(chan error, 1)
	// One goroutine of readers reads at a time: read reads the stream until it hands the
	// reading on (readers.Go(read)) to run a call it read.
	br := bufio.NewReaderSize(st.Stdin, 1<<20)
	readers := mcp.NewWorkers(mcp.WorkerIdle)
	var running atomic.Int32 // the calls running
	var read func()
	read = func() {
		for {
			var line []byte
			var over *mcp.Oversize
			var err error
			for {
				var chunk []byte
				chunk, err = br.ReadSlice('\n')
				if err == nil {
					chunk = chunk[:len(chunk)-1]
				}
				if over == nil && len(line)+len(chunk) > limit {
					over = new(mcp.Oversize)
					over.Write(line)
					line = nil
				}
				if over != nil {
					over.Write(chunk)
				} else {
					line = append(line, chunk...)
				}
				if err != bufio.ErrBufferFull {
					break
				}
			}
			var call func()
			var ho *handOff
			ctx := calls
			if !inline {
				ho = new(handOff)
				ctx = context.WithValue(calls, handOffKey{}, ho)
			}
			if over != nil || len(line) > 0 {
				var ok bool
				if call, ok = handle(ctx, line, over); !ok {
					return
				}
			}
			if err != nil {
				done <- err
				if call != nil {
					call()
				}
				return
			}
			if call == nil {
				continue
			}
			// A call goes to another goroutine when more is to be read soon: other calls
			// run (a client with calls in flight), or more of the stream has come.
			n := running.Add(1)
			more := n > 1 || br.Buffered() > 0
			if !runReading(readers, func() { defer running.Add(-1); call() }, more, read, ho) {
				return
			}
		}
	}
	readers.Go(read)
	select {
	case err := <-done:
		// EOF: the calls in flight may finish (within drain), then are stopped.
		if !srv.WaitTimeout(drain) {
			fmt.Fprintf(st.Stderr, "jstk mcp: stdin closed: cancelling the calls still running after %s\n", drain)
		}
		shutdown()
		if err != io.EOF {
			fmt.Fprintf(st.Stderr, "jstk mcp: reading stdin: %v\n", err)
			return ExitError
		}
		return ExitOK
	case <-ctx.Done():
		// Terminated: the calls in flight are cancelled, and answered and audited when
		// they end within the grace.
		shutdown()
		return ExitOK
	}
}

// handOff lets a call that runs on the goroutine that read it hand the reading on at once,
// when it only waits for another process from then on (see handOffReading).
type handOff struct{ now func() }

type handOffKey struct{}

// handOffReading hands the reading on, if the call of ctx runs on the goroutine that
// read it: the engine process has the job, and the call only waits for it.
func handOffReading(ctx context.Context) {
	if ho, ok := ctx.Value(handOffKey{}).(*handOff); ok && ho.now != nil {
		ho.now()
	}
}

// answersEnv tells an engine process whether its server passed it an answerShare ("1":
// descriptors 3 and 4). The server always sets it, so that none is taken from a user's
// environment.
const answersEnv = "JSTK_ENGINE_ANSWERS"

// readingHandOff is how long a call runs on the goroutine that read it before the reading
// passes to another goroutine: a message that comes meanwhile (a cancellation, another
// call) waits at most this long.
const readingHandOff = time.Millisecond

// runReading runs call, which read read from a stream on one of w's goroutines. A call
// that runs on the goroutine that read it starts at once:
// handing it to a waiting goroutine and reading on cost a warm call 35-55 us of its p50 on
// a 2-core virtual machine (BenchmarkValidateRoundTrip/inline-isolate=false, medians of 8
// and 10 alternating rounds: 118 -> 64-82 us, 88 -> 54 us). So call runs there, and
// runReading returns true for that goroutine to read on; but when it runs longer than
// readingHandOff, or when it calls ho.now (a call that from then on only waits for the
// engine process; ho may be nil), read goes on on another goroutine of w (a cancellation
// or a ping waits at most that long), and runReading returns false, for the caller to
// stop reading.
//
// When more is to be read at once (a client with calls in flight), call goes to another
// goroutine of w instead, as before, and the caller reads on (true): the messages waiting
// are read now, and the calls run side by side, not one after the other for up to
// readingHandOff each. (8 small calls in flight on 2 cores, BenchmarkThroughput8/
// inline-isolate=false, did not tell the two ways apart: 21,100 and 21,500 calls/s.)
func runReading(w *mcp.Workers, call func(), more bool, read func(), ho *handOff) bool {
	if more {
		w.Go(call)
		runtime.Gosched() // the call starts at once (see serve)
		return true
	}
	// 0: the call runs; 1: it ended first; 2: the reading was handed off first.
	var state atomic.Int32
	handOn := func() {
		if state.CompareAndSwap(0, 2) {
			w.Go(read)
		}
	}
	t := time.AfterFunc(readingHandOff, handOn)
	if ho != nil {
		ho.now = handOn
	}
	call()
	t.Stop()
	return state.CompareAndSwap(0, 1)
}
