package lsp

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// benchDoc is a JSON document of n objects of 8 properties (about 1.1 MB for 5,000), and
// its schema.
func benchDoc(n int) (doc, schema string) {
	var b strings.Builder
	b.WriteString("{\n  \"$schema\": \"schema.json\",\n  \"items\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `    {"id": %d, "name": "item number %d", "price": %d.25, "inStock": %v, "tags": ["a", "b"], "category": "tools", "sku": "SKU-%08d", "rating": %d}`,
			i, i, i%1000, i%2 == 0, i, i%5)
	}
	b.WriteString("\n  ]\n}\n")
	schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "$schema": {"type": "string"},
    "items": {"type": "array", "items": {"$ref": "#/$defs/item"}}
  },
  "$defs": {"item": {
    "type": "object",
    "required": ["id", "name", "price"],
    "additionalProperties": false,
    "properties": {
      "id": {"type": "integer", "minimum": 0, "description": "The item's number."},
      "name": {"type": "string", "minLength": 1},
      "price": {"type": "number", "exclusiveMinimum": 0},
      "inStock": {"type": "boolean"},
      "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
      "category": {"enum": ["tools", "toys", "food"]},
      "sku": {"type": "string", "pattern": "^SKU-[0-9]{8}$"},
      "rating": {"type": "integer", "minimum": 0, "maximum": 5},
      "discount": {"type": "number", "description": "Off the price, in percent."}
    }
  }}
}`
	return b.String(), schema
}

// benchSession opens the big document and waits for its first diagnostics.
func benchSession(b *testing.B) (*session, string) {
	doc, schema := benchDoc(5000)
	ss := newSession(b, workspace.Memory(map[string]string{"schema.json": schema}), nil)
	ss.srv.opts.Logf = nil
	ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/big.json","languageId":"json","version":1,"text":%q}}}`, doc))
	return ss, doc
}

// BenchmarkDiagnosticsAfterEdit: an edit of the 1.1 MB document, then its diagnostics
// computed and published (debounce off): the time from the edit to publishDiagnostics.
func BenchmarkDiagnosticsAfterEdit(b *testing.B) {
	ss, doc := benchSession(b)
	defer ss.srv.close()
	line := strings.Count(doc[:strings.Index(doc, `"rating": 3}`)], "\n")
	col := strings.Index(strings.Split(doc, "\n")[line], `"rating": 3}`) + len(`"rating": `)
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v := []string{"7", "3"}[i%2] // 7 breaks maximum, 3 mends it
		out := ss.do(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///ws/big.json","version":%d},"contentChanges":[{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"text":%q}]}}`,
			i+2, line, col, line, col+1, v))
		if len(out) != 1 || (v == "7") != strings.Contains(string(out[0]), "maximum") {
			b.Fatalf("after setting %s: %.300s", v, out)
		}
	}
}

// latencies runs one request per iteration and reports its p50 and p99.
func latencies(b *testing.B, want string, req func(i int) string) {
	ss, _ := benchSession(b)
	defer ss.srv.close()
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		out := ss.do(req(i))
		ds = append(ds, time.Since(start))
		if len(out) != 1 || !strings.Contains(string(out[0]), want) {
			b.Fatalf("%.300s", out)
		}
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkHover: hover on member names across the 1.1 MB document.
func BenchmarkHover(b *testing.B) {
	latencies(b, "The item's number.", func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///ws/big.json"},"position":{"line":%d,"character":8}}}`, i+10, 3+(i*997)%5000)
	})
}

// BenchmarkCompletion: completion of member names in the objects across the document
// (inside an object, where a new member may go, the names it lacks).
func BenchmarkCompletion(b *testing.B) {
	latencies(b, `"label":"discount"`, func(i int) string {
		line := 3 + (i*997)%5000
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///ws/big.json"},"position":{"line":%d,"character":%d}}}`, i+10, line, 5)
	})
}

// BenchmarkOpenDocuments: the heap held by 200 open documents (each a 20 KB JSON document
// checked against a schema), after a collection: the memory an editor session costs.
func BenchmarkOpenDocuments(b *testing.B) {
	doc, schema := benchDoc(140) // about 21 KB
	for b.Loop() {
		ss := newSession(b, workspace.Memory(map[string]string{"schema.json": schema}), nil)
		ss.srv.opts.Logf = nil
		ss.do(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///ws"}}`)
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range 200 {
			ss.do(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/d%d.json","languageId":"json","version":1,"text":%q}}}`, i, doc))
		}
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MB")
		b.ReportMetric(float64(len(doc))/1024, "doc-KB")
		ss.srv.close()
	}
}
