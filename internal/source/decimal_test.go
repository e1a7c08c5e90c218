package source

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		str     string // String()
		integer bool
		sign    int
	}{
		{"0", "0", true, 0},
		{"-0", "0", true, 0},
		{"0.000", "0", true, 0},
		{"0e-5", "0", true, 0},
		{"1", "1", true, 1},
		{"1.0", "1", true, 1},
		{"100", "100", true, 1},
		{"1e2", "100", true, 1},
		{"-12.50", "-12.5", false, -1},
		{"0.00123", "0.00123", false, 1},
		{"1.5E+3", "1500", true, 1},
		{"1e20", "100000000000000000000", true, 1},
		{"1e21", "1e+21", true, 1},
		{"123e-2", "1.23", false, 1},
		{"1e-6", "0.000001", false, 1},
		{"1e-7", "1e-7", false, 1},
		{"12345e-10", "0.0000012345", false, 1},
		{"1.5e-7", "1.5e-7", false, 1},
		{"9999999999999999999", "9999999999999999999", true, 1},
		{"18446744073709551615", "18446744073709551615", true, 1},
		{"18446744073709551616", "18446744073709551616", true, 1},
		{"123456789012345678901234567890.5", "123456789012345678901234567890.5", false, 1},
		{"-1e400000", "-1e+400000", true, -1},
		{"1e-400000", "1e-400000", false, 1},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", tt.in, err)
			continue
		}
		if got := d.String(); got != tt.str {
			t.Errorf("ParseDecimal(%q).String() = %q, want %q", tt.in, got, tt.str)
		}
		if d.IsInteger() != tt.integer || d.Sign() != tt.sign {
			t.Errorf("%q: IsInteger %v Sign %d", tt.in, d.IsInteger(), d.Sign())
		}
		if !IsNumberLiteral(tt.in) {
			t.Errorf("IsNumberLiteral(%q) = false", tt.in)
		}
		// String round-trips to an equal number.
		if e := MustDecimal(d.String()); e.Cmp(d) != 0 {
			t.Errorf("%q: String %q parses to a different number", tt.in, d.String())
		}
	}
	for _, bad := range []string{"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "1_000", " 1", "NaN", "Infinity", "1e99999999999999"} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", bad)
		}
	}
	if IsNumberLiteral("1e99999999999999") != true {
		t.Error("IsNumberLiteral checks syntax only")
	}
}

func TestMustDecimalPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `"x"`) {
			t.Errorf("recovered %v", r)
		}
	}()
	MustDecimal("x")
}

func TestDecimalCmp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"1", "1.0", 0},
		{"0", "-0", 0},
		{"1", "2", -1},
		{"-1", "-2", 1},
		{"-1", "1", -1},
		{"0", "1e-400000", -1},
		{"0", "-1e-400000", 1},
		{"1e400000", "9e399999", 1},
		{"1.5", "1.49999999999999999999999999", 1},
		{"100", "1e2", 0},
		{"12", "1.2e1", 0},
		{"12", "123e-1", -1},
		{"123456789012345678901234567890", "123456789012345678901234567891", -1},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e29", 0},
		{"18446744073709551616", "18446744073709551615", 1},
		{"-0.001", "-0.01", 1},
	}
	for _, tt := range tests {
		a, b := MustDecimal(tt.a), MustDecimal(tt.b)
		if got := a.Cmp(b); got != tt.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.Cmp(a); got != -tt.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestDecimalMultipleOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d, m string
		want bool
	}{
		{"4191.9", "0.01", true},
		{"0.3", "0.1", true},
		{"0.35", "0.1", false},
		{"10", "2.5", true},
		{"7", "2", false},
		{"0", "7", true},
		{"-6", "3", true},
		{"6", "-3", false}, // a multipleOf must be positive
		{"6", "0", false},
		{"1e400000", "3", false},
		{"1e400000", "5", true},
		{"1e400000", "1e399999", true},
		{"1e399999", "1e400000", false},
		{"1", "1e-400000", true},
		{"1e-400000", "1e-400001", true},
		{"1e-400001", "1e-400000", false},
		{"123456789012345678901234567890", "10", true},
		{"123456789012345678901234567891", "3", false},
		{"123456789012345678901234567891", "123456789012345678901234567891", true},
		{"246913578024691357802469135782", "123456789012345678901234567891", true},
		{"1e30", "123456789012345678901234567891", false},
		{"1e30", "1000000000000000000000000000000", true},
		{"19.99", "0.01", true},
		{"1e308", "1e-308", true},
		{"2", "18446744073709551615", false},
		{"36893488147419103230", "18446744073709551615", true},
		{"0.0075", "0.0001", true},
		{"1", "0.3", false},
	}
	for _, tt := range tests {
		d, m := MustDecimal(tt.d), MustDecimal(tt.m)
		if got := d.MultipleOf(m); got != tt.want {
			t.Errorf("%s.MultipleOf(%s) = %v, want %v", tt.d, tt.m, got, tt.want)
		}
	}
}

