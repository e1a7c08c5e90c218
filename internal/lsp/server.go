package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jstk-dev/jstk/internal/lockfile"
	"github.com/jstk-dev/jstk/internal/schema"
	"github.com/jstk-dev/jstk/internal/source"
	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/tools"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// Defaults for Options.
const (
	DefaultDebounce        = 150 * time.Millisecond
	DefaultMaxDocumentSize = 32 << 20
	DefaultTimeout         = 10 * time.Second
)

// Options configure a Server.
type Options struct {
	// FS reads the workspace's files (the operating system's for jstk lsp); the open
	// documents overlay it, so that a schema being edited is read as it is in the editor.
	FS workspace.FS
	// Root is the workspace folder (a name of FS) when initialize names none; "" is ".".
	Root string
	// Associator answers which schema applies to a document; nil reads jstk.json at the
	// workspace root (see Association).
	Associator Associator
	// Remotes are the remote documents a $ref or $schema may name (as tools.Env.Remotes).
	Remotes []schema.Remote
	// Store is the SchemaStore whose catalog associates files by fileMatch (as
	// tools.Env.Store); nil is none.
	Store *store.Store
	// Debounce is how long the server waits after an edit before computing diagnostics:
	// a burst of edits makes one run. 0 means DefaultDebounce; negative means none.
	Debounce time.Duration
	// MaxDocumentSize bounds a document in bytes; a larger one gets a single diagnostic
	// that says so. 0 means DefaultMaxDocumentSize.
	MaxDocumentSize int64
	// Timeout bounds one run of diagnostics; 0 means DefaultTimeout.
	Timeout time.Duration
	// NoConfig leaves jstk.json unread (an untrusted workspace): no "schemas" map, no
	// resolve map, no lint settings, and no jstk.lock.
	NoConfig bool
	// LockCache is the cache directory of jstk fetch (lockfile.DefaultCacheDir): the remote
	// documents the workspace's jstk.lock pins are read from there, after Remotes, as the
	// CLI reads them. "" reads no jstk.lock.
	LockCache string
	// Logf receives the server's log lines (stderr for jstk lsp); nil drops them.
	Logf func(format string, args ...any)
}

// server states
const (
	stateNew = iota
	stateRunning
	stateShutDown
)

// Server is a language server: messages in through Serve, messages out on its writer.
type Server struct {
	opts    Options
	overlay *overlayFS

	outMu sync.Mutex
	out   func(body []byte) error

	mu       sync.Mutex
	state    int
	root     string // the workspace folder, a name of the FS
	docs     map[string]*document
	env      *tools.Env
	assoc    Associator
	requests map[string]context.CancelFunc
	breaking string // how breaking changes against HEAD show: "off", "information", "warning"
	// pull is set when the client pulls diagnostics (textDocument/diagnostic): the server
	// then does not also push them (a client that takes both counts each problem twice),
	// and asks it to pull again (refresh, when it supports that) after a file on disk
	// that documents depend on changed.
	pull, refresh bool
	refreshes     int
	ctx           context.Context
	stop          context.CancelFunc

	work sync.WaitGroup // runs and requests in flight

	// hook, set by tests, runs before each request's handler (to hold it, or panic).
	hook func(ctx context.Context, method string)
}

// document is one open document.
type document struct {
	uri, name  string
	languageID string
	version    int
	text       *text

	gen    int         // bumped by every change
	timer  *time.Timer // the debounced run waiting, if any
	cancel context.CancelFunc
	schema string // the schema its last run used, for re-running when that schema changes
	closed bool

	doneGen int // the generation last diagnosed
	last    []Diagnostic
	parsed  *parsed // the last parse, for requests (valid while parsed.t is text)
}

