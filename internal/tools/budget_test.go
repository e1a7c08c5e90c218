package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/coverage"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// budgetFiles is a workspace where every tool has about 10,000 findings to report: lines
// that fail the same pattern, properties with an unknown format, changed types, failing
// tests, enum values never seen, schemas with problems.
func budgetFiles() map[string]string {
	const n = 10000
	var lines, props, oldProps, newProps, enum, tests, defs, mixed strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "{\"id\": \"x-%d\"}\n", i)
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&props, "\"p%d\": {\"type\": \"string\", \"format\": \"no-such-format-%d\"}%s", i, i, sep)
		fmt.Fprintf(&oldProps, "\"p%d\": {\"type\": \"string\"}%s", i, sep)
		fmt.Fprintf(&newProps, "\"p%d\": {\"type\": \"integer\"}%s", i, sep)
		fmt.Fprintf(&enum, "\"value-%d\"%s", i, sep)
		fmt.Fprintf(&tests, "{\"description\": \"test %d\", \"valid\": true, \"data\": {\"id\": \"x-%d\"}}%s", i, i, sep)
		fmt.Fprintf(&defs, "\"d%d\": {\"description\": \"%s\", \"type\": \"string\"}%s", i, strings.Repeat("d", 50), sep)
		fmt.Fprintf(&mixed, "\"k%d\": %s%s", i, []string{"1", `"s"`, "true", "[1]", `{"a": 1}`}[i%5], sep)
	}
	files := map[string]string{
		"id.schema.json":      `{"type": "object", "properties": {"id": {"type": "string", "pattern": "^O-[0-9]{3}$"}}}`,
		"big.ndjson":          lines.String(),
		"formats.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {` + props.String() + `}}`,
		"old.schema.json":     `{"type": "object", "properties": {` + oldProps.String() + `}}`,
		"new.schema.json":     `{"type": "object", "properties": {` + newProps.String() + `}}`,
		"enum.schema.json":    `{"type": "object", "properties": {"id": {"enum": [` + enum.String() + `]}}}`,
		"big.tests.json":      `{"target": "id.schema.json", "tests": [` + tests.String() + `]}`,
		"defs.json":           `{"$defs": {` + defs.String() + `}}`,
		"uses-defs.json":      `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "defs.json#/$defs/d1", "properties": {"a": {"$ref": "defs.json"}}}`,
		"mixed.json":          "{" + mixed.String() + "}",
		"arr.json":            `{"a": [` + strings.TrimSuffix(strings.Repeat(`"x",`, n), ",") + `]}`,
		"ints.schema.json":    `{"properties": {"a": {"items": {"type": "integer"}}}}`,
		"long.schema.json":    `{"type": "string", "minLength": 100000}`,
		"wide.schema.json":    `{"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 20}}}}`,
	}
	for i := range 300 {
		files[fmt.Sprintf("many/s%03d.schema.json", i)] = fmt.Sprintf(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/%d", "title": "%s", "type": "nope"}`, i, strings.Repeat("t", 200))
	}
	return files
}

