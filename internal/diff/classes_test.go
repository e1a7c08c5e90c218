package diff

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/sample"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// rgen4 makes pairs of schemas by class: hidden contradictions, equivalent spellings of
// one set of instances, and the object and array keywords whose forward direction matters
// (issue 22). Each class draws its parameters at random on both sides of the boundary
// that decides it (an integer range with one integer or none, length ranges with or
// without a gap, a branch repeated or nearly repeated), so that a rule that claims too
// much meets a pair that refutes it. The pair is then placed at the same random location
// on both sides (a property, an item, a branch of allOf or anyOf), in a random draft.
type rgen4 struct{ r *rand.Rand }

// pairClasses are the classes rgen4 draws from, in the order TestClassPairs takes them.
var pairClasses = []pairClass{
	{"int-range", rgen4.intRange},
	{"array-length", rgen4.arrayLength},
	{"closed-object", rgen4.closedObject},
	{"one-of-repeated", rgen4.oneOfRepeated},
	{"not-everything", rgen4.notEverything},
	{"enum-none", rgen4.enumNone},
	{"not-type", rgen4.notType},
	{"double-not", rgen4.doubleNot},
	{"de-morgan", rgen4.deMorgan},
	{"length-cover", rgen4.lengthCover},
	{"number-cover", rgen4.numberCover},
	{"no-properties", rgen4.noProperties},
	{"integer-multiple", rgen4.integerMultiple},
	{"any-of-complement", rgen4.anyOfComplement},
	{"properties-count", rgen4.propertiesCount},
	{"dependent-schema", rgen4.dependentSchema},
	{"tuple", rgen4.tuple},
	{"one-of-overlap", rgen4.oneOfOverlap},
	{"discriminated-union", rgen4.discriminatedUnion},
}

func (g rgen4) pick(xs ...any) any { return xs[g.r.Intn(len(xs))] }

// small returns a small schema of the whole vocabulary, to stand for "some schema".
func (g rgen4) small() any {
	if g.r.Intn(5) == 0 {
		return map[string]any{"type": rtypes[g.r.Intn(len(rtypes))]}
	}
	return rgen(g).sub(2)
}

// num returns a bound: an integer or a number with a fraction.
func (g rgen4) num() any {
	return g.pick(0, 1, 2, 3, 1.2, 1.5, 1.8, 2.5, -1, -0.5)
}

// pairClass is a class of pairs: its name and how rgen4 draws a pair of it.
type pairClass struct {
	name string
	// pair returns two schemas of the class (JSON values) and the draft they are read in,
	// given a draft drawn at random, which it may change.
	pair func(g rgen4, draft int) (a, b any, d int)
}

// class returns two schemas of a class (JSON values) and the draft they are read in.
func (g rgen4) class(c pairClass) (a, b any, draft int) {
	draft = []int{2020, 7, 2020}[g.r.Intn(3)]
	return c.pair(g, draft)
}

// intRange draws a numeric range that holds one integer or none (exclusive or inclusive bounds, a
// multipleOf, draft 4's boolean exclusiveMinimum) against some schema.
func (g rgen4) intRange(draft int) (any, any, int) {
	r := g.r
	s := map[string]any{"type": g.pick("integer", "number", []any{"integer", "string"})}
	if r.Intn(2) == 0 {
		s["exclusiveMinimum"], s["exclusiveMaximum"] = g.num(), g.num()
	} else {
		s["minimum"], s["maximum"] = g.num(), g.num()
	}
	if r.Intn(4) == 0 {
		s["multipleOf"] = g.pick(2, 0.5, 3)
	}
	if r.Intn(4) == 0 {
		draft = 4
		delete(s, "exclusiveMinimum")
		delete(s, "exclusiveMaximum")
		s["minimum"], s["maximum"] = g.num(), g.num()
		s["exclusiveMinimum"] = r.Intn(2) == 0
	}
	return s, g.small(), draft
}

