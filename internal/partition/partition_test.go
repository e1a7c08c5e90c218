package partition

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGroups(t *testing.T) {
	s := New(7)
	s.Join(5, 1)
	s.Join(3, 6)
	s.Join(6, 5)
	s.Join(1, 3) // already together
	want := [][]int{{0}, {1, 3, 5, 6}, {2}, {4}}
	if diff := cmp.Diff(want, s.Groups()); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if got := New(0).Groups(); len(got) != 0 {
		t.Errorf("no items: %v", got)
	}
}

// TestGroupsAgainstReachability: on random links, two items share a group exactly when
// one reaches the other through the links (a walk of the undirected graph).
func TestGroupsAgainstReachability(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + r.IntN(30)
		s := New(n)
		adj := make([][]int, n)
		for range r.IntN(2 * n) {
			a, b := r.IntN(n), r.IntN(n)
			s.Join(a, b)
			adj[a], adj[b] = append(adj[a], b), append(adj[b], a)
		}
		group := make([]int, n)
		for g, items := range s.Groups() {
			for _, i := range items {
				group[i] = g
			}
		}
		for a := range n {
			seen := map[int]bool{a: true}
			stack := []int{a}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, y := range adj[x] {
					if !seen[y] {
						seen[y] = true
						stack = append(stack, y)
					}
				}
			}
			for b := range n {
				if seen[b] != (group[a] == group[b]) {
					t.Fatalf("n=%d: items %d and %d: reachable %v, same group %v", n, a, b, seen[b], group[a] == group[b])
				}
			}
		}
	}
}
