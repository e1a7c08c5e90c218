package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/corpora"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// The published compatibility cases of ../shared/corpora/compat (Confluent Schema
// Registry, getsentry/json-schema-diff, oasdiff), checked against jstk's verdicts:
//   - where a label agrees with validation semantics, the verdict must match it (at least
//     98% per source; the misses are listed with their reason in testdata/compat-ledger.txt);
//   - where the corpus' oracle found a counterexample, jstk must never say compatible;
//   - where a label and validation semantics disagree, jstk follows semantics, or the named
//     policy reproduces the source's view; the table in testdata/compat-stats.txt says which.
// Rewrite the stats with JSTK_UPDATE=1.

type compatCase struct {
	ID             string          `json:"id"`
	Original       json.RawMessage `json:"original_schema"`
	Update         json.RawMessage `json:"update_schema"`
	Compatible     *bool           `json:"compatible"`
	Forward        *bool           `json:"forward_compatible"`
	Dialect        string          `json:"dialect"`
	Agrees         *bool           `json:"agrees_with_validation_semantics"`
	JSONApplicable *bool           `json:"json_semantics_applicable"`
	Note           string          `json:"semantic_note"`
	Oracle         struct {
		Backward bool `json:"backward_counterexample_found"`
		Forward  bool `json:"forward_counterexample_found"`
	} `json:"oracle"`
}

// compatCandidates and pairCandidates bound the search per direction in the corpus tests:
// by candidates, not time, so the verdicts (and the committed stats) do not depend on the
// machine or on the race detector.
const (
	compatCandidates = 4000
	pairCandidates   = 2000
)

// compatOptions are deterministic: the search is bounded by candidates, not time.
func compatOptions() *Options {
	return &Options{SearchBudget: 60 * time.Second, SearchCandidates: compatCandidates}
}

// compileCase compiles one side of a case: draft-07 when $schema is absent (the sources'
// default), OpenAPI 3.0 schemas as draft-04 with nullable mapped to a null type, OpenAPI
// 3.1 as 2020-12.
func compileCase(name string, raw json.RawMessage, dialect string, assertFormat bool) (*schema.Schema, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	opts := &schema.Options{Draft: schema.Draft7, AssertFormat: assertFormat}
	switch {
	case strings.HasPrefix(dialect, "openapi-3.0"):
		v = mapNullable(v)
		opts.Draft, opts.ForceDraft = schema.Draft4, true
		opts.NoMetaValidation = true // OpenAPI 3.0 schema objects are not all valid draft-04 (title: null)
	case strings.HasPrefix(dialect, "openapi-3.1"):
		opts.Draft, opts.ForceDraft = schema.Draft2020, true
		opts.NoMetaValidation = true
	}
	text, _ := json.Marshal(v)
	doc, err := source.ParseJSON(name, text, nil)
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler(opts)
	uri := "file:///compat/" + name
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return c.Compile(uri)
}

// mapNullable turns OpenAPI 3.0's nullable: true into a null type.
func mapNullable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if k == "properties" || k == "patternProperties" || k == "definitions" {
				if m, ok := val.(map[string]any); ok {
					mm := map[string]any{}
					for kk, vv := range m {
						mm[kk] = mapNullable(vv)
					}
					out[k] = mm
					continue
				}
			}
			out[k] = mapNullable(val)
		}
		if n, ok := x["nullable"].(bool); ok && n {
			delete(out, "nullable")
			switch t := x["type"].(type) {
			case string:
				out["type"] = []any{t, "null"}
			case []any:
				out["type"] = append(append([]any(nil), t...), "null")
			}
			if e, ok := x["enum"].([]any); ok {
				out["enum"] = append(append([]any(nil), e...), nil)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = mapNullable(it)
		}
		return out
	}
	return v
}

type compatOutcome struct {
	c        compatCase
	corpus   string
	res      *Result
	err      error
	dir      string // the labelled direction
	want     Verdict
	got      Verdict
	eligible bool
}

func runCompat(t *testing.T, dir string, files []string) []compatOutcome {
	var out []compatOutcome
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var cases []compatCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		corpus := strings.TrimSuffix(f, "-cases.json")
		for _, c := range cases {
			o := compatOutcome{c: c, corpus: corpus}
			o.res, o.err = compareCase(c, compatOptions(), false)
			switch {
			case c.Compatible != nil:
				o.dir, o.want = Backward, boolVerdict(*c.Compatible)
			case c.Forward != nil:
				o.dir, o.want = Forward, boolVerdict(*c.Forward)
			}
			if o.res != nil {
				o.got = o.res.Backward
				if o.dir == Forward {
					o.got = o.res.Forward
				}
			}
			o.eligible = o.dir != "" && c.Agrees != nil && *c.Agrees && (c.JSONApplicable == nil || *c.JSONApplicable)
			out = append(out, o)
		}
	}
	return out
}

