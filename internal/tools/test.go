package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
)

// TestInput are the arguments of test.
type TestInput struct {
	Tests        []Doc  `json:"tests" role:"schema" pointer:"-" brief:"Files, dirs or globs" desc:"The tests files: JSON or YAML, in either format (told apart by shape). A path may name a file, a directory (its .json/.yaml/.yml files) or a glob pattern."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"For schemas without $schema" desc:"The dialect of schemas that have no $schema. By default: the draft named by a draftN directory of the JSON-Schema-Test-Suite's layout for files in that format, else 2020-12."`
	AssertFormat bool   `json:"assertFormat,omitempty" brief:"-" desc:"Check format keywords as assertions in every file. Without it format is an annotation, except in JSON-Schema-Test-Suite files under optional/format/, whose tests assume assertion."`
	FailedOnly   bool   `json:"failedOnly,omitempty" brief:"-" desc:"List only the tests that failed or could not run (the summary still counts all)."`
	Offset       int    `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many tests of the list (for paging through long results)."`
	Limit        int    `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many tests (0: the default of the surface; the CLI lists all)."`
}

// testsExts are the extensions a directory argument of test contributes.
var testsExts = []string{".json", ".jsonc", ".yaml", ".yml"}

func init() {
	register(define(Descriptor{
		Name:        "test",
		Title:       "Run schema tests",
		Summary:     "run schema unit tests (sourcemeta or JSON-Schema-Test-Suite format), with CTRF and JUnit reports",
		Usage:       "[flags] TESTFILE...",
		Formats:     []diag.Format{diag.JUnit},
		Description: "Answers: does each schema accept and reject what its tests say? Use it after changing a schema. A tests file is {target, tests: [{description, valid, data, expect?}]} or JSON-Schema-Test-Suite's [{description, schema, tests}]. The result is a CTRF report.",
		Help:        "Runs schema unit tests and reports each result. A tests file is {target, tests: [{description, valid, data, expect?}]} or JSON-Schema-Test-Suite's [{description, schema, tests}]. The JSON report is CTRF.",
		ExitCodes:   testExitCodes,
		Samples:     testSamples,
	}, runTest))
}

// testExitCodes say what the exit codes of test mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var testExitCodes = []ExitCode{
	{0, "every test passed"},
	{1, "a test failed"},
	{2, "could not run: a tests file or a test that could not be used, a usage error, a run stopped"},
}

// testSamples are calls of test on the sample workspace (Descriptor.Samples).
var testSamples = []string{
	`{"tests": [{"path": "small.tests.json"}, {"path": "suite.tests.json"}]}`,
	`{"tests": [{"value": [{"description": "integers", "schema": {"type": "integer"}, "tests": [{"description": "one", "data": 1, "valid": true}, {"description": "a string", "data": "x", "valid": true}]}]}], "failedOnly": true}`,
}

// testReport is the test result as a tool report: the engine's CTRF report, whose text
// ends with the failures that repeat, grouped (a CTRF report has no member for them).
type testReport struct {
	*schematest.Result
	groups []diag.Group
}

// KeepFirst is a copy that holds only the first k tests, its groups whole (diag.Pager).
func (r *testReport) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Result = r.Result.KeepFirst(k, limit).(*schematest.Result)
	return &c
}

// WriteText prints the human report, the failures that repeat grouped before its last line
// (the counts).
func (r *testReport) WriteText(w io.Writer) error {
	return withGroups(w, r.Result.WriteText, r.groups, false)
}

// groupFailures groups the tests that failed or could not run by status and message.
func groupFailures(res *schematest.Result) []diag.Group {
	var ds []diag.Diagnostic
	for _, t := range res.Results.Tests {
		if t.Status == schematest.StatusPassed {
			continue
		}
		ds = append(ds, diag.Diagnostic{Code: "test/" + string(t.Status), Message: t.Message, File: t.FilePath,
			Line: t.Line, Column: t.Extra.Column})
	}
	return diag.GroupDiagnostics(ds)
}

func runTest(ctx context.Context, env *Env, in *TestInput) (*testReport, error) {
	if len(in.Tests) == 0 {
		return nil, fmt.Errorf("%s: give at least one tests file", env.arg("tests"))
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	opts := &schematest.Options{FS: env.FS, Resolve: env.Resolve, Limits: env.Limits, AssertFormat: in.AssertFormat,
		Loader: env.loader()}
	if in.Draft != "" {
		d, ok := schema.DraftByName(in.Draft)
		if !ok {
			return nil, fmt.Errorf("%s: unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", env.arg("draft"), in.Draft)
		}
		opts.Draft = d
	}
	srcs, err := testSources(env, in.Tests, "tests")
	if err != nil {
		return nil, err
	}
	res, err := schematest.Run(ctx, srcs, opts)
	if err != nil {
		return nil, err
	}
	groups := groupFailures(res)
	if in.FailedOnly {
		res.FailedOnly()
	}
	if in.Offset > 0 || in.Limit > 0 {
		res.Cut(in.Offset, in.Limit)
	}
	return &testReport{Result: res, groups: groups}, nil
}

// testSources turns document arguments into tests files: paths expand (directories and
// globs), inline documents are read as given. A path that matches nothing is an error.
func testSources(env *Env, docs []Doc, arg string) ([]schematest.Source, error) {
	ins, _, err := docInputs(env, docs, arg, docOptions{exts: testsExts})
	if err != nil {
		return nil, err
	}
	srcs := make([]schematest.Source, 0, len(ins))
	for _, x := range ins {
		srcs = append(srcs, schematest.Source{Name: x.Name, Path: x.Path, Text: x.Text})
	}
	return srcs, nil
}
