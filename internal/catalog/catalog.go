// Package catalog owns the workspace view of JSON Schemas that agents and people ask about:
// which files of a workspace are schemas, what each one is (its id, draft, title, size of
// its shape), how the schemas reference one another, and whether each is valid against its
// meta-schema and compiles. It answers two questions: the compact catalog of every schema
// (Workspace.List, the list_schemas tool) and one schema's complete context, looked up by an
// exact id and never guessed (Workspace.Context, the schema_context tool).
//
// Scan reads the workspace through a workspace.FS only, read-only, and bounded (number of
// files, size of each file, total size), saying when and why it stopped early. Nothing is
// read before Scan is called; a Cache keeps what was read across calls and reads again only
// files whose size or modification time changed.
//
// # What counts as a schema
//
// Scan reads the .json, .yaml and .yml files of the workspace (recursively, skipping hidden
// directories and node_modules, and the workspace configuration jstk.json at the root). A
// file that parses as one JSON or YAML document is a schema when, in this order:
//
//  1. its root object has "$schema" naming a JSON Schema dialect: the meta-schema of a
//     draft (4, 6, 7, 2019-09, 2020-12, over http or https, with or without "#"), any other
//     json-schema.org URI, or a document of the workspace that is a meta-schema (it has
//     "$vocabulary", a root "$dynamicAnchor" or "$recursiveAnchor", or refers to a draft's
//     meta-schema). A "$schema" that names an ordinary schema marks an instance (SchemaStore
//     test files and editor configurations do this), so such a file is not a schema;
//  2. its name ends in .schema.json, .schema.yaml or .schema.yml;
//  3. its root object has only JSON Schema keywords (and x- extensions), at least one of
//     which gives it structure ($ref, $id, $defs, definitions, properties,
//     patternProperties, allOf, anyOf, oneOf, or "type" naming JSON types);
//  4. a schema found by these rules refers to it with $ref (repeatedly, so that the
//     definitions files schemas share are schemas too).
//
// Each entry says which rule found it (DetectedBy).
//
// # Ids and references
//
// A schema's id is its root $id (or draft 4's "id") when that is an absolute URI, without an
// empty fragment; otherwise its workspace path. References are resolved offline as the
// schema package resolves them (DESIGN.md section 3): within the document; the resolve map;
// the built-in meta-schemas; a file (a file:// URI, or the place next to the referring file
// that the reference's relative path leads to); last, the root $id of the workspace's
// documents, when exactly one declares it. References name files by their workspace path,
// never by the machine's file:// URIs.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Default bounds of a scan.
const (
	DefaultMaxFiles     = 20000
	DefaultMaxFileSize  = 8 << 20
	DefaultMaxTotalSize = 512 << 20
)

// ConfigFile is the name of the workspace configuration (read by tools.LoadConfigAt), which
// is never a schema. It is written here only: tools.ConfigFile is this constant.
const ConfigFile = "jstk.json"

// scanExts are the extensions of the files a scan reads.
var scanExts = []string{".json", ".jsonc", ".yaml", ".yml"}

// Options configure a scan. The zero value (or nil) uses the defaults.
type Options struct {
	// Resolve maps URIs, or URI prefixes ending in "/", to files or directories of the
	// workspace (jstk.json's "resolve" and --resolve).
	Resolve map[string]string
	// Limits bound the parsing of each document (its depth; MaxSize also bounds each file
	// when smaller than MaxFileSize).
	Limits *source.Limits
	// MaxFiles is the most files a scan reads (default 20,000).
	MaxFiles int
	// MaxFileSize is the largest file a scan reads, in bytes (default 8 MiB); larger files
	// are skipped and named in the result.
	MaxFileSize int64
	// MaxTotalSize bounds the bytes read by one scan (default 512 MiB).
	MaxTotalSize int64
	// Cache keeps the results of earlier scans of the same workspace; nil scans afresh.
	Cache *Cache
	// Progress, when set, is told how many files were read and schemas checked.
	Progress func(done, total int, what string)
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.MaxFiles <= 0 {
		out.MaxFiles = DefaultMaxFiles
	}
	if out.MaxFileSize <= 0 {
		out.MaxFileSize = DefaultMaxFileSize
	}
	if out.Limits != nil && out.Limits.MaxSize > 0 && out.Limits.MaxSize < out.MaxFileSize {
		out.MaxFileSize = out.Limits.MaxSize
	}
	if out.MaxTotalSize <= 0 {
		out.MaxTotalSize = DefaultMaxTotalSize
	}
	return out
}

