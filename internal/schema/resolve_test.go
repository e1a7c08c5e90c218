package schema

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// resolveFiles is a workspace where every step of the resolution order has something to
// say, and something that must not shadow it.
var resolveFiles = map[string]string{
	// The explicit map sends limit.json to lib/; a stray copy declares the same $id.
	"s.json":               `{"$ref": "https://example.com/limit.json"}`,
	"lib/limit.json":       `{"$id": "https://example.com/limit.json", "maximum": 10}`,
	"backup/old-copy.json": `{"$id": "https://example.com/limit.json", "maximum": 1000}`,
	// A file declares the $id of a built-in meta-schema.
	"meta-user.json":            `{"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}`,
	"evil/validation.json":      `{"$id": "https://json-schema.org/draft/2020-12/meta/validation", "type": "string"}`,
	"copy/own-meta.schema.json": `{"$id": "https://json-schema.org/draft/2020-12/meta/validation", "$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}}`,
	// One document declares the meta-schema's $id, another refers to the meta-schema.
	"mix.json": `{"anyOf": [{"$ref": "copy/own-meta.schema.json"}, {"$ref": "https://json-schema.org/draft/2020-12/meta/validation"}]}`,
	// order.json's $id makes "customer.json" mean https://example.com/schemas/customer.json:
	// the file beside it, whose $id is the same URI; "../common/money.json" climbs.
	"app/order.json":    `{"$id": "https://example.com/schemas/order.json", "properties": {"c": {"$ref": "customer.json"}, "m": {"$ref": "../common/money.json"}}}`,
	"app/customer.json": `{"$id": "https://example.com/schemas/customer.json", "type": "string"}`,
	"common/money.json": `{"type": "number"}`,
	// One file reached under two URIs: beside, and through the map.
	"two/root.json": `{"$id": "https://e.com/s/root.json", "allOf": [{"$ref": "lib.json"}, {"$ref": "https://mapped.example/lib.json"}]}`,
	"two/lib.json":  `{"$id": "https://e.com/s/lib.json", "type": "integer"}`,
	// Reached only through the index, declared once.
	"only.json":       `{"$ref": "https://example.com/only.json"}`,
	"deep/x/one.json": `{"$id": "https://example.com/only.json", "type": "boolean"}`,
	// Nothing declares it.
	"nowhere.json": `{"$ref": "https://example.com/nowhere.json"}`,
	// Hidden folders and node_modules are never indexed.
	"hidden.json":             `{"$ref": "https://example.com/hidden.json"}`,
	".cache/h.json":           `{"$id": "https://example.com/hidden.json"}`,
	"node_modules/pkg/h.json": `{"$id": "https://example.com/hidden.json"}`,
	".git/objects/h.json":     `{"$id": "https://example.com/hidden.json"}`,
	"local.json":              `{"$ref": "#/$defs/a", "$defs": {"a": {"type": "integer"}}}`,
	// A document without $schema is read in its referrer's draft: "#foo" is a draft-07
	// plain-name $id there, an error in 2020-12.
	"d7/root.json":                 `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "plain.json#/definitions/r"}`,
	"d7/plain.json":                `{"definitions": {"r": {"$ref": "#foo"}, "A": {"$id": "#foo", "type": "integer"}}}`,
	"d2020/root.json":              `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "../d7/plain.json#/definitions/r"}`,
	"climbs.json":                  `{"$id": "https://example.com/a/b.json", "$ref": "../z.json"}`,
	"app/missing-sibling.json":     `{"$id": "https://example.com/schemas/ms.json", "$ref": "gone.json"}`,
	"with-anchor/anchor-miss.json": `{"$ref": "#nope"}`,
}