// callResult runs one call through an MCP server of p, and returns the "result" member of
// its answer as sent.
func callResult(t *testing.T, p *Provider, tool, args string) json.RawMessage {
	t.Helper()
	srv := mcp.NewServer(p, nil)
	ctx := context.Background()
	answers := make(chan []byte, 4)
	send := func(b []byte) { answers <- append([]byte(nil), b...) }
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"budget-test","version":"1"}}`
	srv.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"a-long-request-id-0123456789abcdef","method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`,`+meta+`}}`), send)
	var answer struct {
		Result json.RawMessage
		Error  any
	}
	if err := json.Unmarshal(<-answers, &answer); err != nil || answer.Result == nil {
		t.Fatalf("%s: no result (%v): %v", tool, err, answer.Error)
	}
	return answer.Result
}

type budgetResult struct {
	Content []struct{ Text string }
	Struct  json.RawMessage `json:"structuredContent"`
	IsError bool
	Meta    map[string]json.RawMessage `json:"_meta"`
}

// TestEveryResultFitsTheBudget: on inputs with about 10,000 findings, every tool's result as
// sent (text, structured content and _meta) stays under the budget, says what it left out,
// and its structured content still conforms to the output schema.
func TestEveryResultFitsTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds inputs of 10,000 findings")
	}
	env := &Env{FS: workspace.Memory(budgetFiles())}
	p := NewProvider(env, All())
	calls := []struct{ tool, args, cut string }{
		{"validate", `{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}]}`, "continue with offset"},
		{"validate", `{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}], "limit": 10000}`, "continue with offset"},
		{"validate", `{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}], "offset": 9990, "limit": 10000}`, ""},
		{"validate", `{"schema": {"path": "ints.schema.json"}, "instances": [{"path": "arr.json"}], "maxErrors": 10000}`, "/instances/0/errors holds"},
		{"lint", `{"schemas": [{"path": "formats.schema.json"}], "limit": 10000}`, "continue with offset"},
		{"diff", `{"old": {"path": "old.schema.json"}, "new": {"path": "new.schema.json"}, "limit": 10000, "searchBudget": 50}`, "continue with offset"},
		{"bundle", `{"schema": {"path": "uses-defs.json"}}`, "/schema (a document of"},
		{"infer", `{"instances": [{"path": "mixed.json"}], "bounds": true, "mapMinKeys": 1000000}`, "/schema (a document of"},
		{"sample", `{"schema": {"path": "long.schema.json"}, "count": 10000}`, "0 of 10000 instances given"},
		{"sample", `{"schema": {"path": "wide.schema.json"}, "count": 3}`, "0 of 3 instances given"},
		{"test", `{"tests": [{"path": "big.tests.json"}], "limit": 10000}`, "continue with offset"},
		{"coverage", `{"schema": {"path": "enum.schema.json"}, "tests": [{"path": "big.ndjson"}], "all": true, "limit": 10000}`, "continue with offset 4"},
		{"coverage", `{"schema": {"path": "enum.schema.json"}, "tests": [{"path": "big.ndjson"}], "all": true, "offset": 4}`, "/entries/0/missing holds"},
		{"list_schemas", `{"limit": 1000}`, "continue with offset"},
		{"schema_context", `{"id": "defs.json", "limit": 10000, "maxText": 100000}`, "cut to keep the answer within its budget"},
	}
	called := map[string]bool{}
	for _, c := range calls {
		called[c.tool] = true
		d, _ := Lookup(c.tool)
		raw := callResult(t, p, c.tool, c.args)
		var res budgetResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, b := range res.Content {
			text += b.Text
		}
		t.Logf("%s %s: %d bytes", c.tool, c.args, len(raw))
		if len(raw) > DefaultMaxResultBytes {
			t.Errorf("%s %s: a result of %d bytes, over the budget of %d", c.tool, c.args, len(raw), DefaultMaxResultBytes)
		}
		if res.IsError {
			t.Errorf("%s: isError: %s", c.tool, text)
			continue
		}
		if !strings.Contains(text, c.cut) {
			t.Errorf("%s %s: the text does not say %q:\n...%s", c.tool, c.args, c.cut, text[max(0, len(text)-600):])
		}
		var v any
		if err := json.Unmarshal(res.Struct, &v); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		conforms(t, d, v)
	}
	for _, d := range All() {
		if !called[d.Name] {
			t.Errorf("tool %s has no worst case here", d.Name)
		}
	}
}

// TestGroupedViewOfTenThousandErrors: 10,000 lines failing the same pattern are one group
// of 10,000, in the structured content and in the text, within the budget.
func TestGroupedViewOfTenThousandErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("validates 10,000 lines")
	}
	p := NewProvider(&Env{FS: workspace.Memory(budgetFiles())}, All())
	raw := callResult(t, p, "validate", `{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}]}`)
	var res budgetResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Groups []struct {
			Count                                      int
			Keyword, KeywordLocation, InstanceLocation string
			Message                                    string
			First                                      []struct{ Line int }
		}
		Instances []json.RawMessage
		Page      struct{ Offset, Limit, Total, Omitted int }
	}
	if err := json.Unmarshal(res.Struct, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 {
		t.Fatalf("%d groups, want 1: %+v", len(got.Groups), got.Groups)
	}
	g := got.Groups[0]
	want := `10000 pattern /properties/id/pattern /id "…" does not match the pattern "^O-[0-9]{3}$" 3`
	if s := fmt.Sprintf("%d %s %s %s %s %d", g.Count, g.Keyword, g.KeywordLocation, g.InstanceLocation, g.Message, len(g.First)); s != want {
		t.Errorf("group %s, want %s", s, want)
	}
	shown := len(got.Instances)
	if shown == 0 || got.Page.Total != 10000 || got.Page.Omitted != 10000-shown {
		t.Errorf("page %+v with %d instances", got.Page, shown)
	}
	text := res.Content[0].Text
	for _, line := range []string{
		`10000 × pattern at /id: "…" does not match the pattern "^O-[0-9]{3}$"; first at big.ndjson:1:8, big.ndjson:2:8, big.ndjson:3:8`,
		fmt.Sprintf("(%d instances shown, to keep the answer under %d bytes; continue with offset %d)", shown, DefaultMaxResultBytes, shown),
		"10000 instances: 0 valid, 10000 invalid",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("the text lacks %q:\n...%s", line, text[max(0, len(text)-800):])
		}
	}
	// The next page starts where the note says.
	raw = callResult(t, p, "validate", fmt.Sprintf(`{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}], "offset": %d}`, shown))
	if !strings.Contains(string(raw), fmt.Sprintf(`big.ndjson:%d:8:`, shown+1)) {
		t.Errorf("the page at offset %d does not start at line %d", shown, shown+1)
	}
}

// TestBudgetBoundsTheWork: a sample of 10,000 strings of 100,000 characters stops at the
// first instance the budget cannot hold (it never builds the gigabyte), and a validation
// of 100,000 errors (100,000 lines, all listed) answers within the budget.
func TestBudgetBoundsTheWork(t *testing.T) {
	if testing.Short() {
		t.Skip("validates 100,000 errors")
	}
	p := NewProvider(&Env{FS: workspace.Memory(budgetFiles())}, All())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	raw := callResult(t, p, "sample", `{"schema": {"path": "long.schema.json"}, "count": 10000}`)
	runtime.ReadMemStats(&after)
	if len(raw) > DefaultMaxResultBytes {
		t.Errorf("sample: %d bytes", len(raw))
	}
	// Unbounded, the 10,000 instances are a gigabyte of JSON (and twice that as text).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("sample allocated %d MB for an answer of %d bytes", alloc>>20, len(raw))
	}
	var s struct {
		StructuredContent struct {
			Samples            []any
			Requested, Omitted int
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(struct{ Kept, Requested, Omitted int }{0, 10000, 10000},
		struct{ Kept, Requested, Omitted int }{len(s.StructuredContent.Samples), s.StructuredContent.Requested, s.StructuredContent.Omitted}); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}

	for _, args := range []string{
		`{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}, {"path": "big.ndjson"}], "limit": 100000}`,
	} {
		raw := callResult(t, p, "validate", args)
		var res budgetResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		var v struct{ Groups []struct{ Count int } }
		if err := json.Unmarshal(res.Struct, &v); err != nil {
			t.Fatal(err)
		}
		if len(raw) > DefaultMaxResultBytes || len(v.Groups) != 1 || v.Groups[0].Count != 100000 {
			t.Errorf("validate %s: %d bytes, groups %+v", args, len(raw), v.Groups)
		}
	}
}

// TestMaxResultBytes: the budget is the provider's (jstk mcp --max-result-bytes); a
// negative one is none.
func TestMaxResultBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("validates 10,000 lines")
	}
	args := `{"schema": {"path": "id.schema.json"}, "instances": [{"path": "big.ndjson"}], "limit": 300}`
	for _, tc := range []struct {
		budget, most, least int
	}{
		{4000, 4000, 2000},
		{40000, 40000, 20000},
		{-1, 1 << 30, 80000},
	} {
		p := NewProvider(&Env{FS: workspace.Memory(budgetFiles()), MaxResultBytes: tc.budget}, All())
		raw := callResult(t, p, "validate", args)
		if len(raw) > tc.most || len(raw) < tc.least {
			t.Errorf("budget %d: a result of %d bytes, want %d to %d", tc.budget, len(raw), tc.least, tc.most)
		}
	}
}

// TestFit: the fitter cuts encoded JSON to a size, keeping it valid and its shape, and
// records each cut.
func TestFit(t *testing.T) {
	long := strings.Repeat("é,[]{}\\\"", 200)
	doc := map[string]any{"schema": map[string]any{"type": "object", "description": long}, "n": 1,
		"list": []any{long, "b", "c"}, "s": long, "nested": map[string]any{"xs": []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}}
	data := marshalCompact(doc)
	tests := []struct {
		limit int
		cuts  []string // pointer unit
	}{
		{len(data), nil},
		{len(data) - 10, []string{"/list items", "/list/0 bytes"}},
		{4000, []string{"/list items", "/list/0 bytes", "/s bytes"}}, // the document is kept whole
		{len(data) / 3, []string{"/list items", "/list/0 bytes", "/s bytes", "/schema document"}},
		{400, []string{"/list items", "/list/0 bytes", "/s bytes", "/schema document"}},
		{60, []string{"/list items", "/list/0 bytes", "/nested/xs items", "/s bytes", "/schema document"}},
	}
	for _, tc := range tests {
		f := &fitter{free: map[string]bool{"/schema": true}}
		got := f.fit(data, tc.limit, "", "")
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("limit %d: %v: %s", tc.limit, err, got)
		}
		if len(got) > tc.limit {
			t.Errorf("limit %d: %d bytes", tc.limit, len(got))
		}
		if _, ok := v["n"]; !ok || len(v) != len(doc) {
			t.Errorf("limit %d: members lost: %s", tc.limit, got)
		}
		var cuts []string
		for _, c := range f.cuts {
			cuts = append(cuts, c.Pointer+" "+c.Unit)
			if c.Unit != "document" && c.Kept >= c.Total {
				t.Errorf("limit %d: a cut that kept everything: %+v", tc.limit, c)
			}
		}
		sort.Strings(cuts)
		if diff := cmp.Diff(tc.cuts, cuts); diff != "" {
			t.Errorf("limit %d: cuts (-want +got):\n%s\n%s", tc.limit, diff, got)
		}
	}
	// Strings with brackets, commas and escaped quotes split where JSON does.
	parts, ok := elements(json.RawMessage(`["a,]","\"[",{"k":"}"},[1,[2]],3]`))
	if !ok || len(parts) != 5 || string(parts[2]) != `{"k":"}"}` || string(parts[3]) != `[1,[2]]` {
		t.Errorf("elements: %q %v", parts, ok)
	}
	keys, vals, ok := members(json.RawMessage(`{"a\"b":"x,y","c":{"d":[1,2]}}`))
	if !ok || cmp.Diff([]string{`a"b`, "c"}, keys) != "" || string(vals[1]) != `{"d":[1,2]}` {
		t.Errorf("members: %q %q %v", keys, vals, ok)
	}
	if got := cutString("ééé", len(`"é…"`)); got != "é" {
		t.Errorf("cutString: %q", got)
	}
	for _, tc := range []struct {
		sizes      []int
		room, want int
	}{
		{[]int{10, 10, 100}, 40, 20}, {[]int{10, 10, 100}, 200, 100}, {[]int{50, 50}, 40, 20}, {[]int{5}, -3, 0},
	} {
		var vals []json.RawMessage
		for _, n := range tc.sizes {
			vals = append(vals, make(json.RawMessage, n))
		}
		if got := capFor(vals, tc.room); got != tc.want {
			t.Errorf("capFor(%v, %d) = %d, want %d", tc.sizes, tc.room, got, tc.want)
		}
	}
}

