// Package schema owns JSON Schema itself: the drafts and their meta-schemas, loading schema
// documents offline, resolving $ref (documents, $id, anchors, dynamic references), compiling
// a schema into an evaluable form, and evaluating instances against it with every error
// located in both the instance and the schema.
//
// Drafts 4, 6, 7, 2019-09 and 2020-12 are supported, chosen by $schema. Numbers are compared
// exactly, patterns are ECMA-262 regular expressions with a match time limit, and formats are
// asserted only on request.
package schema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jstk-dev/jstk/internal/source"
)

// Options configure a Compiler. The zero value is ready to use.
type Options struct {
	// Draft is the dialect of a schema that has no $schema; nil means 2020-12.
	Draft *Draft
	// ForceDraft makes Draft apply even to schemas that declare $schema.
	ForceDraft bool
	// AssertFormat makes "format" an assertion instead of an annotation.
	AssertFormat bool
	// AssertContent makes contentEncoding and contentMediaType assertions.
	AssertContent bool
	// Formats are formats of the caller's by name, which replace the built-in ones of the
	// same name. They are always asserted (whatever AssertFormat says: defining a format
	// asks for it to be checked), on values of every type; a non-nil error is the reason
	// the value is not of the format.
	Formats map[string]func(v source.Value) error
	// Loader finds referenced documents; nil allows only the built-in meta-schemas.
	Loader *Loader
	// RegexTimeout bounds one pattern match (default 2s).
	RegexTimeout time.Duration
	// NoMetaValidation skips checking schemas against their meta-schema.
	NoMetaValidation bool
	// Context, when not nil, bounds compilation: once it is done, Compile stops within a
	// few hundred schemas (and meta-schema validation at its next check) and returns an
	// error wrapping the context's (a *StoppedError for a run's time limit, see Stopped).
	Context context.Context
	// StrictDraft ignores, in draft 4 and 6 schemas, the keywords later drafts introduced
	// (const, contains, propertyNames, if/then/else), as the letter of those drafts says.
	// By default jstk applies them, as Ajv and editors do: no draft gives them another
	// meaning, and a schema that uses them means them.
	StrictDraft bool
}

// Compiler loads and compiles schemas. It keeps every document it has loaded, so the
// schemas compiled from one Compiler share their references. A Compiler is not safe for
// concurrent use; the Schemas it returns are.
type Compiler struct {
	opts   Options
	loader *Loader
	docs   map[string]*document // by retrieval URI
	byFile map[string]*document // the documents read from files, by file name
	res    map[string]*resource // by base URI (and retrieval URI of each document)
	added  []*Schema            // the schemas, in the order compilation began them
	// pending holds the schemas begun whose keywords are still to be read: compilation
	// works through them with this stack instead of recursing, so that neither a deep
	// document nor a long chain of references can exhaust the goroutine's stack.
	pending []*Schema
	metas   map[string]*Schema // compiled meta-schemas by URI
	regexes map[string]Regexp
	loading map[string]bool // meta-schema URIs being resolved, to stop cycles
	info    *compileInfo
	// unfinished are the resources indexed (of documents loaded, of schemas entered in a
	// container) since finish last went through them: a compiler that serves many Compile
	// calls goes through each resource once, not once per call.
	unfinished []*resource
	// readers are kwReaders free for compileKeywords to reuse: passed to the handlers of
	// the table, a reader would otherwise be allocated for every schema compiled. More
	// than one is in use when compiling a schema compiles a meta-schema.
	readers []*kwReader
}

// compileInfo is what the schemas of one compiler share.
type compileInfo struct {
	// dynamic is set when some schema has a dynamic reference ($dynamicRef to a
	// $dynamicAnchor, $recursiveRef to a $recursiveAnchor): verdicts may then depend on the
	// path that led to a schema. Atomic: the process-wide compiler of the built-in
	// meta-schemas sets it while other goroutines evaluate schemas it compiled before.
	dynamic atomic.Bool
	// schemas counts the schemas the compiler has made (CompiledCount).
	schemas atomic.Int64
	// strict is Options.StrictDraft (Ignored reads it).
	strict bool
}

