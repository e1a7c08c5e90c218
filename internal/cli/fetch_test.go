package cli

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jstk-dev/jstk/internal/lockfile"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// jstk fetch against a loopback TLS server, then every other command offline: validate
// finds the remote $ref through jstk.lock and the cache; --offline in a second run passes,
// and reports a cache file removed or altered; the token never shows.
func TestFetchThenOffline(t *testing.T) {
	const token = "tok-cli-SECRET-91"
	mux := http.NewServeMux()
	mux.HandleFunc("/schemas/order.json", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"type": "object", "properties": {"id": {"$ref": "id.json"}}, "required": ["id"]}`)
	})
	mux.HandleFunc("/schemas/id.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"type": "integer", "minimum": 1}`)
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("server on %s", srv.URL)
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	testRootCAs = pool
	defer func() { testRootCAs = nil }()

	ws, cache := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, "schema.json"), []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "`+srv.URL+`/schemas/order.json"}`), 0o644)
	os.WriteFile(filepath.Join(ws, "good.json"), []byte(`{"id": 3}`), 0o644)
	os.WriteFile(filepath.Join(ws, "bad.json"), []byte(`{"id": 0}`), 0o644)
	t.Chdir(ws)
	t.Setenv("JSTK_CACHE", cache)
	t.Setenv("NETRC", filepath.Join(ws, "no-netrc"))
	t.Setenv("JSTK_FETCH_TOKEN_127_0_0_1", "")

	// Before the fetch: the unresolved message says what to run.
	code, out, errs := run(t, "validate", "--schema", "schema.json", "good.json")
	if code != ExitError || !strings.Contains(out+errs, `"jstk fetch" run at the workspace root`) {
		t.Fatalf("before fetch: exit %d\n%s%s", code, out, errs)
	}
	// Without the token: 401, nothing written.
	code, _, errs = run(t, "fetch")
	if code != ExitError || !strings.Contains(errs, "401") || !strings.Contains(errs, "JSTK_FETCH_TOKEN_127_0_0_1") {
		t.Fatalf("fetch without a token: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(ws, "jstk.lock")); !os.IsNotExist(err) {
		t.Fatalf("a failed fetch wrote jstk.lock: %v", err)
	}
	t.Setenv("JSTK_FETCH_TOKEN_127_0_0_1", token)
	code, out, errs = run(t, "fetch")
	if code != ExitOK || !strings.Contains(out, "jstk.lock: 2 pinned (2 fetched, 0 already in the cache") {
		t.Fatalf("fetch: exit %d\n%s%s", code, out, errs)
	}
	lock, err := os.ReadFile(filepath.Join(ws, "jstk.lock"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"lock": string(lock), "stdout": out, "stderr": errs} {
		if strings.Contains(text, token) || strings.Contains(text, "Bearer") {
			t.Errorf("the token is in the %s:\n%s", what, text)
		}
	}
	if !strings.Contains(errs, "held offline: https://json-schema.org/draft/2020-12/schema (built-in meta-schema)") {
		t.Errorf("the meta-schema is not said to be held offline:\n%s", errs)
	}
	// Offline, every command: validate through the lock.
	code, out, errs = run(t, "validate", "--schema", "schema.json", "good.json", "bad.json")
	if code != ExitFindings || !strings.Contains(out, "bad.json") || strings.Contains(out, "good.json:") {
		t.Fatalf("validate through the lock: exit %d\n%s%s", code, out, errs)
	}
	// A second run: --offline passes; a second fetch downloads nothing.
	if code, out, errs = run(t, "fetch", "--offline"); code != ExitOK || !strings.Contains(out, "all 2 pinned documents are in the cache") {
		t.Fatalf("--offline: exit %d\n%s%s", code, out, errs)
	}
	// A lock that is not one: every command says so; fetch --update replaces it.
	os.WriteFile(filepath.Join(ws, "jstk.lock"), []byte("{"), 0o644)
	if code, _, errs = run(t, "fetch"); code != ExitError || !strings.Contains(errs, "run jstk fetch --update to write it again") {
		t.Fatalf("fetch with a broken lock: %d %s", code, errs)
	}
	if code, _, errs = run(t, "fetch", "--update"); code != ExitOK || !strings.Contains(errs, "replacing it") {
		t.Fatalf("fetch --update with a broken lock: %d %s", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, "jstk.lock")); !samePins(t, after, lock) {
		t.Errorf("fetch --update did not pin the same documents again:\n%s", after)
	}
	os.WriteFile(filepath.Join(ws, "jstk.lock"), lock, 0o644)
	srv.Close() // no network from here on
	if code, out, errs = run(t, "fetch"); code != ExitOK || !strings.Contains(out, "(0 fetched, 2 already in the cache") {
		t.Fatalf("second fetch: exit %d\n%s%s", code, out, errs)
	}
	after, _ := os.ReadFile(filepath.Join(ws, "jstk.lock"))
	if !bytes.Equal(after, lock) {
		t.Errorf("a second fetch changed the lock:\n%s\n%s", lock, after)
	}
	// A cache file altered: --offline names the file and both hashes; validate says it too.
	l, err := lockfile.Parse("jstk.lock", lock)
	if err != nil {
		t.Fatal(err)
	}
	e := l.Entries[0]
	file := lockfile.CachePath(cache, e.SHA256)
	os.WriteFile(file, []byte(`{}`), 0o644)
	code, out, _ = run(t, "fetch", "--offline")
	if code != ExitFindings || !strings.Contains(out, file) || !strings.Contains(out, e.SHA256) || !strings.Contains(out, lockfile.Sum([]byte(`{}`))) {
		t.Fatalf("--offline with an altered file: exit %d\n%s", code, out)
	}
	code, out, errs = run(t, "validate", "--schema", "schema.json", "good.json")
	if code != ExitError || !strings.Contains(out+errs, lockfile.Sum([]byte(`{}`))) {
		t.Fatalf("validate with an altered cache file: exit %d\n%s%s", code, out, errs)
	}
	// Missing.
	os.Remove(file)
	code, out, _ = run(t, "fetch", "--offline")
	if code != ExitFindings || !strings.Contains(out, file) || !strings.Contains(out, "missing") {
		t.Fatalf("--offline with a missing file: exit %d\n%s", code, out)
	}
	// Usage.
	if code, _, errs = run(t, "fetch", "--timeout", "0"); code != ExitError || !strings.Contains(errs, "must be more than 0") {
		t.Errorf("--timeout 0: %d %s", code, errs)
	}
	if code, out, _ = run(t, "fetch", "--help"); code != ExitOK || !strings.Contains(out, "JSTK_FETCH_TOKEN_<HOST>") || !strings.Contains(out, "--insecure-http") {
		t.Errorf("--help: %d %s", code, out)
	}
}

// The lock's cache is the last source of remote documents every command gets, once: the
// vendored SchemaStore comes before it (DESIGN.md section 3), whatever order the code that
// builds the Env adds them in.
func TestLockRemoteIsLast(t *testing.T) {
	t.Setenv("JSTK_CACHE", t.TempDir())
	g := &globals{}
	env, err := g.env(Streams{Stderr: io.Discard}, "validate", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(env.Remotes) == 0 {
		t.Fatal("no remotes")
	}
	if _, ok := env.Remotes[len(env.Remotes)-1].(*lockfile.Remote); !ok {
		t.Errorf("the last remote is %T, want the lock's cache (*lockfile.Remote)", env.Remotes[len(env.Remotes)-1])
	}
	for _, r := range env.Remotes[:len(env.Remotes)-1] {
		if _, ok := r.(*lockfile.Remote); ok {
			t.Error("the lock's cache comes twice")
		}
	}
}

// samePins reports whether two locks pin the same URLs to the same bytes.
func samePins(t *testing.T, a, b []byte) bool {
	t.Helper()
	la, err1 := lockfile.Parse("a", a)
	lb, err2 := lockfile.Parse("b", b)
	if err1 != nil || err2 != nil || len(la.Entries) != len(lb.Entries) {
		return false
	}
	for i := range la.Entries {
		if la.Entries[i].URL != lb.Entries[i].URL || la.Entries[i].SHA256 != lb.Entries[i].SHA256 {
			return false
		}
	}
	return true
}
