package schematest

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
)

// Format is the shape of a tests file.
type Format string

// The two formats of tests files, told apart by shape.
const (
	// Sourcemeta is an object {"target": "<path or URI>", "tests": [...]}: the schema under
	// test stays in its own file (the format of the sourcemeta JSON Schema CLI).
	Sourcemeta Format = "sourcemeta"
	// Suite is an array of {"description", "schema", "tests"} (the format of the official
	// JSON-Schema-Test-Suite): each case carries its schema inline.
	Suite Format = "suite"
)

// ShapeOf tells whether a document is a tests file, and in which format: an object with
// "target" and "tests" is Sourcemeta, a non-empty array of objects that each have "schema"
// and "tests" is Suite. Anything else is not a tests file ("").
func ShapeOf(v source.Value) Format {
	switch v.Kind() {
	case source.Object:
		_, hasTests := v.Get("tests")
		_, hasTarget := v.Get("target")
		if hasTests && hasTarget {
			return Sourcemeta
		}
	case source.Array:
		if v.Len() == 0 {
			return ""
		}
		for _, c := range v.Items() {
			if c.Kind() != source.Object || !c.Has("schema") || !c.Has("tests") {
				return ""
			}
		}
		return Suite
	}
	return ""
}

// File is a parsed tests file.
type File struct {
	// Name is the file's name as given ("<tests[0]>" for an inline document).
	Name string
	// Format is the file's shape.
	Format Format
	// Cases are the file's groups of tests: one per suite case, and one for a sourcemeta
	// file (its target).
	Cases []*Case

	doc *source.Document
	// base is the directory relative targets and dataPath names resolve against.
	base string
}

// Case is a group of tests that share one schema.
type Case struct {
	// Description describes the case (suite format); empty for a sourcemeta file.
	Description string
	// Target is the sourcemeta target as written; empty for the suite format.
	Target string
	// Line and Column locate the case (for a sourcemeta file: its target) in the tests file.
	Line, Column int
	// Tests are the case's tests, in file order.
	Tests []*Test

	file   *File
	schema source.Value // suite format: the inline schema
	index  int
}

// Test is one instance with the outcome it must have.
type Test struct {
	// Description describes the test; it may be empty in the sourcemeta format.
	Description string
	// Valid is the expected outcome.
	Valid bool
	// Expect lists errors the instance must produce (each must match one of its errors);
	// only for tests with Valid false.
	Expect []Expect
	// DataPath is the file holding the instance, as written, or "" when the instance is
	// inline.
	DataPath string
	// Line and Column locate the test object in the tests file.
	Line, Column int

	data    source.Value
	hasData bool
	index   int
}

// Expect asserts one error of an invalid instance (an error or one of its causes). Every
// field the tests file gives must match: the locations and the keyword exactly (a location
// may be written as a URI fragment, "#/properties/a"), the message as a substring.
type Expect struct {
	// KeywordLocation is the evaluation path of the failing keyword, through references
	// ("/properties/age/minimum").
	KeywordLocation string
	// InstanceLocation is the JSON Pointer of the failing value ("" for the root).
	InstanceLocation string
	// AbsoluteKeywordLocation is the failing keyword's absolute URI.
	AbsoluteKeywordLocation string
	// Keyword is the failing keyword ("" for a false schema).
	Keyword string
	// Message must occur in the error's message.
	Message string

	keywordSet  bool // Keyword was given (it may be "" for a false schema)
	instanceSet bool // InstanceLocation was given (it may be "" for the root)
}

// String renders the expectation as JSON-like text for messages.
func (x Expect) String() string {
	var parts []string
	add := func(k, v string, set bool) {
		if set {
			parts = append(parts, strconv.Quote(k)+": "+strconv.Quote(v))
		}
	}
	add("keywordLocation", x.KeywordLocation, x.KeywordLocation != "")
	add("instanceLocation", x.InstanceLocation, x.instanceSet)
	add("absoluteKeywordLocation", x.AbsoluteKeywordLocation, x.AbsoluteKeywordLocation != "")
	add("keyword", x.Keyword, x.keywordSet)
	add("message", x.Message, x.Message != "")
	return "{" + strings.Join(parts, ", ") + "}"
}

// name is the test's name in reports: the case description and the test description, or
// "test N" when the test has none.
func (t *Test) name(c *Case) string {
	d := t.Description
	if d == "" {
		d = "test " + strconv.Itoa(t.index+1)
	}
	if c.Description != "" {
		return c.Description + " / " + d
	}
	return d
}