// NewCompiler returns a Compiler; opts may be nil.
func NewCompiler(opts *Options) *Compiler {
	c := &Compiler{
		docs:    map[string]*document{},
		byFile:  map[string]*document{},
		res:     map[string]*resource{},
		metas:   map[string]*Schema{},
		regexes: map[string]Regexp{},
		loading: map[string]bool{},
		info:    &compileInfo{},
	}
	if opts != nil {
		c.opts = *opts
	}
	c.info.strict = c.opts.StrictDraft
	if c.opts.Draft == nil {
		c.opts.Draft = Draft2020
	}
	if c.opts.RegexTimeout <= 0 {
		c.opts.RegexTimeout = 2 * time.Second
	}
	c.loader = c.opts.Loader
	if c.loader == nil {
		c.loader = &Loader{}
	}
	return c
}

// AddDocument makes an already parsed document available under uri (absolute, without
// fragment), as if it had been loaded from there. Inline schemas enter this way.
func (c *Compiler) AddDocument(uri string, doc *source.Document) error {
	_, err := c.addDocument(uri, doc, doc.Name, false, c.opts.Draft)
	return err
}

// Compile compiles the schema at uri (an absolute URI, optionally with a fragment).
func (c *Compiler) Compile(uri string) (*Schema, error) {
	u, frag, err := ResolveURI(uri, "")
	if err != nil {
		return nil, err
	}
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		frag = uri[i+1:]
	}
	return c.compileFrag(u, frag)
}

// compileFrag compiles the schema at fragment frag (a JSON Pointer or an anchor) of the
// document or resource with URI u.
func (c *Compiler) compileFrag(u, frag string) (*Schema, error) {
	mark := len(c.added)
	s, err := c.resolve(u, frag, nil)
	if err == nil {
		err = c.drain()
	}
	if err == nil {
		err = c.finish(mark)
	}
	if err == nil {
		added := c.added[mark:]
		for _, a := range added {
			if t := condTestOf(a); t != nil {
				a.rare().cond = t
			}
		}
		markLoops(added)
	}
	if err != nil {
		// Forget the schemas this attempt began, so a later Compile cannot meet one of
		// them half built.
		for _, a := range c.added[mark:] {
			a.at.schema = nil
		}
		clear(c.added[mark:])
		c.added = c.added[:mark]
		clear(c.pending)
		c.pending = c.pending[:0]
		return nil, err
	}
	return s, nil
}

// drain reads the keywords of the schemas begun, and of the subschemas they begin, until
// none is left. The subschemas a schema begins are read first, in the order they stand.
func (c *Compiler) drain() error {
	for n := 0; len(c.pending) > 0; n++ {
		if n%cancelEvery == 0 {
			if err := c.cancelled(); err != nil {
				return err
			}
		}
		s := c.pending[len(c.pending)-1]
		c.pending = c.pending[:len(c.pending)-1]
		mark := len(c.pending)
		if err := c.compileKeywords(s, s.val); err != nil {
			return err
		}
		slices.Reverse(c.pending[mark:])
	}
	return nil
}

// cancelEvery is how many schemas compilation reads between two looks at its context.
const cancelEvery = 256

// cancelled returns the error of the compiler's context once it is done.
func (c *Compiler) cancelled() error {
	ctx := c.opts.Context
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return Stopped(ctx, fmt.Errorf("compilation stopped: %w", err))
	}
	return nil
}

