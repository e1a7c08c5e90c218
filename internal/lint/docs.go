package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

//go:generate env JSTK_UPDATE=1 go test -run TestRuleDocs .

// Markdown renders the rule reference (docs/lint-rules.md) from the rule table.
func Markdown() []byte {
	loadRules()
	var b strings.Builder
	b.WriteString("# jstk lint rules\n\n")
	b.WriteString("<!-- Generated from the rule table in internal/lint by `JSTK_UPDATE=1 go test ./internal/lint -run TestRuleDocs`. Do not edit. -->\n\n")
	fmt.Fprintf(&b, "`jstk lint` checks schema documents against %d rules. Each finding names its rule, a severity "+
		"(error, warning, info), the file, line and column, and the JSON Pointer of the keyword it is about.\n\n", len(rules))
	b.WriteString("## Configuring\n\n")
	b.WriteString("- **Per run**: `--rules RULE=SETTING` (repeatable), where RULE is a rule id, a category or `all`, and " +
		"SETTING is `off`, `on` (the default severity), `error`, `warning` or `info`. A rule id wins over its category, " +
		"which wins over `all`. `--fail-on error|warning|info` sets the least severity that makes `jstk lint` exit 1 " +
		"(default `warning`).\n")
	b.WriteString("- **Per workspace**: the `lint` block of `jstk.json`: " +
		"`{\"lint\": {\"rules\": {\"style\": \"off\", \"unknown-format\": \"error\"}, \"failOn\": \"error\"}}`; `--rules` applies after it.\n")
	b.WriteString("- **Per subschema**: `\"x-lint-ignore\": [\"rule-id\", ...]` (or `true` for every rule) in a schema " +
		"object suppresses those rules for it and everything below it.\n")
	b.WriteString("- **Opt-in rules** are off unless enabled (`--rules trailing-period=on`).\n\n")
	b.WriteString("## Fixes\n\n")
	b.WriteString("Rules marked *fixable* propose a fix: JSON Patch operations and text edits that keep the rest of the " +
		"file as it is. `jstk lint --fix` applies them to JSON files (the MCP tool only returns them). A fix is offered " +
		"only when it provably keeps the set of instances the schema accepts: it never removes or renumbers anything a " +
		"`$ref` of the document points into, anything carrying an `$id` or anchor, or a reference that does not " +
		"resolve (so an unresolvable `$ref` is never deleted). In 2019-09 and later, keywords whose annotations " +
		"`unevaluatedProperties`/`unevaluatedItems` read are not removed. The property is tested: every schema of the " +
		"JSON-Schema-Test-Suite and of SchemaStore is fixed with every rule on and must give the same verdict as the " +
		"original on every instance checked (`internal/lint/testdata/fixproof-*.txt`).\n\n")
	b.WriteString("## Rules\n\n")
	b.WriteString("| Rule | Category | Severity | Fixable | Finds |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		sev := string(r.Severity)
		if r.OptIn {
			sev += " (opt-in)"
		}
		fx := ""
		if r.Fixable {
			fx = "yes"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", r.ID, r.ID, r.Category, sev, fx, mdEscape(r.Summary))
	}
	cat := Category("")
	for _, r := range rules {
		if r.Category != cat {
			cat = r.Category
			fmt.Fprintf(&b, "\n## %s%s\n", strings.ToUpper(string(cat[:1])), cat[1:])
		}
		fmt.Fprintf(&b, "\n### %s\n\n", r.ID)
		meta := []string{string(r.Category), "default severity: " + string(r.Severity)}
		if r.OptIn {
			meta = append(meta, "opt-in")
		}
		if r.Fixable {
			meta = append(meta, "fixable")
		}
		fmt.Fprintf(&b, "*%s*\n\n%s.\n\n%s\n\n", strings.Join(meta, " · "), r.Summary, r.Explanation)
		fmt.Fprintf(&b, "Reported:\n\n```json\n%s\n```\n\nNot reported:\n\n```json\n%s\n```\n", pretty(r.Bad), pretty(r.Good))
		if len(r.Peer) > 0 {
			fmt.Fprintf(&b, "\nCovers the sourcemeta CLI rules: %s.\n", "`"+strings.Join(r.Peer, "`, `")+"`")
		}
	}
	b.WriteString("\n## Checklist against the sourcemeta JSON Schema CLI\n\n")
	b.WriteString("Every rule of `jsonschema lint --list` (v16.11.0) and the jstk rule that covers its problem class:\n\n")
	b.WriteString("| sourcemeta rule | jstk rule |\n|---|---|\n")
	peers := make([]string, 0, len(peerOf))
	for p := range peerOf {
		peers = append(peers, p)
	}
	sort.Strings(peers)
	for _, p := range peers {
		note := ""
		if byID[peerOf[p]].ID == "wrong-draft-keyword" {
			note = " (draft 3 keywords, which jstk reports as keywords of another draft)"
		}
		fmt.Fprintf(&b, "| `%s` | [`%s`](#%s)%s |\n", p, peerOf[p], peerOf[p], note)
	}
	return []byte(b.String())
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// pretty indents an example schema, unless it is longer than a page (deep-nesting's),
// which stays as written.
func pretty(s string) string {
	doc, err := source.ParseJSON("", []byte(s), nil)
	if err != nil || len(s) > 1000 {
		return s
	}
	return string(source.AppendJSONIndent(nil, doc.Root, "", "  "))
}
