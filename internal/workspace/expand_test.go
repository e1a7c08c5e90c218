package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func expandTree() FS {
	return Memory(map[string]string{
		"a.json":                  "{}",
		"b.yaml":                  "b: 1\n",
		"notes.txt":               "",
		".dot.json":               "{}",
		"sub/c.json":              "{}",
		"sub/deep/d.JSON":         "{}",
		"sub/deep/e.yml":          "",
		"sub/deep/x/y/z.json":     "{}",
		".hidden/h.json":          "{}",
		"sub/.git/config.json":    "{}",
		"node_modules/m.json":     "{}",
		"sub/node_modules/n.json": "{}",
		"other/q.json":            "{}",
		"other/r1.json":           "{}",
		"other/r2.json":           "{}",
		"other/rx.json":           "{}",
		"other/r.json.bak":        "",
		"empty/readme.md":         "",
	})
}

func errStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

var jsonExts = []string{".json"}

func TestExpand(t *testing.T) {
	t.Parallel()
	fsys := expandTree()
	allJSON := []string{".dot.json", "a.json", "other/q.json", "other/r1.json", "other/r2.json", "other/rx.json",
		"sub/c.json", "sub/deep/d.JSON", "sub/deep/x/y/z.json"}
	tests := []struct {
		name  string
		args  []string
		exts  []string
		files []string
		errs  []string
	}{
		{name: "file", args: []string{"a.json"}, exts: jsonExts, files: []string{"a.json"}},
		{name: "file with another extension", args: []string{"notes.txt"}, exts: jsonExts, files: []string{"notes.txt"}},
		{name: "missing file", args: []string{"nope.json"}, exts: jsonExts,
			errs: []string{"nope.json: no such file or directory"}},
		{name: "stdin", args: []string{"-", "a.json", "-"}, exts: jsonExts, files: []string{"-", "a.json"}},
		{name: "workspace", args: []string{"."}, exts: jsonExts, files: allJSON},
		{name: "directory", args: []string{"sub"}, exts: []string{".yml", ".yaml"}, files: []string{"sub/deep/e.yml"}},
		{name: "directory with slashes", args: []string{"./sub/"}, exts: jsonExts,
			files: []string{"sub/c.json", "sub/deep/d.JSON", "sub/deep/x/y/z.json"}},
		{name: "all extensions", args: []string{"other"}, files: []string{"other/q.json", "other/r.json.bak",
			"other/r1.json", "other/r2.json", "other/rx.json"}},
		{name: "hidden directory named", args: []string{".hidden"}, exts: jsonExts, files: []string{".hidden/h.json"}},
		{name: "node_modules named", args: []string{"sub/node_modules"}, exts: jsonExts,
			files: []string{"sub/node_modules/n.json"}},
		{name: "directory without matches", args: []string{"empty", "a.json"}, exts: jsonExts,
			files: []string{"a.json"}, errs: []string{"empty: directory holds no .json file"}},
		{name: "directory without matches, several extensions", args: []string{"empty"}, exts: []string{".json", ".yaml"},
			errs: []string{"empty: directory holds no .json, .yaml file"}},
		{name: "no duplicates, order of arguments", args: []string{"sub/c.json", "sub", "a.json", "sub/c.json"},
			exts: jsonExts, files: []string{"sub/c.json", "sub/deep/d.JSON", "sub/deep/x/y/z.json", "a.json"}},
		{name: "errors do not stop the others", args: []string{"nope", "a.json", "nope2/*.json", "b.yaml"}, exts: jsonExts,
			files: []string{"a.json", "b.yaml"},
			errs:  []string{"nope: no such file or directory", "nope2/*.json: no file matches this pattern"}},

		{name: "star", args: []string{"*.json"}, files: []string{"a.json"}},
		{name: "a leading dot is matched only by a dot", args: []string{".*.json", "?dot.json"}, files: []string{".dot.json"},
			errs: []string{"?dot.json: no file matches this pattern"}},
		{name: "star in a directory", args: []string{"other/*.json"},
			files: []string{"other/q.json", "other/r1.json", "other/r2.json", "other/rx.json"}},
		{name: "dot slash star", args: []string{"./other/*.json"},
			files: []string{"other/q.json", "other/r1.json", "other/r2.json", "other/rx.json"}},
		{name: "dot dot in the literal part", args: []string{"sub/../other/q*"}, files: []string{"other/q.json"}},
		{name: "star directory", args: []string{"sub/*/*.yml"}, files: []string{"sub/deep/e.yml"}},
		{name: "question mark", args: []string{"other/r?.json"}, files: []string{"other/r1.json", "other/r2.json", "other/rx.json"}},
		{name: "class", args: []string{"other/r[0-9].json"}, files: []string{"other/r1.json", "other/r2.json"}},
		{name: "negated class", args: []string{"other/r[^0-9].json"}, files: []string{"other/rx.json"}},
		{name: "double star", args: []string{"**/*.json"}, files: []string{"a.json", "other/q.json",
			"other/r1.json", "other/r2.json", "other/rx.json", "sub/c.json", "sub/deep/x/y/z.json"}},
		{name: "double star matches zero directories", args: []string{"sub/**/c.json"}, files: []string{"sub/c.json"}},
		{name: "double star matches several directories", args: []string{"sub/**/z.json"},
			files: []string{"sub/deep/x/y/z.json"}},
		{name: "double star in the middle", args: []string{"**/deep/**"},
			files: []string{"sub/deep/d.JSON", "sub/deep/e.yml", "sub/deep/x/y/z.json"}},
		{name: "double star alone", args: []string{"sub/**"},
			files: []string{"sub/c.json", "sub/deep/d.JSON", "sub/deep/e.yml", "sub/deep/x/y/z.json"}},
		{name: "glob ignores exts", args: []string{"*.yaml"}, exts: jsonExts, files: []string{"b.yaml"}},
		{name: "absolute glob", args: []string{"/ws/other/r[12].json"}, files: []string{"/ws/other/r1.json", "/ws/other/r2.json"}},
		{name: "glob and file overlap", args: []string{"a.json", ".*.json", "*.json"}, files: []string{"a.json", ".dot.json"}},
		{name: "pattern matching nothing", args: []string{"*.nothing"}, errs: []string{"*.nothing: no file matches this pattern"}},
		{name: "pattern matching a directory only", args: []string{"sub/de*"}, errs: []string{"sub/de*: no file matches this pattern"}},
		{name: "pattern under a file", args: []string{"a.json/*"}, errs: []string{"a.json/*: no file matches this pattern"}},
		{name: "invalid pattern", args: []string{"other/[.json", "a.json"}, files: []string{"a.json"},
			errs: []string{"other/[.json: invalid pattern: syntax error in pattern"}},
		{name: "invalid pattern after a double star", args: []string{"**/x[-"},
			errs: []string{"**/x[-: invalid pattern: syntax error in pattern"}},
		{name: "pattern outside the workspace", args: []string{"../*.json"},
			errs: []string{"../*.json: ..: path climbs out of the workspace /ws"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, errs := Expand(fsys, tt.args, tt.exts)
			if diff := cmp.Diff(tt.files, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, errStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsGlob(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"a.json": false, "*.json": true, "a?.json": true, "[ab].json": true,
		"dir/**/x": true, "-": false, "": false} {
		if got := IsGlob(name); got != want {
			t.Errorf("IsGlob(%q) = %v, want %v", name, got, want)
		}
	}
}

// On disk, links that stay inside the workspace are followed; those that lead out, dangling
// ones, directory links and FIFOs are left out of a walk, and nothing hangs.
func TestExpandRoot(t *testing.T) {
	t.Parallel()
	tr := makeTree(t)
	fsys, err := Root(tr.root)
	if err != nil {
		t.Fatal(err)
	}
	// a pattern that climbs out of the workspace says so (not "no file matches")
	if _, errs := Expand(fsys, []string{"../*.json", "sub/../../*.json"}, jsonExts); len(errs) != 2 ||
		!strings.Contains(errs[0].Error(), "climbs out") || !strings.Contains(errs[1].Error(), "climbs out") {
		t.Errorf("patterns outside the workspace: %v", errs)
	}
	files, errs := Expand(fsys, []string{"."}, jsonExts)
	want := []string{".dot.json", "a.json", "link-abs-in.json", "link-in.json", "sub/c.json", "sub/deep/d.JSON", "sub/link-up.json", "sub/roundabout.json"}
	if diff := cmp.Diff(want, files); diff != "" || errs != nil {
		t.Errorf("Expand(.) errors %v, files (-want +got):\n%s", errs, diff)
	}
	files, errs = Expand(fsys, []string{"**/*.json"}, nil)
	want = []string{"a.json", "link-abs-in.json", "link-in.json", "sub/c.json", "sub/link-up.json", "sub/roundabout.json"}
	if diff := cmp.Diff(want, files); diff != "" || errs != nil {
		t.Errorf("Expand(**/*.json) errors %v, files (-want +got):\n%s", errs, diff)
	}
	// Named explicitly, a link to a directory inside is a directory.
	files, errs = Expand(fsys, []string{"dir-in"}, jsonExts)
	want = []string{"dir-in/c.json", "dir-in/deep/d.JSON", "dir-in/link-up.json", "dir-in/roundabout.json"}
	if diff := cmp.Diff(want, files); diff != "" || errs != nil {
		t.Errorf("Expand(dir-in) errors %v, files (-want +got):\n%s", errs, diff)
	}
	// A name stands for itself: reading it later is what refuses it.
	files, errs = Expand(fsys, []string{"fifo.json", "dir-out", "link-out.json", "../outside", filepath.Join(tr.outside, "*.json")}, jsonExts)
	if diff := cmp.Diff([]string{"fifo.json"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		"dir-out" + refused,
		"link-out.json" + refused,
		"../outside: path climbs out of the workspace $ROOT",
		filepath.Join(tr.outside, "*.json") + ": " + tr.outside + ": path is outside the workspace $ROOT",
	}
	var gotErrs []string
	for _, e := range errs {
		gotErrs = append(gotErrs, errText(e, tr.root))
	}
	if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// brokenDirFS fails to list one directory.
type brokenDirFS struct {
	FS
	bad string
}

func (b brokenDirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == b.bad {
		return nil, &PathError{Path: name, Err: fs.ErrPermission}
	}
	return b.FS.ReadDir(name)
}

// An unreadable directory is reported, and the files around it are still listed.
func TestExpandUnreadableDirectory(t *testing.T) {
	t.Parallel()
	fsys := brokenDirFS{FS: expandTree(), bad: "other"}
	tests := []struct {
		args  []string
		files []string
		errs  []string
	}{
		{args: []string{"other"}, errs: []string{"other: permission denied"}},
		{args: []string{"."}, files: []string{".dot.json", "a.json", "sub/c.json", "sub/deep/d.JSON", "sub/deep/x/y/z.json"},
			errs: []string{"other: permission denied"}},
		{args: []string{"**/*.json"}, files: []string{"a.json", "sub/c.json", "sub/deep/x/y/z.json"},
			errs: []string{"other: permission denied"}},
		{args: []string{"other/*"}, errs: []string{"other: permission denied"}},
		{args: []string{"other/q.json", "other"}, files: []string{"other/q.json"}, errs: []string{"other: permission denied"}},
	}
	for _, tt := range tests {
		files, errs := Expand(fsys, tt.args, jsonExts)
		if diff := cmp.Diff(tt.files, files); diff != "" {
			t.Errorf("Expand(%q) files (-want +got):\n%s", tt.args, diff)
		}
		if diff := cmp.Diff(tt.errs, errStrings(errs)); diff != "" {
			t.Errorf("Expand(%q) errors (-want +got):\n%s", tt.args, diff)
		}
		for _, e := range errs {
			if !errors.Is(e, fs.ErrPermission) {
				t.Errorf("Expand(%q): %v does not match fs.ErrPermission", tt.args, e)
			}
		}
	}
}

func TestRelPath(t *testing.T) {
	for _, tc := range []struct{ dir, p, want string }{
		{"/x/a", "/x/b/c.json", "../b/c.json"},
		{"/x", "/x/c.json", "c.json"},
		{"/", "/c.json", "c.json"},
		{"/x/a/", "/x/a/c.json", "c.json"},
		{"/x/a", "/y.json", "../../y.json"},
		{"a/b", "a/c/d.json", "../c/d.json"},
	} {
		if got := RelPath(tc.dir, tc.p); got != tc.want {
			t.Errorf("RelPath(%q, %q) = %q, want %q", tc.dir, tc.p, got, tc.want)
		}
	}
}
