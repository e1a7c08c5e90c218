package source

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/loaderlimits"
)

// DefaultMaxAliasNodes bounds how many nodes the aliases of one YAML document may expand to.
const DefaultMaxAliasNodes = 1_000_000

// maxYAMLNesting bounds the YAML parser's own nesting, whatever Limits.MaxDepth says: the
// parser recurses once per level.
const maxYAMLNesting = 1_000_000

// ParseYAML parses a YAML stream into one Document per YAML document. Each Document holds
// the text of its YAML document, and its Line says where that text starts in the file. A
// stream with no document at all (an empty file, or only comments) yields one document
// whose root is null.
//
// Scalars resolve as the YAML 1.2 core schema does (true/false, null and ~, numbers; yes,
// no, on and off are strings), except that integers may also be written 0b1010 and with
// underscores, and that a number with leading zeros is decimal. Numbers keep their exact
// value. Timestamps, binary data and scalars with a custom tag (such as CloudFormation's
// !Ref) are strings; collections with a custom tag are plain arrays and objects.
// Aliases are expanded (their values share memory), merge keys (<<) are applied, and keys
// that are not strings take their JSON text as the key ("1", "true", "null"). It is an
// error for a mapping to repeat a key, for a value to be .inf or .nan, and for the aliases
// of a document to expand to more than Limits.MaxAliasNodes nodes.
func ParseYAML(name string, src []byte, lim *Limits) ([]*Document, error) {
	if int64(len(src)) > lim.maxSize() {
		return nil, &Error{File: name, Msg: sizeMessage(int64(len(src)), lim.maxSize())}
	}
	src = []byte(string(src)) // our own copy: the documents keep it
	if off, msg := checkText(src, true); msg != "" {
		return nil, errorAt(name, src, 1, off, "%s", msg)
	}
	c := &yamlConv{
		name:     name,
		src:      src,
		file:     &Document{Name: name, src: src, Line: 1},
		starts:   yamlLineStarts(src),
		maxDepth: lim.maxDepth(),
		memo:     map[*yaml.Node]*yamlMemo{},
	}
	depth := min(c.maxDepth, maxYAMLNesting)
	loader, err := yaml.NewLoader(bytes.NewReader(yamlText(src)),
		yaml.WithUniqueKeys(false), // checked here, with positions
		yaml.WithPlugin(loaderlimits.New(
			loaderlimits.AliasNone(), // bounded here, by the size of the expansion
			loaderlimits.DepthFunc(func(d int, _ *loaderlimits.DepthContext) error {
				if d > depth {
					return errors.New(depthMessage(depth))
				}
				return nil
			}),
		)))
	if err != nil {
		return nil, err
	}
	var docs []*Document
	var nodes []*yaml.Node
	for {
		n := new(yaml.Node)
		err := loader.Load(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, c.loadError(err)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return []*Document{{Name: name, Format: YAML, Root: NullValue(), Line: 1, src: src}}, nil
	}
	// Document i is the text from the line where it starts to the line where the next one
	// starts.
	bounds := make([]int, len(nodes)+1)
	for i, n := range nodes {
		if i > 0 {
			bounds[i] = max(c.lineStart(n.Line), bounds[i-1])
		}
	}
	bounds[len(nodes)] = len(src)
	for i, n := range nodes {
		c.base, c.end = bounds[i], bounds[i+1]
		c.aliasLimit = lim.maxAliasNodes()
		c.aliasBudget = c.aliasLimit
		clear(c.memo)
		root := NullValue().WithOffset(c.rel(n))
		if len(n.Content) > 0 {
			r, _, err := c.convert(n.Content[0], 0)
			if err != nil {
				return nil, err
			}
			root = r.v
		}
		line, _ := c.file.Position(bounds[i])
		docs = append(docs, &Document{Name: name, Format: YAML, Root: root, Line: line,
			src: src[bounds[i]:bounds[i+1]:bounds[i+1]]})
	}
	return docs, nil
}

// yamlText returns the text to give the YAML library: src, except that %YAML directives for
// versions 1.2 and later say 1.1, the version the library knows. The rules it applies are
// those of YAML 1.2 anyway (see ParseYAML).
func yamlText(src []byte) []byte {
	// A byte order mark at the start of a later line (files concatenated, or an editor's
	// comment header added above a BOM) is read as what it is, not as part of a key. Lines
	// stay where they are; columns on such a line are off by one.
	if bytes.Contains(src, []byte("\n\uFEFF")) {
		src = bytes.ReplaceAll(src, []byte("\n\uFEFF"), []byte("\n"))
	}
	if !bytes.Contains(src, []byte("%YAML")) {
		return src
	}
	var out []byte
	for off := 0; off < len(src); {
		line := src[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		if v, ok := bytes.CutPrefix(line, []byte("%YAML")); ok && len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
			v = bytes.TrimLeft(v, " \t")
			if len(v) >= 3 && v[0] == '1' && v[1] == '.' && v[2] >= '2' && v[2] <= '9' {
				if out == nil {
					out = bytes.Clone(src)
				}
				out[off+len(line)-len(v)+2] = '1'
			}
		}
		off += len(line)
	}
	if out == nil {
		return src
	}
	return out
}

func (l *Limits) maxAliasNodes() int {
	if l == nil || l.MaxAliasNodes <= 0 {
		return DefaultMaxAliasNodes
	}
	return l.MaxAliasNodes
}

// yamlConv turns yaml Nodes into Values.
type yamlConv struct {
	name     string
	src      []byte
	file     *Document // the whole file, for positions
	starts   []int     // where lines start, as the YAML scanner counts them
	base     int       // offset of the current document in src
	end      int       // offset of its end
	maxDepth int

	aliasLimit  int                      // Limits.MaxAliasNodes
	aliasBudget int                      // nodes that aliases may still expand to
	memo        map[*yaml.Node]*yamlMemo // anchored nodes, converted
	active      []*yaml.Node             // anchored nodes being converted
}

// yamlMemo is a converted node with its size (the number of values in it, all aliases
// expanded) and its height (the nesting depth of its deepest value: 0 for a scalar).
type yamlMemo struct {
	v      Value
	size   int
	height int
}

// yamlLineStarts returns the offsets at which lines start, breaking lines where the YAML
// scanner does: LF, CR LF, CR, NEL, LS and PS.
func yamlLineStarts(src []byte) []int {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n':
			starts = append(starts, i+1)
		case c == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		case c == 0xC2 && i+1 < len(src) && src[i+1] == 0x85:
			i++
			starts = append(starts, i+1)
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9):
			i += 2
			starts = append(starts, i+1)
		}
	}
	return starts
}

