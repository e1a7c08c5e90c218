package schematest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The official JSON-Schema-Test-Suite, run as tests files exactly as `jstk test` runs them
// (the suite's layout decides drafts and format assertion, remotes are mapped with a
// resolve entry): the pass counts must equal those of the schema package's own suite run
// (internal/schema/testdata/suite-stats.txt), and are kept in testdata/suite-stats.txt.

var suiteDirs = []string{"draft4", "draft6", "draft7", "draft2019-09", "draft2020-12"}

func suiteGroup(rel string) string {
	switch {
	case strings.Contains(rel, "/optional/format/"):
		return "format"
	case strings.Contains(rel, "/optional/"):
		return "optional"
	}
	return "core"
}

func TestJSONSchemaTestSuite(t *testing.T) {
	dir := corpora.Dir(t, "JSON-Schema-Test-Suite")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []Source
	for _, d := range suiteDirs {
		files, errs := workspace.Expand(fsys, []string{"tests/" + d}, []string{".json"})
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		for _, f := range files {
			srcs = append(srcs, Source{Name: f, Path: f})
		}
	}
	res, err := Run(context.Background(), srcs, &Options{FS: fsys, Resolve: map[string]string{"http://localhost:1234/": "remotes"}})
	if err != nil {
		t.Fatal(err)
	}
	type count struct{ pass, total int }
	stats := map[string]*count{}
	for _, tr := range res.Results.Tests {
		draft := strings.Split(tr.FilePath, "/")[1]
		key := draft + " " + suiteGroup(tr.FilePath)
		if stats[key] == nil {
			stats[key] = &count{}
		}
		stats[key].total++
		if tr.Status == StatusPassed {
			stats[key].pass++
		} else {
			t.Errorf("%s: %s: %s %s", tr.FilePath, tr.Name, tr.Status, tr.Message)
		}
	}
	for _, f := range res.Results.Extra.Files {
		if f.Problem != "" {
			t.Errorf("%s: %s", f.File, f.Problem)
		}
	}
	var lines []string
	for _, d := range suiteDirs {
		for _, g := range []string{"core", "optional", "format"} {
			if c := stats[d+" "+g]; c != nil {
				lines = append(lines, fmt.Sprintf("%-13s %-9s %5d / %5d  %6.2f%%", d, g, c.pass, c.total, 100*float64(c.pass)/float64(c.total)))
			}
		}
	}
	got := "# JSON-Schema-Test-Suite run as `jstk test` (go test ./internal/schematest -run TestJSONSchemaTestSuite; JSTK_UPDATE=1 rewrites)\n" +
		strings.Join(lines, "\n") + "\n"
	t.Log("\n" + got)
	golden.Check(t, "testdata/suite-stats.txt", got)

	// The same counts as the schema package's suite run.
	want, err := os.ReadFile("../schema/testdata/suite-stats.txt")
	if err != nil {
		t.Fatal(err)
	}
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")[1:]
	if strings.Join(wantLines, "\n") != strings.Join(lines, "\n") {
		t.Errorf("pass counts differ from internal/schema/testdata/suite-stats.txt:\nschema package:\n%s\njstk test:\n%s",
			strings.Join(wantLines, "\n"), strings.Join(lines, "\n"))
	}
}

// SchemaStore's instances run as tests (src/test/<name>/* valid, src/negative_test/<name>/*
// invalid, one tests file per schema with dataPath entries) give the same verdict on every
// instance file as the validate engine, with the loader settings and format assertion of
// internal/validate's SchemaStore test and the skip list of src/schema-validation.json.
// Under the race detector every fourth schema is checked, and the stats file is not
// compared.

// schemastoreResolve maps SchemaStore's URLs to its files, offline.
var schemastoreResolve = corpora.SchemaStoreResolve

// storeSchema is one SchemaStore schema with its instance files.
type storeSchema struct {
	name     string
	schema   string
	positive []string
	negative []string
}

func (s *storeSchema) files() []string {
	return append(append([]string{}, s.positive...), s.negative...)
}

func schemastoreSchemas(t testing.TB, dir string, fsys workspace.FS) []storeSchema {
	var out []storeSchema
	for _, s := range corpora.SchemaStoreSchemas(t, dir, fsys) {
		out = append(out, storeSchema{name: s.Name, schema: s.Schema, positive: s.Positive, negative: s.Negative})
	}
	return out
}

