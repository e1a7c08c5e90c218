// Package bundle owns the bundle engine: it gathers a schema and every schema it
// references (relative files, workspace $ids, the resolve map) into one self-contained
// document. For 2019-09 and 2020-12 the result is a compound document whose $defs embed
// each referenced document as a resource with its own $id, references left as they are
// wherever they still resolve; for drafts 4, 6 and 7 the referenced documents are inlined
// under definitions and every reference to them is rewritten to a JSON Pointer.
//
// Bundles never contain local absolute paths (files are named relative to the root
// schema), are deterministic (same input, same bytes), and bundling a bundle changes
// nothing. The official meta-schemas are built into every validator and are not embedded.
package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Options configure a bundle; nil means defaults.
type Options struct {
	// Loader finds referenced documents; nil resolves nothing but the built-in
	// meta-schemas.
	Loader *schema.Loader
	// Draft is the dialect of documents without $schema; nil means 2020-12.
	Draft *schema.Draft
	// Compiled is the root schema compiled, when the caller has it: a reference that
	// cannot be resolved where evaluation never goes (such as an unused definition) is
	// then left as written, with a warning, instead of failing the bundle.
	Compiled *schema.Schema
}

// Embedded is a document the bundle took in.
type Embedded struct {
	// ID is the embedded resource's $id (compound documents) or its key under definitions
	// (inlined documents).
	ID string `json:"id"`
	// Pointer is where the document sits in the bundle.
	Pointer string `json:"pointer"`
	// File is the file it came from, relative to the root schema's directory, or the URI
	// it was mapped from.
	File string `json:"file,omitempty"`
	// Draft is the dialect the document is written in.
	Draft string `json:"draft"`
}

// Result is a bundle. Its JSON form is the CLI's --format json output and the MCP tool's
// structuredContent.
type Result struct {
	// Schema is the bundled schema.
	Schema json.RawMessage `json:"schema"`
	// Draft is the dialect of the root schema.
	Draft string `json:"draft"`
	// Mode is "compound" (resources embedded under $defs, 2019-09 and later), "inline"
	// (documents inlined under definitions, references rewritten, drafts 4 to 7) or "none"
	// (nothing to embed).
	Mode string `json:"mode"`
	// Embedded lists the documents taken in, in the order they appear.
	Embedded []Embedded `json:"embedded"`
	// Warnings say where the bundle may be read differently from the original by some
	// validators.
	Warnings []string `json:"warnings,omitempty"`
	// Output is the file the CLI writes the bundle to (YAML for .yaml and .yml names),
	// when one was asked for; standard output then stays empty.
	Output string `json:"output,omitempty"`

	value source.Value
	text  []byte // JSON, once printed
}

// Value returns the bundled schema.
func (r *Result) Value() source.Value { return r.value }

// ErrUnresolved is wrapped by the error of a bundle whose references cannot all be
// resolved.
var ErrUnresolved = errors.New("unresolvable references")

// ErrDraftMix is wrapped by the error of a draft 4-7 schema that references a document of
// another draft using keywords whose meaning differs between the two: inlining it would
// change what it means.
var ErrDraftMix = errors.New("cannot inline a document of another draft")

// bundler holds the state of one bundle.
type bundler struct {
	opts   *Options
	docs   []*doc
	byURI  map[string]*resource // every resource URI of every document, and retrieval URIs
	byName map[string]*doc
	comp   *schema.Compiler // for the drafts of documents with custom meta-schemas
	errs   []string
	warns  []string
	root   *doc
	// reached holds every schema evaluation can reach (from Options.Compiled), by file
	// name and depth, made when a reference fails; nil when unknown.
	reached map[reachKey][]*schema.Schema
}

type reachKey struct {
	file  string
	depth int
}

// isReached reports whether evaluation can reach the schema at ptr in file, or true when
// that is not known. The schemas are indexed by file and depth, and pointers compared only
// among those of the same depth: a deeply nested document has too many long pointers to
// make them all.
func (b *bundler) isReached(file, ptr string) bool {
	if b.opts.Compiled == nil {
		return true
	}
	if b.reached == nil {
		b.reached = map[reachKey][]*schema.Schema{}
		schema.Walk(b.opts.Compiled, func(s *schema.Schema) bool {
			k := reachKey{s.File(), s.Depth()}
			b.reached[k] = append(b.reached[k], s)
			return true
		})
	}
	for _, s := range b.reached[reachKey{file, strings.Count(ptr, "/")}] {
		if _, p := s.Pointer(); p == ptr {
			return true
		}
	}
	return false
}

// Bundle bundles the schema document src, retrieved from uri (an absolute URI; a file://
// URI for files) and named name in messages.
func Bundle(ctx context.Context, name, uri string, src *source.Document, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	if opts.Draft == nil {
		opts.Draft = schema.Draft2020
	}
	b := &bundler{opts: opts, byURI: map[string]*resource{}, byName: map[string]*doc{}}
	b.root = b.add(uri, name, src, false)
	for i := 0; i < len(b.docs); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, r := range b.docs[i].refs {
			b.resolveRef(r)
		}
	}
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("%w:\n  %s", ErrUnresolved, strings.Join(b.errs, "\n  "))
	}
	res, err := b.build()
	if err != nil {
		return nil, err
	}
	res.Warnings = append(b.warns, res.Warnings...)
	return res, nil
}

