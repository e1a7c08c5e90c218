package schema

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// compileFiles compiles name from an in-memory workspace of files.
func compileFiles(t *testing.T, files map[string]string, name string, opts *Options) (*Schema, error) {
	t.Helper()
	fsys := workspace.Memory(files)
	if opts == nil {
		opts = &Options{}
	}
	if opts.Loader == nil {
		opts.Loader = &Loader{FS: fsys}
	}
	opts.Loader.FS = fsys
	return NewCompiler(opts).Compile(FileURI(fsys.Abs(name)))
}

func mustCompile(t *testing.T, schemaText string) *Schema {
	t.Helper()
	s, err := compileFiles(t, map[string]string{"s.json": schemaText}, "s.json", nil)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaText, err)
	}
	return s
}

func parse(t *testing.T, text string) *source.Document {
	t.Helper()
	d, err := source.ParseJSON("i.json", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		want   string // in the error
		line   int
		column int
	}{
		{"not a schema", map[string]string{"s.json": `[1]`}, "a schema must be an object or a boolean, not an array", 1, 1},
		{"meta-schema violation", map[string]string{"s.json": "{\n  \"minLength\": -1\n}"}, "not a valid 2020-12 schema", 2, 16},
		{"unknown $schema", map[string]string{"s.json": `{"$schema": "https://example.com/x"}`}, `unknown $schema "https://example.com/x"`, 1, 2},
		{"$schema not a string", map[string]string{"s.json": `{"$schema": 7}`}, "$schema must be a string", 1, 2},
		{"unresolved $ref", map[string]string{"s.json": `{"$ref": "https://example.com/a.json"}`}, `unresolved reference "https://example.com/a.json"`, 1, 10},
		{"missing file", map[string]string{"s.json": `{"$ref": "other.json"}`}, "other.json: no such file or directory", 1, 10},
		{"missing anchor", map[string]string{"s.json": `{"$ref": "#nope"}`}, `no anchor "nope"`, 1, 10},
		{"missing pointer", map[string]string{"s.json": `{"$ref": "#/$defs/x"}`}, "does not exist", 1, 10},
		{"bad pattern", map[string]string{"s.json": `{"pattern": "[z-a]"}`}, "is not a valid ECMA-262 regular expression", 1, 13},
		{"bad patternProperties", map[string]string{"s.json": `{"patternProperties": {"(": {}}}`}, "is not a valid ECMA-262", 1, 23},
		{"duplicate $id", map[string]string{"s.json": `{"$defs": {"a": {"$id": "https://x.test/a"}, "b": {"$id": "https://x.test/a"}}}`}, `duplicate schema identifier "https://x.test/a"`, 1, 0},
		{"fragment in 2020 $id", map[string]string{"s.json": `{"$defs": {"a": {"$id": "https://x.test/a#frag"}}}`}, "must not contain a fragment", 1, 0},
		{"unsupported vocabulary", map[string]string{
			"s.json": `{"$schema": "https://x.test/meta"}`,
			"meta.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/meta",
			  "$vocabulary": {"https://x.test/vocab/mine": true}}`}, `requires vocabulary "https://x.test/vocab/mine"`, 1, 2},
		{"YAML schema with an error", map[string]string{"s.yaml": "type: object\nproperties:\n  a:\n    type: strnig\n"}, "not a valid 2020-12 schema", 4, 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := "s.json"
			if _, ok := tc.files["s.yaml"]; ok {
				name = "s.yaml"
			}
			opts := &Options{Loader: &Loader{IndexRoot: ".", Resolve: map[string]string{"https://x.test/": "./"}}}
			_, err := compileFiles(t, tc.files, name, opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			var se *SchemaError
			if !errors.As(err, &se) {
				if tc.line > 0 {
					t.Fatalf("error %T has no position", err)
				}
				return
			}
			if se.Line != tc.line || (tc.column > 0 && se.Column != tc.column) {
				t.Errorf("at %d:%d, want %d:%d (%v)", se.Line, se.Column, tc.line, tc.column, err)
			}
		})
	}
}

// The meta-schema's violations are listed as a reader goes through the file, and the
// error is located at the first of them.
func TestMetaViolationsByPosition(t *testing.T) {
	text := "{\n  \"type\": \"object\",\n  \"required\": [1],\n  \"properties\": {\n    \"a\": {\"minimum\": \"x\"},\n" +
		"    \"b\": {\"type\": \"strin\"}\n  },\n  \"minProperties\": -1\n}\n"
	_, err := compileFiles(t, map[string]string{"s.json": text}, "s.json", nil)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is no *SchemaError", err)
	}
	var got []string
	for _, c := range se.Causes {
		got = append(got, fmt.Sprintf("%d:%d %s", c.Line, c.Column, c.InstanceLocation))
	}
	want := []string{"3:16 /required/0", "5:22 /properties/a/minimum", "6:19 /properties/b/type", "8:20 /minProperties"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	if se.Line != 3 || se.Column != 16 {
		t.Errorf("error at %d:%d, want 3:16", se.Line, se.Column)
	}
}

func TestErrorsAndPositions(t *testing.T) {
	s := mustCompile(t, `{
  "type": "object",
  "required": ["id"],
  "properties": {
    "n": {"type": "integer", "minimum": 1, "multipleOf": 2},
    "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "maxLength": 2}},
    "kind": {"anyOf": [{"const": "a"}, {"enum": ["b", "c"]}]}
  },
  "additionalProperties": false,
  "dependentRequired": {"n": ["tags"]}
}`)
	doc := parse(t, `{"n": 3, "tags": ["x", "x", "long"], "kind": "z", "other": 1}`)
	errs, err := s.Validate(doc.Root)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Inst, Kw, Msg string }
	var got []row
	for _, e := range errs {
		got = append(got, row{e.InstanceLocation, e.KeywordLocation, e.Message})
	}
	want := []row{
		{"", "/required", `missing required property "id"`},
		{"/n", "/properties/n/multipleOf", "3 is not a multiple of 2"},
		{"/tags", "/properties/tags/uniqueItems", "items 0 and 1 are equal; items must be unique"},
		{"/tags/2", "/properties/tags/items/maxLength", "string is 4 characters long, more than the maximum of 2"},
		{"/kind", "/properties/kind/anyOf", "value does not match any of the 2 alternatives of anyOf"},
		{"/other", "/additionalProperties", `property "other" is not allowed (additionalProperties is false)`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	anyOf := errs[4]
	if len(anyOf.Causes) != 2 || anyOf.Causes[0].KeywordLocation != "/properties/kind/anyOf/0/const" {
		t.Errorf("anyOf causes: %+v", anyOf.Causes)
	}
	if file, line, col := errs[1].SchemaPosition(); file != "s.json" || line != 5 || col != 44 {
		t.Errorf("multipleOf in the schema at %s:%d:%d, want s.json:5:44", file, line, col)
	}
	if !strings.HasSuffix(errs[1].AbsoluteKeywordLocation, "s.json#/properties/n/multipleOf") {
		t.Errorf("absolute location %q", errs[1].AbsoluteKeywordLocation)
	}
	if ok, _ := s.Valid(doc.Root); ok {
		t.Error("Valid says valid")
	}
}

func TestMessages(t *testing.T) {
	tests := []struct{ schema, instance, want string }{
		{`{"type": ["string", "null"]}`, `1.0`, "value must be string or null, not integer"},
		{`{"const": {"a": [1]}}`, `{"a": [2]}`, `value must be {"a":[1]}`},
		{`{"exclusiveMinimum": 1}`, `1`, "1 must be greater than 1"},
		{`{"maximum": 1e2}`, `100.5`, "100.5 is greater than the maximum 100"},
		{`{"minLength": 3}`, `"ab"`, "string is 2 characters long, less than the minimum of 3"},
		{`{"pattern": "^a"}`, `"b"`, `"b" does not match the pattern "^a"`},
		{`{"minItems": 2, "items": false}`, `[]`, "array has 0 items, fewer than the minimum of 2"},
		{`{"contains": {"type": "null"}, "minContains": 2}`, `[null, 1]`, `1 item(s) match the "contains" schema, fewer than minContains 2`},
		{`{"contains": {"type": "null"}}`, `[1]`, `no item matches the "contains" schema`},
		{`{"maxProperties": 0}`, `{"a": 1}`, "object has 1 properties, more than the maximum of 0"},
		{`{"oneOf": [{"type": "number"}, {"minimum": 0}]}`, `1`, "value matches 2 alternatives of oneOf (0, 1); it must match exactly one"},
		{`{"not": {"type": "string"}}`, `"s"`, `value must not match the schema in "not"`},
		{`{"if": {"type": "string"}, "then": {"minLength": 9}}`, `"s"`, "less than the minimum of 9"},
		{`{"propertyNames": {"maxLength": 1}}`, `{"ab": 1}`, "more than the maximum of 1"},
		{`{"unevaluatedProperties": false, "properties": {"a": true}}`, `{"a": 1, "b": 2}`, `property "b" is not allowed (unevaluatedProperties is false)`},
		{`{"prefixItems": [true], "unevaluatedItems": {"type": "string"}}`, `[1, 2]`, "value must be string, not integer"},
		{`{"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}`, `0`, "value must be one of 1, 2, 3, 4, 5, 6, 7, 8, ... (2 more)"},
		{`{"format": "date"}`, `"2021-02-30"`, ""}, // formats are annotations by default
		{`false`, `1`, "no value is allowed here (the schema is false)"},
		{`{"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"a": 1}`, `missing required property "b"`},
		{`{"maxContains": 1, "contains": true}`, `[1, 2]`, "2 items match"},
	}
	for _, tc := range tests {
		s := mustCompile(t, tc.schema)
		errs, err := s.Validate(parse(t, tc.instance).Root)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Message)
		}
		all := strings.Join(msgs, " | ")
		if (tc.want == "") != (len(errs) == 0) || !strings.Contains(all, tc.want) {
			t.Errorf("%s on %s: %q, want %q", tc.schema, tc.instance, all, tc.want)
		}
	}
}

