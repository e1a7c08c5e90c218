package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// command is a subcommand generated from a descriptor: each field of the input type is a
// flag named after its JSON name in kebab case, except the one list of documents or strings,
// which takes the positional arguments.
type command struct {
	d          *tools.Descriptor
	flags      []inputFlag
	positional *inputFlag
}

type inputFlag struct {
	name     string // flag name
	short    string // one-letter alias, if any
	jsonName string
	index    int
	typ      reflect.Type
	usage    string
	required bool
	enum     []string
}

var docType = reflect.TypeOf(tools.Doc{})

func kebab(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				sb.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func newCommand(d *tools.Descriptor) (*command, error) {
	c := &command{d: d}
	t := d.Input
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || f.Tag.Get("cli") == "-" {
			continue
		}
		in := inputFlag{name: kebab(name), short: f.Tag.Get("short"), jsonName: name, index: i, typ: f.Type,
			usage: f.Tag.Get("desc"), required: !strings.Contains(opts, "omitempty")}
		if e := f.Tag.Get("enum"); e != "" {
			in.enum = strings.Split(e, ",")
		}
		listArg := f.Type.Kind() == reflect.Slice && (f.Type.Elem() == docType || f.Type.Elem().Kind() == reflect.String) && f.Tag.Get("cli") != "flag"
		if listArg || f.Tag.Get("cli") == "arg" {
			if c.positional != nil {
				return nil, fmt.Errorf("input %s has two list fields; mark one `cli:\"flag\"`", t)
			}
			c.positional = &in
			continue
		}
		c.flags = append(c.flags, in)
	}
	return c, nil
}

// globals are the flags every command has.
type globals struct {
	format      string
	maxSize     int64
	maxDepth    int
	maxAliases  int
	jsonc       bool
	resolve     []string
	timeout     time.Duration
	regexBudget time.Duration
	quiet       bool
	mem         memoryFlag
	noCatalog   bool
	schemastore string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.format, "format", string(diag.Text), "output format: "+diag.Join(diag.Common(false), ", ")+" (and a command's own)")
	fs.BoolVar(&g.quiet, "quiet", false, "no progress line on a terminal")
	fs.BoolVar(&g.quiet, "q", false, "no progress line on a terminal")
	g.registerLimits(fs)
	g.registerBudgets(fs, 0)
	g.mem.register(fs, "the run")
}

// registerBudgets adds the flags that bound a run's time: --timeout (default timeout; 0
// is none) and --regex-budget.
func (g *globals) registerBudgets(fs *flag.FlagSet, timeout time.Duration) {
	g.timeout, g.regexBudget = timeout, tools.DefaultRegexBudget
	what := "the run"
	if timeout > 0 {
		what = "each tool call"
	}
	fs.Func("timeout", fmt.Sprintf("stop %s after this long and report what was done (e.g. 30s, 5m; a bare number is seconds; 0: no limit) (default %s)",
		what, durationText(timeout)), func(s string) error {
		d, err := parseDuration(s)
		g.timeout = d
		return err
	})
	fs.Func("regex-budget", fmt.Sprintf("the time all pattern matches of %s may take together, so that hostile patterns cannot hang it (0: no budget) (default %s)",
		what, durationText(tools.DefaultRegexBudget)), func(s string) error {
		d, err := parseDuration(s)
		g.regexBudget = d
		if d == 0 {
			g.regexBudget = -1 // tools.Env: negative is no budget
		}
		return err
	})
}

// parseDuration reads a duration for --timeout and --regex-budget: Go's syntax (1m30s,
// 500ms) or a bare number of seconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < math.MaxInt64/float64(time.Second) {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q: use a number of seconds or a duration such as 30s, 2m, 1m30s", s)
	}
	return d, nil
}

func durationText(d time.Duration) string {
	if d == 0 {
		return "no limit"
	}
	return d.String()
}

