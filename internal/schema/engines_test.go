package schema_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/bundle"
	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/coverage"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/infer"
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
	{"schema (trace)", checkTrace},
	{"schema (annotations)", checkAnnotates},
	{"lint", checkLint},
	{"bundle", checkBundle},
	{"catalog", checkCatalog},
	{"coverage", checkCoverage},
	{"validate (report)", checkValidateReport},
	{"diff", checkDiff},
	{"sample", checkSample},
	{"infer", checkInfer},
}

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

// traceInstances are instances of every type, which make every keyword's sample schema
// act on one of them at least.
var traceInstances = []string{`null`, `true`, `1`, `1.5`, `"a"`, `""`, `[]`, `["a", 1]`, `{}`, `{"a": 1, "b": 2}`}

// checkTrace: Schema.Trace reports events at a keyword exactly when the model says it is
// Traced (the engines that follow the trace, coverage, take their list from it).
func checkTrace(d *schema.Draft, k *schema.Keyword) error {
	if k.Support == schema.PointerOnly || k.Kind == schema.Reference || k.Kind == schema.Core || k.Kind == schema.Identifier {
		return nil
	}
	text, ok := sampleSchema(d, k, "{}")
	if !ok {
		return fmt.Errorf("the test has no sample value of %s", k.Name)
	}
	s, err := compileText(d, "s.json", text)
	if err != nil {
		return err
	}
	traced := false
	for _, in := range traceInstances {
		v, err := source.ParseJSON("i.json", []byte(in), nil)
		if err != nil {
			return err
		}
		if _, err := s.Trace(v.Root, func(ev schema.Event) { traced = traced || ev.Keyword == k.Name }); err != nil {
			return err
		}
	}
	if traced != k.Traced {
		return fmt.Errorf("Trace reports events at %s in %s: %v, the model says Traced: %v", k.Name, text, traced, k.Traced)
	}
	return nil
}