func (c *yamlConv) lineStart(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(c.starts) {
		return len(c.src)
	}
	return c.starts[line-1]
}

// markOffset turns the scanner's 1-based line and column (which counts characters) into a
// byte offset in the file.
func (c *yamlConv) markOffset(line, col int) int {
	off := c.lineStart(line)
	if off == 0 && string(c.src[:min(len(bom), len(c.src))]) == bom {
		off = len(bom) // the scanner does not count it
	}
	for ; col > 1 && off < len(c.src); col-- {
		_, n := decodeRune(c.src[off:])
		off += n
	}
	return off
}

// offset is the byte offset of n in the file.
func (c *yamlConv) offset(n *yaml.Node) int { return c.markOffset(n.Line, n.Column) }

// rel is the offset of n in the current document. An empty value at the very end of the
// document is placed on its last byte.
func (c *yamlConv) rel(n *yaml.Node) int {
	off := c.offset(n)
	if off >= c.end && c.end > c.base {
		off = c.end - 1
	}
	return off - c.base
}

// errorAt builds an Error at a node.
func (c *yamlConv) errorAt(n *yaml.Node, format string, args ...any) *Error {
	return errorAt(c.name, c.src, 1, c.offset(n), format, args...)
}

// position names the line and column of a node for a message.
func (c *yamlConv) position(n *yaml.Node) string {
	line, col := c.file.Position(c.offset(n))
	return "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}

// loadError turns an error of the YAML library into an *Error.
func (c *yamlConv) loadError(err error) error {
	var le *yaml.LoadError
	if !errors.As(err, &le) {
		return &Error{File: c.name, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	msg := le.Message
	if le.ContextMsg != "" && le.ContextMark.Line > 0 && le.ContextMark != le.Mark {
		line, col := c.file.Position(c.markOffset(le.ContextMark.Line, le.ContextMark.Column))
		msg += " (" + le.ContextMsg + " at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ")"
	}
	if le.Mark.Line == 0 {
		return &Error{File: c.name, Msg: msg}
	}
	return errorAt(c.name, c.src, 1, c.markOffset(le.Mark.Line, le.Mark.Column), "%s", msg)
}

// convert turns n, found nested in depth containers, into a Value.
func (c *yamlConv) convert(n *yaml.Node, depth int) (*yamlMemo, int, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return c.alias(n, depth)
	case yaml.ScalarNode:
		v, err := c.scalar(n)
		if err != nil {
			return nil, 0, err
		}
		return &yamlMemo{v: v, size: 1}, 1, nil
	case yaml.SequenceNode, yaml.MappingNode:
	default:
		return nil, 0, c.errorAt(n, "unexpected YAML node kind %d", n.Kind)
	}
	if depth >= c.maxDepth {
		return nil, 0, c.errorAt(n, "%s", depthMessage(c.maxDepth))
	}
	if n.Anchor != "" {
		c.active = append(c.active, n)
		defer func() { c.active = c.active[:len(c.active)-1] }()
	}
	var m *yamlMemo
	var err error
	if n.Kind == yaml.SequenceNode {
		m, err = c.sequence(n, depth)
	} else {
		m, err = c.mapping(n, depth)
	}
	if err != nil {
		return nil, 0, err
	}
	if n.Anchor != "" {
		c.memo[n] = m
	}
	return m, m.size, nil
}

// alias expands an alias: its value is that of its anchor (shared, not copied), at the
// alias's own offset.
func (c *yamlConv) alias(n *yaml.Node, depth int) (*yamlMemo, int, error) {
	target := n.Alias
	for _, a := range c.active {
		if a == target {
			return nil, 0, c.errorAt(n, "YAML alias *%s refers to a value that contains it: a recursive structure has no JSON form", n.Value)
		}
	}
	m, ok := c.memo[target]
	if !ok {
		// A scalar anchor (collections are remembered as they are converted).
		var err error
		m, _, err = c.convert(target, depth)
		if err != nil {
			return nil, 0, err
		}
		c.memo[target] = m
	}
	if depth+m.height > c.maxDepth {
		return nil, 0, c.errorAt(n, "nesting deeper than %d levels through alias *%s (raise the limit with --max-depth)", c.maxDepth, n.Value)
	}
	c.aliasBudget -= m.size
	if c.aliasBudget < 0 {
		return nil, 0, c.errorAt(n, "YAML aliases expand to more than %d nodes; is this a \"billion laughs\" document? (raise the limit with --max-alias-nodes)", c.aliasLimit)
	}
	out := *m
	out.v = out.v.WithOffset(c.rel(n))
	return &out, m.size, nil
}

func (c *yamlConv) sequence(n *yaml.Node, depth int) (*yamlMemo, error) {
	kids := make([]Value, len(n.Content))
	m := &yamlMemo{size: 1, height: 1}
	for i, k := range n.Content {
		km, size, err := c.convert(k, depth+1)
		if err != nil {
			return nil, err
		}
		kids[i] = km.v
		m.size += size
		m.height = max(m.height, km.height+1)
	}
	m.v = mkKids(Array, c.rel(n), kids)
	return m, nil
}

// mapping converts a mapping. Keys must be unique. Merge keys (<<) bring in the members of
// other mappings whose keys are not defined otherwise; they take the place of the merge key,
// and when several mappings are merged the first one that defines a key wins.
func (c *yamlConv) mapping(n *yaml.Node, depth int) (*yamlMemo, error) {
	type member struct {
		key, val *yamlMemo
		merge    bool
	}
	members := make([]member, 0, len(n.Content)/2)
	where := make(map[string]*yaml.Node, len(n.Content)/2) // explicit keys
	m := &yamlMemo{size: 1, height: 1}
	nkids := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if isMergeKey(kn) {
			// The members merged in sit in this mapping, so the mappings they come from
			// count as being at its level.
			var vm *yamlMemo
			if vn.Kind == yaml.SequenceNode {
				vm = &yamlMemo{}
				kids := make([]Value, len(vn.Content))
				for j, item := range vn.Content {
					im, _, err := c.convert(item, depth)
					if err != nil {
						return nil, err
					}
					kids[j] = im.v
				}
				vm.v = mkKids(Array, c.rel(vn), kids)
			} else {
				var err error
				if vm, _, err = c.convert(vn, depth); err != nil {
					return nil, err
				}
			}
			if err := c.checkMerge(vn, vm.v); err != nil {
				return nil, err
			}
			members = append(members, member{val: vm, merge: true})
			continue
		}
		key, err := c.key(kn)
		if err != nil {
			return nil, err
		}
		if first, dup := where[key]; dup {
			return nil, c.errorAt(kn, "duplicate key %s in YAML mapping (first at %s)", strconv.Quote(key), c.position(first))
		}
		where[key] = kn
		vm, size, err := c.convert(vn, depth+1)
		if err != nil {
			return nil, err
		}
		members = append(members, member{key: &yamlMemo{v: mkText(String, c.rel(kn), key)}, val: vm})
		m.size += size
		m.height = max(m.height, vm.height+1)
		nkids += 2
	}
	var kids []Value
	var merged map[string]bool
	for _, mb := range members {
		if !mb.merge {
			kids = append(kids, mb.key.v, mb.val.v)
			continue
		}
		if merged == nil {
			merged = map[string]bool{}
		}
		sources := []Value{mb.val.v}
		if mb.val.v.Kind() == Array {
			sources = mb.val.v.elems()
		}
		for _, src := range sources {
			skids := src.elems()
			for j := 0; j < len(skids); j += 2 {
				k := skids[j].text()
				if _, explicit := where[k]; explicit || merged[k] {
					continue
				}
				merged[k] = true
				kids = append(kids, skids[j], skids[j+1])
				size, height := valueSize(skids[j+1])
				m.size += size
				m.height = max(m.height, height+1)
			}
		}
	}
	if kids == nil {
		kids = []Value{}
	}
	if m.height+depth > c.maxDepth {
		return nil, c.errorAt(n, "%s", depthMessage(c.maxDepth))
	}
	m.v = mkKids(Object, c.rel(n), kids)
	return m, nil
}

