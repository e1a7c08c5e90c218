package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSONC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		want   string         // compact JSON of the root
		format Format         // the document's format
		offs   map[string]int // some offsets
	}{
		{"line comments", "// head\n{\n  \"a\": 1, // one\n  \"b\": 2\n}\n", `{"a":1,"b":2}`, JSONC,
			map[string]int{"": 8, "/a#key": 12, "/a": 17, "/b": 34}},
		{"block comments", "/* a\n * b */ [1, /* x */ 2 /**/]", `[1,2]`, JSONC, map[string]int{"": 13, "/0": 14, "/1": 25}},
		{"trailing commas", "{\"a\": [1, 2,], \"b\": {\"c\": 3,},}", `{"a":[1,2],"b":{"c":3}}`, JSONC,
			map[string]int{"/a/1": 10, "/b/c": 26}},
		{"comment before a trailing comma's end", "[1, // last\n]", `[1]`, JSONC, nil},
		{"slashes in strings are text", `{"url": "http://x/*y*/"}`, `{"url":"http://x/*y*/"}`, JSON, nil},
		{"plain JSON stays JSON", `{"a": [1, 2]}`, `{"a":[1,2]}`, JSON, nil},
		{"comment at the very end, no newline", "1 // one", `1`, JSONC, map[string]int{"": 0}},
		{"CR LF line comment", "[1, // x\r\n2]", `[1,2]`, JSONC, map[string]int{"/1": 10}},
		{"byte order mark", "\uFEFF// x\n{}", `{}`, JSONC, map[string]int{"": 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, parse := range []func() (*Document, error){
				func() (*Document, error) { return ParseJSONC("t.jsonc", []byte(tt.in), nil) },
				func() (*Document, error) { return ParseJSON("t.json", []byte(tt.in), &Limits{JSONC: true}) },
			} {
				doc, err := parse()
				if err != nil {
					t.Fatal(err)
				}
				if got := compact(doc.Root); got != tt.want {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
				if doc.Format != tt.format {
					t.Errorf("format %v, want %v", doc.Format, tt.format)
				}
				if tt.offs != nil {
					if diff := cmp.Diff(tt.offs, subset(offsets(doc.Root), tt.offs)); diff != "" {
						t.Errorf("offsets (-want +got):\n%s", diff)
					}
				}
			}
			if tt.format == JSONC {
				if _, err := ParseJSON("t.json", []byte(tt.in), nil); err == nil {
					t.Errorf("strict JSON accepts %q", tt.in)
				}
			}
		})
	}
}

func TestParseJSONCPositions(t *testing.T) {
	t.Parallel()
	in := "{\n  // the id\n  \"id\": 1, /* next */ \"name\": \"x\",\n}\n"
	doc, err := ParseJSONC("t.jsonc", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for _, p := range []string{"/id", "/name", ""} {
		l, c := doc.Locate(p)
		got[p] = [2]int{l, c}
	}
	want := map[string][2]int{"": {1, 1}, "/id": {3, 9}, "/name": {3, 31}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

func TestJSONCFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want Format
	}{
		{"a.jsonc", JSONC},
		{"A.JSONC", JSONC},
		{"tsconfig.json", JSONC},
		{"app/tsconfig.base.json", JSONC},
		{"jsconfig.json", JSONC},
		{"devcontainer.json", JSONC},
		{".devcontainer.json", JSONC},
		{".devcontainer/devcontainer.json", JSONC},
		{"x/.devcontainer/other.json", JSONC},
		{".vscode/settings.json", JSONC},
		{`win\.vscode\launch.json`, JSONC},
		{"vscode/settings.json", JSON},
		{".vscode/sub/settings.json", JSON},
		{"mytsconfig.json", JSON},
		{"tsconfig.yaml", YAML},
		{"package.json", JSON},
	}
	for _, tt := range tests {
		if f, ok := FormatOf(tt.name); !ok || f != tt.want {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", tt.name, f, ok, tt.want)
		}
	}
	// Parse and ParseFile read such a file as JSONC; a plain .json file stays strict.
	text := []byte("{\"compilerOptions\": {\"strict\": true,}, // on\n}")
	docs, err := ParseFile("tsconfig.json", text, nil)
	if err != nil || len(docs) != 1 || docs[0].Format != JSONC {
		t.Fatalf("ParseFile(tsconfig.json) = %v, %v", docs, err)
	}
	if _, err := ParseFile("config.json", text, nil); err == nil || !strings.Contains(err.Error(), "use --jsonc") {
		t.Errorf("ParseFile(config.json) = %v, want an error with a hint", err)
	}
	if docs, err := ParseFile("config.json", text, &Limits{JSONC: true}); err != nil || docs[0].Format != JSONC {
		t.Errorf("ParseFile(config.json, JSONC) = %v, %v", docs, err)
	}
}

func TestJSONCLimitKeepsNDJSONStrict(t *testing.T) {
	t.Parallel()
	if _, err := ParseJSON("d.ndjson", []byte(`{"a":1,}`), &Limits{JSONC: true}); err == nil {
		t.Error("an NDJSON line was read as JSONC")
	}
	if _, err := ParseJSON("d.ndjson", []byte("1\n2"), nil); err == nil || strings.Contains(err.Error(), "NDJSON reads") {
		t.Errorf("an NDJSON line's error = %v, want no NDJSON hint", err)
	}
}

func TestJSONCLimitsStillApply(t *testing.T) {
	t.Parallel()
	_, err := ParseJSONC("t.jsonc", []byte("// x\n[[[1]]]"), &Limits{MaxDepth: 2})
	if got, want := errString(err), "t.jsonc:2:3: nesting deeper than 2 levels (raise the limit with --max-depth)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
