// Package store owns the offline SchemaStore: one compressed file (a zip, each member
// deflated on its own, so that one schema is read without the others) holding SchemaStore's
// catalog, its schema files, its Apache-2.0 LICENSE and NOTICE and the snapshot's commit.
// Pack builds it from a snapshot directory (cmd/storegen); the binary embeds it when it was
// built (data/schemastore.zip, never committed), and a user may point at a snapshot or a
// packed file at run time. Nothing is read before it is needed: a Store opens its file on
// first use. A Store is the catalog the association matches files against
// (assoc.Catalog) and a schema.Remote: https://json.schemastore.org/X.json and
// https://www.schemastore.org/X.json resolve to its copies.
package store

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The members of a packed store.
const (
	catalogMember    = "catalog.json"
	schemasDir       = "schemas/"
	licenceMember    = "LICENSE"
	noticeMember     = "NOTICE"
	provenanceMember = "PROVENANCE"
	// EmbeddedName is the packed file go:embed takes when it exists.
	EmbeddedName = "data/schemastore.zip"
)

//go:embed data
var embedded embed.FS

// ErrNone is the error of a binary built without the store, when nothing else names one.
var ErrNone = errors.New("no SchemaStore catalog built in: build it with `go run ./cmd/storegen` (internal/store/data/README.md), or point at a SchemaStore snapshot with --schemastore PATH, JSTK_SCHEMASTORE=PATH or \"schemastore\" in jstk.json")

// Store is a SchemaStore snapshot, opened on first use. Its methods are safe for
// concurrent use.
type Store struct {
	// where names the store's source for messages (a file, a directory, "built in").
	where string
	load  func() (*contents, error)

	once sync.Once
	c    *contents
	err  error
}

// contents is what a store holds once read.
type contents struct {
	commit  string
	entries []assoc.Entry
	// read returns a member's bytes (a schema: "schemas/X.json"); ok false when absent.
	read    func(member string) ([]byte, bool, error)
	schemas []string // the vendored schema files, sorted
	catalog *assoc.Catalog
	bad     []error // catalog patterns that are not valid globs
}

// Embedded returns the store built into the binary; when none was, its every use answers
// ErrNone.
func Embedded() *Store {
	return &Store{where: "built in", load: func() (*contents, error) {
		data, err := embedded.ReadFile(EmbeddedName)
		if err != nil {
			return nil, ErrNone
		}
		return readZip(data)
	}}
}

// None returns a store that holds nothing: every use answers ErrNone, as the built-in one
// of a build without it does.
func None() *Store {
	return &Store{where: "built in", load: func() (*contents, error) { return nil, ErrNone }}
}

// FromBytes returns the store packed in data (what Pack writes).
func FromBytes(where string, data []byte) *Store {
	return &Store{where: where, load: func() (*contents, error) { return readZip(data) }}
}

// Open returns the store at name of fsys: a file packed by Pack, or a snapshot directory
// with SchemaStore's layout (src/api/json/catalog.json, src/schemas/json/*.json). It is
// read on first use.
func Open(fsys workspace.FS, name string) *Store {
	return &Store{where: name, load: func() (*contents, error) {
		fi, err := fsys.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("SchemaStore at %s: %w (give a snapshot directory or a file built by cmd/storegen)", name, err)
		}
		if !fi.IsDir() {
			data, err := workspace.ReadFile(fsys, name, 64<<20)
			if err != nil {
				return nil, err
			}
			c, err := readZip(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return c, nil
		}
		return readDir(fsys, name)
	}}
}

// get reads the store once.
func (s *Store) get() (*contents, error) {
	if s == nil {
		return nil, ErrNone
	}
	s.once.Do(func() {
		s.c, s.err = s.load()
		if s.err == nil {
			s.c.catalog, s.c.bad = assoc.NewCatalog(s.Name(), s.c.entries)
		}
	})
	return s.c, s.err
}

