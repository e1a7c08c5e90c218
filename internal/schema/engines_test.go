package schema_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/bundle"
	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/coverage"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/sample"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The keyword model's contract with the engines: the test enumerates schema.Keywords and
// asks every engine that must handle keywords whether it handles each entry in each of
// its drafts, by running the engine on a schema that uses the keyword. A keyword added to
// the model makes each engine that does not handle it yet fail here (see
// TestKeywordModelCatchesNewKeywords), instead of being skipped silently.

// engine is one engine's side of the contract: check returns why the engine does not
// handle keyword k in draft d, or nil.
type engine struct {
	name  string
	check func(d *schema.Draft, k *schema.Keyword) error
}

var engines = []engine{
	{"schema (compiler)", checkCompiler},
	{"lint", checkLint},
	{"bundle", checkBundle},
	{"catalog", checkCatalog},
	{"coverage", checkCoverage},
	{"validate (report)", checkValidateReport},
	{"sample", checkSample},
}

// pending are the engines that still read keywords their own way (issue 21): diff's
// readNode switches on keyword names and keeps a typeSet of its own.
var pending = []string{"diff"}

// samples are values of the keywords that make each of them act (a valid schema needs
// them); applicators without one get a subschema in their shape, {}.
var samples = map[string]string{
	"$schema": `"%s"`, "$vocabulary": `{}`, "id": `"https://jstk.test/other.json"`,
	"$id": `"https://jstk.test/other.json"`, "$anchor": `"a"`, "$dynamicAnchor": `"a"`, "$recursiveAnchor": `true`,
	"$ref": `"#"`, "$recursiveRef": `"#"`, "$dynamicRef": `"#"`, "$comment": `"c"`,
	"type": `"string"`, "enum": `[1, "a"]`, "const": `"a"`, "format": `"date"`,
	"multipleOf": `2`, "minimum": `1`, "maximum": `1`, "exclusiveMinimum": `1`, "exclusiveMaximum": `1`,
	"minLength": `1`, "maxLength": `1`, "pattern": `"a"`, "contentEncoding": `"base64"`, "contentMediaType": `"application/json"`,
	"minItems": `1`, "maxItems": `1`, "uniqueItems": `true`, "minContains": `1`, "maxContains": `1`,
	"minProperties": `1`, "maxProperties": `1`, "required": `["a"]`, "dependentRequired": `{"a": ["b"]}`,
	"title": `"t"`, "description": `"d"`, "default": `1`, "examples": `[1]`, "readOnly": `true`, "writeOnly": `true`,
	"deprecated": `true`,
}

// samples4 are the values that differ in draft 4: exclusiveMinimum and exclusiveMaximum
// are booleans there, which make minimum and maximum exclusive.
var samples4 = map[string]string{"exclusiveMinimum": `true`, "exclusiveMaximum": `true`}

// modifies4 are the draft 4 keywords that only modify another, and act beside it.
var modifies4 = map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}

// beside are the keywords some keywords act only beside.
var beside = map[string]string{
	"then": `"if": {}`, "else": `"if": {}`, "additionalItems": `"items": [{}]`,
	"minContains": `"contains": {}`, "maxContains": `"contains": {}`,
}

// shaped wraps a subschema in the shape of a keyword's value.
func shaped(sh schema.Shape, sub string) string {
	switch sh {
	case schema.SchemaArray:
		return "[" + sub + "]"
	case schema.SchemaMap, schema.DepsMap:
		return `{"a": ` + sub + "}"
	}
	return sub
}

// sampleSchema is a schema of draft d that uses keyword k (with sub as its subschema, when
// it holds some); ok is false when the test has no sample value for k.
func sampleSchema(d *schema.Draft, k *schema.Keyword, sub string) (string, bool) {
	val, ok := samples[k.Name]
	if v, has := samples4[k.Name]; has && d.Version == 4 {
		val = v
	}
	switch {
	case k.Shape != schema.NoSchema:
		val, ok = shaped(k.Shape, sub), true
	case k.Name == "$schema":
		val = fmt.Sprintf(val, d.URL)
	}
	members := []string{fmt.Sprintf(`"$schema": %q`, d.URL)}
	if k.Name != "$schema" {
		members = append(members, fmt.Sprintf("%q: %s", k.Name, val))
	}
	if c, has := beside[k.Name]; has {
		members = append(members, c)
	}
	if m, has := modifies4[k.Name]; has && d.Version == 4 {
		members = append(members, fmt.Sprintf("%q: 1", m))
	}
	return "{" + strings.Join(members, ", ") + "}", ok
}

