package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The three ways NDJSON arrives: a file read through the FS, standard input, inline text.
var ndjsonWays = []struct {
	name string
	src  func(text string) (Source, workspace.FS)
}{
	{"file", func(text string) (Source, workspace.FS) {
		return Source{Name: "d.ndjson", Path: "d.ndjson"}, workspace.Memory(map[string]string{"d.ndjson": text})
	}},
	{"stdin", func(text string) (Source, workspace.FS) {
		return Source{Name: "d.ndjson", Reader: strings.NewReader(text)}, nil
	}},
	{"text", func(text string) (Source, workspace.FS) {
		return Source{Name: "d.ndjson", Text: []byte(text)}, nil
	}},
}

func TestNDJSON(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	long := `{"id": 1, "name": "` + strings.Repeat("n", 8) + `", "pad": "` + strings.Repeat("x", 300<<10) + `"}`
	tests := []struct {
		name string
		text string
		// only lists the ways that see NDJSON; by default all do. Standard input and inline
		// text are sniffed: input whose first line, or for text first two lines, are not
		// each one JSON value is read as one document.
		only []string
		want []outcome
	}{
		{
			name: "blank lines",
			text: "\n{\"id\": 1}\n\n   \n\t\n{\"id\": \"x\"}\n\n",
			want: []outcome{
				{File: "d.ndjson", Line: 2, Valid: true},
				{File: "d.ndjson", Line: 6, Errors: []string{"/id type 6:8"}},
			},
		},
		{
			name: "CRLF",
			text: "{\"id\": 1}\r\n{\"id\": true}\r\n\r\n{\"id\": 3}\r\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Errors: []string{"/id type 2:8"}},
				{File: "d.ndjson", Line: 4, Valid: true},
			},
		},
		{
			name: "BOM on the first line",
			text: "\uFEFF{\"id\": 1}\n{\"id\": []}\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Errors: []string{"/id type 2:8"}},
			},
		},
		{
			name: "last line without newline",
			text: "{\"id\": 1}\n{\"name\": 5}",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Errors: []string{" required 2:1", "/name type 2:10"}},
			},
		},
		{
			name: "broken lines between good ones",
			only: []string{"file", "stdin"},
			text: "{\"id\": 1}\n{\"id\": 2\n[1,]\n{\"id\": 4}\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Problem: "d.ndjson:2:9: ..."},
				{File: "d.ndjson", Line: 3, Problem: "d.ndjson:3:4: ..."},
				{File: "d.ndjson", Line: 4, Valid: true},
			},
		},
		{
			name: "two values on a line",
			only: []string{"file"},
			text: "{\"id\": 1} {\"id\": 2}\n{\"id\": 3}\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Problem: "d.ndjson:1:11: ..."},
				{File: "d.ndjson", Line: 2, Valid: true},
			},
		},
		{
			name: "a line longer than a chunk",
			text: "{\"id\": 1}\n" + long + "\n{\"id\": \"x\"}\n" + long,
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Valid: true},
				{File: "d.ndjson", Line: 3, Errors: []string{"/id type 3:8"}},
				{File: "d.ndjson", Line: 4, Valid: true},
			},
		},
	}
	for _, tt := range tests {
		for _, way := range ndjsonWays {
			if tt.only != nil && !slices.Contains(tt.only, way.name) {
				continue
			}
			t.Run(tt.name+"/"+way.name, func(t *testing.T) {
				t.Parallel()
				src, fsys := way.src(tt.text)
				res := run(t, s, []Source{src}, fsys, &Options{Workers: 3})
				if diff := cmp.Diff(tt.want, outcomes(res.Instances), problemPrefix); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// A line over the size limit is reported with its line number and skipped; the lines around
// it are validated. The limit counts the line without its line ending.
func TestNDJSONLineLimit(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	line := func(n int) string { // a valid instance of exactly n bytes
		return `{"id": 1, "p": "` + strings.Repeat("x", n-18) + `"}`
	}
	const limit = 100
	tooLong := "d.ndjson:%d: line is longer than the limit of 100 bytes (raise it with --max-size)"
	tests := []struct {
		name  string
		limit int64
		text  string
		want  []outcome
	}{
		{
			name: "at and over the limit",
			text: line(100) + "\n" + line(101) + "\n" + line(100) + "\r\n" + line(101) + "\r\n{\"id\": 5}\n" + line(101),
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Problem: fmt.Sprintf(tooLong, 2)},
				{File: "d.ndjson", Line: 3, Valid: true},
				{File: "d.ndjson", Line: 4, Problem: fmt.Sprintf(tooLong, 4)},
				{File: "d.ndjson", Line: 5, Valid: true},
				{File: "d.ndjson", Line: 6, Problem: fmt.Sprintf(tooLong, 6)},
			},
		},
		{
			name: "longer than the read buffer",
			text: "{\"id\": 1}\n" + line(3<<20) + "\n{\"id\": \"x\"}\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Problem: fmt.Sprintf(tooLong, 2)},
				{File: "d.ndjson", Line: 3, Errors: []string{"/id type 3:8"}},
			},
		},
		{
			name:  "longer than the read buffer, within the limit",
			limit: 4 << 20,
			text:  "{\"id\": 1}\n" + line(3<<20) + "\n" + line(5<<20) + "\n{\"id\": \"x\"}\n",
			want: []outcome{
				{File: "d.ndjson", Line: 1, Valid: true},
				{File: "d.ndjson", Line: 2, Valid: true},
				{File: "d.ndjson", Line: 3, Problem: "d.ndjson:3: line is longer than the limit of 4194304 bytes (raise it with --max-size)"},
				{File: "d.ndjson", Line: 4, Errors: []string{"/id type 4:8"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lim := tt.limit
			if lim == 0 {
				lim = limit
			}
			// Files and standard input stream; the limit holds for each line.
			for _, way := range ndjsonWays[:2] {
				src, fsys := way.src(tt.text)
				res := run(t, s, []Source{src}, fsys, &Options{Limits: &source.Limits{MaxSize: lim}})
				if diff := cmp.Diff(tt.want, outcomes(res.Instances)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", way.name, diff)
				}
			}
		})
	}
}

// hugeLine is a reader of one NDJSON line of size bytes, made up as it is read, followed by
// the lines of tail.
type hugeLine struct {
	size int64
	tail *strings.Reader
}

var filler = []byte(`{"id": 1, "pad": "` + strings.Repeat("x", 64<<10))

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.size <= 0 {
		return h.tail.Read(p)
	}
	n := copy(p, filler[:min(int64(len(filler)), h.size)])
	h.size -= int64(n)
	return n, nil
}

// lazyFS opens every file as a fresh reader made by open.
type lazyFS struct {
	workspace.FS
	open func() io.Reader
}

func (l lazyFS) Open(string) (io.ReadCloser, error) { return io.NopCloser(l.open()), nil }

// Stat knows no size: the run reads the stream as it comes.
func (l lazyFS) Stat(string) (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// A 300 MB line over the limit is skipped without being held in memory, and the next lines
// are still validated: in a file, and on standard input.
func TestNDJSONHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MB twice")
	}
	s := compileSchema(t, orderSchema)
	const size = 300 << 20
	tail := "\n{\"id\": 2}\n{\"id\": \"x\"}\n"
	tooLong := "%s:%d: line is longer than the limit of 1048576 bytes (raise it with --max-size)"
	tests := []struct {
		name string
		src  Source
		fsys workspace.FS
		want []outcome
	}{
		{
			name: "file",
			src:  Source{Name: "big.ndjson", Path: "big.ndjson"},
			fsys: lazyFS{open: func() io.Reader { return &hugeLine{size: size, tail: strings.NewReader(tail)} }},
			want: []outcome{
				{File: "big.ndjson", Line: 1, Problem: fmt.Sprintf(tooLong, "big.ndjson", 1)},
				{File: "big.ndjson", Line: 2, Valid: true},
				{File: "big.ndjson", Line: 3, Errors: []string{"/id type 3:8"}},
			},
		},
		{
			// Standard input is sniffed on its first line, which must be short enough for that.
			name: "stdin",
			src: Source{Name: "-", Reader: io.MultiReader(strings.NewReader("{\"id\": 0}\n"),
				&hugeLine{size: size, tail: strings.NewReader(tail)})},
			want: []outcome{
				{File: "-", Line: 1, Valid: true},
				{File: "-", Line: 2, Problem: fmt.Sprintf(tooLong, "-", 2)},
				{File: "-", Line: 3, Valid: true},
				{File: "-", Line: 4, Errors: []string{"/id type 4:8"}},
			},
		},
	}
	for _, tt := range tests {
		var res *Result
		grew := heapGrowth(t, func() {
			res = run(t, s, []Source{tt.src}, tt.fsys, &Options{Limits: &source.Limits{MaxSize: 1 << 20}})
		})
		if diff := cmp.Diff(tt.want, outcomes(res.Instances)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		t.Logf("%s: the heap grew by at most %.1f MB while reading a 300 MB line", tt.name, float64(grew)/(1<<20))
		if grew > 64<<20 {
			t.Errorf("%s: the heap grew by %d MB while skipping a 300 MB line; it should stay near the read buffer",
				tt.name, grew>>20)
		}
	}
}

// heapGrowth runs fn and returns by how much the heap grew at most meanwhile (sampled).
func heapGrowth(t *testing.T, fn func()) int64 {
	t.Helper()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return int64(peak.Load()) - int64(base.HeapAlloc)
}

// errAfter yields text, then fails.
type errAfter struct {
	text *strings.Reader
	err  error
}

func (e *errAfter) Read(p []byte) (int, error) {
	if e.text.Len() > 0 {
		// Small reads, so that the failure comes in the middle of the stream.
		return e.text.Read(p[:min(len(p), 7)])
	}
	return 0, e.err
}

// A read error mid-stream keeps the lines read so far, and is reported where it happened,
// naming the input; the incomplete line is not validated as if it were whole.
func TestNDJSONReadError(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	boom := errors.New("connection reset")
	for _, tt := range []struct {
		name string
		text string
		want []outcome
	}{
		{
			name: "mid-line",
			text: "{\"id\": 1}\n{\"id\": \"x\"}\n{\"id\": 12",
			want: []outcome{
				{File: "in.ndjson", Line: 1, Valid: true},
				{File: "in.ndjson", Line: 2, Errors: []string{"/id type 2:8"}},
				{File: "in.ndjson", Line: 3, Problem: "in.ndjson: connection reset"},
			},
		},
		{
			name: "between lines",
			text: "{\"id\": 1}\n{\"id\": 2}\n",
			want: []outcome{
				{File: "in.ndjson", Line: 1, Valid: true},
				{File: "in.ndjson", Line: 2, Valid: true},
				{File: "in.ndjson", Line: 3, Problem: "in.ndjson: connection reset"},
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Through standard input, and through a file whose reads fail.
			srcs := []Source{{Name: "in.ndjson", Reader: &errAfter{text: strings.NewReader(tt.text), err: boom}}}
			res := run(t, s, srcs, nil, nil)
			if diff := cmp.Diff(tt.want, outcomes(res.Instances)); diff != "" {
				t.Errorf("stdin (-want +got):\n%s", diff)
			}
			fsys := failingFS{FS: workspace.Memory(nil), text: tt.text, err: boom}
			res = run(t, s, files("in.ndjson"), fsys, nil)
			if diff := cmp.Diff(tt.want, outcomes(res.Instances)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
	// A single document whose reading fails is reported, naming it.
	fsys := failingFS{FS: workspace.Memory(nil), text: "{\"id\":", err: boom}
	res := run(t, s, files("in.json"), fsys, nil)
	want := []outcome{{File: "in.json", Problem: "in.json: connection reset"}}
	if diff := cmp.Diff(want, outcomes(res.Instances)); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
	res = run(t, s, []Source{{Name: "-", Reader: &errAfter{text: strings.NewReader("{\"id\":\n"), err: boom}}}, nil, nil)
	want = []outcome{{File: "-", Problem: "-: connection reset"}}
	if diff := cmp.Diff(want, outcomes(res.Instances)); diff != "" {
		t.Errorf("stdin document (-want +got):\n%s", diff)
	}
}

// failingFS opens every file as text followed by a read error.
type failingFS struct {
	workspace.FS
	text string
	err  error
}

func (f failingFS) Open(string) (io.ReadCloser, error) {
	return io.NopCloser(&errAfter{text: strings.NewReader(f.text), err: f.err}), nil
}

// Standard input is NDJSON when its first line is a whole JSON value and more follows;
// otherwise it is one document (JSON or YAML, possibly a YAML stream).
func TestStdinSniffing(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, orderSchema)
	longFirst := `{"id": 1, "pad": "` + strings.Repeat("x", 70<<10) + `"}`
	tests := []struct {
		name  string
		input string
		limit int64
		want  []outcome
	}{
		{name: "NDJSON", input: "{\"id\": 1}\n{\"id\": \"x\"}\n", want: []outcome{
			{File: "-", Line: 1, Valid: true}, {File: "-", Line: 2, Errors: []string{"/id type 2:8"}}}},
		{name: "NDJSON of arrays", input: "[1]\n[2]", want: []outcome{
			{File: "-", Line: 1, Errors: []string{" type 1:1"}}, {File: "-", Line: 2, Errors: []string{" type 2:1"}}}},
		{name: "NDJSON after blank lines and a BOM", input: "\uFEFF\n\n{\"id\": 1}\n{\"id\": 2}\n", want: []outcome{
			{File: "-", Line: 3, Valid: true}, {File: "-", Line: 4, Valid: true}}},
		{name: "NDJSON of scalars", input: "1\n\"a\"\n", want: []outcome{
			{File: "-", Line: 1, Errors: []string{" type 1:1"}}, {File: "-", Line: 2, Errors: []string{" type 2:1"}}}},
		{name: "NDJSON with a first line longer than the sniffed head", input: longFirst + "\n{\"id\": []}\n", want: []outcome{
			{File: "-", Line: 1, Valid: true}, {File: "-", Line: 2, Errors: []string{"/id type 2:8"}}}},
		{name: "one compact JSON document", input: "{\"id\": \"x\"}\n", want: []outcome{
			{File: "-", Errors: []string{"/id type 1:8"}}}},
		{name: "one JSON document over several lines", input: "{\n  \"id\": 1\n}\n", want: []outcome{
			{File: "-", Valid: true}}},
		{name: "JSON then garbage", input: "{\"id\": 1}\nnot json\n", want: []outcome{
			{File: "-", Line: 1, Valid: true}, {File: "-", Line: 2, Problem: "-:2:1: ..."}}},
		{name: "YAML", input: "id: x\n", want: []outcome{{File: "-", Errors: []string{"/id type 1:5"}}}},
		{name: "YAML stream", input: "id: 1\n---\nid: 2\n---\nname: n\n", want: []outcome{
			{File: "-", Valid: true}, {File: "-", Line: 2, Valid: true}, {File: "-", Line: 4, Errors: []string{" required 5:1"}}}},
		{name: "YAML flow mapping on one line", input: "{id: 1}\n", want: []outcome{{File: "-", Valid: true}}},
		{name: "empty", input: "", want: []outcome{{File: "-", Problem: "-:1:1: ..."}}},
		{name: "a BOM alone", input: "\uFEFF\n", want: []outcome{{File: "-", Problem: "-:2:1: ..."}}},
		{name: "document over the limit", input: "{\n\"id\": 1}\n", limit: 5, want: []outcome{
			{File: "-", Problem: "-: input is larger than the limit of 5 bytes (raise it with --max-size)"}}},
		{name: "NDJSON over the total limit streams", input: "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n", limit: 12, want: []outcome{
			{File: "-", Line: 1, Valid: true}, {File: "-", Line: 2, Valid: true}, {File: "-", Line: 3, Valid: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := &Options{}
			if tt.limit > 0 {
				opts.Limits = &source.Limits{MaxSize: tt.limit}
			}
			res := run(t, s, []Source{{Name: "-", Reader: strings.NewReader(tt.input)}}, nil, opts)
			if diff := cmp.Diff(tt.want, outcomes(res.Instances), problemPrefix); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// settle waits for the number of goroutines to come back to at most n.
func settle(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines still running, want at most %d:\n%s", runtime.NumGoroutine(), n, buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var endlessPad = strings.Repeat("p", 200)

// endless is an NDJSON stream that never ends.
type endless struct {
	n       int
	pending []byte
}

func (e *endless) Read(p []byte) (int, error) {
	for len(e.pending) < len(p) {
		e.n++
		e.pending = fmt.Appendf(e.pending, "{\"id\": %d, \"pad\": %q}\n", e.n, endlessPad)
	}
	n := copy(p, e.pending)
	e.pending = append(e.pending[:0], e.pending[n:]...)
	return n, nil
}

// Cancelling the context stops the run, which returns the context's error and leaves no
// goroutine behind. (Not parallel: it counts goroutines.)
func TestCancel(t *testing.T) {
	s := compileSchema(t, orderSchema)
	fsys := workspace.Memory(map[string]string{"a.json": `{"id": 1}`, "b.ndjson": "{\"id\": 1}\n{\"id\": 2}\n"})

	t.Run("before the run", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		res, err := Run(ctx, s, files("a.json", "b.ndjson"), fsys, &Options{OnInstance: func(*Instance) { calls++ }})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("Run = %v, %v; want nil, context.Canceled", res, err)
		}
		if calls != 0 {
			t.Errorf("OnInstance called %d times after cancellation", calls)
		}
		settle(t, before)
	})

	t.Run("an endless stream", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen := 0
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, s, []Source{{Name: "-", Reader: &endless{}}}, nil, &Options{Workers: 4,
				OnInstance: func(in *Instance) {
					seen++
					if in.Line != seen {
						t.Errorf("instance %d has line %d", seen, in.Line)
					}
					if seen == 2000 {
						cancel()
					}
				}})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Run does not stop when its context is cancelled")
		}
		settle(t, before)
	})

	t.Run("a deadline", func(t *testing.T) {
		// A run that reaches its time limit is a result: the instances checked before, in
		// order, and why it stopped.
		before := runtime.NumGoroutine()
		ctx, cancel := schema.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		res, err := Run(ctx, s, []Source{{Name: "-", Reader: &endless{}}}, nil, &Options{Workers: 2})
		if err != nil || res == nil || !strings.HasPrefix(res.Stopped, "stopped after ") || res.Valid || res.ExitCode() != 2 {
			t.Fatalf("Run = %v; want a result stopped by its time limit", err)
		}
		if res.Summary.Total != len(res.Instances) || res.Summary.Valid != res.Summary.Total {
			t.Errorf("summary %+v for %d instances", res.Summary, len(res.Instances))
		}
		for i, in := range res.Instances {
			if in.Line != i+1 {
				t.Fatalf("instance %d has line %d: the instances checked are not a prefix", i, in.Line)
			}
		}
		settle(t, before)
	})

	t.Run("input that blocks", func(t *testing.T) {
		before := runtime.NumGoroutine()
		pr, pw := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, s, []Source{{Name: "-", Reader: pr}}, nil, nil)
			done <- err
		}()
		if _, err := pw.Write([]byte("{\"id\": 1}\n{\"id\": 2}\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run does not stop when its context is cancelled while its input blocks")
		}
		// The reader can only be abandoned; once it returns, nothing is left running.
		pw.CloseWithError(errors.New("closed"))
		settle(t, before)
	})
}
