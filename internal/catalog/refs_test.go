package catalog

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var refFiles = map[string]string{
	"r/a.json": `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://x.test/a.json",
  "$defs": {
    "e": {"$id": "https://x.test/embedded.json", "$defs": {"k": {"$anchor": "kay", "type": "string"}}},
    "d": {"$dynamicAnchor": "node"},
    "arr": {"prefixItems": [{"$ref": "#/$defs/d"}], "items": {"$ref": "embedded.json#kay"}},
    "dyn": {"$dynamicRef": "#node"},
    "self": {"$ref": "a.json"},
    "sub": {"$id": "sub/", "$ref": "b.json"},
    "a/b": {"$ref": "#/$defs/a~1b"},
    "with space": {"$ref": "#/$defs/with%20space"},
    "fileuri": {"$ref": "file:///ws/r/c.json#/definitions/x"},
    "outside": {"$ref": "file:///etc/passwd"},
    "hidden": {"$ref": "file:///ws/.x/h.json"},
    "array": {"$ref": "file:///ws/arr.json"},
    "unparsable": {"$ref": "file:///ws/broken.json"},
    "baduri": {"$ref": "http://[::1"},
    "mapped-missing": {"$ref": "https://x.test/missing/y.json"},
    "meta": {"$ref": "http://json-schema.org/draft-07/schema#/definitions/nonNegativeInteger"},
    "nothing": {"$ref": "urn:example:nothing"}
  }
}`,
	"r/b.json": `{
  "$schema": "https://json-schema.org/draft/2019-09/schema",
  "$recursiveAnchor": true,
  "items": [{"$recursiveRef": "#"}],
  "additionalItems": {"$ref": "https://x.test/a.json#/$defs/d"},
  "dependentSchemas": {"p": {"$ref": "#"}}
}`,
	"r/c.json": `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "dependencies": {"a": ["b"], "c": {"$ref": "#/definitions/x"}},
  "definitions": {
    "x": {"$id": "#frag"},
    "y": {"$ref": "#frag", "properties": {"p": {"$ref": "#/definitions/ignored"}}}
  },
  "items": {"$ref": "#/definitions/x"}
}`,
	".x/h.json":   `{"type": "string"}`,
	"arr.json":    `[1, 2]`,
	"broken.json": `{"a": `,
}

var refResolve = map[string]string{"https://x.test/sub/": "r/", "https://x.test/missing/": "nope/"}

