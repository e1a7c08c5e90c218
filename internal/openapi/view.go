package openapi

import (
	"strings"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// OpenAPI 3.0 gives readOnly and writeOnly a meaning beyond JSON Schema: "If the property
// is marked as readOnly being true and is in the required list, the required will take
// effect on the response only", and a writeOnly one on the request only. A request schema
// is therefore read from a view of the document in which no schema requires a property
// whose schema is readOnly, a response schema from one in which none requires a writeOnly
// property. OpenAPI 3.1 leaves both keywords to JSON Schema, as annotations: its documents
// have no views.

// view is the document as one role reads it: its compiler, nil when the view is the
// document itself.
type view struct {
	compiler *schema.Compiler
	err      error
}

// SchemaAs compiles the schema at ptr as role reads it: for an OpenAPI 3.0 document, a
// request does not need the required properties that are readOnly, a response those that
// are writeOnly; otherwise (another role, another kind of document, no such property) it is
// Schema.
func (d *Document) SchemaAs(ptr string, role Role) (*schema.Schema, error) {
	flag := viewFlag(d, role)
	if flag == "" {
		return d.Schema(ptr)
	}
	c, err := d.viewCompiler(flag)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return d.Schema(ptr)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return c.CompileAt(d.uri, ptr)
}

// viewCompiler returns the compiler of the view that leaves flag's properties out of
// required, made on first use; nil when no schema of the document requires one.
func (d *Document) viewCompiler(flag string) (*schema.Compiler, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.views[flag]; ok {
		return v.compiler, v.err
	}
	v := &view{}
	if d.views == nil {
		d.views = map[string]*view{}
	}
	d.views[flag] = v
	root, changed := rewriteRequired(d.Src.Root, d.Src.Root, flag, 0)
	if changed {
		src := source.NewDocument(d.Src.Name, d.Src.Format, d.Src.Source(), root)
		v.compiler = schema.NewCompiler(d.opts)
		v.err = v.compiler.AddContainer(d.uri, src, d.dialects())
	}
	return v.compiler, v.err
}

// viewFlag is the keyword whose required properties role does not need, or "".
func viewFlag(d *Document, role Role) string {
	if d.Kind.Kind != "openapi" || d.Kind.Dialect != schema.OpenAPI30.URL {
		return ""
	}
	switch role {
	case Request:
		return "readOnly"
	case Response:
		return "writeOnly"
	}
	return ""
}

// maxRewriteDepth bounds the rewrite's recursion (documents are parsed within a depth
// limit; this one guards values built otherwise).
const maxRewriteDepth = 10000

// rewriteRequired drops from every "required" list the properties whose schema (in the
// same object's "properties", through local references) has flag: true. It reports
// whether anything changed; unchanged parts are shared.
func rewriteRequired(root, v source.Value, flag string, depth int) (source.Value, bool) {
	if depth > maxRewriteDepth {
		return v, false
	}
	changed := false
	switch v.Kind() {
	case source.Array:
		var items []source.Value
		for i, it := range v.Items() {
			nv, ch := rewriteRequired(root, it, flag, depth+1)
			if ch && items == nil {
				items = append([]source.Value(nil), v.Items()...)
			}
			if items != nil {
				items[i] = nv
			}
			changed = changed || ch
		}
		if changed {
			v = source.ArrayValue(items...).WithOffset(v.Offset())
		}
	case source.Object:
		for i := 0; i < v.Len(); i++ {
			_, mv := v.Member(i)
			if nv, ch := rewriteRequired(root, mv, flag, depth+1); ch {
				v, changed = v.WithMember(i, nv), true
			}
		}
		req, ok1 := v.Get("required")
		props, ok2 := v.Get("properties")
		if !ok1 || !ok2 || req.Kind() != source.Array || props.Kind() != source.Object {
			break
		}
		var kept []source.Value
		dropped := false
		for _, r := range req.Items() {
			if r.Kind() == source.String && flagged(root, props, r.Str(), flag) {
				dropped = true
				continue
			}
			kept = append(kept, r)
		}
		if !dropped {
			break
		}
		for i := 0; i < v.Len(); i++ {
			if v.Key(i) != "required" {
				continue
			}
			if len(kept) == 0 {
				v = v.WithoutMember(i)
			} else {
				v = v.WithMember(i, source.ArrayValue(kept...).WithOffset(req.Offset()))
			}
			break
		}
		changed = true
	}
	return v, changed
}

// flagged reports whether the property's schema, or the schema its local references lead
// to, has flag: true.
func flagged(root, props source.Value, name, flag string) bool {
	pv, ok := props.Get(name)
	for range maxHops {
		if !ok || pv.Kind() != source.Object {
			return false
		}
		if f, has := pv.Get(flag); has && f.Kind() == source.Bool && f.Bool() {
			return true
		}
		rv, has := pv.Get("$ref")
		if !has || rv.Kind() != source.String || !strings.HasPrefix(rv.Str(), "#/") {
			return false
		}
		pv, ok = root.Pointer(unescapeFragment(rv.Str()[1:]))
	}
	return false
}
