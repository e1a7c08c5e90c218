package diff

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzCompare checks the properties of Compare on arbitrary pairs of schemas: a schema
// compared with itself is compatible both ways without validation changes; every example
// separates the two schemas; no example refutes a claim of the rule engine; no instance
// sample generates refutes a compatible verdict (trySamples); the swapped comparison never
// contradicts the direct one (compatible against incompatible); the comparison with its
// work on goroutines of their own gives the same report.
func FuzzCompare(f *testing.F) {
	seeds := [][2]string{
		{`{"type":"string"}`, `{"type":["string","number"]}`},
		{`{"properties":{"a":{"type":"integer"}},"required":["a"]}`, `{"properties":{"a":{"type":"number"}}}`},
		{`{"items":{"type":"string"},"minItems":1}`, `{"prefixItems":[{"const":"x"}],"items":false}`},
		{`{"anyOf":[{"type":"string","pattern":"^a+$"},{"type":"null"}]}`, `{"oneOf":[{"type":"string"},{"enum":[null,1]}]}`},
		{`{"not":{"type":"integer"},"multipleOf":0.5}`, `{"exclusiveMaximum":3,"minimum":-1.5}`},
		{`{"$defs":{"n":{"properties":{"n":{"$ref":"#/$defs/n"},"v":{"maxLength":2}}}},"$ref":"#/$defs/n"}`,
			`{"$defs":{"n":{"properties":{"n":{"$ref":"#/$defs/n"},"v":{"maxLength":3}}}},"$ref":"#/$defs/n"}`},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"maxProperties":1}}`, `{"dependentRequired":{"a":["b"]}}`},
		{`{"patternProperties":{"^x-":{"type":"boolean"}},"additionalProperties":false}`, `{"propertyNames":{"pattern":"^x-"}}`},
		{`true`, `{"contains":{"type":"number"},"maxContains":2,"uniqueItems":true}`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":5,"exclusiveMaximum":true}`, `{"$schema":"http://json-schema.org/draft-07/schema#","exclusiveMaximum":5}`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	opts := &Options{SearchCandidates: 200, SearchBudget: time.Minute, ProofSteps: 20000}
	f.Fuzz(func(t *testing.T, a, b string) {
		old, err := compileTextErr("old.json", a, false)
		if err != nil {
			return
		}
		new, err := compileTextErr("new.json", b, false)
		if err != nil {
			return
		}
		ctx := context.Background()
		res, err := Compare(ctx, old, new, opts)
		if err != nil {
			t.Fatalf("Compare: %v", err)
		}
		verifyExamples(t, "fuzz", res, old, new)
		if _, fails := trySamples("fuzz", res, old, new, nil); len(fails) > 0 {
			t.Errorf("%s\n%s", strings.Join(fails, "\n"), textOf(res))
		}
		// the proofs and the report's locations on goroutines of their own (as for large
		// schemas) give the same report, byte for byte
		o, err := opts.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		beside, err := compare(ctx, old, new, o, true)
		if err != nil {
			t.Fatalf("compare beside: %v", err)
		}
		if x, y := jsonOf(t, res), jsonOf(t, beside); x != y {
			t.Errorf("on one goroutine and beside differ:\n%s\n%s", x, y)
		}
		if res.Search.Contradictions > 0 {
			t.Errorf("%d claims refuted by examples:\n%s", res.Search.Contradictions, textOf(res))
		}
		swapped, err := Compare(ctx, new, old, opts)
		if err != nil {
			t.Fatalf("Compare swapped: %v", err)
		}
		contradicts := func(x, y Verdict) bool {
			return (x == Compatible && y == Incompatible) || (x == Incompatible && y == Compatible)
		}
		if contradicts(res.Backward, swapped.Forward) || contradicts(res.Forward, swapped.Backward) {
			t.Errorf("swap contradicts: %s/%s vs swapped %s/%s", res.Backward, res.Forward, swapped.Backward, swapped.Forward)
		}
		again, err := compileTextErr("again.json", a, false)
		if err != nil {
			t.Fatal(err)
		}
		self, err := Compare(ctx, old, again, opts)
		if err != nil {
			t.Fatal(err)
		}
		if self.Backward != Compatible || self.Forward != Compatible {
			t.Errorf("compared with itself: %s/%s", self.Backward, self.Forward)
		}
		for _, c := range self.Changes {
			if c.Level == "validation" {
				t.Errorf("compared with itself: %s %s", c.Kind, c.Message)
			}
		}
	})
}

func jsonOf(t *testing.T, r *Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
