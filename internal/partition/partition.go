// Package partition owns one small algorithm: splitting numbered items into the groups that
// links join, directly or through other items (union-find, with path halving). The catalog
// compiles schemas by the groups their references make; infer merges object shapes by the
// groups their shared keys make.
package partition

// Sets are n items, numbered from 0, each in a group of its own until Join puts groups
// together.
type Sets struct {
	parent []int // an item's parent; a group's root is its own parent, and its least item
}

// New returns n items, each in a group of its own.
func New(n int) *Sets {
	s := &Sets{parent: make([]int, n)}
	for i := range s.parent {
		s.parent[i] = i
	}
	return s
}

// root returns the root of i's group, halving the path to it on the way.
func (s *Sets) root(i int) int {
	for s.parent[i] != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = s.parent[i]
	}
	return i
}

// Join puts the groups of items a and b together.
func (s *Sets) Join(a, b int) {
	if a, b = s.root(a), s.root(b); a != b {
		s.parent[max(a, b)] = min(a, b)
	}
}

// Groups returns the groups: each one's items in ascending order, the groups in the order
// of their least items.
func (s *Sets) Groups() [][]int {
	at := map[int]int{} // a group's root -> its place in the result
	var groups [][]int
	for i := range s.parent {
		r := s.root(i)
		g, ok := at[r]
		if !ok {
			g = len(groups)
			at[r] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}
