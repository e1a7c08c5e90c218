// Package fetch is the one package of jstk that uses the network, and only internal/cli may
// import it (cmd/jstk/deps_test.go holds both rules): `jstk fetch` finds the remote $schema
// and $ref URLs a workspace names and their closure, downloads each into the
// content-addressed cache over https (http only when asked), within a size and a time limit,
// with credentials from the environment or ~/.netrc that never reach the lock, the cache or
// a message, and writes jstk.lock atomically. Every other command reads what it pinned
// through internal/lockfile, offline.
package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
)

// Defaults of the limits.
const (
	DefaultTimeout  = 30 * time.Second // one document, from the request to its last byte
	DefaultMaxDocs  = 1000             // documents in one closure
	maxRedirects    = 10
	defaultMaxBytes = lockfile.DefaultMaxSize
)

// Options configure a fetch.
type Options struct {
	// Cache is the cache's directory.
	Cache string
	// MaxSize bounds one document, in bytes (0: lockfile.DefaultMaxSize).
	MaxSize int64
	// Timeout bounds one document, from the request to the last byte (0: DefaultTimeout).
	Timeout time.Duration
	// MaxDocs bounds the documents of the closure (0: DefaultMaxDocs).
	MaxDocs int
	// InsecureHTTP allows http URLs (never a redirect from one scheme to another).
	InsecureHTTP bool
	// Update downloads again what the lock pins, and pins what the server sends now.
	// Without it a pinned URL whose cache file is present is not downloaded, and one whose
	// file is missing must come back with the pinned hash.
	Update bool
	// Credentials give the Authorization header for a host (see Credentials); nil sends none.
	Credentials *Credentials
	// RootCAs, when set, are the certificate authorities trusted instead of the system's
	// (tests trust their loopback server's certificate so).
	RootCAs *x509.CertPool
	// Limits bound the parsing of a downloaded document.
	Limits *source.Limits
	// Offline answers whether a URL is held without the network by what comes before the
	// lock (the resolve map, the built-in meta-schemas, the vendored SchemaStore); such a
	// URL is neither fetched nor pinned. Nil: none is.
	Offline func(url string) (string, bool)
	// Now gives the time recorded in the lock (nil: time.Now).
	Now func() time.Time
	// Log receives one line per document fetched or kept (nil: none). It never carries
	// credentials.
	Log func(string)
}

func (o *Options) maxSize() int64 {
	if o.MaxSize > 0 {
		return o.MaxSize
	}
	return defaultMaxBytes
}

func (o *Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o *Options) maxDocs() int {
	if o.MaxDocs > 0 {
		return o.MaxDocs
	}
	return DefaultMaxDocs
}

func (o *Options) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

// Result is what a fetch did.
type Result struct {
	// Lock is the new lock: one entry per URL of the closure.
	Lock *lockfile.Lock
	// Fetched and Kept count the documents downloaded and those already in the cache.
	Fetched, Kept int
	// Dropped lists the URLs the old lock pinned that nothing names any more.
	Dropped []string
	// Skipped lists the URLs held offline by something before the lock, with what holds them.
	Skipped []string
}

// Run downloads the closure of roots into the cache and returns the lock that pins it; old
// is the current lock (nil: none). It writes only complete, verified cache files (each
// through a temporary file renamed into place) and never the lock: the caller writes it
// with WriteLock once Run succeeded, so that a failure leaves the old lock as it was.
func Run(ctx context.Context, roots []Ref, old *lockfile.Lock, o *Options) (*Result, error) {
	if old == nil {
		old = &lockfile.Lock{}
	}
	c := &client{o: o, http: newHTTPClient(o)}
	res := &Result{Lock: &lockfile.Lock{}}
	err := closure(ctx, roots, o, func(ctx context.Context, u string) ([]byte, error) {
		e, pinned := old.Lookup(u)
		if pinned && !o.Update {
			if data, err := lockfile.ReadCached(o.Cache, e, o.maxSize()); err == nil {
				res.Kept++
				res.Lock.Set(e)
				o.log("kept %s (sha256 %s, %d bytes, pinned)", u, e.SHA256, e.Size)
				return data, nil
			}
		}
		data, sum, err := c.get(ctx, u)
		if err != nil {
			return nil, err
		}
		if pinned && !o.Update && sum != e.SHA256 {
			return nil, fmt.Errorf("%s: jstk.lock pins sha256 %s, the server now sends sha256 %s: the document changed; run jstk fetch --update to pin what it sends now", u, e.SHA256, sum)
		}
		fetched := e.Fetched
		if !pinned || sum != e.SHA256 {
			now := time.Now
			if o.Now != nil {
				now = o.Now
			}
			fetched = now().UTC().Format(time.RFC3339)
		}
		res.Lock.Set(lockfile.Entry{URL: u, SHA256: sum, Size: int64(len(data)), Fetched: fetched})
		res.Fetched++
		o.log("fetched %s (sha256 %s, %d bytes)", u, sum, len(data))
		return data, nil
	}, &res.Skipped)
	if err != nil {
		return nil, err
	}
	for _, e := range old.Entries {
		if _, ok := res.Lock.Lookup(e.URL); !ok {
			res.Dropped = append(res.Dropped, e.URL)
		}
	}
	return res, nil
}

