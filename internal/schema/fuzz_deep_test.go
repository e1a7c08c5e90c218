package schema

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/source"
)

// The compiler's fuzz targets build their schemas from a few numbers and a pattern, so that
// the fuzzer explores depth and the mix of keywords (which it would rarely reach by
// mutating JSON text). Each runs with the goroutine stack limited to 16 MB and evaluation's
// depth limit lowered to 2,000 levels: a recursion bounded only by the input crashes the
// worker, and the limits are crossed often. .ci/run fuzzes each for 60 s.

// fuzzLimits sets the limits of a fuzz target, and returns what puts them back.
func fuzzLimits() (restore func()) {
	stack, depth := debug.SetMaxStack(16<<20), evalDepthLimit
	evalDepthLimit = 2000
	return func() { debug.SetMaxStack(stack); evalDepthLimit = depth }
}

// deepLevel is one level of a generated nest: the keyword (and member or index) that holds
// the next level, whether it applies to the instance in place, and whether it negates.
type deepLevel struct {
	open, close string
	toks        []string // its reference tokens
	inPlace     bool
	not         bool
}

var deepLevels = []deepLevel{
	{`{"not":`, `}`, []string{"not"}, true, true},
	{`{"allOf":[`, `]}`, []string{"allOf", "0"}, true, false},
	{`{"anyOf":[`, `]}`, []string{"anyOf", "0"}, true, false},
	{`{"oneOf":[`, `]}`, []string{"oneOf", "0"}, true, false},
	{`{"items":`, `}`, []string{"items"}, false, false},
	{`{"properties":{"a/b~":`, `}}`, []string{"properties", "a~1b~0"}, false, false},
	{`{"additionalProperties":`, `}`, []string{"additionalProperties"}, false, false},
	{`{"if":true,"then":`, `}`, []string{"then"}, true, false},
}

// FuzzCompileDeep compiles a schema nested depth levels deep, each level's keyword chosen by
// pattern (cycled), with false at the bottom, and validates null against it. Properties:
// compilation and evaluation end without crashing; Walk reaches every level and the
// deepest schema's pointer and location are the generated ones; Valid and Validate agree;
// the verdict is the one the keywords imply (null is not an array or object, so items and
// properties accept it whatever their subschema; not negates), or, when the in-place
// levels above the first such keyword are more than evaluation's limit, an error saying so.
func FuzzCompileDeep(f *testing.F) {
	for _, seed := range []struct {
		depth   uint16
		pattern string
	}{{1, "\x00"}, {40, "\x00\x01\x02\x03"}, {3000, "\x00"}, {2500, "\x01\x00"}, {9000, "\x04"}, {5000, "\x05\x06\x07"}, {2100, "\x07\x00"}} {
		f.Add(seed.depth, []byte(seed.pattern))
	}
	f.Fuzz(func(t *testing.T, depth uint16, pattern []byte) {
		defer fuzzLimits()()
		if depth == 0 || len(pattern) == 0 {
			return
		}
		var sb strings.Builder
		var ptr []string
		want, wantErr, prefix := false, false, true // the verdict, from the bottom up
		inPlace := 0                                // in-place levels above the first other one
		for i := range int(depth) {
			l := deepLevels[int(pattern[i%len(pattern)])%len(deepLevels)]
			sb.WriteString(l.open)
			ptr = append(ptr, l.toks...)
			if prefix && l.inPlace {
				inPlace++
			} else {
				prefix = false
			}
		}
		sb.WriteString("false")
		for i := int(depth) - 1; i >= 0; i-- {
			l := deepLevels[int(pattern[i%len(pattern)])%len(deepLevels)]
			sb.WriteString(l.close)
			switch {
			case !l.inPlace:
				want = true
			case l.not:
				want = !want
			}
		}
		wantErr = inPlace >= evalDepthLimit
		doc, err := source.ParseJSON("deep.json", []byte(sb.String()), &source.Limits{MaxDepth: source.MaxDepthCeiling})
		if err != nil {
			t.Fatal(err)
		}
		c := NewCompiler(&Options{NoMetaValidation: depth > 3000}) // meta-validation is deep evaluation too
		const uri = "https://jstk.test/deep.json"
		if err := c.AddDocument(uri, doc); err != nil {
			if depth > 3000 || !strings.Contains(err.Error(), "too deep") {
				t.Fatalf("AddDocument: %v", err)
			}
			return // meta-validation went deeper than evaluation's limit
		}
		s, err := c.Compile(uri)
		if err != nil {
			t.Fatal(err)
		}
		wantPtr := "/" + strings.Join(ptr, "/")
		var bottom *Schema
		n := 0
		Walk(s, func(x *Schema) bool {
			n++
			if x.Depth() == len(ptr) {
				if _, p := x.Pointer(); p == wantPtr {
					bottom = x
				}
			}
			return true
		})
		if n < int(depth)+1 {
			t.Fatalf("Walk reached %d schemas of %d levels", n, depth)
		}
		if bottom == nil {
			t.Fatalf("no schema at %.80q", wantPtr)
		}
		if l := bottom.Location(); l != uri+"#"+wantPtr {
			t.Fatalf("the bottom schema's location is %.80q", l)
		}
		if v, isBool := bottom.Bool(); !isBool || v {
			t.Fatalf("the bottom schema is not false")
		}
		ok, err1 := s.Valid(source.NullValue())
		errs, err2 := s.Validate(source.NullValue())
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("Valid and Validate disagree on failing: %v / %v", err1, err2)
		}
		if wantErr {
			if err1 == nil || !strings.Contains(err1.Error(), "too deep") {
				t.Fatalf("%d in-place levels: %v, %v; want an error saying too deep", inPlace, ok, err1)
			}
			return
		}
		if err1 != nil {
			t.Fatalf("Valid: %v", err1)
		}
		if ok != want || ok != (len(errs) == 0) {
			t.Fatalf("Valid %v, %d errors; want %v", ok, len(errs), want)
		}
	})
}

