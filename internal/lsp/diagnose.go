package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync/atomic"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/gitread"
	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// parsed is a document's text parsed: its documents (several for a YAML stream) with the
// byte offset where each starts in the text, or the syntax error.
type parsed struct {
	t      *text
	format source.Format
	docs   []*source.Document
	bases  []int
	err    error
}

// formatOf decides a document's syntax: by its name, else by the editor's language id,
// else by its content.
func formatOf(name, languageID string, data []byte) source.Format {
	if f, ok := source.FormatOf(name); ok {
		return f
	}
	switch strings.ToLower(languageID) {
	case "json":
		return source.JSON
	case "jsonc":
		return source.JSONC
	case "yaml":
		return source.YAML
	case "toml":
		return source.TOML
	}
	return source.Sniff(data)
}

// parse parses t as the document d.
func parse(d *document, t *text, lim *source.Limits) *parsed {
	data := t.b
	p := &parsed{t: t, format: formatOf(d.name, d.languageID, data)}
	p.docs, p.err = source.Parse(d.name, data, p.format, lim)
	for _, doc := range p.docs {
		base := 0
		if doc.Line > 1 && doc.Line <= len(t.lines) {
			base = t.lines[doc.Line-1]
			// A document's text starts at its line unless the separator shares it.
			if head := doc.Source(); !bytes.HasPrefix(data[base:], head[:min(len(head), 32)]) {
				if i := bytes.Index(data[base:], head[:min(len(head), 32)]); i >= 0 {
					base += i
				}
			}
		}
		p.bases = append(p.bases, base)
	}
	return p
}

// docAt is the index of the document holding byte offset off.
func (p *parsed) docAt(off int) int {
	i := 0
	for j, b := range p.bases {
		if b <= off {
			i = j
		}
	}
	return i
}

// diagnose computes d's diagnostics for the text t: a syntax error alone, or what
// validate reports for an instance, or what lint reports for a schema. It returns the
// schema used, if any.
func (s *Server) diagnose(ctx context.Context, snap snapshot, d *document, t *text) ([]Diagnostic, string) {
	if int64(len(t.s)) > s.opts.MaxDocumentSize {
		return []Diagnostic{{Severity: SeverityError, Source: "jstk", Code: "too-large",
			Message: fmt.Sprintf("the document is %d bytes, over jstk's limit of %d bytes: it is not checked", len(t.s), s.opts.MaxDocumentSize)}}, ""
	}
	p := parse(d, t, snap.env.Limits)
	s.mu.Lock()
	if d.text == t {
		d.parsed = p // requests at this version use it
	}
	s.mu.Unlock()
	if p.err != nil {
		return []Diagnostic{syntaxDiagnostic(t, p.err)}, ""
	}
	var first *source.Document
	if len(p.docs) > 0 {
		first = p.docs[0]
	}
	a := snap.assoc.Associate(d.name, t.b, first)
	switch {
	case a.Problem != "" && a.Schema == "" && !a.IsSchema:
		return []Diagnostic{{Range: Range{Start: t.position(a.Start), End: t.position(a.End)}, Severity: SeverityWarning,
			Source: "jstk", Code: "schema", Message: a.Problem}}, ""
	case a.IsSchema:
		if p.format == source.TOML {
			return nil, ""
		}
		return s.lintDiagnostics(ctx, snap, d, p), ""
	case a.Schema != "":
		return s.validateDiagnostics(ctx, snap, d, p, a), a.Schema
	}
	return nil, ""
}

// syntaxDiagnostic is the parser's error where it says.
func syntaxDiagnostic(t *text, err error) Diagnostic {
	var se *source.Error
	r := Range{}
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
		if se.Line > 0 {
			off := t.fromLineCol(se.Line, max(se.Column, 1))
			r = Range{Start: t.position(off), End: t.position(off + runeLen(t.s, off))}
		}
	}
	return Diagnostic{Range: r, Severity: SeverityError, Source: "jstk", Code: "syntax", Message: msg}
}

// runeLen is the length of the character at off (0 at the end of the text).
func runeLen(s string, off int) int {
	for i := off + 1; i <= len(s); i++ {
		if i == len(s) || s[i]&0xC0 != 0x80 {
			return i - off
		}
	}
	return 0
}