// HasData reports whether the test carries its instance inline.
func (t *Test) HasData() bool { return t.hasData }

// Data is the inline instance (valid only when HasData).
func (t *Test) Data() source.Value { return t.data }

// Document is the parsed tests file.
func (f *File) Document() *source.Document { return f.doc }

// Base is the directory that relative targets and dataPath names resolve against.
func (f *File) Base() string { return f.base }

// File is the tests file the case belongs to.
func (c *Case) File() *File { return c.file }

// fileError is a problem with a tests file, located in it.
func fileError(doc *source.Document, v source.Value, format string, args ...any) error {
	line, col := doc.Position(v.Offset())
	return &source.Error{File: doc.Name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a tests file. name is how the file is named in reports; base is the
// directory relative names in it resolve against (the file's directory, or "." for an
// inline document).
func Parse(name, base string, data []byte, lim *source.Limits) (*File, error) {
	doc, err := schema.ParseDocument(name, data, lim)
	if err != nil {
		return nil, err
	}
	return ParseDocument(doc, base)
}

// ParseDocument reads a tests file that is already parsed.
func ParseDocument(doc *source.Document, base string) (*File, error) {
	f := &File{Name: doc.Name, doc: doc, base: base}
	root := doc.Root
	var err error
	switch ShapeOf(root) {
	case Sourcemeta:
		f.Format = Sourcemeta
		err = f.parseSourcemeta(root)
	case Suite:
		f.Format = Suite
		err = f.parseSuite(root)
	}
	if f.Format != "" {
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	if root.Kind() == source.Object && root.Has("tests") {
		return nil, fileError(doc, root, `a tests file with "tests" needs a "target": the path or URI of the schema to test`)
	}
	return nil, fileError(doc, root, `not a tests file: expected an object {"target": ..., "tests": [...]} `+
		`or an array of {"description", "schema", "tests"} (the JSON-Schema-Test-Suite format)`)
}

func (f *File) parseSourcemeta(root source.Value) error {
	target, _ := root.Get("target")
	if target.Kind() != source.String || target.Str() == "" {
		return fileError(f.doc, target, `"target" must be a non-empty string: the path (relative to the tests file) or URI of the schema`)
	}
	c := &Case{Target: target.Str(), file: f}
	c.Line, c.Column = f.doc.Position(target.Offset())
	tests, _ := root.Get("tests")
	if err := c.parseTests(tests, Sourcemeta); err != nil {
		return err
	}
	f.Cases = []*Case{c}
	return nil
}

func (f *File) parseSuite(root source.Value) error {
	for i, cv := range root.Items() {
		c := &Case{file: f, index: i}
		c.Line, c.Column = f.doc.Position(cv.Offset())
		if d, ok := cv.Get("description"); ok {
			if d.Kind() != source.String {
				return fileError(f.doc, d, `case %d: "description" must be a string`, i)
			}
			c.Description = d.Str()
		}
		c.schema, _ = cv.Get("schema")
		tests, _ := cv.Get("tests")
		if err := c.parseTests(tests, Suite); err != nil {
			return err
		}
		f.Cases = append(f.Cases, c)
	}
	return nil
}

func (c *Case) parseTests(tests source.Value, format Format) error {
	doc := c.file.doc
	if tests.Kind() != source.Array {
		return fileError(doc, tests, `"tests" must be an array of tests`)
	}
	for i, tv := range tests.Items() {
		t, err := parseTest(doc, tv, i, format)
		if err != nil {
			return err
		}
		c.Tests = append(c.Tests, t)
	}
	return nil
}

func parseTest(doc *source.Document, tv source.Value, i int, format Format) (*Test, error) {
	if tv.Kind() != source.Object {
		return nil, fileError(doc, tv, "test %d: a test must be an object", i)
	}
	t := &Test{index: i}
	t.Line, t.Column = doc.Position(tv.Offset())
	if d, ok := tv.Get("description"); ok {
		if d.Kind() != source.String {
			return nil, fileError(doc, d, `test %d: "description" must be a string`, i)
		}
		t.Description = d.Str()
	}
	valid, ok := tv.Get("valid")
	if !ok || valid.Kind() != source.Bool {
		return nil, fileError(doc, tv, `test %d: "valid" (true or false) is required`, i)
	}
	t.Valid = valid.Bool()
	data, hasData := tv.Get("data")
	dataPath, hasPath := tv.Get("dataPath")
	switch {
	case hasData && hasPath:
		return nil, fileError(doc, dataPath, `test %d: give "data" or "dataPath", not both`, i)
	case hasData:
		t.data, t.hasData = data, true
	case hasPath && format == Sourcemeta:
		if dataPath.Kind() != source.String || dataPath.Str() == "" {
			return nil, fileError(doc, dataPath, `test %d: "dataPath" must be a file name`, i)
		}
		t.DataPath = dataPath.Str()
	case format == Sourcemeta:
		return nil, fileError(doc, tv, `test %d: "data" (the instance) or "dataPath" (a file holding it) is required`, i)
	default:
		return nil, fileError(doc, tv, `test %d: "data" (the instance) is required`, i)
	}
	if ev, ok := tv.Get("expect"); ok {
		exps, err := parseExpect(doc, ev, i)
		if err != nil {
			return nil, err
		}
		if t.Valid {
			return nil, fileError(doc, ev, `test %d: "expect" asserts the errors of an invalid instance, but the test says "valid": true`, i)
		}
		t.Expect = exps
	}
	return t, nil
}

var expectFields = []string{"keywordLocation", "instanceLocation", "absoluteKeywordLocation", "keyword", "message"}

// parseExpect reads an expect block: one object, or an array of objects.
func parseExpect(doc *source.Document, ev source.Value, i int) ([]Expect, error) {
	items := []source.Value{ev}
	if ev.Kind() == source.Array {
		items = ev.Items()
		if len(items) == 0 {
			return nil, fileError(doc, ev, `test %d: "expect" must not be empty`, i)
		}
	}
	var out []Expect
	for _, item := range items {
		if item.Kind() != source.Object || item.Len() == 0 {
			return nil, fileError(doc, item, `test %d: "expect" must be an object with some of %s (or an array of them)`,
				i, strings.Join(expectFields, ", "))
		}
		var x Expect
		for j := 0; j < item.Len(); j++ {
			k, v := item.Member(j)
			if v.Kind() != source.String {
				return nil, fileError(doc, v, `test %d: expect.%s must be a string`, i, k.Str())
			}
			s := v.Str()
			switch k.Str() {
			case "keywordLocation":
				x.KeywordLocation = normalizePointer(s)
			case "instanceLocation":
				x.InstanceLocation, x.instanceSet = normalizePointer(s), true
			case "absoluteKeywordLocation":
				x.AbsoluteKeywordLocation = s
			case "keyword":
				x.Keyword, x.keywordSet = s, true
			case "message":
				x.Message = s
			default:
				return nil, fileError(doc, k, `test %d: unknown expect field %q (known: %s)`, i, k.Str(), strings.Join(expectFields, ", "))
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// normalizePointer accepts a pointer in URI-fragment form ("#/a") as well as plain.
func normalizePointer(s string) string {
	if strings.HasPrefix(s, "#") {
		return s[1:]
	}
	return s
}

// match reports whether an error satisfies the expectation.
func (x *Expect) match(e *validate.Error) bool {
	if x.KeywordLocation != "" && x.KeywordLocation != e.KeywordLocation {
		return false
	}
	if x.instanceSet && x.InstanceLocation != e.InstanceLocation {
		return false
	}
	if x.AbsoluteKeywordLocation != "" && x.AbsoluteKeywordLocation != e.AbsoluteKeywordLocation {
		return false
	}
	if x.keywordSet && x.Keyword != e.Keyword {
		return false
	}
	if x.Message != "" && !strings.Contains(e.Message, x.Message) {
		return false
	}
	return true
}

// suiteDraftDir says whether s names a directory of the JSON-Schema-Test-Suite's layout
// (^draft(4|6|7|2019-09|2020-12)$).
func suiteDraftDir(s string) bool {
	switch s {
	case "draft4", "draft6", "draft7", "draft2019-09", "draft2020-12":
		return true
	}
	return false
}

// suiteLayout reads what the JSON-Schema-Test-Suite's layout says about a file: the draft
// of its directory (nil if none), whether it tests format assertion (optional/format/) and
// whether it tests content assertion (optional/content.json).
func suiteLayout(name string) (draft *schema.Draft, assertFormat, assertContent bool) {
	segs := strings.Split(path.Clean(strings.ReplaceAll(name, "\\", "/")), "/")
	for i, s := range segs {
		if suiteDraftDir(s) {
			draft, _ = schema.DraftByName(s)
			rest := segs[i+1:]
			assertFormat = len(rest) >= 3 && rest[0] == "optional" && rest[1] == "format"
			assertContent = len(rest) == 2 && rest[0] == "optional" && rest[1] == "content.json"
		}
	}
	return draft, assertFormat, assertContent
}
