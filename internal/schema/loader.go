package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Loader finds the document behind a URI, offline, in an order that nothing the user did
// not name can shadow (DESIGN.md section 3). The compiler first looks in the documents it
// has (the referring document and its embedded $ids); then the loader tries:
//
//  1. the resolve map (Resolve: --resolve and jstk.json), an exact entry before the longest
//     prefix ending in "/";
//  2. the built-in meta-schemas of every draft, which no file can override (not even the
//     resolve map);
//  3. a file: a file:// URI names one; any other URI is looked for next to the referring
//     document's file, at the place its relative path from the referring document's base
//     URI leads ("customer.schema.json" beside "order.schema.json", whatever its $id);
//  4. the $id index (Index), used only when exactly one file declares the URI (two or more
//     is an error naming them all), and announced through Notify.
//
// Anything else is unresolved, and the error says how to map it. A Loader is safe for
// concurrent use.
type Loader struct {
	// FS reads files. Nil means no files at all (only the built-in meta-schemas).
	FS workspace.FS
	// Index is the $id index consulted last; nil means none (unless IndexRoot is set).
	Index *Index
	// IndexRoot, when Index is nil, is a directory of the FS whose schemas' $id are indexed
	// on first need ("" disables the index).
	IndexRoot string
	// Resolve maps a URI, or a URI prefix ending in "/", to a file name of the FS.
	Resolve map[string]string
	// Limits bound every document read.
	Limits *source.Limits
	// Notify, when set, receives the notices a user should see: a URI resolved from the $id
	// index (so that a surprising source is seen), an index cut short by its bounds.
	Notify func(string)
	// Remotes are tried in order for an http(s) URI that neither the resolve map nor the
	// built-in meta-schemas cover, before any file: the vendored SchemaStore, then the cache
	// that jstk.lock pins (DESIGN.md section 3). Nil tries none.
	Remotes []Remote
	// Docs, when set, holds documents already parsed, by file name: they are used instead
	// of reading and parsing the file again (the catalog shares the workspace it parsed
	// with its compiles, so that a file loaded under two URIs is one document).
	Docs map[string]*source.Document

	once      sync.Once
	usedIndex atomic.Bool
}

// Referrer is the document a reference is made from: where its file is, and the base URIs
// its references are resolved against.
type Referrer struct {
	// File is the referring document's file, a name of the loader's FS ("" when it was not
	// read from a file: an inline or built-in document).
	File string
	// URI is the referring document's retrieval URI (a file:// URI places a document that
	// was not read from a file, such as an inline schema).
	URI string
	// Bases are the base URIs whose location is the referring document's: the base URI the
	// reference was resolved against, then the document's root base URI.
	Bases []string
}

// referrer describes the document of the schema s for the loader (nil for nil).
func referrer(s *Schema) *Referrer {
	if s == nil || s.doc == nil {
		return nil
	}
	r := &Referrer{URI: s.doc.uri}
	if s.doc.fromFS {
		r.File = s.doc.name
	}
	if s.res != nil {
		r.Bases = append(r.Bases, s.res.uri)
	}
	if len(s.doc.resources) > 0 && (s.res == nil || s.doc.resources[0].uri != s.res.uri) {
		r.Bases = append(r.Bases, s.doc.resources[0].uri)
	}
	return r
}

// fileDocument returns the document this compiler read from the file name, if any.
func (c *Compiler) fileDocument(name string) *document {
	if name == "" {
		return nil
	}
	return c.byFile[name] // a map: a scan of every document made a ring of n files n² work
}

// Remote holds documents for remote URIs that no file of the workspace stands for (the
// vendored SchemaStore, the cache that jstk.lock pins). It never touches the network.
type Remote interface {
	// Open returns the bytes of the document at uri (an http or https URI without
	// fragment) and a name that says where they came from, for messages ("SchemaStore
	// 3b6446a: base.json"); ok is false when the source does not hold uri. An error means
	// the source holds uri but cannot give it (a cache entry whose hash does not match the
	// lock): it is reported, not passed over.
	Open(uri string) (data []byte, name string, ok bool, err error)
}

// remoteDocs keeps the documents parsed from remotes, by URI and source, for the process:
// their bytes never change under one name.
var remoteDocs sync.Map // remoteKey -> *source.Document

type remoteKey struct {
	uri, name string
}

