package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the compact JSON text of v to buf: object members in order, numbers as
// their literal, strings with only the escapes JSON requires (non-ASCII characters are
// kept; invalid UTF-8 becomes U+FFFD). The zero Value is written as null.
func AppendJSON(buf []byte, v Value) []byte {
	switch v.Kind() {
	case Bool:
		return strconv.AppendBool(buf, v.Bool())
	case Number:
		return append(buf, v.text()...)
	case String:
		return appendString(buf, v.text())
	case Array:
		buf = append(buf, '[')
		for i, k := range v.elems() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = AppendJSON(buf, k)
		}
		return append(buf, ']')
	case Object:
		buf = append(buf, '{')
		kids := v.elems()
		for i := 0; i < len(kids); i += 2 {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, kids[i].text())
			buf = append(buf, ':')
			buf = AppendJSON(buf, kids[i+1])
		}
		return append(buf, '}')
	}
	return append(buf, "null"...)
}

// AppendJSONIndent is like AppendJSON, but writes each item and member on a line of its own,
// starting with prefix and indented by one indent per level, as json.MarshalIndent does.
// Empty arrays and objects stay "[]" and "{}". Values nested deeper than MaxIndentDepth
// levels are written compact, on the line where they start: the indentation of a document
// nested thousands of levels deep would take space quadratic in its depth.
func AppendJSONIndent(buf []byte, v Value, prefix, indent string) []byte {
	return appendIndent(buf, v, prefix, indent, 0)
}

// MaxIndentDepth is the deepest level that AppendJSONIndent indents.
const MaxIndentDepth = 64

