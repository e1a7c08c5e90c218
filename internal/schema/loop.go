package schema

import "strings"

// RefLoop looks, among the schemas reachable from root, for a cycle of $ref and allOf that
// evaluation would follow forever: schemas that apply each other in place without ever
// reaching into the instance (the specification leaves them undefined). It returns an
// error located at the keyword that closes the first loop found, naming the schemas on
// it, or nil. Such a loop is not a compile error: real schemas carry them in places their
// instances never reach, and evaluation stops with an error on any instance that does
// (dynamic references are left to evaluation alone).
func RefLoop(root *Schema) *SchemaError {
	const (
		onPath = 1
		done   = 2
	)
	state := map[*Schema]uint8{}
	// The depth-first search keeps its own stack: path holds the schemas being visited,
	// outermost first, and next the edge each is to follow next (see refEdge).
	var path []*Schema
	var next []int
	var found *SchemaError
	Walk(root, func(start *Schema) bool {
		if found != nil || state[start] != 0 {
			return found == nil
		}
		state[start] = onPath
		path, next = append(path[:0], start), append(next[:0], 0)
		for len(path) > 0 {
			top := len(path) - 1
			t, more := refEdge(path[top], next[top])
			if !more {
				state[path[top]] = done
				path, next = path[:top], next[:top]
				continue
			}
			next[top]++
			switch {
			case t == nil || state[t] == done:
			case state[t] == onPath:
				found = loopError(path, t)
				return false
			default:
				state[t] = onPath
				path, next = append(path, t), append(next, 0)
			}
		}
		return true
	})
	return found
}

// refEdge returns the i-th schema that s always applies in place (its $ref target, then
// its allOf subschemas, which $ref hides in drafts 4 to 7), and false past the last.
func refEdge(s *Schema, i int) (*Schema, bool) {
	if i == 0 {
		return s.ref, true
	}
	if i--; !s.hasRef && i < len(s.allOf) {
		return s.allOf[i], true
	}
	return nil, false
}

// loopError describes the loop that closes when the last schema of path applies target.
func loopError(path []*Schema, target *Schema) *SchemaError {
	start := len(path) - 1
	for start > 0 && path[start] != target {
		start--
	}
	last := path[len(path)-1]
	name := func(s *Schema) string {
		if s.doc == last.doc {
			return "#" + s.at.String() // in the same file: its pointer
		}
		if s.doc.name != "" {
			return s.doc.name + "#" + s.at.String()
		}
		return s.Location()
	}
	names := make([]string, 0, len(path)-start+1)
	for _, s := range path[start:] {
		names = append(names, name(s))
	}
	names = append(names, name(target))
	kw := "allOf"
	if last.ref == target {
		kw = "$ref"
	}
	e := &SchemaError{File: last.doc.name, URI: last.Location(), Pointer: last.at.String() + "/" + kw,
		Msg: "reference loop " + strings.Join(names, " -> ") +
			": these schemas apply each other forever without reaching into the instance, so validating an instance that gets here never ends (jstk stops with an error)"}
	e.Line, e.Column = last.Position(kw)
	return e
}

// InPlaceLoop reports whether s lies on a cycle of in-place applicators: $ref, allOf,
// anyOf, oneOf, not, if/then/else, dependentSchemas and the static targets of $dynamicRef
// and $recursiveRef, each of which applies a schema to the same instance. Evaluating such
// a schema may apply it again to the same instance, forever: the specification leaves it
// undefined, and evaluation here stops with an error when it happens. Unlike RefLoop,
// which only follows the applicators that always apply ($ref and allOf), a loop through a
// branch is counted, though an instance may not take it.
func (s *Schema) InPlaceLoop() bool { return s.onLoop }

// ReachesInPlaceLoop reports whether evaluating s may apply a schema that lies on a cycle
// of in-place applicators (see InPlaceLoop) to the same instance: s lies on one, or
// reaches one through those applicators. Computed with the cycles, once per compile.
func (s *Schema) ReachesInPlaceLoop() bool { return s.toLoop }

// inPlace appends the schemas s applies to the instance it is applied to.
func (s *Schema) inPlace(out []*Schema) []*Schema {
	for _, t := range [...]*Schema{s.ref, s.dynRef, s.recursiveRef, s.not, s.ifS, s.thenS, s.elseS} {
		if t != nil {
			out = append(out, t)
		}
	}
	out = append(out, s.allOf...)
	out = append(out, s.anyOf...)
	out = append(out, s.oneOf...)
	for _, d := range s.depSchemas {
		out = append(out, d.schema)
	}
	return out
}

// markLoops sets onLoop on the schemas of list that lie on a cycle of in-place
// applicators among them (a strongly connected component of more than one schema, or one
// that applies itself), by Tarjan's algorithm without recursion, and toLoop on those that
// reach such a schema. list is what one Compile added: the schemas compiled before it
// apply none of these, so a new cycle lies among them, and their toLoop is already known.
// Tarjan's algorithm completes a component after every component it reaches, so each
// component's toLoop is known from those of its edges' ends when it completes.
func markLoops(list []*Schema) {
	if len(list) == 0 {
		return
	}
	first := list[0].index
	at := func(s *Schema) int { // the place of s in list, -1 when it is not there
		if s == nil || s.info != list[0].info || s.index < first || s.index-first >= len(list) {
			return -1
		}
		return s.index - first
	}
	type frame struct {
		v                int
		start, next, end int  // v's edges in edges, and the next to follow
		self             bool // v applies itself
	}
	num := make([]int32, len(list)) // the order of discovery, from 1; 0: not yet
	low := make([]int32, len(list))
	onStack := make([]bool, len(list))
	var stack []int
	var frames []frame
	var edges []*Schema // the edges of the schemas on frames, each one's above its caller's
	var buf []*Schema   // the edges of a completed component
	var count int32
	push := func(v int) {
		count++
		num[v], low[v] = count, count
		onStack[v] = true
		stack = append(stack, v)
		start := len(edges)
		edges = list[v].inPlace(edges)
		frames = append(frames, frame{v: v, start: start, next: start, end: len(edges)})
	}
	for root := range list {
		if num[root] != 0 {
			continue
		}
		push(root)
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.next < f.end {
				w := at(edges[f.next])
				f.next++
				switch {
				case w < 0:
				case w == f.v:
					f.self = true
				case num[w] == 0:
					push(w)
				case onStack[w]:
					low[f.v] = min(low[f.v], num[w])
				}
				continue
			}
			v, self := f.v, f.self
			edges = edges[:f.start]
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				p := frames[len(frames)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != num[v] {
				continue
			}
			i := len(stack) - 1
			for stack[i] != v {
				i--
			}
			scc := stack[i:]
			stack = stack[:i]
			loop := len(scc) > 1 || self
			reach := loop
			if !reach { // one schema: its edges lead to completed components
				buf = list[v].inPlace(buf[:0])
				for _, t := range buf {
					if w := at(t); w >= 0 && list[w].toLoop || w < 0 && t.toLoop {
						reach = true
						break
					}
				}
			}
			for _, w := range scc {
				onStack[w] = false
				list[w].onLoop, list[w].toLoop = loop, reach
			}
		}
	}
}