// Entry is one schema of the workspace, as the catalog lists it.
type Entry struct {
	// ID is the schema's absolute $id, else its workspace path.
	ID string `json:"id"`
	// Path is the file, relative to the workspace root.
	Path string `json:"path"`
	// Draft is the dialect the schema is read in ("2020-12", "draft-07", ...): the one its
	// $schema names, 2020-12 when it has none, "" when its $schema is not understood.
	Draft string `json:"draft"`
	// Dialect is $schema as written, if any.
	Dialect string `json:"dialect,omitempty"`
	// Title is the root title, if any.
	Title string `json:"title,omitempty"`
	// Description is the root description, shortened to its first sentence (at most 160
	// characters).
	Description string `json:"description,omitempty"`
	// Defs counts the members of $defs and definitions at the root.
	Defs int `json:"defs"`
	// Properties counts the members of properties at the root.
	Properties int `json:"properties"`
	// References are the ids of the other workspace schemas this one refers to, sorted.
	References []string `json:"references"`
	// ReferencedBy counts the other workspace schemas that refer to this one.
	ReferencedBy int `json:"referencedBy"`
	// SameID lists the paths of the other schemas with the same id ($id): a lookup by this
	// id is then ambiguous, and so is a reference to it that neither the resolve map nor the
	// referring file's location settles (it is unresolved, naming every file).
	SameID []string `json:"sameId,omitempty"`
	// UnresolvedRefs counts the references that resolve nowhere.
	UnresolvedRefs int `json:"unresolvedRefs,omitempty"`
	// Valid reports that the document was checked against its meta-schema and satisfies
	// it. It is false when it violates it, when its $schema names no dialect jstk can
	// check against, and when the file cannot be parsed.
	Valid bool `json:"valid"`
	// Compiles reports that the schema can be used: valid, every reference resolves (to a
	// valid schema), every pattern compiles.
	Compiles bool `json:"compiles"`
	// Problem says, in one line, why the schema is not valid or does not compile.
	Problem string `json:"problem,omitempty"`
	// DetectedBy is the rule that made the file a schema: "$schema", "name", "keywords"
	// or "referenced".
	DetectedBy string `json:"detectedBy"`
	// AppliesTo lists (the first of) the workspace files this schema applies to, by their
	// own declaration or jstk.json's "schemas" map (assoc); AppliesToCount counts them all.
	// The tools fill them; the scan leaves them empty.
	AppliesTo      []string `json:"appliesTo,omitempty"`
	AppliesToCount int      `json:"appliesToCount,omitempty"`
}

// Problem is one thing wrong with a schema, located in its file.
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Skipped is a file the scan did not read.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// maxSkippedListed bounds the skipped files named in a scan's summary.
const maxSkippedListed = 20

// Scanned describes what a scan read.
type Scanned struct {
	// Files is the number of .json/.yaml/.yml files read.
	Files int `json:"files"`
	// Schemas is the number of schemas found.
	Schemas int `json:"schemas"`
	// Invalid counts the schemas that are not valid against their meta-schema.
	Invalid int `json:"invalid"`
	// Uncompilable counts the valid schemas that do not compile (an unresolved reference,
	// an invalid referenced schema, a bad pattern).
	Uncompilable int `json:"uncompilable"`
	// Unparsable counts the files that could not be parsed (and are not named as schemas).
	Unparsable int `json:"unparsable"`
	// Skipped names files that were not read (the first 20), SkippedCount counts them all.
	Skipped      []Skipped `json:"skipped"`
	SkippedCount int       `json:"skippedCount"`
	// Cut says why the scan stopped before reading every file ("" when it read them all).
	Cut string `json:"cut,omitempty"`
}

