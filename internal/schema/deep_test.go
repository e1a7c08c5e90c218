package schema

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// lowStack lowers the goroutine stack limit for the rest of the test, so that a recursion
// bounded only by the input fails fast instead of taking a gigabyte first.
func lowStack(t *testing.T, mb int) {
	t.Helper()
	old := debug.SetMaxStack(mb << 20)
	t.Cleanup(func() { debug.SetMaxStack(old) })
}

// chain returns a schema whose $defs chain hops $ref hops, each wrapped in nots not keywords.
func chain(hops, nots int) string {
	var sb strings.Builder
	sb.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
	for i := range hops {
		fmt.Fprintf(&sb, `"a%d":%s{"$ref":"#/$defs/a%d"}%s,`, i, strings.Repeat(`{"not":`, nots), i+1, strings.Repeat("}", nots))
	}
	fmt.Fprintf(&sb, `"a%d":{}}}`, hops)
	return sb.String()
}

// TestCompileLongChains compiles reference chains that once took the compiler (and Walk,
// RefLoop) through a level of recursion, about 1 KB of stack, per hop: with the stack
// limited to 8 MB they compile. Evaluation, which counts its nesting, stops at its limit
// (MaxEvalDepth, lowered here to 5,000 levels, which take about 5 MB of stack) with an
// error.
func TestCompileLongChains(t *testing.T) {
	defer func(d int) { evalDepthLimit = d }(evalDepthLimit)
	evalDepthLimit = 5000
	tests := []struct {
		name       string
		hops, nots int
		want       string
	}{
		{"plain", 20_000, 0, "$ref chain too deep: evaluation nested deeper than 5000 levels"},
		{"through nots", 400, 50, "$ref chain too deep: evaluation nested deeper than 5000 levels"},
		{"short", 1000, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lowStack(t, 8)
			s, err := compileFiles(t, map[string]string{"s.json": chain(tc.hops, tc.nots)}, "s.json", nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			Walk(s, func(*Schema) bool { n++; return true })
			if want := tc.hops*(tc.nots+1) + 2; n != want {
				t.Errorf("Walk visited %d schemas, want %d", n, want)
			}
			if l := RefLoop(s); l != nil {
				t.Errorf("RefLoop: %v", l)
			}
			errs, err := s.Validate(source.NullValue())
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate: %v, %v; want an error with %q", errs, err, tc.want)
			case tc.want != "" && len(err.Error()) > 1000:
				t.Errorf("the error is %d bytes long", len(err.Error()))
			}
		})
	}
}

