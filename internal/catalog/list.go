package catalog

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/openapi"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Query selects and pages the catalog.
type Query struct {
	// Text holds case-insensitive terms; a schema matches when each term occurs in its id,
	// path, title or description.
	Text string
	// Paths restrict the catalog to files, directories and glob patterns ("*", "?",
	// "[...]", and "**" for any number of directories) of the workspace.
	Paths []string
	// Problems keeps only the schemas that are not valid or do not compile.
	Problems bool
	// Offset skips schemas of the list; Limit (when > 0) keeps at most this many.
	Offset, Limit int
}

// Listing is the compact catalog: the schemas matching a query, in path order.
type Listing struct {
	// Query and Paths repeat the selection.
	Query string   `json:"query,omitempty"`
	Paths []string `json:"paths,omitempty"`
	// Schemas are the matching schemas (one page of them).
	Schemas []Entry `json:"schemas"`
	// Matched counts the matching schemas, on every page.
	Matched int `json:"matched"`
	// Page is set when the list was cut by offset or limit.
	Page *diag.Page `json:"page,omitempty"`
	// Documents are the OpenAPI and AsyncAPI documents matching the query, with the schemas
	// they hold (name one with PATH#POINTER).
	Documents []APIDocument `json:"documents,omitempty"`
	// Notes explain named files that are not in the catalog.
	Notes []string `json:"notes,omitempty"`
	// Workspace describes the whole scan.
	Workspace Scanned `json:"workspace"`

	diags []diag.Diagnostic
}

// List answers a query. An error means the selection itself is wrong: a named path that
// does not exist or lies outside the workspace, or a malformed pattern.
func (w *Workspace) List(q Query) (*Listing, error) {
	if q.Offset < 0 || q.Limit < 0 {
		return nil, fmt.Errorf("offset and limit must not be negative")
	}
	sel, notes, err := w.selection(q.Paths)
	if err != nil {
		return nil, err
	}
	terms := strings.Fields(strings.ToLower(q.Text))
	l := &Listing{Query: q.Text, Paths: q.Paths, Schemas: []Entry{}, Notes: notes, Workspace: w.scanned}
	var matched []*schemaDoc
	for _, s := range w.schemas {
		if sel != nil && !sel(s.file.path) {
			continue
		}
		if q.Problems && s.entry.Valid && s.entry.Compiles {
			continue
		}
		if !matchesAll(s.search, terms) {
			continue
		}
		matched = append(matched, s)
	}
	l.Matched = len(matched)
	start := min(q.Offset, len(matched))
	end := len(matched)
	if q.Limit > 0 && start+q.Limit < end {
		end = start + q.Limit
	}
	if start > 0 || end < len(matched) {
		l.Page = &diag.Page{Offset: q.Offset, Limit: q.Limit, Total: len(matched), Omitted: len(matched) - (end - start)}
	}
	for _, s := range matched[start:end] {
		l.Schemas = append(l.Schemas, s.entry)
		l.diags = append(l.diags, s.diagnostics()...)
	}
	for _, name := range sortedKeys(w.files) {
		f := w.files[name]
		if f.api == nil || (sel != nil && !sel(name)) || !matchesAll(f.api.search, terms) {
			continue
		}
		l.Documents = append(l.Documents, *f.api)
	}
	return l, nil
}

// APIDocument is an OpenAPI or AsyncAPI document of the workspace: not a schema, a holder of
// schemas.
type APIDocument struct {
	// Path is the file.
	Path string `json:"path"`
	// Kind is "openapi", "asyncapi" or "swagger"; Version the version it declares.
	Kind string `json:"kind"`
	// Version is the version the document declares.
	Version string `json:"version"`
	// Schemas are the schemas it holds (the first 50); Count counts them all.
	Schemas []APISchema `json:"schemas"`
	// Count is the number of schemas it holds.
	Count int `json:"count"`

	search string
}

// APISchema is one schema of an OpenAPI or AsyncAPI document.
type APISchema struct {
	// ID names it for the tools that take a schema (validate, lint, bundle, sample,
	// coverage, diff, schema_context): PATH#POINTER.
	ID string `json:"id"`
	// Name says where it is: "component schema Pet", "POST /pets request body
	// application/json".
	Name string `json:"name"`
}

// maxAPISchemas bounds the schemas listed per document.
const maxAPISchemas = 50

func apiDocument(path string, d *openapi.Document) *APIDocument {
	a := &APIDocument{Path: path, Kind: d.Kind.Kind, Version: d.Kind.Version, Schemas: []APISchema{}}
	var sb strings.Builder
	sb.WriteString(strings.ToLower(path + " " + d.Kind.Describe()))
	for _, it := range d.Schemas() {
		a.Count++
		if len(a.Schemas) < maxAPISchemas {
			a.Schemas = append(a.Schemas, APISchema{ID: path + "#" + it.Schema, Name: it.Name})
		}
	}
	a.search = sb.String()
	return a
}

