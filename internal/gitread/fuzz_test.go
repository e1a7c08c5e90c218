package gitread

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzObjects feeds arbitrary bytes to the readers of loose objects, deltas, trees, pack
// entry headers and pack indexes: an error or a result, never a panic, and nothing larger
// than MaxObject allocated.
func FuzzObjects(f *testing.F) {
	f.Add(zlibBytes([]byte("blob 5\x00hello")), []byte{})
	f.Add(zlibBytes([]byte("tree 0\x00")), makeDelta([]byte("abc"), []byte("abd")))
	f.Add([]byte{0x78, 0x9c}, []byte{3, 3, 0x90, 3})
	f.Add(append([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}, make([]byte, 1024+40)...), []byte{0x7f})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		decodeLoose(bytes.NewReader(a), "fuzz")
		applyDelta(a, b)
		parseTree(Hash{}, a)
		if p, err := readIdx("fuzz.idx", a); err == nil {
			p.find(Hash{})
		}
		inflate(bytes.NewReader(a), uint64(len(b)), "fuzz")
	})
}

// FuzzPack writes arbitrary pack bytes and reads every object the index names.
func FuzzPack(f *testing.F) {
	f.Add([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"), uint16(12), uint8(0x35))
	f.Fuzz(func(t *testing.T, tail []byte, at uint16, x uint8) {
		tr := newTestRepo(t)
		base := []byte(strings.Repeat("abc\n", 40))
		mid := append(append([]byte{}, base...), tail...)
		packPath, _ := tr.pack([]packEntry{
			{typ: typeBlob, data: base, htype: "blob"},
			{typ: typeBlob, data: mid, ofs: 1, base: base, htype: "blob"},
		})
		data, _ := readAll(packPath)
		if int(at) < len(data) {
			data[at] ^= x
		}
		writeFile(packPath, data)
		r, err := Find(tr.dir)
		if err != nil {
			return
		}
		defer r.Close()
		r.Blob(objectHash("blob", mid))
		r.Blob(objectHash("blob", base))
	})
}
