// Package infer owns the infer engine: it derives a JSON Schema from example instances
// (files, YAML streams, NDJSON streamed line by line, stdin, inline documents), in
// parallel and in flat memory, by summarizing every location of the instances (the types
// seen, which properties are always present, string formats and repeated values, numeric
// and size bounds) and writing the summary as a deterministic, readable schema in the
// chosen dialect, with repeated object shapes moved to $defs.
//
// The schema is sound by construction: it accepts every instance it was inferred from.
// Only what every value at a location has in common is asserted; a format is written
// only when every string there satisfies it (with the semantics of jstk's validator),
// and an enum only when the values repeat enough to look like one.
package infer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Defaults of the tunable thresholds.
const (
	DefaultEnumMinCount  = 10
	DefaultEnumMaxValues = 50
	DefaultMapMinKeys    = 20
)

// Options configure an inference; nil means defaults.
type Options struct {
	// Draft is the dialect of the output; nil means 2020-12.
	Draft *schema.Draft
	// Closed writes additionalProperties: false on every object that is not a map.
	Closed bool
	// Bounds writes the smallest and largest values, lengths, item and property counts
	// seen (minimum, maximum, minLength, maxLength, minItems, ...).
	Bounds bool
	// AnyOf keeps objects with different sets of keys as anyOf alternatives instead of
	// merging them into one object schema.
	AnyOf bool
	// NoFormats turns off format detection.
	NoFormats bool
	// EnumMinCount is how many strings a location needs before its values may become an
	// enum (default 10); EnumMaxValues is the most values an enum may have (default 50).
	// An enum also needs fewer distinct values than the square root of the strings seen.
	EnumMinCount, EnumMaxValues int
	// MapMinKeys is how many distinct keys make an object location whose objects each use
	// at most half of them, with values of one type, a map written as
	// additionalProperties (default 20). Keys that look like data (numbers, UUIDs, dates)
	// make a map from 3 keys on.
	MapMinKeys int
	// From is a schema to refine: it is read as a summary of earlier examples, and widened
	// until it accepts every new instance. Its annotations (title, description, ...) are
	// kept; keywords infer does not write are dropped with a note.
	From *schema.Schema
	// Limits bound each document (for NDJSON: each line).
	Limits *source.Limits
	// Workers is the number of parallel workers; 0 means one per CPU.
	Workers int
}

// Source is one instance input.
type Source struct {
	// Name is how the input is named in messages.
	Name string
	// Path is the file to read through the FS; empty for stdin and inline documents.
	Path string
	// Reader supplies stdin; nil otherwise.
	Reader io.Reader
	// Text is an inline document (JSON, YAML, TOML or NDJSON text); used when Path and
	// Reader are empty.
	Text []byte
}

// Result is an inferred schema. Its JSON form is the CLI's --format json output and the
// MCP tool's structuredContent.
type Result struct {
	// Schema is the inferred schema document.
	Schema json.RawMessage `json:"schema"`
	// Instances is the number of instances it was inferred from.
	Instances int64 `json:"instances"`
	// Draft names the dialect of the schema.
	Draft string `json:"draft"`
	// NoteList says what of a --from schema could not be kept, and where a schema nested
	// deeper than the instances' depth limit was cut.
	NoteList []string `json:"notes,omitempty"`

	root source.Value
	cut  string // the note of the cut, if any
}

// Notes returns the notes: the command line prints them on stderr after a text report, where
// the schema alone goes to stdout.
func (r *Result) Notes() []string { return r.NoteList }

// WriteText writes the schema, indented, as the human report.
func (r *Result) WriteText(w io.Writer) error {
	buf := source.AppendJSONIndent(nil, r.root, "", "  ")
	buf = append(buf, '\n')
	_, err := w.Write(buf)
	return err
}

// Diagnostics lists the notes as informational diagnostics.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var ds []diag.Diagnostic
	for _, n := range r.NoteList {
		code := "infer/from-keyword-dropped"
		if n == r.cut {
			code = "infer/schema-cut"
		}
		ds = append(ds, diag.Diagnostic{Code: code, Severity: diag.Info, Message: n})
	}
	return ds
}

