package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tree is a real workspace on disk with an "outside" directory beside it, holding regular
// files, a FIFO and symbolic links of every kind.
type tree struct {
	root    string // the workspace, with symbolic links resolved
	outside string // a sibling directory that is not part of the workspace
}

func makeTree(t *testing.T) tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	files := map[string]string{
		"ws/a.json":                  `{"a":1}`,
		"ws/b.yaml":                  "b: 2\n",
		"ws/notes.txt":               "notes",
		"ws/sub/c.json":              `{"c":3}`,
		"ws/sub/deep/d.JSON":         `{"d":4}`,
		"ws/sub/deep/e.yml":          "e: 5\n",
		"ws/.hidden/h.json":          `{"h":1}`,
		"ws/sub/.git/config.json":    `{"git":1}`,
		"ws/node_modules/m.json":     `{"m":1}`,
		"ws/sub/node_modules/n.json": `{"n":1}`,
		"ws/.dot.json":               `{"dot":1}`,
		"outside/secret.json":        `{"secret":true}`,
	}
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/link-in.json":         "a.json",                                                  // relative, inside
		"ws/sub/link-up.json":     "../a.json",                                               // relative, climbs but stays inside
		"ws/link-out.json":        "../outside/secret.json",                                  // relative, outside
		"ws/link-abs-out.json":    filepath.Join(tr.outside, "secret.json"),                  // absolute, outside
		"ws/link-abs-in.json":     filepath.Join(tr.root, "a.json"),                          // absolute, inside
		"ws/dir-out":              "../outside",                                              // a directory outside
		"ws/dir-in":               "sub",                                                     // a directory inside
		"ws/dangling.json":        "missing.json",                                            // target does not exist
		"ws/sub/chain.json":       "../link-out.json",                                        // inside link to an outside link
		"ws/sub/deep/far.json":    filepath.Join("..", "..", "..", "outside", "secret.json"), // climbs out step by step
		"ws/sub/roundabout.json":  filepath.Join("..", "..", "ws", "a.json"),                 // out of the root and back in
		"ws/dir-abs-in":           filepath.Join(tr.root, "sub"),                             // an absolute link to a directory inside
		"ws/abs-to-out-link.json": filepath.Join(tr.root, "link-out.json"),                   // absolute, inside, to a link that leads out
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(tr.root, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr
}

