package diff

import (
	"context"
	"fmt"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/prove"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
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
			o, _ := (&Options{}).Normalize()
			e := newEngine(context.Background(), o, nil, 0)
			lowStack(t, 1)
			if got := e.ReachesLoop(s); got != tt.want {
				t.Errorf("reachesLoop = %v, want %v", got, tt.want)
			}
			// asked again, from the memo, and from the middle of the chain
			if got := e.ReachesLoop(s); got != tt.want {
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
	o, _ := (&Options{}).Normalize()
	e := newEngine(context.Background(), o, nil, 0)
	lowStack(t, 4)
	ca := e.One(a)
	facts := make([]*algebra.Fact, 0)
	for f := range e.Merged(e.One(b)).Facts {
		facts = append(facts, f)
	}
	// a's own facts say nothing about strings: only splitting reaches minLength 2, 4,000
	// groups down, past the allowance; a few levels deep it is proved
	if e.ProveFacts(ca, facts, schema.TypeAll, 0, prove.MaxSplits) {
		t.Errorf("proved through %d nested groups: the allowance of %d splits did not hold", n, prove.MaxSplits)
	}
	shallow := compileText(t, "s.json", nestedAnyOf(3, `{"type": "string", "minLength": 2}`))
	if !e.ProveFacts(e.One(shallow), facts, schema.TypeAll, 0, prove.MaxSplits) {
		t.Error("not proved through 3 nested groups")
	}
}

// independentGroups returns an allOf of n anyOfs, each of two branches that require a
// member of their own: every choice of branches is satisfiable.
func independentGroups(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`{"anyOf": [{"required": ["a%d"]}, {"required": ["b%d"]}]}`, i, i))
	}
	return `{"type": "object", "allOf": [` + strings.Join(parts, ",") + `]}`
}

// Showing a conjunction empty by its groups examines the conjunction of each branch, and
// the conjunctions of the branches chosen so far are as many as the sets of them: 14
// independent anyOfs made 2^14 of them (16 took 35 s and 1 GB). A question examines at
// most maxHereBranches (the walk's) or maxProofBranches (the prover's) branches now.
func TestEmptinessSplitsBounded(t *testing.T) {
	const n = 14
	s := compileText(t, "groups.json", independentGroups(n))
	o, _ := (&Options{}).Normalize()
	t.Run("walk", func(t *testing.T) {
		e := newEngine(context.Background(), o, nil, 0)
		if e.EmptyHere(e.One(s), schema.TypeAll) {
			t.Error("emptyHere: proved empty, but every choice of branches is satisfiable")
		}
		if e.NConjs > 2000 { // 2^14 without the bound
			t.Errorf("emptyHere examined %d conjunctions, want at most 2000", e.NConjs)
		}
		if e.BranchCuts == 0 {
			t.Error("the question was not cut: the bound was not reached (make n larger)")
		}
	})
	t.Run("prover", func(t *testing.T) {
		e := newEngine(context.Background(), o, nil, 0)
		if e.Empty(e.One(s), schema.TypeAll, 0) {
			t.Error("empty: proved empty, but every choice of branches is satisfiable")
		}
		if e.NConjs > 5000 { // 2^14 without the bound
			t.Errorf("empty examined %d conjunctions, want at most 5000", e.NConjs)
		}
	})
	t.Run("proved within the bound", func(t *testing.T) {
		// the same groups, and one of two branches each empty: found as before
		text := strings.Replace(independentGroups(n), `"allOf": [`, `"allOf": [{"anyOf": [{"type": "string"}, {"maxProperties": 0, "required": ["x"]}]},`, 1)
		s := compileText(t, "empty.json", text)
		e := newEngine(context.Background(), o, nil, 0)
		if !e.EmptyHere(e.One(s), schema.TypeAll) {
			t.Error("emptyHere: an anyOf none of whose branches holds an object not proved empty")
		}
		e = newEngine(context.Background(), o, nil, 0)
		if !e.Empty(e.One(s), schema.TypeAll, 0) {
			t.Error("empty: an anyOf none of whose branches holds an object not proved empty")
		}
	})
}

