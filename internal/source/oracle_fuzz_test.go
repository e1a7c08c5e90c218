package source

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// oracleSeeds are inputs that reach every branch of the parsers: every error message, escapes
// of every kind, duplicate keys in small and indexed objects, depth limits, a byte order mark.
var oracleSeeds = []string{
	`{"a":1,"b":[true,false,null],"c":"x"}`, `[]`, `{}`, `"\u00e9\ud83d\ude00\ud800"`, `-0.5e+10`,
	`{"a":1,"a":2}`, "\uFEFF[1]", `[1,]`, `{"a" 1}`, `"\x"`, "\"\xff\"", `01`, `[[[[]]]]`, `[1 2]`,
	`{"a":1 "b":2}`, `{"a":1,}`, `{1:2}`, `tru`, `nul`, `falsy`, `-`, `1.`, `1e`, `1e+`, `-01`, `.5`,
	`"abc`, `"a\`, `"\u12"`, `"\uZZZZ"`, "\"a\tb\"", "\"\x01\"", `"\/\b\f\n\r\t\"\\"`, `[`, `{`,
	`{"a"`, `{"a":`, `[1,`, "  \n\r\t ", ``, `1 2`, `[] []`, `{} x`, "\"é日本\U0001F600\"", "\"\xe6\x97\"",
	`"\ud800\u0041"`, `"\udc00"`, `"\ud83d\ude00\ud83d"`, `[0,-0,1.5e-300,123456789012345678901234567890]`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k33":33,"k0":"dup","k33":null}`,
	"{\"a\\u0062\":1,\"ab\":2, \"\":3, \"\":{\"x\":[{\"y\":\"z\\n\"}]}}", "[\"ab\\\"cd\", \"ef\\\\\"]",
	`{"x":"http:\/\/t.co\/abc","y":"\u3042\u3044"}`, "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]",
	`{"a":{"a":{"a":{"a":{"a":{"a":{"a":{}}}}}}}}`, "[\n  {\n    \"a\": 1\n  }\n]\n",
}

// FuzzJSONOracle parses with the parser and with the one it replaced (oracle_test.go) and
// requires the same value (kinds, texts, offsets of values and keys, member order), or the
// same error at the same offset, and the same *Error from ParseJSON, ParseJSONC and
// LineParser. depth sets the nesting limit (1-64, or the default when 0).
func FuzzJSONOracle(f *testing.F) {
	for i, s := range oracleSeeds {
		f.Add([]byte(s), uint8(i%3*2))
	}
	f.Fuzz(func(t *testing.T, src []byte, depth uint8) {
		checkOracle(t, src, depth)
	})
}

// TestJSONOracleSeeds runs the oracle's comparison on the seeds and on generated documents
// of the benchmarks, so that `go test` without -fuzz checks them too.
func TestJSONOracleSeeds(t *testing.T) {
	for i, s := range oracleSeeds {
		checkOracle(t, []byte(s), uint8(i%3*2))
	}
	for _, line := range bytes.Split(orderJSON(50), []byte("\n")) {
		checkOracle(t, line, 0)
	}
	checkOracle(t, twitterJSON(20), 0)
	checkOracle(t, twitterJSON(20), 5)
	// every prefix of a document: each stops at a different place with a different error
	doc := []byte(oracleSeeds[len(oracleSeeds)-6] + "\n")
	for i := range doc {
		checkOracle(t, doc[:i], 0)
	}
	tw := twitterJSON(1)
	for i := 0; i < len(tw); i += 7 {
		checkOracle(t, tw[:i], 0)
	}
}

func checkOracle(t *testing.T, src []byte, depth uint8) {
	t.Helper()
	maxDepth := DefaultMaxDepth
	var lim *Limits
	if depth > 0 {
		maxDepth = 1 + int(depth)%64
		lim = &Limits{MaxDepth: maxDepth}
	}
	text := string(src)
	var old oldParser
	want, werr := old.parse(text, skipBOM(text), maxDepth)
	var p jsonParser
	got, gerr := p.parse(text, skipBOM(text), maxDepth)
	if (werr == nil) != (gerr == nil) || werr != nil && (werr.off != gerr.off || werr.msg != gerr.msg) {
		t.Fatalf("%q: error %+v, the old parser's %+v", src, gerr, werr)
	}
	if werr == nil {
		if d := sameTree(got, want); d != "" {
			t.Fatalf("%q: %s", src, d)
		}
	}

	// The entry points: the same *Error, or the same value.
	wantErr := func(name, s string, jsonc bool) string {
		var o oldParser
		_, e := o.parse(s, skipBOM(s), maxDepth)
		if e == nil {
			return ""
		}
		return errorAt(name, src, 1, e.off, "%s%s", e.msg, hint(name, s, &jsonError{e.off, e.msg}, jsonc)).Error()
	}
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	doc, err := ParseJSON("f.json", src, lim)
	if w, g := wantErr("f.json", text, false), errText(err); w != g {
		t.Fatalf("%q: ParseJSON says %q, the old parser %q", src, g, w)
	}
	if err == nil {
		if d := sameTree(doc.Root, want); d != "" {
			t.Fatalf("%q: ParseJSON: %s", src, d)
		}
	}
	var lp LineParser
	for round := range 2 {
		doc, err := lp.Parse("f.ndjson", src, lim)
		if w, g := wantErr("f.ndjson", text, false), errText(err); w != g {
			t.Fatalf("%q: LineParser (round %d) says %q, the old parser %q", src, round, g, w)
		}
		if err == nil {
			if d := sameTree(doc.Root, want); d != "" {
				t.Fatalf("%q: LineParser (round %d): %s", src, round, d)
			}
		}
		lp.Recycle()
	}
	if blanked, _, jerr := blankJSONC(text); jerr == nil {
		var o oldParser
		wantC, _ := o.parse(blanked, skipBOM(blanked), maxDepth)
		doc, err := ParseJSONC("f.jsonc", src, lim)
		if w, g := wantErr("f.jsonc", blanked, true), errText(err); w != g {
			t.Fatalf("%q: ParseJSONC says %q, the old parser %q", src, g, w)
		}
		if err == nil {
			if d := sameTree(doc.Root, wantC); d != "" {
				t.Fatalf("%q: ParseJSONC: %s", src, d)
			}
		}
	}
}

// sameTree describes the first difference between two parsed values ("" when none): kind,
// offset, text, number of children, the index of a large object, then the children in order.
func sameTree(got, want Value) string {
	type pair struct {
		g, w Value
		at   string
	}
	work := []pair{{got, want, ""}}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		g, w := x.g, x.w
		switch {
		case g.Kind() != w.Kind():
			return fmt.Sprintf("at %q: kind %v, want %v", x.at, g.Kind(), w.Kind())
		case g.Offset() != w.Offset():
			return fmt.Sprintf("at %q: offset %d, want %d", x.at, g.Offset(), w.Offset())
		case g.meta != w.meta:
			return fmt.Sprintf("at %q: meta %#x, want %#x", x.at, g.meta, w.meta)
		case g.text() != w.text():
			return fmt.Sprintf("at %q: text %q, want %q", x.at, g.text(), w.text())
		case g.Bool() != w.Bool():
			return fmt.Sprintf("at %q: %v, want %v", x.at, g.Bool(), w.Bool())
		case len(g.elems()) != len(w.elems()):
			return fmt.Sprintf("at %q: %d children, want %d", x.at, len(g.elems()), len(w.elems()))
		}
		if g.Kind() == Object && g.meta&indexed != 0 {
			for i := range g.Len() {
				k := g.Key(i)
				gv, _ := g.Get(k)
				wv, _ := w.Get(k)
				if d := sameTree(gv, wv); d != "" {
					return fmt.Sprintf("at %q: Get(%q): %s", x.at, k, d)
				}
			}
		}
		gk, wk := g.elems(), w.elems()
		for i := len(gk) - 1; i >= 0; i-- {
			at := x.at + "/" + fmt.Sprint(i)
			if g.Kind() == Object {
				at = x.at + "/" + EscapeToken(strings.Clone(w.Key(i/2)))
				if i%2 == 0 {
					at += "#key"
				}
			}
			work = append(work, pair{gk[i], wk[i], at})
		}
	}
	return ""
}
