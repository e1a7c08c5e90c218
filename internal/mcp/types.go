package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

// Tool is one tool as listed by tools/list.
type Tool struct {
	// Name matches ^[a-z][a-z0-9_]{0,63}$ (several clients reject dots).
	Name string
	// Title is a short human-readable name; may be empty.
	Title string
	// Description tells a model what the tool answers and when to use it.
	Description string
	// InputSchema is a JSON Schema with "type": "object" at the root and no top-level $ref,
	// oneOf or anyOf. Nil means {"type":"object"} (a tool without arguments).
	InputSchema json.RawMessage
	// OutputSchema follows the same rules as InputSchema; nil means none.
	OutputSchema json.RawMessage
	// Annotations are the behaviour hints; nil means none are sent.
	Annotations *Annotations
	// Meta is sent as the tool's _meta, e.g. "jstk/contract": {"access":"read"}.
	Meta map[string]any
}

// Annotations are a tool's behaviour hints. The four hints are always sent, so a false value is
// explicit (the protocol defaults of destructiveHint and openWorldHint are true).
type Annotations struct {
	Title           string `json:"title,omitempty"` // a display title; may be empty
	ReadOnlyHint    bool   `json:"readOnlyHint"`    // the tool changes nothing
	DestructiveHint bool   `json:"destructiveHint"` // the tool may destroy data
	IdempotentHint  bool   `json:"idempotentHint"`  // repeating a call has no further effect
	OpenWorldHint   bool   `json:"openWorldHint"`   // the tool reaches outside entities
}

// ClientInfo identifies the client that made a request: from initialize in the legacy era, from
// the per-request "io.modelcontextprotocol/clientInfo" in the 2026-07-28 era. Both fields are
// empty when the client did not say.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// CallRequest is one tools/call, already matched to a listed tool.
type CallRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the raw "arguments" object ({} when absent or null).
	Arguments json.RawMessage
	// Client is the calling client, see ClientInfo.
	Client ClientInfo
	// ProtocolVersion is the negotiated legacy version or the per-request 2026 version.
	ProtocolVersion string
	// RunID is minted by the server for this call; it is in the result's _meta and the audit.
	RunID string
	// ID is the request's JSON-RPC id, as the client sent it (a string or an integer).
	ID json.RawMessage
	// Answer lets a provider send the answer to the client itself (see AnswerGate); nil
	// when the server sends it, as always for a call with Progress.
	Answer *AnswerGate
	// Progress is non-nil only when the request carried params._meta.progressToken; a call
	// sends notifications/progress, at most one per Options.ProgressInterval (the others are
	// dropped) and only with increasing progress. total <= 0 and message "" are left out of
	// the notification. It is safe for concurrent use and does nothing once the call is
	// answered or cancelled.
	Progress func(progress, total float64, message string)
}

// Content is one content block of a tool result. jstk results are text.
type Content struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// TextContent returns a text content block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// CallResult is a tools/call result.
type CallResult struct {
	// Content holds the human-readable report (text blocks).
	Content []Content
	// StructuredContent is the machine-readable result; nil when none.
	StructuredContent any
	// IsError reports that the tool could not run.
	IsError bool
	// Meta is sent as the result's _meta; the server adds "jstk/runId".
	Meta map[string]any
	// Encoded, when not nil, is the whole result already encoded by EncodeResult for this
	// call (its run id and protocol version, this server's info): the server sends it as it
	// is and reads only IsError of the other fields. A provider whose calls run in another
	// process answers this way, so that a result is encoded once, where it is made.
	Encoded json.RawMessage
	// Sent says that the provider sent the answer to the client itself, through the
	// call's AnswerGate: the server sends nothing, and reads only IsError, for the audit.
	Sent bool
}

