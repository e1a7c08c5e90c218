// Package gitread reads a git repository in-process, without running git: the content of a
// file at a revision, a file's history following renames, and revision names (HEAD,
// branches, tags, hashes, REV~N, REV^N). It reads the object store itself: loose objects
// (zlib), packfiles with their .idx v2 indexes and OFS/REF deltas, refs, packed-refs,
// HEAD (of a worktree too) and a shallow clone's shallow file. It only reads, holds no
// engine logic, and bounds what the input can make it do: objects are at most MaxObject
// bytes, delta chains at most MaxDeltaChain long (followed by a loop, never recursion),
// and a corrupt object is an error, never a panic.
//
// Why not github.com/go-git/go-git/v5 (v5.16.4): used for the same reads (open, resolve,
// read a file, log), it added 1,237 KB to the stripped jstk binary (12,571 KB -> 13,808 KB,
// +9.8%) and 127 packages (OpenPGP, SSH, the CIRCL curves, go-billy...), and a cold build
// took 1,227 s against 780 s (nice'd, on the shared 2-core machine: only the ratio means
// anything). This package, with diff's history on top, adds 172 KB.
package gitread

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// MaxObject bounds the size of an object read (and of every delta base and result).
const MaxObject = 256 << 20

// MaxDeltaChain bounds the length of a delta chain (git's own default depth is 50).
const MaxDeltaChain = 10000

// Hash is a SHA-1 object name.
type Hash [20]byte

// String is the hash in 40 hex digits.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short is the first 7 hex digits.
func (h Hash) Short() string { return h.String()[:7] }

// IsZero tells whether h is the zero hash.
func (h Hash) IsZero() bool { return h == Hash{} }

// ParseHash reads 40 hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 40 {
		return h, fmt.Errorf("%q is not a 40-digit object name", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%q is not a 40-digit object name", s)
	}
	return h, nil
}

// BlobHash is the object name git gives a file of this content.
func BlobHash(data []byte) Hash {
	s := sha1.New()
	fmt.Fprintf(s, "blob %d\x00", len(data))
	s.Write(data)
	var h Hash
	copy(h[:], s.Sum(nil))
	return h
}

// The object types.
const (
	typeCommit = 1
	typeTree   = 2
	typeBlob   = 3
	typeTag    = 4
	ofsDelta   = 6
	refDelta   = 7
)

var typeNames = map[string]int{"commit": typeCommit, "tree": typeTree, "blob": typeBlob, "tag": typeTag}

func typeName(t int) string {
	for k, v := range typeNames {
		if v == t {
			return k
		}
	}
	return "type " + strconv.Itoa(t)
}

// ErrCorrupt is wrapped by the errors of an object or index that cannot be read.
var ErrCorrupt = errors.New("corrupt git data")

// ErrMissing is wrapped by the error of an object the repository does not have.
var ErrMissing = errors.New("object not in the repository")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// pack is one packfile and its index.
type pack struct {
	path    string
	names   []byte // sorted 20-byte names
	offsets []uint64
	once    sync.Once
	f       *os.File
	size    int64
	err     error
}

