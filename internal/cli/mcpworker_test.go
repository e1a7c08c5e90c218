package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/mcp"
	"github.com/jstk-dev/jstk/internal/panics"
)

// jobProvider is a Provider whose tools answer by name: "ok", "fail", "panic", "bad" (a
// result that cannot be encoded), and nil for any other.
type jobProvider struct{}

func (jobProvider) Tools() []mcp.Tool { return nil }

func (jobProvider) Call(_ context.Context, req *mcp.CallRequest) *mcp.CallResult {
	switch req.Name {
	case "ok":
		return &mcp.CallResult{Content: []mcp.Content{mcp.TextContent("args " + string(req.Arguments))},
			StructuredContent: map[string]string{"client": req.Client.Name, "run": req.RunID}}
	case "fail":
		return mcp.ErrorResult("no input")
	case "panic":
		panic("engine boom")
	case "bad":
		return &mcp.CallResult{StructuredContent: json.RawMessage(`{bad`)}
	}
	return nil
}

// A call goes to the worker and its answer comes back as the two ends of a job frame do:
// the arguments as sent, the result encoded once by the worker, a panic raised again.
func TestJobAnswers(t *testing.T) {
	info := mcp.ClientInfo{Name: "jstk", Version: "9.9.9"}
	var logged []string
	logf := func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	run := func(name, args string) (res *mcp.CallResult, raised any) {
		req := &mcp.CallRequest{Name: name, Arguments: json.RawMessage(args), Client: mcp.ClientInfo{Name: "c\nlient", Version: "1"},
			ProtocolVersion: "2026-07-28", RunID: "run-1"}
		payload := appendCallPayload(nil, callPayload{Name: req.Name, Arguments: req.Arguments, Client: req.Client,
			ProtocolVersion: req.ProtocolVersion, RunID: req.RunID})
		body := runJob(context.Background(), jobProvider{}, jobMessage{Job: 1, Payload: payload}, func(jobMessage) {}, info, logf, false, nil)
		defer func() { raised = recover() }()
		return readAnswer(body, req), nil
	}

	res, _ := run("ok", `{"a": [1, "\n"]}`)
	want := `{"content":[{"type":"text","text":"args {\"a\": [1, \"\\n\"]}"}],"structuredContent":{"client":"c\nlient","run":"run-1"},` +
		`"isError":false,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"jstk","version":"9.9.9"},"jstk/runId":"run-1"},"resultType":"complete"}`
	if res == nil || res.IsError || string(res.Encoded) != want {
		t.Errorf("ok: %+v\nwant Encoded %s", res, want)
	}
	for _, name := range []string{"fail", "nil"} {
		if res, _ := run(name, `{}`); res == nil || !res.IsError || !bytes.Contains(res.Encoded, []byte(`"isError":true`)) {
			t.Errorf("%s: %+v", name, res)
		}
	}
	if res, _ := run("bad", `{}`); res == nil || !res.IsError || !bytes.Contains(res.Encoded, []byte(`could not be encoded`)) ||
		len(logged) != 1 || !strings.Contains(logged[0], `tool "bad" (run run-1): the result cannot be sent`) {
		t.Errorf("a result that cannot be encoded: %+v, logged %q", res, logged)
	}
	_, raised := run("panic", `{}`)
	if pe, ok := raised.(*panics.Error); !ok || pe.Value != "engine boom" || !strings.Contains(string(pe.Stack), "jobProvider") {
		t.Errorf("panic: raised %#v", raised)
	}

	if res := readAnswer([]byte("x{}"), &mcp.CallRequest{RunID: "run-2"}); !res.IsError || res.Encoded != nil ||
		!strings.Contains(res.Content[0].Text, "could not be read") {
		t.Errorf("an unreadable answer: %+v", res)
	}
	for _, bad := range []string{`{"name":"ok"}`, "2:ok,", "2:ok,0:,0:,0:,0:,", "3:ok,0:,0:,0:,0:,1:1,{}", "-1:,", "2:ok,0:,0:,0:,0:,1:1,0:,1:x,{}"} {
		if _, err := readCallPayload([]byte(bad)); err == nil {
			t.Errorf("a bad payload %q was read", bad)
		}
	}
	c := callPayload{Name: "n,:1", Arguments: json.RawMessage(`{"x":1}`), Client: mcp.ClientInfo{Name: "", Version: "9:"},
		ProtocolVersion: "p", RunID: "r\n", Progress: true, ID: json.RawMessage(`"a,1:"`), Slot: 17}
	if got, err := readCallPayload(appendCallPayload(nil, c)); err != nil || got.Name != c.Name || string(got.Arguments) != string(c.Arguments) ||
		got.Client != c.Client || got.ProtocolVersion != c.ProtocolVersion || got.RunID != c.RunID || !got.Progress ||
		string(got.ID) != string(c.ID) || got.Slot != 17 {
		t.Errorf("read back %+v, %v; want %+v", got, err, c)
	}
	body := runJob(context.Background(), jobProvider{}, jobMessage{Payload: []byte("{\n{}")}, nil, info, logf, false, nil)
	if !bytes.Contains(body, []byte("the call could not be read")) || body[0] != answerError {
		t.Errorf("an unreadable call: %s", body)
	}
}
