// Package gitread owns reading what a git repository committed, without running git: the
// content of a file at HEAD, read from the object store (loose objects and pack files, with
// their deltas). It reads through a workspace.FS and never writes. The language server
// compares a schema being edited with its committed version.
//
// It is written here rather than taken from a library: the part needed (HEAD, refs and
// packed-refs, commits, trees, blobs; zlib; pack index v2; offset and reference deltas) is
// a few hundred lines, where a git library brings a large dependency tree for it. SHA-1
// repositories only; linked worktrees (a .git file) are followed.
package gitread

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// ErrNotCommitted says that the file is not in a repository, or not in its HEAD commit.
var ErrNotCommitted = errors.New("not committed")

// maxObject bounds an object read (and a delta's result).
const maxObject = 256 << 20

// maxChain bounds a chain of deltas.
const maxChain = 64

// A Repo is a repository found from a file.
type Repo struct {
	fs     workspace.FS
	gitDir string // HEAD, per-worktree refs
	common string // objects, shared refs, packed-refs
	work   string // the work tree's root
	packs  []*pack
	loaded bool
}

// Find finds the repository holding the file name (a name of fsys): the nearest folder at
// or above it with a .git directory or file.
func Find(fsys workspace.FS, name string) (*Repo, error) {
	dir := path.Dir(fsys.Abs(name))
	for {
		g := path.Join(dir, ".git")
		if fi, err := fsys.Stat(g); err == nil {
			r := &Repo{fs: fsys, gitDir: g, common: g, work: dir}
			if !fi.IsDir() {
				data, err := workspace.ReadFile(fsys, g, 4096)
				if err != nil {
					return nil, err
				}
				gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
				if !ok {
					return nil, fmt.Errorf("%s: not a gitdir file", g)
				}
				gd = strings.TrimSpace(gd)
				if !path.IsAbs(gd) {
					gd = path.Join(dir, gd)
				}
				r.gitDir, r.common = gd, gd
			}
			if data, err := workspace.ReadFile(fsys, path.Join(r.gitDir, "commondir"), 4096); err == nil {
				c := strings.TrimSpace(string(data))
				if !path.IsAbs(c) {
					c = path.Join(r.gitDir, c)
				}
				r.common = path.Clean(c)
			}
			return r, nil
		}
		parent := path.Dir(dir)
		if parent == dir {
			return nil, ErrNotCommitted
		}
		dir = parent
	}
}

// Head returns the content of the file name at HEAD, or ErrNotCommitted.
func Head(fsys workspace.FS, name string) ([]byte, error) {
	r, err := Find(fsys, name)
	if err != nil {
		return nil, err
	}
	rel, ok := strings.CutPrefix(fsys.Abs(name), r.work+"/")
	if !ok {
		return nil, ErrNotCommitted
	}
	return r.FileAtHead(rel)
}

// FileAtHead returns the content of the work-tree path rel (slash-separated) at HEAD.
func (r *Repo) FileAtHead(rel string) ([]byte, error) {
	commit, err := r.resolve("HEAD")
	if err != nil {
		return nil, err
	}
	typ, data, err := r.object(commit)
	if err != nil {
		return nil, err
	}
	if typ != "commit" {
		return nil, fmt.Errorf("HEAD names a %s, not a commit", typ)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	treeHex, ok := strings.CutPrefix(line, "tree ")
	if !ok {
		return nil, errors.New("a commit without a tree")
	}
	id, err := parseID(treeHex)
	if err != nil {
		return nil, err
	}
	for _, seg := range strings.Split(rel, "/") {
		typ, data, err := r.object(id)
		if err != nil {
			return nil, err
		}
		if typ != "tree" {
			return nil, ErrNotCommitted
		}
		if id, ok = treeEntry(data, seg); !ok {
			return nil, ErrNotCommitted
		}
	}
	typ, data, err = r.object(id)
	if err != nil {
		return nil, err
	}
	if typ != "blob" {
		return nil, ErrNotCommitted
	}
	return data, nil
}

type objectID [20]byte

func parseID(s string) (objectID, error) {
	var id objectID
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 20 {
		return id, fmt.Errorf("not an object id: %q", s)
	}
	copy(id[:], b)
	return id, nil
}

// resolve follows a ref (HEAD, symbolic refs) to an object id.
func (r *Repo) resolve(ref string) (objectID, error) {
	for hop := 0; hop < 10; hop++ {
		var data []byte
		var err error
		for _, dir := range []string{r.gitDir, r.common} {
			if data, err = workspace.ReadFile(r.fs, path.Join(dir, ref), 4096); err == nil {
				break
			}
		}
		if err != nil {
			return r.packedRef(ref)
		}
		s := strings.TrimSpace(string(data))
		if target, ok := strings.CutPrefix(s, "ref:"); ok {
			ref = strings.TrimSpace(target)
			continue
		}
		return parseID(s)
	}
	return objectID{}, errors.New("a loop of symbolic refs")
}

func (r *Repo) packedRef(ref string) (objectID, error) {
	data, err := workspace.ReadFile(r.fs, path.Join(r.common, "packed-refs"), 64<<20)
	if err != nil {
		return objectID{}, ErrNotCommitted // an unborn branch
	}
	for _, line := range strings.Split(string(data), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok && strings.TrimSpace(name) == ref {
			return parseID(id)
		}
	}
	return objectID{}, ErrNotCommitted
}

// treeEntry finds name in a tree object: entries "mode name\0<20 bytes>".
func treeEntry(data []byte, name string) (objectID, bool) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+21 > len(data) {
			return objectID{}, false
		}
		var id objectID
		copy(id[:], data[nul+1:nul+21])
		if string(data[sp+1:nul]) == name {
			return id, true
		}
		data = data[nul+21:]
	}
	return objectID{}, false
}