// TestValidateProgress: validate reports the bytes of its input done, after each file (or
// NDJSON chunk), of the input's total size where it is known; the message counts the
// instances. A value given inline counts its bytes; standard input has no size.
func TestValidateProgress(t *testing.T) {
	type report struct {
		done, total float64
		msg         string
	}
	both := float64(len(files["many.ndjson"]) + len(files["ok.json"]))
	withValue := float64(len(files["many.ndjson"]) + len("1"))
	for _, tc := range []struct {
		instances string
		stdin     string
		reports   int
		last      report
	}{
		{`[{"path": "many.ndjson"}, {"path": "ok.json"}]`, "", 2, report{both, both, "251 instances validated"}},
		{`[{"path": "many.ndjson"}, {"value": 1}]`, "", 2, report{withValue, withValue, "251 instances validated"}},
		{`[{"path": "-"}]`, files["many.ndjson"], 1, report{float64(len(files["many.ndjson"])), 0, "250 instances validated"}},
	} {
		var got []report
		env := testEnv()
		if tc.stdin != "" {
			env.Stdin = strings.NewReader(tc.stdin)
		}
		env.Progress = func(done, total float64, msg string) { got = append(got, report{done, total, msg}) }
		in := &ValidateInput{}
		if err := json.Unmarshal([]byte(`{"schema": {"path": "schema.json"}, "instances": `+tc.instances+`}`), in); err != nil {
			t.Fatal(err)
		}
		d, _ := Lookup("validate")
		if _, err := d.Run(context.Background(), env, in); err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.reports {
			t.Fatalf("%s: %d reports %+v, want %d (one per file or chunk)", tc.instances, len(got), got, tc.reports)
		}
		for i := 1; i < len(got); i++ {
			if got[i].done <= got[i-1].done || got[i].total != tc.last.total {
				t.Fatalf("%s: report %d %+v after %+v", tc.instances, i, got[i], got[i-1])
			}
		}
		if diff := cmp.Diff(tc.last, got[len(got)-1], cmp.AllowUnexported(report{})); diff != "" {
			t.Errorf("%s: last report (-want +got):\n%s", tc.instances, diff)
		}
	}
}

