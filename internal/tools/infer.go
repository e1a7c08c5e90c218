package tools

import (
	"context"
	"fmt"

	"github.com/jstk-dev/jstk/internal/infer"
	"github.com/jstk-dev/jstk/internal/schema"
)

// InferInput are the arguments of infer.
type InferInput struct {
	Instances     []Doc  `json:"instances" pointer:"-" brief:"Files, dirs or globs" desc:"The example documents. A path may name a file (JSON, YAML, TOML, or NDJSON with one instance per line, streamed), a directory (its .json/.yaml/.yml/.toml/.ndjson/.jsonl files) or a glob pattern; \"-\" reads standard input."`
	Draft         string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" default:"\"2020-12\"" brief:"Of the inferred schema" desc:"The dialect of the inferred schema (default 2020-12)."`
	From          Doc    `json:"from,omitempty" role:"schema" brief:"A schema to widen" desc:"A schema to refine: it is read as a summary of earlier examples and widened until it accepts every new instance; its titles and descriptions are kept."`
	Closed        bool   `json:"closed,omitempty" brief:"additionalProperties: false on objects" desc:"Write additionalProperties: false on every object that is not a map."`
	Bounds        bool   `json:"bounds,omitempty" brief:"Write the extremes seen" desc:"Write the smallest and largest values, string lengths, item and property counts seen."`
	Alternatives  bool   `json:"alternatives,omitempty" brief:"Keep differently keyed objects as anyOf branches" desc:"Keep objects with different sets of keys at one place as anyOf alternatives instead of merging them."`
	NoFormats     bool   `json:"noFormats,omitempty" brief:"-" desc:"Do not detect string formats (date-time, date, time, email, uri, uuid, ipv4, ipv6, hostname)."`
	EnumMinCount  int    `json:"enumMinCount,omitempty" min:"1" default:"10" brief:"Strings seen before an enum" desc:"Strings needed at a place before its values may become an enum (default 10); an enum also needs fewer distinct values than the square root of that count."`
	EnumMaxValues int    `json:"enumMaxValues,omitempty" min:"1" default:"50" brief:"-" desc:"Most values an inferred enum may have (default 50)."`
	MapMinKeys    int    `json:"mapMinKeys,omitempty" min:"2" default:"20" brief:"Keys that make a sparse object a map" desc:"Distinct keys that make an object whose instances each use at most half of them, all with values of one type, a map written with additionalProperties (default 20)."`
}

func init() {
	register(define(Descriptor{
		Name:        "infer",
		Title:       "Infer a schema",
		Summary:     "derive a schema from example instances (files, directories, NDJSON streams, stdin)",
		Usage:       "[flags] INSTANCE...",
		Document:    true,
		Description: "Answers: what schema describes these documents? Use it to bootstrap a schema from real data. It accepts every instance given (required, format and enum only when every one fits). `from` widens a schema; notes say what was dropped.",
		Help:        "Derives a schema that accepts every instance given: a property is required only when it is always present, a format or enum only when every value fits. `from` widens an existing schema instead; notes say what was dropped (of it, or past the depth limit).",
		ExitCodes:   inferExitCodes,
		Samples:     inferSamples,
	}, runInfer))
}

// inferExitCodes say what the exit codes of infer mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var inferExitCodes = []ExitCode{
	{0, "inferred"},
	{2, "could not run: an unreadable instance, a usage error, a run stopped"},
}

// inferSamples are calls of infer on the sample workspace (Descriptor.Samples).
var inferSamples = []string{
	`{"instances": [{"path": "orders.ndjson"}, {"path": "order.yaml"}]}`,
	`{"instances": [{"value": {"a": 1}}, {"text": "{\"a\": 2.5, \"b\": \"x\"}"}], "closed": true, "bounds": true, "draft": "7"}`,
}

func runInfer(ctx context.Context, env *Env, in *InferInput) (*infer.Result, error) {
	if len(in.Instances) == 0 {
		return nil, fmt.Errorf("%s: give at least one instance", env.arg("instances"))
	}
	opts := &infer.Options{Closed: in.Closed, Bounds: in.Bounds, AnyOf: in.Alternatives, NoFormats: in.NoFormats,
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
		s, err := LoadSchema(env, in.From, "from", SchemaOptions{Ctx: ctx})
		if err != nil {
			return nil, err
		}
		opts.From = s
	}
	ins, _, err := docInputs(env, in.Instances, "instances", docOptions{exts: instanceExts, stream: true})
	if err != nil {
		return nil, err
	}
	srcs := make([]infer.Source, 0, len(ins))
	for _, x := range ins {
		srcs = append(srcs, infer.Source{Name: x.ParseName, Path: x.Path, Reader: x.Reader, Text: x.Text})
	}
	return infer.Run(ctx, srcs, env.FS, opts)
}