// Workspace is the result of a scan: every schema of a workspace with its references.
// It is immutable and safe for concurrent use.
type Workspace struct {
	fsys    workspace.FS
	opts    Options
	schemas []*schemaDoc          // sorted by path
	byPath  map[string]*schemaDoc // catalogued schemas by path
	byID    map[string][]*schemaDoc
	files   map[string]*fileInfo // every file read, by path
	ids     map[string][]string  // root $id (normalized) -> paths (sorted), every parsed document
	scanned Scanned
}

// Scanned describes what the scan read.
func (w *Workspace) Scanned() Scanned { return w.scanned }

// Entries returns the catalog entries, sorted by path.
func (w *Workspace) Entries() []Entry {
	out := make([]Entry, len(w.schemas))
	for i, s := range w.schemas {
		out[i] = s.entry
	}
	return out
}

// fileInfo is one file the scan read.
type fileInfo struct {
	path    string
	size    int64
	modTime int64
	doc     *source.Document // nil when it could not be parsed, or was dropped after a scan
	err     error            // why it could not be parsed
	// Root facts, computed once.
	rootKind source.Kind
	id       string       // normalized absolute root $id/id, or ""
	dialect  string       // $schema as written
	hasMeta  bool         // "$schema" is present and a string
	kind     string       // detection by the file alone: "$schema", "name", "keywords", "instance", "api" or ""
	metaLike bool         // it looks like a meta-schema
	api      *APIDocument // an OpenAPI or AsyncAPI document: never a schema, its schemas listed
}

// schemaDoc is one catalogued schema with what the catalog derived from it.
type schemaDoc struct {
	file     *fileInfo
	entry    Entry
	draft    *schema.Draft
	res      map[string]*resourceInfo // resources by absolute base URI
	refs     []*Ref                   // outgoing references, document order
	metaErrs []Problem                // meta-schema violations
	compile  *Problem                 // why it does not compile, located when in this file
	reached  []string                 // the other files the compiled schema reaches
	// compileFile is the other file a compilation error is in.
	compileFile string
	// dependency is a reached file that is not valid, making this schema not compile.
	dependency string
	incoming   []Incoming
	search     string // lower-case id, path, title and description, for queries
	// places and walked hold, while analyze runs, the places of the document the reference
	// walk has made (one Trail per reference token, so that a pointer string is made only
	// where something is recorded) and those of them it has visited.
	places map[placeKey]*source.Trail
	walked map[*source.Trail]bool
}

// placeKey names a place of a document: the place above it (nil: the root) and its last
// reference token, escaped, with its leading "/".
type placeKey struct {
	up  *source.Trail
	rel string
}

// place returns the one Trail of the place below up at rel (a "/" and one escaped reference
// token), making it on first use.
func (s *schemaDoc) place(up *source.Trail, rel string) *source.Trail {
	k := placeKey{up, rel}
	t, ok := s.places[k]
	if !ok {
		t = &source.Trail{Up: up, Rel: rel}
		s.places[k] = t
	}
	return t
}

