package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/diff"
	"github.com/jstk-dev/jstk/internal/gitread"
	"github.com/jstk-dev/jstk/internal/schema"
)

// Mode is a compatibility mode: a direction, and whether every earlier version is checked
// (transitive) or the latest earlier one only.
type Mode struct {
	// Direction is backward, forward or full; "" for none.
	Direction string
	// Transitive checks every earlier version.
	Transitive bool
}

// String is the mode's name (backward-transitive, none, ...).
func (m Mode) String() string {
	switch {
	case m.Direction == "":
		return "none"
	case m.Transitive:
		return m.Direction + "-transitive"
	}
	return m.Direction
}

// ParseMode reads a compatibility mode: backward, forward, full, each maybe -transitive,
// or none; Confluent's names (BACKWARD_TRANSITIVE, NONE, ...) too.
func ParseMode(s string) (Mode, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	if n == "none" {
		return Mode{}, nil
	}
	d, t := strings.CutSuffix(n, "-transitive")
	switch d {
	case "backward", "forward", "full":
		return Mode{Direction: d, Transitive: t}, nil
	}
	return Mode{}, fmt.Errorf("unknown compatibility mode %q: use backward, forward, full, each maybe -transitive (or Confluent's BACKWARD_TRANSITIVE, ...), or none", s)
}

// configMode is the mode jstk.json's "compatibility" block gives the file name (a name of
// env.FS); ok is false when no pattern matches.
func configMode(env *Env, name string) (string, bool) {
	if env.Config == nil || len(env.Config.Compatibility) == 0 || name == "" || name == "-" {
		return "", false
	}
	abs := env.FS.Abs(name)
	dir := env.FS.Abs(env.Config.Dir)
	rel, ok := strings.CutPrefix(abs, strings.TrimSuffix(dir, "/")+"/")
	if !ok {
		return "", false
	}
	best := ""
	for pat := range env.Config.Compatibility {
		if m, _ := path.Match(pat, rel); m && len(pat) > len(best) {
			best = pat // the longest matching pattern wins
		}
	}
	if best == "" {
		return "", false
	}
	return env.Config.Compatibility[best], true
}

// DefaultHistoryLimit bounds the earlier versions of a history when --last gives none.
const DefaultHistoryLimit = 100

// historyReport is the result of a history or against check.
type historyReport struct {
	// File is the file checked, New the version checked ("working tree" or a revision).
	File string `json:"file"`
	New  string `json:"new"`
	// Mode is the compatibility mode checked.
	Mode string `json:"mode"`
	// Verdict is compatible when every version the mode checks is, else incompatible or
	// unknown; "none" when the mode checks nothing.
	Verdict string `json:"verdict"`
	// Versions are the earlier versions, newest first.
	Versions []historyVersion `json:"versions"`
	// Counts.
	Compared        int `json:"compared"`
	Breaking        int `json:"breaking"`
	Unknown         int `json:"unknown"`
	CouldNotCompare int `json:"couldNotCompare"`
	// Notes say what bounded the history (the default limit, a shallow clone).
	Notes []string `json:"notes,omitempty"`
	check bool
}

// historyVersion is one earlier version and its verdict.
type historyVersion struct {
	Revision string    `json:"revision"`
	Commit   string    `json:"commit,omitempty"`
	Subject  string    `json:"subject,omitempty"`
	Date     time.Time `json:"date,omitzero"`
	Path     string    `json:"path"`
	// Verdict is compatible, incompatible, unknown, "could not compare", "not checked"
	// (an older version a non-transitive mode does not check) or "absent" (a revision
	// named that does not have the file).
	Verdict   string `json:"verdict"`
	Direction string `json:"direction,omitempty"`
	// Change is the first breaking change, with its proving instance; More counts the
	// other changes.
	Change  *diff.Change    `json:"change,omitempty"`
	Example json.RawMessage `json:"example,omitempty"`
	More    int             `json:"moreChanges,omitempty"`
	// SameAs names the version with the same content whose verdict this one shares.
	SameAs string `json:"sameAs,omitempty"`
	Error  string `json:"error,omitempty"`
}

func (r *historyReport) ExitCode() int {
	if r.check && (r.Breaking > 0 || r.Unknown > 0) {
		return 1
	}
	return 0
}

