package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// JSON-RPC and MCP error codes used by the server.
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeUnsupportedProtocolVersion = -32022
)

// The protocol versions the server speaks.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// legacyVersions are negotiated by initialize; modernVersions are stateless (per-request _meta).
// Both newest first.
var (
	legacyVersions = []string{Version20251125, Version20250618, Version20250326, Version20241105}
	modernVersions = []string{Version20260728}
)

// SupportedVersions returns every protocol version the server speaks, newest first.
func SupportedVersions() []string { return slices.Concat(modernVersions, legacyVersions) }

// Reserved _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	// MetaRunID is the key of the run id in every tools/call result's _meta.
	MetaRunID = "jstk/runId"
)

// Defaults for Options.
const (
	DefaultPageSize       = 50
	DefaultMaxMessageSize = 256 << 20
	DefaultListTTL        = time.Hour
	// DefaultProgressInterval is the least time between two progress notifications of a
	// call: a client is told how a long call goes, not flooded.
	DefaultProgressInterval = 250 * time.Millisecond
)

// Options configure a Server. The zero value (or nil) is usable.
type Options struct {
	// Name and Version are the serverInfo. Defaults: "jstk" and "(devel)".
	Name, Version string
	// Instructions, if not empty, are sent by initialize and server/discover.
	Instructions string
	// PageSize is the tools/list page size; <= 0 means DefaultPageSize.
	PageSize int
	// MaxMessageSize bounds one incoming message in bytes; <= 0 means DefaultMaxMessageSize.
	MaxMessageSize int
	// ListTTL is the ttlMs hint of 2026-era tools/list and server/discover results (the tool
	// list never changes while the server runs). 0 means DefaultListTTL; negative sends 0.
	ListTTL time.Duration
	// Audit, if non-nil, receives one JSON line per tools/call that ran (not for one refused
	// with a protocol error), written whole in one Write, serialized:
	//	{"time": RFC 3339 start time, "runId", "invoker": {"kind": "agent", "id": clientInfo name
	//	 or "unknown", "via": "mcp"}, "tool", "arguments": see Redact, "outcome": "ok" | "error"
	//	 (isError) | "cancelled" (by notifications/cancelled or the Handle context) | "panic",
	//	 "durationMs", and for a panic "panic" (its value) and "stack" (of the goroutine that
	//	 panicked; a panics.Error raised again from a worker gives the worker's)}
	// Arguments larger than 256 KiB after redaction are replaced by a note giving their size.
	Audit io.Writer
	// Now is the clock (for tests); nil means time.Now.
	Now func() time.Time
	// NewRunID mints run ids (for tests); nil means 26 random base32 characters.
	NewRunID func() string
	// Logf receives diagnostics (stderr in the CLI); nil discards them.
	Logf func(format string, args ...any)
	// ProgressInterval is the least time between two notifications/progress of one call
	// (by Now): the reports that come sooner are dropped. 0 means DefaultProgressInterval;
	// negative, none is dropped.
	ProgressInterval time.Duration
	// MaxConcurrent bounds the tools/call that run at once; the others wait, in the order
	// they came, until one ends (a call cancelled while it waits never runs). <= 0 means
	// the number of CPUs.
	MaxConcurrent int
}

// Server is the protocol core. It is safe for concurrent use.
type Server struct {
	p          Provider
	opts       Options
	serverInfo ClientInfo // name/version of this server (same shape as a client's)

	toolsOnce sync.Once
	tools     []listedTool
	byName    map[string]int

	mu            sync.Mutex
	initialized   bool
	legacyVersion string
	legacyClient  ClientInfo
	inflight      map[string]*call

	wg      sync.WaitGroup
	auditMu sync.Mutex
	// running counts the calls running (at most Options.MaxConcurrent); waiting are the
	// calls in line for a turn, in the order they came. Both are guarded by mu.
	running int
	waiting []*call

	// workers run the calls.
	workers *Workers
}

type listedTool struct {
	name string
	raw  json.RawMessage
}