func appendIndent(buf []byte, v Value, prefix, indent string, depth int) []byte {
	kids := v.elems()
	if len(kids) == 0 || depth >= MaxIndentDepth {
		return AppendJSON(buf, v)
	}
	newline := func(buf []byte, depth int) []byte {
		buf = append(buf, '\n')
		buf = append(buf, prefix...)
		for range depth {
			buf = append(buf, indent...)
		}
		return buf
	}
	if v.Kind() == Array {
		buf = append(buf, '[')
		for i, k := range kids {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = newline(buf, depth+1)
			buf = appendIndent(buf, k, prefix, indent, depth+1)
		}
		buf = newline(buf, depth)
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i := 0; i < len(kids); i += 2 {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = newline(buf, depth+1)
		buf = appendString(buf, kids[i].text())
		buf = append(buf, ": "...)
		buf = appendIndent(buf, kids[i+1], prefix, indent, depth+1)
	}
	buf = newline(buf, depth)
	return append(buf, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\ufffd"...)
			i++
			start = i
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// MarshalJSON returns the compact JSON text of v (see AppendJSON). The zero Value has none.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Kind() == Invalid {
		return nil, errors.New("source: MarshalJSON of the zero Value")
	}
	return AppendJSON(nil, v), nil
}

// UnmarshalJSON parses JSON text into v, with offsets into data, under the default limits.
func (v *Value) UnmarshalJSON(data []byte) error {
	doc, err := ParseJSON("", data, nil)
	if err != nil {
		return err
	}
	*v = doc.Root
	return nil
}

// ToAny converts v to the values encoding/json decodes into (with UseNumber): map[string]any,
// []any, json.Number, string, bool and nil.
func ToAny(v Value) any {
	switch v.Kind() {
	case Bool:
		return v.Bool()
	case Number:
		return json.Number(v.text())
	case String:
		return v.text()
	case Array:
		kids := v.elems()
		items := make([]any, len(kids))
		for i, k := range kids {
			items[i] = ToAny(k)
		}
		return items
	case Object:
		kids := v.elems()
		m := make(map[string]any, len(kids)/2)
		for i := 0; i < len(kids); i += 2 {
			m[kids[i].text()] = ToAny(kids[i+1])
		}
		return m
	}
	return nil
}

// FromAny converts a Go value to a Value with zero offsets. It takes nil, bool, string,
// json.Number, the integer and float types, *big.Int, *big.Rat (when its decimal expansion
// ends), Decimal, map[string]any (members sorted by key) and []any directly, a Value as it
// is, and anything else through encoding/json. NaN and infinities are errors, as are strings that
// are not valid UTF-8 and json.Numbers that are not JSON numbers.
func FromAny(x any) (Value, error) {
	switch x := x.(type) {
	case nil:
		return NullValue(), nil
	case bool:
		return BoolValue(x), nil
	case string:
		if !utf8.ValidString(x) {
			return Value{}, fmt.Errorf("string %q is not valid UTF-8", x)
		}
		return StringValue(x), nil
	case json.Number:
		if !IsNumberLiteral(string(x)) {
			return Value{}, fmt.Errorf("json.Number %q is not a JSON number", string(x))
		}
		return NumberValue(string(x)), nil
	case float64:
		return floatValue(x, 64)
	case float32:
		return floatValue(float64(x), 32)
	case int:
		return IntValue(int64(x)), nil
	case int8:
		return IntValue(int64(x)), nil
	case int16:
		return IntValue(int64(x)), nil
	case int32:
		return IntValue(int64(x)), nil
	case int64:
		return IntValue(x), nil
	case uint:
		return NumberValue(strconv.FormatUint(uint64(x), 10)), nil
	case uint8:
		return IntValue(int64(x)), nil
	case uint16:
		return IntValue(int64(x)), nil
	case uint32:
		return IntValue(int64(x)), nil
	case uint64:
		return NumberValue(strconv.FormatUint(x, 10)), nil
	case *big.Int:
		if x == nil {
			return NullValue(), nil
		}
		return NumberValue(x.String()), nil
	case *big.Rat:
		if x == nil {
			return NullValue(), nil
		}
		return ratValue(x)
	case Decimal:
		return NumberValue(x.String()), nil
	case Value:
		if x.Kind() == Invalid {
			return Value{}, errors.New("the zero Value is not a JSON value")
		}
		return x, nil
	case []any:
		items := make([]Value, len(x))
		for i, it := range x {
			v, err := FromAny(it)
			if err != nil {
				return Value{}, fmt.Errorf("item %d: %w", i, err)
			}
			items[i] = v
		}
		return ArrayValue(items...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		kids := make([]Value, 0, 2*len(keys))
		for _, k := range keys {
			if !utf8.ValidString(k) {
				return Value{}, fmt.Errorf("key %q is not valid UTF-8", k)
			}
			v, err := FromAny(x[k])
			if err != nil {
				return Value{}, fmt.Errorf("member %q: %w", k, err)
			}
			kids = append(kids, StringValue(k), v)
		}
		return mkKids(Object, 0, kids), nil
	}
	data, err := json.Marshal(x)
	if err != nil {
		return Value{}, err
	}
	doc, err := ParseJSON("", data, &Limits{MaxDepth: math.MaxInt32})
	if err != nil {
		return Value{}, err
	}
	return stripOffsets(doc.Root), nil
}

// stripOffsets returns v with every offset zero, as for values built in code.
func stripOffsets(v Value) Value {
	kids := v.elems()
	for i := range kids {
		kids[i] = stripOffsets(kids[i])
	}
	return v.WithOffset(0)
}

func floatValue(f float64, bits int) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("%v has no JSON form", f)
	}
	// As encoding/json writes floats: plain notation for moderate exponents.
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, bits)
	if format == 'e' { // 1e-07 -> 1e-7
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return NumberValue(string(b)), nil
}

// ratValue writes a rational number as a decimal, when its expansion ends.
func ratValue(r *big.Rat) (Value, error) {
	if r.IsInt() {
		return NumberValue(r.Num().String()), nil
	}
	// The expansion ends iff the denominator has no prime factors other than 2 and 5.
	d := new(big.Int).Set(r.Denom())
	var twos, fives int
	two, five := big.NewInt(2), big.NewInt(5)
	q, m := new(big.Int), new(big.Int)
	for {
		if q.QuoRem(d, two, m); m.Sign() != 0 {
			break
		}
		d.Set(q)
		twos++
	}
	for {
		if q.QuoRem(d, five, m); m.Sign() != 0 {
			break
		}
		d.Set(q)
		fives++
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return Value{}, fmt.Errorf("%s has no finite decimal form", r.String())
	}
	return NumberValue(r.FloatString(max(twos, fives))), nil
}
