package schematest_test

import (
	"context"
	"os"

	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Run a sourcemeta-format tests file against a schema kept in its own file; one test
// asserts the error an invalid instance must produce.
func ExampleRun() {
	fsys := workspace.Memory(map[string]string{
		"age.json": `{"type": "integer", "minimum": 0}`,
		"age.test.json": `{"target": "age.json", "tests": [
  {"description": "a year", "valid": true, "data": 1},
  {"description": "negative", "valid": false, "data": -1, "expect": {"keyword": "minimum"}},
  {"description": "a string", "valid": true, "data": "1"}
]}`,
	})
	res, err := schematest.Run(context.Background(), []schematest.Source{{Name: "age.test.json", Path: "age.test.json"}},
		&schematest.Options{FS: fsys})
	if err != nil {
		panic(err)
	}
	res.WriteText(os.Stdout)
	// Output:
	// age.test.json: FAIL 2/3
	//   FAIL a string (age.test.json:4:3)
	//     expected valid, but the instance is invalid: (root): value must be integer, not string
	//       age.test.json:4:54: (root): value must be integer, not string [type]
	// 3 tests in 1 file: 2 passed, 1 failed
}
