package catalog

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
)

// textWriter keeps the first write error.
type textWriter struct {
	w   *bufio.Writer
	err error
}

func newTextWriter(w io.Writer) *textWriter { return &textWriter{w: bufio.NewWriter(w)} }

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func (t *textWriter) flush() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// maxRefsShown bounds the referenced ids a catalog line names.
const maxRefsShown = 3

// maxAboutText bounds the title and description line of a catalog entry in the text.
const maxAboutText = 120

// WriteText prints the catalog: first the summary (so that it survives when a surface cuts
// a long text), the page and the notes; then per schema its path and id with its draft and
// counts, its title and description, the schemas it refers to, and its problem.
func (l *Listing) WriteText(w io.Writer) error {
	t := newTextWriter(w)
	ws := l.Workspace
	selected := l.Query != "" || len(l.Paths) > 0
	switch {
	case selected:
		t.printf("%s match", diag.Plural(l.Matched, "schema", "schemas"))
		if l.Query != "" {
			t.printf(" %q", l.Query)
		}
		if len(l.Paths) > 0 {
			t.printf(" in %s", strings.Join(l.Paths, ", "))
		}
		t.printf("; the workspace has %s", diag.Plural(ws.Schemas, "schema", "schemas"))
	default:
		t.printf("%s", diag.Plural(l.Matched, "schema", "schemas"))
		if l.Matched != ws.Schemas {
			t.printf(" of %d", ws.Schemas)
		}
	}
	t.printf(" (%d invalid, %d not compiling) in %s read\n", ws.Invalid, ws.Uncompilable, diag.Plural(ws.Files, "file", "files"))
	writeScanNotes(t, ws)
	if l.Page != nil {
		t.printf("(%d of %d schemas shown, from offset %d; ask for more with offset and limit)\n",
			len(l.Schemas), l.Page.Total, l.Page.Offset)
	}
	for _, n := range l.Notes {
		t.printf("note: %s\n", n)
	}
	for _, e := range l.Schemas {
		head := e.Path
		if e.ID != e.Path {
			head += ": " + e.ID
		}
		draft := e.Draft
		if draft == "" {
			draft = "unknown draft"
		}
		facts := []string{draft, diag.Plural(e.Properties, "property", "properties"), diag.Plural(e.Defs, "def", "defs")}
		if e.ReferencedBy > 0 {
			facts = append(facts, "referenced by "+strconv.Itoa(e.ReferencedBy))
		}
		t.printf("%s [%s]\n", head, strings.Join(facts, ", "))
		if about := titleAndDescription(e); about != "" {
			t.printf("    %s\n", oneLine(about, maxAboutText))
		}
		if len(e.References) > 0 {
			refs := e.References
			more := ""
			if len(refs) > maxRefsShown {
				more = fmt.Sprintf(" (and %d more)", len(refs)-maxRefsShown)
				refs = refs[:maxRefsShown]
			}
			t.printf("    refers to %s%s\n", strings.Join(refs, ", "), more)
		}
		writeAppliesTo(t, &e)
		switch {
		case !e.Valid:
			t.printf("    INVALID: %s\n", e.Problem)
		case !e.Compiles:
			t.printf("    DOES NOT COMPILE: %s\n", strings.TrimPrefix(e.Problem, "does not compile: "))
		}
		if len(e.SameID) > 0 {
			t.printf("    SAME ID as %s\n", strings.Join(e.SameID, ", "))
		}
		if e.UnresolvedRefs > 0 && e.Valid && e.Compiles {
			t.printf("    %s\n", diag.Plural(e.UnresolvedRefs, "unresolved reference", "unresolved references"))
		}
	}
	for _, a := range l.Documents {
		t.printf("%s: %s document, %s (name one with %s#POINTER)\n", a.Path, describeAPI(&a), diag.Plural(a.Count, "schema", "schemas"), a.Path)
		for _, sc := range a.Schemas {
			t.printf("    %s  %s\n", strings.TrimPrefix(sc.ID, a.Path), sc.Name)
		}
		if a.Count > len(a.Schemas) {
			t.printf("    ... and %d more\n", a.Count-len(a.Schemas))
		}
	}
	return t.flush()
}

func titleAndDescription(e Entry) string {
	switch {
	case e.Title != "" && e.Description != "":
		return e.Title + ": " + e.Description
	case e.Title != "":
		return e.Title
	}
	return e.Description
}

