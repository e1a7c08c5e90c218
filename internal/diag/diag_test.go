package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSeverity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Severity
		ok   bool
		rank int
	}{
		{"error", Error, true, 3},
		{"ERROR", Error, true, 3},
		{"Warning", Warning, true, 2},
		{"info", Info, true, 1},
		{"notice", "", false, 0},
		{"", "", false, 0},
		{"errors", "", false, 0},
	}
	for _, tt := range tests {
		got, ok := ParseSeverity(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseSeverity(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if r := got.Rank(); r != tt.rank {
			t.Errorf("%q.Rank() = %d, want %d", got, r, tt.rank)
		}
	}
	if Severity("fatal").Rank() != 0 {
		t.Errorf("an unknown severity ranks above 0")
	}
	if !(Error.Rank() > Warning.Rank() && Warning.Rank() > Info.Rank() && Info.Rank() > Severity("").Rank()) {
		t.Errorf("ranks are not ordered error > warning > info > unknown")
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.json", Line: 3, Column: 7}, "a.json:3:7"},
		{Diagnostic{File: "a.json", Line: 3}, "a.json:3"},
		{Diagnostic{File: "a.json", Column: 7}, "a.json"},
		{Diagnostic{File: "a.json"}, "a.json"},
		{Diagnostic{Line: 2, Column: 1}, "<input>:2:1"},
		{Diagnostic{}, "<input>"},
		{Diagnostic{File: "dir/with space.yaml", Line: 10, Column: 12}, "dir/with space.yaml:10:12"},
	}
	for _, tt := range tests {
		if got := tt.d.Location(); got != tt.want {
			t.Errorf("Location(%+v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSort(t *testing.T) {
	t.Parallel()
	ds := []Diagnostic{
		{Code: "c", File: "b.json", Line: 1, Column: 1, Message: "1"},
		{Code: "b", File: "a.json", Line: 2, Column: 1, Message: "2"},
		{Code: "a", File: "a.json", Line: 2, Column: 1, Message: "3"},
		{Code: "a", File: "a.json", Line: 1, Column: 9, Message: "4"},
		{Code: "a", File: "a.json", Line: 1, Column: 2, Message: "5"},
		{Code: "a", File: "a.json", Line: 2, Column: 1, Message: "6"}, // equal to "3": stays after it
		{Code: "z", File: "", Line: 5, Column: 5, Message: "7"},
		{Code: "a", File: "a.json", Line: 10, Column: 1, Message: "8"},
	}
	Sort(ds)
	var got []string
	for _, d := range ds {
		got = append(got, d.Message)
	}
	if diff := cmp.Diff([]string{"7", "5", "4", "3", "6", "2", "8", "1"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	Sort(nil) // must not panic
}

func TestWriteGitHub(t *testing.T) {
	t.Parallel()
	ds := []Diagnostic{
		{Code: "validate/type", Severity: Error, Message: "expected string, got number", File: "orders.ndjson",
			Line: 12, Column: 8, Pointer: "/items/0/sku"},
		{Code: "lint/style", Severity: Warning, Message: "50% done\r\nsecond line", File: "dir,a:b%c.json", Line: 1},
		{Code: "x:y,z", Severity: Info, Message: "at the root", Pointer: ""},
		{Severity: Severity("other"), Message: "no code, no file"},
		{Code: "validate/required", Severity: Error, Message: "missing a", File: "a.json", Column: 4},
	}
	var buf bytes.Buffer
	if err := WriteGitHub(&buf, ds); err != nil {
		t.Fatal(err)
	}
	want := "::error file=orders.ndjson,line=12,col=8,title=validate/type::/items/0/sku: expected string, got number\n" +
		"::warning file=dir%2Ca%3Ab%25c.json,line=1,title=lint/style::50%25 done%0D%0Asecond line\n" +
		"::notice title=x%3Ay%2Cz::at the root\n" +
		"::error::no code, no file\n" +
		"::error file=a.json,col=4,title=validate/required::missing a\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteGitHub (-want +got):\n%s", diff)
	}
	// Every annotation is exactly one line, whatever the message holds.
	if n := strings.Count(buf.String(), "\n"); n != len(ds) {
		t.Errorf("%d lines for %d diagnostics", n, len(ds))
	}
}

func TestWriteGitHubWriteError(t *testing.T) {
	t.Parallel()
	err := WriteGitHub(failWriter{}, []Diagnostic{{Message: "m"}})
	if !errors.Is(err, errWrite) {
		t.Errorf("WriteGitHub on a failing writer = %v, want %v", err, errWrite)
	}
	if err := WriteGitHub(failWriter{}, nil); err != nil {
		t.Errorf("WriteGitHub(nil) wrote: %v", err)
	}
}

var errWrite = errors.New("write failed")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteSARIF(t *testing.T) {
	t.Parallel()
	tool := Tool{Name: "jstk", Version: "1.2.3", URI: "https://example.com/jstk", Rules: []Rule{
		{Code: "validate/type", Description: "An instance has the wrong type.", Severity: Error},
		{Code: "lint/naming", Description: "A name breaks the convention.", Severity: Warning},
		{Code: "lint/hint", Description: "Consider <this> & that.", Severity: Info},
	}}
	ds := []Diagnostic{
		{Code: "validate/type", Severity: Error, Message: "expected string", File: "data/a b.json", Line: 3, Column: 9,
			Pointer: "/name", Related: []Related{
				{Message: "schema keyword /properties/name/type", File: "schema.json", Line: 5, Column: 17},
				{Message: "/name/0: cause", Pointer: "/name/0"},
			}},
		{Code: "lint/naming", Severity: Warning, Message: "use camelCase", File: "s.yaml"},
		{Code: "lint/hint", Severity: Info, Message: "at the root only", Pointer: "/"},
		{Code: "other", Severity: "", Message: "no location"},
	}
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, tool, ds); err != nil {
		t.Fatal(err)
	}
	const want = `{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [{
    "tool": {"driver": {
      "name": "jstk", "version": "1.2.3", "informationUri": "https://example.com/jstk",
      "rules": [
        {"id": "validate/type", "shortDescription": {"text": "An instance has the wrong type."}, "defaultConfiguration": {"level": "error"}},
        {"id": "lint/naming", "shortDescription": {"text": "A name breaks the convention."}, "defaultConfiguration": {"level": "warning"}},
        {"id": "lint/hint", "shortDescription": {"text": "Consider <this> & that."}, "defaultConfiguration": {"level": "note"}}
      ]
    }},
    "results": [
      {"ruleId": "validate/type", "level": "error", "message": {"text": "expected string"},
       "locations": [{
         "physicalLocation": {"artifactLocation": {"uri": "data/a%20b.json"}, "region": {"startLine": 3, "startColumn": 9}},
         "logicalLocations": [{"fullyQualifiedName": "/name"}]
       }],
       "relatedLocations": [
         {"id": 1, "physicalLocation": {"artifactLocation": {"uri": "schema.json"}, "region": {"startLine": 5, "startColumn": 17}},
          "message": {"text": "schema keyword /properties/name/type"}},
         {"id": 2, "logicalLocations": [{"fullyQualifiedName": "/name/0"}], "message": {"text": "/name/0: cause"}}
       ]},
      {"ruleId": "lint/naming", "level": "warning", "message": {"text": "use camelCase"},
       "locations": [{"physicalLocation": {"artifactLocation": {"uri": "s.yaml"}}}]},
      {"ruleId": "lint/hint", "level": "note", "message": {"text": "at the root only"},
       "locations": [{"logicalLocations": [{"fullyQualifiedName": "/"}]}]},
      {"ruleId": "other", "level": "error", "message": {"text": "no location"}}
    ]
  }]
}`
	if diff := cmp.Diff(decode(t, []byte(want)), decode(t, buf.Bytes())); diff != "" {
		t.Errorf("SARIF (-want +got):\n%s", diff)
	}
	if bytes.Contains(buf.Bytes(), []byte(`\u003c`)) {
		t.Errorf("SARIF escapes HTML characters:\n%s", buf.String())
	}
}

// An empty run still has a results array, as SARIF requires.
func TestWriteSARIFEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, Tool{Name: "jstk"}, nil); err != nil {
		t.Fatal(err)
	}
	want := `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
		"runs": [{"tool": {"driver": {"name": "jstk"}}, "results": []}]}`
	if diff := cmp.Diff(decode(t, []byte(want)), decode(t, buf.Bytes())); diff != "" {
		t.Errorf("SARIF (-want +got):\n%s", diff)
	}
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	return v
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	v := map[string]any{"msg": "<a href=\"x\">&</a>", "n": []int{1, 2}}
	if err := WriteJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"msg\": \"<a href=\\\"x\\\">&</a>\",\n  \"n\": [\n    1,\n    2\n  ]\n}\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteJSON (-want +got):\n%s", diff)
	}
	if err := WriteJSON(&buf, func() {}); err == nil {
		t.Errorf("WriteJSON of a func succeeded")
	}
}

