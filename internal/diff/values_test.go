package diff

import (
	"context"
	"fmt"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
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
		got, want := algebra.Missing(a[len(a)-n:], b), scan(a[len(a)-n:], b)
		if !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing of the last %d: %d values, want %d", n, len(got), len(want))
		}
		if got, want := algebra.Missing(b, a[len(a)-n:]), scan(b, a[len(a)-n:]); !slices.EqualFunc(got, want, source.Equal) {
			t.Errorf("missing from the last %d: %d values, want %d", n, len(got), len(want))
		}
	}
	if len(algebra.Missing(a, b)) != len(a)-len(b) {
		t.Errorf("%d of %d missing, want %d", len(algebra.Missing(a, b)), len(a), len(a)-len(b))
	}
}

// nameIndex visits the parts declaring a name and those speaking of every name, in order,
// each once.
func TestNameIndexOrder(t *testing.T) {
	x := &algebra.NameIndex{ByName: map[string][]int{"a": {0, 3, 5}}, Every: []int{1, 3, 6}}
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
	e := newEngine(context.Background(), o, nil, 0)
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

// The walk's limits end a comparison early with what is proved, and say so: a budget of
// parts copied into conjunctions (an allOf of n conditions copies about n^2), and of
// locations.
func TestWalkLimits(t *testing.T) {
	conds := func(max int) string {
		var cs []string
		for i := range 40 {
			cs = append(cs, fmt.Sprintf(`{"if": {"properties": {"t": {"const": "x%d"}}, "required": ["t"]}, "then": {"properties": {"v": {"maximum": %d}}}}`, i, max))
		}
		return `{"type": "object", "properties": {"v": {"type": "integer"}, "w": {"properties": {"z": {"type": "string"}}}}, "allOf": [` + strings.Join(cs, ",") + `]}`
	}
	old, new := compileText(t, "old.json", conds(10)), compileText(t, "new.json", conds(9))
	full, err := Compare(context.Background(), old, new, nil)
	if err != nil || full.Search.ProofIncomplete {
		t.Fatalf("without limits: %v, incomplete %v", err, full != nil && full.Search.ProofIncomplete)
	}
	for _, o := range []*Options{{MaxParts: 100}, {MaxLocations: 2}} {
		r, err := Compare(context.Background(), old, new, o)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Search.ProofIncomplete {
			t.Errorf("%+v: the comparison does not say it was cut short", *o)
		}
		if r.Backward == Compatible {
			t.Errorf("%+v: backward compatible, though the proof was cut short and maximum was lowered", *o)
		}
	}
}
