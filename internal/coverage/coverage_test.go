package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// measure runs Measure on in-memory files: the schema is "schema.json".
func measure(t *testing.T, files map[string]string, inputs []string, opts *Options) *Result {
	t.Helper()
	fsys := workspace.Memory(files)
	s := compileFile(t, fsys, "schema.json")
	if opts == nil {
		opts = &Options{}
	}
	opts.FS = fsys
	var srcs []Source
	for _, in := range inputs {
		srcs = append(srcs, Source{Name: in, Path: in})
	}
	res, err := Measure(context.Background(), s, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.ListAll()
	return res
}

// missing maps "pointer keyword" to what is missing there ("-" when nothing is).
func missing(res *Result) map[string]string {
	out := map[string]string{}
	for _, e := range res.Entries {
		key := e.Pointer + " " + e.Keyword
		if e.File != "schema.json" {
			key = e.File + "#" + key
		}
		m := strings.Join(e.Missing, ", ")
		if m == "" {
			m = "-"
		}
		out[strings.TrimSpace(key)] = m
	}
	return out
}

func TestKeywords(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		inputs map[string]string
		want   map[string]string
	}{
		{"strings, numbers, arrays", `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "properties": {
    "s": {"minLength": 2, "maxLength": 3, "pattern": "^a"},
    "n": {"multipleOf": 2, "maximum": 10, "exclusiveMaximum": 10, "minimum": 0, "exclusiveMinimum": 0},
    "a": {"minItems": 1, "maxItems": 2, "uniqueItems": true, "prefixItems": [{"type": "integer"}], "items": false,
          "contains": {"const": 1}, "minContains": 1, "maxContains": 1}
  }
}`, map[string]string{"1.json": `{"s": 5, "n": "x", "a": "x"}`, "2.json": `{"s": "ab", "n": 4, "a": [1]}`}, map[string]string{
			"":                                 "-",
			"properties":                       `"s" absent, "n" absent, "a" absent`,
			"/properties/s":                    "-",
			"/properties/s minLength":          "fail",
			"/properties/s maxLength":          "fail",
			"/properties/s pattern":            "fail",
			"/properties/n":                    "-",
			"/properties/n multipleOf":         "fail",
			"/properties/n maximum":            "fail",
			"/properties/n exclusiveMaximum":   "fail",
			"/properties/n minimum":            "fail",
			"/properties/n exclusiveMinimum":   "fail",
			"/properties/a":                    "-",
			"/properties/a minItems":           "fail",
			"/properties/a maxItems":           "fail",
			"/properties/a uniqueItems":        "fail",
			"/properties/a prefixItems":        "-",
			"/properties/a items":              "applied",
			"/properties/a contains":           "fail",
			"/properties/a minContains":        "fail",
			"/properties/a maxContains":        "fail",
			"/properties/a/contains":           "-",
			"/properties/a/contains const":     "fail",
			"/properties/a/items":              "reached",
			"/properties/a/prefixItems/0":      "-",
			"/properties/a/prefixItems/0 type": "fail",
		}},
		{"a minLength seen only on numbers does not count", `{"minLength": 1, "type": ["string", "number"]}`,
			map[string]string{"1.json": `3`}, map[string]string{
				"":           "-",
				" minLength": "applied, pass, fail",
				" type":      "fail, string",
			}},
		{"draft 7 dependencies, not, propertyNames, patternProperties", `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
  "not": {"required": ["x"]},
  "propertyNames": {"maxLength": 3},
  "patternProperties": {"^p": {"type": "string"}},
  "additionalProperties": {"type": "integer"}
}`, map[string]string{"1.json": `{"a": 1, "b": 2, "p1": "s"}`, "2.json": `{"c": 1, "x": 1, "long": 1}`}, map[string]string{
			"":                           "-",
			" dependencies":              "fail",
			" not":                       "-",
			" propertyNames":             "-",
			" patternProperties":         "-",
			" additionalProperties":      "-",
			"/additionalProperties":      "-",
			"/additionalProperties type": "fail",
			"/dependencies/c":            "-",
			"/dependencies/c required":   "pass",
			"/not":                       "-",
			"/not required":              "-",
			"/patternProperties/^p":      "-",
			"/patternProperties/^p type": "fail",
			"/propertyNames":             "-",
			"/propertyNames maxLength":   "-",
		}},
		{"closed objects, if without then, const, oneOf failing", `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "properties": {"k": {"const": "v"}},
  "unevaluatedProperties": false,
  "if": {"required": ["k"]},
  "oneOf": [{"minProperties": 1}, {"maxProperties": 1}]
}`, map[string]string{"1.json": `{"k": "v", "z": 1}`, "2.json": `{}`}, map[string]string{
			"":                       "-",
			" properties":            `"k" absent`,
			" unevaluatedProperties": "-",
			" if":                    "-",
			" oneOf":                 "branch 0, fail",
			"/if":                    "-",
			"/if required":           "-",
			"/oneOf/0":               "-",
			"/oneOf/0 minProperties": "-",
			"/oneOf/1":               "-",
			"/oneOf/1 maxProperties": "-",
			"/properties/k":          "-",
			"/properties/k const":    "fail",
			"/unevaluatedProperties": "-",
		}},
		{"2019-09 $recursiveRef, 2020-12 $dynamicRef", `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$dynamicAnchor": "node",
  "properties": {"kids": {"items": {"$dynamicRef": "#node"}}},
  "$defs": {"never": {"$ref": "#/$defs/also"}, "also": true}
}`, map[string]string{"1.json": `{"kids": [{}]}`}, map[string]string{
			"": "-",
			// The empty object the dynamic reference applies the root to shows no event of
			// an object keyword: "kids" absent goes unseen (see the report's limits).
			" properties":                        `"kids" absent`,
			"/$defs/also":                        "reached (dead: nothing references it)",
			"/$defs/never":                       "reached (dead: nothing references it)",
			"/properties/kids":                   "-",
			"/properties/kids items":             "-",
			"/properties/kids/items":             "-",
			"/properties/kids/items $dynamicRef": "-",
		}},
		{"minContains 0: contains cannot fail", `{"$schema": "https://json-schema.org/draft/2019-09/schema", "contains": {"type": "null"}, "minContains": 0, "$recursiveAnchor": true, "items": {"$recursiveRef": "#"}}`,
			map[string]string{"1.json": `[1]`}, map[string]string{
				"":                     "-",
				" contains":            "matched",
				" minContains":         "fail",
				" items":               "-",
				"/contains":            "-",
				"/contains type":       "pass, null",
				"/items":               "-",
				"/items $recursiveRef": "-",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"schema.json": tc.schema}
			var inputs []string
			for name, text := range tc.inputs {
				files[name] = text
				inputs = append(inputs, name)
			}
			sort.Strings(inputs)
			res := measure(t, files, inputs, nil)
			got := missing(res)
			want := map[string]string{}
			for k, v := range tc.want {
				want[strings.TrimSpace(k)] = v
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

var ignoreFiles = map[string]string{
	"schema.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "a": {"type": "string", "x-coverage-ignore": true, "properties": {"deep": {"type": "null"}}},
    "b": {"type": "integer", "minimum": 1, "x-coverage-ignore": "minimum"},
    "c": {"enum": [1, 2], "maximum": 3, "x-coverage-ignore": ["enum", "maximum"]},
    "d": {"$ref": "other.json"}
  },
  "$defs": {"old": {"x-coverage-ignore": true}, "older": {}, "oldest": {}}
}`,
	"other.json": `{"type": "boolean", "$defs": {"unused": {}}}`,
	"i.json":     `{"b": 2, "d": true}`,
}

func TestIgnore(t *testing.T) {
	res := measure(t, ignoreFiles, []string{"i.json"}, &Options{Ignore: []string{"#/$defs/older", "/properties/c", "other.json#/$defs/unused"}})
	want := map[string]string{
		"":                   "-",
		"type":               "fail",
		"properties":         `"a" present, "b" absent, "c" present, "d" absent`,
		"/$defs/oldest":      "reached (dead: nothing references it)",
		"/properties/b":      "-",
		"/properties/b type": "fail",
		"/properties/d":      "-",
		"/properties/d $ref": "-",
		"other.json#":        "-",
		"other.json# type":   "fail",
	}
	if diff := cmp.Diff(want, missing(res)); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"properties/a", "x.json#nope"} {
		_, err := Measure(context.Background(), compileFile(t, workspace.Memory(ignoreFiles), "schema.json"), nil, &Options{Ignore: []string{bad}})
		if err == nil {
			t.Errorf("--ignore %q accepted", bad)
		}
	}
}

func TestResolveMapIsNotMeasured(t *testing.T) {
	files := map[string]string{
		"schema.json":     `{"properties": {"dep": {"$ref": "https://dep.example/lib.json"}, "own": {"$ref": "own.json"}}}`,
		"vendor/lib.json": `{"type": "string"}`,
		"own.json":        `{"type": "integer"}`,
		"i.json":          `{"dep": "x", "own": 1}`,
	}
	fsys := workspace.Memory(files)
	resolve := map[string]string{"https://dep.example/": "vendor/"}
	c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys, Resolve: resolve}})
	s, err := c.Compile(schema.FileURI(fsys.Abs("schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Measure(context.Background(), s, []Source{{Name: "i.json", Path: "i.json"}}, &Options{Options: schematest.Options{FS: fsys, Resolve: resolve}})
	if err != nil {
		t.Fatal(err)
	}
	files2 := map[string]bool{}
	for _, e := range res.all {
		files2[e.File] = true
	}
	if diff := cmp.Diff(map[string]bool{"schema.json": true, "own.json": true}, files2); diff != "" {
		t.Errorf("measured files (-want +got):\n%s", diff)
	}
}

var inputsFiles = map[string]string{
	"schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"n": {"type": "integer", "maximum": 5}}, "required": ["n"]}`,
	"many.ndjson":  "{\"n\": 1}\n{\"n\": 9}\n",
	"stream.yaml":  "n: 2\n---\nm: 1\n",
	"tests.json":   `{"target": "schema.json", "tests": [{"valid": true, "data": {"n": 1}}, {"valid": true, "data": {"n": 7}}]}`,
	"suite.json":   `[{"description": "reaches the schema by reference", "schema": {"$ref": "schema.json#/properties/n"}, "tests": [{"description": "big", "data": 8, "valid": false}]}]`,
	"bad.json":     `{"n": `,
	"unres.json":   `{"target": "nope.json", "tests": [{"valid": true, "data": 1}]}`,
	"nodata.json":  `{"target": "schema.json", "tests": [{"valid": true, "dataPath": "nope.json"}]}`,
	"badtest.json": `{"target": "schema.json", "tests": [{"data": 1}]}`,
}

func TestNDJSONChunks(t *testing.T) {
	lines := strings.Repeat("{\"n\": 1}\n", 700) + "{\"n\": \n" + strings.Repeat("\n{\"n\": 9}\r\n", 400)
	files := map[string]string{"schema.json": inputsFiles["schema.json"], "big.ndjson": "\uFEFF" + lines}
	res := measure(t, files, []string{"big.ndjson"}, nil)
	if diff := cmp.Diff(Inputs{Instances: 1100, Valid: 700, Invalid: 400}, res.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], "big.ndjson:701: ") {
		t.Errorf("problems: %q", res.Problems)
	}
	for _, e := range res.Entries {
		if e.Keyword == "maximum" && e.Hits != 1100 {
			t.Errorf("maximum applied %d times, want 1100", e.Hits)
		}
	}
}

func TestInputs(t *testing.T) {
	tests := []struct {
		name     string
		inputs   []string
		want     Inputs
		problems int
		max      string // what the maximum keyword misses
	}{
		{"NDJSON and YAML streams are plain instances", []string{"many.ndjson", "stream.yaml"},
			Inputs{Instances: 4, Valid: 2, Invalid: 2}, 0, "-"},
		{"a tests file, one test failing its expectation", []string{"tests.json"},
			Inputs{Tests: 2, Valid: 1, Invalid: 1, Unexpected: 1, UnexpectedTests: []string{"tests.json:1:72 (test 2)"}}, 0, "fail"},
		{"a suite-format file reaching the schema by reference", []string{"suite.json"},
			Inputs{Tests: 1, Invalid: 1}, 0, "pass"},
		{"unusable inputs", []string{"bad.json", "unres.json", "nodata.json", "badtest.json", "missing.json"},
			Inputs{}, 5, "applied, pass, fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := measure(t, inputsFiles, tc.inputs, nil)
			if diff := cmp.Diff(tc.want, res.Inputs); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
			if len(res.Problems) != tc.problems {
				t.Errorf("problems: %q", res.Problems)
			}
			if got := missing(res)["/properties/n maximum"]; got != tc.max {
				t.Errorf("maximum misses %q, want %q", got, tc.max)
			}
			wantExit := 0
			if tc.problems > 0 {
				wantExit = 2
			}
			if res.ExitCode() != wantExit {
				t.Errorf("exit code %d, want %d", res.ExitCode(), wantExit)
			}
		})
	}
}

