package schema

import (
	"math/rand/v2"
	"regexp"
	"testing"
	"time"
)

// simpleCases are patterns with whether they run on simpleRe.
var simpleCases = []struct {
	pattern string
	simple  bool
}{
	{`^ORD-[0-9]{4}-[A-Z]{3}[0-9]{5}$`, true},
	{`^[A-Z]{3}$`, true},
	{`^[0-9]{4}$`, true},
	{`^[A-Z]{3}-[0-9]{6}$`, true},
	{`^[0-9A-Z -]{3,10}$`, true},
	{`^[A-Z]{2}$`, true},
	{`^\+[1-9][0-9]{6,14}$`, true},
	{`^\d+$`, true},
	{`^[a-z]+-[0-9]*$`, true},
	{`^v?[0-9]+$`, true},
	{`^abc`, true},
	{`^`, true},
	{`^$`, true},
	{`^a*$`, true},
	{`^[a-z]*`, true},
	{`^\w+@\w+$`, true},
	{`^x{2,}y$`, true},
	{`^a?b?c$`, true},
	{`^[^a]$`, false}, // a negated class reaches beyond ASCII
	{`^a*a$`, false},  // greedy would take the last a
	{`^[a-z]+[0-9a-f]$`, false},
	{`^a?a$`, false},
	{`^a*b?a$`, false}, // the a after an optional b
	{`abc$`, false},    // not anchored at the start
	{`^(ab)+$`, false},
	{`^a|b$`, false},
	{`^.+$`, false},
	{`^é$`, false},
	{`^\bx$`, false},
}

// TestSimplePattern checks which patterns run on simpleRe, and that simpleRe answers as Go's
// regexp does on strings made of the patterns' characters and a few others.
func TestSimplePattern(t *testing.T) {
	alphabet := []string{"a", "b", "c", "x", "y", "z", "A", "Z", "O", "R", "D", "0", "1", "5", "9", "-", "+", " ", "@", "_", "\n", "é", "\xff", "f", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range simpleCases {
		re, err := CompileRegexp(c.pattern, time.Second)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		sr, ok := re.(*simpleRe)
		if ok != c.simple {
			t.Errorf("%s: simple %v, want %v", c.pattern, ok, c.simple)
			continue
		}
		if !ok {
			continue
		}
		tr, _ := toRE2(c.pattern)
		ref := regexp.MustCompile(tr)
		check := func(s string) {
			got, err := sr.Match(s)
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, want %v", c.pattern, s, got, want)
			}
		}
		for _, s := range []string{"", "ORD-1234-ABC12345", "USD", "1234", "ABC-123456", "12345", "+1234567", "+12345678901234", "+123456789012345", "abc", "abcd", "a", "aa", "xxy", "xy", "ab-12", "v12", "12"} {
			check(s)
		}
		for range 3000 {
			n := rng.IntN(18)
			b := make([]byte, 0, n)
			for range n {
				b = append(b, alphabet[rng.IntN(len(alphabet))]...)
			}
			check(string(b))
		}
	}
}

// TestSimplePatternInterface checks simpleRe's other methods.
func TestSimplePatternInterface(t *testing.T) {
	re, err := CompileRegexp(`^[0-9]{2}$`, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if re.String() != `^[0-9]{2}$` {
		t.Errorf("String: %q", re.String())
	}
	if ok, err := re.MatchContext(t.Context(), "42"); !ok || err != nil {
		t.Errorf("MatchContext(42): %v %v", ok, err)
	}
	if ok, err := re.MatchContext(t.Context(), "4"); ok || err != nil {
		t.Errorf("MatchContext(4): %v %v", ok, err)
	}
}

// FuzzSimplePattern compares simpleRe with Go's regexp on patterns and strings the fuzzer
// makes: whenever a pattern runs on simpleRe, both answer alike.
func FuzzSimplePattern(f *testing.F) {
	for _, c := range simpleCases {
		f.Add(c.pattern, "ORD-1234-ABC12345")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := CompileRegexp(pattern, time.Second)
		if err != nil {
			return
		}
		sr, ok := re.(*simpleRe)
		if !ok {
			return
		}
		if got, want := sr.match(s), sr.re.MatchString(s); got != want {
			t.Errorf("%q on %q: %v, want %v", pattern, s, got, want)
		}
	})
}
