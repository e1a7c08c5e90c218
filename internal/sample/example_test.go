package sample_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jstk-dev/jstk/internal/sample"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

func ExampleGenerate() {
	text := `{
		"type": "object",
		"properties": {
			"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
			"price": {"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.25}
		},
		"required": ["sku", "price"],
		"additionalProperties": false
	}`
	doc, _ := source.ParseJSON("item.json", []byte(text), nil)
	c := schema.NewCompiler(nil)
	c.AddDocument("file:///item.json", doc)
	s, err := c.Compile("file:///item.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sample.Generate(context.Background(), s, &sample.Options{Count: 3, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Three instances, one per line (NDJSON); the same seed gives the same lines.
	res.WriteText(os.Stdout)
	for _, v := range res.Values() {
		ok, _ := s.Valid(v)
		fmt.Println(ok)
	}
	// Output:
	// {"sku":"YDC-9936","price":5}
	// {"sku":"HGZ-6020","price":10}
	// {"sku":"ULX-2806","price":1}
	// true
	// true
	// true
}

func ExampleGenerate_unsatisfiable() {
	doc, _ := source.ParseJSON("s.json", []byte(`{"allOf": [{"type": "string"}, {"type": "integer"}]}`), nil)
	c := schema.NewCompiler(nil)
	c.AddDocument("file:///s.json", doc)
	s, _ := c.Compile("file:///s.json")
	res, _ := sample.Generate(context.Background(), s, nil)
	fmt.Println(len(res.Samples), res.Failure.Unsatisfiable)
	fmt.Println(res.Failure.Reason)
	// Output:
	// 0 true
	// no type satisfies every schema here: [string] at file:///s.json#/allOf/0 and [integer] at file:///s.json#/allOf/1
}
