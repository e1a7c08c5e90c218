package source

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readNDJSON reads a whole stream and describes each result: "line N: JSON" for a document
// (with the line:column of its root), the error text for an error.
func readNDJSON(t *testing.T, rd io.Reader, lim *Limits) []string {
	t.Helper()
	r := NewNDJSONReader("s.ndjson", rd, lim)
	var out []string
	for range 1_000_000 {
		doc, err := r.Next()
		if err == io.EOF {
			return out
		}
		var perr *Error
		switch {
		case errors.As(err, &perr):
			if perr.Line != r.Line() {
				t.Errorf("Line() = %d for an error on line %d", r.Line(), perr.Line)
			}
			out = append(out, err.Error())
		case err != nil:
			return append(out, "fatal: "+err.Error())
		default:
			if doc.Line != r.Line() || doc.Format != NDJSON || doc.Name != "s.ndjson" {
				t.Errorf("document line %d, Line() %d, %v %q", doc.Line, r.Line(), doc.Format, doc.Name)
			}
			inBounds(t, doc.Root, len(doc.Source()))
			l, c := doc.Position(doc.Root.Offset())
			out = append(out, "line "+strconv.Itoa(doc.Line)+" at "+strconv.Itoa(l)+":"+strconv.Itoa(c)+": "+compact(doc.Root))
		}
	}
	t.Fatal("the reader does not stop")
	return nil
}

func TestNDJSONReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lim  *Limits
		want []string
	}{
		{"lines", "{\"a\":1}\n[2]\n\"x\"\n", nil, []string{`line 1 at 1:1: {"a":1}`, `line 2 at 2:1: [2]`, `line 3 at 3:1: "x"`}},
		{"no final newline", "1\n2", nil, []string{`line 1 at 1:1: 1`, `line 2 at 2:1: 2`}},
		{"blank lines", "\n  \n1\n\t\r\n\n 2 \n\n", nil, []string{`line 3 at 3:1: 1`, `line 6 at 6:2: 2`}},
		{"CR LF", "1\r\n{\"b\":\r\n", nil, []string{`line 1 at 1:1: 1`, `s.ndjson:2:6: unexpected end of input: expected a value`}},
		{"byte order mark on the first line", "\uFEFF{}\n[]\n", nil, []string{`line 1 at 1:1: {}`, `line 2 at 2:1: []`}},
		{"byte order mark on a later line", "1\n\uFEFF2\n3\n", nil, []string{`line 1 at 1:1: 1`, `s.ndjson:2:1: unexpected character '\ufeff': expected a value`, `line 3 at 3:1: 3`}},
		{"bad lines do not stop the stream", "1\n{\"a\":}\n[1,]\n4\n", nil,
			[]string{`line 1 at 1:1: 1`, `s.ndjson:2:6: unexpected character '}': expected a value`, `s.ndjson:3:4: unexpected character ']': expected a value`, `line 4 at 4:1: 4`}},
		{"two values on a line", "1 2\n", nil, []string{`s.ndjson:1:3: unexpected character '2' after the JSON value`}},
		{"lone CR starts a line", "[1,\r2]\n3\n", nil, []string{`line 1 at 1:1: [1,2]`, `line 3 at 3:1: 3`}},
		{"invalid UTF-8", "\"\xff\"\n1\n", nil, []string{`s.ndjson:1:2: invalid UTF-8 byte 0xff in string`, `line 2 at 2:1: 1`}},
		{"line too long", "[1]\n[1,2,3,4,5,6]\n[2]\n", &Limits{MaxSize: 5},
			[]string{`line 1 at 1:1: [1]`, `s.ndjson:2: line longer than the limit of 5 bytes (raise it with --max-size)`, `line 3 at 3:1: [2]`}},
		{"line at the limit", "[1,2]\r\n[1,2,3]\n", &Limits{MaxSize: 5},
			[]string{`line 1 at 1:1: [1,2]`, `s.ndjson:2: line longer than the limit of 5 bytes (raise it with --max-size)`}},
		{"last line too long", "[1]\n[1,2,3,4,5,6,7,8,9,10]", &Limits{MaxSize: 5},
			[]string{`line 1 at 1:1: [1]`, `s.ndjson:2: line longer than the limit of 5 bytes (raise it with --max-size)`}},
		{"depth", "[[1]]\n[2]\n", &Limits{MaxDepth: 1}, []string{`s.ndjson:1:2: nesting deeper than 1 levels (raise the limit with --max-depth)`, `line 2 at 2:1: [2]`}},
		{"empty", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readNDJSON(t, strings.NewReader(tt.in), tt.lim)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Tiny reads give the same results.
			tiny := readNDJSON(t, iotest.DataErrReader(iotest.OneByteReader(strings.NewReader(tt.in))), tt.lim)
			if diff := cmp.Diff(tt.want, tiny); diff != "" {
				t.Errorf("one byte at a time (-want +got):\n%s", diff)
			}
			// Parse, which holds the text in memory, agrees.
			docs, err := Parse("s.ndjson", []byte(tt.in), NDJSON, tt.lim)
			var all []string
			for _, d := range docs {
				all = append(all, compact(d.Root))
			}
			if err != nil {
				all = append(all, strings.Split(err.Error(), "\n")...)
			}
			if len(all) != len(tt.want) {
				t.Errorf("Parse: %q", all)
			}
		})
	}
}

