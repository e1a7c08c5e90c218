package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol versions the tests pin: the newest session-based one, and the stateless era.
const (
	legacyEra = "2025-11-25"
	modernEra = "2026-07-28"
)

// eras are the protocol versions every SDK-driven test runs in.
var eras = []string{legacyEra, modernEra}

// clientName is the clientInfo.name the SDK client sends (the audit log's invoker id).
const clientName = "jstk-e2e"

var (
	jstkBin    string // the binary under test
	workDir    string // the workspace the servers serve: the shipped examples plus generated files
	parityDir  string // a plain workspace (no link out, no pipe), where CLI and MCP read the same files
	outsideDir string // a directory beside the workspace, which no tool may read
	haveFIFO   bool   // the workspace holds fifo.json, a named pipe
)

// Sizes of the generated NDJSON files: medium.ndjson reports progress a few times and ends
// quickly; big.ndjson runs long enough to be cancelled or interrupted mid-way (it is only
// ever read in part). The race build of the binary is several times slower, so it reads less.
var (
	mediumLines = 5000
	bigLines    = 300_000
)

// singleThreaded skips a test under the race detector: its subject (a parser, the compiler or
// infer on one deep input) runs on one goroutine, where the detector can find nothing and the
// race build runs several times slower. It runs in the suite without -race.
func singleThreaded(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("one goroutine's work: run without the race detector")
	}
}

func TestMain(m *testing.M) {
	probeMain()
	flag.Parse()
	if raceEnabled {
		bigLines = 60_000
		// A binary built with -race sleeps 1 s at exit unless told not to; every test
		// starts many processes.
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "jstk-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// JSTK_E2E_BIN: a binary built beforehand (the benchmarks alternate two builds so).
	if jstkBin = os.Getenv("JSTK_E2E_BIN"); jstkBin == "" {
		jstkBin = filepath.Join(tmp, "bin", "jstk")
		// Without cmd/jstk/default.pgo: with it, every package is compiled once more for
		// this binary (31.6 s, where the packages the tests built are linked in 0.9 s), and
		// go test ./... is the command a newcomer waits for. The profile
		// changes how the code is compiled, not what it does; CI runs the release's binary,
		// built with it, through MCP Inspector, npm, the extension, pre-commit and the
		// Action.
		args := []string{"build", "-pgo=off", "-o", jstkBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "../../cmd/jstk")...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building jstk:", err)
			return 1
		}
	}
	workDir, outsideDir, parityDir = filepath.Join(tmp, "ws"), filepath.Join(tmp, "outside"), filepath.Join(tmp, "parity")
	if err := writeFiles(parityDir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: making the parity workspace:", err)
		return 1
	}
	if err := makeWorkspace(workDir, outsideDir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: making the workspace:", err)
		return 1
	}
	return m.Run()
}

// makeWorkspace fills ws with the shipped examples and the files the tests need, and puts a
// secret in outside, which a symbolic link in ws points to.
func makeWorkspace(ws, outside string) error {
	if err := writeFiles(ws); err != nil {
		return err
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	secret := filepath.Join(outside, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"password": "hunter2"}`), 0o644); err != nil {
		return err
	}
	if err := os.Symlink(secret, filepath.Join(ws, "link-out.json")); err != nil {
		return err
	}
	if err := makeFIFO(filepath.Join(ws, "fifo.json")); err == nil {
		haveFIFO = true
	} else if !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	if err := writeOrders(filepath.Join(ws, "medium.ndjson"), mediumLines); err != nil {
		return err
	}
	return writeOrders(filepath.Join(ws, "big.ndjson"), bigLines)
}

// writeFiles writes the shipped examples, the sample workspace of the tools and small files
// of the tests to dir.
func writeFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	examples, err := filepath.Glob("../../examples/*.*")
	if err != nil || len(examples) == 0 {
		return fmt.Errorf("no shipped examples found (%v)", err)
	}
	for _, f := range examples {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	// The sample workspace of the tools' Samples (tools.Descriptor): the examples above and
	// the files of internal/tools/testdata/sample.
	sample := filepath.Join("..", "tools", "testdata", "sample")
	err = filepath.WalkDir(sample, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(sample, p)
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return err
	}
	files := map[string]string{
		"broken.schema.json":  `{"type": "object", "properties": {`,
		"invalid.schema.json": `{"type": 12}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeOrders writes n valid orders (for examples/order.schema.json), one per line.
func writeOrders(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, `{"id": "ORD-%06d", "status": "paid", "customer": {"name": "Customer %d", "email": "c%d@example.com"}, "items": [{"sku": "ABC-%04d", "qty": %d, "price": 12.5}], "total": %d.5}`+"\n",
			i%1_000_000, i, i, i%10_000, 1+i%9, 12*(1+i%9))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of os/exec and reads of a test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// recorder is an SDK transport that records every message the client reads and writes, so a
// test can see what went over the wire (for instance that a cancelled call got no answer).
type recorder struct {
	sdk.Transport
	mu  sync.Mutex
	in  []jsonrpc.Message // from the server
	out []jsonrpc.Message // to the server
}

func (r *recorder) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

type recordingConn struct {
	sdk.Connection
	r *recorder
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		c.r.mu.Lock()
		c.r.in = append(c.r.in, m)
		c.r.mu.Unlock()
	}
	return m, err
}

func (c *recordingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.r.mu.Lock()
	c.r.out = append(c.r.out, m)
	c.r.mu.Unlock()
	return c.Connection.Write(ctx, m)
}

// received returns the messages read from the server so far.
func (r *recorder) received() []jsonrpc.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]jsonrpc.Message(nil), r.in...)
}