// NewServer returns a server for the tools of p. opts may be nil.
func NewServer(p Provider, opts *Options) *Server {
	s := &Server{p: p, inflight: map[string]*call{}, workers: NewWorkers(WorkerIdle)}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.Name == "" {
		o.Name = "jstk"
	}
	if o.Version == "" {
		o.Version = "(devel)"
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.ListTTL == 0 {
		o.ListTTL = DefaultListTTL
	} else if o.ListTTL < 0 {
		o.ListTTL = 0
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.NewRunID == nil {
		o.NewRunID = rand.Text
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = runtime.NumCPU()
	}
	s.serverInfo = ClientInfo{Name: o.Name, Version: o.Version}
	return s
}

// Wait blocks until every in-flight tools/call has finished, its answer sent and its audit
// line written. It must not run concurrently with Handle (call it once no more messages come).
func (s *Server) Wait() { s.wg.Wait() }

// WaitTimeout is Wait for at most d; it reports whether every call finished. A stdio loop
// shutting down cancels the calls (through the Handle context), waits a little for their
// answers, and exits whether or not a call is still stuck in work it cannot interrupt.
func (s *Server) WaitTimeout(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func newError(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

var nullID = json.RawMessage("null")

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// marshal encodes v without HTML escaping and without a trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (s *Server) sendError(send func([]byte), id json.RawMessage, e *rpcError) {
	if id == nil {
		id = nullID
	}
	b, err := marshal(response{JSONRPC: "2.0", ID: id, Error: e})
	if err != nil { // cannot happen: every field is plain data
		s.opts.Logf("mcp: encoding an error response: %v", err)
		return
	}
	send(b)
}

func (s *Server) sendResult(send func([]byte), id json.RawMessage, result any) {
	b, err := marshal(response{JSONRPC: "2.0", ID: id, Result: result})
	if err != nil {
		s.opts.Logf("mcp: encoding a result: %v", err)
		s.sendError(send, id, newError(CodeInternalError, "Internal error: the result could not be encoded: %v", err))
		return
	}
	send(b)
}

// Handle processes ONE incoming message (one line of the stdio stream, without the newline) and
// delivers every outgoing message (responses, notifications/progress) through send, each a
// complete JSON-RPC message without newline. send may be called from other goroutines after
// Handle returns (tools/call runs concurrently); send must be safe for concurrent use (the
// caller's job). ctx is the parent of the contexts of the tool calls this message starts.
// Handle does not keep msg after it returns, so the caller may reuse its buffer.
func (s *Server) Handle(ctx context.Context, msg []byte, send func([]byte)) {
	s.handle(ctx, msg, send, s.workers.Go)
}

// HandleDeferred is Handle, except that the tool call a message starts, if any, is returned
// rather than run: the caller runs it, on a goroutine of its choosing (nil when the message
// started none). The call is admitted, and counted by Wait, before HandleDeferred returns;
// it must be run, or Wait waits for ever. A stdio loop runs it on the goroutine that read
// the message, once another goroutine reads on, so that a warm call is not handed from one
// goroutine to another before it starts.
func (s *Server) HandleDeferred(ctx context.Context, msg []byte, send func([]byte)) (call func()) {
	s.handle(ctx, msg, send, func(f func()) { call = f })
	return call
}

// handle is Handle; start runs the tool call a message starts.
func (s *Server) handle(ctx context.Context, msg []byte, send func([]byte), start func(func())) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return
	}
	if len(msg) > s.opts.MaxMessageSize {
		s.refuseUnreadable(msg, send, fmt.Sprintf("Invalid Request: the message exceeds the maximum size of %d bytes", s.opts.MaxMessageSize))
		return
	}
	if !utf8.Valid(msg) {
		s.sendError(send, nil, newError(CodeParseError, "Parse error: the message is not valid UTF-8"))
		return
	}
	if msg[0] == '{' && json.Valid(msg) {
		// The common case, decoded in one validating pass and one that splits the members
		// (members). The values are kept past this call (a call's id and arguments): they
		// share a copy of msg, not msg.
		s.dispatch(ctx, members(bytes.Clone(msg)), send, start)
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok {
			if exceedsDepth(msg, maxDepth) {
				s.refuseUnreadable(msg, send, fmt.Sprintf("Invalid Request: the message nests deeper than %d levels", maxDepth))
				return
			}
			s.sendError(send, nil, newError(CodeParseError, "Parse error: %v", err))
			return
		}
		if msg[0] == '[' {
			s.sendError(send, nil, newError(CodeInvalidRequest, "Invalid Request: batch arrays are not supported; send one JSON-RPC message per line"))
			return
		}
		s.sendError(send, nil, newError(CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object"))
		return
	}
	if fields == nil { // the line was "null"
		s.sendError(send, nil, newError(CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object"))
		return
	}
	s.dispatch(ctx, fields, send, start)
}

// refuseUnreadable answers a message too large or too deep to decode, echoing its id when the
// top level shows one, and staying silent when the top level shows a notification or a
// response.
func (s *Server) refuseUnreadable(msg []byte, send func([]byte), text string) {
	var t topScanner
	_, _ = t.Write(msg)
	s.refuseScanned(&t, send, text)
}

func (s *Server) refuseScanned(t *topScanner, send func([]byte), text string) {
	if t.complete() {
		switch {
		case t.hasMethod && !t.hasID:
			s.opts.Logf("mcp: dropped a notification: %s", text)
			return
		case !t.hasMethod && (t.hasResult || t.hasError):
			s.opts.Logf("mcp: dropped a response: %s", text)
			return
		}
	}
	s.sendError(send, t.validID(), newError(CodeInvalidRequest, "%s", text))
}

// Oversize takes a message too large to keep, piece by piece, in constant memory: the stdio
// loop writes every byte of an over-long line to it (the bytes already read included, the
// newline excluded) and then calls [Server.RefuseOversize]. Its zero value is ready to use.
type Oversize struct {
	scan topScanner
	size int64
}

// Write feeds the next piece of the message. It never fails.
func (o *Oversize) Write(p []byte) (int, error) {
	o.size += int64(len(p))
	return o.scan.Write(p)
}

// RefuseOversize answers the message fed to o with -32600, naming its size and the limit and
// echoing its id when its top level has one; a notification or a response is not answered.
func (s *Server) RefuseOversize(o *Oversize, send func([]byte)) {
	s.refuseScanned(&o.scan, send, fmt.Sprintf("Invalid Request: the message of %d bytes exceeds the maximum size of %d bytes", o.size, s.opts.MaxMessageSize))
}

func decodeString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if v, ok := plainString(raw); ok {
		return v, true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

func isNull(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// dispatch handles one decoded message object.
func (s *Server) dispatch(ctx context.Context, fields map[string]json.RawMessage, send func([]byte), start func(func())) {
	idRaw, hasID := fields["id"]
	methodRaw, hasMethod := fields["method"]
	if !hasMethod {
		_, hasResult := fields["result"]
		_, hasErr := fields["error"]
		if hasResult || hasErr {
			s.opts.Logf("mcp: ignored a response (id %s): this server sends no requests", idRaw)
			return
		}
		if !hasID {
			s.sendError(send, nil, newError(CodeInvalidRequest, `Invalid Request: the message has neither "method" nor "id"`))
			return
		}
	}
	if !hasID {
		s.notification(fields, send)
		return
	}
	switch classifyID(idRaw) {
	case idNull:
		s.sendError(send, nil, newError(CodeInvalidRequest, `Invalid Request: "id" must not be null`))
		return
	case idInvalid:
		s.sendError(send, nil, newError(CodeInvalidRequest, `Invalid Request: "id" must be a string or an integer`))
		return
	}
	id := idRaw
	if v, ok := decodeString(fields["jsonrpc"]); !ok || v != "2.0" {
		s.sendError(send, id, newError(CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`))
		return
	}
	method, ok := decodeString(methodRaw)
	if !ok {
		s.sendError(send, id, newError(CodeInvalidRequest, `Invalid Request: "method" must be a string`))
		return
	}
	var params map[string]json.RawMessage
	if p := fields["params"]; !isNull(p) {
		if p[0] != '{' {
			s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: "params" must be an object`))
			return
		}
		params = members(p) // valid: the whole message was
	}
	key := idKey(id)
	s.mu.Lock()
	c, busy := s.inflight[key]
	s.mu.Unlock()
	if busy && c.answer.answered() { // may wait for an answer being written: not under s.mu
		busy = false
	}
	if busy {
		s.sendError(send, id, newError(CodeInvalidRequest, "Invalid Request: id %s is already used by a request still in progress", id))
		return
	}
	meta, rerr := parseRequestMeta(params)
	if rerr != nil {
		s.sendError(send, id, rerr)
		return
	}
	if meta.modern {
		s.modernRequest(ctx, id, method, params, meta, send, start)
		return
	}
	s.legacyRequest(ctx, id, method, params, meta, send, start)
}

// requestMeta is what params._meta says about a request.
type requestMeta struct {
	modern        bool   // the request follows a stateless (2026-07-28+) version
	version       string // that version
	client        ClientInfo
	progressToken json.RawMessage // nil when absent
}

func parseRequestMeta(params map[string]json.RawMessage) (requestMeta, *rpcError) {
	var m requestMeta
	raw := params["_meta"]
	if isNull(raw) {
		return m, nil
	}
	if raw[0] != '{' {
		return m, newError(CodeInvalidParams, `Invalid params: "_meta" must be an object`)
	}
	meta := members(raw) // valid: the whole message was
	if tok := meta["progressToken"]; !isNull(tok) {
		if tok[0] != '"' && tok[0] != '-' && (tok[0] < '0' || tok[0] > '9') {
			return m, newError(CodeInvalidParams, `Invalid params: "_meta.progressToken" must be a string or a number`)
		}
		m.progressToken = tok
	}
	vRaw, ok := meta[MetaProtocolVersion]
	if !ok {
		return m, nil
	}
	v, ok := decodeString(vRaw)
	if !ok {
		return m, newError(CodeInvalidParams, "Invalid params: _meta %q must be a string", MetaProtocolVersion)
	}
	switch {
	case slices.Contains(modernVersions, v):
	case slices.Contains(legacyVersions, v):
		// A legacy version in _meta: the request follows the legacy (session) rules.
		return m, nil
	default:
		return m, &rpcError{
			Code:    CodeUnsupportedProtocolVersion,
			Message: fmt.Sprintf("Unsupported protocol version %q", v),
			Data:    map[string]any{"supported": SupportedVersions(), "requested": v},
		}
	}
	m.modern, m.version = true, v
	if caps := meta[MetaClientCapabilities]; isNull(caps) || caps[0] != '{' {
		return m, newError(CodeInvalidParams, "Invalid params: a %s request must carry _meta %q (an object)", v, MetaClientCapabilities)
	}
	if ci, ok := meta[MetaClientInfo]; ok && !isNull(ci) {
		info, err := decodeClientInfo(ci)
		if err != nil {
			return m, newError(CodeInvalidParams, "Invalid params: _meta %q: %v", MetaClientInfo, err)
		}
		m.client = info
	}
	return m, nil
}

func decodeClientInfo(raw json.RawMessage) (ClientInfo, error) {
	var info ClientInfo
	if len(raw) == 0 || raw[0] != '{' {
		return info, errors.New("must be an object")
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return info, errors.New(`"name" and "version" must be strings`)
	}
	return info, nil
}

// notification handles a message without id. It never answers.
func (s *Server) notification(fields map[string]json.RawMessage, send func([]byte)) {
	method, ok := decodeString(fields["method"])
	if v, vok := decodeString(fields["jsonrpc"]); !ok || !vok || v != "2.0" {
		s.opts.Logf("mcp: ignored a malformed notification (method %s)", fields["method"])
		return
	}
	switch method {
	case "notifications/initialized":
		s.mu.Lock()
		init := s.initialized
		s.mu.Unlock()
		if !init {
			s.opts.Logf("mcp: notifications/initialized before initialize")
		}
	case "notifications/cancelled":
		s.cancelled(fields["params"])
	case "notifications/progress", "notifications/roots/list_changed":
		// Nothing to do for a tools-only server.
	default:
		s.opts.Logf("mcp: ignored notification %q", method)
	}
}

// cancelled stops the in-flight call named by params.requestId; its answer is never sent.
func (s *Server) cancelled(raw json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if isNull(raw) || raw[0] != '{' || json.Unmarshal(raw, &p) != nil {
		s.opts.Logf("mcp: ignored notifications/cancelled with malformed params")
		return
	}
	if k := classifyID(p.RequestID); k != idString && k != idInteger {
		s.opts.Logf("mcp: ignored notifications/cancelled without a valid requestId")
		return
	}
	s.mu.Lock()
	c := s.inflight[idKey(p.RequestID)]
	s.mu.Unlock()
	if c == nil {
		return // already answered, or never seen: nothing to stop
	}
	c.mu.Lock()
	if !c.answer.cancelAnswer() {
		c.mu.Unlock()
		return // the provider has sent the answer already
	}
	c.cancelledByClient = true
	c.mu.Unlock()
	c.cancel()
}

var errNotInitialized = `Invalid Request: %q before initialize; a legacy client must send initialize first, a %s client must carry _meta %q and %q in params`

func (s *Server) legacyRequest(ctx context.Context, id json.RawMessage, method string, params map[string]json.RawMessage, meta requestMeta, send func([]byte), start func(func())) {
	switch method {
	case "initialize":
		s.initialize(id, params, send)
		return
	case "ping":
		s.sendResult(send, id, struct{}{})
		return
	case "server/discover":
		s.sendError(send, id, newError(CodeInvalidParams, "Invalid params: server/discover is a %s method; it must carry _meta %q and %q", Version20260728, MetaProtocolVersion, MetaClientCapabilities))
		return
	case "tools/list", "tools/call":
	default:
		s.sendError(send, id, newError(CodeMethodNotFound, "Method not found: %q", method))
		return
	}
	s.mu.Lock()
	init, version, client := s.initialized, s.legacyVersion, s.legacyClient
	s.mu.Unlock()
	if !init {
		s.sendError(send, id, newError(CodeInvalidRequest, errNotInitialized, method, Version20260728, MetaProtocolVersion, MetaClientCapabilities))
		return
	}
	meta.version, meta.client = version, client
	if method == "tools/list" {
		s.toolsList(id, params, meta, send)
		return
	}
	s.toolsCall(ctx, id, params, meta, send, start)
}

func (s *Server) modernRequest(ctx context.Context, id json.RawMessage, method string, params map[string]json.RawMessage, meta requestMeta, send func([]byte), start func(func())) {
	switch method {
	case "server/discover":
		s.discover(id, send)
	case "tools/list":
		s.toolsList(id, params, meta, send)
	case "tools/call":
		s.toolsCall(ctx, id, params, meta, send, start)
	case "initialize", "ping":
		s.sendError(send, id, newError(CodeMethodNotFound, "Method not found: %q is not part of protocol version %s", method, meta.version))
	default:
		s.sendError(send, id, newError(CodeMethodNotFound, "Method not found: %q", method))
	}
}

func (s *Server) capabilities() map[string]any {
	return map[string]any{"tools": map[string]any{"listChanged": false}}
}

func (s *Server) initialize(id json.RawMessage, params map[string]json.RawMessage, send func([]byte)) {
	requested, ok := decodeString(params["protocolVersion"])
	if !ok {
		s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: initialize needs "protocolVersion" (a string)`))
		return
	}
	var client ClientInfo
	if ci := params["clientInfo"]; !isNull(ci) {
		info, err := decodeClientInfo(ci)
		if err != nil {
			s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: "clientInfo" %v`, err))
			return
		}
		client = info
	}
	if caps := params["capabilities"]; !isNull(caps) && caps[0] != '{' {
		s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: "capabilities" must be an object`))
		return
	}
	version := legacyVersions[0]
	if slices.Contains(legacyVersions, requested) {
		version = requested
	}
	s.mu.Lock()
	if s.initialized {
		prev := s.legacyVersion
		s.mu.Unlock()
		s.sendError(send, id, newError(CodeInvalidRequest, "Invalid Request: already initialized (protocol version %s); initialize may be sent once per session", prev))
		return
	}
	s.initialized, s.legacyVersion, s.legacyClient = true, version, client
	s.mu.Unlock()
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    s.capabilities(),
		"serverInfo":      s.serverInfo,
	}
	if s.opts.Instructions != "" {
		result["instructions"] = s.opts.Instructions
	}
	s.sendResult(send, id, result)
}

// modernResult adds the fields every 2026-era result carries.
func (s *Server) modernResult(result map[string]any) map[string]any {
	result["resultType"] = "complete"
	meta, _ := result["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[MetaServerInfo] = s.serverInfo
	result["_meta"] = meta
	return result
}

func (s *Server) cacheable(result map[string]any) {
	result["ttlMs"] = s.opts.ListTTL.Milliseconds()
	result["cacheScope"] = "public"
}

func (s *Server) discover(id json.RawMessage, send func([]byte)) {
	result := map[string]any{
		"supportedVersions": SupportedVersions(),
		"capabilities":      s.capabilities(),
	}
	if s.opts.Instructions != "" {
		result["instructions"] = s.opts.Instructions
	}
	s.cacheable(result)
	s.sendResult(send, id, s.modernResult(result))
}

// loadTools asks the provider for its tools once, keeping those that can be listed.
func (s *Server) loadTools() {
	s.toolsOnce.Do(func() {
		s.byName = map[string]int{}
		var tools []Tool
		func() {
			defer func() {
				if r := recover(); r != nil {
					s.opts.Logf("mcp: the tool provider panicked while listing tools: %v", r)
				}
			}()
			tools = s.p.Tools()
		}()
		for i := range tools {
			t := &tools[i]
			if err := ValidateTool(t); err != nil {
				s.opts.Logf("mcp: tool left out: %v", err)
				continue
			}
			if _, dup := s.byName[t.Name]; dup {
				s.opts.Logf("mcp: tool left out: a second tool is named %q", t.Name)
				continue
			}
			raw, err := marshal(wireTool(t))
			if err != nil {
				s.opts.Logf("mcp: tool left out: %q cannot be encoded: %v", t.Name, err)
				continue
			}
			s.byName[t.Name] = len(s.tools)
			s.tools = append(s.tools, listedTool{name: t.Name, raw: raw})
		}
	})
}

type toolJSON struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
	Meta         map[string]any  `json:"_meta,omitempty"`
}

func wireTool(t *Tool) toolJSON {
	in := t.InputSchema
	if in == nil {
		in = json.RawMessage(`{"type":"object"}`)
	}
	return toolJSON{t.Name, t.Title, t.Description, in, t.OutputSchema, t.Annotations, t.Meta}
}

const cursorPrefix = "tools:"

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// decodeCursor returns the offset in a cursor made by encodeCursor, if it is in range.
func decodeCursor(c string, n int) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return 0, false
	}
	off, err := strconv.Atoi(rest)
	if err != nil || off <= 0 || off >= n || strconv.Itoa(off) != rest {
		return 0, false
	}
	return off, true
}

func (s *Server) toolsList(id json.RawMessage, params map[string]json.RawMessage, meta requestMeta, send func([]byte)) {
	s.loadTools()
	offset := 0
	if c := params["cursor"]; !isNull(c) {
		cursor, ok := decodeString(c)
		if !ok {
			s.sendError(send, id, newError(CodeInvalidParams, `Invalid params: "cursor" must be a string`))
			return
		}
		if offset, ok = decodeCursor(cursor, len(s.tools)); !ok {
			s.sendError(send, id, newError(CodeInvalidParams, "Invalid params: invalid cursor %q", cursor))
			return
		}
	}
	end := min(offset+s.opts.PageSize, len(s.tools))
	page := make([]json.RawMessage, 0, end-offset)
	for _, t := range s.tools[offset:end] {
		page = append(page, t.raw)
	}
	result := map[string]any{"tools": page}
	if end < len(s.tools) {
		result["nextCursor"] = encodeCursor(end)
	}
	if meta.modern {
		s.cacheable(result)
		result = s.modernResult(result)
	}
	s.sendResult(send, id, result)
}