// valueSize returns the number of values in v and its height.
func valueSize(v Value) (size, height int) {
	size = 1
	if v.Kind() != Array && v.Kind() != Object {
		return size, 0
	}
	height = 1
	for i, k := range v.elems() {
		if v.Kind() == Object && i%2 == 0 {
			continue
		}
		s, h := valueSize(k)
		size += s
		height = max(height, h+1)
	}
	return size, height
}

func isMergeKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!merge"
}

// checkMerge checks that the value of a merge key is a mapping or a sequence of mappings.
func (c *yamlConv) checkMerge(n *yaml.Node, v Value) error {
	if v.Kind() == Object {
		return nil
	}
	if v.Kind() == Array {
		for _, item := range v.elems() {
			if item.Kind() != Object {
				return c.errorAt(n, "YAML merge key << needs a mapping or a sequence of mappings, and this sequence holds a %s", yamlKindName(item.Kind()))
			}
		}
		return nil
	}
	return c.errorAt(n, "YAML merge key << needs a mapping or a sequence of mappings, not a %s", yamlKindName(v.Kind()))
}

func yamlKindName(k Kind) string {
	switch k {
	case Array:
		return "sequence"
	case Object:
		return "mapping"
	}
	return "scalar"
}

// key returns the string form of a mapping key: a string's text, or the JSON text of a
// number, boolean or null.
func (c *yamlConv) key(n *yaml.Node) (string, error) {
	target := n
	for target.Kind == yaml.AliasNode && target.Alias != nil {
		target = target.Alias
	}
	if target.Kind != yaml.ScalarNode {
		return "", c.errorAt(n, "YAML mapping key is a %s: JSON object keys are strings", yamlNodeKindName(target))
	}
	v, err := c.scalar(target)
	if err != nil {
		return "", err
	}
	switch v.Kind() {
	case Null:
		return "null", nil
	case Bool:
		return strconv.FormatBool(v.Bool()), nil
	}
	return v.text(), nil
}