func TestUniqueItemsLarge(t *testing.T) {
	s := mustCompile(t, `{"uniqueItems": true}`)
	var items []string
	for i := 0; i < 40; i++ {
		items = append(items, fmt.Sprintf(`{"k": %d, "v": [%d, "x"]}`, i, i))
	}
	unique := "[" + strings.Join(items, ",") + "]"
	if ok, _ := s.Valid(parse(t, unique).Root); !ok {
		t.Error("distinct objects reported equal")
	}
	dup := "[" + strings.Join(items, ",") + `, {"v": [7, "x"], "k": 7.0}]`
	errs, _ := s.Validate(parse(t, dup).Root)
	if len(errs) != 1 || errs[0].Message != "items 7 and 40 are equal; items must be unique" {
		t.Errorf("got %v", errs)
	}
}

func TestLoader(t *testing.T) {
	files := map[string]string{
		"main.json":           `{"properties": {"a": {"$ref": "https://store.test/x"}, "b": {"$ref": "https://ids.test/y.json"}, "c": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}`,
		"vendor/x.json":       `{"type": "string"}`,
		"lib/deep/y.yaml":     "$id: https://ids.test/y.json\ntype: integer\n",
		"node_modules/z.json": `{"$id": "https://ids.test/z.json"}`,
	}
	opts := &Options{Loader: &Loader{IndexRoot: ".", Resolve: map[string]string{"https://store.test/": "vendor/"}}}
	s, err := compileFiles(t, files, "main.json", opts)
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := s.Validate(parse(t, `{"a": 1, "b": "s", "c": {"type": 5}}`).Root)
	var kws []string
	for _, e := range errs {
		kws = append(kws, e.InstanceLocation)
	}
	sort.Strings(kws)
	if diff := cmp.Diff([]string{"/a", "/b", "/c/type"}, kws); diff != "" {
		t.Errorf("errors (-want +got):\n%s\n%v", diff, errs)
	}
	// A loader without files still serves the meta-schemas, and nothing else.
	l := &Loader{}
	if _, _, err := l.Load("http://json-schema.org/draft-07/schema#"); err != nil {
		t.Error(err)
	}
	if _, _, err := l.Load("https://example.com/x"); !errors.Is(err, ErrUnresolved) {
		t.Errorf("got %v", err)
	}
	// A file:// URI outside the workspace is refused.
	fl := &Loader{FS: workspace.Memory(files)}
	if _, _, err := fl.Load(FileURI("/etc/passwd")); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("got %v", err)
	}
	if _, err := ParseDocument("two.yaml", []byte("a: 1\n---\nb: 2\n"), nil); err == nil {
		t.Error("a schema file with two documents must be refused")
	}
}

