package sample

import (
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"sync"
)

// This file is sample's side of the keyword model: the handlers that read a schema
// object's keywords into its info. infoKeywords read the keywords' values as written;
// infoChildren read the compiled subschemas of the applicators (schema.Schema.Children).

// Reads reports whether sample reads keyword name in draft d: a handler of its tables
// reads the keyword's value or its subschemas (in the drafts readsIn says), or generation
// follows it as a reference (the model's references, through schema.Schema.Ref and
// DynamicRef: gen.go). The keyword model's contract test (internal/schema) asks it about
// every keyword that can change a verdict; a keyword sample does not read is a failure
// there.
func Reads(d *schema.Draft, name string) bool {
	for _, k := range infoKeywords {
		if k.name == name && readsIn(d, name) {
			return true
		}
	}
	if infoChildren()[name] != nil {
		return true
	}
	k, ok := d.Keyword(name)
	return ok && k.Kind == schema.Reference
}

// readsIn reports whether the handler of keyword name reads it in draft d: where the
// model has the keyword (whatever its support), and a plain annotation (examples,
// default: hints of what to generate) in every draft.
func readsIn(d *schema.Draft, name string) bool {
	if _, ok := d.Keyword(name); ok {
		return true
	}
	for _, k := range schema.Keywords() {
		if k.Name == name && k.Kind == schema.Annotation && !k.OnRequest {
			return true
		}
	}
	return false
}

// infoKeyword reads one keyword's value, when the dialect applies it, into an info.
type infoKeyword struct {
	name string
	read func(g *gen, in *info, v source.Value)
}

// infoKeywords are the handlers of the keywords' values. Their order matters where one
// reads what another wrote (exclusiveMinimum after minimum, const after enum, default
// after examples): keep it.
var infoKeywords = []infoKeyword{
	{"type", readType},
	{"enum", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.Array {
			in.enum, in.hasEnum = v.Items(), true
		}
	}},
	// const is draft 6's, and draft 4's too unless Options.StrictDraft (a Lenient keyword, which kw
	// then leaves out), as the compiler applies it.
	{"const", func(_ *gen, in *info, v source.Value) { in.enum, in.hasEnum = []source.Value{v}, true }},

	{"minimum", func(_ *gen, in *info, v source.Value) { in.lower = ratOf(v) }},
	{"maximum", func(_ *gen, in *info, v source.Value) { in.upper = ratOf(v) }},
	{"exclusiveMinimum", readExclusiveMinimum},
	{"exclusiveMaximum", readExclusiveMaximum},
	{"multipleOf", func(_ *gen, in *info, v source.Value) {
		if r := ratOf(v); r != nil && r.Sign() > 0 {
			in.multipleOf = r
		}
	}},

	{"minLength", func(_ *gen, in *info, v source.Value) { in.minLen = countOf(v, 0) }},
	{"maxLength", func(_ *gen, in *info, v source.Value) { in.maxLen = countOf(v, -1) }},
	{"pattern", func(g *gen, in *info, v source.Value) {
		if v.Kind() == source.String {
			in.pattern, in.patternErr = g.patternGen(v.Str())
		}
	}},
	{"format", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.String {
			in.format = v.Str()
		}
	}},
	{"contentEncoding", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.String {
			in.contentEnc = v.Str()
		}
	}},
	{"contentMediaType", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.String {
			in.contentMed = v.Str()
		}
	}},

	{"minItems", func(_ *gen, in *info, v source.Value) { in.minItems = countOf(v, 0) }},
	{"maxItems", func(_ *gen, in *info, v source.Value) { in.maxItems = countOf(v, -1) }},
	{"uniqueItems", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.Bool {
			in.unique = v.Bool()
		}
	}},
	{"minContains", func(_ *gen, in *info, v source.Value) { in.minContains = countOf(v, 1) }},
	{"maxContains", func(_ *gen, in *info, v source.Value) { in.maxContains = countOf(v, -1) }},

	{"required", readRequired},
	{"minProperties", func(_ *gen, in *info, v source.Value) { in.minProps = countOf(v, 0) }},
	{"maxProperties", func(_ *gen, in *info, v source.Value) { in.maxProps = countOf(v, -1) }},
	{"dependencies", readDependencies},
	{"dependentRequired", readDependentRequired},
	{"properties", readPropertyOrder},

	{"examples", func(_ *gen, in *info, v source.Value) {
		if v.Kind() == source.Array {
			in.examples = append(in.examples, v.Items()...)
		}
	}},
	{"default", func(_ *gen, in *info, v source.Value) { in.examples = append(in.examples, v) }},
}

// readType reads type: a name or a list of names (names it does not know add nothing).
func readType(_ *gen, in *info, v source.Value) {
	switch v.Kind() {
	case source.String:
		in.types = schema.TypeByName(v.Str(), in.s.Draft)
	case source.Array:
		for _, t := range v.Items() {
			in.types |= schema.TypeByName(t.Str(), in.s.Draft)
		}
	}
}

// readExclusiveMinimum reads exclusiveMinimum: in draft 4 a boolean that makes minimum
// exclusive, later a bound of its own, kept when it is at least minimum.
func readExclusiveMinimum(_ *gen, in *info, v source.Value) {
	if in.version == 4 {
		in.lowerExcl = v.Kind() == source.Bool && v.Bool() && in.lower != nil
		return
	}
	if r := ratOf(v); r != nil && (in.lower == nil || r.Cmp(in.lower) >= 0) {
		in.lower, in.lowerExcl = r, true
	}
}

