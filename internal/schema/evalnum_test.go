package schema

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// randomLiteral makes a number literal of up to maxDigits digits, with a point in one of
// two and an exponent in one of twenty.
func randomLiteral(rng *rand.Rand, maxDigits int) string {
	var b []byte
	if rng.IntN(3) == 0 {
		b = append(b, '-')
	}
	n := 1 + rng.IntN(maxDigits)
	start := len(b)
	for range n {
		b = append(b, byte('0'+rng.IntN(10)))
	}
	if b[start] == '0' && n > 1 {
		b[start] = '1' + byte(rng.IntN(9))
	}
	if rng.IntN(2) == 0 && n > 1 {
		k := start + 1 + rng.IntN(n-1)
		if rng.IntN(4) == 0 {
			// a whole number written with a point, or a small fraction
			b = append(b, '.')
			for range 1 + rng.IntN(3) {
				b = append(b, '0')
			}
		} else {
			b = append(b[:k], append([]byte{'.'}, b[k:]...)...)
		}
	}
	if rng.IntN(20) == 0 {
		b = append(b, []byte(fmt.Sprintf("e%d", rng.IntN(5)-2))...)
	}
	return string(b)
}

// TestNumQuick checks that numQuick passes a number only when the regular evaluation
// (typeMatches and evalNumber, on a Decimal) does, on schemas of every number keyword and
// type with random bounds and literals, and that it settles the short literals against
// small bounds (it is no use otherwise).
func TestNumQuick(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	fixed := []string{"0", "-0", "0.0", "-0.0", "1", "1.0", "1.5", "-1", "-1.00", "10", "0.01", "0.1", "0.3", "100.000",
		"999999999999999999", "-999999999999999999", "99999999999999999.9", "0.000000000000000001",
		"1e2", "1.5e1", "12345678901234567890", "4191.9", "4754.35", "-77.48007", "90", "90.0000001", "-180"}
	bounds := []string{"0", "1", "-90", "90", "0.01", "0.1", "0.3", "2.5", "1000", "-1.5", "7", "1e3", "1e-3", "0.000001",
		"123456789012345678", "1e20", "1.0000000000000000001"}
	keywords := []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
	types := []string{``, `"type": "integer", `, `"type": "number", `, `"type": ["integer", "string"], `, `"type": "string", `}
	settled, checked := 0, 0
	for range 400 {
		var kws []string
		for _, kw := range keywords {
			if rng.IntN(3) == 0 {
				b := bounds[rng.IntN(len(bounds))]
				if rng.IntN(2) == 0 {
					b = randomLiteral(rng, 6)
				}
				if kw == "multipleOf" {
					b = strings.TrimPrefix(b, "-")
					if strings.Trim(b, "0.") == "" {
						b = "1"
					}
				}
				kws = append(kws, fmt.Sprintf("%q: %s", kw, b))
			}
		}
		draft := "https://json-schema.org/draft/2020-12/schema"
		if rng.IntN(4) == 0 {
			draft = "http://json-schema.org/draft-04/schema#"
			for i, kw := range kws {
				if strings.HasPrefix(kw, `"exclusive`) {
					// draft 4's exclusive bounds are booleans that make minimum and maximum so
					kw, _, _ = strings.Cut(kw, ":")
					kws[i] = kw + ": " + []string{"true", "false"}[rng.IntN(2)]
				}
			}
		}
		text := fmt.Sprintf(`{"$schema": %q, %s%s}`, draft, types[rng.IntN(len(types))], strings.Join(kws, ", "))
		text = strings.Replace(text, ", }", "}", 1)
		s, err := compileFiles(t, map[string]string{"s.json": text}, "s.json", nil)
		if err != nil {
			continue // draft 4: exclusiveMinimum without minimum
		}
		q := s.numQuick
		if q == nil {
			continue
		}
		lits := append([]string(nil), fixed...)
		for range 60 {
			lits = append(lits, randomLiteral(rng, 20))
		}
		for _, lit := range lits {
			d, err := source.ParseJSON("n.json", []byte(lit), nil)
			if err != nil {
				t.Fatalf("%s: %v", lit, err)
			}
			s.numQuick = nil
			want, err := s.Valid(d.Root)
			s.numQuick = q
			if err != nil {
				t.Fatalf("%s on %s: %v", text, lit, err)
			}
			got := q.pass(lit)
			checked++
			if got && !want {
				t.Errorf("%s on %s: numQuick passes what evaluation refuses", text, lit)
			}
			if got {
				settled++
			}
			if ok, _ := s.Valid(d.Root); ok != want {
				t.Errorf("%s on %s: valid %v, want %v", text, lit, ok, want)
			}
		}
	}
	if settled < checked/5 {
		t.Errorf("numQuick settled %d of %d numbers: too few", settled, checked)
	}
	t.Logf("numQuick settled %d of %d numbers", settled, checked)
}

// TestParseFixed checks the literals parseFixed reads and refuses.
func TestParseFixed(t *testing.T) {
	for lit, want := range map[string]fixedNum{"0": {}, "-0": {}, "12.50": {1250, 2}, "-3.001": {-3001, 3}, "0.05": {5, 2},
		"999999999999999999": {999999999999999999, 0}} {
		if got, ok := parseFixed(lit); !ok || got != want {
			t.Errorf("parseFixed(%q) = %v %v, want %v", lit, got, ok, want)
		}
	}
	for _, lit := range []string{"", "-", "01", "-01", "1.", ".5", "1e5", "1..2", "+1", "1234567890123456789", "0.1234567890123456789", "1-"} {
		if got, ok := parseFixed(lit); ok {
			t.Errorf("parseFixed(%q) = %v, want refused", lit, got)
		}
	}
}
