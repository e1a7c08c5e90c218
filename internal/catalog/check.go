package catalog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/partition"
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

// checkOne checks a schema against its meta-schema (compileAll then compiles the valid
// ones).
func (w *Workspace) checkOne(ctx context.Context, halt *schema.Halt, s *schemaDoc, loader *schema.Loader, metas *metaCache) {
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
	errs, err := meta.ValidateContext(ctx, f.doc.Root)
	if err != nil {
		halt.Note(err)
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
}

// compileAll compiles the schemas that are valid against their meta-schema and sets, for
// each, the first invalid file it reaches (see firstInvalidReached).
//
// The schemas are compiled one group at a time: a group is a set of schemas that refer to
// each other, directly or not (a connected component of the workspace's references). Within
// a group they are compiled one after the other with one compiler (the loader shares the
// workspace's parsed documents): what one compile built, the documents a schema reaches and
// their compiled subschemas, serves the next, so schemas that refer to each other in rings
// or cliques are compiled in time proportional to the workspace, not to its square (2,000
// schemas in a ring took 100 s, each compiling the whole ring again). Between groups nothing
// is kept but the verdicts: compiled whole, SchemaStore's 801 schemas (34 MB) made a heap
// of 427 MB.
//
// The verdicts are those of compiling each schema on its own. A compile that fails is
// done again by a compiler of its own (what another schema's compile registered, a $id
// declared twice for instance, must not make it fail), and the next schema gets a new
// compiler (what the failed attempt loaded must not change its verdict either). When a
// reference of the workspace names a $id that another file declares inside itself, or a
// $id is declared by two files, a schema could resolve through what an earlier compile
// registered where it would not on its own: then every schema gets a compiler of its own.
// A reference the scan could not follow only costs time: the compiler loads what it needs
// whatever the group.
func (w *Workspace) compileAll(ctx context.Context, loader *schema.Loader) error {
	shared := w.sharedCompileSafe()
	var invalid []string
	for _, s := range w.schemas {
		if !s.entry.Valid {
			invalid = append(invalid, s.file.path)
		}
	}
	sort.Strings(invalid)
	for _, group := range w.referenceGroups() {
		roots := map[*schemaDoc]*schema.Schema{}
		var c *schema.Compiler
		for _, s := range group {
			if !s.entry.Valid {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if c == nil || !shared {
				c = schema.NewCompiler(&schema.Options{Loader: loader, NoMetaValidation: true, Context: ctx})
			}
			f := s.file
			uri := schema.FileURI(w.fsys.Abs(f.path))
			root, err := c.Compile(uri)
			if err != nil && shared && !runStopped(ctx, err) {
				c = nil
				root, err = schema.NewCompiler(&schema.Options{Loader: loader, NoMetaValidation: true, Context: ctx}).Compile(uri)
			}
			if err != nil && runStopped(ctx, err) {
				// Cancelled, or out of the run's time or pattern budget: no verdict on the
				// schema (recorded, it was kept in the session's cache and repeated).
				return err
			}
			if err != nil {
				c = nil
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
				continue
			}
			s.entry.Draft = root.Draft.Name
			roots[s] = root
		}
		firstInvalidReached(group, roots, invalid)
	}
	return nil
}

// referenceGroups returns the schemas in groups that refer to each other (the connected
// components of the references the scan resolved to other schemas of the workspace), each
// in the workspace's order, the groups in the order of their first schema.
func (w *Workspace) referenceGroups() [][]*schemaDoc {
	index := make(map[*schemaDoc]int, len(w.schemas))
	for i, s := range w.schemas {
		index[s] = i
	}
	sets := partition.New(len(w.schemas))
	for i, s := range w.schemas {
		for _, r := range s.refs {
			if r.Target == nil || r.Target.Path == "" {
				continue
			}
			if t, ok := w.byPath[r.Target.Path]; ok {
				sets.Join(i, index[t])
			}
		}
	}
	var groups [][]*schemaDoc
	for _, items := range sets.Groups() {
		g := make([]*schemaDoc, len(items))
		for k, i := range items {
			g[k] = w.schemas[i]
		}
		groups = append(groups, g)
	}
	return groups
}

// runStopped reports whether a compile failed because its run ended (cancelled, or out of
// its time or pattern budget) rather than because of the schema.
func runStopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || schema.IsStopped(err)
}

// sharedCompileSafe reports whether one compiler may serve every schema of the
// workspace (see compileAll): no URI is declared by two files, and no reference names a
// URI that another file declares with an embedded $id.
func (w *Workspace) sharedCompileSafe() bool {
	owner := map[string]string{} // resource URI -> the file declaring it
	embedded := map[string]bool{}
	for _, s := range w.schemas {
		for uri, ri := range s.res {
			if p, ok := owner[uri]; ok && p != s.file.path {
				return false
			}
			owner[uri] = s.file.path
			if ri.ptr != "" {
				embedded[uri] = true
			}
		}
	}
	for _, s := range w.schemas {
		for _, r := range s.refs {
			if p, ok := owner[r.uri]; ok && p != s.file.path && embedded[r.uri] {
				return false
			}
		}
	}
	return true
}

// firstInvalidReached sets, for each compiled schema that reaches (through its subschemas
// and references) a schema of a file that is not valid against its meta-schema, the first
// such file in name order: it then does not compile. Rather than walking from every root,
// which costs the square of the workspace when schemas reach each other, it walks the
// graph of compiled schemas once backwards from each invalid file in name order, marking
// what reaches it; a schema marked is not walked again (what reaches it reaches an earlier
// file already).
func firstInvalidReached(group []*schemaDoc, roots map[*schemaDoc]*schema.Schema, invalid []string) {
	if len(invalid) == 0 || len(roots) == 0 {
		return
	}
	// The compiled schemas, each once, with the edges reversed.
	preds := map[*schema.Schema][]*schema.Schema{}
	byFile := map[string][]*schema.Schema{}
	seen := map[*schema.Schema]bool{}
	var stack []*schema.Schema
	for _, s := range group {
		if r := roots[s]; r != nil && !seen[r] {
			seen[r] = true
			stack = append(stack, r)
		}
	}
	var kids []schema.Child
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if file, _ := x.Pointer(); file != "" {
			byFile[file] = append(byFile[file], x)
		}
		edge := func(y *schema.Schema) {
			if y == nil {
				return
			}
			preds[y] = append(preds[y], x)
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
		kids = x.AppendChildren(kids[:0])
		for _, k := range kids {
			edge(k.Schema)
		}
		edge(x.Ref())
		t, _ := x.DynamicRef()
		edge(t)
	}
	mark := map[*schema.Schema]string{}
	for _, file := range invalid {
		queue := byFile[file]
		for _, x := range queue {
			if _, ok := mark[x]; !ok {
				mark[x] = file
			}
		}
		var next []*schema.Schema
		for _, x := range queue {
			if mark[x] == file {
				next = append(next, x)
			}
		}
		for len(next) > 0 {
			x := next[len(next)-1]
			next = next[:len(next)-1]
			for _, p := range preds[x] {
				if _, ok := mark[p]; !ok {
					mark[p] = file
					next = append(next, p)
				}
			}
		}
	}
	for s, r := range roots {
		if file, ok := mark[r]; ok && file != s.file.path {
			s.reached = []string{file}
		}
	}
}

// metaProblem records that a schema could not be checked against its meta-schema.
func (s *schemaDoc) metaProblem(ptr, msg string) {
	line, col := s.file.doc.LocateKey(ptr)
	p := Problem{Line: line, Column: col, Pointer: ptr, Message: msg}
	s.metaErrs = append(s.metaErrs, p)
	s.entry.Problem = located(p)
}

// finishCompiles decides Compiles once every schema is checked: a schema compiles when it
// is valid, compiled, and every workspace document it reaches is valid (reached holds the
// first one that is not, see firstInvalidReached).
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
