package source

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number, (-1)^neg × mantissa × 10^exp. It is how jstk compares
// and divides JSON numbers: never through float64, so 1.0 equals 1 and 4191.9 is a multiple
// of 0.01. The mantissa has no trailing zeros (zero is 0×10^0), so equal numbers have equal
// fields. The zero Decimal is the number 0.
type Decimal struct {
	neg  bool
	mant uint64   // the mantissa when it fits in 64 bits
	big  *big.Int // the mantissa otherwise (then mant is 0)
	exp  int64
}

// maxExponent bounds the decimal exponent of a literal; beyond it a number is refused rather
// than silently rounded.
const maxExponent = 1 << 40

var errNumberSyntax = errors.New("invalid number")

// IsNumberLiteral reports whether s is a number in JSON syntax.
func IsNumberLiteral(s string) bool {
	_, _, _, ok := splitNumber(s)
	return ok
}

// splitNumber splits a JSON number literal into its sign, integer digits, fraction digits
// and exponent part (with sign, without the 'e').
func splitNumber(s string) (neg bool, intPart, frac string, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	start := i
	if i < len(s) && s[i] == '0' {
		i++
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i == start {
		return false, "", "", false
	}
	intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return false, "", "", false
		}
		frac = s[fs:i]
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == es {
			return false, "", "", false
		}
	}
	return neg, intPart, frac, i == len(s)
}

// ParseDecimal parses a number in JSON syntax exactly.
func ParseDecimal(s string) (Decimal, error) {
	if d, ok := parseShortDecimal(s); ok {
		return d, nil
	}
	return parseDecimal(s)
}

// parseDecimal is ParseDecimal for any literal.
func parseDecimal(s string) (Decimal, error) {
	neg, intPart, frac, ok := splitNumber(s)
	if !ok {
		return Decimal{}, errNumberSyntax
	}
	var exp int64
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		es := s[k+1:]
		eneg := false
		if es[0] == '+' || es[0] == '-' {
			eneg = es[0] == '-'
			es = es[1:]
		}
		for _, c := range []byte(es) {
			exp = exp*10 + int64(c-'0')
			if exp > maxExponent {
				return Decimal{}, errors.New("number exponent out of range")
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// Trailing zeros go into the exponent, leading zeros are dropped.
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		t := strings.TrimRight(intPart, "0")
		exp += int64(len(intPart) - len(t))
		intPart = t
	}
	exp -= int64(len(frac))
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		frac = strings.TrimLeft(frac, "0")
	}
	if intPart == "" && frac == "" {
		return Decimal{}, nil
	}
	d := Decimal{neg: neg, exp: exp}
	if len(intPart)+len(frac) <= 19 {
		var m uint64
		for _, c := range []byte(intPart) {
			m = m*10 + uint64(c-'0')
		}
		for _, c := range []byte(frac) {
			m = m*10 + uint64(c-'0')
		}
		d.mant = m
		return d, nil
	}
	b, _ := new(big.Int).SetString(intPart+frac, 10)
	if b.IsUint64() {
		d.mant = b.Uint64()
	} else {
		d.big = b
	}
	return d, nil
}

// parseShortDecimal parses, in one pass, the literals most JSON holds: an integer or a
// fraction without exponent of at most 19 digits (the mantissa fits in 64 bits). ok is
// false for any other text, which ParseDecimal then reads in full (and rejects if wrong).
func parseShortDecimal(s string) (d Decimal, ok bool) {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		d.neg = true
		i = 1
	}
	if i >= len(s) || len(s)-i > 20 || (s[i] == '0' && i+1 < len(s) && s[i+1] != '.') {
		return Decimal{}, false
	}
	var m uint64
	digits, fracLen, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				fracLen++
			}
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return Decimal{}, false
		}
	}
	if digits == 0 || digits > 19 || (dot && fracLen == 0) {
		return Decimal{}, false
	}
	if m == 0 {
		return Decimal{}, true
	}
	d.exp = -int64(fracLen)
	for m%10 == 0 {
		m /= 10
		d.exp++
	}
	d.mant = m
	return d, true
}

// MustDecimal parses a literal known to be valid; it panics otherwise.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic("source.MustDecimal(" + strconv.Quote(s) + "): " + err.Error())
	}
	return d
}

