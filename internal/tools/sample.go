package tools

import (
	"context"
	"fmt"

	"github.com/jstk-dev/jstk/internal/sample"
)

// SampleInput are the arguments of sample.
type SampleInput struct {
	Schema       Doc    `json:"schema" cli:"arg" role:"schema" desc:"The JSON Schema to generate instances of; FILE#/pointer names one inside a document."`
	Count        int    `json:"count,omitempty" min:"1" max:"10000" desc:"How many instances to generate (default 1). One is printed as a JSON document, more as NDJSON (one per line)."`
	Seed         int64  `json:"seed,omitempty" desc:"Seed of the random choices: the same seed gives the same output (default 0)."`
	RequiredOnly bool   `json:"requiredOnly,omitempty" desc:"Leave out every optional property."`
	AllOptional  bool   `json:"allOptional,omitempty" desc:"Include every declared property (by default each optional property is included at random)."`
	UseExamples  bool   `json:"useExamples,omitempty" desc:"Use the schema's examples and default values where they are valid at their place."`
	Invalid      bool   `json:"invalid,omitempty" desc:"Generate instances that each violate exactly one constraint, each labelled with the error it causes."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" desc:"Read the schema as this draft, whatever its $schema says."`
}

func init() {
	register(define(Descriptor{
		Name:     "sample",
		Title:    "Generate instances of a JSON Schema",
		Summary:  "generate example instances of a schema, each checked valid (or, with --invalid, each breaking one constraint)",
		Usage:    "[--count N] [--seed N] [flags] SCHEMA",
		Document: true,
		Description: "Answers: what does a document that satisfies this schema look like? Use it for test " +
			"fixtures, examples and mocks instead of writing instances by hand. Every instance returned " +
			"has been validated by jstk's own validator; when none can be found, failure says why (for " +
			"instance an unsatisfiable allOf of disjoint types) and no instance is made up. All keywords " +
			"of drafts 4 to 2020-12 are honoured, including $ref/$dynamicRef, allOf/anyOf/oneOf/not, " +
			"if/then/else, dependencies, unevaluated*, contains, uniqueItems, exact multipleOf, ECMA-262 " +
			"patterns and standard formats. samples holds the instances. With `invalid`, each instance " +
			"violates exactly one constraint and violations[i] names it (keyword, instanceLocation, " +
			"message). Output is deterministic for a given seed.",
	}, runSample))
}

func runSample(ctx context.Context, env *Env, in *SampleInput) (*sample.Result, error) {
	if in.Count < 0 || in.Count > 10000 {
		return nil, fmt.Errorf("%s: must be between 1 and 10000", env.arg("count"))
	}
	if in.RequiredOnly && in.AllOptional {
		return nil, fmt.Errorf("%s exclude each other", env.args("requiredOnly", "allOptional"))
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft})
	if err != nil {
		return nil, err
	}
	return sample.Generate(ctx, s, &sample.Options{Count: in.Count, Seed: in.Seed, RequiredOnly: in.RequiredOnly,
		AllOptional: in.AllOptional, UseExamples: in.UseExamples, Invalid: in.Invalid})
}