// placeOf returns the Trail of the place a JSON Pointer names, and false for a malformed
// pointer.
func (s *schemaDoc) placeOf(ptr string) (*source.Trail, bool) {
	if ptr == "" {
		return nil, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	var t *source.Trail
	for _, tok := range strings.Split(ptr[1:], "/") {
		t = s.place(t, "/"+tok)
	}
	return t, true
}

// Scan reads the workspace and builds the catalog. With opts.Cache set, files unchanged
// since an earlier scan of the same workspace are not read again, and an unchanged
// workspace is not checked again.
func Scan(ctx context.Context, fsys workspace.FS, opts *Options) (*Workspace, error) {
	o := opts.withDefaults()
	if fsys == nil {
		return nil, errors.New("catalog: no workspace to scan")
	}
	var prev *Workspace
	if o.Cache != nil {
		prev = o.Cache.get(fsys, &o)
	}
	w := &Workspace{fsys: fsys, opts: o, byPath: map[string]*schemaDoc{}, byID: map[string][]*schemaDoc{},
		files: map[string]*fileInfo{}, ids: map[string][]string{}, scanned: Scanned{Skipped: []Skipped{}}}
	changed, err := w.read(ctx, prev)
	if err != nil {
		return nil, err
	}
	if prev != nil && !changed {
		return prev, nil
	}
	w.index()
	w.detect()
	w.checkFragments()
	if err := w.check(ctx); err != nil {
		return nil, err
	}
	w.finishCompiles()
	w.link()
	for _, f := range w.files {
		// What the catalog answers is derived; a context reads its one file again. This
		// keeps a cached workspace small (schemastore-dev: 51 MB live instead of 124 MB).
		f.doc = nil
	}
	if o.Cache != nil {
		o.Cache.put(fsys, &o, w)
	}
	return w, nil
}

// read lists and parses the files, reusing the parsed files of prev that did not change.
// It reports whether anything differs from prev.
func (w *Workspace) read(ctx context.Context, prev *Workspace) (bool, error) {
	names, errs := workspace.Expand(w.fsys, []string{"."}, scanExts)
	for _, e := range errs {
		// A directory that cannot be listed is named; a workspace without any .json, .yaml
		// or .yml file is simply empty.
		var pe *workspace.PathError
		if errors.As(e, &pe) {
			w.skip(pe.Path, e.Error())
		} else if !strings.Contains(e.Error(), "directory holds no") {
			w.skip(".", e.Error())
		}
	}
	var total int64
	changed := prev == nil
	for i, name := range names {
		if name == ConfigFile {
			continue
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if w.scanned.Files >= w.opts.MaxFiles {
			w.scanned.Cut = fmt.Sprintf("the scan stopped after %d files (the limit); %d more were not read",
				w.opts.MaxFiles, len(names)-i)
			changed = true
			break
		}
		fi, err := w.fsys.Stat(name)
		if err != nil {
			w.skip(name, err.Error())
			continue
		}
		if fi.Size() > w.opts.MaxFileSize {
			w.skip(name, fmt.Sprintf("larger than the limit of %d bytes", w.opts.MaxFileSize))
			continue
		}
		if total+fi.Size() > w.opts.MaxTotalSize {
			w.scanned.Cut = fmt.Sprintf("the scan stopped after reading %d bytes (the limit is %d); %d files were not read",
				total, w.opts.MaxTotalSize, len(names)-i)
			changed = true
			break
		}
		total += fi.Size()
		w.scanned.Files++
		if prev != nil {
			if old, ok := prev.files[name]; ok && old.size == fi.Size() && old.modTime == fi.ModTime().UnixNano() {
				f := *old // a copy: the earlier workspace may be in use
				w.files[name] = &f
				continue
			}
		}
		changed = true
		f := &fileInfo{path: name, size: fi.Size(), modTime: fi.ModTime().UnixNano()}
		w.parse(f)
		f.facts()
		if f.kind == "" || f.kind == "instance" {
			f.doc = nil // most files are not schemas: keep their facts, parse again if one is referred to
		}
		w.files[name] = f
		if w.opts.Progress != nil && w.scanned.Files%500 == 0 {
			w.opts.Progress(w.scanned.Files, len(names), "files read")
		}
	}
	if prev != nil && len(prev.files) != len(w.files) {
		changed = true
	}
	return changed, nil
}

// parse reads and parses a file.
func (w *Workspace) parse(f *fileInfo) {
	data, err := readFile(w.fsys, f.path, f.size, w.opts.MaxFileSize)
	if err == nil {
		f.doc, err = schema.ParseDocument(f.path, data, w.opts.Limits)
	}
	f.err = err
}

// readFile reads a file whose size is known, into a buffer of that size (io.ReadAll would
// allocate about twice as much), refusing more than limit bytes.
func readFile(fsys workspace.FS, name string, size, limit int64) ([]byte, error) {
	if size <= 0 || size > limit {
		return workspace.ReadFile(fsys, name, limit)
	}
	r, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, size+1) // one more byte tells a file that grew
	n, err := io.ReadFull(r, buf)
	switch {
	case err == nil: // it grew since it was listed: read it whole, within the limit
		return workspace.ReadFile(fsys, name, limit)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:n], nil
	}
	return nil, &workspace.PathError{Path: name, Err: err}
}

// document returns the parsed document of a file, parsing it again if a scan dropped it. It
// is called during a scan only, on files of the workspace being built.
func (w *Workspace) document(f *fileInfo) *source.Document {
	if f.doc == nil && f.err == nil {
		w.parse(f)
	}
	return f.doc
}

