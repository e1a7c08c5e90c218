package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/source"
)

// The JSON-Schema-Test-Suite's output-tests/ folder: for each release jstk supports,
// every test's output, in each format the test gives a schema for, must validate against
// that schema; and every format's output of every test must validate against the
// release's output-schema.json. v1 is counted as not run: jstk has no v1 dialect, and its
// "list" format is not one of 2020-12's. The counts are compared with
// testdata/output-stats.txt (JSTK_UPDATE=1 rewrites); every check must pass.

func TestOutputSuite(t *testing.T) {
	root := filepath.Join(corpora.Dir(t, "JSON-Schema-Test-Suite"), "output-tests")
	releases := []struct {
		dir   string
		draft *Draft
	}{{"draft2019-09", Draft2019}, {"draft2020-12", Draft2020}}
	var sb strings.Builder
	sb.WriteString("# JSON-Schema-Test-Suite output-tests/ pass counts (go test ./internal/schema -run TestOutputSuite; JSTK_UPDATE=1 rewrites)\n")
	for _, rel := range releases {
		dir := filepath.Join(root, rel.dir)
		osData, err := os.ReadFile(filepath.Join(dir, "output-schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		osDoc, err := source.ParseJSON("output-schema.json", osData, nil)
		if err != nil {
			t.Fatal(err)
		}
		osID, _ := osDoc.Root.Get("$id")
		c := NewCompiler(&Options{Draft: Draft2020})
		if err := c.AddDocument(osID.Str(), osDoc); err != nil {
			t.Fatal(err)
		}
		outputSchema, err := c.Compile(osID.Str())
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "content", "*.json"))
		sort.Strings(files)
		var given, givenPass, shape, shapePass int
		for fi, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := source.ParseJSON(f, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			for ci, tc := range doc.Root.Items() {
				desc, _ := tc.Get("description")
				sch, _ := tc.Get("schema")
				s, err := compileInline(sch, fmt.Sprintf("https://jstk.test/output/%s/%d/%d.json", rel.dir, fi, ci), &Options{Draft: rel.draft})
				if err != nil {
					t.Errorf("%s %s: %v", rel.dir, desc.Str(), err)
					continue
				}
				tests, _ := tc.Get("tests")
				for _, test := range tests.Items() {
					td, _ := test.Get("description")
					inst, _ := test.Get("data")
					output, _ := test.Get("output")
					id := fmt.Sprintf("%s/%s: %s / %s", rel.dir, filepath.Base(f), desc.Str(), td.Str())
					for _, format := range OutputFormats {
						out, err := s.Output(context.Background(), inst, format)
						if err != nil {
							t.Errorf("%s (%s): %v", id, format, err)
							continue
						}
						b, err := json.Marshal(out)
						if err != nil {
							t.Fatal(err)
						}
						got, err := source.ParseJSON("output.json", b, nil)
						if err != nil {
							t.Fatal(err)
						}
						shape++
						if errs, _ := outputSchema.Validate(got.Root); len(errs) > 0 {
							t.Errorf("%s (%s): the output %s is not valid against output-schema.json: %s at %s", id, format, b, errs[0].Message, errs[0].KeywordLocation)
						} else {
							shapePass++
						}
						want, ok := output.Get(string(format))
						if !ok {
							continue
						}
						given++
						wdoc, err := source.ParseJSON("want.json", source.AppendJSON(nil, want), nil)
						if err != nil {
							t.Fatal(err)
						}
						wid, _ := want.Get("$id")
						if err := c.AddDocument(wid.Str(), wdoc); err != nil {
							t.Fatal(err)
						}
						ws, err := c.Compile(wid.Str())
						if err != nil {
							t.Fatalf("%s: the test's %s schema: %v", id, format, err)
						}
						if errs, _ := ws.Validate(got.Root); len(errs) > 0 {
							t.Errorf("%s (%s): the output %s fails the test: %s at %s", id, format, b, errs[0].Message, errs[0].KeywordLocation)
						} else {
							givenPass++
						}
					}
				}
			}
		}
		fmt.Fprintf(&sb, "%-13s tests' formats %3d / %3d  %6.2f%%   every format against output-schema.json %3d / %3d\n",
			rel.dir, givenPass, given, 100*float64(givenPass)/float64(max(given, 1)), shapePass, shape)
	}
	v1, _ := filepath.Glob(filepath.Join(root, "v1", "content", "*.json"))
	fmt.Fprintf(&sb, "v1            not run: %d files of the v1 dialect (its list format), which jstk does not support\n", len(v1))
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/output-stats.txt", sb.String())
}
