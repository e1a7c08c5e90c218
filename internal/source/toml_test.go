package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTOML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
		pos  map[string]string
	}{
		{"key/values", "a = 1\nb = \"x\"\nc = true\n", `{"a":1,"b":"x","c":true}`,
			map[string]string{"": "1:1", "/a#key": "1:1", "/a": "1:5", "/b": "2:5", "/c#key": "3:1", "/c": "3:5"}},
		{"numbers", "a = +42\nb = 1_000\nc = 0xDEAD_beef\nd = 0o755\ne = 0b1101\nf = -0\ng = +1.5e+3\nh = 3.141_59\ni = -0.0\nj = 1e06\nk = 9223372036854775807\n",
			`{"a":42,"b":1000,"c":3735928559,"d":493,"e":13,"f":-0,"g":1.5e+3,"h":3.14159,"i":-0.0,"j":1e06,"k":9223372036854775807}`, nil},
		{"dates and times", "a = 1979-05-27T07:32:00Z\nb = 1979-05-27 00:32:00.999999-07:00\nc = 1979-05-27T07:32:00\nd = 1979-05-27\ne = 07:32:00\n",
			`{"a":"1979-05-27T07:32:00Z","b":"1979-05-27T00:32:00.999999-07:00","c":"1979-05-27T07:32:00","d":"1979-05-27","e":"07:32:00"}`,
			map[string]string{"/b": "2:5"}},
		{"strings", "a = 'lit\\n'\nb = \"esc\\t\\u00e9\"\nc = \"\"\"\nmulti\nline\"\"\"\nd = '''\nraw\\n'''\n",
			`{"a":"lit\\n","b":"esc\té","c":"multi\nline","d":"raw\\n"}`, nil},
		{"arrays", "a = [1, [2, 3], {x = 0x1F}, []]\nb = [\n  1, # one\n  [\n    'two',\n  ],\n]\n",
			`{"a":[1,[2,3],{"x":31},[]],"b":[1,["two"]]}`,
			map[string]string{"/a": "1:5", "/a/1": "1:9", "/a/1/1": "1:13", "/a/2": "1:17", "/a/2/x#key": "1:18", "/a/3": "1:29", "/b": "2:5", "/b/0": "3:3", "/b/1": "4:3", "/b/1/0": "5:5"}},
		{"dotted keys", "a.b.c = 1\na.d = 2\n\"q.k\".'x y' = 3\n", `{"a":{"b":{"c":1},"d":2},"q.k":{"x y":3}}`,
			map[string]string{"/a#key": "1:1", "/a": "1:1", "/a/b": "1:3", "/a/b/c#key": "1:5", "/a/b/c": "1:9", "/q.k/x y#key": "3:7", "/q.k/x y": "3:15"}},
		{"tables", "top = 0\n[t]\nd = 1\n[ u . v ]\ne = 2\n[u]\nf = 3\n", `{"top":0,"t":{"d":1},"u":{"v":{"e":2},"f":3}}`,
			map[string]string{"/t": "2:1", "/t#key": "2:2", "/u": "6:1", "/u#key": "4:3", "/u/v": "4:1", "/u/v#key": "4:7"}},
		{"arrays of tables", "[[arr]]\nx = 1\n[[arr]]\nx = 2\n[arr.sub]\ny = 'q'\n[[arr.list]]\nz = 3\n",
			`{"arr":[{"x":1},{"x":2,"sub":{"y":"q"},"list":[{"z":3}]}]}`,
			map[string]string{"/arr": "1:1", "/arr/0": "1:1", "/arr/1": "3:1", "/arr/1/sub": "5:1", "/arr/1/list": "7:1", "/arr/1/list/0/z": "8:5"}},
		{"inline tables", "p = {x = 1, y.z = 2}\nq = {}\n", `{"p":{"x":1,"y":{"z":2}},"q":{}}`,
			map[string]string{"/p": "1:5", "/p/y/z": "1:19", "/q": "2:5"}},
		{"comments and blank lines", "# c\n\na = 1 # end\n", `{"a":1}`, nil},
		{"CR LF", "a = 1\r\n[t]\r\nb = 2\r\n", `{"a":1,"t":{"b":2}}`, map[string]string{"/t/b": "3:5"}},
		{"non-ASCII", "\"é\" = \"日本\"\n", `{"é":"日本"}`, map[string]string{"/é": "1:7"}},
		{"empty", "", `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := ParseTOML("t.toml", []byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(doc.Root); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if doc.Format != TOML || doc.Line != 1 || string(doc.Source()) != tt.in {
				t.Errorf("document %v line %d", doc.Format, doc.Line)
			}
			inBounds(t, doc.Root, len(tt.in))
			if tt.pos != nil {
				if diff := cmp.Diff(tt.pos, subset(positions(doc), tt.pos)); diff != "" {
					t.Errorf("positions (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestParseTOMLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lim  *Limits
		want string
	}{
		{"inf", "a = inf\n", nil, "t.toml:1:5: TOML value inf has no JSON equivalent"},
		{"-inf", "a = 1\nb = [-inf]\n", nil, "t.toml:2:6: TOML value -inf has no JSON equivalent"},
		{"nan", "a = +nan\n", nil, "t.toml:1:5: TOML value +nan has no JSON equivalent"},
		{"duplicate key", "a = 1\na = 2\n", nil, "t.toml:2:1: key a is already defined"},
		{"missing value", "a = \n", nil, "t.toml:1:5: unexpected character U+000A at start of value"},
		{"table defined twice", "[t]\n[t]\n", nil, "t.toml:2:2: table t already exists"},
		{"integer too large", "a = 9223372036854775808\n", nil, "t.toml:1:5: decimal number is too large to fit in a 64-bit signed integer"},
		{"bad date", "a = 1979-13-27\n", nil, "t.toml:1:10: impossible date"},
		{"invalid UTF-8", "a = \"\xff\"\n", nil, "t.toml:1:6: invalid UTF-8 byte 0xff"},
		{"column counts characters", "\"é\" = x\n", nil, "t.toml:1:7: unexpected character U+0078 'x' at start of value"},
		{"depth", "a = [[[1]]]\n", &Limits{MaxDepth: 3}, "t.toml:1:7: nesting deeper than 3 levels (raise the limit with --max-depth)"},
		{"depth of tables", "[a.b.c]\n", &Limits{MaxDepth: 3}, "t.toml:1:1: nesting deeper than 3 levels (raise the limit with --max-depth)"},
		{"size", "a = 1\n", &Limits{MaxSize: 5}, "t.toml: document of 6 bytes exceeds the limit of 5 bytes (raise it with --max-size)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := ParseTOML("t.toml", []byte(tt.in), tt.lim)
			if doc != nil {
				t.Errorf("got a document: %s", compact(doc.Root))
			}
			if got := errString(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error is a %T", err)
			}
		})
	}
}

func TestParseTOMLDeepNesting(t *testing.T) {
	t.Parallel()
	in := "a = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"
	_, err := ParseTOML("deep.toml", []byte(in), nil)
	if err == nil || !strings.Contains(err.Error(), "deep.toml:1:") {
		t.Errorf("got %v", err)
	}
}

func TestTOMLInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"0xZZ": "", "12": "12", "-0b11": "-3"} {
		got, ok := tomlInt(in)
		if ok != (want != "") || got != want && ok {
			t.Errorf("tomlInt(%q) = %q, %v", in, got, ok)
		}
	}
}
