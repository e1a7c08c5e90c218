package source

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    Value
		want string
	}{
		{Value{}, "null"},
		{NullValue(), "null"},
		{BoolValue(false), "false"},
		{NumberValue("1.50e+3"), "1.50e+3"},
		{StringValue("a\"\\/\b\f\n\r\t\x00\x1f\x7fé😀<>&\u2028"), `"a\"\\/\b\f\n\r\t\u0000\u001f` + "\x7fé😀<>&\u2028\""},
		{StringValue("bad \xff utf8"), `"bad ` + "\ufffd" + ` utf8"`},
		{ArrayValue(), "[]"},
		{mustJSON(t, `{"b":[1,{"c":null}],"a":{}}`), `{"b":[1,{"c":null}],"a":{}}`},
	}
	for _, tt := range tests {
		if got := string(AppendJSON([]byte("x"), tt.v)); got != "x"+tt.want {
			t.Errorf("got %s, want x%s", got, tt.want)
		}
		if tt.v.IsValid() {
			m, err := json.Marshal(tt.v)
			if err != nil || !json.Valid(m) {
				t.Errorf("json.Marshal: %s, %v", m, err)
			}
		}
	}
	if _, err := (Value{}).MarshalJSON(); err == nil {
		t.Error("MarshalJSON of the zero Value succeeded")
	}
}

func TestAppendJSONIndent(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"a":[1,2,{"b":[],"c":{}}],"d":"x","e":{"f":null}}`,
		`[]`, `{}`, `"s"`, `[[[]]]`, `[{"a":{"b":{"c":[true]}}}]`,
	} {
		v := mustJSON(t, in)
		for _, ind := range [][2]string{{"", "  "}, {"> ", "\t"}} {
			got := AppendJSONIndent(nil, v, ind[0], ind[1])
			var want bytes.Buffer
			if err := json.Indent(&want, []byte(in), ind[0], ind[1]); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got, want.String())
			}
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	var s struct {
		V Value `json:"v"`
		W Value `json:"w"`
	}
	if err := json.Unmarshal([]byte(`{"v": {"a": [1, 2.50]}, "w": "x"}`), &s); err != nil {
		t.Fatal(err)
	}
	if got := compact(s.V); got != `{"a":[1,2.50]}` || compact(s.W) != `"x"` {
		t.Errorf("got %s %s", got, compact(s.W))
	}
	var v Value
	if err := v.UnmarshalJSON([]byte(`{`)); err == nil {
		t.Error("UnmarshalJSON accepted {")
	}
}

func TestToAny(t *testing.T) {
	t.Parallel()
	v := mustJSON(t, `{"a":[1,"x",true,null,{"b":1.5e3}],"c":{}}`)
	got := ToAny(v)
	want := map[string]any{"a": []any{json.Number("1"), "x", true, nil, map[string]any{"b": json.Number("1.5e3")}}, "c": map[string]any{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if ToAny(Value{}) != nil {
		t.Error("ToAny of the zero Value")
	}
	// Back again.
	back, err := FromAny(got)
	if err != nil || !Equal(back, v) {
		t.Errorf("FromAny(ToAny(v)) = %s, %v", compact(back), err)
	}
}

type point struct {
	X int     `json:"x"`
	Y float64 `json:"y,omitempty"`
	Z []string
}

func TestFromAny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{true, "true"},
		{"s", `"s"`},
		{json.Number("1.0e5"), "1.0e5"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{1e-7, "1e-7"},
		{-0.000001, "-0.000001"},
		{float32(0.1), "0.1"},
		{float32(1e-7), "1e-7"},
		{float32(3e21), "3e+21"},
		{math.MaxInt64, "9223372036854775807"},
		{int8(-8), "-8"},
		{int16(-16), "-16"},
		{int32(-32), "-32"},
		{int64(-64), "-64"},
		{uint(7), "7"},
		{uint8(8), "8"},
		{uint16(16), "16"},
		{uint32(32), "32"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{new(big.Int).Lsh(big.NewInt(1), 100), "1267650600228229401496703205376"},
		{big.NewRat(3, 8), "0.375"},
		{big.NewRat(-10, 5), "-2"},
		{big.NewRat(1, 1280), "0.00078125"},
		{(*big.Int)(nil), "null"},
		{(*big.Rat)(nil), "null"},
		{MustDecimal("12.50"), "12.5"},
		{IntValue(3), "3"},
		{[]any{1, "a", []any{}}, `[1,"a",[]]`},
		{map[string]any{"b": 1, "a": map[string]any{}}, `{"a":{},"b":1}`},
		{[]string{"x", "y"}, `["x","y"]`},
		{map[string]int{"z": 1, "y": 2}, `{"y":2,"z":1}`},
		{point{X: 1, Z: []string{"q"}}, `{"x":1,"Z":["q"]}`},
		{json.RawMessage(`{"raw": [1, 2]}`), `{"raw":[1,2]}`},
	}
	for _, tt := range tests {
		v, err := FromAny(tt.in)
		if err != nil {
			t.Errorf("FromAny(%#v): %v", tt.in, err)
			continue
		}
		if got := compact(v); got != tt.want {
			t.Errorf("FromAny(%#v) = %s, want %s", tt.in, got, tt.want)
		}
		for p, off := range offsets(v) {
			if off != 0 {
				t.Errorf("FromAny(%#v): offset %d at %q", tt.in, off, p)
			}
		}
	}
	bad := []any{
		math.NaN(), math.Inf(1), float32(math.Inf(-1)), json.Number("0x10"), "\xff",
		map[string]any{"\xff": 1}, map[string]any{"a": math.NaN()}, []any{math.NaN()},
		big.NewRat(1, 3), Value{}, make(chan int),
	}
	for _, in := range bad {
		if v, err := FromAny(in); err == nil {
			t.Errorf("FromAny(%#v) = %s, want an error", in, compact(v))
		}
	}
}

func TestAppendJSONRoundTrip(t *testing.T) {
	t.Parallel()
	in := string(orderJSON(50))
	for _, line := range strings.Split(strings.TrimSpace(in), "\n") {
		v := mustJSON(t, line)
		printed := string(AppendJSON(nil, v))
		w := mustJSON(t, printed)
		if !Equal(v, w) || string(AppendJSON(nil, w)) != printed {
			t.Fatalf("%s\nprinted as %s", line, printed)
		}
	}
}
