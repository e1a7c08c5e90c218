package schema

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The limits a pattern is held to before any regular expression parser reads it. regexp2's
// parser (the engine behind every pattern RE2 cannot run) recurses on nesting with no limit
// of its own: 400,000 nested groups are a fatal stack overflow, which no recover catches.
// The limits are far above what real schemas use (of the 9,435 patterns of the
// JSON-Schema-Test-Suite and the SchemaStore catalog, the deepest nests 7 groups, the longest
// has 46,277 bytes, none has more than 31 quantifiers) and below where regexp2 costs more than
// a few tens of megabytes: at the limits, 1,000 nested groups compile in 20 ms and 18 MB, and
// a 100,000-byte pattern of 33,000 groups in 0.4 s and 40 MB.
const (
	// MaxPatternLength is the longest pattern, in bytes.
	MaxPatternLength = 100_000
	// MaxPatternDepth is the deepest nesting of groups (lookarounds included) in a pattern,
	// as for Go's own regexp.
	MaxPatternDepth = 1000
	// MaxPatternQuantifiers is the most quantifiers (*, +, ?, {n,m}) in a pattern.
	MaxPatternQuantifiers = 10_000
	// MaxPatternQuantifierNesting is the deepest nesting of quantified groups: ((a+)+)+ nests 3.
	MaxPatternQuantifierNesting = 20
	// MaxPatternRepeat is the largest count a {n,m} quantifier may name.
	MaxPatternRepeat = 100_000
)

// ErrPatternLimit is wrapped by the error of a pattern beyond one of the limits above.
var ErrPatternLimit = errors.New("pattern exceeds a limit")

// CheckPatternLimits reports whether a pattern is within the limits every pattern is held
// to (MaxPatternLength, MaxPatternDepth, MaxPatternQuantifiers, MaxPatternQuantifierNesting,
// MaxPatternRepeat). It reads the pattern once, in linear time and constant stack, and
// must run before a pattern reaches any regular expression parser: CompileRegexp and the
// format "regex" check run it, and so must any other reader of pattern syntax.
func CheckPatternLimits(p string) error {
	if len(p) > MaxPatternLength {
		return fmt.Errorf("%w: %d bytes long, more than the %d a pattern may have", ErrPatternLimit, len(p), MaxPatternLength)
	}
	// qdepth[i] is the deepest quantifier nesting inside the i-th open group; the last entry
	// is the pattern's top level.
	qdepth := make([]int, 1, 16)
	quants, lastAtom := 0, -1 // lastAtom: the quantifier nesting of the atom a quantifier would apply to, -1 when none
	for i := 0; i < len(p); i++ {
		c := p[i]
		quantified := false
		switch c {
		case '\\':
			i++
			if i < len(p) && p[i] >= utf8.RuneSelf {
				_, n := utf8.DecodeRuneInString(p[i:])
				i += n - 1
			}
			lastAtom = 0
		case '[':
			// A class: in Unicode mode, nothing nests inside it.
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
			lastAtom = 0
		case '(':
			if len(qdepth) > MaxPatternDepth {
				return fmt.Errorf("%w: groups nest more than %d deep", ErrPatternLimit, MaxPatternDepth)
			}
			qdepth = append(qdepth, 0)
			lastAtom = -1
		case ')':
			if len(qdepth) == 1 {
				lastAtom = 0 // unbalanced: the parser will say so
				break
			}
			inner := qdepth[len(qdepth)-1]
			qdepth = qdepth[:len(qdepth)-1]
			if top := &qdepth[len(qdepth)-1]; inner > *top {
				*top = inner // what a group holds, its parent holds, quantified or not
			}
			lastAtom = inner
		case '*', '+', '?':
			quantified = true
		case '{':
			j, n, ok := repeatCount(p, i)
			if !ok {
				lastAtom = 0 // a literal brace
				break
			}
			if n > MaxPatternRepeat {
				return fmt.Errorf("%w: a count of %s, more than the %d a quantifier may repeat", ErrPatternLimit, p[i:j+1], MaxPatternRepeat)
			}
			i = j
			quantified = true
		case '|':
			lastAtom = -1
		default:
			lastAtom = 0
		}
		if !quantified {
			continue
		}
		if lastAtom < 0 {
			continue // a lazy or possessive suffix, or nothing to repeat: the parser decides
		}
		quants++
		if quants > MaxPatternQuantifiers {
			return fmt.Errorf("%w: more than %d quantifiers", ErrPatternLimit, MaxPatternQuantifiers)
		}
		d := lastAtom + 1
		if d > MaxPatternQuantifierNesting {
			return fmt.Errorf("%w: quantified groups nest more than %d deep", ErrPatternLimit, MaxPatternQuantifierNesting)
		}
		if top := &qdepth[len(qdepth)-1]; d > *top {
			*top = d
		}
		lastAtom = -1 // a following ? makes it lazy; a second quantifier is the parser's error
	}
	return nil
}

// repeatCount reads a {n}, {n,} or {n,m} quantifier at p[i]: the index of its closing
// brace and its largest count (n when unbounded).
func repeatCount(p string, i int) (end int, count uint64, ok bool) {
	j := i + 1
	var max uint64
	digits := 0
	for part := 0; part < 2; part++ {
		start := j
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if j > start {
			v, err := strconv.ParseUint(p[start:j], 10, 64)
			if err != nil {
				v = ^uint64(0)
			}
			max = v
			digits++
		} else if part == 0 {
			return 0, 0, false
		}
		if part == 0 && j < len(p) && p[j] == ',' {
			j++
			continue
		}
		break
	}
	if j >= len(p) || p[j] != '}' || digits == 0 {
		return 0, 0, false
	}
	return j, max, true
}

// QuotePattern quotes a pattern for a message, cut to its first 80 bytes (with its length
// when cut): a hostile pattern may be megabytes long.
func QuotePattern(p string) string {
	const most = 80
	if len(p) <= most {
		return strconv.Quote(p)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", p[:cut], len(p))
}
