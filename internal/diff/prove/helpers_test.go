package prove

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// compileText compiles a schema given as JSON text, under a URI of its own.
func compileText(t testing.TB, name, text string) *schema.Schema {
	t.Helper()
	s, err := compileTextErr(name, text, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func compileTextErr(name, text string, assertFormat bool) (*schema.Schema, error) {
	doc, err := source.ParseJSON(name, []byte(text), nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(&schema.Options{Draft: schema.Draft2020, AssertFormat: assertFormat})
	uri := "file:///jstk-test/" + name
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}
