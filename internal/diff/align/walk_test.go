package align

import (
	"strconv"
	"testing"
)

// TestAppendQuoteIsStrconvQuote checks the printable-ASCII fast path of appendQuote
// against strconv.Quote, and the other strings, which go to strconv.
func TestAppendQuoteIsStrconvQuote(t *testing.T) {
	for _, s := range []string{"", "abc", `^([Pp][Rr]|\.x)$`, `say "hi"`, `a\b`, `"`, `\`, `\"x"\`, "tab\there", "é", "\x7f", "~ !", "\u2028"} {
		if got, want := string(appendQuote([]byte("x"), s)), "x"+strconv.Quote(s); got != want {
			t.Errorf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	}
	if got := quoteList([]string{"a", `b"`}); got != `"a" and "b\""` {
		t.Errorf("quoteList = %s", got)
	}
}
