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

	"github.com/jstk-dev/jstk/internal/panics"
)

// call is one tools/call in flight.
type call struct {
	cancel context.CancelFunc
	// admitted is closed when the call may run (see Server.admit); gaveUp is set, under
	// Server.mu, when it was cancelled while it waited for its turn.
	admitted chan struct{}
	gaveUp   bool
	// answer is the request's AnswerGate (nil for a call with progress).
	answer *AnswerGate

	mu                sync.Mutex // orders progress before the answer; guards the fields below
	cancelledByClient bool
	done              bool
	sentProgress      bool
	lastProgress      float64
	lastProgressAt    time.Time
}

// Outcomes recorded in the audit log.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
	OutcomePanic     = "panic"
)

func (s *Server) toolsCall(ctx context.Context, id json.RawMessage, params map[string]json.RawMessage, meta requestMeta, send func([]byte), start func(func())) {
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
	c := &call{cancel: cancel, admitted: make(chan struct{})}
	if meta.progressToken == nil {
		// A provider may answer itself only a call without progress, whose notifications
		// the server sends and must send before the answer.
		c.answer = new(AnswerGate)
	}
	key := idKey(id)
	s.mu.Lock()
	if s.busyLocked(key) {
		s.mu.Unlock()
		cancel()
		s.sendError(send, id, newError(CodeInvalidRequest, "Invalid Request: id %s is already used by a request still in progress", id))
		return
	}
	s.inflight[key] = c
	s.wg.Add(1)
	s.admitLocked(c)
	s.mu.Unlock()

	req := &CallRequest{
		Name:            name,
		Arguments:       args,
		Client:          meta.client,
		ProtocolVersion: meta.version,
		RunID:           s.opts.NewRunID(),
		ID:              id,
		Answer:          c.answer,
	}
	if meta.progressToken != nil {
		req.Progress = s.progressFunc(c, meta.progressToken, send)
	}
	start(func() { s.run(cctx, c, key, id, req, meta, send) })
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
		now := s.opts.Now()
		if c.sentProgress && s.opts.ProgressInterval > 0 && now.Sub(c.lastProgressAt) < s.opts.ProgressInterval {
			return // too soon after the last: the next report says more
		}
		c.sentProgress, c.lastProgress, c.lastProgressAt = true, progress, now
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

// run executes one call and answers it, unless the client cancelled it. It first waits
// for a slot among the calls that may run at once (Options.MaxConcurrent).
func (s *Server) run(ctx context.Context, c *call, key string, id json.RawMessage, req *CallRequest, meta requestMeta, send func([]byte)) {
	start := s.opts.Now()
	if !s.await(ctx, c) {
		s.finish(ctx, c, key, id, req, meta, send, start, ErrorResult("tool %q was cancelled before it started: it was waiting for one of the %d calls running at once to end (run %s)",
			req.Name, s.opts.MaxConcurrent, req.RunID), nil)
		return
	}
	if ap, ok := s.p.(AsyncProvider); ok {
		started, crash := s.invokeAsync(ap, ctx, req, func(result func() *CallResult) {
			res, crash := s.invoke(req, result)
			s.ended(ctx, c, key, id, req, meta, send, start, res, crash)
		})
		if started {
			return
		}
		if crash != nil {
			s.ended(ctx, c, key, id, req, meta, send, start, crashResult(req, crash), crash)
			return
		}
	}
	res, crash := s.invoke(req, func() *CallResult { return s.p.Call(ctx, req) })
	s.ended(ctx, c, key, id, req, meta, send, start, res, crash)
}

// invokeAsync starts a call of an AsyncProvider, recovering a panic of CallAsync itself
// (then started is false and crash says what it was).
func (s *Server) invokeAsync(ap AsyncProvider, ctx context.Context, req *CallRequest, done func(func() *CallResult)) (started bool, crash *crashed) {
	defer func() {
		if r := recover(); r != nil {
			started, crash = false, s.recovered(req, r)
		}
	}()
	return ap.CallAsync(ctx, req, done), nil
}

// ended ends a call that ran: its turn passes on, and it is answered and audited.
func (s *Server) ended(ctx context.Context, c *call, key string, id json.RawMessage, req *CallRequest, meta requestMeta, send func([]byte), start time.Time, res *CallResult, crash *crashed) {
	s.mu.Lock()
	s.releaseLocked()
	s.mu.Unlock()
	s.finish(ctx, c, key, id, req, meta, send, start, res, crash)
}

// finish answers a call, unless the client cancelled it, and audits it.
func (s *Server) finish(ctx context.Context, c *call, key string, id json.RawMessage, req *CallRequest, meta requestMeta, send func([]byte), start time.Time, res *CallResult, crash *crashed) {
	defer s.wg.Done()
	elapsed := s.opts.Now().Sub(start)

	var body []byte
	var encErr error
	if !res.Sent {
		body, encErr = s.encodeCallResult(id, res, req.RunID, meta.modern)
	}
	if encErr != nil {
		s.opts.Logf("mcp: tool %q (run %s): the result cannot be sent: %v", req.Name, req.RunID, encErr)
		res = ErrorResult("internal error: the result of tool %q could not be encoded: %v", req.Name, encErr)
		body, _ = s.encodeCallResult(id, res, req.RunID, meta.modern)
	}

	s.mu.Lock()
	if s.inflight[key] == c { // not a later call with the same id (see toolsCall)
		delete(s.inflight, key)
	}
	s.mu.Unlock()
	c.mu.Lock()
	cancelledByClient := c.cancelledByClient
	c.done = true
	if !cancelledByClient && !res.Sent {
		send(body)
	}
	c.mu.Unlock()
	ctxErr := ctx.Err()
	c.cancel()

	outcome := OutcomeOK
	switch {
	case crash != nil:
		outcome = OutcomePanic
	case cancelledByClient || ctxErr != nil:
		outcome = OutcomeCancelled
	case res.IsError:
		outcome = OutcomeError
	}
	s.audit(start, elapsed, req, outcome, crash)
}

// busyLocked reports whether a call with this id key is in flight. One whose answer the
// provider has sent is not: the client has the answer, and may use the id again before
// the provider returns. s.mu is held: dispatch has asked the gate already, so that it
// answers at once here.
func (s *Server) busyLocked(key string) bool {
	c, ok := s.inflight[key]
	return ok && !c.answer.answered()
}

// admitLocked lets c run when fewer than MaxConcurrent calls run, else puts it in line.
// Calls are admitted in the order they came (Handle's order). s.mu is held.
func (s *Server) admitLocked(c *call) {
	if s.running < s.opts.MaxConcurrent {
		s.running++
		close(c.admitted)
		return
	}
	s.waiting = append(s.waiting, c)
}

// releaseLocked ends a call's turn: the first call in line that still wants it runs next.
// s.mu is held.
func (s *Server) releaseLocked() {
	for len(s.waiting) > 0 {
		next := s.waiting[0]
		s.waiting[0] = nil
		s.waiting = s.waiting[1:]
		if !next.gaveUp {
			close(next.admitted)
			return
		}
	}
	s.running--
}

// await waits for c's turn; false when ctx ends first (then c never runs).
func (s *Server) await(ctx context.Context, c *call) bool {
	select {
	case <-c.admitted: // a call admitted at once runs, even when already cancelled
		return true
	default:
	}
	select {
	case <-c.admitted:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-c.admitted: // its turn came meanwhile: pass it on
		s.releaseLocked()
	default:
		c.gaveUp = true
	}
	return false
}

// crashed is a tool's panic: its value and the stack of the goroutine that panicked.
type crashed struct {
	value string
	stack string
}

// Bounds on what a panic leaves in the answer, the log and the audit line.
const (
	maxPanicValue = 4 << 10
	maxStack      = 64 << 10
)

// bound cuts s to at most n bytes (on a rune boundary), saying how much was left out.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d more bytes]", len(s)-cut)
}