func compareCase(c compatCase, opts *Options, assertFormat bool) (*Result, error) {
	old, err := compileCase(c.ID+"/old.json", c.Original, c.Dialect, assertFormat)
	if err != nil {
		return nil, fmt.Errorf("old: %v", err)
	}
	new, err := compileCase(c.ID+"/new.json", c.Update, c.Dialect, assertFormat)
	if err != nil {
		return nil, fmt.Errorf("new: %v", err)
	}
	return Compare(context.Background(), old, new, opts)
}

func boolVerdict(b bool) Verdict {
	if b {
		return Compatible
	}
	return Incompatible
}

func TestCompatCorpus(t *testing.T) {
	dir := corpora.Dir(t, "compat")
	outcomes := runCompat(t, dir, []string{"confluent-cases.json", "sentry-cases.json", "oasdiff-cases.json"})
	ledger := golden.Ledger(t, "testdata/compat-ledger.txt")
	type count struct{ pass, total, unknown, refuted int }
	stats := map[string]*count{}
	var sb strings.Builder
	var unexpected, stale, disagree, policy, refuted []string
	semantic := map[string]int{}
	sampled := 0
	var unknownVerdicts [2]int // every case, backward and forward
	for _, o := range outcomes {
		c := o.c
		if o.err != nil {
			t.Errorf("%s: could not compare: %v", c.ID, o.err)
			continue
		}
		if o.res.Backward == Unknown {
			unknownVerdicts[0]++
		}
		if o.res.Forward == Unknown {
			unknownVerdicts[1]++
		}
		// the oracle's counterexamples are proofs: never compatible against them
		if c.Oracle.Backward && o.res.Backward == Compatible {
			t.Errorf("%s: backward compatible, but the oracle has a counterexample", c.ID)
		}
		if c.Oracle.Forward && o.res.Forward == Compatible {
			t.Errorf("%s: forward compatible, but the oracle has a counterexample", c.ID)
		}
		if o.res.Search.Contradictions > 0 {
			t.Errorf("%s: %d rule engine claim(s) refuted by examples", c.ID, o.res.Search.Contradictions)
		}
		checkExamples(t, c.ID, o.res, c)
		if old, err := compileCase(c.ID+"/old.json", c.Original, c.Dialect, false); err == nil {
			if new, err := compileCase(c.ID+"/new.json", c.Update, c.Dialect, false); err == nil {
				n, fails := trySamples(c.ID, o.res, old, new, nil)
				sampled += n
				for _, f := range fails {
					t.Error(f)
				}
			}
		}
		if !o.eligible {
			switch {
			case c.JSONApplicable != nil && !*c.JSONApplicable:
			case o.dir != "":
				line := fmt.Sprintf("  %-100s label %s %-12s jstk %s", c.ID, o.dir, o.want, o.got)
				if c.Agrees == nil && strings.Contains(c.Note, "format") {
					// format assertions: the source asserts formats
					res, err := compareCase(c, compatOptions(), true)
					if err == nil {
						line += fmt.Sprintf("; with --assert-format: %s", pick2(res, o.dir))
					}
					policy = append(policy, line)
				} else if strings.Contains(c.Note, "default") {
					opts := compatOptions()
					opts.RequiredWithDefault = true
					res, err := compareCase(c, opts, false)
					if err == nil {
						line += fmt.Sprintf("; with --required-with-default=compatible: %s", pick2(res, o.dir))
					}
					policy = append(policy, line)
				} else {
					// the label disagrees with semantics, so semantics says the opposite
					sem := boolVerdict(o.want == Incompatible)
					switch o.got {
					case sem:
						line += "  (= semantics)"
						semantic["follows"]++
					case Unknown:
						line += "  (semantics: " + string(sem) + ", not decided)"
						semantic["unknown"]++
					default:
						line += "  (CONTRADICTS semantics)"
						semantic["contradicts"]++
						t.Errorf("%s: the label disagrees with validation semantics, and jstk gives the label's answer %s", c.ID, o.got)
					}
					disagree = append(disagree, line)
				}
			}
			continue
		}
		key := o.corpus
		if stats[key] == nil {
			stats[key] = &count{}
		}
		st := stats[key]
		st.total++
		_, known := ledger[c.ID]
		if o.got == o.want {
			st.pass++
			if known {
				stale = append(stale, c.ID)
			}
			continue
		}
		if o.want == Compatible && o.got == Incompatible {
			// The label says compatible and jstk shows an example that checkExamples verified
			// against both schemas: the label is refuted, whatever the corpus says.
			ex := o.res.BackwardExample
			if o.dir == Forward {
				ex = o.res.ForwardExample
			}
			refuted = append(refuted, fmt.Sprintf("  %-100s label %s compatible; valid under %s, rejected by %s: %s", c.ID, o.dir,
				map[string]string{Backward: "OLD", Forward: "NEW"}[o.dir], map[string]string{Backward: "NEW", Forward: "OLD"}[o.dir], ex))
			st.total--
			st.refuted++
			continue
		}
		if o.got == Unknown {
			st.unknown++
		}
		if !known {
			unexpected = append(unexpected, fmt.Sprintf("%s: %s label %s, jstk %s", c.ID, o.dir, o.want, o.got))
		}
	}
	sb.WriteString("# diff against published compatibility labels (go test ./internal/diff -run TestCompatCorpus; JSTK_UPDATE=1 rewrites)\n")
	sb.WriteString("# labels that agree with validation semantics; oasdiff: the cases where JSON semantics apply\n")
	for _, k := range []string{"confluent", "sentry", "oasdiff"} {
		if c := stats[k]; c != nil {
			fmt.Fprintf(&sb, "%-10s %4d / %4d  %6.2f%%  (unknown %d; labels refuted by a verified example, not counted: %d)\n",
				k, c.pass, c.total, 100*float64(c.pass)/float64(c.total), c.unknown, c.refuted)
		}
	}
	fmt.Fprintf(&sb, "# compatible verdicts tried on %d sampled instances of the side they read from: none refuted\n", sampled)
	fmt.Fprintf(&sb, "# unknown verdicts over every case, labelled or not: backward %d, forward %d\n", unknownVerdicts[0], unknownVerdicts[1])
	sort.Strings(disagree)
	sort.Strings(policy)
	sort.Strings(refuted)
	sb.WriteString("# labels marked as agreeing with validation semantics that an example (re-checked by this test) refutes\n")
	for _, r := range refuted {
		sb.WriteString(r + "\n")
	}
	fmt.Fprintf(&sb, "# labels that disagree with validation semantics: jstk gives the semantic answer in %d, leaves %d undecided, contradicts %d\n",
		semantic["follows"], semantic["unknown"], semantic["contradicts"])
	for _, d := range disagree {
		sb.WriteString(d + "\n")
	}
	sb.WriteString("# labels that follow a policy: the named option reproduces them\n")
	for _, p := range policy {
		sb.WriteString(p + "\n")
	}
	t.Log("\n" + sb.String())
	golden.Check(t, "testdata/compat-stats.txt", sb.String())
	for k, c := range stats {
		if float64(c.pass) < 0.98*float64(c.total) {
			t.Errorf("%s: %d / %d labels matched, under the 98%% bar", k, c.pass, c.total)
		}
	}
	for _, u := range unexpected {
		t.Errorf("unexpected mismatch (fix it, or list it with its reason in testdata/compat-ledger.txt): %s", u)
	}
	for _, s := range stale {
		t.Errorf("matches now, remove it from testdata/compat-ledger.txt: %s", s)
	}
}