// finish compiles the schemas that dynamic references may jump to: the roots of resources
// with $recursiveAnchor and the targets of every $dynamicAnchor. Compiling them may load
// more documents, so it repeats until nothing new appears.
//
// Only the resources indexed since the last finish are gone through, and only the schemas
// this Compile began (from mark) are looked at: a compiler that serves many Compile calls
// does not go through everything it holds at each one.
func (c *Compiler) finish(mark int) error {
	defer func() {
		for _, s := range c.added[mark:] {
			if s.dynAnchor != "" || (s.recursiveRef != nil && s.recursiveRef.res.recursive) {
				c.info.dynamic.Store(true)
			}
		}
	}()
	for len(c.unfinished) > 0 {
		r := c.unfinished[0]
		if r.recursive && r.root == nil {
			s, err := c.compileAt(r.doc, r.at)
			if err == nil {
				err = c.drain()
			}
			if err != nil {
				return err
			}
			r.root = s
		}
		for name := range r.dynamic {
			if _, ok := r.dynSchemas[name]; ok {
				continue
			}
			s, err := c.compileAt(r.doc, r.anchors[name])
			if err == nil {
				err = c.drain()
			}
			if err != nil {
				return err
			}
			if r.dynSchemas == nil {
				r.dynSchemas = map[string]*Schema{}
			}
			r.dynSchemas[name] = s
		}
		// Compiling may have loaded more documents: their resources queue behind.
		c.unfinished = c.unfinished[1:]
	}
	return nil
}

// loadDocument returns the document at uri, loading, meta-validating and indexing it on
// first use; from is the schema whose reference this is (nil at the top).
func (c *Compiler) loadDocument(uri string, from *Schema) (*document, error) {
	if d, ok := c.docs[uri]; ok {
		return d, nil
	}
	src, name, err := c.loader.LoadFrom(uri, referrer(from))
	if err != nil {
		return nil, err
	}
	if d := c.fileDocument(name); d != nil {
		// The same file under another URI (the resolve map, the file beside a document, the
		// $id index) is the same document: another name for its root.
		c.docs[uri] = d
		if _, ok := c.res[uri]; !ok {
			c.res[uri] = d.resources[0]
		}
		return d, nil
	}
	// A document that does not name its dialect is read in its referrer's: a draft-07 schema's
	// $ref to a plain file means draft-07 there too (the Test-Suite's remotes rely on it).
	draft := c.opts.Draft
	if from != nil && from.Draft != nil {
		draft = from.Draft
	}
	d, err := c.addDocument(uri, src, name, name == "" && metaPath(uri) != "", draft)
	if err == nil && name != "" {
		d.fromFS = true
		c.byFile[name] = d
	}
	return d, err
}

// addDocument indexes src under uri; draft is the dialect it is read in unless it names its
// own with $schema.
func (c *Compiler) addDocument(uri string, src *source.Document, name string, builtin bool, draft *Draft) (*document, error) {
	if d, ok := c.docs[uri]; ok {
		return d, nil
	}
	if ct, ok := ContainerOf(src.Root); ok && !builtin {
		return c.addContainer(uri, src, name, ct, true, nil)
	}
	doc := &document{src: src, uri: uri, name: name, builtin: builtin}
	vocabs := map[string]bool(nil)
	root := src.Root
	switch root.Kind() {
	case source.Object, source.Bool:
	default:
		return nil, c.schemaErr(doc, "", "a schema must be an object or a boolean, not %s", kindName(root))
	}
	if sv, ok := root.Get("$schema"); ok && !(c.opts.ForceDraft && !builtin) {
		if sv.Kind() != source.String {
			return nil, c.schemaErr(doc, "/$schema", "$schema must be a string")
		}
		d, v, err := c.dialectOf(sv.Str(), uri)
		if err != nil {
			return nil, c.schemaErr(doc, "/$schema", "%v", err)
		}
		draft, vocabs = d, v
	}
	c.docs[uri] = doc
	if err := c.index(doc, draft, vocabs); err != nil {
		delete(c.docs, uri)
		return nil, err
	}
	if !builtin && !c.opts.NoMetaValidation {
		if err := c.metaValidate(doc); err != nil {
			delete(c.docs, uri)
			return nil, err
		}
	}
	c.unfinished = append(c.unfinished, doc.resources...)
	return doc, nil
}

