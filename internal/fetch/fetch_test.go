package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// server starts a TLS server on 127.0.0.1 (never another address) with handler h, and
// returns its base URL and the pool that trusts its certificate.
func server(t *testing.T, h http.Handler) (string, *x509.CertPool) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("the test server listens on %s, not on 127.0.0.1", srv.URL)
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv.URL, pool
}

// docs serves fixed documents by path, counting the requests.
type docs struct {
	mu    sync.Mutex
	files map[string]string
	hits  map[string]int
}

func (d *docs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	body, ok := d.files[r.URL.Path]
	if d.hits == nil {
		d.hits = map[string]int{}
	}
	d.hits[r.URL.Path]++
	d.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

type logger struct {
	mu    sync.Mutex
	lines []string
}

func (l *logger) log(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logger) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func options(t *testing.T, pool *x509.CertPool, log *logger) *Options {
	t.Helper()
	return &Options{Cache: t.TempDir(), RootCAs: pool, Log: log.log,
		Now: func() time.Time { return time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC) }}
}

// cacheFiles lists the files of the cache, temporary ones included.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A workspace names one remote document, which names a second (relative to its URL), which
// names a third (absolute), which names the first again: three documents fetched, each
// once, pinned in a sorted lock; a second run downloads nothing.
func TestClosureOfThree(t *testing.T) {
	d := &docs{}
	base, pool := server(t, d)
	d.files = map[string]string{
		"/s/a.json": `{"$id": "` + base + `/s/a.json", "properties": {"b": {"$ref": "b.json#/$defs/x"}, "self": {"$ref": "#"}}}`,
		"/s/b.json": `{"$defs": {"x": {"$ref": "` + base + `/other/c.json"}}, "$schema": "https://json-schema.org/draft/2020-12/schema"}`,
		"/other/c.json": `{"items": {"$ref": "` + base + `/s/a.json"}, "$defs": {"in": {"$id": "` + base + `/embedded.json"}},
			"not": {"$ref": "` + base + `/embedded.json"}}`,
	}
	fsys := workspace.Memory(map[string]string{
		"order.json":      `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "` + base + `/s/a.json"}`,
		"instance.yaml":   "# yaml-language-server: $schema=" + base + "/s/a.json\nx: 1\n",
		"local.json":      `{"$ref": "customer.json"}`,
		"customer.json":   `{"$id": "https://example.com/customer.json"}`,
		"uses-local.json": `{"$ref": "https://example.com/customer.json"}`,
	})
	roots, errs := Discover(context.Background(), fsys, []string{"order.json", "instance.yaml", "local.json", "customer.json", "uses-local.json"}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var urls []string
	for _, r := range roots {
		urls = append(urls, r.URL)
	}
	// The meta-schema is discovered (Offline tells it is built in), the workspace's own $id
	// is not.
	if got, want := strings.Join(urls, " "), base+"/s/a.json https://json-schema.org/draft/2020-12/schema"; got != want {
		t.Fatalf("discovered %q, want %q", got, want)
	}
	log := &logger{}
	o := options(t, pool, log)
	o.Offline = func(u string) (string, bool) {
		if strings.HasPrefix(u, "https://json-schema.org/") {
			return "built-in meta-schema", true
		}
		return "", false
	}
	res, err := Run(context.Background(), roots, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched != 3 || res.Kept != 0 || len(res.Lock.Entries) != 3 {
		t.Fatalf("fetched %d, kept %d, pinned %d; want 3, 0, 3\n%s", res.Fetched, res.Kept, len(res.Lock.Entries), log)
	}
	want := []string{base + "/other/c.json", base + "/s/a.json", base + "/s/b.json"}
	for i, e := range res.Lock.Entries {
		if e.URL != want[i] {
			t.Errorf("entry %d: %s, want %s (sorted)", i, e.URL, want[i])
		}
		body := d.files[strings.TrimPrefix(e.URL, base)]
		if e.SHA256 != lockfile.Sum([]byte(body)) || e.Size != int64(len(body)) || e.Fetched != "2026-12-03T12:00:00Z" {
			t.Errorf("entry %+v does not pin the served bytes", e)
		}
		data, err := os.ReadFile(lockfile.CachePath(o.Cache, e.SHA256))
		if err != nil || string(data) != body {
			t.Errorf("cache file of %s: %v %q", e.URL, err, data)
		}
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "built-in meta-schema") {
		t.Errorf("skipped %q", res.Skipped)
	}
	for p, n := range d.hits {
		if n != 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
	// The lock round-trips byte for byte.
	out := res.Lock.Marshal()
	back, err := lockfile.Parse("jstk.lock", out)
	if err != nil || !bytes.Equal(back.Marshal(), out) {
		t.Fatalf("the lock does not round-trip: %v\n%s", err, out)
	}

	// A second run keeps everything from the cache.
	res2, err := Run(context.Background(), roots, back, o)
	if err != nil || res2.Fetched != 0 || res2.Kept != 3 || !bytes.Equal(res2.Lock.Marshal(), out) {
		t.Fatalf("second run: %v, fetched %d, kept %d", err, res2.Fetched, res2.Kept)
	}
	// --offline: all present.
	problems, err := Check(context.Background(), roots, back, o)
	if err != nil || len(problems) != 0 {
		t.Fatalf("offline check after a fetch: %v %v", err, problems)
	}
	// A URL nothing names any more leaves the lock.
	res3, err := Run(context.Background(), nil, back, o)
	if err != nil || len(res3.Lock.Entries) != 0 || len(res3.Dropped) != 3 {
		t.Fatalf("dropping: %v %+v", err, res3)
	}
}

// A pinned document whose cache file went is downloaded again and must come back with the
// pinned hash; a server that now sends other bytes is refused unless --update.
func TestPinnedDocumentChanged(t *testing.T) {
	d := &docs{files: map[string]string{"/a.json": `{"type": "string"}`}}
	base, pool := server(t, d)
	o := options(t, pool, &logger{})
	roots := []Ref{{base + "/a.json", "x.json"}}
	res, err := Run(context.Background(), roots, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	lock := res.Lock
	os.RemoveAll(o.Cache)
	res, err = Run(context.Background(), roots, lock, o)
	if err != nil || res.Fetched != 1 {
		t.Fatalf("refetch of a missing cache file: %v %+v", err, res)
	}
	os.RemoveAll(o.Cache)
	d.files["/a.json"] = `{"type": "integer"}`
	_, err = Run(context.Background(), roots, lock, o)
	old, now := lockfile.Sum([]byte(`{"type": "string"}`)), lockfile.Sum([]byte(`{"type": "integer"}`))
	if err == nil || !strings.Contains(err.Error(), old) || !strings.Contains(err.Error(), now) || !strings.Contains(err.Error(), "--update") {
		t.Fatalf("a changed document: %v", err)
	}
	o.Update = true
	res, err = Run(context.Background(), roots, lock, o)
	if err != nil || res.Lock.Entries[0].SHA256 != now {
		t.Fatalf("--update: %v %+v", err, res)
	}
}

// Every refusal: nothing partial in the cache, and the error says what happened.
func TestRefusals(t *testing.T) {
	mux := http.NewServeMux()
	var base string
	// 10 GB, streamed without a length: the client stops one byte past the limit.
	var streamed int64
	var streamedMu sync.Mutex
	mux.HandleFunc("/huge.json", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		var n int64
		defer func() { streamedMu.Lock(); streamed = n; streamedMu.Unlock() }()
		for n < 10<<30 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			n += int64(len(chunk))
		}
	})
	// 10 GB announced by its length.
	mux.HandleFunc("/huge-length.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.FormatInt(10<<30, 10))
		w.Write([]byte("{"))
	})
	mux.HandleFunc("/slow.json", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	mux.HandleFunc("/slow-body.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	mux.HandleFunc("/loop1", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop1", http.StatusFound) })
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+strings.TrimPrefix(base, "https://")+"/a.json", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/private.json", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	})
	base, pool := server(t, mux)
	tests := []struct {
		name, path, want string
		timeout          time.Duration
	}{
		{"10 GB streamed", "/huge.json", "larger than the limit of 1048576 bytes", 0},
		{"10 GB announced", "/huge-length.json", "10737418240 bytes, more than the limit of 1048576", 0},
		{"slow server", "/slow.json", "no complete answer within 300ms", 300 * time.Millisecond},
		{"slow body", "/slow-body.json", "no complete answer within 300ms", 300 * time.Millisecond},
		{"redirect loop", "/loop1", "redirect loop", 0},
		{"redirect to http", "/to-http", "redirects to another scheme", 0},
		{"404", "/missing.json", "404 Not Found; check the URL", 0},
		{"401", "/private.json", "JSTK_FETCH_TOKEN_127_0_0_1 or a ~/.netrc entry for 127.0.0.1", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options(t, pool, &logger{})
			o.MaxSize = 1 << 20
			o.Timeout = tc.timeout
			old := &lockfile.Lock{}
			_, err := Run(context.Background(), []Ref{{base + tc.path, "ws.json"}}, old, o)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), base+tc.path) || !strings.Contains(err.Error(), "ws.json") {
				t.Fatalf("error %v, want one naming the URL, ws.json and %q", err, tc.want)
			}
			if files := cacheFiles(t, o.Cache); len(files) > 0 {
				t.Errorf("left in the cache: %q", files)
			}
		})
	}
	streamedMu.Lock()
	defer streamedMu.Unlock()
	if streamed > 64<<20 {
		t.Errorf("the server streamed %d bytes of the huge body before the client stopped", streamed)
	}
	// http is refused unless asked, before any request.
	o := options(t, pool, &logger{})
	_, err := Run(context.Background(), []Ref{{"http://127.0.0.1:1/x.json", "ws.json"}}, nil, o)
	if err == nil || !strings.Contains(err.Error(), "--insecure-http") {
		t.Errorf("http: %v", err)
	}
	_, err = Run(context.Background(), []Ref{{"https://user:pw@127.0.0.1:1/x.json", "ws.json"}}, nil, o)
	if err == nil || strings.Contains(err.Error(), "pw") || !strings.Contains(err.Error(), "JSTK_FETCH_TOKEN_") {
		t.Errorf("credentials in a URL: %v", err)
	}
	// A cancelled run stops.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []Ref{{base + "/slow.json", "ws.json"}}, nil, o); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Credentials from the environment and from netrc reach the server, and never the lock,
