package lint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func run(t *testing.T, files map[string]string, names []string, opts *Options) *Result {
	t.Helper()
	fsys := workspace.Memory(files)
	var srcs []Source
	for _, n := range names {
		srcs = append(srcs, Source{Name: n, Path: n})
	}
	if opts == nil {
		opts = &Options{}
	}
	if opts.Loader == nil {
		opts.Loader = &schema.Loader{FS: fsys}
	}
	res, err := Run(context.Background(), srcs, fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rulesOf(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Pointer+" "+f.Rule)
	}
	sort.Strings(out)
	return out
}

func TestRunFilesAndProblems(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.json":   `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "A", "description": "d", "type": "string", "pattern": "[a-z]+"}`,
		"b.yaml":   "$schema: https://json-schema.org/draft/2020-12/schema\ntitle: B\ndescription: d\nenum: [a, a]\n",
		"bad.json": `{"type": `,
		"arr.json": `[1, 2]`,
	}
	res := run(t, files, []string{"a.json", "b.yaml", "bad.json", "arr.json", "missing.json"}, nil)
	if diff := cmp.Diff([]string{"/enum/1 duplicate-enum-values", "/pattern unanchored-pattern"}, rulesOf(res)); diff != "" {
		t.Error(diff)
	}
	if res.Summary.Files != 5 || res.Summary.Unreadable != 3 || len(res.Problems) != 3 {
		t.Errorf("summary %+v, problems %v", res.Summary, res.Problems)
	}
	if res.ExitCode() != 2 {
		t.Errorf("exit %d, want 2 (unreadable documents)", res.ExitCode())
	}
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bad.json: error:", "[unreadable]", "a.json:1:", "[unanchored-pattern]", "b.yaml:4:", "5 schemas linted (3 unreadable): 2 warnings"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	ds := res.Diagnostics()
	if len(ds) != 5 || ds[0].Code != "lint/unreadable" {
		t.Errorf("diagnostics: %+v", ds)
	}
}

