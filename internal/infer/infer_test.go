package infer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func values(t *testing.T, texts ...string) []source.Value {
	t.Helper()
	var out []source.Value
	for _, s := range texts {
		doc, err := source.ParseJSON("t.json", []byte(s), nil)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out = append(out, doc.Root)
	}
	return out
}

// inferred returns the schema inferred from instances, without $schema, as compact JSON.
func inferred(t *testing.T, opts *Options, insts ...string) string {
	t.Helper()
	sum, err := NewSummary(opts)
	if err != nil {
		t.Fatal(err)
	}
	vals := values(t, insts...)
	for _, v := range vals {
		sum.Add(v)
	}
	res := sum.Result()
	// Soundness, always: the schema accepts what it was inferred from.
	s, err := compileResult(res, true)
	if err != nil {
		t.Fatalf("inferred schema does not compile: %v\n%s", err, res.Schema)
	}
	for i, v := range vals {
		if errs, _ := s.Validate(v); len(errs) > 0 {
			t.Errorf("instance %d rejected by %s: %s", i, res.Schema, errs[0].Message)
		}
	}
	var b source.ObjectBuilder
	root := res.Value()
	for i := 0; i < root.Len(); i++ {
		k, v := root.Member(i)
		if k.Str() != "$schema" {
			b.Set(k.Str(), v)
		}
	}
	return string(source.AppendJSON(nil, b.Value()))
}

