package schema

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
)

// Draft is a version of JSON Schema.
type Draft struct {
	Name    string // "draft-07", "2020-12", ...
	Version int    // 4, 6, 7, 2019, 2020
	URL     string // the meta-schema's canonical URI
	vocabs  []string
	oas30   bool // OpenAPI 3.0: nullable extends type
}

// The drafts jstk supports.
var (
	Draft4    = &Draft{Name: "draft-04", Version: 4, URL: "http://json-schema.org/draft-04/schema"}
	Draft6    = &Draft{Name: "draft-06", Version: 6, URL: "http://json-schema.org/draft-06/schema"}
	Draft7    = &Draft{Name: "draft-07", Version: 7, URL: "http://json-schema.org/draft-07/schema"}
	Draft2019 = &Draft{Name: "2019-09", Version: 2019, URL: "https://json-schema.org/draft/2019-09/schema",
		vocabs: []string{"core", "applicator", "validation", "meta-data", "format", "content"}}
	Draft2020 = &Draft{Name: "2020-12", Version: 2020, URL: "https://json-schema.org/draft/2020-12/schema",
		vocabs: []string{"core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content"}}
)

// OpenAPI30 is the schema dialect of OpenAPI 3.0 documents: an extended subset of JSON
// Schema (Wright draft 00, read as draft 4 is: boolean exclusiveMinimum/exclusiveMaximum,
// siblings of $ref ignored, 1.0 not an integer) with "nullable", where `nullable: true`
// adds null to the types that "type" names (and does nothing without "type", as OpenAPI
// 3.0.3 says). It has no $schema and no identifier keyword; "discriminator", "xml",
// "externalDocs", "example", "readOnly", "writeOnly" and "deprecated" are annotations. Its
// URI is the one other validators use for it (networknt, Hyperjump); OpenAPI 3.0 itself
// names none.
var OpenAPI30 = &Draft{Name: "openapi-3.0", Version: 4, URL: "https://spec.openapis.org/oas/3.0/dialect", oas30: true}

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
	if n == "openapi-3.0" || n == "openapi3.0" || n == "oas3.0" {
		return OpenAPI30, true
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
	if u == strings.TrimPrefix(OpenAPI30.URL, "https://") {
		return OpenAPI30
	}
	for _, d := range Drafts {
		if u == strings.TrimPrefix(strings.TrimPrefix(d.URL, "https://"), "http://") {
			return d
		}
	}
	return nil
}

// nearMeta suggests the meta-schema URI of a draft that u is a misspelling of ("did you
// mean ...? "), by edit distance, or "".
func nearMeta(u string) string {
	best, bestD := "", 4 // a few typos, never a different draft (draft-06 vs draft-07 is 1 apart, but both are known)
	for _, d := range append(slices.Clone(Drafts), OpenAPI30) {
		plain := strings.TrimSuffix(d.URL, "#")
		for _, cand := range []string{plain, plain + "#", strings.Replace(plain, "http://", "https://", 1)} {
			if dd := editDistance(u, cand, bestD); dd < bestD {
				best, bestD = cand, dd
			}
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q? It is ", best)
}

// fetchMetaHint says how to use a custom remote meta-schema: pin it with jstk fetch.
func fetchMetaHint(u string) string {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return ""
	}
	return `; if it is a custom meta-schema, pin it in jstk.lock with "jstk fetch" run at the workspace root, or map it with --resolve`
}

// editDistance is the Levenshtein distance of a and b, or bound when it is bound or more.
func editDistance(a, b string, bound int) int {
	if d := len(a) - len(b); d >= bound || -d >= bound {
		return bound
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low >= bound {
			return bound
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], bound)
}

// vocabURL is the URI of one of a draft's vocabularies.
func (d *Draft) vocabURL(v string) string {
	return strings.TrimSuffix(d.URL, "schema") + "vocab/" + v
}

func (d *Draft) String() string { return d.Name }

//go:embed metaschemas
var metaFS embed.FS

// metaPath maps a json-schema.org URI, or the URI of an OpenAPI schema dialect, to its
// embedded file, or "".
func metaPath(u string) string {
	u = strings.TrimSuffix(u, "#")
	if p := oasMetaPath(u); p != "" {
		return p
	}
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

// oasMetaPath maps the URIs of the OpenAPI schema dialects to the meta-schemas jstk embeds
// for them: OpenAPI 3.0's (written for jstk from the 3.0.3 specification), and OpenAPI
// 3.1's dialect (2020-12 with the OpenAPI vocabulary: discriminator, xml, externalDocs and
// example as annotations), which OpenAPI 3.2 keeps. Dated variants of the 3.1 and 3.2 URIs
// name the same dialect.
func oasMetaPath(u string) string {
	rest, ok := strings.CutPrefix(u, "https://spec.openapis.org/oas/")
	if !ok {
		return ""
	}
	switch {
	case rest == "3.0/dialect":
		return "metaschemas/oas/3.0/dialect.json"
	case rest == "3.1/dialect" || strings.HasPrefix(rest, "3.1/dialect/") || rest == "3.2/dialect" || strings.HasPrefix(rest, "3.2/dialect/"):
		return "metaschemas/oas/3.1/dialect/base.json"
	case rest == "3.1/meta" || strings.HasPrefix(rest, "3.1/meta/") || rest == "3.2/meta" || strings.HasPrefix(rest, "3.2/meta/"):
		return "metaschemas/oas/3.1/meta/base.json"
	}
	return ""
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

// IDKeyword is the keyword that gives a schema its URI, from the keyword model: "id" in
// draft 4, "$id" after, "" in OpenAPI 3.0 (no identifier keyword, though the model keeps
// draft 4's entries for it).
func (d *Draft) IDKeyword() string {
	if d.oas30 {
		return ""
	}
	keywordIndex()
	return baseURIKeyword[draftSlot(d)]
}
