package jsonschema

import (
	"bytes"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// resourceDir is the folder under which the in-memory resources are files for the loader.
const resourceDir = ".jstk-resources/"

// overlay places Options.Resources as files under resourceDir, over the files of base (nil:
// none), so that the engine's loader finds them through its resolve map, lazily: a resource
// is parsed and compiled only when a $ref or a $schema reaches it.
type overlay struct {
	base  workspace.FS
	files map[string][]byte // by name under resourceDir
}

// withResources returns the loader's files and resolve map for opts' resources over fsys.
func withResources(fsys workspace.FS, resolve map[string]string, res map[string][]byte) (workspace.FS, map[string]string) {
	if len(res) == 0 {
		return fsys, resolve
	}
	o := &overlay{base: fsys, files: map[string][]byte{}}
	merged := make(map[string]string, len(resolve)+len(res))
	for k, v := range resolve {
		merged[k] = v
	}
	i := 0
	for uri, data := range res {
		name := resourceDir + strconv.Itoa(i) + ".json"
		i++
		o.files[name] = data
		merged[strings.TrimSuffix(uri, "#")] = name // an exact entry: before any prefix of Resolve
	}
	return o, merged
}

func (o *overlay) Open(name string) (io.ReadCloser, error) {
	if data, ok := o.files[name]; ok {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if o.base == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.base.Open(name)
}

func (o *overlay) Stat(name string) (fs.FileInfo, error) {
	if data, ok := o.files[name]; ok {
		return fileInfo{name: name, size: int64(len(data))}, nil
	}
	if o.base == nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return o.base.Stat(name)
}

func (o *overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	if o.base == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return o.base.ReadDir(name)
}

func (o *overlay) Abs(name string) string {
	if _, ok := o.files[name]; ok || o.base == nil {
		return "/" + strings.TrimPrefix(name, "/")
	}
	return o.base.Abs(name)
}

func (o *overlay) Rel(abs string) (string, bool) {
	if name := strings.TrimPrefix(abs, "/"); o.files[name] != nil {
		return name, true
	}
	if o.base == nil {
		return "", false
	}
	return o.base.Rel(abs)
}

// fileInfo describes a resource as a regular file.
type fileInfo struct {
	name string
	size int64
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return 0o444 }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return false }
func (f fileInfo) Sys() any           { return nil }
