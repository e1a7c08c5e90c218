package lint

import (
	"fmt"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/source"
)

// documentationRules registers the rules of this file (from loadRules).
func documentationRules() {
	addRules(
		&Rule{ID: "whitespace-trim", Category: Documentation, Severity: diag.Info, Fixable: true,
			Summary: "A title, description or $comment starts or ends with white space",
			Explanation: "Leading and trailing spaces and newlines show up in generated documentation and editor " +
				"tooltips. They never change validation, so removing them is always safe.",
			Bad:  `{"title": " Name ", "type": "string"}`,
			Good: `{"title": "Name", "type": "string"}`,
			Peer: []string{"title_trim", "description_trim", "comment_trim"},
			node: checkWhitespaceTrim},
		&Rule{ID: "trailing-period", Category: Documentation, Severity: diag.Info, OptIn: true, Fixable: true,
			Summary: "A title or description ends with a period",
			Explanation: "Some style guides leave the final period out so that interfaces can place the text " +
				"freely. Opt-in, since many descriptions are full sentences.",
			Bad:  `{"title": "The name.", "type": "string"}`,
			Good: `{"title": "The name", "type": "string"}`,
			Peer: []string{"title_trailing_period", "description_trailing_period"},
			node: checkTrailingPeriod},
		&Rule{ID: "title-description-equal", Category: Documentation, Severity: diag.Info,
			Summary: "title and description say the same thing",
			Explanation: "A description that repeats the title tells the reader nothing more; write what the " +
				"value is for, or drop one of them.",
			Bad:  `{"title": "Port", "description": "Port", "type": "integer"}`,
			Good: `{"title": "Port", "description": "The TCP port the server listens on.", "type": "integer"}`,
			Peer: []string{"title_description_equal"},
			node: checkTitleDescriptionEqual},
		&Rule{ID: "top-level-title", Category: Documentation, Severity: diag.Info,
			Summary:     "The root schema has no title",
			Explanation: "A short title names what the schema describes in editors, catalogs and generated code.",
			Bad:         `{"type": "object"}`,
			Good:        `{"title": "Server configuration", "type": "object"}`,
			Peer:        []string{"top_level_title"},
			file:        func(c *checker) { checkTopLevel(c, "title", "a title") }},
		&Rule{ID: "top-level-description", Category: Documentation, Severity: diag.Info,
			Summary:     "The root schema has no description",
			Explanation: "A description says what the schema is for and where its instances are used.",
			Bad:         `{"type": "object"}`,
			Good:        `{"description": "Configuration of the build server.", "type": "object"}`,
			Peer:        []string{"top_level_description"},
			file:        func(c *checker) { checkTopLevel(c, "description", "a description") }},
		&Rule{ID: "top-level-examples", Category: Documentation, Severity: diag.Info, OptIn: true,
			Summary: "The root schema has no examples",
			Explanation: "Examples show readers, and the tools that generate from schemas, what valid data looks " +
				"like; lint also checks that they validate (invalid-examples).",
			Bad:  `{"type": "object"}`,
			Good: `{"type": "object", "examples": [{}]}`,
			Peer: []string{"top_level_examples"},
			file: func(c *checker) { checkTopLevel(c, "examples", "examples") }},
		&Rule{ID: "simple-property-names", Category: Style, Severity: diag.Info, OptIn: true,
			Summary: "A property name that is not a simple identifier",
			Explanation: "Names matching [A-Za-z_][A-Za-z0-9_]* map directly to fields in most programming " +
				"languages, which helps code generators. Opt-in: many formats use other names on purpose.",
			Bad:  `{"type": "object", "properties": {"first-name": {"type": "string"}}}`,
			Good: `{"type": "object", "properties": {"firstName": {"type": "string"}}}`,
			Peer: []string{"simple_properties_identifiers"},
			node: checkSimplePropertyNames},
	)
}

func checkWhitespaceTrim(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	for _, kw := range []string{"title", "description", "$comment"} {
		s, ok := n.str(kw)
		if !ok {
			continue
		}
		if t := strings.TrimSpace(s); t != s {
			c.report(n, "/"+kw, fmt.Sprintf("%s starts or ends with white space", kw),
				fix("trim the white space", replaceOp(n.at(kw), source.StringValue(t))))
		}
	}
}

func checkTrailingPeriod(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	for _, kw := range []string{"title", "description"} {
		s, ok := n.str(kw)
		if !ok || !strings.HasSuffix(s, ".") || strings.HasSuffix(s, "..") {
			continue
		}
		c.report(n, "/"+kw, fmt.Sprintf("%s ends with a period", kw),
			fix("remove the period", replaceOp(n.at(kw), source.StringValue(strings.TrimSuffix(s, ".")))))
	}
}

func checkTitleDescriptionEqual(c *checker, n *node) {
	if !n.isObject() {
		return
	}
	t, ok1 := n.str("title")
	d, ok2 := n.str("description")
	if ok1 && ok2 && strings.TrimSpace(t) != "" && strings.EqualFold(strings.TrimSpace(t), strings.TrimSpace(d)) {
		c.report(n, "/description", "description repeats the title", nil)
	}
}

func checkTopLevel(c *checker, kw, what string) {
	root := c.f.rootNode()
	if c.f.root != "" || root == nil || !root.isObject() {
		return // a schema inside a document is no published document of its own
	}
	v, ok := root.get(kw)
	switch {
	case !ok:
		c.report(root, "", fmt.Sprintf("the root schema has no %s: add %s", kw, what), nil)
	case v.Kind() == source.String && strings.TrimSpace(v.Str()) == "", v.Kind() == source.Array && v.Len() == 0:
		c.report(root, "/"+kw, fmt.Sprintf("the root schema's %s is empty", kw), nil)
	}
}

// simpleIdent says whether s matches ^[A-Za-z_][A-Za-z0-9_]*$.
func simpleIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

func checkSimplePropertyNames(c *checker, n *node) {
	if !live(n) {
		return
	}
	pv, ok := n.get("properties")
	if !ok || pv.Kind() != source.Object {
		return
	}
	for i := 0; i < pv.Len(); i++ {
		k := pv.Key(i)
		if !simpleIdent(k) {
			c.report(n, "/properties/"+source.EscapeToken(k), fmt.Sprintf("property name %s is not a simple identifier", quoted(k)), nil)
		}
	}
}
