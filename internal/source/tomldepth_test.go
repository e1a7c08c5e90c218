package source

import (
	"strings"
	"testing"
)

func TestTOMLTextDepth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string
		max  int
		deep bool
	}{
		{"flat", "a = 1\nb = 'x'\n", 2, false},
		{"dotted key at the limit", "a.b.c = 1\n", 3, false},
		{"dotted key beyond", "a.b.c.d = 1\n", 3, true},
		{"header at the limit", "[a.b]\nx = 1\n", 3, false},
		{"header beyond", "[a.b.c]\n", 3, true},
		{"array of tables", "[[a.b.c]]\n", 3, true},
		{"key under a header", "[a]\nb.c = 1\n", 3, false},
		{"key under a header beyond", "[a]\nb.c.d = 1\n", 3, true},
		{"header resets", "[a.b]\n[c]\nd.e = 1\n", 3, false},
		{"arrays", "a = [[1]]\n", 3, false},
		{"arrays beyond", "a = [[[1]]]\n", 3, true},
		{"inline tables", "a = {b = {c = 1}}\n", 3, false},
		{"inline tables beyond", "a = {b = {c = {d = 1}}}\n", 3, true},
		{"dots in strings", "a = \"x.y.z.w\"\nb = 'p.q.r.s'\n\"k.l.m.n\" = 1\n", 2, false},
		{"brackets in strings", "a = \"[[[[\"\nb = '''\n[[[[\n'''\nc = \"\"\"\\\"[[[[\"\"\"\n", 2, false},
		{"brackets in comments", "a = 1 # [[[[ a.b.c.d\n", 2, false},
		{"multi-line array", "a = [\n  [1],\n  [2],\n]\nb.c = 1\n", 3, false},
		{"quoted header parts", "[\"a.b.c\".'d']\n", 3, false},
		{"floats count at most one more", "a = 1.5\n", 2, false},
		{"unterminated string", "a = \"x", 2, false},
		{"unterminated multi-line string", "a = '''x", 2, false},
		{"a million dotted parts", strings.Repeat("a.", 1_000_000) + "a = 1\n", 10_000, true},
		{"a million parts in a header", "[" + strings.Repeat("a.", 1_000_000) + "a]\n", 10_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, deep := tomlTextDepth([]byte(tc.src), tc.max)
			if deep != tc.deep {
				t.Fatalf("tomlTextDepth(%.40q, %d) deep = %v, want %v", tc.src, tc.max, deep, tc.deep)
			}
			if deep {
				return
			}
			// What the scan lets through, the parser reads within the limit too.
			if _, err := ParseTOML("t.toml", []byte(tc.src), &Limits{MaxDepth: tc.max}); err != nil && strings.Contains(err.Error(), "nesting deeper") {
				t.Fatalf("ParseTOML: %v, after the scan let it through", err)
			}
		})
	}
}
