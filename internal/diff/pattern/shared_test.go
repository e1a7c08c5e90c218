package pattern

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sharedQuestions are pattern questions over automata of sharedPatterns (by index): must,
// must not, minLen, maxLen. The last asks the same automaton on both sides.
var (
	sharedPatterns  = []string{"^[a-z]+$", "^(foo|bar)+baz?$", "^\\d{3}-\\d{4}$", "[0-9]", "^.{2,4}$", "^\\p{Lu}+$"}
	sharedQuestions = []struct {
		must, mustNot  []int
		minLen, maxLen int
	}{
		{[]int{0}, nil, 0, -1},
		{[]int{0}, []int{1}, 3, -1},
		{[]int{1}, []int{0}, 0, -1},
		{[]int{2}, []int{3}, 0, -1},
		{[]int{3, 4}, []int{0}, 2, 3},
		{[]int{5}, []int{0}, 1, -1},
		{[]int{0, 1}, []int{4}, 0, 8},
		{[]int{3}, []int{3}, 0, -1},
	}
)

// answers asks sharedQuestions of the automata get returns, in the order of start.
func answers(get func(string) *Automaton, start int) []string {
	out := make([]string, len(sharedQuestions))
	for i := range sharedQuestions {
		k := (start + i) % len(sharedQuestions)
		q := sharedQuestions[k]
		var sq Query
		for _, m := range q.must {
			sq.Must = append(sq.Must, get(sharedPatterns[m]))
		}
		for _, m := range q.mustNot {
			sq.MustNot = append(sq.MustNot, get(sharedPatterns[m]))
		}
		sq.MinLen, sq.MaxLen = q.minLen, q.maxLen
		w, found, exhaustive := Solve(sq)
		out[k] = fmt.Sprintf("%q %v %v", w, found, exhaustive)
	}
	return out
}

// TestSolveSharedAutomata asks the same questions of automata shared by concurrent
// comparisons (each its own patterns, as engines have) and of automata compiled afresh:
// the answers agree, and under -race no access to the shared DFAs races.
func TestSolveSharedAutomata(t *testing.T) {
	want := answers(func(src string) *Automaton {
		a, err := Compile(src)
		if err != nil {
			t.Fatalf("pattern %q: %v", src, err)
		}
		return a
	}, 0)
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Cache
			got[g] = answers(p.Get, g*3)
		}()
	}
	wg.Wait()
	for g := range got {
		if d := cmp.Diff(want, got[g]); d != "" {
			t.Errorf("comparison %d over shared automata (-fresh +shared):\n%s", g, d)
		}
	}
}

// TestAutomatonForgetsItsDFA checks that an automaton answers the same after resetDFA
// (what lockAll does to one that keeps more than maxDFASets states).
func TestAutomatonForgetsItsDFA(t *testing.T) {
	var p Cache
	want := answers(p.Get, 0)
	for _, src := range sharedPatterns {
		a := p.Get(src)
		a.resetDFA()
		if len(a.sets) != 1 || len(a.dense) != 0 {
			t.Fatalf("pattern %q after resetDFA: %d sets, %d rows", src, len(a.sets), len(a.dense))
		}
	}
	if d := cmp.Diff(want, answers(p.Get, 0)); d != "" {
		t.Errorf("answers after resetDFA (-before +after):\n%s", d)
	}
}

// TestSharedAutomataBounded checks that the shared automata stay within
// maxSharedAutomata, and that patterns outside the supported subset are remembered too.
func TestSharedAutomataBounded(t *testing.T) {
	for i := range maxSharedAutomata + 10 {
		src := "^x" + strconv.Itoa(i) + "$"
		a := sharedAutomaton(src)
		if a == nil || !a.Matches("x"+strconv.Itoa(i)) || a.Matches("x") {
			t.Fatalf("pattern %q: wrong Automaton", src)
		}
		if b := sharedAutomaton(src); b != a {
			t.Fatalf("pattern %q compiled twice in a row", src)
		}
		shared.Lock()
		n := len(shared.m) + len(shared.bad)
		shared.Unlock()
		if n > maxSharedAutomata {
			t.Fatalf("%d shared automata, more than %d", n, maxSharedAutomata)
		}
	}
	for range 2 {
		if a := sharedAutomaton(`(?=a)b`); a != nil {
			t.Fatalf("a lookahead compiled to an Automaton")
		}
	}
}

// TestSolvePackState checks which product states Solve packs in a number, and that
// distinct states pack apart.
func TestSolvePackState(t *testing.T) {
	tests := []struct {
		states []int
		length int
		ok     bool
	}{
		{nil, 0, true},
		{[]int{5}, 3, true},
		{[]int{1<<24 - 1, 1<<24 - 1}, 1<<16 - 1, true},
		{[]int{1, 2, 3}, 0, false},
		{[]int{1 << 24}, 0, false},
		{[]int{1}, 1 << 16, false},
	}
	keys := map[uint64]int{}
	for i, tt := range tests {
		k, ok := packState(tt.states, tt.length)
		if ok != tt.ok {
			t.Errorf("packState(%v, %d): ok %v, want %v", tt.states, tt.length, ok, tt.ok)
			continue
		}
		if j, dup := keys[k]; ok && dup {
			t.Errorf("packState: states %d and %d pack alike", j, i)
		}
		if ok {
			keys[k] = i
		}
	}
	a, _ := packState([]int{1, 2}, 0)
	b, _ := packState([]int{2, 1}, 0)
	if a == b {
		t.Errorf("packState: [1 2] and [2 1] pack alike")
	}
}

// TestAutomatonLargeDFAForgotten checks that a question which builds more than
// maxDFASets DFA states leaves its automaton with its start state alone, and that the
// next question gets the same answer.
func TestAutomatonLargeDFAForgotten(t *testing.T) {
	a, err := Compile("a[ab]{12}")
	if err != nil {
		t.Fatal(err)
	}
	q := Query{MustNot: []*Automaton{a}, MinLen: 40, MaxLen: -1}
	w1, found1, _ := Solve(q)
	if len(a.sets) != 1 {
		t.Fatalf("the Automaton keeps %d DFA states after the question", len(a.sets))
	}
	w2, found2, _ := Solve(q)
	if w1 != w2 || found1 != found2 {
		t.Errorf("asked again: %q %v, first %q %v", w2, found2, w1, found1)
	}
}
