package source_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

func ExampleParseFile() {
	src := []byte("name: jstk\nports:\n  - 8080\n  - 0x1F90\n")
	docs, err := source.ParseFile("config.yaml", src, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	doc := docs[0]
	fmt.Println(string(source.AppendJSON(nil, doc.Root)))
	line, col := doc.Locate("/ports/1")
	fmt.Printf("/ports/1 is at %s:%d:%d\n", doc.Name, line, col)
	// Output:
	// {"name":"jstk","ports":[8080,8080]}
	// /ports/1 is at config.yaml:4:5
}

func ExampleNDJSONReader() {
	input := "{\"id\":1}\n\n{\"id\":2,}\n{\"id\":3}\n"
	r := source.NewNDJSONReader("orders.ndjson", strings.NewReader(input), nil)
	for {
		doc, err := r.Next()
		if err == io.EOF {
			break
		}
		var perr *source.Error
		if errors.As(err, &perr) {
			fmt.Println("skipped:", err)
			continue
		}
		if err != nil {
			fmt.Println("stopped:", err)
			return
		}
		id, _ := doc.Root.Get("id")
		fmt.Printf("line %d: id %s\n", doc.Line, id.Str())
	}
	// Output:
	// line 1: id 1
	// skipped: orders.ndjson:3:9: unexpected character '}': expected a member name in double quotes
	// line 4: id 3
}

func ExampleDecimal_MultipleOf() {
	price := source.MustDecimal("4191.9")
	fmt.Println(price.MultipleOf(source.MustDecimal("0.01")))
	fmt.Println(price.MultipleOf(source.MustDecimal("0.2")))
	// Output:
	// true
	// false
}
