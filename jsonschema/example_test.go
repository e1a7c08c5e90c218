package jsonschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/jstk-dev/jstk/jsonschema"
)

func ExampleCompile() {
	ctx := context.Background()
	s, err := jsonschema.Compile(ctx, "https://example.com/age.json",
		[]byte(`{"type": "integer", "minimum": 0}`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	errs, _ := s.Validate(ctx, -1)
	for _, e := range errs {
		fmt.Println(e.KeywordLocation, e.Message)
	}
	// Output:
	// /minimum -1 is less than the minimum 0
}

func ExampleCompileFile() {
	dir, _ := os.MkdirTemp("", "jsonschema")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "order.json"), []byte(`{"properties": {"customer": {"$ref": "customer.json"}}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "customer.json"), []byte(`{"required": ["name"]}`), 0o644)

	ctx := context.Background()
	s, err := jsonschema.CompileFile(ctx, filepath.Join(dir, "order.json"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	errs, _ := s.Validate(ctx, map[string]any{"customer": map[string]any{}})
	fmt.Println(errs[0].InstanceLocation, errs[0].Keyword)
	// Output:
	// /customer required
}

func ExampleCompileFS() {
	fsys := fstest.MapFS{
		"schemas/pet.json": {Data: []byte(`{"type": "object", "properties": {"tag": {"$ref": "tag.json"}}}`)},
		"schemas/tag.json": {Data: []byte(`{"type": "string", "maxLength": 3}`)},
	}
	ctx := context.Background()
	s, err := jsonschema.CompileFS(ctx, fsys, "schemas/pet.json", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, _ := s.Valid(ctx, map[string]any{"tag": "toolong"})
	fmt.Println(ok)
	// Output:
	// false
}

func ExampleSchema_Validate() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "", []byte(`{"properties": {"price": {"multipleOf": 0.01}}}`), nil)
	// Decode with UseNumber: numbers are compared exactly, as written.
	dec := json.NewDecoder(strings.NewReader(`{"price": 19.99}`))
	dec.UseNumber()
	var v any
	dec.Decode(&v)
	errs, err := s.Validate(ctx, v)
	fmt.Println(len(errs), err)
	// Output:
	// 0 <nil>
}

func ExampleSchema_Valid() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "", []byte(`{"enum": ["red", "green"]}`), nil)
	ok, _ := s.Valid(ctx, "blue")
	fmt.Println(ok)
	// Output:
	// false
}

func ExampleSchema_ValidateBytes() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "", []byte(`{"items": {"type": "string"}}`), nil)
	errs, _ := s.ValidateBytes(ctx, []byte("[\n  \"a\",\n  2\n]"))
	for _, e := range errs {
		fmt.Println(e.Error())
	}
	// Output:
	// 3:3 /1: value must be string, not integer (/items/type)
}

func ExampleSchema_ValidateReader() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "", []byte(`{"required": ["id"]}`), nil)
	errs, _ := s.ValidateReader(ctx, bytes.NewReader([]byte(`{}`)))
	fmt.Println(errs[0].Line, errs[0].Column, errs[0].Keyword)
	// Output:
	// 1 1 required
}

func ExampleOptions() {
	ctx := context.Background()
	opts := &jsonschema.Options{
		Draft:        jsonschema.Draft7,
		AssertFormat: true,
		Resources: map[string][]byte{
			"https://example.com/defs.json": []byte(`{"definitions": {"email": {"format": "email"}}}`),
		},
	}
	s, err := jsonschema.Compile(ctx, "https://example.com/user.json",
		[]byte(`{"properties": {"mail": {"$ref": "defs.json#/definitions/email"}}}`), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, _ := s.Valid(ctx, map[string]any{"mail": "not an address"})
	fmt.Println(ok)
	// Output:
	// false
}

func ExampleSetMaxEvalDepth() {
	fmt.Println(jsonschema.SetMaxEvalDepth(10) != nil)
	// Output:
	// true
}

func ExampleSchema_Annotate() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "", []byte(`{
		"properties": {"name": {"title": "Name", "default": "anonymous"}},
		"deprecated": true
	}`), nil)
	anns, errs, _ := s.Annotate(ctx, map[string]any{"name": "Ada"})
	fmt.Println(len(errs), "errors")
	for _, a := range anns {
		fmt.Printf("%q %s %s\n", a.InstanceLocation, a.Keyword, a.Value)
	}
	// Output:
	// 0 errors
	// "/name" title "Name"
	// "/name" default "anonymous"
	// "" properties ["name"]
	// "" deprecated true
}

func ExampleSchema_Output() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "https://example.com/port.json",
		[]byte(`{"type": "integer", "maximum": 65535}`), nil)
	out, _ := s.Output(ctx, 70000, jsonschema.Basic)
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	out, _ = s.Output(ctx, 80, jsonschema.Flag)
	b, _ = json.Marshal(out)
	fmt.Println(string(b))
	// Output:
	// {"valid":false,"keywordLocation":"","absoluteKeywordLocation":"https://example.com/port.json#","instanceLocation":"","errors":[{"valid":false,"keywordLocation":"/maximum","absoluteKeywordLocation":"https://example.com/port.json#/maximum","instanceLocation":"","error":"70000 is greater than the maximum 65535"}]}
	// {"valid":true}
}

func ExampleSchema_OutputBytes() {
	ctx := context.Background()
	s, _ := jsonschema.Compile(ctx, "https://example.com/tags.json",
		[]byte(`{"items": {"type": "string"}}`), nil)
	out, _ := s.OutputBytes(ctx, []byte(`["a", 2]`), jsonschema.Detailed)
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "valid": false,
	//   "keywordLocation": "",
	//   "absoluteKeywordLocation": "https://example.com/tags.json#",
	//   "instanceLocation": "",
	//   "errors": [
	//     {
	//       "valid": false,
	//       "keywordLocation": "/items/type",
	//       "absoluteKeywordLocation": "https://example.com/tags.json#/items/type",
	//       "instanceLocation": "/1",
	//       "error": "value must be string, not integer"
	//     }
	//   ]
	// }
}

func ExampleOptions_formats() {
	ctx := context.Background()
	opts := &jsonschema.Options{Formats: map[string]func(any) error{
		"sku": func(v any) error {
			if s, ok := v.(string); ok && !strings.HasPrefix(s, "SKU-") {
				return fmt.Errorf("does not start with SKU-")
			}
			return nil
		},
	}}
	s, _ := jsonschema.Compile(ctx, "", []byte(`{"format": "sku"}`), opts)
	errs, _ := s.Validate(ctx, "X-1")
	fmt.Println(errs[0].Message)
	// Output:
	// "X-1" is not a valid sku: does not start with SKU-
}
