package schema

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Regexp is a compiled ECMA-262 regular expression.
type Regexp interface {
	// Match reports whether s contains a match. The error is non-nil only when the match
	// could not be decided in time.
	Match(s string) (bool, error)
	// MatchContext is Match within a run: the match also ends at the context's deadline
	// and draws on the run's pattern budget (WithRegexBudget), and a cancelled context
	// refuses it. Its error is then the context's, or a *StoppedError for the budget.
	MatchContext(ctx context.Context, s string) (bool, error)
	String() string
}

// ErrRegexTimeout is wrapped by the error of a match that exceeded the time limit.
var ErrRegexTimeout = errors.New("pattern match time limit exceeded")

// CompileRegexp compiles an ECMA-262 pattern (Unicode mode). Patterns within the subset
// where ECMA-262 and RE2 agree run on Go's linear-time engine; the rest (lookaround,
// backreferences, Unicode classes, ...) run on a backtracking engine bounded by timeout.
//
// A pattern beyond the limits of CheckPatternLimits is an error wrapping ErrPatternLimit,
// found before any parser reads it.
func CompileRegexp(pattern string, timeout time.Duration) (Regexp, error) {
	if err := CheckPatternLimits(pattern); err != nil {
		return nil, err
	}
	// Syntax of other regex languages (inline flags, \A, \Z, \Q...\E, atomic groups) is an
	// error in ECMA-262, not something to interpret.
	if err := checkECMAEscapes(pattern); err != nil {
		return nil, err
	}
	if tr, ok := toRE2(pattern); ok {
		if re, err := regexp.Compile(tr); err == nil {
			if sr, ok := simplePattern(re, pattern); ok {
				return sr, nil
			}
			return re2{re, pattern}, nil
		}
	}
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, cleanRegexErr(err)
	}
	re.MatchTimeout = timeout
	return ecma{re, pattern, timeout}, nil
}

func cleanRegexErr(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error parsing regexp: ")
	return errors.New(msg)
}

func (c *Compiler) regexp(p string) (Regexp, error) {
	if re, ok := c.regexes[p]; ok {
		return re, nil
	}
	re, err := CompileRegexp(p, c.opts.RegexTimeout)
	if err != nil {
		return nil, err
	}
	c.regexes[p] = re
	return re, nil
}

type re2 struct {
	re  *regexp.Regexp
	src string
}

func (r re2) Match(s string) (bool, error) { return r.re.MatchString(s), nil }
func (r re2) String() string               { return r.src }

// MatchContext runs the linear-time engine, which cannot hang: it neither draws on the
// budget nor needs the context.
func (r re2) MatchContext(_ context.Context, s string) (bool, error) { return r.re.MatchString(s), nil }

type ecma struct {
	re      *regexp2.Regexp
	src     string
	timeout time.Duration
}

func (r ecma) Match(s string) (bool, error) {
	ok, err := r.re.MatchString(s)
	if err != nil {
		return false, fmt.Errorf("%w: pattern %q did not finish within %v", ErrRegexTimeout, r.src, r.timeout)
	}
	return ok, nil
}

func (r ecma) String() string { return r.src }

func (r ecma) MatchContext(ctx context.Context, s string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	timeout := r.timeout
	b := budgetOf(ctx)
	if b != nil {
		left := b.remaining()
		if left <= 0 {
			return false, b.exhausted(r.src)
		}
		timeout = min(timeout, left)
	}
	byDeadline := false
	if dl, ok := ctx.Deadline(); ok {
		if until := time.Until(dl); until < timeout {
			timeout, byDeadline = until, true
		}
		if timeout <= 0 {
			return false, context.DeadlineExceeded
		}
	}
	start := time.Now()
	var ok bool
	var err error
	if ctx.Done() == nil || timeout <= firstSlice {
		ok, err = r.matchWithin(s, timeout)
	} else {
		// Nearly every match ends within microseconds. One that runs past the first slice
		// is run again where a cancellation need not wait for it: on cancellation the
		// call returns at once and the match, left behind, ends at its own limit.
		ok, err = r.matchWithin(s, firstSlice)
		if rest := timeout - time.Since(start); err != nil && rest > 0 && ctx.Err() == nil {
			type result struct {
				ok  bool
				err error
			}
			ch := make(chan result, 1)
			go func() {
				ok, err := r.matchWithin(s, rest)
				ch <- result{ok, err}
			}()
			select {
			case res := <-ch:
				ok, err = res.ok, res.err
			case <-ctx.Done():
				ok, err = false, ctx.Err()
			}
		}
	}
	if b != nil {
		b.spent(time.Since(start))
	}
	if err == nil {
		return ok, nil
	}
	switch {
	case b != nil && b.remaining() <= 0:
		return false, b.exhausted(r.src)
	case ctx.Err() != nil:
		return false, ctx.Err()
	case byDeadline:
		return false, context.DeadlineExceeded
	}
	return false, fmt.Errorf("%w: pattern %q did not finish within %v", ErrRegexTimeout, r.src, r.timeout)
}

// firstSlice is how long a backtracking match runs before it is moved where a
// cancellation of its run need not wait for it.
const firstSlice = 100 * time.Millisecond

// matchWithin matches with a time limit of its own.
func (r ecma) matchWithin(s string, timeout time.Duration) (bool, error) {
	re := r.re
	if timeout != r.timeout {
		// The time limit is read from the Regexp at each match: a shallow copy carries
		// this match's (the compiled program and the runner pool are shared, read-only).
		cp := *r.re
		cp.MatchTimeout = timeout
		re = &cp
	}
	return re.MatchString(s)
}

// toRE2 translates a pattern to RE2 syntax when it only uses constructs whose meaning is the
// same in both languages: literals, ".", anchors, groups, alternation, quantifiers, and
// classes of literals, ranges, \d and \w.
func toRE2(p string) (string, bool) {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x80:
			return "", false // keep non-ASCII patterns on the ECMA engine
		case c == '\\':
			if i+1 >= len(p) {
				return "", false
			}
			e := p[i+1]
			switch {
			case e == 'd' || e == 'D' || e == 'w' || e == 'W':
			case strings.IndexByte(`.-\/+*?()[]{}|^$`, e) >= 0:
			default:
				return "", false
			}
			sb.WriteByte('\\')
			sb.WriteByte(e)
			i++
		case inClass:
			switch c {
			case ']':
				inClass = false
			case '[':
				return "", false
			}
			sb.WriteByte(c)
		case c == '[':
			if strings.HasPrefix(p[i:], "[]") || strings.HasPrefix(p[i:], "[^]") {
				return "", false
			}
			inClass = true
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				sb.WriteByte('^')
				i++
			}
		case c == '.':
			sb.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		case c == '(':
			if i+1 < len(p) && p[i+1] == '?' {
				if !strings.HasPrefix(p[i:], "(?:") {
					return "", false
				}
			}
			sb.WriteByte(c)
		case c == '{':
			j := i + 1
			for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ',') {
				j++
			}
			if j >= len(p) || p[j] != '}' || j == i+1 || p[i+1] == ',' {
				return "", false
			}
			sb.WriteString(p[i : j+1])
			i = j
		case c == '}' || c == ']':
			return "", false
		case c < 0x20 || c == 0x7f:
			return "", false
		default:
			sb.WriteByte(c)
		}
	}
	if inClass {
		return "", false
	}
	return sb.String(), true
}
