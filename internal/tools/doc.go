package tools

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Doc is a document argument: exactly one of Path (a file of the workspace, "-" for stdin
// on the CLI), Value (the document as a JSON value) or Text (JSON or YAML text). A schema
// argument may name a schema inside the document with Pointer, a JSON Pointer (the CLI's
// FILE#/pointer; a Path ending in "#/pointer" is read so too).
type Doc struct {
	Path    string    `json:"path,omitempty"`
	Value   jsonValue `json:"value,omitempty"`
	Text    string    `json:"text,omitempty"`
	Pointer string    `json:"pointer,omitempty"`
}

// jsonValue holds raw JSON, keeping an explicit null (which json.RawMessage would drop).
type jsonValue []byte

func (v *jsonValue) UnmarshalJSON(b []byte) error {
	*v = append((*v)[:0], b...)
	return nil
}

func (v jsonValue) MarshalJSON() ([]byte, error) {
	if len(v) == 0 {
		return []byte("null"), nil
	}
	return v, nil
}

// PathDoc is a Doc naming a file.
func PathDoc(p string) Doc { return Doc{Path: p} }

// empty reports a document argument that was not given.
func (d Doc) empty() bool {
	return d.Path == "" && len(d.Value) == 0 && d.Text == "" && d.Pointer == ""
}

// check reports a Doc that does not give exactly one of its fields.
func (d Doc) check(env *Env, arg string) error {
	n := 0
	if d.Path != "" {
		n++
	}
	if len(d.Value) > 0 {
		n++
	}
	if d.Text != "" {
		n++
	}
	if n != 1 {
		return fmt.Errorf("%s: give exactly one of path, value or text", env.arg(arg))
	}
	if d.Pointer != "" {
		return fmt.Errorf("%s: pointer names a schema inside a document; it is not taken here", env.arg(arg))
	}
	return nil
}

// label names the document in reports.
func (d Doc) label(arg string) string {
	if d.Path != "" {
		return d.Path
	}
	return "<" + arg + ">"
}

// bytes returns the document's content and the name to parse it under.
func (d Doc) bytes(env *Env, arg string) ([]byte, string, error) {
	switch {
	case d.Path == "-":
		if env.Stdin == nil {
			return nil, "", fmt.Errorf("%s: \"-\" (standard input) is not available here", env.arg(arg))
		}
		data, err := io.ReadAll(io.LimitReader(env.Stdin, maxSize(env)+1))
		if err != nil {
			return nil, "", fmt.Errorf("reading standard input: %v", err)
		}
		if int64(len(data)) > maxSize(env) {
			return nil, "", fmt.Errorf("standard input is larger than the limit of %d bytes (raise it with --max-size)", maxSize(env))
		}
		return data, "-", nil
	case d.Path != "":
		data, err := workspace.ReadFile(env.FS, d.Path, maxSize(env))
		return data, d.Path, err
	case len(d.Value) > 0:
		return d.Value, "<" + arg + ">.json", nil
	}
	return []byte(d.Text), "<" + arg + ">", nil
}

func maxSize(env *Env) int64 {
	if env.Limits != nil && env.Limits.MaxSize > 0 {
		return env.Limits.MaxSize
	}
	return source.DefaultMaxSize
}

// SchemaOptions select how a schema is read.
type SchemaOptions struct {
	Draft        string // "", "4", "6", "7", "2019-09", "2020-12"
	AssertFormat bool
	// Ctx is the call's: compilation stops when it is done. It is no part of the cache key.
	Ctx context.Context
}

func (o SchemaOptions) compilerOptions(env *Env) (*schema.Options, error) {
	opts := &schema.Options{
		AssertFormat: o.AssertFormat,
		Loader:       env.loader(),
		Context:      o.Ctx,
	}
	if o.Draft != "" {
		d, ok := schema.DraftByName(o.Draft)
		if !ok {
			return nil, fmt.Errorf("unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", o.Draft)
		}
		opts.Draft, opts.ForceDraft = d, true
	}
	return opts, nil
}

// inlineName is the file name under which inline schemas are placed in the workspace, so
// that their relative references resolve against the workspace root.
const inlineName = "(inline schema)"

// LoadSchema compiles a schema argument, through the cache when there is one. The argument
// may name a schema inside a document by JSON Pointer; an OpenAPI or AsyncAPI document
// given whole is refused with an error that names the schemas it holds.
func LoadSchema(env *Env, d Doc, arg string, o SchemaOptions) (*schema.Schema, error) {
	a, err := OpenSchemaArg(env, d, arg)
	if err != nil {
		return nil, err
	}
	return a.Compile(env, o)
}

// SchemaArg is a schema argument made ready for an engine: what the argument names (a
// file, standard input, an inline document), its content, the JSON Pointer of the schema
// in it, and, once parsed, the document and what kind of document it is. It is the one
// place where a document argument with a pointer becomes an engine's input.
type SchemaArg struct {
	// Doc is the argument, its path and pointer split when the path ended in "#/pointer".
	Doc Doc
	// Arg is the argument's name, for messages.
	Arg string
	// Name is how the document is named in reports: its path, or "<arg>" when inline.
	Name string
	// URI is the absolute URI the document compiles under (relative references resolve
	// from it).
	URI string
	// Data is the document's content.
	Data []byte

	parseName string
	src       *source.Document
	api       *openapi.Document
	parsed    bool
	parseErr  error
}

// OpenSchemaArg reads a schema argument (nothing is parsed yet).
func OpenSchemaArg(env *Env, d Doc, arg string) (*SchemaArg, error) {
	d = d.splitPointer(env)
	ptr := d.Pointer
	d.Pointer = ""
	if err := d.check(env, arg); err != nil {
		return nil, err
	}
	d.Pointer = ptr
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%s: pointer %q is not a JSON Pointer: it must start with \"/\" (e.g. /components/schemas/Pet)", env.arg(arg), ptr)
	}
	data, name, err := d.bytes(env, arg)
	if err != nil {
		return nil, err
	}
	a := &SchemaArg{Doc: d, Arg: arg, Name: d.label(arg), Data: data, parseName: name}
	if d.Path != "" && d.Path != "-" {
		a.URI = schema.FileURI(env.FS.Abs(d.Path))
		if rel, ok := env.FS.Rel(env.FS.Abs(d.Path)); ok {
			a.parseName = rel // the name the loader gives the file when a reference reaches it
		}
	} else {
		a.URI = schema.FileURI(env.FS.Abs(inlineName))
	}
	return a, nil
}

