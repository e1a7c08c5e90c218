package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/source"
)

// DefaultMaxResultBytes is the budget of a tool result over MCP: its content,
// structuredContent and _meta together, as sent, stay under it (jstk mcp
// --max-result-bytes changes it).
const DefaultMaxResultBytes = 16000

// MinMaxResultBytes is the smallest budget a server may be given: room for a verdict, a
// summary and the note of what was left out.
const MinMaxResultBytes = 2000

// resultReserve is kept free of the budget for what the server adds to a result: the
// run id, and in the 2026 era the resultType and the serverInfo.
const resultReserve = 300

// budgetOf is the budget a provider's results keep: Env.MaxResultBytes, the default when
// it is 0, none (0) when negative.
func budgetOf(env *Env) int {
	switch {
	case env.MaxResultBytes > 0:
		return env.MaxResultBytes
	case env.MaxResultBytes < 0:
		return 0
	}
	return DefaultMaxResultBytes
}

// Cut says what a result left out to stay within its budget, in _meta["jstk/cut"] and in
// words at the end of its text.
type Cut struct {
	// Pointer is where in structuredContent the cut was made.
	Pointer string `json:"pointer"`
	// Kept and Total count what is there and what was there: items of an array, bytes of
	// a string, or (Total bytes, Kept 0) a document left out whole, which is then null.
	Kept  int    `json:"kept"`
	Total int    `json:"total"`
	Unit  string `json:"unit"`
}

func (c Cut) String() string {
	at := c.Pointer
	if at == "" {
		at = "the result"
	}
	switch c.Unit {
	case "document":
		return fmt.Sprintf("%s (a document of %d bytes) left out", at, c.Total)
	case "bytes":
		return fmt.Sprintf("%s cut to %d of its %d bytes", at, c.Kept, c.Total)
	}
	return fmt.Sprintf("%s holds %d of its %d items", at, c.Kept, c.Total)
}

// resultSize is the size of a result as the server sends it, but for what it adds
// (resultReserve).
func resultSize(res *mcp.CallResult) int {
	if raw, ok := res.StructuredContent.(json.RawMessage); ok && len(raw) > 0 {
		c := *res
		c.StructuredContent = nil
		return resultSize(&c) + len(`,"structuredContent":`) + len(raw)
	}
	return len(marshalCompact(struct {
		Content           []mcp.Content  `json:"content"`
		StructuredContent any            `json:"structuredContent,omitempty"`
		IsError           bool           `json:"isError"`
		Meta              map[string]any `json:"_meta,omitempty"`
	}{res.Content, res.StructuredContent, res.IsError, res.Meta}))
}

// marshalCompact encodes as the MCP server does (no HTML escaping); a value that cannot be
// encoded counts as nothing here and fails where the server encodes it.
func marshalCompact(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// escapedLen is the length of s as a JSON string.
func escapedLen(s string) int { return len(marshalCompact(s)) }

// answer turns a report into the call's result, within the budget: a list too long for it
// is cut to the items that fit (the page record and the text say so, and where to
// continue); what still does not fit (one huge item, a document) is cut inside
// structuredContent and the text, saying exactly what was left out.
func answer(d *Descriptor, r Report, in any, notes *Notes, budget int) *mcp.CallResult {
	build := func(r Report, note string) *mcp.CallResult {
		res := withNotes(result(r), notes)
		if note != "" && len(res.Content) > 0 {
			res.Content[0].Text = strings.TrimSuffix(res.Content[0].Text, "\n") + "\n" + note + "\n"
		}
		return res
	}
	res := build(r, "")
	if budget <= 0 {
		return res
	}
	// The report encoded once: its size decides, and a cut starts from it.
	encoded := *res
	if data := marshalCompact(res.StructuredContent); data != nil {
		encoded.StructuredContent = json.RawMessage(data)
	}
	if resultSize(&encoded)+resultReserve <= budget {
		return res
	}
	if p, ok := r.(diag.Pager); ok && pageLen(p) > 1 {
		n := pageLen(p)
		keep := func(k int) Report { return p.KeepFirst(k, limitOf(in)).(Report) }
		fits := func(k int) (*mcp.CallResult, bool) {
			res := build(keep(k), pagedNote(p, k, budget))
			return res, resultSize(res)+resultReserve <= budget
		}
		// The largest k that fits, by bisection between 1 (at least one item) and n.
		lo, hi := 0, n
		var best *mcp.CallResult
		for lo+1 < hi {
			mid := lo + (hi-lo)/2
			if res, ok := fits(mid); ok {
				lo, best = mid, res
			} else {
				hi = mid
			}
		}
		if best != nil {
			return best
		}
		r = keep(1)
		res = build(r, pagedNote(p, 1, budget))
		return cutInside(d, res, budget)
	}
	return cutInside(d, &encoded, budget)
}

// result renders a report: its text and, as structured content, the report itself.
func result(r Report) *mcp.CallResult {
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		return mcp.ErrorResult("rendering the report: %v", err)
	}
	res := &mcp.CallResult{Content: []mcp.Content{mcp.TextContent(buf.String())}, StructuredContent: r}
	if f, ok := r.(Failer); ok && f.Failure() != nil {
		res.IsError = true
		res.Content = append(res.Content, mcp.TextContent(f.Failure().Error()))
	}
	return res
}

