package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// ConfigFile is the name of the workspace configuration file, read at the workspace root.
// Its one home is the catalog, which never takes the file for a schema.
const ConfigFile = catalog.ConfigFile

// Config is the workspace configuration: {"resolve": {"<uri or prefix/>": "<path>"}}, and a
// block per engine that has settings (today "lint"). LoadConfigAt is its one reader, and
// only the surfaces call it: they take Resolve from it and hand the whole to the tools as
// Env.Config, where the lint tool finds its Lint block.
type Config struct {
	// Resolve maps a URI, or a URI prefix ending in "/", to a file or directory of the
	// workspace, so that $ref to it resolves offline.
	Resolve map[string]string
	// Lint is the "lint" block.
	Lint LintConfig
	// Compatibility maps glob patterns of schema files (relative to Dir, path.Match
	// syntax) to the compatibility mode diff checks them in (backward-transitive, ...).
	Compatibility map[string]string
	// Dir is the directory of jstk.json, as a name of the FS it was read from.
	Dir string
	// Schemas is the "schemas" map, {"<schema path or URI>": "<glob>" | ["<glob>",
	// "!<glob>", ...]}: which files each schema applies to (assoc.Associator), in its order.
	Schemas []*assoc.Mapping
	// SchemaStore is "schemastore": a SchemaStore snapshot directory or a file built by
	// cmd/storegen, used instead of the built-in one ("" for the built-in one).
	SchemaStore string
	// NoCatalog is "schemastore": false: no catalog matches files.
	NoCatalog bool
	// LSP is the "lsp" block: {"breakingChanges": "off|information|warning"}, how jstk lsp
	// shows a schema edit that breaks compatibility with the committed version ("" is its
	// default).
	LSP struct{ BreakingChanges string }
}

// LintConfig is the "lint" block of jstk.json: {"rules": {"<rule|category|all>":
// "off|on|error|warning|info"}, "failOn": "error|warning|info"}.
type LintConfig struct {
	// Rules are the rule settings, applied before the call's.
	Rules map[string]string
	// FailOn is the least severity that fails, "" for the tool's default.
	FailOn string
}

// LoadConfig reads jstk.json at the root of fsys; a missing file is an empty Config.
func LoadConfig(fsys workspace.FS) (*Config, error) { return LoadConfigAt(fsys, ".") }

// LoadConfigAt reads jstk.json in the directory dir of fsys; a missing file is an empty
// Config. The paths of its resolve map are relative to dir, and are returned as names of
// fsys.
func LoadConfigAt(fsys workspace.FS, dir string) (*Config, error) {
	cfg := &Config{Resolve: map[string]string{}, Lint: LintConfig{Rules: map[string]string{}}, Compatibility: map[string]string{}, Dir: dir}
	if fsys == nil {
		return cfg, nil
	}
	file := configName(dir)
	data, err := workspace.ReadFile(fsys, file, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "no such file") {
			return cfg, nil
		}
		return nil, err
	}
	doc, err := source.ParseJSON(file, data, nil)
	if err != nil {
		return nil, err
	}
	root := doc.Root
	if root.Kind() != source.Object {
		return nil, fmt.Errorf("%s: the configuration must be a JSON object", file)
	}
	for i := 0; i < root.Len(); i++ {
		k, v := root.Member(i)
		switch k.Str() {
		case "resolve":
			if v.Kind() != source.Object {
				line, col := doc.Position(v.Offset())
				return nil, fmt.Errorf("%s:%d:%d: \"resolve\" must map URIs to paths", file, line, col)
			}
			for j := 0; j < v.Len(); j++ {
				uk, pv := v.Member(j)
				if pv.Kind() != source.String {
					line, col := doc.Position(pv.Offset())
					return nil, fmt.Errorf("%s:%d:%d: the path for %q must be a string", file, line, col, uk.Str())
				}
				p := pv.Str()
				if !path.IsAbs(p) && !filepath.IsAbs(p) {
					p = path.Join(dir, p)
				}
				cfg.Resolve[uk.Str()] = p
			}
		case "lint":
			if err := readLint(doc, file, v, &cfg.Lint); err != nil {
				return nil, err
			}
		case "compatibility":
			line, col := doc.Position(v.Offset())
			if v.Kind() != source.Object {
				return nil, fmt.Errorf("%s:%d:%d: \"compatibility\" must map file patterns to modes (backward, backward-transitive, forward, forward-transitive, full, full-transitive, none)", file, line, col)
			}
			for j := 0; j < v.Len(); j++ {
				pk, mv := v.Member(j)
				line, col := doc.Position(mv.Offset())
				if _, err := path.Match(pk.Str(), ""); err != nil {
					return nil, fmt.Errorf("%s:%d:%d: pattern %q: %v", file, line, col, pk.Str(), err)
				}
				if mv.Kind() != source.String {
					return nil, fmt.Errorf("%s:%d:%d: the mode for %q must be a string", file, line, col, pk.Str())
				}
				if _, err := ParseMode(mv.Str()); err != nil {
					return nil, fmt.Errorf("%s:%d:%d: %v", file, line, col, err)
				}
				cfg.Compatibility[pk.Str()] = mv.Str()
			}
		case "schemas":
			if err := readSchemas(doc, file, dir, v, cfg); err != nil {
				return nil, err
			}
		case "schemastore":
			switch v.Kind() {
			case source.Bool:
				cfg.NoCatalog = !v.Bool()
			case source.String:
				p := v.Str()
				if !path.IsAbs(p) && !filepath.IsAbs(p) {
					p = path.Join(dir, p)
				}
				cfg.SchemaStore = p
			default:
				line, col := doc.Position(v.Offset())
				return nil, fmt.Errorf("%s:%d:%d: \"schemastore\" must be false (no catalog) or the path of a SchemaStore snapshot", file, line, col)
			}
		case "lsp":
			b, ok := v.Get("breakingChanges")
			if v.Kind() != source.Object || v.Len() != 1 || !ok || b.Kind() != source.String ||
				(b.Str() != "off" && b.Str() != "information" && b.Str() != "warning") {
				line, col := doc.Position(v.Offset())
				return nil, fmt.Errorf("%s:%d:%d: \"lsp\" must be {\"breakingChanges\": \"off\" | \"information\" | \"warning\"}", file, line, col)
			}
			cfg.LSP.BreakingChanges = b.Str()
		default:
			line, col := doc.Position(k.Offset())
			return nil, fmt.Errorf("%s:%d:%d: unknown setting %q (known: resolve, lint, schemas, schemastore, lsp, compatibility)", file, line, col, k.Str())
		}
	}
	return cfg, nil
}

