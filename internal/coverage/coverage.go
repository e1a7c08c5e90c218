// Package coverage owns the coverage engine (`jstk coverage`): what a set of tests or
// instances exercises in a schema, measured from real evaluation traces
// ((*schema.Schema).Trace), in four kinds: subschemas reached (and $defs never
// referenced: dead), keywords applied, outcomes seen (each assertion passing and failing
// decisively, each anyOf/oneOf branch selected, if taken both ways, ...) and values seen
// (each enum value, each type member, each required property omitted, each optional
// property present and absent). It prints a table, JSON and lcov, and checks thresholds.
package coverage

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/schematest"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Source is one input: a tests file (either format of `jstk test`, told apart by shape) or
// a file of plain instances (JSON, YAML streams, TOML, NDJSON), named as the test engine
// names its inputs.
type Source = schematest.Source

// Options configure a measure; nil means defaults.
type Options struct {
	// Options are the settings of the evaluations, those of `jstk test`: FS reads the
	// inputs, the tests' targets, their dataPath files and referenced schemas; the files
	// reached through Resolve are dependencies, not measured; Loader finds referenced
	// schemas for the tests' targets; Draft and AssertFormat apply to the tests' schemas
	// (the measured schema should be compiled with the same AssertFormat); Workers is the
	// number of parallel workers (0: one per CPU). Clock is not used.
	schematest.Options
	// Ignore lists JSON Pointers of the schema to leave out, with everything under them:
	// "/properties/a" (in the schema's own file) or "file.json#/properties/a".
	Ignore []string
	// FailUnder sets thresholds: the measure fails when a kind's percentage is under its
	// threshold.
	FailUnder map[Kind]float64
}

// unit is one test (or plain instance) to evaluate.
type unit struct {
	v     *view
	s     *schema.Schema
	test  *schematest.Test
	file  *schematest.File
	value source.Value // a plain instance
	plain bool
	name  string
	// lines, when set, is a chunk of NDJSON lines (plain instances), starting at line
	// firstLine of the file name; they are parsed by the worker that evaluates them.
	lines     []byte
	firstLine int
	limits    *source.Limits
	// path, when set, is a file of plain instances in format, read again and parsed by the
	// worker that evaluates it: kept as documents until the evaluations start, the files
	// of a large input made the run's memory three times their size.
	path   string
	format source.Format
	// src is the index of the input the unit comes from.
	src int
}