func (r *historyReport) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, v := range r.Versions {
		if v.Verdict != string(diff.Incompatible) || v.Change == nil {
			continue
		}
		out = append(out, diag.Diagnostic{
			File: r.File, Line: v.Change.New.Line, Column: v.Change.New.Column, Severity: diag.Error,
			Code: v.Change.Kind, Pointer: v.Change.NewPointer,
			Message: fmt.Sprintf("breaks %s compatibility with %s (%s): %s", v.Direction, v.Revision, v.Subject, v.Change.Message),
		})
	}
	return out
}

func (r *historyReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s (%s) against %d earlier version(s), mode %s: %s\n", r.File, r.New, len(r.Versions), r.Mode, r.Verdict)
	for _, v := range r.Versions {
		date := ""
		if !v.Date.IsZero() {
			date = " " + v.Date.Format("2006-01-02")
		}
		name := v.Path
		fmt.Fprintf(w, "  %s%s %q (%s): %s", v.Revision, date, v.Subject, name, v.Verdict)
		if v.Direction != "" && v.Verdict == string(diff.Incompatible) {
			fmt.Fprintf(w, " (%s)", v.Direction)
		}
		if v.SameAs != "" {
			fmt.Fprintf(w, ", same content as %s", v.SameAs)
		}
		fmt.Fprintln(w)
		if v.Error != "" {
			fmt.Fprintf(w, "      %s\n", v.Error)
		}
		if c := v.Change; c != nil {
			at := orRoot(c.NewPointer)
			if c.New.File != "" && c.New.Line > 0 {
				at = fmt.Sprintf("%s (%s:%d:%d)", at, c.New.File, c.New.Line, c.New.Column)
			}
			fmt.Fprintf(w, "      %s [%s] at %s\n", c.Message, c.Kind, at)
			if len(v.Example) > 0 {
				fmt.Fprintf(w, "      proof: %s\n", compactJSON(v.Example))
			}
			if v.More > 0 {
				fmt.Fprintf(w, "      and %d more change(s)\n", v.More)
			}
		}
	}
	fmt.Fprintf(w, "%d compared, %d breaking, %d unknown, %d could not compare\n", r.Compared, r.Breaking, r.Unknown, r.CouldNotCompare)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.check {
		verdict := "passed"
		if r.ExitCode() != 0 {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "check (%s): %s\n", r.Mode, verdict)
	}
	return nil
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

func compactJSON(b json.RawMessage) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// historyVersionIn is an earlier version to compare.
type historyIn struct {
	v      historyVersion
	blob   gitread.Hash
	commit *gitread.Commit
}

// historyRun is one history or against check: the repository, the file's path in it,
// the mode, the new version and the report being built.
type historyRun struct {
	ctx       context.Context
	env       *Env
	in        *DiffInput
	opts      *diff.Options
	repo      *gitread.Repo
	top, rel  string // the repository's top directory; the file's path in it
	wd        string // the workspace's directory
	mode      Mode
	rep       *historyReport
	start     gitread.Hash // the revision checked (--rev), else zero
	newSchema *schema.Schema
}

// runHistory compares a file with its earlier committed versions (--history) or with its
// versions at named revisions (--against).
func runHistory(ctx context.Context, env *Env, in *DiffInput, opts *diff.Options) (*historyReport, error) {
	name := in.New.Path
	if name == "" || name == "-" || in.New.Pointer != "" {
		return nil, fmt.Errorf("%s: give one schema file of a git repository (no pointer, not standard input)", env.arg("schemas"))
	}
	if _, err := env.FS.Stat(name); err != nil && in.Rev == "" {
		return nil, err
	}
	repo, top, rel, err := repoOf(env, name)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	mode, err := historyMode(env, in, opts, name)
	if err != nil {
		return nil, err
	}
	h := &historyRun{ctx: ctx, env: env, in: in, opts: opts, repo: repo, top: top, rel: rel, wd: env.FS.Abs("."), mode: mode,
		rep: &historyReport{File: name, Mode: mode.String(), check: in.Check || in.Mode != ""}}
	if err := h.openNew(); err != nil {
		return nil, err
	}
	var olds []historyIn
	if len(in.Against) > 0 {
		olds, err = h.againstVersions()
	} else {
		var none bool
		if olds, none, err = h.historyVersions(); none {
			return h.rep, nil
		}
	}
	if err != nil {
		return nil, err
	}
	verdicts, err := h.compareAll(olds)
	if err != nil {
		return nil, err
	}
	rep := h.rep
	for _, o := range olds {
		rep.Versions = append(rep.Versions, o.v)
	}
	fitBudget(rep, env.MaxResultBytes)
	rep.Verdict = overallVerdict(mode, rep.Compared, verdicts)
	return rep, nil
}

// repoOf finds the git repository holding the file name and returns it, its top
// directory and the file's path in it.
func repoOf(env *Env, name string) (repo *gitread.Repo, top, rel string, err error) {
	abs := env.FS.Abs(name)
	repo, err = gitread.Find(filepath.Dir(filepath.FromSlash(abs)))
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: %w: --history and --against read the file's versions from git", name, err)
	}
	top = filepath.ToSlash(repo.Top)
	if real, err := filepath.EvalSymlinks(repo.Top); err == nil {
		top = filepath.ToSlash(real)
	}
	realAbs := abs
	if real, err := filepath.EvalSymlinks(filepath.Dir(filepath.FromSlash(abs))); err == nil {
		realAbs = path.Join(filepath.ToSlash(real), path.Base(abs))
	}
	rel, ok := strings.CutPrefix(realAbs, top+"/")
	if !ok {
		repo.Close()
		return nil, "", "", fmt.Errorf("%s: not a file of the repository at %s", name, repo.Top)
	}
	return repo, top, rel, nil
}

