package gitread

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// TreeFS reads the files of one commit's tree as if they were checked out in the
// repository's working tree: a relative name is relative to Dir, absolute names are the
// paths the files have in the working tree. It has the methods of a jstk workspace FS
// (Open, Stat, ReadDir, Abs, Rel), and only reads names under Within.
type TreeFS struct {
	repo *Repo
	tree Hash
	when time.Time
	// Dir is the directory relative names start from (absolute, slash-separated).
	Dir string
	// Within confines the names read (absolute, slash-separated): the repository's top
	// unless narrowed.
	Within string
}

// TreeFS returns the files of commit c, named as in the working tree at r.Top.
func (r *Repo) TreeFS(c *Commit, dir string) *TreeFS {
	top := filepath.ToSlash(r.Top)
	return &TreeFS{repo: r, tree: c.Tree, when: c.Time, Dir: path.Clean(filepath.ToSlash(dir)), Within: top}
}

// Abs is the absolute path of name.
func (t *TreeFS) Abs(name string) string {
	n := filepath.ToSlash(name)
	if path.IsAbs(n) {
		return path.Clean(n)
	}
	return path.Join(t.Dir, n)
}

// Rel returns abs as a name, when it lies within.
func (t *TreeFS) Rel(abs string) (string, bool) {
	abs = path.Clean(filepath.ToSlash(abs))
	if abs == t.Within || strings.HasPrefix(abs, strings.TrimSuffix(t.Within, "/")+"/") {
		return abs, true
	}
	return "", false
}

// entry finds name in the tree.
func (t *TreeFS) entry(op, name string) (TreeEntry, string, error) {
	abs := t.Abs(name)
	if _, ok := t.Rel(abs); !ok {
		return TreeEntry{}, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrPermission}
	}
	top := path.Clean(filepath.ToSlash(t.repo.Top))
	rel := strings.TrimPrefix(strings.TrimPrefix(abs, top), "/")
	if abs != top && !strings.HasPrefix(abs, top+"/") {
		return TreeEntry{}, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	e, ok, err := t.repo.Lookup(t.tree, rel)
	if err != nil {
		return TreeEntry{}, "", &fs.PathError{Op: op, Path: name, Err: err}
	}
	if !ok {
		return TreeEntry{}, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, path.Base(abs), nil
}

// Open opens a file.
func (t *TreeFS) Open(name string) (io.ReadCloser, error) {
	e, _, err := t.entry("open", name)
	if err != nil {
		return nil, err
	}
	if e.IsDir() || e.Mode&0o170000 != 0o100000 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	data, err := t.repo.Blob(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// Stat describes a file or directory.
func (t *TreeFS) Stat(name string) (fs.FileInfo, error) {
	e, base, err := t.entry("stat", name)
	if err != nil {
		return nil, err
	}
	return t.info(e, base)
}

func (t *TreeFS) info(e TreeEntry, base string) (fs.FileInfo, error) {
	fi := &fileInfo{name: base, mode: 0o644, when: t.when}
	if e.IsDir() {
		fi.mode = fs.ModeDir | 0o755
		return fi, nil
	}
	if e.Mode&0o170000 != 0o100000 {
		fi.mode = fs.ModeIrregular
		return fi, nil
	}
	data, err := t.repo.Blob(e.Hash)
	if err != nil {
		return nil, err
	}
	fi.size = int64(len(data))
	return fi, nil
}

// ReadDir lists a directory, sorted by name.
func (t *TreeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, _, err := t.entry("read directory", name)
	if err != nil {
		return nil, err
	}
	if !e.IsDir() {
		return nil, &fs.PathError{Op: "read directory", Path: name, Err: fs.ErrInvalid}
	}
	ents, err := t.repo.Tree(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read directory", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(ents))
	for _, c := range ents {
		out = append(out, &dirEntry{t: t, e: c})
	}
	sortEntries(out)
	return out, nil
}

func sortEntries(es []fs.DirEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Name() < es[j-1].Name(); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	when time.Time
}

func (f *fileInfo) Name() string       { return f.name }
func (f *fileInfo) Size() int64        { return f.size }
func (f *fileInfo) Mode() fs.FileMode  { return f.mode }
func (f *fileInfo) ModTime() time.Time { return f.when }
func (f *fileInfo) IsDir() bool        { return f.mode.IsDir() }
func (f *fileInfo) Sys() any           { return nil }

type dirEntry struct {
	t *TreeFS
	e TreeEntry
}

func (d *dirEntry) Name() string { return d.e.Name }
func (d *dirEntry) IsDir() bool  { return d.e.IsDir() }
func (d *dirEntry) Type() fs.FileMode {
	switch {
	case d.e.IsDir():
		return fs.ModeDir
	case d.e.Mode&0o170000 == 0o100000:
		return 0
	}
	return fs.ModeIrregular
}
func (d *dirEntry) Info() (fs.FileInfo, error) { return d.t.info(d.e, d.e.Name) }