// Measure evaluates every test and instance of srcs against s (or, for a tests file, its
// own target or inline schema, as `jstk test` would) and measures what the evaluations
// exercised in s's files. The error is non-nil only when the measure could not go on (the
// context was cancelled, or an --ignore pointer is malformed); an unreadable input or an
// unusable tests file is a problem in the result (and makes ExitCode 2).
func Measure(ctx context.Context, s *schema.Schema, srcs []Source, opts *Options) (*Result, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.FS == nil {
		o.FS = workspace.Memory(nil)
	}
	sto := &schematest.Options{FS: o.FS, Resolve: o.Resolve, Limits: o.Limits, Loader: o.Loader,
		Draft: o.Draft, AssertFormat: o.AssertFormat} // the run's, without its workers and clock
	if sto.Loader == nil {
		sto.Loader = sto.NewLoader()
	}
	m := newModel(s, o.Resolve)
	for _, p := range o.Ignore {
		ig, err := parseIgnore(p)
		if err != nil {
			return nil, err
		}
		m.ignores = append(m.ignores, ig)
	}
	m.ctx = ctx
	rootView := m.add(s)
	if err := ctx.Err(); err != nil {
		return nil, schema.Stopped(ctx, err) // the walk stopped early
	}
	res := newResult(s)
	res.Unmeasured = m.tooDeep

	// Read the inputs and compile the tests' schemas, in order. What an input cannot give
	// (unreadable, unparsable) is a problem of that input, listed in the inputs' order
	// before the problems of the evaluations, also when a file of plain instances read
	// again by its worker says it (loadProblems).
	var units []unit
	loadProblems := make([][]string, len(srcs))
	for i, src := range srcs {
		us, problems := load(m, rootView, s, src, sto)
		for j := range us {
			us[j].src = i
		}
		units = append(units, us...)
		loadProblems[i] = problems
	}
	if err := ctx.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	m.finish()

	// Evaluate in parallel; each worker counts its own hits.
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(units)))
	outcomes := make([]outcome, len(units))
	tracers := make([]*tracer, workers)
	var halt schema.Halt // the first evaluation error that ends the run
	var wg sync.WaitGroup
	next := make(chan int)
	var catch panics.Catcher // a worker's panic is raised again after wg.Wait
	for w := range workers {
		tracers[w] = newTracer(ctx, &halt, m)
		wg.Add(1)
		go func(tr *tracer) {
			defer wg.Done()
			for i := range next {
				catch.Do(func() { outcomes[i] = evaluate(tr, &units[i], sto) })
			}
		}(tracers[w])
	}
	for i := 0; i < len(units) && ctx.Err() == nil && halt.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	catch.Repanic()
	if err := halt.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, schema.Stopped(ctx, err)
	}
	hits := make([]uint64, len(m.items))
	objects := make([]uint64, len(m.infos))
	for _, tr := range tracers {
		for i, h := range tr.hits {
			hits[i] += uint64(h)
		}
		for i, n := range tr.objects {
			objects[i] += uint64(n)
		}
	}
	// An optional property is absent from every object evaluation it was not present in.
	for _, si := range m.infos {
		for i, absent := range si.optAbsent {
			if present := hits[si.optPresent[i]]; objects[si.id] > present {
				hits[absent] = objects[si.id] - present
			}
		}
	}
	for i, oc := range outcomes {
		if oc.loadProblems != nil {
			k := units[i].src
			loadProblems[k] = append(loadProblems[k], oc.loadProblems...)
		}
		res.count(&units[i], oc)
	}
	res.Problems = append(slices.Concat(loadProblems...), res.Problems...)
	if res.Problems == nil {
		res.Problems = []string{} // listed as [], not null
	}
	res.build(m, hits, o.FailUnder)
	return res, nil
}

// outcome is what evaluating one unit gave: for a test, whether it was valid and
// expected so; for plain instances, how many were valid and invalid.
type outcome struct {
	valid, expectValid bool
	instances          int
	validCount         int
	problems           []string
	// loadProblems are the problems of reading or parsing a file of plain instances: the
	// input's own, not an evaluation's (see Measure).
	loadProblems []string
}

func evaluate(tr *tracer, u *unit, sto *schematest.Options) outcome {
	tr.v = u.v
	if u.lines != nil {
		return evaluateLines(tr, u)
	}
	if u.path != "" {
		return evaluateFile(tr, u, sto)
	}
	var values []source.Value
	oc := outcome{}
	if u.plain {
		values = []source.Value{u.value}
	} else {
		insts, err := u.test.Instances(u.file, sto)
		if err != nil {
			oc.problems = []string{u.name + ": " + err.Error()}
			return oc
		}
		for _, in := range insts {
			values = append(values, in.Value)
		}
	}
	oc.valid = true
	var all []schema.Error
	for _, v := range values {
		errs, err := tr.trace(u.s, v)
		if err != nil {
			tr.abandon()
			oc.problems = []string{u.name + ": the evaluation could not be completed: " + err.Error()}
			return oc
		}
		if len(errs) > 0 {
			oc.valid = false
			all = append(all, errs...)
		}
	}
	oc.instances = len(values)
	oc.expectValid = oc.valid
	if !u.plain {
		oc.expectValid = u.test.Valid
	}
	tr.finishTest(oc.valid, oc.expectValid, all)
	if oc.valid {
		oc.validCount = 1
	}
	return oc
}

