package jsonschema

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/store"
)

var bg = context.Background()

func mustCompile(t *testing.T, schema string, opts *Options) *Schema {
	t.Helper()
	s, err := Compile(bg, "https://jstk.test/s.json", []byte(schema), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name, schema string
		opts         *Options
		want         string
	}{
		{"not json", `{"type": `, nil, ""},
		{"meta-schema", `{"type": 12}`, nil, "type"},
		{"unresolved", `{"$ref": "other.json"}`, nil, "other.json"},
		{"bad draft", `{}`, &Options{Draft: "draft-99"}, "unknown draft"},
		{"bad resource", `{"$ref": "https://x.test/a.json"}`, &Options{Resources: map[string][]byte{"https://x.test/a.json": []byte(`{`)}}, "a.json"},
		{"invalid resource", `{"$ref": "https://x.test/a.json#"}`, &Options{Resources: map[string][]byte{"https://x.test/a.json": []byte(`{"minimum": "x"}`)}}, "minimum"},
		{"too deep", `[[[[[[]]]]]]`, &Options{MaxDocumentDepth: 3}, ""},
	}
	for _, c := range cases {
		_, err := Compile(bg, "https://jstk.test/s.json", []byte(c.schema), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	_, err := Compile(bg, "", []byte(`{"type": `), nil)
	var se *SchemaError
	if !errors.As(err, &se) || se.Line != 1 || se.Unwrap() == nil {
		t.Errorf("syntax error: got %#v", err)
	}
	_, err = Compile(bg, "", []byte("{\n \"minLength\": -1}"), nil)
	if !errors.As(err, &se) || se.URI == "" {
		t.Errorf("meta-schema error: got %#v", err)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := Compile(ctx, "", []byte(`{}`), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Compile: got %v", err)
	}
	s := mustCompile(t, `{"items": {"type": "string"}}`, nil)
	big := make([]any, 100000)
	for i := range big {
		big[i] = "x"
	}
	if _, err := s.Validate(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("Validate: got %v", err)
	}
	if _, err := s.Valid(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("Valid: got %v", err)
	}
	data, _ := json.Marshal(big)
	if _, err := s.ValidateBytes(ctx, data); !errors.Is(err, context.Canceled) {
		t.Errorf("ValidateBytes: got %v", err)
	}
}

func TestRegexBudget(t *testing.T) {
	// A backtracking pattern (a backreference keeps it off Go's linear engine) on a long
	// input: the budget of 1ns is spent by the first match.
	s := mustCompile(t, `{"pattern": "^(a+)+\\1b$"}`, &Options{RegexBudget: time.Nanosecond, RegexTimeout: time.Second})
	_, err := s.Validate(bg, strings.Repeat("a", 40))
	if err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("got %v, want the budget's error", err)
	}
}

func TestBadInstances(t *testing.T) {
	s := mustCompile(t, `{}`, nil)
	if _, err := s.Validate(bg, "\xff"); err == nil {
		t.Error("Validate of invalid UTF-8: no error")
	}
	if _, err := s.Valid(bg, json.Number("1e")); err == nil {
		t.Error("Valid of a bad json.Number: no error")
	}
	_, err := s.ValidateBytes(bg, []byte("{\n  \"a\": }"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("ValidateBytes of bad JSON: got %#v", err)
	}
	small := mustCompile(t, `{}`, &Options{MaxDocumentSize: 4})
	if _, err := small.ValidateReader(bg, strings.NewReader(`"abcdef"`)); err == nil {
		t.Error("ValidateReader over the size: no error")
	}
	if errs, err := small.ValidateReader(bg, strings.NewReader(`1`)); err != nil || errs != nil {
		t.Errorf("ValidateReader: %v %v", errs, err)
	}
}

func TestErrorsAndCauses(t *testing.T) {
	s := mustCompile(t, `{"$id": "https://jstk.test/root.json", "oneOf": [{"type": "string"}, {"type": "number"}]}`, nil)
	errs, err := s.ValidateBytes(bg, []byte(`true`))
	if err != nil || len(errs) != 1 {
		t.Fatalf("got %v %v", errs, err)
	}
	e := errs[0]
	if e.Keyword != "oneOf" || len(e.Causes) != 2 || e.AbsoluteKeywordLocation != "https://jstk.test/root.json#/oneOf" || e.Line != 1 {
		t.Errorf("got %+v", e)
	}
	if !strings.HasPrefix(e.Error(), "1:1 (root): ") {
		t.Errorf("Error() = %q", e.Error())
	}
	errs, _ = s.Validate(bg, true)
	if errs[0].Line != 0 || !strings.HasPrefix(errs[0].Error(), "(root): ") {
		t.Errorf("Validate's error is located: %+v", errs[0])
	}
	if s.Location() != "https://jstk.test/root.json#" {
		t.Errorf("Location() = %q", s.Location())
	}
}

func TestDrafts(t *testing.T) {
	// In draft 4, exclusiveMaximum is a boolean; in 2020-12 a number.
	for _, d := range Drafts {
		schema := `{"maximum": 3, "exclusiveMaximum": true}`
		if d == Draft6 || d == Draft7 || d == Draft2019 || d == Draft2020 {
			schema = `{"exclusiveMaximum": 3}`
		}
		s := mustCompile(t, schema, &Options{Draft: d})
		if ok, err := s.Valid(bg, 3); ok || err != nil {
			t.Errorf("%s: 3 is valid (%v)", d, err)
		}
	}
	s := mustCompile(t, `{"format": "ipv4"}`, &Options{Draft: "7"})
	if ok, _ := s.Valid(bg, "x"); !ok {
		t.Error("format asserted by default")
	}
	s = mustCompile(t, `{"contentMediaType": "application/json"}`, &Options{AssertContent: true})
	if ok, _ := s.Valid(bg, "{"); ok {
		t.Error("content not asserted")
	}
}

func TestCompileFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"$ref": "sub/b.json"}`), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.json"), []byte(`{"$ref": "../../outside.json"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "c.json"), []byte(`{"type": "string"}`), 0o644)
	if _, err := CompileFile(bg, filepath.Join(dir, "a.json"), nil); err == nil {
		t.Error("a reference outside the directory was followed")
	}
	if _, err := CompileFile(bg, filepath.Join(dir, "missing.json"), nil); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := CompileFile(bg, filepath.Join(dir, "nodir", "x.json"), nil); err == nil {
		t.Error("missing directory: no error")
	}
	s, err := CompileFile(bg, filepath.Join(dir, "sub", "c.json"), &Options{MaxDocumentSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(bg, 1); ok {
		t.Error("1 is a string")
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(filepath.Join(dir, "sub"))
	if _, err := CompileFile(bg, "c.json", nil); err != nil {
		t.Errorf("a relative name: %v", err)
	}
}

func TestCompileFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.json":        {Data: []byte(`{"$ref": "https://example.com/b.json"}`)},
		"lib/b.json":    {Data: []byte(`{"$ref": "c.json"}`)},
		"lib/c.json":    {Data: []byte(`{"type": "integer"}`)},
		"escape.json":   {Data: []byte(`{"$ref": "../../etc/passwd"}`)},
		"lib/list.json": {Data: []byte(`[]`)},
	}
	s, err := CompileFS(bg, fsys, "a.json", &Options{Resolve: map[string]string{"https://example.com/": "lib/"}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(bg, "x"); ok {
		t.Error("x is an integer")
	}
	if _, err := CompileFS(bg, fsys, "escape.json", nil); err == nil {
		t.Error("escape.json compiled")
	}
	if _, err := CompileFS(bg, fsys, "lib/list.json", nil); err == nil {
		t.Error("an array compiled as a schema")
	}
	f := ioFS{fsys}
	if _, ok := f.Rel("lib/x"); ok {
		t.Error("Rel of a relative path")
	}
	if _, err := f.ReadDir("/lib"); err != nil {
		t.Error(err)
	}
	if f.clean("/") != "." {
		t.Error(f.clean("/"))
	}
}

func TestResources(t *testing.T) {
	res := map[string][]byte{
		"https://x.test/meta.json": []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/meta.json",
			"$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true, "https://json-schema.org/draft/2020-12/vocab/applicator": true},
			"$dynamicAnchor": "meta"}`),
		"tag:x.test,2024:int":        []byte(`{"type": "integer"}`),
		"https://x.test/unused.json": []byte(`{ not json`),
	}
	// A custom meta-schema without the validation vocabulary: "minimum" is not applied.
	s, err := Compile(bg, "", []byte(`{"$schema": "https://x.test/meta.json", "minimum": 5, "properties": {"n": {"$ref": "tag:x.test,2024:int"}}}`),
		&Options{Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(bg, 1); !ok {
		t.Error("minimum applied without the validation vocabulary")
	}
	if ok, _ := s.Valid(bg, map[string]any{"n": "x"}); ok {
		t.Error("the tag: resource was not applied")
	}
	// Resources over files: a file next to the schema is still found.
	fsys := fstest.MapFS{"a.json": {Data: []byte(`{"allOf": [{"$ref": "b.json"}, {"$ref": "tag:x.test,2024:int"}]}`)}, "b.json": {Data: []byte(`{"minimum": 2}`)}}
	s, err = CompileFS(bg, fsys, "a.json", &Options{Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(bg, 1); ok {
		t.Error("b.json was not applied")
	}
	o := &overlay{files: map[string][]byte{"r.json": nil}}
	if _, err := o.Open("x"); err == nil {
		t.Error("Open of a missing name")
	}
	if _, err := o.Stat("x"); err == nil {
		t.Error("Stat of a missing name")
	}
	if _, err := o.ReadDir("."); err == nil {
		t.Error("ReadDir without files")
	}
	if _, ok := o.Rel("/x"); ok {
		t.Error("Rel of a missing name")
	}
	fi, _ := o.Stat("r.json")
	if fi.Name() != "r.json" || fi.IsDir() || fi.Mode() != 0o444 || !fi.ModTime().IsZero() || fi.Sys() != nil || fi.Size() != 0 {
		t.Errorf("%+v", fi)
	}
	o.base = ioFS{fsys}
	if _, err := o.ReadDir("."); err != nil {
		t.Error(err)
	}
}

func TestSchemaStore(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	schema := []byte(`{"$ref": "https://json.schemastore.org/prettierrc.json"}`)
	s, err := Compile(bg, "", schema, &Options{SchemaStore: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Valid(bg, map[string]any{"tabWidth": "four"}); ok || err != nil {
		t.Errorf("tabWidth: \"four\" is valid (%v)", err)
	}
	if ok, _ := s.Valid(bg, map[string]any{"tabWidth": 4}); !ok {
		t.Error("tabWidth: 4 is invalid")
	}
	// Without a store (unless this test binary was built with one), the URL is not resolved.
	if _, _, builtIn, _ := store.Embedded().Open("https://json.schemastore.org/prettierrc.json"); builtIn {
		t.Log("a store is built in: the case without one is not checked")
	} else if _, err := Compile(bg, "", schema, nil); err == nil || !strings.Contains(err.Error(), "prettierrc.json") {
		t.Errorf("without a store: %v", err)
	}
	if _, err := Compile(bg, "", schema, &Options{SchemaStore: filepath.Join(t.TempDir(), "none")}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing store: %v", err)
	}
}