// draftOf decides the dialect of a document.
func (b *bundler) draftOf(uri string, src *source.Document) *schema.Draft {
	sv, ok := src.Root.Get("$schema")
	if !ok || sv.Kind() != source.String {
		return b.opts.Draft
	}
	if d, ok := schema.DraftByName(sv.Str()); ok {
		return d
	}
	// A custom meta-schema: the compiler knows which draft it builds on.
	if b.comp == nil {
		b.comp = schema.NewCompiler(&schema.Options{Loader: b.opts.Loader, Draft: b.opts.Draft, NoMetaValidation: true})
	}
	if err := b.comp.AddDocument(uri, src); err == nil {
		if s, err := b.comp.Compile(uri); err == nil {
			return s.Draft
		}
	}
	return b.opts.Draft
}

// add registers a document and its resources.
func (b *bundler) add(uri, name string, src *source.Document, builtin bool) *doc {
	d := &doc{uri: uri, name: name, src: src, builtin: builtin}
	d.draft = b.draftOf(uri, src)
	d.index()
	b.docs = append(b.docs, d)
	if name != "" {
		b.byName[name] = d
	}
	ptrs := make([]string, 0, len(d.resources))
	for p := range d.resources {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		r := d.resources[p]
		if _, dup := b.byURI[r.uri]; !dup {
			b.byURI[r.uri] = r
		}
	}
	if _, dup := b.byURI[uri]; !dup {
		b.byURI[uri] = d.resources[""]
	}
	return d
}

// where names a place of a document for messages.
func (b *bundler) where(d *doc, ptr string) string {
	line, col := d.src.LocateKey(ptr)
	return fmt.Sprintf("%s:%d:%d", b.display(d), line, col)
}

// display names a document without its absolute path.
func (b *bundler) display(d *doc) string {
	if d == b.root {
		return d.name
	}
	if p, ok := filePath(d.uri); ok {
		if rp, ok := filePath(b.root.uri); ok {
			return workspace.RelPath(path.Dir(rp), p)
		}
		return path.Base(p)
	}
	if path.IsAbs(d.name) {
		return d.uri
	}
	if d.name != "" {
		return d.name
	}
	return d.uri
}

// fail records a reference that cannot be resolved: an error, or a warning when
// evaluation never reaches it (the reference is then left as written).
func (b *bundler) fail(r *ref, msg string) {
	node := strings.TrimSuffix(r.ptr, "/"+source.EscapeToken(r.kw))
	if !b.isReached(r.doc.name, node) {
		b.warns = append(b.warns, msg+" (left as written: evaluation never reaches it)")
		return
	}
	b.errs = append(b.errs, msg)
}

// resolveRef finds the document and pointer a reference leads to, loading documents as
// needed.
func (b *bundler) resolveRef(r *ref) {
	u, frag, err := resolve(r.res.uri, r.value)
	if err != nil {
		b.fail(r, fmt.Sprintf("%s: %s %q is not a valid URI reference: %v", b.where(r.doc, r.ptr), r.kw, r.value, err))
		return
	}
	res, ok := b.byURI[u]
	if !ok {
		src, name, err := b.load(u, r)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, schema.ErrUnresolved) {
				msg = "nothing maps it to a file (no resolve mapping, built-in meta-schema, file beside it or workspace $id; map it with --resolve URI=PATH or jstk.json)"
			}
			b.fail(r, fmt.Sprintf("%s: %s %q: %s", b.where(r.doc, r.ptr), r.kw, r.value, msg))
			return
		}
		switch {
		case name == "":
			b.add(u, "", src, true)
		case b.byName[name] != nil:
			b.byURI[u] = b.byName[name].resources[""] // the same file under another URI
		default:
			b.add(u, name, src, false)
		}
		res = b.byURI[u]
	}
	ptr, ok := lookup(res, frag)
	if !ok {
		b.fail(r, fmt.Sprintf("%s: %s %q: %s has no %q", b.where(r.doc, r.ptr), r.kw, r.value, b.display(res.doc), "#"+frag))
		return
	}
	r.target, r.targetPtr = res.doc, ptr
}

// load finds the document of a URI as the compiler does, for the reference r: the loader
// looks next to r's document too.
func (b *bundler) load(u string, r *ref) (*source.Document, string, error) {
	from := &schema.Referrer{URI: r.doc.uri, Bases: []string{r.res.uri}}
	if r.doc != b.root && !r.doc.builtin {
		from.File = r.doc.name // read through the loader; the root may be inline
	}
	if r.doc.rootURI != "" && r.doc.rootURI != r.res.uri {
		from.Bases = append(from.Bases, r.doc.rootURI)
	}
	if b.opts.Loader == nil {
		return (&schema.Loader{}).LoadFrom(u, from)
	}
	return b.opts.Loader.LoadFrom(u, from)
}

// lookup finds a fragment in a resource: a JSON Pointer or an anchor.
func lookup(res *resource, frag string) (string, bool) {
	switch {
	case frag == "":
		return res.ptr, true
	case strings.HasPrefix(frag, "/"):
		p := res.ptr + frag
		_, ok := res.doc.src.Root.Pointer(p)
		return p, ok
	}
	p, ok := res.anchors[frag]
	return p, ok
}

// filePath returns the path of a file:// URI.
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return path.Clean(u.Path), true
}

// fake is the directory where the bundle is imagined to stand, deep enough that the
// relative paths of the embedded files never climb out of it.
const fake = "file:///b1/b2/b3/b4/b5/b6/b7/b8/b9/b10/b11/b12/b13/b14/b15/b16/"

// unknownName stands for the bundle's own file name, which is not known.
const unknownName = "__jstk_bundle__.json"
