package pattern

import (
	"fmt"
	"runtime"
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

// TestSolveManyMustNot asks for a name that one of 300 anchored patterns matches and none
// of the same 300 (itself among them) does, as the diff's example search asks of each
// pattern of one side against the other side's patternProperties. Each pattern is ruled
// out by a short prefix, so the question costs what its few live automata do: the heap it
// allocates (once the automata are built) stays under 1 MB, where the full product of 301
// automata per state took 12 MB. (Bytes allocated, not time: they do not depend on load.)
func TestSolveManyMustNot(t *testing.T) {
	var all []*Automaton
	for i := range 300 {
		a, err := Compile(fmt.Sprintf("^p%d_[a-z]+$", i))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, a)
	}
	x := all[5]
	q := Query{Must: []*Automaton{x}, MustNot: all, MinLen: 1, MaxLen: -1}
	Solve(q) // builds the automata's states
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, found, exhaustive := Solve(q)
	runtime.ReadMemStats(&after)
	if found || !exhaustive {
		t.Errorf("x against itself: found %q (%v), exhaustive %v; want none, exhaustive", w, found, exhaustive)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("Solve allocated %d KB for a question that most automata leave at once, want under 1 MB", got>>10)
	}
	// Without x among the must-nots, the shortest name is found, as before.
	others := append(append([]*Automaton(nil), all[:5]...), all[6:]...)
	if w, found, _ := Solve(Query{Must: []*Automaton{x}, MustNot: others, MinLen: 1, MaxLen: -1}); !found || w != "p5_a" {
		t.Errorf("x against the others: %q (%v), want p5_a", w, found)
	}
}
