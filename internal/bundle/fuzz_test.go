package bundle

import (
	"context"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// fuzzFiles is the workspace the fuzzed root schema can reference: another document, a
// draft-07 one, one with an $id and an anchor, a recursive definition.
var fuzzFiles = map[string]string{
	"a.json":  `{"type": "array", "items": {"$ref": "b.json#/$defs/x"}}`,
	"b.json":  `{"type": "object", "$defs": {"x": {"type": "string", "maxLength": 3}, "self": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/self"}}]}}}`,
	"d7.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"n": {"type": "integer", "minimum": 2}}}`,
	"c.json":  `{"$id": "https://example.com/c", "$defs": {"y": {"$anchor": "why", "enum": [1, "x"]}}}`,
}

// FuzzBundle bundles arbitrary root schemas over that workspace. Bundling never panics;
// a bundle it produces compiles where nothing else can be read and gives the original
// schema's verdict on the fuzzed instance.
func FuzzBundle(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"$ref": "a.json"}`, `["ab"]`},
		{`{"properties": {"a": {"$ref": "a.json"}, "n": {"$ref": "d7.json#/definitions/n"}}}`, `{"a": ["abcd"], "n": 1}`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"$ref": "b.json#/$defs/x"}}`, `["a", "bbbb"]`},
		{`{"$ref": "https://example.com/c#why"}`, `"x"`},
		{`{"$ref": "b.json#/$defs/self"}`, `[[null], [[]]]`},
		{`{"allOf": [{"$ref": "missing.json"}]}`, `1`},
		{`{"$defs": {"loop": {"$ref": "#/$defs/loop"}}, "anyOf": [{"$ref": "a.json"}, {"$ref": "d7.json#/definitions/n"}]}`, `3`},
		{`{"$id": "https://example.com/root", "$ref": "c.json#/$defs/y"}`, `2`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, root, inst string) {
		doc, err := schema.ParseDocument("r.json", []byte(root), nil)
		if err != nil {
			return
		}
		files := map[string]string{"r.json": root}
		for k, v := range fuzzFiles {
			files[k] = v
		}
		fsys := workspace.Memory(files)
		loader := &schema.Loader{FS: fsys, Resolve: map[string]string{"https://example.com/c": "c.json"}}
		uri := schema.FileURI(fsys.Abs("r.json"))
		orig, err := schema.NewCompiler(&schema.Options{Draft: schema.Draft2020, Loader: loader}).Compile(uri)
		if err != nil {
			return
		}
		res, err := Bundle(context.Background(), "r.json", uri, doc, &Options{Draft: schema.Draft2020, Loader: loader, Compiled: orig})
		if err != nil {
			return
		}
		bundled, _, err := standalone(res.JSON(), schema.Draft2020)
		if err != nil {
			t.Fatalf("the bundle does not compile on its own: %v\n%s", err, res.JSON())
		}
		idoc, err := source.ParseJSON("i.json", []byte(inst), nil)
		if err != nil {
			return
		}
		want, err1 := orig.Valid(idoc.Root)
		got, err2 := bundled.Valid(idoc.Root)
		if err1 == nil && err2 == nil && want != got {
			t.Fatalf("%s: valid %v under the original, %v under the bundle\n%s", inst, want, got, res.JSON())
		}
	})
}