func yamlNodeKindName(n *yaml.Node) string {
	if n.Kind == yaml.SequenceNode {
		return "sequence"
	}
	return "mapping"
}

// scalar resolves a scalar by its tag.
func (c *yamlConv) scalar(n *yaml.Node) (Value, error) {
	off := c.rel(n)
	s := n.Value
	switch tag := n.ShortTag(); tag {
	case "!!null":
		switch s {
		case "", "~", "null", "Null", "NULL":
			return mkNull(off), nil
		}
	case "!!bool":
		switch s {
		case "true", "True", "TRUE":
			return mkBool(off, true), nil
		case "false", "False", "FALSE":
			return mkBool(off, false), nil
		}
	case "!!int":
		if lit, ok := yamlInt(s); ok {
			return mkText(Number, off, lit), nil
		}
	case "!!float":
		if isYAMLSpecialFloat(s) {
			return Value{}, c.errorAt(n, "YAML value %s has no JSON equivalent", s)
		}
		if lit, ok := yamlFloat(s); ok {
			return mkText(Number, off, lit), nil
		}
		if lit, ok := yamlInt(s); ok {
			return mkText(Number, off, lit), nil
		}
	default:
		// !!str, !!binary, !!timestamp, !!merge as a value, and custom tags: the text.
		return mkText(String, off, s), nil
	}
	return Value{}, c.errorAt(n, "YAML value %s is not a valid %s", strconv.Quote(s), n.ShortTag())
}

