// Package assoc owns the one answer to "which schema applies to this file, and why"
// (DESIGN.md section 3a), for every surface: the CLI's validate and lint, the MCP tools and
// the language server. The order, first answer wins: the schema the caller names (--schema);
// the file's own declaration (a top-level "$schema" member, the YAML modeline
// "# yaml-language-server: $schema=...", TOML's "#:schema ..."; a "$schema" naming a JSON
// Schema meta-schema makes the file a schema itself); jstk.json's "schemas" map; a catalog
// (SchemaStore's) by fileMatch, the most specific pattern winning and a true tie reported;
// else no schema. It also owns the glob syntax of those patterns, one compiled matcher over
// a whole catalog, and the walk of a workspace that honours .gitignore.
package assoc

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Rule names the step of the association order that answered.
type Rule string

// The steps, in order.
const (
	// ByArgument: the caller named the schema (--schema, the tool's schema argument).
	ByArgument Rule = "argument"
	// ByModeline: the YAML modeline "# yaml-language-server: $schema=...".
	ByModeline Rule = "modeline"
	// ByDirective: TOML's "#:schema ..." directive (taplo's).
	ByDirective Rule = "directive"
	// BySchemaMember: the file's top-level "$schema" member.
	BySchemaMember Rule = "$schema"
	// IsSchema: the file's "$schema" names a JSON Schema meta-schema: the file is a schema,
	// checked against its meta-schema (and by lint), never validated as data.
	IsSchema Rule = "meta-schema"
	// ByConfig: jstk.json's "schemas" map.
	ByConfig Rule = "config"
	// ByCatalog: a catalog entry's fileMatch.
	ByCatalog Rule = "catalog"
	// Tie: equally specific catalog entries naming different schemas match; none is
	// chosen.
	Tie Rule = "tie"
	// None: nothing names a schema for the file.
	None Rule = "none"
)

// Association is the answer for one file: which schema applies, by which rule, and a
// sentence saying why, for a person. A language server shows Why and links Schema.
type Association struct {
	// Schema is the schema that applies: a file name of the workspace (as the FS names
	// it) or a URI. Empty for Tie and None; the meta-schema's URI for IsSchema.
	Schema string `json:"schema,omitempty"`
	// Rule is the step of the order that answered.
	Rule Rule `json:"rule"`
	// Pattern is the glob that matched (ByConfig, ByCatalog).
	Pattern string `json:"pattern,omitempty"`
	// Entry names the catalog entry (ByCatalog) or the key of jstk.json's map (ByConfig).
	Entry string `json:"entry,omitempty"`
	// Catalog names the catalog (ByCatalog): "SchemaStore 3b6446a".
	Catalog string `json:"catalog,omitempty"`
	// Line is the line of the declaration in the file (declarations).
	Line int `json:"line,omitempty"`
	// Why says it in a sentence: "by fileMatch `tsconfig*.json` of SchemaStore's
	// tsconfig.json".
	Why string `json:"why"`
	// Tie lists the schemas of a tie, with their entries and patterns.
	Tie []string `json:"tie,omitempty"`
	// Problem says why a declaration or mapping that applies cannot be used (a modeline
	// with no schema in it, a catalog that could not be read); Schema is then empty.
	Problem string `json:"problem,omitempty"`
}

// Mapping is one entry of jstk.json's "schemas" map: a schema and the globs of the files
// it applies to, relative to the folder of jstk.json.
type Mapping struct {
	// Key is the schema as written in jstk.json.
	Key string
	// Schema is the schema: a file name of the FS (Key joined to Dir) or a URI.
	Schema string
	// Dir is the folder of jstk.json, a name of the FS ("." for the working directory).
	Dir string
	// Include and Exclude are the globs ("!"-prefixed ones are excludes), relative to Dir.
	Include, Exclude []*Glob
	// At is where the entry is written ("jstk.json:3:5"), for messages.
	At string
}