// invoke runs result (the provider's Call, or the result of an AsyncProvider's call),
// turning a panic or a nil result into an error result. This is the one place a tool's
// panic is recovered: the provider lets it through, so that it is answered as isError,
// logged and audited as a panic with the run id and the stack, and the server keeps
// serving.
func (s *Server) invoke(req *CallRequest, result func() *CallResult) (res *CallResult, crash *crashed) {
	defer func() {
		if r := recover(); r != nil {
			crash = s.recovered(req, r)
			res = crashResult(req, crash)
		}
	}()
	res = result()
	if res == nil {
		res = ErrorResult("internal error: tool %q returned no result (run %s)", req.Name, req.RunID)
	}
	return res, nil
}

// crashResult is the answer to a call whose tool panicked.
func crashResult(req *CallRequest, crash *crashed) *CallResult {
	return ErrorResult("internal error: tool %q panicked: %s (run %s)", req.Name, crash.value, req.RunID)
}

// recovered is the panic r of req's tool, logged.
func (s *Server) recovered(req *CallRequest, r any) *crashed {
	crash := &crashed{value: bound(fmt.Sprint(r), maxPanicValue), stack: string(debug.Stack())}
	if pe, ok := r.(*panics.Error); ok && pe != nil && len(pe.Stack) > 0 {
		crash.stack = string(pe.Stack) // raised again from a worker: its stack says where
	}
	crash.stack = bound(crash.stack, maxStack)
	s.opts.Logf("mcp: tool %q (run %s) panicked: %s\n%s", req.Name, req.RunID, crash.value, crash.stack)
	return crash
}

type callResultJSON struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta"`
	ResultType        string         `json:"resultType,omitempty"`
}

// encodeCallResult encodes the whole response to a tools/call (whose id dispatch has
// checked: a string or an integer).
func (s *Server) encodeCallResult(id json.RawMessage, res *CallResult, runID string, modern bool) ([]byte, error) {
	result := res.Encoded
	if result == nil {
		var err error
		if result, err = encodeResult(res, runID, modern, s.serverInfo); err != nil {
			return nil, err
		}
	}
	if len(result) == 0 || result[0] != '{' {
		return nil, fmt.Errorf("the result is not a JSON object")
	}
	return AppendResponse(make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(result)+1), id, result), nil
}

// AppendResponse appends the response to the request id whose result is the encoded
// object result, as the server writes it (without the line's newline): what
// marshal(response{...}) writes, without encoding the result again. id is the request's,
// as decoded (a string or a number, already compact). A provider that sends its answers
// itself (see AnswerGate) writes them so.
func AppendResponse(dst, id, result []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// EncodeResult encodes res as the result of the tools/call req, as a server whose
// serverInfo is server sends it: for a provider that answers with CallResult.Encoded.
func EncodeResult(res *CallResult, req *CallRequest, server ClientInfo) (json.RawMessage, error) {
	return encodeResult(res, req.RunID, slices.Contains(modernVersions, req.ProtocolVersion), server)
}

// encodeResult encodes the result member of a tools/call's answer: res with the run id
// and, on the stateless protocol (modern), resultType and serverInfo.
func encodeResult(res *CallResult, runID string, modern bool, server ClientInfo) (json.RawMessage, error) {
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
		out.Meta[MetaServerInfo] = server
	}
	b, err := marshal(out)
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
