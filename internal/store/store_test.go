package store

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/workspace"
)

var packed struct {
	once sync.Once
	data []byte
	st   *PackStats
	err  error
}

// testStore packs ../shared/corpora/schemastore-dev in memory, once.
func testStore(t *testing.T) (*Store, *PackStats) {
	t.Helper()
	dir := corpora.Dir(t, "schemastore-dev")
	packed.once.Do(func() {
		var buf bytes.Buffer
		packed.st, packed.err = Pack(workspace.OS(), dir, "", &buf)
		packed.data = buf.Bytes()
	})
	if packed.err != nil {
		t.Fatal(packed.err)
	}
	return FromBytes("test", packed.data), packed.st
}

func TestPackAndRead(t *testing.T) {
	s, st := testStore(t)
	if st.Schemas < 800 || st.Entries < 500 || len(st.Commit) != 40 {
		t.Fatalf("packed %+v", st)
	}
	// What a release embeds must stay within the 5 MB the issue allows.
	if n := len(packed.data); n > 5<<20 {
		t.Errorf("the packed store is %d bytes, over 5 MiB", n)
	}
	t.Logf("packed %d schemas (%d bytes) into %d bytes", st.Schemas, st.Raw, len(packed.data))
	commit, err := s.Commit()
	if err != nil || commit != st.Commit {
		t.Errorf("commit %q %v, want %q", commit, err, st.Commit)
	}
	if s.Name() != "SchemaStore "+st.Commit[:7] {
		t.Errorf("name %q", s.Name())
	}
	names, _ := s.Schemas()
	if len(names) != st.Schemas {
		t.Errorf("%d schemas listed, %d packed", len(names), st.Schemas)
	}
	for _, u := range []string{"https://json.schemastore.org/package.json", "https://www.schemastore.org/package.json",
		"https://json.schemastore.org/package", "http://json.schemastore.org/package.json#/definitions/x"} {
		data, name, ok, err := s.Open(u)
		if err != nil || !ok || !bytes.Contains(data, []byte(`"$schema"`)) || !strings.HasSuffix(name, ": package.json") {
			t.Errorf("%s: %q %v %v", u, name, ok, err)
		}
		if !s.Has(u) {
			t.Errorf("Has(%s) is false", u)
		}
	}
	for _, u := range []string{"https://example.com/package.json", "https://json.schemastore.org/no-such-schema.json"} {
		if _, _, ok, err := s.Open(u); ok || err != nil {
			t.Errorf("%s: opened (%v)", u, err)
		}
	}
	lic, err := s.Licence()
	if err != nil || !strings.Contains(lic, "Apache License") {
		t.Errorf("licence: %v %.80q", err, lic)
	}
	cat, err := s.Catalog()
	if err != nil || len(cat.Match("package.json")) != 1 {
		t.Fatalf("catalog: %v", err)
	}
	if errs := s.PatternErrors(); len(errs) > 0 {
		t.Errorf("SchemaStore's patterns that are not valid globs: %v", errs)
	}
	nv, err := s.NotVendored()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d catalog entries not vendored", len(nv))
}

// The snapshot directory read at run time answers as the packed file does.
func TestOpenDirectoryAndFile(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	packedStore, st := testStore(t)
	d := Open(workspace.OS(), dir)
	c1, _ := d.Commit()
	if c1 != st.Commit {
		t.Errorf("directory commit %q, packed %q", c1, st.Commit)
	}
	a, _, _, _ := d.Open("https://json.schemastore.org/tsconfig.json")
	b, _, _, _ := packedStore.Open("https://json.schemastore.org/tsconfig.json")
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the directory and the packed file disagree on tsconfig.json")
	}
	if l, err := d.Licence(); err != nil || !strings.Contains(l, "Apache") {
		t.Errorf("licence from the directory: %v", err)
	}
	mem := workspace.Memory(map[string]string{"store.zip": string(packed.data), "bad.zip": "not a zip"})
	if c, err := Open(mem, "store.zip").Commit(); err != nil || c != st.Commit {
		t.Errorf("file: %q %v", c, err)
	}
	if _, err := Open(mem, "bad.zip").Catalog(); err == nil || !strings.Contains(err.Error(), "bad.zip: not a SchemaStore file") {
		t.Errorf("bad file: %v", err)
	}
	if _, err := Open(mem, "missing").Catalog(); err == nil || !strings.Contains(err.Error(), "SchemaStore at missing") {
		t.Errorf("missing: %v", err)
	}
	if _, err := Open(mem, ".").Catalog(); err == nil || !strings.Contains(err.Error(), "SchemaStore's layout") {
		t.Errorf("not a snapshot: %v", err)
	}
}

