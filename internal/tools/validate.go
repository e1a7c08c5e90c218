package tools

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// ValidateInput are the arguments of validate.
type ValidateInput struct {
	Schema       Doc    `json:"schema" role:"schema" desc:"The JSON Schema to validate against; FILE#/pointer names one inside a document, such as an OpenAPI document's /components/schemas/Pet, read in that document's dialect."`
	Instances    []Doc  `json:"instances" desc:"The documents to check. A path may name a file (JSON, YAML, TOML, or NDJSON with one instance per line), a directory (its .json/.yaml/.yml/.toml/.ndjson/.jsonl files) or a glob pattern."`
	AssertFormat bool   `json:"assertFormat,omitempty" desc:"Check format keywords (date-time, email, uri, ...) as assertions instead of annotations."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" desc:"Read the schema as this draft, whatever its $schema says. By default $schema decides, and 2020-12 when there is none."`
	MaxErrors    int    `json:"maxErrors,omitempty" min:"0" desc:"Report at most this many errors of one instance (causes of anyOf/oneOf count; default 1000); the instance is then marked truncated."`
	InvalidOnly  bool   `json:"invalidOnly,omitempty" desc:"List only the instances that are invalid or unreadable (the summary still counts all)."`
	Offset       int    `json:"offset,omitempty" min:"0" desc:"Skip this many instances of the list (for paging through long results)."`
	Limit        int    `json:"limit,omitempty" min:"0" desc:"List at most this many instances (0: the default of the surface; the CLI lists all)."`
}

// instanceExts are the extensions a directory argument contributes.
var instanceExts = []string{".json", ".jsonc", ".yaml", ".yml", ".toml", ".ndjson", ".jsonl"}

func init() {
	register(define(Descriptor{
		Name:    "validate",
		Title:   "Validate instances against a JSON Schema",
		Summary: "check documents against a schema, reporting every error with its position",
		Usage:   "--schema SCHEMA [flags] INSTANCE...",
		Description: "Answers: does each document satisfy the schema? Use it instead of judging " +
			"validity by reading the schema: it applies the JSON Schema rules exactly (drafts 4, 6, 7, " +
			"2019-09 and 2020-12, chosen by $schema; $ref resolved offline; numbers compared exactly). " +
			"The result lists every error of every invalid instance, each with instanceLocation (JSON " +
			"Pointer into the instance), keywordLocation (the schema path that failed), a message, and " +
			"the line and column in the file. valid is true only when every instance was read and is " +
			"valid. An unreadable instance has a problem instead of errors. format keywords are not " +
			"checked unless `assertFormat` is set.",
	}, runValidate))
}

func runValidate(ctx context.Context, env *Env, in *ValidateInput) (*validate.Result, error) {
	if len(in.Instances) == 0 {
		return nil, fmt.Errorf("%s: give at least one instance", env.arg("instances"))
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft, AssertFormat: in.AssertFormat})
	if err != nil {
		return nil, err
	}
	var srcs []validate.Source
	var problems []validate.Instance
	size := int64(0) // the bytes of the input, for progress reports; -1 when unknown (standard input)
	for i, d := range in.Instances {
		arg := "instances[" + strconv.Itoa(i) + "]"
		if err := d.check(env, arg); err != nil {
			return nil, err
		}
		switch {
		case d.Path == "-":
			if env.Stdin == nil {
				return nil, fmt.Errorf("%s: \"-\" (standard input) is not available here", env.arg(arg))
			}
			srcs = append(srcs, validate.Source{Name: "-", Reader: env.Stdin})
			size = -1
		case d.Path != "":
			files, errs := workspace.Expand(env.FS, []string{d.Path}, instanceExts)
			for _, f := range files {
				srcs = append(srcs, validate.Source{Name: f, Path: f})
				if env.Progress != nil && size >= 0 {
					if fi, err := env.FS.Stat(f); err == nil {
						size += fi.Size()
					}
				}
			}
			for _, e := range errs {
				problems = append(problems, validate.Instance{File: d.Path, Errors: []validate.Error{}, Problem: e.Error()})
			}
		default:
			data, _, _ := d.bytes(env, arg)
			srcs = append(srcs, validate.Source{Name: d.label(arg), Text: data})
			if size >= 0 {
				size += int64(len(data))
			}
		}
	}
	opts := &validate.Options{Limits: env.Limits, MaxErrors: in.MaxErrors}
	// A paged call keeps only its page, however many instances stream by: memory follows
	// the answer, not the input (the summary counts them all).
	paged := env.OnItem == nil && (in.Offset > 0 || in.Limit > 0)
	var kept []validate.Instance
	listed := 0
	list := func(inst *validate.Instance) {
		switch {
		case in.InvalidOnly && inst.Valid:
		case env.OnItem != nil:
			env.OnItem(inst)
		case paged:
			if listed >= in.Offset && (in.Limit <= 0 || listed < in.Offset+in.Limit) {
				kept = append(kept, *inst)
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
			res.Page = &validate.Page{Offset: off, Limit: in.Limit, Total: listed, Omitted: listed - len(res.Instances)}
		}
	}
	return res, nil
}
