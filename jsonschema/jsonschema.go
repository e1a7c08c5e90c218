package jsonschema

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Draft names a JSON Schema dialect by its meta-schema URI.
type Draft string

// The dialects jstk supports.
const (
	Draft4    Draft = "http://json-schema.org/draft-04/schema#"
	Draft6    Draft = "http://json-schema.org/draft-06/schema#"
	Draft7    Draft = "http://json-schema.org/draft-07/schema#"
	Draft2019 Draft = "https://json-schema.org/draft/2019-09/schema"
	Draft2020 Draft = "https://json-schema.org/draft/2020-12/schema"
)

// Drafts lists the supported dialects, oldest first.
var Drafts = []Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// Options configure compilation and validation. The zero value (or nil) is ready to use:
// draft 2020-12 for schemas without $schema, formats as annotations, default limits.
type Options struct {
	// Draft is the dialect of a schema that declares no $schema ("" means Draft2020). Any
	// name `jstk --draft` accepts works too ("7", "2019-09").
	Draft Draft
	// AssertFormat makes "format" an assertion instead of an annotation.
	AssertFormat bool
	// AssertContent makes contentEncoding and contentMediaType assertions.
	AssertContent bool
	// Formats are formats of the caller's by name: each checks a value (as encoding/json
	// decodes it with UseNumber: nil, bool, string, json.Number, []any, map[string]any)
	// and returns why it is not of the format, or nil. A format given here replaces the
	// built-in one of its name and is always asserted, whatever AssertFormat says (defining
	// a format asks for it to be checked), on values of every type: a check that is only
	// about strings lets the others pass.
	Formats map[string]func(v any) error
	// Resources are in-memory schema documents by absolute URI (without fragment), found
	// by $ref and $schema before the Resolve map and every other source. Each is parsed and
	// compiled only when something refers to it.
	Resources map[string][]byte
	// Resolve maps a URI, or a URI prefix ending in "/", to a file name of the files.
	Resolve map[string]string
	// SchemaStore is a SchemaStore snapshot directory (its repository's layout) or a file
	// packed by jstk's cmd/storegen: references to https://json.schemastore.org/X.json (and
	// www.schemastore.org) resolve to its copies, offline, after Resources and Resolve.
	// "" uses the copy built into the program, when it was built with one (jstk's release
	// binaries are; a program importing this package is not unless it embeds one).
	SchemaStore string
	// RegexTimeout bounds one pattern match (0: jstk's default, 2s).
	RegexTimeout time.Duration
	// RegexBudget bounds the time all pattern matches of one Validate call may take
	// together (0: no budget beyond RegexTimeout).
	RegexBudget time.Duration
	// MaxDocumentDepth bounds the nesting of arrays and objects in every document parsed
	// from bytes, schema or instance (0: 10,000).
	MaxDocumentDepth int
	// MaxDocumentSize bounds the size in bytes of every document read (0: 256 MiB).
	MaxDocumentSize int64
}

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	s      *schema.Schema
	limits *source.Limits
	budget time.Duration
}

// Error is one way an instance fails a schema, shaped as the specification's output units.
type Error struct {
	// InstanceLocation is the JSON Pointer of the failing value in the instance.
	InstanceLocation string `json:"instanceLocation"`
	// KeywordLocation is the path of keywords evaluated to reach the failing keyword,
	// through references.
	KeywordLocation string `json:"keywordLocation"`
	// AbsoluteKeywordLocation is the failing keyword's absolute URI.
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	// Keyword is the failing keyword ("" for a false schema).
	Keyword string `json:"keyword"`
	// Message says what is wrong, in words.
	Message string `json:"message"`
	// Line is the line of the failing value in the instance (ValidateBytes and
	// ValidateReader only; zero otherwise).
	Line int `json:"line,omitempty"`
	// Column is its column on that line, counted in characters (zero when Line is).
	Column int `json:"column,omitempty"`
	// Causes explain a failed anyOf, oneOf or similar: why each alternative failed.
	Causes []Error `json:"causes,omitempty"`
}

// Error formats the error on one line: location, keyword, message.
func (e Error) Error() string {
	at := e.InstanceLocation
	if at == "" {
		at = "(root)"
	}
	if e.Line > 0 {
		at = fmt.Sprintf("%d:%d %s", e.Line, e.Column, at)
	}
	return fmt.Sprintf("%s: %s (%s)", at, e.Message, e.KeywordLocation)
}

// SchemaError is the error of a schema that cannot be compiled: not JSON, invalid against
// its meta-schema, or with a reference nothing resolves.
type SchemaError struct {
	// URI is the location of the offending schema or document.
	URI string
	// Line and Column locate the offending keyword when it is known (else zero).
	Line, Column int
	// Message says what is wrong.
	Message string
	err     error
}

