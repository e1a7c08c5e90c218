package fetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Ref is a remote URL and what names it (a file of the workspace, or the URL of a fetched
// document).
type Ref struct {
	URL, From string
}

// refKeys are the members whose string value names another document.
var refKeys = map[string]bool{"$ref": true, "$dynamicRef": true, "$recursiveRef": true, "$schema": true}

// Discover returns, sorted, the remote URLs that the files of fsys name: a top-level "$schema", a
// `# yaml-language-server: $schema=URL` or `#:schema URL` modeline, and every absolute
// http(s) "$ref" (a relative one is the workspace's own file). A URL that a file of the
// workspace stands for (beside the referring file, or declared as an $id by one of files)
// is not remote and is left out. Files that cannot be read or parsed are reported and
// passed over.
func Discover(ctx context.Context, fsys workspace.FS, files []string, lim *source.Limits) ([]Ref, []error) {
	var refs []Ref
	var errs []error
	ids := map[string]bool{}
	type found struct {
		ref  Ref
		base string
	}
	var all []found
	limit := int64(source.DefaultMaxSize)
	if lim != nil && lim.MaxSize > 0 {
		limit = lim.MaxSize
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, []error{err}
		}
		data, err := workspace.ReadFile(fsys, f, limit)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, u := range modelines(data) {
			all = append(all, found{Ref{u, f}, ""})
		}
		format, ok := source.FormatOf(f)
		if !ok || format == source.NDJSON {
			continue
		}
		docs, err := source.Parse(f, data, format, lim)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range docs {
			base := ""
			if d.Root.Kind() == source.Object {
				if id, ok := d.Root.Get("$id"); ok && id.Kind() == source.String && isRemote(id.Str()) {
					base = stripFragment(id.Str())
				}
			}
			rs, docIDs := walkRefs(d.Root, base)
			for id := range docIDs {
				ids[id] = true
			}
			for _, u := range rs {
				if !isRemote(u.raw) {
					continue // relative to a remote $id: the file beside it, or the $id index
				}
				if u.key != "$schema" || u.top {
					all = append(all, found{Ref{u.url, f}, base})
				}
			}
		}
	}
	l := &schema.Loader{FS: fsys}
	seen := map[string]bool{}
	for _, a := range all {
		if ids[a.ref.URL] || seen[a.ref.URL] {
			continue
		}
		if a.base != "" {
			if name, ok := l.Beside(a.ref.URL, &schema.Referrer{File: a.ref.From, Bases: []string{a.base}}); ok {
				if fi, err := fsys.Stat(name); err == nil && fi.Mode().IsRegular() {
					continue
				}
			}
		}
		seen[a.ref.URL] = true
		refs = append(refs, a.ref)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].URL < refs[j].URL })
	return refs, errs
}

// modelines returns the schema URLs of the editor modelines in the first lines of data:
// yaml-language-server's `# yaml-language-server: $schema=URL` and taplo's `#:schema URL`.
func modelines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data[:min(len(data), 4096)]))
	for n := 0; sc.Scan() && n < 20; n++ {
		line := strings.TrimSpace(sc.Text())
		var u string
		if rest, ok := strings.CutPrefix(line, "#:schema "); ok {
			u = strings.TrimSpace(rest)
		} else if rest, ok := strings.CutPrefix(line, "#"); ok {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(rest), "yaml-language-server:"); ok {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(rest), "$schema="); ok {
					u = strings.TrimSpace(rest)
				}
			}
		}
		if isRemote(u) {
			out = append(out, stripFragment(u))
		}
	}
	return out
}

type foundRef struct {
	key, raw, url string
	top           bool // a member of the document's root
}

// walkRefs returns the references of a document resolved against the base URIs in force
// where they stand (base, changed by every "$id" on the way), and the $ids it declares.
// The walk keeps its own stack: no recursion.
func walkRefs(root source.Value, base string) ([]foundRef, map[string]bool) {
	type frame struct {
		v    source.Value
		base string
		top  bool
	}
	var out []foundRef
	ids := map[string]bool{}
	stack := []frame{{root, base, true}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch f.v.Kind() {
		case source.Array:
			for i := f.v.Len() - 1; i >= 0; i-- {
				stack = append(stack, frame{f.v.Index(i), f.base, false})
			}
		case source.Object:
			b := f.base
			if id, ok := f.v.Get("$id"); ok && id.Kind() == source.String && !strings.HasPrefix(id.Str(), "#") {
				if r := resolve(b, id.Str()); r != "" {
					b = stripFragment(r)
					if isRemote(b) {
						ids[b] = true
					}
				}
			}
			for i := f.v.Len() - 1; i >= 0; i-- {
				k, v := f.v.Member(i)
				if refKeys[k.Str()] && v.Kind() == source.String {
					if r := resolve(b, v.Str()); isRemote(r) {
						out = append(out, foundRef{key: k.Str(), raw: v.Str(), url: stripFragment(r), top: f.top})
					}
					continue
				}
				stack = append(stack, frame{v, b, false})
			}
		}
	}
	return out, ids
}