func (w *Workspace) skip(name, reason string) {
	w.scanned.SkippedCount++
	if len(w.scanned.Skipped) < maxSkippedListed {
		w.scanned.Skipped = append(w.scanned.Skipped, Skipped{Path: name, Reason: strings.TrimPrefix(reason, name+": ")})
	}
}

// facts computes what the file alone says about itself.
func (f *fileInfo) facts() {
	named := isSchemaName(f.path)
	if f.doc == nil {
		if named {
			f.kind = "name"
		}
		return
	}
	root := f.doc.Root
	f.rootKind = root.Kind()
	if api := openapi.Open(f.doc, f.path, "file:///"+f.path, nil); api != nil {
		f.kind, f.api = "api", apiDocument(f.path, api)
		return
	}
	if root.Kind() == source.Object {
		for _, key := range schema.BaseURIKeywords() {
			if v, ok := root.Get(key); ok && v.Kind() == source.String {
				f.id = normalizeID(v.Str())
				break
			}
		}
		if v, ok := root.Get("$schema"); ok && v.Kind() == source.String {
			f.dialect, f.hasMeta = v.Str(), true
		}
		f.metaLike = looksLikeMeta(root)
	}
	switch {
	case f.hasMeta && isDialectURI(f.dialect):
		f.kind = "$schema"
	case named && (root.Kind() == source.Object || root.Kind() == source.Bool):
		f.kind = "name"
	case f.hasMeta:
		f.kind = "instance" // decided later: a custom meta-schema makes it a schema
	case root.Kind() == source.Object && hasSchemaShape(root):
		f.kind = "keywords"
	}
}

