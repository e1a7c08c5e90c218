package source

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
)

// The deep fuzz targets build YAML and TOML documents from a few numbers and a shape, so
// that the fuzzer explores what a hostile document does to a third-party parser (depth,
// alias expansion, dotted keys), which it would rarely reach by mutating text. Each runs with
// the goroutine stack limited to 64 MB: a parser recursing as deep as its input crashes the
// worker. .ci/run fuzzes each for 30 s.

// fuzzDeepLimits are the limits the deep targets parse with: low, so that they are crossed.
var fuzzDeepLimits = &Limits{MaxDepth: 2000, MaxAliasNodes: 100_000}

// expanded counts the values of v, aliases expanded, stopping past most.
func expanded(v Value, most int) int {
	n, stack := 0, []Value{v}
	for len(stack) > 0 && n <= most {
		v, stack = stack[len(stack)-1], stack[:len(stack)-1]
		n++
		stack = append(stack, v.elems()...)
	}
	return n
}

// FuzzYAMLDeep parses a "billion laughs" document of levels anchors, each a list of fanout
// aliases of the one before, followed by a value nested depth levels deep (each level a flow
// sequence, a flow mapping or a block sequence, as shape says) around an alias of the last
// anchor (block sequences nest at most 2,500 levels, then flow ones go on). Properties: nothing crashes; a document whose aliases expand past the limit, or
// that nests deeper than it, is an error; a document that parses nests within the limit.
func FuzzYAMLDeep(f *testing.F) {
	for _, seed := range []struct {
		levels, fanout uint8
		depth          uint32
		shape          string
	}{{0, 0, 1, "\x00"}, {9, 10, 1, "\x00"}, {3, 5, 1999, "\x00\x01"}, {2, 2, 2001, "\x01"}, {1, 1, 50_000, "\x02"}, {30, 2, 10, "\x00\x01\x02"}} {
		f.Add(seed.levels, seed.fanout, seed.depth, []byte(seed.shape))
	}
	f.Fuzz(func(t *testing.T, levels, fanout uint8, depth uint32, shape []byte) {
		stack := debug.SetMaxStack(64 << 20)
		defer debug.SetMaxStack(stack)
		if len(shape) == 0 {
			shape = []byte{0}
		}
		levels, fanout, depth = levels%40, max(fanout%20, 1), depth%200_000
		var sb strings.Builder
		sb.WriteString("a0: &a0 [x, x]\n")
		nodes := 3.0 // the values an alias of the last anchor stands for
		for i := 1; i <= int(levels); i++ {
			fmt.Fprintf(&sb, "a%d: &a%d [", i, i)
			for j := range int(fanout) {
				if j > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, "*a%d", i-1)
			}
			sb.WriteString("]\n")
			nodes = nodes*float64(fanout) + 1
		}
		sb.WriteString("deep: ")
		block := 0
		var closing []string
		for i := range int(depth) {
			switch shape[i%len(shape)] % 3 {
			case 0:
				sb.WriteString("[")
				closing = append(closing, "]")
			case 1:
				sb.WriteString("{k: ")
				closing = append(closing, "}")
			case 2:
				// Block nodes cannot be inside flow ones, and the text of block nesting grows
				// with the square of its depth: past 2,500 levels, flow nesting goes on.
				if len(closing) > 0 || block >= 2500 {
					sb.WriteString("[")
					closing = append(closing, "]")
					continue
				}
				block++
				sb.WriteString("\n" + strings.Repeat(" ", block) + "- ")
			}
		}
		fmt.Fprintf(&sb, "*a%d", levels)
		for i := len(closing) - 1; i >= 0; i-- {
			sb.WriteString(closing[i])
		}
		sb.WriteString("\n")
		docs, err := ParseYAML("f.yaml", []byte(sb.String()), fuzzDeepLimits)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T: %v", err, err)
			}
			return
		}
		if nodes > float64(fuzzDeepLimits.MaxAliasNodes)*2 {
			t.Fatalf("aliases expanding to %.0f values were read", nodes)
		}
		if int(depth) > fuzzDeepLimits.MaxDepth+1 {
			t.Fatalf("a value %d levels deep was read", depth)
		}
		for _, d := range docs {
			if v, deep := tooDeep(d.Root, fuzzDeepLimits.MaxDepth); deep {
				t.Fatalf("a value at %d nests deeper than the limit", v.Offset())
			}
			if n := expanded(d.Root, 10*fuzzDeepLimits.MaxAliasNodes); n > 10*fuzzDeepLimits.MaxAliasNodes {
				t.Fatalf("the document expands to more than %d values", n)
			}
		}
	})
}

// FuzzTOMLDeep parses a TOML document whose table header has header parts, whose key has
// key parts, and whose value nests depth arrays and inline tables (as shape says), repeated
// times times. Properties: nothing crashes; a document nesting well past the limit is an
// error; one well within it is not refused for its depth; a document that parses nests
// within the limit.
func FuzzTOMLDeep(f *testing.F) {
	for _, seed := range []struct {
		header, key uint32
		depth       uint16
		times       uint8
		shape       string
	}{{1, 1, 1, 1, "\x00"}, {1_000_000, 1, 1, 1, "\x00"}, {1, 1_000_000, 0, 1, "\x00"}, {10, 10, 1990, 3, "\x00\x01"}, {0, 1, 12000, 1, "\x01"}, {3000, 3000, 0, 50, "\x00"}} {
		f.Add(seed.header, seed.key, seed.depth, seed.times, []byte(seed.shape))
	}
	f.Fuzz(func(t *testing.T, header, key uint32, depth uint16, times uint8, shape []byte) {
		stack := debug.SetMaxStack(64 << 20)
		defer debug.SetMaxStack(stack)
		if len(shape) == 0 {
			shape = []byte{0}
		}
		header, key, times = header%2_000_000, max(key%2_000_000, 1), max(times%100, 1)
		if (int(header)+int(key)+int(depth))*int(times) > 2_000_000 {
			times = 1 // a document of a few megabytes at most: the fuzzer calls a slow input a hang
		}
		var sb strings.Builder
		for n := range int(times) {
			if header > 0 {
				fmt.Fprintf(&sb, "[t%d%s]\n", n, strings.Repeat(".h", int(header)-1))
			}
			sb.WriteString(strings.Repeat("k.", int(key)-1))
			fmt.Fprintf(&sb, "k%d = ", n)
			var closing []string
			for i := range int(depth) {
				if shape[i%len(shape)]%2 == 0 {
					sb.WriteString("[")
					closing = append(closing, "]")
				} else {
					sb.WriteString("{x = ")
					closing = append(closing, "}")
				}
			}
			sb.WriteString("1")
			for i := len(closing) - 1; i >= 0; i-- {
				sb.WriteString(closing[i])
			}
			sb.WriteString("\n")
		}
		levels := int(header) + int(key) + int(depth) // within one or two of the document's depth
		doc, err := ParseTOML("f.toml", []byte(sb.String()), fuzzDeepLimits)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is a %T: %v", err, err)
			}
			if levels+3 < fuzzDeepLimits.MaxDepth && strings.Contains(err.Error(), "nesting deeper") {
				t.Fatalf("%d levels refused: %v", levels, err)
			}
			return
		}
		if levels > fuzzDeepLimits.MaxDepth+2 {
			t.Fatalf("%d levels were read", levels)
		}
		if v, deep := tooDeep(doc.Root, fuzzDeepLimits.MaxDepth); deep {
			t.Fatalf("a value at %d nests deeper than the limit", v.Offset())
		}
	})
}
