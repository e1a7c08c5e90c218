package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/lint"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// LintInput are the arguments of lint.
type LintInput struct {
	Schemas []Doc    `json:"schemas,omitempty" role:"schema" brief:"Files, dirs or globs" desc:"The schemas to lint. A path may name a file (JSON or YAML), a directory (its .json/.yaml/.yml files) or a glob pattern."`
	FailOn  string   `json:"failOn,omitempty" enum:"error,warning,info" brief:"Least severity that fails (default warning)" desc:"The least severity that counts as a failure (exit status 1). Default: warning, or lint.failOn in jstk.json."`
	Rules   []string `json:"rules,omitempty" cli:"flag" brief:"RULE=off|on|error|warning|info; RULE: an id, a category or all" desc:"Rule settings RULE=off|on|error|warning|info, where RULE is a rule id, a category (correctness, redundancy, portability, documentation, style) or all; e.g. style=off, unknown-format=error. They apply after lint.rules of jstk.json."`
	Draft   string   `json:"draft,omitempty" enum:"4,6,7,2019-09,2020-12" brief:"For schemas without $schema" desc:"Read schemas that have no $schema as this draft (default 2020-12)."`
	List    bool     `json:"list,omitempty" brief:"List the rules instead" desc:"List the rules (id, category, severity, whether enabled) instead of linting."`
	Fix     bool     `json:"fix,omitempty" cli:"only" desc:"Apply the fixes that provably keep the set of valid instances, writing the fixed files (JSON files only)."`
	Offset  int      `json:"offset,omitempty" min:"0" brief:"-" desc:"Skip this many findings of the list (for paging through long results)."`
	Limit   int      `json:"limit,omitempty" min:"0" default:"100" brief:"-" desc:"List at most this many findings (0: the default of the surface; the CLI lists all)."`
}

// schemaExts are the extensions a directory argument contributes to lint and bundle.
var schemaExts = []string{".json", ".jsonc", ".yaml", ".yml"}

func init() {
	register(define(Descriptor{
		Name:        "lint",
		Title:       "Lint JSON Schemas",
		Summary:     "find mistakes, dead keywords and portability problems in schemas, with safe fixes",
		Usage:       "[flags] SCHEMA...",
		Description: "Answers: what is wrong or doubtful in these schemas? Use it before trusting or publishing a schema: unresolvable $ref, misplaced keywords, unsatisfiable subschemas, invalid defaults, portability. Each finding has its rule, severity, position and any safe fix.",
		Help:        "Reports what is wrong or doubtful in the schemas: unresolvable $ref, misplaced keywords, unsatisfiable subschemas, invalid defaults, portability problems. Each finding has its rule, severity and position, and a fix when one is safe to apply.",
		ExitCodes:   lintExitCodes,
		Samples:     lintSamples,
	}, runLint))
}

// lintExitCodes say what the exit codes of lint mean (Descriptor.ExitCodes);
// package-level values, as the samples, so that initialisation allocates nothing for them.
var lintExitCodes = []ExitCode{
	{0, "no finding at or above `failOn`"},
	{1, "a finding at or above `failOn` (default warning)"},
	{2, "could not run: an unreadable schema, a usage error, a run stopped"},
}

// lintSamples are calls of lint on the sample workspace (Descriptor.Samples).
var lintSamples = []string{
	`{"schemas": [{"path": "order.schema.json"}, {"path": "customer.schema.json"}]}`,
	`{"schemas": [{"value": {"type": "object", "properties": {"a": {"type": "string", "minimum": 1}}}}], "failOn": "error", "limit": 5}`,
	`{"list": true}`,
}

// lintReport is the lint result as a tool report: the engine's result, which also proposes
// the fixed files to the CLI, and its findings grouped.
type lintReport struct {
	lint.Result
	// Groups sums up the findings of every page by rule, severity and message shape.
	Groups []diag.Group `json:"groups,omitempty"`
}

func (r *lintReport) res() *lint.Result { return &r.Result }

// KeepFirst is a copy that holds only the first k findings, its groups whole (diag.Pager).
func (r *lintReport) KeepFirst(k, limit int) diag.Report {
	c := *r
	c.Result = *r.Result.KeepFirst(k, limit).(*lint.Result)
	return &c
}

// WriteText prints the human report, the findings that repeat grouped before its last
// line (the counts).
func (r *lintReport) WriteText(w io.Writer) error {
	return withGroups(w, r.res().WriteText, r.Groups, false)
}

// Diagnostics lists the findings.
func (r *lintReport) Diagnostics() []diag.Diagnostic { return r.res().Diagnostics() }

// SARIFRules is the rule table, for SARIF output.
func (r *lintReport) SARIFRules() []diag.Rule { return lint.DiagRules() }

// ExitCode is 0 clean, 1 a finding at or above fail-on, 2 an unreadable schema.
func (r *lintReport) ExitCode() int {
	if r.Rules != nil {
		return 0
	}
	return r.res().ExitCode()
}

