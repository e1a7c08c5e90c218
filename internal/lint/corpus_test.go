package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// storeSources lists every schema of schemastore-dev.
func storeSources(t testing.TB, dir string) []Source {
	files, err := filepath.Glob(filepath.Join(dir, "src", "schemas", "json", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var srcs []Source
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		rel = filepath.ToSlash(rel)
		srcs = append(srcs, Source{Name: rel, Path: rel})
	}
	return srcs
}

// TestLintSchemaStore lints every schema of schemastore-dev with every rule on: none may be
// unreadable, and how often each rule fires, and how many findings each schema has, are
// compared with testdata/schemastore-stats.txt (JSTK_UPDATE=1 rewrites it; the times in it
// are informative and not compared). Under the race detector a sample of the schemas is
// linted and checked against their lines of the file.
func TestLintSchemaStore(t *testing.T) {
	dir := corpora.Dir(t, "schemastore-dev")
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := storeSources(t, dir)
	var srcs []Source
	for i, s := range all {
		if i%schemaStride == 0 {
			srcs = append(srcs, s)
		}
	}
	start := time.Now()
	res, err := Run(context.Background(), srcs, fsys, &Options{Rules: map[string]Setting{"all": "on"}, Timing: true,
		Loader: &schema.Loader{FS: fsys, Resolve: storeResolve}})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	for _, p := range res.Problems {
		t.Errorf("could not lint %s: %s", p.File, p.Message)
	}
	if res.Summary.Files != len(srcs) || len(all) != 801 {
		t.Errorf("linted %d of %d files (want 801)", res.Summary.Files, len(all))
	}
	// Findings per schema, leaving out duplicate-id, which depends on the other schemas.
	perFile := map[string]int{}
	for _, f := range res.Findings {
		if f.Rule != "duplicate-id" {
			perFile[f.File]++
		}
	}
	if raceEnabled {
		want := mustRead(t, "testdata/schemastore-stats.txt")
		for _, s := range srcs {
			line := fmt.Sprintf("\n%s %d\n", s.Name, perFile[s.Name])
			if !strings.Contains(want, line) {
				t.Errorf("%s: %d findings, not as in testdata/schemastore-stats.txt", s.Name, perFile[s.Name])
			}
		}
		return
	}
	var sb strings.Builder
	sb.WriteString("# jstk lint on the 801 schemas of schemastore-dev, every rule on (go test ./internal/lint -run TestLintSchemaStore;\n")
	sb.WriteString("# JSTK_UPDATE=1 rewrites the counts; JSTK_UPDATE_TIMES=1 the times too). Counts are compared; times (wall\n")
	sb.WriteString("# clock, all rules' work on all files, 2 workers sharing the machine) are informative only.\n")
	fmt.Fprintf(&sb, "# time: total %.2fs\n", elapsed.Seconds())
	fmt.Fprintf(&sb, "files %d  findings %d  errors %d  warnings %d  infos %d  fixable %d\n", res.Summary.Files, res.Summary.Findings,
		res.Summary.Errors, res.Summary.Warnings, res.Summary.Infos, res.Summary.Fixable)
	fmt.Fprintf(&sb, "%-36s %-13s %-8s %8s %10s\n", "rule", "category", "default", "findings", "time(ms)")
	stat := map[string]RuleStat{}
	for _, s := range res.RuleStats {
		stat[s.Rule] = s
	}
	for _, r := range Rules() {
		def := string(r.Severity)
		if r.OptIn {
			def = "opt-in"
		}
		n := stat[r.ID].Findings
		if r.cross {
			n = 0
			for _, f := range res.Findings {
				if f.Rule == r.ID {
					n++
				}
			}
		}
		fmt.Fprintf(&sb, "%-36s %-13s %-8s %8d %10.1f\n", r.ID, r.Category, def, n, stat[r.ID].Millis)
	}
	sb.WriteString("# findings per schema (every rule but duplicate-id)\n")
	for _, s := range srcs {
		fmt.Fprintf(&sb, "%s %d\n", s.Name, perFile[s.Name])
	}
	got := sb.String()
	t.Log("\n" + got)
	const path = "testdata/schemastore-stats.txt"
	if os.Getenv("JSTK_UPDATE") != "" {
		// The times change from run to run: when only they differ, the committed file stays
		// (so regenerating the golden files changes nothing), unless JSTK_UPDATE_TIMES asks
		// for new times.
		if old, err := os.ReadFile(path); err == nil && withoutTimes(string(old)) == withoutTimes(got) && os.Getenv("JSTK_UPDATE_TIMES") == "" {
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s is missing; run with JSTK_UPDATE=1 to write it", path)
	}
	if diff := cmp.Diff(withoutTimes(string(want)), withoutTimes(got)); diff != "" {
		t.Errorf("%s is out of date (JSTK_UPDATE=1 rewrites it); -want +got:\n%s", path, diff)
	}
}

// withoutTimes drops the time line and the time column of a stats text.
func withoutTimes(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "# time:") {
			continue
		}
		if f := strings.Fields(l); len(f) == 5 && !strings.HasPrefix(l, "rule ") && !strings.HasPrefix(l, "#") {
			l = strings.Join(f[:4], " ")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
