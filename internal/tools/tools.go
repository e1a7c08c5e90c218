// Package tools owns THE descriptor table: one entry per capability of jstk, with its name,
// a description written for a model, its input and output types (whose JSON Schemas are
// derived from the Go types), its annotations, and a handler that calls exactly one engine.
// The CLI's subcommands and the MCP server's tools are both generated from this table, so a
// person and an agent always get the same answer.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Report is what a handler returns: an engine's result, printable in every format.
type Report interface {
	diag.Report
	// ExitCode is the CLI's exit status: 0 clean, 1 findings.
	ExitCode() int
}

// Env is what a handler may use: the workspace and the settings around the call.
type Env struct {
	// FS reads files: the operating system for the CLI, the confined workspace for MCP.
	FS workspace.FS
	// Stdin is read for the path "-" (CLI only; nil over MCP).
	Stdin io.Reader
	// Resolve maps URIs or URI prefixes to files, from jstk.json and --resolve.
	Resolve map[string]string
	// Config is the workspace's configuration, jstk.json, as the surface read it
	// (LoadConfigAt: jstk mcp at its --root, the CLI in the workspace WorkspaceOf derives
	// from the files its user named); nil is none (no file, or jstk tools call --no-config).
	// It is the only way a handler learns the configuration: no handler reads jstk.json,
	// so a surface that does not read it applies no part of it. Its resolve map is already
	// in Resolve; each engine with settings takes its block from here (lint: Config.Lint).
	Config *Config
	// Remotes hold the remote documents a $ref or $schema may name (the vendored
	// SchemaStore, the cache jstk.lock pins), tried after the resolve map and the
	// meta-schemas; nil is none.
	Remotes []schema.Remote
	// Store is the SchemaStore the association matches files against by fileMatch (the
	// built-in one, or one the user pointed at); nil is none (--no-catalog, "schemastore":
	// false). It is read on first need: a run that names its schema never opens it.
	Store *store.Store
	// Root is the workspace root, a name of FS ("" is "."): catalog patterns match paths
	// relative to it.
	Root string
	// Index is the $id index of the workspace, the last step of $ref resolution, built on
	// first need; nil indexes the whole FS when needed.
	Index *schema.Index
	// Notes receives the notices of the run (a $ref resolved from the $id index, an index
	// cut short); nil drops them.
	Notes *Notes
	// Limits bound every document read.
	Limits *source.Limits
	// Cache keeps compiled schemas across calls; nil compiles every time.
	Cache *SchemaCache
	// OnItem, when set, receives the items of a long result as they are produced (the CLI
	// streams validate's instances this way); the result then leaves them out.
	OnItem func(any)
	// Progress reports progress of long calls; may be nil.
	Progress func(done, total float64, message string)
	// ArgName names the tool's arguments in errors as the calling surface does; nil names
	// them as MCP does ("argument failUnder"). The CLI names its flags and positional
	// arguments ("--fail-under", "SCHEMA"). The name given is the argument's JSON name,
	// perhaps with an index ("instances[2]").
	ArgName func(name string) string
	// Timeout bounds each run (0: no limit): a run that reaches it ends with "stopped after
	// N s: ..." (a result for validate and sample, the error of the others).
	Timeout time.Duration
	// MaxResultBytes is the budget of a result over MCP (see DefaultMaxResultBytes): a
	// handler that builds a long answer (sample, validate's page) stops keeping what could
	// not fit. For a Provider's Env, 0 means DefaultMaxResultBytes and a negative value no
	// budget; in a handler's Env, 0 means no budget (the CLI's runs).
	MaxResultBytes int
	// RegexBudget is the time all the pattern matches of one run may take together (see
	// schema.WithRegexBudget); 0 means schema.DefaultRegexBudget, negative no budget.
	RegexBudget time.Duration
}

// DefaultRegexBudget is the pattern budget of a run when Env gives none.
const DefaultRegexBudget = schema.DefaultRegexBudget

