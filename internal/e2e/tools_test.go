package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/tools"
)

// Document arguments in their three shapes.
func pathDoc(p string) map[string]any { return map[string]any{"path": p} }
func valueDoc(v any) map[string]any   { return map[string]any{"value": v} }
func textDoc(s string) map[string]any { return map[string]any{"text": s} }

// compileJSON compiles a schema given as a decoded JSON value with jstk's own compiler.
func compileJSON(t testing.TB, name string, v any) *schema.Schema {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := source.ParseJSON(name, raw, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := schema.NewCompiler(nil)
	uri := "urn:jstk:e2e:" + name
	if err := c.AddDocument(uri, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		t.Fatalf("%s does not compile: %v", name, err)
	}
	return s
}

// conforms reports the violations of v against s, one per line ("" when it conforms).
func conforms(t testing.TB, s *schema.Schema, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := source.ParseJSON("structuredContent", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := s.Validate(doc.Root)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&sb, "%s: %s (%s)\n", e.InstanceLocation, e.Message, e.KeywordLocation)
	}
	return sb.String()
}

func tableNames() []string {
	var names []string
	for _, d := range tools.All() {
		names = append(names, d.Name)
	}
	return names
}

// listAll lists every tool, following nextCursor.
func listAll(t testing.TB, s *session) []*sdk.Tool {
	t.Helper()
	var all []*sdk.Tool
	for tool, err := range s.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		all = append(all, tool)
	}
	return all
}

var toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// TestListTools: in every protocol version the server speaks, tools/list through the SDK
// client gives exactly the descriptor table, each tool with the listing DESIGN.md section 6
// asks for.
func TestListTools(t *testing.T) {
	for _, era := range []string{"2024-11-05", "2025-03-26", "2025-06-18", legacyEra, modernEra} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, options{era: era})
			listed := listAll(t, s)
			var names []string
			for _, tool := range listed {
				names = append(names, tool.Name)
				checkListing(t, tool)
			}
			if diff := cmp.Diff(tableNames(), names); diff != "" {
				t.Errorf("tools/list names differ from the descriptor table (-table +listed):\n%s", diff)
			}
		})
	}
}

func checkListing(t *testing.T, tool *sdk.Tool) {
	t.Helper()
	if !toolNameRE.MatchString(tool.Name) {
		t.Errorf("tool name %q does not match %s", tool.Name, toolNameRE)
	}
	if tool.Title == "" || len(tool.Description) < 80 {
		t.Errorf("%s: title %q and description of %d characters; both must be written for a model", tool.Name, tool.Title, len(tool.Description))
	}
	for kind, sch := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
		m, ok := sch.(map[string]any)
		if !ok {
			t.Errorf("%s: %s is %T, want an object", tool.Name, kind, sch)
			continue
		}
		if m["type"] != "object" {
			t.Errorf("%s: %s has type %v at the root, want object", tool.Name, kind, m["type"])
		}
		for _, k := range []string{"$ref", "oneOf", "anyOf"} {
			if _, ok := m[k]; ok {
				t.Errorf("%s: %s has a top-level %s", tool.Name, kind, k)
			}
		}
		compileJSON(t, tool.Name+"."+kind, sch)
	}
	a := tool.Annotations
	if a == nil {
		t.Fatalf("%s: no annotations", tool.Name)
	}
	if !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("%s: annotations %+v, want readOnly, not destructive, idempotent, closed world", tool.Name, *a)
	}
	contract, _ := tool.Meta["jstk/contract"].(map[string]any)
	if contract["access"] != "read" {
		t.Errorf("%s: _meta %v, want a jstk/contract with access read", tool.Name, tool.Meta)
	}
}

