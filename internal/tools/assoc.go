package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/jstk-dev/jstk/internal/assoc"
	"github.com/jstk-dev/jstk/internal/catalog"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/validate"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Associator returns the association of the call's workspace (DESIGN.md section 3a):
// declarations, then jstk.json's "schemas" map (env.Config), then the SchemaStore catalog
// (env.Store). A map entry naming a schema file that does not exist is an error naming
// jstk.json. Every surface asks this one function which schema applies to a file.
func Associator(env *Env) (*assoc.Associator, error) {
	a := &assoc.Associator{Root: catalogRoot(env), Config: ConfigFile}
	a.Rel = func(dir, name string) (string, bool) {
		d, n := env.FS.Abs(dir), env.FS.Abs(name)
		if d == "/" {
			return strings.TrimPrefix(n, "/"), true
		}
		rest, ok := strings.CutPrefix(n, d+"/")
		return rest, ok
	}
	if env.Config != nil {
		for _, m := range env.Config.Schemas {
			if !strings.Contains(m.Schema, "://") {
				if _, err := env.FS.Stat(m.Schema); err != nil {
					what := "does not exist"
					if !errors.Is(err, fs.ErrNotExist) {
						what = "cannot be read: " + err.Error()
					}
					return nil, fmt.Errorf("%s: the schema %q of \"schemas\" %s: fix its path (relative to the folder of %s) or remove the entry", m.At, m.Key, what, ConfigFile)
				}
			}
			a.Mappings = append(a.Mappings, m)
		}
	}
	if s := env.Store; s != nil {
		a.Catalog = func() (*assoc.Catalog, error) {
			c, err := s.Catalog()
			if errors.Is(err, store.ErrNone) {
				// a build without the store: the files the catalog would match have no
				// schema, and one note says how to get one
				env.Notes.Add(err.Error())
				return nil, nil
			}
			return c, err
		}
	}
	return a, nil
}

// catalogRoot is the folder the catalog's patterns match paths from: the repository that
// holds the workspace root (the nearest folder at or above it with .git), else the file
// system's root. So `**/.github/dependabot.yml` matches .github/dependabot.yml named on its
// own (the workspace root is then .github), as an editor matches it by the file's path.
// A confined workspace (MCP) never looks above its root.
func catalogRoot(env *Env) string {
	root := env.Root
	if root == "" {
		root = "."
	}
	for abs := env.FS.Abs(root); ; {
		d := nameOf(env.FS, abs)
		if _, err := env.FS.Stat(path.Join(d, ".git")); err == nil {
			return d
		}
		parent := path.Dir(abs)
		if parent == abs {
			return d
		}
		if _, inside := env.FS.Rel(parent); !inside && parent != "/" {
			return root
		}
		abs = parent
	}
}

