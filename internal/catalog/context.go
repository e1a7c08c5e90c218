package catalog

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// DefaultMaxText is the number of characters of a schema's text a Context holds by
// default.
const DefaultMaxText = 6000

// maxCandidates bounds the ids offered when a lookup fails.
const maxCandidates = 10

// Property is one property of a schema's root "properties".
type Property struct {
	Name string `json:"name"`
	// Type is the property's "type" as a list ([] when it has none).
	Type []string `json:"type"`
	// Ref is the property's $ref as written, if any.
	Ref string `json:"ref,omitempty"`
	// Description is the property's description (or title), shortened.
	Description string `json:"description,omitempty"`
	// Required is true when the root "required" lists it.
	Required bool `json:"required"`
	Line     int  `json:"line,omitempty"`
}

// Shape is the top level of a schema.
type Shape struct {
	// Keywords are the root's keywords, in document order.
	Keywords []string `json:"keywords"`
	// Type is the root "type" as a list.
	Type []string `json:"type"`
	// Required is the root "required".
	Required []string `json:"required"`
	// Properties are the members of the root "properties", in document order.
	Properties []Property `json:"properties"`
	// AdditionalProperties is "false", "true" or "schema" when the root has the keyword.
	AdditionalProperties string `json:"additionalProperties,omitempty"`
	// Defs are the names of the root $defs and definitions, in document order.
	Defs []string `json:"defs"`
}

