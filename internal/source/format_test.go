package source

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormatOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want Format
		ok   bool
	}{
		{"a.json", JSON, true},
		{"dir/order.schema.json", JSON, true},
		{"A.JSON", JSON, true},
		{"c.yaml", YAML, true},
		{"c.yml", YAML, true},
		{`win\path\c.YML`, YAML, true},
		{"pyproject.toml", TOML, true},
		{"data.ndjson", NDJSON, true},
		{"data.jsonl", NDJSON, true},
		{"data.ldjson", NDJSON, true},
		{"-", 0, false},
		{"Makefile", 0, false},
		{"x.json5", 0, false},
		{"dir.json/file", 0, false},
		{".json", JSON, true},
	}
	for _, tt := range tests {
		f, ok := FormatOf(tt.name)
		if f != tt.want || ok != tt.ok {
			t.Errorf("FormatOf(%q) = %v, %v; want %v, %v", tt.name, f, ok, tt.want, tt.ok)
		}
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Format
	}{
		{`{"a":1}`, JSON},
		{"\uFEFF  [1, 2]\n", JSON},
		{`"just a string"`, JSON},
		{`42`, JSON},
		{`null`, JSON},
		{"", JSON},
		{"  \n", JSON},
		{"{\"a\":1}\n{\"a\":2}\n", NDJSON},
		{"\n1\n\n2\n", NDJSON},
		{"{\"a\":1}\n{\"a\":", JSON}, // the second line is not JSON: JSON, whose error says why
		{"{\"a\":1,}", JSONC},        // not JSON, but JSONC (and YAML) reads it
		{"// settings\n{\"a\": 1}", JSONC},
		{"/* x */ [1]", JSONC},
		{"{a: ", JSON},
		{"[x]\ny = 1\n", TOML},
		{"# comment\n[[servers]]\nname = 'a'\n", TOML},
		{"key = 'v'", TOML},
		{"a.\"b c\" = 1\n", TOML},
		{"[x]\n", YAML},
		{"[x]\n[y]\n", TOML},
		{"[x]\n- 1\n", JSON}, // no format reads it: JSON, for its error
		{"[x, y]\n", YAML},
		{"key = value\n", YAML}, // not TOML: a YAML string
		{"a: 1\n", YAML},
		{"- a\n- b\n", YAML},
		{"true or false", YAML},
		{"---\na: 1\n", YAML},
		{"# only a comment\n", YAML},
		{"= 1\n", YAML},
		{"[]x\n", JSON},
		{"{a: 1}" + strings.Repeat(" ", sniffYAMLLimit), JSON}, // too large to try as YAML
	}
	for _, tt := range tests {
		if got := Sniff([]byte(tt.in)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string
	}{
		{"a.json", `{"a":1}`, []string{`{"a":1}`}},
		{"a.yaml", "a: 1\n---\nb: 2\n", []string{`{"a":1}`, `{"b":2}`}},
		{"a.toml", "a = 1\n", []string{`{"a":1}`}},
		{"a.jsonl", "1\n2\n", []string{"1", "2"}},
		{"-", "a = 1\n", []string{`{"a":1}`}},
		{"-", "a: [1]\n", []string{`{"a":[1]}`}},
		{"stdin", "1\n2\n", []string{"1", "2"}},
	}
	for _, tt := range tests {
		docs, err := ParseFile(tt.name, []byte(tt.in), nil)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []string
		for _, d := range docs {
			got = append(got, compact(d.Root))
			if d.Name != tt.name {
				t.Errorf("name %q", d.Name)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct {
		name, in string
		f        Format
		want     string
	}{
		{"a.json", "{", JSON, "a.json:1:2: unexpected end of input: expected a member name in double quotes"},
		{"a.toml", "a =", TOML, "a.toml:1:3: expected value, not end of input"},
		{"a.yaml", "a: [", YAML, "a.yaml:1:5: did not find expected node content"},
		{"a.json", "{\"a\":\"\xc3\x28\"}", JSON, "a.json:1:7: invalid UTF-8 byte 0xc3 in string"},
		{"a.x", "1", Format(9), "source.Parse: unknown format format(9)"},
	}
	for _, tt := range errs {
		docs, err := Parse(tt.name, []byte(tt.in), tt.f, nil)
		if got := errString(err); got != tt.want || docs != nil {
			t.Errorf("Parse(%q, %v) = %v\nwant %s", tt.in, tt.f, got, tt.want)
		}
	}
}

// TestParseShared checks that ParseShared gives Parse's documents and errors in every
// format, and that a JSON document shares the caller's memory where Parse's keeps a copy.
func TestParseShared(t *testing.T) {
	for _, c := range []struct {
		f    Format
		text string
	}{
		{JSON, `{"a": [1, "b\n", {"c": null}]}`},
		{JSON, `{"a": }`},
		{JSONC, "{\"a\": 1, // c\n}"},
		{YAML, "a: [1, b]\n---\nc: d\n"},
		{TOML, "a = 1\n[b]\nc = 'd'\n"},
		{NDJSON, "{\"a\":1}\n[2]\n"},
	} {
		wsrc, src := []byte(c.text), []byte(c.text)
		want, werr := Parse("x", wsrc, c.f, nil)
		got, err := ParseShared("x", src, c.f, nil)
		if fmt.Sprint(err) != fmt.Sprint(werr) || len(got) != len(want) {
			t.Fatalf("%v %q: %d documents, error %v; Parse: %d, %v", c.f, c.text, len(got), err, len(want), werr)
		}
		for i := range got {
			if !same(got[i].Root, want[i].Root) {
				t.Errorf("%v %q: document %d differs from Parse's", c.f, c.text, i)
			}
		}
		shares := len(got) == 1 && &got[0].Source()[0] == &src[0]
		if c.f == JSON && err == nil && !shares {
			t.Errorf("%q: the JSON document keeps a copy of its text", c.text)
		}
		if len(want) == 1 && &want[0].Source()[0] == &wsrc[0] {
			t.Errorf("%v %q: Parse's document shares the caller's text", c.f, c.text)
		}
	}
}

// ParseIfJSON gives the document of one JSON value, shared or not, and nil for anything
// else, for Sniff to tell.
func TestParseIfJSON(t *testing.T) {
	for _, c := range []struct {
		text string
		json bool
	}{
		{"\uFEFF  {\"a\": [1, 2]}\n", true},
		{"[1]", true},
		{"\"s\"", true},
		{"{\"a\": 1}\n{\"b\": 2}\n", false}, // NDJSON
		{"a: 1\n", false},                   // YAML
		{"{\"a\": 1,}", false},              // JSONC
		{"", false},
		{"{\"a\": ", false},
	} {
		for _, share := range []bool{false, true} {
			doc := ParseIfJSON("x", []byte(c.text), nil, share)
			if (doc != nil) != c.json {
				t.Errorf("ParseIfJSON(%q, share %v): %v, want a document %v", c.text, share, doc != nil, c.json)
			}
		}
	}
	if doc := ParseIfJSON("x", []byte("[[[1]]]"), &Limits{MaxDepth: 2}, false); doc != nil {
		t.Error("a value deeper than the limit: a document")
	}
}