// testsFile writes a sourcemeta tests file for a schema's instances.
func (s *storeSchema) testsFile() []byte {
	type test struct {
		Description string `json:"description"`
		Valid       bool   `json:"valid"`
		DataPath    string `json:"dataPath"`
	}
	doc := struct {
		Target string `json:"target"`
		Tests  []test `json:"tests"`
	}{Target: s.schema, Tests: []test{}}
	for _, f := range s.positive {
		doc.Tests = append(doc.Tests, test{Description: "positive " + path.Base(f), Valid: true, DataPath: f})
	}
	for _, f := range s.negative {
		doc.Tests = append(doc.Tests, test{Description: "negative " + path.Base(f), Valid: false, DataPath: f})
	}
	b, _ := json.Marshal(doc)
	return b
}

func TestSchemaStoreAgreesWithValidate(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	schemas := schemastoreSchemas(t, dir, fsys)
	if raceEnabled {
		var some []storeSchema
		for i, s := range schemas {
			if i%4 == 0 {
				some = append(some, s)
			}
		}
		schemas = some
	}
	var srcs []Source
	for _, s := range schemas {
		srcs = append(srcs, Source{Name: "schemastore/" + s.name + ".tests.json", Text: s.testsFile()})
	}
	res, err := Run(context.Background(), srcs, &Options{FS: fsys, Resolve: schemastoreResolve, AssertFormat: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]TestResult{}
	for _, tr := range res.Results.Tests {
		byName[tr.FilePath] = append(byName[tr.FilePath], tr)
	}
	problems := map[string]string{}
	for _, f := range res.Results.Extra.Files {
		problems[f.File] = f.Problem
	}
	var pos, posPass, neg, negPass, notRun, agree, total int
	for _, s := range schemas {
		name := "schemastore/" + s.name + ".tests.json"
		verdicts := validateVerdicts(t, fsys, s)
		tests := byName[name]
		files := s.files()
		if len(tests) != len(files) {
			t.Errorf("%s: %d tests, want %d (%s)", s.name, len(tests), len(files), problems[name])
			continue
		}
		for i, tr := range tests {
			positive := i < len(s.positive)
			if positive {
				pos++
			} else {
				neg++
			}
			switch {
			case tr.Status == StatusPassed && positive:
				posPass++
			case tr.Status == StatusPassed:
				negPass++
			case tr.Status == StatusOther:
				notRun++
			}
			total++
			// "valid", "invalid", or "" when the instance could not be evaluated.
			if got := tr.Extra.Actual; got == verdicts[files[i]] {
				agree++
			} else {
				t.Errorf("%s %s: jstk test says %q (%s), validate says %q", s.name, files[i], got, tr.Message, verdicts[files[i]])
			}
		}
	}
	stats := fmt.Sprintf("# SchemaStore instances run as `jstk test` (go test ./internal/schematest -run TestSchemaStore; JSTK_UPDATE=1 rewrites)\n"+
		"schemas:                          %5d\n"+
		"positive tests passed:            %5d / %5d\n"+
		"negative tests passed:            %5d / %5d\n"+
		"not run (unparsable instance):    %5d\n"+
		"same verdict as validate:         %5d / %5d\n", len(schemas), posPass, pos, negPass, neg, notRun, agree, total)
	t.Log("\n" + stats)
	if !raceEnabled {
		golden.Check(t, "testdata/schemastore-stats.txt", stats)
	}
}

// validateVerdicts runs the validate engine on a schema's instance files: "valid" when
// every document of the file is valid, "invalid" when one is not, "" when the file cannot
// be read or parsed.
func validateVerdicts(t *testing.T, fsys workspace.FS, s storeSchema) map[string]string {
	c := schema.NewCompiler(&schema.Options{AssertFormat: true,
		Loader: &schema.Loader{FS: fsys, Resolve: schemastoreResolve}})
	sch, err := c.Compile(schema.FileURI(fsys.Abs(s.schema)))
	if err != nil {
		t.Fatalf("%s: %v", s.schema, err)
	}
	var srcs []validate.Source
	for _, f := range s.files() {
		srcs = append(srcs, validate.Source{Name: f, Path: f})
	}
	res, err := validate.Run(context.Background(), sch, srcs, fsys, &validate.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, in := range res.Instances {
		v, seen := out[in.File]
		switch {
		case in.Problem != "":
			out[in.File] = ""
		case !seen:
			out[in.File] = map[bool]string{true: "valid", false: "invalid"}[in.Valid]
		case v == "valid" && !in.Valid:
			out[in.File] = "invalid"
		}
	}
	return out
}
