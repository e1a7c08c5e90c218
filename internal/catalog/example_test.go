package catalog_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func ExampleScan() {
	fsys := workspace.Memory(map[string]string{
		"order.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$id": "https://example.com/order.json", "title": "Order",
			"properties": {"customer": {"$ref": "customer.json"}}}`,
		"customer.json": `{"$id": "https://example.com/customer.json", "type": "object"}`,
		"data.json":     `{"$schema": "https://example.com/order.json", "customer": {}}`,
	})
	w, err := catalog.Scan(context.Background(), fsys, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	list, _ := w.List(catalog.Query{})
	if err := list.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	c := w.Context("https://example.com/customer.json", catalog.ContextLimits{})
	fmt.Println(c.Found, c.ReferencedBy[0].From)
	c = w.Context("https://example.com/custom.json", catalog.ContextLimits{})
	fmt.Println(c.Found, c.Candidates[0].ID, c.ExitCode())
	// Output:
	// 2 schemas (0 invalid, 0 not compiling) in 3 files read
	// customer.json: https://example.com/customer.json [2020-12, 0 properties, 0 defs, referenced by 1]
	// order.schema.json: https://example.com/order.json [2020-12, 1 property, 0 defs]
	//     Order
	//     refers to https://example.com/customer.json
	// true https://example.com/order.json
	// false https://example.com/customer.json 2
}