func TestThresholdsAndReports(t *testing.T) {
	res := measure(t, inputsFiles, []string{"many.ndjson"}, &Options{FailUnder: map[Kind]float64{Keywords: 100, Outcomes: 90}})
	want := []Threshold{{Kind: Keywords, Min: 100, Percent: 100, Met: true}, {Kind: Outcomes, Min: 90, Percent: 62.5, Met: false}}
	if diff := cmp.Diff(want, res.Thresholds); diff != "" {
		t.Errorf("thresholds (-want +got):\n%s", diff)
	}
	if res.Passed || res.ExitCode() != 1 {
		t.Errorf("passed %v, exit %d", res.Passed, res.ExitCode())
	}
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ok   keywords 100.00% (--fail-under keywords=100)", "FAIL outcomes 62.50% (--fail-under outcomes=90)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var codes []string
	for _, d := range res.Diagnostics() {
		codes = append(codes, d.Code+" "+d.Location()+" "+d.Message)
	}
	wantCodes := []string{
		"coverage/under-threshold schema.json outcomes coverage 62.50% is under 90%",
		"coverage/uncovered schema.json:1:61 type not covered: fail",
		"coverage/uncovered schema.json:2:59 required not covered: fail, \"n\" omitted",
		"coverage/uncovered schema.json:2:24 type not covered: fail",
	}
	if diff := cmp.Diff(wantCodes, codes); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	var gh bytes.Buffer
	if err := diag.WriteGitHub(&gh, res.Diagnostics()); err != nil || !strings.Contains(gh.String(), "::notice file=schema.json,line=1,col=61") {
		t.Errorf("github: %v\n%s", err, gh.String())
	}
	if err := res.WriteFormat(&gh, "junit"); err == nil {
		t.Error("junit is not a coverage format")
	}

	// Paging and the default listing.
	res.list(false)
	if res.Listed != "incomplete" || len(res.Entries) != 3 {
		t.Fatalf("listed %s: %d entries", res.Listed, len(res.Entries))
	}
	res.Cut(1, 1)
	if diff := cmp.Diff(&diag.Page{Offset: 1, Limit: 1, Total: 3, Omitted: 2}, res.Page); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	text.Reset()
	res.WriteText(&text)
	if !strings.Contains(text.String(), "(1 of 3 entries listed; ask for more with offset and limit)") ||
		!strings.Contains(text.String(), "(4 entries fully covered, not listed; --all lists every entry)") {
		t.Errorf("text of a page:\n%s", text.String())
	}
	res.Cut(0, 0)
	if len(res.Entries) != 1 {
		t.Error("Cut(0, 0) changed the list")
	}
}

