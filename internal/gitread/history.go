package gitread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Version is one version of a file in its history.
type Version struct {
	// Commit is the commit that introduced this content (the oldest of the run of commits
	// that have it).
	Commit *Commit
	// Path is the file's path in that commit (it differs from the path asked when the file
	// was renamed since).
	Path string
	// Blob names the content.
	Blob Hash
}

// HistoryOptions bound a history walk.
type HistoryOptions struct {
	// Max is the most versions returned (0: no limit).
	Max int
	// Since, when not zero, ends the walk at this commit: the versions returned are the
	// one in effect at Since and those introduced after it.
	Since Hash
}

// History is the list of a file's versions, newest first.
type History struct {
	// Versions are the distinct consecutive versions, newest first.
	Versions []Version
	// Truncated is set when Max ended the walk before the first commit.
	Truncated bool
	// ShallowAt is set when the walk ended at the boundary of a shallow clone: the commits
	// before it are not in the repository.
	ShallowAt *Commit
	// Commits is the number of commits walked.
	Commits int
}

// History walks the first-parent history of start back and returns the versions of the
// file at p (slash-separated, from the top of the repository), following renames: when
// the file appears in a commit, the file its parent had that the commit deleted with the
// same content, or failing that the most similar one (at least half of the lines in
// common, of the same extension), is taken as its earlier name.
func (r *Repo) History(ctx context.Context, start Hash, p string, o HistoryOptions) (*History, error) {
	cur, err := r.Commit(start)
	if err != nil {
		return nil, err
	}
	e, ok, err := r.Lookup(cur.Tree, p)
	if err != nil {
		return nil, err
	}
	if !ok || e.IsDir() {
		return nil, &fs.PathError{Op: "history", Path: start.Short() + ":" + p, Err: fs.ErrNotExist}
	}
	h := &History{Versions: []Version{{cur, p, e.Hash}}, Commits: 1}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !o.Since.IsZero() && cur.Hash == o.Since {
			return h, nil
		}
		if len(cur.Parents) == 0 {
			if cur.Shallow {
				h.ShallowAt = cur
			}
			break
		}
		parent, err := r.Commit(cur.Parents[0])
		if err != nil {
			return nil, err
		}
		h.Commits++
		last := &h.Versions[len(h.Versions)-1]
		pe, ok, err := r.Lookup(parent.Tree, p)
		if err != nil {
			return nil, err
		}
		if !ok || pe.IsDir() {
			from, err := r.renameSource(ctx, parent.Tree, cur.Tree, p, last.Blob)
			if err != nil {
				return nil, err
			}
			if from == "" {
				break // the file was created in cur
			}
			p = from
			if pe, _, err = r.Lookup(parent.Tree, p); err != nil {
				return nil, err
			}
		}
		if pe.Hash == last.Blob {
			last.Commit, last.Path = parent, p
		} else {
			if o.Max > 0 && len(h.Versions) >= o.Max {
				h.Truncated = true
				return h, nil
			}
			h.Versions = append(h.Versions, Version{parent, p, pe.Hash})
		}
		cur = parent
	}
	if !o.Since.IsZero() {
		return nil, fmt.Errorf("%s is not on the first-parent history of %s that has %s", o.Since.Short(), start.Short(), p)
	}
	return h, nil
}

// maxRenameBlob bounds the files compared for a rename by similarity.
const maxRenameBlob = 4 << 20

// renameSource finds the earlier name of the file at p in tree cur, absent from its
// parent's tree old: a file old has and cur does not, with the same content blob, or the
// most similar one. It returns "" when there is none.
func (r *Repo) renameSource(ctx context.Context, old, cur Hash, p string, blob Hash) (string, error) {
	deleted, err := r.deletedFiles(ctx, old, cur)
	if err != nil {
		return "", err
	}
	for _, d := range deleted {
		if d.Hash == blob {
			return d.Name, nil
		}
	}
	data, err := r.Blob(blob)
	if err != nil || len(data) > maxRenameBlob {
		return "", err
	}
	best, bestScore := "", 0.5
	for _, d := range deleted {
		if path.Ext(d.Name) != path.Ext(p) {
			continue
		}
		other, err := r.Blob(d.Hash)
		if err != nil {
			if errors.Is(err, ErrCorrupt) {
				return "", err
			}
			continue
		}
		if len(other) > maxRenameBlob {
			continue
		}
		if s := similarity(data, other); s >= bestScore {
			best, bestScore = d.Name, s
		}
	}
	return best, nil
}

// deletedFiles lists the files (with their full paths as Name) of tree old that tree cur
// does not have, skipping the subtrees the two share; a stack, not recursion.
func (r *Repo) deletedFiles(ctx context.Context, old, cur Hash) ([]TreeEntry, error) {
	type pair struct {
		dir      string
		old, cur Hash
		curOK    bool
	}
	var out []TreeEntry
	stack := []pair{{"", old, cur, true}}
	for steps := 0; len(stack) > 0; steps++ {
		if steps%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if pr.curOK && pr.old == pr.cur {
			continue
		}
		oe, err := r.Tree(pr.old)
		if err != nil {
			return nil, err
		}
		have := map[string]TreeEntry{}
		if pr.curOK {
			ce, err := r.Tree(pr.cur)
			if err != nil {
				return nil, err
			}
			for _, e := range ce {
				have[e.Name] = e
			}
		}
		for _, e := range oe {
			full := path.Join(pr.dir, e.Name)
			c, ok := have[e.Name]
			if e.IsDir() {
				stack = append(stack, pair{full, e.Hash, c.Hash, ok && c.IsDir()})
				continue
			}
			if !ok && e.Mode&0o170000 == 0o100000 {
				out = append(out, TreeEntry{Name: full, Mode: e.Mode, Hash: e.Hash})
			}
		}
	}
	return out, nil
}

// similarity is the share of the bytes of a and b in lines they have in common.
func similarity(a, b []byte) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, l := range bytes.SplitAfter(a, []byte("\n")) {
		count[strings.TrimSpace(string(l))]++
	}
	common := 0
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		k := strings.TrimSpace(string(l))
		if count[k] > 0 {
			count[k]--
			common += 2 * len(l)
		}
	}
	return float64(common) / float64(len(a)+len(b))
}