// TestCompileDeepNesting compiles a schema of 9,990 nested items (as deep as the parsers
// accept by default): its meta-validation goes 40,000 evaluations deep. The locations of
// its schemas take memory linear in its size (they once took 960 MB: a pointer string of
// each schema).
func TestCompileDeepNesting(t *testing.T) {
	lowStack(t, 64)
	const n = 9990
	text := strings.Repeat(`{"items":`, n) + `{"type":"string"}` + strings.Repeat("}", n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := compileFiles(t, map[string]string{"s.json": text}, "s.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("compiling allocated %d MB", alloc>>20)
	}
	deepest := s
	for deepest.items != nil {
		deepest = deepest.items
	}
	if _, ptr := deepest.Pointer(); ptr != strings.Repeat("/items", n) {
		t.Errorf("the deepest schema's pointer is %.40q... (%d bytes)", ptr, len(ptr))
	}
	// A file without $id is named by its name (Loader.Display), never by its file:// URI.
	if got, want := deepest.Location(), "s.json#"+strings.Repeat("/items", n); got != want {
		t.Errorf("the deepest schema's location is %.60q...", got)
	}
	if line, col := deepest.Position("type"); line != 1 || col != 9*n+2 {
		t.Errorf("Position(type) = %d:%d, want 1:%d", line, col, 9*n+2)
	}
	inst := strings.Repeat("[", n) + "1" + strings.Repeat("]", n)
	doc, err := source.ParseJSON("i.json", []byte(inst), nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := s.Validate(doc.Root)
	if err != nil || len(errs) != 1 || len(errs[0].InstanceLocation) != 2*n {
		t.Errorf("Validate: %d errors, %v", len(errs), err)
	}
}

// TestNestedCauses checks that a failed anyOf is explained down to maxCauseDepth nested
// alternatives: explaining 4,900 nested ones took 9 s and 800 MB.
func TestNestedCauses(t *testing.T) {
	lowStack(t, 64)
	const n = 4900
	text := strings.Repeat(`{"anyOf":[`, n) + `{"type":"string"}` + strings.Repeat("]}", n)
	s := mustCompile(t, text)
	errs, err := s.Validate(source.IntValue(1))
	if err != nil || len(errs) != 1 {
		t.Fatalf("Validate: %v, %v", errs, err)
	}
	depth, count := 0, 0
	for es := errs; len(es) > 0; es = es[0].Causes {
		depth++
		count += len(es)
	}
	if depth != maxCauseDepth+1 || count != depth {
		t.Errorf("causes nested %d deep (%d errors), want %d", depth, count, maxCauseDepth+1)
	}
}

// TestMetaSchemaChain checks that a chain of custom meta-schemas, each naming the next in
// its $schema, is followed to maxMetaChain links and no further.
func TestMetaSchemaChain(t *testing.T) {
	files := map[string]string{}
	const n = 40
	for i := range n {
		files[fmt.Sprintf("m%d.json", i)] = fmt.Sprintf(`{"$id": "https://x.test/m%d", "$schema": "https://x.test/m%d"}`, i, i+1)
	}
	files[fmt.Sprintf("m%d.json", n)] = `{"$id": "https://x.test/m40", "$schema": "https://json-schema.org/draft/2020-12/schema"}`
	files["s.json"] = `{"$schema": "https://x.test/m0", "type": "string"}`
	_, err := compileFiles(t, files, "s.json", &Options{Loader: &Loader{IndexRoot: "."}})
	if err == nil || !strings.Contains(err.Error(), "meta-schemas chained through $schema deeper than 32") {
		t.Errorf("compile: %v", err)
	}
}

// SetMaxEvalDepth takes a limit within [MinEvalDepth, MaxEvalDepthCeiling], applies it to
// the next evaluation, and raises the goroutine stack limit for a high one, never lowering it.
func TestSetMaxEvalDepth(t *testing.T) {
	defer func(d, stack int) { evalDepthLimit = d; debug.SetMaxStack(stack) }(evalDepthLimit, debug.SetMaxStack(1<<30))
	for _, n := range []int{0, MinEvalDepth - 1, MaxEvalDepthCeiling + 1} {
		if err := SetMaxEvalDepth(n); err == nil || !strings.Contains(err.Error(), "must be between") {
			t.Errorf("SetMaxEvalDepth(%d) = %v, want a range error", n, err)
		}
	}
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"$ref": "#/$defs/a0", "$defs": {`)
		for i := range n {
			fmt.Fprintf(&b, `"a%d": {"$ref": "#/$defs/a%d"}, `, i, i+1)
		}
		fmt.Fprintf(&b, `"a%d": {"type": "integer"}}}`, n)
		return b.String()
	}
	s, err := compileFiles(t, map[string]string{"s.json": chain(300)}, "s.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int
		err   string
	}{{200, "$ref chain too deep: evaluation nested deeper than 200 levels"}, {400, ""}} {
		if err := SetMaxEvalDepth(c.limit); err != nil {
			t.Fatal(err)
		}
		_, err := s.Valid(source.NumberValue("1"))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("limit %d: error %v, want %q", c.limit, err, c.err)
		}
	}
	if err := SetMaxEvalDepth(MaxEvalDepthCeiling); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMaxStack(1 << 30); got != MaxEvalDepthCeiling*evalStackPerLevel {
		t.Errorf("stack limit %d after the ceiling, want %d", got, MaxEvalDepthCeiling*evalStackPerLevel)
	}
	if err := SetMaxEvalDepth(MinEvalDepth); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMaxStack(1 << 30); got != 1<<30 {
		t.Errorf("stack limit %d after a low limit, want it kept at %d", got, 1<<30)
	}
}

// TestRefChainUnderItemsAtLimit puts a chain of schemas that are only a $ref under items,
// where the evaluation for the verdict alone passes over them (childThroughRefs), and
// checks around the depth limit that it stops exactly where the full evaluation does:
// Validate (verdict first, then in full) and Valid (the full path) agree on every length,
// and their "too deep" errors are the same.
func TestRefChainUnderItemsAtLimit(t *testing.T) {
	defer func(d int) { evalDepthLimit = d }(evalDepthLimit)
	evalDepthLimit = 100
	for hops := 90; hops <= 102; hops++ {
		var sb strings.Builder
		sb.WriteString(`{"$schema":"https://json-schema.org/draft/2020-12/schema","items":{"$ref":"#/$defs/a0"},"$defs":{`)
		for i := range hops {
			fmt.Fprintf(&sb, `"a%d":{"$ref":"#/$defs/a%d"},`, i, i+1)
		}
		fmt.Fprintf(&sb, `"a%d":{"type":"string"}}}`, hops)
		s, err := compileFiles(t, map[string]string{"s.json": sb.String()}, "s.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, inst := range []string{`["x"]`, `[1]`} {
			v := parse(t, inst).Root
			ok, verr := s.Valid(v)
			errs, err := s.Validate(v)
			switch {
			case (verr == nil) != (err == nil):
				t.Errorf("%d hops, %s: Valid %v, %v; Validate %v, %v", hops, inst, ok, verr, errs, err)
			case err != nil && err.Error() != verr.Error():
				t.Errorf("%d hops, %s: Validate's error %q, Valid's %q", hops, inst, err, verr)
			case err == nil && ok != (len(errs) == 0):
				t.Errorf("%d hops, %s: Valid %v, Validate %v", hops, inst, ok, errs)
			}
			if quick := s.verdict(t.Context(), v); quick != (ok && verr == nil) {
				t.Errorf("%d hops, %s: the verdict alone %v, Valid %v, %v", hops, inst, quick, ok, verr)
			}
		}
	}
}