// historyMode is the mode asked: --mode, else jstk.json's for the file, else the direction
// asked, latest earlier version only (Confluent's default).
func historyMode(env *Env, in *DiffInput, opts *diff.Options, name string) (Mode, error) {
	modeName := in.Mode
	if modeName == "" {
		if m, ok := configMode(env, name); ok {
			modeName = m
		} else {
			modeName = opts.Direction
			if modeName == "" {
				modeName = "backward"
			}
		}
	}
	mode, err := ParseMode(modeName)
	if err != nil {
		return mode, fmt.Errorf("%s: %w", env.arg("mode"), err)
	}
	return mode, nil
}

// within confines a commit's tree to the workspace when the workspace is a directory inside
// the repository.
func (h *historyRun) within(t *gitread.TreeFS) *gitread.TreeFS {
	if _, ok := h.env.FS.Rel(h.top); !ok {
		t.Within = h.wd
	}
	return t
}

// openNew compiles the version checked: the working tree's, or --rev's.
func (h *historyRun) openNew() error {
	env, in := h.env, h.in
	newEnv := *env
	newEnv.Cache = nil
	newDoc := Doc{Path: in.New.Path}
	if in.Rev != "" {
		var err error
		if h.start, err = h.repo.Resolve(in.Rev); err != nil {
			return fmt.Errorf("%s: %w", env.arg("rev"), err)
		}
		c, err := h.repo.Commit(h.start)
		if err != nil {
			return err
		}
		newEnv.FS = h.within(h.repo.TreeFS(c, h.wd))
		newDoc = Doc{Path: path.Join(h.top, h.rel)}
		h.rep.New = in.Rev + " (" + h.start.Short() + ")"
	} else {
		h.rep.New = "working tree"
		if _, err := readWhole(env, in.New.Path); err != nil {
			return err
		}
	}
	na, err := OpenSchemaArg(&newEnv, newDoc, "new")
	if err != nil {
		return err
	}
	h.newSchema, err = compileArg(na, &newEnv, SchemaOptions{AssertFormat: in.AssertFormat})
	return err
}

// againstVersions are the file's versions at the revisions --against names, each at the
// path it had there (renames followed).
func (h *historyRun) againstVersions() ([]historyIn, error) {
	repo, start := h.repo, h.start
	if start.IsZero() {
		start, _ = repo.Resolve("HEAD") // a repository without commits: no rename to follow
	}
	var olds []historyIn
	for _, a := range h.in.Against {
		for _, rev := range strings.Split(a, ",") {
			if rev = strings.TrimSpace(rev); rev == "" {
				continue
			}
			hv, err := h.againstVersion(start, rev)
			if err != nil {
				return nil, err
			}
			olds = append(olds, hv)
		}
	}
	return olds, nil
}

// againstVersion is the file's version at revision rev; "absent" when rev has no such file.
func (h *historyRun) againstVersion(start gitread.Hash, rev string) (historyIn, error) {
	repo := h.repo
	hash, err := repo.Resolve(rev)
	if err != nil {
		return historyIn{}, fmt.Errorf("%s: %w", h.env.arg("against"), err)
	}
	c, err := repo.Commit(hash)
	if err != nil {
		return historyIn{}, err
	}
	p := renamedAt(h.ctx, repo, start, hash, h.rel)
	hv := historyIn{v: versionOf(rev+" ("+hash.Short()+")", c, p), commit: c}
	e, ok, err := repo.Lookup(c.Tree, p)
	switch {
	case err != nil:
		return historyIn{}, err
	case !ok || e.IsDir():
		hv.v.Verdict, hv.v.Error = "absent", fmt.Sprintf("%s has no file %s (new since then): nothing to compare", rev, p)
	default:
		hv.blob = e.Hash
	}
	return hv, nil
}

