package sample

import (
	"context"
	"strings"
	"testing"
)

// TestTwoContains: several contains under allOf, each needing a value of its own, are
// satisfiable by an array with one item for each ([A, B]); generation once put both on one
// item and called the schema unsatisfiable.
func TestTwoContains(t *testing.T) {
	for _, text := range []string{
		`{"type": "array", "uniqueItems": true, "allOf": [{"contains": {"const": "A"}}, {"contains": {"const": "B"}}]}`,
		`{"type": "array", "allOf": [{"contains": {"const": 1}}, {"contains": {"const": 2}}, {"contains": {"const": 3}}]}`,
		`{"type": "array", "maxItems": 2, "allOf": [{"contains": {"type": "string"}}, {"contains": {"type": "null"}}]}`,
	} {
		samples(t, text, &Options{Count: 3})
	}
}

// TestUnsatisfiableProved lists hidden contradictions the prover shows: each sample
// reports unsatisfiable, with the reason.
func TestUnsatisfiableProved(t *testing.T) {
	tests := []struct {
		name, schema, reason string
	}{
		{"no integer in range", `{"type": "integer", "minimum": 1.2, "maximum": 1.8}`, "no integer lies within the bounds"},
		{"no integer, exclusive", `{"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}`, "no integer lies within the bounds"},
		{"oneOf twice the same", `{"oneOf": [{"type": "string"}, {"type": "string"}]}`, "repeats another"},
		{"not everything", `{"not": {}}`, "rejects every value"},
		{"not true", `{"not": true}`, "rejects every value"},
		{"every anyOf branch", `{"type": "string", "anyOf": [{"type": "integer"}, {"maxLength": 2, "minLength": 3}]}`, "no branch of the anyOf"},
		{"required false", `{"type": "object", "required": ["a"], "properties": {"a": false}}`, `"a"`},
		{"required member empty", `{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer", "minimum": 3, "maximum": 2}}}`, `needs the property "a"`},
		{"closed object too small", `{"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": false, "minProperties": 3}`, "only 2 are allowed"},
		{"closed tuple too short", `{"type": "array", "prefixItems": [{}, {}], "items": false, "minItems": 3}`, "at most 2"},
		{"needed item empty", `{"type": "array", "minItems": 1, "items": {"enum": [1], "type": "string"}}`, "needs an item at 0"},
		{"if both ways", `{"if": {"type": "string"}, "then": false, "else": false}`, "neither way of the if"},
		{"enum none passes", `{"enum": [1, "a"], "type": "boolean"}`, "no value of the enum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(context.Background(), compileText(t, tt.schema, nil), &Options{Attempts: 4})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil || !res.Failure.Unsatisfiable || !strings.Contains(res.Failure.Reason, tt.reason) {
				t.Errorf("failure %+v, want unsatisfiable with %q", res.Failure, tt.reason)
			}
		})
	}
}

// TestNotFoundIsNotUnsatisfiable: a schema that generation cannot satisfy but that the
// prover does not show unsatisfiable is reported as "not found", never as unsatisfiable.
// The first is unsatisfiable (two different constants in one item), the second is not
// (an array of two items), the third's pattern is beyond the generator.
func TestNotFoundIsNotUnsatisfiable(t *testing.T) {
	for _, text := range []string{
		`{"type": "array", "maxItems": 1, "allOf": [{"contains": {"const": "A"}}, {"contains": {"const": "B"}}]}`,
		`{"type": "array", "minItems": 2, "maxItems": 2, "uniqueItems": true, "items": {"enum": [1, 2]}, "allOf": [{"contains": {"const": 1}}, {"not": {"contains": {"const": 2}}}]}`,
	} {
		res, err := Generate(context.Background(), compileText(t, text, nil), &Options{Attempts: 4})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil {
			continue // found one after all: nothing claimed
		}
		if res.Failure.Unsatisfiable {
			t.Errorf("%s: claimed unsatisfiable without a proof: %s", text, res.Failure.Reason)
		}
		if res.Diagnostics()[0].Code != "sample/not-found" {
			t.Errorf("%s: diagnostic %s", text, res.Diagnostics()[0].Code)
		}
		var sb strings.Builder
		if err := res.WriteText(&sb); err != nil || !strings.Contains(sb.String(), "not shown unsatisfiable") {
			t.Errorf("%s: text %q", text, sb.String())
		}
	}
}