// Name names the store in messages: "SchemaStore 3b6446a" (its commit, shortened).
func (s *Store) Name() string {
	if s == nil || s.c == nil || s.c.commit == "" {
		return "SchemaStore"
	}
	return "SchemaStore " + short(s.c.commit)
}

// Where says where the store is read from ("built in", a path).
func (s *Store) Where() string { return s.where }

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// Commit is the SchemaStore commit of the snapshot ("" when unknown).
func (s *Store) Commit() (string, error) {
	c, err := s.get()
	if err != nil {
		return "", err
	}
	return c.commit, nil
}

// Catalog returns the compiled catalog (the assoc.Associator's Catalog).
func (s *Store) Catalog() (*assoc.Catalog, error) {
	c, err := s.get()
	if err != nil {
		return nil, err
	}
	return c.catalog, nil
}

// PatternErrors lists the catalog's patterns that are not valid globs (left out).
func (s *Store) PatternErrors() []error {
	c, err := s.get()
	if err != nil {
		return nil
	}
	return c.bad
}

// Schemas lists the vendored schema files ("package.json", ...), sorted.
func (s *Store) Schemas() ([]string, error) {
	c, err := s.get()
	if err != nil {
		return nil, err
	}
	return c.schemas, nil
}

// Licence returns SchemaStore's LICENSE and NOTICE, as the store carries them.
func (s *Store) Licence() (string, error) {
	c, err := s.get()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range []string{licenceMember, noticeMember} {
		data, ok, err := c.read(m)
		if err != nil {
			return "", err
		}
		if ok {
			b.Write(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				b.WriteByte('\n')
			}
		}
	}
	return b.String(), nil
}

// hosts are the URL prefixes the store answers for: SchemaStore's two hosts. (Plain
// strings, not a regular expression: a package variable compiled at start-up would be paid
// by every command, and this package costs nothing until it is used.)
var hosts = []string{"https://json.schemastore.org/", "http://json.schemastore.org/",
	"https://www.schemastore.org/", "http://www.schemastore.org/"}

// File returns the vendored file a URL names ("https://json.schemastore.org/package" ->
// "package.json"), and false when the URL is not SchemaStore's.
func File(uri string) (string, bool) {
	uri, _, _ = strings.Cut(uri, "#")
	rest := ""
	for _, h := range hosts {
		if r, ok := strings.CutPrefix(uri, h); ok {
			rest = r
			break
		}
	}
	if rest == "" {
		return "", false
	}
	name := strings.TrimPrefix(rest, "schemas/json/")
	if path.Ext(name) != ".json" {
		name += ".json"
	}
	return name, true
}

// Has reports whether the store holds the schema at uri.
func (s *Store) Has(uri string) bool {
	name, ok := File(uri)
	if !ok {
		return false
	}
	c, err := s.get()
	if err != nil {
		return false
	}
	i := sort.SearchStrings(c.schemas, name)
	return i < len(c.schemas) && c.schemas[i] == name
}

// Open implements schema.Remote: the bytes of the vendored copy of a SchemaStore URL.
func (s *Store) Open(uri string) ([]byte, string, bool, error) {
	name, ok := File(uri)
	if !ok {
		return nil, "", false, nil
	}
	c, err := s.get()
	if err != nil {
		if errors.Is(err, ErrNone) {
			return nil, "", false, nil
		}
		return nil, "", false, err
	}
	data, ok, err := c.read(schemasDir + name)
	if err != nil || !ok {
		return nil, "", false, err
	}
	return data, s.Name() + ": " + name, true, nil
}

// NotVendored lists the catalog entries whose schema the store does not hold, each as
// "not vendored: <url>; map it or run jstk fetch" would say.
func (s *Store) NotVendored() ([]assoc.Entry, error) {
	c, err := s.get()
	if err != nil {
		return nil, err
	}
	var out []assoc.Entry
	for _, e := range c.entries {
		if !s.Has(e.URL) {
			out = append(out, e)
		}
	}
	return out, nil
}

