// Package validate owns the validate engine: it checks instances (files, YAML streams,
// NDJSON lines, stdin, inline documents) against a compiled schema, in parallel on all
// cores and in input order, streaming NDJSON so that no input is loaded whole, and reports
// every error of every instance with its position.
package validate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/panics"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Source is one instance input.
type Source struct {
	// Name is how the input is named in the report: the file name as given, "-" for
	// stdin, or a label for an inline document.
	Name string
	// Path is the file to read through the FS; empty for stdin and inline documents.
	Path string
	// Reader supplies stdin (Name "-"); nil otherwise.
	Reader io.Reader
	// Text is an inline document (JSON, YAML or NDJSON text); used when Path and Reader
	// are empty.
	Text []byte
	// ParseName, when its extension names a format (an inline JSON value's is ".json"),
	// gives Text's format; otherwise Text's format is told from the text itself.
	ParseName string
}

// Options configure a run; nil means defaults.
type Options struct {
	// Workers is the number of parallel workers; 0 means one per CPU.
	Workers int
	// Limits bound each document (for NDJSON: each line).
	Limits *source.Limits
	// MaxErrors bounds the errors reported for one instance (causes count); 0 means
	// DefaultMaxErrors. The instance is then marked Truncated.
	MaxErrors int
	// OnInstance, when set, receives every instance's result in input order as soon as it
	// is known, and Result.Instances stays empty (the summary still counts them). The CLI
	// streams this way; callers that want the whole list leave it nil. The *Instance is
	// the run's: it is reused once the call returns, so a callback that keeps it keeps a
	// copy (*in; the instance's errors are its own).
	OnInstance func(*Instance)
	// OnRead, when set, is told how many bytes of input are done, in input order, after the
	// instances they held were passed to OnInstance (or listed): a file's size, or an NDJSON
	// stream's bytes, a chunk at a time. Progress reports use it.
	OnRead func(bytes int64)
	// Output, when set, adds to each instance its result in that output format of the
	// specification (Instance.Output), from a second evaluation that collects annotations
	// (and stops at MaxErrors errors, as the first).
	Output schema.OutputFormat
}

// Result is the outcome of a run. Its JSON form is the CLI's --format json output and the
// MCP tool's structuredContent.
type Result struct {
	Instances []Instance `json:"instances"`
	Summary   Summary    `json:"summary"`
	// Valid is true when every instance was read and is valid.
	Valid bool `json:"valid"`
	// Groups sums up the errors of every instance checked, listed or not: one entry per
	// keyword, schema location and message shape, the most frequent first. (It follows
	// the instances, so that the CLI can stream them.)
	Groups []Group `json:"groups,omitempty"`
	// Page is set when Instances holds only part of the list.
	Page *diag.Page `json:"page,omitempty"`
	// Stopped says why the run ended before every instance was checked: its time limit,
	// or its pattern budget ("stopped after 10 s: ..."). The instances and the summary
	// are those checked before; Valid is then false.
	Stopped string `json:"stopped,omitempty"`
	// Schemas lists, when no schema was named, each schema that applied to files and how
	// many it checked (Instances are in the same order, grouped by schema).
	Schemas []SchemaUse `json:"schemas,omitempty"`
	// NoSchema lists, when no schema was named, the files nothing associates a schema with
	// (and the ties), with why.
	NoSchema []NoSchema `json:"noSchema,omitempty"`
	// RequireSchema makes a file without a schema a finding (exit 1).
	RequireSchema bool `json:"-"`
}

// SchemaUse is one schema of a run that found each file's schema.
type SchemaUse struct {
	// Schema is the schema: a file of the workspace or a URI.
	Schema string `json:"schema"`
	// Instances counts the instances it checked; Valid, Invalid and Unreadable split them.
	Instances  int `json:"instances"`
	Valid      int `json:"valid"`
	Invalid    int `json:"invalid"`
	Unreadable int `json:"unreadable,omitempty"`
}

// NoSchema is a file that no schema applies to.
type NoSchema struct {
	File string `json:"file"`
	// Association says why (rule "none" or "tie").
	Association assoc.Association `json:"association"`
}

// Summary counts instances.
type Summary struct {
	Total   int `json:"total"`
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	// Unreadable counts instances that could not be read or parsed.
	Unreadable int `json:"unreadable"`
}