// constrains reports a keyword that can change a verdict in every run: an applicator, an
// assertion or a reference.
func constrains(k *schema.Keyword) bool {
	return k.Kind == schema.Applicator || k.Kind == schema.Assertion || k.Kind == schema.Reference
}

// checkCompiler: the compiler looks up every keyword that acts on instances or names a
// schema (applicators, assertions, references, identifiers, annotations asserted on
// request or holding subschemas), in every draft that reads it.
func checkCompiler(d *schema.Draft, k *schema.Keyword) error {
	if k.Kind == schema.Core || k.Support == schema.PointerOnly ||
		k.Kind == schema.Annotation && !k.OnRequest && k.Shape == schema.NoSchema {
		return nil
	}
	text, _ := sampleSchema(d, k, "{}")
	doc, err := source.ParseJSON("s.json", []byte(text), nil)
	if err != nil {
		return err
	}
	seen := schema.LookUps(func() {
		c := schema.NewCompiler(&schema.Options{Draft: d, NoMetaValidation: true})
		if err := c.AddDocument("https://jstk.test/s.json", doc); err == nil {
			_, _ = c.Compile("https://jstk.test/s.json")
		}
	})
	if !seen[k.Name] {
		return fmt.Errorf("compiling %s never reads %s", text, k.Name)
	}
	return nil
}

// runLint lints one schema with every rule on.
func runLint(text string) ([]lint.Finding, error) {
	fsys := workspace.Memory(map[string]string{"s.json": text})
	res, err := lint.Run(context.Background(), []lint.Source{{Name: "s.json", Path: "s.json"}}, fsys,
		&lint.Options{Workers: 1, Rules: map[string]lint.Setting{"all": "on"}})
	if err != nil {
		return nil, err
	}
	return res.Findings, nil
}

func hasFinding(fs []lint.Finding, pointer string, rules ...string) bool {
	return slices.ContainsFunc(fs, func(f lint.Finding) bool { return f.Pointer == pointer && slices.Contains(rules, f.Rule) })
}

// checkLint: lint knows the keywords of each draft (no unknown, misspelled or wrong-draft
// finding), reports those jstk only tolerates (Compatible, Lenient) as of another draft, and
// knows which instance types a keyword acts on.
func checkLint(d *schema.Draft, k *schema.Keyword) error {
	text, ok := sampleSchema(d, k, "{}")
	if !ok {
		return fmt.Errorf("the test has no sample value of %s", k.Name)
	}
	fs, err := runLint(text)
	if err != nil {
		return err
	}
	ptr := "/" + source.EscapeToken(k.Name)
	known := !hasFinding(fs, ptr, "unknown-keyword", "misspelled-keyword", "wrong-draft-keyword")
	switch k.Support {
	case schema.Compatible, schema.Lenient:
		if !hasFinding(fs, ptr, "wrong-draft-keyword") {
			return fmt.Errorf("lint does not report %s, which %s does not define", k.Name, d)
		}
		return nil
	}
	if !known {
		return fmt.Errorf("lint calls %s unknown in %s", k.Name, d)
	}
	if k.Types != schema.TypeAll && k.Types&schema.TypeNull == 0 {
		typed := strings.Replace(text, "{", `{"type": "null", `, 1)
		if fs, err = runLint(typed); err != nil {
			return err
		}
		if !hasFinding(fs, ptr, "type-keyword-mismatch") {
			return fmt.Errorf("lint does not know that %s applies to %ss only: nothing reported in %s", k.Name, k.Types, typed)
		}
	}
	return nil
}