// arrayLength draws arrays whose minItems meets a closed tuple, a maxItems or an items schema
// that few or no items pass (with uniqueItems or not), against some schema.
func (g rgen4) arrayLength(draft int) (any, any, int) {
	r := g.r
	n := r.Intn(3)
	s := map[string]any{"type": "array", "minItems": n + r.Intn(2)}
	var pre []any
	for i := 0; i < n; i++ {
		pre = append(pre, g.pick(map[string]any{"type": "string"}, map[string]any{}, false, true))
	}
	switch r.Intn(3) {
	case 0:
		if draft == 7 {
			s["items"], s["additionalItems"] = pre, false
		} else {
			s["prefixItems"], s["items"] = pre, false
		}
	case 1:
		s["maxItems"] = r.Intn(3)
	default:
		s["items"] = g.pick(false, map[string]any{"not": map[string]any{}}, map[string]any{"type": "null"})
		s["uniqueItems"] = r.Intn(2) == 0
	}
	return s, g.small(), draft
}

// closedObject draws a closed object whose forbidden properties meet minProperties, required or
// propertyNames against some schema.
func (g rgen4) closedObject(draft int) (any, any, int) {
	r := g.r
	props := map[string]any{}
	for _, n := range rnames[:1+r.Intn(3)] {
		props[n] = g.pick(map[string]any{}, false, map[string]any{"type": "integer"})
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": g.pick(false, false, true)}
	switch r.Intn(3) {
	case 0:
		s["minProperties"] = r.Intn(5)
	case 1:
		s["required"] = []any{rnames[r.Intn(3)]}
	default:
		s["required"] = []any{rnames[r.Intn(3)]}
		s["propertyNames"] = map[string]any{"maxLength": r.Intn(2)}
	}
	return s, g.small(), draft
}

// oneOfRepeated draws a oneOf with a branch repeated (alone, with a third branch, mutated or
// wrapped in allOf) against some schema.
func (g rgen4) oneOfRepeated(draft int) (any, any, int) {
	r := g.r
	x := g.small()
	br := []any{x, x}
	switch r.Intn(4) {
	case 0:
		br = append(br, g.small())
	case 1:
		br = []any{x, rgen{r}.mutate(x, 2)}
	case 2:
		br = []any{x, map[string]any{"allOf": []any{x}}}
	}
	return map[string]any{"oneOf": br}, g.small(), draft
}

// notEverything draws a not of a schema that holds every value (or nearly) against some schema.
func (g rgen4) notEverything(draft int) (any, any, int) {
	n := g.pick(map[string]any{}, true, map[string]any{"type": slices.Clone(rtypes)},
		map[string]any{"minimum": 0}, map[string]any{"type": rtypes[:6]}, map[string]any{"not": false},
		map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"not": map[string]any{"type": "string"}}}})
	if draft == 4 {
		draft = 7
	}
	return map[string]any{"not": n}, g.small(), draft
}

// enumNone draws an enum with another keyword that may reject all of its values against some
// schema.
func (g rgen4) enumNone(draft int) (any, any, int) {
	r := g.r
	s := map[string]any{"enum": g.pick([]any{1, "a"}, []any{1, 2}, []any{"ab", "abc"}, []any{nil, 1.5}, []any{map[string]any{"a": 1}})}
	s[g.pick("type", "minimum", "minLength", "required").(string)] = nil
	switch {
	case s["type"] == nil && hasKey(s, "type"):
		s["type"] = rtypes[r.Intn(len(rtypes))]
	case hasKey(s, "minimum"):
		s["minimum"] = g.num()
	case hasKey(s, "minLength"):
		s["minLength"] = r.Intn(4)
	default:
		s["required"] = []any{"a"}
	}
	return s, g.small(), draft
}

