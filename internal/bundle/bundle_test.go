package bundle

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// archive is a txtar file: a comment, then "-- name --" sections.
type archive struct {
	comment string
	names   []string
	files   map[string]string
}

func parseArchive(text string) *archive {
	a := &archive{files: map[string]string{}}
	cur := ""
	var sb strings.Builder
	flush := func() {
		if cur == "" {
			a.comment = sb.String()
		} else {
			a.files[cur] = sb.String()
		}
		sb.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur = t[3 : len(t)-3]
			a.names = append(a.names, cur)
			continue
		}
		sb.WriteString(line)
	}
	flush()
	return a
}

func (a *archive) format() string {
	var sb strings.Builder
	sb.WriteString(a.comment)
	for _, n := range a.names {
		sb.WriteString("-- " + n + " --\n")
		c := a.files[n]
		if c != "" && !strings.HasSuffix(c, "\n") {
			c += "\n"
		}
		sb.WriteString(c)
	}
	return sb.String()
}

// bundleFiles bundles the root of an in-memory workspace the way the bundle tool does:
// compile first (the schema must be valid), then bundle.
func bundleFiles(files map[string]string, root string, resolveMap map[string]string) (*Result, error) {
	fsys := workspace.Memory(files)
	loader := &schema.Loader{FS: fsys, Resolve: resolveMap}
	doc, err := schema.ParseDocument(root, []byte(files[root]), nil)
	if err != nil {
		return nil, err
	}
	uri := schema.FileURI(fsys.Abs(root))
	c := schema.NewCompiler(&schema.Options{Loader: loader})
	opts := &Options{Loader: loader}
	if err := c.AddDocument(uri, doc); err == nil {
		if s, err := c.Compile(uri); err == nil {
			opts.Compiled = s
		}
	}
	return Bundle(context.Background(), root, uri, doc, opts)
}

// TestGolden bundles each testdata/golden/*.txtar and compares the bundle (JSON, and YAML
// when asked) or the error with the archive's want sections; the bundle must also accept
// valid.json and reject invalid.json as the original does, on its own.
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(data))
			args := strings.Fields(a.files["args"])
			root := args[0]
			resolveMap := map[string]string{}
			for _, r := range args[1:] {
				u, path, _ := strings.Cut(r, "=")
				resolveMap[u] = path
			}
			files := map[string]string{}
			for n, c := range a.files {
				if n != "args" && !strings.HasPrefix(n, "want.") && n != "valid.json" && n != "invalid.json" {
					files[n] = c
				}
			}
			res, err := bundleFiles(files, root, resolveMap)
			got := map[string]string{}
			if err != nil {
				got["want.err"] = err.Error() + "\n"
			} else {
				got["want.json"] = string(res.JSON())
				if _, ok := a.files["want.yaml"]; ok {
					y, err := res.YAML()
					if err != nil {
						t.Fatal(err)
					}
					got["want.yaml"] = string(y)
				}
			}
			if os.Getenv("JSTK_UPDATE") != "" {
				for n := range got {
					if _, ok := a.files[n]; !ok {
						a.names = append(a.names, n)
					}
					a.files[n] = got[n]
				}
				if err := os.WriteFile(p, []byte(a.format()), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				for _, n := range a.names {
					if !strings.HasPrefix(n, "want.") {
						continue
					}
					if diff := cmp.Diff(a.files[n], got[n]); diff != "" {
						t.Errorf("%s: -want +got:\n%s", n, diff)
					}
				}
			}
			if res == nil {
				return
			}
			checkVerdicts(t, files, root, resolveMap, res, a)
			if y, ok := got["want.yaml"]; ok {
				// The YAML reads back as the same schema.
				docs, err := source.ParseYAML("b.yaml", []byte(y), nil)
				if err != nil || len(docs) != 1 || !source.Equal(docs[0].Root, res.Value()) {
					t.Errorf("the YAML bundle does not read back as the bundle (%v)", err)
				}
			}
		})
	}
}