// registerLimits adds the flags about reading: limits and the resolve map.
func (g *globals) registerLimits(fs *flag.FlagSet) {
	fs.Func("max-size", "largest document (or NDJSON line) to read, in bytes; suffixes K or KiB, M or MiB, G or GiB (1024-based), KB, MB, GB (1000-based) (default 256MiB)", func(s string) error {
		n, err := parseSize(s)
		g.maxSize = n
		return err
	})
	fs.IntVar(&g.maxDepth, "max-depth", source.DefaultMaxDepth, "deepest nesting of arrays and objects to accept")
	fs.IntVar(&g.maxAliases, "max-alias-nodes", source.DefaultMaxAliasNodes, "most values YAML aliases may expand to in one document")
	fs.Func("max-ref-depth", fmt.Sprintf("deepest nesting of an evaluation: the schemas applied in place ($ref chains, allOf, not) and the values they reach (default %d, at most %d; each level may take a few KB of stack)", schema.MaxEvalDepth, schema.MaxEvalDepthCeiling), func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("not a whole number: %q", s)
		}
		return schema.SetMaxEvalDepth(n)
	})
	fs.BoolVar(&g.jsonc, "jsonc", false, "read every JSON file as JSONC: comments and trailing commas accepted (always so for .jsonc files, tsconfig*.json, jsconfig*.json, devcontainer.json and the .json files of .vscode and .devcontainer)")
	fs.BoolVar(&g.noCatalog, "no-catalog", false, "match no file against the SchemaStore catalog (its schemas still resolve https://json.schemastore.org/ references)")
	fs.StringVar(&g.schemastore, "schemastore", "", "read SchemaStore from this snapshot directory or file built by cmd/storegen instead of the built-in one (also: JSTK_SCHEMASTORE, \"schemastore\" in jstk.json)")
	fs.Func("resolve", "map a URI (or a prefix ending in /) to a file or directory: `URI=PATH` (repeatable; adds to jstk.json)", func(s string) error {
		if _, _, err := tools.ParseResolve(s); err != nil {
			return err
		}
		g.resolve = append(g.resolve, s)
		return nil
	})
}

// sizeUnits are the suffixes --max-size accepts, any case: binary (K, KiB = 1024) and
// decimal (KB = 1000) multiples, and B for bytes.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

func parseSize(s string) (int64, error) {
	num, mult := strings.ToLower(strings.TrimSpace(s)), int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid size %q: a positive number of bytes, optionally with a suffix K, KiB, M, MiB, G, GiB (1024-based) or KB, MB, GB (1000-based)", s)
	}
	return n * mult, nil
}

// env builds the handler's environment for the CLI: the operating system's files; the
// workspace derived from the files named by the input (tools.WorkspaceOf), whose jstk.json
// is read and whose schemas' $ids are indexed when a reference needs it; the limits. The
// notices of the run (a $ref resolved from the $id index) go to stderr as they come.
func (g *globals) env(st Streams, cmd string, in any) (*tools.Env, error) {
	fsys := workspace.OS()
	named := tools.SchemaPaths(in)
	if len(named) == 0 {
		named = tools.AssociationPaths(in)
	}
	root, dirs := tools.WorkspaceOf(fsys, named)
	cfg, err := tools.LoadConfigAt(fsys, root)
	if err != nil {
		return nil, err
	}
	for _, r := range g.resolve {
		u, p, _ := tools.ParseResolve(r)
		cfg.Resolve[u] = p
	}
	notes := tools.NewNotes(func(msg string) { fmt.Fprintf(st.Stderr, "jstk %s: %s\n", cmd, msg) })
	env := &tools.Env{FS: fsys, Stdin: st.Stdin, Resolve: cfg.Resolve, Config: cfg, Root: root,
		Index: tools.NewIndex(fsys, dirs, g.limits()), Notes: notes, Limits: g.limits(),
		Timeout: g.timeout, RegexBudget: g.regexBudget}
	g.setStore(env, cfg, fsys)
	addLockRemote(env, fsys, root) // last: after any store entry
	return env, nil
}