// Instance is the result for one instance.
type Instance struct {
	File string `json:"file"`
	// Line is the instance's first line in File: set for NDJSON lines and for documents
	// after the first of a YAML stream.
	Line   int     `json:"line,omitempty"`
	Valid  bool    `json:"valid"`
	Errors []Error `json:"errors"`
	// Problem says why the instance could not be read or parsed; the instance is then
	// neither valid nor invalid, and Errors is empty.
	Problem string `json:"problem,omitempty"`
	// Truncated says that the instance has more errors than were reported (MaxErrors).
	Truncated bool `json:"truncated,omitempty"`
	// Association says which schema the instance was checked against and why, when no
	// schema was named and each file's own was found (assoc.Associator).
	Association *assoc.Association `json:"association,omitempty"`
	// Output is the instance's result in the output format the run asked for
	// (Options.Output), as the specification shapes it.
	Output *schema.OutputUnit `json:"output,omitempty"`

	stopped bool // the run ended while this instance was checked: it is not reported
}

// DefaultMaxErrors is how many errors of one instance are reported by default.
const DefaultMaxErrors = 1000

// Error is one way an instance fails the schema.
type Error struct {
	InstanceLocation        string `json:"instanceLocation"`
	KeywordLocation         string `json:"keywordLocation"`
	AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
	Keyword                 string `json:"keyword"`
	Message                 string `json:"message"`
	// File is the file the failing value is in when a report holds instances of several
	// files in one (the test tool's: the tests file, or a dataPath file); validate's
	// instances name theirs, and leave it empty.
	File string `json:"file,omitempty"`
	// Line and Column locate the failing value in the instance's file.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Schema locates the failing keyword in its schema file.
	Schema *SchemaLocation `json:"schema,omitempty"`
	Causes []Error         `json:"causes,omitempty"`
}

// SchemaLocation is a place in a schema file.
type SchemaLocation struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// collector gathers a run's instances into its result, in order.
type collector struct {
	res    *Result
	groups grouper
	opts   *Options
}

// add counts one instance, and keeps it or hands it to Options.OnInstance.
func (c *collector) add(in *Instance) {
	c.groups.add(in)
	c.res.Summary.Total++
	switch {
	case in.Problem != "":
		c.res.Summary.Unreadable++
	case in.Valid:
		c.res.Summary.Valid++
	default:
		c.res.Summary.Invalid++
	}
	if c.opts.OnInstance != nil {
		c.opts.OnInstance(in)
	} else {
		c.res.Instances = append(c.res.Instances, *in)
	}
}

// addAll adds the instances of job j, up to the first one a stop cut short (then it
// returns false), and reports the bytes read to Options.OnRead.
func (c *collector) addAll(j *job, out []Instance) bool {
	for i := range out {
		if out[i].stopped {
			return false
		}
		c.add(&out[i])
	}
	if c.opts.OnRead != nil && j.size > 0 {
		c.opts.OnRead(j.size)
	}
	return true
}

// finish completes the result of a run under context parent; err (or halt's) is what
// ended it. A run that reached its time limit or used up its pattern budget is a result
// that says so, a cancelled one is an error.
func (c *collector) finish(parent context.Context, halt *schema.Halt, err error) (*Result, error) {
	res := c.res
	res.Groups = c.groups.groups()
	if err == nil {
		err = halt.Err()
	}
	if err == nil && errors.Is(parent.Err(), context.DeadlineExceeded) {
		err = parent.Err()
	}
	switch {
	case err == nil:
		res.Valid = res.Summary.Total > 0 && res.Summary.Valid == res.Summary.Total
	case schema.IsStopped(err) || errors.Is(err, schema.ErrRegexBudget):
		res.Stopped = schema.Stopped(parent, err).Error()
	default:
		return nil, err
	}
	return res, nil
}

