package tools

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// schemaFor derives a JSON Schema (2020-12) from a Go type, for a tool's input or output.
// The root is an object schema. Every tools/list pays for these bytes, so they are lean:
//
//   - Every property has a type, so clients that sanitise schemas keep it (MCP Inspector
//     --strict); a free-form JSON value (a document, an example) is an anyOf of the six
//     JSON types.
//   - A struct type used more than once, or that contains itself, is defined once in
//     $defs and referred to with $ref; so is the free-form value when used more than once.
//   - An input property carries its description; an output schema carries none (the
//     tool's description says what the result means), no additionalProperties: false,
//     and describes members only down to outputDepth levels of objects: deeper objects
//     are {"type": "object"}, deeper arrays {"type": "array"}.
//
// Struct field tags: `json` names the property (omitempty makes it optional), `brief` is its
// description for a model ("-": none, the name says it; else `desc`, which the CLI's help
// prints), `enum` a comma-separated list of allowed strings, `min`/`max` bounds of a
// number, `default` its default (as JSON).
func schemaFor(t reflect.Type, output bool) json.RawMessage {
	g := &schemaGen{output: output, uses: map[reflect.Type]int{}, recursive: map[reflect.Type]bool{}, defs: map[string]any{}}
	g.count(deref(t), 0, map[reflect.Type]bool{})
	if g.uses[docType] > 0 && g.uses[plainDocType] > 0 {
		// one definition serves both: the tool refuses a pointer where it takes none
		g.uses[docType] += g.uses[plainDocType]
		g.uses[plainDocType] = 0
	}
	root := g.gen(t, 0, true)
	if len(g.defs) > 0 {
		root["$defs"] = g.defs
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic("tools: schema of " + t.String() + ": " + err.Error())
	}
	return b
}

// outputDepth is how many levels of objects an output schema describes member by member.
const outputDepth = 1

type schemaGen struct {
	output    bool
	uses      map[reflect.Type]int // how often a struct type (or anyType) is reached
	recursive map[reflect.Type]bool
	defs      map[string]any
}

var (
	rawMessageType = reflect.TypeOf(json.RawMessage(nil))
	docType        = reflect.TypeOf(Doc{})
	// plainDocType stands for a document argument that takes no pointer (a field tagged
	// `pointer:"-"`).
	plainDocType  = reflect.TypeFor[plainDoc]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	// anyType stands for a free-form JSON value in the use counts.
	anyType = reflect.TypeFor[*any]()
)

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// plainDoc is the type of a document argument without pointer, in schemas only.
type plainDoc Doc

// fieldType is the type a field is described as: a document argument tagged
// `pointer:"-"` takes no pointer.
func fieldType(f reflect.StructField) reflect.Type {
	if f.Tag.Get("pointer") != "-" {
		return f.Type
	}
	switch {
	case f.Type == docType:
		return plainDocType
	case f.Type.Kind() == reflect.Slice && f.Type.Elem() == docType:
		return reflect.SliceOf(plainDocType)
	}
	return f.Type
}

// freeForm reports whether values of t are any JSON value.
func freeForm(t reflect.Type) bool {
	return t == rawMessageType || t.Kind() == reflect.Interface ||
		(t != docType && t != plainDocType && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)))
}

// fields are the exported fields of a struct type that the schema describes; those of an
// embedded struct without a JSON name are its own, as encoding/json writes them.
func (g *schemaGen) fields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && deref(f.Type).Kind() == reflect.Struct {
			out = append(out, g.fields(deref(f.Type))...)
			continue
		}
		if !f.IsExported() || name == "-" || f.Tag.Get("cli") == "only" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// count counts the uses of struct types (and of free-form values) where the schema