// The built-in store, when this build has one, is the snapshot of the corpora: a test fails
// when the vendored data and the recorded commit disagree. Without one, every use says how
// to get one.
func TestEmbedded(t *testing.T) {
	e := Embedded()
	if e.Where() != "built in" {
		t.Errorf("where %q", e.Where())
	}
	commit, err := e.Commit()
	if errors.Is(err, ErrNone) {
		if _, _, ok, err := e.Open("https://json.schemastore.org/package.json"); ok || err != nil {
			t.Errorf("no store, yet Open answered %v %v", ok, err)
		}
		if _, err := e.Catalog(); !errors.Is(err, ErrNone) {
			t.Errorf("catalog: %v", err)
		}
		t.Skip("this build has no built-in SchemaStore (internal/store/data/README.md)")
	}
	if err != nil {
		t.Fatal(err)
	}
	_, st := testStore(t)
	if commit != st.Commit {
		t.Fatalf("the built-in store is of SchemaStore %s, the snapshot of %s: rebuild it (go run ./cmd/storegen)", commit, st.Commit)
	}
	names, _ := e.Schemas()
	if len(names) != st.Schemas {
		t.Errorf("the built-in store holds %d schemas, the snapshot %d: rebuild it", len(names), st.Schemas)
	}
}

func TestPackErrors(t *testing.T) {
	t.Parallel()
	mem := workspace.Memory(map[string]string{
		"s/src/api/json/catalog.json":   `{"schemas": []}`,
		"s/src/schemas/json/a.json":     `{}`,
		"s/LICENSE":                     "Apache License",
		"n/src/api/json/catalog.json":   `{"schemas": []}`,
		"n/src/schemas/json/a.json":     `{}`,
		"bad/src/api/json/catalog.json": `[`,
	})
	var buf bytes.Buffer
	if _, err := Pack(mem, "s", "", &buf); err == nil || !strings.Contains(err.Error(), "give it with -commit") {
		t.Errorf("no commit: %v", err)
	}
	if _, err := Pack(mem, "n", "0123456789012345678901234567890123456789", &buf); err == nil || !strings.Contains(err.Error(), "no LICENSE") {
		t.Errorf("no licence: %v", err)
	}
	if _, err := Pack(mem, "bad", "x", &buf); err == nil || !strings.Contains(err.Error(), "not SchemaStore's catalog.json") {
		t.Errorf("bad catalog: %v", err)
	}
	buf.Reset()
	st, err := Pack(mem, "s", "0123456789012345678901234567890123456789", &buf)
	if err != nil || st.Schemas != 1 {
		t.Fatalf("%v %+v", err, st)
	}
	s := FromBytes("mem", buf.Bytes())
	if s.Name() != "SchemaStore" { // not read yet
		t.Errorf("name before reading %q", s.Name())
	}
	if c, _ := s.Commit(); c != "0123456789012345678901234567890123456789" || s.Name() != "SchemaStore 0123456" {
		t.Errorf("commit %q name %q", c, s.Name())
	}
	var none *Store
	if _, err := none.Catalog(); !errors.Is(err, ErrNone) {
		t.Errorf("nil store: %v", err)
	}
	if f, ok := File("https://www.schemastore.org/schemas/json/x"); !ok || f != "x.json" {
		t.Errorf("File: %q %v", f, ok)
	}
}