// report is a Report with a fixed text and diagnostics.
type report struct {
	Name  string       `json:"name"`
	Diags []Diagnostic `json:"diagnostics"`
}

func (r *report) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, "text report of "+r.Name+"\n")
	return err
}

func (r *report) Diagnostics() []Diagnostic { return r.Diags }

func TestWrite(t *testing.T) {
	t.Parallel()
	r := &report{Name: "r<1>", Diags: []Diagnostic{{Code: "c/x", Severity: Warning, Message: "m", File: "f.json", Line: 2,
		Column: 3, Pointer: "/p"}}}
	tool := Tool{Name: "jstk", Rules: []Rule{{Code: "c/x", Description: "d", Severity: Warning}}}
	sarif := func() string {
		var b bytes.Buffer
		if err := WriteSARIF(&b, tool, r.Diags); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}()
	tests := []struct {
		format Format
		want   string
		err    string
	}{
		{format: Text, want: "text report of r<1>\n"},
		{format: "", want: "text report of r<1>\n"},
		{format: JSON, want: `{
  "name": "r<1>",
  "diagnostics": [
    {
      "code": "c/x",
      "severity": "warning",
      "message": "m",
      "file": "f.json",
      "line": 2,
      "column": 3,
      "pointer": "/p"
    }
  ]
}
`},
		{format: SARIF, want: sarif},
		{format: GitHub, want: "::warning file=f.json,line=2,col=3,title=c/x::/p: m\n"},
		{format: "junit", err: `unknown output format "junit" (text, json, sarif, github)`},
		{format: "TEXT", err: `unknown output format "TEXT" (text, json, sarif, github)`},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		err := Write(&buf, tt.format, r, tool)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.err {
			t.Errorf("Write(%q) error = %q, want %q", tt.format, gotErr, tt.err)
		}
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("Write(%q) (-want +got):\n%s", tt.format, diff)
		}
	}
}

