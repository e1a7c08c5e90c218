package gitread

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// testRepo writes a repository's objects itself, in-process.
type testRepo struct {
	t    *testing.T
	dir  string // the working tree; objects in dir/.git
	when int64
}

func newTestRepo(t *testing.T) *testRepo {
	dir := t.TempDir()
	for _, d := range []string{".git/objects/pack", ".git/refs/heads", ".git/refs/tags"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tr := &testRepo{t: t, dir: dir, when: 1700000000}
	tr.write(".git/HEAD", "ref: refs/heads/main\n")
	return tr
}

func (tr *testRepo) write(name, content string) {
	p := filepath.Join(tr.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func objectHash(typ string, data []byte) Hash {
	s := sha1.New()
	fmt.Fprintf(s, "%s %d\x00", typ, len(data))
	s.Write(data)
	var h Hash
	copy(h[:], s.Sum(nil))
	return h
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// loose writes a loose object.
func (tr *testRepo) loose(typ string, data []byte) Hash {
	h := objectHash(typ, data)
	s := h.String()
	p := filepath.Join(tr.dir, ".git", "objects", s[:2], s[2:])
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, zlibBytes(append([]byte(fmt.Sprintf("%s %d\x00", typ, len(data))), data...)), 0o444); err != nil {
		tr.t.Fatal(err)
	}
	return h
}

// tree writes the tree of files (path -> content), with subtrees.
func (tr *testRepo) tree(files map[string]string) Hash {
	type node struct {
		files map[string]string
		dirs  map[string]map[string]string
	}
	n := node{files: map[string]string{}, dirs: map[string]map[string]string{}}
	for p, c := range files {
		if i := bytes.IndexByte([]byte(p), '/'); i >= 0 {
			d := p[:i]
			if n.dirs[d] == nil {
				n.dirs[d] = map[string]string{}
			}
			n.dirs[d][p[i+1:]] = c
		} else {
			n.files[p] = c
		}
	}
	var ents []TreeEntry
	for name, c := range n.files {
		ents = append(ents, TreeEntry{Name: name, Mode: 0o100644, Hash: tr.loose("blob", []byte(c))})
	}
	for name, sub := range n.dirs {
		ents = append(ents, TreeEntry{Name: name, Mode: 0o40000, Hash: tr.tree(sub)})
	}
	sort.Slice(ents, func(i, j int) bool { return treeName(ents[i]) < treeName(ents[j]) })
	var buf bytes.Buffer
	for _, e := range ents {
		fmt.Fprintf(&buf, "%o %s\x00", e.Mode, e.Name)
		buf.Write(e.Hash[:])
	}
	return tr.loose("tree", buf.Bytes())
}

// commit writes a commit of files on top of parents and moves main to it.
func (tr *testRepo) commit(msg string, files map[string]string, parents ...Hash) Hash {
	tree := tr.tree(files)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	tr.when += 3600
	fmt.Fprintf(&buf, "author T <t@e> %d +0100\ncommitter T <t@e> %d +0100\n\n%s\n", tr.when, tr.when, msg)
	h := tr.loose("commit", buf.Bytes())
	tr.write(".git/refs/heads/main", h.String()+"\n")
	return h
}

// packEntry is an object to pack: whole, or a delta against an earlier entry (ofs) or
// any object (ref).
type packEntry struct {
	typ   int
	data  []byte // whole content (for the index's hash)
	ofs   int    // index+1 of the base entry for an OFS delta
	ref   *Hash  // base of a REF delta
	base  []byte // the base's content, for deltas
	htype string
}

// makeDelta encodes target as a copy of base's common prefix and inserts.
func makeDelta(base, target []byte) []byte {
	var d []byte
	varint := func(v int) {
		for {
			c := byte(v & 0x7f)
			v >>= 7
			if v != 0 {
				d = append(d, c|0x80)
				continue
			}
			d = append(d, c)
			return
		}
	}
	varint(len(base))
	varint(len(target))
	n := 0
	for n < len(base) && n < len(target) && base[n] == target[n] && n < 0xffff {
		n++
	}
	if n > 0 {
		d = append(d, 0x80|0x10|0x20, byte(n), byte(n>>8))
	}
	rest := target[n:]
	for len(rest) > 0 {
		k := min(len(rest), 127)
		d = append(d, byte(k))
		d = append(d, rest[:k]...)
		rest = rest[k:]
	}
	return d
}

// pack writes a packfile and its index v2 and returns the pack's bytes and offsets.
func (tr *testRepo) pack(entries []packEntry) (packPath string, offs []uint64) {
	var buf bytes.Buffer
	buf.WriteString("PACK")
	binary.Write(&buf, binary.BigEndian, uint32(2))
	binary.Write(&buf, binary.BigEndian, uint32(len(entries)))
	type named struct {
		h   Hash
		off uint64
	}
	var names []named
	for _, e := range entries {
		off := uint64(buf.Len())
		offs = append(offs, off)
		payload := e.data
		typ := e.typ
		if e.ofs > 0 || e.ref != nil {
			payload = makeDelta(e.base, e.data)
			typ = ofsDelta
			if e.ref != nil {
				typ = refDelta
			}
		}
		size := len(payload)
		c := byte(typ<<4) | byte(size&15)
		size >>= 4
		for size > 0 {
			buf.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		buf.WriteByte(c)
		if e.ofs > 0 {
			rel := off - offs[e.ofs-1]
			var enc []byte
			enc = append(enc, byte(rel&0x7f))
			for rel >>= 7; rel > 0; rel >>= 7 {
				rel--
				enc = append([]byte{byte(0x80 | rel&0x7f)}, enc...)
			}
			buf.Write(enc)
		}
		if e.ref != nil {
			buf.Write(e.ref[:])
		}
		buf.Write(zlibBytes(payload))
		names = append(names, named{objectHash(e.htype, e.data), off})
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	sort.Slice(names, func(i, j int) bool { return bytes.Compare(names[i].h[:], names[j].h[:]) < 0 })
	var idx bytes.Buffer
	idx.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	for b := 0; b < 256; b++ {
		n := 0
		for _, x := range names {
			if int(x.h[0]) <= b {
				n++
			}
		}
		binary.Write(&idx, binary.BigEndian, uint32(n))
	}
	for _, x := range names {
		idx.Write(x.h[:])
	}
	for range names {
		idx.Write([]byte{0, 0, 0, 0})
	}
	for _, x := range names {
		binary.Write(&idx, binary.BigEndian, uint32(x.off))
	}
	idx.Write(sum[:])
	idx.Write(make([]byte, 20))
	name := fmt.Sprintf("pack-%x", sum)
	packPath = filepath.Join(tr.dir, ".git", "objects", "pack", name+".pack")
	os.WriteFile(packPath, buf.Bytes(), 0o444)
	os.WriteFile(filepath.Join(tr.dir, ".git", "objects", "pack", name+".idx"), idx.Bytes(), 0o444)
	return packPath, offs
}

// treeName is the name git sorts a tree entry by (a tree's with a "/" after it).
func treeName(e TreeEntry) string {
	if e.IsDir() {
		return e.Name + "/"
	}
	return e.Name
}

func readAll(p string) ([]byte, error) { return os.ReadFile(p) }

func writeFile(p string, data []byte) {
	os.Chmod(p, 0o644)
	os.WriteFile(p, data, 0o644)
}
