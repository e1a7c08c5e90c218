// Package schematest owns the test engine (`jstk test`): unit tests for schemas. It reads
// tests files in two formats told apart by shape (the sourcemeta format, whose "target"
// names a schema kept in its own file, and the JSON-Schema-Test-Suite format, whose cases
// carry their schema inline), compiles each target once, evaluates every test's instance
// in parallel, checks the expected outcome and the optional "expect" assertions on the
// errors, and reports the results as a CTRF document (the Common Test Report Format),
// with text, JUnit XML and GitHub annotation printers.
//
// The package is named schematest because a package named test is confusing in Go.
package schematest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Source is one tests file.
type Source struct {
	// Name is how the file is named in reports.
	Name string
	// Path is the file to read through the FS; empty for an inline document.
	Path string
	// Text is an inline tests document (JSON or YAML), used when Path is empty. Relative
	// targets and dataPath names in it resolve against the workspace root.
	Text []byte
}

// Options configure a run; nil means defaults.
type Options struct {
	// FS reads tests files, targets, dataPath files and referenced schemas.
	FS workspace.FS
	// Resolve maps URIs or URI prefixes to files, for offline $ref (jstk.json, --resolve).
	Resolve map[string]string
	// Limits bound every document read.
	Limits *source.Limits
	// Loader finds referenced schemas; nil builds one from FS, Resolve and Limits (with the
	// workspace's $id index). One loader is shared by every compilation of a run.
	Loader *schema.Loader
	// Draft is the dialect of schemas without $schema. When nil, a suite-format file in a
	// directory named draft4, draft6, draft7, draft2019-09 or draft2020-12 (the layout of
	// the JSON-Schema-Test-Suite) is read in that draft, and anything else in 2020-12.
	Draft *schema.Draft
	// AssertFormat makes "format" an assertion for every file. Without it, format is an
	// annotation, except in suite-format files under optional/format/ (the suite's format
	// tests, which assume assertion).
	AssertFormat bool
	// Workers is the number of parallel workers; 0 means one per CPU.
	Workers int
	// Clock returns the current time, for the report's timestamps; nil means time.Now.
	Clock func() time.Time
	// ctx is the run's (set by Run): the compilation of a case's schema stops with it.
	ctx context.Context
}

func (o *Options) now() time.Time {
	if o.Clock != nil {
		return o.Clock()
	}
	return time.Now()
}

// NewLoader returns the loader a run uses when Options.Loader is nil.
func (o *Options) NewLoader() *schema.Loader {
	return &schema.Loader{FS: o.FS, IndexRoot: ".", Resolve: o.Resolve, Limits: o.Limits}
}

func (o *Options) maxSize() int64 {
	if o.Limits != nil && o.Limits.MaxSize > 0 {
		return o.Limits.MaxSize
	}
	return source.DefaultMaxSize
}

// Load reads and parses one tests file.
func Load(src Source, opts *Options) (*File, error) {
	data := src.Text
	base := "."
	name := src.Name
	if src.Path != "" {
		var err error
		data, err = workspace.ReadFile(opts.FS, src.Path, opts.maxSize())
		if err != nil {
			return nil, err
		}
		base = path.Dir(src.Path)
		if name == "" {
			name = src.Path
		}
	}
	return Parse(name, base, data, opts.Limits)
}

// Compile compiles the schema a case's tests run against: the sourcemeta target (a path
// relative to the tests file, or a URI; either may end in #fragment), or the suite case's
// inline schema. An error says what was tried.
func (c *Case) Compile(opts *Options) (*schema.Schema, error) {
	f := c.file
	draft, assertFormat, assertContent := (*schema.Draft)(nil), false, false
	if f.Format == Suite {
		draft, assertFormat, assertContent = suiteLayout(f.Name)
	}
	if opts.Draft != nil {
		draft = opts.Draft
	}
	loader := opts.Loader
	if loader == nil {
		loader = opts.NewLoader()
	}
	co := &schema.Options{Draft: draft, Loader: loader, AssertFormat: opts.AssertFormat || assertFormat,
		AssertContent: assertContent, Context: opts.ctx}
	comp := schema.NewCompiler(co)
	if f.Format == Suite {
		return c.compileInline(comp, opts)
	}
	uri, desc := targetURI(opts.FS, f.base, c.Target)
	s, err := comp.Compile(uri)
	if err != nil {
		var se *schema.SchemaError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("target %q: %w", c.Target, err)
		}
		return nil, fmt.Errorf("target %q: cannot resolve it: tried %s: %v", c.Target, desc, err)
	}
	return s, nil
}

// compileInline compiles a suite case's schema, placed at the tests file's own URI so
// that its relative references resolve next to the file. Positions in it are those of
// the tests file.
func (c *Case) compileInline(comp *schema.Compiler, opts *Options) (*schema.Schema, error) {
	f := c.file
	doc := source.NewDocument(f.doc.Name, f.doc.Format, f.doc.Source(), c.schema)
	doc.Line = f.doc.Line
	name := f.Name
	if !strings.Contains(name, "/") && strings.HasPrefix(name, "<") {
		name = "(inline tests)"
	}
	uri := schema.FileURI(opts.FS.Abs(name))
	if err := comp.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	return comp.Compile(uri)
}