// notType draws not of one type against the list of the other types (each sometimes left out).
func (g rgen4) notType(draft int) (any, any, int) {
	r := g.r
	t := rtypes[r.Intn(len(rtypes))]
	var others []any
	for _, o := range rtypes {
		if o != t && !(t == "number" && o == "integer") && r.Intn(12) != 0 {
			others = append(others, o)
		}
	}
	if r.Intn(4) == 0 {
		draft = 4
	}
	return map[string]any{"not": map[string]any{"type": t}}, map[string]any{"type": others}, draft
}

// doubleNot draws not of not of a schema against the schema (or a mutation of it).
func (g rgen4) doubleNot(draft int) (any, any, int) {
	r := g.r
	x := g.small()
	y := x
	if r.Intn(4) == 0 {
		y = rgen{r}.mutate(x, 2)
	}
	return map[string]any{"not": map[string]any{"not": x}}, y, draft
}

// deMorgan draws not of anyOf (or allOf) against allOf (or anyOf) of the nots, De Morgan's laws.
func (g rgen4) deMorgan(draft int) (any, any, int) {
	r := g.r
	x, y := g.small(), g.small()
	if r.Intn(2) == 0 {
		return map[string]any{"not": map[string]any{"anyOf": []any{x, y}}},
			map[string]any{"allOf": []any{map[string]any{"not": x}, map[string]any{"not": y}}}, draft
	}
	return map[string]any{"not": map[string]any{"allOf": []any{x, y}}},
		map[string]any{"anyOf": []any{map[string]any{"not": x}, map[string]any{"not": y}}}, draft
}

// lengthCover draws an anyOf of length ranges that covers every length or leaves a gap, against
// the type alone.
func (g rgen4) lengthCover(draft int) (any, any, int) {
	r := g.r
	kw := g.pick([]string{"minItems", "maxItems", "array"}, []string{"minLength", "maxLength", "string"}, []string{"minProperties", "maxProperties", "object"}).([]string)
	k := r.Intn(3)
	j := k + r.Intn(3)
	br := []any{map[string]any{"type": kw[2], kw[1]: k}, map[string]any{"type": kw[2], kw[0]: j}}
	if r.Intn(3) == 0 {
		br = append(br, map[string]any{"type": kw[2], kw[0]: k, kw[1]: j})
	}
	r.Shuffle(len(br), func(i, j int) { br[i], br[j] = br[j], br[i] })
	return map[string]any{"anyOf": br}, map[string]any{"type": kw[2]}, draft
}

// numberCover draws an anyOf of numeric ranges that covers every number or leaves a gap, against
// the type alone.
func (g rgen4) numberCover(draft int) (any, any, int) {
	r := g.r
	lo, hi := g.num(), g.num()
	t := g.pick("number", "integer").(string)
	br := []any{map[string]any{"type": t, "maximum": hi}, map[string]any{"type": t, g.pick("minimum", "exclusiveMinimum").(string): lo}}
	if r.Intn(2) == 0 {
		br = append(br, map[string]any{"type": t, "minimum": g.num(), "maximum": g.num()})
	}
	return map[string]any{"anyOf": br}, map[string]any{"type": g.pick("number", "integer")}, draft
}

// noProperties draws an object with no property allowed against maxProperties 0 or 1.
func (g rgen4) noProperties(draft int) (any, any, int) {
	r := g.r
	a := map[string]any{"type": "object", "additionalProperties": false}
	if r.Intn(3) == 0 {
		a["properties"] = map[string]any{"a": g.pick(false, map[string]any{})}
	}
	b := map[string]any{"type": "object", "maxProperties": g.pick(0, 0, 1)}
	return a, b, draft
}

// integerMultiple draws type integer against a number that is a multiple of 1 (or of 0.5 or 2).
func (g rgen4) integerMultiple(draft int) (any, any, int) {
	r := g.r
	if r.Intn(3) == 0 {
		draft = 4
	}
	return map[string]any{"type": "integer"}, map[string]any{"type": "number", "multipleOf": g.pick(1, 1, 0.5, 2)}, draft
}