// NewMapping compiles a map entry: the schema key and its globs ("!" excludes), for a
// jstk.json in the folder dir. The error names the glob that is wrong.
func NewMapping(dir, key string, globs []string) (*Mapping, error) {
	m := &Mapping{Key: key, Dir: dir, Schema: key}
	if !isURI(key) && !path.IsAbs(key) {
		m.Schema = joinName(dir, key)
	}
	for _, g := range globs {
		exclude := strings.HasPrefix(g, "!") && !strings.HasPrefix(g, "!(")
		text := strings.TrimPrefix(g, "!")
		if !exclude {
			text = g
		}
		cg, err := CompileGlob(text, Rooted)
		if err != nil {
			return nil, fmt.Errorf("glob %q: %v", g, err)
		}
		if exclude {
			m.Exclude = append(m.Exclude, cg)
		} else {
			m.Include = append(m.Include, cg)
		}
	}
	if len(m.Include) == 0 {
		return nil, fmt.Errorf("no glob that includes files (only exclusions)")
	}
	return m, nil
}

// match returns the include pattern that matches name (a name of the FS), if any and no
// exclusion does.
func (m *Mapping) match(name string, rel func(dir, name string) (string, bool)) (string, bool) {
	rel2, ok := rel(m.Dir, name)
	if !ok {
		return "", false
	}
	for _, x := range m.Exclude {
		if x.Match(rel2) {
			return "", false
		}
	}
	for _, g := range m.Include {
		if g.Match(rel2) {
			return g.Text, true
		}
	}
	return "", false
}

// Associator answers for the files of one workspace. Its zero value answers only from
// declarations. It is safe for concurrent use once set up.
type Associator struct {
	// Argument, when set, is the schema the caller named: it applies to every file.
	Argument string
	// Root is the workspace root, a name of the FS: catalog patterns match the path of a
	// file relative to it.
	Root string
	// Config names the workspace configuration for messages (tools sets jstk.json; "the
	// configuration" when empty).
	Config string
	// Mappings are jstk.json's "schemas" map, in its order: the first that matches wins.
	Mappings []*Mapping
	// Catalog returns the catalog (read on first need); nil means none. An error is kept
	// in the answer's Problem.
	Catalog func() (*Catalog, error)
	// Rel, when set, names a file relative to a folder (both names of the FS), false when
	// it is not inside: for an FS whose names are relative to a working directory that is
	// not the workspace root ("../jstk.json"). Nil compares the names as written.
	Rel func(dir, name string) (string, bool)
}

// rel is a.Rel or relTo.
func (a *Associator) rel(dir, name string) (string, bool) {
	if a.Rel != nil {
		return a.Rel(dir, name)
	}
	return relTo(dir, name)
}

// Associate answers for the file name (a name of the FS). data is its content when the
// caller has read it (nil: declarations are not looked for); doc its parsed first document
// when the caller has it (otherwise data is parsed when it holds a "$schema" at all).
func (a *Associator) Associate(name string, data []byte, doc *source.Document) Association {
	if a.Argument != "" {
		return Association{Schema: a.Argument, Rule: ByArgument, Why: "named by the schema argument"}
	}
	if d, ok := Declaration(name, data, doc); ok {
		return d
	}
	for _, m := range a.Mappings {
		if p, ok := m.match(name, a.rel); ok {
			return Association{Schema: m.Schema, Rule: ByConfig, Pattern: p, Entry: m.Key,
				Why: fmt.Sprintf("by %s's \"schemas\" entry %q, glob `%s`", a.configName(), m.Key, p)}
		}
	}
	if a.Catalog != nil {
		c, err := a.Catalog()
		if err != nil {
			return Association{Rule: None, Problem: err.Error(), Why: "no schema: the catalog could not be read"}
		}
		if c != nil {
			rel, ok := a.rel(a.Root, name)
			if !ok {
				rel = name
			}
			hits := c.Match(rel)
			switch {
			case len(hits) == 1:
				h := hits[0]
				return Association{Schema: h.Entry.URL, Rule: ByCatalog, Pattern: h.Pattern, Entry: h.Entry.Name, Catalog: c.Name,
					Why: fmt.Sprintf("by fileMatch `%s` of %s's %s", h.Pattern, catalogOwner(c.Name), h.Entry.Name)}
			case len(hits) > 1:
				var tie []string
				for _, h := range hits {
					tie = append(tie, fmt.Sprintf("%s (%s, fileMatch `%s`)", h.Entry.URL, h.Entry.Name, h.Pattern))
				}
				return Association{Rule: Tie, Catalog: c.Name, Tie: tie,
					Why: fmt.Sprintf("no schema chosen: %d entries of %s match equally: %s; name one in jstk.json's \"schemas\" or with $schema",
						len(hits), catalogOwner(c.Name), strings.Join(tie, ", "))}
			}
		}
	}
	return Association{Rule: None, Why: "no $schema, no mapping in " + a.configName() + " and no catalog entry names one"}
}