// historyVersions are the file's earlier committed versions, newest first, within --last
// (or the default limit) and --since; none is true when the file has no committed version
// (the report then says so).
func (h *historyRun) historyVersions() (olds []historyIn, none bool, err error) {
	repo, in, rep, start := h.repo, h.in, h.rep, h.start
	if start.IsZero() {
		if start, err = repo.Resolve("HEAD"); err != nil {
			return nil, false, err
		}
	}
	limit := DefaultHistoryLimit
	if in.Last > 0 {
		limit = in.Last
	}
	ho := gitread.HistoryOptions{Max: limit + 1}
	if in.Since != "" {
		if ho.Since, err = repo.Resolve(in.Since); err != nil {
			return nil, false, fmt.Errorf("%s: %w", h.env.arg("since"), err)
		}
	}
	hist, err := repo.History(h.ctx, start, h.rel, ho)
	if errors.Is(err, fs.ErrNotExist) {
		rep.Verdict = "nothing to compare"
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s has no committed version in %s: a new file has no history to compare with", rep.File, start.Short()))
		rep.Versions = []historyVersion{}
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	vs := hist.Versions
	if in.Rev != "" {
		vs = vs[1:] // the version checked itself
	} else if len(vs) > limit {
		vs = vs[:limit]
		hist.Truncated = true
	}
	for _, v := range vs {
		olds = append(olds, historyIn{v: versionOf(v.Commit.Hash.Short(), v.Commit, v.Path), blob: v.Blob, commit: v.Commit})
	}
	if hist.Truncated && in.Last == 0 && in.Since == "" {
		rep.Notes = append(rep.Notes, fmt.Sprintf("only the last %d earlier versions were compared (the default limit): --last N or --since REV chooses others", limit))
	}
	if hist.ShallowAt != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the history stops at %s (%s): this is a shallow clone and the earlier commits are not in it (git fetch --unshallow fetches them)", hist.ShallowAt.Hash.Short(), hist.ShallowAt.Subject))
	}
	if len(olds) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s has no earlier committed version", h.rel))
	}
	return olds, false, nil
}

// compareAll compares the new version with each earlier one the mode checks; a version
// with the same content as one compared already shares its verdict. It returns the
// verdicts seen.
func (h *historyRun) compareAll(olds []historyIn) (map[diff.Verdict]bool, error) {
	done := map[gitread.Hash]int{}
	verdicts := map[diff.Verdict]bool{}
	for i := range olds {
		o := &olds[i]
		if err := h.ctx.Err(); err != nil {
			return nil, err
		}
		if o.v.Verdict != "" { // absent at that revision
			continue
		}
		if h.mode.Direction == "" || (!h.mode.Transitive && i > 0) {
			o.v.Verdict = "not checked"
			continue
		}
		if j, ok := done[o.blob]; ok && olds[j].v.Error == "" {
			prev := olds[j].v
			o.v.Verdict, o.v.Direction, o.v.Change, o.v.Example, o.v.More, o.v.SameAs = prev.Verdict, prev.Direction, prev.Change, prev.Example, prev.More, prev.Revision
			count(h.rep, verdicts, diff.Verdict(prev.Verdict))
			continue
		}
		done[o.blob] = i
		res, err := h.compareOne(o)
		if err != nil {
			return nil, err
		}
		if res == nil {
			o.v.Verdict = "could not compare"
			h.rep.CouldNotCompare++
			continue
		}
		o.v.Verdict = string(res.Verdict)
		fillBreak(&o.v, res)
		count(h.rep, verdicts, res.Verdict)
	}
	return verdicts, nil
}