// checkAnnotates: an applicator to properties or items (2019-09 and later) marks them
// evaluated, for unevaluatedProperties or unevaluatedItems false beside it, exactly when
// the model says it Annotates.
func checkAnnotates(d *schema.Draft, k *schema.Keyword) error {
	if d.Version < 2019 || k.Kind != schema.Applicator || k.Support != schema.Defined ||
		k.Types != schema.TypeObject && k.Types != schema.TypeArray || strings.HasPrefix(k.Name, "unevaluated") {
		return nil
	}
	closer, instance := `"unevaluatedItems": false`, `[1, 2]`
	switch {
	case k.Types == schema.TypeObject:
		closer, instance = `"unevaluatedProperties": false`, `{"a": 1}`
	case k.Shape == schema.SchemaArray:
		instance = `[1]` // one subschema, for the first item (prefixItems)
	}
	text, _ := sampleSchema(d, k, "{}")
	text = strings.TrimSuffix(text, "}") + ", " + closer + "}"
	s, err := compileText(d, "s.json", text)
	if err != nil {
		return err
	}
	v, err := source.ParseJSON("i.json", []byte(instance), nil)
	if err != nil {
		return err
	}
	valid, err := s.Valid(v.Root)
	if err != nil {
		return err
	}
	if valid != k.Annotates {
		return fmt.Errorf("%s is valid against %s: %v, the model says Annotates: %v", instance, text, valid, k.Annotates)
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
	if !k.Fails || slices.ContainsFunc(validate.Rules(), func(r diag.Rule) bool { return r.Code == "validate/"+k.Name }) {
		return nil
	}
	return fmt.Errorf("validate has no rule validate/%s", k.Name)
}

// diffValues are two values of each keyword without subschemas that make two schemas
// accept different instances ("": the keyword left out), for diff's check; a keyword with
// subschemas holds {"type": "string"} in one, {"type": "number"} in the other.
var diffValues = map[string][2]string{
	"type": {`"string"`, `"number"`}, "enum": {`[1, "a"]`, `[1]`}, "const": {`"a"`, `"b"`}, "format": {`"date"`, `"email"`},
	"multipleOf": {`2`, `3`}, "minimum": {`1`, `2`}, "maximum": {`1`, `2`}, "exclusiveMinimum": {`1`, `2`}, "exclusiveMaximum": {`1`, `2`},
	"minLength": {`1`, `2`}, "maxLength": {`1`, `2`}, "pattern": {`"a"`, `"b"`},
	"minItems": {`1`, `2`}, "maxItems": {`1`, `2`}, "uniqueItems": {`true`, `false`}, "minContains": {`1`, `2`}, "maxContains": {`1`, `2`},
	"minProperties": {`1`, `2`}, "maxProperties": {`1`, `2`}, "required": {`["a"]`, `["b"]`},
	"dependentRequired": {`{"a": ["b"]}`, `{"a": ["c"]}`}, "minWords": {`2`, `3`},
	"$ref": {`"#/$defs/s"`, `"#/$defs/n"`}, "$dynamicRef": {`"#/$defs/s"`, `"#/$defs/n"`}, "$recursiveRef": {`"#"`, ""},
}

// diffValues4 are the values that differ in draft 4 (exclusive bounds are booleans there).
var diffValues4 = map[string][2]string{"exclusiveMinimum": {`true`, `false`}, "exclusiveMaximum": {`true`, `false`}}

// diffBeside are the keywords some keywords act only beside, for diff: an if decides
// only with a then, an else only under an if that can fail, a reference needs a target.
var diffBeside = map[string]string{
	"if": `"then": false`, "else": `"if": false`,
	"$ref": `"$defs": {"s": {"type": "string"}, "n": {"type": "number"}}`, "$dynamicRef": `"$defs": {"s": {"type": "string"}, "n": {"type": "number"}}`,
}

// diffSample is a schema of draft d whose keyword k has the value val ("": none).
func diffSample(d *schema.Draft, k *schema.Keyword, val string) string {
	members := []string{fmt.Sprintf(`"$schema": %q`, d.URL)}
	if val != "" {
		members = append(members, fmt.Sprintf("%q: %s", k.Name, val))
	}
	if c, has := diffBeside[k.Name]; has {
		members = append(members, c)
	} else if c, has := beside[k.Name]; has {
		members = append(members, c)
	}
	if m, has := modifies4[k.Name]; has && d.Version == 4 {
		members = append(members, fmt.Sprintf("%q: 1", m))
	}
	return "{" + strings.Join(members, ", ") + "}"
}

// compileText compiles a schema of draft d with formats asserted.
func compileText(d *schema.Draft, name, text string) (*schema.Schema, error) {
	doc, err := source.ParseJSON(name, []byte(text), nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(&schema.Options{Draft: d, AssertFormat: true, NoMetaValidation: true})
	uri := "https://jstk.test/" + name
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

// checkDiff: diff's rule engine sees every keyword that can change a verdict (formats
// asserted): two schemas that differ only in the keyword's value make it report a
// change of its own (not a semantic difference the search found, nor a keyword it does
// not read), with the search off.
func checkDiff(d *schema.Draft, k *schema.Keyword) error {
	if !constrains(k) && !(k.OnRequest && k.Name == "format") || k.Support == schema.PointerOnly {
		// contents assert only with schema.Options.AssertContent, which no caller of diff
		// sets (diff reads them in draft 7, where they are a convention of their own)
		return nil
	}
	vals, ok := diffValues[k.Name]
	if v, has := diffValues4[k.Name]; has && d.Version == 4 {
		vals = v
	}
	if k.Shape != schema.NoSchema {
		vals, ok = [2]string{shaped(k.Shape, `{"type": "string"}`), shaped(k.Shape, `{"type": "number"}`)}, true
		if k.Shape == schema.DepsMap || k.Name == "dependentSchemas" {
			// a dependent schema applies to the object itself, never a string or a number
			vals = [2]string{shaped(k.Shape, `{"required": ["b"]}`), shaped(k.Shape, `{"required": ["c"]}`)}
		}
	}
	if !ok {
		return fmt.Errorf("the test has no values of %s for diff", k.Name)
	}
	texts := [2]string{diffSample(d, k, vals[0]), diffSample(d, k, vals[1])}
	var ss [2]*schema.Schema
	for i, name := range []string{"old.json", "new.json"} {
		s, err := compileText(d, name, texts[i])
		if err != nil {
			return err
		}
		ss[i] = s
	}
	res, err := diff.Compare(context.Background(), ss[0], ss[1], &diff.Options{Direction: diff.Full, SearchBudget: -1})
	if err != nil {
		return err
	}
	var kinds []string
	for _, c := range res.Changes {
		switch c.Kind {
		case "keyword-not-read":
			return fmt.Errorf("%s (%s to %s)", c.Message, texts[0], texts[1])
		case "semantic-difference":
		default:
			kinds = append(kinds, c.Kind)
		}
	}
	if len(kinds) == 0 {
		return fmt.Errorf("diff sees no change from %s to %s (%s, %s)", texts[0], texts[1], res.Backward, res.Forward)
	}
	return nil
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

// checkInfer: infer, refining a --from schema that uses the keyword, either reads it
// (infer.Reads: no note about it) or says in a note that it is not kept: it never drops a
// keyword silently.
func checkInfer(d *schema.Draft, k *schema.Keyword) error {
	if k.Support == schema.PointerOnly {
		return nil
	}
	text, ok := sampleSchema(d, k, `{"type": "string"}`)
	if !ok {
		return fmt.Errorf("the test has no sample value of %s", k.Name)
	}
	s, err := compileText(d, "s.json", text)
	if err != nil {
		return err
	}
	res, err := infer.Run(context.Background(), []infer.Source{{Name: "i.json", Text: []byte(`{"a": "x"}`)}}, nil,
		&infer.Options{From: s, Draft: d, Workers: 1})
	if err != nil {
		return err
	}
	noted := slices.ContainsFunc(res.Notes(), func(n string) bool { return strings.Contains(n, "/"+k.Name+": not kept") })
	switch {
	case infer.Reads(k.Name) && noted:
		return fmt.Errorf("infer reads %s, yet says it does not keep it: %q", k.Name, res.Notes())
	case !infer.Reads(k.Name) && !noted:
		return fmt.Errorf("infer does not read %s in %s, and says nothing of it: %q", k.Name, text, res.Notes())
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
}

// The test above can fail: with two made-up keywords added to the model, an assertion on
// strings and an applicator on objects, the engines with code of their own for each
// keyword (the compiler and its trace, diff, sample) fail until they handle them, while those that take
// their knowledge from the model (lint, bundle, catalog, coverage) handle them already, and
// infer names them in a note. Not
// parallel: it changes the model while it runs.
func TestKeywordModelCatchesNewKeywords(t *testing.T) {
	validate.Rules() // made on its first use: here, before the keywords are added, as in a program that has reported
	restore := schema.AddKeywords(
		schema.Keyword{Name: "minWords", Kind: schema.Assertion, Types: schema.TypeString, Drafts: schema.AllDrafts,
			Support: schema.Defined, Vocab: "validation", Fails: true, Traced: true},
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
		// the evaluator reports no events at minWords, which the model says it traces
		"schema (trace)": 5,
		// coverage takes what it measures from the model (Traced, the applicators): it
		// measures both, with the outcomes of the model's columns
		// validate.Rules is made from the model on its first use: a keyword added after that
		// is missing from it, and a keyword added to the table is in it.
		"validate (report)": 5,
		// diff answers "unknown" at a keyword of the model it does not read, and names it
		// (keyword-not-read): sound, but not handled
		"diff": 6,
		// sample reads keywords through tables of its own (sample.Reads), as the compiler.
		"sample": 6,
		// infer drops a keyword it does not read with a note naming it (loud, so handled);
		// lint, bundle, catalog and coverage take the keywords from the model.
	}
	for _, e := range engines {
		if len(got[e.name]) != want[e.name] {
			t.Errorf("%s: %d failures on the made-up keywords, want %d:\n%s", e.name, len(got[e.name]), want[e.name],
				strings.Join(got[e.name], "\n"))
		}
	}
	for _, name := range []string{"schema (compiler)", "schema (trace)", "diff", "sample"} {
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

// A made-up anchor keyword added to the model reaches the engines that index anchors from
// the model's Draft.Anchors (the compiler, lint, bundle, catalog): a reference to the anchor it names
// resolves in each of them, and lint's rules on anchors see it. Not parallel: it changes the model while it runs.
func TestKeywordModelNewAnchor(t *testing.T) {
	const (
		target = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$label": "x", "type": "string"}}}`
		local  = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"a": {"$label": "x", "type": "string"}}, "$ref": "#x"}`
		remote = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "other.json#x"}`
	)
	check := func() map[string]error {
		out := map[string]error{}
		fs, err := runLint(local)
		if err == nil && hasFinding(fs, "/$ref", "unresolved-ref", "unknown-local-ref") {
			err = fmt.Errorf("lint does not resolve #x: %+v", fs)
		}
		out["lint"] = err
		// Lint keeps a definition that declares an anchor (fixes and orphan-definitions
		// leave it), and checks the anchor's name.
		const alone = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "$defs": {"a": {"$label": "_x"}}}`
		fs, err = runLint(alone)
		if err == nil && (hasFinding(fs, "/$defs/a", "orphan-definitions") || !hasFinding(fs, "/$defs/a/$label", "portable-anchor-names")) {
			err = fmt.Errorf("lint does not take $label for an anchor in %s: %+v", alone, fs)
		}
		out["lint (definitions)"] = err
		w, err := catalog.Scan(context.Background(), workspace.Memory(map[string]string{"s.json": local}), nil)
		if err == nil && (len(w.Entries()) != 1 || w.Entries()[0].UnresolvedRefs != 0) {
			err = fmt.Errorf("catalog does not resolve #x: %+v", w.Entries())
		}
		out["catalog"] = err
		fsys := workspace.Memory(map[string]string{"s.json": remote, "other.json": target})
		doc, err := schema.ParseDocument("s.json", []byte(remote), nil)
		if err == nil {
			_, err = bundle.Bundle(context.Background(), "s.json", schema.FileURI(fsys.Abs("s.json")), doc,
				&bundle.Options{Loader: &schema.Loader{FS: fsys}})
		}
		out["bundle"] = err
		c := schema.NewCompiler(&schema.Options{NoMetaValidation: true})
		doc, err = schema.ParseDocument("s.json", []byte(local), nil)
		if err == nil {
			if err = c.AddDocument("https://jstk.test/s.json", doc); err == nil {
				_, err = c.Compile("https://jstk.test/s.json")
			}
		}
		out["schema (compiler)"] = err
		return out
	}
	// Without $label in the model, no engine finds the anchor.
	for name, err := range check() {
		if err == nil {
			t.Errorf("%s resolves an anchor the model does not know", name)
		}
	}
	restore := schema.AddKeywords(schema.Keyword{Name: "$label", Kind: schema.Identifier, Types: schema.TypeAll,
		Drafts: schema.InDraft2020, Support: schema.Defined, Anchor: schema.PlainAnchor})
	defer restore()
	if diff := cmp.Diff([]string{"$anchor", "$dynamicAnchor", "$label"}, schema.Draft2020.Anchors()); diff != "" {
		t.Fatalf("Draft2020.Anchors with $label: %s", diff)
	}
	for name, err := range check() {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A made-up OpenAPI keyword added to the model (Support OpenAPI) reaches lint: a JSON
// Schema that uses it is told it is an OpenAPI keyword, and the schemas of an OpenAPI
// document know it. Not parallel: it changes the model while it runs.
func TestKeywordModelNewOpenAPIKeyword(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"s.json":   `{"$schema": "https://json-schema.org/draft/2020-12/schema", "sortKey": "a"}`,
		"api.json": `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {"A": {"type": "object", "sortKey": "a"}}}}`,
	})
	check := func(srcs ...lint.Source) (jsonSchema, api []lint.Finding) {
		t.Helper()
		for _, src := range srcs {
			res, err := lint.Run(context.Background(), []lint.Source{src}, fsys, &lint.Options{Workers: 1, Rules: map[string]lint.Setting{"all": "on"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if strings.HasSuffix(f.Pointer, "/sortKey") {
					if src.Name == "s.json" {
						jsonSchema = append(jsonSchema, f)
					} else {
						api = append(api, f)
					}
				}
			}
		}
		return jsonSchema, api
	}
	const msg = "sortKey is an OpenAPI keyword; JSON Schema ignores it"
	jsonSrc, apiSrc := lint.Source{Name: "s.json", Path: "s.json"}, lint.Source{Name: "api.json", Path: "api.json", Pointer: "/components/schemas/A"}
	// Before: the OpenAPI document's schema is told sortKey is unknown. (Not the JSON
	// Schema: lint keeps what it decided about a name in a draft for the life of the
	// process, as the model does not change outside tests.)
	if _, api := check(apiSrc); len(api) != 1 {
		t.Fatalf("before sortKey is in the model, lint on an OpenAPI document's schema: %+v, want one finding", api)
	}
	restore := schema.AddKeywords(schema.Keyword{Name: "sortKey", Kind: schema.Annotation, Types: schema.TypeAll,
		Drafts: schema.InOpenAPI30, Support: schema.OpenAPI})
	defer restore()
	js, api := check(jsonSrc, apiSrc)
	if len(js) != 1 || js[0].Rule != "unknown-keyword" || js[0].Message != msg {
		t.Errorf("lint on a JSON Schema with sortKey: %+v, want one unknown-keyword: %s", js, msg)
	}
	if len(api) != 0 {
		t.Errorf("lint on an OpenAPI document's schema with sortKey: %+v, want nothing", api)
	}
}

// A made-up place of reusable schemas added to the model reaches catalog, which counts the
// definitions a schema's root holds in every such place (schema.DefinitionsKeywords), and
// lint, which reports the definitions nothing references. Not parallel: it changes the
// model while it runs.
func TestKeywordModelNewDefinitionsPlace(t *testing.T) {
	const text = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "$defs": {"a": {}}, "$library": {"b": {}, "c": {}}}`
	orphans := func() (n int) {
		t.Helper()
		fs, err := runLint(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Rule == "orphan-definitions" && strings.HasPrefix(f.Pointer, "/$library/") {
				n++
			}
		}
		return n
	}
	defs := func() int {
		t.Helper()
		w, err := catalog.Scan(context.Background(), workspace.Memory(map[string]string{"s.json": text}), nil)
		if err != nil || len(w.Entries()) != 1 {
			t.Fatalf("catalog.Scan: %v, %+v", err, w)
		}
		return w.Entries()[0].Defs
	}
	if got, orphaned := defs(), orphans(); got != 1 || orphaned != 0 {
		t.Fatalf("before $library is in the model, catalog counts %d definitions (want 1), lint %d orphans under it (want 0)", got, orphaned)
	}
	restore := schema.AddKeywords(schema.Keyword{Name: "$library", Kind: schema.Core, Shape: schema.SchemaMap,
		Types: schema.TypeAll, Drafts: schema.InDraft2020, Support: schema.Defined})
	defer restore()
	if diff := cmp.Diff([]string{"$defs", "$library", "definitions"}, schema.DefinitionsKeywords()); diff != "" {
		t.Errorf("DefinitionsKeywords with $library: %s", diff)
	}
	if schema.Draft2020.DefinitionsKeyword() != "$defs" {
		t.Errorf("Draft2020.DefinitionsKeyword() = %q with $library, want $defs", schema.Draft2020.DefinitionsKeyword())
	}
	if got := defs(); got != 3 {
		t.Errorf("catalog counts %d definitions with $library in the model, want 3", got)
	}
	if got := orphans(); got != 2 {
		t.Errorf("lint reports %d orphan definitions under $library, want 2", got)
	}
}

// A made-up structural keyword added to the model (Keyword.Structural) reaches catalog,
// which takes an object of keywords with one, of the kind its shape says, for a schema.
// Not parallel: it changes the model while it runs.
func TestKeywordModelNewStructuralKeyword(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"shaped.json":     `{"title": "t", "eachValue": {"type": "string"}}`,
		"not-shaped.json": `{"title": "t", "eachValue": "string"}`,
	})
	detected := func() (out []string) {
		t.Helper()
		w, err := catalog.Scan(context.Background(), fsys, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range w.Entries() {
			out = append(out, e.Path+" "+e.DetectedBy)
		}
		return out
	}
	if got := detected(); len(got) != 0 {
		t.Fatalf("before eachValue is in the model, catalog finds schemas: %v", got)
	}
	restore := schema.AddKeywords(schema.Keyword{Name: "eachValue", Kind: schema.Applicator, Shape: schema.OneSchema,
		Types: schema.TypeObject, Drafts: schema.InDraft2020, Support: schema.Defined, Vocab: "applicator", Structural: true})
	defer restore()
	if diff := cmp.Diff([]string{"shaped.json keywords"}, detected()); diff != "" {
		t.Errorf("catalog with a structural eachValue in the model (-want +got):\n%s", diff)
	}
}

// A made-up keyword's Hint reaches lint's finding on a draft that does not define it, and
// its Default lint's finding on a keyword that constrains nothing. Not parallel: it
// changes the model while it runs.
func TestKeywordModelHintReachesLint(t *testing.T) {
	restore := schema.AddKeywords(schema.Keyword{Name: "eachValue", Kind: schema.Applicator, Shape: schema.OneSchema,
		Types: schema.TypeObject, Drafts: schema.InDraft2020, Support: schema.Defined, Vocab: "applicator",
		Hint: "use additionalProperties"},
		schema.Keyword{Name: "minWords", Kind: schema.Assertion, Types: schema.TypeString, Drafts: schema.InDraft2020,
			Support: schema.Defined, Vocab: "validation", Fails: true, Default: "0"})
	defer restore()
	dfs, err := runLint(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "minWords": 0}`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(dfs, func(f lint.Finding) bool {
		return f.Pointer == "/minWords" && f.Message == "minWords: 0 is the default"
	}) {
		t.Errorf("lint on minWords 0, whose default the model says is 0: %+v", dfs)
	}
	fs, err := runLint(`{"$schema": "http://json-schema.org/draft-06/schema#", "type": "object", "eachValue": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	const want = "eachValue is a keyword of 2020-12, not of draft-06, so it is ignored here; use additionalProperties"
	if !slices.ContainsFunc(fs, func(f lint.Finding) bool { return f.Rule == "wrong-draft-keyword" && f.Message == want }) {
		t.Errorf("lint on a draft 6 schema with eachValue: %+v, want wrong-draft-keyword: %s", fs, want)
	}
}