// validateDiagnostics validates the document's parsed documents as jstk validate does:
// the schema loaded as the validate tool loads it (the same cache, resolve map, $id index),
// each document checked by validate.Document, with the tool's time limit and pattern
// budget per run.
func (s *Server) validateDiagnostics(ctx context.Context, snap snapshot, d *document, p *parsed, a Association) []Diagnostic {
	sch, err := tools.LoadSchema(snap.env, tools.PathDoc(a.Schema), "schema", tools.SchemaOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return []Diagnostic{s.associationProblem(p.t, a, err)}
	}
	ctx, cancel := schema.WithTimeout(ctx, snap.env.Timeout)
	defer cancel()
	ctx = schema.WithRegexBudget(ctx, schema.DefaultRegexBudget)
	var ds []diag.Diagnostic
	for i, doc := range p.docs {
		line := 0
		if i > 0 || doc.Line > 1 {
			line = doc.Line
		}
		in, err := validate.Document(ctx, sch, d.name, line, doc, 0)
		if err != nil {
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil // superseded
			}
			ds = append(ds, diag.Diagnostic{Code: "validate/stopped", Severity: diag.Error, Message: schema.Stopped(ctx, err).Error()})
			break
		}
		ds = append(ds, validate.InstanceDiagnostics(&in)...)
	}
	out := s.convert(p, ds, true)
	ptrs := make([]string, len(ds))
	for i, x := range ds {
		ptrs[i] = x.Pointer
	}
	s.didYouMean(p, a.Schema, ptrs, out)
	return out
}

// associationProblem is the one diagnostic of a schema that cannot be read or compiled,
// where the association is written (the $schema value, the modeline) or at the top.
func (s *Server) associationProblem(t *text, a Association, err error) Diagnostic {
	r := Range{Start: t.position(a.Start), End: t.position(a.End)}
	msg := err.Error()
	if a.Why == tools.ConfigFile {
		msg = fmt.Sprintf("%s (the schema %s maps to this file at line %d)", msg, tools.ConfigFile, a.ConfigLine)
	}
	return Diagnostic{Range: r, Severity: SeverityError, Source: "jstk", Code: "schema", Message: msg}
}

// lintDiagnostics runs lint, as jstk lint runs it, on the schema document.
func (s *Server) lintDiagnostics(ctx context.Context, snap snapshot, d *document, p *parsed) []Diagnostic {
	desc, _ := tools.Lookup("lint")
	in := &tools.LintInput{Schemas: []tools.Doc{tools.PathDoc(d.name)}}
	rep, err := desc.Run(ctx, snap.env, in)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return []Diagnostic{{Severity: SeverityError, Source: "jstk", Code: "lint", Message: err.Error()}}
	}
	ds := rep.Diagnostics()
	out := s.convert(p, ds, false)
	schemaDidYouMean(p, ds, out)
	// The fixes: the report's JSON form is jstk lint --format json's, findings in the order
	// of its diagnostics (after the unreadable documents, which a parsed document has none of).
	var r struct {
		Findings []lint.Finding `json:"findings"`
		Problems []lint.Problem `json:"problems"`
	}
	if b, err := json.Marshal(rep); err == nil && json.Unmarshal(b, &r) == nil && len(r.Problems) == 0 && len(r.Findings) == len(out) {
		lintFixes(p.t, r.Findings, out)
	}
	return append(out, s.breakingDiagnostics(ctx, snap, d, p)...)
}

// headRuns numbers the runs that compare with HEAD, for the names of their old versions.
var headRuns atomic.Int64

// breakingDiagnostics compares a schema being edited with its version at git's HEAD, as
// jstk diff does (backward: new readers must accept the data old readers accepted), and
// reports each change that breaks or may break compatibility where it is, with the
// instance that proves it. Nothing when the file is not committed or is unchanged, or when
// jstk.json's lsp.breakingChanges is "off" (and in an untrusted workspace).
func (s *Server) breakingDiagnostics(ctx context.Context, snap snapshot, d *document, p *parsed) []Diagnostic {
	if snap.breaking == "off" || p.format == source.TOML {
		return nil
	}
	old, err := gitread.Head(s.opts.FS, d.name)
	if err != nil {
		if !errors.Is(err, gitread.ErrNotCommitted) {
			s.logf("%s: reading its version at HEAD: %v", d.name, err)
		}
		return nil
	}
	if string(old) == p.t.s {
		return nil
	}
	// The old version is read as a file beside the new one (its relative references
	// resolve as the new one's do), which only the server's FS holds.
	oldName := path.Join(path.Dir(d.name), fmt.Sprintf(".jstk-HEAD-%d-%s", headRuns.Add(1), path.Base(d.name)))
	s.overlay.set(oldName, string(old))
	defer s.overlay.remove(oldName)
	desc, _ := tools.Lookup("diff")
	rep, err := desc.Run(ctx, snap.env, &tools.DiffInput{Old: tools.PathDoc(oldName), New: tools.PathDoc(d.name),
		Direction: "backward", SearchBudget: 300})
	if err != nil {
		if ctx.Err() == nil {
			s.logf("%s: comparing with HEAD: %v", d.name, err)
		}
		return nil
	}
	sev := SeverityInformation
	if snap.breaking == "warning" {
		sev = SeverityWarning
	}
	var keep []diag.Diagnostic
	for _, x := range rep.Diagnostics() {
		if (x.Severity == diag.Error || x.Severity == diag.Warning) && x.File == d.name {
			x.Message = "breaks compatibility with the version at HEAD: " + x.Message
			x.Related = nil
			keep = append(keep, x)
		}
	}
	out := s.convert(p, keep, false)
	for i := range out {
		out[i].Severity = sev
		out[i].Code = "breaking/" + strings.TrimPrefix(keep[i].Code, "diff/")
	}
	return out
}