// readAll reads a file through fsys, failing the test if Open does not return promptly (a
// FIFO opened for reading blocks until a writer appears).
func readAll(t *testing.T, fsys FS, name string) (string, error) {
	t.Helper()
	type result struct {
		data string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := ReadFile(fsys, name, 0)
		done <- result{string(data), err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("reading %q hangs", name)
		return "", nil
	}
}

// errText renders an error with the workspace directory replaced by $ROOT, "" for nil.
func errText(err error, root string) string {
	if err == nil {
		return ""
	}
	if root == "" {
		return err.Error()
	}
	return strings.ReplaceAll(err.Error(), filepath.ToSlash(root), "$ROOT")
}

const refused = ": refused: the path or a symbolic link in it leads outside the workspace $ROOT"

func TestRootConfinement(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	fsys, err := Root(tr.root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		want     string // content when err is ""
		err      string
		notFound bool // errors.Is(err, fs.ErrNotExist)
	}{
		{name: "a.json", want: `{"a":1}`},
		{name: "./a.json", want: `{"a":1}`},
		{name: "sub/c.json", want: `{"c":3}`},
		{name: "sub/../a.json", want: `{"a":1}`},
		{name: "sub/deep/../../a.json", want: `{"a":1}`},
		{name: filepath.Join(tr.root, "sub", "c.json"), want: `{"c":3}`},
		{name: "link-in.json", want: `{"a":1}`},
		{name: "sub/link-up.json", want: `{"a":1}`},
		{name: "dir-in/c.json", want: `{"c":3}`},

		{name: "../outside/secret.json", err: "../outside/secret.json: path climbs out of the workspace $ROOT"},
		{name: "..", err: "..: path climbs out of the workspace $ROOT"},
		{name: "sub/../../outside/secret.json", err: "sub/../../outside/secret.json: path climbs out of the workspace $ROOT"},
		{name: filepath.Join(tr.outside, "secret.json"), err: filepath.Join(tr.outside, "secret.json") + ": path is outside the workspace $ROOT"},
		{name: "/etc/passwd", err: "/etc/passwd: path is outside the workspace $ROOT"},
		{name: tr.root + "/../outside/secret.json", err: "$ROOT/../outside/secret.json: path is outside the workspace $ROOT"},
		{name: "link-out.json", err: "link-out.json" + refused},
		{name: "link-abs-out.json", err: "link-abs-out.json" + refused},
		{name: "dir-out/secret.json", err: "dir-out/secret.json" + refused},
		{name: "sub/chain.json", err: "sub/chain.json" + refused},
		{name: "sub/deep/far.json", err: "sub/deep/far.json" + refused},
		// A link is judged by where it leads, absolute or relative, whatever way it takes
		// (os.Root alone refuses every absolute target, and a way that passes outside).
		{name: "link-abs-in.json", want: `{"a":1}`},
		{name: "sub/roundabout.json", want: `{"a":1}`},
		{name: "dir-abs-in/c.json", want: `{"c":3}`},
		{name: "abs-to-out-link.json", err: "abs-to-out-link.json" + refused},

		{name: "missing.json", err: "missing.json: no such file or directory", notFound: true},
		{name: "dangling.json", err: "dangling.json: no such file or directory", notFound: true},
		{name: "sub", err: "sub: is a directory"},
		{name: "dir-in", err: "dir-in: is a directory"},
		{name: "fifo.json", err: "fifo.json: not a regular file"},
	}
	for _, tt := range tests {
		got, err := readAll(t, fsys, tt.name)
		if diff := cmp.Diff(tt.err, errText(err, tr.root)); diff != "" {
			t.Errorf("ReadFile(%q) error (-want +got):\n%s", tt.name, diff)
		}
		if tt.err == "" && got != tt.want {
			t.Errorf("ReadFile(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if errors.Is(err, fs.ErrNotExist) != tt.notFound {
			t.Errorf("ReadFile(%q): errors.Is(err, fs.ErrNotExist) = %v, want %v", tt.name, !tt.notFound, tt.notFound)
		}
		// Stat refuses the same escapes, naming the path as given.
		_, serr := fsys.Stat(tt.name)
		if strings.Contains(tt.err, "outside") || strings.Contains(tt.err, "climbs") || tt.notFound {
			if diff := cmp.Diff(tt.err, errText(serr, tr.root)); diff != "" {
				t.Errorf("Stat(%q) error (-want +got):\n%s", tt.name, diff)
			}
		} else if serr != nil {
			t.Errorf("Stat(%q) = %v, want no error", tt.name, serr)
		}
	}
}

func TestRootReadDir(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	fsys, err := Root(tr.root)
	if err != nil {
		t.Fatal(err)
	}
	names := func(dir string) ([]string, error) {
		es, err := fsys.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out, err
	}
	got, err := names(".")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".dot.json", ".hidden", "a.json", "abs-to-out-link.json", "b.yaml", "dangling.json", "dir-abs-in", "dir-in", "dir-out", "fifo.json",
		"link-abs-in.json", "link-abs-out.json", "link-in.json", "link-out.json", "node_modules", "notes.txt", "sub"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadDir(.) (-want +got):\n%s", diff)
	}
	got, err = names("dir-in/deep")
	if err != nil || !cmp.Equal(got, []string{"d.JSON", "e.yml", "far.json"}) {
		t.Errorf("ReadDir(dir-in/deep) = %q, %v", got, err)
	}
	for name, wantErr := range map[string]string{
		"dir-out":       "dir-out" + refused,
		"..":            "..: path climbs out of the workspace $ROOT",
		"/":             "/: path is outside the workspace $ROOT",
		"missing":       "missing: no such file or directory",
		"a.json":        "a.json: not a directory",
		"link-out.json": "link-out.json" + refused,
	} {
		_, err := names(name)
		if diff := cmp.Diff(wantErr, errText(err, tr.root)); diff != "" {
			t.Errorf("ReadDir(%q) error (-want +got):\n%s", name, diff)
		}
	}
	fi, err := fsys.Stat(".")
	if err != nil || !fi.IsDir() {
		t.Errorf("Stat(.) = %v, %v; want a directory", fi, err)
	}
	fi, err = fsys.Stat(tr.root)
	if err != nil || !fi.IsDir() {
		t.Errorf("Stat(root) = %v, %v; want a directory", fi, err)
	}
}

// A workspace named through a symbolic link accepts absolute names spelled either way.
func TestRootThroughSymlink(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	alias := filepath.Join(filepath.Dir(tr.root), "alias")
	if err := os.Symlink(tr.root, alias); err != nil {
		t.Fatal(err)
	}
	fsys, err := Root(alias)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.json", filepath.Join(tr.root, "a.json"), filepath.Join(alias, "a.json")} {
		got, err := readAll(t, fsys, name)
		if err != nil || got != `{"a":1}` {
			t.Errorf("ReadFile(%q) = %q, %v", name, got, err)
		}
	}
	if got := fsys.Abs("a.json"); got != filepath.ToSlash(filepath.Join(tr.root, "a.json")) {
		t.Errorf("Abs(a.json) = %q, want the resolved path", got)
	}
	if rel, ok := fsys.Rel(filepath.ToSlash(alias)); rel != "." || !ok {
		t.Errorf("Rel(alias) = %q, %v; want \".\", true", rel, ok)
	}
	if _, err := fsys.Stat(alias + "/../outside/secret.json"); err == nil {
		t.Errorf("Stat through alias/.. escaped the workspace")
	}
}

func TestRootErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Root(filepath.Join(dir, "nope"))
	if want := filepath.Join(dir, "nope") + ": no such file or directory"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Root(missing) = %v, want an error containing %q", err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Root(filepath.Join(dir, "f")); err == nil {
		t.Errorf("Root(a file) succeeded")
	}
}

func TestOS(t *testing.T) {
	tr := makeTree(t)
	t.Chdir(tr.root)
	fsys := OS()
	tests := []struct {
		name string
		want string
		err  string
	}{
		{name: "a.json", want: `{"a":1}`},
		{name: "sub/../a.json", want: `{"a":1}`},
		// The operating system's FS is not confined: the CLI reads what its user names.
		{name: "../outside/secret.json", want: `{"secret":true}`},
		{name: filepath.Join(tr.outside, "secret.json"), want: `{"secret":true}`},
		{name: "link-out.json", want: `{"secret":true}`},
		{name: "link-abs-in.json", want: `{"a":1}`},
		{name: "missing.json", err: "missing.json: no such file or directory"},
		{name: "sub", err: "sub: is a directory"},
		{name: "fifo.json", err: "fifo.json: not a regular file"},
		{name: "-", err: "-: no such file or directory"},
	}
	for _, tt := range tests {
		got, err := readAll(t, fsys, tt.name)
		if diff := cmp.Diff(tt.err, errText(err, tr.root)); diff != "" {
			t.Errorf("ReadFile(%q) error (-want +got):\n%s", tt.name, diff)
		}
		if got != tt.want {
			t.Errorf("ReadFile(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if _, err := fsys.Stat("missing"); errText(err, tr.root) != "missing: no such file or directory" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v", err)
	}
	es, err := fsys.ReadDir("sub/deep")
	if err != nil || len(es) != 3 || es[0].Name() != "d.JSON" {
		t.Errorf("ReadDir(sub/deep) = %v, %v", es, err)
	}
	if _, err := fsys.ReadDir("missing"); errText(err, tr.root) != "missing: no such file or directory" {
		t.Errorf("ReadDir(missing) = %v", err)
	}
	root := filepath.ToSlash(tr.root)
	for _, c := range []struct{ name, abs, rel string }{
		{"a.json", root + "/a.json", "a.json"},
		{"sub/../sub/c.json", root + "/sub/c.json", "sub/c.json"},
		{".", root, root}, // the working directory itself has no shorter name
		{"../outside/x", filepath.ToSlash(tr.outside) + "/x", filepath.ToSlash(tr.outside) + "/x"},
		{"/etc//passwd", "/etc/passwd", "/etc/passwd"},
	} {
		abs := fsys.Abs(c.name)
		rel, ok := fsys.Rel(abs)
		if abs != c.abs || rel != c.rel || !ok {
			t.Errorf("Abs(%q) = %q, Rel = %q, %v; want %q, %q, true", c.name, abs, rel, ok, c.abs, c.rel)
		}
	}
}

func TestMemory(t *testing.T) {
	t.Parallel()
	fsys := Memory(map[string]string{
		"a.json":        `{"a":1}`,
		"/sub/b.json":   `{"b":2}`,
		"sub/c/d.yaml":  "d: 4\n",
		"./sub/e.json":  `{"e":5}`,
		"sub//f.toml":   "f = 6\n",
		"empty.json":    "",
		"dir/.keep":     "",
		"x/../moved.js": "moved",
	})
	tests := []struct {
		name     string
		want     string
		err      string
		notFound bool
	}{
		{name: "a.json", want: `{"a":1}`},
		{name: "/ws/a.json", want: `{"a":1}`},
		{name: "sub/b.json", want: `{"b":2}`},
		{name: "sub/../a.json", want: `{"a":1}`},
		{name: "sub/e.json", want: `{"e":5}`},
		{name: "sub/f.toml", want: "f = 6\n"},
		{name: "moved.js", want: "moved"},
		{name: "empty.json", want: ""},
		{name: "missing.json", err: "missing.json: no such file or directory", notFound: true},
		{name: "sub", err: "sub: is a directory"},
		{name: "../a.json", err: "../a.json: path climbs out of the workspace /ws"},
		{name: "/ws/../a.json", err: "/ws/../a.json: path is outside the workspace /ws"},
		{name: "/etc/passwd", err: "/etc/passwd: path is outside the workspace /ws"},
		{name: "/wsx/a.json", err: "/wsx/a.json: path is outside the workspace /ws"},
	}
	for _, tt := range tests {
		got, err := readAll(t, fsys, tt.name)
		if diff := cmp.Diff(tt.err, errText(err, "")); diff != "" {
			t.Errorf("ReadFile(%q) error (-want +got):\n%s", tt.name, diff)
		}
		if got != tt.want {
			t.Errorf("ReadFile(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if errors.Is(err, fs.ErrNotExist) != tt.notFound {
			t.Errorf("ReadFile(%q): errors.Is(err, fs.ErrNotExist) = %v", tt.name, !tt.notFound)
		}
	}
	es, err := fsys.ReadDir("sub")
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"b.json", "c", "e.json", "f.toml"}, names); diff != "" || err != nil {
		t.Errorf("ReadDir(sub) = %v (-want +got):\n%s", err, diff)
	}
	for name, want := range map[string]string{
		"nope":  "nope: no such file or directory",
		"../x":  "../x: path climbs out of the workspace /ws",
		"/else": "/else: path is outside the workspace /ws",
	} {
		if _, err := fsys.ReadDir(name); errText(err, "") != want {
			t.Errorf("ReadDir(%q) = %v, want %q", name, err, want)
		}
		if _, err := fsys.Stat(name); errText(err, "") != want {
			t.Errorf("Stat(%q) = %v, want %q", name, err, want)
		}
	}
	fi, err := fsys.Stat("/ws")
	if err != nil || !fi.IsDir() {
		t.Errorf("Stat(/ws) = %v, %v", fi, err)
	}
	for _, c := range []struct {
		name, abs, rel string
		ok             bool
	}{
		{"a.json", "/ws/a.json", "a.json", true},
		{"sub/./b.json", "/ws/sub/b.json", "sub/b.json", true},
		{".", "/ws", ".", true},
		{"/ws/sub/", "/ws/sub", "sub", true},
		{"/elsewhere/x.json", "/elsewhere/x.json", "", false},
	} {
		abs := fsys.Abs(c.name)
		rel, ok := fsys.Rel(abs)
		if !ok {
			rel = "" // what Rel returns with false is unspecified
		}
		if abs != c.abs || rel != c.rel || ok != c.ok {
			t.Errorf("Abs(%q) = %q, Rel = %q, %v; want %q, %q, %v", c.name, abs, rel, ok, c.abs, c.rel, c.ok)
		}
	}
}