// object reads an object: loose, else from a pack.
func (r *Repo) object(id objectID) (string, []byte, error) {
	h := hex.EncodeToString(id[:])
	rc, err := r.fs.Open(path.Join(r.common, "objects", h[:2], h[2:]))
	if err == nil {
		defer rc.Close()
		return loose(rc)
	}
	if err := r.loadPacks(); err != nil {
		return "", nil, err
	}
	for _, p := range r.packs {
		if off, ok := p.find(id); ok {
			return r.packed(p, off, 0)
		}
	}
	return "", nil, fmt.Errorf("object %s not found", h)
}

// loose reads a zlib-compressed "type size\0content".
func loose(rc io.Reader) (string, []byte, error) {
	z, err := zlib.NewReader(rc)
	if err != nil {
		return "", nil, err
	}
	defer z.Close()
	data, err := io.ReadAll(io.LimitReader(z, maxObject+64))
	if err != nil {
		return "", nil, err
	}
	nul := bytes.IndexByte(data, 0)
	sp := bytes.IndexByte(data, ' ')
	if nul < 0 || sp < 0 || sp > nul {
		return "", nil, errors.New("a malformed loose object")
	}
	return string(data[:sp]), data[nul+1:], nil
}

// A pack is a pack file and its index (version 2).
type pack struct {
	file    string
	ids     []objectID
	offsets []uint64
}

func (r *Repo) loadPacks() error {
	if r.loaded {
		return nil
	}
	r.loaded = true
	dir := path.Join(r.common, "objects", "pack")
	entries, err := r.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".idx") {
			continue
		}
		idx, err := workspace.ReadFile(r.fs, path.Join(dir, e.Name()), 1<<30)
		if err != nil {
			return err
		}
		p, err := readIndex(idx)
		if err != nil {
			return fmt.Errorf("%s: %v", e.Name(), err)
		}
		p.file = path.Join(dir, strings.TrimSuffix(e.Name(), ".idx")+".pack")
		r.packs = append(r.packs, p)
	}
	return nil
}