func TestDecimalInt64AndFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"-42", -42, true},
		{"4.2e1", 42, true},
		{"1e18", 1_000_000_000_000_000_000, true},
		{"1e19", 0, false},
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775808", math.MinInt64, true},
		{"-9223372036854775809", 0, false},
		{"922337203685477580.7e1", math.MaxInt64, true},
		{"92233720368547758080e-1", 0, false},
		{"1.5", 0, false},
		{"123456789012345678901234567890", 0, false},
	}
	for _, tt := range tests {
		got, ok := MustDecimal(tt.in).Int64()
		if got != tt.want || ok != tt.ok {
			t.Errorf("Int64(%s) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if got := DecimalFromInt(-1234).String(); got != "-1234" {
		t.Errorf("DecimalFromInt: %s", got)
	}
	if got := MustDecimal("0.1").Float64(); got != 0.1 {
		t.Errorf("Float64: %v", got)
	}
	if got := MustDecimal("1e400").Float64(); !math.IsInf(got, 1) {
		t.Errorf("Float64 of 1e400: %v", got)
	}
	var zero Decimal
	if zero.String() != "0" || zero.Sign() != 0 || !zero.IsInteger() {
		t.Error("the zero Decimal is not 0")
	}
}

// ratOf returns the exact value of a JSON number literal.
func ratOf(s string) *big.Rat {
	neg, intPart, frac, ok := splitNumber(s)
	if !ok {
		panic(s)
	}
	r, _ := new(big.Rat).SetString(intPart + "." + frac + "0")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, _ := new(big.Int).SetString(strings.TrimPrefix(s[i+1:], "+"), 10)
		p := new(big.Int).Exp(big.NewInt(10), new(big.Int).Abs(e), nil)
		if e.Sign() < 0 {
			r.Quo(r, new(big.Rat).SetInt(p))
		} else {
			r.Mul(r, new(big.Rat).SetInt(p))
		}
	}
	if neg {
		r.Neg(r)
	}
	return r
}

func TestDecimalAgainstRat(t *testing.T) {
	t.Parallel()
	nums := []string{"0", "1", "-1", "0.5", "2.5", "10", "1e3", "-7.25", "0.001", "3e-3", "12345678901234567890", "1.1e-5", "6e2"}
	for _, a := range nums {
		for _, b := range nums {
			ra, rb := ratOf(a), ratOf(b)
			if got, want := MustDecimal(a).Cmp(MustDecimal(b)), ra.Cmp(rb); got != want {
				t.Errorf("Cmp(%s, %s) = %d, big.Rat says %d", a, b, got, want)
			}
			if rb.Sign() > 0 {
				q := new(big.Rat).Quo(ra, rb)
				if got, want := MustDecimal(a).MultipleOf(MustDecimal(b)), q.IsInt(); got != want {
					t.Errorf("%s.MultipleOf(%s) = %v, big.Rat says %v", a, b, got, want)
				}
			}
		}
	}
}

func TestLCMRat(t *testing.T) {
	r := func(s string) *big.Rat { x, _ := new(big.Rat).SetString(s); return x }
	for _, tc := range []struct {
		a, b *big.Rat
		want string
	}{
		{r("0.5"), r("0.3"), "3/2"},
		{r("4"), r("6"), "12/1"},
		{r("1/3"), r("1"), "1/1"},
		{nil, r("0.25"), "1/4"},
		{r("7"), nil, "7/1"},
	} {
		if got := LCMRat(tc.a, tc.b); got.String() != tc.want {
			t.Errorf("LCMRat(%v, %v) = %v, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestShortDecimal checks the one-pass parse of short literals against the full parse, and
// comparisons of random numbers against big.Rat.
func TestShortDecimal(t *testing.T) {
	t.Parallel()
	lits := []string{"", "-", "0", "-0", "00", "01", "-01", "0.", ".5", "1.", "1..2", "1.2.3", "0.0", "-0.000",
		"1e5", "1E5", "100", "100.00", "0.05", "-12.340", "9999999999999999999", "18446744073709551615",
		"99999999999999999999", "0.0000000000000000001", "-1000000000000000000", "12345678901234567890",
		"1.234567890123456789", "12a", "+1", "- 1", "1-"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b []byte
		if rng.IntN(4) == 0 {
			b = append(b, '-')
		}
		for range 1 + rng.IntN(21) {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			k := 1 + rng.IntN(len(b))
			b = append(b[:k], append([]byte{'.'}, b[k:]...)...)
		}
		lits = append(lits, string(b))
	}
	var nums []string
	for _, s := range lits {
		full, ferr := parseDecimal(s)
		short, ok := parseShortDecimal(s)
		if ok {
			if ferr != nil {
				t.Errorf("%q: short parse accepts what the full parse refuses (%v)", s, ferr)
				continue
			}
			if short.neg != full.neg || short.mant != full.mant || short.exp != full.exp || full.big != nil {
				t.Errorf("%q: short %+v, full %+v", s, short, full)
			}
		}
		if ferr == nil {
			nums = append(nums, s)
		}
	}
	for _, p := range [][2]string{{"90000000000000000000", "18446744073709551615"}, {"18446744073709551615", "90000000000000000000"}, {"-90000000000000000000", "-18446744073709551615"}} {
		if got, want := MustDecimal(p[0]).Cmp(MustDecimal(p[1])), ratOf(p[0]).Cmp(ratOf(p[1])); got != want {
			t.Errorf("Cmp(%s, %s) = %d, big.Rat says %d", p[0], p[1], got, want)
		}
	}
	for range 20000 {
		a, b := nums[rng.IntN(len(nums))], nums[rng.IntN(len(nums))]
		if strings.ContainsAny(a, "eE") {
			continue
		}
		switch rng.IntN(3) { // numbers whose leading digits are in the same place
		case 0:
			if strings.Contains(a, ".") {
				b = a + string(rune('0'+rng.IntN(10)))
			} else {
				b = a + ".0" + string(rune('0'+rng.IntN(10)))
			}
		case 1:
			if len(a) > 1 && a[len(a)-2] != '.' && a[len(a)-2] != '-' {
				b = a[:len(a)-1]
				if !strings.Contains(b, ".") {
					b += "0"
				}
			}
		}
		if got, want := MustDecimal(a).Cmp(MustDecimal(b)), ratOf(a).Cmp(ratOf(b)); got != want {
			t.Errorf("Cmp(%s, %s) = %d, big.Rat says %d", a, b, got, want)
		}
	}
}
