package openapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Kind is what an item of a document is.
type Kind string

// The kinds of items.
const (
	Operation    Kind = "operation"         // an HTTP operation, an AsyncAPI operation (2.x: a channel's publish or subscribe)
	Parameter    Kind = "parameter"         // an operation's parameter (its schema, or one per media type)
	RequestBody  Kind = "request-body"      // an operation's request body
	StatusCode   Kind = "response"          // an operation's response, by status code
	MediaType    Kind = "media-type"        // a body's or a parameter's content of one media type (holds the schema)
	Header       Kind = "header"            // a response header
	Message      Kind = "message"           // an AsyncAPI operation's message
	Payload      Kind = "payload"           // a message's payload
	Headers      Kind = "headers"           // a message's headers
	Component    Kind = "component"         // a schema of components/schemas (or Swagger's definitions)
	ComponentMsg Kind = "component-message" // a message of components/messages (AsyncAPI)
)

// Role says who sends what a schema describes.
type Role string

// The roles.
const (
	// Request: the API's clients send it; a change that accepts less breaks them (backward).
	Request Role = "request"
	// Response: the API sends it to its clients; a change that may send more breaks them
	// (forward).
	Response Role = "response"
	// Shared: a component, which matters where it is used.
	Shared Role = "component"
)

// Item is one thing a document holds.
type Item struct {
	// Kind is what it is.
	Kind Kind `json:"kind"`
	// Key identifies it across versions of the document (path parameters' names do not
	// matter, media types and header names are compared in lower case).
	Key string `json:"key"`
	// Name is how people call it: "GET /pets/{id} response 200 application/json".
	Name string `json:"name"`
	// Parent is the key of the item it belongs to ("" for operations and components).
	Parent string `json:"parent,omitempty"`
	// Pointer is where it is in the document (after following local references).
	Pointer string `json:"pointer"`
	// Schema is the JSON Pointer of its schema, when it holds one.
	Schema string `json:"schema,omitempty"`
	// Role says who sends it (request, response) or that it is a shared component.
	Role Role `json:"role"`
	// Required is set for a required parameter, request body or header.
	Required bool `json:"required,omitempty"`
	// Status is a response's status code as written ("200", "2XX", "default").
	Status string `json:"status,omitempty"`
	// Dialect is the URI of the dialect its schema is read in, when not the document's (an
	// AsyncAPI schemaFormat).
	Dialect string `json:"dialect,omitempty"`
	// Format is the schemaFormat of a schema jstk does not read (Avro, RAML, Protobuf...): it
	// is listed, never compared.
	Format string `json:"format,omitempty"`
	// Uses says, for a component, which roles use it: "request", "response", both, or none.
	Uses []Role `json:"uses,omitempty"`

	order int
}

// Direction is the direction of compatibility that matters for the item's schema: backward
// for a request, forward for a response, both ("full") for a component used by both, one of
// them for a component used by one, "" for a component nothing uses.
func (it *Item) Direction() string {
	switch it.Role {
	case Request:
		return "backward"
	case Response:
		return "forward"
	}
	req, resp := false, false
	for _, u := range it.Uses {
		req = req || u == Request
		resp = resp || u == Response
	}
	switch {
	case req && resp:
		return "full"
	case req:
		return "backward"
	case resp:
		return "forward"
	}
	return ""
}

// enumerator walks a document and records its items.
type enumerator struct {
	d    *Document
	root source.Value
}

func (e *enumerator) add(it *Item) *Item {
	it.order = len(e.d.items)
	e.d.items = append(e.d.items, it)
	return it
}

func (e *enumerator) note(format string, args ...any) {
	const maxNotes = 50
	if len(e.d.notes) < maxNotes {
		e.d.notes = append(e.d.notes, fmt.Sprintf(format, args...))
	}
}

// maxHops bounds a chain of Reference Objects.
const maxHops = 32