func writeScanNotes(t *textWriter, ws Scanned) {
	if ws.SkippedCount > 0 {
		t.printf("%s not read:", diag.Plural(ws.SkippedCount, "file", "files"))
		for i, s := range ws.Skipped {
			if i == 3 {
				t.printf(" ...")
				break
			}
			t.printf(" %s (%s);", s.Path, s.Reason)
		}
		t.printf("\n")
	}
	if ws.Cut != "" {
		t.printf("scan cut: %s\n", ws.Cut)
	}
}

// WriteText prints the schema's context: metadata, shape, references both ways, problems,
// and its text. When the id matched nothing, it prints the closest ids (nothing when the id
// was found and its pointer led nowhere); the error itself is the report's Failure, which the surfaces print after the report (tools.Failer).
func (c *Context) WriteText(w io.Writer) error {
	t := newTextWriter(w)
	if !c.Found {
		c.writeCandidates(t)
		return t.flush()
	}
	if c.Pointer != "" {
		t.printf("%s\n", c.ID)
		if c.Document != "" {
			t.printf("in: %s\n", c.Document)
		}
	}
	if e := c.Schema; e != nil {
		c.writeEntry(t, e)
	}
	om := c.Omitted
	if om == nil {
		om = &Omitted{}
	}
	if sh := c.Shape; sh != nil {
		writeShape(t, sh, om)
	}
	c.writeReferences(t, om)
	if n := len(c.Problems) + om.Problems; n > 0 {
		t.printf("problems (%d):\n", n)
		for _, p := range c.Problems {
			t.printf("  %s\n", located(p))
		}
		omitted(t, om.Problems, "problem", "problems")
	}
	if c.Text != "" {
		c.writeSchemaText(t, om)
	}
	return t.flush()
}

// writeCandidates prints the closest ids of an id that matched nothing.
func (c *Context) writeCandidates(t *textWriter) {
	switch {
	case len(c.Candidates) == 0 && c.unknownID:
		t.printf("no schema id or path of the workspace is close to %q\n", c.ID)
	case len(c.Candidates) == 0:
		// The id was found; what failed (a pointer to nothing, an unreadable
		// document) is the error, which follows the report.
	default:
		t.printf("closest schemas (id, then path):\n")
		for _, cd := range c.Candidates {
			if cd.ID == cd.Path {
				t.printf("  %s\n", cd.ID)
			} else {
				t.printf("  %s  (%s)\n", cd.ID, cd.Path)
			}
		}
	}
}

// writeEntry prints the metadata of the schema's catalog entry.
func (c *Context) writeEntry(t *textWriter, e *Entry) {
	if c.Pointer != "" {
		t.printf("in schema: %s\n", e.ID)
	} else {
		t.printf("%s\n", e.ID)
	}
	if e.ID != e.Path {
		t.printf("path: %s\n", e.Path)
	}
	draft := e.Draft
	if draft == "" {
		draft = "unknown"
	}
	t.printf("draft: %s", draft)
	if e.Dialect != "" {
		t.printf(" ($schema %s)", e.Dialect)
	}
	t.printf("\n")
	status := "valid, compiles"
	switch {
	case !e.Valid:
		status = "INVALID: " + e.Problem
	case !e.Compiles:
		status = "valid, DOES NOT COMPILE: " + strings.TrimPrefix(e.Problem, "does not compile: ")
	}
	t.printf("status: %s\n", status)
	t.printf("found by: %s\n", e.DetectedBy)
	if len(e.SameID) > 0 {
		t.printf("same id as: %s\n", strings.Join(e.SameID, ", "))
	}
	if e.Title != "" && c.Pointer == "" {
		t.printf("title: %s\n", e.Title)
	}
	if e.Description != "" && c.Pointer == "" {
		t.printf("description: %s\n", e.Description)
	}
	if e.AppliesToCount > 0 {
		more := ""
		if n := e.AppliesToCount - len(e.AppliesTo); n > 0 {
			more = fmt.Sprintf(" (and %d more)", n)
		}
		t.printf("applies to: %s%s\n", strings.Join(e.AppliesTo, ", "), more)
	}
}

