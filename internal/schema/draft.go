package schema

import (
	"embed"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
)

// Draft is a version of JSON Schema.
type Draft struct {
	Name    string // "draft-07", "2020-12", ...
	Version int    // 4, 6, 7, 2019, 2020
	URL     string // the meta-schema's canonical URI
	idKey   string // "id" (draft 4) or "$id"
	vocabs  []string
}

// The drafts jstk supports.
var (
	Draft4    = &Draft{Name: "draft-04", Version: 4, URL: "http://json-schema.org/draft-04/schema", idKey: "id"}
	Draft6    = &Draft{Name: "draft-06", Version: 6, URL: "http://json-schema.org/draft-06/schema", idKey: "$id"}
	Draft7    = &Draft{Name: "draft-07", Version: 7, URL: "http://json-schema.org/draft-07/schema", idKey: "$id"}
	Draft2019 = &Draft{Name: "2019-09", Version: 2019, URL: "https://json-schema.org/draft/2019-09/schema", idKey: "$id",
		vocabs: []string{"core", "applicator", "validation", "meta-data", "format", "content"}}
	Draft2020 = &Draft{Name: "2020-12", Version: 2020, URL: "https://json-schema.org/draft/2020-12/schema", idKey: "$id",
		vocabs: []string{"core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content"}}
)

// Drafts lists the supported drafts, oldest first.
var Drafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// DraftByName finds a draft by a user's name for it: "4", "draft4", "draft-04", "7",
// "2019-09", "2020-12", "draft2020-12", or a meta-schema URI.
func DraftByName(name string) (*Draft, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(strings.TrimPrefix(n, "draft"), "-")
	switch n {
	case "4", "04":
		return Draft4, true
	case "6", "06":
		return Draft6, true
	case "7", "07":
		return Draft7, true
	case "2019-09", "2019", "201909":
		return Draft2019, true
	case "2020-12", "2020", "202012":
		return Draft2020, true
	}
	if d := draftOfMeta(name); d != nil {
		return d, true
	}
	return nil, false
}

// draftOfMeta returns the draft whose meta-schema URI is u (with or without a trailing "#",
// over http or https), or nil.
func draftOfMeta(u string) *Draft {
	u = strings.TrimSuffix(u, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	for _, d := range Drafts {
		if u == strings.TrimPrefix(strings.TrimPrefix(d.URL, "https://"), "http://") {
			return d
		}
	}
	return nil
}

// vocabURL is the URI of one of a draft's vocabularies.
func (d *Draft) vocabURL(v string) string {
	return strings.TrimSuffix(d.URL, "schema") + "vocab/" + v
}

func (d *Draft) String() string { return d.Name }

//go:embed metaschemas
var metaFS embed.FS

// metaPath maps a json-schema.org URI to its embedded file, or "".
func metaPath(u string) string {
	u = strings.TrimSuffix(u, "#")
	rest, ok := strings.CutPrefix(u, "https://json-schema.org/")
	if !ok {
		rest, ok = strings.CutPrefix(u, "http://json-schema.org/")
	}
	if !ok {
		return ""
	}
	if rest == "schema" {
		rest = "draft/2020-12/schema"
	}
	p := "metaschemas/" + rest + ".json"
	if _, err := metaFS.Open(p); err != nil {
		return ""
	}
	return p
}

var metaDocs sync.Map // URI -> *source.Document

// metaDocument returns the embedded meta-schema document for a json-schema.org URI.
func metaDocument(u string) (*source.Document, bool) {
	p := metaPath(u)
	if p == "" {
		return nil, false
	}
	if d, ok := metaDocs.Load(p); ok {
		return d.(*source.Document), true
	}
	data, err := metaFS.ReadFile(p)
	if err != nil {
		return nil, false
	}
	doc, err := source.ParseJSON("(built-in) "+strings.TrimSuffix(u, "#"), data, nil)
	if err != nil {
		panic("embedded meta-schema " + p + ": " + err.Error())
	}
	d, _ := metaDocs.LoadOrStore(p, doc)
	return d.(*source.Document), true
}

// Shape says how a keyword's value holds subschemas.
type Shape uint8

// The shapes of SubschemaShape.
const (
	NoSchema      Shape = iota // the keyword holds no subschema
	OneSchema                  // not: S
	SchemaArray                // allOf: [S, ...]
	SchemaMap                  // properties: {name: S}
	SchemaOrArray              // items in drafts 4 to 2019-09: S or [S, ...]
	DepsMap                    // dependencies: {name: S or [names]}
)

// SubschemaShape returns how keyword kw holds subschemas in draft d, as written in a
// schema document. Locations that hold schemas only by convention ($defs before 2019-09,
// definitions after it) count too: references reach them by JSON Pointer.
func (d *Draft) SubschemaShape(kw string) Shape {
	switch kw {
	case "properties", "patternProperties", "definitions", "$defs":
		return SchemaMap
	case "additionalProperties", "not":
		return OneSchema
	case "allOf", "anyOf", "oneOf":
		return SchemaArray
	case "dependencies":
		return DepsMap
	case "contains", "propertyNames":
		if d.Version >= 6 {
			return OneSchema
		}
	case "if", "then", "else":
		if d.Version >= 7 {
			return OneSchema
		}
	case "items":
		if d.Version <= 2019 {
			return SchemaOrArray
		}
		return OneSchema
	case "additionalItems":
		if d.Version <= 2019 {
			return OneSchema
		}
	case "prefixItems":
		if d.Version >= 2020 {
			return SchemaArray
		}
	case "dependentSchemas":
		if d.Version >= 2019 {
			return SchemaMap
		}
	case "unevaluatedProperties", "unevaluatedItems", "contentSchema":
		if d.Version >= 2019 {
			return OneSchema
		}
	}
	return NoSchema
}

// IDKeyword is the keyword that gives a schema its URI: "id" in draft 4, "$id" after.
func (d *Draft) IDKeyword() string { return d.idKey }

// RefKeywords lists the draft's reference keywords: $ref, with $recursiveRef in 2019-09
// and $dynamicRef in 2020-12.
func (d *Draft) RefKeywords() []string {
	switch {
	case d.Version == 2019:
		return []string{"$ref", "$recursiveRef"}
	case d.Version >= 2020:
		return []string{"$ref", "$dynamicRef"}
	}
	return []string{"$ref"}
}
