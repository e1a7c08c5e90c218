package validate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// recycleSchema fails a line on its own strings: a member name that is not allowed, a
// value too long, a value not in the enum. The messages and locations then spell parts of
// the line, whose unescaped strings share the chunk's memory.
const recycleSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "integer"},
    "name": {"type": "string", "maxLength": 12},
    "tag": {"enum": ["red", "green", "blue"]},
    "pad": {"type": "string"}
  },
  "required": ["id", "name"],
  "additionalProperties": false
}`

// recycleInput is about 30 chunks of lines, each line its own (the index in its strings).
// Lines that fail come in a few runs, so that some chunks hold only valid lines (they are
// recycled) and others hold invalid ones (they are not).
func recycleInput() string {
	var b strings.Builder
	for i := range 30000 {
		switch {
		case i%5000 < 3 && i > 0:
			fmt.Fprintf(&b, `{"id": %d, "name": "too-long-name-%06d", "tag": "tag-%06d", "extra-%06d": true}`+"\n", i, i, i, i)
		case i%5000 == 3:
			fmt.Fprintf(&b, `{"id": %d, "name": "n%06d", "tag": "green"`+"\n", i, i) // unparsable
		default:
			fmt.Fprintf(&b, `{"id": %d, "name": "n%06d", "tag": "red", "pad": "%s"}`+"\n", i, i, strings.Repeat("p", 80))
		}
	}
	return b.String()
}

// TestChunkRecycling checks that a chunk buffer or a slice of instances handed back for
// reuse is never read again: each is overwritten at once (onRecycle, onRecycleOut), so
// that a worker still reading a chunk, an instance that kept a string of it, or an
// instance reported after its slice went back would report something else than the run
// that recycles nothing (the inline text's chunks are never recycled). Under -race, a
// buffer refilled by the producer while a worker reads it is a race.
func TestChunkRecycling(t *testing.T) {
	s := compileSchema(t, recycleSchema)
	text := recycleInput()
	var recycled int
	onRecycle = func(b []byte) {
		recycled++
		for i := range b {
			b[i] = '"'
		}
	}
	var recycledOut int
	onRecycleOut = func(out []Instance) {
		recycledOut++
		for i := range out {
			out[i] = Instance{File: "recycled", Line: -1, Problem: "recycled"}
		}
	}
	defer func() { onRecycle, onRecycleOut = nil, nil }()
	fsys := workspace.Memory(map[string]string{"d.ndjson": text})
	for _, output := range []schema.OutputFormat{"", schema.OutputBasic} {
		want := run(t, s, []Source{{Name: "d.ndjson", Text: []byte(text)}}, nil, &Options{Workers: 1, Output: output})
		if want.Summary.Invalid == 0 || want.Summary.Unreadable == 0 || want.Summary.Valid == 0 {
			t.Fatalf("summary %+v: the input should have valid, invalid and unreadable lines", want.Summary)
		}
		for _, workers := range []int{1, 2, 4} {
			recycled, recycledOut = 0, 0
			var streamed []Instance
			opts := &Options{Workers: workers, Output: output, OnInstance: func(in *Instance) { streamed = append(streamed, *in) }}
			got := run(t, s, []Source{{Name: "d.ndjson", Path: "d.ndjson"}}, fsys, opts)
			kept := run(t, s, []Source{{Name: "d.ndjson", Path: "d.ndjson"}}, fsys, &Options{Workers: workers, Output: output})
			got.Instances = streamed
			for name, res := range map[string]*Result{"streamed": got, "kept": kept} {
				if d := cmp.Diff(marshal(t, want), marshal(t, res)); d != "" {
					t.Errorf("output %q, %d workers, %s: differs from the run that recycles nothing (-want +got):\n%s", output, workers, name, d)
				}
			}
			if workers > 1 && recycledOut == 0 {
				t.Errorf("output %q, %d workers: no slice of instances was recycled: the test does not exercise reuse", output, workers)
			}
			switch {
			case output == "" && recycled == 0:
				t.Errorf("%d workers: no chunk was recycled: the test does not exercise reuse", workers)
			case output != "" && recycled != 0:
				t.Errorf("output %q, %d workers: %d chunks recycled, whose instances keep output units", output, workers, recycled)
			}
		}
	}
}

func marshal(t *testing.T, res *Result) string {
	t.Helper()
	out, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
