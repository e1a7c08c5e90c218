package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/jstk-dev/jstk/internal/lsp"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const lspUsage = `Usage: jstk lsp [--debounce D] [--max-document-size N] [--timeout D] [--no-config] [--stdio]

Serves jstk to editors as a language server (LSP 3.17 over stdio, Content-Length framing):
diagnostics of JSON, JSONC, YAML and TOML documents against the schema that applies to
them (their $schema, a YAML "# yaml-language-server: $schema=" modeline, a TOML "#:schema"
line, or jstk.json's "schemas" map at the workspace root), exactly as jstk validate prints
them; lint's findings for schema files, as jstk lint prints them; hover, completion, go to
definition, document links and quick fixes. In a schema file that git tracks, each change
that breaks compatibility with the committed version (HEAD) is flagged with the instance that
proves it (jstk.json: {"lsp": {"breakingChanges": "off|information|warning"}}). Stdout carries
only protocol messages; logs go to stderr.

Flags:
`

// parseOwnFlags parses the flags of a command outside the tool table (mcp, lsp, fetch):
// --help prints its usage, its flags and its exit codes on stdout; a flag that cannot be
// parsed is an error on stderr with the usage line. done says the command must return code.
func parseOwnFlags(fs *flag.FlagSet, args []string, st Streams, name, synopsis, usage, exitCodes string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(st.Stdout, usage)
		printFlags(st.Stdout, fs)
		fmt.Fprint(st.Stdout, "\nExit codes:\n"+exitCodes)
		return ExitOK, true
	}
	fmt.Fprintf(st.Stderr, "jstk %s: %v\n", name, flagError(err, fs))
	fmt.Fprintf(st.Stderr, "usage: jstk %s %s (run 'jstk %s --help')\n", name, synopsis, name)
	return ExitError, true
}

// runLSP serves the language server over stdio until exit or the end of stdin.
func runLSP(ctx context.Context, args []string, st Streams) int {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	debounce := fs.Duration("debounce", lsp.DefaultDebounce, "how long to wait after an edit before checking the document again (a burst of edits makes one check)")
	maxSize := fs.Int64("max-document-size", lsp.DefaultMaxDocumentSize, "the largest document checked, in bytes; a larger one gets one diagnostic saying so")
	timeout := fs.Duration("timeout", lsp.DefaultTimeout, "how long one check of a document may take")
	// vscode-languageclient's stdio transport (the VS Code extension's) and other clients append
	// --stdio to the command; stdio is the only transport, so the flag is accepted and changes nothing.
	fs.Bool("stdio", false, "talk over stdin and stdout (the only transport; accepted because language clients pass it)")
	noConfig := fs.Bool("no-config", false, "do not read the workspace's jstk.json (its schemas map, resolve map and lint settings): for an untrusted workspace")
	if code, done := parseOwnFlags(fs, args, st, "lsp", "[flags]", lspUsage,
		"  0  exit after shutdown\n  1  stdin closed, or exit without shutdown (as LSP says)\n  2  a usage error\n"); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(st.Stderr, "jstk lsp: unexpected argument %q\n", fs.Arg(0))
		return ExitError
	}
	if *debounce == 0 {
		*debounce = -1
	}
	// The SchemaStore as every command finds it (JSTK_SCHEMASTORE, else the built-in one):
	// its catalog associates files, its copies answer its URLs.
	se := &tools.Env{}
	(&globals{}).setStore(se, nil, workspace.OS())
	lockCache, _ := cacheDir() // none when there is no cache directory: jstk.lock is not read
	srv := lsp.NewServer(lsp.Options{FS: workspace.OS(), Debounce: *debounce, MaxDocumentSize: *maxSize, LockCache: lockCache,
		Timeout: *timeout, NoConfig: *noConfig, Remotes: se.Remotes, Store: se.Store,
		Logf: func(format string, a ...any) {
			fmt.Fprintf(st.Stderr, "%s jstk lsp: %s\n", time.Now().Format(time.TimeOnly), fmt.Sprintf(format, a...))
		}})
	_ = ctx
	return srv.Serve(st.Stdin, st.Stdout)
}