// emptyHere recursed once per branch chosen: anyOfs of one branch nested 4,900 deep went
// as deep. The branches a question may examine bound its depth now.
func TestEmptyHereNestedGroups(t *testing.T) {
	s := compileText(t, "nested.json", nestedAnyOf(4900, `{"type": "integer", "minimum": 1.2, "maximum": 1.8}`))
	o, _ := (&Options{}).Normalize()
	e := newEngine(context.Background(), o, nil, 0)
	lowStack(t, 2)
	if e.EmptyHere(e.One(s), schema.TypeAll) {
		t.Error("proved empty through 4,900 nested groups: past the bound")
	}
	shallow := compileText(t, "shallow.json", nestedAnyOf(3, `{"type": "integer", "minimum": 1.2, "maximum": 1.8}`))
	if !e.EmptyHere(e.One(shallow), schema.TypeAll) {
		t.Error("an integer range with no integer, 3 groups down, not proved empty")
	}
}

// depChain returns a schema whose dependent schema for "a" leads, through hops
// references, to dependent schemas for "a" in turn, the last requiring "zz".
func depChain(hops int) string {
	var sb strings.Builder
	sb.WriteString(`{"type": "object", "dependentSchemas": {"a": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := range hops {
		fmt.Fprintf(&sb, `"d%d": {"dependentSchemas": {"a": {"$ref": "#/$defs/d%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&sb, `"d%d": {"required": ["zz"]}}}`, hops)
	return sb.String()
}

// triggeredImplies proves a dependent schema fact by fact, and a fact may be a dependent
// schema in turn: it followed a chain of them as far as it went, with no question to the
// prover in between when each is answered at once (from the memo here, asked from the
// end of the chain up). It stops maxTriggeredDepth deep now (not proved).
func TestTriggeredImpliesChain(t *testing.T) {
	const hops = 3000
	b := compileText(t, "b.json", depChain(hops))
	a := compileText(t, "a.json", `{"type": "object", "required": ["b"]}`)
	// steps enough for the whole chain: the step budget is no bound on the depth
	o, _ := (&Options{ProofSteps: 50_000_000}).Normalize()
	e := newEngine(context.Background(), o, nil, 0)
	depFact := func(s *schema.Schema) *algebra.Fact {
		for g := range e.Merged(e.One(s)).Facts {
			if g.Kind == algebra.FDepSchema {
				return g
			}
		}
		return nil
	}
	var chain []*algebra.Fact // the dependent schemas of the chain, in order
	for f := depFact(b); f != nil; f = depFact(f.S) {
		chain = append(chain, f)
	}
	if len(chain) != hops+1 {
		t.Fatalf("%d dependent schemas in the chain, want %d", len(chain), hops+1)
	}
	ca, ma := e.One(a), e.Merged(e.One(a))
	lowStack(t, 1)
	for i := len(chain) - 1; i >= 0; i-- {
		if e.Implies(ca, ma, chain[i], schema.TypeObject, 0) {
			t.Fatalf("dependent schema %d proved: objects with a and b but no zz are valid under a, not under the chain", i)
		}
	}
	if e.Triggered != 0 {
		t.Errorf("triggered = %d after the questions, want 0", e.Triggered)
	}
	// a short chain whose last schema a satisfies is proved
	short := compileText(t, "short.json", strings.Replace(depChain(3), `"required": ["zz"]`, `"required": ["b"]`, 1))
	e = newEngine(context.Background(), o, nil, 0)
	ca, ma = e.One(a), e.Merged(e.One(a))
	if !e.Implies(ca, ma, depFact(short), schema.TypeObject, 0) {
		t.Error("a dependent schema three deep that a satisfies not proved")
	}
}
