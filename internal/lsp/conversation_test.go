package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jstk-dev/jstk/internal/golden"
	"github.com/jstk-dev/jstk/internal/workspace"
)

// The server's conversations are kept as files, one per file, as internal/mcp keeps its
// own: each testdata/conversations/NAME.txtar holds
//
//	What the conversation shows and why (the archive's comment).
//	-- options --
//	(optional) {"maxDocumentSize": 100, "hold": "textDocument/hover", "panic": "textDocument/hover"}
//	-- ws/PATH --
//	(any number) a file of the workspace, which the server sees at /ws/PATH
//	-- client --
//	The client's messages (bodies, without the framing), one per line. After each one the
//	test waits until no run or request is in flight, except after a line prefixed with "&"
//	(left running). {{repeat "s" N}} writes s N times.
//	-- server --
//	What the server sends, in order: JSON values, compared parsed. Within the answer to one
//	client line, responses come first (by id), then notifications by document.
//
// "hold" makes the named request wait for its cancellation; "panic" makes it panic. After
// each conversation the server must still answer a request. JSTK_UPDATE=1 rewrites the
// server sections with what the server says.
const conversationsDir = "testdata/conversations"

type conversation struct {
	path    string
	archive *txtar.Archive
	options struct {
		MaxDocumentSize int64  `json:"maxDocumentSize"`
		Hold            string `json:"hold"`
		Panic           string `json:"panic"`
	}
	files  map[string]string
	client []string
	server []byte
}

func readConversation(path string) (*conversation, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	c := &conversation{path: path, archive: a, files: map[string]string{}}
	if len(bytes.TrimSpace(a.Comment)) == 0 {
		return nil, fmt.Errorf("%s: say what the conversation shows in the archive's comment", path)
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("%s: two sections %q", path, f.Name)
		}
		seen[f.Name] = true
		switch {
		case f.Name == "options":
			dec := json.NewDecoder(bytes.NewReader(f.Data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c.options); err != nil {
				return nil, fmt.Errorf("%s: options: %v", path, err)
			}
		case strings.HasPrefix(f.Name, "ws/"):
			c.files[strings.TrimPrefix(f.Name, "ws/")] = string(f.Data)
		case f.Name == "client":
			for i, l := range strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n") {
				if l == "" {
					continue
				}
				x, err := expand(l)
				if err != nil {
					return nil, fmt.Errorf("%s: client line %d: %v", path, i+1, err)
				}
				c.client = append(c.client, x)
			}
		case f.Name == "server":
			c.server = f.Data
		default:
			return nil, fmt.Errorf("%s: unknown section %q (options, ws/PATH, client, server)", path, f.Name)
		}
	}
	if !seen["client"] || !seen["server"] {
		return nil, fmt.Errorf("%s: a conversation needs a client and a server section", path)
	}
	return c, nil
}

// expand writes the {{repeat "s" N}} actions of a client line.
func expand(l string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(l, "{{repeat ")
		if i < 0 {
			b.WriteString(l)
			return b.String(), nil
		}
		b.WriteString(l[:i])
		rest := l[i+len("{{repeat "):]
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", fmt.Errorf("want {{repeat \"s\" N}}")
		}
		s, _ := strconv.Unquote(q)
		rest = strings.TrimLeft(rest[len(q):], " ")
		j := strings.Index(rest, "}}")
		n, err := strconv.Atoi(rest[:max(j, 0)])
		if j < 0 || err != nil || n > 64<<20 {
			return "", fmt.Errorf("want {{repeat \"s\" N}} with N up to %d", 64<<20)
		}
		b.WriteString(strings.Repeat(s, n))
		l = rest[j+2:]
	}
}

// A session is a server with its output collected.
type session struct {
	srv *Server
	mu  sync.Mutex
	out [][]byte
}

func newSession(t testing.TB, fsys workspace.FS, c *conversation) *session {
	ss := &session{}
	opts := Options{FS: fsys, Root: "/ws", Debounce: -1, Logf: func(f string, a ...any) { t.Logf(f, a...) }}
	if c != nil {
		opts.MaxDocumentSize = c.options.MaxDocumentSize
	}
	ss.srv = NewServer(opts)
	if c != nil {
		hold, panicIn := c.options.Hold, c.options.Panic
		ss.srv.hook = func(ctx context.Context, method string) {
			if method == hold {
				<-ctx.Done()
			}
			if method == panicIn {
				panic("a test's panic in " + method)
			}
		}
	}
	ss.srv.out = func(b []byte) error {
		ss.mu.Lock()
		ss.out = append(ss.out, bytes.Clone(b))
		ss.mu.Unlock()
		return nil
	}
	return ss
}

// do sends the client's lines and returns what the server said, each step's messages in
// the order the conversation files promise.
func (ss *session) do(lines ...string) [][]byte {
	var all [][]byte
	var step [][]byte
	flush := func() {
		ss.srv.wait()
		ss.mu.Lock()
		step = append(step, ss.out...)
		ss.out = nil
		ss.mu.Unlock()
		sort.SliceStable(step, func(i, j int) bool { return orderKey(step[i]) < orderKey(step[j]) })
		all = append(all, step...)
		step = nil
	}
	for _, l := range lines {
		running := strings.HasPrefix(l, "&")
		ss.srv.handle([]byte(strings.TrimPrefix(l, "&")))
		if !running {
			flush()
		}
	}
	flush()
	return all
}

// orderKey sorts one step's messages: responses by id, then notifications by uri.
func orderKey(b []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(b, &m)
	if len(m.ID) > 0 {
		return fmt.Sprintf("0 %20s", m.ID)
	}
	return "1 " + m.Params.URI
}

func formatMessages(msgs [][]byte) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		if len(m) <= 160 || json.Indent(&b, m, "", "  ") != nil {
			b.Write(m)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func parseAll(tb testing.TB, data []byte) []any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			tb.Fatalf("server section: %v", err)
		}
		out = append(out, v)
	}
}

func TestConversations(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(conversationsDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("%s holds %d conversations; expected at least 10", conversationsDir, len(paths))
	}
	for _, p := range paths {
		c, err := readConversation(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ss := newSession(t, workspace.Memory(c.files), c)
			got := ss.do(c.client...)
			if golden.Updating() {
				for i := range c.archive.Files {
					if f := &c.archive.Files[i]; f.Name == "server" {
						f.Data = formatMessages(got)
					}
				}
				if err := os.WriteFile(c.path, txtar.Format(c.archive), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				want := parseAll(t, c.server)
				var gotMsgs []any
				for _, b := range got {
					gotMsgs = append(gotMsgs, parseAll(t, b)...)
				}
				if d := cmp.Diff(want, gotMsgs); d != "" {
					t.Errorf("%s: the server's messages (-want +got):\n%s", c.path, d)
				}
			}
			// The server goes on answering (unless the conversation shut it down).
			ss.srv.mu.Lock()
			st := ss.srv.state
			ss.srv.mu.Unlock()
			if st == stateRunning {
				after := ss.do(`{"jsonrpc":"2.0","id":"after","method":"nope"}`)
				if len(after) != 1 || !bytes.Contains(after[0], []byte(`"after"`)) || !bytes.Contains(after[0], []byte("-32601")) {
					t.Errorf("the server did not answer a following request: %s", after)
				}
			}
			ss.srv.close()
		})
	}
}
