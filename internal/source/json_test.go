package source

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string         // compact JSON of the root
		offs map[string]int // some offsets
	}{
		{"object", `{"a":1,"b":[true,false,null],"c":"x"}`, `{"a":1,"b":[true,false,null],"c":"x"}`,
			map[string]int{"": 0, "/a#key": 1, "/a": 5, "/b": 11, "/b/2": 23, "/c#key": 29, "/c": 33}},
		{"white space", " \t\r\n[ 1 ,\n\t2 ]\n ", `[1,2]`, map[string]int{"": 4, "/0": 6, "/1": 11}},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[],"b":{}}`, map[string]int{"/a": 5, "/b": 12}},
		{"scalar", `"x"`, `"x"`, map[string]int{"": 0}},
		{"numbers kept as written", `[-0,1.5e+10,1E-2,0.0,123456789012345678901234567890]`,
			`[-0,1.5e+10,1E-2,0.0,123456789012345678901234567890]`, nil},
		{"escapes", `"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\u0000"`, `"a\"b\\c/d\b\f\n\r\té😀\u0000"`, nil},
		{"lone surrogate", `["\ud800","\udc00x","\ud800\u0041"]`, `["�","�x","�A"]`, nil},
		{"non-ASCII", `{"é":"日本"}`, `{"é":"日本"}`, map[string]int{"/é#key": 1, "/é": 6}},
		{"byte order mark", "\uFEFF{\"a\":1}", `{"a":1}`, map[string]int{"": 3, "/a": 8}},
		{"duplicate keys: first place, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`,
			map[string]int{"/a#key": 1, "/a": 17, "/b#key": 7}},
		{"duplicate keys in a large object", `{` + manyKeys(40) + `,"k7":"again"}`,
			`{` + strings.Replace(manyKeys(40), `"k7":7`, `"k7":"again"`, 1) + `}`, nil},
		{"long string", `"` + strings.Repeat("abcdefgh", 10) + `é"`, `"` + strings.Repeat("abcdefgh", 10) + `é"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := ParseJSON("t.json", []byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(doc.Root); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if tt.offs != nil {
				if diff := cmp.Diff(tt.offs, subset(offsets(doc.Root), tt.offs)); diff != "" {
					t.Errorf("offsets (-want +got):\n%s", diff)
				}
			}
			if doc.Name != "t.json" || doc.Format != JSON || doc.Line != 1 || string(doc.Source()) != tt.in {
				t.Errorf("document = %q %v line %d", doc.Name, doc.Format, doc.Line)
			}
			if !json.Valid([]byte(strings.TrimPrefix(tt.in, "\uFEFF"))) {
				t.Errorf("encoding/json rejects %q", tt.in)
			}
		})
	}
}

func manyKeys(n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"k` + itoa(i) + `":` + itoa(i))
	}
	return sb.String()
}

func itoa(i int) string { return string(AppendJSON(nil, IntValue(int64(i)))) }

func TestParseJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lim  *Limits
		want string
	}{
		{"empty", "", nil, "t.json:1:1: empty document: expected a JSON value"},
		{"only space", "   \n  ", nil, "t.json:2:3: empty document: expected a JSON value"},
		{"trailing comma in object", `{"a":1,}`, nil, `t.json:1:8: unexpected character '}': expected a member name in double quotes (a trailing comma is not JSON; if this is JSONC, name the file .jsonc or use --jsonc)`},
		{"trailing comma in array", `[1,]`, nil, `t.json:1:4: unexpected character ']': expected a value (a trailing comma is not JSON; if this is JSONC, name the file .jsonc or use --jsonc)`},
		{"comment", "{\n  // the name\n  \"a\": 1\n}", nil, `t.json:2:3: unexpected character '/': expected a member name in double quotes (comments are not JSON; if this is JSONC, name the file .jsonc or use --jsonc)`},
		{"block comment after the value", "1 /* one */", nil, `t.json:1:3: unexpected character '/' after the JSON value (comments are not JSON; if this is JSONC, name the file .jsonc or use --jsonc)`},
		{"slash that is no comment", "[1, /]", nil, `t.json:1:5: unexpected character '/': expected a value`},
		{"JSONC: unterminated comment", "[1] /* x", &Limits{JSONC: true}, `t.json:1:5: unterminated comment: expected */`},
		{"JSONC: unterminated comment first", "/* x", &Limits{JSONC: true}, `t.json:1:1: unterminated comment: expected */`},
		{"JSONC: two commas", "[1,,]", &Limits{JSONC: true}, `t.json:1:4: unexpected character ',': expected a value`},
		{"JSONC: a lone comma", "[,]", &Limits{JSONC: true}, `t.json:1:2: unexpected character ',': expected a value`},
		{"JSONC: empty", "// nothing\n", &Limits{JSONC: true}, `t.json:2:1: empty document: expected a JSON value`},
		{"missing comma", `[1 2]`, nil, `t.json:1:4: unexpected character '2': expected ',' or ']' in the array`},
		{"missing colon", `{"a" 1}`, nil, `t.json:1:6: unexpected character '1': expected ':' after the member name`},
		{"missing comma in object", `{"a":1 "b":2}`, nil, `t.json:1:8: unexpected character '"': expected ',' or '}' in the object`},
		{"unclosed array", `[1`, nil, `t.json:1:3: unexpected end of input: expected ',' or ']' to continue the array`},
		{"unclosed object", `{"a":1`, nil, `t.json:1:7: unexpected end of input: expected ',' or '}' to continue the object`},
		{"missing value", `{"a":`, nil, `t.json:1:6: unexpected end of input: expected a value`},
		{"unquoted key", `{a:1}`, nil, `t.json:1:2: unexpected character 'a': expected a member name in double quotes`},
		{"unterminated string", `"abc`, nil, `t.json:1:1: unterminated string`},
		{"unterminated escape", `"abc\`, nil, `t.json:1:5: unterminated string`},
		{"unterminated string with escape", `"a\nb`, nil, `t.json:1:1: unterminated string`},
		{"control character", "\"a\x01\"", nil, `t.json:1:3: control character '\x01' in string: escape it`},
		{"control character after escape", "\"\\n\t\"", nil, `t.json:1:4: control character '\t' in string: escape it`},
		{"bad escape", `"\x"`, nil, `t.json:1:2: invalid escape "\\x" in string`},
		{"bad unicode escape", `"\u12"`, nil, `t.json:1:2: invalid \u escape: expected 4 hex digits`},
		{"bad literal", `tru`, nil, `t.json:1:1: invalid literal: expected true`},
		{"leading zero", `01`, nil, `t.json:1:1: invalid number: leading zero`},
		{"lone minus", `-`, nil, `t.json:1:2: invalid number: expected a digit`},
		{"plus sign", `+1`, nil, `t.json:1:1: unexpected character '+': expected a value`},
		{"no fraction digits", `1.`, nil, `t.json:1:3: invalid number: expected a digit after the decimal point`},
		{"no exponent digits", `[1e]`, nil, `t.json:1:4: invalid number: expected a digit in the exponent`},
		{"trailing text", `{} x`, nil, `t.json:1:4: unexpected character 'x' after the JSON value`},
		{"two values", "1\n2", nil, `t.json:2:1: unexpected character '2' after the JSON value: the text holds more than one JSON document (NDJSON reads one per line: name the file .ndjson or .jsonl)`},
		{"two objects", "{\"a\": 1}\n{\"a\": 2}\n", nil, `t.json:2:1: unexpected character '{' after the JSON value: the text holds more than one JSON document (NDJSON reads one per line: name the file .ndjson or .jsonl)`},
		{"invalid UTF-8 in string", "{\"a\":\"\xff\"}", nil, `t.json:1:7: invalid UTF-8 byte 0xff in string`},
		{"invalid UTF-8 after escape", "\"\\n\xc3\"", nil, `t.json:1:4: invalid UTF-8 byte 0xc3 in string`},
		{"invalid UTF-8 outside strings", "\xff", nil, `t.json:1:1: unexpected invalid UTF-8 byte 0xff: expected a value`},
		{"later line", "{\n  \"a\": [1,\n  2,,]\n}", nil, `t.json:3:5: unexpected character ',': expected a value`},
		{"column counts characters", `{"é": x}`, nil, `t.json:1:7: unexpected character 'x': expected a value`},
		{"byte order mark is not a column", "\uFEFF{x}", nil, `t.json:1:2: unexpected character 'x': expected a member name in double quotes`},
		{"byte order mark twice", "\uFEFF\uFEFF{}", nil, `t.json:1:1: unexpected character '\ufeff': expected a value`},
		{"CR ends a line", "[\r1,\r,]", nil, `t.json:3:1: unexpected character ',': expected a value`},
		{"CR LF ends a line", "[\r\n1,\r\n,]", nil, `t.json:3:1: unexpected character ',': expected a value`},
		{"depth", `[[[1]]]`, &Limits{MaxDepth: 2}, `t.json:1:3: nesting deeper than 2 levels (raise the limit with --max-depth)`},
		{"depth in object", `{"a":{"b":{}}}`, &Limits{MaxDepth: 2}, `t.json:1:11: nesting deeper than 2 levels (raise the limit with --max-depth)`},
		{"size", `[1,2]`, &Limits{MaxSize: 3}, `t.json: document of 5 bytes exceeds the limit of 3 bytes (raise it with --max-size)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := ParseJSON("t.json", []byte(tt.in), tt.lim)
			if doc != nil {
				t.Errorf("got a document: %s", compact(doc.Root))
			}
			if got := errString(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error is a %T, not an *Error", err)
			}
			if strings.HasPrefix(tt.name, "depth") || tt.name == "size" || strings.Contains(tt.name, "UTF-8 in string") ||
				strings.Contains(tt.name, "after escape") {
				return // limits; and encoding/json lets invalid UTF-8 in strings through
			}
			if json.Valid([]byte(tt.in)) {
				t.Errorf("encoding/json accepts %q", tt.in)
			}
		})
	}
}

func TestParseJSONDeepNesting(t *testing.T) {
	t.Parallel()
	const n = 100_000
	deep := strings.Repeat("[", n) + strings.Repeat("]", n)
	start := time.Now()
	_, err := ParseJSON("deep.json", []byte(deep), nil)
	want := "deep.json:1:10001: nesting deeper than 10000 levels (raise the limit with --max-depth)"
	if got := errString(err); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	// Raised, the limit lets it through: the parser does not recurse.
	doc, err := ParseJSON("deep.json", []byte(deep), &Limits{MaxDepth: n})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendJSON(nil, doc.Root)); got != deep {
		t.Errorf("printed back differently (%d bytes)", len(got))
	}
	if !Equal(doc.Root, doc.Root) {
		t.Error("not equal to itself")
	}
}

func TestParseJSONOwnsItsText(t *testing.T) {
	t.Parallel()
	src := []byte(`{"key":"value"}`)
	doc, err := ParseJSON("t.json", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	copy(src, `{"XXX":"XXXXX"}`)
	if got := compact(doc.Root); got != `{"key":"value"}` {
		t.Errorf("the document changed with its input: %s", got)
	}
	if got := string(doc.Source()); got != `{"key":"value"}` {
		t.Errorf("Source changed with the input: %s", got)
	}
}

func TestJSONParserReuse(t *testing.T) {
	t.Parallel()
	// One parser, as the NDJSON reader uses it: an error must not leak into the next parse.
	var p jsonParser
	for _, tt := range []struct{ in, want string }{
		{`{"a":[1,{"b":2}]}`, `{"a":[1,{"b":2}]}`},
		{`{"a":[1,{"b":`, ""},
		{`[3,[4]]`, `[3,[4]]`},
		{`{"x":{"y":1},"y":2}`, `{"x":{"y":1},"y":2}`},
	} {
		v, err := p.parse(tt.in, 0, 100)
		if got := compact(v); (err == nil) != (tt.want != "") || err == nil && got != tt.want {
			t.Errorf("%s: got %s, %v", tt.in, got, err)
		}
	}
}

func TestParseJSONText(t *testing.T) {
	t.Parallel()
	v, err := parseJSONText("\uFEFF [1] ", 10)
	if err != nil || compact(v) != "[1]" || v.Offset() != 4 {
		t.Errorf("got %s at %d, %v", compact(v), v.Offset(), err)
	}
	if _, err := parseJSONText("", 10); err == nil || err.msg != "empty document: expected a JSON value" {
		t.Errorf("got %v", err)
	}
}

// An object of more than indexMin members finds them by name through its index, from
// every parser and the builder, with the answers of a scan: present, absent, the last
// value of a repeated key; its members, order and text are unchanged.
func TestLargeObjectGet(t *testing.T) {
	for _, n := range []int{indexMin, indexMin + 1, 1000} {
		var js, ym strings.Builder
		js.WriteString("{")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&js, `"k%d": %d, `, i, i)
			fmt.Fprintf(&ym, "k%d: %d\n", i, i)
		}
		js.WriteString(`"k0": "last"}`) // a repeated key keeps its last value
		ym.WriteString("extra: true\n")
		var b ObjectBuilder
		for i := 0; i < n; i++ {
			b.Set(fmt.Sprintf("k%d", i), NumberValue(strconv.Itoa(i)))
		}
		b.Set("k0", StringValue("last"))
		jd, err := ParseJSON("l.json", []byte(js.String()), nil)
		if err != nil {
			t.Fatal(err)
		}
		yd, err := ParseYAML("l.yaml", []byte(ym.String()), nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]Value{"json": jd.Root, "yaml": yd[0].Root, "builder": b.Value(), "moved": jd.Root.WithOffset(7)} {
			wantLen := n
			if name == "yaml" {
				wantLen = n + 1
			}
			if v.Len() != wantLen || v.Kind() != Object {
				t.Fatalf("%s %d: %s of %d members, want an object of %d", name, n, v.Kind(), v.Len(), wantLen)
			}
			if v.meta&indexed != 0 != (wantLen > indexMin) {
				t.Errorf("%s %d: indexed = %v", name, n, v.meta&indexed != 0)
			}
			for i := 1; i < n; i += 7 {
				got, ok := v.Get(fmt.Sprintf("k%d", i))
				if !ok || got.Str() != strconv.Itoa(i) {
					t.Errorf("%s %d: Get(k%d) = %q, %v", name, n, i, got.Str(), ok)
				}
			}
			if _, ok := v.Get("absent"); ok {
				t.Errorf("%s %d: Get(absent) found", name, n)
			}
			if k0, _ := v.Get("k0"); name != "yaml" && k0.Str() != "last" {
				t.Errorf("%s %d: Get(k0) = %q, want the last value", name, n, k0.Str())
			}
			if k, _ := v.Member(n - 1); k.Str() != fmt.Sprintf("k%d", n-1) {
				t.Errorf("%s %d: member %d is %q", name, n, n-1, k.Str())
			}
		}
	}
}
