package gitread

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Repo is an open repository.
type Repo struct {
	// Top is the directory of the working tree ("" for a bare repository).
	Top string
	// GitDir is the repository's (or the worktree's) git directory.
	GitDir  string
	common  string // the common directory (objects, refs)
	objects string

	packOnce sync.Once
	packs    []*pack
	packErr  error
	cache    objCache

	shallowOnce sync.Once
	shallow     map[Hash]bool

	refsOnce sync.Once
	packed   map[string]Hash
	peeled   map[string]Hash
	refsErr  error

	lookMu sync.Mutex
	look   map[lookKey]lookVal
}

// ErrNotRepository is returned by Find when no repository holds the directory.
var ErrNotRepository = errors.New("not in a git repository")

// Find opens the repository whose working tree holds dir (dir itself or a parent with a
// .git directory or file).
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return open(d, filepath.Join(d, ".git"), fi)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w (no .git here or above)", abs, ErrNotRepository)
		}
		d = parent
	}
}

// Open opens a repository given its git directory (a bare repository, or .git).
func Open(gitDir string) (*Repo, error) {
	fi, err := os.Stat(gitDir)
	if err != nil {
		return nil, err
	}
	top := ""
	if filepath.Base(gitDir) == ".git" {
		top = filepath.Dir(gitDir)
	}
	return open(top, gitDir, fi)
}

func open(top, gitDir string, fi fs.FileInfo) (*Repo, error) {
	if !fi.IsDir() {
		// a worktree or submodule: "gitdir: PATH"
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return nil, err
		}
		line := strings.TrimSpace(string(data))
		if !strings.HasPrefix(line, "gitdir:") {
			return nil, fmt.Errorf("%s: %w: a .git file without a gitdir line", gitDir, ErrCorrupt)
		}
		p := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(gitDir), p)
		}
		gitDir = p
	}
	r := &Repo{Top: top, GitDir: gitDir, common: gitDir}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		r.common = filepath.Clean(c)
	}
	if _, err := os.Stat(filepath.Join(r.common, "reftable")); err == nil {
		return nil, fmt.Errorf("%s: the repository stores its refs as a reftable, which jstk does not read yet (git refs migrate --ref-format=files converts it)", r.common)
	}
	r.objects = filepath.Join(r.common, "objects")
	if fi, err := os.Stat(r.objects); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w (no objects directory)", gitDir, ErrNotRepository)
	}
	return r, nil
}

// Close releases the open packfiles.
func (r *Repo) Close() error {
	for _, p := range r.packs {
		if p.f != nil {
			p.f.Close()
		}
	}
	return nil
}

func (r *Repo) loadPacks() error {
	r.packOnce.Do(func() {
		dir := filepath.Join(r.objects, "pack")
		ents, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			r.packErr = err
			return
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".idx") {
				continue
			}
			name := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(name)
			if err != nil {
				r.packErr = err
				return
			}
			p, err := readIdx(name, data)
			if err != nil {
				r.packErr = err
				return
			}
			r.packs = append(r.packs, p)
		}
	})
	return r.packErr
}

func (r *Repo) findPacked(h Hash) (*pack, uint64, bool) {
	if r.loadPacks() != nil {
		return nil, 0, false
	}
	for _, p := range r.packs {
		if off, ok := p.find(h); ok {
			return p, off, true
		}
	}
	return nil, 0, false
}

// read reads an object, loose or packed.
func (r *Repo) read(h Hash) (object, error) {
	if err := r.loadPacks(); err != nil {
		return object{}, err
	}
	if p, off, ok := r.findPacked(h); ok {
		return r.readPacked(p, off)
	}
	o, err := r.readLoose(h)
	if r.isShallow(h); errors.Is(err, ErrMissing) && len(r.shallow) > 0 {
		return o, fmt.Errorf("%w: %s (the repository is a shallow clone; git fetch --unshallow fetches the rest)", ErrMissing, h)
	}
	return o, err
}

func (r *Repo) readType(h Hash, typ int) ([]byte, error) {
	o, err := r.read(h)
	if err != nil {
		return nil, err
	}
	if o.typ != typ {
		return nil, fmt.Errorf("%s is a %s, not a %s", h, typeName(o.typ), typeName(typ))
	}
	return o.data, nil
}

