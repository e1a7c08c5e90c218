package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fuzzProvider is fakeProvider without the tool that blocks; it answers "echo" itself
// through the call's AnswerGate on send, as jstk's engine process does, and ends it on a
// goroutine of its own (an AsyncProvider, as jstk's server's provider is).
type fuzzProvider struct {
	*fakeProvider
	send func([]byte)
}

func (p fuzzProvider) Call(ctx context.Context, req *CallRequest) *CallResult {
	if req.Name == "slow" {
		return ErrorResult("not waiting under fuzzing")
	}
	if req.Name != "echo" || req.Answer == nil {
		return p.fakeProvider.Call(ctx, req)
	}
	var mu sync.Mutex
	sent, cancelled := false, false
	cancel := func() bool {
		mu.Lock()
		defer mu.Unlock()
		cancelled = !sent
		return cancelled
	}
	if !req.Answer.Bind(cancel, func() bool { mu.Lock(); defer mu.Unlock(); return sent }) {
		return ErrorResult("cancelled before it ran")
	}
	res := p.fakeProvider.Call(ctx, req)
	b, err := EncodeResult(res, req, ClientInfo{Name: "jstk-test", Version: "1.2.3"})
	if err != nil {
		return ErrorResult("not encoded: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if cancelled {
		return res // the server sends nothing
	}
	p.send(AppendResponse(nil, req.ID, b))
	sent = true
	return &CallResult{Sent: true, IsError: res.IsError}
}

// CallAsync ends "echo" on a goroutine of its own and leaves the other tools to Call.
func (p fuzzProvider) CallAsync(ctx context.Context, req *CallRequest, done func(func() *CallResult)) bool {
	if req.Name != "echo" {
		return false
	}
	go done(func() *CallResult { return p.Call(ctx, req) })
	return true
}

// FuzzHandle feeds the lines of each input to a fresh server. Properties: no panic; every
// message sent is one JSON object with "jsonrpc": "2.0" that is a response (id and exactly one
// of result/error) or a notification; a response's id is null or appears verbatim in the
// input, and no id is answered more often than it appears there (the provider answers
// "echo" itself: the server must not answer it too).
func FuzzHandle(f *testing.F) {
	for _, c := range loadConversations(f) {
		var lines []string
		size := 0
		for _, l := range c.client {
			size += l.size() + 1
			if size > 64<<10 {
				break
			}
			lines = append(lines, strings.TrimPrefix(l.String(), "&"))
		}
		if size > 64<<10 {
			continue
		}
		f.Add([]byte(strings.Join(lines, "\n")))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"params":` + nested(10001) + `}`))
	f.Fuzz(func(t *testing.T, input []byte) {
		opts := testOptions()
		opts.MaxMessageSize = 4096
		opts.PageSize = 3
		var mu sync.Mutex
		var out [][]byte
		send := func(b []byte) {
			mu.Lock()
			defer mu.Unlock()
			out = append(out, bytes.Clone(b))
		}
		srv := NewServer(fuzzProvider{newFakeProvider(), send}, opts)
		answers := map[string]int{}
		for line := range bytes.SplitSeq(input, []byte("\n")) {
			srv.Handle(context.Background(), line, send)
		}
		srv.Wait()
		for _, b := range out {
			if err := checkMessage(b); err != nil {
				t.Fatalf("invalid message %q: %v", b, err)
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(b, &m)
			if m.ID != nil && string(m.ID) != "null" && !bytes.Contains(input, m.ID) {
				t.Fatalf("response id %s does not appear in the input", m.ID)
			}
			if m.ID != nil && string(m.ID) != "null" {
				if answers[string(m.ID)]++; answers[string(m.ID)] > bytes.Count(input, m.ID) {
					t.Fatalf("id %s answered %d times", m.ID, answers[string(m.ID)])
				}
			}
		}
	})
}

// FuzzTopScanner checks the constant-memory scanner against encoding/json: fed whole or byte by
// byte it agrees with itself, and on any object encoding/json decodes it finds the same id.
func FuzzTopScanner(f *testing.F) {
	for _, s := range []string{`{}`, `{"id":1,"method":"x"}`, `{"method":"m","params":{"a":["}"]},"jsonrpc":"2.0","id":"\"q"}`,
		`{"\u0069d":-0}`, `{"id":1.5}`, `[1]`, `{"result":{},"id":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var whole, bytewise topScanner
		_, _ = whole.Write(input)
		for i := range input {
			_, _ = bytewise.Write(input[i : i+1])
		}
		if whole.state != bytewise.state || string(whole.validID()) != string(bytewise.validID()) || whole.hasMethod != bytewise.hasMethod {
			t.Fatalf("pieces disagree: %+v vs %+v", whole, bytewise)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(input, &m) != nil || m == nil || !utf8.Valid(input) {
			return
		}
		if !whole.complete() {
			t.Fatalf("a valid object was not seen as complete: %q", input)
		}
		raw, hasID := m["id"]
		_, hasMethod := m["method"]
		if whole.hasID != hasID || whole.hasMethod != hasMethod {
			t.Fatalf("members: scanner id=%v method=%v, encoding/json id=%v method=%v", whole.hasID, whole.hasMethod, hasID, hasMethod)
		}
		want := ""
		if k := classifyID(raw); hasID && (k == idString || k == idInteger) && len(raw) <= maxIDBytes {
			want = string(raw)
		}
		if got := string(whole.validID()); got != want {
			t.Fatalf("id %q, want %q", got, want)
		}
	})
}

// FuzzMembers checks members and decodeString against encoding/json: on every object it
// accepts, the same keys with the same values, and every string value decoded alike.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, ` { } `, `{"id":1,"method":"x"}`, `{"a" : [ "}" , {"]":"{"} ] , "b":-1.5e3 ,"a":null}`,
		`{"\u0069d":"\"q\\"}`, `{"k":"é\u00e9\n","t":true,"f":false}`, `{"p":{"_meta":{"x":{}}},"":""}`, `{"s":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var want map[string]json.RawMessage
		b := bytes.TrimSpace(input)
		if len(b) == 0 || b[0] != '{' || !json.Valid(b) || json.Unmarshal(b, &want) != nil {
			return
		}
		got := members(b)
		if len(got) != len(want) {
			t.Fatalf("%d members, want %d: %q", len(got), len(want), b)
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || !bytes.Equal(g, w) {
				t.Fatalf("member %q = %q, want %q (in %q)", k, g, w, b)
			}
			var ws string
			wErr := json.Unmarshal(w, &ws)
			gs, ok := decodeString(w)
			if ok != (wErr == nil && w[0] == '"') || ok && gs != ws {
				t.Fatalf("decodeString(%q) = %q, %v; want %q, %v", w, gs, ok, ws, wErr)
			}
		}
	})
}
