package document

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/openapi/fixture"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func readPairs(t testing.TB) []fixture.Pair {
	t.Helper()
	pairs, err := fixture.Read(filepath.Join("..", "..", "..", fixture.Dir))
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
			res, err := Compare(context.Background(), old, new, &diff.Options{Check: true})
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
				if l.Verdict == diff.Incompatible && len(l.Example) == 0 {
					t.Errorf("%s: incompatible without an example", l.Location)
				}
			}
		})
	}
}

func TestCompareDocumentsErrorsAndOptions(t *testing.T) {
	fsys := workspace.Memory(nil)
	oas := openAPIDoc(t, fsys, "a.yaml", "openapi: 3.0.3\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string, maxLength: 5}\n    B: {type: [string]}\n")
	oas2 := openAPIDoc(t, fsys, "b.yaml", "openapi: 3.0.3\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string, maxLength: 3}\n    B: {type: string}\n")
	async := openAPIDoc(t, fsys, "c.json", `{"asyncapi": "2.6.0"}`)
	sw := openAPIDoc(t, fsys, "d.json", `{"swagger": "2.0"}`)
	ctx := context.Background()
	for _, tc := range []struct {
		old, new *openapi.Document
		want     string
	}{
		{nil, oas, "both documents are needed"},
		{oas, async, "cannot compare an OpenAPI 3.0.3 document with an AsyncAPI 2.6.0 document"},
		{sw, sw, "the documents are Swagger 2.0, which is not compared"},
		{oas, oas2, "old component schema B"}, // type as a list is no OpenAPI 3.0
	} {
		_, err := Compare(ctx, tc.old, tc.new, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q in it", err, tc.want)
		}
	}
	if _, err := Compare(ctx, oas2, oas2, &diff.Options{Direction: "sideways"}); err == nil {
		t.Error("a bad direction accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Compare(cancelled, oas2, oas2, nil); err == nil {
		t.Error("a cancelled comparison ran")
	}
	// an unused component: compared, not checked; asked a direction, every location is
	// judged in it
	old := openAPIDoc(t, fsys, "o.yaml", "openapi: 3.0.3\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string, maxLength: 5}\n")
	new := openAPIDoc(t, fsys, "n.yaml", "openapi: 3.0.3\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string, maxLength: 3}\n")
	r, err := Compare(ctx, old, new, &diff.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != diff.Compatible || !r.Check.Passed || r.Backward != diff.Incompatible || r.Changes[0].Direction != "none" {
		t.Errorf("unused component: verdict %s, check %+v, backward %s, change %+v", r.Verdict, r.Check, r.Backward, r.Changes[0])
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"  unused    component schema A: backward incompatible, forward compatible",
		"at component schema A (not used by any operation: not checked)"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
	for dir, want := range map[string]diff.Verdict{diff.Backward: diff.Incompatible, diff.Forward: diff.Compatible, diff.Full: diff.Incompatible} {
		r, err := Compare(ctx, old, new, &diff.Options{Direction: dir, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != want || r.Direction != dir || r.Document.Locations[0].Direction != dir {
			t.Errorf("direction %s: verdict %s (want %s), %+v", dir, r.Verdict, want, r.Document.Locations[0])
		}
	}
	// paging cuts the locations too
	r.Cut(1, 1)
	if r.Document.Omitted != 1 || len(r.Document.Locations) != 0 {
		t.Errorf("cut: %+v", r.Document)
	}
	text.Reset()
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "(1 more locations not shown") {
		t.Errorf("cut text (%v):\n%s", err, text.String())
	}
}

// A location the search cannot settle is "MAY BREAK"; notes say what was not followed.
func TestDocumentTextMayBreakAndNotes(t *testing.T) {
	fsys := workspace.Memory(nil)
	old := openAPIDoc(t, fsys, "o.json", `{"openapi": "3.1.0", "paths": {"/p": {"put": {"requestBody": {"content": {"application/json": {
	  "schema": {"type": "array", "prefixItems": [{}]}}}}, "parameters": [{"$ref": "x.yaml#/p"}], "responses": {}}}}}`)
	new := openAPIDoc(t, fsys, "n.json", `{"openapi": "3.1.0", "paths": {"/p": {"put": {"requestBody": {"content": {"application/json": {
	  "schema": {"type": "array", "prefixItems": [{}], "items": false}}}}, "responses": {}}}}}`)
	r, err := Compare(context.Background(), old, new, &diff.Options{SearchBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"MAY BREAK PUT /p request body application/json: backward unknown",
		`note: old: /paths/~1p/put/parameters/0: the reference "x.yaml#/p" to another document is not followed`} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
	if r.Search.BudgetMs != 0 {
		t.Errorf("budget %d", r.Search.BudgetMs)
	}
}

// A change of an API the new document lacks is located in the old one; diagnostics name the
// location.
func TestDocumentDiagnostics(t *testing.T) {
	fsys := workspace.Memory(nil)
	old := openAPIDoc(t, fsys, "o.yaml", "openapi: 3.0.3\npaths:\n  /a:\n    get:\n      responses: {}\n")
	new := openAPIDoc(t, fsys, "n.yaml", "openapi: 3.0.3\npaths: {}\n")
	r, err := Compare(context.Background(), old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := r.Diagnostics()
	if len(ds) != 1 || ds[0].File != "o.yaml" || ds[0].Line != 4 || ds[0].Pointer != "/paths/~1a/get" ||
		!strings.HasPrefix(ds[0].Message, "GET /a: ") || ds[0].Severity != "error" {
		t.Errorf("diagnostics %+v", ds)
	}
}

// Every fixture document compared with itself: compatible, nothing changed, nothing compiled.
func TestDocumentAgainstItself(t *testing.T) {
	for _, p := range readPairs(t) {
		for _, name := range []string{p.Old, p.New} {
			fsys := workspace.Memory(p.Files)
			a := openAPIDoc(t, fsys, name, p.Files[name])
			b := openAPIDoc(t, fsys, name, p.Files[name])
			r, err := Compare(context.Background(), a, b, &diff.Options{Check: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != diff.Compatible || r.Backward != diff.Compatible || r.Forward != diff.Compatible || len(r.Changes) != 0 ||
				r.Document.Unchanged != r.Document.Compared || !r.Check.Passed {
				t.Errorf("%s %s against itself: %v", p.Name, name, VerdictLines(r))
			}
		}
	}
}

// chainDocument is an OpenAPI document whose response reaches, through hops components that
// refer to each other, a last schema of type last.
func chainDocument(hops int, last string) string {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/p": {"get": {"responses": {"200": {"description": "ok",
	  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}}}, "components": {"schemas": {`)
	for i := range hops {
		if i%2 == 0 {
			fmt.Fprintf(&b, `"S%d": {"$ref": "#/components/schemas/S%d"}, `, i, i+1)
		} else {
			fmt.Fprintf(&b, `"S%d": {"type": "object", "properties": {"x": {"$ref": "#/components/schemas/S%d"}}}, `, i, i+1)
		}
	}
	fmt.Fprintf(&b, `"S%d": {"type": %q}}}}`, hops, last)
	return b.String()
}

// Two documents whose components form a chain of references: every component reaches the
// end. Whether each location is unchanged is decided once per reference target (a chain of
// thousands is linear, with no recursion); the comparisons share one budget, and those it
// leaves out are unknown, said in the text and the notes, never compatible.
func TestDocumentChainAndBudget(t *testing.T) {
	fsys := workspace.Memory(nil)
	old := openAPIDoc(t, fsys, "o.json", chainDocument(200, "string"))
	same := openAPIDoc(t, fsys, "s.json", chainDocument(200, "string"))
	new := openAPIDoc(t, fsys, "n.json", chainDocument(200, "integer"))
	r, err := Compare(context.Background(), old, same, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != diff.Compatible || r.Document.Unchanged != r.Document.Compared || r.Document.Compared != 202 {
		t.Errorf("the same document: verdict %s, %d of %d unchanged", r.Verdict, r.Document.Unchanged, r.Document.Compared)
	}
	r, err = Compare(context.Background(), old, new, &diff.Options{DocumentBudget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != diff.Unknown || len(r.Document.Locations) != 202 {
		t.Fatalf("out of budget: verdict %s, %d locations", r.Verdict, len(r.Document.Locations))
	}
	for _, l := range r.Document.Locations {
		if !l.NotCompared || l.Backward != diff.Unknown || l.Forward != diff.Unknown {
			t.Errorf("%s: not compared %v, %s/%s", l.Location, l.NotCompared, l.Backward, l.Forward)
		}
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"MAY BREAK GET /p response 200 application/json: forward unknown (not compared: the document's budget ran out)",
		"note: 101 of 101 distinct schema comparisons did not run within the document's budget of 1ns"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%.3000s", s, text.String())
		}
	}
	r, err = Compare(context.Background(), old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != diff.Incompatible || r.Document.Locations[0].Location != "GET /p response 200 application/json" || r.Document.Locations[0].NotCompared {
		t.Errorf("verdict %s, first location %+v", r.Verdict, r.Document.Locations[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compare(ctx, old, new, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
