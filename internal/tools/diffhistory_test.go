package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/gitread/gittest"
	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// historyRepo commits a schema whose relative $ref changes with it, so that a version
// judged with the working tree's defs.json instead of its own would look unchanged:
//
//	v0  does not parse
//	v1  n >= 0
//	v2  n >= 10     (renamed from e.json to event.json)
//	now n >= 5      (backward compatible with v2, not with v1)
func historyRepo(t *testing.T) *gittest.Repo {
	w := gittest.New(t)
	ev := func(title string) string {
		return "{\n  \"title\": \"" + title + "\",\n  \"type\": \"object\",\n  \"properties\": {\n    \"n\": {\"$ref\": \"defs.json\"}\n  }\n}\n"
	}
	defs := func(min string) string { return `{"type": "integer", "minimum": ` + min + `}` }
	w.Commit("v0: a draft", map[string]string{"schemas/e.json": `{"title": "v0", `, "schemas/defs.json": defs("0")})
	v1 := w.Commit("v1: first release", map[string]string{"schemas/e.json": ev("v1"), "schemas/defs.json": defs("0")})
	w.Tag("v1.0.0", v1)
	w.Commit("v2: n at least 10", map[string]string{"schemas/event.json": ev("v2"), "schemas/defs.json": defs("10")})
	w.Commit("unrelated", map[string]string{"schemas/event.json": ev("v2"), "schemas/defs.json": defs("10"), "README": "x"})
	w.Write("schemas/event.json", ev("v3"))
	w.Write("schemas/defs.json", defs("5"))
	return w
}

func runHistoryText(t *testing.T, env *Env, in *DiffInput, dir string) (string, *historyReport) {
	t.Helper()
	res, err := runDiff(context.Background(), env, in)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(buf.String(), filepath.ToSlash(dir), "$REPO"), res.History
}