func checkVerdicts(t *testing.T, files map[string]string, root string, resolveMap map[string]string, res *Result, a *archive) {
	t.Helper()
	fsys := workspace.Memory(files)
	loader := &schema.Loader{FS: fsys, Resolve: resolveMap}
	odoc, _ := schema.ParseDocument(root, []byte(files[root]), nil)
	c := schema.NewCompiler(&schema.Options{Loader: loader})
	uri := schema.FileURI(fsys.Abs(root))
	if err := c.AddDocument(uri, odoc); err != nil {
		t.Fatal(err)
	}
	orig, err := c.Compile(uri)
	if err != nil {
		t.Fatal(err)
	}
	bs, _, err := standalone(res.JSON(), nil)
	if err != nil {
		t.Fatalf("the bundle does not compile on its own: %v", err)
	}
	for _, tc := range []struct {
		file string
		want bool
	}{{"valid.json", true}, {"invalid.json", false}} {
		text, ok := a.files[tc.file]
		if !ok {
			continue
		}
		doc, err := source.ParseJSON(tc.file, []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		vo, _ := orig.Valid(doc.Root)
		vb, _ := bs.Valid(doc.Root)
		if vo != tc.want || vb != tc.want {
			t.Errorf("%s: original valid=%v, bundle valid=%v, want %v", tc.file, vo, vb, tc.want)
		}
	}
}

func TestBundleErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"unresolved", map[string]string{"r.json": `{"$ref": "nope.json"}`}, ErrUnresolved},
		{"bad reference", map[string]string{"r.json": `{"$ref": "http://[::1"}`}, ErrUnresolved},
		{"draft mix 4 into 7", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": true}`,
		}, ErrDraftMix},
		{"draft mix 2019 $ref siblings into 6", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-06/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "https://json-schema.org/draft/2019-09/schema", "$ref": "#/$defs/a", "minimum": 1, "$defs": {"a": {}}}`,
		}, ErrDraftMix},
		{"draft mix 2020 prefixItems into 7", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "string"}]}`,
		}, ErrDraftMix},
		{"draft mix 2020 format beside $ref into 7", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a", "format": "date", "$defs": {"a": {}}}`,
		}, ErrDraftMix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bundleFiles(tc.files, "r.json", nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestBundleCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		files    map[string]string
		mode     string
		embedded []string
		warnings int
	}{
		{"boolean root", map[string]string{"r.json": `true`}, "none", nil, 0},
		{"draft 6 into 7 without differing keywords", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "http://json-schema.org/draft-06/schema#", "type": "string"}`,
		}, "inline", []string{"d.json"}, 0},
		{"2020-12 with annotations and identifiers beside $ref into 7", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "d.json"}`,
			"d.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/a", "title": "t",
				"$comment": "c", "$dynamicAnchor": "x", "contentSchema": {"type": "string"}, "$defs": {"a": {"type": "string"}}}`,
		}, "inline", []string{"d.json"}, 0},
		{"boolean document embedded", map[string]string{
			"r.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {"$ref": "f.json"}}}`,
			"f.json": `false`,
		}, "compound", []string{"f.json"}, 0},
		{"older draft embedded in a compound document", map[string]string{
			"r.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "d.json"}`,
			"d.json": `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "d.json", "type": "string"}`,
		}, "compound", []string{"d.json"}, 1},
		{"unresolvable reference where evaluation never goes", map[string]string{
			"r.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "$defs": {"dead": {"$ref": "gone.json"}}}`,
		}, "none", nil, 1},
		{"meta-schema references stay", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$ref": "http://json-schema.org/draft-07/schema#"}`,
		}, "none", nil, 0},
		{"existing definitions keep their place", map[string]string{
			"r.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"d.json": {"type": "null"}}, "anyOf": [{"$ref": "d.json"}, {"$ref": "#/definitions/d.json"}]}`,
			"d.json": `{"type": "string"}`,
		}, "inline", []string{"d.json"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := bundleFiles(tc.files, "r.json", nil)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range res.Embedded {
				ids = append(ids, e.ID)
			}
			sort.Strings(ids)
			if diff := cmp.Diff(tc.embedded, ids); diff != "" || res.Mode != tc.mode || len(res.Warnings) != tc.warnings {
				t.Errorf("mode %s (want %s), embedded %v (want %v), warnings %v (want %d)\n%s", res.Mode, tc.mode, ids, tc.embedded,
					res.Warnings, tc.warnings, res.JSON())
			}
			if _, _, err := standalone(res.JSON(), nil); err != nil && tc.name != "meta-schema references stay" {
				t.Errorf("the bundle does not compile on its own: %v\n%s", err, res.JSON())
			}
			if !bytes.HasSuffix(res.JSON(), []byte("\n")) {
				t.Error("JSON output must end with a newline")
			}
		})
	}
}