func TestRootAbsRel(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	fsys, err := Root(tr.root)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.ToSlash(tr.root)
	for _, c := range []struct {
		name, abs, rel string
		ok             bool
	}{
		{"a.json", root + "/a.json", "a.json", true},
		{"sub/deep/../c.json", root + "/sub/c.json", "sub/c.json", true},
		{".", root, ".", true},
		{root + "/sub/", root + "/sub", "sub", true},
		{"/elsewhere/x.json", "/elsewhere/x.json", "", false},
		{root + "x/a.json", root + "x/a.json", "", false}, // a sibling sharing the prefix
	} {
		abs := fsys.Abs(c.name)
		rel, ok := fsys.Rel(abs)
		if abs != c.abs || rel != c.rel || ok != c.ok {
			t.Errorf("Abs(%q) = %q, Rel = %q, %v; want %q, %q, %v", c.name, abs, rel, ok, c.abs, c.rel, c.ok)
		}
		if ok {
			// A name Rel gives back opens the same file.
			if _, err := fsys.Stat(rel); err != nil {
				t.Errorf("Stat(Rel(Abs(%q))): %v", c.name, err)
			}
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	t.Parallel()
	fsys := Memory(map[string]string{"ten.json": "0123456789"})
	for _, c := range []struct {
		limit int64
		want  string
		err   string
	}{
		{limit: 0, want: "0123456789"},
		{limit: -1, want: "0123456789"},
		{limit: 10, want: "0123456789"},
		{limit: 100, want: "0123456789"},
		{limit: 9, err: "ten.json: file is larger than the limit of 9 bytes (raise it with --max-size)"},
		{limit: 1, err: "ten.json: file is larger than the limit of 1 bytes (raise it with --max-size)"},
	} {
		got, err := ReadFile(fsys, "ten.json", c.limit)
		if diff := cmp.Diff(c.err, errText(err, "")); diff != "" {
			t.Errorf("limit %d: error (-want +got):\n%s", c.limit, diff)
		}
		if string(got) != c.want {
			t.Errorf("limit %d: got %q, want %q", c.limit, got, c.want)
		}
	}
	// On disk, a file that states a size over the limit is refused from its size.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ten.json"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, disk := range []FS{root, OS()} {
		name := "ten.json"
		if disk != root {
			name = filepath.Join(dir, "ten.json")
		}
		if _, err := ReadFile(disk, name, 9); err == nil || !strings.Contains(err.Error(), "file is larger than the limit of 9 bytes") {
			t.Errorf("on disk, limit 9: %v", err)
		}
		if got, err := ReadFile(disk, name, 10); err != nil || string(got) != "0123456789" {
			t.Errorf("on disk, limit 10: %q, %v", got, err)
		}
	}
	// A reader that states no size is cut at the limit.
	if _, err := ReadFile(sizelessFS{fsys}, "ten.json", 9); errText(err, "") != "ten.json: file is larger than the limit of 9 bytes (raise it with --max-size)" {
		t.Errorf("sizeless reader, limit 9: %v", err)
	}
	if _, err := ReadFile(fsys, "nope.json", 5); errText(err, "") != "nope.json: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	// A read error after opening names the file.
	for _, limit := range []int64{0, 5} {
		_, err := ReadFile(failingFS{Memory(nil)}, "broken.json", limit)
		if got, want := errText(err, ""), "broken.json: disk on fire"; got != want {
			t.Errorf("read error, limit %d: got %q, want %q", limit, got, want)
		}
	}
}

// sizelessFS opens files as readers that do not state their size.
type sizelessFS struct{ FS }

func (s sizelessFS) Open(name string) (io.ReadCloser, error) {
	f, err := s.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ io.ReadCloser }{f}, nil
}