// limitOf is the call's limit argument (0 when the tool has none).
func limitOf(in any) int {
	if in == nil {
		return 0
	}
	if f := reflect.ValueOf(in).Elem().FieldByName("Limit"); f.IsValid() && f.CanInt() {
		return int(f.Int())
	}
	return 0
}

// pageLen is how many items a report's page holds.
func pageLen(p diag.Pager) int {
	n, _, _ := p.PageItems()
	return n
}

// pagedNote says that a page was cut to its first k items to fit the budget, and where the
// next call continues.
func pagedNote(p diag.Pager, k int, budget int) string {
	off := 0
	if page := p.PageRecord(); page != nil {
		off = page.Offset
	}
	_, one, many := p.PageItems()
	return fmt.Sprintf("(%s shown, to keep the answer under %d bytes; continue with offset %d)", diag.Plural(k, one, many), budget, off+k)
}

// cutInside makes a result fit its budget by cutting inside it: structuredContent keeps its
// shape (and so its outputSchema) with arrays and strings shortened and free-form
// documents too large for it left out (null); the text keeps its beginning and its last
// line. Both say what was left out.
func cutInside(d *Descriptor, res *mcp.CallResult, budget int) *mcp.CallResult {
	avail := budget - resultReserve
	var cuts []Cut
	out := &mcp.CallResult{IsError: res.IsError, Meta: res.Meta}
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].Text
	}
	// The other text blocks (the error of a tool that ran and failed, the notes) are
	// short: they are kept, within a quarter of the budget.
	var rest []mcp.Content
	restSize := 0
	for _, c := range res.Content[min(1, len(res.Content)):] {
		c.Text = BoundHint(c.Text, max(avail/4-restSize, 300), "the rest is left out")
		restSize += escapedLen(c.Text) + 20
		rest = append(rest, c)
	}
	avail -= restSize + 400 // the note of the cut, in the text and in _meta
	if res.StructuredContent != nil {
		sTarget := avail - min(escapedLen(text), avail/2)
		data, ok := res.StructuredContent.(json.RawMessage)
		if !ok {
			data = marshalCompact(res.StructuredContent)
		}
		if data != nil {
			f := &fitter{free: freePaths(d)}
			data = f.fit(data, sTarget, "", "")
			cuts = f.cuts
			out.StructuredContent = json.RawMessage(data)
			avail -= len(data)
		}
	}
	hint := cutHint(d, cuts)
	if len(cuts) > 0 {
		text = boundEscaped(text, avail, "what was cut is said below")
	} else {
		text = boundEscaped(text, avail, narrowHint(d))
	}
	if len(cuts) > 0 {
		text = strings.TrimSuffix(text, "\n") + "\n" + hint + "\n"
		meta := map[string]any{}
		for k, v := range out.Meta {
			meta[k] = v
		}
		meta["jstk/cut"] = cuts
		out.Meta = meta
	}
	out.Content = append([]mcp.Content{mcp.TextContent(text)}, rest...)
	return out
}

