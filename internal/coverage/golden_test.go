package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Golden tests: each testdata/*.txtar holds a schema (schema.json), its inputs, the four
// counts worked out by hand (-- counts --, never rewritten), and the three outputs
// (want.txt, want.json, want.lcov), which JSTK_UPDATE=1 rewrites.

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			mem := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
				if !strings.HasPrefix(f.Name, "want") && f.Name != "counts" && f.Name != "options" {
					mem[f.Name] = string(f.Data)
				}
			}
			fsys := workspace.Memory(mem)
			s := compileFile(t, fsys, "schema.json")
			opts := &Options{Options: schematest.Options{FS: fsys}}
			var srcs []Source
			for _, line := range strings.Split(strings.TrimSpace(sections["options"]), "\n") {
				key, val, _ := strings.Cut(line, " ")
				switch key {
				case "inputs":
					for _, in := range strings.Fields(val) {
						srcs = append(srcs, Source{Name: in, Path: in})
					}
				case "ignore":
					opts.Ignore = append(opts.Ignore, val)
				case "fail-under":
					k, p, _ := strings.Cut(val, "=")
					var pct float64
					fmt.Sscan(p, &pct)
					if opts.FailUnder == nil {
						opts.FailUnder = map[Kind]float64{}
					}
					opts.FailUnder[Kind(k)] = pct
				}
			}
			res, err := Measure(context.Background(), s, srcs, opts)
			if err != nil {
				t.Fatal(err)
			}
			var counts []string
			for _, k := range Kinds {
				r := res.Summary.of(k)
				counts = append(counts, fmt.Sprintf("%s %d/%d", k, r.Covered, r.Total))
			}
			if diff := cmp.Diff(strings.TrimSpace(sections["counts"]), strings.Join(counts, "\n")); diff != "" {
				t.Errorf("counts differ from the hand-checked ones (-hand +measured):\n%s", diff)
			}
			var text, js, lcov bytes.Buffer
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&js)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res); err != nil {
				t.Fatal(err)
			}
			if err := res.WriteFormat(&lcov, "lcov"); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"want.txt": text.String(), "want.json": js.String(), "want.lcov": lcov.String()}
			if os.Getenv("JSTK_UPDATE") != "" {
				var kept []txtar.File
				for _, f := range ar.Files {
					if !strings.HasPrefix(f.Name, "want") {
						kept = append(kept, f)
					}
				}
				for _, name := range []string{"want.txt", "want.json", "want.lcov"} {
					kept = append(kept, txtar.File{Name: name, Data: []byte(got[name])})
				}
				ar.Files = kept
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"want.txt", "want.json", "want.lcov"} {
				if diff := cmp.Diff(sections[name], got[name]); diff != "" {
					t.Errorf("%s differs (-want +got; JSTK_UPDATE=1 rewrites):\n%s", name, diff)
				}
			}
		})
	}
}

// compileFile compiles a schema file of an FS as the CLI does.
func compileFile(t *testing.T, fsys workspace.FS, name string) *schema.Schema {
	t.Helper()
	c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys, IndexRoot: "."}})
	s, err := c.Compile(schema.FileURI(fsys.Abs(name)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
