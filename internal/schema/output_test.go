package schema

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

func outputOf(t *testing.T, schemaText, inst string, f OutputFormat) string {
	t.Helper()
	doc, err := source.ParseJSON("s.json", []byte(schemaText), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileInline(doc.Root, "https://jstk.test/out.json", &Options{Draft: Draft2020})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := source.ParseJSON("i.json", []byte(inst), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Output(context.Background(), iv.Root, f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOutputFormats(t *testing.T) {
	const sch = `{"properties":{"a":{"type":"string","title":"A"},"b":{"anyOf":[{"type":"string"},{"minimum":3}]}},"title":"R"}`
	const loc = `"absoluteKeywordLocation":"https://jstk.test/out.json#`
	cases := []struct {
		inst   string
		f      OutputFormat
		want   []string // substrings of the output
		absent []string
	}{
		{`{"a":1}`, OutputFlag, []string{`{"valid":false}`}, nil},
		{`{"a":"x"}`, OutputFlag, []string{`{"valid":true}`}, nil},
		{`{"a":1}`, OutputBasic, []string{`{"valid":false,"keywordLocation":"",` + loc + `","instanceLocation":"","errors":[{"valid":false,"keywordLocation":"/properties/a/type",` + loc + `/properties/a/type","instanceLocation":"/a","error":"value must be string, not integer"}]}`}, []string{`annotation`}},
		{`{"a":"x"}`, OutputBasic, []string{`"annotations":[`, `"keywordLocation":"/properties/a/title"`, `"annotation":"A"`, `"annotation":["a"]`}, []string{`"errors"`}},
		// detailed: the unit of /properties/b holds the anyOf error and its causes; the
		// unit of /properties/a, holding one error, is replaced by it
		{`{"a":1,"b":1}`, OutputDetailed, []string{`{"valid":false,"keywordLocation":"/properties/a/type"`, `{"valid":false,"keywordLocation":"/properties/b",` + loc + `/properties/b","instanceLocation":"/b","errors":[{"valid":false,"keywordLocation":"/properties/b/anyOf"`}, []string{`"keywordLocation":"/properties/a",`}},
		// verbose: every subschema, the alternative that failed in a passing anyOf too
		{`{"b":4}`, OutputVerbose, []string{`"keywordLocation":"/properties/b/anyOf/0",` + loc + `/properties/b/anyOf/0","instanceLocation":"/b","error":"the subschema fails here`, `{"valid":true,"keywordLocation":"/properties/b/anyOf/1"`}, nil},
		{`{"a":1,"b":1}`, OutputVerbose, []string{`{"valid":false,"keywordLocation":"/properties/a",`, `"errors":[{"valid":false,"keywordLocation":"/properties/a/type"`}, []string{`"annotation"`}},
	}
	for _, c := range cases {
		got := outputOf(t, sch, c.inst, c.f)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: missing %s in\n%s", c.inst, c.f, w, got)
			}
		}
		for _, a := range c.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s %s: unexpected %s in\n%s", c.inst, c.f, a, got)
			}
		}
	}
	if _, err := ParseOutputFormat("list"); err == nil || !strings.Contains(err.Error(), "flag, basic, detailed or verbose") {
		t.Errorf("ParseOutputFormat(list): %v", err)
	}
	s := mustCompile(t, `{}`)
	if _, err := s.Output(context.Background(), source.Value{}, "list"); err == nil {
		t.Error("Output accepted the format list")
	}
}

// OutputLimit stops at the error limit, as ValidateLimit does; Size estimates the JSON.
func TestOutputLimitAndSize(t *testing.T) {
	doc, err := source.ParseJSON("s.json", []byte(`{"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileInline(doc.Root, "https://jstk.test/lim.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	inst := parse(t, `{"a":1,"b":2}`).Root
	u, truncated, err := s.OutputLimit(context.Background(), inst, OutputBasic, 1)
	if err != nil || !truncated || len(u.Errors) != 1 {
		t.Fatalf("OutputLimit 1: %v %v %+v", truncated, err, u)
	}
	u, truncated, err = s.OutputLimit(context.Background(), inst, OutputDetailed, 0)
	if err != nil || truncated || len(u.Errors) != 2 {
		t.Fatalf("OutputLimit 0: %v %v %+v", truncated, err, u)
	}
	b, _ := json.Marshal(u)
	if n := u.Size(); n < len(b)/2 || n > 2*len(b) {
		t.Errorf("Size %d, JSON %d bytes", n, len(b))
	}
}
