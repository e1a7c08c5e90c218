package schema

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Loader finds the document behind a URI, offline. In order it tries: a file:// URI inside
// the FS; the $id of every schema in the workspace; the resolve map; the built-in
// meta-schemas. Anything else is unresolved, and the error says how to map it.
type Loader struct {
	// FS reads files. Nil means no files at all (only the resolve map's documents given
	// as Docs, and the built-in meta-schemas).
	FS workspace.FS
	// IndexRoot is the directory of the FS whose schemas' $id are indexed on first need
	// ("" disables the index).
	IndexRoot string
	// Resolve maps a URI, or a URI prefix ending in "/", to a file name of the FS.
	Resolve map[string]string
	// Limits bound every document read.
	Limits *source.Limits
	// Docs, when set, holds documents already parsed, by file name: they are used instead
	// of reading and parsing the file again (the catalog shares the workspace it parsed
	// with its compiles, so that a file loaded under two URIs is one document).
	Docs map[string]*source.Document

	once  sync.Once
	index map[string]string // $id -> file name
}

// ErrUnresolved is wrapped by the error for a URI that nothing maps.
var ErrUnresolved = errors.New("unresolved reference")

// FileURI returns the file:// URI of an absolute slash-separated path.
func FileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// filePath returns the absolute path of a file:// URI.
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return path.Clean(u.Path), true
}

// Load returns the document at uri (without fragment) and the file name it came from ("" for
// the built-in meta-schemas).
func (l *Loader) Load(uri string) (*source.Document, string, error) {
	uri = strings.TrimSuffix(uri, "#")
	if p, ok := filePath(uri); ok && l.FS != nil {
		name, inside := l.FS.Rel(p)
		if !inside {
			return nil, "", fmt.Errorf("%s: refused: the file is outside the workspace", p)
		}
		doc, err := l.read(name)
		return doc, name, err
	}
	if name, ok := l.fromIndex(uri); ok {
		doc, err := l.read(name)
		return doc, name, err
	}
	if name, ok := l.fromMap(uri); ok {
		doc, err := l.read(name)
		return doc, name, err
	}
	if doc, ok := metaDocument(uri); ok {
		return doc, "", nil
	}
	return nil, "", fmt.Errorf("%w %q: it is not a file of the workspace, no schema in the workspace has this $id, "+
		"and no resolve mapping covers it; map it with --resolve %s=PATH or in jstk.json "+
		`{"resolve": {"%s": "PATH"}}`, ErrUnresolved, uri, uri, uri)
}

// fromMap applies the resolve map: an exact entry, else the longest prefix ending in "/".
// A name without extension that does not exist is tried with ".json" added.
func (l *Loader) fromMap(uri string) (string, bool) {
	if l.FS == nil || len(l.Resolve) == 0 {
		return "", false
	}
	if p, ok := l.Resolve[uri]; ok {
		return p, true
	}
	keys := make([]string, 0, len(l.Resolve))
	for k := range l.Resolve {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(uri, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	rest := strings.TrimPrefix(uri, keys[0])
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	name := path.Join(l.Resolve[keys[0]], rest)
	// "…/schema-1.0" often names "…/schema-1.0.json": when the name itself does not exist,
	// try it with the extensions of schema files.
	if _, err := l.FS.Stat(name); err != nil {
		for _, ext := range []string{".json", ".yaml", ".yml"} {
			if _, err := l.FS.Stat(name + ext); err == nil {
				return name + ext, true
			}
		}
	}
	return name, true
}

func (l *Loader) fromIndex(uri string) (string, bool) {
	if l.FS == nil || l.IndexRoot == "" {
		return "", false
	}
	l.once.Do(l.buildIndex)
	name, ok := l.index[uri]
	return name, ok
}

// Index limits: the workspace index reads at most this many files of at most this size.
const (
	indexMaxFiles = 20000
	indexMaxSize  = 8 << 20
)

func (l *Loader) buildIndex() {
	l.index = map[string]string{}
	files, _ := workspace.Expand(l.FS, []string{l.IndexRoot}, []string{".json", ".yaml", ".yml"})
	if len(files) > indexMaxFiles {
		files = files[:indexMaxFiles]
	}
	for _, name := range files {
		fi, err := l.FS.Stat(name)
		if err != nil || fi.Size() > indexMaxSize {
			continue
		}
		doc, err := l.read(name)
		if err != nil || doc.Root.Kind() != source.Object {
			continue
		}
		for _, key := range []string{"$id", "id"} {
			if id, ok := doc.Root.Get(key); ok && id.Kind() == source.String {
				if u, err := url.Parse(id.Str()); err == nil && u.IsAbs() {
					u.Fragment = ""
					if _, dup := l.index[u.String()]; !dup {
						l.index[u.String()] = name
					}
				}
				break
			}
		}
	}
}

func (l *Loader) read(name string) (*source.Document, error) {
	if d, ok := l.Docs[name]; ok {
		return d, nil
	}
	limit := int64(source.DefaultMaxSize)
	if l.Limits != nil && l.Limits.MaxSize > 0 {
		limit = l.Limits.MaxSize
	}
	data, err := workspace.ReadFile(l.FS, name, limit)
	if err != nil {
		return nil, err
	}
	return ParseDocument(name, data, l.Limits)
}

// ParseDocument parses a schema file by its extension (.yaml/.yml: YAML; .json: JSON;
// otherwise the content decides). A schema file must hold exactly one document.
func ParseDocument(name string, data []byte, lim *source.Limits) (*source.Document, error) {
	f, ok := source.FormatOf(name)
	if !ok || f == source.NDJSON || f == source.TOML {
		f = source.Sniff(data)
	}
	if f == source.NDJSON || f == source.TOML {
		f = source.JSON
	}
	docs, err := source.Parse(name, data, f, lim)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, &source.Error{File: name, Msg: fmt.Sprintf("a schema file must hold one document, this one holds %d", len(docs))}
	}
	return docs[0], nil
}
