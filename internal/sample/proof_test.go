package sample

import (
	"context"
	"fmt"
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

// TestProofReasons: a proof's reason reads as a chain from the claim to its cause. A run of
// alike steps is told once (1,000 nested anyOfs made a reason of 4 MB, one sentence 1,000
// times), long chains keep their first and last steps (the cause is always told), long
// locations are shortened, and each way of an if is told in parentheses.
func TestProofReasons(t *testing.T) {
	nest := func(n int, open, leaf, close string) string {
		return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
	}
	emptyInt := `{"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}`
	cases := []struct {
		name, schema string
		want         []string // in this order
		not          []string
		max          int // bytes
	}{
		{name: "one anyOf", schema: `{"anyOf": [` + emptyInt + `]}`,
			want: []string{"no branch of the anyOf at file:///s.json# can be satisfied; in its first branch, no integer lies within the bounds here (above 1, below 2)"},
			not:  []string{"nested"}},
		{name: "1,000 nested anyOfs", schema: nest(1000, `{"anyOf": [`, emptyInt, `]}`),
			want: []string{"no branch of the anyOf at file:///s.json# can be satisfied (and so for the 999 anyOfs nested below it, down to the one at file:///s.json#/anyOf/0/anyOf/0",
				"...", "/anyOf/0/anyOf/0); in its first branch, no integer lies within the bounds here (above 1, below 2)"},
			max: 500},
		{name: "members, items, types", schema: `{"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "minItems": 1,
			"items": {"type": ["string", "integer"], "minLength": 3, "maxLength": 2, "minimum": 5, "maximum": 4}}}}`,
			want: []string{`no object fits: it needs the property "a"; and at /a, no array fits: it needs an item at 0; and at /a/0, ` +
				`no value of any type the schema allows here (integer or string) fits; for type integer, no number is in range`}},
		{name: "both ways of an if", schema: `{"if": {"type": "string"}, "then": {"minLength": 3, "maxLength": 1}, "else": {"not": {}}}`,
			want: []string{"neither way of the if at file:///s.json# can be satisfied (with if and then, no string fits: minLength 3 is greater than maxLength 1; " +
				"with else, the not at file:///s.json#/else/not rejects every value (its schema accepts everything))"}},
		{name: "ifs nested both ways", schema: nest(8, `{"if": {"type": "string"}, "then": `, `{"type": "string", "minLength": 3, "maxLength": 2}`,
			`, "else": {"type": "string", "minLength": 3, "maxLength": 2}}`),
			want: []string{"neither way of the if at file:///s.json# can be satisfied (with if and then, neither way of the if at file:///s.json#/then can be satisfied (",
				"(why, for each way, is left out)"},
			max: 2000},
		{name: "alternating steps keep the first and the last", schema: func() string {
			s := `{"type": "integer", "minimum": 3, "maximum": 2}`
			for i := range 10 {
				s = fmt.Sprintf(`{"type": "object", "required": ["p%d"], "properties": {"p%d": {"anyOf": [%s]}}}`, i, i, s)
			}
			return s
		}(),
			want: []string{`no object fits: it needs the property "p9"; and at /p9, no branch of the anyOf at file:///s.json#/properties/p9 can be satisfied`,
				"(15 steps of the proof are left out)", `and at /p9/p8/p7/p6/p5/p4/p3/p2/p1/p0, no branch of the anyOf at file:///s.json#/properties/p9/anyOf/0/properties/p8/`,
				"...", "in its first branch, no number is in range: the lower bound 3 (at file:///s.json#/properties/p9/anyOf/0/properties/p8/"},
			max: 1200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Generate(context.Background(), compileText(t, c.schema, nil), &Options{Attempts: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failure == nil || !res.Failure.Unsatisfiable {
				t.Fatalf("failure %+v, want unsatisfiable", res.Failure)
			}
			got := res.Failure.Reason
			rest := got
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("reason lacks (in order) %q:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("reason has %q:\n%s", w, got)
				}
			}
			if c.max > 0 && len(got) > c.max {
				t.Errorf("a reason of %d bytes (at most %d): %s", len(got), c.max, got)
			}
		})
	}
}
