package schematest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

var files = map[string]string{
	"schemas/person.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.com/person",
  "type": "object",
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "age": {"type": "integer", "minimum": 0}
  },
  "$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}}
}`,
	"tests/person.test.json": `{
  "target": "../schemas/person.json",
  "tests": [
    {"description": "a person", "valid": true, "data": {"name": "Ada", "age": 36}},
    {"description": "no name", "valid": false, "data": {"age": 1},
     "expect": {"keywordLocation": "/required", "instanceLocation": "", "keyword": "required", "message": "\"name\""}},
    {"description": "from a file", "valid": true, "dataPath": "../data/ok.yaml"},
    {"valid": false, "data": {"name": "", "age": -1},
     "expect": [{"keywordLocation": "#/properties/age/minimum"}, {"instanceLocation": "#/name", "keyword": "minLength"}]}
  ]
}`,
	"data/ok.yaml":     "name: Grace\nage: 85\n",
	"data/stream.yaml": "name: a\n---\nname: b\nage: -2\n",
	"tests/failing.test.yaml": `target: https://example.com/person#/$defs/positive
tests:
  - description: zero is not positive
    valid: true
    data: 0
  - description: one is positive
    valid: false
    data: 1
  - description: wrong expectation
    valid: false
    data: -5
    expect:
      keyword: maximum
  - description: a stream with an invalid document
    valid: true
    dataPath: ../data/stream.yaml
