package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/coverage"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
)

// CoverageInput are the arguments of coverage.
type CoverageInput struct {
	Schema       Doc      `json:"schema" role:"schema" brief:"-" desc:"The JSON Schema to measure; FILE#/pointer names one inside a document."`
	Tests        []Doc    `json:"tests" role:"schema" pointer:"-" brief:"Tests files or instances; paths may be directories or globs" desc:"Tests files (either format of the test tool, told apart by shape) or plain instances (JSON, YAML, TOML, NDJSON; a plain instance counts as valid or invalid as it validates). A path may name a file, a directory or a glob pattern."`
	Draft        string   `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"Overrides $schema" desc:"Read the schema as this draft, whatever its $schema says (and the tests' schemas without $schema in it)."`
	AssertFormat bool     `json:"assertFormat,omitempty" brief:"-" desc:"Check format keywords as assertions (then format counts as a keyword with outcomes)."`
	FailUnder    []string `json:"failUnder,omitempty" cli:"flag" brief:"KIND=PERCENT; KIND: subschemas, keywords, outcomes or values" desc:"Thresholds KIND=PERCENT, KIND one of subschemas, keywords, outcomes, values (e.g. outcomes=80): the result fails (exit 1) when a kind is under its threshold."`
	Ignore       []string `json:"ignore,omitempty" cli:"flag" brief:"Schema pointers to leave out" desc:"JSON Pointers of the schema to leave out with everything under them: /properties/a, #/$defs/b, or file.json#/properties/a for a referenced file. A schema can also say \"x-coverage-ignore\": true (itself and below) or a keyword name or list of names."`
	All          bool     `json:"all,omitempty" brief:"Also entries with nothing missing" desc:"List every entry of the table, not only those with something missing."`
	Offset       int      `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many entries of the table (for paging through long results)."`
	Limit        int      `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many entries (0: the default of the surface; the CLI lists all)."`
}

func init() {
	register(define(Descriptor{
		Name:        "coverage",
		Title:       "Measure schema coverage",
		Summary:     "measure what tests or instances exercise in a schema: subschemas, keywords, outcomes, values",
		Usage:       "--schema SCHEMA [flags] TESTFILE|INSTANCE...",
		Formats:     []diag.Format{diag.LCOV},
		Description: "Answers: which parts of a schema do these tests or instances never exercise? Use it to find untested branches before changing a schema. Counts subschemas, keywords, outcomes (each way of each assertion and branch) and values.",
		Help:        "Measures what tests or instances exercise in a schema, in four kinds: subschemas reached, keywords applied, outcomes (each assertion passing and failing, each branch taken) and values, and lists what was never exercised.",
		ExitCodes:   coverageExitCodes,
		Samples:     coverageSamples,
	}, runCoverage))
}

// coverageExitCodes say what the exit codes of coverage mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var coverageExitCodes = []ExitCode{
	{0, "no kind under its `failUnder` threshold"},
	{1, "a kind under its `failUnder` threshold"},
	{2, "could not run: an unreadable tests file or instance, an invalid schema, a usage error, a run stopped"},
}

// coverageSamples are calls of coverage on the sample workspace (Descriptor.Samples).
var coverageSamples = []string{
	`{"schema": {"path": "small.schema.json"}, "tests": [{"path": "small.tests.json"}]}`,
	`{"schema": {"path": "order.schema.json"}, "tests": [{"path": "orders.ndjson"}, {"path": "orders-with-errors.ndjson"}], "all": true, "failUnder": ["outcomes=10"], "limit": 20}`,
}

func runCoverage(ctx context.Context, env *Env, in *CoverageInput) (*coverage.Result, error) {
	if len(in.Tests) == 0 {
		return nil, fmt.Errorf("%s: give at least one tests file or instance", env.arg("tests"))
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	failUnder := map[coverage.Kind]float64{}
	for _, f := range in.FailUnder {
		k, p, ok := strings.Cut(f, "=")
		kind, known := coverage.KindByName(strings.TrimSpace(k))
		pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(p), "%"), 64)
		if !ok || !known || err != nil || pct < 0 || pct > 100 {
			return nil, fmt.Errorf("%s: %q: expected KIND=PERCENT with KIND one of subschemas, keywords, outcomes, values and PERCENT from 0 to 100", env.arg("failUnder"), f)
		}
		failUnder[kind] = pct
	}
	s, err := LoadSchema(env, in.Schema, "schema", SchemaOptions{Draft: in.Draft, AssertFormat: in.AssertFormat, Ctx: ctx})
	if err != nil {
		return nil, err
	}
	opts := &coverage.Options{Options: schematest.Options{FS: env.FS, Resolve: env.Resolve, Limits: env.Limits,
		AssertFormat: in.AssertFormat, Loader: env.loader()}, Ignore: in.Ignore, FailUnder: failUnder}
	if in.Draft != "" {
		opts.Draft, _ = schema.DraftByName(in.Draft)
	}
	ins, _, err := docInputs(env, in.Tests, "tests", docOptions{exts: instanceExts})
	if err != nil {
		return nil, err
	}
	srcs := make([]coverage.Source, 0, len(ins))
	for _, x := range ins {
		srcs = append(srcs, coverage.Source{Name: x.Name, Path: x.Path, Text: x.Text})
	}
	res, err := coverage.Measure(ctx, s, srcs, opts)
	if err != nil {
		return nil, err
	}
	if in.All {
		res.ListAll()
	}
	if in.Offset > 0 || in.Limit > 0 {
		res.Cut(in.Offset, in.Limit)
	}
	return res, nil
}
