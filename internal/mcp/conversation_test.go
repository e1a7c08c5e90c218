package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jstk-dev/jstk/internal/golden"
)

// The protocol's conversations are specifications kept as files, one conversation per file,
// as the Go SDK keeps its conformance tests (mcp/testdata/conformance): each
// testdata/conversations/NAME.txtar holds
//
//	What the conversation shows and why (the archive's comment).
//	-- options --
//	(optional) the Options that differ from the tests' defaults, as JSON:
//	{"maxMessageSize": 1048576, "pageSize": 4}
//	-- client --
//	The client's messages, one per line, as the stdio loop hands them to Handle. After each
//	one the test waits for the calls in flight, except after a line prefixed with "&" (left
//	running). Two actions write what a text file cannot show well: {{"\xff\r"}} is a Go
//	string literal (bytes that are not printable text), {{repeat "[" 100000}} is a string
//	literal repeated (a long line).
//	-- server --
//	What the server sends, in order: JSON values, compared parsed (numbers exactly), so they
//	may be spread over lines.
//	-- log --
//	(optional) what the server logs through Options.Logf, one line per entry; without this
//	section the log is not checked.
//
// The server serves the fake provider of helpers_test.go with run ids run-1, run-2, ... and
// a fake clock: no answer varies between runs, so nothing needs normalising. After each
// conversation the session must still answer a ping. JSTK_UPDATE=1 rewrites the server and
// log sections with what the server says.
const conversationsDir = "testdata/conversations"

// minConversations guards against losing files: the conversations there were when they
// moved to files (113 from the Go table, 1 from TestOddNotificationsAreIgnored).
const minConversations = 114

// A conversation is one file of conversationsDir, read.
type conversation struct {
	path    string
	archive *txtar.Archive
	options struct {
		MaxMessageSize int `json:"maxMessageSize"`
		PageSize       int `json:"pageSize"`
	}
	client []line  // a line prefixed with "&" is left running
	server []byte  // the server section as written
	log    *string // the log section, when there is one
}

// loadConversations reads every conversation of conversationsDir.
func loadConversations(tb testing.TB) []*conversation {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(conversationsDir, "*.txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) < minConversations {
		tb.Fatalf("%s holds %d conversations, fewer than the %d it held", conversationsDir, len(paths), minConversations)
	}
	var cs []*conversation
	for _, p := range paths {
		c, err := readConversation(p)
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

func readConversation(path string) (*conversation, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	c := &conversation{path: path, archive: a}
	if len(bytes.TrimSpace(a.Comment)) == 0 {
		return nil, fmt.Errorf("%s: say what the conversation shows in the archive's comment", path)
	}
	seen := map[string]bool{}
	for _, f := range a.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("%s: two sections %q", path, f.Name)
		}
		seen[f.Name] = true
		switch f.Name {
		case "options":
			dec := json.NewDecoder(bytes.NewReader(f.Data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c.options); err != nil {
				return nil, fmt.Errorf("%s: options: %v", path, err)
			}
		case "client":
			for i, text := range lines(f.Data) {
				l, err := parseLine(text)
				if err != nil {
					return nil, fmt.Errorf("%s: client line %d: %v", path, i+1, err)
				}
				c.client = append(c.client, l)
			}
		case "server":
			c.server = f.Data
		case "log":
			s := string(f.Data)
			c.log = &s
		default:
			return nil, fmt.Errorf("%s: unknown section %q (options, client, server, log)", path, f.Name)
		}
	}
	if !seen["client"] || !seen["server"] {
		return nil, fmt.Errorf("%s: a conversation needs a client and a server section", path)
	}
	return c, nil
}

// lines splits a section into its lines; each line ends with a newline.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// A line is a client line as pieces: each a string written n times.
type line []piece

type piece struct {
	s string
	n int
}

// parseLine reads the actions of a client line: {{"quoted"}} and {{repeat "quoted" N}}.
func parseLine(text string) (line, error) {
	var l line
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			return append(l, piece{text, 1}), nil
		}
		l = append(l, piece{text[:i], 1})
		rest := strings.TrimLeft(text[i+2:], " ")
		n := 1
		rest, repeat := strings.CutPrefix(rest, "repeat ")
		q, err := strconv.QuotedPrefix(strings.TrimLeft(rest, " "))
		if err != nil {
			return nil, fmt.Errorf("at byte %d: want {{\"string\"}} or {{repeat \"string\" N}}", i)
		}
		rest = strings.TrimLeft(rest, " ")[len(q):]
		str, _ := strconv.Unquote(q)
		if repeat {
			rest = strings.TrimLeft(rest, " ")
			digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
			if n, err = strconv.Atoi(rest[:digits]); err != nil || n > 64<<20 {
				return nil, fmt.Errorf("at byte %d: repeat wants a count up to %d after the string", i, 64<<20)
			}
			rest = rest[digits:]
		}
		var ok bool
		if text, ok = strings.CutPrefix(strings.TrimLeft(rest, " "), "}}"); !ok {
			return nil, fmt.Errorf("at byte %d: the action does not end with }}", i)
		}
		l = append(l, piece{str, n})
	}
}

