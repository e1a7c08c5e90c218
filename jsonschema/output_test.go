package jsonschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestOutputErrors(t *testing.T) {
	s := mustCompile(t, `{"type":"string"}`, nil)
	if _, err := s.Output(bg, "x", "list"); err == nil || !strings.Contains(err.Error(), "flag, basic, detailed or verbose") {
		t.Errorf("unknown format: %v", err)
	}
	var se *SyntaxError
	if _, err := s.OutputBytes(bg, []byte(`{"a":`), Basic); !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := s.Output(bg, make(chan int), Basic); err == nil {
		t.Error("a channel was taken as an instance")
	}
	if _, _, err := s.Annotate(bg, make(chan int)); err == nil {
		t.Error("a channel was taken as an instance by Annotate")
	}
	if _, err := Compile(bg, "", []byte(`{}`), &Options{Formats: map[string]func(any) error{"x": nil}}); err == nil || !strings.Contains(err.Error(), `format "x"`) {
		t.Errorf("a nil format: %v", err)
	}
}

// Every format of a valid and an invalid instance marshals to the shape the
// specification gives it; verbose has the unit of each subschema.
func TestOutputShapes(t *testing.T) {
	s := mustCompile(t, `{"properties":{"a":{"title":"A","minimum":2}}}`, nil)
	for _, c := range []struct {
		inst string
		f    OutputFormat
		want string
	}{
		{`{"a":3}`, Flag, `{"valid":true}`},
		{`{"a":3}`, Basic, `{"valid":true,"keywordLocation":"","absoluteKeywordLocation":"https://jstk.test/s.json#","instanceLocation":"","annotations":[{"valid":true,"keywordLocation":"/properties/a/title","absoluteKeywordLocation":"https://jstk.test/s.json#/properties/a/title","instanceLocation":"/a","annotation":"A"},{"valid":true,"keywordLocation":"/properties","absoluteKeywordLocation":"https://jstk.test/s.json#/properties","instanceLocation":"","annotation":["a"]}]}`},
		{`{"a":1}`, Verbose, `{"valid":false,"keywordLocation":"","absoluteKeywordLocation":"https://jstk.test/s.json#","instanceLocation":"","errors":[{"valid":false,"keywordLocation":"/properties/a","absoluteKeywordLocation":"https://jstk.test/s.json#/properties/a","instanceLocation":"/a","errors":[{"valid":false,"keywordLocation":"/properties/a/minimum","absoluteKeywordLocation":"https://jstk.test/s.json#/properties/a/minimum","instanceLocation":"/a","error":"1 is less than the minimum 2"}]}]}`},
	} {
		u, err := s.OutputBytes(bg, []byte(c.inst), c.f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(u)
		if string(b) != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.inst, c.f, b, c.want)
		}
	}
	anns, errs, err := s.Annotate(bg, map[string]any{"a": json.Number("1")})
	if err != nil || len(anns) != 0 || len(errs) != 1 || errs[0].Keyword != "minimum" {
		t.Errorf("Annotate of an invalid instance: %v %v %v", anns, errs, err)
	}
}
