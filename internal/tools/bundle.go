package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/jstk-dev/jstk/internal/bundle"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// BundleInput are the arguments of bundle.
type BundleInput struct {
	Schema Doc    `json:"schema" cli:"arg" role:"schema" brief:"-" desc:"The schema to bundle, with everything it references; FILE#/pointer names one inside a document (a $defs entry, an OpenAPI 3.1 document's component), which becomes the bundle's root."`
	Draft  string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"For documents without $schema" desc:"Read documents that have no $schema as this draft (default 2020-12)."`
	Output string `json:"output,omitempty" cli:"only" short:"o" desc:"Write the bundled schema to this file instead of standard output (YAML when the name ends in .yaml or .yml)."`
}

func init() {
	register(define(Descriptor{
		Name:        "bundle",
		Title:       "Bundle a schema",
		Summary:     "bundle a schema and everything it references into one self-contained document",
		Usage:       "[-o FILE] [--format json|yaml] SCHEMA",
		Formats:     []diag.Format{diag.YAML},
		Document:    true,
		Description: "Answers: what is this schema as one self-contained document? Use it before publishing a schema that references other files. Referenced documents are embedded; the bundle validates as the original.",
		Help:        "Writes the schema and every document it references as one self-contained schema, which validates exactly as the original does: for publishing a schema that spans several files, or for a tool that cannot resolve references.",
		ExitCodes:   bundleExitCodes,
		Samples:     bundleSamples,
	}, runBundle))
}

// bundleExitCodes say what the exit codes of bundle mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var bundleExitCodes = []ExitCode{
	{0, "bundled"},
	{2, "could not run: an unresolvable reference, an invalid schema, a usage error, a run stopped"},
}

// bundleSamples are calls of bundle on the sample workspace (Descriptor.Samples).
var bundleSamples = []string{
	`{"schema": {"path": "order.schema.json"}}`,
	`{"schema": {"value": {"type": "object", "properties": {"c": {"$ref": "customer.schema.json"}}}}, "draft": "2020-12"}`,
}

// bundleReport is the bundle result as a tool report.
type bundleReport bundle.Result

func (r *bundleReport) res() *bundle.Result { return (*bundle.Result)(r) }

// WriteText prints the bundled schema as JSON.
func (r *bundleReport) WriteText(w io.Writer) error { return r.res().WriteText(w) }

// WriteFormat prints the bundled schema as YAML.
func (r *bundleReport) WriteFormat(w io.Writer, format string) error {
	return r.res().WriteFormat(w, format)
}

// Diagnostics lists the warnings.
func (r *bundleReport) Diagnostics() []diag.Diagnostic { return r.res().Diagnostics() }

// Notes are the warnings, for stderr when the output is the schema itself.
func (r *bundleReport) Notes() []string { return r.res().Warnings }

// ExitCode is 0.
func (r *bundleReport) ExitCode() int { return r.res().ExitCode() }

// OutputFiles is the -o file, when asked for.
func (r *bundleReport) OutputFiles() []OutputFile {
	if r.Output == "" {
		return nil
	}
	data, err := r.res().OutputData()
	if err != nil {
		return nil
	}
	return []OutputFile{{Path: r.Output, Data: data}}
}

func runBundle(ctx context.Context, env *Env, in *BundleInput) (*bundleReport, error) {
	draft := schema.Draft2020
	if in.Draft != "" {
		d, ok := schema.DraftByName(in.Draft)
		if !ok {
			return nil, fmt.Errorf("unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", in.Draft)
		}
		draft = d
	}
	a, err := OpenSchemaArg(env, in.Schema, "schema")
	if err != nil {
		return nil, err
	}
	var doc *source.Document
	if ptr := a.Doc.Pointer; ptr != "" {
		// A schema inside a document: it becomes a document of its own, with what it
		// references in its document, and is bundled as one.
		s, err := a.Compile(env, SchemaOptions{Draft: in.Draft, Ctx: ctx})
		if err != nil {
			return nil, err
		}
		if doc, err = bundle.Extract(s, a.URI); err != nil {
			return nil, err
		}
		doc.Name = a.Name + "#" + ptr
	} else {
		if doc, err = schema.ParseDocument(a.parseName, a.Data, env.Limits); err != nil {
			return nil, err
		}
		doc.Name = a.Name
		if ct, ok := schema.ContainerOf(doc.Root); ok {
			return nil, fmt.Errorf("%s is an %s document, not a schema: bundle reads schema documents; name one of its schemas "+
				"by JSON Pointer (%s#/components/schemas/NAME; jstk catalog lists them)", doc.Name, ct.Describe(), doc.Name)
		}
	}
	loader := env.loader()
	// The schema must be valid and its references resolvable before it is bundled.
	c := schema.NewCompiler(&schema.Options{Loader: loader, Draft: draft, Context: ctx})
	if err := c.AddDocument(a.URI, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(a.URI)
	if err != nil {
		return nil, err
	}
	res, err := bundle.Bundle(ctx, doc.Name, a.URI, doc, &bundle.Options{Loader: loader, Draft: draft, Compiled: compiled})
	if err != nil {
		return nil, err
	}
	res.Output = in.Output
	return (*bundleReport)(res), nil
}
