package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
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
	cpu := cpuTime()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		readAll(b, f)
		f.Close()
	}
	reportCPU(b, cpu, int(fi.Size()))
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

// twitterJSON writes a document shaped like twitter.json, the usual benchmark of JSON
// parsers (a search API answer: n statuses with their users and entities, indented by two
// spaces, Japanese and ASCII text, URLs with escaped slashes, large integer ids, nulls).
// It is generated, deterministic, and about 3.5 KB per status.
func twitterJSON(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	kana := []rune("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん日本語東京大阪")
	jp := func(k int) string {
		b := make([]rune, k)
		for i := range b {
			b[i] = kana[r.IntN(len(kana))]
		}
		return string(b)
	}
	word := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var sb strings.Builder
	sb.WriteString(`{"statuses":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		id := 505874924095815700 + r.Int64N(1<<20)
		uid := r.Int64N(3000000000)
		name := word(8)
		fmt.Fprintf(&sb, `{"metadata":{"result_type":"recent","iso_language_code":"ja"},"created_at":"Sun Aug 31 00:29:15 +0000 2014","id":%d,"id_str":"%d",`, id, id)
		fmt.Fprintf(&sb, `"text":"@%s %s\n%s http:\/\/t.co\/%s","source":"\u003ca href=\"https:\/\/mobile.twitter.com\" rel=\"nofollow\"\u003eMobile Web (M2)\u003c\/a\u003e",`, word(10), jp(30), jp(12), word(10))
		fmt.Fprintf(&sb, `"truncated":false,"in_reply_to_status_id":null,"in_reply_to_status_id_str":null,"in_reply_to_user_id":%d,"in_reply_to_user_id_str":"%d","in_reply_to_screen_name":"%s",`, uid+1, uid+1, word(9))
		fmt.Fprintf(&sb, `"user":{"id":%d,"id_str":"%d","name":"%s","screen_name":"%s","location":"%s","description":"%s","url":null,`, uid, uid, jp(6), name, jp(4), jp(60))
		fmt.Fprintf(&sb, `"entities":{"description":{"urls":[]}},"protected":false,"followers_count":%d,"friends_count":%d,"listed_count":%d,"created_at":"Sun Feb 03 17:24:09 +0000 2013","favourites_count":%d,"utc_offset":32400,"time_zone":"Tokyo","geo_enabled":%v,"verified":false,"statuses_count":%d,"lang":"ja",`,
			r.IntN(5000), r.IntN(5000), r.IntN(100), r.IntN(10000), r.IntN(2) == 0, r.IntN(100000))
		fmt.Fprintf(&sb, `"contributors_enabled":false,"is_translator":false,"is_translation_enabled":false,"profile_background_color":"C0DEED","profile_background_image_url":"http:\/\/abs.twimg.com\/images\/themes\/theme1\/bg.png","profile_background_image_url_https":"https:\/\/abs.twimg.com\/images\/themes\/theme1\/bg.png","profile_background_tile":false,`)
		fmt.Fprintf(&sb, `"profile_image_url":"http:\/\/pbs.twimg.com\/profile_images\/%d\/%s_normal.jpeg","profile_image_url_https":"https:\/\/pbs.twimg.com\/profile_images\/%d\/%s_normal.jpeg","profile_banner_url":"https:\/\/pbs.twimg.com\/profile_banners\/%d\/%d",`, r.Int64N(1e18), word(8), r.Int64N(1e18), word(8), uid, r.Int64N(2e9))
		fmt.Fprintf(&sb, `"profile_link_color":"0084B4","profile_sidebar_border_color":"C0DEED","profile_sidebar_fill_color":"DDEEF6","profile_text_color":"333333","profile_use_background_image":true,"default_profile":true,"default_profile_image":false,"following":false,"follow_request_sent":false,"notifications":false},`)
		fmt.Fprintf(&sb, `"geo":null,"coordinates":null,"place":null,"contributors":null,"retweet_count":%d,"favorite_count":%d,"entities":{"hashtags":[{"text":"%s","indices":[%d,%d]}],"symbols":[],"urls":[],"user_mentions":[{"screen_name":"%s","name":"%s","id":%d,"id_str":"%d","indices":[0,%d]}]},`,
			r.IntN(100), r.IntN(100), jp(5), r.IntN(50), 50+r.IntN(50), word(9), jp(5), uid+1, uid+1, 1+r.IntN(15))
		fmt.Fprintf(&sb, `"favorited":false,"retweeted":false,"lang":"ja"}`)
	}
	sb.WriteString(`],"search_metadata":{"completed_in":0.087,"max_id":505874924095815681,"max_id_str":"505874924095815681","next_results":"?max_id=505874915338104831&q=%E4%B8%80&count=100&include_entities=1","query":"%E4%B8%80","refresh_url":"?since_id=505874924095815681&q=%E4%B8%80&include_entities=1","count":100,"since_id":0,"since_id_str":"0"}}`)
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(sb.String()), "", "  "); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// BenchmarkParse measures the parser, per core, on the two workloads of issue 29: the lines
// of the reference NDJSON, parsed one by one into reused memory as `jstk validate` does (the
// file named by JSTK_BENCH_NDJSON, else 10,000 generated orders like it), and a document
// shaped like twitter.json (100 statuses, 354 KB) parsed whole.
func BenchmarkParse(b *testing.B) {
	var lines []byte
	if name := os.Getenv("JSTK_BENCH_NDJSON"); name != "" {
		var err error
		if lines, err = os.ReadFile(name); err != nil {
			b.Fatal(err)
		}
	} else {
		lines = orderJSON(10000)
	}
	b.Run("ndjson", func(b *testing.B) {
		b.SetBytes(int64(len(lines)))
		b.ReportAllocs()
		var lp LineParser
		cpu := cpuTime()
		for b.Loop() {
			data := lines
			for len(data) > 0 {
				l := data
				if i := bytes.IndexByte(data, '\n'); i >= 0 {
					l, data = data[:i], data[i+1:]
				} else {
					data = nil
				}
				if len(l) == 0 {
					continue
				}
				if _, err := lp.Parse("bench.ndjson", l, nil); err != nil {
					b.Fatal(err)
				}
				lp.Recycle()
			}
		}
		reportCPU(b, cpu, len(lines))
	})
	tw := twitterJSON(100)
	for _, bc := range []struct {
		name  string
		parse func(string, []byte, *Limits) (*Document, error)
	}{{"twitter", ParseJSON}, {"twitter-shared", ParseJSONShared}} {
		// ParseJSON copies the text first (the document keeps its own copy);
		// ParseJSONShared does not, which leaves the parse alone.
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tw)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := bc.parse("twitter.json", tw, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu, len(tw))
		})
	}
	// The same document through a LineParser recycled after each parse: the parse into
	// memory already in use, as simdjson's benchmarks parse into a reused parser.
	b.Run("twitter-reused", func(b *testing.B) {
		b.SetBytes(int64(len(tw)))
		b.ReportAllocs()
		var lp LineParser
		cpu := cpuTime()
		for b.Loop() {
			if _, err := lp.Parse("twitter.json", tw, nil); err != nil {
				b.Fatal(err)
			}
			lp.Recycle()
		}
		reportCPU(b, cpu, len(tw))
	})
}

// reportCPU reports MB parsed per second of the process's CPU time since cpu (with
// -cpu 1, that of one core, the collector's included): on a machine shared with other
// work, the clock counts the time other processes held the core too.
func reportCPU(b *testing.B, cpu time.Duration, size int) {
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/used.Seconds(), "MB/cpu-s")
	}
}
