package schema

import (
	"slices"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file is the keyword model: one table of the keywords jstk knows, by draft, with
// what each one does, how it holds subschemas and which instances it acts on. The compiler
// and every engine that reads schema documents (lint, bundle, catalog, coverage, validate's
// report) take their knowledge of keywords from it; a test enumerates the table and asks
// each of them whether it handles every entry.

// Kind says what a keyword does.
type Kind uint8

// The kinds of keywords.
const (
	// Applicator applies subschemas to the instance or to parts of it (allOf, properties,
	// items, if, ...).
	Applicator Kind = iota + 1
	// Assertion decides on the instance itself (type, minimum, required, ...).
	Assertion
	// Annotation informs and never changes a verdict, except format, contentEncoding and
	// contentMediaType when asserted on request (see Keyword.OnRequest).
	Annotation
	// Reference applies the schema another URI names ($ref, $dynamicRef, $recursiveRef).
	Reference
	// Identifier names a schema: a base URI (id, $id) or an anchor ($anchor,
	// $dynamicAnchor, $recursiveAnchor).
	Identifier
	// Core is the rest of the core vocabulary: $schema, $vocabulary, $comment, and the
	// places that hold reusable schemas (definitions, $defs).
	Core
)

var kindNames = [...]string{Applicator: "applicator", Assertion: "assertion", Annotation: "annotation",
	Reference: "reference", Identifier: "identifier", Core: "core"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Shape says how a keyword's value holds subschemas.
type Shape uint8

// The shapes of Keyword.Shape and SubschemaShape.
const (
	NoSchema      Shape = iota // the keyword holds no subschema
	OneSchema                  // not: S
	SchemaArray                // allOf: [S, ...]
	SchemaMap                  // properties: {name: S}
	SchemaOrArray              // items in drafts 4 to 2019-09: S or [S, ...]
	DepsMap                    // dependencies: {name: S or [names]}
)

// Support says how jstk reads a keyword in a draft.
type Support uint8

// The kinds of support.
const (
	// Defined: the draft defines the keyword.
	Defined Support = iota + 1
	// Conventional: not a keyword of the draft, but the customary place of reusable
	// schemas, read as one (definitions from 2019-09 on): identifiers under it are indexed
	// and lint does not call it unknown.
	Conventional
	// Compatible: a keyword of earlier drafts that jstk still applies (dependencies from
	// 2019-09 on); lint reports it.
	Compatible
	// PointerOnly: a later draft's place of reusable schemas, reached only by JSON
	// Pointer ($defs before 2019-09): identifiers under it are not indexed.
	PointerOnly
	// Lenient: a later draft's keyword that jstk applies unless Options.StrictDraft
	// (const, contains and propertyNames in draft 4; if, then and else in drafts 4 and 6),
	// as other validators and editors do.
	Lenient
	// OpenAPI: a keyword of OpenAPI's Schema Object beyond draft 4's, in the OpenAPI 3.0
	// dialect (InOpenAPI30): nullable, which extends type, and annotations. No JSON
	// Schema draft defines it (Defines is false), and the Schema Objects of OpenAPI 3.x and
	// AsyncAPI documents know it, whatever their dialect.
	OpenAPI
)

// DraftSet is a set of the drafts of Drafts, and of the OpenAPI 3.0 dialect. OpenAPI 3.0
// belongs to it when draft 4 does (OpenAPI30 is read as draft 4 is) or InOpenAPI30 does.
type DraftSet uint8

// The drafts, one bit each.
const (
	InDraft4 DraftSet = 1 << iota
	InDraft6
	InDraft7
	InDraft2019
	InDraft2020
	// InOpenAPI30: the keywords the OpenAPI 3.0 dialect adds to draft 4's (Support
	// OpenAPI); not one of AllDrafts.
	InOpenAPI30

	AllDrafts = InDraft4 | InDraft6 | InDraft7 | InDraft2019 | InDraft2020
)

// slots is the number of draftSlot's values: the five drafts and OpenAPI 3.0.
const slots = 6

// draftSlot is the index of a draft's bit (0 for draft 4, 4 for 2020-12, 5 for OpenAPI
// 3.0).
func draftSlot(d *Draft) int {
	switch {
	case d.oas30:
		return 5
	case d.Version <= 4:
		return 0
	case d.Version == 6:
		return 1
	case d.Version == 7:
		return 2
	case d.Version == 2019:
		return 3
	}
	return 4
}

// Has reports whether d belongs to the set.
func (s DraftSet) Has(d *Draft) bool {
	return s&(1<<draftSlot(d)) != 0 || d.oas30 && s&InDraft4 != 0
}

// Drafts lists the drafts of the set (of Drafts: not OpenAPI 3.0), oldest first.
func (s DraftSet) Drafts() []*Draft {
	var out []*Draft
	for _, d := range Drafts {
		if s.Has(d) {
			out = append(out, d)
		}
	}
	return out
}

// Keyword is one entry of the keyword model: a keyword as jstk reads it in some drafts. A
// keyword whose properties differ between drafts (items, format) has one entry per
// group of drafts; in any one draft a name has at most one entry.
type Keyword struct {
	// Name is the keyword as written.
	Name string
	// Kind says what it does.
	Kind Kind
	// Shape says how its value holds subschemas.
	Shape Shape
	// Types are the instance types it acts on (TypeAll: every instance); on the others it
	// does nothing.
	Types TypeSet
	// Drafts are the drafts this entry is about, and Support how jstk reads the keyword in
	// them.
	Drafts  DraftSet
	Support Support
	// Vocab is the vocabulary (2019-09 and later) whose absence from a meta-schema's
	// $vocabulary makes the keyword ignored; "" for the keywords jstk never ignores that
	// way (core and meta-data keywords, dependencies).
	Vocab string
	// OnRequest marks an annotation that asserts when asked to (format with
	// Options.AssertFormat or the format-assertion vocabulary, contentEncoding and
	// contentMediaType with Options.AssertContent).
	OnRequest bool
	// Fails marks a keyword at which the evaluator reports a failing instance itself (not
	// only through the errors of its subschemas).
	Fails bool
	// Anchor says which anchor an identifier names (NoAnchor for id and $id, which name a
	// base URI, and for the other kinds).
	Anchor AnchorKind
	// Structural marks a keyword whose value seldom means anything else than the
	// keyword's: an object of keywords with one (its value of the kind its Shape says: a
	// string for one without subschemas) is taken for a schema where nothing else says so
	// (catalog's detection of schemas among JSON files).
	Structural bool
	// Names marks an applicator whose subschema applies to the names of an object's
	// members, not to their values (propertyNames): the errors below it are about names.
	Names bool
	// Default is the value, as JSON text, with which a keyword without subschemas
	// constrains no more than leaving it out does, where the specification names one
	// ("0" for minLength, "false" for uniqueItems); "" for none. Lint reports a keyword
	// written with it.
	Default string
	// Hint tells a schema that uses the keyword where its draft does not define it what
	// that draft has instead (for an OpenAPI keyword, what JSON Schema has instead), when
	// there is more to say than that it is ignored: lint adds it to its finding. One entry
	// of a name holds it.
	Hint string
	// Annotates marks an applicator whose success marks the properties or items it
	// applied to as evaluated: the annotations unevaluatedProperties and unevaluatedItems
	// read (2019-09 and later; contains from 2020-12 on).
	Annotates bool
	// Traced marks a keyword at which Schema.Trace reports Events of its own when it acts
	// (see Event): the assertions, format when asserted, and the applicators whose
	// outcome shows in no subschema alone (contains, not, if, anyOf, oneOf, properties and
	// the dependencies). The other applicators show only as their subschemas reached.
	Traced bool
}

// AnchorKind says what kind of anchor an identifier keyword names.
type AnchorKind uint8

// The kinds of anchors.
const (
	NoAnchor AnchorKind = iota
	// PlainAnchor: the keyword's string value names the schema in its resource ($anchor).
	PlainAnchor
	// DynamicAnchor: a plain anchor that $dynamicRef also reaches through the dynamic
	// scope ($dynamicAnchor).
	DynamicAnchor
	// RecursiveAnchor: the keyword's value true makes the resource a target of
	// $recursiveRef ($recursiveAnchor); it names nothing.
	RecursiveAnchor
)

// Sets of drafts the table uses.
const (
	upTo7  = InDraft4 | InDraft6 | InDraft7
	upTo19 = upTo7 | InDraft2019
	from6  = AllDrafts &^ InDraft4
	from7  = from6 &^ InDraft6
	from19 = InDraft2019 | InDraft2020
)

// keywordTable is the model. Its order is the order in which validate lists its rules
// (the keywords that can fail), then the rest; keep it.
var keywordTable = []Keyword{
	// Core: identifiers, references and the rest.
	{Name: "$schema", Kind: Core, Types: TypeAll, Drafts: AllDrafts, Support: Defined},
	{Name: "$vocabulary", Kind: Core, Types: TypeAll, Drafts: from19, Support: Defined},
	{Name: "id", Kind: Identifier, Types: TypeAll, Drafts: InDraft4, Support: Defined, Hint: "it is draft 4's name for $id"},
	{Name: "$id", Kind: Identifier, Types: TypeAll, Drafts: from6, Support: Defined, Structural: true, Hint: "draft 4 names it id"},
	{Name: "$anchor", Kind: Identifier, Types: TypeAll, Drafts: from19, Support: Defined, Anchor: PlainAnchor, Hint: `use "$id": "#name"`},
	{Name: "$recursiveAnchor", Kind: Identifier, Types: TypeAll, Drafts: InDraft2019, Support: Defined, Anchor: RecursiveAnchor, Hint: "2020-12 uses $dynamicAnchor"},
	{Name: "$dynamicAnchor", Kind: Identifier, Types: TypeAll, Drafts: InDraft2020, Support: Defined, Anchor: DynamicAnchor, Hint: "2019-09 uses $recursiveAnchor"},
	{Name: "$ref", Kind: Reference, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Structural: true},
	{Name: "$recursiveRef", Kind: Reference, Types: TypeAll, Drafts: InDraft2019, Support: Defined, Hint: "2020-12 uses $dynamicRef"},
	{Name: "$dynamicRef", Kind: Reference, Types: TypeAll, Drafts: InDraft2020, Support: Defined, Hint: "2019-09 uses $recursiveRef"},
	{Name: "$comment", Kind: Core, Types: TypeAll, Drafts: from7, Support: Defined},
	{Name: "definitions", Kind: Core, Shape: SchemaMap, Types: TypeAll, Drafts: upTo7, Support: Defined, Structural: true},
	{Name: "definitions", Kind: Core, Shape: SchemaMap, Types: TypeAll, Drafts: from19, Support: Conventional, Structural: true},
	{Name: "$defs", Kind: Core, Shape: SchemaMap, Types: TypeAll, Drafts: from19, Support: Defined, Structural: true, Hint: "use definitions"},
	{Name: "$defs", Kind: Core, Shape: SchemaMap, Types: TypeAll, Drafts: upTo7, Support: PointerOnly, Structural: true},

	// Any instance.
	{Name: "type", Kind: Assertion, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "enum", Kind: Assertion, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "const", Kind: Assertion, Types: TypeAll, Drafts: from6, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Hint: "use an enum with one value"},
	{Name: "const", Kind: Assertion, Types: TypeAll, Drafts: InDraft4, Support: Lenient, Fails: true, Traced: true},
	{Name: "format", Kind: Annotation, Types: TypeAll, Drafts: upTo19, Support: Defined, Vocab: "format", OnRequest: true, Fails: true, Traced: true},
	{Name: "format", Kind: Annotation, Types: TypeAll, Drafts: InDraft2020, Support: Defined, Vocab: "format-annotation", OnRequest: true, Fails: true, Traced: true},

	// Numbers.
	{Name: "multipleOf", Kind: Assertion, Types: TypeNumber, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "minimum", Kind: Assertion, Types: TypeNumber, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "maximum", Kind: Assertion, Types: TypeNumber, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "exclusiveMinimum", Kind: Assertion, Types: TypeNumber, Drafts: from6, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	// in draft 4 a boolean that makes minimum exclusive: reported and traced as it
	{Name: "exclusiveMinimum", Kind: Assertion, Types: TypeNumber, Drafts: InDraft4, Support: Defined, Vocab: "validation", Fails: true, Default: "false"},
	{Name: "exclusiveMaximum", Kind: Assertion, Types: TypeNumber, Drafts: from6, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	// in draft 4 a boolean that makes maximum exclusive: reported and traced as it
	{Name: "exclusiveMaximum", Kind: Assertion, Types: TypeNumber, Drafts: InDraft4, Support: Defined, Vocab: "validation", Fails: true, Default: "false"},

	// Strings.
	{Name: "minLength", Kind: Assertion, Types: TypeString, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Default: "0"},
	{Name: "maxLength", Kind: Assertion, Types: TypeString, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "pattern", Kind: Assertion, Types: TypeString, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "contentEncoding", Kind: Annotation, Types: TypeString, Drafts: from7, Support: Defined, Vocab: "content", OnRequest: true, Fails: true},
	{Name: "contentMediaType", Kind: Annotation, Types: TypeString, Drafts: from7, Support: Defined, Vocab: "content", OnRequest: true, Fails: true},
	{Name: "contentSchema", Kind: Annotation, Shape: OneSchema, Types: TypeString, Drafts: from19, Support: Defined, Vocab: "content"},

	// Arrays.
	{Name: "minItems", Kind: Assertion, Types: TypeArray, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Default: "0"},
	{Name: "maxItems", Kind: Assertion, Types: TypeArray, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "uniqueItems", Kind: Assertion, Types: TypeArray, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Default: "false"},
	{Name: "contains", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft6 | InDraft7 | InDraft2019, Support: Defined, Vocab: "applicator", Fails: true, Traced: true},
	{Name: "contains", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft2020, Support: Defined, Vocab: "applicator", Fails: true, Traced: true, Annotates: true},
	{Name: "contains", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft4, Support: Lenient, Fails: true, Traced: true},
	{Name: "minContains", Kind: Assertion, Types: TypeArray, Drafts: from19, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Default: "1"},
	{Name: "maxContains", Kind: Assertion, Types: TypeArray, Drafts: from19, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "prefixItems", Kind: Applicator, Shape: SchemaArray, Types: TypeArray, Drafts: InDraft2020, Support: Defined, Vocab: "applicator", Annotates: true, Hint: "use items with an array of schemas"},
	{Name: "items", Kind: Applicator, Shape: SchemaOrArray, Types: TypeArray, Drafts: upTo19, Support: Defined, Vocab: "applicator", Annotates: true},
	{Name: "items", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft2020, Support: Defined, Vocab: "applicator", Annotates: true},
	{Name: "additionalItems", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: upTo19, Support: Defined, Vocab: "applicator", Annotates: true, Hint: "2020-12 uses prefixItems and items instead"},
	{Name: "unevaluatedItems", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft2019, Support: Defined, Vocab: "applicator", Annotates: true, Hint: "it has no equivalent before 2019-09"},
	{Name: "unevaluatedItems", Kind: Applicator, Shape: OneSchema, Types: TypeArray, Drafts: InDraft2020, Support: Defined, Vocab: "unevaluated", Annotates: true},

	// Objects.
	{Name: "minProperties", Kind: Assertion, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Default: "0"},
	{Name: "maxProperties", Kind: Assertion, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "required", Kind: Assertion, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "validation", Fails: true, Traced: true},
	{Name: "dependentRequired", Kind: Assertion, Types: TypeObject, Drafts: from19, Support: Defined, Vocab: "validation", Fails: true, Traced: true, Hint: "use dependencies with an array of names"},
	{Name: "dependencies", Kind: Applicator, Shape: DepsMap, Types: TypeObject, Drafts: upTo7, Support: Defined, Fails: true, Traced: true, Hint: "2019-09 split it into dependentRequired and dependentSchemas"},
	{Name: "dependencies", Kind: Applicator, Shape: DepsMap, Types: TypeObject, Drafts: from19, Support: Compatible, Fails: true, Traced: true},
	{Name: "properties", Kind: Applicator, Shape: SchemaMap, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Traced: true, Structural: true, Annotates: true},
	{Name: "patternProperties", Kind: Applicator, Shape: SchemaMap, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Structural: true, Annotates: true},
	{Name: "additionalProperties", Kind: Applicator, Shape: OneSchema, Types: TypeObject, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Fails: true, Annotates: true},
	{Name: "unevaluatedProperties", Kind: Applicator, Shape: OneSchema, Types: TypeObject, Drafts: InDraft2019, Support: Defined, Vocab: "applicator", Fails: true, Annotates: true, Hint: "it has no equivalent before 2019-09; additionalProperties only sees its own schema's properties"},
	{Name: "unevaluatedProperties", Kind: Applicator, Shape: OneSchema, Types: TypeObject, Drafts: InDraft2020, Support: Defined, Vocab: "unevaluated", Fails: true, Annotates: true},
	{Name: "propertyNames", Kind: Applicator, Shape: OneSchema, Types: TypeObject, Drafts: from6, Support: Defined, Vocab: "applicator", Names: true},
	{Name: "propertyNames", Kind: Applicator, Shape: OneSchema, Types: TypeObject, Drafts: InDraft4, Support: Lenient, Names: true},
	{Name: "dependentSchemas", Kind: Applicator, Shape: SchemaMap, Types: TypeObject, Drafts: from19, Support: Defined, Vocab: "applicator", Traced: true, Hint: "use dependencies with a schema"},

	// In place.
	{Name: "allOf", Kind: Applicator, Shape: SchemaArray, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Structural: true},
	{Name: "anyOf", Kind: Applicator, Shape: SchemaArray, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Fails: true, Traced: true, Structural: true},
	{Name: "oneOf", Kind: Applicator, Shape: SchemaArray, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Fails: true, Traced: true, Structural: true},
	{Name: "not", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: AllDrafts, Support: Defined, Vocab: "applicator", Fails: true, Traced: true},
	{Name: "if", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: from7, Support: Defined, Vocab: "applicator", Traced: true},
	{Name: "then", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: from7, Support: Defined, Vocab: "applicator"},
	{Name: "else", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: from7, Support: Defined, Vocab: "applicator"},
	{Name: "if", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: InDraft4 | InDraft6, Support: Lenient, Traced: true},
	{Name: "then", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: InDraft4 | InDraft6, Support: Lenient},
	{Name: "else", Kind: Applicator, Shape: OneSchema, Types: TypeAll, Drafts: InDraft4 | InDraft6, Support: Lenient},

	// Meta-data.
	{Name: "title", Kind: Annotation, Types: TypeAll, Drafts: AllDrafts, Support: Defined},
	{Name: "description", Kind: Annotation, Types: TypeAll, Drafts: AllDrafts, Support: Defined},
	{Name: "default", Kind: Annotation, Types: TypeAll, Drafts: AllDrafts, Support: Defined},
	{Name: "examples", Kind: Annotation, Types: TypeAll, Drafts: from6, Support: Defined},
	{Name: "readOnly", Kind: Annotation, Types: TypeAll, Drafts: from7, Support: Defined},
	{Name: "writeOnly", Kind: Annotation, Types: TypeAll, Drafts: from7, Support: Defined},
	{Name: "deprecated", Kind: Annotation, Types: TypeAll, Drafts: from19, Support: Defined},

	// OpenAPI 3.0's Schema Object (read as draft 4 with these): nullable adds null to the
	// types that type names; the rest annotate.
	{Name: "nullable", Kind: Assertion, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI, Hint: `in JSON Schema add "null" to type`},
	{Name: "discriminator", Kind: Annotation, Types: TypeObject, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "xml", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "externalDocs", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "example", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "readOnly", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "writeOnly", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
	{Name: "deprecated", Kind: Annotation, Types: TypeAll, Drafts: InOpenAPI30, Support: OpenAPI},
}

// byDraft indexes the table: the entry of each name in each draft (by draftSlot);
// refKeywords, identifiers and anchors list the reference keywords, the identifier
// keywords and the anchor keywords (PlainAnchor, DynamicAnchor) of each draft, in table
// order.
var (
	byDraft     [slots]map[string]*Keyword
	refKeywords [slots][]string
	identifiers [slots][]string
	anchors     [slots][]string
	// baseURIKeyword is each draft's identifier that names a base URI (Anchor NoAnchor),
	// anchorKeyword its identifier of each kind of anchor.
	baseURIKeyword [slots]string
	anchorKeyword  [slots][RecursiveAnchor + 1]string
	// baseURIKeywords and definitionsKeywords are BaseURIKeywords and DefinitionsKeywords.
	baseURIKeywords, definitionsKeywords []string
)

// keywordsOnce builds the index on first use (keywordIndex), not at package initialisation.
var keywordsOnce sync.Once

// keywordIndex makes sure the index is built; every reader of it calls it first.
func keywordIndex() { keywordsOnce.Do(indexKeywords) }

// indexKeywords builds byDraft and the lists from the table.
func indexKeywords() {
	for i := range byDraft {
		byDraft[i] = make(map[string]*Keyword, len(keywordTable))
		refKeywords[i], identifiers[i], anchors[i], baseURIKeyword[i] = nil, nil, nil, ""
		anchorKeyword[i] = [RecursiveAnchor + 1]string{}
	}
	for i := range keywordTable {
		k := &keywordTable[i]
		for slot := range byDraft {
			in := k.Drafts&(1<<slot) != 0
			if slot == draftSlot(OpenAPI30) {
				in = k.Drafts&(InDraft4|InOpenAPI30) != 0
			}
			if !in {
				continue
			}
			byDraft[slot][k.Name] = k
			switch {
			case k.Kind == Reference:
				refKeywords[slot] = append(refKeywords[slot], k.Name)
			case k.Kind == Identifier:
				identifiers[slot] = append(identifiers[slot], k.Name)
				switch k.Anchor {
				case PlainAnchor, DynamicAnchor:
					anchors[slot] = append(anchors[slot], k.Name)
				case NoAnchor:
					baseURIKeyword[slot] = k.Name
				}
				if k.Anchor != NoAnchor {
					anchorKeyword[slot][k.Anchor] = k.Name
				}
			}
		}
	}
	baseURIKeywords = newestFirst(func(k *Keyword) bool { return k.Kind == Identifier && k.Anchor == NoAnchor })
	definitionsKeywords = newestFirst(func(k *Keyword) bool { return k.Kind == Core && k.Shape == SchemaMap })
}

// Keywords lists every entry of the model, in its order. The entries are the model's own:
// callers must not modify them.
func Keywords() []Keyword { return keywordTable }

// Keyword returns the entry of keyword name in draft d, whatever its Support; ok is false
// when jstk reads no such keyword in d. The entry is the model's own: callers must not
// modify it.
func (d *Draft) Keyword(name string) (k *Keyword, ok bool) {
	keywordIndex()
	k, ok = byDraft[draftSlot(d)][name]
	return k, ok
}

// Defines reports whether draft d defines keyword name, or reads it as the conventional
// place of reusable schemas (Support Defined or Conventional): the keywords lint does not
// call unknown.
func (d *Draft) Defines(name string) bool {
	keywordIndex()
	k, ok := byDraft[draftSlot(d)][name]
	return ok && (k.Support == Defined || k.Support == Conventional)
}

// SubschemaShape returns how keyword kw holds subschemas in draft d, as written in a
// schema document. Locations that hold schemas only by convention ($defs before 2019-09,
// definitions after it) count too: references reach them by JSON Pointer. Lenient
// keywords do not: their subschemas are compiled but not indexed.
func (d *Draft) SubschemaShape(kw string) Shape {
	keywordIndex()
	if k, ok := byDraft[draftSlot(d)][kw]; ok && k.Support != Lenient {
		return k.Shape
	}
	return NoSchema
}

// IndexedShape is SubschemaShape without the places reached only by JSON Pointer ($defs
// before 2019-09): the subschemas whose identifiers and anchors the compiler indexes.
func (d *Draft) IndexedShape(kw string) Shape {
	keywordIndex()
	if k, ok := byDraft[draftSlot(d)][kw]; ok && k.Support != Lenient && k.Support != PointerOnly {
		return k.Shape
	}
	return NoSchema
}

// RefKeywords lists the draft's reference keywords: $ref, with $recursiveRef in 2019-09
// and $dynamicRef in 2020-12. The slice is the model's own: callers must not modify it.
func (d *Draft) RefKeywords() []string {
	keywordIndex()
	return refKeywords[draftSlot(d)]
}

// Identifiers lists the draft's identifier keywords (Kind Identifier): id in draft 4, $id
// after it, $anchor from 2019-09, with $recursiveAnchor in 2019-09 and $dynamicAnchor in
// 2020-12. OpenAPI 3.0 keeps draft 4's entries, id among them, though the compiler reads
// no identifier there (its IDKeyword is ""). The slice is the model's own:
// callers must not modify it.
func (d *Draft) Identifiers() []string {
	keywordIndex()
	return identifiers[draftSlot(d)]
}

// Anchors lists the draft's keywords whose string value names an anchor (Anchor
// PlainAnchor or DynamicAnchor): $anchor from 2019-09, with $dynamicAnchor in 2020-12;
// none before 2019-09, where an anchor is written as an id or $id "#name". The slice is
// the model's own: callers must not modify it.
func (d *Draft) Anchors() []string {
	keywordIndex()
	return anchors[draftSlot(d)]
}

// AnchorKeyword returns the draft's keyword of anchors of the given kind ($dynamicAnchor
// for DynamicAnchor in 2020-12, $recursiveAnchor for RecursiveAnchor in 2019-09, ...), or
// "" when the draft has none.
func (d *Draft) AnchorKeyword(kind AnchorKind) string {
	keywordIndex()
	if kind > RecursiveAnchor {
		return ""
	}
	return anchorKeyword[draftSlot(d)][kind]
}

// BaseURIKeywords lists the keywords that give a schema its URI in some draft (Kind
// Identifier, Anchor NoAnchor), the newest draft's first: "$id", "id". For reading a
// document before its draft is known. The slice is the model's own: callers must not
// modify it.
func BaseURIKeywords() []string {
	keywordIndex()
	return baseURIKeywords
}

// DefinitionsKeywords lists the places of reusable schemas of every draft (core keywords
// holding a map of schemas), the newest draft's first: "$defs", "definitions". For
// reading a document before its draft is known. The slice is the model's own: callers
// must not modify it.
func DefinitionsKeywords() []string {
	keywordIndex()
	return definitionsKeywords
}

// newestFirst lists the names of the entries of the drafts that match, ordered by the
// newest draft that defines each (Support Defined), newest first; ties in table order.
func newestFirst(match func(k *Keyword) bool) []string {
	names := KeywordNames(AllDrafts, match)
	newest := func(name string) int {
		for slot := draftSlot(Draft2020); slot >= 0; slot-- {
			if k, ok := byDraft[slot][name]; ok && k.Support == Defined {
				return slot
			}
		}
		return -1
	}
	slices.SortStableFunc(names, func(a, b string) int { return newest(b) - newest(a) })
	return names
}

// DefinitionsKeyword returns the draft's own place of reusable schemas (of
// DefinitionsKeywords, the one it defines): definitions up to draft 7 (and OpenAPI 3.0),
// $defs from 2019-09.
func (d *Draft) DefinitionsKeyword() string {
	for _, name := range DefinitionsKeywords() {
		if k, ok := d.Keyword(name); ok && k.Support == Defined {
			return name
		}
	}
	return ""
}

// AssertsNothing reports an annotation-only keyword: one that neither asserts nor applies
// a schema, nor changes what a reference reaches, so that a schema of such keywords
// accepts every instance. These are the core keywords, the identifiers of base URIs and
// plain anchors (not dynamic and recursive anchors, which change what a dynamic reference
// reaches), and the annotations that never assert and hold no subschema.
func (k *Keyword) AssertsNothing() bool {
	switch k.Kind {
	case Core:
		return true
	case Identifier:
		return k.Anchor == NoAnchor || k.Anchor == PlainAnchor
	case Annotation:
		return !k.OnRequest && k.Shape == NoSchema
	}
	return false
}

// KeywordNames lists, in the table's order and once each, the names of the entries about
// some draft of ds (InOpenAPI30 included) that match.
func KeywordNames(ds DraftSet, match func(k *Keyword) bool) []string {
	var out []string
	seen := map[string]bool{}
	for i := range keywordTable {
		k := &keywordTable[i]
		if k.Drafts&ds != 0 && !seen[k.Name] && match(k) {
			seen[k.Name] = true
			out = append(out, k.Name)
		}
	}
	return out
}

// TypeSet is a set of classes of JSON values. Numbers are split three ways, because the
// drafts disagree on what an integer is: draft 4 counts 1.0 as a number but not an
// integer, later drafts count it as an integer. TypeByName says what a "type" name stands
// for in a draft; TypeOf classes a value.
type TypeSet uint8

// The classes of values.
const (
	TypeNull    TypeSet = 1 << iota
	TypeBoolean         // true, false
	// TypeInteger: whole numbers written without a decimal point, or with an exponent
	// (1, -0, 1e2, 1.5e1).
	TypeInteger
	// TypeDotted: whole numbers written with a decimal point and no exponent (1.0); an
	// "integer" from draft 6 on, not in draft 4.
	TypeDotted
	// TypeFraction: numbers that are not whole (1.5).
	TypeFraction
	TypeString
	TypeArray
	TypeObject

	TypeNumber = TypeInteger | TypeDotted | TypeFraction
	TypeAll    = TypeNull | TypeBoolean | TypeNumber | TypeString | TypeArray | TypeObject
)

// TypeByName returns the classes a name of the "type" keyword stands for in draft d
// ("integer" is TypeInteger in draft 4, TypeInteger|TypeDotted after it), or 0 for a name
// that is not a type.
func TypeByName(name string, d *Draft) TypeSet {
	switch name {
	case "null":
		return TypeNull
	case "boolean":
		return TypeBoolean
	case "number":
		return TypeNumber
	case "integer":
		if d.Version <= 4 {
			return TypeInteger
		}
		return TypeInteger | TypeDotted
	case "string":
		return TypeString
	case "array":
		return TypeArray
	case "object":
		return TypeObject
	}
	return 0
}

// TypeOf returns the class of a JSON value (0 for an invalid value).
func TypeOf(v source.Value) TypeSet {
	switch v.Kind() {
	case source.Null:
		return TypeNull
	case source.Bool:
		return TypeBoolean
	case source.String:
		return TypeString
	case source.Array:
		return TypeArray
	case source.Object:
		return TypeObject
	case source.Number:
		return numberClass(v)
	}
	return 0
}

// numberClass is TypeOf of a number.
func numberClass(v source.Value) TypeSet {
	lit := v.Str()
	if !strings.ContainsAny(lit, ".eE") {
		return TypeInteger
	}
	if !v.Num().IsInteger() {
		return TypeFraction
	}
	if strings.Contains(lit, ".") && !strings.ContainsAny(lit, "eE") {
		return TypeDotted
	}
	return TypeInteger
}

// String names the types in JSON Schema's words, e.g. "null or string", "integer" or
// "string, array or object": "number" for every number, "integer" for the whole ones,
// "non-integer number" for the others (listed last).
func (t TypeSet) String() string {
	var names []string
	if t&TypeNull != 0 {
		names = append(names, "null")
	}
	if t&TypeBoolean != 0 {
		names = append(names, "boolean")
	}
	fraction := ""
	switch n := t & TypeNumber; {
	case n == TypeNumber:
		names = append(names, "number")
	case n&TypeInteger != 0:
		names = append(names, "integer")
		if n&TypeFraction != 0 {
			fraction = "non-integer number"
		}
	case n&TypeFraction != 0:
		fraction = "non-integer number"
	case n == TypeDotted:
		fraction = "integer written with a decimal point"
	}
	for _, x := range []struct {
		t    TypeSet
		name string
	}{{TypeString, "string"}, {TypeArray, "array"}, {TypeObject, "object"}} {
		if t&x.t != 0 {
			names = append(names, x.name)
		}
	}
	if fraction != "" {
		names = append(names, fraction)
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
