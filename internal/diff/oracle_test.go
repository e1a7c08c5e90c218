package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"math/big"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diff/pattern"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The bounded oracle: every JSON value up to a small size over the constants, numbers,
// lengths and property names two schemas mention. Within that universe the question "is
// there an instance valid under one and invalid under the other?" is answered exactly, by
// jstk's validator, so a compatible verdict (or an empty-schema claim) that a value of the
// universe refutes is a wrong claim. The universe is finite and small, so no value in it
// proves nothing; a value in it proves everything it shows.

// oracleVerbose prints the unknown verdicts the universe settles (JSTK_ORACLE_VERBOSE).
var oracleVerbose = os.Getenv("JSTK_ORACLE_VERBOSE") != ""

// oracleVocab is what the schemas of a pair mention.
type oracleVocab struct {
	nums    map[string]bool // number literals
	strs    map[string]bool
	consts  []any // enum and const values (any JSON)
	names   map[string]bool
	lengths map[int]bool // string lengths, array lengths, property counts
	formats map[string]bool
	pats    []string
}

func newVocab() *oracleVocab {
	return &oracleVocab{nums: map[string]bool{}, strs: map[string]bool{}, names: map[string]bool{}, lengths: map[int]bool{}, formats: map[string]bool{}}
}

// collect reads a schema (a JSON value as encoding/json makes it) into the vocabulary.
func (v *oracleVocab) collect(s any) {
	switch x := s.(type) {
	case []any:
		for _, it := range x {
			v.collect(it)
		}
	case map[string]any:
		for k, val := range x {
			switch k {
			case "enum":
				if l, ok := val.([]any); ok {
					for _, c := range l {
						v.constant(c)
					}
				}
				continue
			case "const":
				v.constant(val)
				continue
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
				v.number(val)
			case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
				if n, ok := toInt(val); ok && n <= 6 {
					v.lengths[n] = true
				}
			case "prefixItems":
				if l, ok := val.([]any); ok {
					v.lengths[len(l)] = true
				}
			case "items":
				if l, ok := val.([]any); ok {
					v.lengths[len(l)] = true
				}
			case "required":
				if l, ok := val.([]any); ok {
					for _, n := range l {
						if s, ok := n.(string); ok {
							v.names[s] = true
						}
					}
				}
			case "properties", "dependentSchemas", "dependentRequired", "dependencies":
				if m, ok := val.(map[string]any); ok {
					for n, sub := range m {
						v.names[n] = true
						if l, ok := sub.([]any); ok && k != "properties" {
							for _, r := range l {
								if s, ok := r.(string); ok {
									v.names[s] = true
								}
							}
						}
					}
				}
			case "patternProperties":
				if m, ok := val.(map[string]any); ok {
					for p := range m {
						v.pats = append(v.pats, p)
					}
				}
			case "pattern":
				if p, ok := val.(string); ok {
					v.pats = append(v.pats, p)
				}
			case "format":
				if f, ok := val.(string); ok {
					v.formats[f] = true
				}
			}
			v.collect(val)
		}
	}
}

func toInt(x any) (int, bool) {
	switch n := x.(type) {
	case float64:
		if n == float64(int(n)) && n >= 0 {
			return int(n), true
		}
	case int:
		return n, n >= 0
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil && i >= 0
	}
	return 0, false
}

func (v *oracleVocab) constant(c any) {
	v.consts = append(v.consts, c)
	switch x := c.(type) {
	case string:
		v.strs[x] = true
	case float64, int, json.Number:
		v.number(x)
	}
}

// number adds a number and its neighbours: one above and below, halfway, twice, and the
// spelling with a decimal point of an integer (draft-04 tells 1 from 1.0).
func (v *oracleVocab) number(x any) {
	var lit string
	switch n := x.(type) {
	case float64:
		lit = strconv.FormatFloat(n, 'f', -1, 64)
	case int:
		lit = strconv.Itoa(n)
	case json.Number:
		lit = n.String()
	default:
		return
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok || len(lit) > 12 {
		return
	}
	for _, d := range []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(1, 2), big.NewRat(-1, 2)} {
		if s, ok := algebra.RatLiteral(new(big.Rat).Add(r, d)); ok {
			v.nums[s] = true
		}
	}
	if s, ok := algebra.RatLiteral(new(big.Rat).Mul(r, big.NewRat(2, 1))); ok {
		v.nums[s] = true
	}
	if r.IsInt() {
		v.nums[r.Num().String()+".0"] = true
	}
}