// TestEveryTool calls every tool of the descriptor table with its samples
// (tools.Descriptor.Samples, on the sample workspace that writeFiles copies), in both eras, and checks each result: not isError, a text report, a runId, and structuredContent
// that conforms to the tool's listed outputSchema (checked by jstk's own validator).
func TestEveryTool(t *testing.T) {
	for _, d := range tools.All() {
		if len(d.Samples) == 0 {
			t.Errorf("tool %s has no sample call: add its Samples to its descriptor", d.Name)
		}
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, options{era: era})
			runIDs := map[string]bool{}
			for _, tool := range listAll(t, s) {
				out := compileJSON(t, tool.Name+".outputSchema", tool.OutputSchema)
				d, _ := tools.Lookup(tool.Name)
				for i, sample := range d.Samples {
					var args map[string]any
					if err := json.Unmarshal([]byte(sample), &args); err != nil {
						t.Fatalf("%s: sample %d: %v", tool.Name, i, err)
					}
					res := s.call(t, tool.Name, args)
					label := fmt.Sprintf("%s sample %d", tool.Name, i)
					if res.IsError {
						t.Errorf("%s: isError: %s", label, text(t, res))
						continue
					}
					if strings.TrimSpace(text(t, res)) == "" {
						t.Errorf("%s: empty text content", label)
					}
					if len(text(t, res)) > tools.MaxText {
						t.Errorf("%s: text of %d characters, over the bound of %d", label, len(text(t, res)), tools.MaxText)
					}
					if res.StructuredContent == nil {
						t.Errorf("%s: no structuredContent", label)
					} else if v := conforms(t, out, res.StructuredContent); v != "" {
						t.Errorf("%s: structuredContent does not conform to the outputSchema:\n%s", label, v)
					}
					id, _ := res.Meta["jstk/runId"].(string)
					if id == "" || runIDs[id] {
						t.Errorf("%s: _meta jstk/runId %q, want a fresh id", label, id)
					}
					runIDs[id] = true
				}
			}
		})
	}
}

// TestOutputSchemaCheckIsNotVacuous: the conformance check of TestEveryTool rejects what a
// wrong result would look like, so a pass means something. (Output schemas describe the
// members of the result and their types, one level deep, to keep tools/list lean.)
func TestOutputSchemaCheckIsNotVacuous(t *testing.T) {
	d, ok := tools.Lookup("validate")
	if !ok {
		t.Skip("no validate tool")
	}
	var sch any
	if err := json.Unmarshal(d.OutputSchema(), &sch); err != nil {
		t.Fatal(err)
	}
	out := compileJSON(t, "validate.outputSchema", sch)
	for _, bad := range []any{
		map[string]any{},
		map[string]any{"valid": "yes", "instances": []any{}, "summary": map[string]any{"total": 0, "valid": 0, "invalid": 0, "unreadable": 0}},
		map[string]any{"valid": true, "instances": map[string]any{"file": "x"}, "summary": map[string]any{"total": 1, "valid": 1, "invalid": 0, "unreadable": 0}},
	} {
		if conforms(t, out, bad) == "" {
			t.Errorf("the outputSchema of validate accepts %v", bad)
		}
	}
}

