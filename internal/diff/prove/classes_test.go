package prove_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/diff"
)

// TestDecidedClasses holds one or two cases of each class of issue 22 that the diff now
// decides (TestClassPairs checks generated pairs of the same classes against the bounded
// oracle): hidden contradictions and a change to or from them, at the root and deeper,
// equivalent spellings, and the forward direction of object and array keywords. Each
// case fails on the diff as it was before (unknown where it now decides).
func TestDecidedClasses(t *testing.T) {
	t.Parallel()
	const str = `{"type":"string"}`
	under := func(s string) string { return `{"type":"object","properties":{"a":` + s + `}}` }
	tests := []struct {
		name     string
		old, new string
		want     verdicts
	}{
		// contradictions: nothing to something is backward compatible, forward incompatible
		{"no integer in an exclusive range", `{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"no integer in a fractional range", `{"type":"integer","minimum":1.2,"maximum":1.8}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"more items than a closed tuple allows", `{"type":"array","prefixItems":[{},{}],"items":false,"minItems":3}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"more items than maxItems allows", `{"type":"array","minItems":3,"maxItems":2}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"more properties than a closed object allows", `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false,"minProperties":3}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"a required property whose schema is false", `{"type":"object","required":["a"],"properties":{"a":false}}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"oneOf of one schema twice", `{"oneOf":[{"type":"string"},{"type":"string"}]}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"oneOf of two references to the same text", `{"$defs":{"a":{"type":"string"},"b":{"type":"string"}},"oneOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/b"}]}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"not of everything", `{"not":{}}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"enum values none of which pass", `{"enum":[1,"a"],"type":"boolean"}`, str, verdicts{diff.Compatible, diff.Incompatible}},
		{"something to nothing", str, `{"not":true}`, verdicts{diff.Incompatible, diff.Compatible}},
		{"a contradiction under a property", under(`{"type":"integer","minimum":1.2,"maximum":1.8}`), under(str), verdicts{diff.Compatible, diff.Incompatible}},
		{"a contradiction under a required property empties the object", `{"type":"object","required":["a"],"properties":{"a":{"oneOf":[{},{}]}}}`,
			`{"type":"object","required":["a"]}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"both sides empty", `{"not":{}}`, `{"type":"integer","minimum":1.2,"maximum":1.8}`, verdicts{diff.Compatible, diff.Compatible}},
		// equivalent spellings
		{"not a type against the other types", `{"not":{"type":"string"}}`, `{"type":["null","boolean","number","array","object"]}`, verdicts{diff.Compatible, diff.Compatible}},
		{"not integer in draft 4 keeps 1.0", `{` + d4 + `"not":{"type":"integer"}}`, `{` + d4 + `"type":["null","boolean","string","array","object"]}`, verdicts{diff.Incompatible, diff.Compatible}},
		{"double negation", `{"not":{"not":{"type":"string","minLength":2}}}`, `{"type":"string","minLength":2}`, verdicts{diff.Compatible, diff.Compatible}},
		{"De Morgan over anyOf", `{"not":{"anyOf":[{"type":"string"},{"minimum":3}]}}`,
			`{"allOf":[{"not":{"type":"string"}},{"not":{"minimum":3}}]}`, verdicts{diff.Compatible, diff.Compatible}},
		{"De Morgan over allOf", `{"not":{"allOf":[{"type":"string"},{"minLength":3}]}}`,
			`{"anyOf":[{"not":{"type":"string"}},{"not":{"minLength":3}}]}`, verdicts{diff.Compatible, diff.Compatible}},
		{"array lengths covering every length", `{"anyOf":[{"type":"array","maxItems":2},{"type":"array","minItems":2}]}`, `{"type":"array"}`, verdicts{diff.Compatible, diff.Compatible}},
		{"array lengths with a gap", `{"anyOf":[{"type":"array","maxItems":1},{"type":"array","minItems":3}]}`, `{"type":"array"}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"number ranges covering every number", `{"anyOf":[{"type":"number","maximum":10},{"type":"number","minimum":1},{"type":"number","minimum":100,"maximum":200}]}`,
			`{"anyOf":[{"type":"number","minimum":7,"maximum":14},{"type":"number","maximum":3},{"type":"number","minimum":2}]}`, verdicts{diff.Compatible, diff.Compatible}},
		{"no properties two ways", `{"type":"object","additionalProperties":false}`, `{"type":"object","maxProperties":0}`, verdicts{diff.Compatible, diff.Compatible}},
		{"integer as a multiple of 1", `{"type":"integer"}`, `{"type":"number","multipleOf":1}`, verdicts{diff.Compatible, diff.Compatible}},
		{"draft-04 integer and 1.0", `{` + d4 + `"type":"integer"}`, `{` + d4 + `"type":"number","multipleOf":1}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"a schema or its negation", `{"anyOf":[{"not":{"type":"integer"}},{"type":"integer"}]}`, `true`, verdicts{diff.Compatible, diff.Compatible}},
		{"a dependent schema that requires its trigger", `{"type":"object","dependentSchemas":{"a":{"required":["a"]}}}`, `{"type":"object"}`, verdicts{diff.Compatible, diff.Compatible}},
		{"a pattern that bounds the length", `{"type":"string","pattern":".+\\.svg$"}`, `{"type":"string","minLength":1}`, verdicts{diff.Compatible, diff.Incompatible}},
		// the forward direction of object and array keywords
		{"maxProperties loosened", `{"type":"object","maxProperties":2}`, `{"type":"object","maxProperties":3}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"minProperties loosened", `{"type":"object","minProperties":2}`, `{"type":"object","minProperties":1}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"dependent schema removed", `{"type":"object","dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}}}`, `{"type":"object"}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"dependent schema added", `{` + d7 + `"type":"object"}`, `{` + d7 + `"type":"object","dependencies":{"a":{"properties":{"b":{"type":"integer"}}}}}`, verdicts{diff.Incompatible, diff.Compatible}},
		{"a closed tuple gains a position and opens", `{` + d7 + `"type":"array","items":[{"type":"string"},{"type":"number"}],"additionalItems":false}`,
			`{` + d7 + `"type":"array","items":[{"type":"string"},{"type":"number"},{"type":"boolean"}],"additionalItems":true}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"a tuple position moves to additionalItems", `{` + d7 + `"type":"array","items":[{"type":"string"},{"type":"number"}],"additionalItems":false}`,
			`{` + d7 + `"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"number"}}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"a pattern of patternProperties widened under additionalProperties false", `{"type":"object","patternProperties":{"^[a-z]+$":{}},"additionalProperties":false}`,
			`{"type":"object","patternProperties":{"^[a-z_-]+$":{}},"additionalProperties":false}`, verdicts{diff.Compatible, diff.Incompatible}},
		// discriminated unions (issue 31): a chosen oneOf branch excludes its siblings, a
		// catch-all excludes the known values with not, a closed branch per name
		{"a oneOf gains a branch its discriminator keeps apart", kinds("a", "b"), kinds("a", "b", "c"), verdicts{diff.Compatible, diff.Incompatible}},
		{"a oneOf gains a branch that excludes the others", `{"oneOf":[{"required":["a"]},{"required":["b"]}]}`,
			`{"oneOf":[{"required":["a"]},{"required":["b"]},{"required":["c"],"not":{"anyOf":[{"required":["a"]},{"required":["b"]}]}}]}`, verdicts{diff.Compatible, diff.Incompatible}},
		{"a catch-all excludes the new value with not", catchAll("a", "b"), catchAll("a", "b", "c"), verdicts{diff.Compatible, diff.Compatible}},
		{"a catch-all hands the new value to a branch that rejects it", `{"type":"object","oneOf":[{"required":["x"]},{"not":{"required":["x"]}}]}`,
			`{"type":"object","oneOf":[{"required":["x"]},{"not":{"anyOf":[{"required":["x"]},{"required":["r"]}]}},{"required":["r"],"properties":{"r":{"type":"object","required":["url"]}}}]}`, verdicts{diff.Incompatible, diff.Compatible}},
		{"25 closed branches of one name each, one widened", closedNames(25, false), closedNames(25, true), verdicts{diff.Compatible, diff.Incompatible}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old := compileText(t, "old.json", tc.old)
			new := compileText(t, "new.json", tc.new)
			res, err := diff.Compare(context.Background(), old, new, quick())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, verdicts{res.Backward, res.Forward}); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, textOf(res))
			}
			verifyExamples(t, tc.name, res, old, new)
			if res.Search.Contradictions != 0 {
				t.Errorf("%d contradictions", res.Search.Contradictions)
			}
		})
	}
}

// kinds is a union discriminated by a required "type" that takes one of vals, each value
// with a branch of its own.
func kinds(vals ...string) string {
	var enum, branches []string
	for _, v := range vals {
		enum = append(enum, strconv.Quote(v))
		branches = append(branches, `{"properties":{"type":{"const":`+strconv.Quote(v)+`}}}`)
	}
	return `{"type":"object","allOf":[{"required":["type"],"properties":{"type":{"enum":[` + strings.Join(enum, ",") +
		`]}}},{"oneOf":[` + strings.Join(branches, ",") + `]}]}`
}

// catchAll is a union discriminated by "id": a branch for each of vals, and a catch-all
// for every object whose id is none of them (or that has none).
func catchAll(vals ...string) string {
	var enum, branches []string
	for _, v := range vals {
		enum = append(enum, strconv.Quote(v))
		branches = append(branches, `{"properties":{"id":{"enum":[`+strconv.Quote(v)+`]}}}`)
	}
	return `{"type":"object","properties":{"id":{"type":"string"}},"oneOf":[{"not":{"required":["id"],"properties":{"id":{"enum":[` +
		strings.Join(enum, ",") + `]}}}},` + strings.Join(branches, ",") + `]}`
}

// closedNames is a oneOf of n closed objects, each allowing one name with a string
// value (the first a number too when widened): an object of exactly one of the names.
func closedNames(n int, widened bool) string {
	var branches []string
	for i := range n {
		t := `"string"`
		if i == 0 && widened {
			t = `["string","number"]`
		}
		branches = append(branches, `{"properties":{"k`+strconv.Itoa(i)+`":{"type":`+t+`}},"additionalProperties":false}`)
	}
	return `{"type":"object","oneOf":[` + strings.Join(branches, ",") + `]}`
}

// TestProofBeatsUnknown: once a direction is proved for the whole, no change is left
// unknown in it; a change whose example proves a break is reported breaking in the text
// when that direction is asked, and the direction's verdict is incompatible.
func TestProofBeatsUnknown(t *testing.T) {
	t.Parallel()
	old := compileText(t, "old.json", `{"type":"object","properties":{"p":{"oneOf":[{"type":"string"},{"type":"string"}]}}}`)
	new := compileText(t, "new.json", `{"type":"object","properties":{"p":{"type":"integer"}}}`)
	opts := quick()
	opts.Direction = diff.Full
	res, err := diff.Compare(context.Background(), old, new, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != diff.Compatible || res.Forward != diff.Incompatible {
		t.Fatalf("verdicts %s %s\n%s", res.Backward, res.Forward, textOf(res))
	}
	text := textOf(res)
	for _, c := range res.Changes {
		if c.Level != "validation" {
			continue
		}
		if c.Effect == diff.EffectUnknown {
			t.Errorf("%s left unknown although backward is proved\n%s", c.Kind, text)
		}
		if len(c.Example) > 0 && !strings.Contains(text, "BREAKING "+c.Kind) {
			t.Errorf("%s has an example but is not reported breaking\n%s", c.Kind, text)
		}
		for _, b := range c.Breaks {
			if (b == diff.Backward && res.Backward != diff.Incompatible) || (b == diff.Forward && res.Forward != diff.Incompatible) {
				t.Errorf("%s breaks %s, but the verdict is not incompatible", c.Kind, b)
			}
		}
	}
}