// anyOfComplement draws an anyOf of a schema's complement and the schema (or another) against
// true or a type.
func (g rgen4) anyOfComplement(draft int) (any, any, int) {
	r := g.r
	x := g.pick(map[string]any{"type": "integer"}, map[string]any{"type": "string"}, map[string]any{"minimum": 1}, map[string]any{"type": "integer", "minimum": 0})
	y := x
	if r.Intn(3) == 0 {
		y = g.pick(map[string]any{"type": "integer"}, map[string]any{"type": "number"})
	}
	return map[string]any{"anyOf": []any{map[string]any{"not": x}, y}}, g.pick(true, map[string]any{}, map[string]any{"type": "integer"}), draft
}

// propertiesCount draws two objects with the same properties and a minProperties or maxProperties
// each.
func (g rgen4) propertiesCount(draft int) (any, any, int) {
	r := g.r
	base := func() map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{}, "b": map[string]any{}}}
	}
	a, b := base(), base()
	a[g.pick("minProperties", "maxProperties").(string)] = r.Intn(4)
	b[g.pick("minProperties", "maxProperties").(string)] = r.Intn(4)
	if r.Intn(2) == 0 {
		a["additionalProperties"], b["additionalProperties"] = false, false
	}
	return a, b, draft
}

// dependentSchema draws an object with a dependent schema (dependentSchemas or dependencies)
// against one with another or none.
func (g rgen4) dependentSchema(draft int) (any, any, int) {
	r := g.r
	dep := map[string]any{rnames[r.Intn(3)]: g.pick(map[string]any{"required": []any{rnames[r.Intn(3)]}}, g.small(),
		map[string]any{"properties": map[string]any{"b": map[string]any{"type": "integer"}}})}
	kw := "dependentSchemas"
	if draft != 2020 {
		kw = "dependencies"
	}
	a := map[string]any{"type": "object", kw: dep}
	b := map[string]any{"type": "object"}
	if r.Intn(3) == 0 {
		b[kw] = map[string]any{rnames[r.Intn(3)]: g.small()}
	}
	return a, b, draft
}

// tuple draws two tuples of one to three items with what follows them (false, true, a schema or
// nothing).
func (g rgen4) tuple(draft int) (any, any, int) {
	r := g.r
	tuple := func() map[string]any {
		n := 1 + r.Intn(3)
		var pre []any
		for i := 0; i < n; i++ {
			pre = append(pre, map[string]any{"type": []string{"string", "number", "boolean"}[i%3]})
		}
		s := map[string]any{"type": "array"}
		rest := g.pick(false, true, map[string]any{"type": "number"}, nil)
		if draft == 2020 {
			s["prefixItems"] = pre
			if rest != nil {
				s["items"] = rest
			}
		} else {
			s["items"] = pre
			if rest != nil {
				s["additionalItems"] = rest
			}
		}
		return s
	}
	return tuple(), tuple(), draft
}

// oneOfOverlap draws a oneOf of branches that say nothing of some classes against the same with
// one branch typed, removed or replaced.
func (g rgen4) oneOfOverlap(draft int) (any, any, int) {
	r := g.r
	// branches that say nothing of some classes (a number matches both of
	// {properties: ...} and {minLength: 1}, so no number passes the oneOf); the other
	// side gives one branch a type or takes one away
	branch := func() any {
		return g.pick(map[string]any{"properties": map[string]any{"a": g.small()}},
			map[string]any{"required": []any{"a"}}, map[string]any{"minLength": 1},
			map[string]any{"type": g.pick("string", "object", "integer", []any{"null", "array"})},
			map[string]any{"minimum": 1}, map[string]any{"items": map[string]any{"type": "string"}},
			map[string]any{"not": map[string]any{"type": "string"}}, true, g.small())
	}
	br := []any{branch(), branch()}
	if r.Intn(2) == 0 {
		br = append(br, branch())
	}
	other := slices.Clone(br)
	i := r.Intn(len(other))
	switch r.Intn(3) {
	case 0:
		other[i] = map[string]any{"allOf": []any{other[i]}, "type": g.pick("object", "string", "number")}
	case 1:
		other = append(other[:i], other[i+1:]...)
	default:
		other[i] = branch()
	}
	return map[string]any{"oneOf": br}, map[string]any{"oneOf": other}, draft
}