// checkBundle: bundle follows a reference inside every keyword that holds subschemas, and
// embeds the document it names.
func checkBundle(d *schema.Draft, k *schema.Keyword) error {
	if k.Shape == schema.NoSchema || k.Support == schema.Lenient {
		return nil
	}
	text, _ := sampleSchema(d, k, `{"$ref": "other.json"}`)
	files := map[string]string{"s.json": text, "other.json": `{"type": "string"}`}
	fsys := workspace.Memory(files)
	doc, err := schema.ParseDocument("s.json", []byte(text), nil)
	if err != nil {
		return err
	}
	res, err := bundle.Bundle(context.Background(), "s.json", schema.FileURI(fsys.Abs("s.json")), doc,
		&bundle.Options{Loader: &schema.Loader{FS: fsys}})
	if err != nil {
		return err
	}
	if len(res.Embedded) != 1 {
		return fmt.Errorf("bundle embeds %d documents for %s, want other.json", len(res.Embedded), text)
	}
	return nil
}

// checkCatalog: catalog finds the references inside every keyword whose subschemas the
// compiler indexes.
func checkCatalog(d *schema.Draft, k *schema.Keyword) error {
	if d.IndexedShape(k.Name) == schema.NoSchema {
		return nil
	}
	text, _ := sampleSchema(d, k, `{"$ref": "missing.json"}`)
	w, err := catalog.Scan(context.Background(), workspace.Memory(map[string]string{"s.json": text}), nil)
	if err != nil {
		return err
	}
	es := w.Entries()
	if len(es) != 1 || es[0].UnresolvedRefs != 1 {
		return fmt.Errorf("catalog does not find the reference in %s: %+v", text, es)
	}
	return nil
}

// checkCoverage: coverage measures every keyword that can change a verdict (formats with
// AssertFormat, as the schema is compiled).
func checkCoverage(d *schema.Draft, k *schema.Keyword) error {
	if !constrains(k) && !(k.OnRequest && k.Name == "format") || k.Support == schema.PointerOnly {
		return nil
	}
	text, ok := sampleSchema(d, k, "{}")
	if !ok {
		return fmt.Errorf("the test has no sample value of %s", k.Name)
	}
	doc, err := source.ParseJSON("s.json", []byte(text), nil)
	if err != nil {
		return err
	}
	c := schema.NewCompiler(&schema.Options{Draft: d, AssertFormat: true})
	if err := c.AddDocument("https://jstk.test/s.json", doc); err != nil {
		return err
	}
	s, err := c.Compile("https://jstk.test/s.json")
	if err != nil {
		return err
	}
	res, err := coverage.Measure(context.Background(), s, []coverage.Source{{Name: "i.json", Text: []byte(`{}`)}},
		&coverage.Options{Options: schematest.Options{AssertFormat: true, Workers: 1}})
	if err != nil {
		return err
	}
	res.ListAll()
	measured := k.Name
	if m, has := modifies4[k.Name]; has && d.Version == 4 {
		measured = m // measured as part of the keyword it modifies
	}
	for _, e := range res.Entries {
		if e.Keyword == measured && e.Pointer == "" {
			return nil
		}
	}
	return fmt.Errorf("coverage does not measure %s in %s", k.Name, text)
}

// checkValidateReport: validate has a rule code for every keyword the evaluator reports
// failures at.
func checkValidateReport(_ *schema.Draft, k *schema.Keyword) error {
	if !k.Fails || slices.ContainsFunc(validate.Rules, func(r diag.Rule) bool { return r.Code == "validate/"+k.Name }) {
		return nil
	}
	return fmt.Errorf("validate has no rule validate/%s", k.Name)
}

// checkSample: sample reads every keyword that can change a verdict (and the annotations
// asserted on request, examples and default) in every draft of the keyword, and an
// instance it generates for a schema that uses the keyword is valid against it (the
// subschemas are {"type": "string"}, which every applicator's sample schema can satisfy).
func checkSample(d *schema.Draft, k *schema.Keyword) error {
	if !constrains(k) && !k.OnRequest && k.Name != "examples" && k.Name != "default" || k.Support == schema.PointerOnly {
		return nil
	}
	if !sample.Reads(d, k.Name) {
		return fmt.Errorf("sample does not read %s", k.Name)
	}
	text, ok := sampleSchema(d, k, `{"type": "string"}`)
	if !ok {
		return fmt.Errorf("the test has no sample value of %s", k.Name)
	}
	if k.Kind == schema.Reference {
		// A schema that is only a reference to itself is a loop for the validator: put
		// the reference one level into the instance.
		text = fmt.Sprintf(`{"$schema": %q, "type": "object", "properties": {"a": {%q: "#"}}}`, d.URL, k.Name)
	}
	doc, err := source.ParseJSON("s.json", []byte(text), nil)
	if err != nil {
		return err
	}
	c := schema.NewCompiler(&schema.Options{Draft: d})
	if err := c.AddDocument("https://jstk.test/s.json", doc); err != nil {
		return err
	}
	s, err := c.Compile("https://jstk.test/s.json")
	if err != nil {
		return err
	}
	res, err := sample.Generate(context.Background(), s, &sample.Options{Count: 2, Seed: 1})
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return fmt.Errorf("sample of %s: %s", text, res.Failure.Reason)
	}
	for _, v := range res.Values() {
		if ok, err := s.Valid(v); err != nil || !ok {
			return fmt.Errorf("sample of %s is %s, which is not valid against it (%v)", text, source.AppendJSON(nil, v), err)
		}
	}
	return nil
}

