// Package jsonschema is jstk's JSON Schema validator as a Go library: the same compiler and
// evaluator that `jstk validate` and the MCP tools run (there is no second evaluator), with
// exact decimal numbers, ECMA-262 patterns under a time budget, and errors located in both
// the instance and the schema.
//
// # Model
//
// A Schema is compiled once (Compile, CompileFile, CompileFS) and is then safe for
// concurrent use by any number of Validate calls. Compiling resolves every $ref offline, in
// the order jstk itself follows, so that nothing the caller did not name can shadow a
// document:
//
//  1. the documents the compiler already has: the schema being compiled, its embedded $ids,
//     and the documents already loaded;
//  2. Options.Resources (in-memory documents by URI, compiled only when reached), then
//     Options.Resolve, which maps a URI (or a prefix ending in "/") to a file of the files;
//  3. the built-in meta-schemas of every draft, which nothing can override;
//  4. for a SchemaStore URL, the offline SchemaStore (Options.SchemaStore);
//  5. a file: a relative reference is looked for next to the referring file.
//
// The files are those of Options.FS (CompileFS: the fs.FS given; CompileFile: the
// directory of the file, and nothing outside it). Compile alone reads no file at all. No
// URL is ever fetched.
//
// Validate takes a Go value as encoding/json decodes it (preferably with
// json.Decoder.UseNumber, so that numbers are compared exactly) or any value encoding/json
// can marshal; ValidateBytes takes a JSON document and locates every error at a line and
// column. Both return the instance's errors (none: valid) and, apart, an error when the
// evaluation could not be completed (cancelled context, pattern budget used up, a reference
// loop, a nesting deeper than the limit).
//
// Annotate also returns the annotations of the schemas the instance passes (title,
// default, readOnly, format, unknown keywords, what properties or items applied to, ...),
// dropped with the schemas that fail, as 2020-12 section 7.7 says. Output and OutputBytes
// give the result in one of the specification's output formats (section 12: Flag, Basic,
// Detailed, Verbose), an OutputUnit that encoding/json writes as the specification shapes
// it. Options.Formats adds formats of the caller's, always asserted.
//
// # Stability
//
// This package is v0: its API may change between minor versions until jstk 1.0; changes
// are listed in the release notes.
package jsonschema
