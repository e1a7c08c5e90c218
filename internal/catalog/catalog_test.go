package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func scanFiles(t *testing.T, files map[string]string, opts *Options) *Workspace {
	t.Helper()
	w, err := Scan(context.Background(), workspace.Memory(files), opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// detected maps each catalogued path to the rule that found it.
func detected(w *Workspace) map[string]string {
	out := map[string]string{}
	for _, e := range w.Entries() {
		out[e.Path] = e.DetectedBy
	}
	return out
}

func TestDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  map[string]string
	}{
		{"draft URIs, http or https, with or without #", map[string]string{
			"a.json": `{"$schema": "http://json-schema.org/draft-07/schema#"}`,
			"b.json": `{"$schema": "https://json-schema.org/draft-07/schema"}`,
			"c.json": `{"$schema": "https://json-schema.org/draft/2019-09/schema"}`,
			"d.json": `{"$schema": "http://json-schema.org/draft-04/hyper-schema#"}`,
		}, map[string]string{"a.json": "$schema", "b.json": "$schema", "c.json": "$schema", "d.json": "$schema"}},
		{"a $schema naming an ordinary schema marks an instance", map[string]string{
			"s.json":    `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/s.json"}`,
			"inst.json": `{"$schema": "https://x.test/s.json", "a": 1}`,
			"far.json":  `{"$schema": "https://json.schemastore.org/package.json", "name": "x"}`,
			"bad.json":  `{"$schema": "http://[::1", "a": 1}`,
		}, map[string]string{"s.json": "$schema"}},
		{"names", map[string]string{
			"a.schema.json": `{"type": "object", "name": "not a keyword"}`,
			"b.SCHEMA.YML":  "true\n",
			"c.schema.yaml": "[1]\n",
			"d.json":        `{"type": "object", "name": "x"}`,
		}, map[string]string{"a.schema.json": "name", "b.SCHEMA.YML": "name"}},
		{"objects made of keywords", map[string]string{
			"ref.json":     `{"$ref": "https://elsewhere.test/s.json"}`,
			"typed.json":   `{"type": ["object", "null"], "x-extra": 1}`,
			"pkg.json":     `{"type": "module"}`,
			"props.json":   `{"properties": {"a": {}}, "required": ["a"]}`,
			"notobj.json":  `{"properties": [1]}`,
			"enum.json":    `{"enum": [1, 2]}`,
			"emptyty.json": `{"type": []}`,
			"anyof.json":   `{"anyOf": {}}`,
			"idnum.json":   `{"$id": 5}`,
			"badtype.json": `{"type": ["object", 1]}`,
			"numtype.json": `{"type": 5}`,
			"allof.json":   `{"allOf": [{}]}`,
		}, map[string]string{"ref.json": "keywords", "typed.json": "keywords", "props.json": "keywords", "allof.json": "keywords"}},
		{"referenced files, repeatedly", map[string]string{
			"root.schema.json": `{"$ref": "a.json"}`,
			"a.json":           `{"enum": [1], "items": {"$ref": "b.yaml#/x"}}`,
			"b.yaml":           "x: {const: 1}\n",
			"c.json":           `{"enum": [2]}`,
			"arr.json":         `[1]`,
			"ref-arr.json":     `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "arr.json"}`,
		}, map[string]string{"root.schema.json": "name", "a.json": "referenced", "b.yaml": "referenced", "ref-arr.json": "$schema"}},
		{"custom meta-schemas", map[string]string{
			"meta.json":  `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/meta", "$dynamicAnchor": "meta"}`,
			"meta7.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://x.test/meta7", "allOf": [{"$ref": "http://json-schema.org/draft-07/schema#"}]}`,
			"m19.json":   `{"$id": "https://x.test/m19", "$recursiveAnchor": true}`,
			"a.json":     `{"$schema": "https://x.test/meta", "type": "string"}`,
			"b.json":     `{"$schema": "https://x.test/meta7#", "type": "string"}`,
			"c.json":     `{"$schema": "https://x.test/m19", "type": "string"}`,
			"self.json":  `{"$schema": "https://x.test/self", "$id": "https://x.test/self", "$vocabulary": {}}`,
		}, map[string]string{"meta.json": "$schema", "meta7.json": "$schema", "m19.json": "keywords", "a.json": "$schema",
			"b.json": "$schema", "c.json": "$schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := scanFiles(t, tt.files, nil)
			if diff := cmp.Diff(tt.want, detected(w)); diff != "" {
				t.Errorf("detected (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	tests := []struct {
		id       string
		wantPath string // "" when not found
	}{
		{"https://example.com/order.json", "schemas/order.schema.json"},
		{"https://example.com/order.json#", "schemas/order.schema.json"},
		{"  https://example.com/order.json ", "schemas/order.schema.json"},
		{"schemas/order.schema.json", "schemas/order.schema.json"},
		{"./schemas/../schemas/order.schema.json", "schemas/order.schema.json"},
		{"/ws/schemas/order.schema.json", "schemas/order.schema.json"},
		{"shared/address.yaml", "shared/address.yaml"},
		{"https://example.com/legacy.json", "legacy/v4.json"},
		{"dup/b.json", "dup/b.json"},
		{"HTTPS://EXAMPLE.COM/order.json", ""}, // exact, not guessed
		{"https://example.com/order", ""},
		{"order.schema.json", ""},
		{"/elsewhere/order.schema.json", ""},
		{"data/config.json", ""},
		{"https://example.com/dup.json", ""},
		{"", ""},
	}
	for _, tt := range tests {
		c := w.Context(tt.id, ContextLimits{})
		got := ""
		if c.Found {
			got = c.Schema.Path
		}
		if got != tt.wantPath {
			t.Errorf("Context(%q) found %q, want %q", tt.id, got, tt.wantPath)
		}
		if c.Found != (c.Failure() == nil) || (c.ExitCode() == 2) == c.Found {
			t.Errorf("Context(%q): found %v, Failure %v, ExitCode %d", tt.id, c.Found, c.Failure(), c.ExitCode())
		}
		if !c.Found && (c.Error == "" || c.Failure().Error() != c.Error) {
			t.Errorf("Context(%q): a failure must carry its error, got %q", tt.id, c.Error)
		}
	}
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	tests := []struct {
		id   string
		want []string
	}{
		{"https://example.com/customer", []string{"https://example.com/customer.json"}},
		{"customer.json", []string{"https://example.com/customer.json"}},
		{"schemas/ordre.schema.json", []string{"https://example.com/order.json"}},
		{"COUNTRY", []string{"shared/country.json"}},
		{"https://example.com/dup.json", []string{"dup/a.json", "dup/b.json"}},
		{"zzzzzzzzzzzzzzzzzzzzzzzzzzzz", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range w.Context(tt.id, ContextLimits{}).Candidates {
			got = append(got, c.ID)
		}
		if len(got) > len(tt.want) {
			got = got[:len(tt.want)] // the closest come first
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("candidates of %q (-want +got):\n%s", tt.id, diff)
		}
	}
	many := map[string]string{}
	for _, c := range "abcdefghijklmno" {
		many["s"+string(c)+".schema.json"] = `{}`
	}
	if n := len(scanFiles(t, many, nil).Context("s.schema.json", ContextLimits{}).Candidates); n != maxCandidates {
		t.Errorf("%d candidates, want at most %d", n, maxCandidates)
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		bound int
		want  int
		ok    bool
	}{
		{"order", "order", 2, 0, true},
		{"ordr", "order", 2, 1, true},
		{"kitten", "sitting", 3, 3, true},
		{"kitten", "sitting", 2, 0, false},
		{"a", "abcdef", 2, 0, false},
		{"", "ab", 2, 2, true},
		{"abcdefgh", "hgfedcba", 3, 0, false},
	}
	for _, tt := range tests {
		got, ok := editDistance(tt.a, tt.b, tt.bound)
		if got != tt.want || ok != tt.ok {
			t.Errorf("editDistance(%q, %q, %d) = %d, %v; want %d, %v", tt.a, tt.b, tt.bound, got, ok, tt.want, tt.ok)
		}
	}
}

func TestListSelectionErrors(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Paths: []string{"nope"}}, "nope: no such file or directory"},
		{Query{Paths: []string{"../up"}}, "climbs out of the workspace"},
		{Query{Paths: []string{"/etc/passwd"}}, "outside the workspace"},
		{Query{Paths: []string{"schemas/[a"}}, "invalid pattern"},
		{Query{Offset: -1}, "must not be negative"},
		{Query{Limit: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		_, err := w.List(tt.q)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("List(%+v) error %v, want one containing %q", tt.q, err, tt.want)
		}
	}
	all, err := w.List(Query{Paths: []string{"schemas", "."}})
	if err != nil || all.Matched != w.Scanned().Schemas {
		t.Errorf("\".\" selects everything: %v, %d of %d", err, all.Matched, w.Scanned().Schemas)
	}
	none, err := w.List(Query{Paths: []string{"nothing/**/*.json"}})
	if err != nil || none.Matched != 0 {
		t.Errorf("a pattern that matches nothing is an empty catalog, got %v, %d", err, none.Matched)
	}
}

func TestPaging(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	all := w.Entries()
	tests := []struct {
		offset, limit int
		first, n      int
		page          *diag.Page
	}{
		{0, 0, 0, len(all), nil},
		{0, 100, 0, len(all), nil},
		{0, 5, 0, 5, &diag.Page{Offset: 0, Limit: 5, Total: len(all), Omitted: len(all) - 5}},
		{15, 5, 15, len(all) - 15, &diag.Page{Offset: 15, Limit: 5, Total: len(all), Omitted: 15}},
		{100, 0, len(all), 0, &diag.Page{Offset: 100, Total: len(all), Omitted: len(all)}},
	}
	for _, tt := range tests {
		l, err := w.List(Query{Offset: tt.offset, Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(all[tt.first:tt.first+tt.n], l.Schemas); diff != "" {
			t.Errorf("offset %d limit %d (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
		if diff := cmp.Diff(tt.page, l.Page); diff != "" {
			t.Errorf("offset %d limit %d: page (-want +got):\n%s", tt.offset, tt.limit, diff)
		}
		if l.Matched != len(all) {
			t.Errorf("matched %d, want %d", l.Matched, len(all))
		}
	}
}

// The same workspace gives the same answers, byte for byte, whatever the number of workers.
func TestDeterminism(t *testing.T) {
	_, files, calls := loadArchive(t, "workspace.txtar")
	answers := func() string {
		w := scanFiles(t, files, &Options{Resolve: testResolve})
		var sb strings.Builder
		for _, call := range calls {
			text, js := run(t, w, call)
			sb.WriteString(text + js)
		}
		for _, e := range w.Entries() {
			text, js := run(t, w, `context {"ID": "`+e.Path+`"}`)
			sb.WriteString(text + js)
		}
		return sb.String()
	}
	first := answers()
	prev := runtime.GOMAXPROCS(1)
	one := answers()
	runtime.GOMAXPROCS(max(prev, 4))
	four := answers()
	runtime.GOMAXPROCS(prev)
	if first != one || first != four {
		t.Error("answers differ between scans")
	}
}

// References resolve to the files the schema loader reads for them.
func TestLoaderParity(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	l := &schema.Loader{FS: w.fsys, IndexRoot: ".", Resolve: testResolve}
	n := 0
	for _, s := range w.schemas {
		for _, r := range s.refs {
			if r.uri == "" || (r.Target != nil && (r.Target.Local || r.Target.Builtin)) {
				continue
			}
			_, name, err := l.Load(r.uri)
			switch {
			case r.Target != nil && (err != nil || name != r.Target.Path):
				t.Errorf("%s %s: catalog resolves %s to %s, the loader to %q (%v)", s.file.path, r.Pointer, r.uri, r.Target.Path, name, err)
			case r.Target == nil && err == nil && !strings.Contains(r.Unresolved, "no value at") && !strings.Contains(r.Unresolved, "no anchor"):
				t.Errorf("%s %s: catalog leaves %s unresolved (%s), the loader reads %s", s.file.path, r.Pointer, r.uri, r.Unresolved, name)
			}
			n++
		}
	}
	if n < 8 {
		t.Errorf("only %d references compared", n)
	}
}

func TestScanBounds(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"a.schema.json": `{"type": "object"}`,
		"b.schema.json": `{"type": "object", "description": "` + strings.Repeat("x", 200) + `"}`,
		"c.schema.json": `{"type": "object"}`,
		"d.schema.json": `{"type": "object"}`,
	}
	tests := []struct {
		name    string
		opts    Options
		schemas int
		skipped []Skipped
		cut     string
	}{
		{"all", Options{}, 4, []Skipped{}, ""},
		{"files", Options{MaxFiles: 2}, 2, []Skipped{}, "the scan stopped after 2 files (the limit); 2 more were not read"},
		{"file size", Options{MaxFileSize: 100}, 3, []Skipped{{Path: "b.schema.json", Reason: "larger than the limit of 100 bytes"}}, ""},
		{"document limit", Options{Limits: &source.Limits{MaxSize: 100}}, 3, []Skipped{{Path: "b.schema.json", Reason: "larger than the limit of 100 bytes"}}, ""},
		{"total size", Options{MaxTotalSize: 250}, 1, []Skipped{},
			"the scan stopped after reading 18 bytes (the limit is 250); 3 files were not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			w := scanFiles(t, files, &opts)
			sc := w.Scanned()
			if sc.Schemas != tt.schemas || sc.Cut != tt.cut {
				t.Errorf("%d schemas, cut %q; want %d, %q", sc.Schemas, sc.Cut, tt.schemas, tt.cut)
			}
			if diff := cmp.Diff(tt.skipped, sc.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			var buf bytes.Buffer
			l, _ := w.List(Query{})
			if err := l.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			if tt.cut != "" && !strings.Contains(buf.String(), "scan cut: "+tt.cut) {
				t.Errorf("the text does not say the scan was cut:\n%s", buf.String())
			}
			if len(tt.skipped) > 0 && !strings.Contains(buf.String(), "1 file not read: b.schema.json") {
				t.Errorf("the text does not name the skipped file:\n%s", buf.String())
			}
		})
	}
	many := map[string]string{}
	for i := range 30 {
		many[strings.Repeat("f", i+1)+".schema.json"] = strings.Repeat(" ", 200) + "{}"
	}
	sc := scanFiles(t, many, &Options{MaxFileSize: 100}).Scanned()
	if sc.SkippedCount != 30 || len(sc.Skipped) != maxSkippedListed {
		t.Errorf("skipped %d, listed %d; want 30, %d", sc.SkippedCount, len(sc.Skipped), maxSkippedListed)
	}
}

func TestContextLimits(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	tests := []struct {
		lim     ContextLimits
		props   int
		omitted *Omitted
	}{
		{ContextLimits{}, 5, nil},
		{ContextLimits{Limit: 2}, 2, &Omitted{Properties: 3, References: 2}},
		{ContextLimits{Limit: 1, MaxText: 20}, 1, &Omitted{Properties: 4, References: 3, ReferencedBy: 1, TextCharacters: 805, TextLines: 24}},
		{ContextLimits{MaxText: 100000}, 5, nil},
	}
	for _, tt := range tests {
		c := w.Context("https://example.com/order.json", tt.lim)
		if len(c.Shape.Properties) != tt.props {
			t.Errorf("%+v: %d properties, want %d", tt.lim, len(c.Shape.Properties), tt.props)
		}
		if diff := cmp.Diff(tt.omitted, c.Omitted); diff != "" {
			t.Errorf("%+v: omitted (-want +got):\n%s", tt.lim, diff)
		}
	}
	text, _, _ := cutText(strings.Repeat("é", 10), 4)
	if text != "éééé" {
		t.Errorf("cutText counts characters, not bytes: %q", text)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	l, err := w.List(Query{Problems: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range l.Diagnostics() {
		got = append(got, d.Code+" "+d.Location()+" "+d.Pointer)
	}
	want := []string{
		"catalog/does-not-compile bad/broken.json:4:19 /properties/a/$ref",
		"catalog/invalid-schema bad/invalid.schema.json:3:11 /type",
		"catalog/invalid-schema bad/invalid.schema.json:4:16 /minLength",
		"catalog/unparsable bad/unparsable.schema.json:2:1 ",
		"catalog/does-not-compile bad/uses-invalid.json ",
		"catalog/invalid-schema legacy/draft3.json:1:2 /$schema",
		"catalog/does-not-compile legacy/v4.json:10:21 /properties/bad/$ref",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if l.ExitCode() != 0 {
		t.Errorf("the catalog exits %d, want 0 (problems are information)", l.ExitCode())
	}
	c := w.Context("bad/invalid.schema.json", ContextLimits{})
	if n := len(c.Diagnostics()); n != 2 || c.ExitCode() != 0 {
		t.Errorf("context of an invalid schema: %d diagnostics, exit %d; want 2, 0", n, c.ExitCode())
	}
	var buf bytes.Buffer
	if err := diag.Write(&buf, diag.SARIF, c, diag.Tool{Name: "jstk"}); err != nil || !strings.Contains(buf.String(), "catalog/invalid-schema") {
		t.Errorf("SARIF output: %v\n%s", err, buf.String())
	}
}

func TestProgressAndCancel(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 600 {
		files[strings.Repeat("d/", i%3)+"s"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".json"] =
			`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}`
	}
	var mu sync.Mutex
	var events []string
	_, err := Scan(context.Background(), workspace.Memory(files), &Options{Progress: func(done, total int, what string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, what)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(events, "files read") || !contains(events, "schemas checked") {
		t.Errorf("progress events %v", events)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, workspace.Memory(files), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled scan returned %v", err)
	}
	if _, err := Scan(context.Background(), nil, nil); err == nil {
		t.Error("a scan without a workspace succeeded")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// changingFS is a workspace whose files change, with modification times that follow.
type changingFS struct {
	mu    sync.Mutex
	files map[string]string
	mod   map[string]int64
	inner workspace.FS
	reads int
}

func newChangingFS(files map[string]string) *changingFS {
	c := &changingFS{files: map[string]string{}, mod: map[string]int64{}}
	for k, v := range files {
		c.files[k], c.mod[k] = v, 1
	}
	c.inner = workspace.Memory(c.files)
	return c
}

func (c *changingFS) set(name, content string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if content == "" {
		delete(c.files, name)
	} else {
		c.files[name] = content
	}
	c.mod[name]++
	c.inner = workspace.Memory(c.files)
}

func (c *changingFS) fs() workspace.FS {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inner
}

type modInfo struct {
	fs.FileInfo
	mod int64
}

func (m modInfo) ModTime() time.Time { return time.Unix(m.mod, 0) }

func (c *changingFS) Open(name string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.fs().Open(name)
}

func (c *changingFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := c.fs().Stat(name)
	if err != nil || fi.IsDir() {
		return fi, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return modInfo{fi, c.mod[name]}, nil
}

func (c *changingFS) ReadDir(name string) ([]fs.DirEntry, error) { return c.fs().ReadDir(name) }
func (c *changingFS) Abs(name string) string                     { return c.fs().Abs(name) }
func (c *changingFS) Rel(abs string) (string, bool)              { return c.fs().Rel(abs) }

func TestCache(t *testing.T) {
	t.Parallel()
	fsys := newChangingFS(map[string]string{
		"a.schema.json": `{"$ref": "b.json", "title": "A"}`,
		"b.json":        `{"enum": [1]}`,
		"data.json":     `{"name": "x"}`,
	})
	cache := NewCache()
	opts := &Options{Cache: cache}
	scan := func() *Workspace {
		w, err := Scan(context.Background(), fsys, opts)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	first := scan()
	reads := fsys.reads
	if again := scan(); again != first || fsys.reads != reads {
		t.Errorf("an unchanged workspace was scanned again (%d more reads)", fsys.reads-reads)
	}
	fsys.set("a.schema.json", `{"$ref": "b.json", "title": "A2"}`)
	second := scan()
	if second == first || second.Context("a.schema.json", ContextLimits{}).Schema.Title != "A2" {
		t.Error("a changed file was not read again")
	}
	if got := detected(second); got["b.json"] != "referenced" {
		t.Errorf("after a change, b.json is %q, want referenced", got["b.json"])
	}
	fsys.set("c.schema.json", `{"type": "string"}`)
	if n := scan().Scanned().Schemas; n != 3 {
		t.Errorf("a new file: %d schemas, want 3", n)
	}
	fsys.set("c.schema.json", "")
	if n := scan().Scanned().Schemas; n != 2 {
		t.Errorf("a deleted file: %d schemas, want 2", n)
	}
	fsys.set("a.schema.json", `{"title": "A3"}`)
	fsys.set("data.json", `{"$ref": "b.json"}`)
	if got := detected(scan()); got["b.json"] != "referenced" || got["data.json"] != "keywords" {
		t.Errorf("a file dropped from the catalog earlier must be read again when it becomes a schema: %v", got)
	}
	// Different options are different scans.
	other, err := Scan(context.Background(), fsys, &Options{Cache: cache, Resolve: map[string]string{"https://x.test/": "."}})
	if err != nil || other == first {
		t.Errorf("options did not separate the cached scans: %v", err)
	}
	for i := range maxCached + 2 {
		fs := workspace.Memory(map[string]string{"x.schema.json": `{}`, "n": strings.Repeat("x", i)})
		if _, err := Scan(context.Background(), fs, &Options{Cache: cache}); err != nil {
			t.Fatal(err)
		}
	}
	if len(cache.m) != maxCached {
		t.Errorf("the cache holds %d workspaces, want %d", len(cache.m), maxCached)
	}
}

// A file system that cannot be a map key is scanned afresh each time.
type mapFS map[string]string

func (m mapFS) Open(name string) (io.ReadCloser, error)    { return workspace.Memory(m).Open(name) }
func (m mapFS) Stat(name string) (fs.FileInfo, error)      { return workspace.Memory(m).Stat(name) }
func (m mapFS) ReadDir(name string) ([]fs.DirEntry, error) { return workspace.Memory(m).ReadDir(name) }
func (m mapFS) Abs(name string) string                     { return workspace.Memory(m).Abs(name) }
func (m mapFS) Rel(abs string) (string, bool)              { return workspace.Memory(m).Rel(abs) }
func (m mapFS) scan(t *testing.T, cache *Cache) *Workspace {
	return must(Scan(context.Background(), m, &Options{Cache: cache}))
}

func must(w *Workspace, err error) *Workspace {
	if err != nil {
		panic(err)
	}
	return w
}

// failingFS refuses to list one directory.
type failingFS struct{ workspace.FS }

func (f failingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "locked" {
		return nil, &workspace.PathError{Path: name, Err: fs.ErrPermission}
	}
	return f.FS.ReadDir(name)
}

func TestUnreadableAndEmpty(t *testing.T) {
	t.Parallel()
	fsys := failingFS{workspace.Memory(map[string]string{"a.schema.json": `{}`, "locked/b.schema.json": `{}`})}
	w, err := Scan(context.Background(), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Scanned{Files: 1, Schemas: 1, Skipped: []Skipped{{Path: "locked", Reason: "permission denied"}}, SkippedCount: 1}
	if diff := cmp.Diff(want, w.Scanned()); diff != "" {
		t.Errorf("scan (-want +got):\n%s", diff)
	}
	empty := scanFiles(t, map[string]string{"README.md": "# no schemas"}, nil)
	if diff := cmp.Diff(Scanned{Skipped: []Skipped{}}, empty.Scanned()); diff != "" {
		t.Errorf("an empty workspace (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	l, _ := empty.List(Query{})
	if err := l.WriteText(&buf); err != nil || buf.String() != "0 schemas (0 invalid, 0 not compiling) in 0 files read\n" {
		t.Errorf("empty catalog: %v %q", err, buf.String())
	}
}

// staleFS reports sizes that differ from the files' (a file that changed between the listing
// and the read), and fails to open one file.
type staleFS struct {
	workspace.FS
	delta int64
}

type sizeInfo struct {
	fs.FileInfo
	size int64
}

func (s sizeInfo) Size() int64 { return s.size }

func (s staleFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := s.FS.Stat(name)
	if err != nil || fi.IsDir() {
		return fi, err
	}
	return sizeInfo{fi, fi.Size() + s.delta}, nil
}

func (s staleFS) Open(name string) (io.ReadCloser, error) {
	if name == "gone.schema.json" {
		return nil, &workspace.PathError{Path: name, Err: fs.ErrNotExist}
	}
	return s.FS.Open(name)
}

func TestReadChangedFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.schema.json": `{"title": "grown or shrunk"}`, "gone.schema.json": `{}`}
	for _, delta := range []int64{-5, 5} {
		w, err := Scan(context.Background(), staleFS{workspace.Memory(files), delta}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e := w.Entries(); len(e) != 2 || e[0].Title != "grown or shrunk" || e[1].Valid ||
			e[1].Problem != "cannot be read: file does not exist" {
			t.Errorf("size off by %d: %+v", delta, e)
		}
	}
}

func TestUncomparableFS(t *testing.T) {
	t.Parallel()
	cache := NewCache()
	m := mapFS{"a.schema.json": `{}`}
	if a, b := m.scan(t, cache), m.scan(t, cache); a == b || len(cache.m) != 0 {
		t.Error("an uncomparable file system was cached")
	}
}

func TestJSONShape(t *testing.T) {
	t.Parallel()
	w := testWorkspace(t)
	l, _ := w.List(Query{Text: "no such thing"})
	js, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"schemas":[]`) {
		t.Errorf("an empty catalog must hold an empty list: %s", js)
	}
	for _, e := range w.Entries() {
		if e.References == nil {
			t.Errorf("%s: references is null", e.Path)
		}
	}
}