func TestResolutionOrder(t *testing.T) {
	fsys := workspace.Memory(resolveFiles)
	tests := []struct {
		name     string
		file     string
		resolve  map[string]string
		instance string
		valid    bool
		err      string // part of the compile error
		notes    []string
	}{
		// 1. The explicit map beats the stray copy, which the index would have found.
		{name: "map beats stray", file: "s.json", resolve: map[string]string{"https://example.com/limit.json": "lib/limit.json"},
			instance: "500", valid: false},
		{name: "prefix map beats stray", file: "s.json", resolve: map[string]string{"https://example.com/": "lib/"},
			instance: "5", valid: true},
		// Without the map, two files declare the $id: an error naming both.
		{name: "duplicate $id", file: "s.json",
			err: `2 files of the workspace declare this $id: backup/old-copy.json, lib/limit.json; say which one with --resolve https://example.com/limit.json=PATH`},
		// A referred document without $schema takes its referrer's draft.
		{name: "referrer's draft", file: "d7/root.json", instance: `"x"`, valid: false},
		{name: "referrer's draft 2", file: "d7/root.json", instance: `3`, valid: true},
		{name: "2020-12 referrer", file: "d2020/root.json", err: `$id "#foo" must not contain a fragment`},
		// 2. A built-in meta-schema is never shadowed, not by the index, not by the map.
		{name: "meta-schema not shadowed", file: "meta-user.json", instance: `{"minimum": 1}`, valid: true},
		{name: "map cannot shadow a meta-schema", file: "meta-user.json", instance: `{"minimum": 1}`, valid: true,
			resolve: map[string]string{"https://json-schema.org/draft/2020-12/meta/validation": "evil/validation.json"}},
		// ... but a document declaring that $id means itself inside itself.
		{name: "own $id inside itself", file: "copy/own-meta.schema.json", instance: `1`, valid: false},
		{name: "meta-schema not shadowed by a loaded document", file: "mix.json", instance: `{"minimum": 1}`, valid: true},
		{name: "loaded document still means itself", file: "mix.json", instance: `"s"`, valid: true},
		// 3. Beside the referring document, whatever its $id, climbing too.
		{name: "beside", file: "app/order.json", instance: `{"c": "x", "m": 1}`, valid: true},
		{name: "beside invalid", file: "app/order.json", instance: `{"c": 1}`, valid: false},
		{name: "one file under two URIs is one document", file: "two/root.json", instance: "1", valid: true,
			resolve: map[string]string{"https://mapped.example/lib.json": "two/lib.json"}},
		{name: "one file under two URIs, invalid", file: "two/root.json", instance: `"x"`, valid: false,
			resolve: map[string]string{"https://mapped.example/lib.json": "two/lib.json"}},
		// A confined workspace stays confined: the path beside climbs out, so it is not tried.
		{name: "beside stays inside", file: "climbs.json", err: `unresolved reference "https://example.com/z.json": no resolve mapping covers it, it is not a built-in meta-schema, and no file of the workspace has this $id;`},
		{name: "beside missing", file: "app/missing-sibling.json", err: `has this $id (not the file app/gone.json beside the referring document either)`},
		// 4. The index, when exactly one file declares the URI, announced.
		{name: "index", file: "only.json", instance: "true", valid: true,
			notes: []string{"resolved https://example.com/only.json from the workspace index: deep/x/one.json"}},
		{name: "unresolved", file: "nowhere.json",
			err: `unresolved reference "https://example.com/nowhere.json": no resolve mapping covers it, it is not a built-in meta-schema, and no file of the workspace has this $id; map it with --resolve https://example.com/nowhere.json=PATH`},
		{name: "hidden folders and node_modules are not indexed", file: "hidden.json", err: `unresolved reference "https://example.com/hidden.json"`},
		// Messages name files, never file:// URIs.
		{name: "anchor", file: "with-anchor/anchor-miss.json", err: `no anchor "nope" in with-anchor/anchor-miss.json`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var notes []string
			l := &Loader{FS: fsys, Index: NewIndex(fsys, []string{"."}, nil), Resolve: tc.resolve,
				Notify: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }}
			s, err := NewCompiler(&Options{Loader: l}).Compile(FileURI(fsys.Abs(tc.file)))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "file://") {
					t.Errorf("error names a file:// URI: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			errs, err := s.Validate(parse(t, tc.instance).Root)
			if err != nil {
				t.Fatal(err)
			}
			if (len(errs) == 0) != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", len(errs) == 0, tc.valid, errs)
			}
			if diff := cmp.Diff(tc.notes, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s", diff)
			}
			if l.UsedIndex() != (tc.notes != nil) {
				t.Errorf("UsedIndex = %v", l.UsedIndex())
			}
		})
	}
}