// Run validates the sources against s. Files are read through fsys. The error is non-nil
// only when the run as a whole could not go on (the context was cancelled); an unreadable
// or unparsable instance is reported in its Instance and the others are still validated.
// A run that reaches the context's deadline or uses up its pattern budget
// (schema.WithRegexBudget) ends there: the result holds the instances checked before, in
// order, and Stopped says why.
func Run(ctx context.Context, s *schema.Schema, srcs []Source, fsys workspace.FS, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parent := ctx
	var halt schema.Halt // the error that ended the run, if one did
	c := &collector{res: &Result{Instances: []Instance{}}, opts: opts}
	finish := func(err error) (*Result, error) { return c.finish(parent, &halt, err) }
	emitAll := c.addAll

	// One document (the common call over MCP), or a small input, needs no workers: it is
	// validated here, in order, one job after the other. On a small input the workers'
	// start (threads woken, stacks grown afresh) costs more than they win.
	if len(srcs) == 1 && srcs[0].Reader == nil && !isNDJSONPath(srcs[0].Path) ||
		opts.Workers <= 1 && smallInput(srcs, fsys, opts.Limits) {
		p := &pipeline{ctx: ctx, schema: s, fsys: fsys, lim: opts.Limits, maxErrors: maxErrors(opts), halt: &halt, output: opts.Output,
			inline: emitAll}
		for _, src := range srcs {
			if !p.produce(src) {
				break
			}
		}
		if halt.Err() == nil && ctx.Err() != nil {
			return finish(ctx.Err())
		}
		return finish(nil)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pipeline{ctx: ctx, schema: s, fsys: fsys, lim: opts.Limits, maxErrors: maxErrors(opts), halt: &halt, output: opts.Output,
		work: make(chan *job, 4*workers), order: make(chan *job, 8*workers), free: make(chan []byte, 8*workers+4), outs: make(chan []Instance, 8*workers+4)}
	var wg sync.WaitGroup
	// A panic of a worker or of the producer stops the pipeline and is raised again here
	// once the workers are done.
	var catch panics.Catcher
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lines source.LineParser // the worker's, kept from chunk to chunk
			for {
				select {
				case j, ok := <-p.work:
					if !ok {
						return
					}
					var out []Instance
					if !catch.Do(func() { out = p.process(j, &lines) }) {
						cancel()
					}
					j.out <- out
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(p.order)
		defer close(p.work)
		if !catch.Do(func() {
			for _, src := range srcs {
				if !p.produce(src) {
					return
				}
			}
		}) {
			cancel()
		}
	}()
	// The producer may be blocked reading its input, which cannot be interrupted: on
	// cancellation, stop waiting for it. It ends when its read returns.
emitLoop:
	for {
		var j *job
		select {
		case next, ok := <-p.order:
			if !ok {
				break emitLoop
			}
			j = next
		case <-ctx.Done():
			break emitLoop
		}
		var out []Instance
		select {
		case out = <-j.out:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if !emitAll(j, out) {
			break // the run ended at an instance of this job: the others are not emitted
		}
		p.recycle(j, out)
	}
	cancel()
	wg.Wait()
	catch.Repanic()
	if halt.Err() == nil && parent.Err() != nil {
		return finish(parent.Err())
	}
	return finish(nil)
}

// job is a unit of work: a whole document, or a chunk of NDJSON lines.
type job struct {
	name      string
	src       Source
	data      []byte // NDJSON chunk: complete lines
	startLine int
	ndjson    bool
	ready     []Instance // a result known without work (an unreadable file, an oversized line)
	out       chan []Instance
	// size is the bytes of input the job covers: an NDJSON chunk's or a skipped line's
	// (set by the producer), a whole document's (set by the worker, before it sends out).
	size int64
}

type pipeline struct {
	halt      *schema.Halt // records the error that ends the run
	maxErrors int
	output    schema.OutputFormat // Options.Output
	ctx       context.Context
	schema    *schema.Schema
	fsys      workspace.FS
	lim       *source.Limits
	work      chan *job
	order     chan *job
	// free holds NDJSON chunk buffers whose lines were validated and reported, for the
	// producer to fill again (see recycle). A buffer is made only when free is empty, that
	// is when every buffer made so far is in flight (in order, at the emitter, or being
	// filled): room for all of those (order's capacity and 4) means none is ever dropped
	// and made again, and no more chunk memory is held than the jobs in flight held before.
	free chan []byte
	// outs holds the instance slices of NDJSON chunks whose instances were reported, for
	// the workers to fill again: as free, it has room for all that can be in flight.
	outs chan []Instance
	// inline, when set, makes the run sequential: a job is done as it is made, and its
	// instances are given to inline, which returns false when the run ends there.
	inline func(*job, []Instance) bool
}

// smallInputSize is the input (instance bytes, all sources together) under which a run
// starts no workers: a whole validation of that much takes a few milliseconds of CPU, of
// the order of what starting the workers costs.
const smallInputSize = 1 << 20

// smallInput reports whether the sources are files and inline documents of fewer than
// smallInputSize bytes in all (standard input, whose size is unknown, is not small), and
// none is larger than the size limit (which the NDJSON reader reports line by line).
func smallInput(srcs []Source, fsys workspace.FS, lim *source.Limits) bool {
	if len(srcs) > 64 {
		return false // a stat of each file costs more than it saves
	}
	limit := int64(source.DefaultMaxSize)
	if lim != nil && lim.MaxSize > 0 {
		limit = lim.MaxSize
	}
	total := int64(0)
	for _, src := range srcs {
		switch {
		case src.Path != "":
			fi, err := fsys.Stat(src.Path)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
				return false
			}
			total += fi.Size()
		case src.Reader != nil:
			return false
		default:
			total += int64(len(src.Text))
		}
		if total >= smallInputSize {
			return false
		}
	}
	return true
}

// send queues a job for a worker and for the ordered emitter.
func (p *pipeline) send(j *job) bool {
	if p.inline != nil {
		if p.ctx.Err() != nil {
			return false
		}
		out := j.ready
		if out == nil {
			out = p.process(j, nil)
		}
		return p.ctx.Err() == nil && p.inline(j, out)
	}
	j.out = make(chan []Instance, 1)
	select {
	case p.order <- j:
	case <-p.ctx.Done():
		return false
	}
	if j.ready != nil {
		j.out <- j.ready
		return true
	}
	select {
	case p.work <- j:
		return true
	case <-p.ctx.Done():
		return false
	}
}

func problem(name string, line int, err error) []Instance {
	return []Instance{{File: name, Line: line, Errors: []Error{}, Problem: describeErr(err)}}
}

// describeErr renders an error without repeating the file name when it already leads.
func describeErr(err error) string {
	return err.Error()
}

func (p *pipeline) maxSize() int64 {
	if p.lim != nil && p.lim.MaxSize > 0 {
		return p.lim.MaxSize
	}
	return source.DefaultMaxSize
}

// produce turns one source into jobs. It returns false when the run was cancelled.
func (p *pipeline) produce(src Source) bool {
	name := src.Name
	switch {
	case src.Path != "":
		if f, ok := source.FormatOf(src.Path); ok && f == source.NDJSON && p.inline == nil {
			rc, err := p.fsys.Open(src.Path)
			if err != nil {
				return p.send(&job{name: name, ready: problem(name, 0, err)})
			}
			defer rc.Close()
			return p.produceNDJSON(name, rc)
		}
		return p.send(&job{name: name, src: src})
	case src.Reader != nil:
		// Stdin: NDJSON when the first line is a whole JSON value and more follows.
		br, nd, err := source.PeekNDJSON(src.Reader, p.maxSize())
		if err != nil {
			return p.send(&job{name: name, ready: problem(name, 0, fmt.Errorf("%s: %w", name, err))})
		}
		if nd {
			return p.produceNDJSON(name, br)
		}
		data, err := readAll(br, p.maxSize())
		if err != nil {
			return p.send(&job{name: name, ready: problem(name, 0, fmt.Errorf("%s: %w", name, err))})
		}
		return p.send(&job{name: name, src: Source{Name: name, Text: data}})
	default:
		return p.send(&job{name: name, src: src})
	}
}

const chunkSize = 256 << 10

// onRecycle, when set (by tests), sees each chunk buffer as it is handed back for reuse,
// and onRecycleOut each slice of instances.
var (
	onRecycle    func([]byte)
	onRecycleOut func([]Instance)
)

// recycle hands the chunk of job j, whose instances out were reported, back to the
// producer, when nothing reported keeps any of its memory: every instance is valid,
// with no errors, no output unit and no problem (only the file name and the line are
// kept, neither taken from the chunk). The strings of a parsed line share the chunk's
// memory, so a chunk with any other instance is left to the collector. A chunk that grew
// past chunkSize (a long line) is not kept either. The emitter calls it after the
// worker's results came through j.out, so the worker is done with the chunk.
//
// The slice out itself goes back to the workers whatever its instances: the collector
// copied them, or handed them to Options.OnInstance, which does not keep them.
func (p *pipeline) recycle(j *job, out []Instance) {
	if !j.ndjson || p.free == nil {
		return
	}
	keep := cap(j.data) == chunkSize
	for i := range out {
		in := &out[i]
		if !in.Valid || len(in.Errors) > 0 || in.Output != nil || in.Problem != "" || in.stopped {
			keep = false
			break
		}
	}
	if cap(out) > 0 {
		clear(out[:cap(out)]) // nothing the instances held stays reachable from here
		if onRecycleOut != nil {
			onRecycleOut(out[:cap(out)])
		}
		select {
		case p.outs <- out[:0]:
		default: // cannot happen (see pipeline.outs)
		}
	}
	if !keep {
		return
	}
	b := j.data[:0]
	j.data = nil
	if onRecycle != nil {
		onRecycle(b[:chunkSize])
	}
	select {
	case p.free <- b:
	default: // cannot happen (see pipeline.free); if it did, this one goes to the collector
	}
}

// newChunk returns an empty chunk buffer: one handed back by recycle, or a new one.
func (p *pipeline) newChunk() []byte {
	select {
	case b := <-p.free:
		return b
	default:
		return make([]byte, 0, chunkSize)
	}
}

// produceNDJSON cuts an NDJSON stream into chunks of whole lines. A line longer than the
// size limit is reported and skipped without being kept in memory.
func (p *pipeline) produceNDJSON(name string, r io.Reader) bool {
	br := bufio.NewReaderSize(r, 1<<20)
	limit := p.maxSize()
	line, start := 1, 1
	chunk := p.newChunk()
	flush := func() bool {
		if len(chunk) == 0 {
			return true
		}
		ok := p.send(&job{name: name, data: chunk, startLine: start, ndjson: true, size: int64(len(chunk))})
		chunk = p.newChunk()
		return ok
	}
	for {
		l, err := br.ReadSlice('\n')
		read := int64(len(l))
		tooLong := int64(len(bytes.TrimRight(l, "\r\n"))) > limit
		if err == bufio.ErrBufferFull {
			long := append([]byte(nil), l...)
			for err == bufio.ErrBufferFull {
				l, err = br.ReadSlice('\n')
				read += int64(len(l))
				if !tooLong && int64(len(long)+len(bytes.TrimRight(l, "\r\n"))) > limit {
					tooLong, long = true, nil
				}
				if !tooLong {
					long = append(long, l...)
				}
			}
			l = long
		}
		if err != nil && err != io.EOF {
			// The stream broke: the line read so far is incomplete and is not validated.
			return flush() && p.send(&job{name: name, ready: problem(name, line, fmt.Errorf("%s: %v", name, err))})
		}
		switch {
		case tooLong:
			if !flush() || !p.send(&job{name: name, ready: problem(name, line, oversize(name, line, limit)), size: read}) {
				return false
			}
			line++
			start = line
		case len(l) > 0:
			if len(chunk) > 0 && len(chunk)+len(l) > cap(chunk) && !flush() {
				return false // the line would grow the chunk: it starts the next one instead
			}
			if len(chunk) == 0 {
				start = line
			}
			chunk = append(chunk, l...)
			line++
		}
		if err == io.EOF {
			return flush()
		}
		if len(chunk) >= chunkSize && !flush() {
			return false
		}
	}
}

func oversize(name string, line int, limit int64) error {
	return &source.Error{File: name, Line: line,
		Msg: fmt.Sprintf("line is longer than the limit of %d bytes (raise it with --max-size)", limit)}
}

// process does one job's work. lines, when not nil, is the worker's line parser, which
// the lines of an NDJSON chunk are parsed with.
func (p *pipeline) process(j *job, lines *source.LineParser) []Instance {
	if p.ctx.Err() != nil {
		return nil
	}
	if j.ndjson {
		return p.processLines(j, lines)
	}
	src := j.src
	data := src.Text
	format, known := source.Format(0), false
	if src.Path != "" {
		var err error
		data, err = workspace.ReadFile(p.fsys, src.Path, p.maxSize())
		if err != nil {
			return problem(j.name, 0, err)
		}
		format, known = source.FormatOf(src.Path)
	} else if src.ParseName != "" {
		format, known = source.FormatOf(src.ParseName)
	}
	j.size = int64(len(data))
	share := src.Path != "" // data was read into a buffer of its own
	if !known {
		if doc := source.ParseIfJSON(j.name, data, p.lim, share); doc != nil {
			return []Instance{p.check(j.name, docLine(0, doc), doc)}
		}
		format = source.Sniff(data)
	}
	if format == source.NDJSON {
		if src.Path == "" {
			data = bytes.Clone(data) // the lines' documents share it: a copy the caller cannot change
		}
		return p.processLines(&job{name: j.name, data: data, startLine: 1}, nil)
	}
	parse := source.Parse
	if share {
		parse = source.ParseShared
	}
	docs, err := parse(j.name, data, format, p.lim)
	if err != nil {
		return problem(j.name, 0, err)
	}
	out := make([]Instance, 0, len(docs))
	for i, doc := range docs {
		out = append(out, p.check(j.name, docLine(i, doc), doc))
	}
	return out
}

// docLine is the line an instance is reported at: that of the i-th document of a file,
// but none (0) for a file's only document when it starts on the first line.
func docLine(i int, doc *source.Document) int {
	if i > 0 || doc.Line > 1 {
		return doc.Line
	}
	return 0
}

// processLines validates the lines of an NDJSON chunk, parsed with lines (the worker's
// parser, whose memory the chunks it validates share) or, when nil or when the chunk grew
// past chunkSize for a long line (whose values a kept parser would hold on to), with one
// of the chunk's own.
func (p *pipeline) processLines(j *job, lines *source.LineParser) []Instance {
	data := j.data
	n := bytes.Count(data, []byte{'\n'}) + 1
	var out []Instance
	select {
	case out = <-p.outs: // nil when the pipeline has no workers
	default:
	}
	if cap(out) < n {
		out = make([]Instance, 0, n)
	}
	line := j.startLine
	if lines == nil || cap(data) > chunkSize {
		lines = new(source.LineParser)
	}
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		n := line
		line++
		if n == 1 {
			l = bytes.TrimPrefix(l, []byte("\uFEFF"))
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		l = bytes.TrimSuffix(l, []byte{'\r'})
		doc, err := lines.Parse(j.name, l, p.lim) // the job's chunk is never modified
		if err != nil {
			var se *source.Error
			if errors.As(err, &se) && se.Line > 0 {
				se.Line = n
			}
			out = append(out, problem(j.name, n, err)[0])
			continue
		}
		doc.Line = n
		in := p.check(j.name, n, doc)
		if in.Valid && len(in.Errors) == 0 {
			lines.Recycle() // nothing of a valid instance is kept: its values' memory is the next line's
		}
		out = append(out, in)
	}
	return out
}

// check validates one document. An error that ends the run (out of time, out of pattern
// budget, cancelled) gives an instance marked stopped, which is not reported.
func (p *pipeline) check(name string, line int, doc *source.Document) Instance {
	errs, truncated, err := p.schema.ValidateLimitContext(p.ctx, doc.Root, p.maxErrors)
	if err != nil && p.halt.Note(err) {
		return Instance{File: name, Line: line, stopped: true}
	}
	if err != nil {
		loc := name
		if line > 0 {
			loc = fmt.Sprintf("%s:%d", name, line)
		}
		return Instance{File: name, Line: line, Errors: []Error{}, Problem: loc + ": " + err.Error()}
	}
	in := Instance{File: name, Line: line, Valid: len(errs) == 0, Errors: convert(errs, doc), Truncated: truncated}
	if p.output != "" {
		out, _, err := p.schema.OutputLimit(p.ctx, doc.Root, p.output, p.maxErrors)
		if err != nil && p.halt.Note(err) {
			return Instance{File: name, Line: line, stopped: true}
		}
		in.Output = out
	}
	return in
}

// Locate turns the evaluator's errors into validate's: each located in the instance
// document doc (no line and column when doc is nil) and in its schema. The public library
// (package jsonschema) reports its errors through it, so that they are located as jstk
// validate locates them.
func Locate(errs []schema.Error, doc *source.Document) []Error { return convert(errs, doc) }

// convert locates schema errors in the instance document and its schema.
func convert(errs []schema.Error, doc *source.Document) []Error {
	out := make([]Error, len(errs))
	for i := range errs {
		e := &errs[i]
		var line, col int
		switch {
		case doc == nil:
		case aboutName(e):
			line, col = doc.LocateKey(e.InstanceLocation)
		default:
			line, col = doc.Locate(e.InstanceLocation)
		}
		out[i] = Error{
			InstanceLocation:        e.InstanceLocation,
			KeywordLocation:         e.KeywordLocation,
			AbsoluteKeywordLocation: e.AbsoluteKeywordLocation,
			Keyword:                 e.Keyword,
			Message:                 e.Message,
			Line:                    line,
			Column:                  col,
		}
		if f, sl, sc := e.SchemaPosition(); sl > 0 {
			out[i].Schema = &SchemaLocation{File: f, Line: sl, Column: sc}
		}
		if len(e.Causes) > 0 {
			out[i].Causes = convert(e.Causes, doc)
		}
	}
	return out
}

// aboutName reports whether an error is about an object member's name rather than its
// value: a property that an applicator to members rejects by itself (additionalProperties
// or unevaluatedProperties false), or a name that fails an applicator to names
// (propertyNames: the error is then that of a keyword below it).
func aboutName(e *schema.Error) bool {
	if k, ok := modelKeyword(e.Keyword); ok && (k.Names || rejectsMembers(k)) {
		return true
	}
	// Find an applicator to names among the keywords of the path, skipping property names
	// and indexes, which may spell anything.
	name := false
	for _, tok := range strings.Split(e.KeywordLocation, "/")[1:] {
		if name {
			name = false
			continue
		}
		if k, ok := modelKeyword(tok); ok && k.Names {
			return true
		}
		name = keyedSubschemas(tok)
	}
	return false
}

// modelKeyword returns the entry of keyword name in the first draft that has one.
func modelKeyword(name string) (*schema.Keyword, bool) {
	for _, d := range schema.Drafts {
		if k, ok := d.Keyword(name); ok {
			return k, true
		}
	}
	return nil, false
}

// rejectsMembers reports an applicator to the members of an object that fails by itself
// only by rejecting a member, its subschema false (additionalProperties,
// unevaluatedProperties): it fails where the evaluator reports errors itself, holds one
// schema, and acts on objects.
func rejectsMembers(k *schema.Keyword) bool {
	return k.Kind == schema.Applicator && k.Fails && k.Shape == schema.OneSchema && k.Types == schema.TypeObject
}

// keyedSubschemas reports a keyword whose subschemas are always one token further, under
// a name or an index (properties, allOf, ...: see schema.Shape).
func keyedSubschemas(kw string) bool {
	for _, d := range schema.Drafts {
		if k, ok := d.Keyword(kw); ok {
			switch k.Shape {
			case schema.SchemaMap, schema.DepsMap, schema.SchemaArray:
				return true
			}
		}
	}
	return false
}

// ---- stdin helpers ----

func readAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("input is larger than the limit of %d bytes (raise it with --max-size)", limit)
	}
	return data, nil
}