// A panic on a checking goroutine reaches Scan's caller instead of ending the process.
func TestWorkerPanicReachesCaller(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.json": `{"type": "object"}`}
	got := func() (r any) {
		defer func() { r = recover() }()
		Scan(context.Background(), workspace.Memory(files), &Options{Progress: func(done, total int, what string) {
			if what == "schemas checked" {
				panic("boom")
			}
		}})
		return nil
	}()
	if e, ok := got.(*panics.Error); !ok || e.Value != "boom" {
		t.Fatalf("recovered %#v, want the worker's panic", got)
	}
}

// TestPathGlobsLeadingDot: the catalog's path globs match as every glob of jstk does
// (workspace.MatchSegments): "*" does not match a name's leading dot.
func TestPathGlobsLeadingDot(t *testing.T) {
	schema := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}`
	w := scanFiles(t, map[string]string{"a.schema.json": schema, ".b.schema.json": schema, "sub/c.schema.json": schema}, nil)
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"*.json", []string{"a.schema.json"}},
		{".*.json", []string{".b.schema.json"}},
		{"**/*.json", []string{"a.schema.json", "sub/c.schema.json"}},
	} {
		l, err := w.List(Query{Paths: []string{tc.glob}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range l.Schemas {
			got = append(got, e.Path)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.glob, got, tc.want)
		}
	}
}

// cancelLater is a context that answers Err with nil for its first calls and is cancelled
// from then on: it cancels a run at a chosen look.
type cancelLater struct {
	context.Context
	looks atomic.Int32
	after int32
}

func (c *cancelLater) Err() error {
	if c.looks.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

// TestCancelledCompileIsNoVerdict: a compile stopped by the cancellation of its call is no
// verdict on the schema. Before, the last schema of a workspace cancelled while it compiled
// was recorded as "does not compile: compilation stopped: context canceled", and that scan
// was kept in the session's cache: the next call of the session said so of a schema that
// compiles.
func TestCancelledCompileIsNoVerdict(t *testing.T) {
	t.Parallel()
	w := scanFiles(t, map[string]string{"a.schema.json": `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"x": {"type": "string"}}, "$ref": "#/$defs/x"}`}, nil)
	for after := int32(1); after <= 4; after++ {
		ctx := &cancelLater{Context: context.Background(), after: after}
		w.schemas[0].entry.Draft = ""
		err := w.compileAll(ctx, w.compileLoader(w.loader()))
		if err == nil && w.schemas[0].entry.Draft != "" {
			continue // compiled before its context was asked again
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at look %d: error %v, want the cancellation", after, err)
		}
		for _, e := range w.Entries() {
			if strings.Contains(e.Problem, "compilation stopped") {
				t.Errorf("cancelled at look %d: %s recorded %q", after, e.Path, e.Problem)
			}
		}
	}
}