// splitPointer reads "FILE#/pointer" (or "FILE#") in a path as the file and a pointer,
// unless a file has that whole name. The fragment is percent-decoded, as a URI's is.
func (d Doc) splitPointer(env *Env) Doc {
	if d.Pointer != "" || d.Path == "" || d.Path == "-" {
		return d
	}
	i := strings.IndexByte(d.Path, '#')
	if i < 0 {
		return d
	}
	frag := d.Path[i+1:]
	if frag != "" && frag[0] != '/' {
		return d
	}
	if _, err := env.FS.Stat(d.Path); err == nil {
		return d // a file named so
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	d.Path, d.Pointer = d.Path[:i], frag
	return d
}

// Parse parses the document and tells whether it is an OpenAPI or AsyncAPI document
// (API is then set), once.
func (a *SchemaArg) Parse(env *Env, opts *schema.Options) (*source.Document, error) {
	if a.parsed {
		return a.src, a.parseErr
	}
	a.parsed = true
	a.src, a.parseErr = schema.ParseDocument(a.parseName, a.Data, env.Limits)
	if a.parseErr != nil {
		return nil, a.parseErr
	}
	if a.Doc.Path == "" || a.Doc.Path == "-" {
		a.src.Name = a.Name
	} else {
		a.src.Name = a.parseName
	}
	a.api = openapi.Open(a.src, a.src.Name, a.URI, opts)
	return a.src, nil
}

// API is the OpenAPI or AsyncAPI document the argument is, or nil (after Parse).
func (a *SchemaArg) API() *openapi.Document { return a.api }

// Compile compiles the schema the argument names, through the cache when there is one.
func (a *SchemaArg) Compile(env *Env, o SchemaOptions) (*schema.Schema, error) {
	key := cacheKey(a.Doc.Path+"#"+a.Doc.Pointer, a.Data, o, env.Resolve)
	if env.Cache != nil {
		if s, ok := env.Cache.get(key, env); ok {
			return s, nil
		}
	}
	opts, err := o.compilerOptions(env)
	if err != nil {
		return nil, err
	}
	src, err := a.Parse(env, opts)
	if err != nil {
		return nil, err
	}
	ptr := a.Doc.Pointer
	if ptr != "" {
		if _, ok := src.Root.Pointer(ptr); !ok {
			return nil, missingPointer(a.Name, src, ptr)
		}
	}
	var s *schema.Schema
	var files []string
	if api := a.api; api != nil {
		if err := api.Check(ptr); err != nil {
			return nil, err
		}
		if s, err = api.Schema(ptr); err != nil {
			return nil, err
		}
		files = api.Files()
	} else {
		c := schema.NewCompiler(opts)
		err := c.AddDocument(a.URI, src)
		if err != nil && ptr != "" && !errorWithin(err, ptr) {
			// the document is no schema as a whole (a package.json, a configuration): read
			// it as a holder of schemas, and only the one named as a schema
			c = schema.NewCompiler(opts)
			err = c.AddContainer(a.URI, src, nil)
		}
		if err != nil {
			return nil, err
		}
		if s, err = c.CompileAt(a.URI, ptr); err != nil {
			return nil, err
		}
		files = c.Files()
	}
	// A schema that needed the $id index is compiled again by the next call: a file added
	// since may make its $id ambiguous, or resolve it before the index, and the call's
	// result must say where the reference was resolved from.
	if env.Cache != nil && !opts.Loader.UsedIndex() {
		env.Cache.put(key, s, len(a.Data), files, env)
	}
	return s, nil
}

// errorWithin reports whether a schema error is about the subschema at ptr or inside it.
func errorWithin(err error, ptr string) bool {
	var se *schema.SchemaError
	if !errors.As(err, &se) {
		return true
	}
	in := func(p string) bool { return p == ptr || strings.HasPrefix(p, ptr+"/") }
	if in(se.Pointer) {
		return true
	}
	var anyIn func([]schema.Error) bool
	anyIn = func(es []schema.Error) bool {
		for _, e := range es {
			if in(e.InstanceLocation) || anyIn(e.Causes) {
				return true
			}
		}
		return false
	}
	return anyIn(se.Causes)
}

// missingPointer says that a document has nothing at ptr, and what the nearest place that
// exists holds.
func missingPointer(name string, src *source.Document, ptr string) error {
	return errors.New(source.NothingAt(name, src.Root, ptr))
}

// cacheKey is the digest of what a compiled schema depends on besides its files: the
// argument's path and pointer, the options, the --resolve map and the schema's text. (The
// strings are quoted with strconv, not fmt: fmt was a third of a warm MCP call's cache
// look-up.)
func cacheKey(path string, data []byte, o SchemaOptions, resolve map[string]string) string {
	h := sha256.New()
	var buf [256]byte
	b := strconv.AppendQuote(buf[:0], path)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, o.Draft)
	b = append(b, ' ')
	b = strconv.AppendBool(b, o.AssertFormat)
	b = append(b, '\n')
	if len(resolve) > 0 {
		keys := make([]string, 0, len(resolve))
		for k := range resolve {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b = strconv.AppendQuote(b, k)
			b = append(b, '=')
			b = strconv.AppendQuote(b, resolve[k])
			b = append(b, '\n')
		}
	}
	h.Write(b)
	h.Write(data)
	var sum [sha256.Size]byte
	return string(h.Sum(sum[:0]))
}