// Check is `jstk fetch --offline`: it follows the closure of roots through the cache only
// and returns what is missing: a URL the lock does not pin, a cache file missing or altered.
// It never touches the network.
func Check(ctx context.Context, roots []Ref, lock *lockfile.Lock, o *Options) ([]error, error) {
	var problems []error
	seenBad := map[string]bool{}
	var skipped []string
	err := closure(ctx, roots, o, func(ctx context.Context, u string) ([]byte, error) {
		e, ok := lock.Lookup(u)
		if !ok {
			problems = append(problems, fmt.Errorf("%s is not pinned in jstk.lock: run jstk fetch at the workspace root", u))
			return nil, nil
		}
		data, err := lockfile.ReadCached(o.Cache, e, o.maxSize())
		if err != nil {
			seenBad[u] = true
			problems = append(problems, err)
			return nil, nil
		}
		return data, nil
	}, &skipped)
	if err != nil {
		return nil, err
	}
	// Entries nothing names any more are still checked: the lock promises them.
	for _, e := range lock.Entries {
		if seenBad[e.URL] {
			continue
		}
		if _, err := lockfile.ReadCached(o.Cache, e, o.maxSize()); err != nil && !containsErr(problems, err) {
			problems = append(problems, err)
		}
	}
	return problems, nil
}

func containsErr(errs []error, err error) bool {
	for _, e := range errs {
		if e.Error() == err.Error() {
			return true
		}
	}
	return false
}

// closure visits the remote documents that roots name and those they name in turn,
// breadth first, each once, at most o.MaxDocs of them. get returns a document's bytes (nil:
// nothing to follow).
func closure(ctx context.Context, roots []Ref, o *Options, get func(context.Context, string) ([]byte, error), skipped *[]string) error {
	type item struct {
		url, from string
	}
	var queue []item
	seen := map[string]bool{}
	push := func(u, from string) error {
		if seen[u] {
			return nil
		}
		seen[u] = true
		if o.Offline != nil {
			if by, ok := o.Offline(u); ok {
				*skipped = append(*skipped, u+" ("+by+")")
				return nil
			}
		}
		if err := lockfile.CheckURL(u, o.InsecureHTTP); err != nil {
			return fmt.Errorf("%s: %v", from, err)
		}
		queue = append(queue, item{u, from})
		return nil
	}
	for _, r := range roots {
		if err := push(r.URL, r.From); err != nil {
			return err
		}
	}
	for n := 0; len(queue) > 0; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n >= o.maxDocs() {
			return fmt.Errorf("more than %d remote documents reach each other from the workspace; nothing was written (is a server generating URLs?)", o.maxDocs())
		}
		it := queue[0]
		queue = queue[1:]
		data, err := get(ctx, it.url)
		if err != nil {
			return fmt.Errorf("%s (named by %s): %w", it.url, it.from, err)
		}
		if data == nil {
			continue
		}
		doc, err := schema.ParseDocument(docName(it.url), data, o.Limits)
		if err != nil {
			o.log("%s: not read as a schema, so its references are not followed: %v", it.url, err)
			continue
		}
		for _, u := range remoteRefs(doc.Root, it.url) {
			if err := push(u, it.url); err != nil {
				return err
			}
		}
	}
	sort.Strings(*skipped)
	return nil
}

// docName is the name a downloaded document is parsed under: its URL's last segment, whose
// extension says JSON or YAML.
func docName(u string) string {
	if p, err := url.Parse(u); err == nil && p.Path != "" {
		return p.Path
	}
	return u
}