// An index is built once, and only when a reference needs it.
func TestIndexBuiltOnlyWhenNeeded(t *testing.T) {
	fsys := workspace.Memory(resolveFiles)
	x := NewIndex(fsys, []string{"."}, nil)
	for _, file := range []string{"local.json", "app/order.json", "meta-user.json"} {
		l := &Loader{FS: fsys, Index: x}
		if _, err := NewCompiler(&Options{Loader: l}).Compile(FileURI(fsys.Abs(file))); err != nil {
			t.Fatal(err)
		}
	}
	if n := x.Builds(); n != 0 {
		t.Fatalf("the index was built %d times for references that do not need it", n)
	}
	for range 3 {
		l := &Loader{FS: fsys, Index: x}
		if _, err := NewCompiler(&Options{Loader: l}).Compile(FileURI(fsys.Abs("only.json"))); err != nil {
			t.Fatal(err)
		}
	}
	if n := x.Builds(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
	// IndexRoot still makes a loader index a directory of its own on first need.
	l := &Loader{FS: fsys, IndexRoot: "deep"}
	if _, err := NewCompiler(&Options{Loader: l}).Compile(FileURI(fsys.Abs("only.json"))); err != nil {
		t.Fatal(err)
	}
}

func TestIndexBoundsAndRenew(t *testing.T) {
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("d/f%02d.json", i)] = fmt.Sprintf(`{"$id": "https://example.com/%d"}`, i)
	}
	files["d/no-id.yaml"] = "type: object\n"
	files["d/bad.json"] = `{"$id": `
	files["d/relative.json"] = `{"$id": "relative"}`
	files["d/notes.txt"] = `{"$id": "https://example.com/txt"}`
	fsys := workspace.Memory(files)

	x := NewIndex(fsys, []string{"d", "d"}, &IndexOptions{MaxFiles: 4})
	if got := x.Lookup("https://example.com/1"); len(got) != 1 || got[0] != "d/f01.json" {
		t.Errorf("Lookup = %v", got)
	}
	if got := x.Lookup("https://example.com/9"); got != nil {
		t.Errorf("a file past the limit was indexed: %v", got)
	}
	if x.Files() != 4 || !strings.Contains(x.Note(), "it read the first 4 files (the limit), in path order, and left out the others") ||
		!strings.Contains(x.Note(), "--resolve URI=PATH") {
		t.Errorf("files %d, note %q", x.Files(), x.Note())
	}

	// Past its time bound, the index says what it left out (a nanosecond is over before
	// the first directory is listed).
	late := NewIndex(fsys, []string{"d"}, &IndexOptions{MaxTime: time.Nanosecond})
	if late.Files() != 0 || !strings.Contains(late.Note(), "listing the directories took longer than 1ns") {
		t.Errorf("files %d, note %q", late.Files(), late.Note())
	}

	full := NewIndex(fsys, []string{"d"}, nil)
	if full.Note() != "" || full.Files() != 13 || full.Lookup("https://example.com/txt") != nil || full.Lookup("relative") != nil {
		t.Errorf("note %q, files %d", full.Note(), full.Files())
	}
	// A renewed index reads what changed, and counts its builds with the first.
	r := full.Renew()
	if r.Lookup("https://example.com/3") == nil || full.Builds() != 2 {
		t.Errorf("renewed: builds %d", full.Builds())
	}
	r2 := r.Renew()
	if r2.Lookup("https://example.com/3") == nil || r.Builds() != 3 {
		t.Errorf("renewed again: builds %d", r.Builds())
	}
	var nilIndex *Index
	if nilIndex.Lookup("x") != nil || nilIndex.Note() != "" || nilIndex.Files() != 0 || nilIndex.Builds() != 0 || nilIndex.Renew() != nil {
		t.Error("a nil index must be empty")
	}
	fixed := IndexOf(map[string][]string{"https://e/x": {"b.json", "a.json", "a.json"}})
	if diff := cmp.Diff([]string{"a.json", "b.json"}, fixed.Lookup("https://e/x#")); diff != "" || fixed.Renew() != fixed || fixed.Builds() != 0 {
		t.Errorf("fixed index (-want +got):\n%s", diff)
	}
}

