package schema

import "github.com/jstk-dev/jstk/internal/source"

// Generated schemas often write a discriminated union as an allOf of conditionals, one
// per variant: {"if": {"properties": {"kind": {"const": "a"}}}, "then": {...}}. An
// object is evaluated against every one of them, though at most the few whose constant
// is its "kind" can apply. A conditional of that shape with no else, whose if fails, is
// valid and leaves nothing behind (no error, no annotation), so the allOf does not
// evaluate it when the property says the if fails. Tracing (coverage) evaluates it as
// written, since the trace reports the if.

// condTest is the test of a conditional {"if": {"properties": {prop: {"const": value}}},
// "then": ...} with no else (the if may also require prop).
type condTest struct {
	prop, value string
	required    bool
}

// fails reports that the conditional's if certainly fails for v: v is an object whose
// prop is not the string value (or is absent, when required).
func (t *condTest) fails(v source.Value) bool {
	if v.Kind() != source.Object {
		return false // properties and required hold for anything else
	}
	w, ok := v.Get(t.prop)
	if !ok {
		return t.required
	}
	return w.Kind() != source.String || w.Str() != t.value
}

// condTestOf returns the test of s when s is a conditional of the shape above, else nil.
func condTestOf(s *Schema) *condTest {
	if !plain(s, "if", "then") || s.ifS == nil || s.thenS == nil { // plain: no else
		return nil
	}
	is := s.ifS
	if !plain(is, "properties", "required") || len(is.properties) != 1 {
		return nil
	}
	t := &condTest{}
	var ps *Schema
	for k, v := range is.properties {
		t.prop, ps = k, v
	}
	switch {
	case len(is.required) == 1 && is.required[0] == t.prop:
		t.required = true
	case len(is.required) != 0:
		return nil
	default:
		if _, ok := is.Keyword("required"); ok {
			return nil // an empty required: left to the evaluation as written
		}
	}
	if is.Ignored("properties") || is.Ignored("required") || ps.Ignored("const") {
		return nil // a vocabulary the meta-schema leaves out
	}
	if !plain(ps, "const") || ps.constV == nil || ps.constV.Kind() != source.String {
		return nil
	}
	t.value = ps.constV.Str()
	return t
}

// plain reports whether s is a schema object whose keywords are among kws and
// annotations that evaluation does not read.
func plain(s *Schema, kws ...string) bool {
	if s == nil || s.always != alwaysNone || s.hasRef {
		return false
	}
next:
	for _, k := range s.keywords {
		for _, w := range kws {
			if k == w {
				continue next
			}
		}
		switch k {
		case "title", "description", "$comment":
			continue
		}
		return false
	}
	return true
}