func TestDeadDiagnostic(t *testing.T) {
	res := measure(t, map[string]string{"schema.json": `{"$defs": {"x": {}}}`, "i.json": `1`}, []string{"i.json"}, nil)
	ds := res.Diagnostics()
	if len(ds) != 1 || ds[0].Code != "coverage/dead-definition" || ds[0].Pointer != "/$defs/x" || ds[0].Severity != diag.Warning {
		t.Errorf("diagnostics: %+v", ds)
	}
	var text bytes.Buffer
	res.WriteText(&text)
	if !strings.Contains(text.String(), "schema.json:1:17  /$defs/x  (schema)     0  reached (dead: nothing references it)") {
		t.Errorf("text:\n%s", text.String())
	}
}

func TestFullyCoveredJSON(t *testing.T) {
	res := measure(t, map[string]string{"schema.json": `{"type": "integer"}`, "a.json": `1`, "b.json": `"x"`}, []string{"a.json", "b.json"}, nil)
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "null") {
		t.Errorf("a list is null in %s", data)
	}
}

func TestKindByName(t *testing.T) {
	for _, k := range Kinds {
		if got, ok := KindByName(string(k)); !ok || got != k {
			t.Errorf("KindByName(%s) = %s %v", k, got, ok)
		}
	}
	if _, ok := KindByName("lines"); ok {
		t.Error("KindByName accepted lines")
	}
}

