package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A conversation is a golden exchange: the lines a client sends and the exact messages the
// server answers, compared as parsed JSON. After each one the session must still answer a ping.
type conversation struct {
	name  string
	setup string   // "" (fresh session) or "legacy" (initialize + initialized already sent)
	opts  *Options // nil: testOptions()
	in    []string // a line prefixed with "&" is left running (no Wait after it)
	want  []string
}

const fakeToolsJSON = `[
 {"name":"echo","title":"Echo","description":"Returns its arguments.",
  "inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"outputSchema":{"type":"object"},
  "annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},
  "_meta":{"jstk/contract":{"access":"read"}}},
 {"name":"count","description":"Counts argument bytes.","inputSchema":{"type":"object"}},
 {"name":"client","description":"Names the caller.","inputSchema":{"type":"object"}},
 {"name":"slow","description":"Waits for cancellation.","inputSchema":{"type":"object"}},
 {"name":"progress","description":"Reports progress.","inputSchema":{"type":"object"}},
 {"name":"panic","description":"Panics.","inputSchema":{"type":"object"}},
 {"name":"fail","description":"Cannot run.","inputSchema":{"type":"object"}},
 {"name":"nilresult","description":"Returns nil.","inputSchema":{"type":"object"}},
 {"name":"badresult","description":"Returns bad JSON.","inputSchema":{"type":"object"}}]`

func errReply(id string, code int, message string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, message)
}

