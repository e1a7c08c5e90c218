package bundle

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// BenchmarkBundle bundles a schema that references two documents, one of them twice.
func BenchmarkBundle(b *testing.B) {
	files := map[string]string{
		"r.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
  "properties": {"a": {"$ref": "a.json"}, "b": {"$ref": "b.json#/$defs/x"}, "c": {"$ref": "b.json"}}}`,
		"a.json": `{"type": "array", "items": {"$ref": "b.json#/$defs/x"}}`,
		"b.json": `{"type": "object", "$defs": {"x": {"type": "string", "maxLength": 9}}}`,
	}
	fsys := workspace.Memory(files)
	loader := &schema.Loader{FS: fsys}
	doc, err := schema.ParseDocument("r.json", []byte(files["r.json"]), nil)
	if err != nil {
		b.Fatal(err)
	}
	uri := schema.FileURI(fsys.Abs("r.json"))
	for b.Loop() {
		if _, err := Bundle(context.Background(), "r.json", uri, doc, &Options{Loader: loader}); err != nil {
			b.Fatal(err)
		}
	}
}