// evaluateFile reads, parses and evaluates a file of plain instances (one per document).
func evaluateFile(tr *tracer, u *unit, sto *schematest.Options) outcome {
	oc := outcome{valid: true, expectValid: true}
	data, err := readInput(sto.FS, u.path, maxSize(u.limits))
	if err != nil {
		oc.loadProblems = []string{err.Error()}
		return oc
	}
	docs, err := source.ParseShared(u.name, data, u.format, u.limits) // data is this call's own
	if err != nil {
		oc.loadProblems = []string{err.Error()}
		return oc
	}
	for _, d := range docs {
		label := u.name
		if len(docs) > 1 {
			label = fmt.Sprintf("%s:%d", u.name, d.Line)
		}
		oc.plainInstance(tr, u.s, d.Root, label)
	}
	return oc
}

// plainInstance evaluates one plain instance, labelled by where it is for a problem, and
// counts it.
func (oc *outcome) plainInstance(tr *tracer, s *schema.Schema, v source.Value, label string) {
	errs, err := tr.trace(s, v)
	if err != nil {
		tr.abandon()
		oc.problems = append(oc.problems, label+": the evaluation could not be completed: "+err.Error())
		return
	}
	valid := len(errs) == 0
	tr.finishTest(valid, valid, errs)
	oc.instances++
	if valid {
		oc.validCount++
	}
}

// evaluateLines parses and evaluates a chunk of NDJSON lines, each a plain instance.
func evaluateLines(tr *tracer, u *unit) outcome {
	oc := outcome{valid: true, expectValid: true}
	data, line := u.lines, u.firstLine
	for len(data) > 0 {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		n := line
		line++
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if n == 1 {
			l = bytes.TrimPrefix(l, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		doc, err := source.ParseJSON(u.name, l, u.limits)
		if err != nil {
			oc.problems = append(oc.problems, fmt.Sprintf("%s:%d: %v", u.name, n, err))
			continue
		}
		oc.plainInstance(tr, u.s, doc.Root, fmt.Sprintf("%s:%d", u.name, n))
	}
	return oc
}

// parseIgnore reads an --ignore pointer: "/a/b", "#/a/b" or "file#/a/b".
func parseIgnore(p string) (ignore, error) {
	file, ptr := "", p
	if i := strings.IndexByte(p, '#'); i >= 0 {
		file, ptr = p[:i], p[i+1:]
	}
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return ignore{}, fmt.Errorf("--ignore %q: expected a JSON Pointer such as /properties/name, #/properties/name or file.json#/properties/name", p)
	}
	return ignore{file: file, ptr: ptr}, nil
}

// load reads one input: a tests file gives one unit per test (its case's schema compiled
// and added to the model), any other file one unit per instance.
func load(m *model, rootView *view, root *schema.Schema, src Source, sto *schematest.Options) ([]unit, []string) {
	name := src.Name
	if name == "" {
		name = src.Path
	}
	data, base := src.Text, "."
	if src.Path != "" {
		var err error
		data, err = readInput(sto.FS, src.Path, maxSize(sto.Limits))
		if err != nil {
			return nil, []string{err.Error()}
		}
		base = path.Dir(src.Path)
	}
	format, ok := source.FormatOf(name)
	if !ok {
		format = source.Sniff(data)
	}
	if format == source.NDJSON {
		return ndjsonUnits(rootView, root, name, data, sto.Limits), nil
	}
	// A file of plain instances is one unit, parsed by the worker that evaluates it.
	fileUnit := []unit{{v: rootView, s: root, plain: true, name: name, path: src.Path, format: format, limits: sto.Limits}}
	if src.Path != "" && !mayBeTests(data, format) {
		return fileUnit, nil
	}
	docs, err := source.Parse(name, data, format, sto.Limits)
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(docs) == 1 && schematest.ShapeOf(docs[0].Root) != "" {
		return loadTests(m, docs[0], base, sto)
	}
	if src.Path != "" {
		// Plain instances, parsed here only to tell them from a tests file (their text
		// names "tests").
		return fileUnit, nil
	}
	units := make([]unit, len(docs))
	for i, d := range docs {
		label := name
		if len(docs) > 1 {
			label = fmt.Sprintf("%s:%d", name, d.Line)
		}
		units[i] = unit{v: rootView, s: root, value: d.Root, plain: true, name: label}
	}
	return units, nil
}

// mayBeTests reports whether data, in format, may be a tests file: both shapes of one
// (schematest.ShapeOf) have a member named "tests", which the text then spells, or writes
// with an escape: in JSON only \u can stand for a letter, in YAML and TOML any backslash is
// taken as a possible one. A file it says no to is a file of plain instances, without
// being parsed to tell.
func mayBeTests(data []byte, format source.Format) bool {
	if bytes.Contains(data, []byte("tests")) {
		return true
	}
	if format == source.JSON || format == source.JSONC {
		return bytes.Contains(data, []byte(`\u`))
	}
	return bytes.IndexByte(data, '\\') >= 0
}

// ndjsonLines is how many NDJSON lines one unit holds.
const ndjsonLines = 512

// ndjsonUnits cuts an NDJSON file into units of whole lines, parsed by the workers.
func ndjsonUnits(v *view, s *schema.Schema, name string, data []byte, lim *source.Limits) []unit {
	var units []unit
	line := 1
	for len(data) > 0 {
		end, n := 0, 0
		for end < len(data) && n < ndjsonLines {
			i := bytes.IndexByte(data[end:], '\n')
			if i < 0 {
				end = len(data)
			} else {
				end += i + 1
			}
			n++
		}
		units = append(units, unit{v: v, s: s, plain: true, name: name, lines: data[:end], firstLine: line, limits: lim})
		data, line = data[end:], line+n
	}
	return units
}

func loadTests(m *model, doc *source.Document, base string, sto *schematest.Options) ([]unit, []string) {
	f, err := schematest.ParseDocument(doc, base)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var units []unit
	var problems []string
	for _, c := range f.Cases {
		s, err := c.Compile(sto)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d:%d: %v", f.Name, c.Line, c.Column, err))
			continue
		}
		v := m.add(s)
		for i, t := range c.Tests {
			name := fmt.Sprintf("%s:%d:%d", f.Name, t.Line, t.Column)
			if t.Description != "" {
				name += " (" + t.Description + ")"
			} else {
				name += fmt.Sprintf(" (test %d)", i+1)
			}
			units = append(units, unit{v: v, s: s, test: t, file: f, name: name})
		}
	}
	return units, problems
}

