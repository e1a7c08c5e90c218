package lsp

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/tools"
)

// An Association says which schema applies to a document and why.
type Association struct {
	// Schema is the schema's file (a name of the server's FS) or URI; "" when no schema
	// applies.
	Schema string
	// Why names where the association comes from: "$schema", "modeline", "jstk.json".
	Why string
	// Start and End are the byte offsets, in the document, of the text that makes the
	// association ($schema's value, the modeline's URI); both 0 when it is elsewhere.
	Start, End int
	// ConfigLine and ConfigColumn locate the mapping in jstk.json (Why "jstk.json").
	ConfigLine, ConfigColumn int
	// IsSchema says that the document is itself a JSON Schema: its $schema names a
	// meta-schema, or jstk.json maps it as the schema of other files. It is then linted
	// (which checks it against its meta-schema), not validated as data.
	IsSchema bool
	// Problem says why a declaration or mapping cannot be used (a modeline naming no
	// schema, a tie of catalog entries); Schema is then empty.
	Problem string
}

// An Associator answers which schema applies to a document. The server asks it for every
// run of diagnostics; it must be safe for concurrent use.
type Associator interface {
	// Associate is given the document's FS name, its text and, when it parses, its first
	// document (nil otherwise).
	Associate(name string, text []byte, doc *source.Document) Association
}

// configAssociator answers with the association every surface uses (tools.Associator:
// declarations, jstk.json's "schemas" map, the SchemaStore catalog), and adds what an
// editor needs: where in the document the declaration is written, where in jstk.json the
// mapping is, and whether jstk.json names the document as a schema.
type configAssociator struct {
	a   *assoc.Associator
	cfg *tools.Config // nil: none
}

// The declarations' patterns, compiled on first use (start-up builds nothing a command may
// not need).
var (
	yamlModeline = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^#\s*yaml-language-server:\s*\$schema=(\S+)`)
	})
	tomlSchema = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#:schema\s+(\S+)`) })
)

// newConfigAssociator makes the associator of env's workspace; a jstk.json whose map is
// wrong is logged, and files are then associated by their declarations and the catalog.
func newConfigAssociator(env *tools.Env, logf func(string, ...any)) *configAssociator {
	a, err := tools.Associator(env)
	if err != nil {
		logf("%v (the \"schemas\" map is ignored until it is fixed)", err)
		cfgless := *env
		cfgless.Config = nil
		if a, err = tools.Associator(&cfgless); err != nil {
			a = &assoc.Associator{}
		}
	}
	return &configAssociator{a: a, cfg: env.Config}
}

// Associate answers as assoc.Associator does; a document that jstk.json names as a
// schema, or named *.schema.json, is a schema.
func (c *configAssociator) Associate(name string, text []byte, doc *source.Document) Association {
	isSchema := c.mapsAsSchema(name)
	ans := c.a.Associate(name, text, doc)
	switch ans.Rule {
	case assoc.IsSchema:
		return Association{IsSchema: true, Why: "$schema"}
	case assoc.BySchemaMember:
		out := Association{Schema: ans.Schema, Why: "$schema", IsSchema: isSchema, Problem: ans.Problem}
		if doc != nil && doc.Root.Kind() == source.Object {
			if v, ok := doc.Root.Get("$schema"); ok {
				out.Start, out.End = v.Offset(), tokenEnd(text, v.Offset())
			}
		}
		return out
	case assoc.ByModeline, assoc.ByDirective:
		out := Association{Schema: ans.Schema, Why: "modeline", IsSchema: isSchema, Problem: ans.Problem}
		re := yamlModeline()
		if ans.Rule == assoc.ByDirective {
			re = tomlSchema()
		}
		if m := re.FindSubmatchIndex(text); m != nil {
			out.Start, out.End = m[2], m[3]
		}
		if assoc.IsMetaSchema(ans.Schema) {
			return Association{IsSchema: true, Why: "modeline"}
		}
		return out
	}
	if isSchema || strings.HasSuffix(name, ".schema.json") {
		return Association{IsSchema: true}
	}
	switch ans.Rule {
	case assoc.ByConfig:
		out := Association{Schema: ans.Schema, Why: tools.ConfigFile}
		if m := c.mapping(ans.Entry); m != nil {
			out.ConfigLine, out.ConfigColumn = lineColumn(m.At)
		}
		return out
	case assoc.ByCatalog:
		return Association{Schema: ans.Schema, Why: "catalog"}
	case assoc.Tie:
		return Association{Why: "catalog", Problem: ans.Why}
	}
	return Association{Problem: ans.Problem}
}

// mapping returns jstk.json's map entry whose key is key.
func (c *configAssociator) mapping(key string) *assoc.Mapping {
	if c.cfg == nil {
		return nil
	}
	for _, m := range c.cfg.Schemas {
		if m.Key == key {
			return m
		}
	}
	return nil
}

// lineColumn reads "file:line:column" (a mapping's At).
func lineColumn(at string) (int, int) {
	parts := strings.Split(at, ":")
	if len(parts) < 3 {
		return 0, 0
	}
	l, _ := strconv.Atoi(parts[len(parts)-2])
	col, _ := strconv.Atoi(parts[len(parts)-1])
	return l, col
}

// mapsAsSchema reports whether jstk.json names the file as a schema.
func (c *configAssociator) mapsAsSchema(name string) bool {
	if c.cfg == nil {
		return false
	}
	for _, m := range c.cfg.Schemas {
		if m.Schema == name {
			return true
		}
	}
	return false
}
