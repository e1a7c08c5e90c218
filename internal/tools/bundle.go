package tools

import (
	"context"
	"fmt"
	"io"

	"github.com/jstk-dev/jstk/internal/bundle"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
)

// BundleInput are the arguments of bundle.
type BundleInput struct {
	Schema Doc    `json:"schema" cli:"arg" role:"schema" pointer:"-" brief:"-" desc:"The schema to bundle, with everything it references."`
	Draft  string `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"For documents without $schema" desc:"Read documents that have no $schema as this draft (default 2020-12)."`
	Output string `json:"output,omitempty" cli:"only" short:"o" desc:"Write the bundled schema to this file instead of standard output (YAML when the name ends in .yaml or .yml)."`
}

func init() {
	register(define(Descriptor{
		Name:        "bundle",
		Title:       "Bundle a schema",
		Summary:     "bundle a schema and everything it references into one self-contained document",
		Usage:       "[-o FILE] [--format json|yaml] SCHEMA",
		Formats:     []string{"yaml"},
		Description: "Answers: what is this schema as one self-contained document? Use it before publishing a schema that references other files, or for a tool that cannot resolve references. Referenced documents are embedded; the bundle validates as the original.",
	}, runBundle))
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
	if in.Schema.splitPointer(env).Pointer != "" {
		return nil, fmt.Errorf("argument schema: bundle reads whole schema documents; a pointer to a schema inside a document is not supported yet")
	}
	if err := in.Schema.check("schema"); err != nil {
		return nil, err
	}
	data, name, err := in.Schema.bytes(env, "schema")
	if err != nil {
		return nil, err
	}
	doc, err := schema.ParseDocument(name, data, env.Limits)
	if err != nil {
		return nil, err
	}
	doc.Name = in.Schema.label("schema")
	if ct, ok := schema.ContainerOf(doc.Root); ok {
		return nil, fmt.Errorf("%s is an %s document, not a schema: bundle reads schema documents (bundling a schema inside an OpenAPI or AsyncAPI document is not supported yet)",
			doc.Name, ct.Describe())
	}
	uri := schema.FileURI(env.FS.Abs(inlineName))
	if in.Schema.Path != "" && in.Schema.Path != "-" {
		uri = schema.FileURI(env.FS.Abs(in.Schema.Path))
	}
	draft := schema.Draft2020
	if in.Draft != "" {
		d, ok := schema.DraftByName(in.Draft)
		if !ok {
			return nil, fmt.Errorf("unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", in.Draft)
		}
		draft = d
	}
	loader := env.loader()
	// The schema must be valid and its references resolvable before it is bundled.
	c := schema.NewCompiler(&schema.Options{Loader: loader, Draft: draft})
	if err := c.AddDocument(uri, doc); err != nil {
		return nil, err
	}
	compiled, err := c.Compile(uri)
	if err != nil {
		return nil, err
	}
	res, err := bundle.Bundle(ctx, doc.Name, uri, doc, &bundle.Options{Loader: loader, Draft: draft, Compiled: compiled})
	if err != nil {
		return nil, err
	}
	res.Output = in.Output
	return (*bundleReport)(res), nil
}
