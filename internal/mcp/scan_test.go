package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopScanner(t *testing.T) {
	t.Parallel()
	type summary struct {
		ID                               string
		HasID, Method, Result, Err, Done bool
	}
	cases := []struct {
		in   string
		want summary
	}{
		{`{}`, summary{Done: true}},
		{` { } `, summary{Done: true}},
		{`{} x`, summary{}},
		{`[]`, summary{}},
		{``, summary{}},
		{`{"id":1,"method":"ping"}`, summary{ID: "1", HasID: true, Method: true, Done: true}},
		{`{"method":"tools/list","params":{"_meta":{"id":5}},"jsonrpc":"2.0","id":0}`, summary{ID: "0", HasID: true, Method: true, Done: true}},
		{`{ "id" : "a\"}" , "params" : {"x":["]",{"y":"}\\"}]} }`, summary{ID: `"a\"}"`, HasID: true, Done: true}},
		{`{"\u0069d":7}`, summary{ID: "7", HasID: true, Done: true}},
		{`{"id":-12 , "result":{}}`, summary{ID: "-12", HasID: true, Result: true, Done: true}},
		{`{"error":{"code":1},"id":"x"}`, summary{ID: `"x"`, HasID: true, Err: true, Done: true}},
		{`{"id":1.5}`, summary{HasID: true, Done: true}},
		{`{"id":null}`, summary{HasID: true, Done: true}},
		{`{"id":"` + strings.Repeat("x", 5000) + `"}`, summary{HasID: true, Done: true}},
		{`{"id":7`, summary{ID: "7", HasID: true}},
		{`{"id":7,"params":[[[`, summary{ID: "7", HasID: true}},
		{`{"id":"abc`, summary{HasID: true}},
		{`{"id" 7}`, summary{}},
		{`{"id":7 "x":1}`, summary{ID: "7", HasID: true}},
		{`{id:7}`, summary{}},
		{`{"bad\q":1,"method":"x"}`, summary{Method: true, Done: true}},
		{`{"` + strings.Repeat("k", 300) + `":1}`, summary{Done: true}},
		{`{"id":}`, summary{HasID: true}},
		{`{"id":1,`, summary{ID: "1", HasID: true}},
		{`{"id":1,}`, summary{ID: "1", HasID: true}},
	}
	for _, c := range cases {
		for _, piece := range []int{len(c.in) + 1, 1} {
			var sc topScanner
			for i := 0; i < len(c.in); i += piece {
				_, _ = sc.Write([]byte(c.in[i:min(i+piece, len(c.in))]))
			}
			got := summary{ID: string(sc.validID()), HasID: sc.hasID, Method: sc.hasMethod, Result: sc.hasResult, Err: sc.hasError, Done: sc.complete()}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("topScanner(%.80q) in pieces of %d (-want +got):\n%s", c.in, piece, d)
			}
		}
	}
}

