package diff

import (
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Discriminated unions often keep a catch-all branch that excludes the known values of the
// discriminator with a negation: {"not": {"required": ["type"], "properties": {"type":
// {"enum": [...]}}}}, or branches that pick one value each, {"properties": {"type":
// {"const": "a"}}}, which a oneOf's chosen branch negates for every other branch. A
// negation of such a test of one property says something of that property alone, which
// negProps reads:
//
//   - not {required: K, properties: {k: S}}, the names of K other than k present: k is
//     present (when k is not in K) and, when present, its value is invalid under S;
//   - not {required: K}, the names of K but k present: k is absent.
//
// The rules that use it: a property required this way is required (impliesRequired), the
// values of a property with finitely many values are those its exclusions leave
// (impliesProp), and two conjunctions are disjoint when the one requires a property whose
// values the other's schemas and both sides' exclusions leave none of (disjointKind).

// negProps is what a conjunction's negations say about single properties.
type negProps struct {
	required map[string]bool             // names every object of the conjunction has
	absent   map[string]bool             // names no object of the conjunction has
	excluded map[string][]*schema.Schema // a present name's value is invalid under each
}

// propTest is a schema that tests one property at most: the names it requires, and the
// property whose value it judges ("" for none) with the schema it judges it by.
type propTest struct {
	req  []string
	name string
	s    *schema.Schema
}

// maxPropTests bounds the negations negProps reads.
const maxPropTests = 64

var noNegProps = &negProps{}

// negProps reads c's negations (remembered by conjunction).
func (e *engine) negProps(c *conj) *negProps {
	if len(e.merged(c).nots) == 0 {
		return noNegProps
	}
	if np, ok := e.negPropsMemo[c.kid]; ok {
		return np
	}
	e.negPropsMemo[c.kid] = noNegProps // a conjunction met again while being read says nothing more
	var tests []propTest
	for _, n := range e.negations(c) {
		if t, ok := e.propTestOf(n); ok && len(tests) < maxPropTests {
			tests = append(tests, t)
		}
	}
	np := &negProps{}
	if len(tests) == 0 {
		e.negPropsMemo[c.kid] = np
		return np
	}
	m := e.merged(c)
	has := func(k string) bool { return m.required[k] || np.required[k] }
	used := make([]bool, len(tests))
	for changed := true; changed; {
		changed = false
		for i, t := range tests {
			if used[i] {
				continue
			}
			missing, miss := 0, ""
			for _, r := range t.req {
				if r != t.name && !has(r) {
					missing++
					miss = r
				}
			}
			switch {
			case t.name == "" && missing == 1:
				// not {required: K}: the one name of K not present is absent
				used[i] = true
				if np.absent == nil {
					np.absent = map[string]bool{}
				}
				np.absent[miss] = true
			case t.name != "" && missing == 0:
				used[i] = true
				if np.excluded == nil {
					np.excluded = map[string][]*schema.Schema{}
				}
				np.excluded[t.name] = append(np.excluded[t.name], t.s)
				inK := false
				for _, r := range t.req {
					inK = inK || r == t.name
				}
				if !inK && !has(t.name) {
					// absent, the property would not fail the test: it is there
					if np.required == nil {
						np.required = map[string]bool{}
					}
					np.required[t.name] = true
					changed = true
				}
			}
		}
	}
	e.negPropsMemo[c.kid] = np
	return np
}

// propTestOf reads a schema that is a test of one property at most: made of required and
// one properties entry only (a type that admits objects aside), with no reference or
// subschema applied in place.
func (e *engine) propTestOf(s *schema.Schema) (propTest, bool) {
	parts := e.parts(e.one(s))
	if len(parts) != 1 || parts[0].isBool {
		return propTest{}, false
	}
	var t propTest
	for i := range parts[0].facts {
		f := &parts[0].facts[i]
		switch f.kind {
		case fRequired:
			t.req = append(t.req, f.str)
		case fProp:
			if t.name != "" {
				return propTest{}, false
			}
			t.name, t.s = f.str, f.s
		case fType:
			if f.types&schema.TypeObject == 0 {
				return propTest{}, false
			}
		default:
			return propTest{}, false
		}
	}
	if t.name == "" && len(t.req) == 0 {
		return propTest{}, false
	}
	return t, true
}

// excludedValue reports whether v is valid under one of the schemas ex (a value a
// negation excludes); an error counts as not excluded.
func (e *engine) excludedValue(ex []*schema.Schema, v source.Value) bool {
	for _, s := range ex {
		if ok, err := s.ValidContext(e.ctx, v); err == nil && ok {
			return true
		}
	}
	return false
}

// leftValues returns the values of vc, when finitely many, but those ex excludes.
func (e *engine) leftValues(vc *conj, ex []*schema.Schema) ([]source.Value, bool) {
	vals, ok := e.finiteValues(vc, e.merged(vc), schema.TypeAll, true)
	if !ok {
		return nil, false
	}
	var out []source.Value
	for _, v := range vals {
		if !e.excludedValue(ex, v) {
			out = append(out, v)
		}
	}
	return out, true
}

// valuesDisjoint reports that no value is valid under vx and vy and excluded by neither
// exX nor exY, when one of vx and vy has finitely many values.
func (e *engine) valuesDisjoint(vx *conj, exX []*schema.Schema, vy *conj, exY []*schema.Schema) bool {
	vals, ok := e.finiteValues(vx, e.merged(vx), schema.TypeAll, true)
	other := vy
	if !ok {
		if vals, ok = e.finiteValues(vy, e.merged(vy), schema.TypeAll, true); !ok {
			return false
		}
		other = vx
	}
	for _, v := range vals {
		good, known := e.valid(other, v)
		if !known {
			return false
		}
		if good && !e.excludedValue(exX, v) && !e.excludedValue(exY, v) {
			return false
		}
	}
	return true
}
