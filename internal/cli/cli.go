// Package cli is jstk's command line: it turns the descriptor table into subcommands with
// flags and help, prints results in the chosen format, maps outcomes to exit codes, and runs
// the stdio loop of `jstk mcp`. It is the only package that touches the process's standard
// streams, environment and exit status.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/tools"
)

// Version is jstk's version. The release command stamps it, with Commit and Date, through
// -ldflags "-X github.com/jstk-dev/jstk/internal/cli.Version=..."; otherwise it is the module
// version that `go install module@version` records, or "(devel)" (see version.go).
var Version string

// Exit codes.
const (
	ExitOK       = 0 // clean
	ExitFindings = 1 // an invalid instance, a lint finding, a breaking change, ...
	ExitError    = 2 // could not run: usage, unreadable input, invalid schema
)

// Streams are the process's standard streams.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// OSStreams returns the real standard streams.
func OSStreams() Streams {
	return Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Main runs jstk with args (without the program name) and returns the exit code. A panic
// (a bug in jstk) is said on stderr with its stack, and the exit code is 2.
func Main(ctx context.Context, args []string, st Streams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = internalError(st, commandOf(args), r, debug.Stack())
		}
	}()
	tuneGC()
	if len(args) == 0 {
		usage(st.Stderr)
		return ExitError
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(st.Stdout, versionLine())
		return ExitOK
	case "--help", "-help", "-h", "help":
		if len(args) > 1 {
			return runCommand(ctx, []string{args[1], "--help"}, st)
		}
		usage(st.Stdout)
		return ExitOK
	case "mcp":
		return runMCP(ctx, args[1:], st)
	case "lsp":
		return runLSP(ctx, args[1:], st)
	case "fetch":
		return runFetch(ctx, args[1:], st)
	case "tools":
		return runTools(ctx, args[1:], st)
	case "store":
		return runStore(ctx, args[1:], st)
	}
	return runCommand(ctx, args, st)
}

// tuneGC trades memory for speed: jstk's heaps are short-lived trees, and collecting at
// 4x the live heap instead of 2x cuts the CPU of a large validation by a third (measured on
// the 100k-instance reference workload: 2.4 s -> 1.6 s of CPU, peak RSS 29 -> 60 MB). An
// explicit GOGC or GOMEMLIMIT in the environment wins.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(300)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1 << 30)
	}
}

func usage(w io.Writer) {
	stamped()
	fmt.Fprintf(w, "jstk %s: a JSON Schema toolkit\n\nUsage: jstk <command> [flags] [arguments]\n\nCommands:\n", Version)
	commandList(w)
	fmt.Fprintf(w, "\nRun 'jstk <command> --help' for a command's flags, 'jstk --version' for the version.\nExit codes: 0 clean, 1 findings, 2 could not run.\n")
}

// commandList prints one line per command: the table's, mcp and tools.
func commandList(w io.Writer) {
	names := []string{}
	summaries := map[string]string{}
	for _, d := range tools.All() {
		names = append(names, d.Name)
		summaries[d.Name] = d.Summary
		if len(d.Aliases) > 0 {
			summaries[d.Name] += " (also: " + strings.Join(d.Aliases, ", ") + ")"
		}
	}
	names = append(names, "fetch", "mcp", "tools", "store", "lsp")
	summaries["lsp"] = "serve diagnostics, hover and completion to editors over the Language Server Protocol (stdio)"
	summaries["fetch"] = "download the remote schemas the workspace names and pin them in jstk.lock (the one command that uses the network)"
	summaries["store"] = "list the built-in SchemaStore catalog: what each entry matches, what is vendored; --licence"
	summaries["mcp"] = "serve these commands as tools to AI agents over the Model Context Protocol (stdio)"
	summaries["tools"] = "list the tools, print what is generated from them, or call one as MCP does"
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-15s %s\n", n, summaries[n])
	}
}