// TestToolErrors: a call that cannot run is a result with isError and a message naming the
// argument or the path (never a protocol error); the workspace boundary holds for every path
// argument.
func TestToolErrors(t *testing.T) {
	order := pathDoc("order.schema.json")
	some := []any{pathDoc("orders.ndjson")}
	abs := filepath.Join(outsideDir, "secret.json")
	type errorCase struct {
		name string
		tool string
		args map[string]any
		want []string // substrings of the error text
	}
	cases := []errorCase{
		// (validate takes no schema: each file's own is found)
		{"missing argument", "bundle", map[string]any{}, []string{`"schema"`, "missing"}},
		{"argument of the wrong type", "validate", map[string]any{"schema": order, "instances": "orders.ndjson"}, []string{"argument instances", "array"}},
		{"unknown argument", "validate", map[string]any{"schema": order, "instances": some, "bogus": 1}, []string{"argument bogus"}},
		{"document with two shapes", "validate", map[string]any{"schema": map[string]any{"path": "order.schema.json", "text": "{}"}, "instances": some}, []string{"argument schema"}},
		{"document with no shape", "bundle", map[string]any{"schema": map[string]any{}}, []string{"argument schema"}},
		{"out of range", "validate", map[string]any{"schema": order, "instances": some, "limit": -1}, []string{"argument limit"}},
		{"value outside the enum", "validate", map[string]any{"schema": order, "instances": some, "draft": "5"}, []string{"argument draft"}},
		{"no instances", "validate", map[string]any{"schema": order, "instances": []any{}}, []string{"instances"}},
		{"dot-dot climbing out", "validate", map[string]any{"schema": pathDoc("../outside/secret.json"), "instances": some}, []string{"../outside/secret.json", "workspace"}},
		{"absolute path outside", "validate", map[string]any{"schema": pathDoc(abs), "instances": some}, []string{abs, "outside the workspace"}},
		{"symlink pointing out", "validate", map[string]any{"schema": pathDoc("link-out.json"), "instances": some}, []string{"link-out.json", "outside the workspace"}},
		{"unparsable schema", "validate", map[string]any{"schema": pathDoc("broken.schema.json"), "instances": some}, []string{"broken.schema.json:"}},
		{"invalid schema", "validate", map[string]any{"schema": pathDoc("invalid.schema.json"), "instances": some}, []string{"invalid.schema.json", "/type"}},
		{"missing schema file", "validate", map[string]any{"schema": pathDoc("nope.schema.json"), "instances": some}, []string{"nope.schema.json"}},
		{"$ref climbing out", "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "../outside/secret.json"}), "instances": some}, []string{`"../outside/secret.json"`, "outside the workspace"}},
		{"$ref to an absolute file URI", "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "file://" + filepath.ToSlash(abs)}), "instances": some}, []string{"file://", "outside the workspace"}},
		{"$ref through a symlink out", "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "link-out.json"}), "instances": some}, []string{`"link-out.json"`, "outside the workspace"}},
		{"$ref to the network", "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "https://example.com/remote.json"}), "instances": some}, []string{`"https://example.com/remote.json"`, "--resolve"}},
		{"infer outside", "infer", map[string]any{"instances": []any{pathDoc("../outside/secret.json")}}, []string{"../outside/secret.json", "workspace"}},
		{"infer symlink out", "infer", map[string]any{"instances": []any{pathDoc("link-out.json")}}, []string{"link-out.json", "outside the workspace"}},
		{"infer missing argument", "infer", map[string]any{}, []string{`"instances"`}},
		{"sample unparsable schema", "sample", map[string]any{"schema": pathDoc("broken.schema.json")}, []string{"broken.schema.json:"}},
		{"sample out of range", "sample", map[string]any{"schema": order, "count": 0}, []string{"argument count"}},
		{"sample symlink out", "sample", map[string]any{"schema": pathDoc("link-out.json")}, []string{"link-out.json", "outside the workspace"}},
	}
	if haveFIFO { // a named pipe would block whoever opens it: it is refused, not opened
		cases = append(cases,
			errorCase{"named pipe", "validate", map[string]any{"schema": pathDoc("fifo.json"), "instances": some}, []string{"fifo.json", "not a regular file"}},
			errorCase{"$ref to a named pipe", "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "fifo.json"}), "instances": some}, []string{"fifo.json", "not a regular file"}},
		)
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, options{era: era})
			for _, c := range cases {
				if _, ok := tools.Lookup(c.tool); !ok {
					continue
				}
				res := s.call(t, c.tool, c.args)
				msg := text(t, res)
				if !res.IsError {
					t.Errorf("%s: not isError: %.300s", c.name, msg)
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: the error %q does not mention %q", c.name, msg, w)
					}
				}
				if strings.Contains(msg, "hunter2") {
					t.Errorf("%s: the error leaks the content of a file outside the workspace: %q", c.name, msg)
				}
				if res.StructuredContent != nil {
					t.Errorf("%s: an error result carries structuredContent %v", c.name, res.StructuredContent)
				}
			}
		})
	}
}

// TestFindingsAreNotErrors: an invalid instance, and an instance that cannot be read, are
// findings in a normal result (isError false) whose structuredContent says valid: false;
// paths that stay inside the workspace (a symlink to a file inside, "sub/..") are read.
func TestFindingsAreNotErrors(t *testing.T) {
	if _, ok := tools.Lookup("validate"); !ok {
		t.Skip("no validate tool")
	}
	type summary struct {
		Total, Valid, Invalid, Unreadable int
	}
	cases := []struct {
		name      string
		instances []any
		valid     bool
		sum       summary
		mention   []string
	}{
		{"all valid", []any{pathDoc("orders.ndjson"), pathDoc("order.yaml")}, true, summary{4, 4, 0, 0}, nil},
		{"invalid instances", []any{pathDoc("orders-with-errors.ndjson")}, false, summary{4, 1, 2, 1}, []string{"orders-with-errors.ndjson:2:8", "[pattern]"}},
		{"an instance outside", []any{pathDoc("link-out.json"), pathDoc("../outside/secret.json")}, false, summary{2, 0, 0, 2}, []string{"link-out.json", "../outside/secret.json"}},
		{"missing instance", []any{pathDoc("nope.json")}, false, summary{1, 0, 0, 1}, []string{"nope.json"}},
		{"inside paths", []any{pathDoc("sub/../orders.ndjson"), pathDoc("./order.yaml")}, true, summary{4, 4, 0, 0}, nil},
	}
	if haveFIFO {
		cases = append(cases, struct {
			name      string
			instances []any
			valid     bool
			sum       summary
			mention   []string
		}{"a named pipe", []any{pathDoc("fifo.json"), pathDoc("orders.ndjson")}, false, summary{4, 3, 0, 1}, []string{"fifo.json: not a regular file"}})
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, options{era: era})
			for _, c := range cases {
				res := s.call(t, "validate", map[string]any{"schema": pathDoc("order.schema.json"), "instances": c.instances})
				msg := text(t, res)
				if res.IsError {
					t.Errorf("%s: isError for findings: %s", c.name, msg)
					continue
				}
				var got struct {
					Valid   bool
					Summary summary
				}
				if err := json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &got); err != nil {
					t.Fatal(err)
				}
				if got.Valid != c.valid || got.Summary != c.sum {
					t.Errorf("%s: valid %v, summary %+v; want %v, %+v", c.name, got.Valid, got.Summary, c.valid, c.sum)
				}
				for _, w := range c.mention {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: the report does not mention %q:\n%s", c.name, w, msg)
					}
				}
				if strings.Contains(msg, "hunter2") || strings.Contains(mustJSON(t, res.StructuredContent), "hunter2") {
					t.Errorf("%s: the result leaks a file outside the workspace", c.name)
				}
			}
		})
	}
}