// targetURI turns a sourcemeta target into an absolute URI, and says what it names.
func targetURI(fsys workspace.FS, base, target string) (uri, desc string) {
	if u, err := url.Parse(target); err == nil && len(u.Scheme) > 1 {
		return target, "the URI " + target
	}
	p, frag, _ := strings.Cut(target, "#")
	if !path.IsAbs(p) {
		p = path.Join(base, p)
	}
	uri = schema.FileURI(fsys.Abs(p))
	if frag != "" {
		uri += "#" + frag
	}
	return uri, "the file " + p + " (relative to the tests file)"
}

// Instance is one instance of a test: an inline value or a document of its dataPath file.
type Instance struct {
	// File is the file the instance is in: the tests file, or the dataPath file.
	File string
	// Value is the instance.
	Value source.Value
	doc   *source.Document
}

// Position returns the line and column of the value at ptr within the instance.
func (in *Instance) Position(ptr string) (line, col int) {
	v, ok := in.Value.Pointer(ptr)
	for !ok && ptr != "" {
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
		v, ok = in.Value.Pointer(ptr)
	}
	if !ok {
		v = in.Value
	}
	return in.doc.Position(v.Offset())
}

// Instances returns the test's instances: its inline data, or every document of its
// dataPath file (JSON, YAML, TOML; a YAML stream or NDJSON file gives several).
func (t *Test) Instances(f *File, opts *Options) ([]Instance, error) {
	if t.hasData {
		return []Instance{{File: f.Name, Value: t.data, doc: f.doc}}, nil
	}
	p := t.DataPath
	if !path.IsAbs(p) {
		p = path.Join(f.base, p)
	}
	data, err := workspace.ReadFile(opts.FS, p, opts.maxSize())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("dataPath %q: tried the file %s (relative to the tests file): it does not exist", t.DataPath, p)
		}
		return nil, fmt.Errorf("dataPath %q: %v", t.DataPath, err)
	}
	format, ok := source.FormatOf(p)
	if !ok {
		format = source.Sniff(data)
	}
	docs, err := source.Parse(p, data, format, opts.Limits)
	if err != nil {
		return nil, fmt.Errorf("dataPath %q: %v", t.DataPath, err)
	}
	out := make([]Instance, len(docs))
	for i, d := range docs {
		out[i] = Instance{File: p, Value: d.Root, doc: d}
	}
	return out, nil
}

// Run runs the tests files. The error is non-nil only when the run as a whole could not go
// on (the context was cancelled); a tests file that cannot be read, parsed or compiled is
// reported in the result (and makes ExitCode 2), and the other files still run.
func Run(ctx context.Context, srcs []Source, opts *Options) (*Result, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ctx = ctx
	if o.FS == nil {
		o.FS = workspace.Memory(nil)
	}
	if o.Loader == nil {
		o.Loader = o.NewLoader()
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := o.now()

	// Read and parse the files in parallel.
	files := make([]*File, len(srcs))
	problems := make([]error, len(srcs))
	parallel(ctx, len(srcs), workers, func(i int) {
		files[i], problems[i] = Load(srcs[i], &o)
	})

	// Then run the tests, in parallel, in chunks; each case's schema is compiled once, by
	// the first chunk that needs it.
	type unit struct {
		file, c    int
		start, end int
	}
	var units []unit
	var cases []*compiled
	caseIndex := map[[2]int]int{}
	for i, f := range files {
		if f == nil {
			continue
		}
		for j, c := range f.Cases {
			caseIndex[[2]int{i, j}] = len(cases)
			cases = append(cases, &compiled{c: c})
			for start := 0; start < len(c.Tests) || start == 0; start += chunk {
				units = append(units, unit{i, j, start, min(start+chunk, len(c.Tests))})
			}
		}
	}
	out := make([][]TestResult, len(units))
	var halt schema.Halt // the first evaluation error that ends the run
	parallel(ctx, len(units), workers, func(k int) {
		u := units[k]
		out[k] = cases[caseIndex[[2]int{u.file, u.c}]].run(ctx, &halt, &o, u.start, u.end)
	})
	if err := halt.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}

	res := newResult()
	k := 0
	for i, src := range srcs {
		name := src.Name
		if name == "" {
			name = src.Path
		}
		sum := FileSummary{File: name}
		if files[i] == nil {
			sum.Problem = describe(problems[i])
			res.add(sum, nil)
			continue
		}
		f := files[i]
		sum.Format = string(f.Format)
		if f.Format == Sourcemeta {
			sum.Target = f.Cases[0].Target
		}
		var tests []TestResult
		for j := range f.Cases {
			if err := cases[caseIndex[[2]int{i, j}]].err; err != nil && sum.Problem == "" {
				sum.Problem = describe(err)
			}
		}
		for k < len(units) && units[k].file == i {
			tests = append(tests, out[k]...)
			k++
		}
		res.add(sum, tests)
	}
	stop := o.now()
	res.Results.Summary.Start = start.UnixMilli()
	res.Results.Summary.Stop = stop.UnixMilli()
	res.Results.Summary.Duration = stop.Sub(start).Milliseconds()
	return res, nil
}

