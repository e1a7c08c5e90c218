package lint

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// keywordRules registers the rules of this file (from loadRules).
func keywordRules() {
	addRules(
		&Rule{ID: "misspelled-keyword", Category: Correctness, Severity: diag.Warning,
			Summary: "An unknown keyword is one typo away from a keyword of the draft",
			Explanation: "Validators ignore keywords they do not know, so a misspelled keyword (requried, " +
				"additionalproperties, minLenght, $Ref, example) silently checks nothing. The closest keyword is " +
				"suggested.",
			Bad:  `{"type": "object", "properties": {"id": {"type": "string"}}, "requried": ["id"]}`,
			Good: `{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}`,
			node: checkMisspelledKeyword},
		&Rule{ID: "wrong-draft-keyword", Category: Correctness, Severity: diag.Warning,
			Summary: "A keyword of another draft is used under this schema's $schema",
			Explanation: "Each draft has its own keywords: const and contains do not exist in draft 4, if/then/else " +
				"not before draft 7, dependentRequired and unevaluatedProperties not before 2019-09, prefixItems " +
				"not before 2020-12; id became $id in draft 6, and 2019-09 split dependencies. A validator reading " +
				"the declared draft ignores such a keyword, so what it should check goes unchecked. (const, contains, " +
				"propertyNames and if/then/else in draft 4 and 6 schemas are the exception validators disagree on: " +
				"jstk applies them, as Ajv does, while the specification and validators that follow its letter ignore " +
				"them; the finding says so.) Draft 3 keywords " +
				"(extends, disallow, divisibleBy) are reported too. Annotations of later drafts are harmless and not " +
				"reported.",
			Bad:  `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "dependentRequired": {"card": ["billing"]}}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "dependencies": {"card": ["billing"]}}`,
			Peer: []string{"disallow_default", "disallow_narrows_type", "divisible_by_default", "drop_extends_empty_schemas",
				"flatten_nested_extends", "non_applicable_disallow_types", "unnecessary_extends_ref_wrapper", "unnecessary_extends_wrapper"},
			node: checkWrongDraftKeyword},
		&Rule{ID: "unknown-keyword", Category: Portability, Severity: diag.Info,
			Summary: "A keyword that no draft defines, without the x- prefix",
			Explanation: "Unknown keywords are ignored today, but later drafts reserve the right to refuse them, and " +
				"readers cannot tell a custom annotation from a typo. Prefix custom keywords with x-. The extension " +
				"keywords of editors' JSON language services (markdownDescription, deprecationMessage, ...) are " +
				"not reported; OpenAPI keywords such as nullable are, with what JSON Schema says instead.",
			Bad:  `{"type": "string", "nullable": true}`,
			Good: `{"type": ["string", "null"]}`,
			Peer: []string{"unknown_keywords_prefix"},
			node: checkUnknownKeyword},
		&Rule{ID: "unknown-format", Category: Portability, Severity: diag.Warning,
			Summary: "format names a format that the draft does not define",
			Explanation: "Validators ignore a format they do not know (or refuse the schema when formats are " +
				"asserted), so a misspelled or custom format checks nothing. Formats of later drafts (date, " +
				"duration, uuid, ...) and OpenAPI formats (int32, binary, ...) are named as such. Prefix custom " +
				"formats with x-.",
			Bad:  `{"type": "string", "format": "datetime"}`,
			Good: `{"type": "string", "format": "date-time"}`,
			Peer: []string{"unknown_format_prefix"},
			node: checkUnknownFormat},
		&Rule{ID: "non-ecma-pattern", Category: Portability, Severity: diag.Warning,
			Summary: "A regular expression uses syntax that ECMA-262 does not have",
			Explanation: "JSON Schema patterns are ECMA-262 regular expressions. Constructs of other dialects " +
				"(\\Z, \\A, (?i), (?P<name>), possessive quantifiers, POSIX classes, needless escapes such as \\-) " +
				"are rejected by ECMA-262 engines in Unicode mode, such as ajv's, or silently mean something else.",
			Bad:  `{"type": "string", "pattern": "^\\w+\\Z"}`,
			Good: `{"type": "string", "pattern": "^\\w+$"}`,
			Peer: []string{"pattern_non_ecma_regex", "pattern_properties_non_ecma_regex"},
			node: checkNonECMAPattern},
		&Rule{ID: "unanchored-pattern", Category: Correctness, Severity: diag.Warning,
			Summary: "A pattern that surely meant to match the whole string is not anchored",
			Explanation: "pattern matches anywhere in the string unless anchored with ^ and $. \"[0-9]+\" accepts " +
				"\"abc1\"; \"^[a-z]+\" accepts \"a!!\" (its + checks one letter); \"^a|b$\" anchors only its first and " +
				"last alternatives. Only patterns whose shape leaves no doubt are reported.",
			Bad:  `{"type": "string", "pattern": "[0-9]+"}`,
			Good: `{"type": "string", "pattern": "^[0-9]+$"}`,
			node: checkUnanchoredPattern},
		&Rule{ID: "dialect-uri", Category: Portability, Severity: diag.Warning, Fixable: true,
			Summary: "$schema names a draft by a URI other than its official one",
			Explanation: "The official URIs are http://json-schema.org/draft-04/schema#, ...draft-06/schema# and " +
				"...draft-07/schema# (http, with the empty fragment), and https://json-schema.org/draft/2019-09/schema " +
				"and .../2020-12/schema (https, without it). Validators that compare URIs exactly do not recognise " +
				"other spellings, and http://json-schema.org/schema names whatever draft is latest.",
			Bad:  `{"$schema": "https://json-schema.org/draft-07/schema", "type": "string"}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}`,
			Peer: []string{"draft_official_dialect_with_https", "draft_official_dialect_without_empty_fragment",
				"modern_official_dialect_with_empty_fragment", "modern_official_dialect_with_http"},
			node: checkDialectURI},
		&Rule{ID: "missing-dialect", Category: Portability, Severity: diag.Info,
			Summary: "The document does not say which draft it is written in",
			Explanation: "Without $schema at the root, each validator reads the schema in a draft of its choosing " +
				"(jstk: 2020-12, or --draft), and the drafts differ (items, $ref siblings, exclusiveMinimum, ...).",
			Bad:  `{"type": "string"}`,
			Good: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}`,
			file: checkMissingDialect},
		&Rule{ID: "deep-nesting", Category: Portability, Severity: diag.Warning,
			Summary: fmt.Sprintf("Subschemas nested more than %d levels deep", maxNesting),
			Explanation: "Most validators follow a schema with one level of recursion per level of nesting, and " +
				"some run out of stack long before the nesting jstk accepts (10,000 levels of JSON by default). No " +
				"real schema needs such depth: generated ones that reach it usually lack a $ref to a shared " +
				"definition. jstk lint does not look below this level, so nothing under it is linted.",
			Bad:  strings.Repeat(`{"items": `, maxNesting+1) + `{"type": "string"}` + strings.Repeat("}", maxNesting+1),
			Good: `{"$defs": {"list": {"type": "array", "items": {"$ref": "#/$defs/list"}}}, "$ref": "#/$defs/list"}`,
			file: checkDeepNesting},
		&Rule{ID: "ignored-schema-keyword", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "$schema inside a subschema that is not a resource root is ignored",
			Explanation: "A subschema can change dialect only where it starts a resource: in 2019-09 and later, " +
				"beside an $id. Elsewhere, and anywhere below the root in drafts 4 to 7, $schema is ignored and the " +
				"subschema is read in its parent's dialect.",
			Bad:  `{"properties": {"name": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}}`,
			Good: `{"properties": {"name": {"type": "string"}}}`,
			Peer: []string{"ignored_metaschema"},
			node: checkIgnoredSchemaKeyword},
		&Rule{ID: "portable-anchor-names", Category: Portability, Severity: diag.Warning,
			Summary: "An anchor name outside the characters every draft accepts",
			Explanation: "Anchor names that start with a letter and go on with letters, digits, '-', '_' and '.' " +
				"are valid in every draft; others are rejected by some (2019-09 does not accept a leading '_', drafts " +
				"4 to 7 want an XML name).",
			Bad:  `{"$defs": {"item": {"$anchor": "_item", "type": "string"}}}`,
			Good: `{"$defs": {"item": {"$anchor": "item", "type": "string"}}}`,
			Peer: []string{"portable_anchor_names"},
			node: checkPortableAnchors},
		&Rule{ID: "unknown-ignore-rule", Category: Correctness, Severity: diag.Warning,
			Summary: "x-lint-ignore names a rule that does not exist",
			Explanation: "x-lint-ignore takes a list of rule ids (or true for all rules); a misspelled id suppresses " +
				"nothing.",
			Bad:  `{"x-lint-ignore": ["unknown-keywords"], "type": "string", "foo": 1}`,
			Good: `{"x-lint-ignore": ["unknown-keyword"], "type": "string", "foo": 1}`,
			node: checkUnknownIgnoreRule},
		&Rule{ID: "then-without-if", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "then or else without if is ignored",
			Explanation: "then and else only apply after if; without it they are never evaluated, so what they " +
				"check goes unchecked.",
			Bad:  `{"type": "object", "then": {"required": ["id"]}}`,
			Good: `{"type": "object", "if": {"required": ["kind"]}, "then": {"required": ["id"]}}`,
			Peer: []string{"then_without_if", "else_without_if"},
			node: checkThenWithoutIf},
		&Rule{ID: "if-without-then-else", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "if without then or else checks nothing",
			Explanation: "The outcome of if only selects then or else; with neither, if never changes whether an " +
				"instance is valid.",
			Bad:  `{"$schema": "http://json-schema.org/draft-07/schema#", "if": {"required": ["kind"]}}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "if": {"required": ["kind"]}, "then": {"required": ["id"]}}`,
			Peer: []string{"if_without_then_else"},
			node: checkIfWithoutThenElse},
		&Rule{ID: "contains-bound-without-contains", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "minContains or maxContains without contains is ignored",
			Explanation: "minContains and maxContains count the items that match contains; without contains they " +
				"are never evaluated.",
			Bad:  `{"type": "array", "minContains": 2}`,
			Good: `{"type": "array", "contains": {"type": "string"}, "minContains": 2}`,
			Peer: []string{"min_contains_without_contains", "max_contains_without_contains"},
			node: checkContainsBounds},
		&Rule{ID: "additional-items-ignored", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "additionalItems is ignored unless items is an array",
			Explanation: "additionalItems applies to the items after those that an array-form items describes. " +
				"When items is a single schema or absent, additionalItems is never evaluated.",
			Bad:  `{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"type": "string"}, "additionalItems": false}`,
			Good: `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}`,
			Peer: []string{"non_applicable_additional_items"},
			node: checkAdditionalItemsIgnored},
		&Rule{ID: "content-schema-without-media-type", Category: Correctness, Severity: diag.Warning, Fixable: true,
			Summary: "contentSchema without contentMediaType is ignored",
			Explanation: "contentSchema describes the decoded content of a string whose contentMediaType says how " +
				"to read it; without contentMediaType it means nothing.",
			Bad:  `{"type": "string", "contentSchema": {"type": "object"}}`,
			Good: `{"type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "object"}}`,
			Peer: []string{"content_schema_without_media_type"},
			node: checkContentSchema},
		&Rule{ID: "content-media-type-without-encoding", Category: Documentation, Severity: diag.Info, OptIn: true,
			Summary: "contentMediaType without contentEncoding",
			Explanation: "Binary media types in a JSON string need an encoding (contentEncoding: base64). Text " +
				"media types such as application/json do not, which is why this rule is opt-in.",
			Bad:  `{"type": "string", "contentMediaType": "image/png"}`,
			Good: `{"type": "string", "contentEncoding": "base64", "contentMediaType": "image/png"}`,
			Peer: []string{"content_media_type_without_encoding"},
			node: checkContentEncoding},
		&Rule{ID: "readonly-writeonly-conflict", Category: Correctness, Severity: diag.Warning,
			Summary: "readOnly and writeOnly are both true",
			Explanation: "A value cannot be both only read and only written; tools that honour them drop it " +
				"from every request and every response.",
			Bad:  `{"type": "string", "readOnly": true, "writeOnly": true}`,
			Good: `{"type": "string", "readOnly": true}`,
			Peer: []string{"conflicting_readonly_writeonly"},
			node: checkReadWriteOnly},
		&Rule{ID: "type-keyword-mismatch", Category: Correctness, Severity: diag.Warning,
			Summary: "A keyword applies to none of the types that type allows",
			Explanation: "Assertions apply to one type each: minimum to numbers, minLength to strings, minItems to " +
				"arrays, required to objects, and the formats the specification defines to strings. Beside a type " +
				"that excludes theirs they never do anything, which usually means the wrong keyword was chosen " +
				"(minimum for a string's length). Keywords beside $ref in drafts 4 to 7 are left to ref-siblings-ignored.",
			Bad:  `{"type": "string", "minimum": 1}`,
			Good: `{"type": "string", "minLength": 1}`,
			Peer: []string{"non_applicable_type_specific_keywords"},
			node: checkTypeKeywordMismatch},
		&Rule{ID: "enum-keyword-mismatch", Category: Redundancy, Severity: diag.Info, Fixable: true,
			Summary: "A keyword beside enum or const applies to none of its values",
			Explanation: "enum and const already fix the values; an assertion for a type that none of them has " +
				"never does anything.",
			Bad:  `{"enum": ["small", "large"], "minimum": 1}`,
			Good: `{"enum": ["small", "large"]}`,
			Peer: []string{"non_applicable_enum_validation_keywords"},
			node: checkEnumKeywordMismatch},
		&Rule{ID: "orphan-definitions", Category: Redundancy, Severity: diag.Info,
			Summary: "A definition is never referenced",
			Explanation: "A definition in $defs or definitions that no reference reaches from the root is dead " +
				"weight, or a sign that a reference points elsewhere by mistake. Documents that only hold " +
				"definitions (libraries), and definitions with their own $id or anchor, are not reported: other " +
				"documents may use them. No fix is offered, since other documents may refer to them by pointer.",
			Bad:  `{"type": "object", "$defs": {"unused": {"type": "string"}}}`,
			Good: `{"type": "object", "properties": {"name": {"$ref": "#/$defs/name"}}, "$defs": {"name": {"type": "string"}}}`,
			Peer: []string{"orphan_definitions"},
			file: checkOrphanDefinitions},
		&Rule{ID: "definitions-to-defs", Category: Style, Severity: diag.Info,
			Summary: "definitions is $defs since 2019-09",
			Explanation: "2019-09 named the location for reusable schemas $defs; definitions still works by " +
				"JSON Pointer but is not part of the dialect. Rename it together with the references into it.",
			Bad:  `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/definitions/a", "definitions": {"a": {"type": "string"}}}`,
			Good: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}}`,
			Peer: []string{"definitions_to_defs"},
			node: checkDefinitionsToDefs},
	)
}

// keywordClass sorts a schema object's key.
type keywordClass uint8

const (
	kwKnown keywordClass = iota
	kwWrongDraft
	kwMisspelled
	kwUnknown
)

// apiKeyword reports a keyword of the Schema Objects of OpenAPI 3.x and AsyncAPI documents
// beyond JSON Schema's (the model's entries of Support schema.OpenAPI, which OpenAPI 3.0's
// dialect adds to draft 4): known in the schemas of such a document.
func apiKeyword(k string) bool {
	e, ok := schema.OpenAPI30.Keyword(k)
	return ok && e.Support == schema.OpenAPI
}

// keywordHint is what a draft that does not define keyword k has instead, from the
// keyword model (schema.Keyword.Hint), or "".
func keywordHint(k string) string {
	for _, e := range schema.Keywords() {
		if e.Name == k && e.Hint != "" {
			return e.Hint
		}
	}
	return ""
}

// appliedAnyway reports the keywords of later drafts that jstk applies in draft d, whose
// specification ignores them (Support schema.Lenient; see schema.Options.StrictDraft):
// const, contains and propertyNames in draft 4; if, then and else in drafts 4 and 6.
func appliedAnyway(d *schema.Draft, k string) bool {
	e, ok := d.Keyword(k)
	return ok && e.Support == schema.Lenient
}

// classified caches classifyKeyword, which measures edit distances.
var classified sync.Map // draft version + "\x00" + key -> classification

type classification struct {
	class keywordClass
	msg   string
}

// classifyKeyword decides what a key of a schema object is in draft d.
func classifyKeyword(d *schema.Draft, k string) (keywordClass, string) {
	if d.Defines(k) {
		return kwKnown, ""
	}
	key := strconv.Itoa(d.Version) + "\x00" + k
	if c, ok := classified.Load(key); ok {
		cl := c.(classification)
		return cl.class, cl.msg
	}
	class, msg := classifyKeywordSlow(d, k)
	classified.Store(key, classification{class, msg})
	return class, msg
}

func classifyKeywordSlow(d *schema.Draft, k string) (keywordClass, string) {
	switch {
	case d.Defines(k), strings.HasPrefix(k, "x-"), vendorKeywords()[k]:
		return kwKnown, ""
	case isDefinitionsKeyword(k):
		return kwKnown, "" // locations for definitions, reached by pointer in every draft
	case isAnnotation(k) && len(draftsOf(k)) > 0:
		return kwKnown, "" // an annotation of another draft changes nothing
	}
	if hint, ok := draft3Only()[k]; ok {
		return kwWrongDraft, fmt.Sprintf("%s is a draft 3 keyword, which %s ignores; %s", k, d.Name, hint)
	}
	if ds := draftsOf(k); len(ds) > 0 {
		names := make([]string, len(ds))
		for i, x := range ds {
			names[i] = x.Name
		}
		msg := fmt.Sprintf("%s is a keyword of %s, not of %s, so it is ignored here", k, strings.Join(names, ", "), d.Name)
		if appliedAnyway(d, k) {
			msg = fmt.Sprintf("%s is a keyword of %s, not of %s: jstk applies it here anyway, as Ajv does, but the %s "+
				"specification ignores it, and so do validators that follow it to the letter", k, strings.Join(names, ", "), d.Name, d.Name)
		}
		if k == "dependencies" && d.Version >= 2019 {
			msg = fmt.Sprintf("%s is not a keyword of %s (jstk still honours it, most validators ignore it)", k, d.Name)
		}
		if h := keywordHint(k); h != "" {
			msg += "; " + h
		}
		return kwWrongDraft, msg
	}
	if apiKeyword(k) && k != "example" {
		if h := keywordHint(k); h != "" {
			return kwUnknown, k + " is an OpenAPI keyword; " + h
		}
		return kwUnknown, k + " is an OpenAPI keyword; JSON Schema ignores it"
	}
	if k == "example" {
		return kwMisspelled, `example is not a JSON Schema keyword (OpenAPI has it); did you mean examples (an array)?`
	}
	if c := closest(k, knownKeywords(d)); c != "" && c != k {
		return kwMisspelled, fmt.Sprintf("%s is not a keyword of %s; did you mean %s?", k, d.Name, c)
	}
	return kwUnknown, ""
}

func checkKeywords(c *checker, n *node, want keywordClass) {
	if !n.isObject() || n.hasRefOld() {
		return
	}
	for i := 0; i < n.val.Len(); i++ {
		k := n.val.Key(i)
		class, msg := classifyKeyword(n.draft, k)
		if class != want || c.f.api && apiKeyword(k) {
			continue
		}
		if class == kwUnknown && msg == "" {
			msg = fmt.Sprintf("%s is not a keyword of any JSON Schema draft; validators ignore it (prefix custom keywords with x-)", k)
			if v, _ := n.get(k); v.Kind() == source.Object && (v.Has("type") || v.Has("$ref") || v.Has("properties")) {
				msg += "; its value looks like a schema: was it meant to be under properties?"
			}
		}
		c.report(n, "/"+source.EscapeToken(k), msg, nil)
	}
}

func checkMisspelledKeyword(c *checker, n *node) { checkKeywords(c, n, kwMisspelled) }

func checkWrongDraftKeyword(c *checker, n *node) { checkKeywords(c, n, kwWrongDraft) }

func checkUnknownKeyword(c *checker, n *node) { checkKeywords(c, n, kwUnknown) }

func checkUnknownFormat(c *checker, n *node) {
	if !live(n) {
		return
	}
	fv, ok := n.get("format")
	if !ok || fv.Kind() != source.String {
		return
	}
	f := fv.Str()
	allFormats := formatsOf()[2020]
	if formatsOf()[n.draft.Version][f] || strings.HasPrefix(f, "x-") {
		return
	}
	var msg string
	switch {
	case allFormats[f]:
		first := ""
		for _, d := range schema.Drafts {
			if formatsOf()[d.Version][f] {
				first = d.Name
				break
			}
		}
		msg = fmt.Sprintf("format %s is defined from %s on; %s validators do not know it and check nothing", quoted(f), first, n.draft.Name)
	case openAPIFormats()[f]:
		msg = fmt.Sprintf("format %s is an OpenAPI format; JSON Schema validators do not know it and check nothing", quoted(f))
	default:
		msg = fmt.Sprintf("format %s is not defined by %s; validators check nothing (prefix custom formats with x-)", quoted(f), n.draft.Name)
		if s := closest(f, allFormats); s != "" {
			msg = fmt.Sprintf("format %s is not defined by %s; did you mean %s?", quoted(f), n.draft.Name, quoted(s))
		}
	}
	c.report(n, "/format", msg, nil)
}

// patternsOf returns the patterns of a schema object: pattern and the patternProperties
// keys, with their pointers.
func patternsOf(n *node) [][2]string {
	var out [][2]string
	if pv, ok := n.get("pattern"); ok && pv.Kind() == source.String {
		out = append(out, [2]string{"/pattern", pv.Str()})
	}
	if pp, ok := n.get("patternProperties"); ok && pp.Kind() == source.Object {
		for i := 0; i < pp.Len(); i++ {
			out = append(out, [2]string{"/patternProperties/" + source.EscapeToken(pp.Key(i)), pp.Key(i)})
		}
	}
	return out
}

func checkNonECMAPattern(c *checker, n *node) {
	if !live(n) {
		return
	}
	for _, p := range patternsOf(n) {
		if msg := ecmaProblem(p[1]); msg != "" {
			c.report(n, p[0], fmt.Sprintf("pattern %s is not portable ECMA-262: %s", quoted(p[1]), msg), nil)
		}
	}
}

func checkUnanchoredPattern(c *checker, n *node) {
	if !live(n) {
		return
	}
	for _, p := range patternsOf(n) {
		if msg := anchorProblem(p[1]); msg != "" {
			c.report(n, p[0], fmt.Sprintf("pattern %s is not anchored: %s", quoted(p[1]), msg), nil)
		}
	}
}

// canonicalDialect returns the official URI of a draft.
func canonicalDialect(d *schema.Draft) string {
	if d.Version <= 7 {
		return d.URL + "#"
	}
	return d.URL
}

func checkDialectURI(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	sv, ok := n.get("$schema")
	if !ok || sv.Kind() != source.String {
		return
	}
	u := sv.Str()
	if d, ok := schema.DraftByName(u); ok && strings.Contains(u, "json-schema.org") {
		if want := canonicalDialect(d); u != want {
			c.report(n, "/$schema", fmt.Sprintf("%s is not the official URI of %s; write %s", quoted(u), d.Name, quoted(want)),
				fix("use the official URI", replaceOp(n.at("$schema"), source.StringValue(want))))
		}
		return
	}
	trimmed := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "#")
	if trimmed == "json-schema.org/schema" {
		c.report(n, "/$schema", fmt.Sprintf("%s names the latest draft, whichever it is when the schema is read; name a draft such as %s",
			quoted(u), quoted(canonicalDialect(schema.Draft2020))), nil)
	}
}

func checkMissingDialect(c *checker) {
	root := c.f.byPtr[""]
	if c.f.root != "" || root == nil || !root.isObject() || root.has("$schema") {
		return
	}
	c.report(root, "", fmt.Sprintf("no $schema: each validator picks a draft of its own (jstk reads it as %s)", c.f.rootDraft.Name), nil)
}

func checkDeepNesting(c *checker) {
	n := c.f.tooDeep
	if n == nil {
		return
	}
	c.report(n.parent, strings.TrimPrefix(n.ptr, n.parent.ptr),
		fmt.Sprintf("subschemas nested more than %d levels deep: validators that recurse per level may run out of stack; lint did not look below here", maxNesting), nil)
}

func checkIgnoredSchemaKeyword(c *checker, n *node) {
	if n.parent == nil || !n.isObject() || !n.has("$schema") {
		return
	}
	if n.draft.Version >= 2019 && n.parent.draft.Version >= 2019 && n.has("$id") {
		return // a resource root may declare its dialect
	}
	why := fmt.Sprintf("%s reads $schema only at the root of the document", n.draft.Name)
	if n.parent.draft.Version >= 2019 {
		why = "$schema is read only beside an $id, where a subschema starts a resource"
	}
	c.report(n, "/$schema", "this $schema is ignored: "+why, fix("remove the ignored $schema", removeOp(n.at("$schema"))))
}

// portableAnchor says whether s matches ^[A-Za-z][-A-Za-z0-9._]*$.
func portableAnchor(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '.' || c == '_')) {
			return false
		}
	}
	return s != ""
}

func checkPortableAnchors(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	check := func(kw, name string) {
		if name != "" && !portableAnchor(name) {
			c.report(n, "/"+kw, fmt.Sprintf("anchor name %s is not portable: use a letter first, then letters, digits, '-', '_' or '.'", quoted(name)), nil)
		}
	}
	if n.draft.Version >= 2019 {
		for _, kw := range n.draft.Anchors() {
			if s, ok := n.str(kw); ok {
				check(kw, s)
			}
		}
		return
	}
	key := idKeyword(n.draft)
	if s, ok := n.str(key); ok && strings.HasPrefix(s, "#") {
		check(key, s[1:])
	}
}

func checkUnknownIgnoreRule(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	iv, ok := n.get("x-lint-ignore")
	if !ok {
		return
	}
	known := func(id string) bool {
		_, ok := byID[id]
		return ok || id == "*"
	}
	switch iv.Kind() {
	case source.Bool:
	case source.String:
		if !known(iv.Str()) {
			c.report(n, "/x-lint-ignore", fmt.Sprintf("x-lint-ignore names %s, which is not a rule (run 'jstk lint --list')", quoted(iv.Str())), nil)
		}
	case source.Array:
		ids := map[string]bool{}
		for id := range byID {
			ids[id] = true
		}
		for i, it := range iv.Items() {
			if it.Kind() != source.String || !known(it.Str()) {
				msg := fmt.Sprintf("x-lint-ignore names %s, which is not a rule", short(it))
				if s := closest(it.Str(), ids); it.Kind() == source.String && s != "" {
					msg += fmt.Sprintf("; did you mean %s?", quoted(s))
				}
				c.report(n, fmt.Sprintf("/x-lint-ignore/%d", i), msg, nil)
			}
		}
	default:
		c.report(n, "/x-lint-ignore", "x-lint-ignore must be a list of rule ids, a rule id, or true", nil)
	}
}

func checkThenWithoutIf(c *checker, n *node) {
	if !live(n) || n.draft.Version < 7 || n.has("if") {
		return
	}
	for _, kw := range []string{"then", "else"} {
		if n.has(kw) {
			c.report(n, "/"+kw, fmt.Sprintf("%s without if is never evaluated", kw), fix("remove "+kw, removeOp(n.at(kw))))
		}
	}
}

func checkIfWithoutThenElse(c *checker, n *node) {
	if !live(n) || n.draft.Version < 7 || !n.has("if") || n.has("then") || n.has("else") {
		return
	}
	var fx *Fix
	// From 2019-09 on, a passing if contributes annotations that unevaluated* may see.
	if n.draft.Version == 7 {
		fx = fix("remove if", removeOp(n.at("if")))
	}
	c.report(n, "/if", "if without then or else never changes whether an instance is valid", fx)
}

func checkContainsBounds(c *checker, n *node) {
	if !live(n) || n.draft.Version < 2019 || n.has("contains") {
		return
	}
	for _, kw := range []string{"minContains", "maxContains"} {
		if n.has(kw) {
			c.report(n, "/"+kw, fmt.Sprintf("%s without contains is never evaluated", kw), fix("remove "+kw, removeOp(n.at(kw))))
		}
	}
}

func checkAdditionalItemsIgnored(c *checker, n *node) {
	if !live(n) || n.draft.Version > 2019 || !n.has("additionalItems") {
		return
	}
	if iv, ok := n.get("items"); ok && iv.Kind() == source.Array {
		return
	}
	var fx *Fix
	if n.draft.Version <= 7 {
		fx = fix("remove additionalItems", removeOp(n.at("additionalItems")))
	}
	c.report(n, "/additionalItems", "additionalItems is ignored because items is not an array of schemas", fx)
}

func checkContentSchema(c *checker, n *node) {
	if !live(n) || n.draft.Version < 2019 || !n.has("contentSchema") || n.has("contentMediaType") {
		return
	}
	c.report(n, "/contentSchema", "contentSchema without contentMediaType means nothing", fix("remove contentSchema", removeOp(n.at("contentSchema"))))
}

func checkContentEncoding(c *checker, n *node) {
	if !live(n) || n.draft.Version < 7 || !n.has("contentMediaType") || n.has("contentEncoding") {
		return
	}
	c.report(n, "/contentMediaType", "contentMediaType without contentEncoding: binary media need an encoding such as base64", nil)
}

func checkReadWriteOnly(c *checker, n *node) {
	if !live(n) {
		return
	}
	r, ok1 := n.get("readOnly")
	w, ok2 := n.get("writeOnly")
	if ok1 && ok2 && r.Bool() && w.Bool() {
		c.report(n, "/writeOnly", "readOnly and writeOnly are both true: the value is neither sent nor received", nil)
	}
}

func checkTypeKeywordMismatch(c *checker, n *node) {
	if !live(n) {
		return
	}
	t, ok := declaredTypes(n)
	if !ok {
		return
	}
	for i := 0; i < n.val.Len(); i++ {
		k := n.val.Key(i)
		kt, typed := keywordTypes(n.draft, k)
		if !typed || !n.draft.Defines(k) || kt&t != 0 {
			continue
		}
		c.report(n, "/"+k, fmt.Sprintf("%s applies to %ss only, but type allows only %s: it never does anything", k, kt, t), nil)
	}
	// The formats the specification defines are all about strings.
	if f, ok := n.str("format"); ok && formatsOf()[2020][f] && t&schema.TypeString == 0 {
		c.report(n, "/format", fmt.Sprintf("format %s applies to strings only, but type allows only %s: it never does anything", quoted(f), t), nil)
	}
}

func checkEnumKeywordMismatch(c *checker, n *node) {
	if !live(n) || n.has("type") {
		return
	}
	var vals []source.Value
	if ev, ok := n.get("enum"); ok && ev.Kind() == source.Array && ev.Len() > 0 {
		vals = ev.Items()
	} else if cv, ok := n.get("const"); ok && n.draft.Version >= 6 {
		vals = []source.Value{cv}
	} else {
		return
	}
	var have schema.TypeSet
	for _, v := range vals {
		have |= schema.TypeOf(v)
	}
	for i := 0; i < n.val.Len(); i++ {
		k := n.val.Key(i)
		kt, typed := keywordTypes(n.draft, k)
		if !typed || !n.draft.Defines(k) || kt&have != 0 {
			continue
		}
		// Annotation-producing applicators could matter to unevaluated* in 2019-09+.
		var fx *Fix
		if n.draft.Version <= 7 || !producesAnnotations(k) {
			fx = fix("remove "+k, removeOp(n.at(k)))
		}
		c.report(n, "/"+k, fmt.Sprintf("%s applies to %ss only, and no enum or const value is one: it never does anything", k, kt), fx)
	}
}

// producesAnnotations reports the keywords whose annotations unevaluatedProperties and
// unevaluatedItems read, in some draft (schema.Keyword.Annotates; by name: contains too,
// which annotates from 2020-12 on).
func producesAnnotations(k string) bool {
	return len(schema.KeywordNames(schema.AllDrafts, func(e *schema.Keyword) bool { return e.Name == k && e.Annotates })) > 0
}

func checkOrphanDefinitions(c *checker) {
	f := c.f
	root := f.rootNode()
	if root == nil || !root.isObject() {
		return
	}
	// A library: nothing at the root but definitions and metadata.
	library := true
	for i := 0; i < root.val.Len(); i++ {
		k := root.val.Key(i)
		if f.rootDraft.Defines(k) && !isAnnotation(k) && !isDefinitionsKeyword(k) && !strings.HasPrefix(k, "$") {
			library = false
		}
		if k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" {
			library = false
		}
	}
	if library {
		return
	}
	var defs []*node
	depth := 0 // the deepest definition's, in tokens
	for _, n := range f.nodes {
		if n.parent != nil && isDefinitionsKeyword(n.kw) && !n.inert {
			defs = append(defs, n)
			depth = max(depth, strings.Count(n.ptr, "/"))
		}
	}
	if len(defs) == 0 {
		return
	}
	used := map[string]bool{}
	for p := range f.usedPointers(depth) {
		markAncestors(used, p)
	}
	idAnc := f.fixIdx().idAnc
	for _, d := range defs {
		if idAnc[d.ptr] || used[d.ptr] {
			continue
		}
		{
			c.report(d, "", fmt.Sprintf("definition %s is never referenced", quoted(d.key)), nil)
		}
	}
}

// usedPointers returns the pointers of this document's schemas that evaluation can reach
// from the root (through the compiled schema when it compiles, else through every local
// reference found in the document), cut to their first depth tokens: what is asked of them
// is whether a definition no deeper than that is one of their ancestors, and a document of
// many schemas need not have all their pointers made.
func (f *file) usedPointers(depth int) map[string]bool {
	used := map[string]bool{}
	if root := f.compiledRoot(); root != nil {
		// reached says, by offset, which schemas holding a local reference were reached:
		// only those are asked about, so only those are kept.
		reached := map[int]bool{}
		for _, r := range f.refs {
			if r.local && r.found {
				reached[r.n.val.Offset()] = false
			}
		}
		schema.Walk(root, func(s *schema.Schema) bool {
			if s.Document() == f.doc {
				used[s.PointerPrefix(depth)] = true
				if _, ok := reached[s.Value().Offset()]; ok {
					reached[s.Value().Offset()] = true
				}
				return true
			}
			return false // another document: its references back here count below
		})
		// References from inert places and from other documents are not followed; count
		// every local reference target of a reached schema's subtree anyway.
		for _, r := range f.refs {
			if r.local && r.found && reached[r.n.val.Offset()] {
				used[cutPointer(r.target, depth)] = true
			}
		}
		return used
	}
	for _, r := range f.refs {
		if r.local && r.found {
			used[cutPointer(r.target, depth)] = true
		}
	}
	return used
}

// cutPointer returns the first n reference tokens of a JSON Pointer.
func cutPointer(p string, n int) string {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			if n == 0 {
				return p[:i]
			}
			n--
		}
	}
	return p
}

func checkDefinitionsToDefs(c *checker, n *node) {
	if !n.isObject() || n.draft.Version < 2019 || !n.has("definitions") {
		return
	}
	c.report(n, "/definitions", fmt.Sprintf("%s names the location for reusable schemas $defs", n.draft.Name), nil)
}