// OutputFiles are the fixed files (with --fix).
func (r *lintReport) OutputFiles() []OutputFile {
	var out []OutputFile
	for _, o := range r.res().Outputs() {
		out = append(out, OutputFile{Path: o.Path, Data: o.Data})
	}
	return out
}

// lintSettings combines jstk.json's rules with the call's.
func lintSettings(env *Env, cfg *LintConfig, args []string) (map[string]string, error) {
	settings := map[string]string{}
	for k, v := range cfg.Rules {
		settings[k] = v
	}
	for _, a := range args {
		id, val, ok := strings.Cut(a, "=")
		if !ok || id == "" || val == "" {
			return nil, fmt.Errorf("%s: %q: expected RULE=off|on|error|warning|info", env.arg("rules"), a)
		}
		settings[strings.TrimSpace(id)] = strings.TrimSpace(val)
	}
	return settings, nil
}

// schemaSources turns document arguments into lint sources.
func schemaSources(env *Env, docs []Doc, argName string) ([]lint.Source, []lint.Problem, error) {
	var srcs []lint.Source
	var problems []lint.Problem
	for i, d := range docs {
		arg := argName + "[" + strconv.Itoa(i) + "]"
		if d.splitPointer(env).Pointer != "" {
			src, problem, err := pointedSource(env, d, arg)
			if err != nil {
				return nil, nil, err
			}
			if problem != nil {
				problems = append(problems, *problem)
			} else {
				srcs = append(srcs, src)
			}
			continue
		}
		ins, bad, err := docInputsOf(env, d, arg, docOptions{exts: schemaExts, skipConfig: true, lenient: true})
		if err != nil {
			return nil, nil, err
		}
		var found []lint.Source
		for _, x := range ins {
			found = append(found, lint.Source{Name: x.Name, Path: x.Path, Text: x.Text, Expanded: x.Expanded})
		}
		srcs = append(srcs, onlySchemas(env, found)...)
		for _, p := range bad {
			problems = append(problems, lint.Problem{File: p.Path, Message: p.Err.Error()})
		}
	}
	return srcs, problems, nil
}

// onlySchemas keeps, of the files a directory or a glob found, those that are schemas, never
// instances: a file whose $schema names a meta-schema, one that jstk.json's "schemas" maps to
// a meta-schema, one named *.schema.json (.yaml, .yml), and any file that one of those (or
// one found so) references with $ref. A file named as it is stays.
func onlySchemas(env *Env, srcs []lint.Source) []lint.Source {
	a := &assoc.Associator{}
	if env.Config != nil {
		a.Mappings = env.Config.Schemas
	}
	found := map[string]bool{} // the expanded files
	for _, s := range srcs {
		if s.Expanded {
			found[s.Path] = true
		}
	}
	if len(found) == 0 {
		return srcs
	}
	keep := map[string]bool{}
	var queue []*source.Document
	for _, s := range srcs {
		if !s.Expanded {
			continue
		}
		data, err := workspace.ReadFile(env.FS, s.Path, maxSize(env))
		if err != nil {
			keep[s.Path] = true // lint says why it cannot be read
			continue
		}
		lower := strings.ToLower(s.Path)
		x := a.Associate(s.Path, data, nil)
		if x.Rule == assoc.IsSchema || x.Rule == assoc.ByConfig && assoc.IsMetaSchema(x.Schema) ||
			strings.HasSuffix(lower, ".schema.json") || strings.HasSuffix(lower, ".schema.yaml") || strings.HasSuffix(lower, ".schema.yml") {
			keep[s.Path] = true
			if docs, err := source.Parse(s.Path, data, formatOf(s.Path, data), env.Limits); err == nil && len(docs) > 0 {
				queue = append(queue, docs[0])
			}
		}
	}
	// The files the schemas reference are schemas too: a queue, not recursion.
	for len(queue) > 0 {
		doc := queue[0]
		queue = queue[1:]
		for _, ref := range refTargets(doc.Root) {
			file := path.Join(path.Dir(doc.Name), ref)
			if !found[file] || keep[file] {
				continue
			}
			keep[file] = true
			data, err := workspace.ReadFile(env.FS, file, maxSize(env))
			if err != nil {
				continue
			}
			if docs, err := source.Parse(file, data, formatOf(file, data), env.Limits); err == nil && len(docs) > 0 {
				queue = append(queue, docs[0])
			}
		}
	}
	out := srcs[:0:0]
	for _, s := range srcs {
		if !s.Expanded || keep[s.Path] {
			out = append(out, s)
		}
	}
	return out
}

// formatOf is a file's format by its name, else by its content.
func formatOf(name string, data []byte) source.Format {
	if f, ok := source.FormatOf(name); ok {
		return f
	}
	return source.Sniff(data)
}