// TestNDJSONLongLines reads lines longer than the read buffer: the documents of earlier
// lines must stay intact while the buffer moves on.
func TestNDJSONLongLines(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	var want []string
	for i := range 40 {
		s := `{"i":` + strconv.Itoa(i) + `,"s":"` + strings.Repeat(string(rune('a'+i%26)), i*7919) + `"}`
		in.WriteString(s + "\n")
		want = append(want, s)
	}
	r := NewNDJSONReader("long.ndjson", strings.NewReader(in.String()), nil)
	var docs []*Document
	for {
		doc, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	var got []string
	for _, d := range docs {
		got = append(got, compact(d.Root))
		if string(d.Source()) != got[len(got)-1] {
			t.Errorf("line %d: the source changed", d.Line)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// hugeLine is a reader of "1\n", then a line of n 'x' bytes, then "2\n", produced without
// holding the long line in memory.
type hugeLine struct {
	n, done int64
	head    string
	tail    string
	block   []byte
}

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.head != "" {
		n := copy(p, h.head)
		h.head = h.head[n:]
		return n, nil
	}
	if h.done < h.n {
		k := min(int64(len(p)), h.n-h.done, int64(len(h.block)))
		copy(p, h.block[:k])
		h.done += k
		return int(k), nil
	}
	if h.tail == "" {
		return 0, io.EOF
	}
	n := copy(p, h.tail)
	h.tail = h.tail[n:]
	return n, nil
}

// TestNDJSONGigabyteLine checks that a 1 GiB line is skipped without being held in memory.
func TestNDJSONGigabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB")
	}
	h := &hugeLine{n: 1 << 30, head: "1\n", tail: "\n2\n", block: bytes.Repeat([]byte("x"), 1<<16)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := readNDJSON(t, h, &Limits{MaxSize: 1 << 20})
	runtime.ReadMemStats(&after)
	want := []string{`line 1 at 1:1: 1`, `s.ndjson:2: line longer than the limit of 1048576 bytes (raise it with --max-size)`, `line 3 at 3:1: 2`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
}

type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestNDJSONReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := NewNDJSONReader("s.ndjson", &failingReader{data: "1\n2\n3", err: boom}, nil)
	var got []string
	for range 5 {
		doc, err := r.Next()
		switch {
		case err != nil:
			var perr *Error
			if errors.As(err, &perr) || !errors.Is(err, boom) {
				t.Errorf("a read error is a %T: %v", err, err)
			}
			got = append(got, err.Error())
		default:
			got = append(got, compact(doc.Root))
		}
	}
	// The partial last line is not a document: the stream broke.
	want := []string{"1", "2", "s.ndjson: boom", "s.ndjson: boom", "s.ndjson: boom"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A reader that returns nothing, forever.
	r = NewNDJSONReader("s.ndjson", &failingReader{}, nil)
	if _, err := r.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("got %v", err)
	}
	// While skipping a long line, too.
	r = NewNDJSONReader("s.ndjson", io.MultiReader(strings.NewReader("[1,2,3,4,5,6,7]"), &failingReader{err: boom}), &Limits{MaxSize: 3})
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
	r = NewNDJSONReader("s.ndjson", io.MultiReader(strings.NewReader("[1,2,3,4,5,6,7]"), &failingReader{}), &Limits{MaxSize: 3})
	if _, err := r.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("got %v", err)
	}
}

func TestParseNDJSONErrorsJoined(t *testing.T) {
	t.Parallel()
	docs, err := Parse("s.ndjson", []byte("1\nx\n3\n{\n"), NDJSON, nil)
	if len(docs) != 2 || docs[1].Line != 3 {
		t.Fatalf("%d documents", len(docs))
	}
	want := "s.ndjson:2:1: unexpected character 'x': expected a value\ns.ndjson:4:2: unexpected end of input: expected a member name in double quotes"
	if got := errString(err); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var perr *Error
	if !errors.As(err, &perr) || perr.Line != 2 {
		t.Errorf("errors.As: %v", perr)
	}
}

// TestNDJSONSourceCapacity checks that appending to a document's Source cannot overwrite the
// text of the next document.
func TestNDJSONSourceCapacity(t *testing.T) {
	t.Parallel()
	r := NewNDJSONReader("s.ndjson", strings.NewReader("[1]\n[2]\n"), nil)
	first, _ := r.Next()
	second, _ := r.Next()
	_ = append(first.Source(), "XXXX"...)
	if got := string(second.Source()); got != "[2]" {
		t.Errorf("second line changed to %q", got)
	}
	docs, err := ParseYAML("t.yaml", []byte("a\n---\nb\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(docs[0].Source(), "XXXXXXXX"...)
	if got := string(docs[1].Source()); got != "---\nb\n" {
		t.Errorf("second document changed to %q", got)
	}
}