// readSchemas reads the "schemas" map v of the configuration doc, named file, in the
// folder dir.
func readSchemas(doc *source.Document, file, dir string, v source.Value, cfg *Config) error {
	at := func(v source.Value) string {
		line, col := doc.Position(v.Offset())
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	}
	if v.Kind() != source.Object {
		return fmt.Errorf("%s: \"schemas\" must map schemas to globs: {\"schemas/order.json\": \"orders/**/*.yaml\"}", at(v))
	}
	for i := 0; i < v.Len(); i++ {
		k, g := v.Member(i)
		var globs []string
		switch g.Kind() {
		case source.String:
			globs = []string{g.Str()}
		case source.Array:
			for _, x := range g.Items() {
				if x.Kind() != source.String {
					return fmt.Errorf("%s: the globs of %q must be strings", at(x), k.Str())
				}
				globs = append(globs, x.Str())
			}
		default:
			return fmt.Errorf("%s: the files of %q must be a glob or a list of globs (\"!\" before one excludes)", at(g), k.Str())
		}
		m, err := assoc.NewMapping(dir, k.Str(), globs)
		if err != nil {
			return fmt.Errorf("%s: schema %q: %v", at(g), k.Str(), err)
		}
		m.At = at(k)
		cfg.Schemas = append(cfg.Schemas, m)
	}
	return nil
}

// readLint reads the "lint" block v of the configuration doc, named file, into cfg.
func readLint(doc *source.Document, file string, v source.Value, cfg *LintConfig) error {
	at := func(v source.Value) string {
		line, col := doc.Position(v.Offset())
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	}
	if v.Kind() != source.Object {
		return fmt.Errorf("%s: \"lint\" must be an object", at(v))
	}
	for i := 0; i < v.Len(); i++ {
		k, v := v.Member(i)
		switch k.Str() {
		case "rules":
			if v.Kind() != source.Object {
				return fmt.Errorf("%s: \"lint.rules\" must map rule ids to off, on, error, warning or info", at(v))
			}
			for j := 0; j < v.Len(); j++ {
				rk, rv := v.Member(j)
				if rv.Kind() != source.String {
					return fmt.Errorf("%s: the setting of rule %q must be a string", at(rv), rk.Str())
				}
				cfg.Rules[rk.Str()] = rv.Str()
			}
		case "failOn":
			if _, ok := diag.ParseSeverity(v.Str()); v.Kind() != source.String || !ok {
				return fmt.Errorf("%s: \"lint.failOn\" must be error, warning or info", at(v))
			}
			cfg.FailOn = v.Str()
		default:
			return fmt.Errorf("%s: unknown lint setting %q (known: rules, failOn)", at(k), k.Str())
		}
	}
	return nil
}