// A renewed index sees a file that changed, and a duplicate that appeared.
func TestIndexRenewSeesChanges(t *testing.T) {
	dir := t.TempDir()
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := writeFile(dir, name, text); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", `{"$id": "https://example.com/a"}`)
	write("b.json", `{"type": "string", "description": "no $id yet"}`)
	x := NewIndex(fsys, []string{"."}, nil).Renew()
	if got := x.Lookup("https://example.com/a"); len(got) != 1 {
		t.Fatalf("Lookup = %v", got)
	}
	write("b.json", `{"$id": "https://example.com/a", "description": "now a second declaration"}`)
	y := x.Renew()
	if diff := cmp.Diff([]string{"a.json", "b.json"}, y.Lookup("https://example.com/a")); diff != "" {
		t.Errorf("after the change (-want +got):\n%s", diff)
	}
	l := &Loader{FS: fsys, Index: y}
	if _, _, err := l.LoadFrom("https://example.com/a", nil); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("got %v", err)
	}
}

func TestDisplayAndBeside(t *testing.T) {
	fsys := workspace.Memory(map[string]string{"a/b.json": "{}"})
	l := &Loader{FS: fsys}
	for in, want := range map[string]string{
		FileURI("/ws/a/b.json") + "#/x":            "a/b.json#/x",
		FileURI("/ws/(inline schema)") + "#/allOf": "(inline schema)#/allOf",
		FileURI("/ws"):                  ".",
		FileURI("/elsewhere/x.json"):    "/elsewhere/x.json",
		"https://example.com/x.json#/a": "https://example.com/x.json#/a",
		"file://%zz":                    "file://%zz",
	} {
		if got := l.Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (&Loader{}).Display(FileURI("/ws/a.json")); got != FileURI("/ws/a.json") {
		t.Errorf("a loader without files displays %q", got)
	}
	for _, tc := range []struct {
		uri  string
		from *Referrer
		want string
	}{
		{"https://e.com/s/c.json", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/s/b.json"}}, "a/c.json"},
		{"https://e.com/t/c.json", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/s/b.json"}}, "t/c.json"},
		{"https://e.com/s/c.json", &Referrer{URI: FileURI("/ws/(inline schema)"), Bases: []string{"https://e.com/s/b.json"}}, "c.json"},
		{"https://other.com/s/c.json", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/s/b.json"}}, ""},
		{"https://e.com/s/c.json?x=1", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/s/b.json"}}, ""},
		{"https://e.com/s/", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/s/b.json"}}, ""},
		{"urn:x:y", &Referrer{File: "a/b.json", Bases: []string{"urn:x:z"}}, ""},
		{"https://e.com/s/c.json", &Referrer{URI: "urn:no-file", Bases: []string{"https://e.com/s/b.json"}}, ""},
		{"https://e.com/s/c.json", nil, ""},
		{"https://e.com/x/y/z/c.json", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/b.json"}}, "a/x/y/z/c.json"},
		{"https://e.com/c.json", &Referrer{File: "a/b.json", Bases: []string{"https://e.com/1/2/3/b.json"}}, ""},
	} {
		got, ok := l.Beside(tc.uri, tc.from)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Beside(%q, %+v) = %q, %v; want %q", tc.uri, tc.from, got, ok, tc.want)
		}
	}
}

func writeFile(dir, name, text string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
}

// Under its floor, the index reads every file listed, however long it takes: a busy machine
// resolves what a quiet one does. Past the floor, the time bound cuts the reading.
func TestIndexFloor(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d/s%02d.json", i)] = fmt.Sprintf(`{"$id": "https://example.com/s%d"}`, i)
	}
	// Each file takes 2 ms to open: reading them all takes 30 ms or more on two workers,
	// past the 5 ms bound.
	fsys := slowOpen{workspace.Memory(files)}
	x := NewIndex(fsys, []string{"d"}, &IndexOptions{MaxTime: 5 * time.Millisecond})
	if x.Files() != 30 || x.Note() != "" || x.Lookup("https://example.com/s29") == nil {
		t.Errorf("under the floor: files %d, note %q", x.Files(), x.Note())
	}
	defer func(f int) { indexFloorFiles = f }(indexFloorFiles)
	indexFloorFiles = 10
	y := NewIndex(fsys, []string{"d"}, &IndexOptions{MaxTime: 5 * time.Millisecond})
	if y.Files() < 10 || y.Files() == 30 || !strings.Contains(y.Note(), "it stopped after 5ms") {
		t.Errorf("past the floor: files %d, note %q", y.Files(), y.Note())
	}
}

// slowOpen is a file system whose files take 2 ms to open.
type slowOpen struct{ workspace.FS }

func (s slowOpen) Open(name string) (io.ReadCloser, error) {
	time.Sleep(2 * time.Millisecond)
	return s.FS.Open(name)
}