// getenv reads the process's environment (a variable so that tests may set it).
var getenv = os.Getenv

// setStore gives env the SchemaStore: --schemastore, else JSTK_SCHEMASTORE, else
// jstk.json's "schemastore" (a name of cfgFS), else the built-in one. It resolves
// SchemaStore's URLs (env.Remotes) and, unless --no-catalog or "schemastore": false, is
// the catalog files are matched against (env.Store). Nothing of it is read here.
func (g *globals) setStore(env *tools.Env, cfg *tools.Config, cfgFS workspace.FS) {
	var s *store.Store
	switch {
	case g.schemastore != "":
		s = store.Open(workspace.OS(), g.schemastore)
	case getenv("JSTK_SCHEMASTORE") != "":
		s = store.Open(workspace.OS(), getenv("JSTK_SCHEMASTORE"))
	case cfg != nil && cfg.SchemaStore != "":
		s = store.Open(cfgFS, cfg.SchemaStore)
	default:
		s = store.Embedded()
	}
	env.Remotes = append(env.Remotes, s)
	if !g.noCatalog && (cfg == nil || !cfg.NoCatalog) {
		env.Store = s
	}
}

func (g *globals) limits() *source.Limits {
	return &source.Limits{MaxSize: g.maxSize, MaxDepth: g.maxDepth, MaxAliasNodes: g.maxAliases, JSONC: g.jsonc}
}

// flagValue sets one input field from a flag.
type flagValue struct {
	f   *inputFlag
	v   reflect.Value // the input struct
	set bool
}

func (fv *flagValue) String() string { return "" }

func (fv *flagValue) IsBoolFlag() bool { return fv.f.typ.Kind() == reflect.Bool }