func TestHistoryModes(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("testdata", "history"))
	if err != nil {
		t.Fatal(err)
	}
	w := historyRepo(t)
	t.Chdir(w.Dir)
	for _, tc := range []struct {
		mode     string
		verdict  string
		breaking int
		exit     int
	}{
		{"backward", "compatible", 0, 0},
		{"backward-transitive", "incompatible", 1, 1},
		{"BACKWARD_TRANSITIVE", "incompatible", 1, 1},
		{"forward", "incompatible", 1, 1},
		{"full-transitive", "incompatible", 2, 1},
		{"none", "none", 0, 0},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			env := &Env{FS: workspace.OS()}
			text, rep := runHistoryText(t, env, &DiffInput{History: true, Schemas: []Doc{{Path: "schemas/event.json"}}, Mode: tc.mode}, w.Dir)
			if rep.Verdict != tc.verdict || rep.Breaking != tc.breaking || rep.ExitCode() != tc.exit || rep.CouldNotCompare != 1 && tc.mode != "none" && !strings.HasPrefix(tc.mode, "backward") && !strings.HasPrefix(tc.mode, "forward") {
				t.Errorf("verdict %s, %d breaking, exit %d; want %s, %d, %d\n%s", rep.Verdict, rep.Breaking, rep.ExitCode(), tc.verdict, tc.breaking, tc.exit, text)
			}
			golden.Check(t, filepath.Join(testdata, strings.ToLower(tc.mode)+".txt"), text)
		})
	}
	// JSON, with the proving instance
	env := &Env{FS: workspace.OS()}
	res, err := runDiff(context.Background(), env, &DiffInput{History: true, Schemas: []Doc{{Path: "schemas/event.json"}}, Mode: "backward-transitive"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.MarshalIndent(res, "", "  ")
	js := strings.ReplaceAll(string(data), filepath.ToSlash(w.Dir), "$REPO")
	golden.Check(t, filepath.Join(testdata, "backward-transitive.json"), js+"\n")
	var back struct {
		History struct {
			Versions []struct {
				Revision, Verdict, Direction, Subject string
				Example                               json.RawMessage
			}
		}
	}
	json.Unmarshal(data, &back)
	vs := back.History.Versions
	if len(vs) != 3 || vs[0].Verdict != "compatible" || vs[1].Verdict != "incompatible" || vs[1].Subject != "v1: first release" || len(vs[1].Example) == 0 || vs[2].Verdict != "could not compare" {
		t.Errorf("versions: %+v", vs)
	}
}

func TestHistoryBounds(t *testing.T) {
	w := historyRepo(t)
	t.Chdir(w.Dir)
	env := &Env{FS: workspace.OS()}
	in := func(d DiffInput) *DiffInput {
		d.Schemas = []Doc{{Path: "schemas/event.json"}}
		return &d
	}
	text, rep := runHistoryText(t, env, in(DiffInput{History: true, Last: 1, Mode: "backward-transitive"}), w.Dir)
	if len(rep.Versions) != 1 || rep.Verdict != "compatible" || len(rep.Notes) != 0 {
		t.Errorf("--last 1:\n%s", text)
	}
	text, rep = runHistoryText(t, env, in(DiffInput{History: true, Since: "v1.0.0", Mode: "backward-transitive"}), w.Dir)
	if len(rep.Versions) != 2 || rep.Breaking != 1 {
		t.Errorf("--since v1.0.0:\n%s", text)
	}
	text, rep = runHistoryText(t, env, in(DiffInput{History: true, Rev: "HEAD", Mode: "backward-transitive"}), w.Dir)
	if len(rep.Versions) != 2 || rep.Breaking != 1 || !strings.Contains(text, "HEAD (") {
		t.Errorf("--rev HEAD (v2 against v1: breaking):\n%s", text)
	}
	text, rep = runHistoryText(t, env, in(DiffInput{Against: []string{"v1.0.0,HEAD~1", "HEAD"}, Mode: "full-transitive"}), w.Dir)
	if len(rep.Versions) != 3 || rep.Versions[0].Verdict != "incompatible" || rep.Versions[0].Path != "schemas/e.json" || rep.Versions[1].Verdict != "incompatible" || rep.Versions[2].SameAs == "" {
		t.Errorf("--against:\n%s", text)
	}
	text, rep = runHistoryText(t, env, in(DiffInput{Against: []string{"HEAD~3"}}), w.Dir)
	if len(rep.Versions) != 1 || rep.Versions[0].Verdict != "could not compare" || rep.Verdict != "nothing to compare" {
		t.Errorf("--against a version that does not parse:\n%s", text)
	}
	w.Write("schemas/fresh.json", "{}")
	text, rep = runHistoryText(t, env, &DiffInput{Against: []string{"HEAD"}, Schemas: []Doc{{Path: "schemas/fresh.json"}}}, w.Dir)
	if len(rep.Versions) != 1 || rep.Versions[0].Verdict != "absent" {
		t.Errorf("--against, a new file:\n%s", text)
	}
	// a small result budget: the oldest versions' changes are left out, and counted
	budgetEnv := &Env{FS: workspace.OS(), MaxResultBytes: 1500}
	_, rep = runHistoryText(t, budgetEnv, in(DiffInput{History: true, Mode: "full-transitive"}), w.Dir)
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "result budget") || rep.Versions[2].Error != "" {
		t.Errorf("budget: %v", rep.Notes)
	}
	// the default limit says it applied
	for i := 0; i < DefaultHistoryLimit+1; i++ {
		w.Commit("step", map[string]string{"schemas/event.json": `{"title": "` + strings.Repeat("x", i+1) + `"}`})
	}
	_, rep = runHistoryText(t, env, in(DiffInput{History: true, Mode: "none"}), w.Dir)
	if len(rep.Versions) != DefaultHistoryLimit || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "default limit") {
		t.Errorf("default limit: %d versions, notes %v", len(rep.Versions), rep.Notes)
	}
	for _, bad := range []struct {
		in   DiffInput
		want string
	}{
		{DiffInput{History: true, Rev: "nope"}, `unknown revision "nope"`},
		{DiffInput{History: true, Since: "nope"}, `unknown revision "nope"`},
		{DiffInput{Against: []string{"HEAD~9999"}}, "has no parent"},
		{DiffInput{History: true, Mode: "sideways"}, "unknown compatibility mode"},
		{DiffInput{History: true, Last: -1}, "must not be negative"},
		{DiffInput{Rev: "HEAD"}, "need history"},
	} {
		if _, err := runDiff(context.Background(), env, in(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.in, err, bad.want)
		}
	}
	// a new file has nothing to compare; a file outside any repository is an error
	w.Write("schemas/new.json", `{}`)
	if _, rep := runHistoryText(t, env, &DiffInput{History: true, Schemas: []Doc{{Path: "schemas/new.json"}}}, w.Dir); rep.Verdict != "nothing to compare" {
		t.Errorf("new file: %+v", rep)
	}
	outside := t.TempDir()
	if _, err := runDiff(context.Background(), &Env{FS: workspace.OS()}, &DiffInput{History: true, Schemas: []Doc{{Path: filepath.Join(outside, "x.json")}}}); err == nil {
		t.Error("no repository: no error")
	}
}

