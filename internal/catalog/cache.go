package catalog

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// maxCached is the number of workspaces a Cache keeps.
const maxCached = 4

// Cache keeps the latest scan of each workspace, so that the calls of a session do not read
// an unchanged workspace again. A scan through a Cache still lists the workspace and
// compares each file's size and modification time with the cached scan: a changed, new or
// deleted file makes it read the files that changed and check the schemas again. A Cache
// is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	m     map[cacheKey]*Workspace
	order []cacheKey
}

type cacheKey struct {
	fsys workspace.FS
	opts string
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[cacheKey]*Workspace{}} }

// key identifies a workspace and the options that change what a scan finds; ok is false
// for a file system that cannot be a map key.
func key(fsys workspace.FS, o *Options) (cacheKey, bool) {
	if !reflect.TypeOf(fsys).Comparable() {
		return cacheKey{}, false
	}
	var sb strings.Builder
	keys := make([]string, 0, len(o.Resolve))
	for k := range o.Resolve {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%q=%q;", k, o.Resolve[k])
	}
	fmt.Fprintf(&sb, "files=%d size=%d total=%d", o.MaxFiles, o.MaxFileSize, o.MaxTotalSize)
	if o.Limits != nil {
		fmt.Fprintf(&sb, " limits=%d/%d", o.Limits.MaxSize, o.Limits.MaxDepth)
	}
	return cacheKey{fsys, sb.String()}, true
}

func (c *Cache) get(fsys workspace.FS, o *Options) *Workspace {
	k, ok := key(fsys, o)
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *Cache) put(fsys workspace.FS, o *Options, w *Workspace) {
	k, ok := key(fsys, o)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok {
		c.order = append(c.order, k)
	}
	c.m[k] = w
	for len(c.order) > maxCached {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}
