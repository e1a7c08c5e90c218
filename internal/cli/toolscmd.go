package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/jstk-dev/jstk/internal/manifest"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const toolsUsage = `Usage: jstk tools [--manifest vscode|server|npm|reference]
       jstk tools call TOOL [--root DIR] [--no-config] < ARGUMENTS.json

Without flags, lists the tools of the descriptor table: the MCP tools of 'jstk mcp', which
are also jstk's commands.

--manifest prints an artefact generated from the table and the release version:
  vscode     the VS Code extension's contributes.languageModelTools
  server     server.json, the MCP Registry's description of 'jstk mcp'
  npm        package.json of the npm package ` + manifest.NPMPackage + `
  reference  the command-line reference (docs/cli.md)

'call' runs one tool exactly as 'jstk mcp' does for tools/call: it reads the tool's arguments
(a JSON object, as MCP sends them) from standard input, checks them against the tool's input
schema, runs the tool inside the workspace DIR (default: the working directory; paths outside
it are refused) and prints the MCP result ({"content", "structuredContent", "isError"}) as one
JSON object. Exit codes as for the command of the same name: 0 clean, 1 findings, 2 could not
run (isError). --no-config ignores DIR/jstk.json, every block of it (resolve, lint), as the
VS Code extension does in an untrusted workspace; --resolve, --max-size, --max-depth, --max-alias-nodes, --max-ref-depth and --jsonc are those of
'jstk mcp'.
This is how the VS Code extension runs its tools.
`

// runTools is `jstk tools`: the table as artefacts, and one tool called as MCP calls it.
func runTools(ctx context.Context, args []string, st Streams) int {
	if len(args) > 0 && args[0] == "call" {
		return runToolCall(ctx, args[1:], st)
	}
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kind := fs.String("manifest", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(st.Stdout, toolsUsage)
			return ExitOK
		}
		fmt.Fprintf(st.Stderr, "jstk tools: %v\n", flagError(err, fs))
		return ExitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(st.Stderr, "jstk tools: unexpected argument %q (run 'jstk tools --help')\n", fs.Arg(0))
		return ExitError
	}
	if *kind == "" {
		for _, d := range tools.All() {
			fmt.Fprintf(st.Stdout, "%-15s %s\n", d.Name, d.Summary)
		}
		return ExitOK
	}
	data, err := Artefact(*kind)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk tools: %v\n", err)
		return ExitError
	}
	st.Stdout.Write(data)
	return ExitOK
}

// toolNames lists the names of the tools.
func toolNames() []string {
	var names []string
	for _, d := range tools.All() {
		names = append(names, d.Name)
	}
	return names
}

// Artefacts names what `jstk tools --manifest` prints, with the file each is committed as
// (for "vscode", the member contributes.languageModelTools of that file).
var Artefacts = []struct{ Kind, File string }{
	{"vscode", "editors/vscode/package.json"},
	{"server", "server.json"},
	{"npm", "npm/" + manifest.NPMPackage + "/package.json"},
	{"reference", "docs/cli.md"},
}

// Artefact generates one of the Artefacts from the descriptor table and manifest.Version.
func Artefact(kind string) ([]byte, error) {
	switch kind {
	case "vscode":
		return manifest.Encode(manifest.LanguageModelTools(tools.All())), nil
	case "server":
		return manifest.Encode(manifest.ServerJSON()), nil
	case "npm":
		return manifest.Encode(manifest.LauncherPackage()), nil
	case "reference":
		return reference(), nil
	}
	return nil, fmt.Errorf("unknown --manifest %q: use vscode, server, npm or reference", kind)
}

// reference is the command-line reference, docs/cli.md: every command's help, generated.
func reference() []byte {
	var b bytes.Buffer
	b.WriteString("# jstk command-line reference\n\n")
	b.WriteString("Generated from the descriptor table by `jstk tools --manifest reference`: do not edit it by\n")
	b.WriteString("hand (`JSTK_UPDATE=1 go test ./internal/cli -run TestArtefacts` rewrites it, and the test fails\n")
	b.WriteString("when it is stale). Each section is what `jstk COMMAND --help` prints.\n\n")
	b.WriteString("```\nUsage: jstk <command> [flags] [arguments]\n       jstk --version\n\nCommands:\n")
	commandList(&b)
	b.WriteString("```\n")
	for _, d := range tools.All() {
		cmd, err := newCommand(d)
		if err != nil {
			panic("cli: " + err.Error()) // the table's own tests catch this first
		}
		fmt.Fprintf(&b, "\n## jstk %s\n\n", d.Name)
		if len(d.Aliases) > 0 {
			fmt.Fprintf(&b, "Also: `jstk %s`. ", strings.Join(d.Aliases, "`, `jstk "))
		}
		fmt.Fprintf(&b, "Over MCP: the tool `%s`.\n\n```\n", d.Name)
		cmd.help(&b)
		b.WriteString("```\n")
	}
	b.WriteString("\n## jstk fetch\n\nNot a tool: the one command that uses the network, run only by hand or in CI.\n\n```\n")
	runFetch(context.Background(), []string{"--help"}, Streams{Stdout: &b, Stderr: io.Discard})
	b.WriteString("```\n\n## jstk mcp\n\n```\n")
	runMCP(context.Background(), []string{"--help"}, Streams{Stdout: &b, Stderr: io.Discard})
	b.WriteString("```\n\n## jstk lsp\n\n```\n")
	runLSP(context.Background(), []string{"--help"}, Streams{Stdout: &b, Stderr: io.Discard})
	b.WriteString("```\n\n## jstk tools\n\n```\n")
	b.WriteString(toolsUsage)
	b.WriteString("```\n")
	return b.Bytes()
}