// NewServer makes a server over opts.
func NewServer(opts Options) *Server {
	if opts.FS == nil {
		opts.FS = workspace.OS()
	}
	if opts.Root == "" {
		opts.Root = "."
	}
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Debounce < 0 {
		opts.Debounce = 0
	}
	if opts.MaxDocumentSize <= 0 {
		opts.MaxDocumentSize = DefaultMaxDocumentSize
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{opts: opts, overlay: newOverlay(opts.FS), docs: map[string]*document{},
		requests: map[string]context.CancelFunc{}, root: opts.Root, ctx: ctx, stop: stop,
		out: func([]byte) error { return nil }}
	return s
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// Serve reads messages from r and writes the server's to w until the client sends exit
// or closes r. It returns the process's exit code: 0 after shutdown and exit, 1 when the
// stream ended or exit came without shutdown (as the protocol says).
func (s *Server) Serve(r io.Reader, w io.Writer) int {
	s.out = func(body []byte) error { return writeFrame(w, body) }
	br := bufio.NewReaderSize(r, 1<<16)
	defer s.close()
	for {
		body, err := readFrame(br, s.opts.MaxDocumentSize+1<<20)
		var big *errTooLarge
		switch {
		case err == io.EOF:
			s.logf("the client closed the input; exiting")
			return 1
		case errors.As(err, &big):
			s.refuse(big)
			continue
		case err != nil:
			s.logf("%v; exiting", err)
			return 1
		}
		if exit, code := s.handle(body); exit {
			return code
		}
	}
}

// close stops every run and waits for them.
func (s *Server) close() {
	s.stop()
	s.mu.Lock()
	for _, d := range s.docs {
		s.stopRun(d)
	}
	s.mu.Unlock()
	s.work.Wait()
}

// wait waits until no run or request is in flight (for tests).
func (s *Server) wait() { s.work.Wait() }

// refuse answers a message too large to read: a request gets an error, a document a
// diagnostic that says why it is not checked.
func (s *Server) refuse(big *errTooLarge) {
	id, method, uri := peekRefused(big.Head)
	s.logf("refused a message of %d bytes (%s)", big.Size, method)
	if len(id) > 0 && method != "" && !strings.HasPrefix(method, "textDocument/did") {
		s.reply(id, nil, errorf(CodeInvalidRequest, "the message is %d bytes, over the server's limit of %d", big.Size, big.Limit))
		return
	}
	if uri != "" && (method == "textDocument/didOpen" || method == "textDocument/didChange") {
		s.mu.Lock()
		if d := s.docs[uri]; d != nil {
			s.stopRun(d)
			d.gen++
		}
		s.mu.Unlock()
		s.publish(uri, nil, []Diagnostic{{Severity: SeverityError, Source: "jstk", Code: "too-large",
			Message: fmt.Sprintf("the document is over jstk's limit of %d bytes (its message has %d): it is not checked", s.opts.MaxDocumentSize, big.Size)}})
	}
}

// handle takes one message; it reports whether the server must exit, and with which code.
func (s *Server) handle(body []byte) (exit bool, code int) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		s.reply(json.RawMessage("null"), nil, errorf(CodeParseError, "the message is not JSON: %v", err))
		return false, 0
	}
	if m.Method == "" {
		return false, 0 // a response to a request the server never sends, or junk: ignored
	}
	isRequest := len(m.ID) > 0 && string(m.ID) != "null"
	if m.Method == "exit" {
		s.mu.Lock()
		st := s.state
		s.mu.Unlock()
		if st == stateShutDown {
			return true, 0
		}
		return true, 1
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if !isRequest {
		if st != stateRunning && m.Method != "initialized" {
			return false, 0 // notifications before initialize (and after shutdown) are dropped
		}
		s.safely(m.Method, func() { s.notify(m.Method, m.Params) })
		return false, 0
	}
	switch {
	case m.Method == "initialize":
		if st != stateNew {
			s.reply(m.ID, nil, errorf(CodeInvalidRequest, "the server is already initialized"))
			return false, 0
		}
		s.safely(m.Method, func() { s.initialize(m.ID, m.Params) })
		return false, 0
	case st == stateNew:
		s.reply(m.ID, nil, errorf(CodeServerNotInitialized, "the server is not initialized: send initialize first"))
		return false, 0
	case st == stateShutDown:
		s.reply(m.ID, nil, errorf(CodeInvalidRequest, "the server is shut down: only exit is accepted"))
		return false, 0
	case m.Method == "shutdown":
		s.mu.Lock()
		s.state = stateShutDown
		for _, d := range s.docs {
			s.stopRun(d)
		}
		s.mu.Unlock()
		s.reply(m.ID, json.RawMessage("null"), nil)
		return false, 0
	}
	h, ok := requestHandlers[m.Method]
	if !ok {
		s.reply(m.ID, nil, errorf(CodeMethodNotFound, "method %q is not supported", m.Method))
		return false, 0
	}
	ctx, cancel := context.WithCancel(s.ctx)
	key := string(m.ID)
	s.mu.Lock()
	if old := s.requests[key]; old != nil {
		old()
	}
	s.requests[key] = cancel
	s.mu.Unlock()
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer cancel()
		var result any
		var rerr *rpcError
		func() {
			defer func() {
				if p := recover(); p != nil {
					s.logf("panic in %s: %v\n%s", m.Method, p, debug.Stack())
					rerr = errorf(CodeInternalError, "internal error in %s: %v (a bug in jstk; the server goes on)", m.Method, p)
				}
			}()
			if s.hook != nil {
				s.hook(ctx, m.Method)
			}
			result, rerr = h(s, ctx, m.Params)
		}()
		s.mu.Lock()
		delete(s.requests, key)
		s.mu.Unlock()
		if ctx.Err() != nil && s.ctx.Err() == nil {
			result, rerr = nil, errorf(CodeRequestCancelled, "the request was cancelled")
		}
		s.reply(m.ID, result, rerr)
	}()
	return false, 0
}