// dialectOf determines the draft and vocabularies a $schema URI stands for.
func (c *Compiler) dialectOf(metaURI, base string) (*Draft, map[string]bool, error) {
	u, _, err := ResolveURI(base, metaURI)
	if err != nil {
		return nil, nil, err
	}
	if d := draftOfMeta(u); d != nil {
		return d, nil, nil
	}
	if c.loading[u] {
		return nil, nil, fmt.Errorf("meta-schema %q refers to itself through $schema", metaURI)
	}
	if len(c.loading) >= maxMetaChain {
		return nil, nil, fmt.Errorf("meta-schema %q: meta-schemas chained through $schema deeper than %d", metaURI, maxMetaChain)
	}
	c.loading[u] = true
	defer delete(c.loading, u)
	src, _, err := c.loader.Load(u)
	if err != nil {
		if errors.Is(err, ErrUnresolved) {
			near, hint := nearMeta(metaURI), ""
			if near == "" {
				hint = fetchMetaHint(u)
			}
			return nil, nil, fmt.Errorf("unknown $schema %q: %snot a supported draft (4, 6, 7, 2019-09, 2020-12) and not a meta-schema that can be resolved offline%s", metaURI, near, hint)
		}
		return nil, nil, fmt.Errorf("$schema %q: %v", metaURI, err)
	}
	// A custom meta-schema: its own $schema gives the draft, its $vocabulary the vocabularies.
	draft := Draft2020
	if sv, ok := src.Root.Get("$schema"); ok && sv.Kind() == source.String {
		d, _, err := c.dialectOf(sv.Str(), u)
		if err != nil {
			return nil, nil, err
		}
		draft = d
	}
	vv, ok := src.Root.Get("$vocabulary")
	if !ok || draft.Version < 2019 || vv.Kind() != source.Object {
		return draft, nil, nil
	}
	vocabs := map[string]bool{}
	for i := 0; i < vv.Len(); i++ {
		k, req := vv.Member(i)
		name, known := vocabName(draft, k.Str())
		if !known {
			if req.Kind() == source.Bool && req.Bool() {
				return nil, nil, fmt.Errorf("meta-schema %q requires vocabulary %q, which jstk does not support", metaURI, k.Str())
			}
			continue
		}
		vocabs[name] = true
	}
	return draft, vocabs, nil
}

// maxMetaChain bounds a chain of custom meta-schemas, each naming the next in its
// $schema, which dialectOf follows by recursion.
const maxMetaChain = 32

func vocabName(d *Draft, uri string) (string, bool) {
	for _, v := range append(d.vocabs, "format-assertion") {
		if uri == d.vocabURL(v) {
			return v, true
		}
	}
	return "", false
}

// resolve returns the compiled schema for base URI u and fragment frag; from is the schema
// whose reference this is (nil at the top), for error messages.
func (c *Compiler) resolve(u, frag string, from *Schema) (*Schema, error) {
	r, ok := c.res[u]
	if ok && !r.doc.builtin && metaPath(u) != "" && (from == nil || from.doc != r.doc) {
		ok = false // a built-in meta-schema's URI names it, except inside the document that declares it
	}
	if !ok {
		doc, err := c.loadDocument(u, from)
		if err != nil {
			return nil, err
		}
		if r, ok = c.res[u]; !ok || r.doc != doc {
			r = doc.resources[0]
		}
	}
	at := r.at
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		l, ok := r.doc.locate(r.at, frag)
		if !ok {
			return nil, fmt.Errorf("%s#%s does not exist", c.loader.Display(u), frag)
		}
		at = l
	default:
		l, ok := r.anchors[frag]
		if !ok {
			return nil, fmt.Errorf("no anchor %q in %s", frag, c.loader.Display(u))
		}
		at = l
	}
	if r.doc.container != nil {
		if err := c.enterContainer(r.doc, at); err != nil {
			return nil, err
		}
	}
	return c.compileAt(r.doc, at)
}