func TestExitCodeAndFailOn(t *testing.T) {
	t.Parallel()
	files := map[string]string{"s.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "T", "description": "D", "type": "object", "properties": {}}`}
	for _, tc := range []struct {
		failOn diag.Severity
		want   int
	}{{"", 0}, {diag.Error, 0}, {diag.Warning, 0}, {diag.Info, 1}} {
		res := run(t, files, []string{"s.json"}, &Options{FailOn: tc.failOn})
		if got := res.ExitCode(); got != tc.want {
			t.Errorf("fail-on %q: exit %d, want %d (%v)", tc.failOn, got, tc.want, rulesOf(res))
		}
	}
	if _, err := Run(context.Background(), nil, workspace.Memory(nil), &Options{FailOn: "fatal"}); err == nil {
		t.Error("an unknown fail-on severity must be refused")
	}
	if _, err := Run(context.Background(), nil, workspace.Memory(nil), &Options{Rules: map[string]Setting{"no-such-rule": "off"}}); err == nil {
		t.Error("an unknown rule must be refused")
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		settings map[string]Setting
		check    map[string]diag.Severity // "" means off
		err      bool
	}{
		{"defaults", nil, map[string]diag.Severity{"unknown-keyword": diag.Info, "trailing-period": "", "invalid-schema": diag.Error}, false},
		{"all off, one on", map[string]Setting{"all": "off", "unknown-format": "on"}, map[string]diag.Severity{"unknown-format": diag.Warning, "invalid-schema": ""}, false},
		{"category beats all, id beats category", map[string]Setting{"all": "error", "style": "off", "single-type-array": "warning"},
			map[string]diag.Severity{"enum-to-const": "", "single-type-array": diag.Warning, "unknown-keyword": diag.Error}, false},
		{"peer rule names", map[string]Setting{"unknown_keywords_prefix": "off"}, map[string]diag.Severity{"unknown-keyword": ""}, false},
		{"bad setting", map[string]Setting{"all": "loud"}, nil, true},
		{"unknown rule", map[string]Setting{"nope": "on"}, nil, true},
	} {
		got, err := resolveSettings(tc.settings)
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		for id, want := range tc.check {
			if got[id] != want {
				t.Errorf("%s: %s is %q, want %q", tc.name, id, got[id], want)
			}
		}
	}
	infos, err := List(map[string]Setting{"style": "off"})
	if err != nil || len(infos) != len(Rules()) {
		t.Fatalf("List: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteRules(&buf, infos); err != nil || !strings.Contains(buf.String(), "single-type-array") || !strings.Contains(buf.String(), "off") {
		t.Errorf("WriteRules: %v\n%s", err, buf.String())
	}
	if _, err := List(map[string]Setting{"x": "y"}); err == nil {
		t.Error("List must refuse bad settings")
	}
	if r, ok := Lookup("unknown-keyword"); !ok || r.Code() != "lint/unknown-keyword" {
		t.Error("Lookup")
	}
	if len(DiagRules()) != len(Rules()) {
		t.Error("DiagRules")
	}
}

func TestSuppression(t *testing.T) {
	t.Parallel()
	files := map[string]string{"s.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "T", "description": "D",
  "properties": {
    "a": {"x-lint-ignore": ["unknown-keyword"], "foo": 1, "properties": {"deep": {"bar": 2}}},
    "b": {"x-lint-ignore": true, "foo": 1, "enum": [1, 1]},
    "c": {"x-lint-ignore": "unknown-keyword", "foo": 1},
    "d": {"x-lint-ignore": ["unknown-keywords"], "foo": 1},
    "e": {"x-lint-ignore": 3}
  }
}`}
	res := run(t, files, []string{"s.json"}, nil)
	want := []string{
		"/properties/d/foo unknown-keyword",
		"/properties/d/x-lint-ignore/0 unknown-ignore-rule",
		"/properties/e/x-lint-ignore unknown-ignore-rule",
	}
	if diff := cmp.Diff(want, rulesOf(res)); diff != "" {
		t.Error(diff)
	}
}

// TestFixSafety checks what a fix must never do.
func TestFixSafety(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		schema string
		rule   string
		fix    bool
	}{
		{"an unknown local $ref is never deleted", `{"anyOf": [{"$ref": "#/nope"}, {"$ref": "#/nope"}]}`, "duplicate-branches", false},
		{"an unresolvable $ref is never deleted", `{"allOf": [{"$ref": "https://example.com/x.json"}, {"$ref": "https://example.com/x.json"}]}`, "duplicate-branches", false},
		{"a resolvable duplicate goes", `{"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}], "$defs": {"a": {}}}`, "duplicate-branches", true},
		{"a reference target is not renumbered", `{"$ref": "#/allOf/1", "allOf": [{}, {"type": "string"}]}`, "trivial-branch", false},
		{"a reference target is not removed", `{"$ref": "#/properties", "properties": {}}`, "redundant-keyword", false},
		{"an $id is not removed", `{"allOf": [{"$id": "https://example.com/a"}, {"$id": "https://example.com/a"}]}`, "duplicate-branches", false},
		{"annotations of 2019-09 stay", `{"items": true, "unevaluatedItems": false}`, "redundant-keyword", false},
		{"annotations of draft 7 may go", `{"$schema": "http://json-schema.org/draft-07/schema#", "items": true}`, "redundant-keyword", true},
		{"a repeated key blocks text edits", `{"enum": ["a", "a"], "enum": ["b", "b"]}`, "duplicate-enum-values", true},
	} {
		res := lintOne(t, "s.json", tc.schema, nil)
		found := false
		for _, f := range res.Findings {
			if f.Rule != tc.rule {
				continue
			}
			found = true
			if (f.Fix != nil) != tc.fix {
				t.Errorf("%s: fix = %v, want %v", tc.name, f.Fix != nil, tc.fix)
			}
			if tc.name == "a repeated key blocks text edits" && f.Fix != nil && len(f.Fix.Edits) != 0 {
				t.Errorf("%s: text edits proposed: %+v", tc.name, f.Fix.Edits)
			}
		}
		if !found {
			t.Errorf("%s: %s not reported: %v", tc.name, tc.rule, rulesOf(res))
		}
	}
}

func TestFixApply(t *testing.T) {
	t.Parallel()
	src := `{
    "$schema": "http://json-schema.org/draft-07/schema",
    "title": " Thing ",
    "type": "object",
    "properties": {
        "kind": {"enum": ["a"]},
        "tags": {"type": ["array"], "items": true, "minItems": 0},
        "n": {"type": "integer", "minimum": 1.5, "maximum": 7.5, "multipleOf": 1},
        "r": {"allOf": [{"$ref": "#/definitions/r"}]},
        "x": {"$ref": "#/definitions/missing"}
    },
    "required": ["kind", "kind"],
    "definitions": {"r": {"type": "string"}}
}
`
	files := map[string]string{"s.json": src, "y.yaml": "enum: [a, a]\n"}
	res := run(t, files, []string{"s.json", "y.yaml"}, &Options{Fix: true})
	outs := res.Outputs()
	if len(outs) != 1 || outs[0].Path != "s.json" {
		t.Fatalf("outputs %v", outs)
	}
	want := `{
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Thing",
    "type": "object",
    "properties": {
        "kind": {"const": "a"},
        "tags": {"type": "array"},
        "n": {"type": "integer", "minimum": 2, "maximum": 7},
        "r": {"$ref": "#/definitions/r"},
        "x": {"$ref": "#/definitions/missing"}
    },
    "required": ["kind"],
    "definitions": {"r": {"type": "string"}}
}
`
	if diff := cmp.Diff(want, string(outs[0].Data)); diff != "" {
		t.Errorf("fixed text (-want +got):\n%s", diff)
	}
	if len(res.Fixed) != 2 || res.Fixed[0].File != "s.json" || res.Fixed[0].Applied != 11 || res.Fixed[1].Skipped == "" {
		t.Errorf("fixed: %+v", res.Fixed)
	}
	// What remains is reported on the fixed text.
	if diff := cmp.Diff([]string{" missing-dialect", " top-level-description", " top-level-description", " top-level-title",
		"/enum/1 duplicate-enum-values", "/properties/x/$ref unknown-local-ref"}, rulesOf(res)); diff != "" {
		t.Error(diff)
	}
	var text bytes.Buffer
	res.WriteText(&text)
	if !strings.Contains(text.String(), "s.json: applied 11 fixes") || !strings.Contains(text.String(), "y.yaml: not fixed") {
		t.Errorf("text:\n%s", text.String())
	}
	// Fixes are deterministic and a fixed document has nothing left to fix.
	again := run(t, map[string]string{"s.json": string(outs[0].Data)}, []string{"s.json"}, &Options{Fix: true})
	if len(again.Outputs()) != 0 {
		t.Errorf("a fixed document was fixed again: %s", again.Outputs()[0].Data)
	}
}

func TestCrossDocumentDuplicateID(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.json": `{"$id": "https://example.com/s", "type": "string"}`,
		"b.json": `{"$id": "https://example.com/s", "type": "number"}`,
		"c.json": `{"$id": "https://example.com/s", "x-lint-ignore": ["duplicate-id"]}`,
		"d.json": `{"$id": "https://example.com/other"}`,
	}
	res := run(t, files, []string{"a.json", "b.json", "c.json", "d.json"}, &Options{Rules: map[string]Setting{"all": "off", "duplicate-id": "on"}})
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.File+" "+f.Message[:strings.Index(f.Message, ":")])
	}
	want := []string{
		`a.json $id "https`,
		`b.json $id "https`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestInlineSourcesCutAndProgress(t *testing.T) {
	t.Parallel()
	var calls []string
	srcs := []Source{
		{Name: "<a>", Text: []byte(`{"type": ["string"], "enum": ["a", "a"]}`)},
		{Name: "<b>", Text: []byte(`{"type": ["number"]}`)},
	}
	res, err := Run(context.Background(), srcs, workspace.Memory(nil), &Options{Workers: 1, Timing: true,
		Progress: func(done, total int) { calls = append(calls, fmt.Sprintf("%d/%d", done, total)) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1/2", "2/2"}, calls); diff != "" {
		t.Error(diff)
	}
	if len(res.RuleStats) == 0 {
		t.Error("no rule stats")
	}
	total := len(res.Findings)
	res.Cut(1, 2)
	if len(res.Findings) != 2 || res.Page == nil || res.Page.Total != total || res.Page.Omitted != total-2 {
		t.Errorf("cut: %d findings, page %+v", len(res.Findings), res.Page)
	}
	var text bytes.Buffer
	res.WriteText(&text)
	if !strings.Contains(text.String(), fmt.Sprintf("(2 of %d findings shown", total)) {
		t.Errorf("text:\n%s", text.String())
	}
	if res.ExitCode() != 1 {
		t.Errorf("a page leaves out findings that still count: exit %d", res.ExitCode())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, srcs, workspace.Memory(nil), nil); err == nil {
		t.Error("a cancelled run must fail")
	}
}

func TestMarkdownMentionsEveryRule(t *testing.T) {
	t.Parallel()
	md := string(Markdown())
	for _, r := range Rules() {
		if !strings.Contains(md, "### "+r.ID+"\n") {
			t.Errorf("docs lack %s", r.ID)
		}
	}
}

func TestPatternChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern        string
		ecma, anchored bool // true: a problem is reported
	}{
		{`^[a-z]+$`, false, false},
		{`[0-9]+`, false, true},
		{`\d*`, false, true},
		{`[a-z]+$`, false, true},
		{`^a|b$`, false, true},
		{`^(a|b)$`, false, false},
		{`^x-`, false, false},
		{`\S+`, false, false},
		{`^\w+\Z`, true, false},
		{`(?i)abc`, true, false},
		{`(?P<n>x)`, true, false},
		{`(?>a)`, true, false},
		{`(?#c)a`, true, false},
		{`[[:alpha:]]`, true, false},
		{`a{,3}`, true, false},
		{`^\x{41}$`, true, false},
		{`^\-$`, true, false},
		{`^[\-]$`, false, false},
		{`^\u0041\p{L}\k<a>$`, false, false},
		{`a{`, true, false},
		{`a}`, true, false},
		{`\`, true, false},
		{`^\cA$`, false, false},
		{`^\c1$`, true, false},
		{`^\x4$`, true, false},
		{`(?<a>x)\1`, false, false},
		{`(?<ax)`, true, false},
	} {
		if got := ecmaProblem(tc.pattern) != ""; got != tc.ecma {
			t.Errorf("ecmaProblem(%q) = %q", tc.pattern, ecmaProblem(tc.pattern))
		}
		if got := anchorProblem(tc.pattern) != ""; got != tc.anchored {
			t.Errorf("anchorProblem(%q) = %q", tc.pattern, anchorProblem(tc.pattern))
		}
	}
}

// lint's views of the keyword model: what never changes a verdict, which types a keyword
// acts on, which drafts know a keyword, which schemas accept everything.
func TestKeywordViews(t *testing.T) {
	t.Parallel()
	for kw, want := range map[string]bool{"title": true, "$comment": true, "format": true, "contentSchema": true,
		"type": false, "$id": false, "definitions": false, "x-foo": false} {
		if isAnnotation(kw) != want {
			t.Errorf("isAnnotation(%q) = %v", kw, !want)
		}
	}
	if kt, ok := keywordTypes(schema.Draft7, "minLength"); !ok || kt != schema.TypeString {
		t.Errorf("keywordTypes(minLength) = %v, %v", kt, ok)
	}
	for _, kw := range []string{"type", "allOf", "prefixItems", "x-foo"} {
		if _, ok := keywordTypes(schema.Draft7, kw); ok {
			t.Errorf("keywordTypes(%q) says it acts on some types only", kw)
		}
	}
	names := func(ds []*schema.Draft) (out []string) {
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"draft-04", "draft-06", "draft-07"}, names(draftsOf("dependencies"))); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"}, names(draftsOf("definitions"))); diff != "" {
		t.Error(diff)
	}
	if k := knownKeywords(schema.Draft6); !k["const"] || k["$comment"] || k["id"] {
		t.Errorf("knownKeywords(draft 6) = %v", k)
	}
	for text, want := range map[string]bool{`{"title": "t", "$anchor": "a", "$comment": "c"}`: true,
		`{"$dynamicAnchor": "a", "$defs": {"x": false}}`: true, `{"minimum": 1}`: false, `{"$ref": "#"}`: false, `false`: false} {
		doc, err := source.ParseJSON("s", []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := isTrueSchema(doc.Root, schema.Draft2020); got != want {
			t.Errorf("isTrueSchema(%s) = %v", text, got)
		}
	}
}

// Example of linting one schema held in memory.
func ExampleRun() {
	fsys := workspace.Memory(map[string]string{"person.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Person",
  "description": "A person.",
  "type": "object",
  "properties": {"age": {"type": "integer", "minimum": 0, "default": -1}},
  "requried": ["age"]
}`})
	res, err := Run(context.Background(), []Source{{Name: "person.json", Path: "person.json"}}, fsys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res.WriteText(os.Stdout)
	fmt.Println("exit", res.ExitCode())
	// Output:
	// person.json:6:59: warning: /properties/age/default: default -1 is not valid against this schema: -1 is less than the minimum 0 [invalid-default]
	// person.json:7:3: warning: /requried: requried is not a keyword of 2020-12; did you mean required? [misspelled-keyword]
	// 1 schema linted: 2 warnings
	// exit 1
}

func TestHostileNumbers(t *testing.T) {
	t.Parallel()
	res := lintOne(t, "s.json", `{"type": "integer", "minimum": 1e999999999, "maximum": 1e-999999999, "enum": [1e999999999, 1e999999999]}`, nil)
	if len(res.Problems) > 0 {
		t.Fatal(res.Problems)
	}
	if _, ok := rat(source.NumberValue("1e401")); ok {
		t.Error("rat must refuse exponents beyond 400")
	}
	if r, ok := rat(source.NumberValue("2.5e2")); !ok || r.RatString() != "250" {
		t.Error("rat(2.5e2)")
	}
}

// A panic on a worker goroutine reaches Run's caller (where the MCP server recovers it)
// instead of ending the process.
func TestWorkerPanicReachesCaller(t *testing.T) {
	t.Parallel()
	srcs := []Source{{Name: "<a>", Text: []byte(`{"type": "string"}`)}, {Name: "<b>", Text: []byte(`{}`)}}
	got := func() (r any) {
		defer func() { r = recover() }()
		Run(context.Background(), srcs, workspace.Memory(nil), &Options{Workers: 2,
			Progress: func(done, total int) { panic("boom") }})
		return nil
	}()
	if e, ok := got.(*panics.Error); !ok || e.Value != "boom" {
		t.Fatalf("recovered %#v, want the worker's panic", got)
	}
}

// Tautological dependencies: each is reported, the first with its fix; fixing applies them
// all, one per round.
func TestDependencyTautologyFixes(t *testing.T) {
	t.Parallel()
	src := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "T", "description": "D", "type": "object",
 "properties": {"a": {}, "b": {}, "x": {}, "y": {}},
 "required": ["a", "b"], "dependentRequired": {"a": ["x"], "b": ["y"]}}`
	res := run(t, map[string]string{"s.json": src}, []string{"s.json"}, nil)
	var withFix, without int
	for _, f := range res.Findings {
		if f.Rule != "dependency-tautology" {
			continue
		}
		if f.Fix != nil {
			withFix++
		} else {
			without++
		}
	}
	if withFix != 1 || without != 1 {
		t.Errorf("%d findings with a fix, %d without; want 1 and 1", withFix, without)
	}
	fixed := run(t, map[string]string{"s.json": src}, []string{"s.json"}, &Options{Fix: true})
	outs := fixed.Outputs()
	if len(outs) != 1 {
		t.Fatalf("outputs: %d", len(outs))
	}
	doc, err := source.ParseJSON("s.json", outs[0].Data, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := doc.Root.Get("required")
	if got := string(source.AppendJSON(nil, req)); got != `["a","b","x","y"]` {
		t.Errorf("required after fixing: %s", got)
	}
	if dr, ok := doc.Root.Get("dependentRequired"); ok && dr.Len() > 0 {
		t.Errorf("dependentRequired left: %s", source.AppendJSON(nil, dr))
	}
}

// TestPointer lints one schema inside a document: only its findings, at the document's
// pointers and positions, in the document's dialect (OpenAPI's keywords are known in an
// OpenAPI document), without the rules about a document as a whole.
func TestPointer(t *testing.T) {
	t.Parallel()
	fsys := workspace.Memory(map[string]string{
		"defs.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "a": {"type": "integer", "enum": [1, 2], "minimum": "x", "properties": {"p": {"$ref": "#/$defs/b"}}},
    "b": {"const": 1, "type": "string"}
  }
}`,
		"api.yaml": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet:\n      type: object\n" +
			"      nullable: true\n      example: {name: x}\n      properties:\n        owner: {$ref: '#/components/schemas/Owner'}\n" +
			"        tag: {tyep: string}\n    Owner:\n      type: strng\n",
	})
	run := func(srcs ...Source) *Result {
		res, err := Run(context.Background(), srcs, fsys, &Options{Rules: map[string]Setting{"all": "on"}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	found := func(res *Result) []string {
		var out []string
		for _, f := range res.Findings {
			out = append(out, fmt.Sprintf("%s:%d:%d %s %s", f.File, f.Line, f.Column, f.Pointer, f.Rule))
		}
		for _, p := range res.Problems {
			out = append(out, p.File+": "+p.Message)
		}
		return out
	}
	tests := []struct {
		src  Source
		want []string
	}{
		{Source{Name: "defs.json", Path: "defs.json", Pointer: "/$defs/a"}, []string{
			"defs.json:5:46 /$defs/a/minimum invalid-schema",
			"defs.json:5:11 /$defs/a/type enum-with-type",
			"defs.json:5:62 /$defs/a/properties type-keyword-mismatch",
		}},
		{Source{Name: "defs.json", Path: "defs.json", Pointer: "/$defs/b"}, []string{"defs.json:6:11 /$defs/b/const type-conflict"}},
		{Source{Name: "api.yaml", Path: "api.yaml", Pointer: "/components/schemas/Pet"}, []string{
			"api.yaml:12:15 /components/schemas/Pet/properties/tag/tyep misspelled-keyword",
		}},
		{Source{Name: "api.yaml", Path: "api.yaml", Pointer: "/components/schemas/Owner"}, []string{
			"api.yaml:14:7 /components/schemas/Owner/type invalid-schema",
		}},
		{Source{Name: "api.yaml", Path: "api.yaml", Pointer: "/components/schemas/Nope"}, []string{"api.yaml: api.yaml: nothing at #/components/schemas/Nope"}},
		{Source{Name: "api.yaml", Path: "api.yaml", Pointer: "/info/title"}, []string{"api.yaml: api.yaml: #/info/title is a string, not a schema"}},
	}
	for _, tt := range tests {
		got := found(run(tt.src))
		sort.Strings(got)
		sort.Strings(tt.want)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s#%s (-want +got):\n%s", tt.src.Name, tt.src.Pointer, diff)
		}
	}
}
