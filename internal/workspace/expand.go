package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// skipDir reports directories that a directory walk never enters: hidden ones and
// dependency caches.
func skipDir(name string) bool {
	return name == "node_modules" || (strings.HasPrefix(name, ".") && name != "." && name != "..")
}

// IsGlob reports whether a name holds glob metacharacters.
func IsGlob(name string) bool { return strings.ContainsAny(name, "*?[") }

// Expand turns arguments into file names: a file stands for itself, a directory for the
// files under it whose name ends with one of exts (recursively, skipping hidden directories
// and node_modules), and a glob pattern ("*", "?", "[...]", and "**" for any number of
// directories) for the files it matches (as in a shell, a name starting with "." only when
// the pattern's segment starts with "." too). "-" (stdin) is passed through. An argument that
// cannot be read or matches nothing gives an error, and the others still expand. The result
// keeps the order of the arguments, each directory's files sorted, without duplicates.
func Expand(fsys FS, args []string, exts []string) ([]string, []error) {
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
		if arg == "-" {
			add(arg)
			continue
		}
		name := filepath.ToSlash(arg)
		if IsGlob(name) {
			matches, werrs := glob(fsys, name)
			errs = append(errs, werrs...)
			if len(matches) == 0 && len(werrs) == 0 {
				errs = append(errs, fmt.Errorf("%s: no file matches this pattern", arg))
				continue
			}
			for _, m := range matches {
				add(m)
			}
			continue
		}
		fi, err := fsys.Stat(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fi.IsDir() {
			add(arg)
			continue
		}
		n := len(files)
		werrs := walk(fsys, name, func(p string) {
			if hasExt(p, exts) {
				add(p)
			}
		})
		errs = append(errs, werrs...)
		if len(files) == n && len(werrs) == 0 {
			errs = append(errs, fmt.Errorf("%s: directory holds no %s file", arg, strings.Join(exts, ", ")))
		}
	}
	return files, errs
}

func hasExt(name string, exts []string) bool {
	if len(exts) == 0 {
		return true
	}
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

// walk calls fn for every regular file under dir, depth first, in name order. A
// directory that cannot be listed is reported, and the walk goes on with the others.
func walk(fsys FS, dir string, fn func(string)) []error {
	es, err := fsys.ReadDir(dir)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, e := range es {
		p := path.Join(dir, e.Name())
		if dir == "." {
			p = e.Name()
		}
		switch {
		case e.IsDir():
			if skipDir(e.Name()) {
				continue
			}
			errs = append(errs, walk(fsys, p, fn)...)
		case e.Type().IsRegular():
			fn(p)
		case e.Type()&fs.ModeSymlink != 0:
			if fi, err := fsys.Stat(p); err == nil && fi.Mode().IsRegular() {
				fn(p)
			}
		}
	}
	return errs
}

// glob matches pattern against the files of fsys.
func glob(fsys FS, pattern string) ([]string, []error) {
	segs := strings.Split(pattern, "/")
	// The literal prefix is where the walk starts.
	base := 0
	for base < len(segs) && !IsGlob(segs[base]) {
		base++
	}
	dir := strings.Join(segs[:base], "/")
	switch {
	case dir == "" && strings.HasPrefix(pattern, "/"):
		dir = "/"
	case dir == "":
		dir = "."
	default:
		dir = path.Clean(dir) // walk names files by the clean directory name
	}
	for _, s := range segs[base:] {
		if _, err := path.Match(s, ""); err != nil && s != "**" {
			return nil, []error{fmt.Errorf("%s: invalid pattern: %v", pattern, err)}
		}
	}
	fi, err := fsys.Stat(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, []error{fmt.Errorf("%s: %w", pattern, err)} // outside the workspace, unreadable: say so, not "no match"
	}
	if err != nil || !fi.IsDir() {
		return nil, nil
	}
	var out []string
	errs := walk(fsys, dir, func(p string) {
		rel := p
		if dir != "." {
			rel = strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		}
		if MatchSegments(segs[base:], strings.Split(rel, "/")) {
			out = append(out, p)
		}
	})
	return out, errs
}

// MatchSegments matches the segments of a slash-separated name against those of a glob
// pattern ("*", "?", "[...]" within a segment); "**" stands for any number of segments. As
// in a shell, a wildcard does not match a leading dot.
func MatchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if MatchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		if strings.HasPrefix(name[0], ".") && !strings.HasPrefix(pat[0], ".") {
			return false // as in a shell, a wildcard does not match a leading dot
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// RelPath is the relative path from the directory dir to the file p, both slash-separated
// and rooted alike (both absolute, or both relative to one root): "../b/c.json" from "/x/a"
// to "/x/b/c.json". The file's name is always kept, even when dir is p.
func RelPath(dir, p string) string {
	ds := strings.Split(strings.Trim(path.Clean(dir), "/"), "/")
	ps := strings.Split(strings.Trim(path.Clean(p), "/"), "/")
	if ds[0] == "" {
		ds = nil
	}
	i := 0
	for i < len(ds) && i < len(ps)-1 && ds[i] == ps[i] {
		i++
	}
	var parts []string
	for range ds[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, ps[i:]...)
	return strings.Join(parts, "/")
}