func (a *Associator) configName() string {
	if a.Config != "" {
		return a.Config
	}
	return "the configuration"
}

// catalogOwner is the catalog's name without its version ("SchemaStore 3b6446a" ->
// "SchemaStore").
func catalogOwner(name string) string {
	owner, _, _ := strings.Cut(name, " ")
	return owner
}

// Markers are what a file must hold for a declaration to be looked for: a cheap test
// before parsing.
var (
	markSchema   = []byte("$schema")
	markModeline = []byte("yaml-language-server")
	markTOML     = []byte("#:schema")
)

// Declaration returns the file's own declaration, if it makes one: the YAML modeline or
// the TOML directive (in the comments before the content), else the top-level "$schema"
// member. A declaration that cannot be used is an answer with a Problem.
func Declaration(name string, data []byte, doc *source.Document) (Association, bool) {
	if data == nil && doc != nil {
		data = doc.Source()
	}
	format, known := source.FormatOf(name)
	if !known && doc != nil {
		format = doc.Format
	}
	if format == source.YAML && bytes.Contains(data, markModeline) {
		if v, line, ok := modeline(data); ok {
			return declared(name, v, line, ByModeline, "its yaml-language-server modeline"), true
		}
	}
	if format == source.TOML && bytes.Contains(data, markTOML) {
		if v, line, ok := tomlDirective(data); ok {
			return declared(name, v, line, ByDirective, "its #:schema directive"), true
		}
	}
	if doc == nil {
		if !bytes.Contains(data, markSchema) {
			return Association{}, false
		}
		docs, err := source.Parse(name, data, format, nil)
		if err != nil || len(docs) == 0 {
			return Association{}, false // an unparsable file: validation says so
		}
		doc = docs[0]
	}
	if doc.Root.Kind() != source.Object {
		return Association{}, false
	}
	v, ok := doc.Root.Get("$schema")
	if !ok {
		return Association{}, false
	}
	line, _ := doc.Position(v.Offset())
	if v.Kind() != source.String {
		return Association{Rule: BySchemaMember, Line: line,
			Problem: fmt.Sprintf("%s:%d: \"$schema\" is not a string; make it the path or URI of the file's schema", name, line),
			Why:     "its $schema member is not a string"}, true
	}
	ref := v.Str()
	if d, ok := schema.DraftByName(ref); ok && isURI(ref) {
		return Association{Schema: d.URL, Rule: IsSchema, Line: line,
			Why: fmt.Sprintf("a schema: its $schema (line %d) names the %s meta-schema", line, d.Name)}, true
	}
	return declared(name, ref, line, BySchemaMember, "its $schema member"), true
}

// IsMetaSchema reports whether uri names a JSON Schema meta-schema (of a draft jstk knows),
// with or without "#", over http or https.
func IsMetaSchema(uri string) bool {
	_, ok := schema.DraftByName(uri)
	return ok && isURI(uri)
}