func runCommand(ctx context.Context, args []string, st Streams) int {
	d, ok := tools.LookupCommand(args[0])
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(st.Stderr, "jstk: %s before a command: give the command first, then its flags (run 'jstk --help' for the commands)\n", args[0])
			return ExitError
		}
		fmt.Fprintf(st.Stderr, "jstk: unknown command %q%s (run 'jstk --help' for the list)\n", args[0],
			didYouMean(args[0], commandNames(), "'jstk %s'"))
		return ExitError
	}
	cmd, err := newCommand(d)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk %s: %v\n", d.Name, err)
		return ExitError
	}
	in, g, err := cmd.parse(args[1:], st)
	if errors.Is(err, flag.ErrHelp) {
		cmd.help(st.Stdout)
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk %s: %v\n", d.Name, err)
		fmt.Fprintf(st.Stderr, "usage: jstk %s %s (run 'jstk %s --help')\n", d.Name, d.Usage, d.Name)
		return ExitError
	}
	// On a terminal, a progress line; what the run prints erases it first.
	progress := newProgress(st.Stderr, d.Name, d.ProgressBytes, g.quiet)
	if progress != nil {
		if isTerminal(st.Stdout) {
			st.Stdout = progress.Writer(st.Stdout)
		}
		st.Stderr = progress.Writer(st.Stderr)
	}
	defer progress.Stop()
	env, err := g.env(st, d.Name, in)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk %s: %v\n", d.Name, err)
		return ExitError
	}
	env.ArgName = cmd.argName // errors name flags and arguments as the command line writes them
	if progress != nil {
		env.Progress = progress.Report
	}
	if d.CollectLate && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(tools.CollectLateLimit)
		}
	}
	// Past the memory budget, the run stops here, before the kernel kills it.
	stopWatch := watchMemoryFrom(g.mem.budget, memoryFirst, func(heap uint64) {
		what := "its input"
		if b, err := json.Marshal(in); err == nil {
			what = describeArguments(b)
		}
		fmt.Fprintf(st.Stderr, "jstk %s: stopped: the run exceeded the memory budget of %s (heap %d MB) on %s; raise it with --max-memory (0: no budget)\n",
			d.Name, mbText(g.mem.budget), heap>>20, what)
		os.Exit(ExitError)
	})
	defer stopWatch()
	// SIGINT or SIGTERM stops the run (the engines check their context as they go); a
	// second signal ends the process at once, as without the handler.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopSignals, _ := handleSignals(ctx, cancel, signalDelay)
	defer stopSignals()
	return output(ctx, d, env, in, g, st, progress.Stop)
}

// signalDelay is how long a run goes with the default handling of SIGINT and SIGTERM (the
// process ends at once) before its own handler is installed: the handler starts the
// runtime's signal thread, a locked thread and its template (about 1 ms of CPU, 5% of a
// small validation), which a run shorter than this never needs.
const signalDelay = 50 * time.Millisecond

// handleSignals cancels the run (cancel) at the first SIGINT or SIGTERM that arrives after
// delay; the handler is then removed, so that a second signal ends the process, and so it
// is when ctx ends. It returns a function that keeps the handler from being installed if it
// is not yet, and a channel closed once it is.
func handleSignals(ctx context.Context, cancel func(), delay time.Duration) (stop func(), installed <-chan struct{}) {
	done := make(chan struct{})
	t := time.AfterFunc(delay, func() {
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		context.AfterFunc(sctx, func() { stop(); cancel() })
		close(done)
	})
	return func() { t.Stop() }, done
}

// commandNames lists what may follow "jstk": the commands, their aliases, mcp, tools, help
// and version.
func commandNames() []string {
	names := []string{"fetch", "mcp", "lsp", "tools", "store", "help", "version"}
	for _, d := range tools.All() {
		names = append(names, d.Name)
		names = append(names, d.Aliases...)
	}
	return names
}

// commandOf names the command of args as its messages do ("validate", "tools call").
func commandOf(args []string) string {
	switch {
	case len(args) == 0:
		return ""
	case args[0] == "tools" && len(args) > 1 && !strings.HasPrefix(args[1], "-"):
		return "tools " + args[1]
	}
	return args[0]
}

// internalError says on stderr that jstk failed with a panic, with the stack of the
// goroutine that panicked (a panics.Error raised again from a worker carries the worker's),
// and returns ExitError. The CLI recovers a panic in one place for each way in: Main for the
// commands, callTool for `jstk tools call`; the MCP server recovers its tools' own
// (mcp.Server).
func internalError(st Streams, cmd string, r any, stack []byte) int {
	if pe, ok := r.(*panics.Error); ok && pe != nil && len(pe.Stack) > 0 {
		stack = pe.Stack
	}
	name := "jstk"
	if cmd != "" {
		name += " " + cmd
	}
	fmt.Fprintf(st.Stderr, "%s: internal error: %v\n%s: this is a bug in jstk; please report it with the stack below (https://github.com/jstk-dev/jstk/issues)\n%s",
		name, r, name, stack)
	return ExitError
}

// message prints an error for the user on stderr.
func message(st Streams, cmd string, err error) {
	msg := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintf(st.Stderr, "jstk %s: %s\n", cmd, msg)
}
