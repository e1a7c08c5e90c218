package schema

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Default bounds of an Index.
const (
	DefaultIndexMaxFiles = 20000
	DefaultIndexMaxTime  = 2 * time.Second
	indexMaxSize         = 8 << 20
)

// The time bound of reading applies only past a floor: the first indexFloorFiles schema
// files listed, up to indexFloorBytes, are always read, so that on a busy machine a $ref
// resolves as it does on a quiet one (a verdict must not depend on the load). Only a larger
// tree (a home directory, a monorepo) is cut by time. (Listing the directories stays bounded
// by time alone: a tree of many directories and few schemas is cut while it is listed.)
// Variables for the tests.
var (
	indexFloorFiles int   = 5000
	indexFloorBytes int64 = 64 << 20
)

// IndexOptions bound an Index; the zero value uses the defaults.
type IndexOptions struct {
	// MaxFiles is the most files read (default 20,000).
	MaxFiles int
	// MaxTime bounds the time spent building (default 2 s).
	MaxTime time.Duration
	// Limits bound the parsing of each file.
	Limits *source.Limits
}

// Index is the last step of $ref resolution: the root $id (draft 4: id) of every schema file
// under some directories, used for a URI that nothing else resolves, and only when exactly
// one file declares it.
//
// Nothing is read until the first Lookup, which builds the index once: it walks the
// directories (skipping hidden directories and node_modules), reads their .json, .yaml and
// .yml files (up to 8 MiB each) and stops at MaxFiles files or after MaxTime, saying so in
// Note. An Index is safe for concurrent use.
type Index struct {
	fsys  workspace.FS
	dirs  []string
	opts  IndexOptions
	fixed bool // made by IndexOf: nothing to build
	state *indexState

	once  sync.Once
	ids   map[string][]string // URI -> file names, sorted
	note  string
	files int
}

// indexState is what the indexes of one session share: the facts of every file read (so a
// renewed index reads again only the files that changed) and the count of builds.
type indexState struct {
	mu      sync.Mutex
	builds  int
	renewed bool // Renew was called: remember each file's size and time
	table   map[string]indexedFile
}

type indexedFile struct {
	size, mod int64
	id        string
}

// NewIndex returns an index of the $ids of the schema files under dirs (names of fsys),
// built on first use.
func NewIndex(fsys workspace.FS, dirs []string, opts *IndexOptions) *Index {
	x := &Index{fsys: fsys, dirs: dirs, state: &indexState{}}
	if opts != nil {
		x.opts = *opts
	}
	if x.opts.MaxFiles <= 0 {
		x.opts.MaxFiles = DefaultIndexMaxFiles
	}
	if x.opts.MaxTime <= 0 {
		x.opts.MaxTime = DefaultIndexMaxTime
	}
	return x
}

// IndexOf returns an index with the given content (URI -> the files declaring it), for a
// caller that has read the workspace already.
func IndexOf(ids map[string][]string) *Index {
	x := &Index{fixed: true, ids: map[string][]string{}, state: &indexState{}}
	for u, files := range ids {
		x.ids[u] = sortedUnique(files)
	}
	x.once.Do(func() {})
	return x
}

// Renew returns an index of the same directories, not built yet, that shares this one's
// knowledge of the files: when built, it reads again only the files whose size or
// modification time changed. A long-lived session (jstk mcp) renews its index for every
// call, so that each call sees the workspace as it is.
func (x *Index) Renew() *Index {
	if x == nil || x.fixed {
		return x
	}
	x.state.mu.Lock()
	x.state.renewed = true
	x.state.mu.Unlock()
	return &Index{fsys: x.fsys, dirs: x.dirs, opts: x.opts, state: x.state}
}

// Builds counts the times this index, and the indexes renewed from it, were built.
func (x *Index) Builds() int {
	if x == nil {
		return 0
	}
	x.state.mu.Lock()
	defer x.state.mu.Unlock()
	return x.state.builds
}

// Lookup returns the files whose root $id is uri (absolute, without fragment), sorted,
// building the index on first use.
func (x *Index) Lookup(uri string) []string {
	if x == nil {
		return nil
	}
	x.once.Do(x.build)
	return x.ids[strings.TrimSuffix(uri, "#")]
}

// Note says what the index left out (empty when it read every file), once it is built.
func (x *Index) Note() string {
	if x == nil {
		return ""
	}
	x.once.Do(x.build)
	return x.note
}

// Files is the number of files the index read.
func (x *Index) Files() int {
	if x == nil {
		return 0
	}
	x.once.Do(x.build)
	return x.files
}

func (x *Index) build() {
	x.state.mu.Lock()
	x.state.builds++
	prev := x.state.table
	keep := x.state.renewed
	x.state.mu.Unlock()
	start := time.Now()
	deadline := start.Add(x.opts.MaxTime)
	names, cut := x.list(deadline)
	if len(names) > x.opts.MaxFiles {
		cut = fmt.Sprintf("it read the first %d files (the limit), in path order, and left out the others", x.opts.MaxFiles)
		names = names[:x.opts.MaxFiles]
	}
	facts := make([]indexedFile, len(names))
	done := make([]bool, len(names))
	var next int
	var bytesRead int64 // of the files read, under mu
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 8)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64<<10)
			for {
				mu.Lock()
				i := next
				next++
				floor := i < indexFloorFiles && bytesRead < indexFloorBytes
				mu.Unlock()
				if i >= len(names) || !floor && time.Now().After(deadline) {
					return
				}
				facts[i], done[i] = x.read(names[i], prev, keep, &buf), true
				mu.Lock()
				bytesRead += facts[i].size
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	x.ids = map[string][]string{}
	table := map[string]indexedFile{}
	read := 0
	for i, name := range names {
		if !done[i] {
			continue
		}
		read++
		table[name] = facts[i]
		if id := facts[i].id; id != "" {
			x.ids[id] = append(x.ids[id], name)
		}
	}
	if read < len(names) && cut == "" {
		cut = fmt.Sprintf("it stopped after %s, having read %d of the %d files listed", x.opts.MaxTime, read, len(names))
	}
	x.files = read
	if cut != "" {
		x.note = fmt.Sprintf("the $id index of %s is incomplete: %s. A $ref to an $id declared only in a file "+
			"left out stays unresolved: map it with --resolve URI=PATH or in jstk.json {\"resolve\": {\"URI\": \"PATH\"}}",
			strings.Join(x.dirs, ", "), cut)
	}
	x.state.mu.Lock()
	x.state.table = table
	x.state.mu.Unlock()
}