func pick2(r *Result, dir string) Verdict {
	if dir == Forward {
		return r.Forward
	}
	return r.Backward
}

// checkExamples verifies that every example really separates the two schemas.
func checkExamples(t *testing.T, id string, r *Result, c compatCase) {
	t.Helper()
	old, err1 := compileCase(id+"/old.json", c.Original, c.Dialect, false)
	new, err2 := compileCase(id+"/new.json", c.Update, c.Dialect, false)
	if err1 != nil || err2 != nil {
		return
	}
	verifyExamples(t, id, r, old, new)
}

// verifyExamples checks every example of a result against the two schemas.
func verifyExamples(t testing.TB, id string, r *Result, old, new *schema.Schema) {
	t.Helper()
	check := func(raw json.RawMessage, validUnderOld bool, what string) {
		doc, err := source.ParseJSON("example", raw, nil)
		if err != nil {
			t.Errorf("%s: %s example does not parse: %v", id, what, err)
			return
		}
		vo, _ := old.Valid(doc.Root)
		vn, _ := new.Valid(doc.Root)
		if vo != validUnderOld || vn == validUnderOld {
			t.Errorf("%s: %s example %s: valid under old %v, under new %v", id, what, raw, vo, vn)
		}
	}
	if len(r.BackwardExample) > 0 {
		check(r.BackwardExample, true, "backward")
	}
	if len(r.ForwardExample) > 0 {
		check(r.ForwardExample, false, "forward")
	}
	for _, ch := range r.Changes {
		if len(ch.Example) > 0 {
			check(ch.Example, ch.ExampleValidUnder == "old", ch.Kind)
		}
		// an example never refutes a widen or equivalent claim
		for _, b := range ch.Breaks {
			if (b == Backward && (ch.Effect == Widen || ch.Effect == Equivalent)) || (b == Forward && (ch.Effect == Narrow || ch.Effect == Equivalent)) {
				t.Errorf("%s: %s claims %s but an example breaks %s", id, ch.Kind, ch.Effect, b)
			}
		}
	}
	if r.Backward == Incompatible && len(r.BackwardExample) == 0 {
		t.Errorf("%s: backward incompatible without an example", id)
	}
	if r.Forward == Incompatible && len(r.ForwardExample) == 0 {
		t.Errorf("%s: forward incompatible without an example", id)
	}
}

func corporaCompatDir(tb testing.TB) string { return corpora.Dir(tb, "compat") }

func loadCases(tb testing.TB, file string) []compatCase {
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	var cases []compatCase
	if err := json.Unmarshal(data, &cases); err != nil {
		tb.Fatal(err)
	}
	return cases
}
