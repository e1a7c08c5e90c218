// Package workspace owns file access for every engine: the FS interface through which all
// files are read, its three implementations (the operating system for the CLI, a directory
// tree that nothing may escape for MCP tools, and memory for tests), and the expansion of
// directories and glob patterns into file lists.
//
// A confined workspace refuses absolute paths outside its root, ".." that climbs out of it,
// symbolic links whose target lies outside, and anything that is not a regular file or a
// directory, with an error that names the path. A symbolic link is judged by where it
// leads: one to a file inside is followed, absolute or relative, whatever way it takes.
// Files hidden from it (the audit log of jstk mcp) cannot be read or listed.
package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing/fstest"
	"time"
)

// FS reads the files of a workspace. Names use forward slashes; a relative name is relative
// to the workspace root (for the operating system: the working directory).
type FS interface {
	// Open opens a regular file for reading.
	Open(name string) (io.ReadCloser, error)
	// Stat describes a file or directory.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists a directory, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Abs returns the absolute, clean, slash-separated path of name, which is how the file
	// is named in file:// URIs.
	Abs(name string) string
	// Rel turns an absolute path back into a name of this FS; it reports false when the
	// path lies outside the workspace.
	Rel(abs string) (string, bool)
}

// ReadFile reads a whole file, refusing one larger than limit bytes (0: no limit). A
// regular file is read into a buffer of the size it states (io.ReadAll would grow one by
// doubling: twice the bytes, copied on the way; 10.8 MB allocated for the 5 MB of the
// largest schema pair, 5.0 MB now).
func ReadFile(fsys FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := &PathError{Path: name,
		Err: fmt.Errorf("file is larger than the limit of %d bytes (raise it with --max-size)", limit)}
	size := int64(-1)
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	var r io.Reader = f
	if limit > 0 {
		// A regular file that states a size over the limit is refused before a byte is read.
		if size > limit {
			return nil, tooLarge
		}
		r = io.LimitReader(f, limit+1)
	}
	data, err := readSized(r, size)
	if err != nil {
		return nil, &PathError{Path: name, Err: err}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}

// readSized reads r to its end into a buffer made for size bytes (and one more, to see the
// end without growing), growing it when r holds more; size < 0 when unknown.
func readSized(r io.Reader, size int64) ([]byte, error) {
	n := int64(512)
	if size >= 0 && size < 1<<40 {
		n = size + 1
	}
	data := make([]byte, 0, n)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		k, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+k]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ---- operating system ----

type osFS struct{ wd string }

// OS returns the operating system's files, unconfined: the CLI reads what its user names.
// Relative names are relative to the working directory at the time of the call to OS.
func OS() FS {
	wd, err := os.Getwd()
	if err != nil {
		wd = "/"
	}
	return &osFS{wd: filepath.ToSlash(wd)}
}

func (o *osFS) native(name string) string {
	if name == "-" {
		return name
	}
	return filepath.FromSlash(o.Abs(name))
}

func (o *osFS) Open(name string) (io.ReadCloser, error) {
	p := o.native(name)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	return f, nil
}

func (o *osFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := os.Stat(o.native(name))
	return fi, pathErr("stat", name, err)
}

func (o *osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := os.ReadDir(o.native(name))
	return es, pathErr("read directory", name, err)
}

func (o *osFS) Abs(name string) string {
	name = filepath.ToSlash(name)
	if path.IsAbs(name) || filepath.IsAbs(filepath.FromSlash(name)) {
		return path.Clean(name)
	}
	return path.Join(o.wd, name)
}

func (o *osFS) Rel(abs string) (string, bool) {
	abs = path.Clean(abs)
	if rest, ok := strings.CutPrefix(abs, o.wd+"/"); ok {
		return rest, true
	}
	return abs, true
}

// ---- confined root ----

type rootFS struct {
	root   *os.Root
	dir    string        // absolute, slash-separated, symbolic links resolved
	alias  string        // dir as given (made absolute), when symbolic links made it differ
	hidden []fs.FileInfo // files no name may reach (see Hide)
}

// Hide makes a file unreachable through fsys, a workspace made by Root, by any name: its
// own, a symbolic link to it, a hard link. Open and Stat refuse it and ReadDir leaves it
// out. jstk mcp hides its audit log, which may lie inside the workspace. On another FS it
// does nothing.
func Hide(fsys FS, file string) error {
	r, ok := fsys.(*rootFS)
	if !ok {
		return nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	r.hidden = append(r.hidden, fi)
	return nil
}

// isHidden reports whether fi is a hidden file.
func (r *rootFS) isHidden(fi fs.FileInfo) bool {
	for _, h := range r.hidden {
		if os.SameFile(h, fi) {
			return true
		}
	}
	return false
}

func (r *rootFS) hiddenErr(name string) error {
	return fmt.Errorf("%s: refused: it is the audit log of this server, which no tool reads", name)
}

// stat is os.Root's Stat, judging symbolic links by where they lead: os.Root refuses an
// absolute link, and a relative one whose way passes outside, even when the file they name
// lies inside; such a path is resolved and used again when its real path is inside. It
// returns the name to open (resolved when it had to be).
func (r *rootFS) stat(n string) (string, fs.FileInfo, error) {
	fi, err := r.root.Stat(n)
	if err != nil && escapes(err) {
		if real, ok := r.realInside(n); ok {
			if rfi, rerr := r.root.Stat(real); rerr == nil {
				return real, rfi, nil
			}
		}
	}
	return n, fi, err
}

// realInside resolves every symbolic link of n and reports the result, relative to the
// root, when it lies inside. os.Root still checks each later access: a link swapped in the
// meantime cannot lead out.
func (r *rootFS) realInside(n string) (string, bool) {
	real, err := filepath.EvalSymlinks(filepath.Join(filepath.FromSlash(r.dir), filepath.FromSlash(n)))
	if err != nil {
		return "", false
	}
	rel, ok := r.Rel(filepath.ToSlash(real))
	if !ok || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// escapes reports os.Root's refusal of a path that leads outside.
func escapes(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "escapes") || strings.Contains(msg, "outside")
}

// Root returns the files under dir, confined: no name may reach outside dir, whether by an
// absolute path, "..", or a symbolic link.
func Root(dir string) (FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	given := filepath.ToSlash(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", dir, errors.Unwrap(err))
	}
	fsys := &rootFS{root: r, dir: filepath.ToSlash(abs)}
	if given != fsys.dir {
		fsys.alias = given
	}
	return fsys, nil
}

// inside turns a name into a path relative to the root, refusing names that leave it.
func (r *rootFS) inside(name string) (string, error) {
	n := filepath.ToSlash(name)
	if path.IsAbs(n) {
		rel, ok := r.Rel(n)
		if !ok {
			return "", fmt.Errorf("%s: path is outside the workspace %s", name, r.dir)
		}
		n = rel
	}
	n = path.Clean(n)
	if n == ".." || strings.HasPrefix(n, "../") {
		return "", fmt.Errorf("%s: path climbs out of the workspace %s", name, r.dir)
	}
	return n, nil
}

func (r *rootFS) Open(name string) (io.ReadCloser, error) {
	n, err := r.inside(name)
	if err != nil {
		return nil, err
	}
	n, fi, err := r.stat(n)
	if err != nil {
		return nil, confinedErr("open", name, r.dir, err)
	}
	if r.isHidden(fi) {
		return nil, r.hiddenErr(name)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi)
	}
	f, err := r.root.Open(n)
	if err != nil {
		return nil, confinedErr("open", name, r.dir, err)
	}
	if st, err := f.Stat(); err != nil || r.isHidden(st) { // the file opened is the one checked
		f.Close()
		if err != nil {
			return nil, pathErr("open", name, err)
		}
		return nil, r.hiddenErr(name)
	}
	return f, nil
}

func (r *rootFS) Stat(name string) (fs.FileInfo, error) {
	n, err := r.inside(name)
	if err != nil {
		return nil, err
	}
	_, fi, err := r.stat(n)
	if err != nil {
		return nil, confinedErr("stat", name, r.dir, err)
	}
	if r.isHidden(fi) {
		return nil, r.hiddenErr(name)
	}
	return fi, nil
}

func (r *rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := r.inside(name)
	if err != nil {
		return nil, err
	}
	n, _, err = r.stat(n)
	if err != nil {
		return nil, confinedErr("read directory", name, r.dir, err)
	}
	f, err := r.root.Open(n)
	if err != nil {
		return nil, confinedErr("read directory", name, r.dir, err)
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, confinedErr("read directory", name, r.dir, err)
	}
	if len(r.hidden) > 0 {
		es = slices.DeleteFunc(es, func(e fs.DirEntry) bool {
			fi, err := e.Info()
			return err == nil && fi.Mode().IsRegular() && r.isHidden(fi)
		})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
	return es, nil
}

func (r *rootFS) Abs(name string) string {
	n := filepath.ToSlash(name)
	if path.IsAbs(n) {
		return path.Clean(n)
	}
	return path.Join(r.dir, n)
}

func (r *rootFS) Rel(abs string) (string, bool) {
	abs = path.Clean(filepath.ToSlash(abs))
	for _, dir := range []string{r.dir, r.alias} {
		if dir == "" {
			continue
		}
		if abs == dir {
			return ".", true
		}
		if rest, ok := strings.CutPrefix(abs, dir+"/"); ok {
			return rest, true
		}
	}
	return "", false
}

// confinedErr explains an os.Root refusal in the workspace's terms.
func confinedErr(op, name, dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if escapes(err) {
		return fmt.Errorf("%s: refused: the path or a symbolic link in it leads outside the workspace %s", name, dir)
	}
	return pathErr(op, name, err)
}

// ---- memory ----

type memFS struct {
	m   fstest.MapFS
	dir string
}

// Memory returns an in-memory workspace rooted at "/ws" holding files (name -> content),
// for tests of engines and tools.
func Memory(files map[string]string) FS {
	m := fstest.MapFS{}
	for name, content := range files {
		m[strings.TrimPrefix(path.Clean(name), "/")] = &fstest.MapFile{Data: []byte(content), Mode: 0o644, ModTime: time.Unix(0, 0)}
	}
	return &memFS{m: m, dir: "/ws"}
}

func (m *memFS) name(name string) (string, error) {
	n := filepath.ToSlash(name)
	if path.IsAbs(n) {
		rel, ok := m.Rel(n)
		if !ok {
			return "", fmt.Errorf("%s: path is outside the workspace %s", name, m.dir)
		}
		n = rel
	}
	n = path.Clean(n)
	if n == ".." || strings.HasPrefix(n, "../") {
		return "", fmt.Errorf("%s: path climbs out of the workspace %s", name, m.dir)
	}
	return n, nil
}

func (m *memFS) Open(name string) (io.ReadCloser, error) {
	n, err := m.name(name)
	if err != nil {
		return nil, err
	}
	fi, err := fs.Stat(m.m, n)
	if err != nil {
		return nil, pathErr("open", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi)
	}
	f, err := m.m.Open(n)
	return f, pathErr("open", name, err)
}

func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	n, err := m.name(name)
	if err != nil {
		return nil, err
	}
	fi, err := fs.Stat(m.m, n)
	return fi, pathErr("stat", name, err)
}

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := m.name(name)
	if err != nil {
		return nil, err
	}
	es, err := fs.ReadDir(m.m, n)
	return es, pathErr("read directory", name, err)
}