// list walks the directories, iteratively, in name order, and returns the schema files
// under them (at most one more than MaxFiles, to tell that there were more), named as the
// file system names them relative to its root.
func (x *Index) list(deadline time.Time) ([]string, string) {
	var out []string
	seen := map[string]bool{}
	limit := x.opts.MaxFiles + 1
	for _, dir := range x.dirs {
		stack := []string{dir}
		for len(stack) > 0 && len(out) < limit {
			if time.Now().After(deadline) {
				return out, fmt.Sprintf("listing the directories took longer than %s; the files not listed by then were left out", x.opts.MaxTime)
			}
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			es, err := x.fsys.ReadDir(d)
			if err != nil {
				continue
			}
			var sub []string
			for _, e := range es {
				name := e.Name()
				p := path.Join(d, name)
				switch {
				case e.IsDir():
					if name != "node_modules" && !strings.HasPrefix(name, ".") {
						sub = append(sub, p)
					}
				case strings.HasPrefix(name, ".") || !isSchemaFile(name):
				case e.Type().IsRegular():
					if n := x.canonical(p); !seen[n] {
						seen[n] = true
						out = append(out, n)
					}
				case e.Type()&fs.ModeSymlink != 0:
					if fi, err := x.fsys.Stat(p); err == nil && fi.Mode().IsRegular() {
						if n := x.canonical(p); !seen[n] {
							seen[n] = true
							out = append(out, n)
						}
					}
				}
				if len(out) >= limit {
					break
				}
			}
			// Depth first, in name order: push the subdirectories last name first.
			for i := len(sub) - 1; i >= 0; i-- {
				stack = append(stack, sub[i])
			}
		}
	}
	return out, ""
}

// canonical names a file as the file system does relative to its root (for the operating
// system: relative to the working directory when inside it), so that a file reached from
// two directories is one file.
func (x *Index) canonical(name string) string {
	return displayName(x.fsys, x.fsys.Abs(name))
}

// displayName names an absolute path as the file system does relative to its root, or
// keeps it absolute when it lies outside.
func displayName(fsys workspace.FS, abs string) string {
	if abs == fsys.Abs(".") {
		return "."
	}
	if n, ok := fsys.Rel(abs); ok {
		return n
	}
	return abs
}

func isSchemaFile(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".json") || strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml")
}

// read returns the facts of one file, from prev when its size and modification time are
// unchanged. Without keep (an index that is never renewed), files are not stat'ed. buf is
// the worker's buffer, reused from file to file (most files are read and dropped).
func (x *Index) read(name string, prev map[string]indexedFile, keep bool, buf *[]byte) indexedFile {
	var f indexedFile
	if keep && prev != nil {
		fi, err := x.fsys.Stat(name)
		if err != nil {
			return f
		}
		f.size, f.mod = fi.Size(), fi.ModTime().UnixNano()
		if old, ok := prev[name]; ok && old.size == f.size && old.mod == f.mod {
			return old
		}
		if f.size > indexMaxSize {
			return f
		}
	}
	data, ok := x.readAll(name, buf, keep && prev == nil, &f)
	if f.size == 0 {
		f.size = int64(len(data)) // counted against the floor of the reading (indexFloorBytes)
	}
	// Most files declare no id: do not parse those.
	if !ok || !(bytes.Contains(data, []byte("$id")) || bytes.Contains(data, []byte(`"id"`)) || bytes.Contains(data, []byte("id:"))) {
		return f
	}
	doc, err := ParseDocument(name, bytes.Clone(data), x.opts.Limits)
	if err != nil || doc.Root.Kind() != source.Object {
		return f
	}
	for _, key := range BaseURIKeywords() { // the byte test above names them too, to spare parsing
		if id, ok := doc.Root.Get(key); ok && id.Kind() == source.String {
			if u, err := url.Parse(id.Str()); err == nil && u.IsAbs() {
				u.Fragment, u.RawFragment = "", ""
				f.id = u.String()
			}
			break
		}
	}
	return f
}

// readAll reads a whole file into *buf (grown as needed), refusing more than 8 MiB. With
// stat, it records the file's size and modification time in f, from the open file.
func (x *Index) readAll(name string, buf *[]byte, stat bool, f *indexedFile) ([]byte, bool) {
	r, err := x.fsys.Open(name)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); stat && ok {
		if fi, err := st.Stat(); err == nil {
			f.size, f.mod = fi.Size(), fi.ModTime().UnixNano()
		}
	}
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			if len(b) > indexMaxSize {
				return nil, false
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	*buf = b
	return b, len(b) <= indexMaxSize
}

func sortedUnique(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}
