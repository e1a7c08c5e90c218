// Package lockfile owns jstk.lock and the content-addressed cache it pins: the lock's format
// (parsed, checked, written out stable and sorted), where the cache lives, and reading a
// pinned document back from the cache, checked against the hash the lock records. It is the
// offline half of remote schemas: every command and MCP tool resolves a remote URI through
// a Remote of this package, which never touches the network; only `jstk fetch`
// (internal/fetch, CLI only) downloads and writes.
package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// Name is the lock's file name, at the workspace root.
const Name = "jstk.lock"

// Version is the version of the lock's format this package reads and writes.
const Version = 1

// DefaultMaxSize is the largest document jstk fetch downloads, and the largest cache file
// a Remote reads, unless told otherwise.
const DefaultMaxSize = 16 << 20

// Entry pins one remote document: its URL, the SHA-256 and size of its bytes, and when
// jstk fetch downloaded them.
type Entry struct {
	URL     string `json:"url"`
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	Fetched string `json:"fetched"`
}

// Lock is the content of jstk.lock: entries sorted by URL, one per URL.
type Lock struct {
	Entries []Entry
}

type file struct {
	Version int     `json:"version"`
	Schemas []Entry `json:"schemas"`
}

// Parse reads a lock from data; name is the file's name, for messages. It checks every
// entry: an http(s) URL without fragment or credentials, a hash of 64 hex digits, a size,
// a time, no URL twice.
func Parse(name string, data []byte) (*Lock, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a jstk lock file (%v); run jstk fetch --update to write it again", name, err)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("%s: version %d, this jstk reads version %d; run jstk fetch --update to write it again", name, f.Version, Version)
	}
	seen := map[string]bool{}
	for i, e := range f.Schemas {
		where := fmt.Sprintf("%s: schemas[%d]", name, i)
		if err := CheckURL(e.URL, true); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if seen[e.URL] {
			return nil, fmt.Errorf("%s: %s is pinned twice", where, e.URL)
		}
		seen[e.URL] = true
		if !validHash(e.SHA256) {
			return nil, fmt.Errorf("%s: sha256 %q is not 64 lowercase hex digits", where, e.SHA256)
		}
		if e.Size < 0 {
			return nil, fmt.Errorf("%s: negative size %d", where, e.Size)
		}
		if _, err := time.Parse(time.RFC3339, e.Fetched); err != nil {
			return nil, fmt.Errorf("%s: fetched %q is not an RFC 3339 time", where, e.Fetched)
		}
	}
	l := &Lock{Entries: f.Schemas}
	l.sort()
	return l, nil
}

// Read reads the lock named name of fsys; a missing file is an empty lock.
func Read(fsys workspace.FS, name string) (*Lock, error) {
	data, err := workspace.ReadFile(fsys, name, 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Marshal writes the lock out: indented JSON, entries sorted by URL, one member per line,
// a final newline; the same lock gives the same bytes.
func (l *Lock) Marshal() []byte {
	l.sort()
	f := file{Version: Version, Schemas: l.Entries}
	if f.Schemas == nil {
		f.Schemas = []Entry{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // strings and numbers only
	}
	return append(data, '\n')
}

func (l *Lock) sort() {
	sort.Slice(l.Entries, func(i, j int) bool { return l.Entries[i].URL < l.Entries[j].URL })
}

// Lookup returns the entry pinning url.
func (l *Lock) Lookup(url string) (Entry, bool) {
	i := sort.Search(len(l.Entries), func(i int) bool { return l.Entries[i].URL >= url })
	if i < len(l.Entries) && l.Entries[i].URL == url {
		return l.Entries[i], true
	}
	return Entry{}, false
}

// Set adds or replaces the entry for e.URL.
func (l *Lock) Set(e Entry) {
	if i := sort.Search(len(l.Entries), func(i int) bool { return l.Entries[i].URL >= e.URL }); i < len(l.Entries) && l.Entries[i].URL == e.URL {
		l.Entries[i] = e
		return
	}
	l.Entries = append(l.Entries, e)
	l.sort()
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckURL says what is wrong with u as a URL to pin: it must be absolute https (or http
// when insecure is true), without a fragment, and without credentials, which would end up
// in the lock (jstk fetch takes them from the environment or ~/.netrc instead).
func CheckURL(u string, insecure bool) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", u, err)
	}
	switch {
	case p.Scheme == "https":
	case p.Scheme == "http" && insecure:
	case p.Scheme == "http":
		return fmt.Errorf("%s: http is not fetched (it can be altered on the way); use https, or pass --insecure-http", u)
	default:
		return fmt.Errorf("%q is not an http(s) URL", u)
	}
	if p.Host == "" {
		return fmt.Errorf("%q has no host", u)
	}
	if p.User != nil {
		return fmt.Errorf("%s: credentials in a URL would be written to jstk.lock; give them in JSTK_FETCH_TOKEN_<HOST> or ~/.netrc instead", Redact(u))
	}
	if p.Fragment != "" || strings.HasSuffix(u, "#") {
		return fmt.Errorf("%q has a fragment; pin the document, without #", u)
	}
	return nil
}

// Redact returns u without its user information, for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	p.User = nil
	return p.String()
}

// DefaultCacheDir returns the cache's directory: $XDG_CACHE_HOME/jstk, else
// $HOME/.cache/jstk (getenv reads the environment).
func DefaultCacheDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "jstk"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "jstk"), nil
	}
	return "", errors.New("no cache directory: set XDG_CACHE_HOME or HOME, or give --cache DIR")
}