// ExitCode is 0: an inferred schema is not a finding.
func (r *Result) ExitCode() int { return 0 }

// Value returns the schema as a value.
func (r *Result) Value() source.Value { return r.root }

func (o *Options) withDefaults() *Options {
	c := Options{}
	if o != nil {
		c = *o
	}
	if c.Draft == nil {
		c.Draft = schema.Draft2020
	}
	if c.EnumMinCount <= 0 {
		c.EnumMinCount = DefaultEnumMinCount
	}
	if c.EnumMaxValues <= 0 {
		c.EnumMaxValues = DefaultEnumMaxValues
	}
	if c.MapMinKeys <= 0 {
		c.MapMinKeys = DefaultMapMinKeys
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return &c
}

func (o *Options) caps() caps {
	return caps{values: max(o.EnumMaxValues, 64) + 1, keys: max(1000, o.MapMinKeys), shapes: 64}
}

// Summary accumulates instances one at a time, for callers that have their values in
// memory. It is not safe for concurrent use.
type Summary struct {
	opts  *Options
	obs   *observer
	root  *node
	count int64
	notes []string
}

// NewSummary returns an empty summary (seeded with opts.From when set).
func NewSummary(opts *Options) (*Summary, error) {
	o := opts.withDefaults()
	fs, err := newFormatSet(o.Draft, o.NoFormats)
	if err != nil {
		return nil, err
	}
	s := &Summary{opts: o, obs: newObserver(o, fs), root: &node{}}
	if o.From != nil {
		tablesOnce.Do(makeTables)
		sr := &seeder{draft: o.Draft, fmts: map[string]*schema.Schema{}}
		s.root = sr.build(o.From)
		s.notes = sr.notes
	}
	return s, nil
}

func newObserver(o *Options, fs *formatSet) *observer {
	return &observer{opts: o, caps: o.caps(), fmts: fs, anyOf: o.AnyOf, draft4: o.Draft.Version == 4,
		bounds: o.Bounds || o.From != nil}
}

// Add observes one instance.
func (s *Summary) Add(v source.Value) {
	s.count++
	s.obs.seq, s.obs.idx = uint64(s.count), 0
	s.obs.observe(s.root, v)
}

// Result writes the schema of everything added so far.
func (s *Summary) Result() *Result {
	e := &emitter{opts: s.opts, fmts: s.obs.fmts, draft: s.opts.Draft}
	body := e.schema(s.root, "")
	doc := &sobj{}
	doc.set("$schema", schemaURI(s.opts.Draft))
	for i, k := range body.keys {
		if k != "$schema" {
			doc.set(k, body.vals[i])
		}
	}
	notes := s.notes
	cut := cutDeep(doc, maxDepth(s.opts.Limits))
	if cut != "" {
		notes = append(slices.Clip(notes), cut)
	}
	extractDefs(doc, s.opts.Draft)
	root := doc.value()
	return &Result{Schema: source.AppendJSON(nil, root), Instances: s.count, Draft: s.opts.Draft.Name,
		NoteList: notes, root: root, cut: cut}
}

func schemaURI(d *schema.Draft) string {
	if d.Version <= 7 {
		return d.URL + "#"
	}
	return d.URL
}

// Run infers a schema from the sources. Files are read through fsys. An input that cannot
// be read or parsed stops the run with an error naming it (and the line, for NDJSON): a
// schema that silently left out part of its input would not be sound.
func Run(ctx context.Context, srcs []Source, fsys workspace.FS, opts *Options) (*Result, error) {
	o := opts.withDefaults()
	fmts, err := newFormatSet(o.Draft, o.NoFormats)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pipeline{ctx: ctx, cancel: cancel, opts: o, fsys: fsys, work: make(chan *job, 2*o.Workers)}

	type worker struct {
		obs   *observer
		root  *node
		count int64
	}
	workers := make([]*worker, o.Workers)
	var notes []string
	for i := range workers {
		w := &worker{obs: newObserver(o, fmts), root: &node{}}
		w.obs.caps.done = ctx.Done()
		if o.From != nil {
			tablesOnce.Do(makeTables)
			sr := &seeder{draft: o.Draft, fmts: map[string]*schema.Schema{}}
			w.root = sr.build(o.From)
			notes = sr.notes
		}
		workers[i] = w
	}
	var wg sync.WaitGroup
	var catch panics.Catcher // a worker's panic stops the run and is raised again after wg.Wait
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range p.work {
				if ctx.Err() != nil {
					continue
				}
				if !catch.Do(func() {
					n, err := p.process(j, func(seq uint64, v source.Value) {
						w.obs.seq, w.obs.idx = seq, 0
						w.obs.observe(w.root, v)
					})
					w.count += n
					if err != nil {
						p.fail(j.seq, err)
					}
				}) {
					cancel()
				}
			}
		}()
	}
	p.produce(srcs)
	close(p.work)
	wg.Wait()
	catch.Repanic()
	if p.err != nil {
		return nil, p.err
	}
	if err := runErr(ctx); err != nil {
		return nil, err
	}
	total := int64(0)
	root := workers[0].root
	c := o.caps()
	c.done = ctx.Done()
	for i, w := range workers {
		total += w.count
		if i > 0 {
			mergeNode(root, w.root, c)
		}
	}
	if total == 0 && o.From == nil {
		return nil, errors.New("no instances to infer a schema from (the inputs hold no documents)")
	}
	if err := runErr(ctx); err != nil {
		return nil, err
	}
	s := &Summary{opts: o, obs: workers[0].obs, root: root, count: total, notes: notes}
	res := s.Result()
	if err := runErr(ctx); err != nil {
		return nil, err // a result after the time limit is not one
	}
	return res, nil
}