// Over MCP the workspace is a confined root inside the repository: an old version's $ref
// may not leave it.
func TestHistoryConfined(t *testing.T) {
	w := gittest.New(t)
	w.Commit("v1", map[string]string{"ws/a.json": `{"$ref": "../outside.json"}`, "outside.json": `{"type": "integer"}`})
	w.Write("ws/a.json", `{"type": "integer"}`)
	root, err := workspace.Root(filepath.Join(w.Dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runDiff(context.Background(), &Env{FS: root}, &DiffInput{History: true, New: Doc{Path: "a.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.History.Versions; len(v) != 1 || v[0].Verdict != "could not compare" {
		t.Errorf("%+v", v)
	}
}

func TestConfigModes(t *testing.T) {
	fsys := workspace.Memory(map[string]string{"jstk.json": `{"compatibility": {"events/*.json": "full_transitive", "events/x*.json": "none"}}`})
	cfg, err := LoadConfig(fsys)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{FS: fsys, Config: cfg}
	for name, want := range map[string]string{"events/a.json": "full_transitive", "events/x1.json": "none", "other/a.json": ""} {
		if got, _ := configMode(env, name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{`{"compatibility": 1}`, `{"compatibility": {"a": 1}}`, `{"compatibility": {"a": "sideways"}}`, `{"compatibility": {"[": "none"}}`} {
		if _, err := LoadConfig(workspace.Memory(map[string]string{"jstk.json": bad})); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	for _, m := range []string{"backward", "FORWARD", "full-transitive", "NONE"} {
		if mode, err := ParseMode(m); err != nil || !strings.EqualFold(strings.ReplaceAll(mode.String(), "-", "_"), strings.ReplaceAll(m, "-", "_")) {
			t.Errorf("%s: %v %v", m, mode, err)
		}
	}
}

// historySchema is a schema of about 50 KB whose version v widens count's maximum.
func historySchema(v int) string {
	var b strings.Builder
	b.WriteString("{\n  \"type\": \"object\",\n  \"properties\": {\n")
	for i := 0; i < 480; i++ {
		fmt.Fprintf(&b, "    \"p%03d\": {\"type\": \"string\", \"maxLength\": %d, \"pattern\": \"^[a-z]{1,%d}$\", \"description\": \"field %d\"},\n", i, 10+i, 5+i%20, i)
	}
	fmt.Fprintf(&b, "    \"count\": {\"type\": \"integer\", \"maximum\": %d},\n", 100+v)
	b.WriteString("    \"end\": {}\n  },\n  \"required\": [\"p000\"]\n}\n")
	return b.String()
}

// BenchmarkHistory is jstk diff --history --mode backward-transitive over 100 earlier
// versions of a 50 KB schema (BENCHMARKS.md).
func BenchmarkHistory(b *testing.B) {
	w := gittest.New(b)
	for v := 0; v < 100; v++ {
		w.Commit(fmt.Sprintf("v%d", v), map[string]string{"schema.json": historySchema(v)})
	}
	w.Write("schema.json", historySchema(100))
	b.Chdir(w.Dir)
	b.Logf("schema: %d bytes", len(historySchema(100)))
	for b.Loop() {
		env := &Env{FS: workspace.OS()}
		res, err := runDiff(context.Background(), env, &DiffInput{History: true, Mode: "backward-transitive", Schemas: []Doc{{Path: "schema.json"}}})
		if err != nil {
			b.Fatal(err)
		}
		if h := res.History; h.Compared != 100 || h.Verdict != "compatible" {
			b.Fatalf("%d compared, %s", h.Compared, h.Verdict)
		}
	}
}
