// Package lint owns the lint engine: a table of rules (id, category, default severity,
// explanation with a bad and a good example, check) run over schema documents, each
// finding located by file, line, column and JSON Pointer; per-subschema suppression with
// "x-lint-ignore"; safe fixes, proposed as JSON Patch operations and text edits, that never
// change the set of instances a schema accepts; and the generated rule reference
// (Markdown).
//
// Lint reads the schema document as written (positions, duplicate keys, ignored keywords)
// and uses the compiled schema (internal/schema) where meaning matters: references,
// defaults and examples that must validate, reachability of definitions.
package lint

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Options configure a run; nil means defaults.
type Options struct {
	// Loader finds the documents that schemas reference (files, workspace $ids, the
	// resolve map); nil resolves nothing but the built-in meta-schemas.
	Loader *schema.Loader
	// Draft is the dialect of schemas without $schema; nil means 2020-12.
	Draft *schema.Draft
	// Rules enables, disables or sets the severity of rules, keyed by rule id, category or
	// "all": "off", "on", "error", "warning" or "info". Opt-in rules are off by default.
	Rules map[string]Setting
	// FailOn is the least severity that makes the run fail (ExitCode 1); "" means warning.
	FailOn diag.Severity
	// Fix applies the safe fixes to JSON documents and lints the result again; the fixed
	// documents are the Result's OutputFiles. Nothing is written.
	Fix bool
	// Workers is the number of files linted in parallel; 0 means one per CPU.
	Workers int
	// Limits bound each document.
	Limits *source.Limits
	// Timing records the time spent in each rule (Result.RuleStats).
	Timing bool
	// Progress, when set, is called after each document with the count done and the
	// total. It may be called from several goroutines, one call at a time.
	Progress func(done, total int)
}

// Source is one schema to lint.
type Source struct {
	// Name is how the document is named in findings.
	Name string
	// Path is the file to read through the FS; empty for inline documents.
	Path string
	// Text is an inline document, used when Path is empty.
	Text []byte
	// Expanded marks a file found by expanding a directory or a glob pattern: when it is an
	// OpenAPI or AsyncAPI document, which is no schema, it is left out instead of being
	// reported unreadable.
	Expanded bool
	// Pointer names the schema to lint inside the document, a JSON Pointer ("" for the
	// document itself): a $defs entry, an OpenAPI document's component. Only that schema
	// and what it holds is linted, in the document's dialect, with the document as the base
	// of its references; findings carry the document's pointers and positions. Rules about
	// a schema document as a whole (its $schema, its root's title, description and
	// examples) do not apply.
	Pointer string
}

// Finding is one problem found.
type Finding struct {
	Rule     string        `json:"rule"`
	Category Category      `json:"category"`
	Severity diag.Severity `json:"severity"`
	Message  string        `json:"message"`
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Column   int           `json:"column"`
	// Pointer is the JSON Pointer of the keyword or value the finding is about.
	Pointer string `json:"pointer"`
	// Keyword is the schema keyword involved, if any.
	Keyword string `json:"keyword,omitempty"`
	// Fix is the proposed safe edit, when the rule has one that provably keeps the set of
	// valid instances.
	Fix *Fix `json:"fix,omitempty"`
}

// Problem is a document that could not be linted at all (unreadable or unparsable).
type Problem struct {
	File    string `json:"file"`
	Message string `json:"message"`
}

