package diff

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
)

// The reasoning of issue 22 walks schemas in place (loops, emptiness, splits) and must
// keep to issue 17's rule: no recursion bounded only by the input. These tests lower the
// goroutine stack so that a recursion missed fails fast, and count what a question
// examines where a bound keeps the cost from growing with the input.

// lowStack lowers the goroutine stack limit for the rest of the test.
func lowStack(t *testing.T, mb int) {
	t.Helper()
	old := debug.SetMaxStack(mb << 20)
	t.Cleanup(func() { debug.SetMaxStack(old) })
}

// plainChain returns a schema whose $defs chain hops bare $ref hops, ending in last.
func plainChain(hops int, last string) string {
	var sb strings.Builder
	sb.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	for i := range hops {
		fmt.Fprintf(&sb, `"a%d":{"$ref":"#/$defs/a%d"},`, i, i+1)
	}
	fmt.Fprintf(&sb, `"a%d":%s}}`, hops, last)
	return sb.String()
}

// reachesLoop follows a chain of references with a stack of its own: with the goroutine
// stack cut to 1 MB, a chain of 20,000 hops is answered (the recursion it replaces
// overflowed).
func TestReachesLoopLongChain(t *testing.T) {
	const hops = 20_000
	tests := []struct {
		name, last string
		want       bool
	}{
		{"ends in a schema", `{"type": "string"}`, false},
		{"ends in a loop", `{"allOf": [{"$ref": "#/$defs/loop"}]}, "loop": {"$ref": "#/$defs/a` + fmt.Sprint(hops) + `"}`, true},
		{"a loop beside the chain", `{"anyOf": [{"type": "string"}, {"not": {"$ref": "#/$defs/x"}}]}, "x": {"$ref": "#/$defs/x"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := compileText(t, "chain.json", plainChain(hops, tt.last))
			o, _ := (&Options{}).normalize()
			e := newEngine(context.Background(), o, nil, 0)
			lowStack(t, 1)
			if got := e.reachesLoop(s); got != tt.want {
				t.Errorf("reachesLoop = %v, want %v", got, tt.want)
			}
			// asked again, from the memo, and from the middle of the chain
			if got := e.reachesLoop(s); got != tt.want {
				t.Errorf("reachesLoop again = %v, want %v", got, tt.want)
			}
		})
	}
}

// nestedAnyOf returns n anyOfs of one branch each, nested in each other around inner.
func nestedAnyOf(n int, inner string) string {
	return strings.Repeat(`{"anyOf":[`, n) + inner + strings.Repeat(`]}`, n)
}

// proveFacts splits on a group of one branch without dividing its allowance: a chain of
// them nested in each other once split as deep as the chain. The allowance now shrinks
// by one at least per split.
func TestProveFactsNestedSingleBranches(t *testing.T) {
	const n = 4000
	a := compileText(t, "a.json", nestedAnyOf(n, `{"type": "string", "minLength": 2}`))
	b := compileText(t, "b.json", `{"type": "string", "minLength": 1}`)
	o, _ := (&Options{}).normalize()
	e := newEngine(context.Background(), o, nil, 0)
	lowStack(t, 4)
	ca := e.one(a)
	facts := make([]*fact, 0)
	for f := range e.merged(e.one(b)).facts {
		facts = append(facts, f)
	}
	// a's own facts say nothing about strings: only splitting reaches minLength 2, 4,000
	// groups down, past the allowance; a few levels deep it is proved
	if e.proveFacts(ca, facts, tAll, 0, maxSplits) {
		t.Errorf("proved through %d nested groups: the allowance of %d splits did not hold", n, maxSplits)
	}
	shallow := compileText(t, "s.json", nestedAnyOf(3, `{"type": "string", "minLength": 2}`))
	if !e.proveFacts(e.one(shallow), facts, tAll, 0, maxSplits) {
		t.Error("not proved through 3 nested groups")
	}
}