func TestInfer(t *testing.T) {
	many := func(vals ...string) []string {
		var out []string
		for i := 0; i < 30; i++ {
			out = append(out, vals[i%len(vals)])
		}
		return out
	}
	tests := []struct {
		name  string
		opts  Options
		insts []string
		want  string
	}{
		{"integers", Options{}, []string{`1`, `2`}, `{"type":"integer"}`},
		{"integer widened to number", Options{}, []string{`1`, `2.5`}, `{"type":"number"}`},
		{"1.0 is an integer", Options{}, []string{`1.0`}, `{"type":"integer"}`},
		{"1.0 is a number in draft 4", Options{Draft: schema.Draft4}, []string{`1.0`}, `{"type":"number"}`},
		{"null folded", Options{}, []string{`"a"`, `null`}, `{"type":["string","null"]}`},
		{"mixed kinds", Options{}, []string{`true`, `"x"`, `[]`, `{}`, `3`}, `{"type":["object","array","string","integer","boolean"]}`},
		{"required and optional", Options{}, []string{`{"a":1,"b":"x"}`, `{"a":2}`},
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"]}`},
		{"property order is first seen", Options{}, []string{`{"z":1}`, `{"a":1,"z":2}`},
			`{"type":"object","properties":{"z":{"type":"integer"},"a":{"type":"integer"}},"required":["z"]}`},
		{"array items merge", Options{}, []string{`[1,"a"]`, `[]`},
			`{"type":"array","items":{"type":["string","integer"]}}`},
		{"empty arrays have no items", Options{}, []string{`[]`}, `{"type":"array"}`},
		{"date-time", Options{}, []string{`"2024-05-08T07:08:47Z"`, `"2024-01-01T00:00:00+01:00"`}, `{"type":"string","format":"date-time"}`},
		{"date", Options{}, []string{`"2024-05-08"`}, `{"type":"string","format":"date"}`},
		{"time", Options{}, []string{`"07:08:47Z"`}, `{"type":"string","format":"time"}`},
		{"uuid", Options{}, []string{`"bdd640fb-0667-4ad1-9c80-317fa3b1799d"`}, `{"type":"string","format":"uuid"}`},
		{"no uuid before 2019-09", Options{Draft: schema.Draft7}, []string{`"bdd640fb-0667-4ad1-9c80-317fa3b1799d"`}, `{"type":"string"}`},
		{"no date in draft 6", Options{Draft: schema.Draft6}, []string{`"2024-05-08"`}, `{"type":"string"}`},
		{"email", Options{}, []string{`"a@example.com"`}, `{"type":"string","format":"email"}`},
		{"ipv4", Options{}, []string{`"10.0.0.1"`}, `{"type":"string","format":"ipv4"}`},
		{"ipv6", Options{}, []string{`"2001:db8::1"`}, `{"type":"string","format":"ipv6"}`},
		{"uri", Options{}, []string{`"https://example.com/x"`, `"urn:isbn:123"`}, `{"type":"string","format":"uri"}`},
		{"hostname", Options{}, []string{`"api.example.com"`}, `{"type":"string","format":"hostname"}`},
		{"a word is not a hostname", Options{}, []string{`"pending"`}, `{"type":"string"}`},
		{"a format needs every string", Options{}, []string{`"2024-05-08"`, `"soon"`}, `{"type":"string"}`},
		{"no formats", Options{NoFormats: true}, []string{`"2024-05-08"`}, `{"type":"string"}`},
		{"enum", Options{}, many(`"red"`, `"green"`, `"blue"`),
			`{"type":"string","enum":["blue","green","red"]}`},
		{"enum with null", Options{}, append(many(`"on"`, `"off"`), `null`),
			`{"type":["string","null"],"enum":["off","on",null]}`},
		{"too few strings for an enum", Options{}, []string{`"a"`, `"a"`, `"b"`}, `{"type":"string"}`},
		{"enum threshold tunable", Options{EnumMinCount: 2}, []string{`"a"`, `"a"`, `"a"`, `"a"`, `"a"`, `"b"`, `"a"`, `"b"`, `"a"`},
			`{"type":"string","enum":["a","b"]}`},
		{"too many distinct values", Options{}, many(`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`), `{"type":"string"}`},
		{"map by data keys", Options{}, []string{`{"2024-01-01":1,"2024-01-02":2}`, `{"2024-01-03":3}`},
			`{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"closed", Options{Closed: true}, []string{`{"a":{"b":1}}`},
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}},"required":["b"],"additionalProperties":false}},"required":["a"],"additionalProperties":false}`},
		{"bounds", Options{Bounds: true}, []string{`{"s":"ab","n":-1.5,"a":[1]}`, `{"s":"abcd","n":3,"a":[1,2,3]}`},
			`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4},"n":{"type":"number","minimum":-1.5,"maximum":3},"a":{"type":"array","items":{"type":"integer","minimum":1,"maximum":3},"minItems":1,"maxItems":3}},"required":["s","n","a"],"minProperties":3,"maxProperties":3}`},
		{"anyOf alternatives", Options{AnyOf: true}, []string{`{"kind":"a","x":1}`, `{"kind":"a","x":2}`, `{"id":"b","y":[],"z":true}`},
			`{"anyOf":[{"type":"object","properties":{"kind":{"type":"string"},"x":{"type":"integer"}},"required":["kind","x"]},{"type":"object","properties":{"id":{"type":"string"},"y":{"type":"array"},"z":{"type":"boolean"}},"required":["id","y","z"]}]}`},
		{"anyOf with scalars", Options{AnyOf: true}, []string{`{"a":1}`, `{"b":1}`, `"s"`},
			`{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"integer"}},"required":["b"]},{"type":"string"}]}`},
		{"similar shapes merge", Options{AnyOf: true}, []string{`{"a":1,"b":1,"c":1}`, `{"a":1,"b":1}`},
			`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}},"required":["a","b"]}`},
		{"repeated shapes in $defs", Options{}, []string{`{"from":{"x":1,"y":2},"to":{"x":3,"y":4}}`},
			`{"type":"object","properties":{"from":{"$ref":"#/$defs/from"},"to":{"$ref":"#/$defs/from"}},"required":["from","to"],"$defs":{"from":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"]}}}`},
		{"definitions before 2019-09", Options{Draft: schema.Draft7}, []string{`{"a":[{"p":1,"q":2}],"b":{"p":1,"q":2}}`},
			`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/aItem"}},"b":{"$ref":"#/definitions/aItem"}},"required":["a","b"],"definitions":{"aItem":{"type":"object","properties":{"p":{"type":"integer"},"q":{"type":"integer"}},"required":["p","q"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := inferred(t, &tt.opts, tt.insts...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestMapThresholds(t *testing.T) {
	// Many keys, each object using few of them, one value type: a map.
	var insts []string
	for i := 0; i < 10; i++ {
		insts = append(insts, fmt.Sprintf(`{"k%d":%d,"k%d":1}`, 2*i, i, 2*i+1))
	}
	got := inferred(t, nil, insts...)
	if want := `{"type":"object","additionalProperties":{"type":"integer"}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// With a higher threshold, the same objects are records.
	got = inferred(t, &Options{MapMinKeys: 50}, insts...)
	if !strings.Contains(got, `"properties"`) {
		t.Errorf("MapMinKeys 50: got %s, want properties", got)
	}
	// Too many keys to track at all: a map, with every value merged.
	sum, _ := NewSummary(nil)
	for i := 0; i < 1100; i++ {
		sum.Add(values(t, fmt.Sprintf(`{"key%d":"v"}`, i))[0])
	}
	if got := string(sum.Result().Schema); !strings.Contains(got, `"additionalProperties":{"type":"string","enum":["v"]}`) {
		t.Errorf("1100 keys: got %s", got)
	}
}

func TestFrom(t *testing.T) {
	from := `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Order","type":"object",
		"properties":{"id":{"type":"string","format":"uuid","description":"the id"},
			"status":{"enum":["new","paid"]},
			"qty":{"type":"integer","minimum":1,"maximum":10,"multipleOf":1},
			"code":{"type":"string","pattern":"^[A-Z]+$","minLength":2},
			"tags":{"type":"array","items":{"type":"string"},"maxItems":3},
			"meta":{"type":"object","additionalProperties":{"type":"string"}},
			"ref":{"$ref":"#/$defs/r"},
			"odd":{"oneOf":[{"type":"string"}]}},
		"required":["id","status"],"additionalProperties":false,
		"$defs":{"r":{"type":"object","properties":{"x":{"type":"integer"}},"allOf":[{"required":["x"]}]}}}`
	s := compile(t, from)
	got := inferred(t, &Options{From: s},
		`{"id":"bdd640fb-0667-4ad1-9c80-317fa3b1799d","status":"shipped","qty":20,"code":"ab","tags":["a","b","c","d"],"meta":{"k":"v"},"ref":{"x":1},"extra":true}`)
	want := `{"title":"Order","type":"object","properties":{"id":{"description":"the id","type":"string","format":"uuid"},` +
		`"status":{"type":"string","enum":["new","paid","shipped"]},"qty":{"type":"integer","minimum":1,"maximum":20,"multipleOf":1},` +
		`"code":{"type":"string","minLength":2},"tags":{"type":"array","items":{"type":"string"},"maxItems":4},` +
		`"meta":{"type":"object","additionalProperties":{"type":"string"}},"ref":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]},` +
		`"odd":{},"extra":{"type":"boolean"}},"required":["id","status"],"additionalProperties":false}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	sum, err := NewSummary(&Options{From: s})
	if err != nil {
		t.Fatal(err)
	}
	if notes := sum.Result().NoteList; len(notes) != 1 || !strings.Contains(notes[0], "oneOf") {
		t.Errorf("notes = %q, want one about oneOf", notes)
	}
}

func TestFromRecursive(t *testing.T) {
	s := compile(t, `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}},"not":false}`)
	sum, err := NewSummary(&Options{From: s})
	if err != nil {
		t.Fatal(err)
	}
	sum.Add(values(t, `{"kids":[{"kids":[]}]}`)[0])
	res := sum.Result()
	var kinds []string
	for _, n := range res.NoteList {
		switch {
		case strings.Contains(n, "recursive"):
			kinds = append(kinds, "recursive")
		case strings.Contains(n, "not"):
			kinds = append(kinds, "not")
		}
	}
	if diff := cmp.Diff([]string{"recursive", "not"}, kinds); diff != "" {
		t.Errorf("notes %q (-want +got)\n%s", res.NoteList, diff)
	}
	if len(res.Diagnostics()) != len(res.NoteList) {
		t.Errorf("diagnostics %v", res.Diagnostics())
	}
}

func compile(t *testing.T, text string) *schema.Schema {
	t.Helper()
	doc, err := source.ParseJSON("from.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler(nil)
	if err := c.AddDocument("file:///from.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///from.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRun(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"a.json":       `{"n":1,"when":"2024-05-08"}`,
		"dir/b.yaml":   "n: 2\nwhen: 2024-05-09\n---\nn: 3\n",
		"dir/c.toml":   "n = 4\n",
		"lines.ndjson": "{\"n\":5}\n\n{\"n\":6.5}\r\n{\"n\":7}",
	})
	srcs := []Source{{Name: "a.json", Path: "a.json"}, {Name: "dir/b.yaml", Path: "dir/b.yaml"},
		{Name: "dir/c.toml", Path: "dir/c.toml"}, {Name: "lines.ndjson", Path: "lines.ndjson"},
		{Name: "-", Reader: strings.NewReader("{\"n\":8}\n{\"n\":9}\n")},
		{Name: "<inline>", Text: []byte(`{"n":10,"extra":null}`)}}
	res, err := Run(context.Background(), srcs, fsys, &Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Instances != 10 {
		t.Errorf("instances = %d, want 10", res.Instances)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"number"},"when":{"type":"string","format":"date"},"extra":{"type":"null"}},"required":["n"]}`
	if diff := cmp.Diff(want, string(res.Schema)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	var fromText any
	if err := json.Unmarshal(buf.Bytes(), &fromText); err != nil || !strings.HasSuffix(buf.String(), "}\n") || !strings.Contains(buf.String(), "\n  \"type\"") {
		t.Errorf("text output is not the indented schema: %v\n%s", err, buf.String())
	}
	if res.ExitCode() != 0 || res.Diagnostics() != nil || res.Draft != "2020-12" {
		t.Errorf("exit %d, diagnostics %v, draft %q", res.ExitCode(), res.Diagnostics(), res.Draft)
	}
}

func TestRunErrors(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"bad.ndjson": "{\"a\":1}\n{\"a\":\n",
		"bad.json":   `{"a":`,
		"empty.json": ``,
		"none.jsonl": "\n\n",
		"long.jsonl": `{"a":"` + strings.Repeat("x", 100) + `"}` + "\n",
	})
	tests := []struct {
		name string
		srcs []Source
		opts *Options
		want string
	}{
		{"bad ndjson line", []Source{{Name: "bad.ndjson", Path: "bad.ndjson"}}, nil, "bad.ndjson:2:"},
		{"bad json", []Source{{Name: "bad.json", Path: "bad.json"}}, nil, "bad.json:1:"},
		{"missing file", []Source{{Name: "nope.json", Path: "nope.json"}}, nil, "nope.json"},
		{"missing ndjson", []Source{{Name: "nope.ndjson", Path: "nope.ndjson"}}, nil, "nope.ndjson"},
		{"no documents", []Source{{Name: "none.jsonl", Path: "none.jsonl"}}, nil, "no instances"},
		{"line too long", []Source{{Name: "long.jsonl", Path: "long.jsonl"}}, &Options{Limits: &source.Limits{MaxSize: 50}}, "long.jsonl:1: line is longer"},
		{"stdin too large", []Source{{Name: "-", Reader: strings.NewReader(`"` + strings.Repeat("x", 100) + `"`)}}, &Options{Limits: &source.Limits{MaxSize: 50}}, "larger than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.srcs, fsys, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []Source{{Name: "x", Text: []byte("1")}}, fsys, nil); err == nil {
		t.Errorf("cancelled run: no error")
	}
}

// randomDoc makes a random JSON document of a few shapes.
func randomDoc(r *rand.Rand) string {
	kinds := []string{`"2024-01-0%d"`, `%d`, `%d.5`, `"s%d"`, `null`, `true`, `[%d, "x"]`, `{"k%d": 1}`}
	var sb strings.Builder
	sb.WriteString("{")
	for i := range 6 {
		if r.IntN(3) == 0 {
			continue
		}
		if sb.Len() > 1 {
			sb.WriteString(",")
		}
		k := kinds[r.IntN(len(kinds))]
		if strings.Contains(k, "%d") {
			k = fmt.Sprintf(k, 1+r.IntN(9))
		}
		fmt.Fprintf(&sb, `"p%d":%s`, i, k)
	}
	sb.WriteString("}")
	return sb.String()
}

func TestRunDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for range 20000 {
		sb.WriteString(randomDoc(r))
		sb.WriteString("\n")
	}
	fsys := workspace.Memory(map[string]string{"d.ndjson": sb.String()})
	first := map[bool]string{}
	for _, w := range []int{1, 2, 5} {
		for _, anyOf := range []bool{false, true} {
			res, err := Run(context.Background(), []Source{{Name: "d.ndjson", Path: "d.ndjson"}}, fsys, &Options{Workers: w, AnyOf: anyOf, Bounds: true})
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Schema)
			if w == 1 {
				first[anyOf] = got
				continue
			}
			if got != first[anyOf] {
				t.Errorf("workers %d anyOf %v: output differs from 1 worker:\n%s\n%s", w, anyOf, first[anyOf], got)
			}
		}
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{"items": "item", "entries": "entry", "addresses": "address", "data": "dataItem", "": "", "bus": "busItem", "class": "classItem"} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzInferSound(f *testing.F) {
	f.Add("{\"a\":1}\n{\"a\":\"x\",\"b\":[1,2.5]}")
	f.Add("[1,null,{\"x\":{}}]\n\"2024-01-01\"\n3")
	f.Add("{\"k\":\"a@b.co\"}\n{\"k\":null}")
	f.Fuzz(func(t *testing.T, text string) {
		var vals []source.Value
		for _, line := range strings.Split(text, "\n") {
			doc, err := source.ParseJSON("f.json", []byte(line), nil)
			if err == nil {
				vals = append(vals, doc.Root)
			}
		}
		if len(vals) == 0 {
			return
		}
		for _, opts := range []Options{{}, {Closed: true, Bounds: true, AnyOf: true, EnumMinCount: 1}, {Draft: schema.Draft4}} {
			sum, err := NewSummary(&opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				sum.Add(v)
			}
			res := sum.Result()
			s, err := compileResult(res, true)
			if err != nil {
				t.Fatalf("inferred schema does not compile: %v\n%s", err, res.Schema)
			}
			for _, v := range vals {
				if errs, _ := s.Validate(v); len(errs) > 0 {
					t.Fatalf("%s rejected by %s: %s", source.AppendJSON(nil, v), res.Schema, errs[0].Message)
				}
			}
		}
	})
}