// hiddenNamed returns which hidden directories a walk enters: those a pattern of the
// catalog or of jstk.json names as a literal segment (".github", ".vscode").
func hiddenNamed(env *Env) func(string) bool {
	names := map[string]bool{}
	add := func(p string) {
		for _, seg := range strings.Split(p, "/") {
			if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." && !strings.ContainsAny(seg, "*?[{!(") {
				names[seg] = true
			}
		}
	}
	if env.Config != nil {
		for _, m := range env.Config.Schemas {
			for _, g := range append(append([]*assoc.Glob{}, m.Include...), m.Exclude...) {
				add(path.Dir(g.Text))
			}
		}
	}
	if env.Store != nil {
		if c, err := env.Store.Catalog(); err == nil && c != nil {
			for _, e := range c.Entries() {
				for _, p := range e.FileMatch {
					add(path.Dir(p))
				}
			}
		}
	}
	return func(name string) bool { return names[name] }
}

// associateWorkers read files for their declarations at once.
const associateWorkers = 16

// fileAnswer is the association of one file of a walk.
type fileAnswer struct {
	skip    bool // the workspace's configuration
	known   bool // a format jstk reads (JSON, JSONC, YAML, TOML, NDJSON)
	x       assoc.Association
	problem string // the file could not be read
}

// associateFiles answers for each file, in order. Reading each file for its declaration is
// the cost of a large tree: it is done by a pool of workers (file reads wait on the disk
// more than on the CPU).
func associateFiles(ctx context.Context, env *Env, a *assoc.Associator, files []string, named map[string]bool) ([]fileAnswer, error) {
	answers := make([]fileAnswer, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < associateWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := files[i]
				if path.Base(f) == ConfigFile && !named[f] {
					answers[i].skip = true
					continue
				}
				format, known := source.FormatOf(f)
				var data []byte
				if known && format != source.NDJSON {
					var err error
					if data, err = workspace.ReadFile(env.FS, f, maxSize(env)); err != nil {
						answers[i] = fileAnswer{known: known, problem: err.Error()}
						continue
					}
				}
				answers[i] = fileAnswer{known: known, x: a.Associate(f, data, nil)}
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return answers, ctx.Err()
}

// maxAppliesTo bounds the files listed for one schema by list_schemas and schema_context
// (all are counted).
const maxAppliesTo = 10

// appliesTo fills, for each schema entry, the workspace files that a declaration or
// jstk.json's map associates with it (the catalog of SchemaStore is not asked: it names no
// workspace schema).
func appliesTo(ctx context.Context, env *Env, entries ...*catalog.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	a, err := Associator(&Env{FS: env.FS, Config: env.Config, Root: env.Root})
	if err != nil {
		return err
	}
	files, _ := assoc.Walk(ctx, env.FS, []string{"."}, &assoc.WalkOptions{Hidden: hiddenNamed(&Env{Config: env.Config})})
	answers, err := associateFiles(ctx, env, a, files, nil)
	if err != nil {
		return err
	}
	by := map[string][]string{}
	for i, an := range answers {
		if an.x.Schema != "" && an.x.Rule != assoc.IsSchema {
			by[an.x.Schema] = append(by[an.x.Schema], files[i])
		}
	}
	for _, e := range entries {
		fs := by[path.Clean(e.Path)]
		e.AppliesToCount = len(fs)
		if len(fs) > maxAppliesTo {
			fs = fs[:maxAppliesTo]
		}
		e.AppliesTo = fs
	}
	return nil
}

// associated is one file of a run and its association.
type associated struct {
	file string
	a    assoc.Association
}

// runValidateAll validates each file under the arguments (default ".") against the schema
// that applies to it, grouped by schema.
func runValidateAll(ctx context.Context, env *Env, in *ValidateInput) (*validate.Result, error) {
	a, err := Associator(env)
	if err != nil {
		return nil, err
	}
	var args []string
	for i, d := range in.Instances {
		if d.Path == "" || d.Path == "-" {
			return nil, fmt.Errorf("%s: without a schema, instances are files, directories or globs (their schema is found for each)", env.arg(fmt.Sprintf("instances[%d]", i)))
		}
		args = append(args, d.Path)
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	named := map[string]bool{}
	for _, p := range args {
		named[path.Clean(p)] = true
	}
	files, werrs := assoc.Walk(ctx, env.FS, args, &assoc.WalkOptions{Hidden: hiddenNamed(env)})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &validate.Result{Instances: []validate.Instance{}, Schemas: []validate.SchemaUse{}, RequireSchema: in.RequireSchema}
	var problems []validate.Instance
	for _, e := range werrs {
		problems = append(problems, validate.Instance{File: errFile(e), Errors: []validate.Error{}, Problem: e.Error()})
	}
	answers, err := associateFiles(ctx, env, a, files, named)
	if err != nil {
		return nil, err
	}
	if env.Store != nil {
		for _, e := range env.Store.PatternErrors() {
			env.Notes.Add(e.Error()) // a catalog pattern that is not a valid glob: left out, said
		}
	}
	groups := map[string][]associated{}
	var order []string
	for i, f := range files {
		an := answers[i]
		x := an.x
		switch {
		case an.skip:
			continue
		case an.problem != "":
			problems = append(problems, validate.Instance{File: f, Errors: []validate.Error{}, Problem: an.problem})
			continue
		case x.Problem != "":
			problems = append(problems, validate.Instance{File: f, Errors: []validate.Error{}, Problem: x.Problem, Association: &x})
			continue
		case x.Rule == assoc.None || x.Rule == assoc.Tie:
			if an.known || named[f] || x.Rule == assoc.Tie {
				res.NoSchema = append(res.NoSchema, validate.NoSchema{File: f, Association: x})
			}
			continue
		}
		if _, ok := groups[x.Schema]; !ok {
			order = append(order, x.Schema)
		}
		groups[x.Schema] = append(groups[x.Schema], associated{f, x})
	}
	sort.Strings(order)
	for _, s := range order {
		if err := validateGroup(ctx, env, in, s, groups[s], res); err != nil {
			return nil, err
		}
		if res.Stopped != "" {
			break
		}
	}
	if res.Stopped == "" {
		for i := range problems {
			p := problems[i]
			res.Summary.Total++
			res.Summary.Unreadable++
			res.Instances = append(res.Instances, p)
		}
	}
	res.Valid = res.Stopped == "" && res.Summary.Total > 0 && res.Summary.Valid == res.Summary.Total &&
		!(in.RequireSchema && len(res.NoSchema) > 0)
	if in.InvalidOnly {
		kept := res.Instances[:0]
		for _, x := range res.Instances {
			if !x.Valid {
				kept = append(kept, x)
			}
		}
		res.Instances = kept
	}
	if in.Offset > 0 || in.Limit > 0 {
		res.Cut(in.Offset, in.Limit)
	}
	return res, nil
}

// errFile names the file of a walk error, when it has one.
func errFile(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path
	}
	var we *workspace.PathError
	if errors.As(err, &we) {
		return we.Path
	}
	return ""
}

// validateGroup validates the files of one schema and adds them to res. A schema that
// cannot be used (not vendored, unresolvable, invalid) makes each of its files a problem
// that says so; the run goes on with the other schemas.
func validateGroup(ctx context.Context, env *Env, in *ValidateInput, schemaRef string, files []associated, res *validate.Result) error {
	use := validate.SchemaUse{Schema: schemaRef}
	var s *schema.Schema
	var cerr error
	opts := SchemaOptions{AssertFormat: in.AssertFormat}
	switch {
	case strings.Contains(schemaRef, "://"):
		if _, ok := store.File(schemaRef); ok && !remoteHas(env, schemaRef) {
			cerr = fmt.Errorf("not vendored: %s; map it (jstk.json \"resolve\" or --resolve) or run jstk fetch", schemaRef)
			break
		}
		s, cerr = compileURI(env, schemaRef, opts)
	default:
		s, cerr = LoadSchema(env, PathDoc(schemaRef), "schema", opts)
	}
	for i := range files {
		x := files[i].a
		if cerr != nil {
			res.Instances = append(res.Instances, validate.Instance{File: files[i].file, Errors: []validate.Error{},
				Problem: fmt.Sprintf("%s: schema %s (%s): %v", files[i].file, schemaRef, x.Why, cerr), Association: &x})
			res.Summary.Total++
			res.Summary.Unreadable++
			use.Instances++
			use.Unreadable++
		}
	}
	if cerr != nil {
		res.Schemas = append(res.Schemas, use)
		return nil
	}
	srcs := make([]validate.Source, len(files))
	for i, f := range files {
		srcs[i] = validate.Source{Name: f.file, Path: f.file}
	}
	k := 0
	r, err := validate.Run(ctx, s, srcs, env.FS, &validate.Options{Limits: env.Limits, MaxErrors: in.MaxErrors, Output: schema.OutputFormat(in.Output),
		OnInstance: func(inst *validate.Instance) {
			// instances come in input order; a YAML stream's later documents follow their
			// file's first
			for k < len(files)-1 && files[k].file != inst.File {
				k++
			}
			x := files[k].a
			inst.Association = &x
			res.Instances = append(res.Instances, *inst)
		}})
	if err != nil {
		return err
	}
	use.Instances, use.Valid, use.Invalid, use.Unreadable = r.Summary.Total, r.Summary.Valid, r.Summary.Invalid, r.Summary.Unreadable
	res.Summary.Total += r.Summary.Total
	res.Summary.Valid += r.Summary.Valid
	res.Summary.Invalid += r.Summary.Invalid
	res.Summary.Unreadable += r.Summary.Unreadable
	res.Groups = append(res.Groups, r.Groups...)
	res.Schemas = append(res.Schemas, use)
	if r.Stopped != "" {
		res.Stopped = r.Stopped
	}
	return nil
}

// remoteHas reports whether a remote of the call (the SchemaStore) holds uri.
func remoteHas(env *Env, uri string) bool {
	for _, r := range env.Remotes {
		if s, ok := r.(*store.Store); ok && s.Has(uri) {
			return true
		}
		if _, ok := r.(*store.Store); !ok {
			return true // another kind of remote (the lock's cache) may: let the loader ask it
		}
	}
	return false
}

// compileURI compiles the schema at an absolute URI (a SchemaStore URL, a meta-schema)
// through the call's loader.
func compileURI(env *Env, uri string, o SchemaOptions) (*schema.Schema, error) {
	opts, err := o.compilerOptions(env)
	if err != nil {
		return nil, err
	}
	return schema.NewCompiler(opts).Compile(uri)
}
