package infer

// union returns a node that summarizes everything the nodes ns have seen, as merging them
// one by one into an empty node with mergeNode and no caps would, but shares what only one
// of them has instead of copying it. The emitter merges locations again at every level it
// writes (a map's values, the objects of an anyOf, a group of shapes), so a merge by copying
// cost the size of the whole subtree at each level: quadratic in the depth, minutes and
// gigabytes for a megabyte of deep objects with varied keys. A union costs the size of the
// part the nodes have in common. The result shares memory with ns: both are only read
// afterwards. Nil nodes are skipped; one node is returned as it is.
func union(ns []*node) *node {
	var live []*node
	for _, n := range ns {
		if n != nil {
			live = append(live, n)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	u := &node{}
	var items []*node
	for _, n := range live {
		mergeCounts(u, n)
		mergeSeed(u, n)
		if n.items != nil {
			items = append(items, n.items)
		}
	}
	u.values, u.valuesOver = unionValues(live)
	u.items = union(items)
	srcs := live
	if over := anyShapesOver(live); over {
		// As mergeShapes does when either side gave up tracking key sets: every shape's
		// objects join the location's members.
		u.shapesOver = true
		srcs = append([]*node(nil), live...)
		for _, n := range live {
			for _, sig := range sortedKeys(n.shapes) {
				srcs = append(srcs, n.shapes[sig].n)
			}
		}
	} else {
		u.shapes = unionShapes(live)
	}
	unionMembers(u, srcs)
	return u
}

func anyShapesOver(ns []*node) bool {
	for _, n := range ns {
		if n.shapesOver {
			return true
		}
	}
	return false
}

// unionValues unites the distinct strings of ns: shared when one node has any.
func unionValues(ns []*node) (map[string]int64, bool) {
	var maps []map[string]int64
	for _, n := range ns {
		if n.valuesOver {
			return nil, true
		}
		if len(n.values) > 0 {
			maps = append(maps, n.values)
		}
	}
	switch len(maps) {
	case 0:
		return nil, false
	case 1:
		return maps[0], false
	}
	out := make(map[string]int64, len(maps[0]))
	for _, m := range maps {
		for s, k := range m {
			out[s] += k
		}
	}
	return out, false
}

// unionShapes unites the key sets of ns: a shape only one node has is shared.
func unionShapes(ns []*node) map[string]*shape {
	var out map[string]*shape
	var merged map[string][]*node
	for _, n := range ns {
		for sig, sh := range n.shapes {
			if out == nil {
				out = map[string]*shape{}
			}
			have := out[sig]
			switch {
			case have == nil:
				out[sig] = sh
				continue
			case merged[sig] == nil:
				if merged == nil {
					merged = map[string][]*node{}
				}
				merged[sig] = []*node{have.n}
				out[sig] = &shape{first: have.first}
			}
			merged[sig] = append(merged[sig], sh.n)
			if sh.first.less(out[sig].first) {
				out[sig].first = sh.first
			}
		}
	}
	for sig, ms := range merged {
		out[sig].n = union(ms)
	}
	return out
}

// unionMembers sets the members of u (its properties, or its map values) to those of srcs
// together: shared as they are when only one source has any.
func unionMembers(u *node, srcs []*node) {
	var with []*node
	isMap := false
	for _, s := range srcs {
		if len(s.props) > 0 || s.mapVals != nil {
			with = append(with, s)
			isMap = isMap || s.mapVals != nil
		}
	}
	switch {
	case len(with) == 0:
		u.props, u.mapVals = nil, nil
	case len(with) == 1:
		u.props, u.mapVals = with[0].props, with[0].mapVals
	case isMap:
		// As toMap does: every property's values join the map's.
		var vals []*node
		for _, s := range with {
			vals = append(vals, s.mapVals)
			for _, k := range sortedProps(s.props) {
				vals = append(vals, s.props[k].n)
			}
		}
		u.props, u.mapVals = nil, union(vals)
	default:
		u.mapVals = nil
		u.props = map[string]*prop{}
		var merged map[string][]*node
		for _, s := range with {
			for k, p := range s.props {
				have := u.props[k]
				switch {
				case have == nil:
					u.props[k] = p
					continue
				case merged[k] == nil:
					if merged == nil {
						merged = map[string][]*node{}
					}
					merged[k] = []*node{have.n}
					u.props[k] = &prop{present: have.present, first: have.first}
				}
				merged[k] = append(merged[k], p.n)
				u.props[k].present += p.present
				if p.first.less(u.props[k].first) {
					u.props[k].first = p.first
				}
			}
		}
		for k, ms := range merged {
			u.props[k].n = union(ms)
		}
	}
}