// Descriptor describes one tool.
type Descriptor struct {
	// Name is the CLI subcommand and the MCP tool name: ^[a-z][a-z0-9_]{0,63}$.
	Name string
	// Title is a short human name.
	Title string
	// Summary is one line for CLI help.
	Summary string
	// Description tells a model what the tool answers, when to use it and what the result
	// means. It names arguments in backquotes (`list`), so that each surface can name
	// them its own way: the CLI's help says --list. A camelCase name (assertFormat) is
	// recognised without them, in the desc tags of the input fields too, which cannot hold
	// backquotes; a schema inside a document is FILE#/pointer on every surface.
	Description string
	// Help is what `jstk NAME --help` says after the summary: written for a person at a
	// terminal (what the command does and what it prints), where Description is written
	// for a model (when to use the tool, in place of what). Arguments are named as in
	// Description.
	Help string
	// Usage is the CLI synopsis after the command name.
	Usage string
	// Aliases are other CLI names of the command (e.g. "catalog" for list_schemas).
	Aliases []string
	// Input and Output are the Go types of the arguments and of the structured result.
	// Input fields tagged `cli:"only"` are CLI flags that MCP does not offer (writing files,
	// for instance); a field tagged `short:"o"` also answers to that one-letter flag.
	Input, Output reflect.Type
	// Formats lists the --format values of the tool's own beyond those every command prints
	// (diag.Common): formats of diag's registry marked Own (junit, lcov, yaml); its reports
	// implement Formatter.
	Formats []diag.Format
	// Document is true when the tool's text output is a document (a schema, instances)
	// rather than findings: the CLI refuses the formats that carry findings, sarif and
	// github.
	Document bool

	run      func(ctx context.Context, env *Env, in any) (Report, error)
	newInput func() any
	// stream, when set, makes a printer of the tool's results while they are produced
	// (see NewStream); nil when it returns nil.
	stream func(f diag.Format, w io.Writer, tool diag.Tool) *Stream
}

// NewInput returns a pointer to a zero input value.
func (d *Descriptor) NewInput() any { return d.newInput() }

// Run calls the handler with an input made by NewInput, as one run: within env's time
// limit and pattern budget. An error that a budget caused says so ("stopped after N s:
// ...", see schema.Stopped).
func (d *Descriptor) Run(ctx context.Context, env *Env, in any) (Report, error) {
	ctx, cancel := schema.WithTimeout(ctx, env.Timeout)
	defer cancel()
	budget := env.RegexBudget
	if budget == 0 {
		budget = schema.DefaultRegexBudget
	}
	ctx = schema.WithRegexBudget(ctx, budget)
	r, err := d.run(ctx, env, in)
	if err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	return r, nil
}

// InputSchema is the JSON Schema of the arguments.
func (d *Descriptor) InputSchema() json.RawMessage { return schemaFor(d.Input, false) }

// OutputSchema is the JSON Schema of the structured result.
func (d *Descriptor) OutputSchema() json.RawMessage { return schemaFor(d.Output, true) }

// define builds a descriptor from a typed handler.
func define[In any, Out Report](d Descriptor, run func(context.Context, *Env, *In) (Out, error)) *Descriptor {
	d.Input = reflect.TypeFor[In]()
	d.Output = reflect.TypeFor[Out]()
	if d.Output.Kind() == reflect.Pointer {
		d.Output = d.Output.Elem()
	}
	d.newInput = func() any { return new(In) }
	d.run = func(ctx context.Context, env *Env, in any) (Report, error) {
		p, ok := in.(*In)
		if !ok {
			return nil, fmt.Errorf("tool %s: input of type %T, want *%s", d.Name, in, d.Input)
		}
		out, err := run(ctx, env, p)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return &d
}

// Failer is implemented by reports of a tool that ran and then failed, such as an exact id
// that does not exist in the evaluated workspace: the report (what was evaluated, the
// closest candidates) comes first, then the error. Over MCP the result has isError set and
// both texts; the CLI prints the report, then the error, and exits 2.
type Failer interface {
	Failure() error
}

// Noter is implemented by reports whose text output is a document (a bundled schema, a
// sample): what the report would say besides goes to stderr on the CLI.
type Noter interface {
	Notes() []string
}

// Formatter is implemented by reports that print formats of their own.
type Formatter interface {
	WriteFormat(w io.Writer, format string) error
}

// OutputFile is a file a report proposes to write.
type OutputFile struct {
	Path string
	Data []byte
}

// FileProposer is implemented by reports that carry files (bundle -o, lint --fix). Tools
// never write; the CLI writes them where its user asked.
type FileProposer interface {
	OutputFiles() []OutputFile
}

var table []*Descriptor

// register adds descriptors to the table; each engine's file registers its own.
func register(ds ...*Descriptor) {
	table = append(table, ds...)
	sort.Slice(table, func(i, j int) bool { return table[i].Name < table[j].Name })
}

// All returns the descriptor table, sorted by name.
func All() []*Descriptor { return table }

// Lookup finds a descriptor by name.
func Lookup(name string) (*Descriptor, bool) {
	for _, d := range table {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// LookupCommand finds a descriptor by CLI name: its name or one of its aliases.
func LookupCommand(name string) (*Descriptor, bool) {
	if d, ok := Lookup(name); ok {
		return d, true
	}
	for _, d := range table {
		for _, a := range d.Aliases {
			if a == name {
				return d, true
			}
		}
	}
	return nil, false
}