// sent returns the messages written to the server so far.
func (r *recorder) sent() []jsonrpc.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]jsonrpc.Message(nil), r.out...)
}

// session is one `jstk mcp` process driven by the official SDK client.
type session struct {
	*sdk.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
	rec    *recorder
	closed bool
}

// options of startSession.
type options struct {
	era    string             // protocol version to pin (legacyEra or modernEra)
	root   string             // the workspace; "" means workDir
	args   []string           // extra flags of `jstk mcp`
	client *sdk.ClientOptions // nil for defaults
}

// startSession starts `jstk mcp --root ROOT ARGS...` and connects the SDK client to it in
// the given era; the process is closed (stdin closed, exit awaited) when the test ends.
func startSession(t testing.TB, o options) *session {
	t.Helper()
	root := o.root
	if root == "" {
		root = workDir
	}
	cmd := exec.Command(jstkBin, append([]string{"mcp", "--root", root}, o.args...)...)
	s := &session{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	s.rec = &recorder{Transport: &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.0.0"}, o.client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, s.rec, &sdk.ClientSessionOptions{ProtocolVersion: o.era})
	if err != nil {
		t.Fatalf("connecting to jstk mcp (%s): %v; stderr:\n%s", o.era, err, s.stderr)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != o.era {
		t.Fatalf("negotiated protocol version %q, want %q", got, o.era)
	}
	s.ClientSession = cs
	t.Cleanup(func() { s.close(t) })
	return s
}

// close ends the session by closing stdin and checks that the server exited cleanly.
func (s *session) close(t testing.TB) {
	t.Helper()
	if s.closed {
		return
	}
	s.closed = true
	if err := s.Close(); err != nil {
		t.Errorf("closing the session: %v; stderr:\n%s", err, s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("jstk mcp exited with %d at EOF, want 0; stderr:\n%s", code, s.stderr)
	}
}

// call calls a tool and fails the test on a protocol error.
func (s *session) call(t testing.TB, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v; stderr:\n%s", name, err, s.stderr)
	}
	return res
}

// text returns the text of a result's content blocks, which must all be text.
func text(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	var sb strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("content block of type %T, want text", c)
		}
		sb.WriteString(tc.Text)
	}
	return sb.String()
}

// rawServer is a `jstk mcp` process driven with raw lines (no SDK), for what a well-behaved
// client never sends and for measurements without client overhead.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, line by line (closed at EOF)
	stderr *syncBuffer
	done   chan struct{} // closed when stdout hit EOF
	rawOut *syncBuffer   // every byte of stdout
}

// startRaw starts `jstk mcp --root workDir ARGS...` with pipes.
func startRaw(t testing.TB, args ...string) *rawServer {
	t.Helper()
	return startRawIn(t, workDir, args...)
}

// startRawIn starts `jstk mcp --root ROOT ARGS...` with pipes.
func startRawIn(t testing.TB, root string, args ...string) *rawServer {
	t.Helper()
	return startRawEnv(t, root, nil, args...)
}

// startRawEnv is startRawIn with variables added to the environment.
func startRawEnv(t testing.TB, root string, env []string, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(jstkBin, append([]string{"mcp", "--root", root}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	r := &rawServer{cmd: cmd, stderr: &syncBuffer{}, lines: make(chan []byte, 1024), done: make(chan struct{}), rawOut: &syncBuffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.done)
		defer close(r.lines)
		br := bufio.NewReaderSize(io.TeeReader(stdout, r.rawOut), 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				r.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		r.stdin.Close()
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
			r.cmd.Process.Kill()
		}
		r.cmd.Wait()
	})
	return r
}

// send writes one line (a newline is added).
func (r *rawServer) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to jstk mcp: %v; stderr:\n%s", err, r.stderr)
	}
}

// next returns the next stdout line, decoded; it fails the test after the timeout or at EOF.
func (r *rawServer) next(t testing.TB, timeout time.Duration) map[string]json.RawMessage {
	t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			t.Fatalf("jstk mcp closed stdout; stderr:\n%s", r.stderr)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("stdout line is not a JSON object: %v: %.300q", err, line)
		}
		return m
	case <-time.After(timeout):
		t.Fatalf("no message from jstk mcp within %v; stderr:\n%s", timeout, r.stderr)
	}
	return nil
}

// answer reads messages until the response with the given id, skipping notifications.
func (r *rawServer) answer(t testing.TB, id string, timeout time.Duration) map[string]json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		m := r.next(t, time.Until(deadline))
		if string(m["id"]) == id {
			return m
		}
		if _, ok := m["id"]; ok {
			t.Fatalf("unexpected response %s while waiting for id %s", m["id"], id)
		}
	}
}

// initialize performs the legacy handshake on a raw server.
func (r *rawServer) initialize(t testing.TB) {
	t.Helper()
	r.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+legacyEra+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.answer(t, "0", 30*time.Second); m["result"] == nil {
		t.Fatalf("initialize failed: %s", m["error"])
	}
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// modernMeta is the _meta member a raw 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernEra + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// mustJSON encodes v.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