// the cache or the log; a redirect to another host does not carry them.
func TestCredentials(t *testing.T) {
	const token, password = "tok-3f9a-SECRET", "pw-77c1-SECRET"
	var seen []string
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/private.json", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"type": "object"}`)
	})
	base, pool := server(t, mux)
	for _, tc := range []struct {
		name  string
		creds *Credentials
		want  string
	}{
		{"env", &Credentials{Getenv: func(k string) string {
			if k == "JSTK_FETCH_TOKEN_127_0_0_1" {
				return token
			}
			return ""
		}}, "Bearer " + token},
		{"netrc", &Credentials{Netrc: ParseNetrc("# mine\nmachine other.example login x password y\nmachine 127.0.0.1\n  login me\n  password " + password + "\ndefault login d password dd\n")},
			"Basic bWU6cHctNzdjMS1TRUNSRVQ="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			log := &logger{}
			o := options(t, pool, log)
			o.Credentials = tc.creds
			res, err := Run(context.Background(), []Ref{{base + "/private.json", "ws.json"}}, nil, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != 1 || seen[0] != tc.want {
				t.Errorf("the server saw %q, want %q", seen, tc.want)
			}
			lock := string(res.Lock.Marshal())
			var cached []byte
			for _, f := range cacheFiles(t, o.Cache) {
				data, _ := os.ReadFile(f)
				cached = append(cached, data...)
				cached = append(cached, f...)
			}
			for _, secret := range []string{token, password, "bWU6", "Bearer", "Basic"} {
				for what, text := range map[string]string{"lock": lock, "log": log.String(), "cache": string(cached)} {
					if strings.Contains(text, secret) {
						t.Errorf("%q is in the %s:\n%s", secret, what, text)
					}
				}
			}
		})
	}
	if h := (&Credentials{Netrc: ParseNetrc("default login d password dd")}).header("127.0.0.1"); h != "" {
		t.Errorf("a default netrc entry is sent: %q", h)
	}
	if got := ParseNetrc("machine a.example login l password p macdef init\ncd /\nmachine b.example login no\n\nmachine c.example password q account z"); got["a.example"].Password != "p" || got["c.example"].Password != "q" || len(got) != 2 {
		t.Errorf("netrc with a macro: %+v", got)
	}
}

