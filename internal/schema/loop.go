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
	var path []*Schema
	var found *SchemaError
	var visit func(s *Schema)
	visit = func(s *Schema) {
		if s == nil || found != nil {
			return
		}
		switch state[s] {
		case done:
			return
		case onPath:
			found = loopError(path, s)
			return
		}
		state[s] = onPath
		path = append(path, s)
		visit(s.ref)
		if !s.hasRef {
			for _, a := range s.allOf {
				visit(a)
			}
		}
		path = path[:len(path)-1]
		state[s] = done
	}
	Walk(root, func(s *Schema) bool {
		visit(s)
		return found == nil
	})
	return found
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
			return "#" + s.ptr // in the same file: its pointer
		}
		if s.doc.name != "" {
			return s.doc.name + "#" + s.ptr
		}
		return s.Location
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
	e := &SchemaError{File: last.doc.name, URI: last.Location, Pointer: last.ptr + "/" + kw,
		Msg: "reference loop " + strings.Join(names, " -> ") +
			": these schemas apply each other forever without reaching into the instance, so every instance that gets here fails validation"}
	e.Line, e.Column = last.Position(kw)
	return e
}