// A diagnostic's JSON leaves out what is unknown but always has code, severity, message
// and pointer.
func TestDiagnosticJSON(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(Diagnostic{Code: "a/b", Severity: Error, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"code":"a/b","severity":"error","message":"m","pointer":""}`, string(data)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	data, err = json.Marshal(Related{Message: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"message":"r"}`, string(data)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWriteJSONIndent checks that WriteJSON writes what json.Encoder writes with an indent,
// down to MaxIndentDepth levels, and below them the compact text, so that a deep result
// takes space linear in its depth.
func TestWriteJSONIndent(t *testing.T) {
	t.Parallel()
	deep := func(n int) any {
		var v any = map[string]any{}
		for range n {
			v = map[string]any{"a": []any{v, "x,y:{[\"\\"}}
		}
		return v
	}
	for _, v := range []any{
		nil, 1, "a\u2028<b>", []any{}, map[string]any{}, map[string]any{"a": []any{}, "b": map[string]any{}},
		map[string]any{"s": "{[,:]}\"\\", "n": []any{1, 2.5, true, nil, []any{[]any{}}}},
		deep(MaxIndentDepth / 2),
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("WriteJSON(%.60v) differs from json.Encoder (-want +got):\n%s", v, diff)
		}
	}
	// Deeper than MaxIndentDepth: the same value, in size linear in the depth.
	const n = 5000
	var got bytes.Buffer
	if err := WriteJSON(&got, deep(n)); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(deep(n))
	if max := len(compact) + (2*MaxIndentDepth+2)*(MaxIndentDepth*2+8); got.Len() > max {
		t.Errorf("WriteJSON of a value nested %d levels wrote %d bytes, want at most %d", 2*n, got.Len(), max)
	}
	if !bytes.Contains(got.Bytes(), compact[len(compact)-200:]) {
		t.Errorf("the deep part is not written compact")
	}
}

// Every format of the registry that is not a tool's own is printed by Write, and the
// others are not; a document has no findings to print.
func TestFormatRegistry(t *testing.T) {
	r := &report{Name: "r"}
	for _, fi := range Formats() {
		err := Write(io.Discard, fi.Format, r, Tool{})
		if (err == nil) == fi.Own {
			t.Errorf("%s: Write returned %v, own format %v", fi.Format, err, fi.Own)
		}
		if got, ok := LookupFormat(fi.Format); !ok || got != fi {
			t.Errorf("LookupFormat(%s) = %v, %v", fi.Format, got, ok)
		}
	}
	if _, ok := LookupFormat("nope"); ok {
		t.Error("an unknown format was found")
	}
	if diff := cmp.Diff("text, json, sarif, github", Join(Common(false), ", ")); diff != "" {
		t.Errorf("common formats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("text|json", Join(Common(true), "|")); diff != "" {
		t.Errorf("formats of a document (-want +got):\n%s", diff)
	}
}

func TestCut(t *testing.T) {
	list := []int{0, 1, 2, 3, 4}
	for _, tt := range []struct {
		offset, limit int
		want          []int
		page          *Page
	}{
		{0, 0, list, nil},
		{0, 5, list, nil},
		{0, 2, []int{0, 1}, &Page{Limit: 2, Total: 5, Omitted: 3}},
		{3, 0, []int{3, 4}, &Page{Offset: 3, Total: 5, Omitted: 3}},
		{4, 3, []int{4}, &Page{Offset: 4, Limit: 3, Total: 5, Omitted: 4}},
		{9, 1, []int{}, &Page{Offset: 5, Limit: 1, Total: 5, Omitted: 5}},
		{-1, 0, list, nil},
	} {
		got, page := Cut(list, tt.offset, tt.limit)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Cut(%d, %d) (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
		if diff := cmp.Diff(tt.page, page); diff != "" {
			t.Errorf("Cut(%d, %d) page (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
	}
}

func TestPrinter(t *testing.T) {
	if got := Plural(1, "test", "tests") + ", " + Plural(0, "test", "tests"); got != "1 test, 0 tests" {
		t.Errorf("Plural: %q", got)
	}
	if got := PluralWord(1, "is", "are") + " " + PluralWord(2, "is", "are") + " " + PluralWord(0, "is", "are"); got != "is are are" {
		t.Errorf("PluralWord: %q", got)
	}
	var b strings.Builder
	p := &Printer{W: &b}
	p.Printf("%d", 1)
	if b.String() != "1" || p.Err != nil {
		t.Errorf("Printf wrote %q, %v", b.String(), p.Err)
	}
	p = &Printer{W: failing{}}
	p.Printf("a")
	p.Printf("b")
	if p.Err == nil {
		t.Error("the write error was lost")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestMiddle(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnop", 9, "abc...nop"},
		{"abcdefghijklmnop", 10, "abc...mnop"},
		{"ééééééééé", 9, "é...é"}, // 18 bytes: cut at rune boundaries, within 9 bytes
	} {
		got := Middle(tc.s, tc.n)
		if got != tc.want || len(got) > tc.n && len(tc.s) > tc.n {
			t.Errorf("Middle(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestSortBy(t *testing.T) {
	type finding struct{ file, ptr, rule string }
	fs := []finding{{"b", "/a", "x"}, {"a", "/b", "x"}, {"a", "/a", "y"}, {"a", "/a", "x"}}
	SortBy(fs, func(f *finding) Place { return Place{File: f.file, Pointer: f.ptr, Code: f.rule} })
	want := []finding{{"a", "/a", "x"}, {"a", "/a", "y"}, {"a", "/b", "x"}, {"b", "/a", "x"}}
	if !slices.Equal(fs, want) {
		t.Errorf("%v, want %v", fs, want)
	}
}