// Shallow lists the commits whose parents a shallow clone does not have.
func (r *Repo) isShallow(h Hash) bool {
	r.shallowOnce.Do(func() {
		r.shallow = map[Hash]bool{}
		data, err := os.ReadFile(filepath.Join(r.common, "shallow"))
		if err != nil {
			return
		}
		for _, l := range strings.Fields(string(data)) {
			if h, err := ParseHash(l); err == nil {
				r.shallow[h] = true
			}
		}
	})
	return r.shallow[h]
}

// Commit is a parsed commit.
type Commit struct {
	// Hash names the commit.
	Hash Hash
	// Tree is its root tree.
	Tree Hash
	// Parents are its parents, the first first.
	Parents []Hash
	// Time is the committer's date.
	Time time.Time
	// Subject is the first line of the message.
	Subject string
	// Shallow is set when the repository is a shallow clone cut at this commit: its
	// parents are not in the repository.
	Shallow bool
}

// Commit reads the commit h.
func (r *Repo) Commit(h Hash) (*Commit, error) {
	data, err := r.readType(h, typeCommit)
	if err != nil {
		return nil, err
	}
	c := &Commit{Hash: h, Shallow: r.isShallow(h)}
	hdr, msg, _ := bytes.Cut(data, []byte("\n\n"))
	seenTree := false
	for _, l := range strings.Split(string(hdr), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "tree":
			if c.Tree, err = ParseHash(v); err != nil {
				return nil, corrupt("commit %s: %v", h, err)
			}
			seenTree = true
		case "parent":
			p, err := ParseHash(v)
			if err != nil {
				return nil, corrupt("commit %s: %v", h, err)
			}
			c.Parents = append(c.Parents, p)
		case "committer":
			c.Time = parseSignature(v)
		}
	}
	if !seenTree {
		return nil, corrupt("commit %s has no tree", h)
	}
	subj, _, _ := bytes.Cut(msg, []byte("\n"))
	c.Subject = strings.TrimSpace(string(subj))
	if c.Shallow {
		c.Parents = nil
	}
	return c, nil
}

// parseSignature reads the date of "Name <mail> 1700000000 +0100".
func parseSignature(v string) time.Time {
	i := strings.LastIndexByte(v, '>')
	if i < 0 {
		return time.Time{}
	}
	f := strings.Fields(v[i+1:])
	if len(f) < 1 {
		return time.Time{}
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return time.Time{}
	}
	loc := time.UTC
	if len(f) > 1 && len(f[1]) == 5 {
		hh, e1 := strconv.Atoi(f[1][1:3])
		mm, e2 := strconv.Atoi(f[1][3:5])
		if e1 == nil && e2 == nil {
			off := (hh*60 + mm) * 60
			if f[1][0] == '-' {
				off = -off
			}
			loc = time.FixedZone(f[1], off)
		}
	}
	return time.Unix(sec, 0).In(loc)
}

// TreeEntry is one entry of a tree.
type TreeEntry struct {
	// Name is the entry's name.
	Name string
	// Mode is its git mode (0o40000 a tree, 0o100644 a file, 0o120000 a link, 0o160000 a
	// submodule).
	Mode uint32
	// Hash is its object.
	Hash Hash
}

// IsDir tells whether the entry is a tree.
func (e TreeEntry) IsDir() bool { return e.Mode == 0o40000 }

// Tree reads the tree h.
func (r *Repo) Tree(h Hash) ([]TreeEntry, error) {
	data, err := r.readType(h, typeTree)
	if err != nil {
		return nil, err
	}
	return parseTree(h, data)
}