func TestCancelled(t *testing.T) {
	fsys := workspace.Memory(inputsFiles)
	s := compileFile(t, fsys, "schema.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, s, []Source{{Name: "many.ndjson", Path: "many.ndjson"}}, &Options{Options: schematest.Options{FS: fsys}}); err == nil {
		t.Error("a cancelled measure returned no error")
	}
}

func TestSortKey(t *testing.T) {
	ptrs := []string{"/a/10", "/a/2", "/a", "", "/a/b", "/a~1b", "/a/2/x"}
	sort.Slice(ptrs, func(i, j int) bool { return sortKey("f", ptrs[i]) < sortKey("f", ptrs[j]) })
	want := []string{"", "/a", "/a/2", "/a/2/x", "/a/10", "/a/b", "/a~1b"}
	if diff := cmp.Diff(want, ptrs); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// The tracer applies a replayed evaluation's effect at once (tracer.replay): its counts
// must be those of taking the same steps one by one.
func TestReplaysCountAsSteps(t *testing.T) {
	fsys := workspace.Memory(map[string]string{"schema.json": `{
  "$defs": {
    "entity": {"type": "object", "required": ["kind", "meta"], "additionalProperties": false,
      "properties": {"kind": {"type": "string"}, "spec": {"type": "object"}, "opt": {"enum": [1, 2]},
        "meta": {"$ref": "#/$defs/meta"}},
      "dependentRequired": {"opt": ["spec"]}},
    "meta": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 2},
      "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}}},
    "tag": {"anyOf": [{"$ref": "#/$defs/word"}, {"$ref": "#/$defs/word", "maxLength": 3}, {"type": "integer"}]},
    "word": {"type": "string", "pattern": "^[a-z]+$"}
  },
  "anyOf": [
    {"allOf": [{"$ref": "#/$defs/entity"}, {"properties": {"kind": {"const": "A"}}}]},
    {"allOf": [{"$ref": "#/$defs/entity"}, {"properties": {"kind": {"const": "B"}}, "required": ["spec"]}]},
    {"oneOf": [{"$ref": "#/$defs/entity"}, {"$ref": "#/$defs/meta"}]}
  ]
}`})
	s := compileFile(t, fsys, "schema.json")
	m := newModel(s, nil)
	v := m.add(s)
	m.finish()
	for _, maxEffects := range []int{maxEffectHits, 0, 12} {
		replays := replaysCountAsSteps(t, s, v, m, maxEffects)
		if replays < 10 {
			t.Errorf("%d replays: the test does not exercise them", replays)
		}
	}
}

func replaysCountAsSteps(t *testing.T, s *schema.Schema, v *view, m *model, maxEffects int) int {
	oneByOne, atOnce := newTracer(context.Background(), nil, m), newTracer(context.Background(), nil, m)
	oneByOne.v, atOnce.v = v, v
	atOnce.maxEffects = maxEffects
	replays := 0
	for _, doc := range []string{
		`{"kind": "A", "meta": {"name": "ab", "tags": ["x", "yy", 3, "ZZ"]}}`,
		`{"kind": "B", "meta": {"name": "a"}, "opt": 1}`,
		`{"kind": "B", "meta": {"name": "abc"}, "opt": 2, "spec": {}}`,
		`{"kind": "C", "meta": {"tags": []}, "other": 1}`,
		`{"name": "ab"}`,
		`[1]`,
	} {
		root := parseDoc(t, doc)
		want, err := s.Trace(root, oneByOne.on)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.TraceReplays(root, atOnce.on, func(id int, steps []schema.Event) {
			replays++
			atOnce.replay(id, steps)
		})
		if err != nil {
			t.Fatal(err)
		}
		atOnce.forgetEffects()
		if diff := cmp.Diff(oneByOne.onValid, atOnce.onValid); diff != "" {
			t.Errorf("%s: onValid (-one by one +at once):\n%s", doc, diff)
		}
		if diff := cmp.Diff(oneByOne.onExpected, atOnce.onExpected); diff != "" {
			t.Errorf("%s: onExpected (-one by one +at once):\n%s", doc, diff)
		}
		oneByOne.finishTest(len(want) == 0, true, want)
		atOnce.finishTest(len(got) == 0, true, got)
		if diff := cmp.Diff(oneByOne.hits, atOnce.hits); diff != "" {
			t.Errorf("%s: hits (-one by one +at once):\n%s", doc, diff)
		}
		if diff := cmp.Diff(oneByOne.objects, atOnce.objects); diff != "" {
			t.Errorf("%s: objects (-one by one +at once):\n%s", doc, diff)
		}
	}
	return replays
}

func parseDoc(t *testing.T, doc string) source.Value {
	t.Helper()
	d, err := source.ParseJSON("doc.json", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Root
}

// sizedFS opens files that state a size of their own (none when size is negative), and
// can fail reads.
type sizedFS struct {
	workspace.FS
	size    int64
	readErr error
}

type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (i sizedInfo) Size() int64 { return i.size }

// plainFile has no Stat method.
type plainFile struct {
	io.ReadCloser
	err error
}

func (f plainFile) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	return f.ReadCloser.Read(p)
}

type sizedFile struct {
	plainFile
	size int64
}

func (f sizedFile) Stat() (fs.FileInfo, error) {
	fi, err := f.ReadCloser.(fs.File).Stat()
	return sizedInfo{fi, f.size}, err
}

func (s sizedFS) Open(name string) (io.ReadCloser, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if s.size < 0 {
		return plainFile{f, s.readErr}, nil
	}
	return sizedFile{plainFile{f, s.readErr}, s.size}, nil
}

func TestReadInput(t *testing.T) {
	const text = "{\"n\": 1}\n{\"n\": 2}\n"
	mem := workspace.Memory(map[string]string{"a.ndjson": text})
	for _, tc := range []struct {
		name    string
		fsys    workspace.FS
		file    string
		limit   int64
		want    string
		wantErr string
	}{
		{"stated size", mem, "a.ndjson", 100, text, ""},
		{"the file grew", sizedFS{FS: mem, size: 4}, "a.ndjson", 100, text, ""},
		{"the file shrank", sizedFS{FS: mem, size: 40}, "a.ndjson", 100, text, ""},
		{"size 0", sizedFS{FS: mem, size: 0}, "a.ndjson", 100, text, ""},
		{"no Stat", sizedFS{FS: mem, size: -1}, "a.ndjson", 100, text, ""},
		{"over the limit", mem, "a.ndjson", 10, "", "larger than the limit"},
		{"missing", mem, "b.ndjson", 100, "", "b.ndjson"},
		{"read error", sizedFS{FS: mem, size: int64(len(text)), readErr: errors.New("disk on fire")}, "a.ndjson", 100, "", "a.ndjson: disk on fire"},
	} {
		got, err := readInput(tc.fsys, tc.file, tc.limit)
		want, wantErr := workspace.ReadFile(tc.fsys, tc.file, tc.limit)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.wantErr)
			}
			if wantErr == nil || err.Error() != wantErr.Error() {
				t.Errorf("%s: error %v, workspace.ReadFile's %v", tc.name, err, wantErr)
			}
			continue
		}
		if err != nil || string(got) != tc.want || string(want) != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
}