// TestLongResultsAreBounded: a result with more instances than the default limit, or than
// the result budget holds, is cut, says so and where to continue, stays under the budget
// (text and structured content together), and the rest is reachable with offset.
func TestLongResultsAreBounded(t *testing.T) {
	if _, ok := tools.Lookup("validate"); !ok {
		t.Skip("no validate tool")
	}
	s := startSession(t, options{era: modernEra})
	// Every order of medium.ndjson is invalid against this schema, with a long message each.
	strict := valueDoc(map[string]any{"type": "object", "properties": map[string]any{
		"id": map[string]any{"pattern": "^NEVER-[0-9]{40}$"}, "status": map[string]any{"enum": []any{"a", "b"}}}})
	res := s.call(t, "validate", map[string]any{"schema": strict, "instances": []any{pathDoc("medium.ndjson")}})
	msg := text(t, res)
	if res.IsError {
		t.Fatalf("isError: %s", msg)
	}
	if len(msg) > tools.MaxText {
		t.Errorf("text of %d characters, over %d", len(msg), tools.MaxText)
	}
	var got struct {
		Instances []json.RawMessage
		Page      struct{ Offset, Limit, Total, Omitted int }
		Summary   struct{ Total, Invalid int }
	}
	if err := json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &got); err != nil {
		t.Fatal(err)
	}
	shown := len(got.Instances)
	want := struct{ Offset, Limit, Total, Omitted int }{0, tools.DefaultLimit, mediumLines, mediumLines - shown}
	if got.Page != want || shown == 0 || shown > tools.DefaultLimit || got.Summary.Total != mediumLines || got.Summary.Invalid != mediumLines {
		t.Errorf("page %+v with %d instances, summary %+v; want page %+v, at most %d instances, all %d invalid",
			got.Page, shown, got.Summary, want, tools.DefaultLimit, mediumLines)
	}
	if size := len(mustJSON(t, res)); size > tools.DefaultMaxResultBytes {
		t.Errorf("a result of %d bytes, over the budget of %d", size, tools.DefaultMaxResultBytes)
	}
	if shown < tools.DefaultLimit && !strings.Contains(msg, fmt.Sprintf("continue with offset %d", shown)) {
		t.Errorf("the cut text does not say where to continue:\n...%s", msg[max(0, len(msg)-400):])
	}
	last := s.call(t, "validate", map[string]any{"schema": strict, "instances": []any{pathDoc("medium.ndjson")}, "offset": mediumLines - 3, "limit": 10})
	if err := json.Unmarshal([]byte(mustJSON(t, last.StructuredContent)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Instances) != 3 || got.Page.Offset != mediumLines-3 {
		t.Errorf("offset %d: got %d instances at offset %d, want the last 3", mediumLines-3, len(got.Instances), got.Page.Offset)
	}
	if !slices.ContainsFunc(got.Instances, func(r json.RawMessage) bool {
		return strings.Contains(string(r), fmt.Sprintf(`"line":%d`, mediumLines))
	}) {
		t.Errorf("the last page does not hold line %d", mediumLines)
	}
}