func (m *memFS) Abs(name string) string {
	n := filepath.ToSlash(name)
	if path.IsAbs(n) {
		return path.Clean(n)
	}
	return path.Join(m.dir, n)
}

func (m *memFS) Rel(abs string) (string, bool) {
	abs = path.Clean(abs)
	if abs == m.dir {
		return ".", true
	}
	rest, ok := strings.CutPrefix(abs, m.dir+"/")
	return rest, ok
}

// ---- helpers ----

// PathError is a failure to read a path, naming the path as the user gave it.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the underlying error, so errors.Is(err, fs.ErrNotExist) works.
func (e *PathError) Unwrap() error { return e.Err }

// reason is an error with a plain message that still matches a standard error.
type reason struct {
	msg string
	is  error
}

func (r reason) Error() string        { return r.msg }
func (r reason) Is(target error) bool { return target == r.is }

// pathErr names the path the user gave, not an internal form of it.
func pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = reason{"no such file or directory", fs.ErrNotExist}
	case errors.Is(err, fs.ErrPermission):
		err = reason{"permission denied", fs.ErrPermission}
	}
	_ = op
	return &PathError{Path: name, Err: err}
}

func notRegular(name string, fi fs.FileInfo) error {
	what := "not a regular file"
	if fi.IsDir() {
		what = "is a directory"
	}
	return &PathError{Path: name, Err: errors.New(what)}
}
