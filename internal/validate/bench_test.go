package validate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// benchDir holds the reference workload, made by
//
//	mkdir -p /tmp/bench && cd /tmp/bench && python3 ../shared/tools/bench-gen.py
//
// (the path of bench-gen.py is relative to the repository).
const benchDir = "/tmp/bench"

// BenchmarkValidateNDJSON validates the reference workload's 100,000 NDJSON orders, as
// `jstk validate --schema schema.json data.jsonl` does, on all cores.
func BenchmarkValidateNDJSON(b *testing.B) {
	data := filepath.Join(benchDir, "data.jsonl")
	fi, err := os.Stat(data)
	if err != nil {
		b.Skipf("no reference workload (%v); generate it with: mkdir -p %s && cd %s && python3 <repo>/../shared/tools/bench-gen.py",
			err, benchDir, benchDir)
	}
	fsys, err := workspace.Root(benchDir)
	if err != nil {
		b.Fatal(err)
	}
	c := schema.NewCompiler(&schema.Options{Loader: &schema.Loader{FS: fsys}})
	s, err := c.Compile(schema.FileURI(fsys.Abs("schema.json")))
	if err != nil {
		b.Skipf("reference schema: %v", err)
	}
	srcs := []Source{{Name: "data.jsonl", Path: "data.jsonl"}}
	var total int
	count := func(*Instance) { total++ } // stream, as the CLI does, instead of keeping 100,000 results
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		total = 0
		res, err := Run(context.Background(), s, srcs, fsys, &Options{OnInstance: count})
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Total == 0 || res.Summary.Valid != res.Summary.Total || total != res.Summary.Total {
			b.Fatalf("summary %+v, %d streamed: the workload should be all valid", res.Summary, total)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "instances/s")
}

// BenchmarkValidateSmall validates one small inline instance with one worker: the fixed cost
// of a run, and its allocations.
func BenchmarkValidateSmall(b *testing.B) {
	s := compileSchema(b, `{
  "type": "object",
  "required": ["id", "name", "tags"],
  "properties": {
    "id": {"type": "integer", "minimum": 1},
    "name": {"type": "string", "maxLength": 40},
    "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
    "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": true},
    "address": {"type": "object", "additionalProperties": false,
      "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}
  }
}`)
	for _, bm := range []struct {
		name string
		text string
	}{
		{"valid", `{"id": 7, "name": "Ada", "email": "ada@example.com", "tags": ["a", "c"], "address": {"street": "Main St", "zip": "12345"}}`},
		{"invalid", `{"id": 0, "name": "Ada", "email": "nope", "tags": ["a", "a", "z"], "address": {"zip": "1", "city": "X"}}`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			srcs := []Source{{Name: "inline", Text: []byte(bm.text)}}
			opts := &Options{Workers: 1}
			b.SetBytes(int64(len(bm.text)))
			b.ReportAllocs()
			for b.Loop() {
				res, err := Run(context.Background(), s, srcs, nil, opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Valid != (bm.name == "valid") {
					b.Fatalf("Valid = %v", res.Valid)
				}
			}
		})
	}
}