// Summary counts what a run found.
type Summary struct {
	Files    int `json:"files"`
	Findings int `json:"findings"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Fixable counts findings that carry a fix.
	Fixable int `json:"fixable"`
	// Unreadable counts documents that could not be read or parsed.
	Unreadable int `json:"unreadable"`
}

// FixedFile says how many fixes were applied to a document (with Options.Fix).
type FixedFile struct {
	File    string `json:"file"`
	Applied int    `json:"applied"`
	// ByRule counts the applied fixes by rule.
	ByRule map[string]int `json:"byRule,omitempty"`
	// Skipped says why fixes of this document were not applied (YAML documents), if so.
	Skipped string `json:"skipped,omitempty"`
}

// RuleStat is how often a rule fired and the time spent in it (with Options.Timing).
type RuleStat struct {
	Rule     string  `json:"rule"`
	Findings int     `json:"findings"`
	Millis   float64 `json:"millis"`
}

// Result is the outcome of a run. Its JSON form is the CLI's --format json output and the
// MCP tool's structuredContent.
type Result struct {
	Findings []Finding `json:"findings"`
	Problems []Problem `json:"problems,omitempty"`
	Summary  Summary   `json:"summary"`
	// FailOn is the least severity that fails the run.
	FailOn diag.Severity `json:"failOn"`
	// Fixed lists the documents changed by Options.Fix.
	Fixed []FixedFile `json:"fixed,omitempty"`
	// RuleStats is set with Options.Timing.
	RuleStats []RuleStat `json:"ruleStats,omitempty"`
	// Page is set when Findings holds only part of the list.
	Page *diag.Page `json:"page,omitempty"`
	// Rules is the rule listing, when one was asked for instead of a lint (see List).
	Rules []RuleInfo `json:"rules,omitempty"`

	outputs []output
}

// output is a fixed document to write.
type output struct {
	path string
	data []byte
}

// maxNodes bounds the schemas walked in one document.
const maxNodes = 2_000_000

// maxFixRounds bounds how often a document is fixed and linted again.
const maxFixRounds = 8

// Run lints the sources. Files are read through fsys. The error is non-nil only when the
// run could not go on at all (bad options, cancelled context); an unreadable document is a
// Problem of the result and the others are still linted.
func Run(ctx context.Context, srcs []Source, fsys workspace.FS, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	sev, err := resolveSettings(opts.Rules)
	if err != nil {
		return nil, err
	}
	failOn := opts.FailOn
	if failOn == "" {
		failOn = diag.Warning
	}
	if failOn.Rank() == 0 {
		return nil, fmt.Errorf("fail-on %q: use error, warning or info", failOn)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := &runner{opts: opts, sev: sev, fsys: fsys, ctx: ctx}
	if opts.Timing {
		r.stats = map[string]*ruleStat{}
	}
	results := make([]fileResult, len(srcs))
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	next := make(chan int)
	var catch panics.Catcher // a worker's panic is raised again after wg.Wait
	for range min(workers, max(len(srcs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				catch.Do(func() {
					results[i] = r.lintSource(ctx, srcs[i], i)
					if opts.Progress != nil {
						progressMu.Lock()
						defer progressMu.Unlock()
						done++
						opts.Progress(done, len(srcs))
					}
				})
			}
		}()
	}
feed:
	for i := range srcs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	catch.Repanic()
	if err := r.stopped(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	res := &Result{Findings: []Finding{}, FailOn: failOn}
	for _, fr := range results {
		if fr.skipped {
			continue
		}
		res.Summary.Files++
		if fr.problem != nil {
			res.Problems = append(res.Problems, *fr.problem)
			res.Summary.Unreadable++
			continue
		}
		res.Findings = append(res.Findings, fr.findings...)
		if fr.fixed != nil {
			res.Fixed = append(res.Fixed, *fr.fixed)
			if fr.out != nil {
				res.outputs = append(res.outputs, *fr.out)
			}
		}
	}
	res.Findings = append(res.Findings, crossFindings(results, sev)...)
	sortFindings(res.Findings)
	res.count()
	if r.stats != nil {
		for _, ru := range rules {
			if st, ok := r.stats[ru.ID]; ok {
				res.RuleStats = append(res.RuleStats, RuleStat{Rule: ru.ID, Findings: st.n,
					Millis: float64(st.d.Microseconds()) / 1000})
			}
		}
	}
	return res, nil
}

func (res *Result) count() {
	s := &res.Summary
	s.Findings, s.Errors, s.Warnings, s.Infos, s.Fixable = len(res.Findings), 0, 0, 0, 0
	for _, f := range res.Findings {
		switch f.Severity {
		case diag.Error:
			s.Errors++
		case diag.Warning:
			s.Warnings++
		default:
			s.Infos++
		}
		if f.Fix != nil {
			s.Fixable++
		}
	}
}

func sortFindings(fs []Finding) {
	diag.SortBy(fs, func(f *Finding) diag.Place {
		return diag.Place{File: f.File, Line: f.Line, Column: f.Column, Pointer: f.Pointer, Code: f.Rule}
	})
}

// runner holds what every file's lint shares.
type runner struct {
	opts  *Options
	sev   map[string]diag.Severity
	fsys  workspace.FS
	mu    sync.Mutex
	stats map[string]*ruleStat
	// ctx is the run's: the checks of examples and defaults and the pattern matches run
	// within it. stopErr is the first error that ended the run (its time limit, its pattern
	// budget), guarded by mu.
	ctx     context.Context
	stopErr error
}

// context returns the run's context.
func (r *runner) context() context.Context {
	if r == nil || r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// stopOn records an error that ends the run: a cancelled or expired context, or the
// pattern budget used up. Other errors (a reference loop in one schema) are the file's.
func (r *runner) stopOn(err error) {
	if r == nil || !schema.EndsRun(err) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopErr == nil {
		r.stopErr = err
	}
}

func (r *runner) stopped() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopErr
}

type ruleStat struct {
	n int
	d time.Duration
}

// fileResult is what linting one source produced.
type fileResult struct {
	name     string
	findings []Finding
	problem  *Problem
	skipped  bool // an OpenAPI or AsyncAPI document found in a directory (Source.Expanded)
	fixed    *FixedFile
	out      *output
	ids      []idDecl // the absolute identifiers the document declares, for duplicate-id
}

// idDecl is an $id of a document.
type idDecl struct {
	uri        string
	file       string
	ptr        string
	line, col  int
	suppressed bool
}

func (r *runner) lintSource(ctx context.Context, src Source, index int) fileResult {
	name := src.Name
	fr := fileResult{name: name}
	if ctx.Err() != nil || r.stopped() != nil {
		return fr
	}
	var data []byte
	var uri string
	if src.Path != "" {
		limit := int64(source.DefaultMaxSize)
		if r.opts.Limits != nil && r.opts.Limits.MaxSize > 0 {
			limit = r.opts.Limits.MaxSize
		}
		d, err := workspace.ReadFile(r.fsys, src.Path, limit)
		if err != nil {
			fr.problem = &Problem{File: name, Message: err.Error()}
			return fr
		}
		data = d
		uri = schema.FileURI(r.fsys.Abs(src.Path))
	} else {
		data = src.Text
		label := "(inline schema)"
		if index > 0 {
			label = fmt.Sprintf("(inline schema %d)", index+1)
		}
		if r.fsys != nil {
			uri = schema.FileURI(r.fsys.Abs(label))
		} else {
			uri = schema.FileURI("/" + label)
		}
	}
	f, err := r.lintAt(name, uri, data, src.Pointer)
	if errors.Is(err, errNotSchema) && src.Expanded {
		fr.skipped = true
		return fr
	}
	if err != nil {
		fr.problem = &Problem{File: name, Message: err.Error()}
		return fr
	}
	fr.findings, fr.ids = f.findings, f.ids
	if !r.opts.Fix {
		return fr
	}
	if f.doc.Format != source.JSON || src.Path == "" {
		if f.fixable() > 0 {
			why := "fixes are applied to JSON documents only; apply the patch of each finding by hand"
			if src.Path == "" {
				why = "fixes are written to files only; apply the patch of each finding by hand"
			}
			fr.fixed = &FixedFile{File: name, Skipped: why}
		}
		return fr
	}
	text, nf, byRule := r.fixLoop(name, uri, data, f, src.Pointer)
	f = nf
	fr.findings, fr.ids = f.findings, f.ids
	applied := 0
	for _, n := range byRule {
		applied += n
	}
	if applied > 0 {
		fr.fixed = &FixedFile{File: name, Applied: applied, ByRule: byRule}
		fr.out = &output{path: src.Path, data: text}
	}
	return fr
}

// fixLoop applies the fixes of a linted JSON document, lints the result and repeats until
// no fix applies. It returns the final text, its lint and the fixes applied by rule.
func (r *runner) fixLoop(name, uri string, data []byte, f *file, ptr string) ([]byte, *file, map[string]int) {
	applied := map[string]int{}
	text := data
	for round := 0; round < maxFixRounds; round++ {
		edits, byRule := chooseEdits(f.findings)
		if len(edits) == 0 {
			break
		}
		next := applyEdits(text, edits)
		nf, err := r.lintAt(name, uri, next, ptr)
		if err != nil {
			break // a fix that breaks the document is a bug; keep what we had
		}
		for id, n := range byRule {
			applied[id] += n
		}
		text, f = next, nf
	}
	return text, f, applied
}

// errNotSchema marks a document that holds schemas without being one (OpenAPI, AsyncAPI).
var errNotSchema = errors.New("")

// lintText parses and lints one document.
func (r *runner) lintText(name, uri string, data []byte) (*file, error) {
	return r.lintAt(name, uri, data, "")
}

// lintAt parses a document and lints the schema at ptr in it ("" for the document).
func (r *runner) lintAt(name, uri string, data []byte, ptr string) (*file, error) {
	doc, err := schema.ParseDocument(name, data, r.opts.Limits)
	if err != nil {
		return nil, err
	}
	doc.Name = name
	if ptr != "" {
		v, ok := doc.Root.Pointer(ptr)
		if !ok {
			return nil, &source.Error{File: name, Msg: "nothing at #" + ptr}
		}
		if k := v.Kind(); k != source.Object && k != source.Bool {
			return nil, &source.Error{File: name, Msg: "#" + ptr + " is " + kindWord(v) + ", not a schema"}
		}
		f := newFileAt(name, uri, doc, r.opts, ptr)
		f.r = r
		f.lint(r)
		return f, nil
	}
	if ct, ok := schema.ContainerOf(doc.Root); ok {
		return nil, fmt.Errorf("%s: an %s document is not a schema: lint one of its schemas by JSON Pointer "+
			"(%s#/components/schemas/NAME; jstk catalog lists them)%w", name, ct.Describe(), name, errNotSchema)
	}
	if k := doc.Root.Kind(); k != source.Object && k != source.Bool {
		return nil, &source.Error{File: name, Msg: "a schema must be an object or a boolean, not " + kindWord(doc.Root)}
	}
	f := newFile(name, uri, doc, r.opts)
	f.r = r
	f.lint(r)
	return f, nil
}

func kindWord(v source.Value) string {
	return aType(v.Kind().String())
}

// file is the state of linting one document.
type file struct {
	name      string
	uri       string
	doc       *source.Document
	opts      *Options
	rootDraft *schema.Draft
	// root is the pointer of the schema linted ("" for the document); api is set when the
	// document is an OpenAPI or AsyncAPI one, whose Schema Objects have keywords of their
	// own (nullable, discriminator, example, ...).
	root string
	api  bool

	locator   *source.Locator // locates findings (report)
	nodes     []*node
	tooDeep   *node // the first schema below maxNesting, not linted (and not in nodes)
	byPtr     map[string]*node
	resources map[string]*resourceInfo // by URI
	resByPtr  map[string]*resourceInfo
	truncated bool

	refs      []*ref
	refsOf    map[*node][]*ref
	refsDone  bool
	text      *textIndex
	fx        *fixIndex
	comp      compiled
	findings  []Finding
	ids       []idDecl
	protected []string                  // pointers fixes must not remove or move (reference targets)
	described map[*node]map[string]bool // namesDescribedBy
	r         *runner                   // the run: its context, and where a stop is recorded
}

// match matches a pattern within the run, recording an error that ends it.
func (f *file) match(re schema.Regexp, s string) (bool, error) {
	ok, err := re.MatchContext(f.r.context(), s)
	if err != nil {
		f.r.stopOn(err)
	}
	return ok, err
}

func newFile(name, uri string, doc *source.Document, opts *Options) *file {
	return newFileAt(name, uri, doc, opts, "")
}

// newFileAt prepares the lint of the schema at root in doc ("" for the document). The
// dialect is the one its $schema names, else (inside a document) the one the document's
// kind or root $schema names, else the default.
func newFileAt(name, uri string, doc *source.Document, opts *Options, root string) *file {
	f := &file{name: name, uri: uri, doc: doc, opts: opts,
		resources: map[string]*resourceInfo{}, resByPtr: map[string]*resourceInfo{}, root: root}
	f.rootDraft = opts.Draft
	if f.rootDraft == nil {
		f.rootDraft = schema.Draft2020
	}
	rootVal, _ := doc.Root.Pointer(root)
	dialect := ""
	if sv, ok := rootVal.Get("$schema"); ok && sv.Kind() == source.String {
		dialect = sv.Str()
	} else if root != "" {
		if ct, ok := schema.ContainerOf(doc.Root); ok {
			f.api, dialect = true, ct.Dialect
		} else if sv, ok := doc.Root.Get("$schema"); ok && sv.Kind() == source.String {
			dialect = sv.Str()
		}
	}
	if dialect != "" {
		if d, ok := schema.DraftByName(dialect); ok {
			f.rootDraft = d
		} else if s := f.compiledRoot(); s != nil {
			f.rootDraft = s.Draft
		}
	}
	f.addResource("", uri)
	w := &walker{f: f, maxNode: maxNodes}
	w.walk(rootVal, root, nil, "", "", false)
	// Made once the nodes are known: a map grown one node at a time would be rehashed
	// over and over on a document of many schemas.
	f.byPtr = make(map[string]*node, len(f.nodes))
	for _, n := range f.nodes {
		f.byPtr[n.ptr] = n
	}
	return f
}

// rootNode is the schema linted: the document's root, or the one at Source.Pointer.
func (f *file) rootNode() *node { return f.byPtr[f.root] }

func (f *file) addResource(ptr, uri string) {
	ri := f.resByPtr[ptr]
	if ri == nil {
		ri = &resourceInfo{ptr: ptr, anchors: map[string]string{}}
		f.resByPtr[ptr] = ri
	}
	ri.uri = uri
	if _, ok := f.resources[uri]; !ok {
		f.resources[uri] = ri
	}
}

func (f *file) addAnchor(resPtr, name, ptr string) {
	ri := f.resByPtr[resPtr]
	if ri == nil {
		ri = &resourceInfo{ptr: resPtr, anchors: map[string]string{}}
		f.resByPtr[resPtr] = ri
	}
	if _, dup := ri.anchors[name]; !dup {
		ri.anchors[name] = ptr
	}
}

// lint runs every enabled rule.
func (f *file) lint(r *runner) {
	f.resolveRefs()
	f.collectIDs(r.sev)
	c := &checker{f: f, sev: r.sev}
	ctx := r.context()
	for _, ru := range rules {
		if _, on := r.sev[ru.ID]; !on || (ru.node == nil && ru.file == nil) {
			continue
		}
		if err := ctx.Err(); err != nil {
			r.stopOn(err)
			return
		}
		c.rule = ru
		start := time.Now()
		before := len(f.findings)
		if ru.node != nil {
			for i, n := range f.nodes {
				if i%1024 == 1023 && ctx.Err() != nil {
					r.stopOn(ctx.Err())
					return
				}
				if !n.inert {
					ru.node(c, n)
				}
			}
		}
		if ru.file != nil {
			ru.file(c)
		}
		if r.stats != nil {
			d := time.Since(start)
			r.mu.Lock()
			st := r.stats[ru.ID]
			if st == nil {
				st = &ruleStat{}
				r.stats[ru.ID] = st
			}
			st.n += len(f.findings) - before
			st.d += d
			r.mu.Unlock()
		}
	}
}

// fixable counts the findings with a fix.
func (f *file) fixable() int {
	n := 0
	for _, x := range f.findings {
		if x.Fix != nil {
			n++
		}
	}
	return n
}

// checker is what a rule's check reports through.
type checker struct {
	f    *file
	rule *Rule
	sev  map[string]diag.Severity
}

// report adds a finding about node n at the pointer suffix rel ("" for the schema itself,
// "/enum/2" for a value inside it).
func (c *checker) report(n *node, rel, msg string, fix *Fix) {
	if n != nil && n.ignore != nil && (n.ignore["*"] || n.ignore[c.rule.ID]) {
		return
	}
	ptr := rel
	if n != nil {
		ptr = n.ptr + rel
	}
	// Located from the node's parent rather than from the root: a document's findings may
	// be many and deep.
	if c.f.locator == nil {
		c.f.locator = c.f.doc.Locator()
	}
	var line, col int
	switch {
	case n == nil:
		line, col = c.f.locator.LocateKey(rel)
	case n.parent == nil:
		line, col = c.f.locator.LocateKeyIn(n.val, rel)
	default:
		line, col = c.f.locator.LocateKeyIn(n.parent.val, ptr[len(n.parent.ptr):])
	}
	kw := ""
	if rel != "" {
		toks, _ := source.SplitPointer(rel)
		if len(toks) > 0 {
			kw = toks[0]
		}
	}
	fd := Finding{Rule: c.rule.ID, Category: c.rule.Category, Severity: c.sev[c.rule.ID], Message: msg,
		File: c.f.name, Line: line, Column: col, Pointer: ptr, Keyword: kw}
	if fix != nil && c.rule.Fixable && c.f.safe(fix) {
		c.f.edits(fix)
		fd.Fix = fix
	}
	c.f.findings = append(c.f.findings, fd)
}

// ---- compiling ----

// compiled holds the compiled forms of a document's schemas. A Compiler keeps schemas it
// failed to compile half-built, so after a failure the next request starts a new one.
type compiled struct {
	c        *schema.Compiler
	started  bool
	root     *schema.Schema
	rootErr  error
	metaErr  *schema.SchemaError
	dirty    bool
	rebuilds int
	at       map[string]*schema.Schema
	failed   map[string]bool
}

// maxRebuilds bounds the compilers started for one document after failures.
const maxRebuilds = 16

func (f *file) newCompiler(meta bool) (*schema.Compiler, error) {
	opts := &schema.Options{Loader: f.opts.Loader, Draft: f.opts.Draft, NoMetaValidation: !meta, Context: f.r.context()}
	c := schema.NewCompiler(opts)
	if f.root == "" {
		return c, c.AddDocument(f.uri, f.doc)
	}
	// A schema inside a document: the document is its schema when it is one (and its
	// problems outside the schema linted are not this lint's), else a holder of schemas.
	if !f.api {
		err := c.AddDocument(f.uri, f.doc)
		if err == nil || f.within(err) {
			return c, err
		}
		c = schema.NewCompiler(opts)
	}
	return c, c.AddContainer(f.uri, f.doc, nil)
}

// within reports whether a compilation error is about the schema linted (or inside it).
func (f *file) within(err error) bool {
	var se *schema.SchemaError
	if !errors.As(err, &se) {
		return true
	}
	in := func(p string) bool { return p == f.root || strings.HasPrefix(p, f.root+"/") }
	if in(se.Pointer) {
		return true
	}
	for _, e := range se.Causes {
		if in(e.InstanceLocation) {
			return true
		}
	}
	return false
}

// compileAt compiles the schema at ptr of the document with c.
func (f *file) compileAt(c *schema.Compiler, ptr string) (*schema.Schema, error) {
	if f.root == "" {
		if ptr == "" {
			return c.Compile(f.uri)
		}
		return c.Compile(f.uri + "#" + ptr)
	}
	return c.CompileAt(f.uri, ptr)
}

// compiledRoot compiles the document (once) and returns its root schema, or nil when it
// does not compile. Meta-schema violations are kept (metaErr) and compilation goes on
// without meta-validation, so that the other rules can still use the compiled schema.
func (f *file) compiledRoot() *schema.Schema {
	cp := &f.comp
	if cp.started {
		return cp.root
	}
	cp.started = true
	cp.at, cp.failed = map[string]*schema.Schema{}, map[string]bool{}
	c, err := f.newCompiler(true)
	var se *schema.SchemaError
	if err != nil && errors.As(err, &se) && len(se.Causes) > 0 {
		cp.metaErr = se
		c, err = f.newCompiler(false)
	}
	if err != nil {
		cp.rootErr, cp.dirty = err, true
		return nil
	}
	cp.c = c
	cp.root, cp.rootErr = f.compileAt(c, f.root)
	if cp.metaErr == nil && errors.As(cp.rootErr, &se) && len(se.Causes) > 0 {
		// A schema inside a document that holds schemas is checked against its
		// meta-schema when it is compiled, not when the document is added.
		cp.metaErr = se
		if c, err = f.newCompiler(false); err != nil {
			cp.rootErr, cp.dirty = err, true
			return nil
		}
		cp.c = c
		cp.root, cp.rootErr = f.compileAt(c, f.root)
	}
	if cp.rootErr != nil {
		cp.dirty = true
	} else {
		cp.at[f.root] = cp.root
	}
	return cp.root
}

// schemaAt returns the compiled schema at a pointer of the document, or nil when it does
// not compile.
func (f *file) schemaAt(ptr string) *schema.Schema {
	f.compiledRoot()
	cp := &f.comp
	if s, ok := cp.at[ptr]; ok {
		return s
	}
	if cp.failed[ptr] || cp.rootErr != nil && ptr == f.root {
		return nil
	}
	if cp.dirty || cp.c == nil {
		if cp.rebuilds >= maxRebuilds {
			return nil
		}
		cp.rebuilds++
		c, err := f.newCompiler(false)
		if err != nil {
			cp.failed[ptr] = true
			return nil
		}
		cp.c, cp.dirty = c, false
	}
	s, err := f.compileAt(cp.c, ptr)
	if err != nil {
		cp.failed[ptr], cp.dirty = true, true
		return nil
	}
	cp.at[ptr] = s
	return s
}

// ---- identifiers across documents ----

func (f *file) collectIDs(sev map[string]diag.Severity) {
	if _, on := sev["duplicate-id"]; !on {
		return
	}
	for _, n := range f.nodes {
		if !n.isObject() {
			continue
		}
		key := idKeyword(n.draft)
		idv, ok := n.get(key)
		if !ok || idv.Kind() != source.String || strings.HasPrefix(idv.Str(), "#") || n.hasRefOld() {
			continue
		}
		if !isAbsoluteURI(idv.Str()) && n.parent == nil {
			continue // a relative root $id depends on where the file is
		}
		u, _, err := schema.ResolveURI(n.base, "")
		if err != nil || strings.HasPrefix(u, "file:") {
			continue
		}
		line, col := f.doc.LocateKey(n.at(key))
		f.ids = append(f.ids, idDecl{uri: u, file: f.name, ptr: n.at(key), line: line, col: col,
			suppressed: n.ignore != nil && (n.ignore["*"] || n.ignore["duplicate-id"])})
	}
}

func isAbsoluteURI(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// crossFindings reports identifiers declared by more than one document.
func crossFindings(results []fileResult, sev map[string]diag.Severity) []Finding {
	s, on := sev["duplicate-id"]
	if !on {
		return nil
	}
	by := map[string][]idDecl{}
	var order []string
	for _, fr := range results {
		seen := map[string]bool{}
		for _, id := range fr.ids {
			if seen[id.uri] {
				continue // duplicates within a document are the compiler's error
			}
			seen[id.uri] = true
			if len(by[id.uri]) == 0 {
				order = append(order, id.uri)
			}
			by[id.uri] = append(by[id.uri], id)
		}
	}
	var out []Finding
	for _, u := range order {
		decls := by[u]
		if len(decls) < 2 {
			continue
		}
		for i, d := range decls {
			if d.suppressed {
				continue
			}
			other := decls[0]
			if i == 0 {
				other = decls[1]
			}
			out = append(out, Finding{Rule: "duplicate-id", Category: Correctness, Severity: s,
				Message: fmt.Sprintf("$id %q is also declared by %s:%d:%d (%d documents in all): a reference to it "+
					"resolves to only one of them", u, other.file, other.line, other.col, len(decls)),
				File: d.file, Line: d.line, Column: d.col, Pointer: d.ptr, Keyword: strings.TrimPrefix(d.ptr[strings.LastIndexByte(d.ptr, '/'):], "/")})
		}
	}
	return out
}
