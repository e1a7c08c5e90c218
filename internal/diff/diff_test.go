package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// quick are deterministic options for unit tests.
func quick() *Options { return &Options{SearchBudget: time.Minute, SearchCandidates: 3000} }

type verdicts struct{ Backward, Forward Verdict }

// kindEffects maps each change kind of a result to its effects.
func kindEffects(r *Result) map[string][]Effect {
	out := map[string][]Effect{}
	for _, c := range r.Changes {
		out[c.Kind] = append(out[c.Kind], c.Effect)
	}
	return out
}

const (
	d4 = `"$schema": "http://json-schema.org/draft-04/schema#", `
	d7 = `"$schema": "http://json-schema.org/draft-07/schema#", `
)

func TestCompareVocabulary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		want     verdicts
		kinds    map[string]Effect // each must be present with this effect
		opts     *Options
	}{
		{"type list extended", `{"type":"string"}`, `{"type":["string","number"]}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"type-extended": Widen}, nil},
		{"integer to number", `{"type":"integer"}`, `{"type":"number"}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"type-extended": Widen}, nil},
		{"number to integer", `{"type":"number"}`, `{"type":"integer"}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"type-narrowed": Narrow}, nil},
		{"type changed", `{"type":"string"}`, `{"type":"boolean"}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"type-changed": Incomparable}, nil},
		{"enum order and 1 == 1.0", `{"enum":[1,"a",null]}`, `{"enum":[null,"a",1.0]}`,
			verdicts{Compatible, Compatible}, nil, nil},
		{"property name may no longer be empty", `{"type":"object","properties":{"t":{"type":"object","propertyNames":{"description":"a name"}}}}`,
			`{"type":"object","properties":{"t":{"type":"object","propertyNames":{"minLength":1}}}}`,
			verdicts{Incompatible, Compatible}, nil, nil},
		{"untyped oneOf branches gain type object", `{"type":"array","items":{"required":["k"],"properties":{"k":{"type":"string"}},"oneOf":[{"$ref":"#/definitions/a"},{"$ref":"#/definitions/b"}]},"definitions":{"a":{"properties":{"k":{"pattern":"a$"}}},"b":{"properties":{"k":{"pattern":"b$"}}}}}`,
			`{"type":"array","items":{"required":["k"],"properties":{"k":{"type":"string"}},"oneOf":[{"$ref":"#/definitions/a"},{"$ref":"#/definitions/b"}]},"definitions":{"a":{"type":"object","properties":{"k":{"pattern":"a$"}}},"b":{"type":"object","properties":{"k":{"pattern":"b$"}}}}}`,
			verdicts{Compatible, Compatible}, nil, nil}, // forward: the branches cover NEW's items and are disjoint in them (coverDisjoint)
		{"untyped oneOf branch gains type object beside an untyped one", `{"oneOf":[{"properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
			`{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"a member inside a oneOf branch is built with what its context requires",
			`{"type":"array","items":{"properties":{"m":{"type":"object","required":["e"]}},"oneOf":[{"properties":{"k":{"const":1},"m":{"properties":{"n":{"type":"integer"}}}},"required":["k"]},{"properties":{"k":{"const":2}},"required":["k"]}]}}`,
			`{"type":"array","items":{"properties":{"m":{"type":"object","required":["e"]}},"oneOf":[{"properties":{"k":{"const":1},"m":{"properties":{"n":{"type":"number"}}}},"required":["k"]},{"properties":{"k":{"const":2}},"required":["k"]}]}}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"a member discriminating if/then groups picks the group it names",
			`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","required":["t"],"properties":{"t":{"enum":["a","b","c","d","e"]}},"allOf":[` + condsByType("a", "b", "c", "d", "e") + `]}}}}`,
			`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","required":["t"],"properties":{"t":{"enum":["a","b","c","d","e","f"]}},"allOf":[` + condsByType("a", "b", "c", "d", "e", "f") + `]}}}}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"a change in else is searched with values its condition rejects",
			`{"type":"object","required":["v"],"properties":{"v":{"enum":[2,3]},"w":{"type":"array","items":{"type":"string"}}},"if":{"properties":{"v":{"const":2}}},"then":{},"else":{}}`,
			`{"type":"object","required":["v"],"properties":{"v":{"enum":[2,3]}},"if":{"properties":{"v":{"const":2}}},"then":{"properties":{"w":{"type":"array","items":{"type":"string"}}}},"else":{"properties":{"w":{"type":"array","items":{"type":"object"}}}}}`,
			verdicts{Incompatible, Unknown}, nil, &Options{SearchBudget: time.Minute, SearchCandidates: 36}}, // 36 candidates: the search at else finds it, not the one of the whole schemas; forward: values under the whole schema, where then judges v 2, are not made under else alone
		{"a oneOf branch that widens onto another branch's instances",
			`{"type":"object","properties":{"tasks":{"type":"object","additionalProperties":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string"},"install":{"oneOf":[{"type":"boolean"},{"type":"string"},{"type":"object","required":["crate","binary","arg"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"binary":{"type":"string"},"arg":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}},{"type":"object","required":["component"],"additionalProperties":false,"properties":{"component":{"type":"string"},"binary":{"type":"string"}}},{"type":"object","required":["crate","min"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}}]}}}}}}`,
			`{"type":"object","properties":{"tasks":{"type":"object","additionalProperties":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string"},"install":{"oneOf":[{"type":"boolean"},{"type":"string"},{"type":"object","required":["crate"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"binary":{"type":"string"},"arg":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}},{"type":"object","required":["component"],"additionalProperties":false,"properties":{"component":{"type":"string"},"binary":{"type":"string"}}},{"type":"object","required":["crate","min"],"additionalProperties":false,"properties":{"crate":{"type":"string"},"min":{"type":"string","pattern":"^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)$"}}}]}}}}}}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"a tenth oneOf branch is searched", `{"type":"object","properties":{"s":{"type":"object","additionalProperties":{"oneOf":[` + constBranches(10) + `]}}}}`,
			`{"type":"object","properties":{"s":{"type":"object","additionalProperties":{"oneOf":[` + constBranches(10) + `,{"properties":{"k":{"const":"new"}},"required":["k"]}]}}}}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"enum extended", `{"enum":["a"]}`, `{"enum":["a","b"]}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"enum-extended": Widen}, nil},
		{"const to enum", `{"const":"a"}`, `{"enum":["a","b"]}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"enum-extended": Widen}, nil},
		{"enum changed", `{"enum":["a","b"]}`, `{"enum":["b","c"]}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"enum-changed": Incomparable}, nil},
		{"draft-04 boolean exclusive bound is a draft-07 number", `{` + d4 + `"type":"number","minimum":5,"exclusiveMinimum":true}`,
			`{` + d7 + `"type":"number","exclusiveMinimum":5}`, verdicts{Compatible, Compatible}, map[string]Effect{"dialect-changed": Equivalent}, nil},
		{"exclusive and inclusive integer bounds", `{"type":"integer","exclusiveMinimum":4}`, `{"type":"integer","minimum":5}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"minimum-increased": Equivalent}, nil},
		{"maximum decreased", `{"type":"number","maximum":10}`, `{"type":"number","maximum":5}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"maximum-decreased": Narrow}, nil},
		{"minimum removed", `{"type":"number","minimum":0}`, `{"type":"number"}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"minimum-removed": Widen}, nil},
		{"multipleOf finer", `{"type":"number","multipleOf":0.5}`, `{"type":"number","multipleOf":0.25}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"multiple-of-changed": Widen}, nil},
		{"multipleOf exact decimals", `{"multipleOf":0.01}`, `{"multipleOf":0.1}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"multiple-of-changed": Narrow}, nil},
		{"multipleOf 0.5 and 10", `{"type":"number","multipleOf":0.5}`, `{"type":"number","multipleOf":10}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"multiple-of-changed": Narrow}, nil},
		{"string lengths", `{"type":"string","minLength":2,"maxLength":5}`, `{"type":"string","minLength":1,"maxLength":4}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"min-length-decreased": Widen, "max-length-decreased": Narrow}, nil},
		{"pattern widened, decided on the automata", `{"type":"string","pattern":"^[a-z]+$"}`, `{"type":"string","pattern":"^[a-z]*$"}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"pattern-changed": Widen}, nil},
		{"unanchored pattern matching the empty string accepts everything", `{"pattern":"[a-z]*"}`, `{}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"pattern-removed": Equivalent}, nil},
		{"literal patterns", `{"type":"string","pattern":"date-time"}`, `{"type":"string","pattern":"uuid"}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"pattern-changed": Incomparable}, nil},
		{"format is an annotation", `{"type":"string","format":"email"}`, `{"type":"string"}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"format-removed": Equivalent}, nil},
		{"property added to an open model", `{"properties":{"a":{}}}`, `{"properties":{"a":{},"b":{"type":"string"}}}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"property-added": Narrow}, nil},
		{"property added to a closed model", `{"properties":{"a":{}},"additionalProperties":false}`,
			`{"properties":{"a":{},"b":{"type":"string"}},"additionalProperties":false}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"property-added": Widen}, nil},
		{"property covered by a partly open model", `{"additionalProperties":{"type":"string"}}`,
			`{"properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"property-added": Equivalent}, nil},
		{"property covered by a pattern", `{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			`{"properties":{"x-a":{"type":"number"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"property-added": Equivalent}, nil},
		{"required not declared in properties", `{"properties":{"a":{}},"required":["a"]}`,
			`{"properties":{"a":{}},"required":["b"]}`, verdicts{Incompatible, Incompatible},
			map[string]Effect{"required-added": Narrow, "required-removed": Widen}, nil},
		{"properties counts", `{"minProperties":1,"maxProperties":3}`, `{"minProperties":2,"maxProperties":2}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"min-properties-increased": Narrow, "max-properties-decreased": Narrow}, nil},
		{"dependencies split by 2019-09", `{` + d7 + `"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
			`{"dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"dialect-changed": Equivalent}, nil},
		{"dependentRequired added", `{}`, `{"dependentRequired":{"a":["b"]}}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"dependent-required-added": Narrow}, nil},
		{"vacuous dependent schema", `{` + d7 + `"dependencies":{"foo":{"type":"string"}}}`, `{` + d7 + `"dependencies":{"foo":{"type":"number"}}}`,
			verdicts{Compatible, Compatible}, nil, nil},
		{"items array becomes prefixItems", `{` + d7 + `"items":[{"type":"string"}],"additionalItems":false}`,
			`{"prefixItems":[{"type":"string"}],"items":false}`, verdicts{Compatible, Compatible},
			map[string]Effect{"dialect-changed": Equivalent}, nil},
		{"additionalItems without a tuple has no effect", `{` + d7 + `"additionalItems":true}`, `{` + d7 + `"additionalItems":false}`,
			verdicts{Compatible, Compatible}, nil, nil},
		{"tuple grows in a closed array", `{"prefixItems":[{"type":"string"}],"items":false}`,
			`{"prefixItems":[{"type":"string"},{"type":"number"}],"items":false}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"prefix-item-added": Widen}, nil},
		{"items schema changed", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"number"}}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"type-changed": Incomparable}, nil},
		{"uniqueItems added", `{"type":"array"}`, `{"type":"array","uniqueItems":true}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"unique-items-added": Narrow}, nil},
		{"minContains raised", `{"contains":{"type":"string"},"minContains":1}`, `{"contains":{"type":"string"},"minContains":2}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"min-contains-increased": Narrow}, nil},
		{"unevaluatedItems closes an array", `{"prefixItems":[{}]}`, `{"prefixItems":[{}],"unevaluatedItems":false}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"unevaluated-items-added": Narrow}, nil},
		{"unevaluatedProperties as a closed model", `{"properties":{"a":{}},"unevaluatedProperties":false}`,
			`{"properties":{"a":{},"b":{}},"unevaluatedProperties":false}`, verdicts{Compatible, Incompatible}, nil, nil},
		{"propertyNames narrowed", `{"propertyNames":{"maxLength":3}}`, `{"propertyNames":{"maxLength":2}}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"max-length-decreased": Narrow}, nil},
		{"anyOf branch added", `{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"number"}]}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"anyOf branch removed", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, `{"anyOf":[{"type":"string"}]}`,
			verdicts{Incompatible, Compatible}, nil, nil},
		{"disjoint oneOf branch added is a union", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"type":"number"}]}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"overlapping oneOf branch added narrows", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"minLength":1}]}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"not inverts", `{"not":{"type":"integer"}}`, `{"not":{"type":"number"}}`,
			verdicts{Incompatible, Compatible}, nil, nil},
		{"if/then changed", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"if":{"required":["a"]},"then":{"required":["b","c"]}}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"required-added": Narrow}, nil},
		{"boolean schemas", `true`, `false`, verdicts{Incompatible, Compatible}, map[string]Effect{"schema-rejects-all": Narrow}, nil},
		{"empty object is true", `{}`, `{"properties":{}}`, verdicts{Compatible, Compatible}, nil, nil},
		{"definitions to $defs", `{` + d7 + `"$ref":"#/definitions/a","definitions":{"a":{"type":"string"}}}`,
			`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, verdicts{Compatible, Compatible}, nil, nil},
		{"draft-04 1.0 is not an integer", `{` + d4 + `"type":"integer"}`, `{` + d7 + `"type":"integer"}`,
			verdicts{Compatible, Incompatible}, map[string]Effect{"type-extended": Widen}, nil},
		{"recursive schema changed deep down", `{"$defs":{"n":{"type":"object","properties":{"v":{"type":"string"},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			`{"$defs":{"n":{"type":"object","properties":{"v":{"type":"number"},"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"recursive schema unchanged", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
			`{"$defs":{"m":{"type":"object","properties":{"next":{"$ref":"#/$defs/m"}}}},"$ref":"#/$defs/m"}`,
			verdicts{Compatible, Compatible}, nil, nil},
		{"required with default, pure validation", `{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"required-added": Narrow}, nil},
		{"required with default, reader-defaults policy", `{"properties":{"a":{"type":"string"}}}`,
			`{"properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"required-added": Equivalent}, &Options{RequiredWithDefault: true, SearchCandidates: 3000, SearchBudget: time.Minute}},
		// A loop of in-place applicators is undefined (jstk's validator stops with an
		// error): whichever side has it, neither direction is compatible, whatever the
		// loop's applicators, and the loop is reported.
		{"a reference loop added", `{"type":"string"}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`,
			verdicts{Unknown, Unknown}, map[string]Effect{"reference-loop": EffectUnknown}, nil},
		{"a reference loop removed", `{"allOf":[{"$ref":"#"}]}`, `{"type":"string"}`,
			verdicts{Unknown, Unknown}, map[string]Effect{"reference-loop": EffectUnknown, "type-narrowed": EffectUnknown}, nil},
		{"a loop through anyOf", `{"type":"string"}`, `{"anyOf":[{"$ref":"#"},{"type":"string"}]}`,
			verdicts{Unknown, Unknown}, map[string]Effect{"reference-loop": EffectUnknown}, nil},
		{"a loop through not, under a property", `{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"not":{"$ref":"#/properties/a"}}}}`,
			verdicts{Unknown, Unknown}, map[string]Effect{"reference-loop": EffectUnknown}, nil},
		{"a loop unchanged", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
			verdicts{Compatible, Compatible}, nil, nil},
		// the same loop under other names: the same text is what tells schemas the same
		{"a loop renamed", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{"$ref":"#/$defs/b","$defs":{"b":{"$ref":"#/$defs/b"}}}`,
			verdicts{Unknown, Unknown}, map[string]Effect{"reference-loop": EffectUnknown}, nil},
		// 0 now takes the then branch (minimum 2), where old took else: the example fails at
		// then's minimum, but the claim there, made under old's condition (only false gets
		// there), stands; the example is not held against it (it was counted as a refuted
		// claim), and explains itself as a semantic difference
		{"a condition sends an example to a proved keyword", `{"if":{"const":false},"then":{"multipleOf":2},"else":{"maximum":1}}`,
			`{"if":{"type":"number"},"then":{"minimum":2}}`,
			verdicts{Incompatible, Incompatible}, map[string]Effect{"semantic-difference": EffectUnknown}, nil},
		// jstk applies const in draft 4 (schema.Options.StrictDraft would not): the rule
		// engine reads it too (it did not, and proved the anyOf accepted everything)
		{"draft-04 const is applied", `{` + d4 + `"minimum":-5}`, `{` + d4 + `"anyOf":[{"const":-1},{"minimum":2,"exclusiveMinimum":true}]}`,
			verdicts{Incompatible, Compatible}, map[string]Effect{"any-of-added": Narrow}, nil},
		// from 2020-12 the items contains matches are evaluated: adding contains lets them
		// past unevaluatedItems (it was proved a narrowing); not in 2019-09
		{"contains lets items past unevaluatedItems", `{"unevaluatedItems":false}`, `{"unevaluatedItems":false,"contains":{"type":"string"}}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"contains and unevaluatedItems in 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","unevaluatedItems":false}`,
			`{"$schema":"https://json-schema.org/draft/2019-09/schema","unevaluatedItems":false,"contains":{"type":"string"}}`,
			verdicts{Incompatible, Compatible}, nil, nil},
		// an enum's 1 also admits 1.0, which a draft-04 integer rejects: the proof judged the
		// enum by 1 alone and said compatible; the search tries 1.0 too
		{"draft-04 enum of an integer against integer", `{` + d4 + `"enum":[1]}`, `{` + d4 + `"type":"integer"}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"draft-04 enum whose 1 fails and 1.0 passes", `{` + d4 + `"enum":[{"a":1}]}`, `{` + d4 + `"enum":[{"a":1},1],"oneOf":[{"type":"integer"},{"type":"number","minimum":1}]}`,
			verdicts{Incompatible, Incompatible}, nil, nil},
		{"draft-04 integer enum upgraded to draft-07", `{` + d4 + `"type":"integer","enum":[3,4]}`, `{` + d7 + `"type":"integer","enum":[3,4]}`,
			verdicts{Compatible, Incompatible}, nil, nil},
		{"docs level", `{"title":"a","type":"string"}`, `{"title":"b","type":"string"}`,
			verdicts{Compatible, Compatible}, map[string]Effect{"title-changed": Equivalent}, &Options{Level: "docs", SearchCandidates: 3000, SearchBudget: time.Minute}},
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
			res, err := Compare(context.Background(), old, new, opts)
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

func textOf(r *Result) string {
	var sb strings.Builder
	_ = r.WriteText(&sb)
	return sb.String()
}

func TestAssertFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		assert bool
		want   verdicts
	}{{false, verdicts{Compatible, Compatible}}, {true, verdicts{Incompatible, Compatible}}} {
		old, err := compileTextErr("old.json", `{"type":"string"}`, tc.assert)
		if err != nil {
			t.Fatal(err)
		}
		new, err := compileTextErr("new.json", `{"type":"string","format":"email"}`, tc.assert)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compare(context.Background(), old, new, quick())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, verdicts{res.Backward, res.Forward}); diff != "" {
			t.Errorf("assertFormat %v (-want +got):\n%s", tc.assert, diff)
		}
		verifyExamples(t, "format", res, old, new)
	}
}

// TestRefsAcrossFiles resolves $ref between files of a workspace, with pointers and lines
// in the referenced file.
func TestRefsAcrossFiles(t *testing.T) {
	t.Parallel()
	fsys := workspace.Memory(map[string]string{
		"old/main.json": `{"type":"object","properties":{"p":{"$ref":"defs.json#/$defs/point"}}}`,
		"old/defs.json": `{"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
		"new/main.json": `{"type":"object","properties":{"p":{"$ref":"defs.json#/$defs/point"}}}`,
		"new/defs.json": "{\"$defs\":{\"point\":{\"type\":\"object\",\n \"properties\":{\"x\":{\"type\":\"integer\"}}}}}",
	})
	comp := func(name string) *schema.Schema {
		c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
		s, err := c.Compile(schema.FileURI(fsys.Abs(name)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old, new := comp("old/main.json"), comp("new/main.json")
	res, err := Compare(context.Background(), old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != Incompatible || res.Forward != Compatible {
		t.Fatalf("got %s/%s\n%s", res.Backward, res.Forward, textOf(res))
	}
	var ch *Change
	for i := range res.Changes {
		if res.Changes[i].Kind == "type-narrowed" {
			ch = &res.Changes[i]
		}
	}
	if ch == nil {
		t.Fatalf("no type-narrowed change\n%s", textOf(res))
	}
	want := Change{Kind: "type-narrowed", OldPointer: "/$defs/point/properties/x/type", NewPointer: "/$defs/point/properties/x/type",
		Effect: Narrow, Old: Location{File: "old/defs.json", Line: 1, Column: 55}, New: Location{File: "new/defs.json", Line: 2, Column: 21},
		Path: "/p/x", Level: "validation", Breaks: []string{"backward"}, ExampleValidUnder: "old"}
	got := *ch
	got.Message, got.Example = "", nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	if string(ch.Example) != `{"p":{"x":0.5}}` {
		t.Errorf("example %s", ch.Example)
	}
}

func TestOptionsAndReport(t *testing.T) {
	t.Parallel()
	old := compileText(t, "old.json", `{"properties":{"a":{"type":"string"}}}`)
	new := compileText(t, "new.json", `{"properties":{"a":{"type":"string"}},"required":["a"]}`)
	ctx := context.Background()
	if _, err := Compare(ctx, nil, new, nil); err == nil {
		t.Error("nil schema: want an error")
	}
	for _, bad := range []*Options{{Direction: "sideways"}, {Level: "all"}} {
		if _, err := Compare(ctx, old, new, bad); err == nil {
			t.Errorf("options %+v: want an error", bad)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Compare(cctx, old, new, nil); err == nil {
		t.Error("cancelled context: want an error")
	}
	for _, tc := range []struct {
		dir     string
		verdict Verdict
		exit    int
	}{{Backward, Incompatible, 1}, {Forward, Compatible, 0}, {Full, Incompatible, 1}} {
		res, err := Compare(ctx, old, new, &Options{Direction: tc.dir, Check: true, SearchCandidates: 500, SearchBudget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.verdict || res.ExitCode() != tc.exit || res.Check == nil || res.Check.Passed != (tc.exit == 0) {
			t.Errorf("%s: verdict %s exit %d check %+v", tc.dir, res.Verdict, res.ExitCode(), res.Check)
		}
	}
	res, err := Compare(ctx, old, new, &Options{SearchBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Backward != Unknown || res.ExitCode() != 0 || res.Search.BudgetMs != 0 {
		t.Errorf("no search: %s exit %d budget %d", res.Backward, res.ExitCode(), res.Search.BudgetMs)
	}
	res, err = Compare(ctx, old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(res)
	for _, want := range []string{"backward: incompatible", "BREAKING required-added (narrow)", `property "a" is now required`,
		"new: new.json:1:51 /required/0", "example valid under OLD, rejected by NEW: {}"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	ds := res.Diagnostics()
	if len(ds) != 1 || ds[0].Code != "diff/required-added" || ds[0].Severity != "error" || ds[0].Line != 1 || ds[0].Column != 51 {
		t.Errorf("diagnostics %+v", ds)
	}
	res.Cut(1, 5)
	if len(res.Changes) != 0 || res.Page == nil || res.Page.Total != 1 {
		t.Errorf("cut: %d changes, page %+v", len(res.Changes), res.Page)
	}
	if !strings.Contains(textOf(res), "0 of 1 changes shown") {
		t.Errorf("paged text:\n%s", textOf(res))
	}
}

func TestRulesCoverEveryKind(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	if len(kinds) != len(Rules()) || len(kinds) < 100 {
		t.Fatalf("%d kinds, %d rules", len(kinds), len(Rules()))
	}
	for _, r := range Rules() {
		if r.Description == "" || !strings.HasPrefix(r.Code, "diff/") {
			t.Errorf("rule %+v", r)
		}
	}
}

// Examples that fail at the same keyword and instance location in the same direction are
// one semantic difference, shown with its first example (the search had made one change
// per example: 2 is greater than the maximum 1, then 2.0, 3, 3.0, ... 26 in all here).
func TestSemanticDifferenceOnce(t *testing.T) {
	old := compileText(t, "old.json", `{"if":{"const":false},"then":{"multipleOf":2},"else":{"maximum":1}}`)
	new := compileText(t, "new.json", `{"if":{"type":"number"},"then":{"minimum":2}}`)
	res, err := Compare(context.Background(), old, new, quick())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for _, c := range res.Changes {
		if c.Kind != "semantic-difference" {
			continue
		}
		n++
		key := fmt.Sprint(c.Breaks, c.OldPointer, c.NewPointer)
		if seen[key] {
			t.Errorf("two semantic differences breaking %v at %s / %s", c.Breaks, c.OldPointer, c.NewPointer)
		}
		seen[key] = true
	}
	if n != 2 {
		t.Errorf("%d semantic differences, want one each way\n%s", n, textOf(res))
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
