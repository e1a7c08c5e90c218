package tools

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Doc is a document argument: exactly one of Path (a file of the workspace, "-" for stdin
// on the CLI), Value (the document as a JSON value) or Text (JSON or YAML text).
type Doc struct {
	Path  string    `json:"path,omitempty"`
	Value jsonValue `json:"value,omitempty"`
	Text  string    `json:"text,omitempty"`
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

// check reports a Doc that does not give exactly one of its fields.
func (d Doc) check(arg string) error {
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
		return fmt.Errorf("argument %s: give exactly one of path, value or text", arg)
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
			return nil, "", fmt.Errorf("argument %s: \"-\" (standard input) is not available here", arg)
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
}

func (o SchemaOptions) compilerOptions(env *Env) (*schema.Options, error) {
	opts := &schema.Options{
		AssertFormat: o.AssertFormat,
		Loader:       env.loader(),
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

// LoadSchema compiles a schema argument, through the cache when there is one.
func LoadSchema(env *Env, d Doc, arg string, o SchemaOptions) (*schema.Schema, error) {
	if err := d.check(arg); err != nil {
		return nil, err
	}
	data, name, err := d.bytes(env, arg)
	if err != nil {
		return nil, err
	}
	key := cacheKey(d.Path, data, o, env.Resolve)
	if env.Cache != nil {
		if s, ok := env.Cache.get(key, env); ok {
			return s, nil
		}
	}
	opts, err := o.compilerOptions(env)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(opts)
	var uri string
	if d.Path != "" && d.Path != "-" {
		uri = schema.FileURI(env.FS.Abs(d.Path))
	} else {
		doc, err := schema.ParseDocument(name, data, env.Limits)
		if err != nil {
			return nil, err
		}
		doc.Name = d.label(arg)
		uri = schema.FileURI(env.FS.Abs(inlineName))
		if err := c.AddDocument(uri, doc); err != nil {
			return nil, err
		}
	}
	s, err := c.Compile(uri)
	if err != nil {
		return nil, err
	}
	// A schema that needed the $id index is compiled again by the next call: a file added
	// since may make its $id ambiguous, or resolve it before the index, and the call's
	// result must say where the reference was resolved from.
	if env.Cache != nil && !opts.Loader.UsedIndex() {
		env.Cache.put(key, s, c.Files(), env)
	}
	return s, nil
}

func cacheKey(path string, data []byte, o SchemaOptions, resolve map[string]string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %v\n", path, o.Draft, o.AssertFormat)
	keys := make([]string, 0, len(resolve))
	for k := range resolve {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%q=%q\n", k, resolve[k])
	}
	h.Write(data)
	return string(h.Sum(nil))
}

// SchemaCache keeps compiled schemas across calls, keyed by the schema's content and
// options. An entry is used again only while every file it was compiled from is unchanged.
type SchemaCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
	order   []string
	max     int
}

type cacheEntry struct {
	schema *schema.Schema
	deps   map[string][32]byte // file name -> content hash
}

// NewSchemaCache returns a cache holding up to max schemas (oldest dropped first).
func NewSchemaCache(max int) *SchemaCache {
	return &SchemaCache{entries: map[string]*cacheEntry{}, max: max}
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

func (c *SchemaCache) put(key string, s *schema.Schema, files []string, env *Env) {
	deps := map[string][32]byte{}
	for _, f := range files {
		data, err := workspace.ReadFile(env.FS, f, maxSize(env))
		if err != nil {
			return // a file vanished meanwhile: do not cache
		}
		deps[f] = sha256.Sum256(data)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok {
		c.order = append(c.order, key)
	}
	c.entries[key] = &cacheEntry{schema: s, deps: deps}
	for len(c.order) > c.max {
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