// cutHint says what the cut left out, and how to get it, naming only arguments the tool
// has.
func cutHint(d *Descriptor, cuts []Cut) string {
	var sb strings.Builder
	sb.WriteString("(cut to keep the answer within its budget")
	const most = 5
	for i, c := range cuts {
		if i == most {
			fmt.Fprintf(&sb, "; %d more cuts (see _meta jstk/cut)", len(cuts)-most)
			break
		}
		sb.WriteString("; ")
		sb.WriteString(c.String())
	}
	fmt.Fprintf(&sb, "; %s)", narrowHint(d))
	return sb.String()
}

// boundEscaped bounds text so that, as a JSON string, it takes at most max bytes.
func boundEscaped(text string, max int, hint string) string {
	if escapedLen(text) <= max {
		return text
	}
	target := max
	for range 8 {
		if target < 400 {
			break
		}
		t := BoundHint(text, target, hint)
		if escapedLen(t) <= max {
			return t
		}
		target -= (escapedLen(t) - max) + target/16
	}
	// Room for no more than the note.
	note := "... [the text is left out; " + hint + "]\n"
	for escapedLen(note) > max && len(note) > 0 {
		_, size := utf8.DecodeLastRuneInString(note)
		note = note[:len(note)-size]
	}
	return note
}

// fitter cuts a JSON value to a size, recording the cuts. It works on the encoded value and
// decodes only the parts it cuts into, so a result of many megabytes is never held as a
// tree of Go values.
type fitter struct {
	free map[string]bool // the paths ("/a/*/b") of free-form documents: kept whole or left out
	cuts []Cut
}

// fit returns the JSON value v cut to at most limit bytes where it can be: at ptr in the
// result, whose path (with "*" for array indices) is path.
func (f *fitter) fit(v json.RawMessage, limit int, ptr, path string) json.RawMessage {
	if len(v) <= limit {
		return v
	}
	if f.free[path] {
		f.cuts = append(f.cuts, Cut{Pointer: ptr, Total: len(v), Unit: "document"})
		return json.RawMessage("null")
	}
	switch v[0] {
	case '"':
		var x string
		if json.Unmarshal(v, &x) != nil {
			return v
		}
		keep := cutString(x, limit)
		f.cuts = append(f.cuts, Cut{Pointer: ptr, Kept: len(keep), Total: len(x), Unit: "bytes"})
		return marshalCompact(keep + "…")
	case '[':
		items, ok := elements(v)
		if !ok {
			return v
		}
		out := []byte{'['}
		kept := 0
		for i, item := range items {
			if len(out)+len(item)+2 <= limit {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, item...)
				kept++
				continue
			}
			if i == 0 {
				if item = f.fit(item, limit-2, ptr+"/0", path+"/*"); len(item)+2 <= limit {
					out = append(out, item...)
					kept++
				}
			}
			break
		}
		if kept < len(items) {
			f.cuts = append(f.cuts, Cut{Pointer: ptr, Kept: kept, Total: len(items), Unit: "items"})
		}
		return append(out, ']')
	case '{':
		keys, vals, ok := members(v)
		if !ok {
			return v
		}
		// Share the room among the members: those larger than a common cap are cut to it
		// (an array or a string shortened), the others kept. Documents are kept whole while
		// the other members can make the room; else the largest are left out first.
		child := func(i int) string {
			if f.free[path+"/*"] {
				return path + "/*" // a map's values
			}
			return path + "/" + keys[i]
		}
		room := limit - (len(v) - totalOf(vals))
		var docs, others []int
		for i := range vals {
			if f.free[child(i)] {
				docs = append(docs, i)
			} else {
				others = append(others, i)
			}
		}
		sort.SliceStable(docs, func(a, b int) bool { return len(vals[docs[a]]) > len(vals[docs[b]]) })
		for {
			left := room
			for _, i := range docs {
				left -= len(vals[i])
			}
			var rest []json.RawMessage
			for _, i := range others {
				rest = append(rest, vals[i])
			}
			if len(docs) == 0 || left >= minimal(rest) {
				cap := capFor(rest, left)
				for _, i := range others {
					if len(vals[i]) > cap {
						vals[i] = f.fit(vals[i], cap, ptr+"/"+source.EscapeToken(keys[i]), child(i))
					}
				}
				break
			}
			i := docs[0] // the largest document goes
			vals[i] = f.fit(vals[i], 0, ptr+"/"+source.EscapeToken(keys[i]), child(i))
			docs = docs[1:]
			room -= len(vals[i])
		}
		out := []byte{'{'}
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, marshalCompact(k)...)
			out = append(out, ':')
			out = append(out, vals[i]...)
		}
		return append(out, '}')
	}
	return v // a number, a boolean or null cannot be cut
}

