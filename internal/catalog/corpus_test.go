package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// schemaStoreResolve maps SchemaStore's URIs to its files, as the corpus's PROVENANCE.md
// says.
var schemaStoreResolve = map[string]string{
	"https://json.schemastore.org/": "src/schemas/json/",
	"https://www.schemastore.org/":  "src/schemas/json/",
}

func schemaStoreFS(tb testing.TB) workspace.FS {
	tb.Helper()
	fsys, err := workspace.Root(corpora.Dir(tb, "schemastore-dev"))
	if err != nil {
		tb.Fatal(err)
	}
	return fsys
}

// schemaStoreStats renders what a scan of schemastore-dev found, for the committed stats
// file: the counts, and every schema outside src/schemas/json or that does not compile, with
// its reason.
func schemaStoreStats(w *Workspace) string {
	var sb strings.Builder
	sc := w.Scanned()
	fmt.Fprintf(&sb, "# list_schemas over schemastore-dev, with the resolve map https://json.schemastore.org/ and\n"+
		"# https://www.schemastore.org/ -> src/schemas/json/ (go test ./internal/catalog -run TestSchemaStore;\n"+
		"# JSTK_UPDATE=1 rewrites this file).\n")
	fmt.Fprintf(&sb, "files %d  schemas %d  invalid %d  uncompilable %d  unparsable %d  skipped %d  cut %q\n",
		sc.Files, sc.Schemas, sc.Invalid, sc.Uncompilable, sc.Unparsable, sc.SkippedCount, sc.Cut)
	by := map[string]int{}
	var refs RefCounts
	var outside, broken []string
	for _, s := range w.schemas {
		e := s.entry
		by[e.DetectedBy]++
		_, n := s.orderedRefs()
		refs.Total += n.Total
		refs.Local += n.Local
		refs.Workspace += n.Workspace
		refs.Builtin += n.Builtin
		refs.Unresolved += n.Unresolved
		if !strings.HasPrefix(e.Path, "src/schemas/json/") {
			outside = append(outside, fmt.Sprintf("  %s (%s)", e.Path, e.DetectedBy))
		}
		if !e.Valid || !e.Compiles {
			// The reason, without the schema package's explanation of unresolved references.
			reason, _, _ := strings.Cut(e.Problem, ": unresolved reference")
			broken = append(broken, fmt.Sprintf("  %s: %s", e.Path, reason))
		}
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sb.WriteString("detected by")
	for _, k := range keys {
		fmt.Fprintf(&sb, "  %s %d", k, by[k])
	}
	fmt.Fprintf(&sb, "\nreferences %d  local %d  workspace %d  built-in %d  unresolved %d\n",
		refs.Total, refs.Local, refs.Workspace, refs.Builtin, refs.Unresolved)
	fmt.Fprintf(&sb, "schemas outside src/schemas/json (%d):\n%s\n", len(outside), strings.Join(outside, "\n"))
	fmt.Fprintf(&sb, "not valid or not compiling (%d), each for the reason given:\n%s\n", len(broken), strings.Join(broken, "\n"))
	return sb.String()
}

// TestSchemaStore catalogs schemastore-dev and compares what it found with the committed
// stats; every schema's Compiles is checked against the schema package compiling it the
// way validate does (sampled under the race detector).
func TestSchemaStore(t *testing.T) {
	fsys := schemaStoreFS(t)
	w, err := Scan(context.Background(), fsys, &Options{Resolve: schemaStoreResolve})
	if err != nil {
		t.Fatal(err)
	}
	got := schemaStoreStats(w)
	file := filepath.Join("testdata", "schemastore-stats.txt")
	if os.Getenv("JSTK_UPDATE") != "" {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("schemastore-dev catalog changed (-want +got; JSTK_UPDATE=1 to accept):\n%s", diff)
		}
	}
	loader := &schema.Loader{FS: fsys, IndexRoot: ".", Resolve: schemaStoreResolve}
	for i, e := range w.Entries() {
		if i%corpusStride != 0 {
			continue
		}
		_, err := schema.NewCompiler(&schema.Options{Loader: loader}).Compile(schema.FileURI(fsys.Abs(e.Path)))
		if (err == nil) != e.Compiles {
			t.Errorf("%s: the catalog says compiles=%v, the compiler says %v", e.Path, e.Compiles, err)
		}
	}
	// Every schema that references base.json is listed as referencing it, and base.json's
	// context lists every one of those references.
	c := w.Context("https://json.schemastore.org/base.json", ContextLimits{})
	from := map[string]bool{}
	for _, in := range c.ReferencedBy {
		from[in.Path] = true
	}
	n := 0
	for _, e := range w.Entries() {
		for _, r := range e.References {
			if r == "https://json.schemastore.org/base.json" {
				n++
				if !from[e.Path] {
					t.Errorf("%s references base.json, which does not list it", e.Path)
				}
			}
		}
	}
	if n == 0 || n != len(from) || c.Schema.ReferencedBy != n {
		t.Errorf("base.json: %d schemas reference it, its context lists %d, its entry counts %d", n, len(from), c.Schema.ReferencedBy)
	}
}

// BenchmarkSchemaStore measures a cold catalog of schemastore-dev: listing, reading and
// parsing every file, checking every schema against its meta-schema and compiling it.
func BenchmarkSchemaStore(b *testing.B) {
	fsys := schemaStoreFS(b)
	for b.Loop() {
		w, err := Scan(context.Background(), fsys, &Options{Resolve: schemaStoreResolve})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.List(Query{Limit: 100}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchemaStoreCached measures a call of a session on an unchanged workspace: the
// listing and the comparison of every file's size and time with the cached scan, then one
// schema's context.
func BenchmarkSchemaStoreCached(b *testing.B) {
	fsys := schemaStoreFS(b)
	opts := &Options{Resolve: schemaStoreResolve, Cache: NewCache()}
	if _, err := Scan(context.Background(), fsys, opts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		w, err := Scan(context.Background(), fsys, opts)
		if err != nil {
			b.Fatal(err)
		}
		if c := w.Context("https://json.schemastore.org/base.json", ContextLimits{Limit: 100}); !c.Found {
			b.Fatal(c.Error)
		}
	}
}