func TestDrafts(t *testing.T) {
	for name, want := range map[string]*Draft{"4": Draft4, "draft-06": Draft6, "draft7": Draft7, "2019-09": Draft2019,
		"2020-12": Draft2020, "https://json-schema.org/draft/2020-12/schema": Draft2020, "http://json-schema.org/draft-04/schema#": Draft4} {
		if d, ok := DraftByName(name); !ok || d != want {
			t.Errorf("DraftByName(%q) = %v", name, d)
		}
	}
	if _, ok := DraftByName("8"); ok {
		t.Error("draft 8 found")
	}
	if Draft7.String() != "draft-07" {
		t.Error(Draft7.String())
	}
	// Draft 4: exclusiveMaximum is a boolean modifier, 1.0 is not an integer.
	s := mustCompile(t, `{"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 5, "exclusiveMaximum": true, "type": "integer"}`)
	for inst, want := range map[string]bool{"4": true, "5": false, "4.0": false} {
		if ok, _ := s.Valid(parse(t, inst).Root); ok != want {
			t.Errorf("draft 4 on %s: %v", inst, ok)
		}
	}
	// StrictDraft ignores later keywords in draft 4.
	strict, err := compileFiles(t, map[string]string{"s.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}`}, "s.json", &Options{StrictDraft: true})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := strict.Valid(parse(t, "2").Root); !ok {
		t.Error("StrictDraft applied const in draft 4")
	}
	// and Ignored says so, as it says what the compiler applies otherwise
	lenient := mustCompile(t, `{"$schema": "http://json-schema.org/draft-04/schema#", "const": 1}`)
	strict6, err := compileFiles(t, map[string]string{"s.json": `{"$schema": "http://json-schema.org/draft-06/schema#", "const": 1}`}, "s.json", &Options{StrictDraft: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, kw := range []string{"const", "contains", "propertyNames", "if", "then", "else"} {
		if !strict.Ignored(kw) {
			t.Errorf("draft 4, StrictDraft: %s not ignored", kw)
		}
		if lenient.Ignored(kw) {
			t.Errorf("draft 4: %s ignored", kw)
		}
		if want := kw == "if" || kw == "then" || kw == "else"; strict6.Ignored(kw) != want {
			t.Errorf("draft 6, StrictDraft: Ignored(%s) = %v", kw, !want)
		}
	}
	if strict.Ignored("minimum") {
		t.Error("draft 4, StrictDraft: minimum ignored")
	}
	// ForceDraft overrides $schema.
	forced, err := compileFiles(t, map[string]string{"s.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "items": [{"type": "string"}]}`}, "s.json",
		&Options{Draft: Draft7, ForceDraft: true, NoMetaValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := forced.Valid(parse(t, "[1]").Root); ok {
		t.Error("draft 7 tuple items not applied under ForceDraft")
	}
}

func TestRegexp(t *testing.T) {
	tests := []struct {
		pattern string
		re2     bool
		match   map[string]bool
	}{
		{`^[A-Z]{3}-\d{2}$`, true, map[string]bool{"ABC-12": true, "AB-12": false}},
		{`a.c`, true, map[string]bool{"abc": true, "a\nc": false, "a\u2028c": false}},
		{`^(?:ab)+$`, true, map[string]bool{"abab": true, "aba": false}},
		{`^(?=.*\d)\w+$`, false, map[string]bool{"a1": true, "ab": false}},
		{`^(a)\1$`, false, map[string]bool{"aa": true, "ab": false}},
		{`\p{L}+`, false, map[string]bool{"é": true, "1": false}},
		{`^\s$`, false, map[string]bool{"\u00a0": true, "x": false}},
		{`[^]`, false, map[string]bool{"\n": true}},
		{`é`, false, map[string]bool{"café": true}},
	}
	for _, tc := range tests {
		re, err := CompileRegexp(tc.pattern, time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		_, isRE2 := re.(re2)
		if _, simple := re.(*simpleRe); simple {
			isRE2 = true // a simple pattern is linear-time too, and its RE2 form is kept
		}
		if isRE2 != tc.re2 {
			t.Errorf("%s: on RE2 = %v, want %v", tc.pattern, isRE2, tc.re2)
		}
		if re.String() != tc.pattern {
			t.Errorf("String() = %q", re.String())
		}
		for s, want := range tc.match {
			if got, err := re.Match(s); err != nil || got != want {
				t.Errorf("%s on %q: %v %v, want %v", tc.pattern, s, got, err, want)
			}
		}
	}
	re, err := CompileRegexp(`^(a|aa)+(?=b)\1$`, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := re.Match(strings.Repeat("a", 60) + "c"); !errors.Is(err, ErrRegexTimeout) {
		t.Errorf("catastrophic pattern: %v", err)
	}
	if _, err := CompileRegexp(`(`, time.Second); err == nil {
		t.Error("( compiled")
	}
}

func TestWalkAndTrace(t *testing.T) {
	s := mustCompile(t, `{
  "$defs": {"pos": {"type": "integer", "minimum": 1}},
  "type": "object",
  "required": ["n"],
  "properties": {"n": {"$ref": "#/$defs/pos"}, "m": {"enum": ["a", "b"]}},
  "anyOf": [{"required": ["m"]}, {"required": ["x"]}],
  "if": {"properties": {"n": {"const": 1}}}, "then": {"required": ["m"]}
}`)
	var reached []string
	Walk(s, func(c *Schema) bool {
		_, ptr := c.Pointer()
		reached = append(reached, ptr)
		return true
	})
	sort.Strings(reached)
	want := []string{"", "/$defs/pos", "/anyOf/0", "/anyOf/1", "/if", "/if/properties/n", "/properties/m", "/properties/n", "/then"}
	if diff := cmp.Diff(want, reached); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	if s.Children()[0].Path() != "/properties/m" {
		t.Errorf("first child %s", s.Children()[0].Path())
	}
	// AppendChildren appends the same list after what the buffer holds, and nothing for
	// a schema without subschemas
	buf := s.AppendChildren([]Child{{Keyword: "kept"}})
	if diff := cmp.Diff(append([]Child{{Keyword: "kept"}}, s.Children()...), buf, cmp.Comparer(func(a, b *Schema) bool { return a == b })); diff != "" {
		t.Errorf("AppendChildren (-want +got):\n%s", diff)
	}
	if leaf := s.Children()[0].Schema; len(leaf.AppendChildren(buf[:1])) != 1 || leaf.Children() != nil {
		t.Errorf("a schema without subschemas has children %v", leaf.Children())
	}
	n := s.Children()[1].Schema
	// A file without $id is named by its name, never by the machine's file:// URI.
	if n.Ref() == nil || n.Ref().Location() != "s.json#/$defs/pos" || s.BaseURI() != FileURI("/ws/s.json") {
		t.Errorf("ref of /properties/n: %v", n.Ref())
	}
	if v, ok := s.Keyword("required"); !ok || v.Len() != 1 || len(s.Keywords()) != 7 {
		t.Errorf("keywords: %v %v", v, s.Keywords())
	}
	if b, isBool := mustCompile(t, "true").Bool(); !b || !isBool {
		t.Error("true schema")
	}
	if _, dyn := s.DynamicRef(); dyn {
		t.Error("no dynamic ref here")
	}
	if s.FormatAsserted() || s.Ignored("type") {
		t.Error("flags")
	}

	var events []string
	errs, err := s.Trace(parse(t, `{"n": 1, "m": "b"}`).Root, func(ev Event) {
		_, ptr := ev.Schema.Pointer()
		if ev.Keyword != "" {
			events = append(events, fmt.Sprintf("%s/%s %v %s", ptr, ev.Keyword, ev.Passed, ev.Detail))
		}
	})
	if err != nil || len(errs) != 0 {
		t.Fatal(err, errs)
	}
	for _, want := range []string{"/type true object", "/required true n", "/properties true n", "/properties/m/enum true 1",
		"/$defs/pos/minimum true ", "/anyOf true 0", "/if true then", "/$defs/pos/type true integer"} {
		found := false
		for _, e := range events {
			found = found || e == want
		}
		if !found {
			t.Errorf("no event %q in %q", want, events)
		}
	}
}

func TestRefLoopAndFiles(t *testing.T) {
	s := mustCompile(t, `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`)
	if _, err := s.Validate(parse(t, "1").Root); err == nil || !strings.Contains(err.Error(), "reference loop") {
		t.Errorf("got %v", err)
	}
	files := map[string]string{"a.json": `{"$ref": "b.json", "items": {"$ref": "https://ids.test/c"}, "not": {"$ref": "https://map.test/d.json"}}`,
		"b.json": `{"type": "string"}`, "lib/c.json": `{"$id": "https://ids.test/c"}`, "vendor/d.json": `{}`}
	fsys := workspace.Memory(files)
	c := NewCompiler(&Options{Loader: &Loader{FS: fsys, IndexRoot: ".", Resolve: map[string]string{"https://map.test/": "vendor/"}}})
	if _, err := c.Compile(FileURI(fsys.Abs("a.json"))); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.json", "b.json", "lib/c.json", "vendor/d.json"}, c.Files()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(KnownFormats()) < 19 {
		t.Errorf("formats: %v", KnownFormats())
	}
}

func TestCompoundDocumentDialects(t *testing.T) {
	// A 2020-12 bundle that embeds a draft-07 resource using tuple "items".
	s := mustCompile(t, `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$ref": "https://x.test/old.json",
  "$defs": {"old": {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://x.test/old.json",
    "items": [{"type": "string"}], "additionalItems": false}}
}`)
	if ok, _ := s.Valid(parse(t, `["a"]`).Root); !ok {
		t.Error(`["a"] rejected`)
	}
	if ok, _ := s.Valid(parse(t, `["a", 1]`).Root); ok {
		t.Error("additionalItems of the draft-07 resource not applied")
	}
	// Its errors are still found, against its own meta-schema.
	_, err := compileFiles(t, map[string]string{"s.json": `{"$defs": {"old": {"$schema": "http://json-schema.org/draft-07/schema#",
	  "$id": "https://x.test/o.json", "items": 5}}}`}, "s.json", nil)
	if err == nil || !strings.Contains(err.Error(), "/$defs/old/items") {
		t.Errorf("got %v", err)
	}
}

func TestNonECMAPatternsRefused(t *testing.T) {
	for _, p := range []string{`(?i)abc`, `\Aabc\Z`, `(?>a)`, `\Qa.b\E`, `a(?#comment)`} {
		if _, err := CompileRegexp(p, time.Second); err == nil {
			t.Errorf("%s compiled", p)
		}
	}
}

func TestFailedCompileLeavesNoHalfSchema(t *testing.T) {
	files := map[string]string{"a.json": `{"properties": {"x": {"$ref": "b.json"}}, "$defs": {"ok": {"type": "string"}}}`}
	fsys := workspace.Memory(files)
	c := NewCompiler(&Options{Loader: &Loader{FS: fsys}})
	if _, err := c.Compile(FileURI(fsys.Abs("a.json"))); err == nil {
		t.Fatal("compiled with a missing file")
	}
	s, err := c.Compile(FileURI(fsys.Abs("a.json")) + "#/$defs/ok")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Valid(parse(t, `1`).Root); ok {
		t.Error("a schema compiled after a failure is wrong")
	}
}

func TestValidateLimit(t *testing.T) {
	s := mustCompile(t, `{"items": {"type": "string"}}`)
	doc := parse(t, `[1, 2, 3, 4, 5]`)
	errs, truncated, err := s.ValidateLimit(doc.Root, 2)
	if err != nil || !truncated || len(errs) != 2 {
		t.Errorf("got %d errors, truncated %v, %v", len(errs), truncated, err)
	}
	errs, truncated, _ = s.ValidateLimit(doc.Root, 0)
	if truncated || len(errs) != 5 {
		t.Errorf("unlimited: %d errors, truncated %v", len(errs), truncated)
	}
}

// Alternatives nested in alternatives must not make evaluation exponential: without
// remembered verdicts this instance (60 levels, two recursive alternatives per level) would
// take 2^60 steps.
func TestNestedAlternativesStayLinear(t *testing.T) {
	s := mustCompile(t, `{"$defs": {"n": {"anyOf": [
  {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}},
  {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}, "minProperties": 1},
  {"type": "null"}]}}, "$ref": "#/$defs/n"}`)
	inst := strings.Repeat(`{"c": `, 60) + `"x"` + strings.Repeat("}", 60)
	doc := parse(t, inst)
	if ok, err := s.Valid(doc.Root); ok || err != nil {
		t.Errorf("Valid = %v, %v", ok, err)
	}
	errs, truncated, err := s.ValidateLimit(doc.Root, 500)
	if err != nil || len(errs) == 0 || !truncated {
		t.Errorf("ValidateLimit: %d errors, truncated %v, %v", len(errs), truncated, err)
	}
	valid := strings.Repeat(`{"c": `, 60) + `null` + strings.Repeat("}", 60)
	if ok, _ := s.Valid(parse(t, valid).Root); !ok {
		t.Error("the valid instance is rejected")
	}
}

// Alternatives that refer to one definition evaluate it once when tracing; the second
// reference replays the first's steps, so the trace is as if it had been evaluated again.
func TestTraceReplaysSharedReferences(t *testing.T) {
	s := mustCompile(t, `{
  "$defs": {"item": {"type": "object", "properties": {"y": {"type": "string", "minLength": 2}}}},
  "anyOf": [
    {"$ref": "#/$defs/item", "required": ["x"]},
    {"$ref": "#/$defs/item", "required": ["z"]},
    {"$ref": "#/$defs/item"}
  ]
}`)
	for _, tc := range []struct {
		doc   string
		valid bool
	}{{`{"y": "ab"}`, true}, {`{"y": "a"}`, false}, {`[{"y": 1}]`, false}} {
		var got []string
		errs, err := s.Trace(parse(t, tc.doc).Root, func(ev Event) {
			_, ptr := ev.Schema.Pointer()
			got = append(got, fmt.Sprintf("%s:%s:%v", ptr, ev.Keyword, ev.Passed))
		})
		if err != nil || (len(errs) == 0) != tc.valid {
			t.Fatalf("%s: %v %v", tc.doc, err, errs)
		}
		// the definition's steps, once per alternative, all alike
		var runs [][]string
		for i, g := range got {
			if g == "/$defs/item::true" {
				var run []string
				for _, h := range got[i+1:] {
					if !strings.HasPrefix(h, "/$defs/item") {
						break
					}
					run = append(run, h)
				}
				runs = append(runs, run)
			}
		}
		if len(runs) != 3 {
			t.Fatalf("%s: the definition was reached %d times, want 3:\n%s", tc.doc, len(runs), strings.Join(got, "\n"))
		}
		for _, r := range runs[1:] {
			if diff := cmp.Diff(runs[0], r); diff != "" {
				t.Errorf("%s: a replayed evaluation differs (-first +replay):\n%s", tc.doc, diff)
			}
		}

		// TraceReplays hands the repeated steps over at once, each time with the id of
		// their recording: put back in place, they are Trace's steps.
		var steps []string
		ids := map[int]int{}
		step := func(ev Event) {
			_, ptr := ev.Schema.Pointer()
			steps = append(steps, fmt.Sprintf("%s:%s:%v", ptr, ev.Keyword, ev.Passed))
		}
		errs2, err := s.TraceReplays(parse(t, tc.doc).Root, step, func(id int, evs []Event) {
			ids[id]++
			for _, ev := range evs {
				step(ev)
			}
		})
		if err != nil || len(errs2) != len(errs) {
			t.Fatalf("%s: TraceReplays: %v %v", tc.doc, err, errs2)
		}
		if diff := cmp.Diff(got, steps); diff != "" {
			t.Errorf("%s: TraceReplays's steps differ from Trace's (-Trace +TraceReplays):\n%s", tc.doc, diff)
		}
		if tc.doc != `[{"y": 1}]` && (len(ids) != 1 || ids[0] != 2) {
			t.Errorf("%s: replays by recording %v, want the first recording's twice", tc.doc, ids)
		}
	}
}

func TestMoreRunes(t *testing.T) {
	for _, str := range []string{"", "a", "abcd", "é", "éé", "日本語", "𝄞𝄞", "a𝄞", "\xff\xfe", strings.Repeat("日", 50), strings.Repeat("a", 50)} {
		n := utf8.RuneCountInString(str)
		for k := -1; k <= n+2 || k <= len(str)+1; k++ {
			if got := moreRunes(str, k); got != (n > k) {
				t.Errorf("moreRunes(%q, %d) = %v, want %v", str, k, got, n > k)
			}
		}
	}
}

// A trace that records many evaluations leaves no large map in the pooled evaluator, and
// the recordings of one trace never serve another.
func TestTraceRecordingsDoNotOutliveTheTrace(t *testing.T) {
	s := mustCompile(t, `{
  "$defs": {"item": {"type": "object", "properties": {"n": {"type": "integer"}}}},
  "items": {"anyOf": [{"$ref": "#/$defs/item", "required": ["x"]}, {"$ref": "#/$defs/item"}]}
}`)
	trace := func(doc string) (steps, replays int) {
		_, err := s.TraceReplays(parse(t, doc).Root, func(Event) { steps++ }, func(_ int, evs []Event) {
			replays++
			steps += len(evs)
		})
		if err != nil {
			t.Fatal(err)
		}
		return steps, replays
	}
	items := make([]string, maxKeptTraced+100)
	for i := range items {
		items[i] = fmt.Sprintf(`{"n": %d}`, i)
	}
	if _, replays := trace("[" + strings.Join(items, ",") + "]"); replays != len(items) {
		t.Errorf("%d replays, want one per item (%d)", replays, len(items))
	}
	want := 0
	if _, err := s.Trace(parse(t, `[{"n": 1}]`).Root, func(Event) { want++ }); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if steps, replays := trace(`[{"n": 1}]`); replays != 1 || steps != want {
			t.Errorf("small document: %d steps, %d replays; want %d, 1", steps, replays, want)
		}
	}
}

func TestCompiledCount(t *testing.T) {
	a := mustCompile(t, `{"properties": {"a": {}, "b": {"items": true}}}`) // 4 schemas
	b := mustCompile(t, `{"type": "string"}`)
	got := []int{CompiledCount(a), CompiledCount(b), CompiledCount(a, b), CompiledCount(a, a.Children()[0].Schema, nil), CompiledCount()}
	if diff := cmp.Diff([]int{4, 1, 5, 4, 0}, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Index numbers the schemas of a compiler from 0 without gaps
	ida, _ := a.Index()
	seen := map[int]bool{}
	Walk(a, func(s *Schema) bool {
		id, i := s.Index()
		if id != ida || i < 0 || i >= CompiledCount(a) || seen[i] {
			t.Errorf("%s: index %d (compiler %v, want %v)", s.Location(), i, id == ida, true)
		}
		seen[i] = true
		return true
	})
	if idb, i := b.Index(); idb == ida || i != 0 || len(seen) != 4 {
		t.Errorf("b: same compiler %v, index %d; a's schemas numbered %d", idb == ida, i, len(seen))
	}
}

// A long enum of values other than strings is looked up by hash, with the enum's equality:
// numbers by value, objects in any member order.
func TestLongEnum(t *testing.T) {
	var vals []string
	for i := range 40 {
		vals = append(vals, fmt.Sprint(i))
	}
	vals = append(vals, `{"a": 1, "b": [2]}`, `"s"`, `null`, `[1, 2]`)
	s := mustCompile(t, `{"enum": [`+strings.Join(vals, ", ")+`]}`)
	if s.enumHash == nil {
		t.Fatal("a 44-value enum is scanned")
	}
	for text, want := range map[string]bool{
		`7`: true, `7.0`: true, `0.7e1`: true, `39`: true, `40`: false, `-1`: false, `"7"`: false,
		`{"b": [2.0], "a": 1}`: true, `{"a": 1}`: false, `"s"`: true, `"t"`: false, `null`: true,
		`[1, 2]`: true, `[2, 1]`: false, `true`: false,
	} {
		if got, err := s.Valid(parse(t, text).Root); err != nil || got != want {
			t.Errorf("Valid(%s) = %v, %v; want %v", text, got, err, want)
		}
	}
}

// required and dependentRequired on objects larger than memberScanMax look names up in a
// set of the object's names, with the same answers as a scan.
func TestLargeObjectRequired(t *testing.T) {
	var req, members []string
	for i := range 100 {
		req = append(req, fmt.Sprintf(`"p%d"`, i))
		members = append(members, fmt.Sprintf(`"p%d": %d`, i, i))
	}
	s := mustCompile(t, `{"required": [`+strings.Join(req, ",")+`],
		"dependentRequired": {"p5": ["p6", "p7"], "x": ["p1"], "p8": ["q"]}}`)
	full := `{` + strings.Join(members, ",") + `}`
	if ok, _ := s.Valid(parse(t, full).Root); ok {
		t.Error(`valid without "q", which p8 requires`)
	}
	withQ := `{` + strings.Join(append(members, `"q": 0`), ",") + `}`
	if ok, _ := s.Valid(parse(t, withQ).Root); !ok {
		t.Error("invalid with every required property")
	}
	missing := `{` + strings.Join(append(members[:40:40], members[41:]...), ",") + `, "q": 0}`
	errs, err := s.Validate(parse(t, missing).Root)
	if err != nil || len(errs) != 1 || !strings.Contains(errs[0].Message, `"p40"`) {
		t.Errorf("without p40: %v, %v", errs, err)
	}
}

// The rare keywords of a schema that has none are noRare, shared and never written; a
// schema with one has its own, and validates as before (the keywords below each decide an
// instance).
func TestRareKeywords(t *testing.T) {
	want := noRare
	plain := mustCompile(t, `{"type": "object", "properties": {"a": {"minLength": 1}}, "required": ["a"]}`)
	if plain.rareKeywords != &noRare || plain.properties["a"].rareKeywords != &noRare {
		t.Error("a schema without rare keywords has its own")
	}
	cases := []struct{ schema, valid, invalid string }{
		{`{"multipleOf": 2}`, `4`, `3`},
		{`{"exclusiveMinimum": 1}`, `2`, `1`},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": true}`, `2`, `3`},
		{`{"uniqueItems": true}`, `[1, 2]`, `[1, 1]`},
		{`{"prefixItems": [{"type": "string"}]}`, `["a", 1]`, `[1]`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}`, `["a"]`, `["a", 1]`},
		{`{"contains": {"type": "string"}, "maxContains": 1}`, `["a", 1]`, `["a", "b"]`},
		{`{"minProperties": 1}`, `{"a": 1}`, `{}`},
		{`{"maxProperties": 1}`, `{"a": 1}`, `{"a": 1, "b": 2}`},
		{`{"patternProperties": {"^x": {"type": "string"}}}`, `{"xa": "s"}`, `{"xa": 1}`},
		{`{"propertyNames": {"maxLength": 2}}`, `{"ab": 1}`, `{"abc": 1}`},
		{`{"dependentRequired": {"a": ["b"]}}`, `{"a": 1, "b": 2}`, `{"a": 1}`},
		{`{"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"a": 1, "b": 2}`, `{"a": 1}`},
		{`{"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "number"}}`, `"ab"`, `"a"`},
		{`{"properties": {"a": true}, "unevaluatedProperties": false}`, `{"a": 1}`, `{"b": 1}`},
		{`{"$defs": {"n": {"$dynamicAnchor": "n", "type": "integer"}}, "$dynamicRef": "#n"}`, `1`, `"a"`},
		{`{"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, [1]]}`, `[1]`, `[2]`},
	}
	for _, tc := range cases {
		s := mustCompile(t, tc.schema)
		if s.rareKeywords == &noRare {
			t.Errorf("%s: no rare keywords of its own", tc.schema)
		}
		for _, inst := range []struct {
			text string
			want bool
		}{{tc.valid, true}, {tc.invalid, false}} {
			got, err := s.Valid(parse(t, inst.text).Root)
			if err != nil || got != inst.want {
				t.Errorf("%s: %s valid = %v, %v; want %v", tc.schema, inst.text, got, err, inst.want)
			}
		}
	}
	if !reflect.DeepEqual(noRare, want) {
		t.Error("noRare was written")
	}
}
