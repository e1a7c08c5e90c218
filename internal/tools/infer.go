package tools

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jstk-dev/jstk/internal/infer"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// InferInput are the arguments of infer.
type InferInput struct {
	Instances     []Doc  `json:"instances" desc:"The example documents. A path may name a file (JSON, YAML, TOML, or NDJSON with one instance per line, streamed), a directory (its .json/.yaml/.yml/.toml/.ndjson/.jsonl files) or a glob pattern; \"-\" reads standard input."`
	Draft         string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" desc:"The dialect of the inferred schema (default 2020-12)."`
	From          Doc    `json:"from,omitempty" role:"schema" desc:"A schema to refine: it is read as a summary of earlier examples and widened until it accepts every new instance; its titles and descriptions are kept."`
	Closed        bool   `json:"closed,omitempty" desc:"Write additionalProperties: false on every object that is not a map."`
	Bounds        bool   `json:"bounds,omitempty" desc:"Write the smallest and largest values, string lengths, item and property counts seen."`
	AnyOf         bool   `json:"anyOf,omitempty" desc:"Keep objects with different sets of keys at one place as anyOf alternatives instead of merging them."`
	NoFormats     bool   `json:"noFormats,omitempty" desc:"Do not detect string formats (date-time, date, time, email, uri, uuid, ipv4, ipv6, hostname)."`
	EnumMinCount  int    `json:"enumMinCount,omitempty" min:"1" desc:"Strings needed at a place before its values may become an enum (default 10); an enum also needs fewer distinct values than the square root of that count."`
	EnumMaxValues int    `json:"enumMaxValues,omitempty" min:"1" desc:"Most values an inferred enum may have (default 50)."`
	MapMinKeys    int    `json:"mapMinKeys,omitempty" min:"2" desc:"Distinct keys that make an object whose instances each use at most half of them, all with values of one type, a map written with additionalProperties (default 20)."`
}

func init() {
	register(define(Descriptor{
		Name:     "infer",
		Title:    "Infer a JSON Schema from example documents",
		Summary:  "derive a schema from example instances (files, directories, NDJSON streams, stdin)",
		Usage:    "[flags] INSTANCE...",
		Document: true,
		Description: "Answers: what schema describes these documents? Use it to bootstrap a schema from " +
			"real data instead of writing one by hand. The inferred schema accepts every instance given " +
			"(sound by construction): a property is required only when every object at that place has it, " +
			"integers widen to number when a fraction appears, null joins the type list, a format is written " +
			"only when every string there satisfies it, strings become an enum only when few values repeat " +
			"often, objects with many varying keys become maps (additionalProperties). Repeated object shapes " +
			"go to $defs. The result's schema field is the schema document; instances counts the documents " +
			"read; notes says what of a `from` schema could not be kept. Output is deterministic.",
	}, runInfer))
}

func runInfer(ctx context.Context, env *Env, in *InferInput) (*infer.Result, error) {
	if len(in.Instances) == 0 {
		return nil, fmt.Errorf("%s: give at least one instance", env.arg("instances"))
	}
	opts := &infer.Options{Closed: in.Closed, Bounds: in.Bounds, AnyOf: in.AnyOf, NoFormats: in.NoFormats,
		EnumMinCount: in.EnumMinCount, EnumMaxValues: in.EnumMaxValues, MapMinKeys: in.MapMinKeys,
		Limits: env.Limits}
	if in.EnumMinCount < 0 || in.EnumMaxValues < 0 || in.MapMinKeys < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("enumMinCount", "enumMaxValues", "mapMinKeys"))
	}
	if in.Draft != "" {
		d, ok := schema.DraftByName(in.Draft)
		if !ok {
			return nil, fmt.Errorf("%s: unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", env.arg("draft"), in.Draft)
		}
		opts.Draft = d
	}
	if in.From.Path != "" || len(in.From.Value) > 0 || in.From.Text != "" {
		s, err := LoadSchema(env, in.From, "from", SchemaOptions{})
		if err != nil {
			return nil, err
		}
		opts.From = s
	}
	var srcs []infer.Source
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
			srcs = append(srcs, infer.Source{Name: "-", Reader: env.Stdin})
		case d.Path != "":
			files, errs := workspace.Expand(env.FS, []string{d.Path}, instanceExts)
			if len(errs) > 0 {
				return nil, errs[0]
			}
			for _, f := range files {
				srcs = append(srcs, infer.Source{Name: f, Path: f})
			}
		default:
			data, name, err := d.bytes(env, arg)
			if err != nil {
				return nil, err
			}
			srcs = append(srcs, infer.Source{Name: name, Text: data})
		}
	}
	return infer.Run(ctx, srcs, env.FS, opts)
}
