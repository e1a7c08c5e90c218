package schema

import (
	"fmt"
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

// InPlaceLoop marks exactly the schemas on a cycle of in-place applicators, whichever
// applicator closes it, and not those that only lead to one or recurse through the
// instance.
func TestInPlaceLoop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string // the pointers of the schemas of s.json on a loop, in Walk's order
	}{
		{"references in a ring", map[string]string{"s.json": `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`},
			[]string{"/$defs/a", "/$defs/b"}},
		{"itself", map[string]string{"s.json": `{"$ref": "#"}`}, []string{""}},
		{"through anyOf", map[string]string{"s.json": `{"anyOf": [{"type": "string"}, {"$ref": "#"}]}`}, []string{"", "/anyOf/1"}},
		{"through not", map[string]string{"s.json": `{"not": {"$ref": "#"}}`}, []string{"", "/not"}},
		{"through then", map[string]string{"s.json": `{"if": true, "then": {"$ref": "#"}}`}, []string{"", "/then"}},
		{"through dependentSchemas", map[string]string{"s.json": `{"dependentSchemas": {"a": {"$ref": "#"}}}`}, []string{"", "/dependentSchemas/a"}},
		{"through a dynamic reference's static target", map[string]string{"s.json": `{"$dynamicAnchor": "m", "oneOf": [{"$dynamicRef": "#m"}]}`}, []string{"", "/oneOf/0"}},
		{"across files", map[string]string{"s.json": `{"allOf": [{"$ref": "t.json"}]}`, "t.json": `{"$ref": "s.json"}`}, []string{"", "/allOf/0"}},
		{"leading to a loop is not being on it", map[string]string{"s.json": `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}`}, []string{"/$defs/a"}},
		{"recursion through the instance", map[string]string{"s.json": `{"type": "array", "items": {"$ref": "#"}, "properties": {"n": {"$ref": "#"}}}`}, nil},
		{"two references to one schema", map[string]string{"s.json": `{"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}], "$defs": {"a": {"type": "string"}}}`}, nil},
		{"allOf beside $ref is ignored in draft 7", map[string]string{"s.json": `{"$schema": "http://json-schema.org/draft-07/schema#",
			"definitions": {"a": {"$ref": "#/definitions/b", "allOf": [{"$ref": "#/definitions/a"}]}, "b": {"type": "string"}}, "$ref": "#/definitions/a"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markedPointers(t, tt.files, (*Schema).InPlaceLoop)
			if strings.Join(got, " ") != strings.Join(tt.want, " ") || len(got) != len(tt.want) {
				t.Errorf("on a loop: %q, want %q", got, tt.want)
			}
		})
	}
}

// ReachesInPlaceLoop marks the schemas on a loop and those leading to one through in-place
// applicators, in the same file or across files, and not those that reach one only
// through the instance (items, properties).
func TestReachesInPlaceLoop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string // the pointers of the schemas of s.json reaching a loop, in Walk's order
	}{
		{"leading to a loop", map[string]string{"s.json": `{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}, "b": {"type": "string"}}}`},
			[]string{"", "/$defs/a"}},
		{"one branch of anyOf", map[string]string{"s.json": `{"anyOf": [{"type": "string"}, {"$ref": "#"}]}`}, []string{"", "/anyOf/1"}},
		{"across files, through a branch", map[string]string{"s.json": `{"oneOf": [{"$ref": "t.json"}, {"type": "string"}]}`,
			"t.json": `{"$ref": "#/$defs/x", "$defs": {"x": {"not": {"$ref": "#/$defs/x"}}}}`}, []string{"", "/oneOf/0"}},
		{"only through the instance", map[string]string{"s.json": `{"items": {"$ref": "#/$defs/a"}, "properties": {"p": {"$ref": "#/$defs/a"}},
			"$defs": {"a": {"$ref": "#/$defs/a"}}}`}, []string{"/properties/p", "/$defs/a", "/items"}},
		{"no loop", map[string]string{"s.json": `{"type": "array", "items": {"$ref": "#"}, "allOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"if": true, "then": true}}}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markedPointers(t, tt.files, func(s *Schema) bool {
				if s.InPlaceLoop() && !s.ReachesInPlaceLoop() {
					t.Errorf("%s is on a loop but does not reach one", s.Location())
				}
				return s.ReachesInPlaceLoop()
			})
			if strings.Join(got, " ") != strings.Join(tt.want, " ") || len(got) != len(tt.want) {
				t.Errorf("reaching a loop: %q, want %q", got, tt.want)
			}
		})
	}
}

