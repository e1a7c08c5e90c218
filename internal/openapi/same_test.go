package openapi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSameAndTarget(t *testing.T) {
	a := open(t, "a.json", `{"openapi": "3.1.0", "components": {"schemas": {
	  "R": {"$ref": "#/components/schemas/S"}, "S": {"type": "object", "properties": {"t": {"$ref": "#/components/schemas/T"}}},
	  "T": {"type": "integer", "maximum": 1}, "X": {"$ref": "other.json#/x"}, "I": {"$id": "https://x.test/i"},
	  "L": {"$ref": "#/components/schemas/L2"}, "L2": {"$ref": "#/components/schemas/L"}, "N": {"$ref": "#/nowhere"},
	  "Deep": {"items": [{"$ref": "#/components/schemas/T"}, {"$dynamicRef": "#meta"}]}}}}`)
	b := open(t, "b.json", `{"openapi": "3.1.1", "components": {"schemas": {
	  "R": {"$ref": "#/components/schemas/S"}, "S": {"properties": {"t": {"$ref": "#/components/schemas/T"}}, "type": "object"},
	  "T": {"type": "integer", "maximum": 1.0}, "X": {"$ref": "other.json#/x"}, "I": {"$id": "https://x.test/i"},
	  "L": {"$ref": "#/components/schemas/L2"}, "L2": {"$ref": "#/components/schemas/L"}, "N": {"$ref": "#/nowhere"},
	  "Deep": {"items": [{"$ref": "#/components/schemas/T"}, {"$dynamicRef": "#meta"}]}}}}`)
	c := open(t, "c.json", `{"openapi": "3.0.3", "components": {"schemas": {"U": {"type": "string"}}}}`)
	if got := a.Target("/components/schemas/R"); got != "/components/schemas/S" {
		t.Errorf("Target(R) = %q", got)
	}
	for _, p := range []string{"/components/schemas/X", "/components/schemas/N", "/components/schemas/S"} {
		if got := a.Target(p); got != p {
			t.Errorf("Target(%s) = %q", p, got)
		}
	}
	if got := a.Target("/components/schemas/L"); got != "/components/schemas/L" && got != "/components/schemas/L2" {
		t.Errorf("Target(L) = %q", got)
	}
	it := &Item{}
	same := func(x *Document, p string, y *Document, q string) bool { return Same(x, it, p, y, it, q) }
	tests := []struct {
		x    *Document
		p    string
		y    *Document
		q    string
		want bool
	}{
		{a, "/components/schemas/S", a, "/components/schemas/S", true},
		{a, "/components/schemas/R", b, "/components/schemas/R", false}, // T's maximum: 1 against 1.0
		{a, "/components/schemas/X", a, "/components/schemas/X", false}, // another document
		{a, "/components/schemas/I", a, "/components/schemas/I", false}, // an identifier
		{a, "/components/schemas/Deep", a, "/components/schemas/Deep", false},
		{a, "/components/schemas/N", a, "/components/schemas/N", false},
		{a, "/components/schemas/L", a, "/components/schemas/L", true},
		{a, "/components/schemas/T", a, "/components/schemas/S", false},
		{a, "/components/schemas/T", c, "/components/schemas/U", false}, // another dialect
		{a, "/nope", a, "/nope", false},
	}
	for _, tc := range tests {
		if got := same(tc.x, tc.p, tc.y, tc.q); got != tc.want {
			t.Errorf("Same(%s %s, %s %s) = %v, want %v", tc.x.Name, tc.p, tc.y.Name, tc.q, got, tc.want)
		}
	}
	if Same(a, &Item{Dialect: "x"}, "/components/schemas/T", a, it, "/components/schemas/T") {
		t.Error("items of other dialects are the same")
	}
	for _, pair := range [][2]string{{`[1, true]`, `[1, true]`}, {`{"a": null}`, `{"a": null}`}} {
		x := open(t, "x.json", `{"openapi": "3.1.0", "v": `+pair[0]+`}`)
		if !sameValue(x.Src.Root, x.Src.Root) {
			t.Errorf("%s differs from itself", pair[0])
		}
	}
	x := open(t, "x.json", `{"openapi": "3.1.0", "a": [1, 2], "b": [1], "c": true, "d": false, "e": {"k": 1}, "f": {"j": 1}}`)
	for _, pq := range [][2]string{{"/a", "/b"}, {"/c", "/d"}, {"/e", "/f"}, {"/a", "/c"}} {
		va, _ := x.Src.Root.Pointer(pq[0])
		vb, _ := x.Src.Root.Pointer(pq[1])
		if sameValue(va, vb) {
			t.Errorf("%s and %s are the same", pq[0], pq[1])
		}
	}
}

// Same refuses a schema that holds an identifier, an anchor, a reference other than $ref or
// a $schema anywhere inside it (the keyword model's, of 2019-09 and 2020-12), and not one
// with a property named id.
func TestSameRefusesIdentifiers(t *testing.T) {
	t.Parallel()
	want := []string{"$anchor", "$dynamicAnchor", "$dynamicRef", "$id", "$recursiveAnchor", "$recursiveRef", "$schema"}
	var got []string
	for kw := range unclean() {
		got = append(got, kw)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unclean keywords (-want +got):\n%s", diff)
	}
	it := &Item{}
	for _, kw := range append(want, "id") {
		d := open(t, "a.json", fmt.Sprintf(`{"openapi": "3.1.0", "components": {"schemas": {"K": {"properties": {"a": {%q: "#x"}}}}}}`, kw))
		if got := Same(d, it, "/components/schemas/K", d, it, "/components/schemas/K"); got != (kw == "id") {
			t.Errorf("Same with %s inside = %v", kw, got)
		}
	}
}
