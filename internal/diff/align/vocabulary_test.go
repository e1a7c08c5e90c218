package align_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/diff"
)

// kindEffects maps each change kind of a result to its effects.
func kindEffects(r *diff.Result) map[string][]diff.Effect {
	out := map[string][]diff.Effect{}
	for _, c := range r.Changes {
		out[c.Kind] = append(out[c.Kind], c.Effect)
	}
	return out
}

func TestCompareVocabulary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		want     verdicts
		kinds    map[string]diff.Effect // each must be present with this effect
		opts     *diff.Options
	}{
		{"type list extended", `{"type":"string"}`, `{"type":["string","number"]}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"type-extended": diff.Widen}, nil},
		{"integer to number", `{"type":"integer"}`, `{"type":"number"}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"type-extended": diff.Widen}, nil},
		{"number to integer", `{"type":"number"}`, `{"type":"integer"}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"type-narrowed": diff.Narrow}, nil},
		{"type changed", `{"type":"string"}`, `{"type":"boolean"}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"type-changed": diff.Incomparable}, nil},
		{"enum order and 1 == 1.0", `{"enum":[1,"a",null]}`, `{"enum":[null,"a",1.0]}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"property name may no longer be empty", `{"type":"object","properties":{"t":{"type":"object","propertyNames":{"description":"a name"}}}}`,
			`{"type":"object","properties":{"t":{"type":"object","propertyNames":{"minLength":1}}}}`,
			verdicts{diff.Incompatible, diff.Compatible}, nil, nil},
		{"untyped oneOf branches gain type object", `{"type":"array","items":{"required":["k"],"properties":{"k":{"type":"string"}},"oneOf":[{"$ref":"#/definitions/a"},{"$ref":"#/definitions/b"}]},"definitions":{"a":{"properties":{"k":{"pattern":"a$"}}},"b":{"properties":{"k":{"pattern":"b$"}}}}}`,
			`{"type":"array","items":{"required":["k"],"properties":{"k":{"type":"string"}},"oneOf":[{"$ref":"#/definitions/a"},{"$ref":"#/definitions/b"}]},"definitions":{"a":{"type":"object","properties":{"k":{"pattern":"a$"}}},"b":{"type":"object","properties":{"k":{"pattern":"b$"}}}}}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil}, // forward: the branches cover NEW's items and are disjoint in them (coverDisjoint)
		{"untyped oneOf branch gains type object beside an untyped one", `{"oneOf":[{"properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
			`{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"a member inside a oneOf branch is built with what its context requires",
			`{"type":"array","items":{"properties":{"m":{"type":"object","required":["e"]}},"oneOf":[{"properties":{"k":{"const":1},"m":{"properties":{"n":{"type":"integer"}}}},"required":["k"]},{"properties":{"k":{"const":2}},"required":["k"]}]}}`,
			`{"type":"array","items":{"properties":{"m":{"type":"object","required":["e"]}},"oneOf":[{"properties":{"k":{"const":1},"m":{"properties":{"n":{"type":"number"}}}},"required":["k"]},{"properties":{"k":{"const":2}},"required":["k"]}]}}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"a member discriminating if/then groups picks the group it names",
			`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","required":["t"],"properties":{"t":{"enum":["a","b","c","d","e"]}},"allOf":[` + condsByType("a", "b", "c", "d", "e") + `]}}}}`,
			`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","required":["t"],"properties":{"t":{"enum":["a","b","c","d","e","f"]}},"allOf":[` + condsByType("a", "b", "c", "d", "e", "f") + `]}}}}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"a change in else is searched with values its condition rejects",
			`{"type":"object","required":["v"],"properties":{"v":{"enum":[2,3]},"w":{"type":"array","items":{"type":"string"}}},"if":{"properties":{"v":{"const":2}}},"then":{},"else":{}}`,
			`{"type":"object","required":["v"],"properties":{"v":{"enum":[2,3]}},"if":{"properties":{"v":{"const":2}}},"then":{"properties":{"w":{"type":"array","items":{"type":"string"}}}},"else":{"properties":{"w":{"type":"array","items":{"type":"object"}}}}}`,
			verdicts{diff.Incompatible, diff.Unknown}, nil, &diff.Options{SearchBudget: time.Minute, SearchCandidates: 36}}, // 36 candidates: the search at else finds it, not the one of the whole schemas; forward: values under the whole schema, where then judges v 2, are not made under else alone
		{"a oneOf branch that widens onto another branch's instances",
			`{"type":"object","properties":{"tasks":{"type":"object","additionalProperties":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string"},"install":{"oneOf":[{"type":"boolean"},{"type":"string"},{"type":"object","required":["crate","binary","arg"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"binary":{"type":"string"},"arg":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}},{"type":"object","required":["component"],"additionalProperties":false,"properties":{"component":{"type":"string"},"binary":{"type":"string"}}},{"type":"object","required":["crate","min"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}}]}}}}}}`,
			`{"type":"object","properties":{"tasks":{"type":"object","additionalProperties":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string"},"install":{"oneOf":[{"type":"boolean"},{"type":"string"},{"type":"object","required":["crate"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"binary":{"type":"string"},"arg":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}},{"type":"object","required":["component"],"additionalProperties":false,"properties":{"component":{"type":"string"},"binary":{"type":"string"}}},{"type":"object","required":["crate","min"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}}]}}}}}}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"a tenth oneOf branch is searched", `{"type":"object","properties":{"s":{"type":"object","additionalProperties":{"oneOf":[` + constBranches(10) + `]}}}}`,
			`{"type":"object","properties":{"s":{"type":"object","additionalProperties":{"oneOf":[` + constBranches(10) + `,{"properties":{"k":{"const":"new"}},"required":["k"]}]}}}}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"enum extended", `{"enum":["a"]}`, `{"enum":["a","b"]}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"enum-extended": diff.Widen}, nil},
		{"const to enum", `{"const":"a"}`, `{"enum":["a","b"]}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"enum-extended": diff.Widen}, nil},
		{"enum changed", `{"enum":["a","b"]}`, `{"enum":["b","c"]}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"enum-changed": diff.Incomparable}, nil},
		{"draft-04 boolean exclusive bound is a draft-07 number", `{` + d4 + `"type":"number","minimum":5,"exclusiveMinimum":true}`,
			`{` + d7 + `"type":"number","exclusiveMinimum":5}`, verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"dialect-changed": diff.Equivalent}, nil},
		{"exclusive and inclusive integer bounds", `{"type":"integer","exclusiveMinimum":4}`, `{"type":"integer","minimum":5}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"minimum-increased": diff.Equivalent}, nil},
		{"maximum decreased", `{"type":"number","maximum":10}`, `{"type":"number","maximum":5}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"maximum-decreased": diff.Narrow}, nil},
		{"minimum removed", `{"type":"number","minimum":0}`, `{"type":"number"}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"minimum-removed": diff.Widen}, nil},
		{"multipleOf finer", `{"type":"number","multipleOf":0.5}`, `{"type":"number","multipleOf":0.25}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"multiple-of-changed": diff.Widen}, nil},
		{"multipleOf exact decimals", `{"multipleOf":0.01}`, `{"multipleOf":0.1}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"multiple-of-changed": diff.Narrow}, nil},
		{"multipleOf 0.5 and 10", `{"type":"number","multipleOf":0.5}`, `{"type":"number","multipleOf":10}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"multiple-of-changed": diff.Narrow}, nil},
		{"string lengths", `{"type":"string","minLength":2,"maxLength":5}`, `{"type":"string","minLength":1,"maxLength":4}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"min-length-decreased": diff.Widen, "max-length-decreased": diff.Narrow}, nil},
		{"pattern widened, decided on the automata", `{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-z]*$"}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"pattern-changed": diff.Widen}, nil},
		{"unanchored pattern matching the empty string accepts everything", `{"pattern":"[a-z]*"}`, `{}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"pattern-removed": diff.Equivalent}, nil},
		{"literal patterns", `{"type":"string","pattern":"date-time"}`, `{"type":"string","pattern":"uuid"}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"pattern-changed": diff.Incomparable}, nil},
		{"format is an annotation", `{"type":"string","format":"email"}`, `{"type":"string"}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"format-removed": diff.Equivalent}, nil},
		{"property added to an open model", `{"properties":{"a":{}}}`, `{"properties":{"a":{},"b":{"type":"string"}}}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"property-added": diff.Narrow}, nil},
		{"property added to a closed model", `{"properties":{"a":{}},"additionalProperties":false}`,
			`{"properties":{"a":{},"b":{"type":"string"}},"additionalProperties":false}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"property-added": diff.Widen}, nil},
		{"property covered by a partly open model", `{"additionalProperties":{"type":"string"}}`,
			`{"properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"property-added": diff.Equivalent}, nil},
		{"property covered by a pattern", `{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			`{"properties":{"x-a":{"type":"number"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"property-added": diff.Equivalent}, nil},
		{"required not declared in properties", `{"properties":{"a":{}},"required":["a"]}`,
			`{"properties":{"a":{}},"required":["b"]}`, verdicts{diff.Incompatible, diff.Incompatible},
			map[string]diff.Effect{"required-added": diff.Narrow, "required-removed": diff.Widen}, nil},
		{"properties counts", `{"minProperties":1,"maxProperties":3}`, `{"minProperties":2,"maxProperties":2}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"min-properties-increased": diff.Narrow, "max-properties-decreased": diff.Narrow}, nil},
		{"dependencies split by 2019-09", `{` + d7 + `"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
			`{"dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"dialect-changed": diff.Equivalent}, nil},
		{"dependentRequired added", `{}`, `{"dependentRequired":{"a":["b"]}}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"dependent-required-added": diff.Narrow}, nil},
		{"vacuous dependent schema", `{` + d7 + `"dependencies":{"foo":{"type":"string"}}}`, `{` + d7 + `"dependencies":{"foo":{"type":"number"}}}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"items array becomes prefixItems", `{` + d7 + `"items":[{"type":"string"}],"additionalItems":false}`,
			`{"prefixItems":[{"type":"string"}],"items":false}`, verdicts{diff.Compatible, diff.Compatible},
			map[string]diff.Effect{"dialect-changed": diff.Equivalent}, nil},
		{"additionalItems without a tuple has no effect", `{` + d7 + `"additionalItems":true}`, `{` + d7 + `"additionalItems":false}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"tuple grows in a closed array", `{"prefixItems":[{"type":"string"}],"items":false}`,
			`{"prefixItems":[{"type":"string"},{"type":"number"}],"items":false}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"prefix-item-added": diff.Widen}, nil},
		{"items schema changed", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"number"}}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"type-changed": diff.Incomparable}, nil},
		{"uniqueItems added", `{"type":"array"}`, `{"type":"array","uniqueItems":true}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"unique-items-added": diff.Narrow}, nil},
		{"minContains raised", `{"contains":{"type":"string"},"minContains":1}`, `{"contains":{"type":"string"},"minContains":2}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"min-contains-increased": diff.Narrow}, nil},
		{"unevaluatedItems closes an array", `{"prefixItems":[{}]}`, `{"prefixItems":[{}],"unevaluatedItems":false}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"unevaluated-items-added": diff.Narrow}, nil},
		{"unevaluatedProperties as a closed model", `{"properties":{"a":{}},"unevaluatedProperties":false}`,
			`{"properties":{"a":{},"b":{}},"unevaluatedProperties":false}`, verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"propertyNames narrowed", `{"propertyNames":{"maxLength":3}}`, `{"propertyNames":{"maxLength":2}}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"max-length-decreased": diff.Narrow}, nil},
		{"anyOf branch added", `{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"number"}]}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"anyOf branch removed", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, `{"anyOf":[{"type":"string"}]}`,
			verdicts{diff.Incompatible, diff.Compatible}, nil, nil},
		{"disjoint oneOf branch added is a union", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"type":"number"}]}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"overlapping oneOf branch added narrows", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"minLength":1}]}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"not inverts", `{"not":{"type":"integer"}}`, `{"not":{"type":"number"}}`,
			verdicts{diff.Incompatible, diff.Compatible}, nil, nil},
		{"if/then changed", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"if":{"required":["a"]},"then":{"required":["b","c"]}}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"required-added": diff.Narrow}, nil},
		{"boolean schemas", `true`, `false`, verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"schema-rejects-all": diff.Narrow}, nil},
		{"empty object is true", `{}`, `{"properties":{}}`, verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"definitions to $defs", `{` + d7 + `"$ref":"#/definitions/a","definitions":{"a":{"type":"string"}}}`,
			`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"draft-04 1.0 is not an integer", `{` + d4 + `"type":"integer"}`, `{` + d7 + `"type":"integer"}`,
			verdicts{diff.Compatible, diff.Incompatible}, map[string]diff.Effect{"type-extended": diff.Widen}, nil},
		{"recursive schema changed deep down", `{"$defs":{"n":{"type":"object","properties":{"v":{"type":"string"},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			`{"$defs":{"n":{"type":"object","properties":{"v":{"type":"number"},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"recursive schema unchanged", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			`{"$defs":{"m":{"type":"object","properties":{"next":{"$ref":"#/$defs/m"}}}},"$ref":"#/$defs/m"}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		{"required with default, pure validation", `{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"required-added": diff.Narrow}, nil},
		{"required with default, reader-defaults policy", `{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"required-added": diff.Equivalent}, &diff.Options{RequiredWithDefault: true, SearchCandidates: 3000, SearchBudget: time.Minute}},
		// A loop of in-place applicators is undefined (jstk's validator stops with an
		// error): whichever side has it, neither direction is compatible, whatever the
		// loop's applicators, and the loop is reported.
		{"a reference loop added", `{"type":"string"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
			verdicts{diff.Unknown, diff.Unknown}, map[string]diff.Effect{"reference-loop": diff.EffectUnknown}, nil},
		{"a reference loop removed", `{"allOf":[{"$ref":"#"}]}`, `{"type":"string"}`,
			verdicts{diff.Unknown, diff.Unknown}, map[string]diff.Effect{"reference-loop": diff.EffectUnknown, "type-narrowed": diff.EffectUnknown}, nil},
		{"a loop through anyOf", `{"type":"string"}`, `{"anyOf":[{"$ref":"#"},{"type":"string"}]}`,
			verdicts{diff.Unknown, diff.Unknown}, map[string]diff.Effect{"reference-loop": diff.EffectUnknown}, nil},
		{"a loop through not, under a property", `{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"not":{"$ref":"#/properties/a"}}}}`,
			verdicts{diff.Unknown, diff.Unknown}, map[string]diff.Effect{"reference-loop": diff.EffectUnknown}, nil},
		{"a loop unchanged", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
			verdicts{diff.Compatible, diff.Compatible}, nil, nil},
		// the same loop under other names: the same text is what tells schemas the same
		{"a loop renamed", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{"$ref":"#/$defs/b","$defs":{"b":{"$ref":"#/$defs/b"}}}`,
			verdicts{diff.Unknown, diff.Unknown}, map[string]diff.Effect{"reference-loop": diff.EffectUnknown}, nil},
		// 0 now takes the then branch (minimum 2), where old took else: the example fails at
		// then's minimum, but the claim there, made under old's condition (only false gets
		// there), stands; the example is not held against it (it was counted as a refuted
		// claim), and explains itself as a semantic difference
		{"a condition sends an example to a proved keyword", `{"if":{"const":false},"then":{"multipleOf":2},"else":{"maximum":1}}`,
			`{"if":{"type":"number"},"then":{"minimum":2}}`,
			verdicts{diff.Incompatible, diff.Incompatible}, map[string]diff.Effect{"semantic-difference": diff.EffectUnknown}, nil},
		// jstk applies const in draft 4 (schema.Options.StrictDraft would not): the rule
		// engine reads it too (it did not, and proved the anyOf accepted everything)
		{"draft-04 const is applied", `{` + d4 + `"minimum":-5}`, `{` + d4 + `"anyOf":[{"const":-1},{"minimum":2,"exclusiveMinimum":true}]}`,
			verdicts{diff.Incompatible, diff.Compatible}, map[string]diff.Effect{"any-of-added": diff.Narrow}, nil},
		// from 2020-12 the items contains matches are evaluated: adding contains lets them
		// past unevaluatedItems (it was proved a narrowing); not in 2019-09
		{"contains lets items past unevaluatedItems", `{"unevaluatedItems":false}`, `{"unevaluatedItems":false,"contains":{"type":"string"}}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"contains and unevaluatedItems in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","unevaluatedItems":false}`,
			`{"$schema":"https://json-schema.org/draft/2019-09/schema","unevaluatedItems":false,"contains":{"type":"string"}}`,
			verdicts{diff.Incompatible, diff.Compatible}, nil, nil},
		// an enum's 1 also admits 1.0, which a draft-04 integer rejects: the proof judged the
		// enum by 1 alone and said compatible; the search tries 1.0 too
		{"draft-04 enum of an integer against integer", `{` + d4 + `"enum":[1]}`, `{` + d4 + `"type":"integer"}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"draft-04 enum whose 1 fails and 1.0 passes", `{` + d4 + `"enum":[{"a":1}]}`, `{` + d4 + `"enum":[{"a":1},1],"oneOf":[{"type":"integer"},{"type":"number","minimum":1}]}`,
			verdicts{diff.Incompatible, diff.Incompatible}, nil, nil},
		{"draft-04 integer enum upgraded to draft-07", `{` + d4 + `"type":"integer","enum":[3,4]}`, `{` + d7 + `"type":"integer","enum":[3,4]}`,
			verdicts{diff.Compatible, diff.Incompatible}, nil, nil},
		{"docs level", `{"title":"a","type":"string"}`, `{"title":"b","type":"string"}`,
			verdicts{diff.Compatible, diff.Compatible}, map[string]diff.Effect{"title-changed": diff.Equivalent}, &diff.Options{Level: "docs", SearchCandidates: 3000, SearchBudget: time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			if opts == nil {
				opts = quick()
			}
			old := compileText(t, "old.json", tc.old)
			new := compileText(t, "new.json", tc.new)
			res, err := diff.Compare(context.Background(), old, new, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, verdicts{res.Backward, res.Forward}); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s\n%s", diff, textOf(res))
			}
			got := kindEffects(res)
			for k, eff := range tc.kinds {
				found := false
				for _, g := range got[k] {
					found = found || g == eff
				}
				if !found {
					t.Errorf("want a %s change with effect %s; got %v\n%s", k, eff, got, textOf(res))
				}
			}
			verifyExamples(t, tc.name, res, old, new)
			if res.Search.Contradictions != 0 {
				t.Errorf("%d contradictions", res.Search.Contradictions)
			}
		})
	}
}

// constBranches returns n oneOf branches, each an object whose k is its own constant.
func constBranches(n int) string {
	var bs []string
	for i := 0; i < n; i++ {
		bs = append(bs, fmt.Sprintf(`{"properties":{"k":{"const":"c%d"}},"required":["k"]}`, i))
	}
	return strings.Join(bs, ",")
}

// condsByType returns one if/then per name: an object whose t is the name must have a
// member of that name.
func condsByType(names ...string) string {
	var bs []string
	for _, n := range names {
		bs = append(bs, fmt.Sprintf(`{"if":{"properties":{"t":{"const":%q}}},"then":{"required":[%q],"properties":{%q:{"type":"string"}}}}`, n, n+"x", n+"x"))
	}
	return strings.Join(bs, ",")
}