func readIndex(b []byte) (*pack, error) {
	if len(b) < 8+256*4 || !bytes.Equal(b[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(b[4:]) != 2 {
		return nil, errors.New("not a version 2 pack index")
	}
	n := int(binary.BigEndian.Uint32(b[8+255*4:]))
	ids, crcs := 8+256*4, 8+256*4+20*n
	offs := crcs + 4*n
	large := offs + 4*n
	if len(b) < large {
		return nil, errors.New("a truncated pack index")
	}
	p := &pack{ids: make([]objectID, n), offsets: make([]uint64, n)}
	for i := range n {
		copy(p.ids[i][:], b[ids+20*i:])
		o := binary.BigEndian.Uint32(b[offs+4*i:])
		if o&0x80000000 != 0 {
			j := int(o &^ 0x80000000)
			if large+8*j+8 > len(b) {
				return nil, errors.New("a truncated pack index")
			}
			p.offsets[i] = binary.BigEndian.Uint64(b[large+8*j:])
		} else {
			p.offsets[i] = uint64(o)
		}
	}
	return p, nil
}

func (p *pack) find(id objectID) (uint64, bool) {
	i := sort.Search(len(p.ids), func(i int) bool { return bytes.Compare(p.ids[i][:], id[:]) >= 0 })
	if i < len(p.ids) && p.ids[i] == id {
		return p.offsets[i], true
	}
	return 0, false
}

var typeNames = [...]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

// packed reads the object at off of p, applying deltas (depth counts the chain).
func (r *Repo) packed(p *pack, off uint64, depth int) (string, []byte, error) {
	if depth > maxChain {
		return "", nil, errors.New("a delta chain too long")
	}
	rc, err := r.fs.Open(p.file)
	if err != nil {
		return "", nil, err
	}
	defer rc.Close()
	ra, ok := rc.(io.ReaderAt)
	if !ok {
		return "", nil, errors.New("the pack file cannot be read at an offset")
	}
	sr := io.NewSectionReader(ra, int64(off), 1<<62)
	br := &byteReader{r: sr}
	c, err := br.ReadByte()
	if err != nil {
		return "", nil, err
	}
	typ := (c >> 4) & 7
	size := uint64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil {
			return "", nil, err
		}
		size |= uint64(c&0x7f) << shift
	}
	if size > maxObject {
		return "", nil, errors.New("an object too large")
	}
	var base func() (string, []byte, error)
	switch typ {
	case 6: // offset delta
		c, err := br.ReadByte()
		if err != nil {
			return "", nil, err
		}
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil {
				return "", nil, err
			}
			rel = ((rel + 1) << 7) | uint64(c&0x7f)
		}
		if rel > off {
			return "", nil, errors.New("a delta before the pack's start")
		}
		base = func() (string, []byte, error) { return r.packed(p, off-rel, depth+1) }
	case 7: // reference delta
		var id objectID
		if _, err := io.ReadFull(br, id[:]); err != nil {
			return "", nil, err
		}
		base = func() (string, []byte, error) {
			if o, ok := p.find(id); ok {
				return r.packed(p, o, depth+1)
			}
			return r.object(id)
		}
	case 1, 2, 3, 4:
	default:
		return "", nil, fmt.Errorf("unknown pack object type %d", typ)
	}
	z, err := zlib.NewReader(br)
	if err != nil {
		return "", nil, err
	}
	defer z.Close()
	data, err := io.ReadAll(io.LimitReader(z, int64(size)+1))
	if err != nil {
		return "", nil, err
	}
	if uint64(len(data)) != size {
		return "", nil, errors.New("an object of the wrong size")
	}
	if base == nil {
		return typeNames[typ], data, nil
	}
	bt, bdata, err := base()
	if err != nil {
		return "", nil, err
	}
	out, err := applyDelta(bdata, data)
	return bt, out, err
}

// byteReader reads a section one byte at a time (zlib wants an io.ByteReader so as not to
// read past its stream).
type byteReader struct {
	r   io.Reader
	buf [1]byte
}

func (b *byteReader) ReadByte() (byte, error) {
	_, err := io.ReadFull(b.r, b.buf[:])
	return b.buf[0], err
}

func (b *byteReader) Read(p []byte) (int, error) { return b.r.Read(p) }

// applyDelta applies a git delta: the sizes, then copy and insert instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	varint := func() (uint64, error) {
		var v uint64
		for shift := 0; ; shift += 7 {
			if len(delta) == 0 || shift > 63 {
				return 0, errors.New("a truncated delta")
			}
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, nil
			}
		}
	}
	bsize, err := varint()
	if err != nil {
		return nil, err
	}
	rsize, err := varint()
	if err != nil {
		return nil, err
	}
	if bsize != uint64(len(base)) || rsize > maxObject {
		return nil, errors.New("a delta that does not fit its base")
	}
	out := make([]byte, 0, rsize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		if op&0x80 != 0 {
			var off, n uint64
			for i := range 4 {
				if op&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("a truncated delta")
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if op&(1<<(4+i)) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("a truncated delta")
					}
					n |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return nil, errors.New("a delta copies past its base")
			}
			out = append(out, base[off:off+n]...)
		} else if op != 0 {
			if int(op) > len(delta) {
				return nil, errors.New("a truncated delta")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		} else {
			return nil, errors.New("a delta with a reserved instruction")
		}
	}
	if uint64(len(out)) != rsize {
		return nil, errors.New("a delta of the wrong result size")
	}
	return out, nil
}