// compileAt begins the schema at the place l of doc: the schema is made at once, and its
// keywords are read when drain reaches it.
func (c *Compiler) compileAt(doc *document, l *loc) (*Schema, error) {
	if l.schema != nil {
		return l.schema, nil
	}
	res := resourceAt(l)
	if res.shown == "" && res.uri != "" {
		res.shown = c.loader.Display(res.uri)
	}
	v := l.val
	s := &Schema{
		Draft:     res.draft,
		doc:       doc,
		at:        l,
		val:       v,
		res:       res,
		info:      c.info,
		index:     len(c.added),
		minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		rareKeywords: &noRare,
	}
	l.schema = s
	c.added = append(c.added, s)
	c.info.schemas.Add(1)
	switch v.Kind() {
	case source.Bool:
		if v.Bool() {
			s.always = alwaysTrue
		} else {
			s.always = alwaysFalse
		}
	case source.Object:
		c.pending = append(c.pending, s)
	default:
		return nil, c.schemaErr(doc, l.String(), "a schema must be an object or a boolean, not %s", kindName(v))
	}
	return s, nil
}

func kindName(v source.Value) string {
	switch v.Kind() {
	case source.Array:
		return "an array"
	case source.Object:
		return "an object"
	case source.Null:
		return "null"
	case source.Invalid:
		return "nothing"
	}
	return "a " + v.Kind().String()
}

// SchemaError is a schema that cannot be used: invalid against its meta-schema, an
// unresolvable reference, a pattern that does not compile.
type SchemaError struct {
	File    string // file name ("" for inline or built-in documents)
	URI     string // the schema's location (as Schema.Location names it)
	Pointer string // JSON Pointer of the offending keyword in the document
	Line    int
	Column  int
	Msg     string
	Causes  []Error // meta-schema violations, each located in the schema document
}

func (e *SchemaError) Error() string {
	var sb strings.Builder
	loc := e.File
	if loc == "" {
		loc = e.URI
	}
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column)
	}
	sb.WriteString(loc)
	sb.WriteString(": ")
	sb.WriteString(e.Msg)
	writeCauses(&sb, e.Causes, "\n  ")
	return sb.String()
}

func writeCauses(sb *strings.Builder, causes []Error, indent string) {
	for _, c := range causes {
		sb.WriteString(indent)
		if c.Line > 0 {
			sb.WriteString(strconv.Itoa(c.Line) + ":" + strconv.Itoa(c.Column) + ": ")
		}
		loc := c.InstanceLocation
		if loc == "" {
			loc = "(root)"
		}
		sb.WriteString(loc + ": " + c.Message)
		writeCauses(sb, c.Causes, indent+"    ")
	}
}

// locate fills in the positions of errors (and their causes) in doc, and puts each list
// in the order of those positions, as a reader goes through the file (the meta-schema
// reports them in the order of its keywords).
func locate(errs []Error, doc *source.Document) {
	for i := range errs {
		errs[i].Line, errs[i].Column = doc.Locate(errs[i].InstanceLocation)
		locate(errs[i].Causes, doc)
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Column < errs[j].Column
	})
}

// schemaErrAt is schemaErr located at the value rather than at its key.
func (c *Compiler) schemaErrAt(doc *document, ptr string, format string, args ...any) *SchemaError {
	e := c.schemaErr(doc, ptr, format, args...)
	e.Line, e.Column = doc.src.Locate(ptr)
	return e
}