// readZip reads a packed store.
func readZip(data []byte) (*contents, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a SchemaStore file built by cmd/storegen: %v", err)
	}
	members := map[string]*zip.File{}
	c := &contents{}
	for _, f := range zr.File {
		members[f.Name] = f
		if n, ok := strings.CutPrefix(f.Name, schemasDir); ok {
			c.schemas = append(c.schemas, n)
		}
	}
	sort.Strings(c.schemas)
	c.read = func(m string) ([]byte, bool, error) {
		f, ok := members[m]
		if !ok {
			return nil, false, nil
		}
		rc, err := f.Open()
		if err != nil {
			return nil, true, err
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, 64<<20))
		return data, true, err
	}
	prov, ok, err := c.read(provenanceMember)
	if err != nil || !ok {
		return nil, fmt.Errorf("the SchemaStore file has no %s: rebuild it with cmd/storegen", provenanceMember)
	}
	c.commit = commitOf(string(prov))
	cat, ok, err := c.read(catalogMember)
	if err != nil || !ok {
		return nil, fmt.Errorf("the SchemaStore file has no %s: rebuild it with cmd/storegen", catalogMember)
	}
	if c.entries, err = parseCatalog(cat); err != nil {
		return nil, err
	}
	return c, nil
}

// Snapshot paths.
const (
	snapCatalog = "src/api/json/catalog.json"
	snapSchemas = "src/schemas/json"
)

// readDir reads a snapshot directory.
func readDir(fsys workspace.FS, dir string) (*contents, error) {
	cat, err := workspace.ReadFile(fsys, path.Join(dir, snapCatalog), 64<<20)
	if err != nil {
		return nil, fmt.Errorf("SchemaStore snapshot %s: %w (a snapshot has SchemaStore's layout: %s, %s/*.json)", dir, err, snapCatalog, snapSchemas)
	}
	c := &contents{}
	if c.entries, err = parseCatalog(cat); err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(dir, snapCatalog), err)
	}
	es, err := fsys.ReadDir(path.Join(dir, snapSchemas))
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			c.schemas = append(c.schemas, e.Name())
		}
	}
	sort.Strings(c.schemas)
	c.commit = snapshotCommit(fsys, dir)
	c.read = func(m string) ([]byte, bool, error) {
		var file string
		switch {
		case strings.HasPrefix(m, schemasDir):
			file = path.Join(dir, snapSchemas, strings.TrimPrefix(m, schemasDir))
		case m == licenceMember || m == noticeMember:
			file = path.Join(dir, m)
		default:
			return nil, false, nil
		}
		data, err := workspace.ReadFile(fsys, file, 64<<20)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		return data, true, nil
	}
	return c, nil
}

// commitOf finds the commit a provenance note names: its first word of 40 hexadecimal
// digits ("" when none).
func commitOf(s string) string {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) {
		if len(w) == 40 {
			return w
		}
	}
	return ""
}

// snapshotCommit reads the commit of a snapshot directory from its PROVENANCE.md, else
// "".
func snapshotCommit(fsys workspace.FS, dir string) string {
	for _, n := range []string{"PROVENANCE.md", "PROVENANCE"} {
		if data, err := workspace.ReadFile(fsys, path.Join(dir, n), 1<<20); err == nil {
			return commitOf(string(data))
		}
	}
	return ""
}

// parseCatalog reads SchemaStore's catalog.json.
func parseCatalog(data []byte) ([]assoc.Entry, error) {
	var cat struct {
		Schemas []assoc.Entry `json:"schemas"`
	}
	if err := json.Unmarshal(data, &cat); err != nil {
		return nil, fmt.Errorf("the catalog is not SchemaStore's catalog.json: %v", err)
	}
	return cat.Schemas, nil
}
