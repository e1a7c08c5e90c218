package tools

import (
	"context"
	"fmt"

	"github.com/jstk-dev/jstk/internal/sample"
)

// SampleInput are the arguments of sample.
type SampleInput struct {
	Schema       Doc    `json:"schema" cli:"arg" role:"schema" brief:"-" desc:"The JSON Schema to generate instances of; FILE#/pointer names one inside a document."`
	Count        int    `json:"count,omitempty" min:"1" max:"10000" brief:"-" desc:"How many instances to generate (default 1). One is printed as a JSON document, more as NDJSON (one per line)."`
	Seed         int64  `json:"seed,omitempty" brief:"-" desc:"Seed of the random choices: the same seed gives the same output (default 0)."`
	RequiredOnly bool   `json:"requiredOnly,omitempty" brief:"-" desc:"Leave out every optional property."`
	AllOptional  bool   `json:"allOptional,omitempty" brief:"-" desc:"Include every declared property (by default each optional property is included at random)."`
	UseExamples  bool   `json:"useExamples,omitempty" brief:"Use the schema's valid examples" desc:"Use the schema's examples and default values where they are valid at their place."`
	Invalid      bool   `json:"invalid,omitempty" brief:"Each breaks one constraint" desc:"Generate instances that each violate exactly one constraint, each labelled with the error it causes."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"Overrides $schema" desc:"Read the schema as this draft, whatever its $schema says."`
}

func init() {
	register(define(Descriptor{
		Name:        "sample",
		Title:       "Generate instances",
		Summary:     "generate example instances of a schema, each checked valid (or, with --invalid, each breaking one constraint)",
		Usage:       "[--count N] [--seed N] [flags] SCHEMA",
		Document:    true,
		Description: "Answers: what does a valid instance of this schema look like? Use it for fixtures and examples instead of writing them. Each is checked by jstk's validator; failure says why none could be made. With `invalid`, each breaks one constraint, named in violations.",
		Help:        "Generates example instances of the schema, each checked by jstk's validator; when none can be made, it says why. With `invalid`, each instance breaks one constraint, which it names.",
		ExitCodes:   sampleExitCodes,
		Samples:     sampleSamples,
	}, runSample))
}

// sampleExitCodes say what the exit codes of sample mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var sampleExitCodes = []ExitCode{
	{0, "the instances were generated"},
	{1, "no instance could be found (the report says why)"},
	{2, "could not run: an invalid or unresolvable schema, a usage error, a run stopped"},
}

// sampleSamples are calls of sample on the sample workspace (Descriptor.Samples).
var sampleSamples = []string{
	`{"schema": {"path": "order.schema.json"}, "count": 3, "seed": 7}`,
	`{"schema": {"value": {"type": "integer", "minimum": 5}}, "invalid": true, "count": 2}`,
}

func runSample(ctx context.Context, env *Env, in *SampleInput) (*sample.Result, error) {
	if in.Count < 0 || in.Count > 10000 {
		return nil, fmt.Errorf("%s: must be between 1 and 10000", env.arg("count"))
	}
	if in.RequiredOnly && in.AllOptional {
		return nil, fmt.Errorf("%s exclude each other", env.args("requiredOnly", "allOptional"))
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft, Ctx: ctx})
	if err != nil {
		return nil, err
	}
	// Over MCP the answer has a budget: generation stops at the instance it could not
	// hold, so that count 10000 of long strings never builds a gigabyte (the instances are
	// in the answer twice, as text and as structured content).
	maxBytes := 0
	if env.MaxResultBytes > 0 {
		maxBytes = max((env.MaxResultBytes-resultReserve-600)/2, 1)
	}
	return sample.Generate(ctx, s, &sample.Options{Count: in.Count, Seed: in.Seed, RequiredOnly: in.RequiredOnly,
		AllOptional: in.AllOptional, UseExamples: in.UseExamples, Invalid: in.Invalid, MaxBytes: maxBytes})
}
