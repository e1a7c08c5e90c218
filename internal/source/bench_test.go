package source

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// orderJSON writes n order documents like those of the reference workload (see
// ../shared/tools/bench-gen.py), one per line.
func orderJSON(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `{"id":"%08x-0667-4ad1-9c80-317fa3b1799d","createdAt":"2024-05-08T07:08:47Z","status":"pending",`, i)
		fmt.Fprintf(&sb, `"orderNumber":"ORD-%04d-%s","customer":{"id":%d,"email":"%s@%s.com","name":"%s %s","phone":"+959850617535"},`,
			r.IntN(10000), strings.ToUpper(word(8)), r.IntN(1000000), word(8), word(6), word(5), word(8))
		fmt.Fprintf(&sb, `"shippingAddress":{"line1":"%d %s St","city":"%s","country":"GB","postalCode":"%05d","geo":{"lat":%.5f,"lon":%.5f}},`,
			r.IntN(999), word(6), word(7), r.IntN(99999), r.Float64()*180-90, r.Float64()*360-180)
		sb.WriteString(`"items":[`)
		for j := range 1 + r.IntN(4) {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"sku":"%s-%06d","qty":%d,"price":%d.%02d,"options":["red","L"]}`, strings.ToUpper(word(3)), r.IntN(999999), 1+r.IntN(20), r.IntN(5000), r.IntN(100))
		}
		fmt.Fprintf(&sb, `],"total":%d.%02d,"currency":"EUR","tags":["%s","%s"],"priority":%d,"gift":%v,"metadata":{},`,
			r.IntN(10000), r.IntN(100), word(5), word(5), r.IntN(5), r.IntN(2) == 0)
		fmt.Fprintf(&sb, `"payment":{"method":"paypal"},"notes":"%s %s \"%s\" \u00e9t\u00e9 %s"}`+"\n", word(9), word(4), word(6), word(12))
	}
	return []byte(sb.String())
}

func BenchmarkParseJSON(b *testing.B) {
	lines := orderJSON(1000)
	one := bytes.SplitN(lines, []byte("\n"), 2)[0]
	array := append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSpace(lines), []byte("\n"), []byte(","))...), ']')
	for _, bc := range []struct {
		name string
		src  []byte
	}{{"order", one}, {"orders", array}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSON("bench.json", bc.src, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNDJSONReader(b *testing.B) {
	src := orderJSON(10000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		readAll(b, bytes.NewReader(src))
	}
}

// BenchmarkNDJSONFile reads the reference workload, when JSTK_BENCH_NDJSON names it
// (for example /tmp/bench/data.jsonl, made by ../shared/tools/bench-gen.py).
func BenchmarkNDJSONFile(b *testing.B) {
	name := os.Getenv("JSTK_BENCH_NDJSON")
	if name == "" {
		b.Skip("set JSTK_BENCH_NDJSON to an NDJSON file")
	}
	fi, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		readAll(b, f)
		f.Close()
	}
}

func readAll(b *testing.B, rd io.Reader) {
	r := NewNDJSONReader("bench.ndjson", rd, nil)
	for {
		_, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