func (fv *flagValue) Set(s string) error {
	field := fv.v.Field(fv.f.index)
	fv.set = true
	if len(fv.f.enum) > 0 && !contains(fv.f.enum, s) {
		return fmt.Errorf("must be one of %s%s", strings.Join(fv.f.enum, ", "), didYouMean(s, fv.f.enum, "%s"))
	}
	switch {
	case fv.f.typ == docType:
		field.Set(reflect.ValueOf(tools.PathDoc(s)))
	case fv.f.typ.Kind() == reflect.Slice && fv.f.typ.Elem() == docType:
		field.Set(reflect.Append(field, reflect.ValueOf(tools.PathDoc(s))))
	case fv.f.typ.Kind() == reflect.Slice && fv.f.typ.Elem().Kind() == reflect.String:
		field.Set(reflect.Append(field, reflect.ValueOf(s)))
	case fv.f.typ.Kind() == reflect.String:
		field.SetString(s)
	case fv.f.typ.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		field.SetBool(b)
	case fv.f.typ.Kind() == reflect.Int || fv.f.typ.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer: %q", s)
		}
		field.SetInt(n)
	default:
		return fmt.Errorf("flags of type %s are not supported", fv.f.typ)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parse reads the command line into a new input value. Flags and positional arguments may
// be mixed; "--" ends the flags.
func (c *command) parse(args []string, st Streams) (any, *globals, error) {
	in := c.d.NewInput()
	v := reflect.ValueOf(in).Elem()
	fs := flag.NewFlagSet(c.d.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := &globals{}
	g.register(fs)
	values := map[string]*flagValue{}
	for i := range c.flags {
		f := &c.flags[i]
		fv := &flagValue{f: f, v: v}
		values[f.name] = fv
		fs.Var(fv, f.name, f.usage)
		if f.short != "" {
			fs.Var(fv, f.short, f.usage)
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, flagError(err, fs)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if _, err := outputFormat(c.d, g.format); err != nil {
		return nil, nil, err
	}
	for _, f := range c.flags {
		if f.required && !values[f.name].set {
			return nil, nil, fmt.Errorf("--%s is required", f.name)
		}
	}
	if c.positional == nil {
		if len(pos) > 0 {
			return nil, nil, fmt.Errorf("unexpected argument %q", pos[0])
		}
		return in, g, nil
	}
	if len(pos) == 0 && c.positional.required {
		return nil, nil, fmt.Errorf("give at least one %s argument", c.argName(c.positional.jsonName))
	}
	if c.positional.typ.Kind() != reflect.Slice && len(pos) > 1 {
		return nil, nil, fmt.Errorf("expected one %s argument, got %d", c.argName(c.positional.jsonName), len(pos))
	}
	pv := &flagValue{f: c.positional, v: v}
	for _, p := range pos {
		if err := pv.Set(p); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", c.argName(c.positional.jsonName), err)
		}
	}
	return in, g, nil
}

// formats lists the --format values of a command, from diag's registry: those every command
// prints and its own; a command that prints a document (a schema, instances) has no
// findings to print as sarif or github.
func formats(d *tools.Descriptor) []diag.Format {
	return append(diag.Common(d.Document), d.Formats...)
}

// outputFormat checks a --format value against the command's formats.
func outputFormat(d *tools.Descriptor, s string) (diag.Format, error) {
	all := formats(d)
	if slices.Contains(all, diag.Format(s)) {
		return diag.Format(s), nil
	}
	names := diag.Join(all, ", ")
	if fi, ok := diag.LookupFormat(diag.Format(s)); ok && fi.Findings && d.Document {
		return "", fmt.Errorf("--format %s reports findings, and %s prints a document: use %s", s, d.Name, names)
	}
	return "", fmt.Errorf("unknown --format %q: use %s%s", s, names, didYouMean(s, strings.Split(names, ", "), "%s"))
}

// argName names an argument of the command as its user writes it: a flag (--fail-under),
// or the positional arguments (SCHEMA, OLD and NEW for diff). name is the argument's JSON
// name, perhaps with an index ("instances[2]"); tools.Env.ArgName calls it.
func (c *command) argName(name string) string {
	base, _, _ := strings.Cut(name, "[")
	for _, f := range c.flags {
		if f.jsonName == base {
			return "--" + f.name
		}
	}
	if c.positional != nil && c.positional.jsonName == base {
		return strings.ToUpper(kebab(base))
	}
	if base == "pointer" {
		return "FILE#/pointer"
	}
	return strings.ToUpper(kebab(base)) // an argument the command line takes in another form (diff's OLD, NEW)
}

// backquoted matches a name in backquotes, and camelCase a word with an inner capital.
var (
	backquoted = &lazyRegexp{expr: "`([A-Za-z][A-Za-z0-9]*)`"}
	camelCase  = &lazyRegexp{expr: `(^|[^\w.$-])([a-z]+[A-Z][A-Za-z0-9]*)\b`}
)

// speak turns a text written for the descriptor table (a description, an argument's desc)
// into the command line's words: an argument named in backquotes, or a camelCase argument
// name, becomes the flag or positional argument (see tools.Descriptor.Description).
func (c *command) speak(s string) string {
	known := map[string]bool{"pointer": true}
	for i := 0; i < c.d.Input.NumField(); i++ {
		name, _, _ := strings.Cut(c.d.Input.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			known[name] = true
		}
	}
	s = backquoted.get().ReplaceAllStringFunc(s, func(m string) string {
		if name := m[1 : len(m)-1]; known[name] {
			return c.argName(name)
		}
		return m
	})
	return camelCase.get().ReplaceAllStringFunc(s, func(m string) string {
		sub := camelCase.get().FindStringSubmatch(m)
		if known[sub[2]] {
			return sub[1] + c.argName(sub[2]) // not a member of something else (lint.failOn)
		}
		return m
	})
}

// help prints the command's usage, generated from its descriptor.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: jstk %s %s\n\n%s.\n\n", c.d.Name, c.d.Usage, capitalize(c.d.Summary))
	fmt.Fprintf(w, "%s\n\nFlags:\n", wrapIndent(c.speak(c.d.Help), 96, "\n")) // the person's words; Description is the model's
	for _, f := range c.flags {
		arg := ""
		switch {
		case f.typ == docType:
			arg = " FILE"
		case f.typ.Kind() == reflect.Bool:
		case len(f.enum) > 0:
			arg = " " + strings.Join(f.enum, "|")
		case f.typ.Kind() == reflect.Int || f.typ.Kind() == reflect.Int64:
			arg = " N"
		default:
			arg = " VALUE"
		}
		names := "--" + f.name
		if f.short != "" {
			names = "-" + f.short + ", " + names
		}
		fmt.Fprintf(w, "  %s%s\n      %s\n", names, arg, wrap(c.speak(f.usage), 90))
	}
	fmt.Fprintf(w, "  --format %s\n      output format (default text)\n", diag.Join(formats(c.d), "|"))
	fmt.Fprintf(w, "  --resolve URI=PATH\n      map a URI or URI prefix (ending in /) to a file or directory, for offline $ref; repeatable\n")
	fmt.Fprintf(w, "  --schemastore PATH, --no-catalog\n      read SchemaStore from a snapshot directory or a file built by cmd/storegen (also JSTK_SCHEMASTORE);\n      match no file against its catalog\n")
	fmt.Fprintf(w, "  --max-size SIZE, --max-depth N, --max-alias-nodes N\n      limits on each document read (defaults 256MiB, %d, %d)\n", source.DefaultMaxDepth, source.DefaultMaxAliasNodes)
	fmt.Fprintf(w, "  --max-ref-depth N\n      deepest nesting of an evaluation, $ref chains included (default %d, at most %d)\n", schema.MaxEvalDepth, schema.MaxEvalDepthCeiling)
	fmt.Fprintf(w, "  --jsonc\n      %s\n", wrap("read every JSON file as JSONC, comments and trailing commas accepted (always so for "+
		".jsonc files, tsconfig*.json, jsconfig*.json, devcontainer.json, and the .json files of .vscode and .devcontainer)", 90))
	fmt.Fprintf(w, "  --timeout DURATION, --regex-budget DURATION\n      stop the run after this long (default: no limit), and bound the time all its pattern\n      matches take together (default %s); a run stopped says so and exits 2\n", durationText(tools.DefaultRegexBudget))
	fmt.Fprintf(w, "  --max-memory SIZE\n      %s\n", wrap("the heap the run may use (e.g. 512M, 2GiB; 0: no budget; default a quarter of the machine's memory, or of the cgroup's limit when lower): past it, the run stops with an error that says so and exits 2", 90))
	fmt.Fprintf(w, "  -q, --quiet\n      no progress line (one is shown on a terminal when a run takes more than a second)\n")
	if c.positional != nil {
		dots := "..."
		if c.positional.typ.Kind() != reflect.Slice {
			dots = ""
		}
		fmt.Fprintf(w, "\nArguments:\n  %s%s\n      %s\n", strings.ToUpper(kebab(c.positional.jsonName)), dots, wrap(c.speak(c.positional.usage), 90))
	}
	fmt.Fprintf(w, "\nExit codes:\n%s", exitCodesText(c.d.ExitCodes, c.speak))
}

// exitCodesText is the Exit codes section of a help text (tools.Descriptor.ExitCodes): one
// line per code, a meaning's further lines indented under it, its arguments named by speak.
func exitCodesText(codes []tools.ExitCode, speak func(string) string) string {
	var sb strings.Builder
	for _, c := range codes {
		fmt.Fprintf(&sb, "  %d  %s\n", c.Code, strings.ReplaceAll(speak(c.Means), "\n", "\n     "))
	}
	return sb.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrap cuts s into lines of at most width columns, the lines after the first indented
// under a flag's name.
func wrap(s string, width int) string { return wrapIndent(s, width, "\n      ") }

// wrapIndent cuts s into lines of at most width columns, joined by sep.
func wrapIndent(s string, width int, sep string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, sep)
}