func parseTree(h Hash, data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || nul+21 > len(data) {
			return nil, corrupt("tree %s: bad entry", h)
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, corrupt("tree %s: bad mode %q", h, data[:sp])
		}
		e := TreeEntry{Name: string(data[sp+1 : nul]), Mode: uint32(mode)}
		copy(e.Hash[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

type lookKey struct {
	tree Hash
	path string
}

type lookVal struct {
	e  TreeEntry
	ok bool
}

// Lookup finds the entry at path (slash-separated) in the tree root; ok is false when
// there is none. Lookups are cached by tree at every level, so that the unchanged trees of
// a history cost nothing.
func (r *Repo) Lookup(root Hash, p string) (TreeEntry, bool, error) {
	p = strings.Trim(path.Clean("/"+p), "/")
	if p == "" {
		return TreeEntry{Mode: 0o40000, Hash: root}, true, nil
	}
	var walked []lookKey
	cur, rest := root, p
	var res lookVal
	for {
		k := lookKey{cur, rest}
		r.lookMu.Lock()
		v, hit := r.look[k]
		r.lookMu.Unlock()
		if hit {
			res = v
			break
		}
		walked = append(walked, k)
		ents, err := r.Tree(cur)
		if err != nil {
			return TreeEntry{}, false, err
		}
		name, tail, deeper := strings.Cut(rest, "/")
		j := 0
		for j < len(ents) && ents[j].Name != name {
			j++
		}
		if j == len(ents) || (deeper && !ents[j].IsDir()) {
			res = lookVal{}
			break
		}
		if !deeper {
			res = lookVal{ents[j], true}
			break
		}
		cur, rest = ents[j].Hash, tail
	}
	r.lookMu.Lock()
	if r.look == nil || len(r.look) > 200000 {
		r.look = map[lookKey]lookVal{}
	}
	for _, k := range walked {
		r.look[k] = res
	}
	r.lookMu.Unlock()
	return res.e, res.ok, nil
}

// ReadFile reads the file at path in the commit rev; the error wraps fs.ErrNotExist when
// the commit has no such file.
func (r *Repo) ReadFile(rev Hash, p string) ([]byte, error) {
	c, err := r.Commit(rev)
	if err != nil {
		return nil, err
	}
	e, ok, err := r.Lookup(c.Tree, p)
	if err != nil {
		return nil, err
	}
	if !ok || e.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: rev.Short() + ":" + p, Err: fs.ErrNotExist}
	}
	return r.Blob(e.Hash)
}

// Blob reads the blob h.
func (r *Repo) Blob(h Hash) ([]byte, error) { return r.readType(h, typeBlob) }

// hexPrefix finds the objects whose names start with the hex digits pre.
func (r *Repo) hexPrefix(pre string) ([]Hash, error) {
	if err := r.loadPacks(); err != nil {
		return nil, err
	}
	seen := map[Hash]bool{}
	var out []Hash
	add := func(h Hash) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(r.objects, pre[:2])); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(pre[:2]+e.Name(), pre) {
				if h, err := ParseHash(pre[:2] + e.Name()); err == nil {
					add(h)
				}
			}
		}
	}
	lo := make([]byte, 20)
	for i := 0; i+1 < len(pre) && i/2 < 20; i += 2 {
		b, _ := hex.DecodeString(pre[i : i+2])
		lo[i/2] = b[0]
	}
	for _, p := range r.packs {
		n := len(p.offsets)
		i := sort.Search(n, func(i int) bool { return bytes.Compare(p.names[i*20:i*20+20], lo) >= 0 })
		for ; i < n && strings.HasPrefix(hex.EncodeToString(p.names[i*20:i*20+20]), pre); i++ {
			var h Hash
			copy(h[:], p.names[i*20:])
			add(h)
			if len(out) > 1 {
				return out, nil
			}
		}
	}
	return out, nil
}