// SchemaCache keeps compiled schemas across calls, keyed by the schema's content and
// options. An entry is used again only while every file it was compiled from is unchanged.
type SchemaCache struct {
	mu       sync.Mutex
	entries  map[string]*cacheEntry
	order    []string
	max      int
	maxText  int64 // the most text the entries may have been compiled from, together
	textSize int64 // what they were compiled from now
}

type cacheEntry struct {
	schema *schema.Schema
	deps   map[string][32]byte // file name -> content hash
	text   int64               // the size of the text it was compiled from (see put)
}

// cacheText is how much schema text the compiled schemas of a cache may come from,
// together. A compiled schema takes many times the memory of its text (1.6-9.5x for the
// largest SchemaStore schemas, 21 MB for a 1.2 MB schema of 1,000 objects of 20 patterned
// strings): counted by entries alone, an agent
// that edits a large schema and validates after each edit (each edit a new key) grew the
// engine process to 1.7 GB in 64 calls.
const cacheText = 8 << 20

// NewSchemaCache returns a cache holding up to max schemas, compiled from at most 8 MB of
// text in all (oldest dropped first; the newest is kept even when larger).
func NewSchemaCache(max int) *SchemaCache {
	return &SchemaCache{entries: map[string]*cacheEntry{}, max: max, maxText: cacheText}
}

func (c *SchemaCache) get(key string, env *Env) (*schema.Schema, bool) {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	for name, sum := range e.deps {
		data, err := workspace.ReadFile(env.FS, name, maxSize(env))
		if err != nil || sha256.Sum256(data) != sum {
			return nil, false
		}
	}
	return e.schema, true
}

// put keeps s, compiled from a document of size bytes and from files. The text an entry
// counts is the document's and the files'.
func (c *SchemaCache) put(key string, s *schema.Schema, size int, files []string, env *Env) {
	deps := map[string][32]byte{}
	text := int64(size)
	for _, f := range files {
		data, err := workspace.ReadFile(env.FS, f, maxSize(env))
		if err != nil {
			return // a file vanished meanwhile: do not cache
		}
		deps[f] = sha256.Sum256(data)
		text += int64(len(data))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.textSize -= old.text
	} else {
		c.order = append(c.order, key)
	}
	c.entries[key] = &cacheEntry{schema: s, deps: deps, text: text}
	c.textSize += text
	for len(c.order) > c.max || (c.textSize > c.maxText && len(c.order) > 1) {
		c.textSize -= c.entries[c.order[0]].text
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

// describeLoadError keeps the messages of schema loading readable.
func describeLoadError(err error) string {
	var se *schema.SchemaError
	if errors.As(err, &se) {
		return se.Error()
	}
	return strings.TrimSpace(err.Error())
}
