package source

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseYAML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string            // compact JSON of the root
		pos  map[string]string // some pointers' line:column
	}{
		{"mapping", "a: 1\nb:\n  - x\n  - {c: d}\n", `{"a":1,"b":["x",{"c":"d"}]}`,
			map[string]string{"": "1:1", "/a#key": "1:1", "/a": "1:4", "/b": "3:3", "/b/0": "3:5", "/b/1": "4:5", "/b/1/c#key": "4:6", "/b/1/c": "4:9"}},
		{"core schema scalars", "[x, 0x1F, 1_000, .5, +1.5e3, 017, 09, null, ~, '', true, True, FALSE, yes, no, on, off, y]",
			`["x",31,1000,0.5,1.5e3,17,9,null,null,"",true,true,false,"yes","no","on","off","y"]`, nil},
		{"empty value is null", "a:\nb: ~\nc: null\nd: NULL\n", `{"a":null,"b":null,"c":null,"d":null}`, nil},
		{"numbers stay exact", "[1., -.5, 1.e3, 007.5, 1_0.5, -0, -0.0, 0o17, 0b101, -0x10, +12, 1e5, 0.1e-5, 123456789012345678901234567890, 0xFFFFFFFFFFFFFFFF]",
			`[1,-0.5,1e3,7.5,10.5,-0,-0.0,15,5,-16,12,1e5,0.1e-5,123456789012345678901234567890,18446744073709551615]`, nil},
		{"explicit core tags", "[!!float 1, !!int '12', !!str 12, !!null '', !!bool 'true', !!float 0x10, !!int 0o7]",
			`[1,12,"12",null,true,16,7]`, nil},
		{"quoted and block strings", "a: '123'\nb: \"tr\\u00fce\"\nc: |\n  line 1\n  line 2\nd: >\n  folded\n  text\n",
			`{"a":"123","b":"trüe","c":"line 1\nline 2\n","d":"folded text\n"}`, nil},
		{"timestamps and binary are text", "t: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14\nb: !!binary aGVsbG8=\ne: !!timestamp 2001-12-14\n",
			`{"t":"2001-12-14t21:59:43.10-05:00","d":"2002-12-14","b":"aGVsbG8=","e":"2001-12-14"}`, nil},
		{"custom tags", "k: !Ref foo\nl: !GetAtt [a, b]\nm: !Sub\n  x: 1\nn: !Custom 12\no: ! 12\n",
			`{"k":"foo","l":["a","b"],"m":{"x":1},"n":"12","o":"12"}`, map[string]string{"/k": "1:4", "/l/1": "2:16"}},
		{"non-string keys", "1: a\ntrue: b\n~: c\n0x10: d\n1.50: e\n? !!str 2\n: f\n", `{"1":"a","true":"b","null":"c","16":"d","1.50":"e","2":"f"}`, nil},
		{"alias as key", "- &k name\n- {*k : v}\n", `["name",{"name":"v"}]`, nil},
		{"anchors and aliases", "x: &a {k: [1, 2]}\ny: *a\nz: [*a, *a]\ns: &s hi\nt: *s\n",
			`{"x":{"k":[1,2]},"y":{"k":[1,2]},"z":[{"k":[1,2]},{"k":[1,2]}],"s":"hi","t":"hi"}`,
			map[string]string{"/x": "1:4", "/y": "2:4", "/y/k": "1:11", "/y/k/1": "1:15", "/z/1": "3:9", "/t": "5:4"}},
		{"merge key", "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n", `{"base":{"x":1,"y":2},"d":{"x":1,"y":3}}`,
			map[string]string{"/d/x": "1:14", "/d/y": "4:6"}},
		{"merge of several mappings: the first wins, explicit keys win", "a: &a {k: 1, m: 1}\nb: &b {k: 2, n: 2}\nc:\n  m: 0\n  <<: [*a, *b]\n  o: 3\n",
			`{"a":{"k":1,"m":1},"b":{"k":2,"n":2},"c":{"m":0,"k":1,"n":2,"o":3}}`, nil},
		{"inline merge", "<<: {q: 1}\nr: 2\n", `{"q":1,"r":2}`, nil},
		{"merge key quoted is a key", "'<<': 1\n", `{"<<":1}`, nil},
		{"merge tag as a value is text", "a: <<\n", `{"a":"<<"}`, nil},
		{"empty collections", "a: []\nb: {}\n", `{"a":[],"b":{}}`, nil},
		{"CR LF", "a: 1\r\nb:\r\n  - x\r\n", `{"a":1,"b":["x"]}`, map[string]string{"/b/0": "3:5"}},
		{"byte order mark", "\uFEFFa: 1\n", `{"a":1}`, map[string]string{"/a#key": "1:1", "/a": "1:4"}},
		{"columns count characters", "é: [日, x]\n", `{"é":["日","x"]}`, map[string]string{"/é/1": "1:8"}},
		{"line separator counts as a line break for YAML only", "a: 1 # x\u2028\nb: 2\n", `{"a":1,"b":2}`, map[string]string{"/b#key": "2:1"}},
		{"next line character", "a: 1\u0085b: 2\n", `{"a":1,"b":2}`, map[string]string{"/b#key": "1:6"}},
		{"tab", "a:\t1\n", `{"a":1}`, nil},
		{"only comments", "# nothing\n", `null`, map[string]string{"": "1:1"}},
		{"empty", "", `null`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := ParseYAML("t.yaml", []byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 {
				t.Fatalf("%d documents", len(docs))
			}
			doc := docs[0]
			if got := compact(doc.Root); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if doc.Format != YAML || doc.Name != "t.yaml" || doc.Line != 1 || string(doc.Source()) != tt.in {
				t.Errorf("document %v %q line %d", doc.Format, doc.Name, doc.Line)
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

func TestParseYAMLStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		want  []string // compact JSON of each document
		lines []int
		pos   []map[string]string
	}{
		{"three documents", "--- 1\n--- \n# c\nb: 2\n...\n---\n[3,\n 4]\n", []string{"1", `{"b":2}`, "[3,4]"}, []int{1, 2, 6},
			[]map[string]string{{"": "1:5"}, {"/b#key": "4:1", "/b": "4:4"}, {"": "7:1", "/1": "8:2"}}},
		{"empty documents", "---\n---\n", []string{"null", "null"}, []int{1, 2}, nil},
		{"directive", "%YAML 1.2\n---\na: 1\n", []string{`{"a":1}`}, []int{1}, []map[string]string{{"/a": "3:4"}}},
		{"anchors are per document", "--- &a [1]\n--- &a [2]\n--- *a\n", []string{"[1]", "[2]", "[2]"}, []int{1, 2, 3}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := ParseYAML("s.yaml", []byte(tt.in), nil)
			if tt.name == "anchors are per document" {
				if got := errString(err); got != "s.yaml:3:5: unknown anchor 'a' referenced" {
					t.Errorf("got %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var lines []int
			var src strings.Builder
			for i, d := range docs {
				got = append(got, compact(d.Root))
				lines = append(lines, d.Line)
				src.Write(d.Source())
				inBounds(t, d.Root, len(d.Source()))
				if tt.pos != nil {
					if diff := cmp.Diff(tt.pos[i], subset(positions(d), tt.pos[i])); diff != "" {
						t.Errorf("document %d positions (-want +got):\n%s", i, diff)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.lines, lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if src.String() != tt.in {
				t.Errorf("the documents' sources do not make up the file: %q", src.String())
			}
		})
	}
}

func TestParseYAMLErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lim  *Limits
		want string
	}{
		{"syntax", "a: b: c\n", nil, "t.yaml:1:5: mapping values are not allowed in this context"},
		{"syntax with context", "x: 1\ny: 2\nz: [1, 2\n", nil, "t.yaml:4:1: did not find expected ',' or ']' (while parsing a flow sequence at line 3, column 4)"},
		{"bad indentation", "a:\n  - 1\n - 2\n", nil, "t.yaml:3:2: did not find expected key (while parsing a block mapping at line 1, column 1)"},
		{"unknown anchor", "a: *nope\n", nil, "t.yaml:1:4: unknown anchor 'nope' referenced"},
		{"recursive alias", "a: &a [*a]\n", nil, "t.yaml:1:8: YAML alias *a refers to a value that contains it: a recursive structure has no JSON form"},
		{"recursive alias in a mapping", "a: &a {b: {c: *a}}\n", nil, "t.yaml:1:15: YAML alias *a refers to a value that contains it: a recursive structure has no JSON form"},
		{".inf", "a: .inf\n", nil, "t.yaml:1:4: YAML value .inf has no JSON equivalent"},
		{"-.Inf", "- 1\n- -.Inf\n", nil, "t.yaml:2:3: YAML value -.Inf has no JSON equivalent"},
		{".nan", "[.NaN]", nil, "t.yaml:1:2: YAML value .NaN has no JSON equivalent"},
		{".inf as a key", ".inf: 1\n", nil, "t.yaml:1:1: YAML value .inf has no JSON equivalent"},
		{"tagged .inf", "a: !!float .inf\n", nil, "t.yaml:1:4: YAML value .inf has no JSON equivalent"},
		{"duplicate key", "a: 1\na: 2\n", nil, `t.yaml:2:1: duplicate key "a" in YAML mapping (first at line 1, column 1)`},
		{"duplicate key after conversion", "1: x\n\"1\": y\n", nil, `t.yaml:2:1: duplicate key "1" in YAML mapping (first at line 1, column 1)`},
		{"sequence as key", "? [a]\n: 1\n", nil, "t.yaml:1:3: YAML mapping key is a sequence: JSON object keys are strings"},
		{"mapping as key", "? {a: 1}\n: 1\n", nil, "t.yaml:1:3: YAML mapping key is a mapping: JSON object keys are strings"},
		{"bad !!int", "a: !!int abc\n", nil, `t.yaml:1:4: YAML value "abc" is not a valid !!int`},
		{"bad !!bool", "a: !!bool yes\n", nil, `t.yaml:1:4: YAML value "yes" is not a valid !!bool`},
		{"bad !!null", "a: !!null x\n", nil, `t.yaml:1:4: YAML value "x" is not a valid !!null`},
		{"bad !!float", "a: !!float 1.2.3\n", nil, `t.yaml:1:4: YAML value "1.2.3" is not a valid !!float`},
		{"merge of a scalar", "<<: 1\n", nil, "t.yaml:1:5: YAML merge key << needs a mapping or a sequence of mappings, not a scalar"},
		{"merge of a sequence of scalars", "<<: [1]\n", nil, "t.yaml:1:5: YAML merge key << needs a mapping or a sequence of mappings, and this sequence holds a scalar"},
		{"merge of a sequence of sequences", "<<: [[]]\n", nil, "t.yaml:1:5: YAML merge key << needs a mapping or a sequence of mappings, and this sequence holds a sequence"},
		{"control character", "a: \x01\n", nil, `t.yaml:1:4: control character '\x01' is not allowed in YAML`},
		{"U+FFFE", "a: \uFFFE\n", nil, `t.yaml:1:4: character '\ufffe' is not allowed in YAML`},
		{"invalid UTF-8", "a: b\nc: \xff\n", nil, "t.yaml:2:4: invalid UTF-8 byte 0xff"},
		{"UTF-16", "\xff\xfea\x00:\x00", nil, "t.yaml:1:1: invalid UTF-8 byte 0xff"},
		{"flow depth", "[[[[1]]]]", &Limits{MaxDepth: 3}, "t.yaml:1:4: nesting deeper than 3 levels (raise the limit with --max-depth)"},
		{"block depth", "- - - - 1\n", &Limits{MaxDepth: 3}, "t.yaml:1:7: nesting deeper than 3 levels (raise the limit with --max-depth)"},
		{"depth of mixed nesting", "a: [{b: [1]}]\n", &Limits{MaxDepth: 3}, "t.yaml:1:9: nesting deeper than 3 levels (raise the limit with --max-depth)"},
		{"depth through an alias", "a: &a [[1]]\nb: [[*a]]\n", &Limits{MaxDepth: 3}, "t.yaml:2:6: nesting deeper than 3 levels through alias *a (raise the limit with --max-depth)"},
		{"depth through a merge", "a: &a {b: [1]}\nc:\n  d:\n    <<: *a\n", &Limits{MaxDepth: 3}, "t.yaml:4:9: nesting deeper than 3 levels through alias *a (raise the limit with --max-depth)"},
		{"alias limit", "a: &a [1, 2, 3]\nb: [*a, *a]\n", &Limits{MaxAliasNodes: 7}, `t.yaml:2:9: YAML aliases expand to more than 7 nodes; is this a "billion laughs" document? (raise the limit with --max-alias-nodes)`},
		{"size", "a: 1\n", &Limits{MaxSize: 4}, "t.yaml: document of 5 bytes exceeds the limit of 4 bytes (raise it with --max-size)"},
		{"error in a later document", "a: 1\n---\nb: [\n", nil, "t.yaml:4:1: did not find expected node content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := ParseYAML("t.yaml", []byte(tt.in), tt.lim)
			if docs != nil {
				t.Errorf("got documents")
			}
			if got := errString(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Errorf("error is a %T", err)
			}
		})
	}
}

// TestParseYAMLBillionLaughs checks that a document whose aliases expand exponentially
// fails fast, without building the expansion.
func TestParseYAMLBillionLaughs(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		p := "*a" + itoa(i-1)
		sb.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [" + strings.Repeat(p+", ", 9) + p + "]\n")
	}
	start := time.Now()
	_, err := ParseYAML("lol.yaml", []byte(sb.String()), nil)
	want := `lol.yaml:6:45: YAML aliases expand to more than 1000000 nodes; is this a "billion laughs" document? (raise the limit with --max-alias-nodes)`
	if got := errString(err); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestParseYAMLDeepNesting(t *testing.T) {
	t.Parallel()
	start := time.Now()
	for _, in := range []string{strings.Repeat("[", 100_000), strings.Repeat("- ", 100_000) + "x"} {
		_, err := ParseYAML("deep.yaml", []byte(in), nil)
		if got := errString(err); !strings.Contains(got, "nesting deeper than 10000 levels") {
			t.Errorf("got %s", got)
		}
	}
	if d := time.Since(start); d > 10*time.Second { // generous: the machine may be busy
		t.Errorf("took %v", d)
	}
	t.Logf("two depth errors in %v", time.Since(start))
	// Within a raised limit, deep YAML parses.
	const n = 12_000
	docs, err := ParseYAML("deep.yaml", []byte(strings.Repeat("[", n)+strings.Repeat("]", n)), &Limits{MaxDepth: n})
	if err != nil {
		t.Fatal(err)
	}
	if _, h := valueSize(docs[0].Root); h != n {
		t.Errorf("height %d", h)
	}
}

func TestParseYAMLMergeDepth(t *testing.T) {
	t.Parallel()
	// Merged members sit in the merging mapping: a merge adds no level.
	for _, in := range []string{"a: &a {b: [1]}\nc:\n  <<: *a\n", "a: &a {b: [1]}\nc:\n  <<: [*a, {d: [2]}]\n"} {
		if _, err := ParseYAML("t.yaml", []byte(in), &Limits{MaxDepth: 3}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestParseYAMLSharedAliases checks that aliases share their anchor's values instead of
// copying them.
func TestParseYAMLSharedAliases(t *testing.T) {
	t.Parallel()
	docs, err := ParseYAML("t.yaml", []byte("a: &a [1, 2]\nb: *a\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := docs[0].Root.Get("a")
	b, _ := docs[0].Root.Get("b")
	if &a.Items()[0] != &b.Items()[0] {
		t.Error("the alias copied its anchor's items")
	}
}

func TestYAMLText(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"a: 1\n":                        "a: 1\n",
		"%YAML 1.1\n---\n":              "%YAML 1.1\n---\n",
		"%YAML 1.2\n---\n":              "%YAML 1.1\n---\n",
		"a: 1\n...\n%YAML\t 1.3\n---\n": "a: 1\n...\n%YAML\t 1.1\n---\n",
		"# %YAML 1.2\n":                 "# %YAML 1.2\n",
		"%YAML 2.0\n---\n":              "%YAML 2.0\n---\n",
	}
	for in, want := range tests {
		src := []byte(in)
		if got := string(yamlText(src)); got != want {
			t.Errorf("yamlText(%q) = %q, want %q", in, got, want)
		}
		if string(src) != in {
			t.Errorf("yamlText changed its input %q", in)
		}
	}
	if _, err := ParseYAML("v.yaml", []byte("%YAML 2.0\n---\na: 1\n"), nil); errString(err) != "v.yaml:1:1: found incompatible YAML document" {
		t.Errorf("got %v", err)
	}
}

func TestYAMLByteOrderMarkAfterComment(t *testing.T) {
	docs, err := ParseYAML("bom.yaml", []byte("# a header\n\uFEFFversion: '2'\nname: x\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := docs[0].Root.Get("version"); !ok || v.Str() != "2" {
		t.Fatalf("root %s", AppendJSON(nil, docs[0].Root))
	}
	if line, _ := docs[0].Locate("/name"); line != 3 {
		t.Errorf("name on line %d, want 3", line)
	}
}