// readRefs reads packed-refs once.
func (r *Repo) readRefs() error {
	r.refsOnce.Do(func() {
		r.packed, r.peeled = map[string]Hash{}, map[string]Hash{}
		f, err := os.Open(filepath.Join(r.common, "packed-refs"))
		if err != nil {
			if !os.IsNotExist(err) {
				r.refsErr = err
			}
			return
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		s.Buffer(nil, 1<<20)
		last := ""
		for s.Scan() {
			l := s.Text()
			switch {
			case l == "" || l[0] == '#':
			case l[0] == '^':
				if h, err := ParseHash(l[1:]); err == nil && last != "" {
					r.peeled[last] = h
				}
			default:
				hs, name, ok := strings.Cut(l, " ")
				h, err := ParseHash(hs)
				if !ok || err != nil {
					r.refsErr = corrupt("packed-refs: bad line %q", l)
					return
				}
				r.packed[name] = h
				last = name
			}
		}
		if err := s.Err(); err != nil {
			r.refsErr = err
		}
	})
	return r.refsErr
}

// ref reads the ref name (e.g. "refs/heads/main", "HEAD"), following symbolic refs.
func (r *Repo) ref(name string) (Hash, bool, error) {
	for depth := 0; depth < 10; depth++ {
		dir := r.common
		if name == "HEAD" || !strings.HasPrefix(name, "refs/") {
			dir = r.GitDir
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil {
			s := strings.TrimSpace(string(data))
			if t, ok := strings.CutPrefix(s, "ref:"); ok {
				name = strings.TrimSpace(t)
				continue
			}
			h, err := ParseHash(s)
			if err != nil {
				return Hash{}, false, corrupt("ref %s: %v", name, err)
			}
			return h, true, nil
		}
		if err := r.readRefs(); err != nil {
			return Hash{}, false, err
		}
		h, ok := r.packed[name]
		return h, ok, nil
	}
	return Hash{}, false, corrupt("ref %s: symbolic refs nested too deeply", name)
}

// Resolve names the commit a revision names: HEAD, a branch, a tag (annotated tags are
// peeled), a remote branch, a full or abbreviated hash (at least 4 digits), each maybe
// followed by ~N, ^N or ^ steps.
func (r *Repo) Resolve(rev string) (Hash, error) {
	base, steps := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, steps = rev[:i], rev[i:]
	}
	if base == "" || base == "@" {
		base = "HEAD"
	}
	h, err := r.resolveName(base)
	if err != nil {
		return Hash{}, err
	}
	if h, err = r.peel(h, rev); err != nil {
		return Hash{}, err
	}
	for steps != "" {
		op := steps[0]
		steps = steps[1:]
		if op != '~' && op != '^' {
			return Hash{}, fmt.Errorf("revision %q: %q is not a ~N or ^N step", rev, string(op)+steps)
		}
		j := 0
		for j < len(steps) && steps[j] >= '0' && steps[j] <= '9' {
			j++
		}
		n := 1
		if j > 0 {
			if n, err = strconv.Atoi(steps[:j]); err != nil || n > 1_000_000 {
				return Hash{}, fmt.Errorf("revision %q: bad count %q", rev, steps[:j])
			}
		}
		steps = steps[j:]
		if op == '^' {
			if n == 0 {
				continue
			}
			c, err := r.Commit(h)
			if err != nil {
				return Hash{}, err
			}
			if n > len(c.Parents) {
				return Hash{}, fmt.Errorf("revision %q: %s has no parent %d%s", rev, h.Short(), n, shallowNote(c))
			}
			h = c.Parents[n-1]
			continue
		}
		for ; n > 0; n-- {
			c, err := r.Commit(h)
			if err != nil {
				return Hash{}, err
			}
			if len(c.Parents) == 0 {
				return Hash{}, fmt.Errorf("revision %q: %s has no parent%s", rev, h.Short(), shallowNote(c))
			}
			h = c.Parents[0]
		}
	}
	return h, nil
}

func shallowNote(c *Commit) string {
	if c.Shallow {
		return " in this shallow clone (git fetch --unshallow fetches the rest)"
	}
	return ""
}

func (r *Repo) resolveName(name string) (Hash, error) {
	if strings.Contains(name, "..") || strings.ContainsAny(name, " :?*[\\") {
		return Hash{}, fmt.Errorf("%q is not a revision jstk reads (a branch, tag or commit, maybe with ~N or ^N)", name)
	}
	for _, full := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		if full != "HEAD" && !strings.HasPrefix(full, "refs/") {
			continue
		}
		h, ok, err := r.ref(full)
		if err != nil {
			return Hash{}, err
		}
		if ok {
			if p, ok := r.peeled[full]; ok {
				return p, nil
			}
			return h, nil
		}
	}
	if len(name) >= 4 && len(name) <= 40 && isHex(name) {
		hs, err := r.hexPrefix(strings.ToLower(name))
		if err != nil {
			return Hash{}, err
		}
		switch len(hs) {
		case 1:
			return hs[0], nil
		case 0:
		default:
			return Hash{}, fmt.Errorf("revision %q is ambiguous: give more digits", name)
		}
	}
	if name == "HEAD" {
		return Hash{}, fmt.Errorf("HEAD names no commit yet: the repository has no commits")
	}
	return Hash{}, fmt.Errorf("unknown revision %q: no branch, tag or commit of that name", name)
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// peel follows annotated tags to the commit they name.
func (r *Repo) peel(h Hash, rev string) (Hash, error) {
	for depth := 0; depth < 100; depth++ {
		o, err := r.read(h)
		if err != nil {
			return Hash{}, fmt.Errorf("revision %q: %w", rev, err)
		}
		switch o.typ {
		case typeCommit:
			return h, nil
		case typeTag:
			l, _, _ := bytes.Cut(o.data, []byte("\n"))
			t, ok := bytes.CutPrefix(l, []byte("object "))
			if !ok {
				return Hash{}, corrupt("tag %s has no object", h)
			}
			if h, err = ParseHash(string(t)); err != nil {
				return Hash{}, corrupt("tag %s: %v", h, err)
			}
		default:
			return Hash{}, fmt.Errorf("revision %q names a %s, not a commit", rev, typeName(o.typ))
		}
	}
	return Hash{}, corrupt("revision %q: tags nested too deeply", rev)
}