// remoteRefs returns the remote documents a fetched document names, resolved against its
// URL and its $ids, less those it holds itself (its embedded $ids).
func remoteRefs(root source.Value, docURL string) []string {
	refs, ids := walkRefs(root, docURL)
	ids[docURL] = true
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		if !ids[r.url] && !seen[r.url] {
			seen[r.url] = true
			out = append(out, r.url)
		}
	}
	return out
}

func resolve(base, ref string) string {
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if r.IsAbs() || base == "" {
		return r.String()
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return b.ResolveReference(r).String()
}

func isRemote(u string) bool {
	return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// Credentials give the Authorization header for a host, over https only:
//
//   - the environment variable TokenVar(host) (JSTK_FETCH_TOKEN_ and the host name in
//     capitals, every character but a letter or a digit made "_":
//     JSTK_FETCH_TOKEN_SCHEMAS_EXAMPLE_COM), sent as "Bearer <token>";
//   - else the `machine <host>` entry of the netrc file, sent as Basic login:password
//     (a `default` entry is not used: credentials go only to the hosts named).
//
// They are never written to the lock, the cache, or a message.
type Credentials struct {
	// Getenv reads the environment (nil: no tokens).
	Getenv func(string) string
	// Netrc holds the machines of the netrc file.
	Netrc map[string]NetrcEntry
}

// NetrcEntry is a machine's login and password in a netrc file.
type NetrcEntry struct {
	Login, Password string
}

// TokenVar returns the environment variable that holds the token for host.
func TokenVar(host string) string {
	var b strings.Builder
	b.WriteString("JSTK_FETCH_TOKEN_")
	for _, c := range strings.ToUpper(host) {
		if 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func (c *Credentials) header(host string) string {
	if c.Getenv != nil {
		if t := strings.TrimSpace(c.Getenv(TokenVar(host))); t != "" {
			return "Bearer " + t
		}
	}
	if e, ok := c.Netrc[strings.ToLower(host)]; ok && (e.Login != "" || e.Password != "") {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(e.Login+":"+e.Password))
	}
	return ""
}

// ParseNetrc reads the machines of a netrc file (the format of curl and ftp: tokens
// `machine`, `login`, `password`, `account`, `default`, `macdef`, separated by white space).
func ParseNetrc(data string) map[string]NetrcEntry {
	out := map[string]NetrcEntry{}
	var lines []string
	// A macdef runs to the next empty line: drop it.
	inMacro := false
	for _, line := range strings.Split(data, "\n") {
		if inMacro {
			if strings.TrimSpace(line) == "" {
				inMacro = false
			}
			continue
		}
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		fs := strings.Fields(line)
		for i, f := range fs {
			if f == "macdef" {
				fs = fs[:i]
				inMacro = true
				break
			}
		}
		lines = append(lines, strings.Join(fs, " "))
	}
	toks := strings.Fields(strings.Join(lines, " "))
	machine := ""
	var cur NetrcEntry
	flush := func() {
		if machine != "" {
			if _, dup := out[machine]; !dup {
				out[machine] = cur
			}
		}
		machine, cur = "", NetrcEntry{}
	}
	for i := 0; i < len(toks); i++ {
		next := func() string {
			if i+1 < len(toks) {
				i++
				return toks[i]
			}
			return ""
		}
		switch toks[i] {
		case "machine":
			flush()
			machine = strings.ToLower(next())
		case "default":
			flush()
		case "login":
			cur.Login = next()
		case "password":
			cur.Password = next()
		case "account":
			next()
		}
	}
	flush()
	return out
}

// WriteLock writes l to the file p atomically: a temporary file beside it, synced, then
// renamed over it, so that a reader sees the old lock or the new one, never part of one.
func WriteLock(p string, l *lockfile.Lock) error {
	dir := filepath.Dir(p)
	tmp, err := os.CreateTemp(dir, ".jstk.lock-*")
	if err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(l.Marshal()); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	ok = true
	return nil
}
