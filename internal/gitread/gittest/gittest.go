// Package gittest writes git repositories for tests, in-process (no git program): loose
// objects, commits of whole file sets on branch main, tags. It is imported by tests only.
package gittest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/gitread"
)

// Repo is a repository being written; its working tree is Dir.
type Repo struct {
	t testing.TB
	// Dir is the working tree; the objects are in Dir/.git.
	Dir  string
	when int64
	head gitread.Hash
}

// New makes an empty repository in a temporary directory, on branch main.
func New(t testing.TB) *Repo {
	r := &Repo{t: t, Dir: t.TempDir(), when: 1767225600} // 2026-01-01
	for _, d := range []string{".git/objects/pack", ".git/refs/heads", ".git/refs/tags"} {
		r.mkdir(d)
	}
	r.Write(".git/HEAD", "ref: refs/heads/main\n")
	return r
}

func (r *Repo) mkdir(d string) {
	if err := os.MkdirAll(filepath.Join(r.Dir, filepath.FromSlash(d)), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// Write writes a file of the working tree (or of .git).
func (r *Repo) Write(name, content string) {
	p := filepath.Join(r.Dir, filepath.FromSlash(name))
	r.mkdir(filepath.ToSlash(filepath.Dir(name)))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Object writes a loose object and returns its name.
func (r *Repo) Object(typ string, data []byte) gitread.Hash {
	hdr := fmt.Sprintf("%s %d\x00", typ, len(data))
	s := sha1.New()
	s.Write([]byte(hdr))
	s.Write(data)
	var h gitread.Hash
	copy(h[:], s.Sum(nil))
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	z.Write([]byte(hdr))
	z.Write(data)
	z.Close()
	name := h.String()
	r.mkdir(".git/objects/" + name[:2])
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "objects", name[:2], name[2:]), buf.Bytes(), 0o444); err != nil && !os.IsPermission(err) {
		r.t.Fatal(err)
	}
	return h
}

// Tree writes the tree of files (slash-separated path -> content).
func (r *Repo) Tree(files map[string]string) gitread.Hash {
	type entry struct {
		name, sort string
		mode       string
		h          gitread.Hash
	}
	subs := map[string]map[string]string{}
	var ents []entry
	for p, c := range files {
		if d, rest, ok := strings.Cut(p, "/"); ok {
			if subs[d] == nil {
				subs[d] = map[string]string{}
			}
			subs[d][rest] = c
			continue
		}
		ents = append(ents, entry{p, p, "100644", r.Object("blob", []byte(c))})
	}
	for d, sub := range subs {
		ents = append(ents, entry{d, d + "/", "40000", r.Tree(sub)})
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].sort < ents[j].sort })
	var buf bytes.Buffer
	for _, e := range ents {
		fmt.Fprintf(&buf, "%s %s\x00", e.mode, e.name)
		buf.Write(e.h[:])
	}
	return r.Object("tree", buf.Bytes())
}

// Commit commits files (the whole tree) on top of main, moves main to it, writes the files
// into the working tree, and returns the commit. Each commit is a day after the last.
func (r *Repo) Commit(msg string, files map[string]string) gitread.Hash {
	tree := r.Tree(files)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", tree)
	if !r.head.IsZero() {
		fmt.Fprintf(&buf, "parent %s\n", r.head)
	}
	r.when += 86400
	fmt.Fprintf(&buf, "author Test <test@example.com> %d +0000\ncommitter Test <test@example.com> %d +0000\n\n%s\n", r.when, r.when, msg)
	r.head = r.Object("commit", buf.Bytes())
	r.Write(".git/refs/heads/main", r.head.String()+"\n")
	for p, c := range files {
		r.Write(p, c)
	}
	return r.head
}

// Tag points the lightweight tag name at commit h.
func (r *Repo) Tag(name string, h gitread.Hash) {
	r.Write(".git/refs/tags/"+name, h.String()+"\n")
}