// callResult is a tools/call result as MCP sends it.
type callResult struct {
	Content           []mcp.Content `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError"`
}

// callTool is one call as the MCP server makes it (mcp.Server), without a server: a panic
// of the tool is answered isError, as the server answers it, and said on stderr with its
// stack (internalError).
func callTool(ctx context.Context, p mcp.Provider, req *mcp.CallRequest, st Streams) (res *mcp.CallResult) {
	defer func() {
		if r := recover(); r != nil {
			internalError(st, "tools call", r, debug.Stack())
			res = mcp.ErrorResult("internal error: tool %q panicked: %v", req.Name, r)
		}
	}()
	res = p.Call(ctx, req)
	if res == nil {
		res = mcp.ErrorResult("internal error: tool %q returned no result", req.Name)
	}
	return res
}

// runToolCall is `jstk tools call TOOL`: one MCP tools/call from the command line.
func runToolCall(ctx context.Context, args []string, st Streams) int {
	fs := flag.NewFlagSet("tools call", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", ".", "")
	noConfig := fs.Bool("no-config", false, "")
	g := &globals{}
	g.registerLimits(fs)
	// The tool's name may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(st.Stdout, toolsUsage)
			return ExitOK
		}
		fmt.Fprintf(st.Stderr, "jstk tools call: %v\n", flagError(err, fs))
		return ExitError
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	if name == "" || len(rest) > 0 {
		fmt.Fprintf(st.Stderr, "jstk tools call: give one tool name (run 'jstk tools' for the list)\n")
		return ExitError
	}
	d, ok := tools.Lookup(name)
	if !ok {
		fmt.Fprintf(st.Stderr, "jstk tools call: unknown tool %q%s (run 'jstk tools' for the list)\n", name, didYouMean(name, toolNames(), "%s"))
		return ExitError
	}
	raw, err := io.ReadAll(io.LimitReader(st.Stdin, mcp.DefaultMaxMessageSize+1))
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk tools call: reading the arguments: %v\n", err)
		return ExitError
	}
	if len(raw) > mcp.DefaultMaxMessageSize {
		fmt.Fprintf(st.Stderr, "jstk tools call: the arguments are larger than %d bytes\n", mcp.DefaultMaxMessageSize)
		return ExitError
	}
	fsys, err := workspace.Root(*root)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk tools call: %v\n", err)
		return ExitError
	}
	// --no-config: no part of jstk.json applies, since the tools know only what env.Config
	// holds.
	var cfg *tools.Config
	resolve := map[string]string{}
	if !*noConfig {
		cfg, err = tools.LoadConfig(fsys)
		if err != nil {
			fmt.Fprintf(st.Stderr, "jstk tools call: %v\n", err)
			return ExitError
		}
		resolve = cfg.Resolve
	}
	for _, r := range g.resolve {
		u, p, _ := tools.ParseResolve(r)
		resolve[u] = p
	}
	env := &tools.Env{FS: fsys, Resolve: resolve, Config: cfg, Limits: g.limits()}
	g.setStore(env, cfg, fsys)
	addLockRemote(env, fsys, ".") // last: after any store entry
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := callTool(ctx, tools.NewProvider(env, []*tools.Descriptor{d}), &mcp.CallRequest{
		Name: d.Name, Arguments: raw, Client: mcp.ClientInfo{Name: "jstk tools call"}}, st)
	out := callResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
	if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	data, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk tools call: the result could not be encoded: %v\n", err)
		return ExitError
	}
	st.Stdout.Write(append(data, '\n'))
	if res.IsError {
		return ExitError
	}
	if r, ok := res.StructuredContent.(tools.Report); ok {
		return r.ExitCode()
	}
	return ExitOK
}
