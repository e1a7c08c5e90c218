package tools

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/workspace"
)

var bundleFiles = map[string]string{
	"root.json":  `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "dep.json"}, "b": {"$ref": "https://example.com/s/x.json"}}}`,
	"dep.json":   `{"type": "integer"}`,
	"sub/x.json": `{"type": "string"}`,
	"bad.json":   `{"$ref": "missing.json"}`,
	"yaml.yaml":  "$schema: https://json-schema.org/draft/2020-12/schema\n$ref: dep.json\n",
}

func bundleEnv() *Env {
	return &Env{FS: workspace.Memory(bundleFiles), Resolve: map[string]string{"https://example.com/s/": "sub/"}}
}

func TestBundleTool(t *testing.T) {
	env := bundleEnv()
	r, err := runBundle(context.Background(), env, &BundleInput{Schema: PathDoc("root.json")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "properties": {
    "a": {
      "$ref": "#/definitions/dep.json"
    },
    "b": {
      "$ref": "#/definitions/https:~1~1example.com~1s~1x.json"
    }
  },
  "definitions": {
    "dep.json": {
      "type": "integer"
    },
    "https://example.com/s/x.json": {
      "type": "string"
    }
  }
}
`
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("-want +got:\n%s", diff)
	}
	if r.Mode != "inline" || len(r.Embedded) != 2 || r.ExitCode() != 0 || len(r.Diagnostics()) != 0 || r.OutputFiles() != nil {
		t.Errorf("result: %+v", r)
	}
	buf.Reset()
	if err := r.WriteFormat(&buf, "yaml"); err != nil || !strings.Contains(buf.String(), "$ref: '#/definitions/dep.json'") {
		t.Errorf("yaml: %v\n%s", err, buf.String())
	}

	// -o: the file, in the format its name says; nothing on standard output.
	r, err = runBundle(context.Background(), env, &BundleInput{Schema: PathDoc("yaml.yaml"), Output: "out.yaml", Draft: "2020-12"})
	if err != nil {
		t.Fatal(err)
	}
	files := r.OutputFiles()
	if len(files) != 1 || files[0].Path != "out.yaml" || !strings.Contains(string(files[0].Data), "$defs:") {
		t.Errorf("output files: %+v", files)
	}
	buf.Reset()
	r.WriteText(&buf)
	r.WriteFormat(&buf, "yaml")
	if buf.Len() != 0 {
		t.Errorf("with -o, standard output stays empty: %q", buf.String())
	}

	// Inline schemas, and what cannot run.
	if _, err := runBundle(context.Background(), env, &BundleInput{Schema: Doc{Text: `{"$ref": "dep.json"}`}}); err != nil {
		t.Errorf("inline schema: %v", err)
	}
	for _, in := range []*BundleInput{
		{Schema: PathDoc("bad.json")},
		{Schema: PathDoc("nope.json")},
		{Schema: Doc{}},
		{Schema: PathDoc("root.json"), Draft: "5"},
		{Schema: Doc{Text: `{"type": `}},
		{Schema: Doc{Text: `{"minLength": -1}`}},
	} {
		if _, err := runBundle(context.Background(), env, in); err == nil {
			t.Errorf("%+v: want an error", in)
		}
	}
}

func TestBundleOverMCP(t *testing.T) {
	p := NewProvider(bundleEnv(), All())
	d, _ := Lookup("bundle")
	if strings.Contains(string(d.InputSchema()), `"output"`) {
		t.Error("output is a CLI-only argument")
	}
	res := call(t, p, "bundle", `{"schema": {"path": "root.json"}}`)
	if res.IsError {
		t.Fatalf("bundle failed: %+v", res.Content)
	}
	conforms(t, d, res.StructuredContent)
	if res := call(t, p, "bundle", `{"schema": {"path": "bad.json"}}`); !res.IsError {
		t.Error("an unresolvable reference is an error")
	}
}