// describes them, and marks the types reachable from themselves.
func (g *schemaGen) count(t reflect.Type, depth int, onPath map[reflect.Type]bool) {
	t = deref(t)
	switch {
	case freeForm(t):
		g.uses[anyType]++
		return
	case t == docType || t == plainDocType:
		g.uses[t]++
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		if !g.output || depth <= outputDepth {
			g.count(t.Elem(), depth, onPath)
		}
	case reflect.Struct:
		if g.output && depth >= outputDepth && depth > 0 {
			return // {"type": "object"}
		}
		g.uses[t]++
		if onPath[t] {
			g.recursive[t] = true
			return
		}
		if g.uses[t] > 1 {
			return // counted inside already
		}
		onPath[t] = true
		for _, f := range g.fields(t) {
			g.count(fieldType(f), depth+1, onPath)
		}
		delete(onPath, t)
	}
}

// anySchema accepts any JSON value, with a type in every branch.
func anySchema() map[string]any {
	var branches []any
	for _, t := range []string{"object", "array", "string", "number", "boolean", "null"} {
		branches = append(branches, map[string]any{"type": t})
	}
	return map[string]any{"anyOf": branches}
}

// define returns a $ref to the definition name, made by make on first use.
func (g *schemaGen) define(name string, make func() map[string]any) map[string]any {
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = true // placeholder against infinite recursion
		g.defs[name] = make()
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

func (g *schemaGen) gen(t reflect.Type, depth int, root bool) map[string]any {
	t = deref(t)
	if freeForm(t) {
		if g.uses[anyType] > 1 {
			return g.define("json", anySchema)
		}
		return anySchema()
	}
	if t == plainDocType && g.uses[docType] > 0 {
		t = docType
	}
	if t == docType || t == plainDocType {
		name, make := "doc", func() map[string]any { return docSchema(t == docType) }
		if t == plainDocType {
			name = "plainDoc"
		}
		if g.uses[t] > 1 {
			return g.define(name, make)
		}
		return make()
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
		if g.output && depth >= outputDepth {
			return map[string]any{"type": "array"}
		}
		return map[string]any{"type": "array", "items": g.gen(t.Elem(), depth, false)}
	case reflect.Map:
		if g.output && depth > outputDepth {
			return map[string]any{"type": "object"}
		}
		return map[string]any{"type": "object", "additionalProperties": g.gen(t.Elem(), depth, false)}
	case reflect.Struct:
		if g.output && depth >= outputDepth && !root {
			return map[string]any{"type": "object"}
		}
		if !root && (g.recursive[t] || g.uses[t] > 1) {
			return g.define(defName(t), func() map[string]any { return g.object(t, depth) })
		}
		return g.object(t, depth)
	}
	panic("tools: no JSON Schema for Go type " + t.String())
}

// defName names a struct type's definition: its name, with its package's when the bare
// name is taken by another type of the same schema.
func defName(t reflect.Type) string {
	name := t.Name()
	if name == "" {
		name = "object"
	}
	return strings.ToLower(name[:1]) + name[1:]
}

func (g *schemaGen) object(t reflect.Type, depth int) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range g.fields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		p := g.gen(fieldType(f), depth+1, false)
		d := f.Tag.Get("brief")
		if d == "" {
			d = f.Tag.Get("desc")
		}
		if d != "" && d != "-" && !g.output {
			if _, isRef := p["$ref"]; isRef {
				p = map[string]any{"$ref": p["$ref"], "description": d}
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
				if b == "min" && n == 0 && !g.output {
					continue // a count is not negative: the provider says so when one is (checkBounds)
				}
				p[map[string]string{"min": "minimum", "max": "maximum"}[b]] = n
			}
		}
		if d := f.Tag.Get("default"); d != "" && !g.output {
			p["default"] = json.RawMessage(d)
		}
		props[name] = p
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// docSchema describes a document argument: exactly one of path, value or text, and for a
// schema that takes one, a pointer into it. What the members mean is said once, in
// docs/mcp.md; an argument that gives none or two is refused naming them.
func docSchema(pointer bool) map[string]any {
	props := map[string]any{
		"path":  map[string]any{"type": "string"},
		"value": anySchema(),
		"text":  map[string]any{"type": "string"},
	}
	if pointer {
		props["pointer"] = map[string]any{"type": "string"}
	}
	return map[string]any{"type": "object", "properties": props}
}
