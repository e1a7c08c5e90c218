package tools

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// TestInput are the arguments of test.
type TestInput struct {
	Tests        []Doc  `json:"tests" role:"schema" desc:"The tests files: JSON or YAML, in either format (told apart by shape). A path may name a file, a directory (its .json/.yaml/.yml files) or a glob pattern."`
	Draft        string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" desc:"The dialect of schemas that have no $schema. By default: the draft named by a draftN directory of the JSON-Schema-Test-Suite's layout for files in that format, else 2020-12."`
	AssertFormat bool   `json:"assertFormat,omitempty" desc:"Check format keywords as assertions in every file. Without it format is an annotation, except in JSON-Schema-Test-Suite files under optional/format/, whose tests assume assertion."`
	FailedOnly   bool   `json:"failedOnly,omitempty" desc:"List only the tests that failed or could not run (the summary still counts all)."`
	Offset       int    `json:"offset,omitempty" min:"0" desc:"Skip this many tests of the list (for paging through long results)."`
	Limit        int    `json:"limit,omitempty" min:"0" desc:"List at most this many tests (0: the default of the surface; the CLI lists all)."`
}

// testsExts are the extensions a directory argument of test contributes.
var testsExts = []string{".json", ".jsonc", ".yaml", ".yml"}

func init() {
	register(define(Descriptor{
		Name:    "test",
		Title:   "Run unit tests of JSON Schemas",
		Summary: "run schema unit tests (sourcemeta or JSON-Schema-Test-Suite format), with CTRF and JUnit reports",
		Usage:   "[flags] TESTFILE...",
		Formats: []string{"junit"},
		Description: "Answers: does each schema accept and reject exactly the instances its tests say? " +
			"Use it to check a schema after a change, or to run the official JSON-Schema-Test-Suite. " +
			"Two formats of tests file, told apart by shape: an object {\"target\": \"<path relative to the " +
			"tests file, or URI, optionally with #/pointer>\", \"tests\": [{\"description\", \"valid\", " +
			"\"data\" | \"dataPath\"}]} (the sourcemeta format), or an array of {\"description\", \"schema\", " +
			"\"tests\"} (the JSON-Schema-Test-Suite format). A test with \"valid\": false may add \"expect\": " +
			"{\"keywordLocation\", \"instanceLocation\", \"keyword\", \"message\" (substring)} (or an array of " +
			"them) to assert which error the instance produces. The result is a CTRF report: " +
			"results.summary counts passed and failed tests (other: tests that could not run), " +
			"results.tests lists each test with its status, message, and in extra the instance's errors " +
			"with their positions; results.extra.files counts per tests file and names a file that could " +
			"not be used (unreadable, unknown shape, unresolvable target, with what was tried). Remote " +
			"references resolve offline through jstk.json's resolve map.",
	}, runTest))
}

func runTest(ctx context.Context, env *Env, in *TestInput) (*schematest.Result, error) {
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
	if in.FailedOnly {
		res.FailedOnly()
	}
	if in.Offset > 0 || in.Limit > 0 {
		res.Cut(in.Offset, in.Limit)
	}
	return res, nil
}

// testSources turns document arguments into tests files: paths expand (directories and
// globs), inline documents are read as given. A path that matches nothing is an error.
func testSources(env *Env, docs []Doc, arg string) ([]schematest.Source, error) {
	var srcs []schematest.Source
	for i, d := range docs {
		name := arg + "[" + strconv.Itoa(i) + "]"
		if err := d.check(env, name); err != nil {
			return nil, err
		}
		if d.Path != "" && d.Path != "-" {
			files, errs := workspace.Expand(env.FS, []string{d.Path}, testsExts)
			if len(errs) > 0 {
				return nil, errs[0]
			}
			for _, f := range files {
				srcs = append(srcs, schematest.Source{Name: f, Path: f})
			}
			continue
		}
		data, _, err := d.bytes(env, name)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, schematest.Source{Name: d.label(name), Text: data})
	}
	return srcs, nil
}
