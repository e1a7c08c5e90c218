package schema

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckPatternLimits(t *testing.T) {
	t.Parallel()
	nest := func(n int) string { return strings.Repeat("(", n) + "a" + strings.Repeat(")", n) }
	for _, tc := range []struct {
		name    string
		pattern string
		want    string // "" when within the limits
	}{
		{"plain", `^[a-z]+(-[a-z]+)*$`, ""},
		{"deepest allowed", nest(MaxPatternDepth), ""},
		{"too deep", nest(MaxPatternDepth + 1), "groups nest more than 1000 deep"},
		{"400k nested", nest(400_000), "bytes long"},
		{"lookarounds count", strings.Repeat("(?=", MaxPatternDepth+1) + "a" + strings.Repeat(")", MaxPatternDepth+1), "groups nest"},
		{"classes do not nest", "[" + strings.Repeat("(", 5000) + "]", ""},
		{"escaped parens", strings.Repeat(`\(`, 5000), ""},
		{"too long", strings.Repeat("a", MaxPatternLength+1), "bytes long"},
		{"quantifiers", strings.Repeat("a*", MaxPatternQuantifiers), ""},
		{"too many quantifiers", strings.Repeat("a*", MaxPatternQuantifiers+1), "more than 10000 quantifiers"},
		{"lazy is one quantifier", strings.Repeat("a*?", MaxPatternQuantifiers), ""},
		{"tower", strings.Repeat("(", MaxPatternQuantifierNesting) + "a" + strings.Repeat(")+", MaxPatternQuantifierNesting), ""},
		{"tower too high", strings.Repeat("(", MaxPatternQuantifierNesting) + "a+" + strings.Repeat(")+", MaxPatternQuantifierNesting), "quantified groups nest more than 20"},
		{"counted tower", strings.Repeat("(?:", 30) + "a" + strings.Repeat("){2}", 30), "quantified groups nest"},
		{"unquantified groups do not count", strings.Repeat("(", 30) + "a+" + strings.Repeat(")", 30), ""},
		{"alternation resets", "(a+|b)+", ""},
		{"big count", "a{100001}", "a count of {100001}"},
		{"big upper count", "a{1,99999999999999999999999}", "a count of"},
		{"literal brace", "a{,5}{x}{", ""},
		{"allowed count", "a{0,100000}", ""},
		{"unbalanced", "a))(", ""},
		{"class with escape", `[\]((]+`, ""},
		{"unicode escape", "\\é+", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckPatternLimits(tc.pattern)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckPatternLimits: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrPatternLimit) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckPatternLimits = %v, want an ErrPatternLimit saying %q", err, tc.want)
			}
		})
	}
}

// Every entry point that parses a pattern runs the pre-check first: a pattern that would
// overflow regexp2's parser's stack is an error naming the limit.
func TestPatternLimitsBeforeParsers(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("(", 40_000) + "a" + strings.Repeat(")", 40_000)
	if _, err := CompileRegexp(deep, time.Second); !errors.Is(err, ErrPatternLimit) {
		t.Errorf("CompileRegexp: %v, want ErrPatternLimit", err)
	}
	if err := checkRegex(deep); !errors.Is(err, ErrPatternLimit) {
		t.Errorf("checkRegex: %v, want ErrPatternLimit", err)
	}
}

func TestQuotePattern(t *testing.T) {
	t.Parallel()
	if got := QuotePattern("ab"); got != `"ab"` {
		t.Errorf("QuotePattern(short) = %s", got)
	}
	long := strings.Repeat("é", 100)
	got := QuotePattern(long)
	if !strings.HasSuffix(got, "... (200 bytes)") || len(got) > 120 {
		t.Errorf("QuotePattern(long) = %s", got)
	}
}

func TestIDNHostnameLengthFirst(t *testing.T) {
	t.Parallel()
	if err := checkIDNHostname(strings.Repeat("é", 254)); err == nil || !strings.Contains(err.Error(), "254 characters long") {
		t.Errorf("checkIDNHostname(254 characters) = %v", err)
	}
	if err := checkIDNHostname(strings.Repeat("é", 40) + "." + strings.Repeat("é", 40)); err != nil {
		t.Errorf("checkIDNHostname(two labels) = %v", err)
	}
}

// Quantified groups count through the groups between them that are not quantified.
func TestPatternQuantifierNestingThroughGroups(t *testing.T) {
	t.Parallel()
	p := strings.Repeat("((?<=", 30) + `\d` + strings.Repeat("){1000})", 30)
	if err := CheckPatternLimits(p); !errors.Is(err, ErrPatternLimit) {
		t.Fatalf("CheckPatternLimits = %v, want ErrPatternLimit", err)
	}
}
