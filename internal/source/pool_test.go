package source

import (
	"runtime"
	"strings"
	"testing"
)

// TestParserReuse parses documents of every shape one after the other, so that the pooled
// parsers carry buffers (stack, frames, slab, scratch) from one to the next, and checks
// each against a parse by a parser of its own, and that earlier documents are unchanged.
func TestParserReuse(t *testing.T) {
	big := "{" + strings.Repeat(`"k":1,`, 40)
	for i := 0; i < 40; i++ {
		big += `"m` + strings.Repeat("x", i) + `":[` + strings.Repeat("[1,2],", i) + `3],`
	}
	big += `"z":"\u00e9\n"}`
	texts := []string{`{"a":[1,2,{"b":"c\"d"}],"a":true}`, `[1,[2,[3,[4]]],{}]`, big, `"\ud83d\ude00 x"`,
		`{"x":{"y":{"z":[null,false,1.50e3]}}}`, `[` + strings.Repeat(`{"q":"\t"},`, 2000) + `0]`, `{"bad":`, `12`}
	var docs []*Document
	var wants []Value
	for round := 0; round < 3; round++ {
		for i, text := range texts {
			var fresh jsonParser
			want, werr := fresh.parse(text, 0, 10000)
			parse := ParseJSON
			if i%2 == round%2 {
				parse = ParseJSONShared
			}
			doc, err := parse("t.json", []byte(text), nil)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%q: error %v, want %v", text, err, werr)
			}
			if err != nil {
				continue
			}
			if !same(doc.Root, want) {
				t.Fatalf("%q: reused parser gave another value", text)
			}
			docs, wants = append(docs, doc), append(wants, want)
		}
	}
	for i, d := range docs {
		if !same(d.Root, wants[i]) {
			t.Errorf("document %d changed after later parses", i)
		}
	}
}

// same says whether a and b are the same tree: kinds, offsets, texts and members in order.
func same(a, b Value) bool {
	if a.Kind() != b.Kind() || a.Offset() != b.Offset() || !Equal(a, b) {
		return false
	}
	switch a.Kind() {
	case String:
		return a.Str() == b.Str()
	case Array, Object:
		ea, eb := a.elems(), b.elems()
		if len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if !same(ea[i], eb[i]) {
				return false
			}
		}
	}
	return true
}

// TestLineParser parses lines with one LineParser, recycling after some: each document is
// the tree a fresh parser makes, and documents not recycled stay intact; errors are
// ParseJSON's.
func TestLineParser(t *testing.T) {
	lines := []string{`{"a":[1,2,{"b":"c"}]}`, `[` + strings.Repeat(`{"q":"\t","r":[1,2]},`, 500) + `0]`, `{"k":"\u00e9"}`, `{"bad":`, `  "x"  `, `[1,]`}
	var lp LineParser
	type kept struct {
		doc  *Document
		want Value
	}
	var keep []kept
	for round := 0; round < 4; round++ {
		for i, l := range lines {
			var fresh jsonParser
			want, werr := fresh.parse(l, 0, 10000)
			doc, err := lp.Parse("t.jsonl", []byte(l), nil)
			_, perr := ParseJSON("t.jsonl", []byte(l), nil)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != perr.Error() {
				t.Fatalf("%q: error %v, want %v", l, err, perr)
			}
			if err != nil {
				continue
			}
			if !same(doc.Root, want) {
				t.Fatalf("%q: LineParser gave another value", l)
			}
			if (round+i)%3 == 0 {
				lp.Recycle()
				keep = keep[:0]
			} else {
				keep = append(keep, kept{doc, want})
			}
		}
		for _, k := range keep {
			if !same(k.doc.Root, k.want) {
				t.Fatalf("a document not recycled changed")
			}
		}
	}
	lim := &Limits{MaxSize: 3}
	if _, err := lp.Parse("t.jsonl", []byte(`[1,2]`), lim); err == nil {
		t.Error("a line over the size limit was parsed")
	}
	if doc, err := lp.Parse("t.json", []byte("{/*c*/}"), &Limits{JSONC: true}); err != nil || doc.Format != JSONC {
		t.Errorf("JSONC: %v", err)
	}
}

// TestLineParserStringsOutliveRecycle takes decoded strings (with escapes) and plain ones
// from documents, recycles, parses other lines, and checks that the strings taken did not
// change: Recycle reuses values and documents, never the memory of strings.
func TestLineParserStringsOutliveRecycle(t *testing.T) {
	var lp LineParser
	var kept, want []string
	for i := range 200 {
		line := `{"k\u00e9` + strings.Repeat("x", i%7) + `":"v\n` + strings.Repeat("y", i%11) + `","plain":"p` + strings.Repeat("z", i%5) + `"}`
		doc, err := lp.Parse("t.jsonl", []byte(line), nil)
		if err != nil {
			t.Fatal(err)
		}
		k, v := doc.Root.Member(0)
		_, p := doc.Root.Member(1)
		kept = append(kept, k.Str(), v.Str(), p.Str())
		want = append(want, "k\u00e9"+strings.Repeat("x", i%7), "v\n"+strings.Repeat("y", i%11), "p"+strings.Repeat("z", i%5))
		lp.Recycle()
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("string %d changed after Recycle: %q, want %q", i, kept[i], want[i])
		}
	}
}

// TestParsersKeepNoChain parses large documents many times, keeping none: the memory still
// in use afterwards must not grow with the number of parses. A pooled parser (ParseJSON,
// ParseJSONShared) once made a chain from each document back through all before it (see
// jsonParser.spilled): 100 parses of this 354 KB document kept 82 MB alive (47 MB shared).
// A LineParser recycled after each document is held to the same. It was not seen to
// chain, but only because each document overwrote most of the chunk the one before it had
// left: the gap a spill leaves could hold a link.
func TestParsersKeepNoChain(t *testing.T) {
	tw := twitterJSON(100)
	var lp LineParser
	n := 0
	sizes := [][]byte{tw, twitterJSON(60), twitterJSON(30)} // a LineParser reuses its chunk, so documents of other sizes
	for _, c := range []struct {
		name  string
		parse func() error
	}{
		{"ParseJSON", func() error { _, err := ParseJSON("t.json", tw, nil); return err }},
		{"ParseJSONShared", func() error { _, err := ParseJSONShared("t.json", tw, nil); return err }},
		{"LineParser", func() error {
			n++
			_, err := lp.Parse("t.json", sizes[n%3], nil)
			lp.Recycle()
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			inUse := func() uint64 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				return ms.HeapAlloc
			}
			before := inUse()
			for range 100 {
				if err := c.parse(); err != nil {
					t.Fatal(err)
				}
			}
			// A parser may keep its last document's memory (under 1 MB here).
			if grew := int64(inUse()) - int64(before); grew > 8<<20 {
				t.Errorf("%d MB more in use after 100 parses", grew>>20)
			}
		})
	}
}