// convert turns the engine's diagnostics into the editor's: the range of the value (or
// member name) at the engine's line and column, the keyword (validate) or rule (lint) as
// the code, the related places as locations.
func (s *Server) convert(p *parsed, ds []diag.Diagnostic, validate bool) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	files := map[string]*text{}
	for _, x := range ds {
		r := s.rangeOf(p, x.Line, x.Column, x.Pointer)
		code := x.Code
		if validate && x.Keyword != "" {
			code = x.Keyword
		} else {
			code = strings.TrimPrefix(strings.TrimPrefix(code, "lint/"), "validate/")
		}
		msg := x.Message
		if validate && x.Line == 0 && x.Code == "validate/unreadable" {
			msg = x.Message
		}
		dg := Diagnostic{Range: r, Severity: severity(x.Severity), Code: code, Source: "jstk", Message: msg}
		for _, rel := range x.Related {
			loc, ok := s.relatedLocation(p, rel, files)
			if ok {
				dg.RelatedInformation = append(dg.RelatedInformation, DiagnosticRelatedInformation{Location: loc, Message: rel.Message})
			}
		}
		out = append(out, dg)
	}
	return out
}

func severity(s diag.Severity) int {
	switch s {
	case diag.Error:
		return SeverityError
	case diag.Warning:
		return SeverityWarning
	case diag.Info:
		return SeverityInformation
	}
	return SeverityHint
}

// rangeOf is the range of the diagnostic at line and column (1-based, code points) about
// the value at ptr: the whole value when the position is the value's, else the token
// there (a member name).
func (s *Server) rangeOf(p *parsed, line, col int, ptr string) Range {
	t := p.t
	if line == 0 {
		return Range{}
	}
	start := t.fromLineCol(line, max(col, 1))
	end := tokenEnd(t.b, start)
	if len(p.docs) > 0 {
		i := p.docAt(start)
		doc, base := p.docs[i], p.bases[i]
		// The value's whole range, but for the root, which would cover the document:
		// its first token there.
		if v, ok := doc.Root.Pointer(ptr); ok && base+v.Offset() == start && ptr != "" {
			end = base + valueEnd(doc.Source(), v)
		} else if ok && base+v.Offset() == start {
			end = start + max(runeLen(t.s, start), 0)
		}
	}
	return Range{Start: t.position(start), End: t.position(end)}
}

// relatedLocation places a related piece of information: in the document itself, or in
// another file (the schema), whose text is read once per run.
func (s *Server) relatedLocation(p *parsed, rel diag.Related, files map[string]*text) (Location, bool) {
	name := rel.File
	if name == "" || name == p.docsName() {
		r := s.rangeOf(p, rel.Line, rel.Column, rel.Pointer)
		return Location{URI: s.uriOf(p.docsName()), Range: r}, true
	}
	t, ok := files[name]
	if !ok {
		data, err := workspace.ReadFile(s.overlay, name, s.opts.MaxDocumentSize)
		if err == nil {
			t = newText(string(data))
		}
		files[name] = t
	}
	if t == nil || rel.Line == 0 {
		return Location{URI: s.uriOf(name)}, true
	}
	off := t.fromLineCol(rel.Line, max(rel.Column, 1))
	return Location{URI: s.uriOf(name), Range: Range{Start: t.position(off), End: t.position(tokenEnd(t.b, off))}}, true
}

func (p *parsed) docsName() string {
	if len(p.docs) == 0 {
		return ""
	}
	return p.docs[0].Name
}