func okReply(id, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func request(id, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

func cancel(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id)
}

func initResult(version string) string {
	return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":false}},"serverInfo":%s}`, version, serverInfoJSON)
}

// nested returns depth levels of arrays around 0.
func nested(depth int) string { return strings.Repeat("[", depth) + "0" + strings.Repeat("]", depth) }

const notInitialized = `Invalid Request: %q before initialize; a legacy client must send initialize first, a 2026-07-28 client must carry _meta "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities" in params`

func conversations() []conversation {
	big := strings.Repeat("x", 10<<20)
	bigCall := request("11", "tools/call", `{"name":"count","arguments":{"s":"`+big+`"}}`)
	small := testOptions()
	small.MaxMessageSize = 1 << 20
	smallPrefix := testOptions()
	smallPrefix.MaxMessageSize = 1 << 20
	paged := testOptions()
	paged.PageSize = 4

	return []conversation{
		// Framing and JSON.
		{name: "unparsable line", in: []string{`{"jsonrpc":"2.0","id":1,`},
			want: []string{errReply("null", -32700, "Parse error: unexpected end of JSON input")}},
		{name: "garbage", in: []string{`hello`},
			want: []string{errReply("null", -32700, "Parse error: invalid character 'h' looking for beginning of value")}},
		{name: "two JSON values on one line", in: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`},
			want: []string{errReply("null", -32700, "Parse error: invalid character '{' after top-level value")}},
		{name: "empty line", in: []string{``}, want: nil},
		{name: "whitespace line", in: []string{" \t \r"}, want: nil},
		{name: "trailing carriage return", in: []string{request("1", "ping", "") + "\r"}, want: []string{okReply("1", `{}`)}},
		{name: "invalid UTF-8", in: []string{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}"},
			want: []string{errReply("null", -32700, "Parse error: the message is not valid UTF-8")}},
		{name: "invalid UTF-8 in a notification", in: []string{"{\"jsonrpc\":\"2.0\",\"method\":\"x\xc3\"}"},
			want: []string{errReply("null", -32700, "Parse error: the message is not valid UTF-8")}},
		{name: "batch array", in: []string{`[` + request("1", "ping", "") + `]`},
			want: []string{errReply("null", -32600, "Invalid Request: batch arrays are not supported; send one JSON-RPC message per line")}},
		{name: "empty batch", in: []string{`[]`},
			want: []string{errReply("null", -32600, "Invalid Request: batch arrays are not supported; send one JSON-RPC message per line")}},
		{name: "JSON string", in: []string{`"ping"`},
			want: []string{errReply("null", -32600, "Invalid Request: a JSON-RPC message must be a JSON object")}},
		{name: "JSON number", in: []string{`42`},
			want: []string{errReply("null", -32600, "Invalid Request: a JSON-RPC message must be a JSON object")}},
		{name: "JSON null", in: []string{`null`},
			want: []string{errReply("null", -32600, "Invalid Request: a JSON-RPC message must be a JSON object")}},
		{name: "empty object", in: []string{`{}`},
			want: []string{errReply("null", -32600, `Invalid Request: the message has neither "method" nor "id"`)}},

		// The envelope.
		{name: "jsonrpc 1.0", in: []string{`{"jsonrpc":"1.0","id":1,"method":"ping"}`},
			want: []string{errReply("1", -32600, `Invalid Request: "jsonrpc" must be "2.0"`)}},
		{name: "jsonrpc missing", in: []string{`{"id":2,"method":"ping"}`},
			want: []string{errReply("2", -32600, `Invalid Request: "jsonrpc" must be "2.0"`)}},
		{name: "jsonrpc a number", in: []string{`{"jsonrpc":2.0,"id":3,"method":"ping"}`},
			want: []string{errReply("3", -32600, `Invalid Request: "jsonrpc" must be "2.0"`)}},
		{name: "id an object", in: []string{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id an array", in: []string{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id a boolean", in: []string{`{"jsonrpc":"2.0","id":true,"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id fractional", in: []string{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id 1.0", in: []string{`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id with exponent", in: []string{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must be a string or an integer`)}},
		{name: "id null", in: []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`},
			want: []string{errReply("null", -32600, `Invalid Request: "id" must not be null`)}},
		{name: "string id echoed", in: []string{request(`"abc \u00e9"`, "ping", "")}, want: []string{okReply(`"abc é"`, `{}`)}},
		{name: "huge integer id echoed exactly", in: []string{request("123456789012345678901234567890", "ping", "")},
			want: []string{okReply("123456789012345678901234567890", `{}`)}},
		{name: "negative id", in: []string{request("-7", "ping", "")}, want: []string{okReply("-7", `{}`)}},
		{name: "method not a string", in: []string{`{"jsonrpc":"2.0","id":4,"method":5}`},
			want: []string{errReply("4", -32600, `Invalid Request: "method" must be a string`)}},
		{name: "id without method", in: []string{`{"jsonrpc":"2.0","id":4}`},
			want: []string{errReply("4", -32600, `Invalid Request: "method" must be a string`)}},
		{name: "member names are case-sensitive (ID is no id: a notification)", in: []string{`{"jsonrpc":"2.0","ID":1,"method":"ping"}`}, want: nil},
		{name: "unknown method", setup: "legacy", in: []string{request("5", "resources/list", "")},
			want: []string{errReply("5", -32601, `Method not found: "resources/list"`)}},
		{name: "unknown method before initialize", in: []string{request("5", "prompts/get", `{}`)},
			want: []string{errReply("5", -32601, `Method not found: "prompts/get"`)}},
		{name: "params an array", in: []string{request("6", "ping", `[]`)},
			want: []string{errReply("6", -32602, `Invalid params: "params" must be an object`)}},
		{name: "params a string", setup: "legacy", in: []string{request("6", "tools/list", `"all"`)},
			want: []string{errReply("6", -32602, `Invalid params: "params" must be an object`)}},
		{name: "params null is no params", in: []string{request("6", "ping", `null`)}, want: []string{okReply("6", `{}`)}},

		// Notifications and responses are never answered.
		{name: "notification with unknown method", in: []string{`{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`}, want: nil},
		{name: "malformed notification", in: []string{`{"jsonrpc":"1.0","method":7}`}, want: nil},
		{name: "cancel with array params", in: []string{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`}, want: nil},
		{name: "cancel of an unknown request", in: []string{cancel("99")}, want: nil},
		{name: "initialized before initialize", in: []string{initializedLine}, want: nil},
		{name: "a response from the client", in: []string{`{"jsonrpc":"2.0","id":9,"result":{}}`}, want: nil},
		{name: "an error response from the client", in: []string{`{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"x"}}`}, want: nil},

		// Legacy lifecycle.
		{name: "tools/list before initialize", in: []string{request("7", "tools/list", "")},
			want: []string{errReply("7", -32600, fmt.Sprintf(notInitialized, "tools/list"))}},
		{name: "tools/call before initialize", in: []string{request("7", "tools/call", `{"name":"echo"}`)},
			want: []string{errReply("7", -32600, fmt.Sprintf(notInitialized, "tools/call"))}},
		{name: "2026 request with missing _meta (indistinguishable from legacy before initialize)",
			in:   []string{request("7", "tools/list", `{"_meta":{"progressToken":1}}`)},
			want: []string{errReply("7", -32600, fmt.Sprintf(notInitialized, "tools/list"))}},
		{name: "legacy version in per-request _meta follows the legacy rules",
			in:   []string{request("7", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`)},
			want: []string{errReply("7", -32600, fmt.Sprintf(notInitialized, "tools/list"))}},
		{name: "ping before initialize", in: []string{request("8", "ping", "")}, want: []string{okReply("8", `{}`)}},
		{name: "initialize echoes 2025-06-18", in: []string{initLine}, want: []string{okReply("0", initResult("2025-06-18"))}},
		{name: "initialize echoes 2024-11-05", in: []string{request("1", "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)},
			want: []string{okReply("1", initResult("2024-11-05"))}},
		{name: "initialize echoes 2025-03-26", in: []string{request("1", "initialize", `{"protocolVersion":"2025-03-26"}`)},
			want: []string{okReply("1", initResult("2025-03-26"))}},
		{name: "initialize echoes 2025-11-25", in: []string{request("1", "initialize", `{"protocolVersion":"2025-11-25"}`)},
			want: []string{okReply("1", initResult("2025-11-25"))}},
		{name: "initialize with an unknown version", in: []string{request("1", "initialize", `{"protocolVersion":"1999-01-01","capabilities":{}}`)},
			want: []string{okReply("1", initResult("2025-11-25"))}},
		{name: "initialize asking for 2026-07-28", in: []string{request("1", "initialize", `{"protocolVersion":"2026-07-28","capabilities":{}}`)},
			want: []string{okReply("1", initResult("2025-11-25"))}},
		{name: "initialize without protocolVersion", in: []string{request("1", "initialize", `{"capabilities":{}}`)},
			want: []string{errReply("1", -32602, `Invalid params: initialize needs "protocolVersion" (a string)`)}},
		{name: "initialize without params", in: []string{request("1", "initialize", "")},
			want: []string{errReply("1", -32602, `Invalid params: initialize needs "protocolVersion" (a string)`)}},
		{name: "initialize with clientInfo a string", in: []string{request("1", "initialize", `{"protocolVersion":"2025-06-18","clientInfo":"me"}`)},
			want: []string{errReply("1", -32602, `Invalid params: "clientInfo" must be an object`)}},
		{name: "initialize with capabilities an array", in: []string{request("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":[]}`)},
			want: []string{errReply("1", -32602, `Invalid params: "capabilities" must be an object`)}},
		{name: "initialize twice", in: []string{initLine, request("2", "initialize", `{"protocolVersion":"2024-11-05"}`)},
			want: []string{okReply("0", initResult("2025-06-18")),
				errReply("2", -32600, "Invalid Request: already initialized (protocol version 2025-06-18); initialize may be sent once per session")}},
		{name: "legacy tools/list", setup: "legacy", in: []string{request("3", "tools/list", "")},
			want: []string{okReply("3", `{"tools":`+fakeToolsJSON+`}`)}},

		// tools/call parameters.
		{name: "unknown tool", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"nope","arguments":{}}`)},
			want: []string{errReply("9", -32602, `Invalid params: unknown tool "nope"`)}},
		{name: "tools/call without params", setup: "legacy", in: []string{request("9", "tools/call", "")},
			want: []string{errReply("9", -32602, `Invalid params: tools/call needs params with "name"`)}},
		{name: "tools/call without name", setup: "legacy", in: []string{request("9", "tools/call", `{"arguments":{}}`)},
			want: []string{errReply("9", -32602, `Invalid params: tools/call needs "name" (a string)`)}},
		{name: "tools/call with a numeric name", setup: "legacy", in: []string{request("9", "tools/call", `{"name":7}`)},
			want: []string{errReply("9", -32602, `Invalid params: tools/call needs "name" (a string)`)}},
		{name: "tools/call with array arguments", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"echo","arguments":[1]}`)},
			want: []string{errReply("9", -32602, `Invalid params: "arguments" must be an object`)}},
		{name: "tools/call with string arguments", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"echo","arguments":"x=1"}`)},
			want: []string{errReply("9", -32602, `Invalid params: "arguments" must be an object`)}},
		{name: "tools/call with null arguments", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"echo","arguments":null}`)},
			want: []string{okReply("9", `{"content":[{"type":"text","text":"echo"}],"structuredContent":{},"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "legacy tools/call", setup: "legacy", in: []string{request(`"c1"`, "tools/call", `{"name":"echo","arguments":{"x":"<&>"}}`)},
			want: []string{okReply(`"c1"`, `{"content":[{"type":"text","text":"echo"}],"structuredContent":{"x":"<&>"},"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "legacy client info reaches the tool", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"client"}`)},
			want: []string{okReply("9", `{"content":[],"structuredContent":{"name":"golden","version":"1","protocolVersion":"2025-06-18"},"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "panicking tool", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"panic","arguments":{}}`)},
			want: []string{okReply("9", `{"content":[{"type":"text","text":"internal error: tool \"panic\" panicked: boom (run run-1)"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "tool returning nil", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"nilresult"}`)},
			want: []string{okReply("9", `{"content":[{"type":"text","text":"internal error: tool \"nilresult\" returned no result (run run-1)"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "tool returning unencodable content", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"badresult"}`)},
			want: []string{okReply("9", `{"content":[{"type":"text","text":"internal error: the result of tool \"badresult\" could not be encoded: json: error calling MarshalJSON for type json.RawMessage: invalid character 'b' looking for beginning of object key string"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "tool that could not run", setup: "legacy", in: []string{request("9", "tools/call", `{"name":"fail"}`)},
			want: []string{okReply("9", `{"content":[{"type":"text","text":"could not run: no input"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`)}},

		// Concurrency: cancellation and duplicate ids.
		{name: "cancelled request is not answered", setup: "legacy", in: []string{"&" + request("8", "tools/call", `{"name":"slow"}`), cancel("8")}, want: nil},
		{name: "cancel by an escaped string id", setup: "legacy", in: []string{"&" + request(`"slow"`, "tools/call", `{"name":"slow"}`), cancel(`"\u0073low"`)}, want: nil},
		{name: "duplicate in-flight id", setup: "legacy", in: []string{"&" + request("7", "tools/call", `{"name":"slow"}`), "&" + request("7", "ping", ""), cancel("7")},
			want: []string{errReply("7", -32600, "Invalid Request: id 7 is already used by a request still in progress")}},
		{name: "duplicate id as -0", setup: "legacy", in: []string{"&" + request("0", "tools/call", `{"name":"slow"}`), "&" + request("-0", "tools/call", `{"name":"echo"}`), cancel("0")},
			want: []string{errReply("-0", -32600, "Invalid Request: id -0 is already used by a request still in progress")}},
		{name: "string and number ids differ", setup: "legacy", in: []string{"&" + request(`"7"`, "tools/call", `{"name":"slow"}`), "&" + request("7", "ping", ""), cancel(`"7"`)},
			want: []string{okReply("7", `{}`)}},
		{name: "an answered id may be reused", setup: "legacy", in: []string{request("7", "tools/call", `{"name":"fail"}`), request("7", "tools/call", `{"name":"fail"}`)},
			want: []string{
				okReply("7", `{"content":[{"type":"text","text":"could not run: no input"}],"isError":true,"_meta":{"jstk/runId":"run-1"}}`),
				okReply("7", `{"content":[{"type":"text","text":"could not run: no input"}],"isError":true,"_meta":{"jstk/runId":"run-2"}}`)}},

		// Progress.
		{name: "progress with a string token", setup: "legacy", in: []string{request("10", "tools/call", `{"name":"progress","_meta":{"progressToken":"tok"}}`)},
			want: []string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":3,"message":"one"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2,"total":3,"message":"two"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":3}}`,
				okReply("10", `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "progress with a huge integer token", setup: "legacy", in: []string{request("10", "tools/call", `{"name":"progress","_meta":{"progressToken":98765432109876543210}}`)},
			want: []string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":98765432109876543210,"progress":1,"total":3,"message":"one"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":98765432109876543210,"progress":2,"total":3,"message":"two"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":98765432109876543210,"progress":3}}`,
				okReply("10", `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "no progress without a token", setup: "legacy", in: []string{request("10", "tools/call", `{"name":"progress"}`)},
			want: []string{okReply("10", `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"jstk/runId":"run-1"}}`)}},
		{name: "progress token an object", setup: "legacy", in: []string{request("10", "tools/call", `{"name":"progress","_meta":{"progressToken":{}}}`)},
			want: []string{errReply("10", -32602, `Invalid params: "_meta.progressToken" must be a string or a number`)}},
		{name: "_meta not an object", setup: "legacy", in: []string{request("10", "tools/list", `{"_meta":[]}`)},
			want: []string{errReply("10", -32602, `Invalid params: "_meta" must be an object`)}},

		// Pagination.
		{name: "tools/list pagination through all pages", setup: "legacy", opts: paged, in: []string{
			request("1", "tools/list", ""),
			request("2", "tools/list", fmt.Sprintf(`{"cursor":%q}`, encodeCursor(4))),
			request("3", "tools/list", fmt.Sprintf(`{"cursor":%q}`, encodeCursor(8)))},
			want: []string{
				okReply("1", `{"tools":`+toolSlice(0, 4)+`,"nextCursor":"`+encodeCursor(4)+`"}`),
				okReply("2", `{"tools":`+toolSlice(4, 8)+`,"nextCursor":"`+encodeCursor(8)+`"}`),
				okReply("3", `{"tools":`+toolSlice(8, 9)+`}`)}},
		{name: "invalid cursor", setup: "legacy", in: []string{request("1", "tools/list", `{"cursor":"not-a-cursor"}`)},
			want: []string{errReply("1", -32602, `Invalid params: invalid cursor "not-a-cursor"`)}},
		{name: "cursor out of range", setup: "legacy", in: []string{request("1", "tools/list", fmt.Sprintf(`{"cursor":%q}`, encodeCursor(50)))},
			want: []string{errReply("1", -32602, fmt.Sprintf(`Invalid params: invalid cursor %q`, encodeCursor(50)))}},
		{name: "cursor not a string", setup: "legacy", in: []string{request("1", "tools/list", `{"cursor":4}`)},
			want: []string{errReply("1", -32602, `Invalid params: "cursor" must be a string`)}},

		// Size and depth.
		{name: "10 MB line", setup: "legacy", in: []string{bigCall},
			want: []string{okReply("11", fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}],"structuredContent":{"bytes":%[1]d},"isError":false,"_meta":{"jstk/runId":"run-1"}}`, len(big)+8))}},
		{name: "10 MB line over a 1 MB limit", setup: "legacy", opts: small, in: []string{bigCall},
			want: []string{errReply("11", -32600, "Invalid Request: the message exceeds the maximum size of 1048576 bytes")}},
		{name: "oversize line passed truncated by the CLI", setup: "legacy", opts: smallPrefix, in: []string{bigCall[:1<<20+1]},
			want: []string{errReply("11", -32600, "Invalid Request: the message exceeds the maximum size of 1048576 bytes")}},
		{name: "oversize notification", setup: "legacy", opts: small, in: []string{`{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"` + big + `"}}`}, want: nil},
		{name: "100,000-deep params", setup: "legacy", in: []string{request("12", "tools/call", `{"name":"echo","arguments":{"a":`+nested(100000)+`}}`)},
			want: []string{errReply("12", -32600, "Invalid Request: the message nests deeper than 10000 levels")}},
		{name: "100,000-deep notification", in: []string{`{"jsonrpc":"2.0","method":"notifications/x","params":` + nested(100000) + `}`}, want: nil},
		{name: "100,000-deep and truncated", in: []string{`{"jsonrpc":"2.0","id":13,"params":` + strings.Repeat("[", 100000)},
			want: []string{errReply("13", -32600, "Invalid Request: the message nests deeper than 10000 levels")}},
		{name: "9,000-deep arguments are served", setup: "legacy", in: []string{request("14", "tools/call", `{"name":"count","arguments":{"a":`+nested(9000)+`}}`)},
			want: []string{okReply("14", fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}],"structuredContent":{"bytes":%[1]d},"isError":false,"_meta":{"jstk/runId":"run-1"}}`, 18001+6))}},

		// The 2026-07-28 era.
		{name: "server/discover", in: []string{request("20", "server/discover", `{`+modernMeta+`}`)},
			want: []string{okReply("20", `{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],
				"capabilities":{"tools":{"listChanged":false}},"ttlMs":3600000,"cacheScope":"public","resultType":"complete",
				"_meta":{"io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
		{name: "modern tools/list", in: []string{request("21", "tools/list", `{`+modernMeta+`}`)},
			want: []string{okReply("21", `{"tools":`+fakeToolsJSON+`,"ttlMs":3600000,"cacheScope":"public","resultType":"complete",
				"_meta":{"io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
		{name: "modern tools/call", in: []string{request("22", "tools/call", `{"name":"client","arguments":{},`+modernMeta+`}`)},
			want: []string{okReply("22", `{"content":[],"structuredContent":{"name":"modern-client","version":"2","protocolVersion":"2026-07-28"},"isError":false,
				"resultType":"complete","_meta":{"jstk/runId":"run-1","io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
		{name: "modern request in a legacy session keeps its own client", setup: "legacy", in: []string{request("22", "tools/call", `{"name":"client",`+modernMeta+`}`)},
			want: []string{okReply("22", `{"content":[],"structuredContent":{"name":"modern-client","version":"2","protocolVersion":"2026-07-28"},"isError":false,
				"resultType":"complete","_meta":{"jstk/runId":"run-1","io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
		{name: "modern request without clientCapabilities",
			in:   []string{request("23", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)},
			want: []string{errReply("23", -32602, `Invalid params: a 2026-07-28 request must carry _meta "io.modelcontextprotocol/clientCapabilities" (an object)`)}},
		{name: "modern request with an unsupported version",
			in: []string{request("24", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`)},
			want: []string{`{"jsonrpc":"2.0","id":24,"error":{"code":-32022,"message":"Unsupported protocol version \"2099-01-01\"",
				"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}}}`}},
		{name: "server/discover with an unsupported version",
			in: []string{request("24", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"DRAFT-2027-v1","io.modelcontextprotocol/clientCapabilities":{}}}`)},
			want: []string{`{"jsonrpc":"2.0","id":24,"error":{"code":-32022,"message":"Unsupported protocol version \"DRAFT-2027-v1\"",
				"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"DRAFT-2027-v1"}}}`}},
		{name: "modern protocolVersion not a string", in: []string{request("25", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`)},
			want: []string{errReply("25", -32602, `Invalid params: _meta "io.modelcontextprotocol/protocolVersion" must be a string`)}},
		{name: "modern clientInfo not an object", in: []string{request("25", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"me"}}`)},
			want: []string{errReply("25", -32602, `Invalid params: _meta "io.modelcontextprotocol/clientInfo": must be an object`)}},
		{name: "server/discover with missing _meta", in: []string{request("26", "server/discover", "")},
			want: []string{errReply("26", -32602, `Invalid params: server/discover is a 2026-07-28 method; it must carry _meta "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities"`)}},
		{name: "server/discover with empty _meta", setup: "legacy", in: []string{request("26", "server/discover", `{"_meta":{}}`)},
			want: []string{errReply("26", -32602, `Invalid params: server/discover is a 2026-07-28 method; it must carry _meta "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities"`)}},
		{name: "ping does not exist in 2026-07-28", in: []string{request("27", "ping", `{`+modernMeta+`}`)},
			want: []string{errReply("27", -32601, `Method not found: "ping" is not part of protocol version 2026-07-28`)}},
		{name: "initialize does not exist in 2026-07-28", in: []string{request("27", "initialize", `{"protocolVersion":"2026-07-28",`+modernMeta+`}`)},
			want: []string{errReply("27", -32601, `Method not found: "initialize" is not part of protocol version 2026-07-28`)}},
		{name: "unknown modern method", in: []string{request("27", "subscriptions/listen", `{`+modernMeta+`}`)},
			want: []string{errReply("27", -32601, `Method not found: "subscriptions/listen"`)}},
		{name: "modern unknown tool", in: []string{request("28", "tools/call", `{"name":"nope",`+modernMeta+`}`)},
			want: []string{errReply("28", -32602, `Invalid params: unknown tool "nope"`)}},
		{name: "modern cancelled request", in: []string{"&" + request("29", "tools/call", `{"name":"slow",`+modernMeta+`}`), cancel("29")}, want: nil},
		{name: "modern progress", in: []string{request("30", "tools/call", `{"name":"progress","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)},
			want: []string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":3,"message":"one"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2,"total":3,"message":"two"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":3}}`,
				okReply("30", `{"content":[{"type":"text","text":"done"}],"isError":false,"resultType":"complete","_meta":{"jstk/runId":"run-1","io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
		{name: "modern panicking tool", in: []string{request("31", "tools/call", `{"name":"panic",`+modernMeta+`}`)},
			want: []string{okReply("31", `{"content":[{"type":"text","text":"internal error: tool \"panic\" panicked: boom (run run-1)"}],"isError":true,
				"resultType":"complete","_meta":{"jstk/runId":"run-1","io.modelcontextprotocol/serverInfo":`+serverInfoJSON+`}}`)}},
	}
}

// toolSlice returns fakeToolsJSON[from:to] as a JSON array.
func toolSlice(from, to int) string {
	var all []json.RawMessage
	if err := json.Unmarshal([]byte(fakeToolsJSON), &all); err != nil {
		panic(err)
	}
	b, err := json.Marshal(all[from:to])
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestConversations(t *testing.T) {
	t.Parallel()
	cases := conversations()
	if len(cases) < 40 {
		t.Fatalf("only %d conversations", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := c.opts
			if opts == nil {
				opts = testOptions()
			}
			ss := newSession(t, newFakeProvider(), opts)
			switch c.setup {
			case "legacy":
				ss.do(initLine, initializedLine)
			case "":
			default:
				t.Fatalf("unknown setup %q", c.setup)
			}
			got := ss.do(c.in...)
			if d := diffMessages(t, c.want, got); d != "" {
				t.Errorf("replies (-want +got):\n%s", d)
			}
			// The session goes on.
			after := ss.do(request(`"after"`, "ping", ""))
			if d := diffMessages(t, []string{okReply(`"after"`, `{}`)}, after); d != "" {
				t.Errorf("the session did not answer a following ping (-want +got):\n%s", d)
			}
			ss.srv.Wait()
		})
	}
}