// markedPointers compiles s.json among files and lists, in Walk's order, the pointers of
// its schemas that marked reports.
func markedPointers(t *testing.T, files map[string]string, marked func(*Schema) bool) []string {
	t.Helper()
	root, err := compileFiles(t, files, "s.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(root, func(s *Schema) bool {
		if marked(s) && s.doc == root.doc {
			got = append(got, s.at.String())
		}
		return true
	})
	return got
}

// A chain of 20,000 references (markLoops walks it without recursion) has no loop until its end
// refers to its start.
func TestInPlaceLoopLongChain(t *testing.T) {
	const n = 20000
	for _, closed := range []bool{false, true} {
		var b strings.Builder
		b.WriteString(`{"$ref": "#/$defs/d0", "$defs": {`)
		for i := 0; i < n; i++ {
			next := fmt.Sprintf(`"#/$defs/d%d"`, i+1)
			if i == n-1 {
				next = `"#/$defs/end"`
			}
			fmt.Fprintf(&b, `"d%d": {"$ref": %s}, `, i, next)
		}
		end := `{"type": "string"}`
		if closed {
			end = `{"$ref": "#/$defs/d0"}`
		}
		b.WriteString(`"end": ` + end + `}}`)
		root, err := compileFiles(t, map[string]string{"s.json": b.String()}, "s.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		loops, reach := 0, 0
		Walk(root, func(s *Schema) bool {
			if s.InPlaceLoop() {
				loops++
			}
			if s.ReachesInPlaceLoop() {
				reach++
			}
			return true
		})
		if want := map[bool]int{false: 0, true: n + 1}[closed]; loops != want {
			t.Errorf("closed %v: %d schemas on a loop, want %d", closed, loops, want)
		}
		// the root leads into the ring, and every schema of the ring is on it
		if want := map[bool]int{false: 0, true: n + 2}[closed]; reach != want {
			t.Errorf("closed %v: %d schemas reach a loop, want %d", closed, reach, want)
		}
	}
}

// The built-in meta-schemas are compiled by one process-wide compiler, on first use of a
// draft, while other goroutines may be validating schemas against meta-schemas it compiled
// before: what that compiler writes as it compiles must not be what evaluation reads
// (-race found its dynamic flag written by a new draft's compilation and read by the
// meta-validation of a draft-04 schema).
func TestBuiltinMetaConcurrent(t *testing.T) {
	builtinMu.Lock()
	builtinCache, builtinComp = map[string]*Schema{}, nil
	builtinMu.Unlock()
	text := `{"$schema": "http://json-schema.org/draft-04/schema#", "anyOf": [{"oneOf": [{"type": ["string", "null"]},
		{"items": {"items": {"items": {"type": ["string", "null"]}}}}]}], "properties": {"a": {"$ref": "#"}}}`
	if _, err := compileFiles(t, map[string]string{"s.json": text}, "s.json", nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var err error
		for _, d := range []*Draft{Draft2019, Draft2020, Draft7, Draft6} {
			if _, e := builtinMeta(d.URL); e != nil {
				err = e
			}
		}
		done <- err
	}()
	for i := 0; i < 50; i++ {
		if _, err := compileFiles(t, map[string]string{"s.json": text}, "s.json", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
