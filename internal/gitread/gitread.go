package gitread

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// ErrNotCommitted says that the file is not in a repository, or not in its HEAD commit.
var ErrNotCommitted = errors.New("not committed")

// Head returns the content of the file name (a name of fsys) at HEAD of the repository
// holding it, or an error wrapping ErrNotCommitted (no repository, no commit yet, no such
// file in HEAD). The language server compares a schema being edited with it.
func Head(fsys workspace.FS, name string) ([]byte, error) {
	abs := fsys.Abs(name)
	r, err := Find(filepath.FromSlash(path.Dir(abs)))
	if errors.Is(err, ErrNotRepository) {
		return nil, ErrNotCommitted
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	top := filepath.ToSlash(r.Top)
	if real, err := filepath.EvalSymlinks(r.Top); err == nil {
		top = filepath.ToSlash(real)
	}
	if real, err := filepath.EvalSymlinks(filepath.FromSlash(path.Dir(abs))); err == nil {
		abs = path.Join(filepath.ToSlash(real), path.Base(abs))
	}
	rel, ok := strings.CutPrefix(abs, strings.TrimSuffix(top, "/")+"/")
	if !ok {
		return nil, ErrNotCommitted
	}
	h, err := r.Resolve("HEAD")
	if err != nil {
		return nil, ErrNotCommitted // no commit yet
	}
	data, err := r.ReadFile(h, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotCommitted
	}
	return data, err
}
