package catalog

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/schema"
)

// metaCache compiles each meta-schema once per scan.
type metaCache struct {
	mu sync.Mutex
	m  map[string]*metaResult
}

type metaResult struct {
	s   *schema.Schema
	err error
}

// get compiles the meta-schema at uri: a built-in one, or a custom meta-schema found
// through the workspace loader (not itself checked against its own meta-schema, as the
// schema package does).
func (mc *metaCache) get(uri string, loader *schema.Loader) (*schema.Schema, error) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if r, ok := mc.m[uri]; ok {
		return r.s, r.err
	}
	opts := &schema.Options{NoMetaValidation: true}
	if _, _, err := builtins.Load(uri); err != nil {
		opts.Loader = loader
	}
	s, err := schema.NewCompiler(opts).Compile(uri)
	mc.m[uri] = &metaResult{s, err}
	return s, err
}

// maxCauses bounds the explanations kept under one meta-schema violation.
const maxCauses = 3

// checkOne checks a schema against its meta-schema, then, when it is valid, compiles it
// (without checking it again) and records the documents the compiled schema reaches.
func (w *Workspace) checkOne(s *schemaDoc, loader *schema.Loader, metas *metaCache) {
	f := s.file
	if f.doc == nil {
		return // unparsable: Valid and Compiles stay false, analyze said why
	}
	fileURI := schema.FileURI(w.fsys.Abs(f.path))
	metaURI := schema.Draft2020.URL
	if f.hasMeta {
		u, _, err := schema.ResolveURI(fileURI, f.dialect)
		if err != nil {
			s.metaProblem("/$schema", fmt.Sprintf("$schema %q is not a URI: %v", f.dialect, err))
			return
		}
		metaURI = u
	}
	meta, err := metas.get(metaURI, loader)
	if err != nil {
		if errors.Is(err, schema.ErrUnresolved) {
			s.metaProblem("/$schema", fmt.Sprintf("$schema %q names a dialect jstk cannot check against "+
				"(it knows drafts 4, 6, 7, 2019-09 and 2020-12, and meta-schemas of the workspace)", f.dialect))
		} else {
			s.metaProblem("/$schema", fmt.Sprintf("cannot load the meta-schema %s: %s", metaURI, firstLine(err.Error())))
		}
		return
	}
	errs, err := meta.Validate(f.doc.Root)
	if err != nil {
		s.metaProblem("", fmt.Sprintf("checking against the meta-schema %s: %v", metaURI, err))
		return
	}
	for _, e := range errs {
		line, col := f.doc.Locate(e.InstanceLocation)
		s.metaErrs = append(s.metaErrs, Problem{Line: line, Column: col, Pointer: e.InstanceLocation, Message: explain(e)})
	}
	s.entry.Valid = len(errs) == 0
	if !s.entry.Valid {
		p := s.metaErrs[0]
		s.entry.Problem = fmt.Sprintf("not valid against its meta-schema %s: %d problem(s); the first at %s: %s",
			metaURI, len(errs), at(p), p.Message)
		return // an invalid schema does not compile; its violations say why
	}

	c := schema.NewCompiler(&schema.Options{Loader: loader, NoMetaValidation: true})
	var root *schema.Schema
	if err = c.AddDocument(fileURI, f.doc); err == nil {
		root, err = c.Compile(fileURI)
	}
	if err != nil {
		p := Problem{Message: firstLine(err.Error())}
		var se *schema.SchemaError
		if errors.As(err, &se) {
			if se.File == f.path {
				p = Problem{Line: se.Line, Column: se.Column, Pointer: se.Pointer, Message: firstLine(se.Msg)}
			} else {
				s.compileFile = se.File
			}
		}
		s.compile = &p
		s.entry.Problem = "does not compile: " + located(p)
		return
	}
	s.entry.Draft = root.Draft.Name
	reached := map[string]bool{}
	schema.Walk(root, func(x *schema.Schema) bool {
		if file, _ := x.Pointer(); file != "" && file != f.path {
			reached[file] = true
		}
		return true
	})
	s.reached = sortedKeys(reached)
}

// metaProblem records that a schema could not be checked against its meta-schema.
func (s *schemaDoc) metaProblem(ptr, msg string) {
	line, col := s.file.doc.LocateKey(ptr)
	p := Problem{Line: line, Column: col, Pointer: ptr, Message: msg}
	s.metaErrs = append(s.metaErrs, p)
	s.entry.Problem = located(p)
}

// finishCompiles decides Compiles once every schema is checked: a schema compiles when it
// is valid, compiled, and every workspace document it reaches is valid.
func (w *Workspace) finishCompiles() {
	for _, s := range w.schemas {
		if t, ok := w.byPath[s.compileFile]; ok && s.entry.Valid && !t.entry.Valid {
			s.compile = nil // the compiler stopped at a referenced schema that is not valid: say so
			s.reached = []string{t.file.path}
		}
		if !s.entry.Valid || s.compile != nil {
			continue
		}
		s.entry.Compiles = true
		for _, p := range s.reached {
			if t, ok := w.byPath[p]; ok && !t.entry.Valid {
				s.entry.Compiles = false
				s.dependency = p
				s.entry.Problem = fmt.Sprintf("does not compile: it refers to %s, which is not valid against its meta-schema", p)
				break
			}
		}
	}
}

// explain is a meta-schema violation's message with the first explanations of why the
// alternatives of an anyOf or oneOf failed.
func explain(e schema.Error) string {
	msg := e.Message
	if len(e.Causes) == 0 {
		return msg
	}
	var parts []string
	for i, c := range e.Causes {
		if i == maxCauses {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Causes)-maxCauses))
			break
		}
		loc := c.InstanceLocation
		if loc == "" {
			loc = "(root)"
		}
		parts = append(parts, loc+": "+c.Message)
	}
	return msg + " (" + strings.Join(parts, "; ") + ")"
}

// located renders a problem with its position, when it has one.
func located(p Problem) string {
	if p.Line == 0 {
		return p.Message
	}
	return at(p) + ": " + p.Message
}

// at renders a problem's position: "line:column pointer", leaving out what is unknown.
func at(p Problem) string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	if p.Line > 0 {
		return fmt.Sprintf("%d:%d %s", p.Line, p.Column, ptr)
	}
	return ptr
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// sortedProblems orders problems by position.
func sortedProblems(ps []Problem) []Problem {
	out := append([]Problem(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}