// runErr is the error that ended the run, once its context is done: the cause given to
// cancel (a time limit, a budget), else the context's own.
func runErr(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cerr := context.Cause(ctx); cerr != nil && !errors.Is(cerr, context.Canceled) {
		return cerr
	}
	return err
}

// job is a unit of work: a whole document, or a chunk of complete NDJSON lines.
type job struct {
	seq       uint64
	name      string
	src       Source
	data      []byte
	startLine int
	ndjson    bool
}

type pipeline struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   *Options
	fsys   workspace.FS
	work   chan *job
	seq    uint64

	mu     sync.Mutex
	err    error
	errSeq uint64
}

// fail records an error; the one of the earliest job wins, so the message does not depend
// on scheduling.
func (p *pipeline) fail(seq uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil || seq < p.errSeq {
		p.err, p.errSeq = err, seq
	}
	p.cancel()
}

func (p *pipeline) maxSize() int64 {
	if p.opts.Limits != nil && p.opts.Limits.MaxSize > 0 {
		return p.opts.Limits.MaxSize
	}
	return source.DefaultMaxSize
}

func (p *pipeline) send(j *job) bool {
	p.seq++
	j.seq = p.seq
	select {
	case p.work <- j:
		return true
	case <-p.ctx.Done():
		return false
	}
}

func (p *pipeline) produce(srcs []Source) {
	for _, src := range srcs {
		if !p.produceOne(src) {
			return
		}
	}
}

func (p *pipeline) produceOne(src Source) bool {
	name := src.Name
	switch {
	case src.Path != "":
		if f, ok := source.FormatOf(src.Path); ok && f == source.NDJSON {
			rc, err := p.fsys.Open(src.Path)
			if err != nil {
				p.fail(p.seq+1, err)
				return false
			}
			defer rc.Close()
			return p.produceNDJSON(name, rc)
		}
		return p.send(&job{name: name, src: src})
	case src.Reader != nil:
		br, nd, err := source.PeekNDJSON(src.Reader, p.maxSize())
		if err != nil {
			p.fail(p.seq+1, fmt.Errorf("%s: %v", name, err))
			return false
		}
		if nd {
			return p.produceNDJSON(name, br)
		}
		data, err := io.ReadAll(io.LimitReader(br, p.maxSize()+1))
		if err != nil {
			p.fail(p.seq+1, fmt.Errorf("%s: %v", name, err))
			return false
		}
		if int64(len(data)) > p.maxSize() {
			p.fail(p.seq+1, fmt.Errorf("%s: input is larger than the limit of %d bytes (raise it with --max-size)", name, p.maxSize()))
			return false
		}
		return p.send(&job{name: name, src: Source{Name: name, Text: data}})
	}
	return p.send(&job{name: name, src: src})
}

