package source

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestPeekNDJSON(t *testing.T) {
	t.Parallel()
	long := `{"pad":"` + strings.Repeat("x", 200<<10) + `"}`
	tests := []struct {
		name  string
		in    string
		limit int64
		want  bool
	}{
		{"two lines", "{\"a\":1}\n{\"a\":2}\n", 1 << 20, true},
		{"arrays", "[1]\n[2]", 1 << 20, true},
		{"a first line longer than a read", long + "\n{\"a\":2}\n", 1 << 20, true},
		{"blank lines between", "\n  {\"a\":1}\r\n\n \n{\"a\":2}", 1 << 20, true},
		{"a byte order mark", "\uFEFF{\"a\":1}\n{\"a\":2}\n", 1 << 20, true},
		{"one document on several lines", "{\n  \"a\": 1\n}\n", 1 << 20, false},
		{"one line and blanks", "{\"a\":1}\n\n  \n", 1 << 20, false},
		{"one line, no newline", long, 1 << 20, false},
		{"scalars", "1\n2\n", 1 << 20, false},
		{"YAML", "a: 1\nb: 2\n", 1 << 20, false},
		{"a first line that is not JSON", "{\"a\":1,\n\"b\":2}\n", 1 << 20, false},
		{"empty", "", 1 << 20, false},
		{"a first line over the limit", long + "\n{\"a\":2}\n", 64 << 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// one byte per read at first: the decision must not depend on how reads fall
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in[:min(len(tt.in), 300)] + tt.in[min(len(tt.in), 300):]))} {
				rd, got, err := PeekNDJSON(r, tt.limit)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("PeekNDJSON = %v, want %v", got, tt.want)
				}
				all, err := io.ReadAll(rd)
				if err != nil || string(all) != tt.in {
					t.Errorf("the reader gives %d bytes (%v), want the %d of the input", len(all), err, len(tt.in))
				}
			}
		})
	}
	boom := errors.New("disk on fire")
	if _, _, err := PeekNDJSON(iotest.ErrReader(boom), 1<<20); !errors.Is(err, boom) {
		t.Errorf("a read error: %v", err)
	}
}

// FuzzPeekNDJSON: any input, read in any chunking, is replayed byte for byte, and a stream
// called NDJSON has a first non-blank line that is a JSON object or array.
func FuzzPeekNDJSON(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n{\"a\":2}\n", "{\n}\n", "[1]\n\n[2]", "\uFEFF{}\n{}", "1\n2", "", "{\"a\":1}\n  \n"} {
		f.Add(s, int64(1<<20), false)
	}
	f.Fuzz(func(t *testing.T, in string, limit int64, oneByte bool) {
		if limit <= 0 {
			limit = 1
		}
		var r io.Reader = strings.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		rd, nd, err := PeekNDJSON(r, limit)
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(rd)
		if err != nil || string(all) != in {
			t.Fatalf("replayed %q (%v), want %q", all, err, in)
		}
		if nd {
			first := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(in, " \t\r\n"), "\uFEFF"), " \t\r\n")
			line, _, _ := strings.Cut(first, "\n")
			if _, err := ParseJSON("", []byte(line), nil); err != nil || (line[0] != '{' && line[0] != '[') {
				t.Fatalf("called NDJSON, but the first line %q is not a JSON object or array (%v)", line, err)
			}
		}
	})
}