// --offline after a fetch, then with a cache file removed, then altered: each problem named
// with the file and both hashes, and the lock's Remote says the same to every command.
func TestOfflineCheck(t *testing.T) {
	d := &docs{files: map[string]string{"/a.json": `{"$ref": "b.json"}`, "/b.json": `{"type": "string"}`}}
	base, pool := server(t, d)
	o := options(t, pool, &logger{})
	roots := []Ref{{base + "/a.json", "ws.json"}}
	res, err := Run(context.Background(), roots, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lockPath := filepath.Join(dir, lockfile.Name)
	if err := WriteLock(lockPath, res.Lock); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, ".jstk.lock-*")); len(files) > 0 {
		t.Errorf("temporary files left: %q", files)
	}
	fsys, err := workspace.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := lockfile.Read(fsys, lockfile.Name)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := Check(context.Background(), roots, lock, o)
	if err != nil || len(problems) != 0 {
		t.Fatalf("after a fetch: %v %v", err, problems)
	}
	remote := &lockfile.Remote{FS: fsys, File: lockfile.Name, Cache: o.Cache}
	if data, name, ok, err := remote.Open(base + "/b.json"); err != nil || !ok || string(data) != d.files["/b.json"] || !strings.HasPrefix(name, o.Cache) {
		t.Fatalf("Open: %q %s %v %v", data, name, ok, err)
	}
	if _, _, ok, err := remote.Open(base + "/c.json"); ok || err != nil {
		t.Fatalf("Open of an unpinned URL: %v %v", ok, err)
	}
	// A URL the workspace names that the lock does not pin.
	problems, _ = Check(context.Background(), append(roots, Ref{base + "/new.json", "ws2.json"}), lock, o)
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), base+"/new.json is not pinned") {
		t.Errorf("unpinned: %v", problems)
	}
	b, _ := lock.Lookup(base + "/b.json")
	file := lockfile.CachePath(o.Cache, b.SHA256)
	// Missing.
	os.Remove(file)
	problems, _ = Check(context.Background(), roots, lock, o)
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), file) || !strings.Contains(problems[0].Error(), "missing") || !strings.Contains(problems[0].Error(), b.SHA256) {
		t.Errorf("missing: %v", problems)
	}
	if _, _, ok, err := remote.Open(base + "/b.json"); !ok || err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("Open of a missing file: %v", err)
	}
	// Altered.
	os.WriteFile(file, []byte(`{"type": "number"}`), 0o644)
	altered := lockfile.Sum([]byte(`{"type": "number"}`))
	problems, _ = Check(context.Background(), roots, lock, o)
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), file) || !strings.Contains(problems[0].Error(), b.SHA256) || !strings.Contains(problems[0].Error(), altered) {
		t.Errorf("altered: %v", problems)
	}
	if _, _, ok, err := remote.Open(base + "/b.json"); !ok || err == nil || !strings.Contains(err.Error(), altered) || !strings.Contains(err.Error(), b.SHA256) {
		t.Errorf("Open of an altered file: %v", err)
	}
	// A lock that is not one.
	os.WriteFile(lockPath, []byte(`{"version": 1, "schemas": [{"url": "http://x/a", "sha256": "00", "size": 1, "fetched": "now"}]}`), 0o644)
	if _, _, _, err := remote.Open(base + "/b.json"); err == nil || !strings.Contains(err.Error(), "jstk.lock") {
		t.Errorf("Open with a bad lock: %v", err)
	}
}