func TestRefuseOversize(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 3<<20)
	cases := []struct {
		name string
		line string
		want []string
	}{
		{"id first", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}}}`,
			[]string{errReply("1", -32600, "Invalid Request: the message of %d bytes exceeds the maximum size of 1048576 bytes")}},
		{"id last, as the TypeScript SDK writes it", `{"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}},"jsonrpc":"2.0","id":"ts-1"}`,
			[]string{errReply(`"ts-1"`, -32600, "Invalid Request: the message of %d bytes exceeds the maximum size of 1048576 bytes")}},
		{"a notification", `{"method":"notifications/x","params":{"s":"` + big + `"},"jsonrpc":"2.0"}`, nil},
		{"a response", `{"jsonrpc":"2.0","id":4,"result":{"s":"` + big + `"}}`, nil},
		{"a response without id", `{"jsonrpc":"2.0","result":{"s":"` + big + `"}}`, nil},
		{"not JSON", strings.Repeat("z", 2<<20),
			[]string{errReply("null", -32600, "Invalid Request: the message of %d bytes exceeds the maximum size of 1048576 bytes")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions()
			opts.MaxMessageSize = 1 << 20
			ss := newSession(t, newFakeProvider(), opts)
			var o Oversize
			for i := 0; i < len(c.line); i += 64 << 10 { // as a bufio.Reader would deliver it
				_, _ = o.Write([]byte(c.line[i:min(i+64<<10, len(c.line))]))
			}
			ss.srv.RefuseOversize(&o, ss.send)
			got := ss.do(request(`"after"`, "ping", ""))
			var want []string
			for _, w := range c.want {
				want = append(want, strings.Replace(w, "%d", fmt.Sprint(len(c.line)), 1))
			}
			if d := diffMessages(t, append(want, okReply(`"after"`, `{}`)), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestExceedsDepth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want bool
	}{
		{nested(3), false},
		{nested(4), true},
		{`{"a":{"b":{"c":{}}}}`, true},
		{`{"a":"[[[[[[[["}`, false},
		{`{"a":"\"[[[[[[["}`, false},
		{`["unterminated [[[[[[`, false},
	}
	for _, c := range cases {
		if got := exceedsDepth([]byte(c.in), 3); got != c.want {
			t.Errorf("exceedsDepth(%q, 3) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestClassifyAndKeyIDs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw  string
		kind idKind
		key  string
	}{
		{`"a"`, idString, "sa"},
		{`"\u0061"`, idString, "sa"},
		{`""`, idString, "s"},
		{`"bad \x"`, idInvalid, ""},
		{`0`, idInteger, "n0"},
		{`-0`, idInteger, "n0"},
		{`-12`, idInteger, "n-12"},
		{`123456789012345678901234567890`, idInteger, "n123456789012345678901234567890"},
		{`01`, idInvalid, ""},
		{`-`, idInvalid, ""},
		{`1.5`, idInvalid, ""},
		{`1e3`, idInvalid, ""},
		{`null`, idNull, ""},
		{`true`, idInvalid, ""},
		{`{}`, idInvalid, ""},
		{``, idInvalid, ""},
	}
	for _, c := range cases {
		kind := classifyID([]byte(c.raw))
		if kind != c.kind {
			t.Errorf("classifyID(%s) = %v, want %v", c.raw, kind, c.kind)
		}
		if kind == idString || kind == idInteger {
			if k := idKey([]byte(c.raw)); k != c.key {
				t.Errorf("idKey(%s) = %q, want %q", c.raw, k, c.key)
			}
		}
	}
}

func TestDecodeCursor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cursor string
		n      int
		off    int
		ok     bool
	}{
		{encodeCursor(3), 5, 3, true},
		{encodeCursor(5), 5, 0, false},
		{encodeCursor(0), 5, 0, false},
		{encodeCursor(-1), 5, 0, false},
		{"!!", 5, 0, false},
		{"dG9vbHM6MDM", 5, 0, false}, // "tools:03"
		{"b3RoZXI6Mw", 5, 0, false},  // "other:3"
		{"dG9vbHM6eA", 5, 0, false},  // "tools:x"
	} {
		off, ok := decodeCursor(c.cursor, c.n)
		if off != c.off || ok != c.ok {
			t.Errorf("decodeCursor(%q, %d) = %d, %v; want %d, %v", c.cursor, c.n, off, ok, c.off, c.ok)
		}
	}
}

// rawProvider answers every call with a fixed structuredContent.
type rawProvider struct {
	fakeProvider
	structured any
}

func (p *rawProvider) Call(context.Context, *CallRequest) *CallResult {
	return &CallResult{StructuredContent: p.structured, Content: []Content{{Text: "untyped block"}}, Meta: map[string]any{"k": "v"}}
}

func TestCallResultEncoding(t *testing.T) {
	t.Parallel()
	var nilMap map[string]any
	var nilPtr *struct{}
	cases := []struct {
		name       string
		structured any
		want       string
	}{
		{"nil map is left out", nilMap, `{"content":[{"type":"text","text":"untyped block"}],"isError":false,"_meta":{"k":"v","jstk/runId":"run-1"}}`},
		{"nil pointer is left out", nilPtr, `{"content":[{"type":"text","text":"untyped block"}],"isError":false,"_meta":{"k":"v","jstk/runId":"run-1"}}`},
		{"a number is kept", 3, `{"content":[{"type":"text","text":"untyped block"}],"structuredContent":3,"isError":false,"_meta":{"k":"v","jstk/runId":"run-1"}}`},
		{"invalid UTF-8 in raw JSON", json.RawMessage("{\"a\":\"\xff\"}"),
			`{"content":[{"type":"text","text":"internal error: the result of tool \"echo\" could not be encoded: the result is not valid UTF-8"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ss := newSession(t, &rawProvider{fakeProvider: *newFakeProvider(), structured: c.structured}, nil)
			got := ss.do(initLine, request("1", "tools/call", `{"name":"echo"}`))[1:]
			if d := diffMessages(t, []string{okReply("1", c.want)}, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