const chunkSize = 256 << 10

// produceNDJSON cuts an NDJSON stream into chunks of complete lines.
func (p *pipeline) produceNDJSON(name string, r io.Reader) bool {
	limit := p.maxSize()
	line := 1
	var carry []byte
	buf := make([]byte, chunkSize)
	for {
		n, err := io.ReadFull(r, buf)
		data := buf[:n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			p.fail(p.seq+1, fmt.Errorf("%s: %v", name, err))
			return false
		}
		cut := bytes.LastIndexByte(data, '\n')
		if eof {
			cut = len(data) - 1
		}
		if cut < 0 {
			carry = append(carry, data...)
			if int64(len(carry)) > limit+1 {
				p.fail(p.seq+1, &source.Error{File: name, Line: line,
					Msg: fmt.Sprintf("line is longer than the limit of %d bytes (raise it with --max-size)", limit)})
				return false
			}
			continue
		}
		chunk := make([]byte, 0, len(carry)+cut+1)
		chunk = append(chunk, carry...)
		chunk = append(chunk, data[:cut+1]...)
		carry = append(carry[:0], data[cut+1:]...)
		if len(chunk) > 0 {
			if !p.send(&job{name: name, data: chunk, startLine: line, ndjson: true}) {
				return false
			}
			line += bytes.Count(chunk, []byte{'\n'})
		}
		if eof {
			return true
		}
	}
}

// process reads one job's documents and hands each to observe with its order key. It
// returns the number of documents.
func (p *pipeline) process(j *job, observe func(uint64, source.Value)) (int64, error) {
	if j.ndjson {
		return p.processLines(j.name, j.data, j.startLine, j.seq, observe)
	}
	src := j.src
	data := src.Text
	format, known := source.Format(0), false
	if src.Path != "" {
		var err error
		data, err = workspace.ReadFile(p.fsys, src.Path, p.maxSize())
		if err != nil {
			return 0, err
		}
		format, known = source.FormatOf(src.Path)
	} else if src.Name != "" {
		format, known = source.FormatOf(src.Name)
	}
	if !known {
		format = source.Sniff(data)
	}
	if format == source.NDJSON {
		return p.processLines(j.name, data, 1, j.seq, observe)
	}
	docs, err := source.Parse(j.name, data, format, p.opts.Limits)
	if err != nil {
		return 0, err
	}
	for i, doc := range docs {
		observe(j.seq<<24|uint64(i), doc.Root)
	}
	return int64(len(docs)), nil
}

func (p *pipeline) processLines(name string, data []byte, startLine int, seq uint64, observe func(uint64, source.Value)) (int64, error) {
	line := startLine
	var n int64
	limit := p.maxSize()
	for i := 0; len(data) > 0; i++ {
		var l []byte
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			l, data = data[:k], data[k+1:]
		} else {
			l, data = data, nil
		}
		ln := line
		line++
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if ln == 1 {
			l = bytes.TrimPrefix(l, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if int64(len(l)) > limit {
			return n, &source.Error{File: name, Line: ln,
				Msg: fmt.Sprintf("line is longer than the limit of %d bytes (raise it with --max-size)", limit)}
		}
		doc, err := source.ParseJSON(name, l, p.opts.Limits)
		if err != nil {
			var se *source.Error
			if errors.As(err, &se) {
				se.Line = ln
			}
			return n, err
		}
		observe(seq<<24|uint64(i), doc.Root)
		n++
	}
	return n, nil
}
