package schema

import (
	"strings"
	"testing"
)

func TestRefLoop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string // "" for no loop; else the error's text, with its position
	}{
		{"references in a ring", map[string]string{"s.json": `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`},
			`s.json:1:67: reference loop #/$defs/a -> #/$defs/b -> #/$defs/a: these schemas apply each other forever`},
		{"through allOf", map[string]string{"s.json": `{"$defs": {"a": {"allOf": [{"type": "object"}, {"$ref": "#/$defs/a"}]}}, "properties": {"x": {"$ref": "#/$defs/a"}}}`},
			`s.json:1:49: reference loop #/$defs/a -> #/$defs/a/allOf/1 -> #/$defs/a:`},
		{"a schema referring to itself", map[string]string{"s.json": `{"$id": "https://x.test/s", "$ref": "https://x.test/s"}`},
			`s.json:1:29: reference loop # -> #:`},
		{"across files", map[string]string{"s.json": `{"$ref": "t.json"}`, "t.json": `{"$ref": "s.json"}`},
			`t.json:1:2: reference loop s.json# -> # -> s.json#:`},
		{"recursion through the instance", map[string]string{"s.json": `{"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`}, ""},
		{"items recursion", map[string]string{"s.json": `{"type": "array", "items": {"$ref": "#"}}`}, ""},
		{"alternatives are conditional", map[string]string{"s.json": `{"anyOf": [{"type": "string"}, {"$ref": "#"}]}`}, ""},
		{"allOf beside $ref is ignored in draft 7", map[string]string{"s.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"a": {"$ref": "#/definitions/b", "allOf": [{"$ref": "#/definitions/a"}]}, "b": {"type": "string"}}, "$ref": "#/definitions/a"}`}, ""},
		{"a loop no instance reaches still compiles, and is found", map[string]string{"s.json": `{"type": "string", "$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"p": {"not": {"$ref": "#/$defs/a"}}}}`},
			`s.json:1:36: reference loop #/$defs/a -> #/$defs/a:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := compileFiles(t, tt.files, "s.json", nil)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			se := RefLoop(s)
			switch {
			case tt.want == "" && se != nil:
				t.Errorf("RefLoop = %v, want none", se)
			case tt.want != "" && se == nil:
				t.Errorf("RefLoop = nil, want %q", tt.want)
			case tt.want != "" && !strings.HasPrefix(strings.ReplaceAll(se.Error(), "/ws/", ""), tt.want):
				t.Errorf("RefLoop = %q, want it to start with %q", se.Error(), tt.want)
			}
		})
	}
}

func TestSubschemaShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kw   string
		want [5]Shape // draft 4, 6, 7, 2019-09, 2020-12
	}{
		{"properties", [5]Shape{SchemaMap, SchemaMap, SchemaMap, SchemaMap, SchemaMap}},
		{"$defs", [5]Shape{SchemaMap, SchemaMap, SchemaMap, SchemaMap, SchemaMap}},
		{"not", [5]Shape{OneSchema, OneSchema, OneSchema, OneSchema, OneSchema}},
		{"anyOf", [5]Shape{SchemaArray, SchemaArray, SchemaArray, SchemaArray, SchemaArray}},
		{"dependencies", [5]Shape{DepsMap, DepsMap, DepsMap, DepsMap, DepsMap}},
		{"contains", [5]Shape{NoSchema, OneSchema, OneSchema, OneSchema, OneSchema}},
		{"if", [5]Shape{NoSchema, NoSchema, OneSchema, OneSchema, OneSchema}},
		{"items", [5]Shape{SchemaOrArray, SchemaOrArray, SchemaOrArray, SchemaOrArray, OneSchema}},
		{"additionalItems", [5]Shape{OneSchema, OneSchema, OneSchema, OneSchema, NoSchema}},
		{"prefixItems", [5]Shape{NoSchema, NoSchema, NoSchema, NoSchema, SchemaArray}},
		{"dependentSchemas", [5]Shape{NoSchema, NoSchema, NoSchema, SchemaMap, SchemaMap}},
		{"unevaluatedItems", [5]Shape{NoSchema, NoSchema, NoSchema, OneSchema, OneSchema}},
		{"type", [5]Shape{}},
		{"$ref", [5]Shape{}},
	}
	for _, tt := range tests {
		for i, d := range Drafts {
			if got := d.SubschemaShape(tt.kw); got != tt.want[i] {
				t.Errorf("%s.SubschemaShape(%q) = %d, want %d", d.Name, tt.kw, got, tt.want[i])
			}
		}
	}
}
