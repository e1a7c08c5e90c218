package source

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		line int // Document.Line
		offs []int
		want []string
	}{
		{"one line", `{"a":1}`, 1, []int{0, 5, 7, 99, -3}, []string{"1:1", "1:6", "1:8", "1:8", "1:1"}},
		{"LF", "a\nbc\n\nd", 1, []int{0, 1, 2, 3, 5, 6}, []string{"1:1", "1:2", "2:1", "2:2", "3:1", "4:1"}},
		{"CR LF", "a\r\nb\r\n", 1, []int{1, 2, 3, 6}, []string{"1:2", "1:3", "2:1", "3:1"}},
		{"lone CR", "a\rb\r\rc", 1, []int{2, 4, 5}, []string{"2:1", "3:1", "4:1"}},
		{"characters, not bytes", "é日x\n😀y", 1, []int{2, 5, 11}, []string{"1:2", "1:3", "2:2"}},
		{"byte order mark", "\uFEFFab\ncd", 1, []int{3, 4, 7}, []string{"1:1", "1:2", "2:2"}},
		{"later line of a file", "x\ny", 7, []int{0, 2}, []string{"7:1", "8:1"}},
		{"line zero means one", "x", 0, []int{0}, []string{"1:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDocument("f", JSON, []byte(tt.src), NullValue())
			d.Line = tt.line
			var got []string
			for _, off := range tt.offs {
				l, c := d.Position(off)
				got = append(got, strconv.Itoa(l)+":"+strconv.Itoa(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPositionConcurrent(t *testing.T) {
	t.Parallel()
	doc, err := ParseJSON("t.json", []byte("[\n1,\n2,\n3]"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if l, _ := doc.Locate("/" + strconv.Itoa(i%3)); l != i%3+2 {
				t.Errorf("line %d for item %d", l, i%3)
			}
		})
	}
	wg.Wait()
}

func TestLocate(t *testing.T) {
	t.Parallel()
	src := "{\n  \"a\": {\"b\": [10, 20]},\n  \"c~/d\": true,\n  \"\": 0\n}"
	doc, err := ParseJSON("t.json", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr            string
		locate, keyPos string
	}{
		{"", "1:1", "1:1"},
		{"/a", "2:8", "2:3"},
		{"/a/b", "2:14", "2:9"},
		{"/a/b/1", "2:19", "2:19"},
		{"/a/b/2", "2:14", "2:14"},   // missing item: its array
		{"/a/x", "2:8", "2:8"},       // missing member: its object
		{"/a/b/1/z", "2:19", "2:19"}, // below a scalar: the scalar
		{"/c~0~1d", "3:11", "3:3"},
		{"/", "4:7", "4:3"},
		{"a", "1:1", "1:1"},    // not a pointer: the root
		{"/a~2", "1:1", "1:1"}, // bad escape: the root
	}
	for _, tt := range tests {
		l, c := doc.Locate(tt.ptr)
		kl, kc := doc.LocateKey(tt.ptr)
		got := [2]string{strconv.Itoa(l) + ":" + strconv.Itoa(c), strconv.Itoa(kl) + ":" + strconv.Itoa(kc)}
		if want := [2]string{tt.locate, tt.keyPos}; got != want {
			t.Errorf("%q: Locate, LocateKey = %v, want %v", tt.ptr, got, want)
		}
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "a.json", Line: 3, Column: 4, Msg: "bad"}, "a.json:3:4: bad"},
		{Error{File: "a.json", Line: 3, Msg: "bad"}, "a.json:3: bad"},
		{Error{File: "a.json", Msg: "bad"}, "a.json: bad"},
		{Error{Msg: "bad"}, "<input>: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestKindAndFormatNames(t *testing.T) {
	t.Parallel()
	var got []string
	for k := Invalid; k <= Object+1; k++ {
		got = append(got, k.String())
	}
	for f := JSON; f <= JSONC+1; f++ {
		got = append(got, f.String())
	}
	want := []string{"invalid", "null", "boolean", "number", "string", "array", "object", "kind(7)",
		"JSON", "YAML", "TOML", "NDJSON", "JSONC", "format(5)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValueAccessors(t *testing.T) {
	t.Parallel()
	v := mustJSON(t, `{"s":"x","n":1.50,"t":true,"f":false,"z":null,"a":[1,"2"],"o":{"k":{}}}`)
	if v.Kind() != Object || v.Len() != 7 || !v.IsValid() || v.Items() != nil {
		t.Fatalf("root: %v len %d", v.Kind(), v.Len())
	}
	s, _ := v.Get("s")
	n, _ := v.Get("n")
	tr, _ := v.Get("t")
	f, _ := v.Get("f")
	z, _ := v.Get("z")
	a, _ := v.Get("a")
	if s.Str() != "x" || s.Kind() != String || s.Num().Sign() != 0 || s.Len() != 0 || s.Bool() {
		t.Error("string accessors")
	}
	if n.Str() != "1.50" || n.Num().String() != "1.5" || n.Kind() != Number {
		t.Error("number accessors")
	}
	if !tr.Bool() || f.Bool() || tr.Kind() != Bool || z.Kind() != Null || z.Str() != "" {
		t.Error("boolean and null accessors")
	}
	if a.Len() != 2 || a.Index(1).Str() != "2" || len(a.Items()) != 2 || a.Has("0") {
		t.Error("array accessors")
	}
	if k, val := v.Member(6); k.Str() != "o" || val.Kind() != Object || v.Key(0) != "s" {
		t.Error("Member, Key")
	}
	if !v.Has("z") || v.Has("nope") {
		t.Error("Has")
	}
	if _, ok := s.Get("x"); ok {
		t.Error("Get on a string")
	}
	var zero Value
	if zero.IsValid() || zero.Kind() != Invalid || zero.Len() != 0 || zero.Offset() != 0 {
		t.Error("zero Value")
	}
	tests := []struct {
		ptr  string
		want string // compact JSON, or "" when missing
	}{
		{"", compact(v)},
		{"/a/0", "1"},
		{"/a/1", `"2"`},
		{"/a/2", ""},
		{"/a/-1", ""},
		{"/a/01", ""},
		{"/a/+1", ""},
		{"/a/x", ""},
		{"/o/k", "{}"},
		{"/o/k/x", ""},
		{"/s/x", ""},
		{"s", ""},
		{"/o~", ""},
	}
	for _, tt := range tests {
		got, ok := v.Pointer(tt.ptr)
		if (tt.want != "") != ok || ok && compact(got) != tt.want {
			t.Errorf("Pointer(%q) = %s, %v; want %s", tt.ptr, compact(got), ok, tt.want)
		}
	}
}

func TestValueSize(t *testing.T) {
	t.Parallel()
	// Three words: a parsed document's memory is mostly Values.
	if size := unsafe.Sizeof(Value{}); size != 3*unsafe.Sizeof(uintptr(0)) {
		t.Errorf("a Value takes %d bytes", size)
	}
}

func TestConstructorsAndEqual(t *testing.T) {
	t.Parallel()
	var b ObjectBuilder
	b.Set("a", IntValue(1))
	b.Set("b", ArrayValue(StringValue("x"), NullValue(), BoolValue(true), NumberValue("1e2")))
	first := b.Value()
	b.Set("a", IntValue(2)) // replaces in place, keeping the order
	b.Set("c", ArrayValue())
	second := b.Value()
	if got := compact(first); got != `{"a":1,"b":["x",null,true,1e2]}` {
		t.Errorf("first: %s", got)
	}
	if got := compact(second); got != `{"a":2,"b":["x",null,true,1e2],"c":[]}` {
		t.Errorf("second: %s", got)
	}
	var empty ObjectBuilder
	if got := compact(empty.Value()); got != `{}` {
		t.Errorf("empty: %s", got)
	}
	if v := IntValue(5).WithOffset(12); v.Offset() != 12 || v.Str() != "5" || v.Kind() != Number {
		t.Error("WithOffset")
	}

	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `10e-1`, true},
		{`1`, `2`, false},
		{`"1"`, `1`, false},
		{`[1,2]`, `[1,2]`, true},
		{`[1,2]`, `[2,1]`, false},
		{`[1]`, `[1,1]`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1.0}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"c":2}`, `{"a":1,"b":2}`, false},
		{`{"a":[{}]}`, `{"a":[{}]}`, true},
		{`null`, `null`, true},
		{`true`, `false`, false},
		{`"é"`, `"\u00e9"`, true},
		{`-0`, `0`, true},
		{`0`, `-0.0`, true},
		{`12`, `-12`, false},
		{`120`, `12`, false},
		{`12`, `1.2e1`, true},
		{`[[1],[2]]`, `[[1,2]]`, false},
		{`{"a":{"b":1e2}}`, `{"a":{"b":100}}`, true},
	}
	seed := maphash.MakeSeed()
	hash := func(v Value) uint64 { return Hash(seed, v) }
	for _, tt := range tests {
		a, b := mustJSON(t, tt.a), mustJSON(t, tt.b)
		if got := Equal(a, b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v", tt.a, tt.b, got)
		}
		// Equal values hash alike; these unequal ones happen to hash apart
		if (hash(a) == hash(b)) != tt.want {
			t.Errorf("Hash: %s and %s hash alike = %v", tt.a, tt.b, !tt.want)
		}
	}
	if !Equal(Value{}, Value{}) || Equal(Value{}, NullValue()) {
		t.Error("Equal on zero Values")
	}
}

func TestPointers(t *testing.T) {
	t.Parallel()
	toks, ok := SplitPointer("/a~1b/~0/0/")
	if diff := cmp.Diff([]string{"a/b", "~", "0", ""}, toks); !ok || diff != "" {
		t.Errorf("SplitPointer: %v %s", ok, diff)
	}
	for _, bad := range []string{"a", "/~", "/~2"} {
		if _, ok := SplitPointer(bad); ok {
			t.Errorf("SplitPointer(%q) succeeded", bad)
		}
	}
	if got := JoinPointer("a/b", "~", "", "x"); got != "/a~1b/~0//x" {
		t.Errorf("JoinPointer: %s", got)
	}
	if got := EscapeToken("plain"); got != "plain" {
		t.Errorf("EscapeToken: %s", got)
	}
}

func TestPositionOnALongLine(t *testing.T) {
	// One line of many blocks, with multi-byte characters across block boundaries.
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < 5000; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"é€😀x"`)
	}
	sb.WriteString("]")
	src := sb.String()
	doc, err := ParseJSON("long.json", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 700, 4999} {
		v := doc.Root.Index(i)
		line, col := doc.Position(v.Offset())
		want := utf8.RuneCountInString(src[:v.Offset()]) + 1
		if line != 1 || col != want {
			t.Errorf("item %d at %d:%d, want 1:%d", i, line, col, want)
		}
	}
}

// locateKeyReference is LocateKey as it was written before the Locator: the nearest
// existing parent, then the last member of that name, else Locate.
func locateKeyReference(d *Document, ptr string) (line, col int) {
	toks, _ := SplitPointer(ptr)
	if len(toks) == 0 {
		return d.Locate(ptr)
	}
	parent := d.Root.nearest(toks[:len(toks)-1])
	if parent.Kind() == Object {
		kids := parent.elems()
		for i := len(kids) - 2; i >= 0; i -= 2 {
			if kids[i].text() == toks[len(toks)-1] {
				return d.Position(kids[i].Offset())
			}
		}
	}
	return d.Locate(ptr)
}

// LocateKey and an indexing Locator answer as the reference does, for every pointer of a
// document with large objects (indexed), small ones, duplicate names, arrays and escaped
// names, and for pointers that go nowhere.
func TestLocatorAgreesWithLocateKey(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n \"defs\": {\n")
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "  \"d%d\": {\"type\": \"string\", \"enum\": [%d, {\"x\": %d}]},\n", i, i, i)
	}
	b.WriteString("  \"d7\": {\"dup\": true},\n  \"a/b~c\": [1, 2, {\"deep\": {}}]\n },\n")
	b.WriteString(" \"small\": {\"p\": 1, \"p\": 2, \"q\": [true]},\n \"list\": [{\"k\": 1}]\n}\n")
	yamlSrc := "defs:\n"
	for i := 0; i < 70; i++ {
		yamlSrc += fmt.Sprintf("  n%d:\n    type: string\n    items: [%d]\n", i, i)
	}
	jd, err := ParseJSON("big.json", []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	yd, err := ParseYAML("big.yaml", []byte(yamlSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Document{jd, yd[0]} {
		var ptrs []string
		var walk func(v Value, ptr string)
		walk = func(v Value, ptr string) {
			ptrs = append(ptrs, ptr, ptr+"/missing", ptr+"/missing/deeper", ptr+"/0", ptr+"/7")
			switch v.Kind() {
			case Object:
				for i := 0; i < v.Len(); i++ {
					k, c := v.Member(i)
					walk(c, ptr+"/"+EscapeToken(k.Str()))
				}
			case Array:
				for i, c := range v.Items() {
					walk(c, ptr+"/"+strconv.Itoa(i))
				}
			}
		}
		walk(d.Root, "")
		ptrs = append(ptrs, "/defs/d3/enum/1/x/nothing", "/defs/nothing/type", "/small/p", "#/defs/d1", "not a pointer")
		l := d.Locator()
		for _, p := range ptrs {
			wl, wc := locateKeyReference(d, p)
			if gl, gc := l.LocateKey(p); wl != gl || wc != gc {
				t.Errorf("%s %q: Locator %d:%d, reference %d:%d", d.Name, p, gl, gc, wl, wc)
			}
			if gl, gc := d.LocateKey(p); wl != gl || wc != gc {
				t.Errorf("%s %q: LocateKey %d:%d, reference %d:%d", d.Name, p, gl, gc, wl, wc)
			}
		}
		if len(ptrs) < 100 {
			t.Fatalf("%s: only %d pointers", d.Name, len(ptrs))
		}
	}
}

// A member replaced or removed: the rest keeps its offsets, so the document still locates it.
func TestWithMember(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"a": 1, "b": [2, 3]`)
	for i := range 40 {
		fmt.Fprintf(&sb, `, "k%d": %d`, i, i)
	}
	sb.WriteString("}")
	doc, err := ParseJSON("x.json", []byte(sb.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	root := doc.Root
	changed := root.WithMember(1, StringValue("x"))
	if b, _ := changed.Get("b"); b.Str() != "x" {
		t.Errorf("b = %v", b)
	}
	if b, _ := root.Get("b"); b.Kind() != Array {
		t.Error("the original changed")
	}
	k, _ := changed.Get("k39") // found through the index of a large object
	if k.Str() != "39" || changed.Offset() != root.Offset() {
		t.Errorf("k39 = %q, offset %d", k.Str(), changed.Offset())
	}
	d2 := NewDocument("x.json", JSON, doc.Source(), changed)
	if l1, c1 := doc.LocateKey("/k3"); true {
		if l2, c2 := d2.LocateKey("/k3"); l1 != l2 || c1 != c2 {
			t.Errorf("k3 at %d:%d, was %d:%d", l2, c2, l1, c1)
		}
	}
	removed := root.WithoutMember(0)
	if _, ok := removed.Get("a"); ok || removed.Len() != root.Len()-1 {
		t.Errorf("a still there, or %d members", removed.Len())
	}
	if v, ok := removed.Get("k0"); !ok || v.Str() != "0" {
		t.Error("k0 lost")
	}
}

func TestTrail(t *testing.T) {
	t.Parallel()
	var root *Trail
	a := &Trail{Up: root, Rel: "/properties/a~1b"}
	b := &Trail{Up: a, Rel: "/items"}
	for _, tc := range []struct {
		t    *Trail
		want string
	}{{root, ""}, {a, "/properties/a~1b"}, {b, "/properties/a~1b/items"}} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestNothingAt(t *testing.T) {
	d, err := ParseJSON("a.json", []byte(`{"components": {"schemas": {"Pet": {}, "Owner": {}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]string{
		"/components/schemas/Cat": "a.json has nothing at #/components/schemas/Cat; #/components/schemas holds: Pet, Owner",
		"/nope":                   "a.json has nothing at #/nope; its root holds: components",
	} {
		if got := NothingAt("a.json", d.Root, ptr); got != want {
			t.Errorf("%s: %q, want %q", ptr, got, want)
		}
	}
}