// declared makes the answer for a declared schema reference ref at line.
func declared(name, ref string, line int, rule Rule, what string) Association {
	ref = strings.TrimSpace(ref)
	if bad := badReference(ref); bad != "" {
		fix := map[Rule]string{
			ByModeline:     "write `# yaml-language-server: $schema=<path or URL>` or remove the line",
			ByDirective:    "write `#:schema <path or URL>` or remove the line",
			BySchemaMember: "make \"$schema\" the path or URI of the file's schema",
		}[rule]
		return Association{Rule: rule, Line: line, Why: what + " " + bad,
			Problem: fmt.Sprintf("%s:%d: %s %s: %s", name, line, what, bad, fix)}
	}
	target := ref
	if strings.HasPrefix(ref, "file://") {
		target = strings.TrimPrefix(ref, "file://")
	} else if !isURI(ref) && !path.IsAbs(ref) {
		target = joinName(path.Dir(name), ref)
	}
	return Association{Schema: target, Rule: rule, Line: line, Why: fmt.Sprintf("by %s (line %d)", what, line)}
}

// badReference says what is wrong with a declared reference, "" when nothing is.
func badReference(ref string) string {
	switch {
	case ref == "":
		return "names no schema"
	case strings.ContainsAny(ref, " \t\r\n\"'<>`"):
		return fmt.Sprintf("%q is not a path or a URI", ref)
	}
	return ""
}

// modeline finds "# yaml-language-server: $schema=VALUE" in the comment lines of a YAML
// file (anywhere a comment line is, as yaml-language-server reads it).
func modeline(data []byte) (string, int, bool) {
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		l, data, _ = bytes.Cut(data, []byte("\n"))
		t := bytes.TrimSpace(l)
		if !bytes.HasPrefix(t, []byte("#")) {
			continue
		}
		t = bytes.TrimSpace(t[1:])
		rest, ok := bytes.CutPrefix(t, markModeline)
		if !ok {
			continue
		}
		rest = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(rest), []byte(":")))
		for _, field := range strings.Fields(string(rest)) {
			if v, ok := strings.CutPrefix(field, "$schema="); ok {
				return v, line, true
			}
		}
		if bytes.Contains(rest, markSchema) {
			// "$schema =" or "$schema:": what yaml-language-server ignores, said plainly.
			return string(rest), line, true
		}
	}
	return "", 0, false
}

// tomlDirective finds taplo's "#:schema VALUE" among the comment lines that open a TOML
// file.
func tomlDirective(data []byte) (string, int, bool) {
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		l, data, _ = bytes.Cut(data, []byte("\n"))
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if !bytes.HasPrefix(t, []byte("#")) {
			return "", 0, false // the directive is only read before the content
		}
		if rest, ok := bytes.CutPrefix(t, markTOML); ok {
			return string(bytes.TrimSpace(rest)), line, true
		}
	}
	return "", 0, false
}

// isURI reports whether s is an absolute URI (a scheme of two letters or more, so that a
// Windows drive is not one).
func isURI(s string) bool {
	i := strings.Index(s, ":")
	if i < 2 {
		return false
	}
	for _, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// joinName joins a relative slash path to a folder named as the FS names it.
func joinName(dir, rel string) string {
	if dir == "" || dir == "." {
		return path.Clean(rel)
	}
	return path.Join(dir, rel)
}

// relTo returns name relative to the folder dir (both names of the FS), false when name is
// not under dir.
func relTo(dir, name string) (string, bool) {
	name = path.Clean(name)
	if dir == "" || dir == "." {
		if name == ".." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return name, false
		}
		return name, true
	}
	dir = path.Clean(dir)
	if rest, ok := strings.CutPrefix(name, dir+"/"); ok {
		return rest, true
	}
	return name, false
}
