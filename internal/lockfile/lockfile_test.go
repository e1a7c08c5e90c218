package lockfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jstk-dev/jstk/internal/workspace"
)

const (
	docA = `{"type": "string"}`
	docB = `{"type": "integer"}`
)

func entry(url, body string) Entry {
	return Entry{URL: url, SHA256: Sum([]byte(body)), Size: int64(len(body)), Fetched: "2026-12-03T12:00:00Z"}
}

func TestMarshalIsStableAndSorted(t *testing.T) {
	l := &Lock{}
	l.Set(entry("https://z.example/b.json", docB))
	l.Set(entry("https://a.example/a.json", docA))
	l.Set(entry("https://z.example/b.json", docA)) // replaces
	out := string(l.Marshal())
	want := `{
  "version": 1,
  "schemas": [
    {
      "url": "https://a.example/a.json",
      "sha256": "` + Sum([]byte(docA)) + `",
      "size": 18,
      "fetched": "2026-12-03T12:00:00Z"
    },
    {
      "url": "https://z.example/b.json",
      "sha256": "` + Sum([]byte(docA)) + `",
      "size": 18,
      "fetched": "2026-12-03T12:00:00Z"
    }
  ]
}
`
	if out != want {
		t.Fatalf("Marshal:\n%s\nwant:\n%s", out, want)
	}
	back, err := Parse(Name, []byte(out))
	if err != nil || string(back.Marshal()) != out {
		t.Fatalf("round trip: %v", err)
	}
	if _, ok := back.Lookup("https://a.example/a.json"); !ok {
		t.Error("Lookup misses an entry")
	}
	if _, ok := back.Lookup("https://a.example/none.json"); ok {
		t.Error("Lookup finds a URL the lock does not pin")
	}
	if got := string((&Lock{}).Marshal()); got != "{\n  \"version\": 1,\n  \"schemas\": []\n}\n" {
		t.Errorf("empty lock: %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	good := entry("https://a.example/a.json", docA)
	tests := []struct{ data, want string }{
		{`[`, "not a jstk lock file"},
		{`{"version": 1, "schemas": [], "extra": 1}`, "not a jstk lock file"},
		{`{"version": 2, "schemas": []}`, "version 2, this jstk reads version 1"},
		{`{"version": 1, "schemas": [{"url": "ftp://a/b", "sha256": "` + good.SHA256 + `", "size": 1, "fetched": "2026-12-03T12:00:00Z"}]}`, "schemas[0]: \"ftp://a/b\" is not an http(s) URL"},
		{`{"version": 1, "schemas": [{"url": "https://a.example/a.json", "sha256": "` + good.SHA256 + `", "size": 1, "fetched": "2026-12-03T12:00:00Z"}, {"url": "https://a.example/a.json", "sha256": "` + good.SHA256 + `", "size": 1, "fetched": "2026-12-03T12:00:00Z"}]}`, "pinned twice"},
		{`{"version": 1, "schemas": [{"url": "https://a.example/a.json", "sha256": "ABC", "size": 1, "fetched": "2026-12-03T12:00:00Z"}]}`, "not 64 lowercase hex digits"},
		{`{"version": 1, "schemas": [{"url": "https://a.example/a.json", "sha256": "` + good.SHA256 + `", "size": -1, "fetched": "2026-12-03T12:00:00Z"}]}`, "negative size"},
		{`{"version": 1, "schemas": [{"url": "https://a.example/a.json", "sha256": "` + good.SHA256 + `", "size": 1, "fetched": "yesterday"}]}`, "not an RFC 3339 time"},
	}
	for _, tc := range tests {
		if _, err := Parse("x/jstk.lock", []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x/jstk.lock") {
			t.Errorf("Parse(%s): %v, want an error naming the file and saying %q", tc.data, err, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for u, want := range map[string]string{
		"https://a.example/x.json":      "",
		"http://a.example/x.json":       "--insecure-http",
		"https://u:secret@a.example/x":  "JSTK_FETCH_TOKEN_<HOST>",
		"https://a.example/x.json#/a":   "has a fragment",
		"https://a.example/x.json#":     "has a fragment",
		"https:///x.json":               "has no host",
		"urn:x":                         "not an http(s) URL",
		"https://a.example/%zz":         "not a URL",
		"http://a.example/x.json?q=1#a": "--insecure-http",
	} {
		err := CheckURL(u, false)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckURL(%s) = %v, want %q", u, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckURL(%s) shows the password: %v", u, err)
		}
	}
	if err := CheckURL("http://a.example/x.json", true); err != nil {
		t.Errorf("http with insecure: %v", err)
	}
	if got := Redact("https://u:p@a.example/x"); got != "https://a.example/x" {
		t.Errorf("Redact: %s", got)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if d, _ := DefaultCacheDir(env(map[string]string{"XDG_CACHE_HOME": "/c", "HOME": "/h"})); d != filepath.Join("/c", "jstk") {
		t.Errorf("XDG: %s", d)
	}
	if d, _ := DefaultCacheDir(env(map[string]string{"XDG_CACHE_HOME": "relative", "HOME": "/h"})); d != filepath.Join("/h", ".cache", "jstk") {
		t.Errorf("HOME (a relative XDG_CACHE_HOME is ignored, as the spec says): %s", d)
	}
	if _, err := DefaultCacheDir(env(nil)); err == nil || !strings.Contains(err.Error(), "--cache") {
		t.Errorf("nothing set: %v", err)
	}
}

// The Remote reads pinned documents from the cache, checked, and reads the lock again when
// it changes.
func TestRemote(t *testing.T) {
	cache, ws := t.TempDir(), t.TempDir()
	fsys, err := workspace.Root(ws)
	if err != nil {
		t.Fatal(err)
	}
	r := &Remote{FS: fsys, File: Name, Cache: cache}
	if _, _, ok, err := r.Open("https://a.example/a.json"); ok || err != nil {
		t.Fatalf("no lock: %v %v", ok, err)
	}
	a := entry("https://a.example/a.json", docA)
	os.MkdirAll(filepath.Join(cache, "sha256"), 0o755)
	os.WriteFile(CachePath(cache, a.SHA256), []byte(docA), 0o644)
	l := &Lock{}
	l.Set(a)
	os.WriteFile(filepath.Join(ws, Name), l.Marshal(), 0o644)
	data, name, ok, err := r.Open(a.URL)
	if err != nil || !ok || string(data) != docA || name != CachePath(cache, a.SHA256) {
		t.Fatalf("Open: %q %s %v %v", data, name, ok, err)
	}
	if errs := l.Check(cache); len(errs) != 0 {
		t.Errorf("Check: %v", errs)
	}
	// The lock changes under the Remote: a pin of other bytes, whose file is missing.
	b := entry(a.URL, docB)
	l.Set(b)
	os.WriteFile(filepath.Join(ws, Name), l.Marshal(), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(ws, Name), later, later)
	_, _, ok, err = r.Open(a.URL)
	if !ok || err == nil || !strings.Contains(err.Error(), "missing") || !strings.Contains(err.Error(), b.SHA256) || !strings.Contains(err.Error(), "jstk fetch") {
		t.Fatalf("a pin whose file is missing: %v %v", ok, err)
	}
	// A cache file with other bytes than its name says.
	os.WriteFile(CachePath(cache, b.SHA256), []byte(docA), 0o644)
	_, _, _, err = r.Open(a.URL)
	if err == nil || !strings.Contains(err.Error(), b.SHA256) || !strings.Contains(err.Error(), a.SHA256) || !strings.Contains(err.Error(), CachePath(cache, b.SHA256)) {
		t.Fatalf("an altered file: %v", err)
	}
	if errs := l.Check(cache); len(errs) != 1 {
		t.Errorf("Check: %v", errs)
	}
	// A file far larger than the lock says is not read whole.
	os.WriteFile(CachePath(cache, b.SHA256), []byte(strings.Repeat(" ", 2<<20)), 0o644)
	if _, err := ReadCached(cache, b, 1<<20); err == nil || !strings.Contains(err.Error(), "not computed") {
		t.Errorf("a huge cache file: %v", err)
	}
	if _, _, ok, err := (&Remote{Cache: cache}).Open(a.URL); ok || err != nil {
		t.Errorf("a Remote without files: %v %v", ok, err)
	}
	if got := LockName("sub/dir"); got != "sub/dir/jstk.lock" {
		t.Errorf("LockName: %s", got)
	}
}