// CachePath returns the cache file that holds the bytes whose SHA-256 is sum.
func CachePath(dir, sum string) string {
	return filepath.Join(dir, "sha256", sum)
}

// Sum returns the SHA-256 of data in lowercase hex.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// ReadCached reads the cache file of e from the cache dir and checks it against the lock:
// its size and its SHA-256. A missing file or other bytes are an error that names the file,
// the URL and both hashes, and says to run jstk fetch.
func ReadCached(dir string, e Entry, limit int64) ([]byte, error) {
	p := CachePath(dir, e.SHA256)
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("jstk.lock pins %s (sha256 %s) but its cache file %s is missing: run jstk fetch at the workspace root to download it again", e.URL, e.SHA256, p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	defer f.Close()
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if e.Size > limit {
		limit = e.Size
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if got := Sum(data); got != e.SHA256 || int64(len(data)) != e.Size {
		if int64(len(data)) > limit {
			got = "(not computed: larger than " + fmt.Sprint(limit) + " bytes)"
		}
		return nil, fmt.Errorf("jstk.lock pins %s with sha256 %s (%d bytes), but its cache file %s has sha256 %s (%d bytes): the cache was altered; delete the file and run jstk fetch to download it again",
			e.URL, e.SHA256, e.Size, p, got, len(data))
	}
	return data, nil
}

// Check reads every entry of the lock from the cache dir and returns what is wrong: a
// missing or altered file (the error of ReadCached). jstk fetch --offline reports them.
func (l *Lock) Check(dir string) []error {
	var errs []error
	for _, e := range l.Entries {
		if _, err := ReadCached(dir, e, 0); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Remote answers the remote URIs that jstk.lock pins from the cache, checked against the
// lock's hashes; it never touches the network. It implements schema.Remote. The lock is
// read on first need and read again when its file changes (a long jstk mcp session sees a
// jstk fetch run beside it).
type Remote struct {
	// FS holds the lock; File is its name there (a missing lock pins nothing).
	FS   workspace.FS
	File string
	// Cache is the cache's directory (an operating system path).
	Cache string
	// MaxSize bounds a cache file read (0: DefaultMaxSize, or the size the lock records).
	MaxSize int64

	mu    sync.Mutex
	lock  *Lock
	stamp string // the lock file's size and modification time when read
	err   error
}

// Open returns the cached bytes of uri when the lock pins it; their name is the cache
// file's path. A lock that cannot be read, and a cache file missing or altered, are errors.
func (r *Remote) Open(uri string) ([]byte, string, bool, error) {
	l, err := r.current()
	if err != nil {
		return nil, "", true, err
	}
	e, ok := l.Lookup(uri)
	if !ok {
		return nil, "", false, nil
	}
	data, err := ReadCached(r.Cache, e, r.MaxSize)
	if err != nil {
		return nil, "", true, err
	}
	return data, CachePath(r.Cache, e.SHA256), true, nil
}

func (r *Remote) current() (*Lock, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.FS == nil {
		return &Lock{}, nil
	}
	stamp := ""
	if fi, err := r.FS.Stat(r.File); err == nil {
		stamp = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
	}
	if r.lock != nil && stamp == r.stamp {
		return r.lock, r.err
	}
	r.stamp = stamp
	if stamp == "" {
		r.lock, r.err = &Lock{}, nil
	} else {
		r.lock, r.err = Read(r.FS, r.File)
		if r.lock == nil {
			r.lock = &Lock{}
		}
	}
	return r.lock, r.err
}

// LockName returns the name of jstk.lock in the workspace root dir (a name of the FS).
func LockName(root string) string {
	return path.Join(root, Name)
}