// readIdx reads a .idx v2 file.
func readIdx(idxPath string, data []byte) (*pack, error) {
	if len(data) < 8+256*4 || !bytes.Equal(data[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(data[4:8]) != 2 {
		return nil, corrupt("%s: not a pack index of version 2", idxPath)
	}
	fan := data[8 : 8+256*4]
	n := int(binary.BigEndian.Uint32(fan[255*4:]))
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(fan[i*4:])
		if v < prev {
			return nil, corrupt("%s: fan-out table not sorted", idxPath)
		}
		prev = v
	}
	rest := data[8+256*4:]
	if n < 0 || len(rest) < n*(20+4+4)+40 {
		return nil, corrupt("%s: index shorter than its %d objects", idxPath, n)
	}
	names := rest[:n*20]
	small := rest[n*24 : n*28]
	large := rest[n*28 : len(rest)-40]
	offs := make([]uint64, n)
	for i := 0; i < n; i++ {
		o := binary.BigEndian.Uint32(small[i*4:])
		if o&0x80000000 != 0 {
			j := int(o & 0x7fffffff)
			if j*8+8 > len(large) {
				return nil, corrupt("%s: large offset %d out of range", idxPath, j)
			}
			offs[i] = binary.BigEndian.Uint64(large[j*8:])
		} else {
			offs[i] = uint64(o)
		}
	}
	return &pack{path: strings.TrimSuffix(idxPath, ".idx") + ".pack", names: names, offsets: offs}, nil
}

// find returns the offset of h in the pack.
func (p *pack) find(h Hash) (uint64, bool) {
	n := len(p.offsets)
	i := sort.Search(n, func(i int) bool { return bytes.Compare(p.names[i*20:i*20+20], h[:]) >= 0 })
	if i < n && bytes.Equal(p.names[i*20:i*20+20], h[:]) {
		return p.offsets[i], true
	}
	return 0, false
}

// open opens the packfile once.
func (p *pack) open() error {
	p.once.Do(func() {
		f, err := os.Open(p.path)
		if err != nil {
			p.err = err
			return
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			p.err = err
			return
		}
		var hdr [12]byte
		if _, err := f.ReadAt(hdr[:], 0); err != nil || !bytes.Equal(hdr[:4], []byte("PACK")) {
			f.Close()
			p.err = corrupt("%s: not a packfile", p.path)
			return
		}
		p.f, p.size = f, fi.Size()
	})
	return p.err
}

// entryHeader reads the header of the entry at off: its type, its size, and for a delta
// its base (an offset, or a hash); data starts at the returned offset.
func (p *pack) entryHeader(off uint64) (typ int, size uint64, baseOff uint64, baseHash Hash, data uint64, err error) {
	if off < 12 || off >= uint64(p.size) {
		return 0, 0, 0, baseHash, 0, corrupt("%s: entry offset %d out of the pack", p.path, off)
	}
	var buf [64]byte
	n, _ := p.f.ReadAt(buf[:], int64(off))
	b := buf[:n]
	i := 0
	next := func() (byte, bool) {
		if i >= len(b) {
			return 0, false
		}
		c := b[i]
		i++
		return c, true
	}
	c, ok := next()
	if !ok {
		return 0, 0, 0, baseHash, 0, corrupt("%s: truncated entry at %d", p.path, off)
	}
	typ = int(c>>4) & 7
	size = uint64(c & 15)
	shift := uint(4)
	for c&0x80 != 0 {
		if c, ok = next(); !ok || shift > 60 {
			return 0, 0, 0, baseHash, 0, corrupt("%s: bad entry header at %d", p.path, off)
		}
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	switch typ {
	case typeCommit, typeTree, typeBlob, typeTag:
	case ofsDelta:
		c, ok = next()
		if !ok {
			return 0, 0, 0, baseHash, 0, corrupt("%s: truncated delta at %d", p.path, off)
		}
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if c, ok = next(); !ok || rel > 1<<56 {
				return 0, 0, 0, baseHash, 0, corrupt("%s: bad delta offset at %d", p.path, off)
			}
			rel = ((rel + 1) << 7) | uint64(c&0x7f)
		}
		if rel == 0 || rel > off {
			return 0, 0, 0, baseHash, 0, corrupt("%s: delta base offset out of the pack at %d", p.path, off)
		}
		baseOff = off - rel
	case refDelta:
		if i+20 > len(b) {
			return 0, 0, 0, baseHash, 0, corrupt("%s: truncated delta at %d", p.path, off)
		}
		copy(baseHash[:], b[i:i+20])
		i += 20
	default:
		return 0, 0, 0, baseHash, 0, corrupt("%s: unknown entry type %d at %d", p.path, typ, off)
	}
	if size > MaxObject {
		return 0, 0, 0, baseHash, 0, fmt.Errorf("%s: object at %d is %d bytes, more than the %d jstk reads", p.path, off, size, MaxObject)
	}
	return typ, size, baseOff, baseHash, off + uint64(i), nil
}

// inflate reads exactly size bytes of zlib data starting at off.
func (p *pack) inflate(off, size uint64) ([]byte, error) {
	return inflate(io.NewSectionReader(p.f, int64(off), p.size-int64(off)), size, p.path)
}

func inflate(r io.Reader, size uint64, name string) ([]byte, error) {
	z, err := zlib.NewReader(r)
	if err != nil {
		return nil, corrupt("%s: %v", name, err)
	}
	defer z.Close()
	out := make([]byte, size)
	if _, err := io.ReadFull(z, out); err != nil {
		return nil, corrupt("%s: %v", name, err)
	}
	var one [1]byte
	if n, _ := z.Read(one[:]); n > 0 {
		return nil, corrupt("%s: more data than the %d bytes announced", name, size)
	}
	return out, nil
}

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	i := 0
	varint := func() (uint64, error) {
		var v uint64
		shift := uint(0)
		for {
			if i >= len(delta) || shift > 63 {
				return 0, corrupt("truncated delta header")
			}
			c := delta[i]
			i++
			v |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				return v, nil
			}
		}
	}
	src, err := varint()
	if err != nil {
		return nil, err
	}
	if src != uint64(len(base)) {
		return nil, corrupt("delta for a base of %d bytes applied to %d bytes", src, len(base))
	}
	dst, err := varint()
	if err != nil {
		return nil, err
	}
	if dst > MaxObject {
		return nil, fmt.Errorf("a delta result of %d bytes is more than the %d jstk reads", dst, MaxObject)
	}
	out := make([]byte, 0, dst)
	for i < len(delta) {
		op := delta[i]
		i++
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for k := uint(0); k < 4; k++ {
				if op&(1<<k) != 0 {
					if i >= len(delta) {
						return nil, corrupt("truncated delta copy")
					}
					off |= uint64(delta[i]) << (8 * k)
					i++
				}
			}
			for k := uint(0); k < 3; k++ {
				if op&(0x10<<k) != 0 {
					if i >= len(delta) {
						return nil, corrupt("truncated delta copy")
					}
					n |= uint64(delta[i]) << (8 * k)
					i++
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) || uint64(len(out))+n > dst {
				return nil, corrupt("delta copy out of range")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if i+n > len(delta) || uint64(len(out)+n) > dst {
				return nil, corrupt("delta insert out of range")
			}
			out = append(out, delta[i:i+n]...)
			i += n
		default:
			return nil, corrupt("delta opcode 0")
		}
	}
	if uint64(len(out)) != dst {
		return nil, corrupt("delta result of %d bytes, %d announced", len(out), dst)
	}
	return out, nil
}

