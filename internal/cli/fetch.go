package cli

import (
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/jstk-dev/jstk/internal/fetch"
	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const fetchUsage = `Usage: jstk fetch [--offline] [--update] [--cache DIR] [--insecure-http] [--max-size N]
                  [--timeout D] [PATH...]

Downloads the remote schemas the workspace names, and pins them in jstk.lock. It is the one
command of jstk that uses the network, and only when run: no other command and no MCP tool
ever does.

It reads the files under PATH (default: the current directory; hidden folders and
node_modules are skipped, as everywhere) and collects every remote URL that a top-level
"$schema", a "# yaml-language-server: $schema=" or "#:schema" modeline, or an absolute
"$ref" names, then what the downloaded documents name in turn. A URL that the resolve map
(--resolve, jstk.json), a built-in meta-schema or a file of the workspace already answers
is not fetched. Each document is stored in the content-addressed cache
($JSTK_CACHE, else $XDG_CACHE_HOME/jstk, else ~/.cache/jstk; or --cache DIR) and
jstk.lock, at the workspace root (the folder of jstk.json, else of .git), records its URL,
SHA-256, size and when it was fetched: commit it. Every other command then finds these
URLs in the cache, checked against the lock, offline.

A URL already pinned whose cache file is present is not downloaded again; a missing one
must come back with the pinned hash. --update downloads everything again and pins what the
servers send now. URLs the workspace no longer names leave the lock.

Only https is fetched (http with --insecure-http); a redirect to another scheme, a
redirect loop, a document larger than --max-size or slower than --timeout is refused, and
nothing is written: the cache holds only complete documents under their hash, and the lock
is replaced atomically once every download succeeded.

Credentials for private hosts come from the environment variable
JSTK_FETCH_TOKEN_<HOST> (the host in capitals, each character but a letter or a digit made
"_": JSTK_FETCH_TOKEN_SCHEMAS_EXAMPLE_COM), sent as a bearer token, or else from the
"machine <host>" entry of ~/.netrc ($NETRC), sent as basic authentication; over https only,
to that host only, and never written to the lock, the cache or any message.

--offline checks, without the network, that the lock pins every remote URL the workspace
names and that the cache holds each pinned document unaltered; it lists what is missing
(exit 1): run it in CI after restoring the cache.

Flags:
`

// runFetch is `jstk fetch`: outside the descriptor table, like jstk mcp, since no MCP tool
// may reach the network.
func runFetch(ctx context.Context, args []string, st Streams) int {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	offline := fs.Bool("offline", false, "check the cache against jstk.lock without the network, and list what is missing (exit 1)")
	update := fs.Bool("update", false, "download every URL again and pin what the servers send now (a jstk.lock that cannot be read is replaced)")
	cache := fs.String("cache", "", "the cache `DIR` (default $JSTK_CACHE, else $XDG_CACHE_HOME/jstk, else ~/.cache/jstk)")
	insecure := fs.Bool("insecure-http", false, "also fetch http URLs (never a redirect from one scheme to another)")
	maxDoc := int64(lockfile.DefaultMaxSize)
	fs.Func("max-size", "largest document to download, in bytes; suffixes K, KiB, M, MiB, G, GiB, KB, MB, GB (default 16MiB)", func(s string) error {
		n, err := parseSize(s)
		maxDoc = n
		return err
	})
	timeout := fetch.DefaultTimeout
	fs.Func("timeout", "longest time for one document, from the request to its last byte (e.g. 10s; a bare number is seconds) (default 30s)", func(s string) error {
		d, err := parseDuration(s)
		if err == nil && d <= 0 {
			err = errors.New("must be more than 0")
		}
		timeout = d
		return err
	})
	g := &globals{}
	fs.Func("resolve", "map a URI (or a prefix ending in /) to a file or directory: `URI=PATH` (repeatable; adds to jstk.json); a URL it maps is not fetched", func(s string) error {
		if _, _, err := tools.ParseResolve(s); err != nil {
			return err
		}
		g.resolve = append(g.resolve, s)
		return nil
	})
	if code, done := parseOwnFlags(fs, args, st, "fetch", "[flags] [PATH...]", fetchUsage,
		"  0  everything is pinned and cached\n  1  --offline: something is missing or altered\n"+
			"  2  could not run: a download refused or failed, a file that cannot be read or written\n"); done {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(st.Stderr, "jstk fetch: %v\n", err)
		return ExitError
	}
	dir := *cache
	if dir == "" {
		d, err := cacheDir()
		if err != nil {
			return fail(err)
		}
		dir = d
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	fsys := workspace.OS()
	root, _ := tools.WorkspaceOf(fsys, paths)
	cfg, err := tools.LoadConfigAt(fsys, root)
	if err != nil {
		return fail(err)
	}
	for _, r := range g.resolve {
		u, p, _ := tools.ParseResolve(r)
		cfg.Resolve[u] = p
	}
	lockName := lockfile.LockName(root)
	old, err := lockfile.Read(fsys, lockName)
	if err != nil && *update && !*offline {
		// --update pins everything again: a lock that cannot be read is replaced.
		fmt.Fprintf(st.Stderr, "jstk fetch: %v; replacing it\n", err)
		old, err = &lockfile.Lock{}, nil
	}
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	files, errs := workspace.Expand(fsys, paths, []string{".json", ".jsonc", ".yaml", ".yml", ".toml"})
	for _, e := range errs {
		fmt.Fprintf(st.Stderr, "jstk fetch: %v\n", e)
	}
	lim := g.limits()
	lim.MaxSize = maxDoc
	roots, errs := fetch.Discover(ctx, fsys, files, lim)
	for _, e := range errs {
		fmt.Fprintf(st.Stderr, "jstk fetch: %v (its references are not followed)\n", e)
	}
	// What answers before the lock is not fetched: the resolve map, the built-in
	// meta-schemas, and the remotes before the lock's (the vendored SchemaStore).
	storeEnv := &tools.Env{}
	g.setStore(storeEnv, cfg, fsys)
	before := &schema.Loader{FS: fsys, Resolve: cfg.Resolve, Remotes: storeEnv.Remotes}
	o := &fetch.Options{Cache: dir, MaxSize: maxDoc, Timeout: timeout, InsecureHTTP: *insecure, Update: *update,
		Limits: lim, Offline: before.Offline,
		Credentials: &fetch.Credentials{Getenv: os.Getenv, Netrc: readNetrc()},
		RootCAs:     testRootCAs,
		Log:         func(s string) { fmt.Fprintf(st.Stderr, "jstk fetch: %s\n", s) }}
	if *offline {
		problems, err := fetch.Check(ctx, roots, old, o)
		if err != nil {
			return fail(err)
		}
		for _, p := range problems {
			fmt.Fprintf(st.Stdout, "%v\n", p)
		}
		if len(problems) > 0 {
			fmt.Fprintf(st.Stdout, "%d missing or altered; %s pins %d, cache %s\n", len(problems), lockName, len(old.Entries), dir)
			return ExitFindings
		}
		fmt.Fprintf(st.Stdout, "%s: all %d pinned documents are in the cache %s, unaltered\n", lockName, len(old.Entries), dir)
		return ExitOK
	}
	res, err := fetch.Run(ctx, roots, old, o)
	if err != nil {
		return fail(fmt.Errorf("%v; %s was not changed", err, lockName))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(st.Stderr, "jstk fetch: not fetched, held offline: %s\n", s)
	}
	for _, d := range res.Dropped {
		fmt.Fprintf(st.Stderr, "jstk fetch: unpinned %s (nothing names it any more)\n", d)
	}
	if len(res.Lock.Entries) == 0 && len(old.Entries) == 0 {
		if _, err := os.Stat(lockName); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(st.Stdout, "no remote schema to pin: %s not written\n", lockName)
			return ExitOK
		}
	}
	if err := fetch.WriteLock(lockName, res.Lock); err != nil {
		return fail(err)
	}
	fmt.Fprintf(st.Stdout, "%s: %d pinned (%d fetched, %d already in the cache %s)\n", lockName, len(res.Lock.Entries), res.Fetched, res.Kept, dir)
	return ExitOK
}

// testRootCAs, when set by a test, are the only certificate authorities jstk fetch trusts:
// the tests' loopback server's.
var testRootCAs *x509.CertPool

// cacheDir is the cache's directory from the environment: $JSTK_CACHE, else
// $XDG_CACHE_HOME/jstk, else ~/.cache/jstk.
func cacheDir() (string, error) {
	if d := os.Getenv("JSTK_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	return lockfile.DefaultCacheDir(os.Getenv)
}

// readNetrc reads $NETRC, else ~/.netrc; none is no credentials.
func readNetrc() map[string]fetch.NetrcEntry {
	p := os.Getenv("NETRC")
	if p == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		p = filepath.Join(home, ".netrc")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return fetch.ParseNetrc(string(data))
}

// addLockRemote gives the commands and the tools of the workspace whose root is root the
// cache that its jstk.lock pins, as the last of env.Remotes: the loader tries the vendored
// SchemaStore first (DESIGN.md section 3), so call it after the store is added.
func addLockRemote(env *tools.Env, fsys workspace.FS, root string) {
	if dir, err := cacheDir(); err == nil {
		env.Remotes = append(env.Remotes, &lockfile.Remote{FS: fsys, File: lockfile.LockName(root), Cache: dir})
	}
}
