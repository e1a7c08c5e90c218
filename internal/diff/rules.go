package diff

import (
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/diff/algebra"
	"github.com/jstk-dev/jstk/internal/diff/align"
	"github.com/jstk-dev/jstk/internal/openapi"
)

// kindDocs describes every change kind diff reports. The codes are stable: the diagnostic
// code of a change is "diff/<kind>". The effect of a change is not fixed by its kind: it
// is proved (or shown by an example) for each change, in its context. A function, not a
// package-level map, so that the map is made when the rules are listed, not at every start.
func kindDocs() map[string]string {
	return map[string]string{
		"dialect-changed":                "$schema changed; each side is read in its own dialect, so a pure dialect upgrade is equivalent",
		"schema-rejects-all":             "the schema became false (or otherwise rejects everything)",
		"schema-accepts-again":           "a schema that rejected everything accepts values again",
		"type-extended":                  "type admits more classes of values (e.g. integer to number)",
		"type-narrowed":                  "type admits fewer classes of values",
		"type-changed":                   "type admits other classes of values",
		"enum-added":                     "values are now limited to a list (enum)",
		"enum-removed":                   "values are no longer limited to a list",
		"enum-extended":                  "the list of allowed values grew (order and 1 == 1.0 do not matter)",
		"enum-narrowed":                  "the list of allowed values shrank",
		"enum-changed":                   "values were both added to and removed from the list",
		"const-added":                    "the value is now fixed (const)",
		"const-removed":                  "the value is no longer fixed",
		"const-changed":                  "the fixed value changed",
		"minimum-added":                  "a lower bound (minimum or exclusiveMinimum, normalised across drafts) was added",
		"minimum-removed":                "the lower bound was removed",
		"minimum-increased":              "the lower bound rose (an inclusive bound becoming exclusive counts)",
		"minimum-decreased":              "the lower bound fell",
		"maximum-added":                  "an upper bound (maximum or exclusiveMaximum) was added",
		"maximum-removed":                "the upper bound was removed",
		"maximum-increased":              "the upper bound rose",
		"maximum-decreased":              "the upper bound fell",
		"multiple-of-added":              "numbers must be a multiple of a value",
		"multiple-of-removed":            "numbers no longer need to be a multiple of a value",
		"multiple-of-changed":            "the multipleOf divisor changed (judged with exact decimal arithmetic)",
		"min-length-added":               "strings have a minimum length",
		"min-length-removed":             "strings no longer have a minimum length",
		"min-length-increased":           "the minimum string length rose",
		"min-length-decreased":           "the minimum string length fell",
		"max-length-added":               "strings have a maximum length",
		"max-length-removed":             "strings no longer have a maximum length",
		"max-length-increased":           "the maximum string length rose",
		"max-length-decreased":           "the maximum string length fell",
		"pattern-added":                  "strings must match a pattern",
		"pattern-removed":                "strings no longer need to match a pattern",
		"pattern-changed":                "the pattern changed (inclusion between patterns is decided where possible)",
		"format-added":                   "a format was added (an assertion only with --assert-format)",
		"format-removed":                 "a format was removed",
		"format-changed":                 "the format changed",
		"content-changed":                "draft-07 contentEncoding/contentMediaType assertions changed",
		"min-items-added":                "arrays have a minimum length",
		"min-items-removed":              "arrays no longer have a minimum length",
		"min-items-increased":            "the minimum array length rose",
		"min-items-decreased":            "the minimum array length fell",
		"max-items-added":                "arrays have a maximum length (also implied by a closed tuple)",
		"max-items-removed":              "arrays no longer have a maximum length",
		"max-items-increased":            "the maximum array length rose",
		"max-items-decreased":            "the maximum array length fell",
		"unique-items-added":             "array items must be unique",
		"unique-items-removed":           "array items no longer need to be unique",
		"prefix-item-added":              "a tuple position got a schema of its own (prefixItems, or a draft-07 items array)",
		"prefix-item-removed":            "a tuple position lost its own schema",
		"items-added":                    "items after the tuple positions got a schema (items, or additionalItems)",
		"items-removed":                  "items after the tuple positions lost their schema",
		"items-changed":                  "the schema of the remaining items changed between a boolean and a schema",
		"contains-added":                 "arrays must contain a matching item",
		"contains-removed":               "arrays no longer need a matching item",
		"min-contains-increased":         "more items must match contains",
		"min-contains-decreased":         "fewer items must match contains",
		"max-contains-added":             "at most a number of items may match contains",
		"max-contains-removed":           "no limit on items matching contains",
		"max-contains-increased":         "more items may match contains",
		"max-contains-decreased":         "fewer items may match contains",
		"unevaluated-items-added":        "unevaluatedItems was added",
		"unevaluated-items-removed":      "unevaluatedItems was removed",
		"unevaluated-items-changed":      "unevaluatedItems changed",
		"min-properties-added":           "objects have a minimum number of properties",
		"min-properties-removed":         "objects no longer have a minimum number of properties",
		"min-properties-increased":       "the minimum number of properties rose",
		"min-properties-decreased":       "the minimum number of properties fell",
		"max-properties-added":           "objects have a maximum number of properties",
		"max-properties-removed":         "objects no longer have a maximum number of properties",
		"max-properties-increased":       "the maximum number of properties rose",
		"max-properties-decreased":       "the maximum number of properties fell",
		"required-added":                 "a property became required (also one not declared in properties)",
		"required-removed":               "a property is no longer required",
		"property-added":                 "a property got a schema; its effect depends on whether the other side was open, closed or covered by a pattern",
		"property-removed":               "a property lost its schema",
		"property-changed":               "a property became forbidden or allowed",
		"pattern-property-added":         "a patternProperties entry was added",
		"pattern-property-removed":       "a patternProperties entry was removed",
		"pattern-property-changed":       "a patternProperties entry changed between a boolean and a schema",
		"additional-properties-added":    "additionalProperties was added",
		"additional-properties-removed":  "additionalProperties was removed",
		"additional-properties-changed":  "additionalProperties changed between a boolean and a schema",
		"unevaluated-properties-added":   "unevaluatedProperties was added",
		"unevaluated-properties-removed": "unevaluatedProperties was removed",
		"unevaluated-properties-changed": "unevaluatedProperties changed",
		"property-names-added":           "property names are constrained",
		"property-names-removed":         "property names are no longer constrained",
		"dependent-required-added":       "a property now requires others (dependentRequired, or draft-07 dependencies)",
		"dependent-required-removed":     "a property no longer requires others",
		"dependent-required-extended":    "a property requires more others",
		"dependent-required-narrowed":    "a property requires fewer others",
		"dependent-required-changed":     "what a property requires changed",
		"dependent-schema-added":         "objects with a property must match a schema (dependentSchemas, or dependencies)",
		"dependent-schema-removed":       "objects with a property no longer need to match a schema",
		"any-of-added":                   "an anyOf was added",
		"any-of-removed":                 "an anyOf was removed",
		"any-of-branch-added":            "an anyOf gained a branch",
		"any-of-branch-removed":          "an anyOf lost a branch",
		"one-of-added":                   "a oneOf was added",
		"one-of-removed":                 "a oneOf was removed",
		"one-of-branch-added":            "a oneOf gained a branch: a union only when the branches are provably disjoint; an overlapping branch narrows",
		"one-of-branch-removed":          "a oneOf lost a branch",
		"not-added":                      "a not was added",
		"not-removed":                    "a not was removed",
		"if-added":                       "an if/then/else was added",
		"if-removed":                     "an if/then/else was removed",
		"then-added":                     "then was added to an if",
		"then-removed":                   "then was removed from an if",
		"else-added":                     "else was added to an if",
		"else-removed":                   "else was removed from an if",
		"dynamic-reference":              "a dynamic reference or an out-of-range number: judged by the search only",
		"keyword-not-read":               "a keyword that acts on instances and that diff does not read (a keyword new to jstk): judged by the search only",
		"reference-loop":                 "a schema applies itself to the same instance in a loop of $ref, allOf, anyOf, ...: undefined, so never judged compatible",
		"semantic-difference":            "the search found an instance the two schemas judge differently that no described change explains",
	}
}

// Rules lists the diagnostic codes diff reports, for SARIF and the docs; the table is made on
// the first call (not at the start of every command) and must not be modified.
var Rules = sync.OnceValue(func() []diag.Rule {
	var out []diag.Rule
	for k, d := range kindDocs() {
		out = append(out, diag.Rule{Code: "diff/" + k, Description: d, Severity: diag.Warning})
	}
	for k, d := range openapi.ChangeKinds() {
		out = append(out, diag.Rule{Code: "diff/" + k, Description: "(OpenAPI, AsyncAPI) " + d, Severity: diag.Warning})
	}
	for _, kw := range algebra.AnnotationKeywords {
		base := align.Kebab(strings.TrimPrefix(kw, "$"))
		for _, verb := range []string{"added", "removed", "changed"} {
			out = append(out, diag.Rule{Code: "diff/" + base + "-" + verb,
				Description: kw + " " + verb + " (reported with --level docs; no effect on validity)", Severity: diag.Info})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
})

// Kinds lists every change kind, sorted.
func Kinds() []string {
	var out []string
	for _, r := range Rules() {
		out = append(out, strings.TrimPrefix(r.Code, "diff/"))
	}
	return out
}
