package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/validate"
)

// ValidateInput are the arguments of validate.
type ValidateInput struct {
	Schema        Doc    `json:"schema,omitempty" role:"schema" brief:"-" desc:"The JSON Schema to validate against; FILE#/pointer names one inside a document, such as an OpenAPI document's /components/schemas/Pet, read in that document's dialect. Without it, each file is checked against the schema that applies to it: its own $schema (or YAML modeline, TOML #:schema), the schemas map of jstk.json, else SchemaStore's catalog by file name; a file whose $schema is a meta-schema is checked as a schema."`
	Instances     []Doc  `json:"instances,omitempty" pointer:"-" brief:"Files, dirs or globs" desc:"The documents to check. A path may name a file (JSON, YAML, TOML, or NDJSON with one instance per line), a directory (its .json/.yaml/.yml/.toml/.ndjson/.jsonl files; without a schema, every file under it that has one, honouring .gitignore) or a glob pattern. Without a schema the default is the whole workspace (.)."`
	RequireSchema bool   `json:"requireSchema,omitempty" cli:"only" brief:"-" desc:"Without a schema: a file that no schema applies to is a finding (exit 1), not only listed."`
	AssertFormat  bool   `json:"assertFormat,omitempty" brief:"-" desc:"Check format keywords (date-time, email, uri, ...) as assertions instead of annotations."`
	Draft         string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"Overrides $schema" desc:"Read the schema as this draft, whatever its $schema says. By default $schema decides, and 2020-12 when there is none."`
	MaxErrors     int    `json:"maxErrors,omitempty" min:"0" default:"1000" brief:"Per instance" desc:"Report at most this many errors of one instance (causes of anyOf/oneOf count; default 1000); the instance is then marked truncated."`
	InvalidOnly   bool   `json:"invalidOnly,omitempty" brief:"-" desc:"List only the instances that are invalid or unreadable (the summary still counts all)."`
	Offset        int    `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many instances of the list (for paging through long results)."`
	Limit         int    `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many instances (0: the default of the surface; the CLI lists all)."`
	Output        string `json:"output,omitempty" enum:"flag,basic,detailed,verbose" brief:"-" desc:"Add to each instance of the JSON result (--format json) its result in this output format of JSON Schema 2020-12 (section 12), annotations included."`
}

// printedWhole: without a schema, the instances are grouped by schema, printed whole.
func (in *ValidateInput) printedWhole() bool { return in.Schema.empty() }

// instanceExts are the extensions a directory argument contributes.
var instanceExts = []string{".json", ".jsonc", ".yaml", ".yml", ".toml", ".ndjson", ".jsonl"}

func init() {
	d := define(Descriptor{
		Name:          "validate",
		Title:         "Validate documents",
		Summary:       "check documents against a schema, reporting every error with its position",
		Usage:         "[--schema SCHEMA] [flags] INSTANCE...",
		Description:   "Answers: does each document satisfy its JSON Schema (the one given, else its own)? Use it rather than judging validity by reading the schema. Errors have pointers, line and column; groups count them.",
		Help:          "Checks each instance against the schema (the one given with `schema`, else the one each file names or is associated with) and reports every error of every instance: its file, line and column, its JSON Pointer, the failing keyword and the message; errors that repeat are grouped by keyword, schema location and message. Instances are JSON, YAML, TOML, NDJSON or JSONC files, directories, glob patterns, or - for standard input.",
		ExitCodes:     validateExitCodes,
		ProgressBytes: true,
		Samples:       validateSamples,
	}, runValidate)
	d.stream = streamValidate
	register(d)
}

// validateExitCodes say what the exit codes of validate mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var validateExitCodes = []ExitCode{
	{0, "every instance is valid"},
	{1, "an instance is invalid"},
	{2, "could not run: an unreadable instance, an invalid or unresolvable schema, a usage error, a run stopped"},
}

// validateSamples are calls of validate on the sample workspace (Descriptor.Samples).
var validateSamples = []string{
	`{"schema": {"path": "order.schema.json"}, "instances": [{"path": "orders.ndjson"}, {"path": "orders-with-errors.ndjson"}, {"path": "order.yaml"}]}`,
	`{"schema": {"value": {"type": "object", "required": ["a"]}}, "instances": [{"value": {"a": 1}}, {"text": "b: 2\n"}, {"path": "sub"}]}`,
	`{"schema": {"text": "type: integer\nminimum: 0\n"}, "instances": [{"value": -1}, {"value": 7}], "assertFormat": true, "draft": "2020-12"}`,
	`{"schema": {"path": "order.schema.json"}, "instances": [{"path": "orders*.ndjson"}], "invalidOnly": true, "limit": 1, "offset": 1}`,
}

