package pattern

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTranslate pins how translate rewrites each kind of ECMA-262 piece into Go's syntax,
// and which pieces it refuses as outside the supported subset.
func TestTranslate(t *testing.T) {
	t.Parallel()
	const unsupported = "<unsupported>"
	tests := []struct{ in, want string }{
		{`^\d\D\w\W$`, `^\d\D\w\W$`},
		{`\f\n\r\t\v`, `\f\n\r\t\v`},
		{`\p{L}\P{Lu}`, `\p{L}\P{Lu}`},
		{`\s`, `[` + ecmaSpace + `]`},
		{`[\s_]`, `[` + ecmaSpace + `_]`},
		{`\S`, `[^` + ecmaSpace + `]`},
		{`[\S]`, unsupported},
		{`\u0041`, `\x{0041}`},
		{`\u{1F600}`, `\x{1F600}`},
		{`\u004`, unsupported},
		{`\u{12`, unsupported},
		{`\x41`, `\x41`},
		{`\x4`, unsupported},
		{`\0`, `\x{0}`},
		{`\01`, unsupported},
		{`[\b]`, `[\x{8}]`},
		{`\b`, unsupported},
		{`\B`, unsupported},
		{`\1`, unsupported},
		{`\k<n>`, unsupported},
		{`\cA`, unsupported},
		{`\é`, `\x{e9}`},
		{`\.\[\/`, `\.\[\/`},
		{`\`, unsupported},
		{`[a[b]`, `[a\[b]`},
		{`[^a]`, `[^a]`},
		{`[]`, unsupported},
		{`[^]`, unsupported},
		{`[^]]`, unsupported},
		{`[a`, unsupported},
		{`a]b`, `a]b`},
		{`(a)`, `(a)`},
		{`(?:a)`, `(?:a)`},
		{`(?<n>a)`, `(?<n>a)`},
		{`(?=a)`, unsupported},
		{`(?!a)`, unsupported},
		{`(?<=a)`, unsupported},
		{`(?<!a)`, unsupported},
		{`(?i)a`, unsupported},
	}
	for _, tt := range tests {
		got, err := translate(tt.in)
		if errors.Is(err, errUnsupported) {
			got = unsupported
		} else if err != nil {
			t.Errorf("translate(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("translate(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
