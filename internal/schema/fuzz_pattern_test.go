package schema

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// patternPieces are the openings and closings FuzzPatternDeep builds patterns from: groups
// of every kind, classes, and the quantifiers that make towers.
var patternPieces = []struct{ open, close string }{
	{"(", ")"},
	{"(?:", ")+"},
	{"(?=", ")"},
	{"(?!", ")*"},
	{"(?<=", ")"},
	{"(?<n>", "){2,3}"},
	{"(a|", ")?"},
	{"[(", "]"},
	{"(", "){100000}"},
	{"(\\(", "\\)+)"},
}

// FuzzPatternDeep builds a pattern depth levels deep, each level's opening and closing chosen
// by shape (cycled), around the fuzzer's own text, repeated times times, and runs every pattern
// entry point on it: CheckPatternLimits, CompileRegexp, the format "regex" check and the
// compiled pattern's match. It runs with the goroutine stack limited to 64 MB: a parser
// recursing as deep as its input crashes the worker. Properties: nothing crashes; whatever
// CheckPatternLimits refuses, CompileRegexp and the format check refuse with ErrPatternLimit;
// a pattern of plain groups is refused exactly when it is too long or too deep.
func FuzzPatternDeep(f *testing.F) {
	for _, seed := range []struct {
		depth  uint32
		times  uint16
		shape  string
		middle string
	}{
		{1, 1, "\x00", "a"},
		{400_000, 1, "\x00", "a"},
		{1000, 1, "\x00", "a"},
		{1001, 1, "\x01", "b+"},
		{21, 1, "\x01\x03", "a"},
		{30, 400, "\x08", "a"},
		{999, 1, "\x02\x04\x05\x06", "\\d"},
		{5000, 1, "\x07\x09", "]"},
	} {
		f.Add(seed.depth, seed.times, []byte(seed.shape), seed.middle)
	}
	f.Fuzz(func(t *testing.T, depth uint32, times uint16, shape []byte, middle string) {
		stack := debug.SetMaxStack(64 << 20)
		defer debug.SetMaxStack(stack)
		if len(shape) == 0 {
			shape = []byte{0}
		}
		depth %= 1_000_000
		times = max(times%1000, 1)
		var sb strings.Builder
		plain := true
		for i := range int(depth) {
			k := int(shape[i%len(shape)]) % len(patternPieces)
			plain = plain && k == 0
			sb.WriteString(patternPieces[k].open)
		}
		sb.WriteString(middle)
		for i := int(depth) - 1; i >= 0; i-- {
			sb.WriteString(patternPieces[int(shape[i%len(shape)])%len(patternPieces)].close)
		}
		one := sb.String()
		if int64(len(one))*int64(times) > 4*MaxPatternLength {
			times = 1
		}
		p := strings.Repeat(one, int(times))

		limitErr := CheckPatternLimits(p)
		if limitErr != nil && !errors.Is(limitErr, ErrPatternLimit) {
			t.Fatalf("CheckPatternLimits: %v does not wrap ErrPatternLimit", limitErr)
		}
		if plain && middle == "a" {
			wantErr := len(p) > MaxPatternLength || int(depth) > MaxPatternDepth
			if (limitErr != nil) != wantErr {
				t.Fatalf("%d nested groups, %d bytes: CheckPatternLimits = %v", depth, len(p), limitErr)
			}
		}
		re, err := CompileRegexp(p, 50*time.Millisecond)
		if limitErr != nil {
			if !errors.Is(err, ErrPatternLimit) {
				t.Fatalf("CompileRegexp after CheckPatternLimits refused it: %v", err)
			}
			if err := checkRegex(p); !errors.Is(err, ErrPatternLimit) {
				t.Fatalf("checkRegex after CheckPatternLimits refused it: %v", err)
			}
			return
		}
		_ = checkRegex(p)
		if err == nil {
			_, _ = re.Match(strings.Repeat("a", 64))
		}
	})
}