// Error returns the message, which names the schema and the place.
func (e *SchemaError) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *SchemaError) Unwrap() error { return e.err }

func (o *Options) limits() *source.Limits {
	if o == nil {
		return nil
	}
	return &source.Limits{MaxDepth: o.MaxDocumentDepth, MaxSize: o.MaxDocumentSize}
}

// compiler builds the engine's compiler for opts with the files fsys (nil: none).
func compiler(opts *Options, fsys workspace.FS) (*schema.Compiler, *source.Limits, error) {
	if opts == nil {
		opts = &Options{}
	}
	lim := opts.limits()
	so := &schema.Options{AssertFormat: opts.AssertFormat, AssertContent: opts.AssertContent, RegexTimeout: opts.RegexTimeout}
	if len(opts.Formats) > 0 {
		so.Formats = make(map[string]func(source.Value) error, len(opts.Formats))
		for name, fn := range opts.Formats {
			if fn == nil {
				return nil, nil, fmt.Errorf("format %q: its check is nil", name)
			}
			so.Formats[name] = func(v source.Value) error { return fn(source.ToAny(v)) }
		}
	}
	if opts.Draft != "" {
		d, ok := schema.DraftByName(string(opts.Draft))
		if !ok {
			return nil, nil, fmt.Errorf("unknown draft %q: use one of the Draft constants", opts.Draft)
		}
		so.Draft = d
	}
	files, resolve := withResources(fsys, opts.Resolve, opts.Resources)
	st := store.Embedded()
	if opts.SchemaStore != "" {
		st = store.Open(workspace.OS(), opts.SchemaStore)
	}
	so.Loader = &schema.Loader{FS: files, Resolve: resolve, Limits: lim, Remotes: []schema.Remote{st}}
	return schema.NewCompiler(so), lim, nil
}

func schemaError(uri string, err error) error {
	if err == nil {
		return nil
	}
	se := &SchemaError{URI: uri, Message: err.Error(), err: err}
	var ie *schema.SchemaError
	if errors.As(err, &ie) {
		se.URI, se.Line, se.Column = ie.URI, ie.Line, ie.Column
	}
	var pe *source.Error
	if errors.As(err, &pe) {
		se.Line, se.Column = pe.Line, pe.Column
	}
	return se
}

// Compile compiles a JSON schema document given as bytes, retrieved from uri,
// the absolute URI its relative references resolve against ("" for a placeholder). It
// reads no file: references resolve to Options.Resources and the built-in meta-schemas.
func Compile(ctx context.Context, uri string, data []byte, opts *Options) (*Schema, error) {
	if uri == "" {
		uri = "urn:jstk:inline"
	}
	return compileDoc(ctx, nil, uri, data, opts)
}

// CompileFile compiles the schema file at name (a path of the operating system). Its
// references may reach the files of its directory and below, and nothing else on disk.
func CompileFile(ctx context.Context, name string, opts *Options) (*Schema, error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	fsys, err := workspace.Root(dir)
	if err != nil {
		return nil, err
	}
	return compileWS(ctx, fsys, filepath.ToSlash(base), opts)
}

// CompileFS compiles the schema file name of fsys; its references may reach the other
// files of fsys, and nothing else.
func CompileFS(ctx context.Context, fsys fs.FS, name string, opts *Options) (*Schema, error) {
	return compileWS(ctx, ioFS{fsys}, name, opts)
}

func compileWS(ctx context.Context, fsys workspace.FS, name string, opts *Options) (*Schema, error) {
	var max int64
	if opts != nil {
		max = opts.MaxDocumentSize
	}
	if max <= 0 {
		max = source.DefaultMaxSize
	}
	data, err := workspace.ReadFile(fsys, name, max)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return compileDoc(ctx, fsys, schema.FileURI(fsys.Abs(name)), data, opts)
}