// TestGroupedFindings: lint's findings, diff's changes and test's failures that repeat are
// grouped, over every page: in the text before the counts (diff: after the changes), and
// in the JSON of lint and diff (a CTRF report has no member for them).
func TestGroupedFindings(t *testing.T) {
	props := func(typ string, format bool) string {
		var ps []string
		for i := range 5 {
			f := ""
			if format {
				f = fmt.Sprintf(`, "format": "nf-%d"`, i)
			}
			ps = append(ps, fmt.Sprintf(`"p%d": {"type": %q%s}`, i, typ, f))
		}
		return `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {` + strings.Join(ps, ", ") + `}}`
	}
	var tests []string
	for i := range 4 {
		tests = append(tests, fmt.Sprintf(`{"description": "t%d", "valid": true, "data": {"p1": %d}}`, i, i))
	}
	env := &Env{FS: workspace.Memory(map[string]string{
		"fmt.json": props("string", true), "old.json": props("string", false), "new.json": props("integer", false),
		"t.tests.json": `{"target": "old.json", "tests": [` + strings.Join(tests, ", ") + `]}`,
		"one.json":     `{"$schema": "https://json-schema.org/draft/2020-12/schema", "format": "nf"}`,
	})}
	p := NewProvider(env, All())
	for _, tc := range []struct {
		tool, args, line string
		groups           int // in the JSON; -1: none there
	}{
		{"lint", `{"schemas": [{"path": "fmt.json"}], "limit": 2}`,
			`5 × lint/unknown-format at /properties/*/format: format "…" is not defined by 2020-12; validators check nothing (prefix custom formats with x-); first at fmt.json:1:`, 5},
		{"diff", `{"old": {"path": "old.json"}, "new": {"path": "new.json"}, "limit": 1}`,
			`5 × diff/type-changed at /properties/*/type: type changed from string to integer (incomparable); example valid under OLD: {"…":""}; first at new.json:1:`, 5},
		{"test", `{"tests": [{"path": "t.tests.json"}], "limit": 1}`,
			`4 × test/failed: expected valid, but the instance is invalid: /p1: value must be string, not integer; first at t.tests.json:1:`, -1},
		{"lint", `{"schemas": [{"path": "one.json"}]}`, "", 1},
	} {
		res := call(t, p, tc.tool, tc.args)
		text := res.Content[0].Text
		if tc.line != "" && !strings.Contains(text, tc.line) {
			t.Errorf("%s: the text lacks %q:\n%s", tc.tool, tc.line, text)
		}
		if tc.line == "" && strings.Contains(text, " × ") {
			t.Errorf("%s: a group line for a finding that does not repeat:\n%s", tc.tool, text)
		}
		var got struct{ Groups []diag.Group }
		if err := json.Unmarshal(marshalCompact(res.StructuredContent), &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.groups < 0 && got.Groups != nil:
			t.Errorf("%s: groups in the JSON: %+v", tc.tool, got.Groups)
		case tc.groups >= 0 && (len(got.Groups) == 0 || got.Groups[0].Count != tc.groups):
			t.Errorf("%s: groups %+v, want the first of %d", tc.tool, got.Groups, tc.groups)
		}
		d, _ := Lookup(tc.tool)
		conforms(t, d, res.StructuredContent)
	}
}

// TestPagedNoteCounts: the note of a page cut to one item says "1 instance", not "1
// instances".
func TestPagedNoteCounts(t *testing.T) {
	for _, tc := range []struct {
		r    diag.Pager
		k    int
		want string
	}{
		{&validate.Result{}, 1, "(1 instance shown, to keep the answer under 100 bytes; continue with offset 1)"},
		{&validate.Result{}, 2, "(2 instances shown, to keep the answer under 100 bytes; continue with offset 2)"},
		{&coverage.Result{}, 1, "(1 entry shown, to keep the answer under 100 bytes; continue with offset 1)"},
		{&catalog.Listing{}, 3, "(3 schemas shown, to keep the answer under 100 bytes; continue with offset 3)"},
	} {
		if got := pagedNote(tc.r, tc.k, 100); got != tc.want {
			t.Errorf("%T, %d: %q, want %q", tc.r, tc.k, got, tc.want)
		}
	}
}