// writeShape prints the schema's shape: its types, required and properties, definitions.
func writeShape(t *textWriter, sh *Shape, om *Omitted) {
	var parts []string
	if len(sh.Type) > 0 {
		parts = append(parts, "type "+strings.Join(sh.Type, "|"))
	}
	if len(sh.Required) > 0 {
		parts = append(parts, "required "+strings.Join(sh.Required, ", "))
	}
	if sh.AdditionalProperties != "" {
		parts = append(parts, "additionalProperties "+sh.AdditionalProperties)
	}
	if len(parts) > 0 {
		t.printf("shape: %s\n", strings.Join(parts, "; "))
	}
	if n := len(sh.Properties) + om.Properties; n > 0 {
		t.printf("properties (%d):\n", n)
		for _, p := range sh.Properties {
			t.printf("%s\n", propertyLine(p))
		}
		omitted(t, om.Properties, "property", "properties")
	}
	if n := len(sh.Defs) + om.Defs; n > 0 {
		t.printf("defs (%d): %s", n, strings.Join(sh.Defs, ", "))
		if om.Defs > 0 {
			t.printf(" (and %d more)", om.Defs)
		}
		t.printf("\n")
	}
}

// propertyLine is the line of one property of a shape.
func propertyLine(p Property) string {
	var kind []string
	if len(p.Type) > 0 {
		kind = append(kind, strings.Join(p.Type, "|"))
	}
	if p.Ref != "" {
		kind = append(kind, "$ref "+p.Ref)
	}
	if p.Required {
		kind = append(kind, "required")
	}
	line := "  " + p.Name
	if len(kind) > 0 {
		line += " (" + strings.Join(kind, ", ") + ")"
	}
	if p.Description != "" {
		line += ": " + p.Description
	}
	return line
}

// writeReferences prints the references from the schema and to it.
func (c *Context) writeReferences(t *textWriter, om *Omitted) {
	if rc := c.RefCounts; rc != nil && rc.Total > 0 {
		t.printf("references (%d: %d to workspace files, %d local, %d to meta-schemas, %d unresolved):\n",
			rc.Total, rc.Workspace, rc.Local, rc.Builtin, rc.Unresolved)
		for _, r := range c.References {
			t.printf("  %d:%d %s: %s -> %s\n", r.Line, r.Column, r.Pointer, r.Ref, describeTarget(r))
		}
		omitted(t, om.References, "reference", "references")
	}
	if n := len(c.ReferencedBy) + om.ReferencedBy; n > 0 {
		from := map[string]bool{}
		for _, in := range c.ReferencedBy {
			from[in.Path] = true
		}
		by := len(from)
		if c.Schema != nil && c.Pointer == "" {
			by = c.Schema.ReferencedBy
		}
		t.printf("referenced by %s (%s):\n", diag.Plural(by, "schema", "schemas"), diag.Plural(n, "reference", "references"))
		for _, in := range c.ReferencedBy {
			t.printf("  %s:%d:%d %s: %s\n", in.Path, in.Line, in.Column, in.Pointer, in.Ref)
		}
		omitted(t, om.ReferencedBy, "reference", "references")
	}
}

// writeSchemaText prints the schema's text, and what of it was cut.
func (c *Context) writeSchemaText(t *textWriter, om *Omitted) {
	of := c.ID
	if c.Schema != nil && c.Pointer == "" {
		of = c.Schema.Path
	}
	t.printf("text of %s:\n%s", of, c.Text)
	if !strings.HasSuffix(c.Text, "\n") {
		t.printf("\n")
	}
	if om.TextCharacters > 0 {
		t.printf("[%d more characters (%d lines) of %s not shown; raise maxText / --max-text]\n", om.TextCharacters, om.TextLines, of)
	}
}

func omitted(t *textWriter, n int, one, many string) {
	if n > 0 {
		t.printf("  ... and %s (raise limit / --limit)\n", diag.Plural(n, "more "+one, "more "+many))
	}
}

// describeTarget renders where a reference leads.
func describeTarget(r Ref) string {
	tg := r.Target
	switch {
	case tg == nil:
		return "UNRESOLVED: " + r.Unresolved
	case tg.Builtin:
		return "built-in meta-schema " + tg.URI
	case tg.Local:
		return "local " + pointerOrRoot(tg.Pointer)
	}
	s := tg.Path
	if tg.Pointer != "" {
		s += "#" + tg.Pointer
	}
	if tg.ID != "" && tg.ID != tg.Path {
		s += " (" + tg.ID + ")"
	}
	return s
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// writeAppliesTo says which workspace files a schema applies to (Entry.AppliesTo).
func writeAppliesTo(t *textWriter, e *Entry) {
	if e.AppliesToCount == 0 {
		return
	}
	more := ""
	if n := e.AppliesToCount - len(e.AppliesTo); n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	t.printf("    applies to %s%s\n", strings.Join(e.AppliesTo, ", "), more)
}