// normalizeID returns the absolute form of a root $id without its fragment, or "" when it
// is not an absolute URI.
func normalizeID(id string) string {
	u, err := url.Parse(id)
	if err != nil || !u.IsAbs() {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// isSchemaName reports a file named *.schema.json, *.schema.yaml or *.schema.yml.
func isSchemaName(name string) bool {
	lower := strings.ToLower(path.Base(name))
	for _, e := range scanExts {
		if strings.HasSuffix(lower, ".schema"+e) {
			return true
		}
	}
	return false
}

// isDialectURI reports a $schema naming a JSON Schema meta-schema published at
// json-schema.org (every draft, and the dialects jstk does not evaluate).
func isDialectURI(s string) bool {
	if _, ok := schema.DraftByName(s); ok {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && (u.Host == "json-schema.org" || u.Host == "www.json-schema.org")
}

// looksLikeMeta reports a schema that is a meta-schema: it declares vocabularies, the
// dynamic anchor meta-schemas extend, or refers to a draft's meta-schema at its root.
func looksLikeMeta(root source.Value) bool {
	if root.Has("$vocabulary") {
		return true
	}
	if v, ok := root.Get("$recursiveAnchor"); ok && v.Kind() == source.Bool && v.Bool() {
		return true
	}
	if v, ok := root.Get("$dynamicAnchor"); ok && v.Kind() == source.String && v.Str() == "meta" {
		return true
	}
	refsMeta := func(v source.Value) bool {
		r, ok := v.Get("$ref")
		if !ok || r.Kind() != source.String {
			return false
		}
		_, ok = schema.DraftByName(r.Str())
		return ok
	}
	if refsMeta(root) {
		return true
	}
	if all, ok := root.Get("allOf"); ok {
		for _, item := range all.Items() {
			if refsMeta(item) {
				return true
			}
		}
	}
	return false
}

// structural returns the entry of a keyword that makes an object of keywords a schema
// (schema.Keyword.Structural) in some draft.
func structural(name string) (*schema.Keyword, bool) {
	for _, d := range schema.Drafts {
		if k, ok := d.Keyword(name); ok && k.Structural {
			return k, true
		}
	}
	return nil, false
}

// shapedAs reports a value of the kind a keyword of shape sh holds: an object of schemas,
// an array of schemas, a schema (an object), or, holding no schema, a string.
func shapedAs(sh schema.Shape, v source.Value) bool {
	switch sh {
	case schema.SchemaMap, schema.DepsMap, schema.OneSchema:
		return v.Kind() == source.Object
	case schema.SchemaArray:
		return v.Kind() == source.Array
	case schema.SchemaOrArray:
		return v.Kind() == source.Object || v.Kind() == source.Array
	}
	return v.Kind() == source.String
}

// isKeyword reports a keyword of some draft (see schema.Keywords).
func isKeyword(name string) bool {
	for _, d := range schema.Drafts {
		if _, ok := d.Keyword(name); ok {
			return true
		}
	}
	return false
}

// hasSchemaShape reports an object whose members are all keywords (or x- extensions), with
// at least one that gives it structure.
func hasSchemaShape(root source.Value) bool {
	strong := false
	for i := 0; i < root.Len(); i++ {
		k, v := root.Member(i)
		name := k.Str()
		if strings.HasPrefix(name, "x-") {
			continue
		}
		if !isKeyword(name) {
			return false
		}
		if name == "type" {
			if !isTypeValue(v) {
				return false
			}
			strong = true
		} else if k, ok := structural(name); ok {
			if !shapedAs(k.Shape, v) {
				return false
			}
			strong = true
		}
	}
	return strong
}

func isTypeValue(v source.Value) bool {
	switch v.Kind() {
	case source.String:
		return schema.TypeByName(v.Str(), schema.Draft2020) != 0
	case source.Array:
		for _, t := range v.Items() {
			if t.Kind() != source.String || schema.TypeByName(t.Str(), schema.Draft2020) == 0 {
				return false
			}
		}
		return v.Len() > 0
	}
	return false
}

// index records the root $id of every parsed document: the workspace's $id index, used
// as the schema loader uses its own, only for an id that exactly one file declares.
func (w *Workspace) index() {
	for _, name := range sortedKeys(w.files) {
		f := w.files[name]
		if f.id != "" {
			w.ids[f.id] = append(w.ids[f.id], name)
		}
	}
}

// detect decides which files are schemas: the files that say so themselves, those whose
// $schema is a meta-schema of the workspace, and then, repeatedly, the files they refer to.
func (w *Workspace) detect() {
	var queue []*schemaDoc
	add := func(f *fileInfo, by string) {
		if _, ok := w.byPath[f.path]; ok || f.kind == "api" || (w.document(f) == nil && by != "name") {
			return
		}
		s := &schemaDoc{file: f, entry: Entry{Path: f.path, DetectedBy: by, References: []string{}}}
		w.byPath[f.path] = s
		queue = append(queue, s)
	}
	for _, name := range sortedKeys(w.files) {
		f := w.files[name]
		switch f.kind {
		case "$schema", "name", "keywords":
			add(f, f.kind)
		case "instance":
			if w.customDialect(f) {
				add(f, "$schema")
			}
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		w.analyze(s)
		for _, r := range s.refs {
			if r.Target == nil || r.Target.Path == "" || r.Target.Path == s.file.path {
				continue
			}
			if f, ok := w.files[r.Target.Path]; ok && (f.rootKind == source.Object || f.rootKind == source.Bool) {
				add(f, "referenced")
			}
		}
	}
	for _, name := range sortedKeys(w.byPath) {
		w.schemas = append(w.schemas, w.byPath[name])
	}
}

// customDialect reports whether the $schema of f names a meta-schema of the workspace.
func (w *Workspace) customDialect(f *fileInfo) bool {
	// A relative $schema is resolved against the file, as when the schema is compiled from
	// its path.
	u, _, err := schema.ResolveURI(schema.FileURI(w.fsys.Abs(f.path)), f.dialect)
	if err != nil {
		return false
	}
	t := w.locate(u, nil, nil)
	if t.path == "" || t.path == f.path {
		return false
	}
	mf, ok := w.files[t.path]
	return ok && mf.metaLike
}

// check validates every schema against its meta-schema and compiles it, in parallel.
func (w *Workspace) check(ctx context.Context) error {
	loader := w.loader()
	metas := &metaCache{m: map[string]*metaResult{}}
	jobs := make(chan *schemaDoc)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	var catch panics.Catcher // a worker's panic is raised again after wg.Wait
	var halt schema.Halt     // the first evaluation error that ends the run
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				catch.Do(func() {
					w.checkOne(ctx, &halt, s, loader, metas)
					if w.opts.Progress != nil {
						mu.Lock()
						defer mu.Unlock()
						done++
						if done%100 == 0 || done == len(w.schemas) {
							w.opts.Progress(done, len(w.schemas), "schemas checked")
						}
					}
				})
			}
		}()
	}
	var err error
	for _, s := range w.schemas {
		if err = ctx.Err(); err != nil {
			break
		}
		if err = halt.Err(); err != nil {
			break
		}
		jobs <- s
	}
	close(jobs)
	wg.Wait()
	catch.Repanic()
	if e := halt.Err(); e != nil {
		err = e
	}
	if err != nil {
		return schema.Stopped(ctx, err)
	}
	if err := w.compileAll(ctx, w.compileLoader(loader)); err != nil {
		return schema.Stopped(ctx, err)
	}
	return nil
}

// compileLoader is loader with the workspace's parsed documents, so that compiles read
// none again and a file loaded under two URIs (its path, its $id) is one document.
func (w *Workspace) compileLoader(loader *schema.Loader) *schema.Loader {
	docs := make(map[string]*source.Document, len(w.files))
	for p, f := range w.files {
		if f.doc != nil {
			docs[p] = f.doc
		}
	}
	return &schema.Loader{FS: loader.FS, Index: loader.Index, IndexRoot: loader.IndexRoot, Resolve: loader.Resolve,
		Limits: loader.Limits, Notify: loader.Notify, Docs: docs}
}

// loader finds referenced documents as the schema package does, in its order (the resolve
// map, the built-in meta-schemas, files, the $id index last), with the scan's root $ids as
// the $id index, so that the workspace is not read twice.
func (w *Workspace) loader() *schema.Loader {
	return &schema.Loader{FS: w.fsys, Resolve: w.opts.Resolve, Index: schema.IndexOf(w.ids), Limits: w.opts.Limits}
}

// link fills in the entries: references between schemas, counts, the catalog's id index.
func (w *Workspace) link() {
	for _, s := range w.schemas {
		id := s.file.id
		if id == "" {
			id = s.file.path
		}
		s.entry.ID = id
		w.byID[id] = append(w.byID[id], s)
		desc := s.entry.Description
		if s.file.doc != nil {
			if d, ok := s.file.doc.Root.Get("description"); ok && d.Kind() == source.String {
				desc = d.Str()
			}
		}
		s.search = strings.ToLower(id + "\n" + s.file.path + "\n" + s.entry.Title + "\n" + desc)
	}
	for _, same := range w.byID {
		if len(same) < 2 {
			continue
		}
		for _, s := range same {
			for _, o := range same {
				if o != s {
					s.entry.SameID = append(s.entry.SameID, o.file.path)
				}
			}
		}
	}
	for _, s := range w.schemas {
		seen := map[string]bool{}
		for _, r := range s.refs {
			if r.Target == nil {
				s.entry.UnresolvedRefs++
				continue
			}
			t, ok := w.byPath[r.Target.Path]
			if !ok || t == s {
				continue
			}
			r.Target.ID = t.entry.ID
			t.incoming = append(t.incoming, Incoming{From: s.entry.ID, Path: s.file.path, Pointer: r.Pointer,
				Ref: r.Ref, Line: r.Line, Column: r.Column})
			if !seen[t.entry.ID] {
				seen[t.entry.ID] = true
				s.entry.References = append(s.entry.References, t.entry.ID)
			}
		}
		sort.Strings(s.entry.References)
	}
	for _, s := range w.schemas {
		from := map[string]bool{}
		for _, in := range s.incoming {
			from[in.Path] = true
		}
		s.entry.ReferencedBy = len(from)
		switch {
		case !s.entry.Valid:
			w.scanned.Invalid++
		case !s.entry.Compiles:
			w.scanned.Uncompilable++
		}
	}
	for _, f := range w.files {
		if f.err != nil && f.kind != "name" {
			w.scanned.Unparsable++
		}
	}
	w.scanned.Schemas = len(w.schemas)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