func matchesAll(text string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

// selection turns the paths of a query into a filter on workspace paths (nil: everything),
// with notes on named files that are not schemas.
func (w *Workspace) selection(paths []string) (func(string) bool, []string, error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	var files = map[string]bool{}
	var dirs []string
	var globs [][]string
	var notes []string
	for _, arg := range paths {
		p := filepath.ToSlash(arg)
		if path.IsAbs(p) {
			rel, ok := w.fsys.Rel(p)
			if !ok {
				return nil, nil, fmt.Errorf("%s: path is outside the workspace", arg)
			}
			p = rel
		}
		p = path.Clean(p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, nil, fmt.Errorf("%s: path climbs out of the workspace", arg)
		}
		if workspace.IsGlob(p) {
			segs := strings.Split(p, "/")
			for _, s := range segs {
				if _, err := path.Match(s, ""); err != nil && s != "**" {
					return nil, nil, fmt.Errorf("%s: invalid pattern: %v", arg, err)
				}
			}
			globs = append(globs, segs)
			continue
		}
		fi, err := w.fsys.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if fi.IsDir() {
			if p == "." {
				return nil, nil, nil
			}
			dirs = append(dirs, p+"/")
			if hiddenPath(p) {
				notes = append(notes, fmt.Sprintf("%s: not scanned (hidden directories and node_modules are skipped)", arg))
			}
			continue
		}
		files[p] = true
		if _, ok := w.byPath[p]; !ok {
			notes = append(notes, fmt.Sprintf("%s: not in the catalog: %s", arg, w.whyNot(p)))
		}
	}
	return func(name string) bool {
		if files[name] {
			return true
		}
		for _, d := range dirs {
			if strings.HasPrefix(name, d) {
				return true
			}
		}
		for _, g := range globs {
			if workspace.MatchSegments(g, strings.Split(name, "/")) { // as every glob of jstk: "*" does not match a leading dot
				return true
			}
		}
		return false
	}, notes, nil
}

// whyNot says why an existing file is not in the catalog.
func (w *Workspace) whyNot(name string) string {
	f, ok := w.files[name]
	switch {
	case !ok && hiddenPath(name):
		return "not scanned (hidden directories and node_modules are skipped)"
	case !ok && !hasExt(name):
		return "not scanned (only .json, .yaml and .yml files are)"
	case !ok && name == ConfigFile:
		return "it is the workspace configuration"
	case !ok:
		for _, s := range w.scanned.Skipped {
			if s.Path == name {
				return "not read: " + s.Reason
			}
		}
		return "not read (the scan was cut, or the file is new)"
	case f.err != nil:
		return unreadable(f)
	case f.rootKind != source.Object && f.rootKind != source.Bool:
		return "its root is " + kindArticle(f.rootKind)
	case f.api != nil:
		return fmt.Sprintf("it is an %s document: its schemas are listed under documents, each named PATH#POINTER", describeAPI(f.api))
	case f.kind == "instance":
		return fmt.Sprintf("its $schema %q names a schema, not a meta-schema, so it is an instance", f.dialect)
	}
	return "it has no $schema naming a JSON Schema dialect, its name does not end in .schema.json/.yaml/.yml, " +
		"it is not made of schema keywords, and no schema refers to it"
}

func hiddenPath(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "node_modules" || (strings.HasPrefix(seg, ".") && seg != "." && seg != "..") {
			return true
		}
	}
	return false
}

func hasExt(name string) bool {
	lower := strings.ToLower(name)
	for _, e := range scanExts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// diagnostics are a schema's problems as diagnostics.
func (s *schemaDoc) diagnostics() []diag.Diagnostic {
	e := s.entry
	switch {
	case s.file.err != nil:
		p := s.metaErrs[0]
		return []diag.Diagnostic{{Code: "catalog/unparsable", Severity: diag.Error, Message: p.Message, File: e.Path,
			Line: p.Line, Column: p.Column}}
	case !e.Valid:
		var out []diag.Diagnostic
		for _, p := range s.metaErrs {
			out = append(out, diag.Diagnostic{Code: "catalog/invalid-schema", Severity: diag.Error,
				Message: p.Message, File: e.Path, Line: p.Line, Column: p.Column, Pointer: p.Pointer})
		}
		return out
	case !e.Compiles:
		d := diag.Diagnostic{Code: "catalog/does-not-compile", Severity: diag.Error, Message: e.Problem, File: e.Path}
		if s.compile != nil {
			d.Line, d.Column, d.Pointer = s.compile.Line, s.compile.Column, s.compile.Pointer
		}
		return []diag.Diagnostic{d}
	}
	return nil
}

// Diagnostics lists the problems of the listed schemas, for SARIF and GitHub output.
func (l *Listing) Diagnostics() []diag.Diagnostic {
	out := append([]diag.Diagnostic{}, l.diags...)
	diag.Sort(out)
	return out
}

// ExitCode is 0: the catalog lists invalid schemas as information (lint and validate are
// the tools that fail on them).
func (l *Listing) ExitCode() int { return 0 }

// PageItems counts the schemas listed (diag.Pager).
func (l *Listing) PageItems() (int, string, string) { return len(l.Schemas), "schema", "schemas" }

// PageRecord is the listing's page record (diag.Pager).
func (l *Listing) PageRecord() *diag.Page { return l.Page }

// KeepFirst is a copy that lists only the first k schemas (diag.Pager).
func (l *Listing) KeepFirst(k, limit int) diag.Report {
	c := *l
	c.Schemas, c.Page = diag.Keep(l.Schemas, k, limit, l.Page)
	return &c
}

func describeAPI(a *APIDocument) string {
	name := map[string]string{"openapi": "OpenAPI", "asyncapi": "AsyncAPI", "swagger": "Swagger"}[a.Kind]
	return name + " " + a.Version
}
