package validate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// sample is a result with every kind of instance.
func sample() *Result {
	return &Result{
		Instances: []Instance{
			{File: "ok.json", Valid: true, Errors: []Error{}},
			{File: "order.json", Errors: []Error{
				{InstanceLocation: "/items/0/qty", KeywordLocation: "/properties/items/items/properties/qty/minimum",
					AbsoluteKeywordLocation: "file:///ws/s.json#/properties/items/items/properties/qty/minimum",
					Keyword:                 "minimum", Message: "0 is less than the minimum 1", Line: 4, Column: 12,
					Schema: &SchemaLocation{File: "s.json", Line: 20, Column: 9}},
				{InstanceLocation: "", KeywordLocation: "/required", Keyword: "required",
					Message: `missing required property "id"`, Line: 1, Column: 1},
				{InstanceLocation: "/kind", KeywordLocation: "/properties/kind/anyOf", Keyword: "anyOf",
					Message: "value does not match any alternative", Line: 2, Column: 11,
					Schema: &SchemaLocation{Line: 7, Column: 5},
					Causes: []Error{
						{InstanceLocation: "/kind", Keyword: "type", Message: "value must be string", Line: 2, Column: 11},
						{InstanceLocation: "/kind/x", Keyword: "const", Message: "value must be 1", Line: 3, Column: 2,
							Causes: []Error{{InstanceLocation: "/kind/x", Keyword: "", Message: "deeper", Line: 3, Column: 2}}},
					}},
				{InstanceLocation: "/never", KeywordLocation: "/properties/never", Keyword: "",
					Message: "no value is allowed here", Line: 9, Column: 3},
			}},
			{File: "lines.ndjson", Line: 7, Errors: []Error{
				{InstanceLocation: "/id", Keyword: "type", Message: "value must be integer", Line: 7, Column: 8}}},
			{File: "lines.ndjson", Line: 9, Errors: []Error{}, Problem: "lines.ndjson:9:3: unexpected character"},
			{File: "gone.json", Errors: []Error{}, Problem: "gone.json: no such file or directory"},
			{File: "no-position.json", Errors: []Error{{InstanceLocation: "/a", Keyword: "type", Message: "m"}}},
		},
		Summary: Summary{Total: 6, Valid: 1, Invalid: 3, Unreadable: 2},
	}
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := sample().WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `order.json:4:12: /items/0/qty: 0 is less than the minimum 1 [minimum]
order.json:1:1: (root): missing required property "id" [required]
order.json:2:11: /kind: value does not match any alternative [anyOf]
    order.json:2:11: /kind: value must be string [type]
    order.json:3:2: /kind/x: value must be 1 [const]
        order.json:3:2: /kind/x: deeper [false]
order.json:9:3: /never: no value is allowed here [false]
lines.ndjson:7:8: /id: value must be integer [type]
lines.ndjson:9:3: unexpected character
gone.json: no such file or directory
no-position.json: /a: m [type]
6 instances: 1 valid, 3 invalid, 2 unreadable
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSummaryText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sum   Summary
		page  *diag.Page
		shown int
		want  string
	}{
		{Summary{}, nil, 0, "0 instances: 0 valid\n"},
		{Summary{Total: 1, Valid: 1}, nil, 0, "1 instance: 1 valid\n"},
		{Summary{Total: 1, Invalid: 1}, nil, 0, "1 instance: 0 valid, 1 invalid\n"},
		{Summary{Total: 1, Unreadable: 1}, nil, 0, "1 instance: 0 valid, 1 unreadable\n"},
		{Summary{Total: 12, Valid: 10, Invalid: 1, Unreadable: 1}, nil, 0, "12 instances: 10 valid, 1 invalid, 1 unreadable\n"},
		{Summary{Total: 12, Valid: 12}, &diag.Page{Offset: 4, Limit: 3, Total: 12, Omitted: 9}, 3,
			"(3 of 12 listed instances shown, from offset 4; ask for more with offset and limit)\n12 instances: 12 valid\n"},
		{Summary{Total: 12, Valid: 11, Invalid: 1}, &diag.Page{Offset: 5, Limit: 3, Total: 1, Omitted: 1}, 0,
			"(0 of 1 listed instances shown, from offset 5; ask for more with offset and limit)\n12 instances: 11 valid, 1 invalid\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		tw := &TextWriter{W: &buf}
		tw.Summary(tt.sum, tt.page, tt.shown, nil)
		if tw.Err != nil {
			t.Fatal(tw.Err)
		}
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("Summary(%+v, %v, %d) (-want +got):\n%s", tt.sum, tt.page, tt.shown, diff)
		}
	}
}

// The streaming printer writes, one instance at a time, exactly what WriteText writes.
func TestTextWriterStreams(t *testing.T) {
	t.Parallel()
	r := sample()
	var whole, streamed bytes.Buffer
	if err := r.WriteText(&whole); err != nil {
		t.Fatal(err)
	}
	tw := &TextWriter{W: &streamed}
	for i := range r.Instances {
		tw.Instance(&r.Instances[i])
	}
	tw.Summary(r.Summary, r.Page, len(r.Instances), r.Groups)
	if diff := cmp.Diff(whole.String(), streamed.String()); diff != "" {
		t.Errorf("(-whole +streamed):\n%s", diff)
	}
}

var errDiskFull = errors.New("disk full")

// failAfter accepts n writes, then fails.
type failAfter struct {
	n     int
	calls int
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls > f.n {
		return 0, errDiskFull
	}
	return len(p), nil
}

// The first write error is kept and returned, and nothing more is written after it.
func TestWriteTextError(t *testing.T) {
	t.Parallel()
	w := &failAfter{n: 2}
	err := sample().WriteText(w)
	if !errors.Is(err, errDiskFull) {
		t.Errorf("WriteText = %v, want %v", err, errDiskFull)
	}
	if w.calls != 3 {
		t.Errorf("%d writes, want 3 (two that worked, one that failed, then none)", w.calls)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	got := sample().Diagnostics()
	want := []diag.Diagnostic{
		{Code: "validate/minimum", Severity: diag.Error, Message: "0 is less than the minimum 1", File: "order.json",
			Line: 4, Column: 12, Pointer: "/items/0/qty", Keyword: "minimum", Related: []diag.Related{
				{Message: "schema keyword /properties/items/items/properties/qty/minimum", File: "s.json", Line: 20, Column: 9}}},
		{Code: "validate/required", Severity: diag.Error, Message: `missing required property "id"`, File: "order.json",
			Line: 1, Column: 1, Pointer: "", Keyword: "required"},
		{Code: "validate/anyOf", Severity: diag.Error, Message: "value does not match any alternative", File: "order.json",
			Line: 2, Column: 11, Pointer: "/kind", Keyword: "anyOf", Related: []diag.Related{
				{Message: "schema keyword /properties/kind/anyOf", Line: 7, Column: 5},
				{Message: "/kind: value must be string", File: "order.json", Line: 2, Column: 11, Pointer: "/kind"},
				{Message: "/kind/x: value must be 1", File: "order.json", Line: 3, Column: 2, Pointer: "/kind/x"},
			}},
		{Code: "validate/false-schema", Severity: diag.Error, Message: "no value is allowed here", File: "order.json",
			Line: 9, Column: 3, Pointer: "/never"},
		{Code: "validate/type", Severity: diag.Error, Message: "value must be integer", File: "lines.ndjson",
			Line: 7, Column: 8, Pointer: "/id", Keyword: "type"},
		{Code: "validate/unreadable", Severity: diag.Error, Message: "lines.ndjson:9:3: unexpected character",
			File: "lines.ndjson", Line: 9},
		{Code: "validate/unreadable", Severity: diag.Error, Message: "gone.json: no such file or directory", File: "gone.json"},
		{Code: "validate/type", Severity: diag.Error, Message: "m", File: "no-position.json", Pointer: "/a", Keyword: "type"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := InstanceDiagnostics(&Instance{File: "v.json", Valid: true, Errors: []Error{}}); len(d) != 0 {
		t.Errorf("a valid instance has diagnostics: %+v", d)
	}
	if d := (&Result{}).Diagnostics(); len(d) != 0 {
		t.Errorf("an empty result has diagnostics: %+v", d)
	}
	// Every code is in the rule table, literally or as validate/<keyword>.
	codes := map[string]bool{}
	for _, r := range Rules() {
		codes[r.Code] = true
	}
	for _, d := range got {
		if !codes[d.Code] && !(codes["validate/<keyword>"] && d.Keyword != "" && d.Code == "validate/"+d.Keyword) {
			t.Errorf("code %s is not in Rules", d.Code)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	names := func(ins []Instance) []string {
		out := []string{}
		for _, in := range ins {
			out = append(out, in.File)
		}
		return out
	}
	tests := []struct {
		offset, limit int
		want          []string
		page          *diag.Page
	}{
		{0, 0, []string{"0", "1", "2", "3", "4"}, nil},
		{0, 5, []string{"0", "1", "2", "3", "4"}, nil},
		{0, 10, []string{"0", "1", "2", "3", "4"}, nil},
		{0, 2, []string{"0", "1"}, &diag.Page{Offset: 0, Limit: 2, Total: 5, Omitted: 3}},
		{2, 2, []string{"2", "3"}, &diag.Page{Offset: 2, Limit: 2, Total: 5, Omitted: 3}},
		{3, 2, []string{"3", "4"}, &diag.Page{Offset: 3, Limit: 2, Total: 5, Omitted: 3}},
		{4, 2, []string{"4"}, &diag.Page{Offset: 4, Limit: 2, Total: 5, Omitted: 4}},
		{2, 0, []string{"2", "3", "4"}, &diag.Page{Offset: 2, Limit: 0, Total: 5, Omitted: 2}},
		{5, 0, []string{}, &diag.Page{Offset: 5, Limit: 0, Total: 5, Omitted: 5}},
		{9, 3, []string{}, &diag.Page{Offset: 5, Limit: 3, Total: 5, Omitted: 5}},
	}
	for _, tt := range tests {
		r := &Result{Summary: Summary{Total: 5, Valid: 5}}
		for _, n := range []string{"0", "1", "2", "3", "4"} {
			r.Instances = append(r.Instances, Instance{File: n, Valid: true, Errors: []Error{}})
		}
		r.Cut(tt.offset, tt.limit)
		if diff := cmp.Diff(tt.want, names(r.Instances)); diff != "" {
			t.Errorf("Cut(%d, %d) instances (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
		if diff := cmp.Diff(tt.page, r.Page); diff != "" {
			t.Errorf("Cut(%d, %d) page (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
		var buf bytes.Buffer
		if err := r.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		want := "5 instances: 5 valid\n"
		if tt.page != nil {
			want = fmt.Sprintf("(%d of 5 listed instances shown, from offset %d; ask for more with offset and limit)\n", len(tt.want), tt.page.Offset) + want
		}
		if buf.String() != want {
			t.Errorf("Cut(%d, %d): text %q, want %q", tt.offset, tt.limit, buf.String(), want)
		}
	}
}

// The text report and the JSON result of a real run, checked against golden files
// (JSTK_UPDATE=1 go test ./internal/validate rewrites them).
func TestReportGolden(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{
  "type": "object",
  "required": ["id", "items"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": "integer", "minimum": 1},
    "items": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "required": ["sku"],
      "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}, "qty": {"type": "integer"}}
    }},
    "ship": {"oneOf": [{"const": "standard"}, {"type": "object", "required": ["carrier"]}]}
  }
}`)
	fsys := workspace.Memory(map[string]string{
		"good.json": `{"id": 1, "items": [{"sku": "ABC-1", "qty": 2}]}`,
		"bad.yaml":  "id: 0\nitems:\n  - sku: abc\n    qty: 1.5\n  - qty: 1\nship: express\nnote: extra\n",
		"orders.ndjson": "{\"id\": 2, \"items\": [{\"sku\": \"XYZ-9\"}]}\n" +
			"{\"id\": 3, \"items\": []}\n" +
			"{\"id\": 4, \"items\": [{\"sku\": \"XYZ-9\"}], \"ship\": {\"by\": \"air\"}}\n" +
			"{\"id\": 5,\n",
	})
	res := run(t, s, files("good.json", "bad.yaml", "orders.ndjson", "missing.json"), fsys, nil)
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "testdata/report.txt", text.Bytes())
	var js bytes.Buffer
	if err := diag.WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "testdata/report.json", js.Bytes())
	var sarif bytes.Buffer
	if err := diag.Write(&sarif, diag.SARIF, res, diag.Tool{Name: "jstk", Rules: Rules()}); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "testdata/report.sarif", sarif.Bytes())
	if res.ExitCode() != 2 {
		t.Errorf("ExitCode = %d, want 2", res.ExitCode())
	}
}

func compareGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	if os.Getenv("JSTK_UPDATE") != "" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with JSTK_UPDATE=1 to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is not what the run gives (-want +got; JSTK_UPDATE=1 rewrites it):\n%s", file,
			strings.TrimSpace(diff))
	}
}

// WriteErrors locates each error in its own file when it has one, else in the file given.
func TestWriteErrors(t *testing.T) {
	t.Parallel()
	errs := []Error{{InstanceLocation: "/a", Keyword: "type", Message: "m", Line: 2, Column: 3,
		Causes: []Error{{File: "data.json", Message: "c", Line: 1, Column: 1}}}}
	var buf bytes.Buffer
	if err := WriteErrors(&buf, "tests.json", errs, "  "); err != nil {
		t.Fatal(err)
	}
	want := "  tests.json:2:3: /a: m [type]\n      data.json:1:1: (root): c [false]\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