// oracleWitnesses are strings tried against every pattern the schemas mention; those that
// match (and some that do not) join the universe, with the shortest match of each pattern.
var oracleWitnesses = []string{"a", "b", "c", "x", "ab", "ba", "bb", "aa", "abc", "x-", "x-1", "1", "0", "12", "a1", "cc", "xc", "A"}

var oracleFormatSamples = map[string]string{
	"email": "a@example.com", "date": "2024-01-02", "uri": "https://example.com/a", "ipv4": "192.0.2.1",
	"date-time": "2024-01-02T03:04:05Z", "hostname": "example.com", "uuid": "123e4567-e89b-12d3-a456-426614174000",
}

// oracleUniverse builds the universe of a vocabulary: scalars, then arrays and objects of
// up to three members over ever smaller sets of members.
func oracleUniverse(v *oracleVocab) []source.Value {
	var out []source.Value
	seen := map[string]bool{}
	// scalars and constants are kept once each; the containers made of distinct members
	// are distinct already
	once := func(x source.Value) bool {
		k := string(source.AppendJSON(nil, x))
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	add := func(x source.Value) { out = append(out, x) }
	// strings
	strs := map[string]bool{"": true, "a": true, "ab": true, "abc": true}
	for s := range v.strs {
		strs[s] = true
	}
	for n := range v.lengths {
		for _, l := range []int{n - 1, n, n + 1} {
			if l >= 0 {
				strs[strings.Repeat("a", l)] = true
			}
		}
	}
	for n := range v.names {
		strs[n] = true
	}
	var pats pattern.Cache
	for _, p := range v.pats {
		a := pats.Get(p)
		if a == nil {
			continue
		}
		for _, l := range []int{0, 1, 2, 3} {
			if w, found, _ := pattern.Solve(pattern.Query{Must: []*pattern.Automaton{a}, MinLen: l, MaxLen: -1}); found {
				strs[w] = true
			}
		}
		if w, found, _ := pattern.Solve(pattern.Query{MustNot: []*pattern.Automaton{a}, MinLen: 1, MaxLen: -1}); found {
			strs[w] = true
		}
		for _, w := range oracleWitnesses {
			if a.Matches(w) {
				strs[w] = true
			}
		}
	}
	for f := range v.formats {
		if s, ok := oracleFormatSamples[f]; ok {
			strs[s] = true
		}
	}
	nums := map[string]bool{"0": true, "1": true, "-1": true, "2": true, "0.5": true, "1.5": true, "-2.5": true, "2.0": true, "10": true}
	for n := range v.nums {
		nums[n] = true
	}
	var scalars []source.Value
	scalars = append(scalars, source.NullValue(), source.BoolValue(true), source.BoolValue(false))
	for _, n := range slices.Sorted(mapKeys(nums)) {
		scalars = append(scalars, source.NumberValue(n))
	}
	for _, s := range slices.Sorted(mapKeys(strs)) {
		scalars = append(scalars, source.StringValue(s))
	}
	for _, x := range scalars {
		once(x)
		add(x)
	}
	var consts []source.Value
	for _, c := range v.consts {
		b, _ := json.Marshal(c)
		if doc, err := source.ParseJSON("const", b, nil); err == nil && once(doc.Root) {
			consts = append(consts, doc.Root)
			add(doc.Root)
		}
	}
	// the members of containers: a small set, and a tiny one for three members
	small := []source.Value{source.NullValue(), source.BoolValue(false), source.BoolValue(true), source.NumberValue("0"), source.NumberValue("1"),
		source.NumberValue("1.5"), source.StringValue(""), source.StringValue("a"), source.StringValue("ab"),
		source.ArrayValue(), emptyObject()}
	tiny := []source.Value{source.NullValue(), source.NumberValue("0"), source.StringValue("a"), source.BoolValue(true)}
	inSmall := map[string]bool{}
	for _, x := range small {
		inSmall[string(source.AppendJSON(nil, x))] = true
	}
	for _, c := range consts {
		if k := string(source.AppendJSON(nil, c)); len(small) < 15 && !inSmall[k] {
			inSmall[k] = true
			small = append(small, c)
			if len(tiny) < 5 {
				tiny = append(tiny, c)
			}
		}
	}
	names := slices.Sorted(mapKeys(v.names))
	for _, p := range v.pats {
		// a name for each pattern of patternProperties (and propertyNames)
		if a := pats.Get(p); a != nil {
			if w, found, _ := pattern.Solve(pattern.Query{Must: []*pattern.Automaton{a}, MinLen: 1, MaxLen: -1}); found && !slices.Contains(names, w) {
				names = append(names, w)
			}
		}
	}
	if len(names) > 5 {
		names = names[:5]
	}
	names = append(names, "zz")
	// arrays
	for _, x := range scalars {
		add(source.ArrayValue(x))
	}
	add(source.ArrayValue())
	add(emptyObject())
	for _, x := range small {
		for _, y := range small {
			add(source.ArrayValue(x, y))
		}
	}
	for _, x := range tiny {
		for _, y := range tiny {
			for _, z := range tiny {
				add(source.ArrayValue(x, y, z))
			}
		}
	}
	for _, x := range tiny {
		add(source.ArrayValue(source.ArrayValue(x)))
		for _, n := range names {
			add(source.ArrayValue(objectOf(n, x)))
		}
	}
	// objects (the empty one is in small)
	for _, n := range names {
		for _, x := range scalars {
			add(objectOf(n, x))
		}
		for _, x := range tiny {
			add(objectOf(n, source.ArrayValue(x)))
			for _, m := range names {
				add(objectOf(n, objectOf(m, x)))
			}
		}
		add(objectOf(n, source.ArrayValue()))
		add(objectOf(n, emptyObject()))
	}
	for i, n := range names {
		for _, m := range names[i+1:] {
			for _, x := range small {
				for _, y := range small {
					add(objectOf(n, x, m, y))
				}
			}
		}
	}
	for i, n := range names {
		for j := i + 1; j < len(names); j++ {
			for _, o := range names[j+1:] {
				for _, x := range tiny {
					for _, y := range tiny {
						for _, z := range tiny {
							add(objectOf(n, x, names[j], y, o, z))
						}
					}
				}
			}
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func emptyObject() source.Value {
	var b source.ObjectBuilder
	return b.Value()
}

// objectOf makes an object of name, value pairs.
func objectOf(kv ...any) source.Value {
	var b source.ObjectBuilder
	for i := 0; i+1 < len(kv); i += 2 {
		b.Set(kv[i].(string), kv[i+1].(source.Value))
	}
	return b.Value()
}

// oracle answers questions about two compiled schemas over the universe of their
// vocabulary.
type oracle struct {
	universe []source.Value
	old, new []bool // validity of each value of the universe
}

func newOracle(a, b any, old, new *schema.Schema) *oracle {
	v := newVocab()
	v.collect(a)
	v.collect(b)
	o := &oracle{universe: oracleUniverse(v)}
	o.old, o.new = o.judge(old), o.judge(new)
	return o
}

func (o *oracle) judge(s *schema.Schema) []bool {
	out := make([]bool, len(o.universe))
	for i, x := range o.universe {
		ok, err := s.Valid(x)
		out[i] = ok && err == nil
	}
	return out
}

// separates returns a value of the universe valid under from and invalid under to (the
// validity vectors), if there is one.
func (o *oracle) separates(from, to []bool) (source.Value, bool) {
	for i := range o.universe {
		if from[i] && !to[i] {
			return o.universe[i], true
		}
	}
	return source.Value{}, false
}

// satisfiable returns a value of the universe valid under s, if there is one.
func (o *oracle) satisfiable(s *schema.Schema) (source.Value, bool) {
	for _, x := range o.universe {
		if ok, err := s.Valid(x); ok && err == nil {
			return x, true
		}
	}
	return source.Value{}, false
}

// oracleTally counts what an oracle run saw.
type oracleTally struct {
	pairs, verdicts, unknown, missed, emptyClaims, subClaims, unsat int
	byClass                                                         map[string]*classTally
}

type classTally struct{ pairs, unknown, missed int }

func (t *oracleTally) class(name string) *classTally {
	if t.byClass == nil {
		t.byClass = map[string]*classTally{}
	}
	c := t.byClass[name]
	if c == nil {
		c = &classTally{}
		t.byClass[name] = c
	}
	return c
}

func (t *oracleTally) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "pairs %d, verdicts %d, unknown %d (of which the universe separates %d)\n", t.pairs, t.verdicts, t.unknown, t.missed)
	fmt.Fprintf(&sb, "empty-schema claims checked %d, inclusion claims checked %d, sample unsatisfiable claims checked %d\n", t.emptyClaims, t.subClaims, t.unsat)
	for _, k := range slices.Sorted(mapKeys(t.byClass)) {
		c := t.byClass[k]
		fmt.Fprintf(&sb, "  %-22s pairs %4d  unknown verdicts %3d  of which the universe separates %3d\n", k, c.pairs, c.unknown, c.missed)
	}
	return sb.String()
}

// subschemas lists every schema object of a compiled schema's document reached from it.
func subschemas(s *schema.Schema) []*schema.Schema {
	var out []*schema.Schema
	schema.Walk(s, func(x *schema.Schema) bool {
		out = append(out, x)
		return true
	})
	locs := make(map[*schema.Schema]string, len(out))
	for _, x := range out {
		locs[x] = x.Location() // built from linked places: once per schema
	}
	sort.SliceStable(out, func(i, j int) bool { return locs[out[i]] < locs[out[j]] })
	return out
}

// checkOracle compares a pair and checks every claim against the oracle: the verdicts,
// the rule engine's empty-schema and inclusion claims about the subschemas, and sample's
// unsatisfiability claims. It returns the problems found.
func checkOracle(a, b any, old, new *schema.Schema, res *Result, class string, tally *oracleTally) []string {
	var fails []string
	at, _ := json.Marshal(a)
	bt, _ := json.Marshal(b)
	id := fmt.Sprintf("[%s] OLD %s NEW %s", class, at, bt)
	o := newOracle(a, b, old, new)
	tally.pairs++
	ct := tally.class(class)
	ct.pairs++
	for _, d := range []struct {
		name     string
		v        Verdict
		from, to []bool
	}{{"backward", res.Backward, o.old, o.new}, {"forward", res.Forward, o.new, o.old}} {
		tally.verdicts++
		x, sep := o.separates(d.from, d.to)
		switch {
		case d.v == Compatible && sep:
			fails = append(fails, fmt.Sprintf("%s: %s compatible, refuted by %s", id, d.name, source.AppendJSON(nil, x)))
		case d.v == Unknown:
			tally.unknown++
			ct.unknown++
			if sep {
				tally.missed++
				ct.missed++
				if oracleVerbose {
					fmt.Printf("MISSED %s %s: %s\n", id, d.name, source.AppendJSON(nil, x))
				}
			} else if oracleVerbose {
				fmt.Printf("UNKNOWN %s %s\n", id, d.name)
			}
		}
	}
	// the rule engine's claims about each subschema: empty, and included in the other
	// side's schema at the same place
	e := newEngine(context.Background(), Options{ProofSteps: 50000}, nil, schema.CompiledCount(old, new))
	for _, s := range append(subschemas(old), subschemas(new)...) {
		if e.ProvedEmpty(s) {
			tally.emptyClaims++
			if x, ok := o.satisfiable(s); ok {
				fails = append(fails, fmt.Sprintf("%s: %s claimed empty, but %s is valid", id, s.Location(), source.AppendJSON(nil, x)))
			}
		}
	}
	so, sn := subschemas(old), subschemas(new)
	for i := 0; i < len(so) && i < len(sn) && i < 6; i++ {
		for _, p := range [][2]*schema.Schema{{so[i], sn[i]}, {sn[i], so[i]}} {
			e.Steps = 0
			if e.Sub(e.One(p[0]), e.One(p[1]), schema.TypeAll, 0) {
				tally.subClaims++
				va, vb := o.judge(p[0]), o.judge(p[1])
				if x, ok := o.separates(va, vb); ok {
					fails = append(fails, fmt.Sprintf("%s: %s claimed included in %s, refuted by %s", id, p[0].Location(), p[1].Location(), source.AppendJSON(nil, x)))
				}
			}
		}
	}
	fails = append(fails, checkSampleClaims(id, o, old, new, tally)...)
	return fails
}
