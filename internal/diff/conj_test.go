package diff

import (
	"context"
	"slices"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
)

// Two lists of roots can close over the same parts ([A] and [A, T] when A refers to T):
// each conjunction keeps its own roots, which say where its keywords are, and shares the
// merged view. (Sharing the first conjunction whole once compared keywords of schemas
// that were not at the location.)
func TestConjKeepsItsRoots(t *testing.T) {
	a := compileText(t, "a.json", `{"$ref": "#/$defs/T", "$defs": {"T": {"type": "string"}}}`)
	tgt := a.Ref()
	if tgt == nil {
		t.Fatal("no $ref target")
	}
	o, _ := (&Options{}).Normalize()
	e := newEngine(context.Background(), o, nil, 0)
	both := e.ConjOf([]*schema.Schema{a, tgt}, nil)
	one := e.ConjOf([]*schema.Schema{a}, nil)
	if both.Kid != one.Kid {
		t.Fatalf("kids differ: %d, %d", both.Kid, one.Kid)
	}
	if !slices.Equal(one.Roots, []*schema.Schema{a}) {
		t.Errorf("roots of [A] = %d schemas, want A alone", len(one.Roots))
	}
	if !slices.Equal(both.Roots, []*schema.Schema{a, tgt}) {
		t.Errorf("roots of [A, T] = %d schemas, want A and T", len(both.Roots))
	}
	if e.Merged(one) != e.Merged(both) {
		t.Error("the merged view of the same parts is built twice")
	}
	if e.SameConj(one, both) {
		t.Error("sameConj([A], [A, T]) = true: the locations are made of different schemas")
	}
}

// Conjunctions whose parts hash the same are told apart by their parts: with every hash
// made equal, distinct sets still get distinct kids and the same set its first kid.
func TestConjHashCollisions(t *testing.T) {
	subs := []*schema.Schema{
		compileText(t, "a.json", `{"type": "string"}`),
		compileText(t, "b.json", `{"minLength": 1}`),
		compileText(t, "c.json", `{"maxLength": 3}`),
	}
	o, _ := (&Options{}).Normalize()
	e := newEngine(context.Background(), o, nil, 0)
	e.HashMask = 0
	lists := [][]*schema.Schema{{subs[0], subs[1]}, {subs[1], subs[2]}, {subs[0], subs[2]}, {subs[0], subs[1], subs[2]}}
	kids := map[int]bool{}
	for _, l := range lists {
		c := e.ConjOf(l, nil)
		if kids[c.Kid] {
			t.Errorf("two sets of parts share kid %d", c.Kid)
		}
		kids[c.Kid] = true
	}
	for _, l := range lists {
		first := e.ConjOf(l, nil)
		again := e.ConjClose(l, nil)
		if again.Kid != first.Kid {
			t.Errorf("the same parts: kid %d, then %d", first.Kid, again.Kid)
		}
	}
	n := 0
	for c := e.Conjs[0]; c != nil; c = c.Next {
		n++
	}
	if n < len(lists) {
		t.Errorf("%d conjunctions under the masked hash, want at least %d", n, len(lists))
	}
}