// failingFS opens every name as a reader that fails.
type failingFS struct{ FS }

func (failingFS) Open(string) (io.ReadCloser, error) { return io.NopCloser(errReader{}), nil }

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestPathErrorUnwrap(t *testing.T) {
	t.Parallel()
	err := pathErr("open", "x", &fs.PathError{Op: "open", Path: "/abs/x", Err: fs.ErrPermission})
	if got := err.Error(); got != "x: permission denied" {
		t.Errorf("got %q", got)
	}
	if !errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is does not see the permission error")
	}
	if pathErr("open", "x", nil) != nil {
		t.Errorf("pathErr(nil) != nil")
	}
	other := errors.New("something else")
	if err := pathErr("stat", "y", other); err.Error() != "y: something else" || !errors.Is(err, other) {
		t.Errorf("got %v", err)
	}
}

// readSized reads everything whatever the size it is told: the exact size, too small (a
// file that grew after its size was read), unknown; and passes a read error on.
func TestReadSized(t *testing.T) {
	text := strings.Repeat("0123456789", 300)
	for _, size := range []int64{int64(len(text)), 0, 7, -1, 1 << 50} {
		got, err := readSized(iotest.OneByteReader(strings.NewReader(text)), size)
		if err != nil || string(got) != text {
			t.Errorf("size %d: %d bytes, %v; want %d bytes", size, len(got), err, len(text))
		}
	}
	boom := errors.New("boom")
	if _, err := readSized(iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Errorf("error = %v, want boom", err)
	}
}
