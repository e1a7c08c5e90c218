package lsp

import (
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// overlayFS is the server's FS: the open documents, as the editor holds them, over the
// files of the workspace.
type overlayFS struct {
	base workspace.FS
	mu   sync.RWMutex
	docs map[string]string // absolute name -> text
}

func newOverlay(base workspace.FS) *overlayFS {
	return &overlayFS{base: base, docs: map[string]string{}}
}

func (o *overlayFS) key(name string) string { return path.Clean(o.base.Abs(name)) }

func (o *overlayFS) set(name, text string) {
	o.mu.Lock()
	o.docs[o.key(name)] = text
	o.mu.Unlock()
}

func (o *overlayFS) remove(name string) {
	o.mu.Lock()
	delete(o.docs, o.key(name))
	o.mu.Unlock()
}

func (o *overlayFS) get(name string) (string, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	t, ok := o.docs[o.key(name)]
	return t, ok
}

// Open reads an open document's text, or the file.
func (o *overlayFS) Open(name string) (io.ReadCloser, error) {
	if t, ok := o.get(name); ok {
		return io.NopCloser(strings.NewReader(t)), nil
	}
	return o.base.Open(name)
}

// Stat describes an open document as a regular file of its text's size, or the file.
func (o *overlayFS) Stat(name string) (fs.FileInfo, error) {
	if t, ok := o.get(name); ok {
		return docInfo{name: path.Base(name), size: int64(len(t))}, nil
	}
	return o.base.Stat(name)
}

// ReadDir lists the directory on disk.
func (o *overlayFS) ReadDir(name string) ([]fs.DirEntry, error) { return o.base.ReadDir(name) }

// Abs is the base's.
func (o *overlayFS) Abs(name string) string { return o.base.Abs(name) }

// Rel is the base's.
func (o *overlayFS) Rel(abs string) (string, bool) { return o.base.Rel(abs) }

type docInfo struct {
	name string
	size int64
}

func (i docInfo) Name() string       { return i.name }
func (i docInfo) Size() int64        { return i.size }
func (i docInfo) Mode() fs.FileMode  { return 0o644 }
func (i docInfo) ModTime() time.Time { return time.Time{} }
func (i docInfo) IsDir() bool        { return false }
func (i docInfo) Sys() any           { return nil }