// readInput reads an input file whole, as workspace.ReadFile does, into a buffer of the
// size the open file states: a large NDJSON file is read at once instead of through a
// buffer grown (and copied) again and again, a cost that came before any evaluation could
// start. When the file states no usable size, or turns out larger, workspace.ReadFile
// reads it again.
func readInput(fsys workspace.FS, name string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	data, ok, err := readSized(f, limit)
	f.Close()
	if err != nil {
		return nil, &workspace.PathError{Path: name, Err: err}
	}
	if !ok {
		return workspace.ReadFile(fsys, name, limit)
	}
	return data, nil
}

// readSized reads f whole when it states its size (as an *os.File does) within limit;
// ok is false when it does not, or has more to read.
func readSized(f io.Reader, limit int64) (data []byte, ok bool, err error) {
	st, isStater := f.(interface{ Stat() (fs.FileInfo, error) })
	if !isStater {
		return nil, false, nil
	}
	fi, err := st.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 0 || fi.Size() > limit {
		return nil, false, nil
	}
	buf := make([]byte, fi.Size()+1) // one more byte tells a file that grew
	n, err := io.ReadFull(f, buf)
	switch err {
	case io.ErrUnexpectedEOF, io.EOF:
		return buf[:n], true, nil
	case nil:
		return nil, false, nil
	}
	return nil, false, err
}

func maxSize(l *source.Limits) int64 {
	if l != nil && l.MaxSize > 0 {
		return l.MaxSize
	}
	return source.DefaultMaxSize
}
