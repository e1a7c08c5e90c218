package lint

import (
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// FuzzFixKeepsVerdict: for any schema that compiles, the fixed schema (every rule on) still
// compiles and gives the same verdict as the original on the instance.
func FuzzFixKeepsVerdict(f *testing.F) {
	for _, r := range Rules() {
		f.Add(r.Bad, `{"a": 1}`)
		f.Add(r.Good, `"x"`)
	}
	f.Add(`{"anyOf": [{"type": "string"}, {}], "enum": ["a", "a", 1]}`, `"a"`)
	f.Add(`{"$schema": "http://json-schema.org/draft-04/schema#", "type": ["integer"], "minimum": 1.5, "exclusiveMinimum": true}`, `2`)
	f.Add(`{"$schema": "http://json-schema.org/draft-07/schema#", "items": {"not": {"not": {"not": {"type": "string"}}}}}`, `[1, "a"]`)
	f.Add(`{"$schema": "http://json-schema.org/draft-07/schema#", "minimum": 2, "not": {"not": {"not": {"not": {"maximum": 3}}}}}`, `3`)
	loader := &schema.Loader{FS: workspace.Memory(nil)}
	r := allRulesRunner(loader, workspace.Memory(nil), nil)
	const uri = "file:///ws/s.json"
	f.Fuzz(func(t *testing.T, schemaText, instanceText string) {
		inst, err := source.ParseJSON("i.json", []byte(instanceText), nil)
		if err != nil {
			return
		}
		opts := schema.Options{Loader: loader}
		orig, err := compileText(t, uri, "s.json", []byte(schemaText), opts)
		if err != nil {
			return
		}
		fl, err := r.lintText("s.json", uri, []byte(schemaText))
		if err != nil {
			t.Fatalf("a schema that compiles must lint: %v", err)
		}
		fixed, _, _ := r.fixLoop("s.json", uri, []byte(schemaText), fl, "")
		fx, err := compileText(t, uri, "s.json", fixed, opts)
		if err != nil {
			t.Fatalf("the fixed schema does not compile: %v\n%s\n->\n%s", err, schemaText, fixed)
		}
		a, ea := orig.Valid(inst.Root)
		b, eb := fx.Valid(inst.Root)
		if a != b || (ea == nil) != (eb == nil) {
			t.Fatalf("fix changed the verdict on %s: %v -> %v\n%s\n->\n%s", instanceText, a, b, schemaText, fixed)
		}
	})
}
