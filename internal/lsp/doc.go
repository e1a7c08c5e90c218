// Package lsp owns jstk's language server (jstk lsp): LSP 3.17 messages in, messages out,
// over a reader and a writer that internal/cli connects to stdio. It keeps the open
// documents (full and incremental sync, positions in UTF-16 code units), answers which
// schema applies to each (an Associator: $schema, a YAML modeline, a TOML #:schema line,
// jstk.json's "schemas" globs), and turns what the engines report into the editor's
// diagnostics, hover, completion, definitions and links.
//
// The diagnostics are the CLI's: the server runs the validate and lint descriptors of
// internal/tools, with the same loading of schemas and jstk.json, over an FS in which the
// open documents overlay the files. So a message and its line and column are exactly what
// jstk validate or jstk lint prints for the same file; the server adds the range's end (the
// value, or the member name an error is about) and converts columns to UTF-16.
//
// In a schema file that git tracks, each change that breaks backward compatibility with the
// version at HEAD (read by internal/gitread, without running git) is a diagnostic with jstk
// diff's proving instance: information by default, warning or off by jstk.json's
// lsp.breakingChanges, off with Options.NoConfig (an untrusted workspace).
//
// The protocol part (Content-Length framing, JSON-RPC 2.0, the few LSP types used) is
// written here rather than taken from a library: the one Go LSP library available to the
// build, github.com/tliron/glsp, has had no release since early 2024 and brings a websocket
// server (package net), which no package under internal/ but internal/cli may import.
package lsp