// deref follows the local Reference Objects ({"$ref": "#/..."}) at ptr. ok is false when
// the chain leaves the document, loops or is broken (and a note says so).
func (e *enumerator) deref(ptr string, v source.Value) (string, source.Value, bool) {
	for range maxHops {
		if v.Kind() != source.Object {
			return ptr, v, true
		}
		rv, has := v.Get("$ref")
		if !has || rv.Kind() != source.String {
			return ptr, v, true
		}
		ref := rv.Str()
		if !strings.HasPrefix(ref, "#") {
			e.note("%s: the reference %q to another document is not followed", ptr, ref)
			return ptr, v, false
		}
		target := unescapeFragment(ref[1:])
		nv, ok := e.root.Pointer(target)
		if !ok {
			e.note("%s: the reference %q leads nowhere", ptr, ref)
			return ptr, v, false
		}
		ptr, v = target, nv
	}
	e.note("%s: a chain of more than %d references", ptr, maxHops)
	return ptr, v, false
}

// unescapeFragment percent-decodes a URI fragment ("/paths/~1pets%7Bid%7D").
func unescapeFragment(f string) string {
	if !strings.Contains(f, "%") {
		return f
	}
	var sb strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] == '%' && i+2 < len(f) {
			if n, err := strconv.ParseUint(f[i+1:i+3], 16, 8); err == nil {
				sb.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		sb.WriteByte(f[i])
	}
	return sb.String()
}

// members calls fn for each member of the object at ptr whose name does not start with
// "x-" (specification extensions).
func members(ptr string, v source.Value, fn func(name, ptr string, v source.Value)) {
	if v.Kind() != source.Object {
		return
	}
	for i := 0; i < v.Len(); i++ {
		k, val := v.Member(i)
		if strings.HasPrefix(k.Str(), "x-") {
			continue
		}
		fn(k.Str(), ptr+"/"+source.EscapeToken(k.Str()), val)
	}
}

func flag(v source.Value, name string) bool {
	f, ok := v.Get(name)
	return ok && f.Kind() == source.Bool && f.Bool()
}

func str(v source.Value, name string) string {
	f, ok := v.Get(name)
	if !ok || f.Kind() != source.String {
		return ""
	}
	return f.Str()
}

// components records the schemas of a components object (or Swagger's definitions).
func (e *enumerator) components(ptr string, v source.Value, kind string) {
	members(ptr, v, func(name, p string, sv source.Value) {
		it := &Item{Kind: Component, Key: "component schema " + name, Name: kind + " " + name, Pointer: p, Schema: p, Role: Shared}
		if e.d.Kind.Kind == "asyncapi" {
			e.multiFormat(it, p, sv, "")
		}
		e.add(it)
	})
}

// multiFormat reads an AsyncAPI 3 Multi Format Schema Object ({schemaFormat, schema}) in
// place of a schema, and a schemaFormat given beside (AsyncAPI 2 messages).
func (e *enumerator) multiFormat(it *Item, ptr string, v source.Value, format string) {
	if v.Kind() == source.Object {
		if f, ok := v.Get("schemaFormat"); ok && f.Kind() == source.String {
			if _, ok := v.Get("schema"); ok {
				format = f.Str()
				it.Schema = ptr + "/schema"
			}
		}
	}
	if format == "" {
		return
	}
	dialect, ok := dialectOfFormat(format)
	switch {
	case !ok:
		it.Format = format
	case dialect != "":
		it.Dialect = dialect
	}
}

// dialectOfFormat maps an AsyncAPI schemaFormat to a dialect URI ("" for the AsyncAPI
// Schema Object, the document's own); ok is false for formats that are not JSON Schema.
func dialectOfFormat(format string) (string, bool) {
	f := strings.ToLower(strings.ReplaceAll(format, " ", ""))
	mime, params, _ := strings.Cut(f, ";")
	version := ""
	for _, p := range strings.Split(params, ";") {
		if v, ok := strings.CutPrefix(p, "version="); ok {
			version = strings.Trim(v, `"`)
		}
	}
	switch {
	case strings.HasPrefix(mime, "application/vnd.aai.asyncapi"):
		return "", true
	case strings.HasPrefix(mime, "application/vnd.oai.openapi"):
		if strings.HasPrefix(version, "3.0") || version == "" {
			return schema.OpenAPI30.URL, true
		}
		return schema.OpenAPI31Dialect, true
	case mime == "application/schema+json" || mime == "application/schema+yaml":
		if version == "" {
			return "http://json-schema.org/draft-07/schema#", true
		}
		if d, ok := schema.DraftByName(version); ok {
			return d.URL, true
		}
	}
	return "", false
}
