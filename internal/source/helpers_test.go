package source

import (
	"strconv"
	"testing"
)

// compact returns the compact JSON text of v, for comparisons.
func compact(v Value) string { return string(AppendJSON(nil, v)) }

// offsets maps the JSON Pointer of every value in v to its offset; the key of a member is
// listed as its pointer with "#key" appended.
func offsets(v Value) map[string]int {
	m := map[string]int{}
	var walk func(ptr string, v Value)
	walk = func(ptr string, v Value) {
		m[ptr] = v.Offset()
		switch v.Kind() {
		case Array:
			for i, it := range v.Items() {
				walk(ptr+"/"+strconv.Itoa(i), it)
			}
		case Object:
			for i := range v.Len() {
				k, val := v.Member(i)
				p := ptr + "/" + EscapeToken(k.Str())
				m[p+"#key"] = k.Offset()
				walk(p, val)
			}
		}
	}
	walk("", v)
	return m
}

// positions maps the pointers of offsets(doc.Root) to "line:column".
func positions(doc *Document) map[string]string {
	m := map[string]string{}
	for p, off := range offsets(doc.Root) {
		l, c := doc.Position(off)
		m[p] = strconv.Itoa(l) + ":" + strconv.Itoa(c)
	}
	return m
}

// subset returns the entries of got whose keys are in want, to compare with want.
func subset[V any](got map[string]V, want map[string]V) map[string]V {
	out := map[string]V{}
	for k := range want {
		if v, ok := got[k]; ok {
			out[k] = v
		}
	}
	return out
}

// errString returns err's text, or "" for nil.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// mustJSON parses JSON text or fails the test.
func mustJSON(t testing.TB, s string) Value {
	t.Helper()
	doc, err := ParseJSON("t.json", []byte(s), nil)
	if err != nil {
		t.Fatalf("ParseJSON(%q): %v", s, err)
	}
	return doc.Root
}

// inBounds checks that every offset in v lies within a document of n bytes.
func inBounds(t testing.TB, v Value, n int) {
	t.Helper()
	for p, off := range offsets(v) {
		if off < 0 || off > n || (off == n && n > 0) {
			t.Fatalf("offset %d of %q out of bounds [0,%d)", off, p, n)
		}
	}
}