`,
	"suite/draft4/cases.json": `[
  {"description": "draft 4 reads exclusiveMinimum as a boolean",
   "schema": {"minimum": 5, "exclusiveMinimum": true},
   "tests": [{"description": "5 is out", "data": 5, "valid": false}, {"description": "6 is in", "data": 6, "valid": true}]},
  {"description": "relative reference next to the tests file",
   "schema": {"$ref": "../../schemas/person.json"},
   "tests": [{"description": "a person", "data": {"name": "x"}, "valid": true}]}
]`,
	"suite/draft2020-12/optional/format/email.json": `[
  {"description": "format is asserted under optional/format",
   "schema": {"format": "email"},
   "tests": [{"description": "not an email", "data": "nope", "valid": false}]}
]`,
	"plain/format.json": `[
  {"description": "format is an annotation elsewhere",
   "schema": {"format": "email"},
   "tests": [{"description": "not an email", "data": "nope", "valid": true}]}
]`,
	"broken/unresolved.json":  `{"target": "missing.json", "tests": [{"valid": true, "data": 1}]}`,
	"broken/badref.json":      `[{"description": "bad", "schema": {"$ref": "https://nowhere.example/x"}, "tests": [{"data": 1, "valid": true}]}]`,
	"broken/notests.json":     `{"type": "object"}`,
	"broken/nodata.json":      `{"target": "../schemas/person.json", "tests": [{"valid": true, "dataPath": "nothing.json"}]}`,
	"broken/syntax.json":      `{"target": `,
	"broken/badexpect.json":   `{"target": "../schemas/person.json", "tests": [{"valid": false, "data": 1, "expect": {"keyword": "type", "where": "x"}}]}`,
	"remote/uses-remote.json": `{"target": "http://localhost:1234/integer.json", "tests": [{"valid": true, "data": 1}, {"valid": false, "data": "1"}]}`,
	"remotes/integer.json":    `{"type": "integer"}`,
}

var clock = func() time.Time { return time.Unix(1700000000, 0) }

func run(t *testing.T, opts *Options, names ...string) *Result {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	opts.FS = workspace.Memory(files)
	opts.Clock = clock
	var srcs []Source
	for _, n := range names {
		srcs = append(srcs, Source{Name: n, Path: n})
	}
	res, err := Run(context.Background(), srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type brief struct {
	Name, Status, Message string
}

func briefs(res *Result) []brief {
	var out []brief
	for _, t := range res.Results.Tests {
		msg := t.Message
		if len(msg) > 50 {
			msg = msg[:50]
		}
		out = append(out, brief{t.Name, t.Status, msg})
	}
	return out
}

func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		opts   *Options
		files  []string
		want   []brief
		exit   int
		counts FileSummary
	}{
		{"sourcemeta, expect, dataPath YAML", nil, []string{"tests/person.test.json"}, []brief{
			{"a person", "passed", ""},
			{"no name", "passed", ""},
			{"from a file", "passed", ""},
			{"test 4", "passed", ""},
		}, 0, FileSummary{File: "tests/person.test.json", Format: "sourcemeta", Target: "../schemas/person.json", Total: 4, Passed: 4}},
		{"YAML tests file, URI target with a pointer, failures", nil, []string{"tests/failing.test.yaml"}, []brief{
			{"zero is not positive", "failed", "expected valid, but the instance is invalid: (root"},
			{"one is positive", "failed", "expected invalid, but the instance is valid"},
			{"wrong expectation", "failed", `invalid as expected, but no error matches expect {`},
			{"a stream with an invalid document", "failed", "expected valid, but the instance is invalid: (root"},
		}, 1, FileSummary{File: "tests/failing.test.yaml", Format: "sourcemeta", Target: "https://example.com/person#/$defs/positive", Total: 4, Failed: 4}},
		{"suite layout: draft from the directory, relative refs", nil, []string{"suite/draft4/cases.json"}, []brief{
			{"draft 4 reads exclusiveMinimum as a boolean / 5 is out", "passed", ""},
			{"draft 4 reads exclusiveMinimum as a boolean / 6 is in", "passed", ""},
			{"relative reference next to the tests file / a person", "passed", ""},
		}, 0, FileSummary{File: "suite/draft4/cases.json", Format: "suite", Total: 3, Passed: 3}},
		{"suite layout: format asserted under optional/format", nil, []string{"suite/draft2020-12/optional/format/email.json"}, []brief{
			{"format is asserted under optional/format / not an email", "passed", ""},
		}, 0, FileSummary{File: "suite/draft2020-12/optional/format/email.json", Format: "suite", Total: 1, Passed: 1}},
		{"format is an annotation by default", nil, []string{"plain/format.json"}, []brief{
			{"format is an annotation elsewhere / not an email", "passed", ""},
		}, 0, FileSummary{File: "plain/format.json", Format: "suite", Total: 1, Passed: 1}},
		{"--assert-format", &Options{AssertFormat: true}, []string{"plain/format.json"}, []brief{
			{"format is an annotation elsewhere / not an email", "failed", "expected valid, but the instance is invalid: (root"},
		}, 1, FileSummary{File: "plain/format.json", Format: "suite", Total: 1, Failed: 1}},
		{"--draft overrides the layout (a boolean exclusiveMinimum is no 2020-12)", &Options{Draft: schema.Draft2020}, []string{"suite/draft4/cases.json"}, []brief{
			{"draft 4 reads exclusiveMinimum as a boolean / 5 is out", "other", "the case's schema could not be compiled: suite/dra"},
			{"draft 4 reads exclusiveMinimum as a boolean / 6 is in", "other", "the case's schema could not be compiled: suite/dra"},
			{"relative reference next to the tests file / a person", "passed", ""},
		}, 2, FileSummary{File: "suite/draft4/cases.json", Format: "suite", Total: 3, Passed: 1, NotRun: 2,
			Problem: "suite/draft4/cases.json:3:49: not a valid 2020-12 schema: 1 violation(s) of the meta-schema https://json-schema.org/draft/2020-12/schema\n  3:49: /exclusiveMinimum: value must be number, not boolean"}},
		{"resolve map", &Options{Resolve: map[string]string{"http://localhost:1234/": "remotes"}}, []string{"remote/uses-remote.json"}, []brief{
			{"test 1", "passed", ""},
			{"test 2", "passed", ""},
		}, 0, FileSummary{File: "remote/uses-remote.json", Format: "sourcemeta", Target: "http://localhost:1234/integer.json", Total: 2, Passed: 2}},
		{"unresolvable target", nil, []string{"broken/unresolved.json"}, []brief{
			{"test 1", "other", `target "missing.json": cannot resolve it: tried th`},
		}, 2, FileSummary{File: "broken/unresolved.json", Format: "sourcemeta", Target: "missing.json", Total: 1, NotRun: 1,
			Problem: `target "missing.json": cannot resolve it: tried the file broken/missing.json (relative to the tests file): broken/missing.json: no such file or directory`}},
		{"missing dataPath", nil, []string{"broken/nodata.json"}, []brief{
			{"test 1", "other", `dataPath "nothing.json": tried the file broken/not`},
		}, 2, FileSummary{File: "broken/nodata.json", Format: "sourcemeta", Target: "../schemas/person.json", Total: 1, NotRun: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.opts, tc.files...)
			if diff := cmp.Diff(tc.want, briefs(res)); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]FileSummary{tc.counts}, res.Results.Extra.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if got := res.ExitCode(); got != tc.exit {
				t.Errorf("exit code %d, want %d", got, tc.exit)
			}
		})
	}
}

func TestUnusableFiles(t *testing.T) {
	res := run(t, nil, "broken/notests.json", "broken/syntax.json", "broken/badexpect.json", "broken/badref.json", "nope.json")
	var got []string
	for _, f := range res.Results.Extra.Files {
		got = append(got, f.Problem)
	}
	want := []string{
		`broken/notests.json:1:1: not a tests file: expected an object {"target": ..., "tests": [...]} or an array of {"description", "schema", "tests"} (the JSON-Schema-Test-Suite format)`,
		"broken/syntax.json:1:12: unexpected end of input: expected a value",
		`broken/badexpect.json:1:106: test 0: unknown expect field "where" (known: keywordLocation, instanceLocation, absoluteKeywordLocation, keyword, message)`,
		"",
		"nope.json: no such file or directory",
	}
	for i := range want {
		if i < len(got) && i != 3 && got[i] != want[i] {
			t.Errorf("file %d: problem %q, want %q", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[3], `cannot resolve $ref "https://nowhere.example/x"`) {
		t.Errorf("unresolvable $ref in a suite case: %q", got[3])
	}
	if res.ExitCode() != 2 {
		t.Errorf("exit code %d, want 2", res.ExitCode())
	}
	if s := res.Results.Summary; s.Tests != 1 || s.Other != 1 || s.Suites != 5 {
		t.Errorf("summary %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"tests": []}`, `t.json:1:1: a tests file with "tests" needs a "target"`},
		{`{"target": 1, "tests": []}`, `t.json:1:12: "target" must be a non-empty string`},
		{`{"target": "s.json", "tests": {}}`, `t.json:1:31: "tests" must be an array of tests`},
		{`{"target": "s.json", "tests": [1]}`, `t.json:1:32: test 0: a test must be an object`},
		{`{"target": "s.json", "tests": [{"data": 1}]}`, `t.json:1:32: test 0: "valid" (true or false) is required`},
		{`{"target": "s.json", "tests": [{"valid": true}]}`, `t.json:1:32: test 0: "data" (the instance) or "dataPath" (a file holding it) is required`},
		{`{"target": "s.json", "tests": [{"valid": true, "data": 1, "dataPath": "x"}]}`, `t.json:1:71: test 0: give "data" or "dataPath", not both`},
		{`{"target": "s.json", "tests": [{"valid": true, "dataPath": 3}]}`, `t.json:1:60: test 0: "dataPath" must be a file name`},
		{`{"target": "s.json", "tests": [{"valid": true, "data": 1, "description": 2}]}`, `t.json:1:74: test 0: "description" must be a string`},
		{`{"target": "s.json", "tests": [{"valid": true, "data": 1, "expect": {"keyword": "type"}}]}`, `test 0: "expect" asserts the errors of an invalid instance`},
		{`{"target": "s.json", "tests": [{"valid": false, "data": 1, "expect": []}]}`, `test 0: "expect" must not be empty`},
		{`{"target": "s.json", "tests": [{"valid": false, "data": 1, "expect": {}}]}`, `test 0: "expect" must be an object with some of`},
		{`{"target": "s.json", "tests": [{"valid": false, "data": 1, "expect": {"keyword": 1}}]}`, `test 0: expect.keyword must be a string`},
		{`[{"schema": {}, "tests": [{"valid": true}]}]`, `test 0: "data" (the instance) is required`},
		{`[{"schema": {}, "description": 1, "tests": []}]`, `case 0: "description" must be a string`},
		{`[]`, `not a tests file`},
		{"target: s.json\ntests:\n  - valid: yes\n", `test 0: "valid" (true or false) is required`},
	}
	for _, tc := range tests {
		name := "t.json"
		if strings.HasPrefix(tc.text, "target:") {
			name = "t.yaml"
		}
		_, err := Parse(name, ".", []byte(tc.text), nil)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tc.want, "t.json:")) {
			t.Errorf("%s: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestShapeOf(t *testing.T) {
	tests := []struct {
		text string
		want Format
	}{
		{`{"target": "x", "tests": []}`, Sourcemeta},
		{`{"tests": []}`, ""},
		{`[{"schema": true, "tests": []}]`, Suite},
		{`[{"schema": true}]`, ""},
		{`[1]`, ""},
		{`[]`, ""},
		{`"x"`, ""},
	}
	for _, tc := range tests {
		doc, err := source.ParseJSON("x.json", []byte(tc.text), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ShapeOf(doc.Root); got != tc.want {
			t.Errorf("ShapeOf(%s) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestExpectMatch(t *testing.T) {
	e := validate.Error{InstanceLocation: "/a", KeywordLocation: "/properties/a/type", AbsoluteKeywordLocation: "file:///s.json#/properties/a/type",
		Keyword: "type", Message: "value must be string, not integer"}
	tests := []struct {
		x    Expect
		want bool
	}{
		{Expect{KeywordLocation: "/properties/a/type"}, true},
		{Expect{KeywordLocation: "/properties/b/type"}, false},
		{Expect{InstanceLocation: "/a", instanceSet: true}, true},
		{Expect{InstanceLocation: "", instanceSet: true}, false},
		{Expect{AbsoluteKeywordLocation: "file:///s.json#/properties/a/type"}, true},
		{Expect{AbsoluteKeywordLocation: "file:///t.json#/properties/a/type"}, false},
		{Expect{Keyword: "type", keywordSet: true}, true},
		{Expect{Keyword: "", keywordSet: true}, false},
		{Expect{Message: "not integer"}, true},
		{Expect{Message: "not number"}, false},
	}
	for _, tc := range tests {
		if got := tc.x.match(&e); got != tc.want {
			t.Errorf("%s matches: %v, want %v", tc.x, got, tc.want)
		}
	}
	// An expectation may match a cause of an anyOf or oneOf failure.
	outer := validate.Error{Keyword: "anyOf", Causes: []validate.Error{e}}
	if !anyMatch(&Expect{Keyword: "type", keywordSet: true}, []validate.Error{outer}) {
		t.Error("an expectation does not match a cause")
	}
}

func TestTextReport(t *testing.T) {
	res := run(t, nil, "tests/person.test.json", "tests/failing.test.yaml", "broken/unresolved.json")
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `tests/person.test.json: PASS 4/4
tests/failing.test.yaml: FAIL 0/4
  FAIL zero is not positive (tests/failing.test.yaml:3:5)
    expected valid, but the instance is invalid: (root): 0 must be greater than 0
      tests/failing.test.yaml:5:11: (root): 0 must be greater than 0 [exclusiveMinimum]
  FAIL one is positive (tests/failing.test.yaml:6:5)
    expected invalid, but the instance is valid
  FAIL wrong expectation (tests/failing.test.yaml:9:5)
    invalid as expected, but no error matches expect {"keyword": "maximum"}
      tests/failing.test.yaml:11:11: (root): -5 must be greater than 0 [exclusiveMinimum]
  FAIL a stream with an invalid document (tests/failing.test.yaml:14:5)
    expected valid, but the instance is invalid: (root): value must be integer, not object
      data/stream.yaml:1:1: (root): value must be integer, not object [type]
      data/stream.yaml:3:1: (root): value must be integer, not object [type]
broken/unresolved.json: ERROR 0/1 passed
  NOT RUN test 1 (broken/unresolved.json:1:38)
    target "missing.json": cannot resolve it: tried the file broken/missing.json (relative to the tests file): broken/missing.json: no such file or directory
9 tests in 3 files: 4 passed, 4 failed, 1 not run, 1 file could not be used
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

func TestCTRF(t *testing.T) {
	res := run(t, nil, "tests/person.test.json", "tests/failing.test.yaml")
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["reportFormat"] != "CTRF" || doc["specVersion"] != "0.0.0" {
		t.Errorf("not a CTRF document: %v %v", doc["reportFormat"], doc["specVersion"])
	}
	results := doc["results"].(map[string]any)
	want := map[string]any{"tests": 8.0, "passed": 4.0, "failed": 4.0, "pending": 0.0, "skipped": 0.0, "other": 0.0,
		"suites": 2.0, "start": 1700000000000.0, "stop": 1700000000000.0, "duration": 0.0}
	if diff := cmp.Diff(want, results["summary"]); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"name": "jstk"}, results["tool"]); diff != "" {
		t.Errorf("tool (-want +got):\n%s", diff)
	}
	first := results["tests"].([]any)[4].(map[string]any)
	for k, v := range map[string]any{"name": "zero is not positive", "status": "failed", "type": "unit",
		"filePath": "tests/failing.test.yaml", "line": 3.0} {
		if first[k] != v {
			t.Errorf("test field %s = %v, want %v", k, first[k], v)
		}
	}
	extra := first["extra"].(map[string]any)
	errs := extra["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["keywordLocation"] != "/$ref/exclusiveMinimum" && errs[0].(map[string]any)["keywordLocation"] != "/exclusiveMinimum" {
		t.Errorf("errors: %v", errs)
	}
	if extra["expected"] != "valid" || extra["actual"] != "invalid" {
		t.Errorf("extra: %v", extra)
	}
}

func TestJUnit(t *testing.T) {
	res := run(t, nil, "tests/person.test.json", "tests/failing.test.yaml", "broken/syntax.json")
	var buf bytes.Buffer
	if err := res.WriteFormat(&buf, "junit"); err != nil {
		t.Fatal(err)
	}
	var doc xmlSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	type suite struct {
		Name                     string
		Tests, Failures, Errors  int
		Cases                    int
		FailureCount, ErrorCount int
	}
	var got []suite
	for _, s := range doc.Suites {
		sc := suite{Name: s.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Cases: len(s.Cases)}
		for _, c := range s.Cases {
			if c.Failure != nil {
				sc.FailureCount++
			}
			if c.Error != nil {
				sc.ErrorCount++
			}
		}
		got = append(got, sc)
	}
	want := []suite{
		{"tests/person.test.json", 4, 0, 0, 4, 0, 0},
		{"tests/failing.test.yaml", 4, 4, 0, 4, 4, 0},
		{"broken/syntax.json", 1, 0, 1, 1, 0, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("junit (-want +got):\n%s", diff)
	}
	if doc.Tests != 9 || doc.Failures != 4 || doc.Errors != 1 {
		t.Errorf("totals %d %d %d", doc.Tests, doc.Failures, doc.Errors)
	}
	if err := res.WriteFormat(&buf, "lcov"); err == nil {
		t.Error("lcov is not a test format")
	}
}

func TestDiagnostics(t *testing.T) {
	res := run(t, nil, "tests/failing.test.yaml", "broken/syntax.json", "broken/nodata.json")
	var codes []string
	for _, d := range res.Diagnostics() {
		codes = append(codes, d.Code+" "+d.Location())
	}
	want := []string{
		"test/unusable-file broken/syntax.json",
		"test/failed tests/failing.test.yaml:3:5",
		"test/failed tests/failing.test.yaml:6:5",
		"test/failed tests/failing.test.yaml:9:5",
		"test/failed tests/failing.test.yaml:14:5",
		"test/not-run broken/nodata.json:1:48",
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := diag.WriteGitHub(&buf, res.Diagnostics()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "::error file=tests/failing.test.yaml,line=3,col=5,title=test/failed::zero is not positive: expected valid") {
		t.Errorf("github annotations:\n%s", buf.String())
	}
}

func TestPaging(t *testing.T) {
	res := run(t, nil, "tests/person.test.json", "tests/failing.test.yaml")
	res.FailedOnly()
	if len(res.Results.Tests) != 4 || res.Results.Summary.Tests != 8 {
		t.Fatalf("failed only: %d listed, %d counted", len(res.Results.Tests), res.Results.Summary.Tests)
	}
	res.Cut(1, 2)
	if diff := cmp.Diff(&diag.Page{Offset: 1, Limit: 2, Total: 4, Omitted: 2}, res.Results.Extra.Page); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	if res.Results.Tests[0].Name != "one is positive" {
		t.Errorf("first listed: %s", res.Results.Tests[0].Name)
	}
	var buf bytes.Buffer
	res.WriteText(&buf)
	if !strings.Contains(buf.String(), "(2 of 4 tests listed; ask for more with offset and limit)") {
		t.Errorf("text of a page:\n%s", buf.String())
	}
	res.Cut(0, 0) // no-op
	if len(res.Results.Tests) != 2 {
		t.Error("Cut(0, 0) changed the list")
	}
}

func TestInlineSources(t *testing.T) {
	opts := &Options{FS: workspace.Memory(files), Clock: clock}
	srcs := []Source{
		{Name: "<tests[0]>", Text: []byte(`{"target": "schemas/person.json", "tests": [{"valid": true, "data": {"name": "x"}}]}`)},
		{Name: "<tests[1]>", Text: []byte(`[{"description": "c", "schema": {"type": "string"}, "tests": [{"description": "t", "data": "s", "valid": true}]}]`)},
	}
	res, err := Run(context.Background(), srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]brief{{"test 1", "passed", ""}, {"c / t", "passed", ""}}, briefs(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, []Source{{Name: "tests/person.test.json", Path: "tests/person.test.json"}}, &Options{FS: workspace.Memory(files)})
	if err == nil {
		t.Error("a cancelled run returned no error")
	}
}

func TestSuiteLayout(t *testing.T) {
	tests := []struct {
		name            string
		draft           string
		format, content bool
	}{
		{"JSON-Schema-Test-Suite/tests/draft7/type.json", "draft-07", false, false},
		{"tests/draft2019-09/optional/format/email.json", "2019-09", true, false},
		{"tests/draft2020-12/optional/content.json", "2020-12", false, true},
		{"tests/draft2020-12/optional/bignum.json", "2020-12", false, false},
		{"tests/draft3/type.json", "", false, false},
		{"mine/tests.json", "", false, false},
	}
	for _, tc := range tests {
		d, f, c := suiteLayout(tc.name)
		name := ""
		if d != nil {
			name = d.Name
		}
		if name != tc.draft || f != tc.format || c != tc.content {
			t.Errorf("suiteLayout(%s) = %s %v %v, want %s %v %v", tc.name, name, f, c, tc.draft, tc.format, tc.content)
		}
	}
}

// A panic of one test on a worker goroutine reaches the caller of parallel (where the MCP
// server recovers it), and the pool drains instead of hanging.
func TestParallelRaisesWorkerPanic(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	got := func() (r any) {
		defer func() { r = recover() }()
		parallel(context.Background(), 50, 4, func(i int) {
			ran.Add(1)
			if i == 7 {
				panic("boom")
			}
		})
		return nil
	}()
	if e, ok := got.(*panics.Error); !ok || e.Value != "boom" {
		t.Fatalf("recovered %#v, want the worker's panic", got)
	}
	if ran.Load() != 50 {
		t.Errorf("%d of 50 ran", ran.Load())
	}
}

// TestFailedOnlyText: with FailedOnly the text names only the files with a failure, and
// says how many passing files it left out.
func TestFailedOnlyText(t *testing.T) {
	res := run(t, nil, "tests/person.test.json", "tests/failing.test.yaml")
	var before bytes.Buffer
	res.WriteText(&before)
	if !strings.Contains(before.String(), "tests/person.test.json: PASS") {
		t.Fatalf("the full text has no PASS line:\n%s", before.String())
	}
	res.FailedOnly()
	var buf bytes.Buffer
	res.WriteText(&buf)
	got := buf.String()
	if strings.Contains(got, "PASS") || !strings.Contains(got, "tests/failing.test.yaml: FAIL") ||
		!strings.Contains(got, "(1 file where every test passed not listed)") {
		t.Errorf("failed-only text:\n%s", got)
	}
}

// The JUnit report as encoding/xml reads and writes it (junitWriter writes it by hand).
type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Time     string    `xml:"time,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	ClassName string      `xml:"classname,attr"`
	File      string      `xml:"file,attr,omitempty"`
	Line      int         `xml:"line,attr,omitempty"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlProblem `xml:"failure"`
	Error     *xmlProblem `xml:"error"`
}

type xmlProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// The hand-written JUnit report is byte for byte what encoding/xml's Encoder writes:
// empty and nested elements, optional attributes, and text that needs escaping (markup,
// quotes, tabs and newlines, control characters, invalid UTF-8, U+FFFD, U+FFFF).
func TestJUnitLikeEncodingXML(t *testing.T) {
	texts := []string{"", "plain", `a "quoted" 'word' & <tag>`, "tab\there\nline\r\nend", "ctl \x01\x1f del \x7f",
		"bad \xff\xfe utf8", "repl \uFFFD and \uFFFF and \U0001F600", "über ✓"}
	docs := []junitSuites{{Name: "jstk test", Time: "0.000"}}
	for i, s := range texts {
		d := junitSuites{Name: s, Tests: i, Failures: i / 2, Errors: i % 2, Time: s}
		d.Suites = append(d.Suites, junitSuite{Name: s + "-empty", Time: "1.500"})
		js := junitSuite{Name: s, Tests: 3, Time: s}
		js.Cases = append(js.Cases,
			junitCase{Name: s, ClassName: s, Time: "0.001"},
			junitCase{Name: "f", ClassName: "a / b", File: s, Line: i, Time: s, Failure: &junitProblem{Message: s, Type: "failed", Text: s}},
			junitCase{Name: "e", File: "x.json", Line: 3, Error: &junitProblem{Message: s, Type: "not-run"}})
		d.Suites = append(d.Suites, js)
		docs = append(docs, d)
	}
	for _, d := range docs {
		var got, want bytes.Buffer
		if err := d.write(&got); err != nil {
			t.Fatal(err)
		}
		want.WriteString(xml.Header)
		enc := xml.NewEncoder(&want)
		enc.Indent("", "  ")
		if err := enc.Encode(toXML(d)); err != nil {
			t.Fatal(err)
		}
		want.WriteString("\n")
		if got.String() != want.String() {
			t.Errorf("junit of %q (-encoding/xml +jstk):\n%s", d.Name, cmp.Diff(want.String(), got.String()))
		}
	}
}

func toXML(d junitSuites) xmlSuites {
	problem := func(p *junitProblem) *xmlProblem {
		if p == nil {
			return nil
		}
		return &xmlProblem{Message: p.Message, Type: p.Type, Text: p.Text}
	}
	x := xmlSuites{Name: d.Name, Tests: d.Tests, Failures: d.Failures, Errors: d.Errors, Time: d.Time}
	for _, s := range d.Suites {
		xs := xmlSuite{Name: s.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: s.Time}
		for _, c := range s.Cases {
			xs.Cases = append(xs.Cases, xmlCase{Name: c.Name, ClassName: c.ClassName, File: c.File, Line: c.Line, Time: c.Time,
				Failure: problem(c.Failure), Error: problem(c.Error)})
		}
		x.Suites = append(x.Suites, xs)
	}
	return x
}