func TestReferences(t *testing.T) {
	t.Parallel()
	w := scanFiles(t, refFiles, &Options{Resolve: refResolve})
	type result struct {
		Path, Pointer  string
		Local, Builtin bool
		ID             string
		Unresolved     string
	}
	want := map[string]result{
		"r/a.json /$defs/arr/prefixItems/0/$ref": {Path: "r/a.json", Pointer: "/$defs/d", Local: true},
		"r/a.json /$defs/arr/items/$ref":         {Path: "r/a.json", Pointer: "/$defs/e/$defs/k", Local: true},
		"r/a.json /$defs/dyn/$dynamicRef":        {Path: "r/a.json", Pointer: "/$defs/d", Local: true},
		"r/a.json /$defs/self/$ref":              {Path: "r/a.json", Local: true},
		"r/a.json /$defs/sub/$ref":               {Path: "r/b.json", ID: "r/b.json"},
		"r/a.json /$defs/a~1b/$ref":              {Path: "r/a.json", Pointer: "/$defs/a~1b", Local: true},
		"r/a.json /$defs/with space/$ref":        {Path: "r/a.json", Pointer: "/$defs/with space", Local: true},
		"r/a.json /$defs/fileuri/$ref":           {Path: "r/c.json", Pointer: "/definitions/x", ID: "r/c.json"},
		"r/a.json /$defs/outside/$ref":           {Unresolved: "the file is outside the workspace"},
		"r/a.json /$defs/hidden/$ref":            {Path: ".x/h.json"},
		"r/a.json /$defs/array/$ref":             {Unresolved: "arr.json is not a schema: its root is an array"},
		"r/a.json /$defs/unparsable/$ref":        {Unresolved: "broken.json is not a schema: it cannot be parsed: 1:7: unexpected end of input: expected a value"},
		"r/a.json /$defs/baduri/$ref":            {Unresolved: `invalid URI reference "http://[::1": parse "http://[::1": missing ']' in host`},
		"r/a.json /$defs/mapped-missing/$ref":    {Unresolved: "the resolve map sends https://x.test/missing/y.json to nope/y.json, which does not exist"},
		"r/a.json /$defs/meta/$ref":              {Builtin: true, Pointer: "/definitions/nonNegativeInteger"},
		"r/a.json /$defs/nothing/$ref":           {Unresolved: "no resolve mapping covers urn:example:nothing, it is not a built-in meta-schema, and no file of the workspace has this $id"},
		"r/b.json /items/0/$recursiveRef":        {Path: "r/b.json", Local: true},
		"r/b.json /additionalItems/$ref":         {Path: "r/a.json", Pointer: "/$defs/d", ID: "https://x.test/a.json"},
		"r/b.json /dependentSchemas/p/$ref":      {Path: "r/b.json", Local: true},
		"r/c.json /dependencies/c/$ref":          {Path: "r/c.json", Pointer: "/definitions/x", Local: true},
		"r/c.json /definitions/y/$ref":           {Path: "r/c.json", Pointer: "/definitions/x", Local: true},
		"r/c.json /items/$ref":                   {Path: "r/c.json", Pointer: "/definitions/x", Local: true},
	}
	got := map[string]result{}
	for _, s := range w.schemas {
		for _, r := range s.refs {
			res := result{Unresolved: r.Unresolved}
			res.Unresolved, _, _ = strings.Cut(res.Unresolved, "; map it")
			if tg := r.Target; tg != nil {
				res = result{Path: tg.Path, Pointer: tg.Pointer, Local: tg.Local, Builtin: tg.Builtin, ID: tg.ID}
			}
			got[s.file.path+" "+r.Pointer] = res
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	if d := detected(w); d["r/c.json"] != "$schema" || d[".x/h.json"] != "" {
		t.Errorf("detected %v", d)
	}
}

func TestWhyNot(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"big.json":       `{"$schema": "https://json-schema.org/draft/2020-12/schema", "description": "` + strings.Repeat("x", 100) + `"}`,
		"bad.json":       `{"a": `,
		"arr.yaml":       "- 1\n",
		"true.json":      "true",
		"z/late.json":    `{}`,
		"ok.schema.json": `{}`,
	}
	w := scanFiles(t, files, &Options{MaxFileSize: 100, MaxFiles: 4})
	l, err := w.List(Query{Paths: []string{"big.json", "bad.json", "arr.yaml", "true.json", "z/late.json", "ok.schema.json"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"big.json: not in the catalog: not read: larger than the limit of 100 bytes",
		"bad.json: not in the catalog: it cannot be parsed: 1:7: unexpected end of input: expected a value",
		"arr.yaml: not in the catalog: its root is an array",
		"true.json: not in the catalog: it has no $schema naming a JSON Schema dialect, its name does not end in " +
			".schema.json/.yaml/.yml, it is not made of schema keywords, and no schema refers to it",
		"z/late.json: not in the catalog: not read (the scan was cut, or the file is new)",
	}
	if diff := cmp.Diff(want, l.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	for in, want := range map[string]string{"a/b~c": "a~1b~0c", "plain": "plain"} {
		if got := escapeToken(in); got != want {
			t.Errorf("escapeToken(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"  A  short\n title ":       "A short title",
		strings.Repeat("word ", 50): strings.TrimSpace(strings.Repeat("word ", 31)) + "…",
	} {
		if got := oneLine(in, 160); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := shortDescription("First sentence here. Second one."); got != "First sentence here." {
		t.Errorf("shortDescription: %q", got)
	}
}
