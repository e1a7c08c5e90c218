package source

import (
	"errors"
	"math/big"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// ParseTOML parses a TOML document. Tables become objects (members in the order they are
// first defined), arrays of tables arrays of objects. Integers and floats keep their exact
// value (0x, 0o and 0b integers become decimal); inf and nan are errors. Dates and times are
// strings as written, with a space between date and time replaced by "T", which makes an
// offset date-time an RFC 3339 date-time.
//
// Keys and values carry the offsets of their first byte; a table carries that of its header
// ("[" of "[a.b]"), a table that is only implied (a in "[a.b]", or by a dotted key) that of
// the key part that implies it first.
func ParseTOML(name string, src []byte, lim *Limits) (*Document, error) {
	if int64(len(src)) > lim.maxSize() {
		return nil, &Error{File: name, Msg: sizeMessage(int64(len(src)), lim.maxSize())}
	}
	src = []byte(string(src)) // our own copy: the document keeps it
	if off, msg := checkText(src, false); msg != "" {
		return nil, errorAt(name, src, 1, off, "%s", msg)
	}
	if off, deep := tomlTextDepth(src, lim.maxDepth()); deep {
		return nil, errorAt(name, src, 1, off, "%s", depthMessage(lim.maxDepth()))
	}
	// go-toml's decoder checks what the syntax alone does not (a key defined twice, a table
	// redefined, an integer out of range, an invalid date); then the parser gives positions.
	var check map[string]any
	if err := toml.Unmarshal(src, &check); err != nil {
		return nil, tomlError(name, src, err)
	}
	b := &tomlBuilder{name: name, src: src, root: &tomlTable{}}
	b.cur = b.root
	var p unstable.Parser
	p.Reset(src)
	for p.NextExpression() {
		if err := b.expression(&p, p.Expression()); err != nil {
			return nil, err
		}
	}
	if err := p.Error(); err != nil {
		return nil, tomlError(name, src, err)
	}
	root := b.finish(b.root)
	if d, ok := tooDeep(root, lim.maxDepth()); ok {
		return nil, errorAt(name, src, 1, d.Offset(), "%s", depthMessage(lim.maxDepth()))
	}
	return NewDocument(name, TOML, src, root), nil
}

// tomlError turns an error of go-toml into an *Error.
func tomlError(name string, src []byte, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position() // col counts bytes
		off := 0
		for l := 1; l < line && off < len(src); l++ {
			i := strings.IndexByte(string(src[off:]), '\n')
			if i < 0 {
				off = len(src)
				break
			}
			off += i + 1
		}
		off = min(off+col-1, len(src))
		return errorAt(name, src, 1, off, "%s", strings.TrimPrefix(de.Error(), "toml: "))
	}
	var pe *unstable.ParserError
	if errors.As(err, &pe) {
		off := cap(src) - cap(pe.Highlight)
		if off < 0 || off > len(src) {
			off = 0
		}
		return errorAt(name, src, 1, off, "%s", pe.Message)
	}
	return &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// tomlTable is a table being built.
type tomlTable struct {
	off      int
	explicit bool // defined by a header (so its offset is that of the header)
	members  []tomlMember
	index    map[string]int
}

type tomlMember struct {
	key Value // a String carrying the key's offset
	tab *tomlTable
	arr *tomlArray // an array of tables
	val Value      // any other value
}

// tomlArray is an array of tables being built.
type tomlArray struct {
	off   int
	items []*tomlTable
}

type tomlBuilder struct {
	name string
	src  []byte
	root *tomlTable
	cur  *tomlTable // the table that key/value lines go to
}

func (t *tomlTable) get(key string) *tomlMember {
	if i, ok := t.index[key]; ok {
		return &t.members[i]
	}
	return nil
}

func (t *tomlTable) add(m tomlMember) *tomlMember {
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[m.key.text()] = len(t.members)
	t.members = append(t.members, m)
	return &t.members[len(t.members)-1]
}

// keyParts returns the parts of a (dotted) key with their offsets.
func keyParts(it unstable.Iterator) []Value {
	var parts []Value
	for it.Next() {
		n := it.Node()
		parts = append(parts, mkText(String, int(n.Raw.Offset), string(n.Data)))
	}
	return parts
}

// descend returns the table that key leads to from t, creating an implied table when it is
// missing. Through an array of tables it goes to the array's last table.
func (b *tomlBuilder) descend(t *tomlTable, key Value) *tomlTable {
	m := t.get(key.text())
	if m == nil {
		return t.add(tomlMember{key: key, tab: &tomlTable{off: key.Offset()}}).tab
	}
	switch {
	case m.tab != nil:
		return m.tab
	case m.arr != nil && len(m.arr.items) > 0:
		return m.arr.items[len(m.arr.items)-1]
	}
	// go-toml accepted the document, so this does not happen; keep going harmlessly.
	return &tomlTable{off: key.Offset()}
}

func (b *tomlBuilder) expression(p *unstable.Parser, e *unstable.Node) error {
	switch e.Kind {
	case unstable.KeyValue:
		return b.keyValue(b.cur, e)
	case unstable.Table, unstable.ArrayTable:
		parts := keyParts(e.Key())
		if len(parts) == 0 {
			return nil
		}
		header := b.headerStart(parts[0].Offset())
		t := b.root
		for _, k := range parts[:len(parts)-1] {
			t = b.descend(t, k)
		}
		last := parts[len(parts)-1]
		m := t.get(last.text())
		if e.Kind == unstable.Table {
			if m == nil {
				m = t.add(tomlMember{key: last, tab: &tomlTable{}})
			}
			if m.tab == nil { // cannot happen in a valid document
				m.tab = &tomlTable{}
			}
			if !m.tab.explicit {
				m.tab.off, m.tab.explicit = header, true
			}
			b.cur = m.tab
			return nil
		}
		if m == nil {
			m = t.add(tomlMember{key: last, arr: &tomlArray{off: header}})
		}
		if m.arr == nil { // cannot happen in a valid document
			m.arr = &tomlArray{off: header}
		}
		nt := &tomlTable{off: header, explicit: true}
		m.arr.items = append(m.arr.items, nt)
		b.cur = nt
	}
	return nil
}

// headerStart finds the "[" of the table header whose first key starts at off.
func (b *tomlBuilder) headerStart(off int) int {
	i := off - 1
	for i >= 0 && (b.src[i] == ' ' || b.src[i] == '\t') {
		i--
	}
	for i > 0 && b.src[i-1] == '[' {
		i--
	}
	if i >= 0 && b.src[i] == '[' {
		return i
	}
	return off
}

// keyValue adds `a.b.c = value` to t.
func (b *tomlBuilder) keyValue(t *tomlTable, e *unstable.Node) error {
	parts := keyParts(e.Key())
	if len(parts) == 0 {
		return nil
	}
	for _, k := range parts[:len(parts)-1] {
		t = b.descend(t, k)
	}
	last := parts[len(parts)-1]
	start := b.valueStart(int(e.Raw.Offset), last)
	v, _, err := b.value(e.Value(), start)
	if err != nil {
		return err
	}
	if m := t.get(last.text()); m != nil { // cannot happen in a valid document
		m.val, m.tab, m.arr = v, nil, nil
		return nil
	}
	t.add(tomlMember{key: last, val: v})
	return nil
}

// valueStart finds where the value of a key/value starts: after the last key part (whose
// raw text ends at or before the '=') and the '='.
func (b *tomlBuilder) valueStart(kvStart int, last Value) int {
	i := max(last.Offset(), kvStart)
	// Skip the key part itself (bare or quoted).
	switch {
	case i < len(b.src) && (b.src[i] == '"' || b.src[i] == '\''):
		q := b.src[i]
		i++
		for i < len(b.src) && b.src[i] != q {
			if b.src[i] == '\\' && q == '"' {
				i++
			}
			i++
		}
		i++
	default:
		for i < len(b.src) && isBareKeyChar(b.src[i]) {
			i++
		}
	}
	for i < len(b.src) && b.src[i] != '=' {
		i++
	}
	i++
	for i < len(b.src) && (b.src[i] == ' ' || b.src[i] == '\t') {
		i++
	}
	return min(i, len(b.src))
}

func isBareKeyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// skipTrivia skips whitespace, line breaks, comments and commas inside an array or inline
// table.
func (b *tomlBuilder) skipTrivia(i int) int {
	for i < len(b.src) {
		switch b.src[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
		case '#':
			for i < len(b.src) && b.src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// value converts the value node n, which starts at offset start, and returns it with the
// offset just after it.
func (b *tomlBuilder) value(n *unstable.Node, start int) (Value, int, error) {
	end := int(n.Raw.Offset + n.Raw.Length)
	switch n.Kind {
	case unstable.String:
		return mkText(String, int(n.Raw.Offset), string(n.Data)), end, nil
	case unstable.Bool:
		return mkBool(int(n.Raw.Offset), string(n.Data) == "true"), end, nil
	case unstable.Integer:
		lit, ok := tomlInt(string(n.Data))
		if !ok {
			return Value{}, 0, errorAt(b.name, b.src, 1, int(n.Raw.Offset), "invalid TOML integer %s", n.Data)
		}
		return mkText(Number, int(n.Raw.Offset), lit), end, nil
	case unstable.Float:
		s := strings.ReplaceAll(string(n.Data), "_", "")
		s = strings.TrimPrefix(s, "+")
		if strings.HasSuffix(s, "inf") || strings.HasSuffix(s, "nan") {
			return Value{}, 0, errorAt(b.name, b.src, 1, int(n.Raw.Offset), "TOML value %s has no JSON equivalent", n.Data)
		}
		if !IsNumberLiteral(s) {
			return Value{}, 0, errorAt(b.name, b.src, 1, int(n.Raw.Offset), "invalid TOML float %s", n.Data)
		}
		return mkText(Number, int(n.Raw.Offset), s), end, nil
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		s := string(n.Data)
		if len(s) > 10 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		return mkText(String, int(n.Raw.Offset), s), end, nil
	case unstable.Array:
		var kids []Value
		i := start + 1
		it := n.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			i = b.skipTrivia(i)
			v, e, err := b.value(c, i)
			if err != nil {
				return Value{}, 0, err
			}
			kids = append(kids, v)
			i = e
		}
		i = b.skipTrivia(i)
		if kids == nil {
			kids = []Value{}
		}
		return mkKids(Array, start, kids), min(i+1, len(b.src)), nil
	case unstable.InlineTable:
		start = int(n.Raw.Offset)
		t := &tomlTable{off: start, explicit: true}
		i := start + 1
		it := n.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind != unstable.KeyValue {
				continue
			}
			if err := b.keyValue(t, c); err != nil {
				return Value{}, 0, err
			}
			i = int(c.Raw.Offset + c.Raw.Length)
		}
		i = b.skipTrivia(i)
		return b.finish(t), min(i+1, len(b.src)), nil
	}
	return Value{}, 0, errorAt(b.name, b.src, 1, start, "unexpected TOML value of kind %s", n.Kind)
}

// tomlInt returns the JSON literal of a TOML integer.
func tomlInt(s string) (string, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b') {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[s[1]]
		v, ok := new(big.Int).SetString(s[2:], base)
		if !ok {
			return "", false
		}
		s = v.String()
	}
	if neg {
		s = "-" + s
	}
	return s, IsNumberLiteral(s)
}

// finish turns a table into an object.
func (b *tomlBuilder) finish(t *tomlTable) Value {
	kids := make([]Value, 0, 2*len(t.members))
	for _, m := range t.members {
		v := m.val
		switch {
		case m.tab != nil:
			v = b.finish(m.tab)
		case m.arr != nil:
			items := make([]Value, len(m.arr.items))
			for i, it := range m.arr.items {
				items[i] = b.finish(it)
			}
			v = mkKids(Array, m.arr.off, items)
		}
		kids = append(kids, m.key, v)
	}
	return mkKids(Object, t.off, kids)
}

// tooDeep returns a container of v nested deeper than maxDepth levels (v itself being at
// depth 1), if there is one.
func tooDeep(v Value, maxDepth int) (Value, bool) {
	if v.Kind() != Array && v.Kind() != Object {
		return Value{}, false
	}
	if maxDepth <= 0 {
		return v, true
	}
	for _, k := range v.elems() {
		if d, ok := tooDeep(k, maxDepth-1); ok {
			return d, true
		}
	}
	return Value{}, false
}