// TestResolveMapStaysInside: a resolve mapping (--resolve, jstk.json) that points outside the
// workspace does not open a way out: the $ref it serves is refused.
func TestResolveMapStaysInside(t *testing.T) {
	needTool(t, "validate")
	abs := filepath.Join(outsideDir, "secret.json")
	for _, era := range eras {
		s := startSession(t, options{era: era, args: []string{"--resolve", "https://example.com/mapped.json=" + abs}})
		res := s.call(t, "validate", map[string]any{"schema": valueDoc(map[string]any{"$ref": "https://example.com/mapped.json"}), "instances": []any{valueDoc(1)}})
		msg := text(t, res)
		if !res.IsError || !strings.Contains(msg, abs) || !strings.Contains(msg, "outside the workspace") || strings.Contains(msg, "hunter2") {
			t.Errorf("%s: a $ref mapped outside the workspace: isError %v, %q", era, res.IsError, msg)
		}
	}
}

// TestRanThenFailedCarriesReportThenError: a tool that ran and then failed (schema_context
// with an exact id that no schema of the evaluated workspace has) answers isError with the
// report first and then the error, as two text blocks, and keeps the report as
// structuredContent (DESIGN.md section 6; seed 001: "fails after evaluation and carries the
// typed report first, then the error"). The CLI agrees that the call failed: exit 2.
//
// It fails today: internal/tools' Provider turns every report into a normal result (isError
// false, one text block ending in "error: ..."); it does not consult the report's
// Failure() error, which internal/catalog's Context provides for this.
func TestRanThenFailedCarriesReportThenError(t *testing.T) {
	needTool(t, "schema_context")
	const id = "https://example.com/schemas/nope.schema.json"
	cmd := exec.Command(jstkBin, "schema_context", "--id", id)
	cmd.Dir = workDir
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Fatalf("jstk schema_context --id %s: exit %d, want 2", id, code)
	}
	for _, era := range eras {
		s := startSession(t, options{era: era})
		res := s.call(t, "schema_context", map[string]any{"id": id})
		if !res.IsError {
			t.Errorf("%s: isError false for an id that matches no schema", era)
		}
		if len(res.Content) < 2 {
			t.Errorf("%s: %d content blocks, want the report then the error: %q", era, len(res.Content), text(t, res))
		} else {
			first := res.Content[0].(*sdk.TextContent).Text
			last := res.Content[len(res.Content)-1].(*sdk.TextContent).Text
			if first == last || strings.TrimSpace(first) == "" || !strings.Contains(last, "no schema of the workspace has the id") {
				t.Errorf("%s: want the report first and the error last; got %q then %q", era, first, last)
			}
		}
		if res.StructuredContent == nil {
			t.Errorf("%s: the report is not kept as structuredContent", era)
		}
	}
}
