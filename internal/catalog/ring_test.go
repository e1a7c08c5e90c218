package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// ring is n schemas, each referring to the next, the last to the first.
func ring(n int, edit func(i int, text string) string) map[string]string {
	files := map[string]string{}
	for i := range n {
		text := fmt.Sprintf(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://ring.test/s%d.json", "type": "object", "properties": {"next": {"$ref": "s%d.json"}}}`, i, (i+1)%n)
		if edit != nil {
			text = edit(i, text)
		}
		files[fmt.Sprintf("s%03d.schema.json", i)] = text
	}
	return files
}

// verdicts is each entry's Valid, Compiles and Problem.
func verdicts(w *Workspace) map[string]string {
	out := map[string]string{}
	for _, e := range w.Entries() {
		out[e.Path] = fmt.Sprintf("valid=%v compiles=%v %s", e.Valid, e.Compiles, e.Problem)
	}
	return out
}

// TestRingVerdicts: schemas that reach each other are compiled by one compiler (see
// compileAll) and get the verdicts each would get compiled on its own: a ring compiles; a
// ring with a schema that is not valid makes every schema reaching it not compile, naming
// the first such file; a ring with a broken reference makes each schema not compile.
func TestRingVerdicts(t *testing.T) {
	t.Parallel()
	const n = 40
	w := scanFiles(t, ring(n, nil), nil)
	for p, v := range verdicts(w) {
		if v != "valid=true compiles=true " {
			t.Errorf("%s: %s, want valid and compiling", p, v)
		}
	}
	// Two schemas not valid against their meta-schema ("title" is not a string), which
	// compile all the same: every other one reaches both, and names the first by name.
	invalid := func(i int, text string) string {
		if i == 7 || i == 30 {
			return strings.Replace(text, `"type"`, `"title": 5, "type"`, 1)
		}
		return text
	}
	w = scanFiles(t, ring(n, invalid), nil)
	for p, v := range verdicts(w) {
		want := "valid=true compiles=false does not compile: it refers to s007.schema.json, which is not valid against its meta-schema"
		if p == "s007.schema.json" || p == "s030.schema.json" {
			continue
		}
		if v != want {
			t.Errorf("%s: %s\nwant %s", p, v, want)
		}
	}
	// Cut the ring after the last schema: each reaches only those after it.
	w = scanFiles(t, ring(n, func(i int, text string) string {
		text = invalid(i, text)
		if i == n-1 {
			return strings.Replace(text, `"properties": {"next": {"$ref": "s0.json"}}`, `"properties": {}`, 1)
		}
		return text
	}), nil)
	got := verdicts(w)
	for i := range n {
		p := fmt.Sprintf("s%03d.schema.json", i)
		var want string
		switch {
		case i == 7 || i == 30:
			continue
		case i < 7:
			want = "valid=true compiles=false does not compile: it refers to s007.schema.json, which is not valid against its meta-schema"
		case i < 30:
			want = "valid=true compiles=false does not compile: it refers to s030.schema.json, which is not valid against its meta-schema"
		default:
			want = "valid=true compiles=true "
		}
		if got[p] != want {
			t.Errorf("%s: %s\nwant %s", p, got[p], want)
		}
	}
	w = scanFiles(t, ring(n, func(i int, text string) string {
		if i == 12 {
			return fmt.Sprintf(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://ring.test/s%d.json", "properties": {"next": {"$ref": "nowhere.json"}}}`, i)
		}
		return text
	}), nil)
	for p, v := range verdicts(w) {
		if v == "valid=true compiles=true " {
			t.Errorf("%s compiles, but it reaches a reference that resolves nowhere", p)
		}
	}
}

// TestCompiledAsOnItsOwn: a reference to a $id another file declares inside itself does
// not resolve when the referring schema is compiled on its own, and must not resolve
// because an earlier compile registered that file.
func TestCompiledAsOnItsOwn(t *testing.T) {
	t.Parallel()
	w := scanFiles(t, map[string]string{
		"a.schema.json": `{"$id": "https://x.test/a.json", "$defs": {"in": {"$id": "https://x.test/inner.json", "type": "string"}}}`,
		"b.schema.json": `{"$id": "https://x.test/b.json", "$ref": "inner.json"}`,
		"c.schema.json": `{"$id": "https://x.test/c.json", "$ref": "a.json#/$defs/in"}`,
	}, nil)
	got := map[string]bool{}
	for _, e := range w.Entries() {
		got[e.Path] = e.Compiles
	}
	want := map[string]bool{"a.schema.json": true, "b.schema.json": false, "c.schema.json": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compiles (-want +got):\n%s", diff)
	}
}

// TestScanStopped: a scan whose context ends stops with the context's error.
func TestScanStopped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, workspace.Memory(ring(10, nil)), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan: %v, want context.Canceled", err)
	}
}

// TestReferenceGroups: the schemas are compiled by groups that refer to each other (see
// compileAll), each group in the workspace's order; a schema alone is a group of its own,
// and a group's verdicts are those of its schemas compiled on their own: one reaching a
// schema that is not valid, in its group, does not compile; one in another group does.
func TestReferenceGroups(t *testing.T) {
	t.Parallel()
	const d = `"$schema": "https://json-schema.org/draft/2020-12/schema"`
	w := scanFiles(t, map[string]string{
		"a.schema.json": `{` + d + `, "$ref": "b.schema.json"}`,
		"b.schema.json": `{` + d + `, "type": "object"}`,
		"c.schema.json": `{` + d + `, "title": 5}`,
		"d.schema.json": `{` + d + `, "properties": {"x": {"$ref": "c.schema.json"}}}`,
		"e.schema.json": `{` + d + `, "type": "string"}`,
		"f.schema.json": `{` + d + `, "$ref": "d.schema.json"}`,
	}, nil)
	var got []string
	for _, g := range w.referenceGroups() {
		var names []string
		for _, s := range g {
			names = append(names, strings.TrimSuffix(s.file.path, ".schema.json"))
		}
		got = append(got, strings.Join(names, ","))
	}
	if diff := cmp.Diff([]string{"a,b", "c,d,f", "e"}, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"a.schema.json": "valid=true compiles=true ",
		"b.schema.json": "valid=true compiles=true ",
		"c.schema.json": "valid=false compiles=false not valid against its meta-schema https://json-schema.org/draft/2020-12/schema: 1 problem(s); the first at 1:70 /title: value must be string, not integer",
		"d.schema.json": "valid=true compiles=false does not compile: it refers to c.schema.json, which is not valid against its meta-schema",
		"e.schema.json": "valid=true compiles=true ",
		"f.schema.json": "valid=true compiles=false does not compile: it refers to c.schema.json, which is not valid against its meta-schema",
	}
	if diff := cmp.Diff(want, verdicts(w)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}
