package diff

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/openapi/fixture"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func readPairs(t testing.TB) []fixture.Pair {
	t.Helper()
	pairs, err := fixture.Read(filepath.Join("..", "..", fixture.Dir))
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

func openAPIDoc(t testing.TB, fsys workspace.FS, name, text string) *openapi.Document {
	t.Helper()
	doc, err := schema.ParseDocument(name, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := openapi.Open(doc, name, schema.FileURI(fsys.Abs(name)), &schema.Options{Loader: &schema.Loader{FS: fsys}})
	if d == nil {
		t.Fatalf("%s is not an OpenAPI or AsyncAPI document", name)
	}
	return d
}

// TestDocumentPairs compares every fixture pair (internal/openapi/testdata/pairs) and checks
// the verdict at each location against what the fixture states.
func TestDocumentPairs(t *testing.T) {
	pairs := readPairs(t)
	if len(pairs) < 30 {
		t.Errorf("%d fixture pairs; the proof asks for at least 30", len(pairs))
	}
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			fsys := workspace.Memory(p.Files)
			old := openAPIDoc(t, fsys, p.Old, p.Files[p.Old])
			new := openAPIDoc(t, fsys, p.New, p.Files[p.New])
			res, err := CompareDocuments(context.Background(), old, new, &Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			want, limits := p.Expected()
			for _, l := range limits {
				t.Logf("known limitation: %s", l)
			}
			if diff := cmp.Diff(want, VerdictLines(res)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if res.Check == nil || res.Check.Passed != p.CheckPasses() {
				t.Errorf("check %+v, want passed = %v", res.Check, p.CheckPasses())
			}
			// every location that breaks is shown so by an example valid under one side
			for _, l := range res.Document.Locations {
				if l.Verdict == Incompatible && len(l.Example) == 0 {
					t.Errorf("%s: incompatible without an example", l.Location)
				}
			}
		})
	}
}