// size is the length of the line once written.
func (l line) size() int {
	n := 0
	for _, p := range l {
		n += len(p.s) * p.n
	}
	return n
}

// String writes the line.
func (l line) String() string {
	b := make([]byte, 0, l.size())
	for _, p := range l {
		start, end := len(b), len(b)+len(p.s)*p.n
		b = append(b, p.s...)
		for len(b) < end { // double what is written
			b = append(b, b[start:start+min(len(b)-start, end-len(b))]...)
		}
	}
	return string(b)
}

// serverMessages parses the server section: JSON values, numbers kept exact.
func serverMessages(tb testing.TB, c *conversation) []any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(c.server))
	dec.UseNumber()
	var msgs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return msgs
		}
		if err != nil {
			tb.Fatalf("%s: server section: %v", c.path, err)
		}
		msgs = append(msgs, v)
	}
}

// formatMessages writes messages as the server section shows them: a short message on one
// line as sent, a longer one indented.
func formatMessages(msgs [][]byte) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		if len(m) <= 200 || json.Indent(&b, m, "", "  ") != nil {
			b.Write(m)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestConversations(t *testing.T) {
	t.Parallel()
	for _, c := range loadConversations(t) {
		t.Run(strings.TrimSuffix(filepath.Base(c.path), ".txtar"), func(t *testing.T) {
			t.Parallel()
			opts := testOptions()
			opts.MaxMessageSize, opts.PageSize = c.options.MaxMessageSize, c.options.PageSize
			ss := newSession(t, newFakeProvider(), opts)
			client := make([]string, len(c.client))
			for i, l := range c.client {
				client[i] = l.String()
			}
			got := ss.do(client...)
			ss.mu.Lock()
			logged := ""
			for _, l := range ss.logged {
				logged += l + "\n"
			}
			ss.mu.Unlock()

			if golden.Updating() {
				for i := range c.archive.Files {
					switch f := &c.archive.Files[i]; f.Name {
					case "server":
						f.Data = formatMessages(got)
					case "log":
						f.Data = []byte(logged)
					}
				}
				if err := os.WriteFile(c.path, txtar.Format(c.archive), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				want := serverMessages(t, c)
				var gotMsgs []any
				for _, b := range got {
					gotMsgs = append(gotMsgs, parseJSON(t, b))
				}
				if d := cmp.Diff(want, gotMsgs); d != "" {
					t.Errorf("%s: the server's messages (-want +got):\n%s", c.path, d)
				}
				if c.log != nil && *c.log != logged {
					t.Errorf("%s: the server's log:\n%s\nwant:\n%s", c.path, logged, *c.log)
				}
			}

			// The session goes on.
			after := ss.do(request(`"after"`, "ping", ""))
			if d := diffMessages(t, []string{okReply(`"after"`, `{}`)}, after); d != "" {
				t.Errorf("the session did not answer a following ping (-want +got):\n%s", d)
			}
			ss.srv.Wait()
		})
	}
}

// The runner reads what the files say, and refuses what they must not say.
func TestConversationFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, text string
		client     []string
		want       string // an error containing this, or "" for none
	}{
		{"actions and running lines", "Shows.\n-- client --\n&{{repeat \"ab\" 3}}\n\n{{\"\\xff\\r\"}}\n{{ repeat  \"[\" 2 }}0{{repeat \"]\" 2}}\n{\"a\":\"}}\"}\n-- server --\n",
			[]string{"&ababab", "", "\xff\r", "[[0]]", `{"a":"}}"}`}, ""},
		{"no comment", "-- client --\n-- server --\n", nil, "say what the conversation shows"},
		{"no server", "Shows.\n-- client --\nx\n", nil, "needs a client and a server section"},
		{"unknown section", "Shows.\n-- client --\n-- server --\n-- tools --\n", nil, `unknown section "tools"`},
		{"twice", "Shows.\n-- client --\n-- client --\n-- server --\n", nil, `two sections "client"`},
		{"unknown option", "Shows.\n-- options --\n{\"pages\": 1}\n-- client --\n-- server --\n", nil, `unknown field "pages"`},
		{"no string", "Shows.\n-- client --\n{{repeat}}\n-- server --\n", nil, "client line 1: at byte 0: want"},
		{"no count", "Shows.\n-- client --\nab{{repeat \"x\"}}\n-- server --\n", nil, "client line 1: at byte 2: repeat wants a count"},
		{"too long", "Shows.\n-- client --\n{{repeat \"x\" 100000000}}\n-- server --\n", nil, "repeat wants a count"},
		{"not closed", "Shows.\n-- client --\nok\n{{\"x\"\n-- server --\n", nil, "client line 2: at byte 0: the action does not end with }}"},
		{"not a Go string", "Shows.\n-- client --\n{{x}}\n-- server --\n", nil, "want {{"},
	}
	for i, tc := range tests {
		path := filepath.Join(dir, fmt.Sprintf("%d.txtar", i))
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := readConversation(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "":
			var client []string
			for _, l := range c.client {
				client = append(client, l.String())
			}
			if d := cmp.Diff(tc.client, client); d != "" {
				t.Errorf("%s: client lines (-want +got):\n%s", tc.name, d)
			}
		case err == nil || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