// fromRemote asks the loader's remotes for an http(s) URI, in order.
func (l *Loader) fromRemote(uri string) (*source.Document, bool, error) {
	if len(l.Remotes) == 0 || !(strings.HasPrefix(uri, "https://") || strings.HasPrefix(uri, "http://")) {
		return nil, false, nil
	}
	for _, r := range l.Remotes {
		data, name, ok, err := r.Open(uri)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", uri, err)
		}
		if !ok {
			continue
		}
		key := remoteKey{uri, name}
		if d, ok := remoteDocs.Load(key); ok {
			return d.(*source.Document), true, nil
		}
		doc, err := ParseDocument(name, data, l.Limits)
		if err != nil {
			return nil, true, err
		}
		d, _ := remoteDocs.LoadOrStore(key, doc)
		return d.(*source.Document), true, nil
	}
	return nil, false, nil
}

// ErrUnresolved is wrapped by the error for a URI that nothing maps.
var ErrUnresolved = errors.New("unresolved reference")

// ErrAmbiguous is wrapped by the error for a URI that several files of the $id index
// declare.
var ErrAmbiguous = errors.New("ambiguous reference")

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

// Display names a URI for a person: a file:// URI of a file of the workspace becomes the
// file's name (relative to the workspace root; for the operating system, to the working
// directory), keeping its fragment; other URIs stay as they are. Answers never carry the
// machine's file:// URIs.
func (l *Loader) Display(uri string) string {
	if l == nil || l.FS == nil || !strings.HasPrefix(uri, "file:") {
		return uri
	}
	base, frag, hasFrag := strings.Cut(uri, "#")
	p, ok := filePath(base)
	if !ok {
		return uri
	}
	name := displayName(l.FS, p)
	if hasFrag {
		return name + "#" + frag
	}
	return name
}

// UsedIndex reports whether the loader resolved a URI from the $id index.
func (l *Loader) UsedIndex() bool { return l.usedIndex.Load() }

func (l *Loader) index() *Index {
	l.once.Do(func() {
		if l.Index == nil && l.IndexRoot != "" && l.FS != nil {
			l.Index = NewIndex(l.FS, []string{l.IndexRoot}, &IndexOptions{Limits: l.Limits})
		}
	})
	return l.Index
}

func (l *Loader) notify(msg string) {
	if l.Notify != nil && msg != "" {
		l.Notify(msg)
	}
}

// Load returns the document at uri (without fragment) and the file name it came from ("" for
// the built-in meta-schemas), for a reference from no document in particular.
func (l *Loader) Load(uri string) (*source.Document, string, error) {
	return l.LoadFrom(uri, nil)
}

// LoadFrom is Load for a reference made from the document from (nil: none), whose file's
// location is tried for a URI that neither the resolve map nor the built-in meta-schemas
// cover.
func (l *Loader) LoadFrom(uri string, from *Referrer) (*source.Document, string, error) {
	uri = strings.TrimSuffix(uri, "#")
	if doc, ok := metaDocument(uri); ok {
		return doc, "", nil
	}
	if name, ok := l.fromMap(uri); ok {
		doc, err := l.read(name)
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s: the resolve map sends %s there, and it does not exist", name, l.Display(uri))
		}
		return doc, name, err
	}
	if doc, ok, err := l.fromRemote(uri); ok || err != nil {
		return doc, "", err
	}
	if p, ok := filePath(uri); ok && l.FS != nil {
		name, inside := l.FS.Rel(p)
		if !inside {
			// The path is the machine's, not the workspace's: the reference as written says
			// which file it is.
			return nil, "", errors.New("refused: the file is outside the workspace")
		}
		doc, err := l.read(name)
		return doc, name, err
	}
	tried := ""
	if name, ok := l.Beside(uri, from); ok {
		if fi, err := l.FS.Stat(name); err == nil && fi.Mode().IsRegular() {
			doc, err := l.read(name)
			return doc, name, err
		}
		tried = fmt.Sprintf(" (not the file %s beside the referring document either)", name)
	}
	if x := l.index(); x != nil {
		files := x.Lookup(uri)
		l.notify(x.Note())
		switch len(files) {
		case 0:
		case 1:
			l.usedIndex.Store(true)
			l.notify(fmt.Sprintf("resolved %s from the workspace index: %s", uri, files[0]))
			doc, err := l.read(files[0])
			return doc, files[0], err
		default:
			return nil, "", fmt.Errorf("%w %q: %d files of the workspace declare this $id: %s; "+
				"say which one with --resolve %s=PATH or in jstk.json {\"resolve\": {\"%s\": \"PATH\"}}",
				ErrAmbiguous, uri, len(files), strings.Join(files, ", "), uri, uri)
		}
	}
	return nil, "", fmt.Errorf("%w %q: no resolve mapping covers it, it is not a built-in meta-schema, "+
		"and no file of the workspace has this $id%s; map it with --resolve %s=PATH or in jstk.json "+
		`{"resolve": {"%s": "PATH"}}%s`, ErrUnresolved, uri, tried, uri, uri, fetchHint(uri))
}