// discriminatedUnion draws a oneOf discriminated by the property "a" (issue 31): a branch
// for each of some values (const or enum, the name required or not, another member
// asked for or not), beside a catch-all that excludes the values with a not (of a
// required property test, of a property test alone, or inside the property), maybe
// under a required "a". The other side adds a value, or drops one, or changes the
// catch-all's values alone, or one branch's demands: both sides of the boundary where
// the catch-all and the branches still partition the values.
func (g rgen4) discriminatedUnion(draft int) (any, any, int) {
	r := g.r
	req := r.Intn(2) == 0
	catch := r.Intn(4)
	extra := r.Intn(3)
	union := func(vals []string, catchVals []string, demand int) any {
		var enum []any
		for _, v := range catchVals {
			enum = append(enum, v)
		}
		var br []any
		switch catch {
		case 0:
			br = append(br, map[string]any{"not": map[string]any{"required": []any{"a"}, "properties": map[string]any{"a": map[string]any{"enum": enum}}}})
		case 1:
			br = append(br, map[string]any{"properties": map[string]any{"a": map[string]any{"not": map[string]any{"enum": enum}}}})
		case 2:
			br = append(br, map[string]any{"not": map[string]any{"properties": map[string]any{"a": map[string]any{"enum": enum}}}})
		}
		for i, v := range vals {
			b := map[string]any{"properties": map[string]any{"a": g.pick(map[string]any{"const": v}, map[string]any{"enum": []any{v}})}}
			if r.Intn(3) == 0 {
				b["required"] = []any{"a"}
			}
			if i == demand {
				switch extra {
				case 0:
					b["required"] = []any{"a", "b"}
				case 1:
					b["properties"].(map[string]any)["b"] = map[string]any{"type": "string"}
				}
			}
			br = append(br, b)
		}
		s := map[string]any{"type": "object", "oneOf": br}
		if req {
			s["required"] = []any{"a"}
		}
		return s
	}
	all := []string{"x", "y", "z"}
	n := 1 + r.Intn(2)
	vals := all[:n]
	a := union(vals, vals, -1)
	var b any
	switch r.Intn(4) {
	case 0: // a value added, with its branch
		b = union(all[:n+1], all[:n+1], n)
	case 1: // a value dropped
		b = union(vals[:n-1], vals[:n-1], -1)
	case 2: // the catch-all's values alone
		b = union(vals, all[:n+1], -1)
	default: // one branch asks for more
		b = union(vals, vals, r.Intn(n))
	}
	return a, b, draft
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// place puts a and b at the same random location of a random enclosing schema.
func (g rgen4) place(a, b any) (any, any) {
	wrap := func(f func(x any) any) (any, any) { return f(a), f(b) }
	switch g.r.Intn(7) {
	case 0:
		return wrap(func(x any) any { return map[string]any{"properties": map[string]any{"a": x}} })
	case 1:
		return wrap(func(x any) any {
			return map[string]any{"type": "object", "properties": map[string]any{"a": x}, "required": []any{"a"}}
		})
	case 2:
		return wrap(func(x any) any { return map[string]any{"type": "array", "items": x} })
	case 3:
		s := g.small()
		return wrap(func(x any) any { return map[string]any{"allOf": []any{x, s}} })
	case 4:
		return wrap(func(x any) any { return map[string]any{"anyOf": []any{x, map[string]any{"type": "boolean"}}} })
	}
	return a, b
}

// root adds the draft's $schema to a generated schema (an object; a boolean is wrapped).
func root(x any, draft int) any {
	m, ok := x.(map[string]any)
	if !ok {
		m = map[string]any{"allOf": []any{x}}
	} else {
		m = cloneMap(m)
	}
	switch draft {
	case 4:
		m["$schema"] = "http://json-schema.org/draft-04/schema#"
	case 7:
		m["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	return m
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// oracleOptions are the options of the comparisons checked against the oracle.
func oracleOptions() *Options {
	return &Options{SearchCandidates: 300, SearchBudget: oracleBudget, ProofSteps: 50000}
}

// oracleBudget bounds the search of each direction by time as well as by candidates: the
// candidates decide it (300 of them take far less than this).
const oracleBudget = time.Minute

// oraclePairs is how many generated pairs TestClassPairs checks (a tenth with -short or
// under the race detector, see oracleShare); JSTK_ORACLE_PAIRS sets another count.
func oraclePairs() int {
	if s := os.Getenv("JSTK_ORACLE_PAIRS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if testing.Short() {
		return 100
	}
	return 1000 / oracleShare
}

// TestClassPairs checks every claim made about generated pairs of the classes of issue 22
// against the bounded oracle: the verdicts (no compatible verdict that a value of the
// universe refutes), the rule engine's empty-schema and inclusion claims about the
// subschemas, and sample's unsatisfiability claims. The counts, by class, of the unknown
// verdicts left and of those the universe could have settled go in
// testdata/oracle-stats.txt (with the default count of pairs; JSTK_UPDATE=1 rewrites it).
func TestClassPairs(t *testing.T) {
	t.Parallel()
	n := oraclePairs()
	tally := &oracleTally{}
	r := rand.New(rand.NewSource(1))
	g := rgen4{r}
	for i := 0; i < n; i++ {
		class := pairClasses[i%len(pairClasses)]
		a, b, draft := g.class(class)
		if r.Intn(2) == 0 {
			a, b = b, a
		}
		a, b = g.place(a, b)
		a, b = root(a, draft), root(b, draft)
		at, _ := json.Marshal(a)
		bt, _ := json.Marshal(b)
		old, err1 := compileTextErr("old.json", string(at), false)
		new, err2 := compileTextErr("new.json", string(bt), false)
		if err1 != nil || err2 != nil {
			continue // not a schema of its draft
		}
		res, err := Compare(context.Background(), old, new, oracleOptions())
		if err != nil {
			t.Fatal(err)
		}
		id := "OLD " + string(at) + " NEW " + string(bt)
		verifyExamples(t, id, res, old, new)
		if res.Search.Contradictions > 0 {
			t.Errorf("%s: %d claims refuted by examples\n%s", id, res.Search.Contradictions, textOf(res))
		}
		for _, f := range checkOracle(a, b, old, new, res, class.name, tally) {
			t.Error(f)
		}
	}
	t.Log("\n" + tally.String())
	if n == 1000 && os.Getenv("JSTK_ORACLE_PAIRS") == "" {
		golden.Check(t, "testdata/oracle-stats.txt", "# generated pairs by class checked against the bounded oracle (go test ./internal/diff -run TestClassPairs; JSTK_UPDATE=1 rewrites)\n"+tally.String())
	}
}

// checkSampleClaims checks sample's claims that a schema is unsatisfiable against the
// oracle: a value of the universe valid under the schema refutes one.
func checkSampleClaims(id string, o *oracle, old, new *schema.Schema, tally *oracleTally) []string {
	var fails []string
	for _, s := range []*schema.Schema{old, new} {
		res, err := sample.Generate(context.Background(), s, &sample.Options{Seed: 1, Attempts: 8})
		if err != nil || res.Failure == nil || !res.Failure.Unsatisfiable {
			continue
		}
		tally.unsat++
		if x, ok := o.satisfiable(s); ok {
			fails = append(fails, id+": sample claims "+s.Location()+" unsatisfiable ("+res.Failure.Reason+"), but "+string(source.AppendJSON(nil, x))+" is valid")
		}
	}
	return fails
}
