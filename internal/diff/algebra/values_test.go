package algebra

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
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
		got, want := Missing(a[len(a)-n:], b), scan(a[len(a)-n:], b)
		if !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing of the last %d: %d values, want %d", n, len(got), len(want))
		}
		if got, want := Missing(b, a[len(a)-n:]), scan(b, a[len(a)-n:]); !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing from the last %d: %d values, want %d", n, len(got), len(want))
		}
	}
	if len(Missing(a, b)) != len(a)-len(b) {
		t.Errorf("%d of %d missing, want %d", len(Missing(a, b)), len(a), len(a)-len(b))
	}
}

// nameIndex visits the parts declaring a name and those speaking of every name, in order,
// each once.
func TestNameIndexOrder(t *testing.T) {
	x := &NameIndex{ByName: map[string][]int{"a": {0, 3, 5}}, Every: []int{1, 3, 6}}
	visit := func(name string, stopAt int) []int {
		var got []int
		x.Parts(name, func(i int) bool {
			got = append(got, i)
			return i != stopAt
		})
		return got
	}
	if got := visit("a", -1); !slices.Equal(got, []int{0, 1, 3, 5, 6}) {
		t.Errorf("a: %v", got)
	}
	if got := visit("b", -1); !slices.Equal(got, []int{1, 3, 6}) {
		t.Errorf("b: %v", got)
	}
	if got := visit("a", 3); !slices.Equal(got, []int{0, 1, 3}) {
		t.Errorf("a, stopped at 3: %v", got)
	}
}

// valueSchemas through a conjunction's name index gives what every part gives, in order.
func TestValueSchemasIndexed(t *testing.T) {
	var parts []string
	for i := range 12 {
		parts = append(parts, fmt.Sprintf(`{"properties": {"p%d": {"minLength": %d}, "shared": {"maxLength": %d}}}`, i, i, 20+i))
	}
	parts = append(parts, `{"patternProperties": {"^p1": {"pattern": "x"}}}`, `{"properties": {"gone": false}}`)
	root := compileText(t, "a.json", `{"allOf": [`+strings.Join(parts, ",")+`]}`)
	o, _ := (&Options{}).Normalize()
	e := NewEngine(context.Background(), o, nil, 0)
	c := e.One(root)
	ps, names := e.ObjectParts(c)
	if names == nil {
		t.Fatalf("%d object parts and no index", len(ps))
	}
	for _, name := range []string{"p1", "p11", "p5", "shared", "gone", "other"} {
		got, gotForbidden := e.ValueSchemas(c, name)
		var want []*schema.Schema
		wantForbidden := false
		for _, n := range ps {
			if want, wantForbidden = e.PartSchemas(n, name, want); wantForbidden {
				want = nil
				break
			}
		}
		if !slices.Equal(got, want) || gotForbidden != wantForbidden {
			t.Errorf("%s: %d schemas, forbidden %v; want %d, %v", name, len(got), gotForbidden, len(want), wantForbidden)
		}
	}
	if _, forbidden := e.ValueSchemas(c, "gone"); !forbidden {
		t.Error(`"gone" (false) is not forbidden`)
	}
	if subs, _ := e.ValueSchemas(c, "p11"); len(subs) != 2 { // its own schema and ^p1
		t.Errorf("p11: %d schemas, want 2", len(subs))
	}
}
