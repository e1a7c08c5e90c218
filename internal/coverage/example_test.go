package coverage_test

import (
	"context"
	"os"

	"github.com/jstk-dev/jstk/internal/coverage"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Measure what two plain instances exercise in a schema: the summary, then the entries
// with something missing.
func ExampleMeasure() {
	fsys := workspace.Memory(map[string]string{
		"size.json": `{"enum": ["S", "M", "L"], "$defs": {"unused": {}}}`,
		"a.json":    `"S"`,
		"b.json":    `"XL"`,
	})
	c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
	s, err := c.Compile(schema.FileURI(fsys.Abs("size.json")))
	if err != nil {
		panic(err)
	}
	res, err := coverage.Measure(context.Background(), s,
		[]coverage.Source{{Name: "a.json", Path: "a.json"}, {Name: "b.json", Path: "b.json"}}, &coverage.Options{Options: schematest.Options{FS: fsys}})
	if err != nil {
		panic(err)
	}
	res.WriteText(os.Stdout)
	// Output:
	// size.json: coverage by 2 instances (1 valid, 1 invalid)
	//   subschemas  1/2   50.00%
	//   keywords    1/1  100.00%
	//   outcomes    2/2  100.00%
	//   values      1/3   33.33%
	//
	// LOCATION        POINTER        KEYWORD   HITS  MISSING
	// size.json:1:2   #              enum         2  "M", "L"
	// size.json:1:47  /$defs/unused  (schema)     0  reached (dead: nothing references it)
	// (1 entry fully covered, not listed; --all lists every entry)
}
