package infer_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jstk-dev/jstk/internal/infer"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func ExampleRun() {
	fsys := workspace.Memory(map[string]string{
		"orders.ndjson": `{"id": 1, "placed": "2024-05-08", "status": "paid"}
{"id": 2, "placed": "2024-05-09", "status": "paid", "note": null}
{"id": 3.5, "placed": "2024-05-10", "status": "open", "note": "late"}
`,
	})
	res, err := infer.Run(context.Background(), []infer.Source{{Name: "orders.ndjson", Path: "orders.ndjson"}}, fsys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res.WriteText(os.Stdout)
	// Output:
	// {
	//   "$schema": "https://json-schema.org/draft/2020-12/schema",
	//   "type": "object",
	//   "properties": {
	//     "id": {
	//       "type": "number"
	//     },
	//     "placed": {
	//       "type": "string",
	//       "format": "date"
	//     },
	//     "status": {
	//       "type": "string"
	//     },
	//     "note": {
	//       "type": [
	//         "string",
	//         "null"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "id",
	//     "placed",
	//     "status"
	//   ]
	// }
}