// A server that makes up a new URL in every document cannot make a fetch run forever: the
// closure stops at MaxDocs with an error, and a document that is not a schema is pinned
// without following anything in it.
func TestClosureBounds(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/n/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/n/"))
		fmt.Fprintf(w, `{"$ref": "%d"}`, n+1)
	})
	mux.HandleFunc("/text.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{not json") })
	base, pool := server(t, mux)
	log := &logger{}
	o := options(t, pool, log)
	o.MaxDocs = 5
	_, err := Run(context.Background(), []Ref{{base + "/n/1", "ws.json"}}, nil, o)
	if err == nil || !strings.Contains(err.Error(), "more than 5 remote documents") {
		t.Fatalf("an endless chain: %v", err)
	}
	res, err := Run(context.Background(), []Ref{{base + "/text.json", "ws.json"}}, nil, o)
	if err != nil || len(res.Lock.Entries) != 1 || !strings.Contains(log.String(), "not read as a schema") {
		t.Fatalf("a document that is not a schema: %v %+v\n%s", err, res, log)
	}
}

// Discover reads taplo's TOML directive and every draft's references, resolves a relative
// $ref against the $id in force where it stands, and reports files it cannot read.
func TestDiscover(t *testing.T) {
	fsys := workspace.Memory(map[string]string{
		"conf.toml": "#:schema https://example.com/conf.json#\nname = \"x\"\n",
		"s.json": `{"$id": "https://example.com/s.json", "$defs": {"a": {"$id": "https://other.example/dir/", "$ref": "t.json"},
			"b": {"$dynamicRef": "https://example.com/dyn.json#meta"}}, "items": [{"$ref": "https://example.com/s.json#/$defs/a"}]}`,
		"bad.json":    `{`,
		"data.ndjson": `{"$ref": "https://example.com/nd.json"}`,
	})
	refs, errs := Discover(context.Background(), fsys, []string{"conf.toml", "s.json", "bad.json", "data.ndjson", "missing.json"}, nil)
	var got []string
	for _, r := range refs {
		got = append(got, r.URL+" <- "+r.From)
	}
	want := []string{"https://example.com/conf.json <- conf.toml", "https://example.com/dyn.json <- s.json"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Discover:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(errs) != 2 {
		t.Errorf("errors: %v (want bad.json and missing.json)", errs)
	}
	// Relative references in a fetched document resolve against the $id in force.
	doc, _ := source.ParseJSON("x.json", []byte(`{"$defs": {"a": {"$id": "https://other.example/dir/", "$ref": "t.json"}}, "$ref": "u.json#/x"}`), nil)
	if got := strings.Join(remoteRefs(doc.Root, "https://example.com/s.json"), " "); got != "https://example.com/u.json https://other.example/dir/t.json" && got != "https://other.example/dir/t.json https://example.com/u.json" {
		t.Errorf("remoteRefs: %s", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, errs := Discover(ctx, fsys, []string{"s.json"}, nil); len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("cancelled: %v", errs)
	}
}