// minimal is about the least room values take once cut: what cannot be cut (numbers,
// booleans, null) and a few bytes for each of the others.
func minimal(vals []json.RawMessage) int {
	n := 0
	for _, v := range vals {
		switch {
		case len(v) == 0:
		case v[0] == '"' || v[0] == '[' || v[0] == '{':
			n += min(len(v), 8)
		default:
			n += len(v)
		}
	}
	return n
}

// totalOf is the size of values together.
func totalOf(vals []json.RawMessage) int {
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	return n
}

// capFor is the largest size c such that the values, each cut to c, take at most room
// bytes together (the smallest values are kept whole, the largest share what is left).
func capFor(vals []json.RawMessage, room int) int {
	sizes := make([]int, len(vals))
	for i, v := range vals {
		sizes[i] = len(v)
	}
	sort.Ints(sizes)
	for i, size := range sizes {
		// the values from i on are cut to the same cap
		if c := room / (len(sizes) - i); size > c {
			return max(c, 0)
		}
		room -= size
	}
	return sizes[len(sizes)-1]
}

// members splits an encoded object into its keys and values, in order. The value is
// compact JSON as encoding/json writes it; the values are slices of it.
func members(v json.RawMessage) (keys []string, vals []json.RawMessage, ok bool) {
	parts, ok := split(v, '{', '}')
	if !ok {
		return nil, nil, false
	}
	for _, p := range parts {
		end := stringEnd(p, 0)
		if end < 0 || end >= len(p) || p[end] != ':' {
			return nil, nil, false
		}
		var k string
		if json.Unmarshal(p[:end], &k) != nil {
			return nil, nil, false
		}
		keys, vals = append(keys, k), append(vals, p[end+1:])
	}
	return keys, vals, true
}

// elements splits an encoded array into its items (slices of it).
func elements(v json.RawMessage) ([]json.RawMessage, bool) { return split(v, '[', ']') }

// split splits compact JSON between open and close at its top-level commas.
func split(v json.RawMessage, open, close byte) ([]json.RawMessage, bool) {
	if len(v) < 2 || v[0] != open || v[len(v)-1] != close {
		return nil, false
	}
	var parts []json.RawMessage
	depth, start := 0, 1
	for i := 1; i < len(v)-1; i++ {
		switch c := v[i]; c {
		case '"':
			if i = stringEnd(v, i) - 1; i < 0 {
				return nil, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, v[start:i])
				start = i + 1
			}
		}
	}
	if start < len(v)-1 {
		parts = append(parts, v[start:len(v)-1])
	}
	return parts, depth == 0
}

// stringEnd returns the index just after the JSON string starting at v[i] ('"'), or -1.
func stringEnd(v []byte, i int) int {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// cutString keeps the beginning of s that, as a JSON string with "…" after it, takes at
// most max bytes, at a rune boundary.
func cutString(s string, max int) string {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		for mid > 0 && mid < len(s) && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid <= lo {
			break
		}
		if escapedLen(s[:mid]+"…") <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for lo > 0 && lo < len(s) && !utf8.RuneStart(s[lo]) {
		lo--
	}
	return s[:lo]
}

// freePaths lists where a descriptor's structured results hold free-form documents (a
// bundled schema, an example instance): "/schema", "/changes/*/example".
func freePaths(d *Descriptor) map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type, path string, onPath map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, onPath map[reflect.Type]bool) {
		t = deref(t)
		if freeForm(t) {
			out[path] = true
			return
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
				return
			}
			walk(t.Elem(), path+"/*", onPath)
		case reflect.Struct:
			if onPath[t] {
				return
			}
			onPath[t] = true
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if !f.IsExported() || name == "-" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if f.Anonymous && f.Tag.Get("json") == "" && deref(f.Type).Kind() == reflect.Struct {
					walk(f.Type, path, onPath) // an embedded struct's fields are the parent's
					continue
				}
				walk(f.Type, path+"/"+name, onPath)
			}
			delete(onPath, t)
		}
	}
	walk(d.Output, "", map[reflect.Type]bool{})
	return out
}
