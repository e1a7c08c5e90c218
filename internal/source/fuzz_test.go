package source

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJSON checks that the JSON parser never panics, that every offset lies in the source,
// that it accepts what encoding/json accepts (for valid UTF-8) and nothing more, and that
// printing a parsed value and parsing it again gives the same value with the same literals.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":"x"}`, `[]`, `{}`, `"\u00e9\ud83d\ude00\ud800"`, `-0.5e+10`,
		`{"a":1,"a":2}`, "\uFEFF[1]", `[1,]`, `{"a" 1}`, `"\x"`, "\"\xff\"", `01`, `[[[[]]]]`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k33":33,"k0":"dup"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := ParseJSON("f.json", src, nil)
		body := bytes.TrimPrefix(src, []byte(bom))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T", err)
			}
			if json.Valid(body) && utf8.Valid(body) {
				t.Fatalf("encoding/json accepts %q, we say %v", src, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("encoding/json rejects %q", src)
		}
		inBounds(t, doc.Root, len(src))
		printed := AppendJSON(nil, doc.Root)
		again, err := ParseJSON("printed.json", printed, nil)
		if err != nil {
			t.Fatalf("printed %q does not parse: %v", printed, err)
		}
		if !Equal(doc.Root, again.Root) {
			t.Fatalf("%q printed as %q parses to a different value", src, printed)
		}
		if reprinted := AppendJSON(nil, again.Root); !bytes.Equal(printed, reprinted) {
			t.Fatalf("printing is not stable: %q then %q", printed, reprinted)
		}
		var indented []byte
		indented = AppendJSONIndent(indented, doc.Root, "", " ")
		if v, err := ParseJSON("i.json", indented, nil); err != nil || !Equal(v.Root, doc.Root) {
			t.Fatalf("indented %q: %v", indented, err)
		}
	})
}

// FuzzYAML checks that the YAML parser never panics, that every offset lies in its
// document, that the documents make up the file, and that each value prints as JSON that
// parses to the same value.
func FuzzYAML(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb:\n  - x\n  - {c: d}\n", "x: &a {k: [1, 2]}\ny: *a\n", "base: &b {x: 1}\nd:\n  <<: *b\n  y: 3\n",
		"--- 1\n--- \n# c\nb: 2\n...\n", "a: |\n  text\n", "? [a]\n: 1\n", "k: !Ref foo\n", "[.5, 0x1F, 017, 1_0]",
		"a: 1\r\nb: 2\r\n", "é: [日, x]\n", "a: 1 # x\u2028\nb: 2\n", "a: 1\u0085b: 2\n", "\uFEFFa: 1", "%YAML 1.2\n---\na: 1\n",
		"a: \"x\ty\"\n", "- - - x\n", "a: &a [*a]\n", "1: a\ntrue: b\n~: c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		docs, err := ParseYAML("f.yaml", src, &Limits{MaxAliasNodes: 10_000})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T: %v", err, err)
			}
			return
		}
		var all []byte
		for _, d := range docs {
			all = append(all, d.Source()...)
			inBounds(t, d.Root, len(d.Source()))
			atToken(t, d)
			printed := AppendJSON(nil, d.Root)
			v, err := ParseJSON("p.json", printed, &Limits{MaxDepth: 1 << 20})
			if err != nil {
				t.Fatalf("%q: printed %q: %v", src, printed, err)
			}
			if !Equal(v.Root, d.Root) {
				t.Fatalf("%q: printed %q parses to a different value", src, printed)
			}
		}
		if len(docs) > 0 && !bytes.Equal(all, src) {
			t.Fatalf("the documents do not make up the file: %q", all)
		}
	})
}

// atToken checks that every value of d but an empty one starts at the first byte of a
// character that is not white space: its offset points at the value, not near it.
func atToken(t *testing.T, d *Document) {
	t.Helper()
	var walk func(v Value)
	walk = func(v Value) {
		// An empty null (also as the key "null") has no text to point at.
		if v.Kind() != Null && !(v.Kind() == String && (v.Str() == "null" || v.Str() == "")) {
			off := v.Offset()
			if c := d.Source()[off]; c == ' ' || c == '\t' || c == '\r' || c == '\n' || c >= 0x80 && c < 0xC0 {
				t.Fatalf("%q: value %s at offset %d points at %q", d.Source(), compact(v), off, d.Source()[off:])
			}
		}
		for _, k := range v.elems() {
			walk(k)
		}
	}
	walk(d.Root)
}

// FuzzTOML checks that the TOML parser never panics and that every offset lies in the
// source.
func FuzzTOML(f *testing.F) {
	for _, s := range []string{
		"a = 1\nb.c = [1, [2, 3], {x = 0x1F}]\n[t]\nd = 1979-05-27 07:32:00Z\n[[arr]]\nx = 1\n[arr.sub]\ny = 'q'\n",
		"a = [\n  1, # one\n  [\n    'two',\n  ],\n]\n", "\"q.k\".'x y' = 3\n", "p = {x = 1, y.z = 2}\n", "a = inf\n",
		"[ u . v ]\ne = 2\n[u]\nf = 3\n", "s = \"\"\"\nmulti\\\n  line\"\"\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := ParseTOML("f.toml", src, nil)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T: %v", err, err)
			}
			return
		}
		inBounds(t, doc.Root, len(src))
		if doc.Root.Kind() != Object {
			t.Fatalf("root is a %v", doc.Root.Kind())
		}
	})
}

