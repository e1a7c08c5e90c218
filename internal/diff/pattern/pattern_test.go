package pattern

import (
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
)

// TestAutomatonAgreesWithMatcher checks the automata against jstk's ECMA-262 matcher on a
// table of patterns and strings.
func TestAutomatonAgreesWithMatcher(t *testing.T) {
	t.Parallel()
	pats := []string{"", "a", "^a", "a$", "^a$", "^[a-z]+$", "[a-z]*", "^.*$", ".*", "^\\d{3}-\\d{4}$",
		"uuid", "date-time", "^(foo|bar)+baz?$", "^\\s*$", "\\S", "^[^a-c]{2,3}$", "^\\u0041\\x42$",
		"^(?:ab|cd)*$", "^a|b$", "^$", "x{2}", "^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", "^\\/path\\.json$",
		"^[A-Z][a-zA-Z0-9]*$", "(?<n>ab)c", "^[\\s\\d]+$"}
	strs := []string{"", "a", "b", "ab", "ba", "abc", "foo", "foobaz", "foobarba", "bazbaz", "123-4567",
		"12-4567", " ", "\t\n", "x", "xx", "xxx", "\n", "a\nb", "uuid", "my-uuid-1", "date-time", "dd",
		"AB", "ab@ex.com", "a.b@c-d.org", "/path.json", "Abc1", "abcd", "cdab", "1 2", "\u00a0", "\u2028"}
	for _, p := range pats {
		a, err := Compile(p)
		if err != nil {
			t.Errorf("pattern %q: %v", p, err)
			continue
		}
		re, err := schema.CompileRegexp(p, time.Second)
		if err != nil {
			t.Fatalf("pattern %q does not compile: %v", p, err)
		}
		for _, s := range strs {
			want, _ := re.Match(s)
			if got := a.Matches(s); got != want {
				t.Errorf("pattern %q on %q: Automaton says %v, matcher %v", p, s, got, want)
			}
		}
	}
}
