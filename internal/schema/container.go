package schema

import (
	"fmt"
	"strings"

	"github.com/jstk-dev/jstk/internal/source"
)

// This file reads schemas where they live inside documents that are not schemas
// themselves: OpenAPI and AsyncAPI documents, recognised by their root, and any document a
// caller names a schema in by JSON Pointer when its root is not a schema.
//
// Such a document is a container. Its root is never read as a schema, nor checked against
// a meta-schema. Each schema in it is entered when a pointer first reaches it (CompileAt, or
// a $ref into the document): it is indexed as a schema resource of its own (its $id, its
// anchors) with the document's URI as its base, so that local references such as
// "#/components/schemas/Pet" keep working, and checked against the meta-schema of its
// dialect.

// Container says what kind of document holds schemas without being one.
type Container struct {
	// Kind is "openapi", "asyncapi" or "swagger".
	Kind string
	// Version is the version the document declares ("3.0.3", "2.6.0", ...).
	Version string
	// Dialect is the URI of the dialect its schemas are read in: OpenAPI 3.0's
	// (OpenAPI30.URL), the jsonSchemaDialect of an OpenAPI 3.1 document or OpenAPI 3.1's
	// default, draft 7 for AsyncAPI (its Schema Object is a superset of draft 7), draft 4 for
	// Swagger 2.0. Empty when the version is not one jstk reads.
	Dialect string
}

// Describe names the document kind and version in words: "OpenAPI 3.0.3".
func (c Container) Describe() string {
	name := map[string]string{"openapi": "OpenAPI", "asyncapi": "AsyncAPI", "swagger": "Swagger"}[c.Kind]
	return name + " " + c.Version
}

// The dialect URIs of the OpenAPI 3.1 default dialect and of draft 7.
const (
	OpenAPI31Dialect = "https://spec.openapis.org/oas/3.1/dialect/base"
	draft7URI        = "http://json-schema.org/draft-07/schema#"
	draft4URI        = "http://json-schema.org/draft-04/schema#"
)

// ContainerOf recognises an OpenAPI 3.x, AsyncAPI 2.x/3.x or Swagger 2.0 document by its
// root: an object whose "openapi", "asyncapi" or "swagger" member is a string.
func ContainerOf(root source.Value) (Container, bool) {
	if root.Kind() != source.Object {
		return Container{}, false
	}
	for _, kind := range []string{"openapi", "asyncapi", "swagger"} {
		v, ok := root.Get(kind)
		if !ok || v.Kind() != source.String {
			continue
		}
		c := Container{Kind: kind, Version: v.Str()}
		major, minor, _ := strings.Cut(v.Str(), ".")
		minor, _, _ = strings.Cut(minor, ".")
		switch {
		case kind == "openapi" && major == "3" && minor == "0":
			c.Dialect = OpenAPI30.URL
		case kind == "openapi" && major == "3" && (minor == "1" || minor == "2"):
			c.Dialect = OpenAPI31Dialect
			if d, ok := root.Get("jsonSchemaDialect"); ok && d.Kind() == source.String {
				c.Dialect = d.Str()
			}
		case kind == "asyncapi" && (major == "2" || major == "3"):
			c.Dialect = draft7URI
		case kind == "swagger" && major == "2":
			c.Dialect = draft4URI
		}
		return c, true
	}
	return Container{}, false
}

// containerInfo is what a container document keeps.
type containerInfo struct {
	kind    Container
	known   bool                // kind was recognised from the root
	root    *resource           // the document's root, which is no schema
	dialect dialect             // of its schemas
	at      map[string]*dialect // dialects the caller gave for schemas at some pointers
}

type dialect struct {
	uri    string // as named; its meta-schema checks the schemas
	draft  *Draft
	vocabs map[string]bool
}

// AddContainer makes doc available under uri (absolute, without fragment) as a document
// that holds schemas without being one. Its schemas are read in the dialect the document
// declares (ContainerOf), else the one its root "$schema" names, else the compiler's
// default; dialects gives other dialect URIs for the schemas at some pointers (an AsyncAPI
// message's schemaFormat). Compile the schemas with CompileAt.
func (c *Compiler) AddContainer(uri string, doc *source.Document, dialects map[string]string) error {
	ct, known := ContainerOf(doc.Root)
	if !known {
		if sv, ok := doc.Root.Get("$schema"); ok && sv.Kind() == source.String {
			ct.Dialect = sv.Str()
		}
	}
	_, err := c.addContainer(uri, doc, doc.Name, ct, known, dialects)
	return err
}

func (c *Compiler) addContainer(uri string, src *source.Document, name string, ct Container, known bool, dialects map[string]string) (*document, error) {
	if d, ok := c.docs[uri]; ok {
		return d, nil
	}
	doc := &document{src: src, uri: uri, name: name, container: &containerInfo{kind: ct, known: known}}
	draft, vocabs := c.opts.Draft, map[string]bool(nil)
	switch {
	case known && ct.Dialect == "":
		return nil, c.schemaErr(doc, "/"+ct.Kind, "%s documents are not supported (jstk reads OpenAPI 3.0, 3.1 and 3.2, AsyncAPI 2.x and 3.x, and Swagger 2.0)", ct.Describe())
	case ct.Dialect != "":
		d, v, err := c.dialectOf(ct.Dialect, uri)
		if err != nil {
			at := "/$schema"
			if known {
				at = "/jsonSchemaDialect"
			}
			return nil, c.schemaErr(doc, at, "%v", err)
		}
		draft, vocabs = d, v
	}
	for ptr, u := range dialects {
		d, v, err := c.dialectOf(u, uri)
		if err != nil {
			return nil, c.schemaErr(doc, ptr, "%v", err)
		}
		if doc.container.at == nil {
			doc.container.at = map[string]*dialect{}
		}
		doc.container.at[ptr] = &dialect{u, d, v}
	}
	doc.container.dialect = dialect{ct.Dialect, draft, vocabs}
	if ct.Dialect == "" {
		doc.container.dialect.uri = draft.URL
	}
	doc.root = &loc{val: src.Root}
	doc.locs = map[locKey]*loc{}
	root := &resource{doc: doc, at: doc.root, uri: uri, draft: draft, vocabs: vocabs}
	doc.root.res = root
	doc.resources = []*resource{root}
	doc.container.root = root
	if err := c.register(uri, root); err != nil {
		return nil, err
	}
	c.docs[uri] = doc
	return doc, nil
}

