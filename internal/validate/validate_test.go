package validate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// compileSchema compiles an inline schema, named schema.json in the workspace /ws.
func compileSchema(t testing.TB, text string) *schema.Schema {
	t.Helper()
	doc, err := schema.ParseDocument("schema.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(nil)
	uri := schema.FileURI("/ws/schema.json")
	if err := c.AddDocument(uri, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run validates and fails the test if the run could not go on.
func run(t testing.TB, s *schema.Schema, srcs []Source, fsys workspace.FS, opts *Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), s, srcs, fsys, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res == nil {
		t.Fatal("Run returned a nil result without an error")
	}
	return res
}

func files(names ...string) []Source {
	srcs := make([]Source, len(names))
	for i, n := range names {
		srcs[i] = Source{Name: n, Path: n}
	}
	return srcs
}

// outcome is what a test checks of an Instance: where it is and how it came out.
type outcome struct {
	File    string
	Line    int
	Valid   bool
	Errors  []string // "pointer keyword line:column"
	Problem string
}

// problemPrefix lets an expected problem ending in "..." match any problem it starts with:
// the wording of parse errors belongs to package source, their position to validate.
var problemPrefix = cmp.FilterValues(func(a, b string) bool {
	return strings.HasSuffix(a, "...") || strings.HasSuffix(b, "...")
}, cmp.Comparer(func(a, b string) bool {
	if strings.HasSuffix(b, "...") {
		a, b = b, a
	}
	return strings.HasPrefix(b, strings.TrimSuffix(a, "..."))
}))

func outcomes(ins []Instance) []outcome {
	out := make([]outcome, 0, len(ins))
	for _, in := range ins {
		o := outcome{File: in.File, Line: in.Line, Valid: in.Valid, Problem: in.Problem}
		for _, e := range in.Errors {
			o.Errors = append(o.Errors, fmt.Sprintf("%s %s %d:%d", e.InstanceLocation, e.Keyword, e.Line, e.Column))
		}
		out = append(out, o)
	}
	return out
}

// orderSchema accepts objects whose "id" is an integer and whose "name", when present, is a
// short string.
const orderSchema = `{
  "type": "object",
  "required": ["id"],
  "properties": {
    "id": {"type": "integer"},
    "name": {"type": "string", "maxLength": 8}
  }
}`

// A position of an error, with those of its causes.
type pos struct {
	Ptr    string
	Kw     string
	Line   int
	Col    int
	Causes []pos
}

func positions(errs []Error) []pos {
	var out []pos
	for _, e := range errs {
		out = append(out, pos{Ptr: e.InstanceLocation, Kw: e.Keyword, Line: e.Line, Col: e.Column, Causes: positions(e.Causes)})
	}
	return out
}

func TestErrorPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		schema   string
		file     string
		instance string
		want     []pos
	}{
		{
			name:     "nested pointer",
			schema:   `{"properties": {"a": {"properties": {"b": {"items": {"type": "integer"}}}}}}`,
			file:     "i.json",
			instance: "{\n  \"a\": {\n    \"b\": [1,\n      \"two\", 3.5]\n  }\n}\n",
			want:     []pos{{Ptr: "/a/b/1", Kw: "type", Line: 4, Col: 7}, {Ptr: "/a/b/2", Kw: "type", Line: 4, Col: 14}},
		},
		{
			name:     "escaped pointer tokens",
			schema:   `{"additionalProperties": {"type": "string"}}`,
			file:     "i.json",
			instance: "{\"ok\": \"s\",\n \"a/b\": 1,\n \"m~n\": 2}",
			want:     []pos{{Ptr: "/a~1b", Kw: "type", Line: 2, Col: 9}, {Ptr: "/m~0n", Kw: "type", Line: 3, Col: 9}},
		},
		{
			name:     "additionalProperties points at the key",
			schema:   `{"properties": {"a": true}, "additionalProperties": false}`,
			file:     "i.json",
			instance: "{\n  \"a\": 1,\n    \"extra\":\n      {\"deep\": 1}\n}",
			want:     []pos{{Ptr: "/extra", Kw: "additionalProperties", Line: 3, Col: 5}},
		},
		{
			name:     "additionalProperties in YAML",
			schema:   `{"properties": {"a": true}, "additionalProperties": false}`,
			file:     "i.yaml",
			instance: "a: 1\nextra:\n  - 1\n  - 2\n",
			want:     []pos{{Ptr: "/extra", Kw: "additionalProperties", Line: 2, Col: 1}},
		},
		{
			name:     "unevaluatedProperties false points at the key",
			schema:   `{"properties": {"a": true}, "unevaluatedProperties": false}`,
			file:     "i.json",
			instance: "{\"a\": 1,\n   \"b\": \"x\"}",
			want:     []pos{{Ptr: "/b", Kw: "unevaluatedProperties", Line: 2, Col: 4}},
		},
		{
			name:     "unevaluatedProperties with a schema points at the value",
			schema:   `{"properties": {"a": true}, "unevaluatedProperties": {"type": "integer"}}`,
			file:     "i.json",
			instance: "{\"a\": 1,\n   \"b\": \"x\"}",
			want:     []pos{{Ptr: "/b", Kw: "type", Line: 2, Col: 9}},
		},
		{
			name:     "additionalProperties with a schema points at the value",
			schema:   `{"additionalProperties": {"type": "integer"}}`,
			file:     "i.json",
			instance: "{\"a\": 1,\n   \"b\": \"x\"}",
			want:     []pos{{Ptr: "/b", Kw: "type", Line: 2, Col: 9}},
		},
		{
			name: "propertyNames points at the key",
			schema: `{"propertyNames": {"maxLength": 3},
			  "properties": {"o": {"propertyNames": {"anyOf": [{"pattern": "^x"}, {"pattern": "^y"}]}},
			                 "propertyNames": {"propertyNames": false}}}`,
			file:     "i.json",
			instance: "{\"long\": 2,\n \"o\": {\"abc\": 1},\n \"propertyNames\": {\"k\": 0}}",
			want: []pos{
				{Ptr: "/long", Kw: "maxLength", Line: 1, Col: 2},
				{Ptr: "/o/abc", Kw: "anyOf", Line: 2, Col: 8, Causes: []pos{
					{Ptr: "/o/abc", Kw: "pattern", Line: 2, Col: 8},
					{Ptr: "/o/abc", Kw: "pattern", Line: 2, Col: 8},
				}},
				{Ptr: "/propertyNames/k", Kw: "", Line: 3, Col: 20},
				{Ptr: "/propertyNames", Kw: "maxLength", Line: 3, Col: 2},
			},
		},
		{
			name:     "a property named propertyNames is a value",
			schema:   `{"properties": {"propertyNames": {"type": "string"}}, "patternProperties": {"^p": {"propertyNames": true}}}`,
			file:     "i.json",
			instance: "{\"propertyNames\":\n  1}",
			want:     []pos{{Ptr: "/propertyNames", Kw: "type", Line: 2, Col: 3}},
		},
		{
			name:     "required at the object",
			schema:   `{"properties": {"o": {"required": ["x"]}}}`,
			file:     "i.json",
			instance: "{\n  \"o\":   {\"y\": 1}\n}",
			want:     []pos{{Ptr: "/o", Kw: "required", Line: 2, Col: 10}},
		},
		{
			name:     "anyOf causes",
			schema:   `{"properties": {"v": {"anyOf": [{"type": "string"}, {"properties": {"n": {"minimum": 10}}}]}}}`,
			file:     "i.json",
			instance: "{\"v\":\n  {\"n\":\n     3}}",
			want: []pos{{Ptr: "/v", Kw: "anyOf", Line: 2, Col: 3, Causes: []pos{
				{Ptr: "/v", Kw: "type", Line: 2, Col: 3},
				{Ptr: "/v/n", Kw: "minimum", Line: 3, Col: 6},
			}}},
		},
		{
			name:     "oneOf without a match",
			schema:   `{"oneOf": [{"type": "string"}, {"required": ["a"]}]}`,
			file:     "i.yaml",
			instance: "b: 1\n",
			want: []pos{{Ptr: "", Kw: "oneOf", Line: 1, Col: 1, Causes: []pos{
				{Ptr: "", Kw: "type", Line: 1, Col: 1},
				{Ptr: "", Kw: "required", Line: 1, Col: 1},
			}}},
		},
		{
			name:     "oneOf with two matches",
			schema:   `{"items": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}`,
			file:     "i.json",
			instance: "[1.5,\n 2]",
			want:     []pos{{Ptr: "/1", Kw: "oneOf", Line: 2, Col: 2}},
		},
		{
			name:     "YAML block sequence",
			schema:   `{"properties": {"list": {"items": {"type": "string"}}}}`,
			file:     "i.yml",
			instance: "# comment\nlist:\n  - a\n  - 2\n  -   b\n  - {x: 1}\n",
			want:     []pos{{Ptr: "/list/1", Kw: "type", Line: 4, Col: 5}, {Ptr: "/list/3", Kw: "type", Line: 6, Col: 5}},
		},
		{
			name:     "TOML",
			schema:   `{"properties": {"server": {"properties": {"port": {"type": "string"}}}}}`,
			file:     "i.toml",
			instance: "title = \"x\"\n\n[server]\nport = 8080\n",
			want:     []pos{{Ptr: "/server/port", Kw: "type", Line: 4, Col: 8}},
		},
		{
			name:     "false schema",
			schema:   `{"properties": {"never": false}}`,
			file:     "i.json",
			instance: `{"never": null}`,
			want:     []pos{{Ptr: "/never", Kw: "", Line: 1, Col: 11}},
		},
		{
			name:     "multi-byte characters count as one column",
			schema:   `{"additionalProperties": {"type": "integer"}}`,
			file:     "i.json",
			instance: `{"é€😀": "x", "b": true}`,
			want:     []pos{{Ptr: "/é€😀", Kw: "type", Line: 1, Col: 9}, {Ptr: "/b", Kw: "type", Line: 1, Col: 19}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := compileSchema(t, tt.schema)
			res := run(t, s, files(tt.file), workspace.Memory(map[string]string{tt.file: tt.instance}), nil)
			if len(res.Instances) != 1 {
				t.Fatalf("%d instances, want 1: %+v", len(res.Instances), res.Instances)
			}
			in := res.Instances[0]
			if in.Problem != "" {
				t.Fatalf("problem: %s", in.Problem)
			}
			if diff := cmp.Diff(tt.want, positions(in.Errors)); diff != "" {
				t.Errorf("positions (-want +got):\n%s", diff)
			}
			if in.Valid {
				t.Errorf("Valid = true with errors")
			}
			// Every error names its keyword's place in the schema file.
			for _, e := range in.Errors {
				if e.Schema == nil || e.Schema.File != "schema.json" || e.Schema.Line < 1 || e.Schema.Column < 1 {
					t.Errorf("%s %s: schema location %+v", e.InstanceLocation, e.Keyword, e.Schema)
				}
				if !strings.HasPrefix(e.AbsoluteKeywordLocation, "file:///ws/schema.json#") || e.KeywordLocation == "" && e.Keyword != "" {
					t.Errorf("%s %s: keyword locations %q %q", e.InstanceLocation, e.Keyword, e.KeywordLocation, e.AbsoluteKeywordLocation)
				}
			}
		})
	}
}