// changingFS serves a file's second version from its second Open on: a file of instances
// that changes, or goes, between its reading by load and by the worker that evaluates it.
type changingFS struct {
	workspace.FS
	later  map[string]string // name -> content from the second Open ("" : gone)
	opened map[string]int
}

func (c *changingFS) Open(name string) (io.ReadCloser, error) {
	c.opened[name]++
	if text, ok := c.later[name]; ok && c.opened[name] > 1 {
		if text == "" {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return io.NopCloser(strings.NewReader(text)), nil
	}
	return c.FS.Open(name)
}

// TestInstanceFilesReadWhenEvaluated: a file of plain instances is kept as a name until a
// worker evaluates it, and read again then; what it holds then is what counts, and a file
// that went or no longer parses is a problem, not a crash.
func TestInstanceFilesReadWhenEvaluated(t *testing.T) {
	files := map[string]string{
		"schema.json": inputsFiles["schema.json"],
		"a.json":      `{"n": 1}`,
		"b.yaml":      "n: 1\n---\nn: 2\n",
		"gone.json":   `{"n": 1}`,
		"broken.json": `{"n": 1}`,
	}
	fsys := &changingFS{FS: workspace.Memory(files), opened: map[string]int{},
		later: map[string]string{"b.yaml": "n: 9\n---\nn: 1\n---\nm: 2\n", "gone.json": "", "broken.json": `{"n": `}}
	s := compileFile(t, fsys, "schema.json")
	var srcs []Source
	for _, in := range []string{"a.json", "b.yaml", "gone.json", "broken.json"} {
		srcs = append(srcs, Source{Name: in, Path: in})
	}
	opts := &Options{}
	opts.FS, opts.Workers = fsys, 1
	res, err := Measure(context.Background(), s, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Inputs{Instances: 4, Valid: 2, Invalid: 2}, res.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if len(res.Problems) != 2 || !strings.Contains(res.Problems[0], "gone.json") || !strings.HasPrefix(res.Problems[1], "broken.json:1:") {
		t.Errorf("problems: %q", res.Problems)
	}
	if n := fsys.opened["a.json"]; n != 2 {
		t.Errorf("a.json opened %d times, want 2 (load, then the worker)", n)
	}
}

// A file that cannot hold a member "tests" is taken for plain instances without a parse.
func TestMayBeTests(t *testing.T) {
	for _, c := range []struct {
		text   string
		format source.Format
		want   bool
	}{
		{`{"n": 1, "s": "a\nb \"q\""}`, source.JSON, false},
		{`[{"schema": {}, "tests": []}]`, source.JSON, true},
		{`[{"schema": {}, "te\u0073ts": []}]`, source.JSON, true},
		{`{"a": 1, /* c */}`, source.JSONC, false},
		{`{"te\u0073ts": 1}`, source.JSONC, true},
		{"n: 1\ns: 'a'\n", source.YAML, false},
		{"tests: []\n", source.YAML, true},
		{"\"te\\x73ts\": []\n", source.YAML, true},
		{"n = 1\n", source.TOML, false},
		{"\"te\\u0073ts\" = []\n", source.TOML, true},
	} {
		if got := mayBeTests([]byte(c.text), c.format); got != c.want {
			t.Errorf("mayBeTests(%q, %v) = %v, want %v", c.text, c.format, got, c.want)
		}
	}
}

// The problems of inputs come in the inputs' order, also when a file of plain instances
// is found unparsable only by the worker that evaluates it.
func TestInputProblemsInOrder(t *testing.T) {
	files := map[string]string{
		"schema.json": inputsFiles["schema.json"],
		"bad.json":    `{"n": `,
		"a.json":      `{"n": 1}`,
	}
	fsys := workspace.Memory(files)
	s := compileFile(t, fsys, "schema.json")
	var srcs []Source
	for _, in := range []string{"bad.json", "a.json", "missing.json"} {
		srcs = append(srcs, Source{Name: in, Path: in})
	}
	opts := &Options{}
	opts.FS = fsys
	res, err := Measure(context.Background(), s, srcs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 2 || !strings.HasPrefix(res.Problems[0], "bad.json:1:") || !strings.Contains(res.Problems[1], "missing.json") {
		t.Errorf("problems: %q, want bad.json's, then missing.json's", res.Problems)
	}
	if diff := cmp.Diff(Inputs{Instances: 1, Valid: 1}, res.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
}
