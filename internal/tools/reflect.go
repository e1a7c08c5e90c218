package tools

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// schemaFor derives a JSON Schema (2020-12) from a Go type, for a tool's input or output.
// The root is an object schema; struct types that contain themselves are defined once in
// $defs and referred to with $ref.
//
// Struct field tags: `json` names the property (omitempty makes it optional), `desc` is its
// description, `enum` a comma-separated list of allowed strings, `min`/`max` bounds of a
// number, `default` its default (as JSON).
func schemaFor(t reflect.Type) json.RawMessage {
	g := &schemaGen{recursive: map[reflect.Type]bool{}, defs: map[string]any{}}
	g.findRecursive(t, map[reflect.Type]bool{})
	root := g.gen(t, true)
	if len(g.defs) > 0 {
		root["$defs"] = g.defs
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic("tools: schema of " + t.String() + ": " + err.Error())
	}
	return b
}

type schemaGen struct {
	recursive map[reflect.Type]bool
	defs      map[string]any
}

var (
	rawMessageType = reflect.TypeOf(json.RawMessage(nil))
	docType        = reflect.TypeOf(Doc{})
)

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// findRecursive marks struct types reachable from themselves.
func (g *schemaGen) findRecursive(t reflect.Type, onPath map[reflect.Type]bool) {
	t = deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		g.findRecursive(t.Elem(), onPath)
	case reflect.Struct:
		if onPath[t] {
			g.recursive[t] = true
			return
		}
		onPath[t] = true
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				g.findRecursive(f.Type, onPath)
			}
		}
		delete(onPath, t)
	}
}

func (g *schemaGen) gen(t reflect.Type, root bool) map[string]any {
	t = deref(t)
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return map[string]any{}
	}
	if t == docType {
		return docSchema()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": g.gen(t.Elem(), false)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.gen(t.Elem(), false)}
	case reflect.Struct:
		if g.recursive[t] && !root {
			name := t.Name()
			if _, ok := g.defs[name]; !ok {
				g.defs[name] = true // placeholder against infinite recursion
				g.defs[name] = g.object(t)
			}
			return map[string]any{"$ref": "#/$defs/" + name}
		}
		return g.object(t)
	}
	panic("tools: no JSON Schema for Go type " + t.String())
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || f.Tag.Get("cli") == "only" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := g.gen(f.Type, false)
		if d := f.Tag.Get("desc"); d != "" {
			if _, isRef := p["$ref"]; isRef {
				p = map[string]any{"allOf": []any{p}, "description": d}
			} else {
				p["description"] = d
			}
		}
		if e := f.Tag.Get("enum"); e != "" {
			p["enum"] = strings.Split(e, ",")
		}
		for _, b := range []string{"min", "max"} {
			if v := f.Tag.Get(b); v != "" {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					panic("tools: bad " + b + " tag on " + t.Name() + "." + f.Name)
				}
				p[map[string]string{"min": "minimum", "max": "maximum"}[b]] = n
			}
		}
		if d := f.Tag.Get("default"); d != "" {
			p["default"] = json.RawMessage(d)
		}
		props[name] = p
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// docSchema describes a document argument: exactly one of path, value or text.
func docSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"description": "A JSON or YAML document: give exactly one of path (a file of the workspace), " +
			"value (the document itself as a JSON value) or text (the document as JSON or YAML text). " +
			"Where a schema is expected, pointer may name a schema inside the document (an OpenAPI or " +
			"AsyncAPI document, a definitions file, any JSON or YAML file).",
		"properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "File path relative to the workspace root."},
			"value": map[string]any{"description": "The document as a JSON value."},
			"text":  map[string]any{"type": "string", "description": "The document as JSON or YAML text."},
			"pointer": map[string]any{"type": "string", "pattern": "^/", "description": "For a schema argument: a JSON Pointer " +
				"to the schema inside the document, e.g. /components/schemas/Pet (the document stays the base of its " +
				"references). An OpenAPI or AsyncAPI document needs one, except as both old and new of diff."},
		},
		"minProperties":        1,
		"maxProperties":        2,
		"additionalProperties": false,
	}
}
