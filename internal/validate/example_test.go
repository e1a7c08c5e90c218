package validate_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Validate a file and an NDJSON stream of a workspace against a schema, and print the
// human report.
func ExampleRun() {
	fsys := workspace.Memory(map[string]string{
		"person.schema.json": `{"type": "object", "required": ["name"], "properties": {"age": {"type": "integer", "minimum": 0}}}`,
		"alice.yaml":         "name: Alice\nage: 31\n",
		"people.ndjson":      "{\"name\": \"Bob\", \"age\": -1}\n{\"age\": 7}\n",
	})
	c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
	s, err := c.Compile(schema.FileURI(fsys.Abs("person.schema.json")))
	if err != nil {
		fmt.Println(err)
		return
	}
	srcs := []validate.Source{
		{Name: "alice.yaml", Path: "alice.yaml"},
		{Name: "people.ndjson", Path: "people.ndjson"},
	}
	res, err := validate.Run(context.Background(), s, srcs, fsys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := res.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println("exit code", res.ExitCode())
	// Output:
	// people.ndjson:1:24: /age: -1 is less than the minimum 0 [minimum]
	// people.ndjson:2:1: (root): missing required property "name" [required]
	// 3 instances: 1 valid, 2 invalid
	// exit code 1
}