// An AnswerGate lets a provider send a call's answer to the client itself, on the stream
// the server writes (a process of its own that shares the client's stream), and orders
// that answer against the client's cancellation of the call: whichever comes first wins,
// as in the server, where a cancelled call's answer is never sent. A gate is the server's
// for one call; the provider binds it once.
type AnswerGate struct {
	mu        sync.Mutex
	cancelled bool
	cancel    func() bool
	sent      func() bool
}

// Bind gives the gate cancel, which stops the provider's own answer and reports true, or
// reports false when that answer was already sent (or is being written), and sent, which
// reports whether the answer has reached the client (a client may then use the call's id
// again at once, before the provider returns; sent may wait for a write under way). Bind
// reports false, and binds nothing, when the client has cancelled the call already.
func (g *AnswerGate) Bind(cancel, sent func() bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancelled {
		return false
	}
	g.cancel, g.sent = cancel, sent
	return true
}

// answered reports whether the provider has sent the call's answer to the client.
func (g *AnswerGate) answered() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sent != nil && g.sent()
}

// cancelAnswer is the client's cancellation: false when the provider's answer went
// first (the call counts as answered, as one that ended before its cancellation came).
func (g *AnswerGate) cancelAnswer() bool {
	if g == nil {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil && !g.cancel() {
		return false
	}
	g.cancelled = true
	return true
}

// ErrorResult returns a result with IsError set and one text block.
func ErrorResult(format string, args ...any) *CallResult {
	return &CallResult{Content: []Content{TextContent(fmt.Sprintf(format, args...))}, IsError: true}
}

// Provider supplies the tools. Call must be total: the server recovers a panic in Call,
// answers a result with isError:true naming the panic, and keeps serving. Tools is called once,
// lazily, on the first tools/list or tools/call, and its answer is kept.
type Provider interface {
	Tools() []Tool
	Call(ctx context.Context, req *CallRequest) *CallResult
}

// An AsyncProvider is a Provider whose calls may end later, on a goroutine of its own:
// one that runs them in another process, so that the goroutine that read a call reads the
// next at once instead of waiting (a goroutine handed the reading, and one woken for the
// result, cost a warm call two thread wake-ups).
type AsyncProvider interface {
	Provider
	// CallAsync starts the call and returns true, and then calls done once, on any
	// goroutine (within CallAsync too); or it returns false, starting nothing, and the
	// server calls Call. done's argument gives the result as Call would: the server runs
	// it under the same recovery, so that it may raise a panic the call raised.
	CallAsync(ctx context.Context, req *CallRequest, done func(result func() *CallResult)) bool
}

// validToolName says whether name matches ^[a-z][a-z0-9_]{0,63}$ (checked by hand: the
// compiled pattern cost 630 allocations at every start of the binary).
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ValidateTool reports why t cannot be listed: a name outside ^[a-z][a-z0-9_]{0,63}$, or an
// input or output schema that is not a JSON object with "type": "object" at the root, or that
// has a top-level $ref, oneOf or anyOf.
func ValidateTool(t *Tool) error {
	if !validToolName(t.Name) {
		return fmt.Errorf("tool name %q does not match ^[a-z][a-z0-9_]{0,63}$", t.Name)
	}
	if t.InputSchema != nil {
		if err := checkRootSchema(t.InputSchema); err != nil {
			return fmt.Errorf("tool %q: inputSchema: %w", t.Name, err)
		}
	}
	if t.OutputSchema != nil {
		if err := checkRootSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("tool %q: outputSchema: %w", t.Name, err)
		}
	}
	return nil
}

func checkRootSchema(raw json.RawMessage) error {
	if !utf8.Valid(raw) {
		return errors.New("not valid UTF-8")
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("not a JSON object")
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		return err
	}
	var typ string
	if err := json.Unmarshal(root["type"], &typ); err != nil || typ != "object" {
		return errors.New(`the root must have "type": "object"`)
	}
	for _, k := range []string{"$ref", "oneOf", "anyOf"} {
		if _, ok := root[k]; ok {
			return fmt.Errorf("a top-level %q is not allowed", k)
		}
	}
	return nil
}
