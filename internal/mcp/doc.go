// Package mcp owns jstk's Model Context Protocol server core: a pure, I/O-free JSON-RPC 2.0
// message handler for a tools-only MCP server. It speaks both protocol eras:
//
//   - the legacy, session-based era (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25):
//     initialize with version negotiation, notifications/initialized, ping;
//   - the stateless 2026-07-28 era: server/discover, and per-request params._meta carrying
//     "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
//     and optionally "io.modelcontextprotocol/clientInfo"; results carry resultType, tools/list
//     and server/discover carry ttlMs and cacheScope, and an unsupported per-request version is
//     answered with -32022 listing the supported versions.
//
// In both eras it serves tools/list (cursor pagination), tools/call (run concurrently, at
// most Options.MaxConcurrent at once and the others in line, stopped and never answered after
// notifications/cancelled, notifications/progress when the request carried a progressToken)
// and writes an optional audit line per call. The tools come from a
// [Provider]; this package imports no jstk engine. A provider that runs its calls in
// another process may end them later, on a goroutine of its own ([AsyncProvider]), and
// may send their answers itself ([AnswerGate]).
//
// # Driving a Server (the stdio loop in internal/cli)
//
// The transport is newline-delimited JSON-RPC on stdin/stdout. The loop must:
//
//  1. Read stdin line by line. Pass each line, without its trailing "\n" (a trailing "\r" is
//     tolerated), to [Server.Handle] in the order read, from one goroutine. Handle returns
//     quickly: only tools/call runs in its own goroutine.
//  2. Provide a send function that writes the message followed by "\n" to stdout under a mutex,
//     so each message is written whole; send is called from several goroutines. Nothing else
//     may ever be written to stdout; diagnostics go through [Options.Logf] to stderr.
//  3. Bound memory: keep at most [Options.MaxMessageSize] bytes of a line. When a line is
//     longer, stop keeping it: write all of its bytes (those already read included, the newline
//     excluded) to an [Oversize] and, at the end of the line, call [Server.RefuseOversize]. It
//     answers -32600 naming the size and the limit, with the request's id wherever the id sits
//     at the top level (the TypeScript SDK writes "id" last), in constant memory. (Handle also
//     refuses an over-long message, but it can only echo an id found in what it was given.)
//  4. Pass one long-lived context to every Handle call: it is the parent of every tool call's
//     context. On SIGTERM cancel it; at EOF give the calls in flight a short time to finish
//     ([Server.WaitTimeout]), then cancel it. Then wait a short time more for the cancelled
//     calls' answers ([Server.WaitTimeout]), stop writing, and exit 0: a call stuck in work
//     it cannot interrupt must not keep the process alive.
//
// # Decisions on odd input (each is tested)
//
//   - An empty or all-whitespace line is ignored silently.
//   - A line that is not UTF-8, or not JSON, gets -32700 with id null.
//   - JSON that is not an object gets -32600 with id null; a batch array gets -32600 (no era
//     served after 2025-03-26 allows batches).
//   - A member "id" makes the message a request that is always answered. The id must be a
//     string or an integer written as an integer literal (no fraction, no exponent: 1.0, 1.5
//     and 1e3 are refused); any other id, null included, gets -32600 with id null. A valid id
//     is echoed byte for byte, so large numbers keep their precision.
//   - A message with a "method" and no "id" is a notification and is never answered, even when
//     malformed or unknown. A message with neither "method" nor "id" gets -32600; one with
//     "result" or "error" and no "method" is a response to a request we never send, and is
//     ignored.
//   - "jsonrpc" other than "2.0" (or missing), or a non-string method, gets -32600; params that
//     are present, not null and not an object get -32602.
//   - A request whose id equals that of a tools/call still in flight gets -32600 (the running
//     call is not disturbed).
//   - A message longer than MaxMessageSize, or nested deeper than 10,000 levels, gets -32600,
//     with its id when the id can be read from the top level; when the top level shows a
//     notification or a response, nothing is sent.
//   - Legacy era: a request other than initialize or ping before initialize gets -32600 (the
//     message says how to initialize, or which _meta a 2026-07-28 request needs); an unknown
//     method gets -32601 in any state; a second initialize gets -32600 and changes nothing;
//     initialize with an unknown version (or 2026-07-28) is answered with 2025-11-25.
//   - 2026-07-28 era: a request is modern when params._meta carries a protocolVersion.
//     A supported modern version without clientCapabilities (or with malformed _meta fields)
//     gets -32602; an unknown version gets -32022 with data {supported, requested}; a legacy
//     version there is ignored and the request follows the legacy rules. server/discover
//     without a modern _meta gets -32602; initialize and ping with a modern _meta get -32601
//     (they do not exist in that era). Modern requests are served whether or not a legacy
//     session was initialized on the same stream.
//   - Every legacy version gets the same result shapes: fields newer than the negotiated
//     version (a tool's title, outputSchema and annotations, a result's structuredContent) are
//     sent anyway, as older clients ignore members they do not know. resultType, ttlMs,
//     cacheScope and _meta serverInfo are sent only on 2026-07-28 results.
//   - A tools/call whose context is cancelled by the Handle context (shutdown) is still
//     answered with whatever the tool returned; one cancelled by notifications/cancelled is
//     not. One cancelled while it waits for its turn never runs (by the Handle context it is
//     answered isError, saying so). Progress notifications must increase, are dropped after the answer or the
//     cancellation, and are dropped when not finite.
package mcp
