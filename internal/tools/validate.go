package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"sync/atomic"

	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// ValidateInput are the arguments of validate.
type ValidateInput struct {
	Schema       Doc    `json:"schema" role:"schema" brief:"-" desc:"The JSON Schema to validate against; pointer (FILE#/pointer on the command line) names one inside a document, such as an OpenAPI document's /components/schemas/Pet, read in that document's dialect."`
	Instances    []Doc  `json:"instances" pointer:"-" brief:"Paths may be directories or globs" desc:"The documents to check. A path may name a file (JSON, YAML, TOML, or NDJSON with one instance per line), a directory (its .json/.yaml/.yml/.toml/.ndjson/.jsonl files) or a glob pattern."`
	AssertFormat bool   `json:"assertFormat,omitempty" brief:"-" desc:"Check format keywords (date-time, email, uri, ...) as assertions instead of annotations."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"Overrides $schema" desc:"Read the schema as this draft, whatever its $schema says. By default $schema decides, and 2020-12 when there is none."`
	MaxErrors    int    `json:"maxErrors,omitempty" min:"0" default:"1000" brief:"Errors listed per instance" desc:"Report at most this many errors of one instance (causes of anyOf/oneOf count; default 1000); the instance is then marked truncated."`
	InvalidOnly  bool   `json:"invalidOnly,omitempty" brief:"-" desc:"List only the instances that are invalid or unreadable (the summary still counts all)."`
	Offset       int    `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many instances of the list (for paging through long results)."`
	Limit        int    `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many instances (0: the default of the surface; the CLI lists all)."`
}

// instanceExts are the extensions a directory argument contributes.
var instanceExts = []string{".json", ".yaml", ".yml", ".toml", ".ndjson", ".jsonl"}

func init() {
	register(define(Descriptor{
		Name:        "validate",
		Title:       "Validate documents",
		Summary:     "check documents against a schema, reporting every error with its position",
		Usage:       "--schema SCHEMA [flags] INSTANCE...",
		Description: "Answers: does each document satisfy this JSON Schema? Use it instead of judging validity by reading the schema. groups counts the errors per keyword, schema location and message; instances lists each error with its pointers, message, line and column.",
	}, runValidate))
}

func runValidate(ctx context.Context, env *Env, in *ValidateInput) (*validate.Result, error) {
	if len(in.Instances) == 0 {
		return nil, fmt.Errorf("argument instances: give at least one instance")
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("arguments offset and limit must not be negative")
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft, AssertFormat: in.AssertFormat})
	if err != nil {
		return nil, err
	}
	var srcs []validate.Source
	var problems []validate.Instance
	for i, d := range in.Instances {
		arg := "instances[" + strconv.Itoa(i) + "]"
		if err := d.check(arg); err != nil {
			return nil, err
		}
		switch {
		case d.Path == "-":
			if env.Stdin == nil {
				return nil, fmt.Errorf("argument %s: \"-\" (standard input) is not available here", arg)
			}
			srcs = append(srcs, validate.Source{Name: "-", Reader: env.Stdin})
		case d.Path != "":
			files, errs := workspace.Expand(env.FS, []string{d.Path}, instanceExts)
			for _, f := range files {
				srcs = append(srcs, validate.Source{Name: f, Path: f})
			}
			for _, e := range errs {
				problems = append(problems, validate.Instance{File: d.Path, Errors: []validate.Error{}, Problem: e.Error()})
			}
		default:
			data, _, _ := d.bytes(env, arg)
			srcs = append(srcs, validate.Source{Name: d.label(arg), Text: data})
		}
	}
	opts := &validate.Options{Limits: env.Limits, MaxErrors: in.MaxErrors}
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
	done := 0
	fsys, read, total := env.FS, (*atomic.Int64)(nil), int64(0)
	if env.Progress != nil {
		// Progress is the bytes read of the files' total size when every instance is a
		// file (the receiver throttles the reports), else the count of instances.
		fsys, read, total = countReads(env.FS, srcs)
	}
	opts.OnInstance = func(inst *validate.Instance) {
		done++
		if env.Progress != nil {
			msg := fmt.Sprintf("%d instances validated", done)
			if total > 0 {
				env.Progress(float64(read.Load()), float64(total), msg)
			} else {
				env.Progress(float64(done), 0, msg)
			}
		}
		list(inst)
	}
	res, err := validate.Run(ctx, s, srcs, fsys, opts)
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
	return n
}

// countReads returns fsys counting the bytes read from the files it opens, and the total
// size of the sources (0 when one is not a file, or its size is unknown).
func countReads(fsys workspace.FS, srcs []validate.Source) (workspace.FS, *atomic.Int64, int64) {
	read := new(atomic.Int64)
	var total int64
	for _, src := range srcs {
		fi, err := fsys.Stat(src.Path)
		if src.Path == "" || err != nil || !fi.Mode().IsRegular() {
			return fsys, read, 0
		}
		total += fi.Size()
	}
	return countingFS{fsys, read}, read, total
}

// countingFS counts the bytes read from the files it opens.
type countingFS struct {
	workspace.FS
	read *atomic.Int64
}

func (c countingFS) Open(name string) (io.ReadCloser, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{f, c.read}, nil
}

type countingFile struct {
	io.ReadCloser
	read *atomic.Int64
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.ReadCloser.Read(p)
	f.read.Add(int64(n))
	return n, err
}

// Stat is the file's, so that a whole read is sized at once (workspace.ReadFile).
func (f *countingFile) Stat() (fs.FileInfo, error) {
	if st, ok := f.ReadCloser.(interface{ Stat() (fs.FileInfo, error) }); ok {
		return st.Stat()
	}
	return nil, errors.ErrUnsupported
}