func (c *Compiler) schemaErr(doc *document, ptr string, format string, args ...any) *SchemaError {
	e := &SchemaError{File: doc.name, URI: c.loader.Display(doc.uri) + "#" + ptr, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = doc.src.LocateKey(ptr)
	return e
}

// metaValidate checks a document against the meta-schema of its root dialect.
func (c *Compiler) metaValidate(doc *document) error {
	root := doc.resources[0]
	metaURI, errs, err := c.checkAgainstMeta(doc, doc.src.Root, doc.uri, root.draft)
	if err != nil {
		return err
	}
	// An embedded resource that declares a dialect of its own (a compound document, such as
	// a bundle) is checked against its own meta-schema, not against the root's.
	for _, r := range doc.resources {
		if r.at == doc.root {
			continue
		}
		v := r.at.val
		if _, has := v.Get("$schema"); !has {
			continue
		}
		ptr := r.at.String()
		kept := errs[:0]
		for _, e := range errs {
			if e.InstanceLocation != ptr && !strings.HasPrefix(e.InstanceLocation, ptr+"/") {
				kept = append(kept, e)
			}
		}
		errs = kept
		_, sub, err := c.checkAgainstMeta(doc, v, r.uri, r.draft)
		if err != nil {
			return err
		}
		for i := range sub {
			prefixLocations(&sub[i], ptr)
		}
		errs = append(errs, sub...)
	}
	if len(errs) == 0 {
		return nil
	}
	locate(errs, doc.src)
	e := c.schemaErrAt(doc, errs[0].InstanceLocation, "not a valid %s schema: %d violation(s) of the meta-schema %s",
		root.draft.Name, len(errs), metaURI)
	e.Causes = errs
	return e
}

// checkAgainstMeta validates a schema value against the meta-schema its $schema names (or
// its draft's).
func (c *Compiler) checkAgainstMeta(doc *document, v source.Value, base string, draft *Draft) (string, []Error, error) {
	metaURI := draft.URL
	if sv, ok := v.Get("$schema"); ok && sv.Kind() == source.String && !c.opts.ForceDraft {
		if u, _, err := ResolveURI(base, sv.Str()); err == nil {
			metaURI = u
		}
	}
	meta, err := c.metaSchema(metaURI)
	if err != nil {
		return "", nil, c.schemaErr(doc, "/$schema", "cannot load meta-schema %s: %v", metaURI, err)
	}
	ctx := c.opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	errs, err := meta.ValidateContext(ctx, v)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, Stopped(ctx, fmt.Errorf("compilation stopped: %w", ctx.Err()))
		}
		return "", nil, c.schemaErr(doc, "", "checking against meta-schema %s: %v", metaURI, err)
	}
	return metaURI, errs, nil
}

// prefixLocations moves an error found in a subtree to its place in the document.
func prefixLocations(e *Error, ptr string) {
	e.InstanceLocation = ptr + e.InstanceLocation
	for i := range e.Causes {
		prefixLocations(&e.Causes[i], ptr)
	}
}

// metaSchema compiles a meta-schema with a compiler of its own (formats asserted off,
// no meta-validation of meta-schemas), sharing this compiler's loader.
func (c *Compiler) metaSchema(uri string) (*Schema, error) {
	if s, ok := c.metas[uri]; ok {
		return s, nil
	}
	if metaPath(uri) != "" {
		s, err := builtinMeta(uri)
		if err != nil {
			return nil, err
		}
		c.metas[uri] = s
		return s, nil
	}
	mc := NewCompiler(&Options{Loader: c.loader, NoMetaValidation: true, RegexTimeout: c.opts.RegexTimeout})
	s, err := mc.Compile(uri)
	if err != nil {
		return nil, err
	}
	c.metas[uri] = s
	return s, nil
}

// Files lists the names of the files this compiler has read through its loader (by path,
// workspace $id or resolve map), sorted, without duplicates.
func (c *Compiler) Files() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range c.docs {
		if d.fromFS && !seen[d.name] {
			seen[d.name] = true
			out = append(out, d.name)
		}
	}
	sort.Strings(out)
	return out
}
