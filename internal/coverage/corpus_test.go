package coverage

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The coverage of every SchemaStore schema by its own instances (src/test/<name>/* as
// valid tests, src/negative_test/<name>/* as invalid ones; format asserted and the skip
// list of src/schema-validation.json honoured, as in internal/validate's SchemaStore
// test). The distribution per kind (median, quartiles) and the ten schemas least covered
// go to testdata/schemastore-stats.txt. Under the race detector every fourth schema is
// measured (and checked the same way), and the stats file is not compared.

var schemastoreResolve = corpora.SchemaStoreResolve

type storeSchema struct {
	name               string
	schema             string
	positive, negative []string
}

func schemastoreSchemas(t testing.TB, dir string, fsys workspace.FS) []storeSchema {
	var out []storeSchema
	for _, s := range corpora.SchemaStoreSchemas(t, dir, fsys) {
		out = append(out, storeSchema{name: s.Name, schema: s.Schema, positive: s.Positive, negative: s.Negative})
	}
	return out
}

// testsFile writes the schema's instances as a sourcemeta tests file.
func (s *storeSchema) testsFile() []byte {
	type test struct {
		Valid    bool   `json:"valid"`
		DataPath string `json:"dataPath"`
	}
	doc := struct {
		Target string `json:"target"`
		Tests  []test `json:"tests"`
	}{Target: s.schema}
	for _, f := range s.positive {
		doc.Tests = append(doc.Tests, test{true, f})
	}
	for _, f := range s.negative {
		doc.Tests = append(doc.Tests, test{false, f})
	}
	b, _ := json.Marshal(doc)
	return b
}

type measured struct {
	name string
	pct  [4]float64
}

func TestSchemaStoreCoverage(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	schemas := schemastoreSchemas(t, dir, fsys)
	loader := &schema.Loader{FS: fsys, Resolve: schemastoreResolve}
	var results []measured
	problems := 0
	for i, s := range schemas {
		if raceEnabled && i%4 != 0 {
			continue
		}
		c := schema.NewCompiler(&schema.Options{AssertFormat: true, Loader: loader})
		sch, err := c.Compile(schema.FileURI(fsys.Abs(s.schema)))
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		res, err := Measure(context.Background(), sch, []Source{{Name: s.name + ".tests.json", Text: s.testsFile()}},
			&Options{Options: schematest.Options{FS: fsys, Loader: loader, Resolve: schemastoreResolve, AssertFormat: true}})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		problems += len(res.Problems)
		if got := res.Inputs.Tests + len(res.Problems); got != len(s.positive)+len(s.negative) {
			t.Errorf("%s: %d tests measured, want %d", s.name, got, len(s.positive)+len(s.negative))
		}
		m := measured{name: s.name}
		for k, kind := range Kinds {
			r := res.Summary.of(kind)
			if r.Covered > r.Total || r.Total == 0 && kind == Subschemas {
				t.Errorf("%s: %s %d/%d", s.name, kind, r.Covered, r.Total)
			}
			m.pct[k] = percent(r.Covered, r.Total)
		}
		// Every valid instance reaches the root: at least one subschema is covered.
		if res.Inputs.Valid > 0 && res.Summary.Subschemas.Covered == 0 {
			t.Errorf("%s: nothing reached", s.name)
		}
		results = append(results, m)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Coverage of each SchemaStore schema by its own instances (go test ./internal/coverage -run TestSchemaStoreCoverage; JSTK_UPDATE=1 rewrites)\n")
	fmt.Fprintf(&sb, "schemas measured: %d; inputs that could not be used: %d\n\n", len(results), problems)
	fmt.Fprintf(&sb, "%-11s %7s %7s %7s %7s %7s\n", "kind", "min", "p25", "median", "p75", "max")
	for k, kind := range Kinds {
		vals := make([]float64, len(results))
		for i, r := range results {
			vals[i] = r.pct[k]
		}
		sort.Float64s(vals)
		q := func(p float64) float64 { return vals[int(p*float64(len(vals)-1)+0.5)] }
		fmt.Fprintf(&sb, "%-11s %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", kind, vals[0], q(0.25), q(0.5), q(0.75), vals[len(vals)-1])
	}
	// The ten least covered, by the mean of the four kinds.
	sort.SliceStable(results, func(i, j int) bool { return mean(results[i].pct) < mean(results[j].pct) })
	fmt.Fprintf(&sb, "\nleast covered (mean of the four kinds): subschemas keywords outcomes values\n")
	for _, r := range results[:min(10, len(results))] {
		fmt.Fprintf(&sb, "  %-44s %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", r.name, r.pct[0], r.pct[1], r.pct[2], r.pct[3])
	}
	t.Log("\n" + sb.String())
	if !raceEnabled {
		golden.Check(t, "testdata/schemastore-stats.txt", sb.String())
	}
}

func mean(p [4]float64) float64 { return (p[0] + p[1] + p[2] + p[3]) / 4 }
