package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/schema"
)

// Properties that must hold for any pair of schemas, checked over the schemas of the compat
// corpus and a sample of schema-pairs:
//   - a schema compared with a separately compiled copy of itself has no validation change
//     and is compatible both ways;
//   - swapping OLD and NEW swaps the backward and forward verdicts;
//   - every example is valid under the side it names and invalid under the other
//     (verifyExamples), and no example refutes a widen or equivalent claim.

func checkSelf(t *testing.T, id string, a1, a2 *schema.Schema) {
	t.Helper()
	res, err := Compare(context.Background(), a1, a2, &Options{SearchCandidates: 200, SearchBudget: 60e9})
	if err != nil {
		t.Errorf("%s: %v", id, err)
		return
	}
	if res.Backward != Compatible || res.Forward != Compatible {
		t.Errorf("%s: compared with itself: backward %s, forward %s\n%s", id, res.Backward, res.Forward, textOf(res))
	}
	for _, c := range res.Changes {
		if c.Level == "validation" {
			t.Errorf("%s: compared with itself: change %s: %s", id, c.Kind, c.Message)
		}
	}
}

func checkSwap(t *testing.T, id string, old, new *schema.Schema, opts *Options) {
	t.Helper()
	ab, err1 := Compare(context.Background(), old, new, opts)
	ba, err2 := Compare(context.Background(), new, old, opts)
	if err1 != nil || err2 != nil {
		t.Errorf("%s: %v %v", id, err1, err2)
		return
	}
	if ab.Backward != ba.Forward || ab.Forward != ba.Backward {
		t.Errorf("%s: old→new backward %s forward %s, but new→old backward %s forward %s", id, ab.Backward, ab.Forward, ba.Backward, ba.Forward)
	}
	verifyExamples(t, id+" (swapped)", ba, new, old)
}

func TestPropertiesCompat(t *testing.T) {
	dir := corpora.Dir(t, "compat")
	for _, f := range []string{"confluent-cases.json", "sentry-cases.json", "oasdiff-cases.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var cases []compatCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			for side, raw := range map[string]json.RawMessage{"old": c.Original, "new": c.Update} {
				a1, err1 := compileCase(c.ID+"/"+side+"1.json", raw, c.Dialect, false)
				a2, err2 := compileCase(c.ID+"/"+side+"2.json", raw, c.Dialect, false)
				if err1 != nil || err2 != nil {
					continue
				}
				checkSelf(t, c.ID+" "+side, a1, a2)
			}
			old, err1 := compileCase(c.ID+"/old.json", c.Original, c.Dialect, false)
			new, err2 := compileCase(c.ID+"/new.json", c.Update, c.Dialect, false)
			if err1 == nil && err2 == nil {
				checkSwap(t, c.ID, old, new, compatOptions())
			}
		}
	}
}

func TestPropertiesPairs(t *testing.T) {
	fsys, loader := pairsLoader(t)
	names := pairNames(t)
	step := propertyPairStep
	for i := 0; i < len(names); i += step {
		name := names[i]
		old, new, err := compilePair(fsys, loader, name)
		if err != nil {
			continue
		}
		old2, new2, _ := compilePair(fsys, loader, name)
		checkSelf(t, name+" old", old, old2)
		checkSelf(t, name+" new", new, new2)
		checkSwap(t, name, old, new, pairOptions())
	}
}

func ExampleCompare() {
	compile := func(text string) *schema.Schema {
		s, err := compileTextErr("example.json", text, false)
		if err != nil {
			panic(err)
		}
		return s
	}
	old := compile(`{"type": "object", "properties": {"name": {"type": "string"}}}`)
	new := compile(`{"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}`)
	res, err := Compare(context.Background(), old, new, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("backward:", res.Backward)
	fmt.Println("forward:", res.Forward)
	for _, c := range res.Changes {
		fmt.Printf("%s (%s) at %s: %s; example %s\n", c.Kind, c.Effect, c.NewPointer, c.Message, c.Example)
	}
	// Output:
	// backward: incompatible
	// forward: compatible
	// required-added (narrow) at /required/0: property "name" is now required; example {}
}
