package assoc

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	gitignore "github.com/sabhiram/go-gitignore"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// WalkOptions say which directories a walk enters.
type WalkOptions struct {
	// Hidden reports whether a hidden directory (".github") is entered although it was not
	// named: jstk enters those that a pattern of the catalog or of jstk.json names.
	Hidden func(name string) bool
}

// Walk lists the files the arguments stand for: a file itself, a glob pattern the files it
// matches (workspace.Expand's syntax), a directory every file under it, honouring the
// .gitignore files found on the way (github.com/sabhiram/go-gitignore reads them) and
// skipping .git, node_modules and hidden directories (unless named, or opts.Hidden says
// so). The files come sorted within each argument, without duplicates. An argument that
// cannot be read is an error, and the others still walk. The walk stops when ctx is done.
func Walk(ctx context.Context, fsys workspace.FS, args []string, opts *WalkOptions) ([]string, []error) {
	if opts == nil {
		opts = &WalkOptions{}
	}
	var files []string
	var errs []error
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			files = append(files, name)
		}
	}
	for _, arg := range args {
		name := path.Clean(strings.ReplaceAll(arg, "\\", "/"))
		if arg == "-" || workspace.IsGlob(name) {
			fs, es := workspace.Expand(fsys, []string{arg}, nil)
			for _, f := range fs {
				add(f)
			}
			errs = append(errs, es...)
			continue
		}
		fi, err := fsys.Stat(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fi.IsDir() {
			add(name)
			continue
		}
		w := &walker{ctx: ctx, fsys: fsys, opts: opts, add: add}
		w.dirs = append(w.dirs, pending{dir: name})
		errs = append(errs, w.run()...)
		if err := ctx.Err(); err != nil {
			return files, append(errs, err)
		}
	}
	return files, errs
}

// walker walks one directory tree without recursion: a stack of directories, each with the
// .gitignore files that apply in it.
type walker struct {
	ctx  context.Context
	fsys workspace.FS
	opts *WalkOptions
	add  func(string)
	dirs []pending
}

type pending struct {
	dir     string
	ignores []ignoreFile
}

type ignoreFile struct {
	dir string // the folder of the .gitignore: its patterns match paths relative to it
	gi  *gitignore.GitIgnore
}

func (w *walker) run() []error {
	var errs []error
	for len(w.dirs) > 0 {
		if w.ctx.Err() != nil {
			return errs
		}
		p := w.dirs[len(w.dirs)-1]
		w.dirs = w.dirs[:len(w.dirs)-1]
		es, err := w.fsys.ReadDir(p.dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ignores := p.ignores
		for _, e := range es {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				gf := join(p.dir, ".gitignore")
				data, err := workspace.ReadFile(w.fsys, gf, 1<<20)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", gf, err))
					break
				}
				ignores = append(ignores[:len(ignores):len(ignores)], ignoreFile{dir: p.dir, gi: gitignore.CompileIgnoreLines(strings.Split(string(data), "\n")...)})
				break
			}
		}
		var subdirs []string
		for _, e := range es {
			name := join(p.dir, e.Name())
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				fi, err := w.fsys.Stat(name)
				if err != nil {
					continue // a dangling link, or one that leaves the workspace
				}
				isDir = fi.IsDir()
				if !isDir && !fi.Mode().IsRegular() {
					continue
				}
			} else if !isDir && !e.Type().IsRegular() {
				continue
			}
			if isDir && skipped(e.Name(), w.opts) {
				continue
			}
			if ignored(ignores, name, isDir) {
				continue
			}
			if isDir {
				subdirs = append(subdirs, name)
				continue
			}
			w.add(name)
		}
		// Depth first, in name order: push the subdirectories in reverse.
		sort.Strings(subdirs)
		for i := len(subdirs) - 1; i >= 0; i-- {
			w.dirs = append(w.dirs, pending{dir: subdirs[i], ignores: ignores})
		}
	}
	return errs
}

// skipped reports the directories a walk does not enter unless named.
func skipped(name string, opts *WalkOptions) bool {
	switch {
	case name == ".git" || name == "node_modules":
		return true
	case strings.HasPrefix(name, "."):
		return opts.Hidden == nil || !opts.Hidden(name)
	}
	return false
}

// ignored reports whether a .gitignore that applies ignores name.
func ignored(ignores []ignoreFile, name string, isDir bool) bool {
	out := false
	for _, ig := range ignores {
		rel, ok := relTo(ig.dir, name)
		if !ok {
			continue
		}
		if isDir {
			rel += "/"
		}
		if matched, how := ig.gi.MatchesPathHow(rel); how != nil {
			out = matched // a deeper .gitignore decides over the ones above it
		}
	}
	return out
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return path.Join(dir, name)
}