// FuzzCompileChain compiles a chain of hops $ref hops through $defs, each hop wrapped in
// the levels pattern chooses (in-place ones only), ending at true, or, with loop set, back
// at the first definition. Properties: compilation ends without crashing; RefLoop finds a
// loop exactly when the chain closes through $ref and allOf alone; evaluation of null gives
// the verdict the nots imply, or an error when the chain loops or goes deeper than the
// limit.
func FuzzCompileChain(f *testing.F) {
	for _, seed := range []struct {
		hops    uint16
		pattern string
		loop    bool
	}{{1, "", false}, {3, "\x00", true}, {2000, "", false}, {100, "\x01", true}, {500, "\x00\x02", false}, {40, "\x00\x00\x00", false}, {1000, "\x03\x01", true}} {
		f.Add(seed.hops, []byte(seed.pattern), seed.loop)
	}
	inPlace := deepLevels[:4]
	f.Fuzz(func(t *testing.T, hops uint16, pattern []byte, loop bool) {
		defer fuzzLimits()()
		if hops == 0 || int(hops)*(len(pattern)+1) > 20_000 {
			return // past evaluation's limit (2,000 here) larger chains add compilation time only
		}
		var sb strings.Builder
		sb.WriteString(`{"$ref":"#/$defs/a0","$defs":{`)
		nots, onlyAllOf := 0, true
		open, closing := "", ""
		for _, p := range pattern {
			l := inPlace[int(p)%len(inPlace)]
			open += l.open
			closing = l.close + closing
			if l.not {
				nots++
			}
			if l.toks[0] != "allOf" {
				onlyAllOf = false
			}
		}
		for i := range int(hops) {
			next := i + 1
			if loop && next == int(hops) {
				next = 0
			}
			fmt.Fprintf(&sb, `"a%d":%s{"$ref":"#/$defs/a%d"}%s,`, i, open, next, closing)
		}
		fmt.Fprintf(&sb, `"a%d":true}}`, hops)
		doc, err := source.ParseJSON("chain.json", []byte(sb.String()), nil)
		if err != nil {
			t.Fatal(err)
		}
		c := NewCompiler(nil)
		const uri = "https://jstk.test/chain.json"
		if err := c.AddDocument(uri, doc); err != nil {
			// Checking the document against its meta-schema nests several evaluations per
			// level of the document: under the lowered depth limit a deep pattern ends there,
			// with the clear error, which is an answer.
			if strings.Contains(err.Error(), "too deep") {
				return
			}
			t.Fatal(err)
		}
		s, err := c.Compile(uri)
		if err != nil {
			t.Fatal(err)
		}
		if got := RefLoop(s) != nil; got != (loop && onlyAllOf) {
			t.Fatalf("RefLoop found a loop: %v, want %v", got, loop && onlyAllOf)
		}
		ok, err := s.Valid(source.NullValue())
		levels := int(hops) * (len(pattern) + 1) // evaluations nested along the chain
		switch {
		case loop || levels >= evalDepthLimit:
			if err == nil {
				t.Fatalf("no error on a chain of %d levels (loop %v): %v", levels, loop, ok)
			}
		case err != nil:
			t.Fatalf("Valid: %v", err)
		case ok != ((int(hops)*nots)%2 == 0):
			t.Fatalf("Valid %v with %d nots", ok, int(hops)*nots)
		}
	})
}