// safely runs f, logging a panic instead of dying.
func (s *Server) safely(method string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			s.logf("panic in %s: %v\n%s", method, p, debug.Stack())
		}
	}()
	f()
}

// reply sends a response: result, or err when not nil.
func (s *Server) reply(id json.RawMessage, result any, rerr *rpcError) {
	m := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *rpcError       `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		if result == nil {
			result = json.RawMessage("null")
		}
		m.Result = result
	}
	s.send(m)
}

// notifyClient sends a notification.
func (s *Server) notifyClient(method string, params any) {
	s.send(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
}

func (s *Server) send(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.logf("cannot encode a message: %v", err)
		return
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if err := s.out(body); err != nil {
		s.logf("cannot write a message: %v", err)
	}
}

// initialize answers the client's first request with the server's capabilities.
func (s *Server) initialize(id json.RawMessage, params json.RawMessage) {
	var p initializeParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			s.reply(id, nil, errorf(CodeInvalidParams, "initialize: %v", err))
			return
		}
	}
	root := ""
	switch {
	case len(p.WorkspaceFolders) > 0:
		root = s.nameOf(p.WorkspaceFolders[0].URI)
	case p.RootURI != "":
		root = s.nameOf(p.RootURI)
	case p.RootPath != "":
		root = filepath.ToSlash(p.RootPath)
	}
	s.mu.Lock()
	if root != "" {
		s.root = root
	}
	s.pull = len(p.Capabilities.TextDocument.Diagnostic) > 0 && string(p.Capabilities.TextDocument.Diagnostic) != "null"
	s.refresh = p.Capabilities.Workspace.Diagnostics.RefreshSupport
	s.state = stateRunning
	s.loadConfig()
	s.mu.Unlock()
	s.reply(id, map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": "utf-16",
			"textDocumentSync": map[string]any{"openClose": true, "change": 2},
			"hoverProvider":    true,
			"completionProvider": map[string]any{
				"triggerCharacters": []string{"\"", ":", " "},
			},
			"definitionProvider":   true,
			"codeActionProvider":   map[string]any{"codeActionKinds": []string{"quickfix"}},
			"documentLinkProvider": map[string]any{"resolveProvider": false},
			"diagnosticProvider":   map[string]any{"interFileDependencies": true, "workspaceDiagnostics": false},
		},
		"serverInfo": map[string]any{"name": "jstk"},
	}, nil)
}

// loadConfig (re)reads jstk.json at the root and makes the tools' environment. It is
// called with s.mu held.
func (s *Server) loadConfig() {
	lim := &source.Limits{MaxSize: s.opts.MaxDocumentSize}
	cfg, err := tools.LoadConfigAt(s.overlay, s.root)
	if s.opts.NoConfig {
		cfg, err = nil, nil
	}
	if err != nil {
		s.logf("%v (the configuration is ignored until it is fixed)", err)
		cfg = nil
	}
	var resolve map[string]string
	if cfg != nil {
		resolve = cfg.Resolve
	}
	cache := tools.NewSchemaCache(64)
	if s.env != nil {
		cache = s.env.Cache
	}
	remotes := s.opts.Remotes
	if s.opts.LockCache != "" && !s.opts.NoConfig {
		// A new reader each time: the lock is read again after jstk.lock changes.
		remotes = append(slices.Clip(remotes), &lockfile.Remote{FS: s.overlay, File: lockfile.LockName(s.root), Cache: s.opts.LockCache})
	}
	s.env = &tools.Env{FS: s.overlay, Resolve: resolve, Config: cfg, Remotes: remotes, Store: s.opts.Store, Root: s.root,
		Index: tools.NewIndex(s.overlay, []string{s.root}, lim), Limits: lim, Cache: cache,
		Timeout: s.opts.Timeout}
	s.breaking = "information"
	switch {
	case s.opts.NoConfig:
		s.breaking = "off" // an untrusted workspace: its git history is not read either
	case cfg != nil && cfg.LSP.BreakingChanges != "":
		s.breaking = cfg.LSP.BreakingChanges
	}
	s.assoc = s.opts.Associator
	if s.assoc == nil {
		s.assoc = newConfigAssociator(s.env, s.logf)
	}
}

// nameOf turns a document URI into a name of the FS: a file: URI's path, or for another
// scheme (untitled:, ...) a name under "/.jstk-unsaved/" that no file has.
func (s *Server) nameOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" {
		return "/.jstk-unsaved/" + strings.ReplaceAll(uri, "/", "_")
	}
	if u.Scheme != "file" {
		return "/.jstk-unsaved/" + u.Scheme + "/" + strings.TrimLeft(u.Opaque+u.Path, "/")
	}
	p := u.Path
	// file:///C:/x -> C:/x
	if len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return path.Clean(p)
}

// uriOf turns a name of the FS into a file: URI.
func (s *Server) uriOf(name string) string {
	if strings.Contains(name, "://") {
		return name
	}
	abs := filepath.ToSlash(s.overlay.Abs(name))
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs
	}
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// notify takes a notification.
func (s *Server) notify(method string, params json.RawMessage) {
	switch method {
	case "initialized", "$/setTrace", "workspace/didChangeConfiguration", "textDocument/didSave", "$/progress":
	case "$/cancelRequest":
		var p cancelParams
		if json.Unmarshal(params, &p) == nil {
			s.mu.Lock()
			if cancel := s.requests[string(p.ID)]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
	case "textDocument/didOpen":
		var p didOpenParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.logf("didOpen: %v", err)
			return
		}
		s.open(p.TextDocument)
	case "textDocument/didChange":
		var p didChangeParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.logf("didChange: %v", err)
			return
		}
		s.change(p)
	case "textDocument/didClose":
		var p didCloseParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.logf("didClose: %v", err)
			return
		}
		s.closeDoc(p.TextDocument.URI)
	case "workspace/didChangeWatchedFiles":
		var p didChangeWatchedFilesParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.logf("didChangeWatchedFiles: %v", err)
			return
		}
		s.watched(p)
	default:
		if !strings.HasPrefix(method, "$/") {
			s.logf("notification %q is not supported; ignored", method)
		}
	}
}

func (s *Server) open(item textDocumentItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[item.URI]
	if d != nil {
		s.stopRun(d)
	}
	d = &document{uri: item.URI, name: s.nameOf(item.URI), languageID: item.LanguageID,
		version: item.Version, text: newText(item.Text)}
	s.docs[item.URI] = d
	s.overlay.set(d.name, d.text.s)
	s.changed(d)
}

func (s *Server) change(p didChangeParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.logf("didChange of %s, which is not open; ignored", p.TextDocument.URI)
		return
	}
	t := d.text
	for _, c := range p.ContentChanges {
		t = t.apply(c)
	}
	d.text, d.version = t, p.TextDocument.Version
	s.overlay.set(d.name, t.s)
	s.changed(d)
}

func (s *Server) closeDoc(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return
	}
	s.stopRun(d)
	d.closed = true
	delete(s.docs, uri)
	s.overlay.remove(d.name)
	s.publish(uri, nil, []Diagnostic{})
	s.dependents(d.name)
}

// watched takes changes of files on disk: jstk.json or jstk.lock re-reads the configuration
// and re-checks every document; another file re-checks the documents whose schema it may be.
func (s *Server) watched(p didChangeWatchedFilesParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	config := false
	for _, c := range p.Changes {
		if b := path.Base(s.nameOf(c.URI)); b == tools.ConfigFile || b == lockfile.Name {
			config = true
		}
	}
	if config {
		s.loadConfig()
	} else {
		// A schema or a file it refers to changed: the $id index may have changed too.
		s.env.Index = tools.NewIndex(s.overlay, []string{s.root}, s.env.Limits)
	}
	for _, d := range s.docs {
		d.gen++ // what was computed before is stale, for a pull too
		s.schedule(d)
	}
	if s.pull && s.refresh {
		// The client pulls again; its response is ignored (handle drops responses).
		s.refreshes++
		s.send(struct {
			JSONRPC string `json:"jsonrpc"`
			ID      string `json:"id"`
			Method  string `json:"method"`
		}{"2.0", fmt.Sprintf("jstk-refresh-%d", s.refreshes), "workspace/diagnostic/refresh"})
	}
}

// changed schedules the diagnostics of d and of the open documents whose schema it is.
// Called with s.mu held.
func (s *Server) changed(d *document) {
	d.gen++
	s.schedule(d)
	s.dependents(d.name)
}

// dependents re-checks the open documents whose last run used the schema name.
func (s *Server) dependents(name string) {
	for _, o := range s.docs {
		if o.name != name && o.schema == name {
			o.gen++
			s.schedule(o)
		}
	}
}

// stopRun cancels d's waiting and running diagnostics. Called with s.mu held.
func (s *Server) stopRun(d *document) {
	if d.timer != nil && d.timer.Stop() {
		s.work.Done()
	}
	d.timer = nil
	if d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
}

// schedule starts d's diagnostics after the debounce delay, cancelling the run in flight:
// a superseded run never finishes, and runs never queue. Called with s.mu held.
func (s *Server) schedule(d *document) {
	if s.state != stateRunning {
		return
	}
	s.stopRun(d)
	gen := d.gen
	s.work.Add(1)
	d.timer = time.AfterFunc(s.opts.Debounce, func() {
		defer s.work.Done()
		s.run(d, gen)
	})
}

// run computes and publishes d's diagnostics for generation gen, unless a later change
// superseded it.
func (s *Server) run(d *document, gen int) {
	s.mu.Lock()
	if d.gen != gen || d.closed {
		s.mu.Unlock()
		return
	}
	d.timer = nil
	ctx, cancel := context.WithCancel(s.ctx)
	d.cancel = cancel
	t, version := d.text, d.version
	snap := s.snapshot()
	s.mu.Unlock()
	defer cancel()

	var diags []Diagnostic
	var schemaName string
	s.safely("diagnostics", func() { diags, schemaName = s.diagnose(ctx, snap, d, t) })

	s.mu.Lock()
	defer s.mu.Unlock()
	if d.gen != gen || d.closed || ctx.Err() != nil {
		return
	}
	d.cancel = nil
	d.schema = schemaName
	d.doneGen, d.last = gen, diags
	if s.pull {
		return // the client pulls them
	}
	v := version
	s.publish(d.uri, &v, diags)
}

func (s *Server) publish(uri string, version *int, diags []Diagnostic) {
	if diags == nil {
		diags = []Diagnostic{}
	}
	s.notifyClient("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags})
}

// A snapshot is what a run needs of the server, taken under its lock.
type snapshot struct {
	env      *tools.Env
	assoc    Associator
	breaking string // "off", "information" or "warning"
}

func (s *Server) snapshot() snapshot {
	return snapshot{env: s.env, assoc: s.assoc, breaking: s.breaking}
}

// requestHandlers are the requests the server answers (besides initialize and shutdown).
var requestHandlers = map[string]func(s *Server, ctx context.Context, params json.RawMessage) (any, *rpcError){
	"textDocument/diagnostic":   (*Server).pullDiagnostics,
	"textDocument/hover":        (*Server).hover,
	"textDocument/completion":   (*Server).completion,
	"textDocument/definition":   (*Server).definition,
	"textDocument/documentLink": (*Server).documentLinks,
	"textDocument/codeAction":   (*Server).codeActions,
}

// pullDiagnostics answers textDocument/diagnostic with the current diagnostics: those of
// the last run when it saw this version, else a run of its own.
func (s *Server) pullDiagnostics(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errorf(CodeInvalidParams, "textDocument/diagnostic: %v", err)
	}
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return nil, errorf(CodeInvalidParams, "%s is not open: send textDocument/didOpen first", p.TextDocument.URI)
	}
	if d.doneGen == d.gen && d.last != nil {
		items := d.last
		s.mu.Unlock()
		return fullDocumentDiagnosticReport{Kind: "full", Items: items}, nil
	}
	t, snap := d.text, s.snapshot()
	s.mu.Unlock()
	diags, _ := s.diagnose(ctx, snap, d, t)
	if diags == nil {
		diags = []Diagnostic{}
	}
	return fullDocumentDiagnosticReport{Kind: "full", Items: diags}, nil
}
