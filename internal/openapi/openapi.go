// Package openapi owns OpenAPI 3.x and AsyncAPI 2.x/3.x documents as holders of schemas:
// recognising them by their root, enumerating the schemas they hold with their locations
// (component schemas; parameters, request bodies, responses and headers by operation and
// media type; message payloads and headers by channel and operation), matching the
// locations of two versions of a document, saying at each location which direction of
// compatibility breaks the API's clients, and reporting the operations, messages,
// parameters, responses and components one version has and the other lacks.
//
// A request (what clients send) that accepts less breaks existing clients: backward
// compatibility matters there. A response (what clients receive) that may hold more breaks
// them: forward compatibility matters there. A component schema matters in the directions
// of the locations that use it.
//
// It compiles the schemas of a document with the schema package (each in the dialect of its
// document, or the one its AsyncAPI schemaFormat names) but judges none of them: the diff
// package compares them location by location.
package openapi

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Document is an OpenAPI or AsyncAPI document, ready to have its schemas compiled.
type Document struct {
	// Src is the parsed document.
	Src *source.Document
	// Name is its file name, as given ("" for inline documents).
	Name string
	// Kind says what it is: its kind ("openapi", "asyncapi", "swagger"), version and
	// schema dialect.
	Kind schema.Container

	uri   string
	items []*Item
	notes []string

	mu       sync.Mutex // the compilers are not safe for concurrent use
	compiler *schema.Compiler
	opts     *schema.Options
	prepared bool
	prepErr  error
	views    map[string]*view // by the keyword a role's view leaves out of required (view.go)
}

// Recognize tells an OpenAPI, AsyncAPI or Swagger document by its root.
func Recognize(doc *source.Document) (schema.Container, bool) {
	return schema.ContainerOf(doc.Root)
}

// Open reads doc as an OpenAPI or AsyncAPI document whose schemas compile under uri (an
// absolute URI without fragment, the document's own location: references relative to it
// resolve from there) with a compiler made from opts. It returns nil when doc is not such a
// document. The document's locations are enumerated at once; nothing is compiled before
// Schema is called.
func Open(doc *source.Document, name, uri string, opts *schema.Options) *Document {
	kind, ok := Recognize(doc)
	if !ok {
		return nil
	}
	d := &Document{Src: doc, Name: name, Kind: kind, uri: uri, compiler: schema.NewCompiler(opts), opts: opts}
	e := &enumerator{d: d, root: doc.Root}
	switch kind.Kind {
	case "openapi":
		e.openapi()
	case "asyncapi":
		e.asyncapi()
	case "swagger":
		e.swagger()
	}
	sort.SliceStable(d.items, func(i, j int) bool { return d.items[i].order < d.items[j].order })
	d.usage()
	return d
}

// Items lists what the document holds: operations, parameters, bodies, responses, media
// types, headers, messages and components, in document order. Those with a Schema pointer
// are the schemas it holds.
func (d *Document) Items() []*Item { return d.items }

// Notes says what the enumeration did not follow (a reference to another file in place of
// a parameter, a response, a message...).
func (d *Document) Notes() []string { return d.notes }

// Schemas lists the items that hold a schema jstk can read (JSON Schema, in any of the
// dialects it knows).
func (d *Document) Schemas() []*Item {
	var out []*Item
	for _, it := range d.items {
		if it.Schema != "" && it.Format == "" {
			out = append(out, it)
		}
	}
	return out
}

// prepare adds the document to its compiler, with the dialects of the schemas whose
// AsyncAPI schemaFormat names another.
func (d *Document) prepare() error {
	if d.prepared {
		return d.prepErr
	}
	d.prepared = true
	d.prepErr = d.compiler.AddContainer(d.uri, d.Src, d.dialects())
	return d.prepErr
}

// dialects are the dialects of the schemas whose AsyncAPI schemaFormat names another.
func (d *Document) dialects() map[string]string {
	dialects := map[string]string{}
	for _, it := range d.items {
		if it.Dialect != "" && it.Schema != "" {
			dialects[it.Schema] = it.Dialect
		}
	}
	return dialects
}

// Schema compiles the schema at a JSON Pointer of the document (usually an Item's Schema).
// The document is the resource root: local references such as "#/components/schemas/Pet"
// resolve in it.
func (d *Document) Schema(ptr string) (*schema.Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.prepare(); err != nil {
		return nil, err
	}
	return d.compiler.CompileAt(d.uri, ptr)
}

// Files lists the other files compiling its schemas read (see schema.Compiler.Files).
func (d *Document) Files() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.compiler.Files()
}

// Check says whether ptr may name a schema of the document: it must not name the document
// itself nor one of the objects that hold its schemas ("/components/schemas", an operation,
// a response...). The error names the schemas the document holds and how to point at one.
func (d *Document) Check(ptr string) error {
	if ptr == "" {
		return d.NotASchema("")
	}
	for _, it := range d.items {
		if it.Schema != "" && strings.HasPrefix(it.Schema, ptr+"/") {
			return d.NotASchema(ptr)
		}
	}
	return nil
}

// maxListed bounds the schemas a refusal names.
const maxListed = 12

// NotASchema is the error for a document (ptr "") or one of its parts given where a schema
// is expected: it names the schemas the document holds (the first of them) and how to point
// at one.
func (d *Document) NotASchema(ptr string) error {
	name := d.Name
	if name == "" {
		name = "the document"
	}
	what := fmt.Sprintf("%s is an %s document, not a schema", name, d.Kind.Describe())
	if ptr != "" {
		what = fmt.Sprintf("%s#%s is not a schema of this %s document (it holds schemas)", name, ptr, d.Kind.Describe())
	}
	var sb strings.Builder
	sb.WriteString(what)
	schemas := d.Schemas()
	var under []*Item
	for _, it := range schemas {
		if ptr == "" || strings.HasPrefix(it.Schema, ptr+"/") {
			under = append(under, it)
		}
	}
	if len(under) == 0 {
		under = schemas
	}
	if len(under) == 0 {
		sb.WriteString("; it holds no schema")
		return &NotSchemaError{Msg: sb.String()}
	}
	file := name
	if d.Name == "" {
		file = "FILE"
	}
	example := under[0]
	for _, it := range under {
		if it.Kind == Component {
			example = it
			break
		}
	}
	fmt.Fprintf(&sb, "; name one of its %d schemas by JSON Pointer: %s#%s on the command line, or {\"path\": ..., \"pointer\": %q} over MCP. Schemas:",
		len(schemas), file, example.Schema, example.Schema)
	for i, it := range under {
		if i == maxListed {
			fmt.Fprintf(&sb, "\n  ... and %d more", len(under)-maxListed)
			break
		}
		fmt.Fprintf(&sb, "\n  #%s (%s)", it.Schema, it.Name)
	}
	if d.Kind.Kind != "swagger" {
		sb.WriteString("\n(jstk diff compares two such documents location by location.)")
	}
	return &NotSchemaError{Msg: sb.String()}
}

// NotSchemaError is a document, or a part of one, given where a schema is expected.
type NotSchemaError struct{ Msg string }

func (e *NotSchemaError) Error() string { return e.Msg }