func compileDoc(ctx context.Context, fsys workspace.FS, uri string, data []byte, opts *Options) (*Schema, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c, lim, err := compiler(opts, fsys)
	if err != nil {
		return nil, err
	}
	name := uri
	if fsys != nil {
		if rel, ok := fsys.Rel(strings.TrimPrefix(uri, "file://")); ok {
			name = rel
		}
	}
	doc, err := schema.ParseDocument(name, data, lim)
	if err != nil {
		return nil, schemaError(uri, err)
	}
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, schemaError(uri, err)
	}
	s, err := c.Compile(uri)
	if err != nil {
		return nil, schemaError(uri, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &Schema{s: s, limits: lim}
	if opts != nil {
		out.budget = opts.RegexBudget
	}
	return out, nil
}

// Location is the schema's absolute URI, with the JSON Pointer of its place as fragment.
func (s *Schema) Location() string { return s.s.Location() }

func (s *Schema) ctx(ctx context.Context) context.Context {
	if s.budget > 0 {
		return schema.WithRegexBudget(ctx, s.budget)
	}
	return ctx
}

// Validate evaluates a Go value: nil, bool, string, json.Number, the numeric types,
// map[string]any, []any, or anything encoding/json can marshal. It returns every error
// (nil when v is valid); err is non-nil only when the evaluation could not be completed.
func (s *Schema) Validate(ctx context.Context, v any) (errs []Error, err error) {
	val, err := source.FromAny(v)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	found, err := s.s.ValidateContext(s.ctx(ctx), val)
	if err != nil {
		return nil, err
	}
	return convert(validate.Locate(found, nil)), nil
}

// Valid reports whether v is valid, stopping at the first error (faster than Validate).
func (s *Schema) Valid(ctx context.Context, v any) (bool, error) {
	val, err := source.FromAny(v)
	if err != nil {
		return false, fmt.Errorf("instance: %w", err)
	}
	return s.s.ValidContext(s.ctx(ctx), val)
}

// ValidateBytes parses a JSON document and evaluates it; every error carries the line and
// column of the failing value. A document that cannot be parsed is an error (a
// *SyntaxError), not a list of errors.
func (s *Schema) ValidateBytes(ctx context.Context, data []byte) ([]Error, error) {
	doc, err := source.ParseJSON("", data, s.limits)
	if err != nil {
		var pe *source.Error
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Line: pe.Line, Column: pe.Column, Message: err.Error()}
		}
		return nil, err
	}
	found, err := s.s.ValidateContext(s.ctx(ctx), doc.Root)
	if err != nil {
		return nil, err
	}
	return convert(validate.Locate(found, doc)), nil
}

// ValidateReader is ValidateBytes for a reader (read whole, within MaxDocumentSize).
func (s *Schema) ValidateReader(ctx context.Context, r io.Reader) ([]Error, error) {
	max := int64(source.DefaultMaxSize)
	if s.limits != nil && s.limits.MaxSize > 0 {
		max = s.limits.MaxSize
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("instance larger than %d bytes (raise Options.MaxDocumentSize)", max)
	}
	return s.ValidateBytes(ctx, data)
}

// SyntaxError is the error of an instance that is not JSON.
type SyntaxError struct {
	Line, Column int    // where parsing stopped
	Message      string // what is wrong
}

// Error returns the message, which names the line and column.
func (e *SyntaxError) Error() string { return e.Message }

// validateLocate turns the engine's errors into validate's, unlocated (a Go value has no
// lines).
func validateLocate(found []schema.Error) []validate.Error { return validate.Locate(found, nil) }

func convert(in []validate.Error) []Error {
	if len(in) == 0 {
		return nil
	}
	out := make([]Error, len(in))
	for i, e := range in {
		out[i] = Error{InstanceLocation: e.InstanceLocation, KeywordLocation: e.KeywordLocation,
			AbsoluteKeywordLocation: e.AbsoluteKeywordLocation, Keyword: e.Keyword, Message: e.Message,
			Line: e.Line, Column: e.Column, Causes: convert(e.Causes)}
	}
	return out
}

// SetMaxEvalDepth sets, for the whole process, how deeply an evaluation may nest (through
// $ref chains, mostly) before it stops with an error; between 100 and 1,000,000. Call it
// before any validation starts.
func SetMaxEvalDepth(n int) error { return schema.SetMaxEvalDepth(n) }

// ioFS adapts an fs.FS to the engine's file system: its names are placed under a virtual
// root "/", so that file:// URIs name them.
type ioFS struct{ fsys fs.FS }

func (f ioFS) Open(name string) (io.ReadCloser, error) { return f.fsys.Open(f.clean(name)) }
func (f ioFS) Stat(name string) (fs.FileInfo, error)   { return fs.Stat(f.fsys, f.clean(name)) }
func (f ioFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(f.fsys, f.clean(name))
}
func (f ioFS) Abs(name string) string { return path.Join("/", f.clean(name)) }
func (f ioFS) Rel(abs string) (string, bool) {
	if !strings.HasPrefix(abs, "/") {
		return "", false
	}
	return f.clean(abs), true
}
func (f ioFS) clean(name string) string {
	n := strings.TrimPrefix(path.Clean("/"+name), "/")
	if n == "" {
		return "."
	}
	return n
}