// DecimalFromInt returns i as a Decimal.
func DecimalFromInt(i int64) Decimal {
	d, _ := ParseDecimal(strconv.FormatInt(i, 10))
	return d
}

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	switch {
	case d.mant == 0 && d.big == nil:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// IsInteger reports whether d has no fractional part.
func (d Decimal) IsInteger() bool { return d.exp >= 0 || d.Sign() == 0 }

// digits returns the mantissa's decimal digits, using buf when it is large enough.
func (d Decimal) digits(buf []byte) []byte {
	if d.big != nil {
		return d.big.Append(buf[:0], 10)
	}
	return strconv.AppendUint(buf[:0], d.mant, 10)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// pow10u holds the powers of ten that fit in 64 bits.
var pow10u = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

func (d Decimal) numDigits() int64 {
	if d.big != nil {
		return int64(len(d.big.String()))
	}
	n := int64(1)
	for m := d.mant; m >= 10; m /= 10 {
		n++
	}
	return n
}

// Cmp compares d and e, returning -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int {
	ds, es := d.Sign(), e.Sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	c := cmpMagnitude(d, e)
	if ds < 0 {
		return -c
	}
	return c
}

// cmpMagnitude compares |d| and |e|, both non-zero.
func cmpMagnitude(d, e Decimal) int {
	if d.big == nil && e.big == nil && d.exp == e.exp {
		switch {
		case d.mant < e.mant:
			return -1
		case d.mant > e.mant:
			return 1
		}
		return 0
	}
	// The position of the leading digit decides, unless it is the same; then the digit
	// strings (which have no trailing zeros) compare like text.
	da, ea := d.numDigits()+d.exp, e.numDigits()+e.exp
	if da != ea {
		if da < ea {
			return -1
		}
		return 1
	}
	if d.big == nil && e.big == nil {
		// the same leading position: align the mantissas, the one of fewer digits scaled
		// up (at most 19 places); past 64 bits it is the larger
		a, b, sign := d.mant, e.mant, 1
		if d.exp < e.exp {
			a, b, sign = e.mant, d.mant, -1
		}
		hi, lo := bits.Mul64(a, pow10u[abs64(d.exp-e.exp)])
		if hi != 0 {
			return sign
		}
		a = lo
		switch {
		case a < b:
			return -sign
		case a > b:
			return sign
		}
		return 0
	}
	return strings.Compare(string(d.digits(nil)), string(e.digits(nil)))
}

// MultipleOf reports whether d is an integer multiple of m, exactly. m must be positive.
func (d Decimal) MultipleOf(m Decimal) bool {
	if d.Sign() == 0 {
		return true
	}
	if m.Sign() <= 0 {
		return false
	}
	// d = a·10^e, m = b·10^f: d/m = (a/b)·10^(e-f). When e < f, a (which has no trailing
	// zero) would have to be divisible by 10, so the answer is no.
	k := d.exp - m.exp
	if k < 0 {
		return false
	}
	if d.big == nil && m.big == nil {
		b := m.mant
		if b == 1 {
			return true
		}
		r := d.mant % b
		if r == 0 {
			return true
		}
		return mulMod(r, powMod10(k, b), b) == 0
	}
	a, b := d.bigMant(), m.bigMant()
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), b)
	p.Mul(p, a)
	return p.Mod(p, b).Sign() == 0
}

func (d Decimal) bigMant() *big.Int {
	if d.big != nil {
		return d.big
	}
	return new(big.Int).SetUint64(d.mant)
}

func mulMod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, r := bits.Div64(hi%m, lo, m)
	return r
}

func powMod10(k int64, m uint64) uint64 {
	result, base := uint64(1)%m, uint64(10)%m
	for k > 0 {
		if k&1 == 1 {
			result = mulMod(result, base, m)
		}
		base = mulMod(base, base, m)
		k >>= 1
	}
	return result
}

// Int64 returns d as an int64 when it is an integer in range.
func (d Decimal) Int64() (int64, bool) {
	if !d.IsInteger() || d.big != nil || d.exp > 18 {
		return 0, d.Sign() == 0
	}
	m := d.mant
	for i := int64(0); i < d.exp; i++ {
		hi, lo := bits.Mul64(m, 10)
		if hi != 0 {
			return 0, false
		}
		m = lo
	}
	if d.neg {
		if m > 1<<63 {
			return 0, false
		}
		return -int64(m), true
	}
	if m > math.MaxInt64 {
		return 0, false
	}
	return int64(m), true
}

// Float64 returns the nearest float64 (±Inf when out of range).
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// String returns a canonical JSON literal for d: plain notation for moderate exponents,
// scientific otherwise.
func (d Decimal) String() string {
	if d.Sign() == 0 {
		return "0"
	}
	var buf [24]byte
	digits := string(d.digits(buf[:]))
	nd := int64(len(digits))
	var sb strings.Builder
	if d.neg {
		sb.WriteByte('-')
	}
	switch {
	case d.exp >= 0 && nd+d.exp <= 21:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", int(d.exp)))
	case d.exp < 0 && -d.exp < nd:
		sb.WriteString(digits[:nd+d.exp])
		sb.WriteByte('.')
		sb.WriteString(digits[nd+d.exp:])
	case d.exp < 0 && -d.exp-nd < 6:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", int(-d.exp-nd)))
		sb.WriteString(digits)
	default:
		sb.WriteString(digits[:1])
		if nd > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		e := d.exp + nd - 1
		if e >= 0 {
			sb.WriteByte('+')
		}
		sb.WriteString(strconv.FormatInt(e, 10))
	}
	return sb.String()
}

// LCMRat is the least common multiple of two positive rationals, nil standing for absent
// (the other is returned): lcm(p/q, r/s) = lcm(p, r) / gcd(q, s) for fractions in lowest
// terms. It is the step that two multipleOf keywords make together.
func LCMRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	p, q, r, s := a.Num(), a.Denom(), b.Num(), b.Denom()
	g := new(big.Int).GCD(nil, nil, p, r)
	l := new(big.Int).Mul(p, r)
	l.Quo(l, g)
	d := new(big.Int).GCD(nil, nil, q, s)
	return new(big.Rat).SetFrac(l, d)
}
