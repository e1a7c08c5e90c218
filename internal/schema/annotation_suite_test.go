package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/source"
)

// The JSON-Schema-Test-Suite's annotations/ folder: every case is run in every supported
// draft its "compatibility" admits, each assertion (which schema locations annotate one
// instance location with one keyword, and with what) checked against Annotate. The pass
// counts are compared with testdata/annotation-stats.txt (JSTK_UPDATE=1 rewrites); every
// assertion must pass.

// compatible reports whether a test case's "compatibility" admits draft version ver
// ("" admits every draft; "9999" marks features of no released draft).
func compatible(spec string, ver int) bool {
	if spec == "" {
		return true
	}
	for _, c := range strings.Split(spec, ",") {
		c = strings.TrimSpace(c)
		op := ""
		for _, p := range []string{"<=", "="} {
			if strings.HasPrefix(c, p) {
				op, c = p, strings.TrimPrefix(c, p)
				break
			}
		}
		n, err := strconv.Atoi(c)
		if err != nil {
			return false
		}
		switch op {
		case "<=":
			if ver > n {
				return false
			}
		case "=":
			if ver != n {
				return false
			}
		default:
			if ver < n {
				return false
			}
		}
	}
	return true
}

func TestAnnotationSuite(t *testing.T) {
	dir := filepath.Join(corpora.Dir(t, "JSON-Schema-Test-Suite"), "annotations", "tests")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no annotation tests in %s (%v): the corpus is incomplete", dir, err)
	}
	sort.Strings(files)
	type count struct{ pass, total, excluded int }
	stats := map[string]*count{}
	for _, sd := range suiteDrafts {
		stats[sd.dir] = &count{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := source.ParseJSON(f, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			suite, _ := doc.Root.Get("suite")
			for ci, tc := range suite.Items() {
				compat, _ := tc.Get("compatibility")
				if !compatible(compat.Str(), sd.draft.Version) {
					stats[sd.dir].excluded++
					continue
				}
				desc, _ := tc.Get("description")
				sch, _ := tc.Get("schema")
				uri := fmt.Sprintf("https://jstk.test/annotations/%s/%s/%d.json", sd.dir, strings.TrimSuffix(filepath.Base(f), ".json"), ci)
				s, cerr := compileInline(sch, uri, &Options{Draft: sd.draft})
				tests, _ := tc.Get("tests")
				for ti, test := range tests.Items() {
					inst, _ := test.Get("instance")
					asserts, _ := test.Get("assertions")
					var anns []AnnotationUnit
					var aerr error
					if cerr == nil {
						_, anns, aerr = s.Annotate(context.Background(), inst)
					}
					for ai, a := range asserts.Items() {
						id := fmt.Sprintf("%s/%s: %s / test %d / assertion %d", sd.dir, filepath.Base(f), desc.Str(), ti, ai)
						stats[sd.dir].total++
						if cerr != nil || aerr != nil {
							t.Errorf("%s: %v %v", id, cerr, aerr)
							continue
						}
						if msg := checkAssertion(a, anns); msg != "" {
							t.Errorf("%s: %s", id, msg)
							continue
						}
						stats[sd.dir].pass++
					}
				}
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("# JSON-Schema-Test-Suite annotations/ pass counts (assertions; go test ./internal/schema -run TestAnnotationSuite; JSTK_UPDATE=1 rewrites)\n")
	for _, sd := range suiteDrafts {
		c := stats[sd.dir]
		fmt.Fprintf(&sb, "%-13s %5d / %5d  %6.2f%%  (%d cases outside their compatibility not run)\n", sd.dir, c.pass, c.total, 100*float64(c.pass)/float64(c.total), c.excluded)
	}
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/annotation-stats.txt", sb.String())
}

// checkAssertion compares one assertion with the annotations found: the same schema
// locations annotate its location with its keyword, with the same values. It returns
// what differs ("" when nothing).
func checkAssertion(a source.Value, anns []AnnotationUnit) string {
	loc, _ := a.Get("location")
	kw, _ := a.Get("keyword")
	expected, _ := a.Get("expected")
	want := map[string]any{}
	for i := 0; i < expected.Len(); i++ {
		k, v := expected.Member(i)
		frag, err := url.PathUnescape(k.Str())
		if err != nil {
			return fmt.Sprintf("bad schema location %q", k.Str())
		}
		want[frag] = canonical(source.AppendJSON(nil, v))
	}
	got := map[string]any{}
	for _, an := range anns {
		if an.InstanceLocation != loc.Str() || an.Keyword != kw.Str() {
			continue
		}
		_, ptr := an.Schema().Pointer()
		got["#"+ptr] = canonical(an.Value)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s at %q: got %v, want %v", kw.Str(), loc.Str(), got, want)
	}
	return ""
}

func canonical(b []byte) any {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return "invalid JSON: " + string(b)
	}
	return x
}