// ParseResolve reads a --resolve URI=PATH argument.
func ParseResolve(arg string) (string, string, error) {
	uri, path, ok := strings.Cut(arg, "=")
	if !ok || uri == "" || path == "" {
		return "", "", fmt.Errorf("--resolve %q: expected URI=PATH", arg)
	}
	return uri, path, nil
}

// configName is the name of jstk.json in the directory dir.
func configName(dir string) string {
	if dir == "" || dir == "." {
		return ConfigFile
	}
	return path.Join(dir, ConfigFile)
}

// SchemaPaths returns the paths an input names as schemas (or as tests files, which name
// schemas): the Doc fields tagged `role:"schema"`, without "-" (standard input) and inline
// documents.
func SchemaPaths(in any) []string {
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	add := func(d Doc) {
		if d.Path != "" && d.Path != "-" {
			out = append(out, d.Path)
		}
	}
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("role") != "schema" {
			continue
		}
		switch f := v.Field(i).Interface().(type) {
		case Doc:
			add(f)
		case []Doc:
			for _, d := range f {
				add(d)
			}
		}
	}
	return out
}

// AssociationPaths returns the paths whose workspace a call that finds each file's schema
// works in: validate's instances when it names no schema ("." when none are given).
func AssociationPaths(in any) []string {
	v, ok := in.(*ValidateInput)
	if !ok || !v.Schema.empty() {
		return nil
	}
	var out []string
	for _, d := range v.Instances {
		if d.Path != "" && d.Path != "-" {
			out = append(out, d.Path)
		}
	}
	if len(out) == 0 {
		out = []string{"."}
	}
	return out
}

// WorkspaceOf derives the CLI's workspace from the files its user named, so that a verdict
// never depends on the working directory: the root is the nearest directory holding
// jstk.json at or above the first named file's folder (the search stops at a directory
// holding .git), else that folder itself; the $id index covers the root and the folder of
// every named file. With nothing named (standard input, inline documents, the workspace
// commands) the workspace is the working directory. The names returned are names of fsys.
func WorkspaceOf(fsys workspace.FS, named []string) (root string, dirs []string) {
	seen := map[string]bool{}
	addDir := func(d string) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, p := range named {
		addDir(folderOf(fsys, p))
	}
	if len(dirs) == 0 {
		return ".", []string{"."}
	}
	root = dirs[0]
	for abs := fsys.Abs(dirs[0]); ; {
		d := nameOf(fsys, abs)
		if fi, err := fsys.Stat(configName(d)); err == nil && fi.Mode().IsRegular() {
			root = d
			break
		}
		if _, err := fsys.Stat(path.Join(d, ".git")); err == nil {
			break
		}
		parent := path.Dir(abs)
		if parent == abs {
			break
		}
		abs = parent
	}
	out := []string{root}
	for _, d := range dirs {
		if d != root {
			out = append(out, d)
		}
	}
	return root, out
}

// folderOf is the directory a named path stands in: a directory names itself, a glob
// pattern its literal prefix, a file (or a name that does not exist) its folder.
func folderOf(fsys workspace.FS, p string) string {
	p = filepath.ToSlash(p)
	if workspace.IsGlob(p) {
		segs := strings.Split(p, "/")
		i := 0
		for i < len(segs) && !workspace.IsGlob(segs[i]) {
			i++
		}
		prefix := strings.Join(segs[:i], "/")
		switch {
		case prefix == "" && strings.HasPrefix(p, "/"):
			prefix = "/"
		case prefix == "":
			prefix = "."
		}
		return nameOf(fsys, fsys.Abs(prefix))
	}
	if fi, err := fsys.Stat(p); err == nil && fi.IsDir() {
		return nameOf(fsys, fsys.Abs(p))
	}
	return nameOf(fsys, path.Dir(fsys.Abs(p)))
}

// nameOf names an absolute path as fsys does: relative to its root (for the operating
// system, to the working directory) when inside it, else absolute.
func nameOf(fsys workspace.FS, abs string) string {
	if abs == fsys.Abs(".") {
		return "."
	}
	if n, ok := fsys.Rel(abs); ok {
		return n
	}
	return abs
}