// checkAll runs every engine on every entry of the model in each of its drafts and returns
// the failures, by engine.
func checkAll() map[string][]string {
	out := map[string][]string{}
	for i := range schema.Keywords() {
		k := &schema.Keywords()[i]
		for _, d := range k.Drafts.Drafts() {
			for _, e := range engines {
				if err := e.check(d, k); err != nil {
					out[e.name] = append(out[e.name], fmt.Sprintf("%s %s: %v", d, k.Name, err))
				}
			}
		}
	}
	return out
}

// Every engine handles every keyword of the model. Not parallel: the compiler check
// listens to the compiler's lookups.
func TestKeywordModelEngines(t *testing.T) {
	failures := checkAll()
	for _, e := range engines {
		for _, f := range failures[e.name] {
			t.Errorf("%s: %s", e.name, f)
		}
	}
	t.Logf("pending (still reading keywords their own way): %s", strings.Join(pending, ", "))
}

// The test above can fail: with two made-up keywords added to the model, an assertion on
// strings and an applicator on objects, the engines with code of their own for each
// keyword (the compiler, coverage, sample) fail until they handle them, while those that take
// their knowledge from the model (lint, bundle, catalog) handle them already. Not
// parallel: it changes the model while it runs.
func TestKeywordModelCatchesNewKeywords(t *testing.T) {
	restore := schema.AddKeywords(
		schema.Keyword{Name: "minWords", Kind: schema.Assertion, Types: schema.TypeString, Drafts: schema.AllDrafts,
			Support: schema.Defined, Vocab: "validation", Fails: true},
		schema.Keyword{Name: "eachValue", Kind: schema.Applicator, Shape: schema.OneSchema, Types: schema.TypeObject,
			Drafts: schema.InDraft2020, Support: schema.Defined, Vocab: "applicator"})
	defer restore()
	samples["minWords"] = `2`
	defer delete(samples, "minWords")

	got := map[string][]string{}
	for name, fs := range checkAll() {
		for _, f := range fs {
			if strings.Contains(f, "minWords") || strings.Contains(f, "eachValue") {
				got[name] = append(got[name], f)
			} else {
				t.Errorf("%s fails on a keyword that is not made up: %s", name, f)
			}
		}
	}
	want := map[string]int{
		"schema (compiler)": 6, // minWords in 5 drafts, eachValue in 1
		"coverage":          6,
		// validate.Rules is made from the model when the program starts: a keyword added
		// while it runs is missing from it, and a keyword added to the table is in it.
		"validate (report)": 5,
		// sample reads keywords through tables of its own (sample.Reads), as the compiler.
		"sample": 6,
	}
	for _, e := range engines {
		if len(got[e.name]) != want[e.name] {
			t.Errorf("%s: %d failures on the made-up keywords, want %d:\n%s", e.name, len(got[e.name]), want[e.name],
				strings.Join(got[e.name], "\n"))
		}
	}
	for _, name := range []string{"schema (compiler)", "coverage", "sample"} {
		for _, f := range got[name] {
			t.Logf("%s: %s", name, f)
		}
	}
	if _, ok := schema.Draft2020.Keyword("eachValue"); !ok || schema.Draft2020.SubschemaShape("eachValue") != schema.OneSchema {
		t.Error("the made-up applicator is not in the model")
	}
	restore()
	if _, ok := schema.Draft2020.Keyword("eachValue"); ok {
		t.Error("the model keeps the made-up keyword after restoring")
	}
}