// refTargets lists the relative file references of the "$ref" members in v (without
// their fragments), walking the document with a stack.
func refTargets(v source.Value) []string {
	var out []string
	stack := []source.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind() {
		case source.Object:
			for i := 0; i < v.Len(); i++ {
				k, m := v.Member(i)
				if k.Str() == "$ref" && m.Kind() == source.String {
					ref, _, _ := strings.Cut(m.Str(), "#")
					if ref != "" && !strings.Contains(ref, ":") && !path.IsAbs(ref) {
						out = append(out, ref)
					}
					continue
				}
				stack = append(stack, m)
			}
		case source.Array:
			stack = append(stack, v.Items()...)
		}
	}
	return out
}

// pointedSource makes a lint source of a schema named inside a document by JSON Pointer:
// the pointer must lead to a value, and, in an OpenAPI or AsyncAPI document, to one of its
// schemas. A document that cannot be read, or a pointer that leads nowhere, is a problem
// of the lint (as an unreadable schema is); a malformed argument is an error.
func pointedSource(env *Env, d Doc, arg string) (lint.Source, *lint.Problem, error) {
	a, err := OpenSchemaArg(env, d, arg)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) {
			return lint.Source{}, &lint.Problem{File: d.splitPointer(env).Path, Message: err.Error()}, nil
		}
		return lint.Source{}, nil, err
	}
	ptr := a.Doc.Pointer
	problem := func(err error) (lint.Source, *lint.Problem, error) {
		return lint.Source{}, &lint.Problem{File: a.Name, Message: err.Error()}, nil
	}
	opts, err := SchemaOptions{}.compilerOptions(env)
	if err != nil {
		return lint.Source{}, nil, err
	}
	src, err := a.Parse(env, opts)
	if err != nil {
		return problem(err)
	}
	if _, ok := src.Root.Pointer(ptr); !ok {
		return problem(missingPointer(a.Name, src, ptr))
	}
	if api := a.API(); api != nil {
		if err := api.Check(ptr); err != nil {
			return problem(err)
		}
	}
	if a.Doc.Path != "" && a.Doc.Path != "-" {
		return lint.Source{Name: a.Name, Path: a.Doc.Path, Pointer: ptr}, nil, nil
	}
	return lint.Source{Name: a.Name, Text: a.Data, Pointer: ptr}, nil, nil
}

func runLint(ctx context.Context, env *Env, in *LintInput) (*lintReport, error) {
	if in.Offset < 0 || in.Limit < 0 {
		return nil, fmt.Errorf("%s must not be negative", env.args("offset", "limit"))
	}
	var cfg LintConfig
	if env.Config != nil {
		cfg = env.Config.Lint
	}
	settings, err := lintSettings(env, &cfg, in.Rules)
	if err != nil {
		return nil, err
	}
	if in.List {
		infos, err := lint.List(settings)
		if err != nil {
			return nil, err
		}
		return &lintReport{Result: lint.Result{Findings: []lint.Finding{}, Rules: infos}}, nil
	}
	if len(in.Schemas) == 0 {
		return nil, fmt.Errorf("%s: give at least one schema (or %s for the rules)", env.arg("schemas"), env.name("list"))
	}
	failOn := in.FailOn
	if failOn == "" {
		failOn = cfg.FailOn
	}
	opts := &lint.Options{Rules: settings, FailOn: diag.Severity(failOn), Fix: in.Fix, Limits: env.Limits,
		Loader: env.loader()}
	if in.Draft != "" {
		d, ok := schema.DraftByName(in.Draft)
		if !ok {
			return nil, fmt.Errorf("unknown draft %q: use 4, 6, 7, 2019-09 or 2020-12", in.Draft)
		}
		opts.Draft = d
	}
	if env.Progress != nil {
		opts.Progress = func(done, total int) {
			env.Progress(float64(done), float64(total), "linted "+strconv.Itoa(done)+" of "+strconv.Itoa(total))
		}
	}
	srcs, problems, err := schemaSources(env, in.Schemas, "schemas")
	if err != nil {
		return nil, err
	}
	res, err := lint.Run(ctx, srcs, env.FS, opts)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		res.Problems = append(problems, res.Problems...)
		res.Summary.Files += len(problems)
		res.Summary.Unreadable += len(problems)
	}
	groups := diag.GroupDiagnostics(res.Diagnostics())
	if in.Offset > 0 || in.Limit > 0 {
		res.Cut(in.Offset, in.Limit)
	}
	return &lintReport{Result: *res, Groups: groups}, nil
}

// withGroups prints a report with its groups of repeated findings (diag.WriteGroups): at
// the end, or before the report's last line (its counts) unless atEnd.
func withGroups(w io.Writer, write func(io.Writer) error, groups []diag.Group, atEnd bool) error {
	var g bytes.Buffer
	if err := diag.WriteGroups(&g, groups); err != nil || g.Len() == 0 {
		return write(w)
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	text := buf.String()
	if atEnd {
		text = strings.TrimSuffix(text, "\n") + "\n\n" + g.String()
	} else {
		i := strings.LastIndexByte(strings.TrimSuffix(text, "\n"), '\n') + 1
		text = text[:i] + g.String() + text[i:]
	}
	_, err := io.WriteString(w, text)
	return err
}