// compareOne compiles an earlier version as of its own commit and compares the new version
// with it. A version that cannot be compiled or compared gets its error and a nil result;
// the error returned is the context's.
func (h *historyRun) compareOne(o *historyIn) (*diff.Result, error) {
	oenv := *h.env
	oenv.Cache = nil
	oenv.Index = nil
	oenv.FS = h.within(h.repo.TreeFS(o.commit, h.wd))
	oa, err := OpenSchemaArg(&oenv, Doc{Path: path.Join(h.top, o.v.Path)}, "old")
	var old *schema.Schema
	if err == nil {
		old, err = compileArg(oa, &oenv, SchemaOptions{AssertFormat: h.in.AssertFormat})
	}
	if err != nil {
		o.v.Error = err.Error()
		return nil, nil
	}
	po := *h.opts
	po.Direction = h.mode.Direction
	po.Check = false
	res, err := diff.Compare(h.ctx, old, h.newSchema, &po)
	if err != nil {
		if h.ctx.Err() != nil {
			return nil, err
		}
		o.v.Error = err.Error()
		return nil, nil
	}
	return res, nil
}

// overallVerdict is the history's verdict: none for mode none, incompatible when a version
// breaks, unknown when one is undecided, else compatible.
func overallVerdict(mode Mode, compared int, verdicts map[diff.Verdict]bool) string {
	switch {
	case mode.Direction == "":
		return "none"
	case compared == 0:
		return "nothing to compare"
	case verdicts[diff.Incompatible]:
		return string(diff.Incompatible)
	case verdicts[diff.Unknown]:
		return string(diff.Unknown)
	}
	return string(diff.Compatible)
}

// renamedAt is the path the file at p in start had in the commit at, following renames
// along the first-parent history between them; p when at is not on it.
func renamedAt(ctx context.Context, repo *gitread.Repo, start, at gitread.Hash, p string) string {
	if start.IsZero() {
		return p
	}
	if c, err := repo.Commit(at); err == nil {
		if _, ok, _ := repo.Lookup(c.Tree, p); ok {
			return p
		}
	}
	h, err := repo.History(ctx, start, p, gitread.HistoryOptions{Since: at})
	if err != nil || len(h.Versions) == 0 {
		return p
	}
	return h.Versions[len(h.Versions)-1].Path
}

// fitBudget keeps the report within budget bytes of JSON (0: no budget): the changes and
// proofs of the oldest versions are left out first, and a note counts them.
func fitBudget(rep *historyReport, budget int) {
	if budget <= 0 {
		return
	}
	size := func() int {
		b, _ := json.Marshal(rep)
		return len(b)
	}
	cut := 0
	for i := len(rep.Versions) - 1; i >= 0 && size() > budget; i-- {
		v := &rep.Versions[i]
		if v.Change != nil || len(v.Example) > 0 || v.Error != "" {
			v.Change, v.Example, v.Error = nil, nil, ""
			cut++
		}
	}
	if cut > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the changes of %d older version(s) were left out to fit the result budget: --last or --against narrows the history", cut))
	}
}

func count(rep *historyReport, seen map[diff.Verdict]bool, v diff.Verdict) {
	rep.Compared++
	seen[v] = true
	switch v {
	case diff.Incompatible:
		rep.Breaking++
	case diff.Unknown:
		rep.Unknown++
	}
}

// fillBreak keeps the first change that breaks the checked direction, with its proof,
// and counts the others.
func fillBreak(v *historyVersion, res *diff.Result) {
	if res.Verdict != diff.Incompatible {
		if res.Verdict == diff.Unknown {
			v.Direction = res.Direction
		}
		return
	}
	dirs := []string{res.Direction}
	if res.Direction == "full" {
		dirs = []string{"backward", "forward"}
	}
	for _, d := range dirs {
		if (d == "backward" && res.Backward == diff.Incompatible) || (d == "forward" && res.Forward == diff.Incompatible) {
			v.Direction = d
			break
		}
	}
	for i := range res.Changes {
		c := res.Changes[i]
		for _, b := range c.Breaks {
			if b == v.Direction && v.Change == nil {
				v.Change = &c
				v.Example = c.Example
			}
		}
	}
	if v.Change == nil {
		if v.Direction == "backward" {
			v.Example = res.BackwardExample
		} else {
			v.Example = res.ForwardExample
		}
	}
	v.More = len(res.Changes)
	if v.Change != nil {
		v.More--
	}
}

func versionOf(label string, c *gitread.Commit, p string) historyVersion {
	return historyVersion{Revision: label, Commit: c.Hash.String(), Subject: c.Subject, Date: c.Time.UTC(), Path: p}
}

// readWhole reads a file of env.FS within the document limit.
func readWhole(env *Env, name string) ([]byte, error) {
	r, err := env.FS.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, gitread.MaxObject))
}
