package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

var files = map[string]string{
	"schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object", "required": ["n"], "properties": {"n": {"$ref": "defs.json#/$defs/small"}}}`,
	"defs.json":        `{"$defs": {"small": {"type": "integer", "maximum": 9}}}`,
	"ok.json":          `{"n": 1}`,
	"bad.json":         "{\n  \"n\": 10\n}",
	"many.ndjson":      strings.Repeat("{\"n\": 1}\n", 250),
	"email.json":       `{"format": "email"}`,
	"jstk.json":        `{"resolve": {"https://example.com/s/": "sub/"}}`,
	"sub/remote.json":  `{"type": "string"}`,
	"uses-remote.json": `{"$ref": "https://example.com/s/remote.json"}`,
}

func testEnv() *Env {
	return &Env{FS: workspace.Memory(files), Cache: NewSchemaCache(8)}
}

// compileJSON compiles a schema given as JSON text with jstk's own compiler.
func compileJSON(t *testing.T, name string, text []byte) *schema.Schema {
	t.Helper()
	doc, err := source.ParseJSON(name, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(nil)
	uri := "urn:test:" + name
	if err := c.AddDocument(uri, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func TestDescriptors(t *testing.T) {
	name := regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	if len(All()) == 0 {
		t.Fatal("the table is empty")
	}
	for _, d := range All() {
		if !name.MatchString(d.Name) {
			t.Errorf("tool name %q is not portable", d.Name)
		}
		if d.Title == "" || d.Summary == "" || len(d.Description) < 100 || d.Usage == "" {
			t.Errorf("%s: title, summary, usage and a description written for a model are required", d.Name)
		}
		// The CLI's help is written for a person: not the model's description, and none of
		// the sentences that steer a model ("Answers: ...", "Use it ...").
		if len(d.Help) < 80 || d.Help == d.Description {
			t.Errorf("%s: Help, the CLI's text for a person, is required and is not the description", d.Name)
		}
		for _, modelWords := range []string{"Answers:", "Use it", "instead of"} {
			if strings.Contains(d.Help, modelWords) {
				t.Errorf("%s: Help says %q, which is written for a model (it belongs in Description)", d.Name, modelWords)
			}
		}
		for _, sch := range []json.RawMessage{d.InputSchema(), d.OutputSchema()} {
			var root map[string]any
			if err := json.Unmarshal(sch, &root); err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			if root["type"] != "object" {
				t.Errorf("%s: schema root must have type object: %s", d.Name, sch)
			}
			for _, kw := range []string{"$ref", "oneOf", "anyOf", "allOf"} {
				if _, ok := root[kw]; ok {
					t.Errorf("%s: schema root has %s", d.Name, kw)
				}
			}
			compileJSON(t, d.Name+".json", sch) // valid against the 2020-12 meta-schema
		}
		tool := MCPTool(d, d.InputSchema(), d.OutputSchema())
		if err := mcp.ValidateTool(&tool); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		if _, ok := Lookup(d.Name); !ok {
			t.Errorf("Lookup(%q) fails", d.Name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found an unknown tool")
	}
}

func call(t *testing.T, p *Provider, name, args string) *mcp.CallResult {
	t.Helper()
	return p.Call(context.Background(), &mcp.CallRequest{Name: name, Arguments: json.RawMessage(args)})
}

// conforms checks a structured result against the tool's output schema.
func conforms(t *testing.T, d *Descriptor, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := source.ParseJSON("out.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := compileJSON(t, d.Name+".output.json", d.OutputSchema()).Validate(doc.Root)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%s: structured content does not match the output schema: %v %v\n%s", d.Name, err, errs, data)
	}
}

func TestProviderValidate(t *testing.T) {
	env := testEnv()
	cfg, err := LoadConfig(env.FS)
	if err != nil {
		t.Fatal(err)
	}
	env.Resolve = cfg.Resolve
	p := NewProvider(env, All())
	d, _ := Lookup("validate")
	if len(p.Tools()) != len(All()) {
		t.Fatalf("%d tools listed, table has %d", len(p.Tools()), len(All()))
	}
	tests := []struct {
		name, args string
		isError    bool
		text       string // a line the text content must hold
		valid      bool
	}{
		{"valid file", `{"schema": {"path": "schema.json"}, "instances": [{"path": "ok.json"}]}`, false, "1 instance: 1 valid", true},
		{"invalid file, cross-file $ref", `{"schema": {"path": "schema.json"}, "instances": [{"path": "bad.json"}]}`, false,
			"bad.json:2:8: /n: 10 is greater than the maximum 9 [maximum]", false},
		{"inline value and text", `{"schema": {"value": {"type": "integer"}}, "instances": [{"value": 3}, {"text": "x: 1"}]}`, false,
			"<instances[1]>:1:1: (root): value must be integer, not object [type]", false},
		{"null is a value", `{"schema": {"value": {"type": "null"}}, "instances": [{"value": null}]}`, false, "1 instance: 1 valid", true},
		{"formats asserted on request", `{"schema": {"path": "email.json"}, "instances": [{"value": "x"}], "assertFormat": true}`, false,
			`"x" is not a valid email`, false},
		{"resolve map from jstk.json", `{"schema": {"path": "uses-remote.json"}, "instances": [{"value": 1}]}`, false, "value must be string", false},
		{"draft forced", `{"schema": {"value": {"exclusiveMaximum": true, "maximum": 1}}, "instances": [{"value": 1}], "draft": "4"}`, false,
			"1 must be less than 1", false},
		{"paging", `{"schema": {"path": "schema.json"}, "instances": [{"path": "many.ndjson"}], "limit": 5, "offset": 10}`, false,
			"(5 of 250 listed instances shown, from offset 10", true},
		{"missing argument", `{"schema": {"path": "schema.json"}}`, true, `argument instances: give at least one instance`, false},
		{"two document fields", `{"schema": {"path": "schema.json", "text": "{}"}, "instances": [{"value": 1}]}`, true, "argument schema", false},
		{"unknown argument", `{"schema": {"path": "schema.json"}, "instances": [{"value": 1}], "verbose": true}`, true, "verbose", false},
		{"wrong type", `{"schema": {"path": "schema.json"}, "instances": "ok.json"}`, true, "argument instances: value must be array", false},
		{"outside the workspace", `{"schema": {"path": "../etc/passwd"}, "instances": [{"value": 1}]}`, true, "climbs out of the workspace", false},
		{"absolute outside", `{"schema": {"path": "/etc/passwd"}, "instances": [{"value": 1}]}`, true, "outside the workspace", false},
		{"missing file", `{"schema": {"path": "schema.json"}, "instances": [{"path": "none.json"}]}`, false, "none.json: no such file or directory", false},
		{"stdin is not available", `{"schema": {"path": "-"}, "instances": [{"value": 1}]}`, true, "standard input", false},
		{"broken JSON arguments", `{"schema": `, true, "not valid JSON", false},
		{"invalid schema", `{"schema": {"value": {"type": 5}}, "instances": [{"value": 1}]}`, true, "not a valid 2020-12 schema", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, p, "validate", tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("isError = %v, want %v: %+v", res.IsError, tc.isError, res.Content)
			}
			if len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, tc.text) {
				t.Fatalf("text does not hold %q:\n%+v", tc.text, res.Content)
			}
			if tc.isError {
				return
			}
			conforms(t, d, res.StructuredContent)
			r := res.StructuredContent.(*validate.Result)
			if r.Valid != tc.valid {
				t.Errorf("valid = %v, want %v", r.Valid, tc.valid)
			}
		})
	}
	if res := call(t, p, "nope", `{}`); !res.IsError {
		t.Error("an unknown tool must be an error result")
	}
}

func TestDefaultLimit(t *testing.T) {
	p := NewProvider(testEnv(), All())
	res := call(t, p, "validate", `{"schema": {"path": "schema.json"}, "instances": [{"path": "many.ndjson"}]}`)
	r := res.StructuredContent.(*validate.Result)
	want := &diag.Page{Offset: 0, Limit: DefaultLimit, Total: 250, Omitted: 150}
	if diff := cmp.Diff(want, r.Page); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	if r.Summary.Total != 250 {
		t.Errorf("summary counts %d, want 250", r.Summary.Total)
	}
}

func TestBound(t *testing.T) {
	short := "line\n"
	if Bound(short, 100) != short {
		t.Error("short text changed")
	}
	long := strings.Repeat("0123456789abcdefghi\n", 2000) + "2000 instances: 2000 valid\n"
	got := Bound(long, MaxText)
	if len(got) > MaxText || !strings.Contains(got, "not shown; narrow the call") || !strings.HasSuffix(got, "2000 instances: 2000 valid\n") {
		t.Errorf("bounded text: %d chars, tail %q", len(got), got[len(got)-120:])
	}
	if got := Bound(strings.Repeat("é", MaxText), MaxText); len(got) > MaxText || !utf8.ValidString(got) {
		t.Errorf("one long line: %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}

// The CLI streams long results; what it prints must equal the complete report's printing.
func TestStreamEqualsWhole(t *testing.T) {
	d, _ := Lookup("validate")
	for _, f := range []diag.Format{diag.Text, diag.JSON, diag.GitHub, diag.SARIF} {
		in := &ValidateInput{Schema: PathDoc("schema.json"), Instances: []Doc{PathDoc("bad.json"), PathDoc("ok.json"), PathDoc("many.ndjson"), PathDoc("none.json")}}
		whole, err := d.Run(context.Background(), testEnv(), in)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		tool := diag.Tool{Name: "jstk", Rules: whole.(*validate.Result).SARIFRules()}
		if err := diag.Write(&want, f, whole, tool); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		st := NewStream(d, f, &got, diag.Tool{Name: "jstk"})
		env := testEnv()
		env.OnItem = st.OnItem
		report, err := d.Run(context.Background(), env, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Finish(report); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s: stream differs from whole (-whole +stream):\n%s", f, diff)
		}
	}
	if NewStream(&Descriptor{Name: "other"}, diag.Text, nil, diag.Tool{}) != nil {
		t.Error("only validate streams")
	}
}

func TestSchemaCache(t *testing.T) {
	files := map[string]string{"s.json": `{"type": "string"}`}
	env := &Env{FS: workspace.Memory(files), Cache: NewSchemaCache(1)}
	a, err := LoadSchema(env, PathDoc("s.json"), "schema", SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LoadSchema(env, PathDoc("s.json"), "schema", SchemaOptions{})
	if a != b {
		t.Error("the second load did not come from the cache")
	}
	c, _ := LoadSchema(env, PathDoc("s.json"), "schema", SchemaOptions{AssertFormat: true})
	if c == a {
		t.Error("different options must not share a cache entry")
	}
	// A changed file is compiled again.
	files["s.json"] = `{"type": "integer"}`
	env.FS = workspace.Memory(files)
	d, _ := LoadSchema(env, PathDoc("s.json"), "schema", SchemaOptions{})
	if d == a {
		t.Error("a changed file was served from the cache")
	}
	if _, err := LoadSchema(env, Doc{}, "schema", SchemaOptions{}); err == nil {
		t.Error("an empty document argument must be refused")
	}
	if _, err := LoadSchema(env, PathDoc("s.json"), "schema", SchemaOptions{Draft: "8"}); err == nil {
		t.Error("an unknown draft must be refused")
	}
}

// TestSchemaCacheTextBudget: the cache drops its oldest entries when the text they were
// compiled from passes its budget, whatever their number, and keeps the newest even when it
// alone is larger; the sum it keeps is that of the entries left.
func TestSchemaCacheTextBudget(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("s%d.json", i)] = fmt.Sprintf(`{"type": "string", "$comment": %q}`, strings.Repeat("x", 100*i))
	}
	cache := NewSchemaCache(64)
	cache.maxText = 500
	env := &Env{FS: workspace.Memory(files), Cache: cache}
	load := func(name string) *schema.Schema {
		s, err := LoadSchema(env, PathDoc(name), "schema", SchemaOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s1 := load("s1.json")
	for _, name := range []string{"s2.json", "s3.json"} {
		load(name)
	}
	// s1, s2 and s3 hold 134, 234 and 334 bytes: 702 in all, past 500; s1 went, then s2
	// (568 bytes left), and s3 stayed.
	if got := strings.Join(cache.order, ","); len(cache.order) != 1 {
		t.Fatalf("entries kept: %d (%q), want the newest alone", len(cache.order), got)
	}
	if load("s1.json") == s1 {
		t.Error("an entry dropped for the budget was served from the cache")
	}
	cache.maxText = 10
	big := load("s5.json")
	if len(cache.order) != 1 || load("s5.json") != big {
		t.Error("the newest entry must be kept, and served, even when larger than the budget")
	}
	var sum int64
	for _, e := range cache.entries {
		sum += e.text
	}
	if sum != cache.textSize {
		t.Errorf("the cache counts %d bytes of text, its entries hold %d", cache.textSize, sum)
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		text, err string
	}{
		{`{"resolve": {"a": "b"}}`, ""},
		{`[]`, "must be a JSON object"},
		{`{"resolve": []}`, `jstk.json:1:13: "resolve" must map URIs to paths`},
		{`{"resolve": {"a": 1}}`, `the path for "a" must be a string`},
		{`{"colour": "red"}`, `unknown setting "colour"`},
		{`{`, "jstk.json:1:2"},
		{`{"lint": {"rules": {"style": "off"}, "failOn": "error"}}`, ""},
		{`{"lint": []}`, `jstk.json:1:10: "lint" must be an object`},
		{`{"lint": {"rules": []}}`, `jstk.json:1:20: "lint.rules" must map rule ids`},
		{`{"lint": {"rules": {"style": 1}}}`, `the setting of rule "style" must be a string`},
		{`{"lint": {"failOn": "never"}}`, `"lint.failOn" must be error, warning or info`},
		{`{"lint": {"colour": "red"}}`, `unknown lint setting "colour"`},
	} {
		_, err := LoadConfig(workspace.Memory(map[string]string{"jstk.json": tc.text}))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.text, err, tc.err)
		}
	}
	cfg, err := LoadConfig(workspace.Memory(nil))
	if err != nil || len(cfg.Resolve) != 0 {
		t.Errorf("no jstk.json: %v %v", cfg, err)
	}
	cfg, err = LoadConfig(workspace.Memory(map[string]string{"jstk.json": `{"lint": {"rules": {"style": "off", "all": "error"}, "failOn": "info"}}`}))
	want := LintConfig{Rules: map[string]string{"style": "off", "all": "error"}, FailOn: "info"}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, cfg.Lint); diff != "" {
		t.Errorf("the lint block (-want +got):\n%s", diff)
	}
	if _, _, err := ParseResolve("nope"); err == nil {
		t.Error("ParseResolve accepted an argument without =")
	}
	if u, p, err := ParseResolve("https://x/=dir"); err != nil || u != "https://x/" || p != "dir" {
		t.Errorf("ParseResolve: %q %q %v", u, p, err)
	}
}

type failingReport struct{ validate.Result }

func (failingReport) Failure() error { return errors.New("no schema has the id \"x\"") }

func TestReportThenError(t *testing.T) {
	res := result(&failingReport{validate.Result{Instances: []validate.Instance{}}})
	if !res.IsError || len(res.Content) != 2 || res.Content[1].Text != `no schema has the id "x"` ||
		!strings.Contains(res.Content[0].Text, "0 instances") || res.StructuredContent == nil {
		t.Errorf("got %+v", res)
	}
}

// A tool's own formats are formats of diag's registry, marked as a tool's own: the help,
// --format's checking and the descriptors read one list.
func TestOwnFormatsRegistered(t *testing.T) {
	for _, d := range All() {
		for _, f := range d.Formats {
			if fi, ok := diag.LookupFormat(f); !ok || !fi.Own {
				t.Errorf("%s: format %q is not a tool's own format of diag's registry", d.Name, f)
			}
		}
	}
}
