// Package parity holds the test that jstk's three ways to validate agree: the command line
// (`jstk validate`, run in-process through cli.Main), the MCP validate tool (an MCP server
// of the descriptor table, in-process) and the public library (package jsonschema) give
// the same verdict and the same errors on every case of the JSON-Schema-Test-Suite. It has
// no code outside its tests.
package parity