// parallel calls fn(0..n-1) on up to workers goroutines, stopping early when ctx ends.
func parallel(ctx context.Context, n, workers int, fn func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	var catch panics.Catcher // a worker's panic is raised again after wg.Wait
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				catch.Do(func() { fn(i) })
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	catch.Repanic()
}

func describe(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}

// chunk is how many tests of one case a worker runs at a time.
const chunk = 32

// compiled is a case with its schema, compiled once.
type compiled struct {
	c    *Case
	once sync.Once
	s    *schema.Schema
	err  error
}

// run runs tests [start, end) of the case, compiling its schema first if no other chunk
// has. When the schema cannot be compiled, the tests are reported as not run.
func (cc *compiled) run(ctx context.Context, halt *schema.Halt, opts *Options, start, end int) []TestResult {
	cc.once.Do(func() { cc.s, cc.err = cc.c.Compile(opts) })
	c := cc.c
	out := make([]TestResult, 0, end-start)
	if cc.err != nil {
		msg := describe(cc.err)
		if c.file.Format == Suite {
			msg = "the case's schema could not be compiled: " + msg
		}
		for _, t := range c.Tests[start:end] {
			r := c.newResult(t)
			r.setError(msg)
			out = append(out, r)
		}
		return out
	}
	for _, t := range c.Tests[start:end] {
		if ctx.Err() != nil || halt.Err() != nil {
			return out
		}
		out = append(out, runTest(ctx, halt, cc.s, c, t, opts))
	}
	return out
}

func (c *Case) newResult(t *Test) TestResult {
	suite := []string{c.file.Name}
	if c.Description != "" {
		suite = append(suite, c.Description)
	}
	expected := "invalid"
	if t.Valid {
		expected = "valid"
	}
	return TestResult{Name: t.name(c), Type: "unit", Suite: suite, FilePath: c.file.Name, Line: t.Line,
		Extra: TestExtra{Column: t.Column, Expected: expected, Errors: []validate.Error{}}}
}

// runTest evaluates one test.
func runTest(ctx context.Context, halt *schema.Halt, s *schema.Schema, c *Case, t *Test, opts *Options) TestResult {
	began := time.Now()
	r := c.newResult(t)
	defer func() { r.Duration = time.Since(began).Milliseconds() }()
	insts, err := t.Instances(c.file, opts)
	if err != nil {
		r.setError(describe(err))
		return r
	}
	valid := true
	for i := range insts {
		in := &insts[i]
		errs, err := s.ValidateContext(ctx, in.Value)
		if err != nil {
			halt.Note(err)
			r.setError("the evaluation could not be completed: " + describe(err))
			return r
		}
		if len(errs) > 0 {
			valid = false
		}
		r.Extra.Errors = append(r.Extra.Errors, convert(errs, in)...)
	}
	if t.DataPath != "" {
		r.Extra.DataFile = insts[0].File
	}
	r.Extra.Actual = "invalid"
	if valid {
		r.Extra.Actual = "valid"
	}
	switch {
	case valid && !t.Valid:
		r.fail("expected invalid, but the instance is valid")
	case !valid && t.Valid:
		r.fail("expected valid, but the instance is invalid: " + firstError(r.Extra.Errors))
	case !valid && len(t.Expect) > 0:
		var missing []string
		for i := range t.Expect {
			if !anyMatch(&t.Expect[i], r.Extra.Errors) {
				missing = append(missing, t.Expect[i].String())
			}
		}
		if len(missing) > 0 {
			r.Extra.Unmatched = missing
			r.fail("invalid as expected, but no error matches expect " + strings.Join(missing, ", "))
		} else {
			r.Status = StatusPassed
		}
	default:
		r.Status = StatusPassed
	}
	return r
}

func anyMatch(x *Expect, errs []validate.Error) bool {
	for i := range errs {
		if x.match(&errs[i]) || anyMatch(x, errs[i].Causes) {
			return true
		}
	}
	return false
}

func firstError(errs []validate.Error) string {
	if len(errs) == 0 {
		return ""
	}
	e := errs[0]
	loc := e.InstanceLocation
	if loc == "" {
		loc = "(root)"
	}
	return loc + ": " + e.Message
}

// convert locates the schema's errors in the instance and in the schema.
func convert(errs []schema.Error, in *Instance) []validate.Error {
	out := make([]validate.Error, len(errs))
	for i := range errs {
		e := &errs[i]
		line, col := in.Position(e.InstanceLocation)
		out[i] = validate.Error{InstanceLocation: e.InstanceLocation, KeywordLocation: e.KeywordLocation,
			AbsoluteKeywordLocation: e.AbsoluteKeywordLocation, Keyword: e.Keyword, Message: e.Message,
			File: in.File, Line: line, Column: col}
		if f, l, c := e.SchemaPosition(); l > 0 {
			out[i].Schema = &validate.SchemaLocation{File: f, Line: l, Column: c}
		}
		if len(e.Causes) > 0 {
			out[i].Causes = convert(e.Causes, in)
		}
	}
	return out
}