// fetchHint is what the unresolved message adds for an http(s) URI: the one command that
// downloads it and pins it in jstk.lock, after which every command finds it offline.
func fetchHint(uri string) string {
	if !strings.HasPrefix(uri, "https://") && !strings.HasPrefix(uri, "http://") {
		return ""
	}
	insecure := ""
	if strings.HasPrefix(uri, "http://") {
		insecure = " --insecure-http"
	}
	return fmt.Sprintf(`, or download it and pin it in jstk.lock with "jstk fetch%s" run at the workspace root`, insecure)
}

// Offline reports whether uri (an absolute URI without fragment) is answered without the
// network by what comes before the files: the resolve map, the built-in meta-schemas or
// one of the Remotes, and names which ("resolve map", "built-in meta-schema", or the
// remote's name for the document). jstk fetch asks it to download only what nothing else
// holds.
func (l *Loader) Offline(uri string) (string, bool) {
	uri = strings.TrimSuffix(uri, "#")
	if metaPath(uri) != "" {
		return "built-in meta-schema", true
	}
	if _, ok := l.fromMap(uri); ok {
		return "resolve map", true
	}
	for _, r := range l.Remotes {
		if _, name, ok, err := r.Open(uri); ok && err == nil {
			return name, true
		}
	}
	return "", false
}

// Beside returns the file a URI stands for next to the referring document's file: the
// relative path from one of the document's base URIs to uri, taken from the file's
// directory. It reports false when the document has no file, no base URI of the same
// scheme and host, or (in a confined workspace) when the file would lie outside.
func (l *Loader) Beside(uri string, from *Referrer) (string, bool) {
	if l.FS == nil || from == nil {
		return "", false
	}
	file := ""
	switch {
	case from.File != "":
		file = l.FS.Abs(from.File)
	default:
		p, ok := filePath(from.URI)
		if !ok {
			return "", false
		}
		file = p
	}
	t, err := url.Parse(uri)
	if err != nil || t.Opaque != "" || t.RawQuery != "" || t.Path == "" || strings.HasSuffix(t.Path, "/") {
		return "", false
	}
	for _, base := range from.Bases {
		b, err := url.Parse(base)
		if err != nil || b.Scheme == "file" || b.Scheme != t.Scheme || b.Host != t.Host || b.User.String() != t.User.String() || b.Opaque != "" {
			continue
		}
		rel := workspace.RelPath(path.Dir(path.Clean("/"+b.Path)), path.Clean("/"+t.Path))
		name, inside := l.FS.Rel(path.Join(path.Dir(file), rel))
		if !inside {
			continue // a workspace that is confined stays so
		}
		return name, true
	}
	return "", false
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
	return parseDocument(name, data, l.Limits, true) // data was read into a buffer of its own
}

// ParseDocument parses a schema file by its extension (.yaml/.yml: YAML; .json: JSON;
// otherwise the content decides). A schema file must hold exactly one document.
func ParseDocument(name string, data []byte, lim *source.Limits) (*source.Document, error) {
	return parseDocument(name, data, lim, false)
}

// parseDocument is ParseDocument; share says that data is never modified afterwards, so
// that a JSON document may share its memory (see source.ParseShared).
func parseDocument(name string, data []byte, lim *source.Limits, share bool) (*source.Document, error) {
	parse := source.Parse
	if share {
		parse = source.ParseShared
	}
	f, ok := source.FormatOf(name)
	if !ok || f == source.NDJSON || f == source.TOML {
		f = source.Sniff(data)
	}
	if f == source.NDJSON || f == source.TOML {
		f = source.JSON
	}
	docs, err := parse(name, data, f, lim)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, &source.Error{File: name, Msg: fmt.Sprintf("a schema file must hold one document, this one holds %d", len(docs))}
	}
	return docs[0], nil
}