// Failed reports whether any instance could not be read.
func (r *Result) Failed() bool { return r.Summary.Unreadable > 0 }

// ExitCode is the CLI's exit status for the result: 0 all valid, 1 an instance is
// invalid, 2 an instance could not be read or the run was stopped before its end.
func (r *Result) ExitCode() int {
	switch {
	case r.Summary.Unreadable > 0 || r.Stopped != "":
		return 2
	case r.Summary.Invalid > 0, r.RequireSchema && len(r.NoSchema) > 0:
		return 1
	}
	return 0
}

// isNDJSONPath reports a file whose name says NDJSON: it is streamed through the pipeline.
func isNDJSONPath(path string) bool {
	f, ok := source.FormatOf(path)
	return path != "" && ok && f == source.NDJSON
}

func maxErrors(opts *Options) int {
	if opts.MaxErrors > 0 {
		return opts.MaxErrors
	}
	return DefaultMaxErrors
}

// Document validates one parsed document as Run validates each document of its sources:
// the same errors, messages and positions. It serves callers that hold the document
// already (the language server, which parses every version of an open document once).
// line is the document's first line when it is not the first of its file (as
// Instance.Line), else 0; maxErrs is as Options.MaxErrors. The error is non-nil only when
// the run must stop (ctx cancelled, out of time or of pattern budget), as Run's Stopped.
func Document(ctx context.Context, s *schema.Schema, name string, line int, doc *source.Document, maxErrs int) (Instance, error) {
	var halt schema.Halt
	p := &pipeline{ctx: ctx, schema: s, maxErrors: maxErrors(&Options{MaxErrors: maxErrs}), halt: &halt}
	in := p.check(name, line, doc)
	if in.stopped {
		return Instance{}, halt.Err()
	}
	return in, nil
}
