package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// call is one tools/call in flight.
type call struct {
	cancel context.CancelFunc

	mu                sync.Mutex // orders progress before the answer; guards the fields below
	cancelledByClient bool
	done              bool
	sentProgress      bool
	lastProgress      float64
}

// Outcomes recorded in the audit log.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
	OutcomePanic     = "panic"
)

func (s *Server) toolsCall(ctx context.Context, id json.RawMessage, params map[string]json.RawMessage, meta requestMeta, send func([]byte)) {
	if params == nil {
		s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: tools/call needs params with "name"`))
		return
	}
	name, ok := decodeString(params["name"])
	if !ok {
		s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: tools/call needs "name" (a string)`))
		return
	}
	args := params["arguments"]
	if isNull(args) {
		args = json.RawMessage("{}")
	} else if args[0] != '{' {
		s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: "arguments" must be an object`))
		return
	}
	s.loadTools()
	if _, ok := s.byName[name]; !ok {
		s.sendError(send, id, newError(CodeInvalidParams, "Invalid params: unknown tool %q", name))
		return
	}

	cctx, cancel := context.WithCancel(ctx)
	c := &call{cancel: cancel}
	key := idKey(id)
	s.mu.Lock()
	if _, busy := s.inflight[key]; busy { // a concurrent Handle took the id meanwhile
		s.mu.Unlock()
		cancel()
		s.sendError(send, id, newError(CodeInvalidRequest, "Invalid Request: id %s is already used by a request still in progress", id))
		return
	}
	s.inflight[key] = c
	s.wg.Add(1)
	s.mu.Unlock()

	req := &CallRequest{
		Name:            name,
		Arguments:       args,
		Client:          meta.client,
		ProtocolVersion: meta.version,
		RunID:           s.opts.NewRunID(),
	}
	if meta.progressToken != nil {
		req.Progress = s.progressFunc(c, meta.progressToken, send)
	}
	go s.run(cctx, c, key, id, req, meta, send)
}

// progressFunc returns the CallRequest.Progress of a call with the given token.
func (s *Server) progressFunc(c *call, token json.RawMessage, send func([]byte)) func(float64, float64, string) {
	return func(progress, total float64, message string) {
		if math.IsNaN(progress) || math.IsInf(progress, 0) {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.done || c.cancelledByClient || (c.sentProgress && progress <= c.lastProgress) {
			return
		}
		c.sentProgress, c.lastProgress = true, progress
		p := map[string]any{"progressToken": token, "progress": progress}
		if total > 0 && !math.IsInf(total, 0) {
			p["total"] = total
		}
		if message != "" {
			p["message"] = message
		}
		b, err := marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": p})
		if err != nil {
			s.opts.Logf("mcp: encoding a progress notification: %v", err)
			return
		}
		send(b)
	}
}

// run executes one call and answers it, unless the client cancelled it.
func (s *Server) run(ctx context.Context, c *call, key string, id json.RawMessage, req *CallRequest, meta requestMeta, send func([]byte)) {
	defer s.wg.Done()
	start := s.opts.Now()
	res, panicked := s.invoke(ctx, req)
	elapsed := s.opts.Now().Sub(start)

	body, encErr := s.encodeCallResult(id, res, req.RunID, meta.modern)
	if encErr != nil {
		s.opts.Logf("mcp: tool %q (run %s): the result cannot be sent: %v", req.Name, req.RunID, encErr)
		res = ErrorResult("internal error: the result of tool %q could not be encoded: %v", req.Name, encErr)
		body, _ = s.encodeCallResult(id, res, req.RunID, meta.modern)
	}

	s.mu.Lock()
	delete(s.inflight, key)
	s.mu.Unlock()
	c.mu.Lock()
	cancelledByClient := c.cancelledByClient
	c.done = true
	if !cancelledByClient {
		send(body)
	}
	c.mu.Unlock()
	ctxErr := ctx.Err()
	c.cancel()

	outcome := OutcomeOK
	switch {
	case panicked:
		outcome = OutcomePanic
	case cancelledByClient || ctxErr != nil:
		outcome = OutcomeCancelled
	case res.IsError:
		outcome = OutcomeError
	}
	s.audit(start, elapsed, req, outcome)
}

// invoke calls the provider, turning a panic or a nil result into an error result.
func (s *Server) invoke(ctx context.Context, req *CallRequest) (res *CallResult, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logf("mcp: tool %q (run %s) panicked: %v\n%s", req.Name, req.RunID, r, debug.Stack())
			res, panicked = ErrorResult("internal error: tool %q panicked: %v (run %s)", req.Name, r, req.RunID), true
		}
	}()
	res = s.p.Call(ctx, req)
	if res == nil {
		res = ErrorResult("internal error: tool %q returned no result (run %s)", req.Name, req.RunID)
	}
	return res, false
}

type callResultJSON struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta"`
	ResultType        string         `json:"resultType,omitempty"`
}

// encodeCallResult encodes the whole response to a tools/call.
func (s *Server) encodeCallResult(id json.RawMessage, res *CallResult, runID string, modern bool) ([]byte, error) {
	out := callResultJSON{Content: res.Content, IsError: res.IsError, Meta: maps.Clone(res.Meta)}
	if out.Content == nil {
		out.Content = []Content{}
	}
	if slices.ContainsFunc(out.Content, func(c Content) bool { return c.Type == "" }) {
		out.Content = slices.Clone(out.Content) // the tool's slice is not ours to change
		for i := range out.Content {
			if out.Content[i].Type == "" {
				out.Content[i].Type = "text"
			}
		}
	}
	if !isNilValue(res.StructuredContent) {
		out.StructuredContent = res.StructuredContent
	}
	if out.Meta == nil {
		out.Meta = map[string]any{}
	}
	out.Meta[MetaRunID] = runID
	if modern {
		out.ResultType = "complete"
		out.Meta[MetaServerInfo] = s.serverInfo
	}
	b, err := marshal(response{JSONRPC: "2.0", ID: id, Result: out})
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) { // a json.RawMessage from the tool may carry invalid UTF-8
		return nil, fmt.Errorf("the result is not valid UTF-8")
	}
	return b, nil
}

func isNilValue(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// durationMs is d in milliseconds, rounded to the microsecond.
func durationMs(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