// CompileAt compiles the schema at the JSON Pointer ptr ("" for the root; unescaped, as
// written in JSON: "/paths/~1pets/get") of the document at uri (absolute, without
// fragment).
func (c *Compiler) CompileAt(uri, ptr string) (*Schema, error) {
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer (it must start with \"/\")", ptr)
	}
	return c.compileFrag(uri, ptr)
}

// enterContainer makes the schema at the place at of a container document a schema
// resource: it is indexed, its resources registered, and it is checked against its
// meta-schema, once. A place at or under a schema entered before is already one. A schema
// that cannot be entered leaves no trace: a later reference to it fails the same way.
func (c *Compiler) enterContainer(doc *document, at *loc) error {
	ci := doc.container
	for x := at; x != nil; x = x.parent {
		if x.res != nil && x.res != ci.root {
			return nil // the resource of a schema entered before
		}
	}
	if at == doc.root && ci.known {
		return c.schemaErr(doc, "", "this %s document is not a schema: name a schema inside it by JSON Pointer (%s#/components/schemas/NAME, for instance)",
			ci.kind.Describe(), doc.displayName())
	}
	ptr := at.String()
	v := at.val
	dl := ci.dialect
	if d, ok := ci.at[ptr]; ok {
		dl = *d
	}
	if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String && dl.draft.Version >= 2019 {
		d, vv, err := c.dialectOf(sv.Str(), doc.uri)
		if err != nil {
			return c.schemaErr(doc, ptr+"/$schema", "%v", err)
		}
		dl = dialect{sv.Str(), d, vv}
		if u, _, err := ResolveURI(doc.uri, sv.Str()); err == nil {
			dl.uri = u
		}
	}
	draft, vocabs := dl.draft, dl.vocabs
	res := &resource{doc: doc, at: at, uri: doc.uri, draft: draft, vocabs: vocabs}
	before := len(doc.resources)
	doc.resources = append(doc.resources, res)
	prev := at.res // the container's root resource, when at is the document's root
	at.res = res
	var registered []*resource
	undo := func() {
		for _, r := range registered {
			if c.res[r.uri] == r {
				delete(c.res, r.uri)
			}
		}
		for _, r := range doc.resources[before:] {
			r.at.res = nil
		}
		at.res = prev
		clear(doc.resources[before:])
		doc.resources = doc.resources[:before]
	}
	if err := c.indexFrom(doc, res); err != nil {
		undo()
		return err
	}
	for _, r := range doc.resources[before:] {
		if r.uri == doc.uri {
			continue // the document's own URI stays with its root
		}
		if err := c.register(r.uri, r); err != nil {
			undo()
			return err
		}
		registered = append(registered, r)
	}
	if !c.opts.NoMetaValidation {
		metaURI := strings.TrimSuffix(dl.uri, "#")
		meta, err := c.metaSchema(metaURI)
		if err != nil {
			undo()
			return c.schemaErr(doc, ptr, "cannot load meta-schema %s: %v", metaURI, err)
		}
		errs, err := meta.Validate(v)
		if err != nil {
			undo()
			return c.schemaErr(doc, ptr, "checking against meta-schema %s: %v", metaURI, err)
		}
		if len(errs) > 0 {
			undo()
			for i := range errs {
				prefixLocations(&errs[i], ptr)
			}
			locate(errs, doc.src)
			e := c.schemaErrAt(doc, errs[0].InstanceLocation, "not a valid %s schema: %d violation(s) of the meta-schema %s",
				draft.Name, len(errs), metaURI)
			e.Causes = errs
			return e
		}
	}
	// Its dynamic anchors are for finish to compile, as a loaded document's are.
	c.unfinished = append(c.unfinished, doc.resources[before:]...)
	return nil
}

func (d *document) displayName() string {
	if d.name != "" {
		return d.name
	}
	return d.uri
}

// Nullable reports whether s is an OpenAPI 3.0 schema whose `nullable: true` stands beside
// "type", adding null to the types it names.
func (s *Schema) Nullable() bool {
	if !s.Draft.oas30 || s.always != alwaysNone || s.hasRef {
		return false
	}
	if _, ok := s.val.Get("type"); !ok {
		return false
	}
	return s.nullable()
}

func (s *Schema) nullable() bool {
	v, ok := s.val.Get("nullable")
	return ok && v.Kind() == source.Bool && v.Bool()
}

// IsOpenAPI30 reports whether the draft is OpenAPI 3.0's schema dialect.
func (d *Draft) IsOpenAPI30() bool { return d.oas30 }
