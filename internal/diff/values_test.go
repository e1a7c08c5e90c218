package diff

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// missing and valueIndex agree with a scan by source.Equal, for short lists (scanned) and
// long ones (hashed), numbers in any spelling and objects in any member order.
func TestMissingAgreesWithEqual(t *testing.T) {
	parse := func(s string) source.Value {
		doc, err := source.ParseJSON("v.json", []byte(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		return doc.Root
	}
	var a, b []source.Value
	for i := range 40 {
		a = append(a, parse(fmt.Sprintf(`{"n": %d, "s": ["x%d"]}`, i, i%7)))
		if i%3 == 0 {
			b = append(b, parse(fmt.Sprintf(`{"s": ["x%d"], "n": %d.0}`, i%7, i)))
		}
	}
	a = append(a, parse(`1e1`), parse(`"10"`))
	b = append(b, parse(`10`))
	scan := func(a, b []source.Value) []source.Value {
		var out []source.Value
		for _, v := range a {
			if !slices.ContainsFunc(b, func(w source.Value) bool { return source.Equal(v, w) }) {
				out = append(out, v)
			}
		}
		return out
	}
	for _, n := range []int{0, 1, 5, 8, 9, len(a)} {
		got, want := missing(a[len(a)-n:], b), scan(a[len(a)-n:], b)
		if !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing of the last %d: %d values, want %d", n, len(got), len(want))
		}
		if got, want := missing(b, a[len(a)-n:]), scan(b, a[len(a)-n:]); !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing from the last %d: %d values, want %d", n, len(got), len(want))
		}
	}
	if len(missing(a, b)) != len(a)-len(b) {
		t.Errorf("%d of %d missing, want %d", len(missing(a, b)), len(a), len(a)-len(b))
	}
}
