// Package e2e holds jstk's end-to-end tests: they build the real jstk binary once and drive
// `jstk mcp` from outside, with the official MCP Go SDK client in both protocol eras and with
// raw JSON-RPC lines over pipes, and compare its answers with the CLI's. The package has no
// code of its own besides this comment (coverage tools report it as having no statements);
// everything is in its _test.go files:
//
//   - main_test.go: TestMain builds the binary and the shared workspace the tests serve;
//   - tools_test.go: listing in every protocol version, a sample call of every tool of the
//     descriptor table checked against its outputSchema, isError cases, findings, the
//     workspace boundary (paths, symlinks, $ref, resolve maps), bounded long results;
//   - session_test.go: cancellation, progress, the audit log, --expose/--exclude, pagination;
//   - stdio_test.go: every stdout byte is JSON-RPC under hostile input; EOF and SIGTERM;
//   - parity_test.go: MCP content and structuredContent equal the CLI's text and JSON output;
//   - example_test.go: examples/mcp-client runs against the binary;
//   - bench_test.go: start-up, round-trip and throughput benchmarks of the real process.
package e2e
