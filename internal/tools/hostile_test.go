package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/sample"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// TestValidateKeepsOnlyItsPage: a paged call keeps the instances of its page and nothing
// else, however many stream by (the list was kept whole and cut at the end, 1 GB for a
// 48 MB NDJSON file with limit 1).
func TestValidateKeepsOnlyItsPage(t *testing.T) {
	p := NewProvider(testEnv(), All())
	tests := []struct {
		args string
		page *diag.Page
		n    int
	}{
		{`"limit": 3, "offset": 10`, &diag.Page{Offset: 10, Limit: 3, Total: 250, Omitted: 247}, 3},
		{`"limit": 1`, &diag.Page{Offset: 0, Limit: 1, Total: 250, Omitted: 249}, 1},
		{`"limit": 5, "offset": 248`, &diag.Page{Offset: 248, Limit: 5, Total: 250, Omitted: 248}, 2},
		{`"limit": 5, "offset": 400`, &diag.Page{Offset: 250, Limit: 5, Total: 250, Omitted: 250}, 0},
		{`"limit": 300`, nil, 250},
		{`"limit": 3, "invalidOnly": true`, nil, 0},
	}
	for _, tc := range tests {
		res := call(t, p, "validate", `{"schema": {"path": "schema.json"}, "instances": [{"path": "many.ndjson"}], `+tc.args+`}`)
		r := res.StructuredContent.(*validate.Result)
		if diff := cmp.Diff(tc.page, r.Page); diff != "" {
			t.Errorf("%s: page (-want +got):\n%s", tc.args, diff)
		}
		if len(r.Instances) != tc.n || cap(r.Instances) > 2*tc.n+8 || r.Summary.Total != 250 {
			t.Errorf("%s: %d instances kept in a slice of %d, summary %+v; want %d, the page alone", tc.args,
				len(r.Instances), cap(r.Instances), r.Summary, tc.n)
		}
	}
}

