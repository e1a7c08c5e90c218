package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The ground truth of bundle: a bundle, compiled where nothing else can be read (no files,
// no resolve map, at another location), must give the verdict of the original schema on
// every instance. Counts go to testdata/*-stats.txt (JSTK_UPDATE=1 rewrites them).

// standalone compiles a bundle with nothing but the built-in meta-schemas at hand, at a
// location unrelated to the original. It reports whether the meta-schema check had to be
// skipped (see the warnings of compound documents that embed older drafts).
func standalone(text []byte, draft *schema.Draft) (*schema.Schema, bool, error) {
	return standaloneWith(text, draft, nil)
}

// standaloneWith is standalone with a loader for custom meta-schemas (which bundles refer
// to by $schema and do not embed).
func standaloneWith(text []byte, draft *schema.Draft, metas *schema.Loader) (*schema.Schema, bool, error) {
	const uri = "file:///elsewhere/bundled.json"
	compile := func(meta bool) (*schema.Schema, error) {
		doc, err := source.ParseJSON("bundled.json", text, nil)
		if err != nil {
			return nil, err
		}
		c := schema.NewCompiler(&schema.Options{Draft: draft, NoMetaValidation: !meta, Loader: metas})
		if err := c.AddDocument(uri, doc); err != nil {
			return nil, err
		}
		return c.Compile(uri)
	}
	s, err := compile(true)
	var se *schema.SchemaError
	if err != nil && errors.As(err, &se) && len(se.Causes) > 0 {
		s, err = compile(false)
		return s, true, err
	}
	return s, false, err
}

// checkBundle bundles, then checks determinism, idempotence and the absence of absolute
// paths.
func checkBundle(t *testing.T, name, uri string, src *source.Document, opts *Options, absPrefix string) (*Result, error) {
	t.Helper()
	res, err := Bundle(context.Background(), name, uri, src, opts)
	if err != nil {
		return nil, err
	}
	again, err := Bundle(context.Background(), name, uri, src, opts)
	if err != nil || !bytes.Equal(again.JSON(), res.JSON()) {
		t.Errorf("%s: bundling twice gave different bytes (%v)", name, err)
	}
	if absPrefix != "" && bytes.Contains(res.JSON(), []byte(absPrefix)) {
		t.Errorf("%s: the bundle contains the absolute path %s", name, absPrefix)
	}
	// Bundling the bundle changes nothing.
	bdoc, err := source.ParseJSON(name, res.JSON(), nil)
	if err != nil {
		t.Fatalf("%s: the bundle is not JSON: %v", name, err)
	}
	// A custom meta-schema is named by $schema, not embedded: the loader provides it.
	var metas *schema.Loader
	if sv, ok := bdoc.Root.Get("$schema"); ok {
		if _, known := schema.DraftByName(sv.Str()); !known {
			metas = opts.Loader
		}
	}
	re, err := Bundle(context.Background(), name, "file:///elsewhere/bundled.json", bdoc, &Options{Draft: opts.Draft, Loader: metas})
	if errors.Is(err, ErrUnresolved) {
		// References left as written where evaluation never goes: say so with the
		// compiled bundle.
		bs, _, cerr := standaloneWith(res.JSON(), opts.Draft, metas)
		if cerr != nil {
			t.Errorf("%s: the bundle does not compile on its own: %v", name, cerr)
			return res, nil
		}
		re, err = Bundle(context.Background(), name, "file:///elsewhere/bundled.json", bdoc, &Options{Draft: opts.Draft, Compiled: bs, Loader: metas})
	}
	if err != nil {
		t.Errorf("%s: bundling the bundle failed: %v", name, err)
	} else if !bytes.Equal(re.JSON(), res.JSON()) {
		t.Errorf("%s: bundling the bundle changed it:\n%s", name, cmp.Diff(string(res.JSON()), string(re.JSON())))
	}
	return res, nil
}

func TestBundleSchemaStore(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	resolveMap := map[string]string{"https://json.schemastore.org/": "src/schemas/json/", "https://www.schemastore.org/": "src/schemas/json/"}
	loader := &schema.Loader{FS: fsys, Resolve: resolveMap}
	files, _ := filepath.Glob(filepath.Join(dir, "src", "schemas", "json", "*.json"))
	sort.Strings(files)
	var (
		total, bundled, withRefs, embedded, metaSkipped, compared, mismatched, warned int
		failures                                                                      []string
	)
	for i, file := range files {
		rel, _ := filepath.Rel(dir, file)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		total++
		uri := schema.FileURI(fsys.Abs(rel))
		doc, err := schema.ParseDocument(rel, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Under the race detector, schemas without references to other documents (whose
		// bundle is the schema itself) are checked in a sample.
		if i%schemaStride != 0 {
			if quick, err := Bundle(context.Background(), rel, uri, doc, &Options{Loader: loader}); err == nil && quick.Mode == "none" {
				bundled++
				continue
			}
		}
		c := schema.NewCompiler(&schema.Options{Loader: loader})
		if err := c.AddDocument(uri, doc); err != nil {
			failures = append(failures, rel+"\tthe schema does not compile")
			continue
		}
		orig, err := c.Compile(uri)
		if err != nil {
			failures = append(failures, rel+"\tthe schema does not compile (unresolvable reference)")
			continue
		}
		res, err := checkBundle(t, rel, uri, doc, &Options{Loader: loader, Compiled: orig}, fsys.Abs("."))
		if err != nil {
			t.Errorf("%s: compiles but does not bundle: %v", rel, err)
			continue
		}
		bundled++
		if len(res.Warnings) > 0 {
			warned++
		}
		if res.Mode == "none" {
			continue
		}
		withRefs++
		embedded += len(res.Embedded)
		bs, skipped, err := standalone(res.JSON(), nil)
		if err != nil {
			t.Errorf("%s: the bundle does not compile on its own: %v", rel, err)
			continue
		}
		if skipped {
			metaSkipped++
		}
		name := strings.TrimSuffix(filepath.Base(rel), ".json")
		for _, sub := range []string{"test", "negative_test"} {
			for _, inst := range corpora.Instances(t, filepath.Join(dir, "src", sub, name)) {
				va, ea := orig.Valid(inst)
				vb, eb := bs.Valid(inst)
				compared++
				if va != vb || (ea == nil) != (eb == nil) {
					mismatched++
					t.Errorf("%s: %s instance: original valid=%v (%v), bundle valid=%v (%v)", rel, sub, va, ea, vb, eb)
				}
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("# bundle on schemastore-dev (go test ./internal/bundle -run TestBundleSchemaStore; JSTK_UPDATE=1 rewrites).\n")
	sb.WriteString("# Each bundle is compiled alone, elsewhere, with no file or mapping at hand, and must give the verdict of the\n")
	sb.WriteString("# original on every positive and negative instance; it must also be deterministic, free of absolute paths,\n")
	sb.WriteString("# and unchanged when bundled again.\n")
	fmt.Fprintf(&sb, "schemas %d  bundled %d  referencing other documents %d  documents embedded %d\n", total, bundled, withRefs, embedded)
	fmt.Fprintf(&sb, "instances compared %d  differing %d\n", compared, mismatched)
	fmt.Fprintf(&sb, "bundles with unresolvable references where evaluation never goes (left as written, with a warning) %d\n", warned)
	fmt.Fprintf(&sb, "bundles the meta-schema check refuses (compound documents embedding older drafts) %d\n", metaSkipped)
	fmt.Fprintf(&sb, "not bundled (the original itself cannot be compiled offline) %d:\n", len(failures))
	for _, f := range failures {
		sb.WriteString("  " + f + "\n")
	}
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/schemastore-stats.txt", sb.String())
}

func TestBundleTestSuiteRemotes(t *testing.T) {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	remotes, err := workspace.Root(filepath.Join(dir, "remotes"))
	if err != nil {
		t.Fatal(err)
	}
	loader := &schema.Loader{FS: remotes, Resolve: map[string]string{"http://localhost:1234/": "."}}
	var sb strings.Builder
	sb.WriteString("# bundle on the JSON-Schema-Test-Suite cases that reference remote documents (http://localhost:1234/,\n")
	sb.WriteString("# served from remotes/ by the loader): each bundle, compiled alone, must give the original's verdict on the\n")
	sb.WriteString("# case's tests (go test ./internal/bundle -run TestBundleTestSuiteRemotes; JSTK_UPDATE=1 rewrites).\n")
	for _, sd := range []struct {
		dir   string
		draft *schema.Draft
	}{{"draft4", schema.Draft4}, {"draft6", schema.Draft6}, {"draft7", schema.Draft7},
		{"draft2019-09", schema.Draft2019}, {"draft2020-12", schema.Draft2020}} {
		cases, withRemote, tests, agree, expected, refused := 0, 0, 0, 0, 0, 0
		for _, sf := range corpora.SuiteFiles(t, dir, sd.dir) {
			rel := sf.Rel
			for ci, tc := range sf.Cases.Items() {
				cases++
				sch, _ := tc.Get("schema")
				text := source.AppendJSONIndent(nil, sch, "", "  ")
				uri := fmt.Sprintf("https://jstk.test/%s/%s/%d.json", sd.dir, strings.TrimSuffix(rel, ".json"), ci)
				name := fmt.Sprintf("%s/%s#%d", sd.dir, rel, ci)
				sdoc, _ := source.ParseJSON(name, text, nil)
				c := schema.NewCompiler(&schema.Options{Loader: loader, Draft: sd.draft})
				if err := c.AddDocument(uri, sdoc); err != nil {
					continue
				}
				orig, err := c.Compile(uri)
				if err != nil {
					continue
				}
				res, err := checkBundle(t, name, uri, sdoc, &Options{Loader: loader, Draft: sd.draft, Compiled: orig}, "")
				if errors.Is(err, ErrDraftMix) {
					refused++
					fmt.Fprintf(&sb, "  refused: %s: %v\n", name, err)
					continue
				}
				if err != nil {
					t.Errorf("%s: compiles but does not bundle: %v", name, err)
					continue
				}
				if res.Mode == "none" {
					continue
				}
				withRemote++
				bs, _, err := standalone(res.JSON(), sd.draft)
				if err != nil {
					t.Errorf("%s: the bundle does not compile on its own: %v\n%s", name, err, res.JSON())
					continue
				}
				ts, _ := tc.Get("tests")
				for _, test := range ts.Items() {
					d, _ := test.Get("data")
					want, _ := test.Get("valid")
					va, _ := orig.Valid(d)
					vb, _ := bs.Valid(d)
					tests++
					if va == vb {
						agree++
					} else {
						td, _ := test.Get("description")
						t.Errorf("%s: %s: original valid=%v, bundle valid=%v", name, td.Str(), va, vb)
					}
					if vb == want.Bool() {
						expected++
					}
				}
			}
		}
		fmt.Fprintf(&sb, "%-13s cases %4d  bundled with remote documents %3d  refused (draft mix) %d  tests %4d  bundle agrees with original %4d  bundle gives the suite's answer %4d\n",
			sd.dir, cases, withRemote, refused, tests, agree, expected)
	}
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/suite-remotes-stats.txt", sb.String())
}