// TestEnumTwin: draft 4 counts 1 as an integer and 1.0 not; an enum's 1 admits 1.0, which
// a oneOf of integer and number matches once: the schema is satisfiable.
func TestEnumTwin(t *testing.T) {
	text := `{"$schema": "http://json-schema.org/draft-04/schema#", "enum": [1], "oneOf": [{"type": "integer"}, {"type": "number"}]}`
	got := samples(t, text, nil)
	if len(got) != 1 || got[0].Str() != "1.0" {
		t.Errorf("got %v, want 1.0", got)
	}
}

// TestProofNeedsCompletedChecks: the prover judges an enum's values with the validator,
// and a check that could not be completed proves nothing. With the run halted (its
// context ended or its pattern budget spent: every check fails with that error), a
// satisfiable schema is not shown unsatisfiable; nor is one whose evaluation cannot end
// (an in-place reference loop), where every check fails with an error too.
func TestProofNeedsCompletedChecks(t *testing.T) {
	t.Run("run halted", func(t *testing.T) {
		s := compileText(t, `{"enum": [1, 2], "minimum": 0}`, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		g := newGen(ctx, s, (&Options{}).withDefaults())
		g.stopOn(ctx.Err()) // as the first check of the run would
		if g.halt == nil {
			t.Fatal("the run's end did not halt the generation")
		}
		if r := g.unsatisfiable(s); r != nil {
			t.Errorf("claimed unsatisfiable with the run halted: %s", r.msg())
		}
		// the same schema, checked within a live run, is satisfiable: nothing to prove
		g = newGen(context.Background(), s, (&Options{}).withDefaults())
		if r := g.unsatisfiable(s); r != nil {
			t.Errorf("claimed unsatisfiable: %s", r.msg())
		}
		// and an enum none of whose values passes is proved so within a live run
		u := compileText(t, `{"enum": [1, 2], "minimum": 5}`, nil)
		g = newGen(context.Background(), u, (&Options{}).withDefaults())
		if r := g.unsatisfiable(u); r == nil || !strings.Contains(r.msg(), "no value of the enum") {
			t.Errorf("enum [1, 2] with minimum 5 not shown unsatisfiable: %v", r)
		}
	})
	t.Run("evaluation cannot end", func(t *testing.T) {
		s := compileText(t, `{"enum": [1], "allOf": [{"$ref": "#/$defs/loop"}], "$defs": {"loop": {"allOf": [{"$ref": "#/$defs/loop"}]}}}`, nil)
		res, err := Generate(context.Background(), s, &Options{Attempts: 4})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failure == nil {
			t.Fatalf("an instance of a schema whose evaluation loops: %s", res.Samples)
		}
		if res.Failure.Unsatisfiable {
			t.Errorf("claimed unsatisfiable without a completed check: %s", res.Failure.Reason)
		}
	})
}

// TestNestedReasonsStayShort: a proof through nested choices quotes the reason of the
// branch below, cut short: quoted whole, 1,000 nested anyOfs over an empty integer range
// made a reason of 4 MB.
func TestNestedReasonsStayShort(t *testing.T) {
	const n = 1000
	text := strings.Repeat(`{"anyOf": [`, n) + `{"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}` + strings.Repeat(`]}`, n)
	res, err := Generate(context.Background(), compileText(t, text, nil), &Options{Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || !res.Failure.Unsatisfiable {
		t.Fatalf("failure %+v, want unsatisfiable", res.Failure)
	}
	if len(res.Failure.Reason) > 1000 {
		t.Errorf("a reason of %d bytes: %.200s...", len(res.Failure.Reason), res.Failure.Reason)
	}
	if !strings.Contains(res.Failure.Reason, "no branch of the anyOf") {
		t.Errorf("reason %.300q", res.Failure.Reason)
	}
}