// TestRunsHaveBudgets: Env's time limit and pattern budget bound every run; a run they
// stop says so, as a result where the tool can give a partial one.
func TestRunsHaveBudgets(t *testing.T) {
	hostile := `{"type": "string", "minLength": 30, "allOf": [{"pattern": "^(\\w+\\s?)*$"}, {"pattern": "!$"}]}`
	lines := strings.Repeat(`"`+strings.Repeat("a", 40)+`!"`+"\n", 30)
	fsys := workspace.Memory(map[string]string{"h.json": hostile, "h.ndjson": lines})
	for _, env := range []*Env{
		{FS: fsys, RegexBudget: 300 * time.Millisecond},
		{FS: fsys, Timeout: 300 * time.Millisecond},
	} {
		p := NewProvider(env, All())
		res := call(t, p, "validate", `{"schema": {"path": "h.json"}, "instances": [{"path": "h.ndjson"}]}`)
		r, ok := res.StructuredContent.(*validate.Result)
		if res.IsError || !ok || !strings.HasPrefix(r.Stopped, "stopped after ") || !strings.Contains(res.Content[0].Text, r.Stopped) {
			t.Errorf("validate: %+v, want a result that says it stopped", res.Content)
		}
		res = call(t, p, "sample", `{"schema": {"path": "h.json"}, "count": 2}`)
		sr, ok := res.StructuredContent.(*sample.Result)
		if res.IsError || !ok || sr.Failure == nil || !sr.Failure.Stopped {
			t.Errorf("sample: %+v, want a result that says it stopped", res.Content)
		}
		res = call(t, p, "lint", `{"schemas": [{"value": {"pattern": "^(\\w+\\s?)*$", "examples": ["`+strings.Repeat("a", 40)+`!", "`+strings.Repeat("b", 40)+`!"]}}]}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, "stopped after ") {
			t.Errorf("lint: %+v, want an error that says it stopped", res.Content)
		}
	}
	// A negative budget means none: each match is bounded by its own limit only.
	d, _ := Lookup("validate")
	env := &Env{FS: fsys, RegexBudget: -1}
	in := &ValidateInput{Schema: PathDoc("h.json"), Instances: []Doc{{Value: []byte(`"abc"`)}}}
	if r, err := d.Run(context.Background(), env, in); err != nil || r.(*validate.Result).Stopped != "" {
		t.Errorf("no budget: %v, %v", r, err)
	}
}

// TestAuditRedaction: the audit log keeps a schema's properties (a property named
// "password" is not a secret) and loses what looks like a credential anywhere, and the
// secret-named members of instances.
func TestAuditRedaction(t *testing.T) {
	p := NewProvider(testEnv(), All())
	var args any
	raw := `{"schema": {"value": {"properties": {"password": {"type": "string", "minLength": 8}}, "default": {"password": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}},
		"instances": [{"value": {"user": "a", "password": "hunter2", "db": "postgres://admin:pw@db/x"}}], "limit": 3}`
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(`{"schema": {"value": {"properties": {"password": {"type": "string", "minLength": 8}}, "default": {"password": "[REDACTED]"}}},
		"instances": [{"value": {"user": "a", "password": "[REDACTED]", "db": "postgres://[REDACTED]@db/x"}}], "limit": 3}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, p.RedactArguments("validate", args)); diff != "" {
		t.Errorf("validate arguments (-want +got):\n%s", diff)
	}
	if got := p.RedactArguments("nope", map[string]any{"token": "x"}); !cmp.Equal(got, map[string]any{"token": "[REDACTED]"}) {
		t.Errorf("an unknown tool's arguments: %v", got)
	}
}

// TestIntegerArguments: an integer written as 1.0 or 1e1 is an integer (the input schema
// accepts it, so the call does); one too large is refused naming the argument, not with
// Go's decoder's words.
func TestIntegerArguments(t *testing.T) {
	p := NewProvider(testEnv(), All())
	base := `"schema": {"path": "schema.json"}, "instances": [{"path": "many.ndjson"}]`
	for _, limit := range []string{"1.0", "1e0", "10E-1"} {
		res := call(t, p, "validate", `{`+base+`, "limit": `+limit+`}`)
		if res.IsError {
			t.Fatalf("limit %s: %v", limit, res.Content)
		}
		if r := res.StructuredContent.(*validate.Result); len(r.Instances) != 1 || r.Page == nil || r.Page.Limit != 1 {
			t.Errorf("limit %s: %d instances, page %+v", limit, len(r.Instances), r.Page)
		}
	}
	for limit, want := range map[string]string{
		"1.5":  "argument limit: value must be integer",
		"1e30": "argument limit: 1e+30 is too large",
	} {
		res := call(t, p, "validate", `{`+base+`, "limit": `+limit+`}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, want) || strings.Contains(res.Content[0].Text, "unmarshal") {
			t.Errorf("limit %s: %v, want an error saying %q", limit, res.Content, want)
		}
	}
}

// TestNarrowHint: the note of a cut text names only arguments the tool has.
func TestNarrowHint(t *testing.T) {
	got := map[string]string{}
	for _, d := range All() {
		got[d.Name] = narrowHint(d)
	}
	paged := "narrow the call with limit and offset, or jstk %s on the command line gives all of it"
	want := map[string]string{
		"bundle": "jstk bundle on the command line gives all of it", "coverage": fmt.Sprintf(paged, "coverage"),
		"diff": fmt.Sprintf(paged, "diff"), "infer": "jstk infer on the command line gives all of it",
		"lint": fmt.Sprintf(paged, "lint"), "list_schemas": fmt.Sprintf(paged, "list_schemas"),
		"sample":         "narrow the call with count, or jstk sample on the command line gives all of it",
		"schema_context": "narrow the call with limit and maxText, or jstk schema_context on the command line gives all of it",
		"test":           fmt.Sprintf(paged, "test"), "validate": fmt.Sprintf(paged, "validate"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hints (-want +got):\n%s", diff)
	}
	long := strings.Repeat("x\n", MaxText)
	if b := BoundHint(long, MaxText, got["infer"]); !strings.Contains(b, "not shown; jstk infer on the command line gives all of it]") || len(b) > MaxText {
		t.Errorf("bounded: %d bytes, %q", len(b), b[len(b)-100:])
	}
}

// TestAuditRedactionOfTexts: a document given as text is logged as what it parses to,
// redacted as a value is (an instance's secret-named members, by name; a schema's, by
// shape); a text that does not parse is not logged at all, only its size and hash.
func TestAuditRedactionOfTexts(t *testing.T) {
	p := NewProvider(testEnv(), All())
	args := map[string]any{
		"schema": map[string]any{"text": "properties:\n  password: {type: string, default: hunter2Default}\n"},
		"instances": []any{
			map[string]any{"text": "user: a\npassword: hunter2Plain\nnote: 'Authorization: Bearer abc.def here'\n"},
			map[string]any{"text": "{\"token\": \"hunter2Json\", \"n\": 1}"},
			map[string]any{"text": "password = \"hunter2Toml\"\n"},
			map[string]any{"text": "{password: hunter2Broken: ["},
		},
	}
	got, err := json.Marshal(p.RedactArguments("validate", args))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2Plain", "hunter2Json", "hunter2Toml", "hunter2Broken", "abc.def"} {
		if strings.Contains(string(got), secret) {
			t.Errorf("%s is in the log: %s", secret, got)
		}
	}
	var back struct {
		Schema struct {
			Text struct {
				Parsed any `json:"parsed"`
			} `json:"text"`
		} `json:"schema"`
		Instances []struct {
			Text struct {
				Bytes  int    `json:"bytes"`
				SHA256 string `json:"sha256"`
				Parsed any    `json:"parsed"`
				Note   string `json:"note"`
			} `json:"text"`
		} `json:"instances"`
	}
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	// A schema's property named password is kept (its default is not secret by shape).
	if !strings.Contains(string(got), `"hunter2Default"`) || back.Schema.Text.Parsed == nil {
		t.Errorf("the schema text is not logged as parsed: %s", got)
	}
	if len(back.Instances) != 4 {
		t.Fatalf("instances: %s", got)
	}
	for i, in := range back.Instances[:3] {
		if in.Text.Parsed == nil || in.Text.Bytes == 0 || len(in.Text.SHA256) != 64 {
			t.Errorf("instance %d: %+v", i, in.Text)
		}
	}
	if b := back.Instances[3].Text; b.Parsed != nil || b.Note == "" || b.Bytes != len("{password: hunter2Broken: [") {
		t.Errorf("the unparsable text: %+v", b)
	}
	if !strings.Contains(string(got), `"user":"a"`) || !strings.Contains(string(got), `"n":1`) {
		t.Errorf("the members that are not secret are lost: %s", got)
	}
}