// readExclusiveMaximum is readExclusiveMinimum's twin.
func readExclusiveMaximum(_ *gen, in *info, v source.Value) {
	if in.version == 4 {
		in.upperExcl = v.Kind() == source.Bool && v.Bool() && in.upper != nil
		return
	}
	if r := ratOf(v); r != nil && (in.upper == nil || r.Cmp(in.upper) <= 0) {
		in.upper, in.upperExcl = r, true
	}
}

// readRequired reads required's names, each once.
func readRequired(_ *gen, in *info, v source.Value) {
	if v.Kind() != source.Array {
		return
	}
	for _, r := range v.Items() {
		if r.Kind() == source.String && !in.requiredSet[r.Str()] {
			in.required = append(in.required, r.Str())
			in.requiredSet[r.Str()] = true
		}
	}
}

// addDep adds the names of list (its strings) to the names a property requires.
func (in *info) addDep(name string, list source.Value) {
	if in.depRequired == nil {
		in.depRequired = map[string][]string{}
	}
	if _, seen := in.depRequired[name]; !seen {
		in.depOrder = append(in.depOrder, name)
	}
	for _, r := range list.Items() {
		if r.Kind() == source.String {
			in.depRequired[name] = append(in.depRequired[name], r.Str())
		}
	}
}

// readDependencies reads the lists of required names of dependencies; its schemas are
// read as children.
func readDependencies(_ *gen, in *info, v source.Value) {
	if v.Kind() != source.Object {
		return
	}
	for i := 0; i < v.Len(); i++ {
		if k, val := v.Member(i); val.Kind() == source.Array {
			in.addDep(k.Str(), val)
		}
	}
}

func readDependentRequired(_ *gen, in *info, v source.Value) {
	if v.Kind() != source.Object {
		return
	}
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		in.addDep(k.Str(), val)
	}
}

// readPropertyOrder reads the order of the names of properties (each once); their
// schemas are read as children.
func readPropertyOrder(_ *gen, in *info, v source.Value) {
	if v.Kind() != source.Object {
		return
	}
	for i := 0; i < v.Len(); i++ {
		if k := v.Key(i); !in.propSet[k] {
			in.propOrder = append(in.propOrder, k)
			in.propSet[k] = true
		}
	}
}

// infoChildren are the handlers of the subschemas, by the keyword that holds them.
var infoChildren = sync.OnceValue(func() map[string]func(g *gen, in *info, c schema.Child) {
	return map[string]func(g *gen, in *info, c schema.Child){
		"properties": func(_ *gen, in *info, c schema.Child) {
			if in.props == nil {
				in.props = map[string]*schema.Schema{}
			}
			in.props[c.Key] = c.Schema
		},
		"patternProperties": func(g *gen, in *info, c schema.Child) {
			if pg, err := g.patternGen(c.Key); err == nil {
				in.patProps = append(in.patProps, patProp{c.Key, pg, c.Schema})
			}
		},
		"additionalProperties": func(_ *gen, in *info, c schema.Child) { in.addl = c.Schema },
		"propertyNames":        func(_ *gen, in *info, c schema.Child) { in.propNames = c.Schema },
		"dependentSchemas":     readDepSchema,
		"dependencies":         readDepSchema,
		"prefixItems":          func(_ *gen, in *info, c schema.Child) { in.prefix = append(in.prefix, c.Schema) },
		"items": func(_ *gen, in *info, c schema.Child) {
			if c.Index >= 0 { // items as an array of schemas, before 2020-12
				in.prefix = append(in.prefix, c.Schema)
			} else {
				in.items = c.Schema
			}
		},
		"additionalItems":       func(_ *gen, in *info, c schema.Child) { in.items = c.Schema },
		"contains":              func(_ *gen, in *info, c schema.Child) { in.contains = c.Schema },
		"allOf":                 func(_ *gen, in *info, c schema.Child) { in.allOf = append(in.allOf, c.Schema) },
		"anyOf":                 func(_ *gen, in *info, c schema.Child) { in.anyOf = append(in.anyOf, c.Schema) },
		"oneOf":                 func(_ *gen, in *info, c schema.Child) { in.oneOf = append(in.oneOf, c.Schema) },
		"not":                   func(_ *gen, in *info, c schema.Child) { in.not = c.Schema },
		"if":                    func(_ *gen, in *info, c schema.Child) { in.ifS = c.Schema },
		"then":                  func(_ *gen, in *info, c schema.Child) { in.thenS = c.Schema },
		"else":                  func(_ *gen, in *info, c schema.Child) { in.elseS = c.Schema },
		"unevaluatedProperties": func(_ *gen, in *info, c schema.Child) { in.unevalProps = c.Schema },
		"unevaluatedItems":      func(_ *gen, in *info, c schema.Child) { in.unevalItems = c.Schema },
	}
})

func readDepSchema(_ *gen, in *info, c schema.Child) {
	if in.depSchemas == nil {
		in.depSchemas = map[string]*schema.Schema{}
	}
	in.depSchemas[c.Key] = c.Schema
}
