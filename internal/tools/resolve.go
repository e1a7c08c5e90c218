package tools

import (
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Notes are the notices of one run that a user should see besides its report: a $ref
// resolved from the workspace's $id index (so that a surprising source is seen), an index
// cut short by its bounds. The CLI prints each on stderr as it comes; jstk mcp adds them to
// the call's result. Each notice is kept once. Notes are safe for concurrent use, and a nil
// *Notes drops everything.
type Notes struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
	out  func(string)
}

// NewNotes returns an empty list of notices that also hands each new one to out (nil: only
// keep them).
func NewNotes(out func(string)) *Notes {
	return &Notes{seen: map[string]bool{}, out: out}
}

// Add records a notice, unless it was recorded before.
func (n *Notes) Add(msg string) {
	if n == nil || msg == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen[msg] {
		return
	}
	n.seen[msg] = true
	n.list = append(n.list, msg)
	if n.out != nil {
		n.out(msg)
	}
}

// List returns the notices in the order they came.
func (n *Notes) List() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

// loader returns the schema loader of a call: the files of env.FS, the resolve map, the
// $id index (when env has none, one of the whole FS, built on first need), the notices to
// env.Notes. Every engine of a call resolves $ref through it, so that the CLI and every
// tool resolve alike.
func (env *Env) loader() *schema.Loader {
	l := &schema.Loader{FS: env.FS, Index: env.Index, Resolve: env.Resolve, Limits: env.Limits, Remotes: env.Remotes}
	if env.Index == nil {
		l.IndexRoot = "."
	}
	if env.Notes != nil {
		l.Notify = env.Notes.Add
	}
	return l
}

// NewIndex returns the $id index of the schema files under dirs (names of fsys), built on
// first need within the default bounds (20,000 files, 2 s).
func NewIndex(fsys workspace.FS, dirs []string, limits *source.Limits) *schema.Index {
	return schema.NewIndex(fsys, dirs, &schema.IndexOptions{Limits: limits})
}