// object is a decoded object.
type object struct {
	typ  int
	data []byte
}

// deltaLink is one delta of a chain being resolved.
type deltaLink struct {
	p        *pack
	off, dat uint64
	size     uint64
}

// readPacked reads the object at off of p, following its delta chain with a loop.
func (r *Repo) readPacked(p *pack, off uint64) (object, error) {
	if err := p.open(); err != nil {
		return object{}, err
	}
	var chain []deltaLink
	for {
		if len(chain) > MaxDeltaChain {
			return object{}, corrupt("%s: delta chain longer than %d", p.path, MaxDeltaChain)
		}
		if o, ok := r.cache.get(p, off); ok {
			return r.applyChain(o, chain)
		}
		typ, size, bOff, bHash, dat, err := p.entryHeader(off)
		if err != nil {
			return object{}, err
		}
		switch typ {
		case ofsDelta:
			chain = append(chain, deltaLink{p, off, dat, size})
			off = bOff
		case refDelta:
			chain = append(chain, deltaLink{p, off, dat, size})
			bp, bo, ok := r.findPacked(bHash)
			if !ok {
				// the base of a thin pack, stored loose
				base, err := r.readLoose(bHash)
				if err != nil {
					return object{}, err
				}
				return r.applyChain(base, chain)
			}
			if err := bp.open(); err != nil {
				return object{}, err
			}
			p, off = bp, bo
		default:
			data, err := p.inflate(dat, size)
			if err != nil {
				return object{}, err
			}
			o := object{typ, data}
			r.cache.put(p, off, o)
			return r.applyChain(o, chain)
		}
	}
}

// applyChain applies the deltas of chain to base, the last first.
func (r *Repo) applyChain(base object, chain []deltaLink) (object, error) {
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		delta, err := l.p.inflate(l.dat, l.size)
		if err != nil {
			return object{}, err
		}
		data, err := applyDelta(base.data, delta)
		if err != nil {
			return object{}, fmt.Errorf("%s at %d: %w", l.p.path, l.off, err)
		}
		base = object{base.typ, data}
		r.cache.put(l.p, l.off, base)
	}
	return base, nil
}

// objCache keeps decoded packed objects up to a total size, so that the bases of delta
// chains are not decoded again.
type objCache struct {
	mu    sync.Mutex
	m     map[cacheKey]object
	bytes int
}

type cacheKey struct {
	p   *pack
	off uint64
}

const cacheBytes = 64 << 20

func (c *objCache) get(p *pack, off uint64) (object, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[cacheKey{p, off}]
	return o, ok
}

func (c *objCache) put(p *pack, off uint64, o object) {
	if len(o.data) > cacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(o.data) > cacheBytes {
		c.m, c.bytes = map[cacheKey]object{}, 0
	}
	c.m[cacheKey{p, off}] = o
	c.bytes += len(o.data)
}

// readLoose reads a loose object.
func (r *Repo) readLoose(h Hash) (object, error) {
	s := h.String()
	name := filepath.Join(r.objects, s[:2], s[2:])
	f, err := os.Open(name)
	if err != nil {
		if os.IsNotExist(err) {
			return object{}, fmt.Errorf("%w: %s", ErrMissing, s)
		}
		return object{}, err
	}
	defer f.Close()
	return decodeLoose(f, name)
}

// decodeLoose reads a loose object's zlib stream: "TYPE SIZE\x00" then the content.
func decodeLoose(rd io.Reader, name string) (object, error) {
	z, err := zlib.NewReader(rd)
	if err != nil {
		return object{}, corrupt("%s: %v", name, err)
	}
	defer z.Close()
	var hdr []byte
	var one [1]byte
	for {
		if len(hdr) > 32 {
			return object{}, corrupt("%s: bad object header", name)
		}
		if _, err := io.ReadFull(z, one[:]); err != nil {
			return object{}, corrupt("%s: %v", name, err)
		}
		if one[0] == 0 {
			break
		}
		hdr = append(hdr, one[0])
	}
	t, sz, ok := strings.Cut(string(hdr), " ")
	typ, known := typeNames[t]
	size, err := strconv.ParseUint(sz, 10, 64)
	if !ok || !known || err != nil {
		return object{}, corrupt("%s: bad object header %q", name, hdr)
	}
	if size > MaxObject {
		return object{}, fmt.Errorf("%s: object of %d bytes, more than the %d jstk reads", name, size, MaxObject)
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(z, out); err != nil {
		return object{}, corrupt("%s: %v", name, err)
	}
	if n, _ := z.Read(one[:]); n > 0 {
		return object{}, corrupt("%s: more data than the %d bytes announced", name, size)
	}
	return object{typ, out}, nil
}
