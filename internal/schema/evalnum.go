package schema

import (
	"math"

	"github.com/jstk-dev/jstk/internal/source"
)

// numQuick settles, for the short number literals most JSON holds, a schema's type check
// and number keywords in one pass over the literal: the literal is read as a fixed-point
// integer and compared with bounds prepared the same way when the schema is compiled.
// Only a pass is settled (see pass); anything else (a failure, a literal with an exponent
// or of more than 18 digits, a bound or scale that would overflow) goes the regular way,
// which parses the literal as a Decimal and words the errors. Parsing the literal once
// for "integer" and again for each bound took a quarter of the reference workload's
// evaluation.
type numQuick struct {
	types TypeSet // the schema's type (0: any); only its number classes matter here
	// the bounds, each m / 10^f, when present
	min, max, exclMin, exclMax, mult fixedNum
	has                              uint8 // which are present (numMin, ...)
}

// fixedNum is the number m / 10^f.
type fixedNum struct {
	m int64
	f int
}

const (
	numMin = 1 << iota
	numMax
	numExclMin
	numExclMax
	numMult
)

// maxFixedDigits is the most digits of a literal read as a fixedNum: its value is then
// below 10^18, so that scaling by ten once more never overflows unnoticed.
const maxFixedDigits = 18

var pow10i = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// scaleLimit[k] is the largest magnitude that can be multiplied by 10^k in an int64.
var scaleLimit = func() (l [19]int64) {
	for k := range l {
		l[k] = math.MaxInt64 / pow10i[k]
	}
	return l
}()

// parseFixed reads a number literal without exponent of at most maxFixedDigits digits
// (-12.50 is -1250 / 10^2); ok is false for any other text.
func parseFixed(lit string) (n fixedNum, ok bool) {
	i := 0
	neg := false
	if len(lit) > 0 && lit[0] == '-' {
		neg, i = true, 1
	}
	var m int64
	digits, dot := 0, -1
	for ; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c >= '0' && c <= '9':
			if digits == 1 && m == 0 && dot < 0 {
				return fixedNum{}, false // a leading zero (not JSON): the regular way says so
			}
			m = m*10 + int64(c-'0')
			digits++
			if digits > maxFixedDigits {
				return fixedNum{}, false
			}
		case c == '.' && dot < 0 && digits > 0:
			dot = digits
		default:
			return fixedNum{}, false
		}
	}
	if digits == 0 || dot == digits {
		return fixedNum{}, false
	}
	if dot >= 0 {
		n.f = digits - dot
	}
	if neg {
		m = -m
	}
	n.m = m
	return n, true
}

// scaleFixed returns x·10^k, or ok false when it does not fit in an int64.
func scaleFixed(x int64, k int) (int64, bool) {
	if k > maxFixedDigits || x > scaleLimit[k] || x < -scaleLimit[k] {
		return 0, false
	}
	return x * pow10i[k], true
}

// cmpFixed compares a and b: -1, 0 or +1; ok is false when they cannot be brought to the
// same scale in an int64.
func cmpFixed(a, b fixedNum) (c int, ok bool) {
	x, y := a.m, b.m
	switch {
	case a.f < b.f:
		if x, ok = scaleFixed(x, b.f-a.f); !ok {
			return 0, false
		}
	case b.f < a.f:
		if y, ok = scaleFixed(y, a.f-b.f); !ok {
			return 0, false
		}
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// multipleFixed reports whether a is a multiple of q (q > 0); ok is false when that cannot
// be decided in an int64.
func multipleFixed(a, q fixedNum) (yes, ok bool) {
	if a.f <= q.f {
		x, ok := scaleFixed(a.m, q.f-a.f)
		if !ok {
			return false, false
		}
		return x%q.m == 0, true
	}
	d, ok := scaleFixed(q.m, a.f-q.f)
	if !ok {
		return false, false
	}
	return a.m%d == 0, true
}

// buildNumQuick sets s.numQuick when it has number keywords, or a type that takes some
// numbers and not others ("integer"), and each bound reads as a fixedNum.
func (s *Schema) buildNumQuick() {
	nt := s.types & TypeNumber
	hasNum := s.groups&groupNumber != 0
	if !hasNum && (s.types == 0 || nt == 0 || nt == TypeNumber) {
		return // no number keyword, and the type check is one bit test
	}
	if s.types != 0 && nt == 0 {
		return // numbers fail the type check: nothing to hurry
	}
	q := &numQuick{types: s.types}
	for _, b := range []struct {
		d   *source.Decimal
		to  *fixedNum
		bit uint8
	}{
		{s.minimum, &q.min, numMin}, {s.maximum, &q.max, numMax},
		{s.exclMin, &q.exclMin, numExclMin}, {s.exclMax, &q.exclMax, numExclMax},
		{s.multipleOf, &q.mult, numMult},
	} {
		if b.d == nil {
			continue
		}
		n, ok := parseFixed(b.d.String())
		if !ok || (b.bit == numMult && n.m <= 0) {
			return
		}
		*b.to = n
		q.has |= b.bit
	}
	s.numQuick = q
}

// pass reports whether the number literal lit passes the schema's type check and number
// keywords, when that is settled quickly; false means "not known": the regular evaluation
// decides.
func (q *numQuick) pass(lit string) bool {
	n, ok := parseFixed(lit)
	if !ok {
		return false
	}
	if q.types != 0 {
		class := TypeInteger
		if n.f > 0 {
			class = TypeFraction
			if n.m%pow10i[n.f] == 0 {
				class = TypeDotted
			}
		}
		if q.types&class == 0 {
			return false
		}
	}
	if q.has == 0 {
		return true
	}
	if q.has&numMin != 0 {
		if c, ok := cmpFixed(n, q.min); !ok || c < 0 {
			return false
		}
	}
	if q.has&numMax != 0 {
		if c, ok := cmpFixed(n, q.max); !ok || c > 0 {
			return false
		}
	}
	if q.has&numExclMin != 0 {
		if c, ok := cmpFixed(n, q.exclMin); !ok || c <= 0 {
			return false
		}
	}
	if q.has&numExclMax != 0 {
		if c, ok := cmpFixed(n, q.exclMax); !ok || c >= 0 {
			return false
		}
	}
	if q.has&numMult != 0 {
		if yes, ok := multipleFixed(n, q.mult); !ok || !yes {
			return false
		}
	}
	return true
}