// streamValidate adapts validate's stream printer to the table's: the items are the
// instances, the report the result.
func streamValidate(f diag.Format, w io.Writer, tool diag.Tool) *Stream {
	s := validate.NewStream(f, w, tool)
	if s == nil {
		return nil
	}
	return &Stream{
		OnItem: func(x any) { s.Instance(x.(*validate.Instance)) },
		Finish: func(r Report) error { return s.Finish(r.(*validate.Result)) },
	}
}

func runValidate(ctx context.Context, env *Env, in *ValidateInput) (*validate.Result, error) {
	if in.Schema.empty() {
		if in.Offset < 0 || in.Limit < 0 {
			return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
		}
		return runValidateAll(ctx, env, in)
	}
	if len(in.Instances) == 0 {
		return nil, fmt.Errorf("%s: give at least one instance", env.arg("instances"))
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft, AssertFormat: in.AssertFormat, Ctx: ctx})
	if err != nil {
		return nil, err
	}
	ins, bad, err := docInputs(env, in.Instances, "instances", docOptions{exts: instanceExts, stream: true, lenient: true})
	if err != nil {
		return nil, err
	}
	srcs := make([]validate.Source, 0, len(ins))
	size := int64(0) // the bytes of the input, for progress reports; -1 when unknown (standard input)
	for _, x := range ins {
		srcs = append(srcs, validate.Source{Name: x.Name, Path: x.Path, Reader: x.Reader, Text: x.Text, ParseName: x.ParseName})
		switch {
		case x.Reader != nil:
			size = -1
		case x.Path != "":
			if env.Progress != nil && size >= 0 {
				if fi, err := env.FS.Stat(x.Path); err == nil {
					size += fi.Size()
				}
			}
		case size >= 0:
			size += int64(len(x.Text))
		}
	}
	var problems []validate.Instance
	for _, p := range bad {
		problems = append(problems, validate.Instance{File: p.Path, Errors: []validate.Error{}, Problem: p.Err.Error()})
	}
	opts := &validate.Options{Limits: env.Limits, MaxErrors: in.MaxErrors, Output: schema.OutputFormat(in.Output)}
	// A paged call keeps only its page, however many instances stream by: memory follows
	// the answer, not the input (the summary counts them all).
	paged := env.OnItem == nil && (in.Offset > 0 || in.Limit > 0)
	var kept []validate.Instance
	listed := 0
	// Over MCP the answer has a budget: a page keeps the instances it could hold, and
	// counts the others (memory follows the answer, even with a limit of 100000).
	keptBytes, full := 0, false
	list := func(inst *validate.Instance) {
		switch {
		case in.InvalidOnly && inst.Valid:
		case env.OnItem != nil:
			env.OnItem(inst)
		case paged:
			if listed >= in.Offset && (in.Limit <= 0 || listed < in.Offset+in.Limit) && !full {
				kept = append(kept, *inst)
				if env.MaxResultBytes > 0 {
					if keptBytes += instanceSize(inst); keptBytes > env.MaxResultBytes {
						full = true
					}
				}
			}
			listed++
		default:
			kept = append(kept, *inst)
		}
	}
	done, read := 0, int64(0)
	opts.OnInstance = func(inst *validate.Instance) {
		done++
		list(inst)
	}
	if env.Progress != nil {
		// Progress in bytes of input, of the files' sizes when all are known: after each
		// file, or NDJSON chunk of 256 KiB.
		opts.OnRead = func(n int64) {
			read += n
			env.Progress(float64(read), float64(max(size, 0)), fmt.Sprintf("%d instances validated", done))
		}
	}
	res, err := validate.Run(ctx, s, srcs, env.FS, opts)
	if err != nil {
		return nil, err
	}
	if res.Stopped == "" {
		for i := range problems {
			p := problems[i]
			res.Summary.Total++
			res.Summary.Unreadable++
			res.Valid = false
			list(&p)
		}
	}
	if kept != nil {
		res.Instances = kept
	}
	if paged {
		if off := min(in.Offset, listed); off > 0 || len(res.Instances) < listed {
			res.Page = &diag.Page{Offset: off, Limit: in.Limit, Total: listed, Omitted: listed - len(res.Instances)}
		}
	}
	return res, nil
}

// instanceSize is a lower bound of the size of an instance's JSON, without encoding it.
func instanceSize(in *validate.Instance) int {
	n := len(in.File) + len(in.Problem) + 40
	var errs func([]validate.Error)
	errs = func(es []validate.Error) {
		for i := range es {
			e := &es[i]
			n += len(e.InstanceLocation) + len(e.KeywordLocation) + len(e.AbsoluteKeywordLocation) + len(e.Keyword) + len(e.Message) + 100
			errs(e.Causes)
		}
	}
	errs(in.Errors)
	if in.Output != nil {
		n += in.Output.Size()
	}
	return n
}