// Incoming is a reference to the schema from another schema of the workspace.
type Incoming struct {
	// From is the id of the referring schema, Path its file.
	From string `json:"from"`
	Path string `json:"path"`
	// Pointer, Line and Column locate the reference keyword in Path.
	Pointer string `json:"pointer"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Ref is the reference as written.
	Ref string `json:"ref"`
}

// RefCounts counts a schema's outgoing references by where they lead.
type RefCounts struct {
	Total      int `json:"total"`
	Local      int `json:"local"`
	Workspace  int `json:"workspace"`
	Builtin    int `json:"builtin"`
	Unresolved int `json:"unresolved"`
}

// Omitted counts the items each list of a Context left out (by its limit).
type Omitted struct {
	Properties   int `json:"properties,omitempty"`
	Defs         int `json:"defs,omitempty"`
	References   int `json:"references,omitempty"`
	ReferencedBy int `json:"referencedBy,omitempty"`
	Problems     int `json:"problems,omitempty"`
	// TextCharacters and TextLines count the schema text left out.
	TextCharacters int `json:"textCharacters,omitempty"`
	TextLines      int `json:"textLines,omitempty"`
}

// Candidate is a schema whose id or path is close to an id that matched nothing.
type Candidate struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// Context is one schema's complete context, or, when the id matched no schema, the
// closest ids and the error.
type Context struct {
	// ID is the id asked for (with "#" and the pointer, for a schema inside a document).
	ID string `json:"id"`
	// Pointer is the JSON Pointer of the schema inside its document, when one was asked
	// for: the shape, references, problems and text are then the subschema's.
	Pointer string `json:"pointer,omitempty"`
	// Document says what holds the schema when it is not itself a schema of the catalog:
	// "openapi.yaml: OpenAPI 3.0.3 document".
	Document string `json:"document,omitempty"`
	// Found is false when the id matched no schema (or several): Error then says so, and
	// Candidates lists the closest ids.
	Found      bool        `json:"found"`
	Error      string      `json:"error,omitempty"`
	Candidates []Candidate `json:"candidates,omitempty"`

	// Schema is the catalog entry.
	Schema *Entry `json:"schema,omitempty"`
	// Shape is the top level of the schema.
	Shape *Shape `json:"shape,omitempty"`
	// References are the outgoing references: first those to other documents, then those
	// within the document, each in document order.
	References []Ref      `json:"references,omitempty"`
	RefCounts  *RefCounts `json:"refCounts,omitempty"`
	// ReferencedBy are the references to this schema from the other schemas.
	ReferencedBy []Incoming `json:"referencedBy,omitempty"`
	// Problems are the meta-schema violations and the compilation problem, by position.
	Problems []Problem `json:"problems,omitempty"`
	// Text is the schema's text, cut at a line boundary when longer than the limit.
	Text string `json:"text,omitempty"`
	// Omitted counts what the limits left out.
	Omitted *Omitted `json:"omitted,omitempty"`
	// Workspace describes the scan.
	Workspace Scanned `json:"workspace"`

	diags []diag.Diagnostic
	// unknownID is set when the id matched nothing: only then does the text say that no
	// id is close to it (a document found with nothing at the pointer is another failure).
	unknownID bool
}

// ContextLimits bound the lists and the text of a Context.
type ContextLimits struct {
	// Limit keeps at most this many items of each list (0: all).
	Limit int
	// MaxText keeps at most this many characters of the schema's text (0: DefaultMaxText).
	MaxText int
}

// Context returns the context of the schema whose id is exactly id: its $id (with or
// without an empty fragment "#") or its workspace path. It never guesses: an id that
// matches no schema, or several, gives a Context with Found false, the error, and the
// closest ids.
func (w *Workspace) Context(id string, lim ContextLimits) *Context {
	c := &Context{ID: id, Workspace: w.scanned}
	matches := w.lookup(strings.TrimSpace(id))
	switch len(matches) {
	case 0:
		c.Error = fmt.Sprintf("no schema of the workspace has the id %q (an id is a schema's absolute $id or its "+
			"workspace path, exactly); list_schemas lists them", id)
		c.Candidates = w.candidates(strings.TrimSpace(id))
		c.unknownID = true
		return c
	case 1:
	default:
		c.Error = fmt.Sprintf("%d schemas of the workspace have the id %q; ask for one of them by its path", len(matches), id)
		for _, s := range matches {
			c.Candidates = append(c.Candidates, Candidate{ID: s.file.path, Path: s.file.path})
		}
		return c
	}
	s := matches[0]
	c.Found = true
	e := s.entry
	c.Schema = &e
	om := &Omitted{}
	limit := func(n int) int {
		if lim.Limit > 0 && n > lim.Limit {
			return lim.Limit
		}
		return n
	}
	if doc, err := w.reread(s.file); err != nil {
		c.Problems = append(c.Problems, Problem{Message: "the file cannot be read again: " + err.Error()})
	} else if doc != nil {
		sh := shape(doc)
		n := limit(len(sh.Properties))
		om.Properties, sh.Properties = len(sh.Properties)-n, sh.Properties[:n]
		n = limit(len(sh.Defs))
		om.Defs, sh.Defs = len(sh.Defs)-n, sh.Defs[:n]
		c.Shape = sh
		c.Text, om.TextCharacters, om.TextLines = cutText(string(doc.Source()), lim.MaxText)
	}
	refs, counts := s.orderedRefs()
	c.RefCounts = &counts
	n := limit(len(refs))
	om.References, c.References = len(refs)-n, refs[:n]
	n = limit(len(s.incoming))
	om.ReferencedBy, c.ReferencedBy = len(s.incoming)-n, append([]Incoming(nil), s.incoming[:n]...)
	problems := append(s.problems(), c.Problems...)
	n = limit(len(problems))
	om.Problems, c.Problems = len(problems)-n, problems[:n]
	if *om != (Omitted{}) {
		c.Omitted = om
	}
	c.diags = s.diagnostics()
	return c
}

// lookup finds the schemas whose id is exactly id: the catalog id, the $id without an empty
// fragment, or the workspace path (relative, or absolute inside the workspace).
func (w *Workspace) lookup(id string) []*schemaDoc {
	if id == "" {
		return nil
	}
	if m := w.byID[id]; len(m) > 0 {
		return m
	}
	if n := normalizeID(id); n != "" && strings.TrimSuffix(id, "#") == n {
		if m := w.byID[n]; len(m) > 0 {
			return m
		}
	}
	p := filepath.ToSlash(id)
	if path.IsAbs(p) {
		rel, ok := w.fsys.Rel(p)
		if !ok {
			return nil
		}
		p = rel
	}
	if s, ok := w.byPath[path.Clean(p)]; ok {
		return []*schemaDoc{s}
	}
	return nil
}

// candidates are the schemas whose id, path or file name contains the id asked for (or is
// contained in it), or is within a small edit distance of it, closest first.
func (w *Workspace) candidates(id string) []Candidate {
	q := strings.ToLower(id)
	if q == "" {
		return nil
	}
	type scored struct {
		s     *schemaDoc
		score int
	}
	var found []scored
	for _, s := range w.schemas {
		best := -1
		for _, k := range []string{s.entry.ID, s.file.path, path.Base(s.file.path), strings.TrimSuffix(path.Base(s.file.path), path.Ext(s.file.path))} {
			k = strings.ToLower(k)
			score := -1
			switch {
			case k == q:
				score = 0
			case strings.Contains(k, q) || containsSegment(q, k):
				score = 1 + abs(len(k)-len(q))
			default:
				if d, ok := editDistance(q, k, max(2, len(q)/4)); ok {
					score = 1000 + d
				}
			}
			if score >= 0 && (best < 0 || score < best) {
				best = score
			}
		}
		if best >= 0 {
			found = append(found, scored{s, best})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score < found[j].score
		}
		return found[i].s.entry.ID < found[j].s.entry.ID
	})
	var out []Candidate
	for i, f := range found {
		if i == maxCandidates {
			break
		}
		id := f.s.entry.ID
		if len(w.byID[id]) > 1 {
			id = f.s.file.path // the id is ambiguous: the path is what can be asked for
		}
		out = append(out, Candidate{ID: id, Path: f.s.file.path})
	}
	return out
}

// containsSegment reports whether s holds name (of at least 4 characters) as a whole
// segment: after the start or a "/", and before the end, a ".", a "/" or a "#".
func containsSegment(s, name string) bool {
	if len(name) < 4 {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || s[start-1] == '/') && (end == len(s) || strings.ContainsRune("./#", rune(s[end]))) {
			return true
		}
		i = start + 1
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance between a and b (in bytes), when it is at most
// bound.
func editDistance(a, b string, bound int) (int, bool) {
	if abs(len(a)-len(b)) > bound {
		return 0, false
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > bound {
		return 0, false
	}
	return prev[len(b)], true
}

// reread parses a schema's file again for its context (a scan keeps no documents); nil when
// the scan found it unparsable.
func (w *Workspace) reread(f *fileInfo) (*source.Document, error) {
	if f.err != nil {
		return nil, nil
	}
	data, err := workspace.ReadFile(w.fsys, f.path, w.opts.MaxFileSize)
	if err != nil {
		return nil, err
	}
	return schema.ParseDocument(f.path, data, w.opts.Limits)
}

// shape reads the top level of a schema.
func shape(doc *source.Document) *Shape { return shapeOf(doc, doc.Root) }

// shapeOf reads the top level of the schema root, a value of doc.
func shapeOf(doc *source.Document, root source.Value) *Shape {
	sh := &Shape{Keywords: []string{}, Type: []string{}, Required: []string{}, Properties: []Property{}, Defs: []string{}}
	if root.Kind() != source.Object {
		return sh
	}
	for i := 0; i < root.Len(); i++ {
		sh.Keywords = append(sh.Keywords, root.Key(i))
	}
	sh.Type = typeList(root)
	required := map[string]bool{}
	if r, ok := root.Get("required"); ok {
		for _, item := range r.Items() {
			if item.Kind() == source.String {
				sh.Required = append(sh.Required, item.Str())
				required[item.Str()] = true
			}
		}
	}
	if ap, ok := root.Get("additionalProperties"); ok {
		switch {
		case ap.Kind() == source.Bool && ap.Bool():
			sh.AdditionalProperties = "true"
		case ap.Kind() == source.Bool:
			sh.AdditionalProperties = "false"
		default:
			sh.AdditionalProperties = "schema"
		}
	}
	if props, ok := root.Get("properties"); ok && props.Kind() == source.Object {
		for i := 0; i < props.Len(); i++ {
			k, v := props.Member(i)
			p := Property{Name: k.Str(), Type: typeList(v), Required: required[k.Str()]}
			p.Line, _ = doc.Position(k.Offset())
			if r, ok := v.Get("$ref"); ok && r.Kind() == source.String {
				p.Ref = r.Str()
			}
			for _, kw := range []string{"description", "title", "markdownDescription"} {
				if d, ok := v.Get(kw); ok && d.Kind() == source.String {
					p.Description = shortDescription(d.Str())
					break
				}
			}
			sh.Properties = append(sh.Properties, p)
		}
	}
	for _, kw := range schema.DefinitionsKeywords() {
		if defs, ok := root.Get(kw); ok && defs.Kind() == source.Object {
			for i := 0; i < defs.Len(); i++ {
				sh.Defs = append(sh.Defs, defs.Key(i))
			}
		}
	}
	return sh
}

// typeList is a schema's "type" as a list.
func typeList(v source.Value) []string {
	out := []string{}
	t, ok := v.Get("type")
	if !ok {
		return out
	}
	if t.Kind() == source.String {
		return append(out, t.Str())
	}
	for _, item := range t.Items() {
		if item.Kind() == source.String {
			out = append(out, item.Str())
		}
	}
	return out
}

// orderedRefs lists the references to other documents first, then the local ones, and
// counts them.
func (s *schemaDoc) orderedRefs() ([]Ref, RefCounts) {
	var ext, local []Ref
	var n RefCounts
	for _, r := range s.refs {
		n.Total++
		switch {
		case r.Target == nil:
			n.Unresolved++
			ext = append(ext, *r)
		case r.Target.Local:
			n.Local++
			local = append(local, *r)
		case r.Target.Builtin:
			n.Builtin++
			ext = append(ext, *r)
		default:
			n.Workspace++
			ext = append(ext, *r)
		}
	}
	return append(append([]Ref{}, ext...), local...), n
}

// problems are the schema's meta-schema violations and its compilation problem.
func (s *schemaDoc) problems() []Problem {
	out := sortedProblems(s.metaErrs)
	switch {
	case s.compile != nil && s.entry.Valid:
		out = append(out, *s.compile)
	case s.dependency != "":
		out = append(out, Problem{Message: s.entry.Problem})
	}
	return out
}

// cutText keeps at most max characters of text (DefaultMaxText when max is 0), cut at a line
// boundary, and counts what it left out.
func cutText(text string, max int) (string, int, int) {
	if max <= 0 {
		max = DefaultMaxText
	}
	if utf8.RuneCountInString(text) <= max {
		return text, 0, 0
	}
	cut := text
	n := 0
	for i := range text {
		if n == max {
			cut = text[:i]
			break
		}
		n++
	}
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	rest := text[len(cut):]
	lines := strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		lines++
	}
	return cut, utf8.RuneCountInString(rest), lines
}

// Failure is the error of a Context that did not find its schema: the tool ran, and then
// failed. It is nil when the schema was found.
func (c *Context) Failure() error {
	if c.Found {
		return nil
	}
	return errors.New(c.Error)
}

// Diagnostics lists the schema's problems, for SARIF and GitHub output.
func (c *Context) Diagnostics() []diag.Diagnostic {
	out := append([]diag.Diagnostic{}, c.diags...)
	diag.Sort(out)
	return out
}

// ExitCode is 2 when the id matched no schema (the tool ran, then failed), else 0.
func (c *Context) ExitCode() int {
	if !c.Found {
		return 2
	}
	return 0
}

// display names a URI for an answer: a file of the workspace by its path (relative to the
// workspace root), never by the machine's file:// URI.
func (w *Workspace) display(u string) string {
	return (&schema.Loader{FS: w.fsys}).Display(u)
}

// beside locates a URI next to the file of the schema s that refers to it with from, as
// the schema loader does: the relative path from the reference's base URI (or the
// document's root base URI) to the URI, taken from the file's folder. The location has a
// path when that file exists; otherwise its reason says which file was tried.
func (w *Workspace) beside(u string, from *Ref, s *schemaDoc) location {
	if from == nil || s == nil {
		return location{}
	}
	ref := &schema.Referrer{File: s.file.path, Bases: []string{from.base}}
	if root, ok := s.res[schema.FileURI(w.fsys.Abs(s.file.path))]; ok && root.uri != from.base {
		ref.Bases = append(ref.Bases, root.uri)
	}
	name, ok := (&schema.Loader{FS: w.fsys}).Beside(u, ref)
	if !ok {
		return location{}
	}
	if loc := w.fileAt(name, ""); loc.path != "" {
		return loc
	}
	return location{reason: fmt.Sprintf(" (not the file %s beside the referring document either)", name)}
}

// followLocal walks, too, the subschemas of a document that its own references reach but
// the walk from the root did not enter, and then what those reach, so that "references out"
// (and the other schemas' "referenced by") hold every reference evaluation can meet. Before
// draft 2019-09 the siblings of $ref are ignored, yet a root {"$ref": "#/definitions/main",
// "definitions": {...}} (a common SchemaStore layout) reaches its definitions through it.
// Each subschema is walked once.
func (w *Workspace) followLocal(s *schemaDoc, d *schema.Draft) {
	n := len(s.refs)
	defer func() {
		if len(s.refs) > n { // keep them in document order
			sort.SliceStable(s.refs, func(i, j int) bool {
				a, b := s.refs[i], s.refs[j]
				return a.Line < b.Line || (a.Line == b.Line && a.Column < b.Column)
			})
		}
	}()
	for i := 0; i < len(s.refs); i++ { // the walks below append to s.refs
		r := s.refs[i]
		u, frag, err := schema.ResolveURI(r.base, r.Ref)
		if err != nil {
			continue
		}
		res, ok := s.res[u]
		if !ok {
			continue
		}
		ptr := res.ptr
		switch {
		case frag == "":
		case strings.HasPrefix(frag, "/"):
			ptr += frag
		default:
			if ptr, ok = res.anchors[frag]; !ok {
				continue
			}
		}
		at, ok := s.placeOf(ptr)
		if !ok || s.walked[at] {
			continue
		}
		if v, ok := s.file.doc.Root.Pointer(ptr); ok {
			w.walk(s, v, at, d, s.resourceAt(ptr), false)
		}
	}
}

// resourceAt returns the innermost resource of a schema's document that encloses ptr.
func (s *schemaDoc) resourceAt(ptr string) *resourceInfo {
	var best *resourceInfo
	for _, r := range s.res {
		if r.ptr == "" || r.ptr == ptr || strings.HasPrefix(ptr, r.ptr+"/") {
			if best == nil || len(r.ptr) > len(best.ptr) || (len(r.ptr) == len(best.ptr) && r.uri < best.uri) {
				best = r
			}
		}
	}
	return best
}