// The schema side of an error: where the failing keyword is, in the schema file.
func TestSchemaLocation(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, "{\n  \"properties\": {\n    \"a\": {\"type\": \"string\"}\n  }\n}")
	res := run(t, s, []Source{{Name: "inline", Text: []byte(`{"a": 1}`)}}, nil, nil)
	want := []Error{{
		InstanceLocation:        "/a",
		KeywordLocation:         "/properties/a/type",
		AbsoluteKeywordLocation: "file:///ws/schema.json#/properties/a/type",
		Keyword:                 "type",
		Message:                 res.Instances[0].Errors[0].Message,
		Line:                    1,
		Column:                  7,
		Schema:                  &SchemaLocation{File: "schema.json", Line: 3, Column: 11}, // at "type"
	}}
	if diff := cmp.Diff(want, res.Instances[0].Errors); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !strings.Contains(want[0].Message, "string") {
		t.Errorf("message %q does not name the expected type", want[0].Message)
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	fsys := workspace.Memory(map[string]string{
		"ok.json":     `{"id": 1}`,
		"bad.json":    `{"id": "x"}`,
		"multi.yaml":  "id: 1\n---\nid: x\n---\n# a comment\nname: too long a name\nid: 2\n",
		"late.yaml":   "# leading comment\n---\nid: 1\n",
		"one.yaml":    "---\nid: 3\n",
		"empty.yaml":  "",
		"conf.toml":   "id = 4\n",
		"lines.jsonl": "{\"id\": 1}\n{\"id\": 2.5}\n",
		"data.txt":    "{\"id\": 1}\n{\"id\": \"x\"}\n", // no known extension: sniffed as NDJSON
		"yaml.txt":    "id: 7\n",                        // sniffed as YAML
		"syntax.json": "{\"id\": 1,,}",
		"utf8.json":   "{\"id\": 1, \"name\": \"\xff\"}",
		"dup.yaml":    "id: 1\nid: 2\n",
		"big.json":    `{"id": 1, "name": "` + strings.Repeat("x", 200) + `"}`,
		"sub/x.json":  `{"id": 9}`,
	})
	srcs := append(files("ok.json", "bad.json", "multi.yaml", "late.yaml", "one.yaml", "empty.yaml", "conf.toml",
		"lines.jsonl", "data.txt", "yaml.txt", "syntax.json", "utf8.json", "dup.yaml", "big.json", "missing.json",
		"sub", "missing.ndjson"),
		Source{Name: "inline JSON", Text: []byte(`{"id": 5}`)},
		Source{Name: "inline YAML", Text: []byte("id: five\n")},
		Source{Name: "inline NDJSON", Text: []byte("{\"id\": 1}\n\n{\"id\": true}\n")},
		Source{Name: "inline empty", Text: nil},
		Source{Name: "label", Path: "sub/x.json"},
	)
	res := run(t, s, srcs, fsys, &Options{Limits: &source.Limits{MaxSize: 100}})
	want := []outcome{
		{File: "ok.json", Valid: true},
		{File: "bad.json", Errors: []string{"/id type 1:8"}},
		{File: "multi.yaml", Valid: true},
		{File: "multi.yaml", Line: 2, Errors: []string{"/id type 3:5"}},
		{File: "multi.yaml", Line: 4, Errors: []string{"/name maxLength 6:7"}},
		{File: "late.yaml", Valid: true}, // the document starts at its comment
		{File: "one.yaml", Valid: true},
		{File: "empty.yaml", Errors: []string{" type 1:1"}},
		{File: "conf.toml", Valid: true},
		{File: "lines.jsonl", Line: 1, Valid: true},
		{File: "lines.jsonl", Line: 2, Errors: []string{"/id type 2:8"}},
		{File: "data.txt", Line: 1, Valid: true},
		{File: "data.txt", Line: 2, Errors: []string{"/id type 2:8"}},
		{File: "yaml.txt", Valid: true},
		{File: "syntax.json", Problem: "syntax.json:1:10: ..."},
		{File: "utf8.json", Problem: "utf8.json:1:20: invalid UTF-8..."},
		{File: "dup.yaml", Problem: "dup.yaml:2:1: duplicate key \"id\"..."},
		{File: "big.json", Problem: "big.json: file is larger than the limit of 100 bytes (raise it with --max-size)"},
		{File: "missing.json", Problem: "missing.json: no such file or directory"},
		{File: "sub", Problem: "sub: is a directory"},
		{File: "missing.ndjson", Problem: "missing.ndjson: no such file or directory"},
		{File: "inline JSON", Valid: true},
		{File: "inline YAML", Errors: []string{"/id type 1:5"}},
		{File: "inline NDJSON", Line: 1, Valid: true},
		{File: "inline NDJSON", Line: 3, Errors: []string{"/id type 3:8"}},
		{File: "inline empty", Problem: "inline empty:1:1: ..."},
		{File: "label", Valid: true},
	}
	if diff := cmp.Diff(want, outcomes(res.Instances), problemPrefix); diff != "" {
		t.Errorf("instances (-want +got):\n%s", diff)
	}
	wantSum := Summary{Total: 27, Valid: 11, Invalid: 8, Unreadable: 8}
	if diff := cmp.Diff(wantSum, res.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if res.Valid || res.ExitCode() != 2 || !res.Failed() {
		t.Errorf("Valid %v, ExitCode %d, Failed %v; want false, 2, true", res.Valid, res.ExitCode(), res.Failed())
	}
	for _, in := range res.Instances {
		if in.Errors == nil {
			t.Errorf("%s:%d: Errors is nil, want [] so that JSON shows an empty list", in.File, in.Line)
		}
	}
}

// A FIFO, a symbolic link out of the workspace and an unreadable file are each reported, and
// the files around them are still validated. Nothing hangs.
func TestUnreadableFilesOnDisk(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ws/a.json", `{"id": 1}`)
	write("ws/z.ndjson", "{\"id\": 1}\n")
	write("secret.json", `{"id": 1}`)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.ndjson"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.json", filepath.Join(root, "out.json")); err != nil {
		t.Fatal(err)
	}
	fsys, err := workspace.Root(root)
	if err != nil {
		t.Fatal(err)
	}
	s := compileSchema(t, orderSchema)
	res := run(t, s, files("fifo.json", "a.json", "fifo.ndjson", "out.json", "../secret.json", "z.ndjson"), fsys, nil)
	real, _ := filepath.EvalSymlinks(root)
	for i := range res.Instances {
		res.Instances[i].Problem = strings.ReplaceAll(res.Instances[i].Problem, filepath.ToSlash(real), "$ROOT")
	}
	want := []outcome{
		{File: "fifo.json", Problem: "fifo.json: not a regular file"},
		{File: "a.json", Valid: true},
		{File: "fifo.ndjson", Problem: "fifo.ndjson: not a regular file"},
		{File: "out.json", Problem: "out.json: refused: the path or a symbolic link in it leads outside the workspace $ROOT"},
		{File: "../secret.json", Problem: "../secret.json: path climbs out of the workspace $ROOT"},
		{File: "z.ndjson", Line: 1, Valid: true},
	}
	if diff := cmp.Diff(want, outcomes(res.Instances)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The results come in input order whatever the number of workers: many small files and
// NDJSON files of many chunks, interleaved.
func TestOrderAcrossWorkers(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	m := map[string]string{}
	var srcs []Source
	var want []outcome
	pad := strings.Repeat("p", 600)
	for f := range 60 {
		if f%30 == 10 {
			// An NDJSON file of about 700 KB: several chunks of 256 KiB.
			name := fmt.Sprintf("lines%02d.ndjson", f)
			var b strings.Builder
			for i := 1; i <= 1100; i++ {
				if i%7 == 0 {
					fmt.Fprintf(&b, "{\"id\": \"s%d\", \"pad\": %q}\n", i, pad)
					want = append(want, outcome{File: name, Line: i, Errors: []string{fmt.Sprintf("/id type %d:8", i)}})
				} else {
					fmt.Fprintf(&b, "{\"id\": %d, \"pad\": %q}\n", i, pad)
					want = append(want, outcome{File: name, Line: i, Valid: true})
				}
			}
			m[name] = b.String()
			srcs = append(srcs, Source{Name: name, Path: name})
			continue
		}
		name := fmt.Sprintf("f%02d.json", f)
		if f%3 == 0 {
			m[name] = fmt.Sprintf(`{"id": %d, "name": "a name longer than eight"}`, f)
			want = append(want, outcome{File: name, Errors: []string{"/name maxLength 1:" + fmt.Sprint(18+len(fmt.Sprint(f)))}})
		} else {
			m[name] = fmt.Sprintf(`{"id": %d}`, f)
			want = append(want, outcome{File: name, Valid: true})
		}
		srcs = append(srcs, Source{Name: name, Path: name})
	}
	fsys := workspace.Memory(m)
	var results [][]Instance
	for _, workers := range []int{1, 8, 0} {
		res := run(t, s, srcs, fsys, &Options{Workers: workers})
		// reflect.DeepEqual first: cmp.Diff of thousands of values is slow under -race.
		if got := outcomes(res.Instances); !reflect.DeepEqual(want, got) {
			t.Fatalf("workers %d: instances (-want +got):\n%s", workers, cmp.Diff(want, got))
		}
		results = append(results, res.Instances)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("Workers 1 and 8 differ (-1 +8):\n%s", cmp.Diff(results[0], results[1]))
	}
	if !reflect.DeepEqual(results[0], results[2]) {
		t.Errorf("Workers 1 and default differ (-1 +default):\n%s", cmp.Diff(results[0], results[2]))
	}
}

// OnInstance receives the same instances, in the same order, as the collected list, and the
// summary still counts them.
func TestOnInstance(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	var b strings.Builder
	for i := range 5000 {
		if i%11 == 0 {
			b.WriteString("{\"id\": null}\n")
		} else if i%97 == 0 {
			b.WriteString("{broken\n")
		} else {
			fmt.Fprintf(&b, "{\"id\": %d}\n", i)
		}
	}
	fsys := workspace.Memory(map[string]string{"a.ndjson": b.String(), "b.json": `{"id": 1}`, "c.yaml": "id: x\n---\nid: 2\n"})
	srcs := files("a.ndjson", "b.json", "nope.json", "c.yaml")
	whole := run(t, s, srcs, fsys, &Options{Workers: 4})
	var streamed []Instance
	res := run(t, s, srcs, fsys, &Options{Workers: 4, OnInstance: func(in *Instance) { streamed = append(streamed, *in) }})
	if !reflect.DeepEqual(whole.Instances, streamed) {
		t.Errorf("streamed instances differ from collected ones (-collected +streamed):\n%s", cmp.Diff(whole.Instances, streamed))
	}
	if len(res.Instances) != 0 {
		t.Errorf("with OnInstance, Result.Instances holds %d instances, want none", len(res.Instances))
	}
	if diff := cmp.Diff(whole.Summary, res.Summary); diff != "" {
		t.Errorf("summary (-collected +streamed):\n%s", diff)
	}
	if res.Valid != whole.Valid || res.Valid {
		t.Errorf("Valid: collected %v, streamed %v; want false", whole.Valid, res.Valid)
	}
	// 5000 lines: 455 with a null id, 47 broken (multiples of 97 but not of 11), and 4 more
	// instances in the other files.
	want := Summary{Total: 5004, Valid: 4498 + 2, Invalid: 455 + 1, Unreadable: 47 + 1}
	if diff := cmp.Diff(want, res.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// OnRead counts every byte of the input once, in input order, each piece after the
// instances it held: whole files, NDJSON chunks, a skipped over-long line, one document.
func TestOnRead(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "{\"id\": %d}\n", i)
	}
	b.WriteString(`{"id": "` + strings.Repeat("x", 2000) + `"}` + "\n{\"id\": 1}\n")
	texts := map[string]string{"a.ndjson": b.String(), "b.json": `{"id": 1}`, "c.yaml": "id: x\n---\nid: 2\n"}
	fsys := workspace.Memory(texts)
	total := int64(0)
	for _, f := range texts {
		total += int64(len(f))
	}
	var reads []int64
	instances, sum := 0, int64(0)
	opts := &Options{Workers: 4, Limits: &source.Limits{MaxSize: 1000},
		OnInstance: func(*Instance) { instances++ },
		OnRead: func(n int64) {
			sum += n
			reads = append(reads, n)
			if instances == 0 {
				t.Errorf("bytes read before any instance")
			}
		}}
	res := run(t, s, files("a.ndjson", "b.json", "c.yaml"), fsys, opts)
	if sum != total {
		t.Errorf("OnRead counted %d bytes, the input has %d (%v)", sum, total, reads)
	}
	if len(reads) < 4 || res.Summary.Total != 40000+2+1+2 {
		t.Errorf("%d reads, %d instances", len(reads), res.Summary.Total)
	}
	// One document, outside the pipeline.
	sum = 0
	run(t, s, files("b.json"), fsys, opts)
	if sum != int64(len(texts["b.json"])) {
		t.Errorf("one document: %d bytes", sum)
	}
}

func TestValidAndExitCode(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	fsys := workspace.Memory(map[string]string{"ok.json": `{"id": 1}`, "bad.json": `{}`, "broken.json": `{`})
	tests := []struct {
		srcs  []string
		valid bool
		code  int
	}{
		{srcs: []string{"ok.json"}, valid: true, code: 0},
		{srcs: []string{"ok.json", "bad.json"}, code: 1},
		{srcs: []string{"ok.json", "broken.json"}, code: 2},
		{srcs: []string{"bad.json", "broken.json"}, code: 2},
		{srcs: nil, code: 0}, // nothing to validate is not "valid"
	}
	for _, tt := range tests {
		res := run(t, s, files(tt.srcs...), fsys, nil)
		if res.Valid != tt.valid || res.ExitCode() != tt.code || res.Failed() != (tt.code == 2) {
			t.Errorf("%q: Valid %v, ExitCode %d, Failed %v; want %v, %d, %v", tt.srcs, res.Valid, res.ExitCode(),
				res.Failed(), tt.valid, tt.code, tt.code == 2)
		}
	}
}

// An evaluation that cannot complete (a pattern over its time limit) is the instance's
// problem, located at its line; the other instances are still validated.
func TestEvaluationError(t *testing.T) {
	t.Parallel()
	doc, err := schema.ParseDocument("schema.json", []byte(`{"pattern": "^(a+)+\\1b$"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(&schema.Options{RegexTimeout: 100 * time.Millisecond})
	if err := c.AddDocument("file:///ws/schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///ws/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	text := "\"aab\"\n\"" + strings.Repeat("a", 40) + "\"\n\"b\"\n"
	res := run(t, s, []Source{{Name: "p.ndjson", Text: []byte(text)}}, nil, nil)
	got := outcomes(res.Instances)
	if len(got) != 3 || !got[0].Valid || got[1].Problem == "" || got[2].Valid || got[2].Problem != "" {
		t.Fatalf("got %+v", got)
	}
	if !strings.HasPrefix(got[1].Problem, "p.ndjson:2: ") || !strings.Contains(got[1].Problem, "time limit") {
		t.Errorf("problem %q does not name the line and the time limit", got[1].Problem)
	}
}

func TestMaxErrors(t *testing.T) {
	s := compileSchema(t, `{"items": {"type": "string"}}`)
	res, err := Run(context.Background(), s, []Source{{Name: "a.json", Text: []byte(`[1, 2, 3]`)}}, nil, &Options{MaxErrors: 2})
	if err != nil {
		t.Fatal(err)
	}
	in := res.Instances[0]
	if !in.Truncated || len(in.Errors) != 2 || in.Valid {
		t.Fatalf("got %+v", in)
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "a.json: more errors not reported: the limit is 2 per instance") {
		t.Errorf("text:\n%s", buf.String())
	}
}

// panicReader panics when read, as a broken input would in a bug of ours.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

// A panic on the pipeline's producer goroutine stops the run and reaches Run's caller
// (where the MCP server recovers it) instead of ending the process.
func TestProducerPanicReachesCaller(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, `{"type": "object"}`)
	srcs := []Source{{Name: "-", Reader: panicReader{}}, {Name: "inline", Text: []byte(`{}`)}}
	got := func() (r any) {
		defer func() { r = recover() }()
		Run(context.Background(), s, srcs, workspace.Memory(nil), &Options{Workers: 2})
		return nil
	}()
	if e, ok := got.(*panics.Error); !ok || e.Value != "boom" {
		t.Fatalf("recovered %#v, want the producer's panic", got)
	}
}

// A small input is validated without workers (smallInput), and its result is the one the
// workers give: NDJSON with a byte order mark, CRLF, blank and broken lines, YAML streams,
// a missing file, inline text, each in input order.
func TestSmallInline(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	var b strings.Builder
	b.WriteString("\uFEFF{\"id\": 1}\r\n\n")
	for i := range 300 {
		switch {
		case i%13 == 0:
			b.WriteString("{\"id\": null}\n")
		case i%41 == 0:
			b.WriteString("{broken\n")
		default:
			fmt.Fprintf(&b, "{\"id\": %d}\r\n", i)
		}
	}
	b.WriteString(`{"id": "last, no newline"}`)
	fsys := workspace.Memory(map[string]string{"a.ndjson": b.String(), "b.json": `{"id": 1}`, "c.yaml": "id: x\n---\nid: 2\n",
		"d.jsonl": "", "e.json": `{"id": 1, "name": "a name longer than eight"}`})
	srcs := append(files("a.ndjson", "b.json", "nope.json", "c.yaml", "d.jsonl", "e.json"),
		Source{Name: "inline", Text: []byte("{\"id\": 3}\n{\"id\": true}\n")})
	if !smallInput(srcs[:2], fsys, nil) || smallInput(srcs, fsys, nil) || smallInput(srcs[:1], fsys, &source.Limits{MaxSize: 100}) {
		t.Fatal("smallInput: a missing file is not small, a file over the size limit is not, two small files are")
	}
	srcs = slices.DeleteFunc(srcs, func(s Source) bool { return s.Name == "nope.json" })
	var streamed []Instance
	var read []int64
	inline := run(t, s, srcs, fsys, &Options{OnInstance: func(in *Instance) { streamed = append(streamed, *in) },
		OnRead: func(n int64) { read = append(read, n) }})
	workers := run(t, s, srcs, fsys, &Options{Workers: 2})
	if !reflect.DeepEqual(workers.Instances, streamed) {
		t.Errorf("inline and with workers differ (-workers +inline):\n%s", cmp.Diff(workers.Instances, streamed))
	}
	if diff := cmp.Diff(workers.Summary, inline.Summary); diff != "" || inline.Valid || workers.Summary.Total != 308 {
		t.Errorf("summary (-workers +inline):\n%s (total %d)", diff, workers.Summary.Total)
	}
	if total := func() (n int64) {
		for _, r := range read {
			n += r
		}
		return n
	}(); total != int64(b.Len()+len(`{"id": 1}`)+len("id: x\n---\nid: 2\n")+len(`{"id": 1, "name": "a name longer than eight"}`)+len("{\"id\": 3}\n{\"id\": true}\n")) {
		t.Errorf("OnRead: %v bytes, not the input's", read)
	}
}

// An inline text is parsed in the format its ParseName's extension names, without telling
// it from the text; with no such extension it is told from the text.
func TestParseNameGivesFormat(t *testing.T) {
	s := compileSchema(t, `{"type": "object"}`)
	lines := []byte("{\"a\": 1}\n{\"b\": 2}\n")
	for _, c := range []struct {
		parseName string
		instances int
		problem   bool
	}{
		{"", 2, false},               // told from the text: NDJSON, two instances
		{"<instances[0]>", 2, false}, // no extension: the same
		{"<instances[0]>.json", 0, true},
	} {
		res, err := Run(context.Background(), s, []Source{{Name: "inline", Text: lines, ParseName: c.parseName}}, nil, &Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		problems := 0
		for _, in := range res.Instances {
			if in.Problem != "" {
				problems++
			}
		}
		if got := len(res.Instances) - problems; got != c.instances || (problems > 0) != c.problem {
			t.Errorf("ParseName %q: %d instances, %d problems; want %d instances, problem %v", c.parseName, got, problems, c.instances, c.problem)
		}
	}
}