func isYAMLSpecialFloat(s string) bool {
	s = strings.TrimLeft(s, "+-")
	switch s {
	case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
		return true
	}
	return false
}

// yamlInt returns the JSON literal of a YAML integer: decimal (leading zeros allowed), 0x
// hexadecimal, 0o octal or 0b binary, with an optional sign and underscores between digits.
func yamlInt(s string) (string, bool) {
	t := strings.ReplaceAll(s, "_", "")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	base := 10
	if len(t) > 2 && t[0] == '0' {
		switch t[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 10 {
			t = t[2:]
		}
	}
	if t == "" {
		return "", false
	}
	for _, r := range t {
		if digitValue(r) >= base {
			return "", false
		}
	}
	if base == 10 {
		t = strings.TrimLeft(t, "0")
		if t == "" {
			t = "0"
		}
	} else {
		b, _ := new(big.Int).SetString(t, base)
		t = b.String()
	}
	if neg && t != "0" {
		t = "-" + t
	}
	return t, true
}

func digitValue(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return 99
}

// yamlFloat returns the JSON literal of a YAML decimal number such as 1.5, -.5, +1e3, 2.,
// 1_000.5 or 007.5.
func yamlFloat(s string) (string, bool) {
	t := strings.ReplaceAll(s, "_", "")
	var sb strings.Builder
	if t != "" && (t[0] == '+' || t[0] == '-') {
		if t[0] == '-' {
			sb.WriteByte('-')
		}
		t = t[1:]
	}
	mant, exp := t, ""
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant, exp = t[:i], t[i:]
	}
	ip, fp, hasPoint := strings.Cut(mant, ".")
	if ip == "" && fp == "" {
		return "", false
	}
	ip = strings.TrimLeft(ip, "0")
	if ip == "" {
		ip = "0"
	}
	sb.WriteString(ip)
	if hasPoint && fp != "" {
		sb.WriteByte('.')
		sb.WriteString(fp)
	}
	sb.WriteString(exp)
	lit := sb.String()
	if !IsNumberLiteral(lit) {
		return "", false
	}
	return lit, true
}
