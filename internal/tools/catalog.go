package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/catalog"
)

// ListSchemasInput are the arguments of list_schemas.
type ListSchemasInput struct {
	Query        string   `json:"query,omitempty" brief:"Words to match in id, path, title, description" desc:"Words to look for, case-insensitively: a schema is listed when each word occurs in its id, path, title or description."`
	Paths        []string `json:"paths,omitempty" brief:"Files, directories or globs" desc:"Restrict the catalog to these files, directories or glob patterns of the workspace (** matches any number of directories; as in a shell, * does not match a leading dot). A path that does not exist is an error."`
	ProblemsOnly bool     `json:"problemsOnly,omitempty" brief:"-" desc:"List only the schemas that are not valid against their meta-schema or do not compile."`
	Offset       int      `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many schemas of the list (for paging through long results)."`
	Limit        int      `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many schemas (0: the default of the surface; the CLI lists all)."`
}

// SchemaContextInput are the arguments of schema_context.
type SchemaContextInput struct {
	ID      string `json:"id" cli:"arg" brief:"Exact id from list_schemas" desc:"The exact id of one schema, as list_schemas gives it: its absolute $id, or its path in the workspace; FILE#/pointer names a schema inside a document (a $defs entry, an OpenAPI document's component). It is never guessed: an id that matches no schema fails, and the result lists the closest ids."`
	Pointer string `json:"pointer,omitempty" brief:"JSON Pointer into id's document" desc:"A JSON Pointer to a schema inside the document id names (the same as id#pointer)."`
	Limit   int    `json:"limit,omitempty" min:"0" default:"100" brief:"Items per list" desc:"List at most this many items of each list (properties, defs, references, incoming references, problems); 0: the default of the surface (the CLI lists all)."`
	MaxText int    `json:"maxText,omitempty" min:"0" default:"6000" brief:"Characters of text" desc:"Include at most this many characters of the schema's text (0: 6000)."`
}

// workspaces keeps the scans of long-lived sessions (the MCP server, whose Env has a
// schema cache): a later call reads again only the files that changed.
var workspaces = catalog.NewCache()

func init() {
	register(define(Descriptor{
		Name:        "list_schemas",
		Title:       "List the workspace's schemas",
		Summary:     "catalog the workspace's schemas: id, path, draft, title, references, validity",
		Usage:       "[--query WORDS] [flags] [PATH...]",
		Aliases:     []string{"catalog"},
		Description: "Answers: which JSON Schemas does this workspace hold? Use it first, to find a schema's exact id for schema_context. Each schema: id ($id or path), draft, title, description, references in and out, validity. `query` and `paths` filter.",
		Help:        "Lists the JSON Schemas of the workspace, each with its id ($id, or its path), draft, title, description, references in and out, and whether it is valid. `query` and `paths` filter the list.",
		ExitCodes:   listSchemasExitCodes,
		Samples:     listSchemasSamples,
	}, runListSchemas))
	register(define(Descriptor{
		Name:        "schema_context",
		Title:       "One schema's context",
		Summary:     "one schema by exact id: metadata, shape, references both ways, problems, text",
		Usage:       "[flags] ID",
		Aliases:     []string{"context"},
		Description: "Answers: what is this schema, what does it reference, what references it, is it sound? Use it after list_schemas, with an exact id (an unknown one fails, listing close ids). Gives its catalog entry, shape, each $ref and its target, incoming references, problems and text.",
		Help:        "Shows one schema by its exact id (as the catalog lists it): its catalog entry, shape, each $ref and its target, the references to it, its problems and its text. An unknown id fails, naming the closest ids.",
		ExitCodes:   schemaContextExitCodes,
		Samples:     schemaContextSamples,
	}, runSchemaContext))
}

// listSchemasExitCodes say what the exit codes of list_schemas mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var listSchemasExitCodes = []ExitCode{
	{0, "listed"},
	{2, "could not run: a path that does not exist, a usage error, a run stopped"},
}

// listSchemasSamples are calls of list_schemas on the sample workspace (Descriptor.Samples).
var listSchemasSamples = []string{
	`{}`,
	`{"query": "order"}`,
	`{"paths": ["order.schema.json", "sub"], "problemsOnly": true, "limit": 5}`,
}

// schemaContextExitCodes say what the exit codes of schema_context mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var schemaContextExitCodes = []ExitCode{
	{0, "found"},
	{2, "no schema has the id (the closest ids are listed), or could not run"},
}

// schemaContextSamples are calls of schema_context on the sample workspace (Descriptor.Samples).
var schemaContextSamples = []string{
	`{"id": "https://example.com/schemas/order.schema.json"}`,
	`{"id": "customer.schema.json", "limit": 2, "maxText": 100}`,
}

// scanWorkspace scans the workspace of the call, through the session's cache when there is
// one.
func scanWorkspace(ctx context.Context, env *Env) (*catalog.Workspace, error) {
	opts := &catalog.Options{Resolve: env.Resolve, Limits: env.Limits}
	if env.Cache != nil {
		opts.Cache = workspaces
	}
	if env.Progress != nil {
		opts.Progress = func(done, total int, what string) {
			env.Progress(float64(done), float64(total), strconv.Itoa(done)+" of "+strconv.Itoa(total)+" "+what)
		}
	}
	return catalog.Scan(ctx, env.FS, opts)
}

func runListSchemas(ctx context.Context, env *Env, in *ListSchemasInput) (*catalog.Listing, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	w, err := scanWorkspace(ctx, env)
	if err != nil {
		return nil, err
	}
	l, err := w.List(catalog.Query{Text: in.Query, Paths: in.Paths, Problems: in.ProblemsOnly, Offset: in.Offset, Limit: in.Limit})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", env.arg("paths"), err)
	}
	entries := make([]*catalog.Entry, len(l.Schemas))
	for i := range l.Schemas {
		entries[i] = &l.Schemas[i]
	}
	if err := appliesTo(ctx, env, entries...); err != nil {
		return nil, err
	}
	return l, nil
}

// runSchemaContext looks one schema up. An id that matches no schema is not an error of the
// handler: the tool ran, and its report (found false, the error, the closest ids) says it
// failed, with exit status 2 (see catalog.Context.Failure).
func runSchemaContext(ctx context.Context, env *Env, in *SchemaContextInput) (*catalog.Context, error) {
	if in.ID == "" {
		return nil, fmt.Errorf("%s: give the exact id of a schema (list_schemas lists them)", env.arg("id"))
	}
	if in.Limit < 0 || in.MaxText < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("limit", "maxText"))
	}
	w, err := scanWorkspace(ctx, env)
	if err != nil {
		return nil, err
	}
	if in.Pointer != "" && !strings.HasPrefix(in.Pointer, "/") {
		return nil, fmt.Errorf("%s: %q is not a JSON Pointer: it must start with \"/\" (e.g. /components/schemas/Pet)", env.arg("pointer"), in.Pointer)
	}
	c := w.ContextAt(in.ID, in.Pointer, catalog.ContextLimits{Limit: in.Limit, MaxText: in.MaxText})
	if c.Schema != nil && in.Pointer == "" {
		if err := appliesTo(ctx, env, c.Schema); err != nil {
			return nil, err
		}
	}
	return c, nil
}
