package prove

import (
	"slices"

	"github.com/jstk-dev/jstk/internal/diff/algebra"
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

// propTest is a schema that tests one property at most: the names it requires, and the
// property whose value it judges ("" for none) with the schema it judges it by.
type propTest struct {
	req  []string
	name string
	s    *schema.Schema
}

// maxPropTests bounds the negations negProps reads.
const maxPropTests = 64

var noNegProps = &algebra.NegProps{}

// negProps reads c's negations (remembered by conjunction).
func (e *Engine) negProps(c *algebra.Conj) *algebra.NegProps {
	if len(e.Merged(c).Nots) == 0 {
		return noNegProps
	}
	if np, ok := e.NegPropsMemo[c.Kid]; ok {
		return np
	}
	e.NegPropsMemo[c.Kid] = noNegProps // a conjunction met again while being read says nothing more
	var tests []propTest
	for _, n := range e.negations(c) {
		if t, ok := e.propTestOf(n); ok && len(tests) < maxPropTests {
			tests = append(tests, t)
		}
	}
	np := &algebra.NegProps{}
	if len(tests) == 0 {
		e.NegPropsMemo[c.Kid] = np
		return np
	}
	m := e.Merged(c)
	has := func(k string) bool { return m.Required[k] || np.Required[k] }
	used := make([]bool, len(tests))
	for changed := true; changed; {
		changed = false
		for i, t := range tests {
			if !used[i] {
				read, required := readTest(np, t, has)
				used[i], changed = read, changed || required
			}
		}
	}
	e.NegPropsMemo[c.Kid] = np
	return np
}

// readTest adds to np what the negation of the test t says, given has (the names present):
// it reports whether t said something (it is then read), and whether a name became
// required.
func readTest(np *algebra.NegProps, t propTest, has func(string) bool) (read, required bool) {
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
		if np.Absent == nil {
			np.Absent = map[string]bool{}
		}
		np.Absent[miss] = true
		return true, false
	case t.name != "" && missing == 0:
		if np.Excluded == nil {
			np.Excluded = map[string][]*schema.Schema{}
		}
		np.Excluded[t.name] = append(np.Excluded[t.name], t.s)
		if slices.Contains(t.req, t.name) || has(t.name) {
			return true, false
		}
		// absent, the property would not fail the test: it is there
		if np.Required == nil {
			np.Required = map[string]bool{}
		}
		np.Required[t.name] = true
		return true, true
	}
	return false, false
}

// propTestOf reads a schema that is a test of one property at most: made of required and
// one properties entry only (a type that admits objects aside), with no reference or
// subschema applied in place.
func (e *Engine) propTestOf(s *schema.Schema) (propTest, bool) {
	parts := e.Parts(e.One(s))
	if len(parts) != 1 || parts[0].IsBool {
		return propTest{}, false
	}
	var t propTest
	for i := range parts[0].Facts {
		f := &parts[0].Facts[i]
		switch f.Kind {
		case algebra.FRequired:
			t.req = append(t.req, f.Str)
		case algebra.FProp:
			if t.name != "" {
				return propTest{}, false
			}
			t.name, t.s = f.Str, f.S
		case algebra.FType:
			if f.Types&schema.TypeObject == 0 {
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
func (e *Engine) excludedValue(ex []*schema.Schema, v source.Value) bool {
	for _, s := range ex {
		if ok, err := s.ValidContext(e.Ctx, v); err == nil && ok {
			return true
		}
	}
	return false
}

// leftValues returns the values of vc, when finitely many, but those ex excludes.
func (e *Engine) leftValues(vc *algebra.Conj, ex []*schema.Schema) ([]source.Value, bool) {
	vals, ok := e.FiniteValues(vc, e.Merged(vc), schema.TypeAll, true)
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
func (e *Engine) valuesDisjoint(vx *algebra.Conj, exX []*schema.Schema, vy *algebra.Conj, exY []*schema.Schema) bool {
	vals, ok := e.FiniteValues(vx, e.Merged(vx), schema.TypeAll, true)
	other := vy
	if !ok {
		if vals, ok = e.FiniteValues(vy, e.Merged(vy), schema.TypeAll, true); !ok {
			return false
		}
		other = vx
	}
	for _, v := range vals {
		good, known := e.Valid(other, v)
		if !known {
			return false
		}
		if good && !e.excludedValue(exX, v) && !e.excludedValue(exY, v) {
			return false
		}
	}
	return true
}
