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
	o, _ := (&Options{}).normalize()
	e := newEngine(context.Background(), o, nil, 0)
	both := e.conjOf([]*schema.Schema{a, tgt}, nil)
	one := e.conjOf([]*schema.Schema{a}, nil)
	if both.key != one.key {
		t.Fatalf("keys differ: %q, %q", both.key, one.key)
	}
	if !slices.Equal(one.roots, []*schema.Schema{a}) {
		t.Errorf("roots of [A] = %d schemas, want A alone", len(one.roots))
	}
	if !slices.Equal(both.roots, []*schema.Schema{a, tgt}) {
		t.Errorf("roots of [A, T] = %d schemas, want A and T", len(both.roots))
	}
	if e.merged(one) != e.merged(both) {
		t.Error("the merged view of the same parts is built twice")
	}
	if e.sameConj(one, both) {
		t.Error("sameConj([A], [A, T]) = true: the locations are made of different schemas")
	}
}