// FuzzNDJSON checks that the streaming reader and Parse agree, whatever the line lengths
// and the limit.
func FuzzNDJSON(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n[2,\r3]\r\n\"x\"\nbad\n"), uint8(4))
	f.Add([]byte("\uFEFF1\n\uFEFF2"), uint8(0))
	f.Fuzz(func(t *testing.T, src []byte, limit uint8) {
		lim := &Limits{MaxSize: int64(limit)}
		var got []string
		r := NewNDJSONReader("f.ndjson", smallReader(src), lim)
		for {
			doc, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error is a %T: %v", err, err)
				}
				got = append(got, err.Error())
				continue
			}
			inBounds(t, doc.Root, len(doc.Source()))
			got = append(got, compact(doc.Root))
		}
		docs, err := Parse("f.ndjson", src, NDJSON, lim)
		var want []string
		for _, d := range docs {
			want = append(want, compact(d.Root))
		}
		if err != nil {
			want = append(want, strings.Split(err.Error(), "\n")...)
		}
		if len(got) != len(want) {
			t.Fatalf("reader: %q\nParse: %q", got, want)
		}
	})
}

// smallReader returns a reader of src that returns at most 7 bytes per read.
func smallReader(src []byte) io.Reader { return &smallReads{src} }

type smallReads struct{ b []byte }

func (s *smallReads) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], s.b)
	s.b = s.b[n:]
	return n, nil
}

// FuzzDecimal checks Cmp and MultipleOf against exact rational arithmetic.
func FuzzDecimal(f *testing.F) {
	for _, p := range [][2]string{
		{"4191.9", "0.01"}, {"1", "1.0"}, {"1e400", "3"}, {"-2.5", "0.5"}, {"123456789012345678901234567890", "7"},
		{"0.0075", "0.0001"}, {"18446744073709551616", "18446744073709551615"}, {"1e-30", "1e-31"}, {"0", "-0"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		da, errA := ParseDecimal(a)
		db, errB := ParseDecimal(b)
		if errA != nil || errB != nil {
			return
		}
		if c := da.Cmp(db); c != -db.Cmp(da) {
			t.Fatalf("Cmp(%s, %s) = %d but Cmp(%s, %s) = %d", a, b, c, b, a, db.Cmp(da))
		}
		if da.Cmp(da) != 0 || MustDecimal(da.String()).Cmp(da) != 0 {
			t.Fatalf("%s is not equal to itself or to its String %s", a, da.String())
		}
		if tooBigForRat(a) || tooBigForRat(b) {
			return
		}
		ra, rb := ratOf(a), ratOf(b)
		if got, want := da.Cmp(db), ra.Cmp(rb); got != want {
			t.Fatalf("Cmp(%s, %s) = %d, big.Rat says %d", a, b, got, want)
		}
		if rb.Sign() > 0 {
			want := new(big.Rat).Quo(ra, rb).IsInt()
			if got := da.MultipleOf(db); got != want {
				t.Fatalf("%s.MultipleOf(%s) = %v, big.Rat says %v", a, b, got, want)
			}
		}
		if i, ok := da.Int64(); ok && (!ra.IsInt() || ra.Num().Int64() != i || !ra.Num().IsInt64()) {
			t.Fatalf("Int64(%s) = %d", a, i)
		}
	})
}

// tooBigForRat reports whether a literal's exponent makes exact rational arithmetic slow.
func tooBigForRat(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return len(s) > 2000
	}
	e := strings.TrimLeft(s[i+1:], "+-0")
	return len(e) > 4 || len(s) > 2000
}

// FuzzJSONC checks JSONC against strict JSON: every JSON text reads as JSONC to the same
// value (and stays JSON); every JSONC text's comments and trailing commas become spaces of
// the same length, the text left is JSON, and its values read the same; offsets stay in
// the text.
func FuzzJSONC(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null],"c":"x"}`, "// x\n{\"a\": [1, 2,],}", "/* a */ 1 /* b */", `[1,,]`, `[,]`,
		`{"u": "http://x/*y*/", "v": "a\"//b"}`, "[1, // c\r\n2]", "/* open", "\uFEFF// x\n{}", `{"a":1,}`, "[1,/**/]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := ParseJSONC("f.jsonc", src, nil)
		strict, serr := ParseJSON("f.json", src, nil)
		if serr == nil {
			if err != nil {
				t.Fatalf("JSON %q is not JSONC: %v", src, err)
			}
			if doc.Format != JSON || string(AppendJSON(nil, doc.Root)) != string(AppendJSON(nil, strict.Root)) {
				t.Fatalf("JSON %q reads differently as JSONC", src)
			}
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T", err)
			}
			return
		}
		inBounds(t, doc.Root, len(src))
		blanked, _, jerr := blankJSONC(string(src))
		if jerr != nil || len(blanked) != len(src) {
			t.Fatalf("blankJSONC(%q) = %q, %v", src, blanked, jerr)
		}
		again, err := ParseJSON("b.json", []byte(blanked), nil)
		if err != nil {
			t.Fatalf("the blanked text %q is not JSON: %v", blanked, err)
		}
		if string(AppendJSON(nil, again.Root)) != string(AppendJSON(nil, doc.Root)) {
			t.Fatalf("%q and its blanked text read differently", src)
		}
	})
}
