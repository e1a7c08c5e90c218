package lsp

import (
	"path"
	"regexp"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
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
}

// An Associator answers which schema applies to a document. The server asks it for every
// run of diagnostics; it must be safe for concurrent use.
type Associator interface {
	// Associate is given the document's FS name, its text and, when it parses, its first
	// document (nil otherwise).
	Associate(name string, text []byte, doc *source.Document) Association
}

// configAssociator is the association made with what the server knows: the document's
// $schema, a YAML modeline, a TOML #:schema directive and jstk.json's "schemas" globs.
type configAssociator struct {
	root string        // the FS name of the folder of jstk.json
	cfg  *tools.Config // nil: none
}

var (
	yamlModeline = regexp.MustCompile(`(?m)^#\s*yaml-language-server:\s*\$schema=(\S+)`)
	tomlSchema   = regexp.MustCompile(`(?m)^#:schema\s+(\S+)`)
)

// Associate answers in this order: $schema, the modeline, jstk.json; a document that
// jstk.json names as a schema is a schema.
func (a *configAssociator) Associate(name string, text []byte, doc *source.Document) Association {
	dir := path.Dir(name)
	local := func(ref string) string {
		if strings.Contains(ref, "://") || path.IsAbs(ref) {
			return ref
		}
		return path.Join(dir, ref)
	}
	isSchema := a.mapsAsSchema(name)
	if doc != nil && doc.Root.Kind() == source.Object {
		if v, ok := doc.Root.Get("$schema"); ok && v.Kind() == source.String {
			ref := v.Str()
			if _, meta := schema.DraftByName(ref); meta && strings.Contains(ref, "://") {
				return Association{IsSchema: true, Why: "$schema"}
			}
			end := tokenEnd([]byte(text), v.Offset())
			return Association{Schema: local(ref), Why: "$schema", Start: v.Offset(), End: end, IsSchema: isSchema}
		}
	}
	if f, ok := source.FormatOf(name); ok {
		var re *regexp.Regexp
		switch f {
		case source.YAML:
			re = yamlModeline
		case source.TOML:
			re = tomlSchema
		}
		if re != nil {
			if m := re.FindSubmatchIndex(text); m != nil {
				ref := string(text[m[2]:m[3]])
				if _, meta := schema.DraftByName(ref); meta && strings.Contains(ref, "://") {
					return Association{IsSchema: true, Why: "modeline"}
				}
				return Association{Schema: local(ref), Why: "modeline", Start: m[2], End: m[3], IsSchema: isSchema}
			}
		}
	}
	if isSchema || strings.HasSuffix(name, ".schema.json") {
		return Association{IsSchema: true}
	}
	if a.cfg != nil {
		for _, m := range a.cfg.Schemas {
			if a.matches(m.Globs, name) {
				return Association{Schema: m.Schema, Why: "jstk.json", ConfigLine: m.Line, ConfigColumn: m.Column}
			}
		}
	}
	return Association{}
}

// mapsAsSchema reports whether jstk.json names the file as a schema.
func (a *configAssociator) mapsAsSchema(name string) bool {
	if a.cfg == nil {
		return false
	}
	for _, m := range a.cfg.Schemas {
		if m.Schema == name {
			return true
		}
	}
	return false
}

// matches applies a mapping's globs to name: some pattern matches and no "!" pattern does.
// The globs are relative to the folder of jstk.json.
func (a *configAssociator) matches(globs []string, name string) bool {
	rel := name
	if a.root != "" && a.root != "." {
		r, ok := strings.CutPrefix(name, strings.TrimSuffix(a.root, "/")+"/")
		if !ok {
			return false
		}
		rel = r
	}
	hit := false
	for _, g := range globs {
		if neg, ok := strings.CutPrefix(g, "!"); ok {
			if globMatch(neg, rel) {
				return false
			}
			continue
		}
		if globMatch(g, rel) {
			hit = true
		}
	}
	return hit
}

// globMatch matches a slash-separated path against a glob with path.Match's syntax per
// segment and "**" for any number of segments. A pattern without a slash matches the
// base name anywhere, as yaml-language-server's do.
func globMatch(pattern, name string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	pat, segs := strings.Split(pattern, "/"), strings.Split(name, "/")
	// Iterative matching with one backtracking point per "**" (the classic wildcard
	// algorithm over segments): no recursion on the input.
	pi, si, starP, starS := 0, 0, -1, 0
	for si < len(segs) {
		switch {
		case pi < len(pat) && pat[pi] == "**":
			starP, starS = pi, si
			pi++
		case pi < len(pat) && segMatch(pat[pi], segs[si]):
			pi++
			si++
		case starP >= 0:
			starS++
			pi, si = starP+1, starS
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "**" {
		pi++
	}
	return pi == len(pat)
}

func segMatch(p, s string) bool {
	ok, err := path.Match(p, s)
	return err == nil && ok
}