// client downloads one document at a time.
type client struct {
	o    *Options
	http *http.Client
}

// errRedirect is wrapped by the errors of a refused redirect.
var errRedirect = errors.New("redirect refused")

func newHTTPClient(o *Options) *http.Client {
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSClientConfig:     &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: o.timeout(),
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport: &authTransport{base: tr, creds: o.Credentials},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			for _, v := range via {
				if v.URL.String() == req.URL.String() {
					return fmt.Errorf("%w: redirect loop (%s is redirected to again)", errRedirect, req.URL.Redacted())
				}
			}
			if len(via) >= maxRedirects {
				return fmt.Errorf("%w: more than %d redirects", errRedirect, maxRedirects)
			}
			if req.URL.Scheme != via[0].URL.Scheme {
				return fmt.Errorf("%w: %s redirects to another scheme (%s)", errRedirect, via[0].URL.Redacted(), req.URL.Redacted())
			}
			if req.URL.User != nil {
				return fmt.Errorf("%w: a redirect to a URL with credentials", errRedirect)
			}
			return nil
		},
	}
}

// get downloads u into the cache: the body goes through a temporary file of the cache
// directory, never held whole in memory beyond the size limit, and is renamed to its
// content address once complete. It returns the bytes and their SHA-256.
func (c *client) get(ctx context.Context, u string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/schema+json, application/json, application/yaml;q=0.9, */*;q=0.5")
	req.Header.Set("User-Agent", "jstk-fetch")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, "", c.explain(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = fmt.Sprintf("; for a private host, give a token in %s or a ~/.netrc entry for %s", TokenVar(resp.Request.URL.Hostname()), resp.Request.URL.Hostname())
		case http.StatusNotFound:
			hint = "; check the URL where the workspace names it"
		}
		return nil, "", fmt.Errorf("the server answered %s%s", resp.Status, hint)
	}
	limit := c.o.maxSize()
	if resp.ContentLength > limit {
		return nil, "", fmt.Errorf("the document is %d bytes, more than the limit of %d (raise it with --max-size)", resp.ContentLength, limit)
	}
	if err := os.MkdirAll(filepath.Join(c.o.Cache, "sha256"), 0o755); err != nil {
		return nil, "", fmt.Errorf("cache: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(c.o.Cache, "sha256"), ".fetch-*")
	if err != nil {
		return nil, "", fmt.Errorf("cache: %v", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var buf limitedBuffer
	buf.limit = limit
	n, err := io.Copy(io.MultiWriter(tmp, &buf), io.LimitReader(resp.Body, limit+1))
	if n > limit {
		return nil, "", fmt.Errorf("the document is larger than the limit of %d bytes; stopped reading (raise it with --max-size)", limit)
	}
	if err == nil {
		// A body that ended as the time ran out may be cut short without a transport error
		// (the connection closed under a response without a length): not trusted.
		err = ctx.Err()
	}
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("the server sent %d bytes of the %d it announced", n, resp.ContentLength)
	}
	if err != nil {
		return nil, "", c.explain(ctx, err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, "", fmt.Errorf("cache: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, "", fmt.Errorf("cache: %v", err)
	}
	data := buf.data
	sum := lockfile.Sum(data)
	if err := os.Rename(tmp.Name(), lockfile.CachePath(c.o.Cache, sum)); err != nil {
		return nil, "", fmt.Errorf("cache: %v", err)
	}
	done = true
	return data, sum, nil
}

// limitedBuffer keeps what is written to it up to limit bytes (the copy stops one byte past
// the limit and is refused).
type limitedBuffer struct {
	data  []byte
	limit int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - int64(len(b.data)); room > 0 {
		b.data = append(b.data, p[:min(int64(len(p)), room)]...)
	}
	return len(p), nil
}

// explain turns a transport error into what to do; the URL is already in the caller's
// message.
func (c *client) explain(ctx context.Context, err error) error {
	if errors.Is(err, errRedirect) {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %s (raise the limit with --timeout)", c.o.timeout())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// authTransport adds the credentials of each request's host, redirects included (a
// redirect to another host gets that host's credentials, or none), and only over https.
type authTransport struct {
	base  http.RoundTripper
	creds *Credentials
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Del("Authorization")
	if t.creds != nil && req.URL.Scheme == "https" {
		if h := t.creds.header(req.URL.Hostname()); h != "" {
			req.Header.Set("Authorization", h)
		}
	}
	return t.base.RoundTrip(req)
}
