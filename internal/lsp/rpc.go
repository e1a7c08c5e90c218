package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JSON-RPC and LSP error codes the server answers with.
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeRequestCancelled     = -32800
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a notification (Method
// only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// errorf makes an rpcError with a formatted message.
func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errTooLarge is returned by readFrame for a message over the limit; its Head holds the
// first bytes of the body, so that the server can say which document it refused.
type errTooLarge struct {
	Size  int64
	Limit int64
	Head  []byte
}

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("message of %d bytes is over the limit of %d bytes", e.Size, e.Limit)
}

// headBytes is how much of a refused message is kept to find what it was about.
const headBytes = 64 << 10

// readFrame reads one message framed by LSP's base protocol: header lines ending in CR LF
// (Content-Length is required, Content-Type is ignored), an empty line, then the body. A
// body over limit is read through and dropped (an *errTooLarge, the stream stays usable);
// a broken header is an error after which the stream cannot be trusted. io.EOF at a
// message boundary means the client closed the stream.
func readFrame(r *bufio.Reader, limit int64) ([]byte, error) {
	length := int64(-1)
	first := true
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && first && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading the header: %w", noEOF(err))
		}
		first = false
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("header line %q has no colon", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", strings.TrimSpace(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("a message without Content-Length")
	}
	if length > limit {
		head := make([]byte, min(length, headBytes))
		if _, err := io.ReadFull(r, head); err != nil {
			return nil, fmt.Errorf("reading the body: %w", noEOF(err))
		}
		if _, err := io.CopyN(io.Discard, r, length-int64(len(head))); err != nil {
			return nil, fmt.Errorf("reading the body: %w", noEOF(err))
		}
		return nil, &errTooLarge{Size: length, Limit: limit, Head: head}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading the body: %w", noEOF(err))
	}
	return body, nil
}

// noEOF turns an end of stream inside a message into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeFrame writes body with its Content-Length header.
func writeFrame(w io.Writer, body []byte) error {
	var b bytes.Buffer
	b.Grow(len(body) + 32)
	b.WriteString("Content-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	_, err := w.Write(b.Bytes())
	return err
}

// peekRefused finds, in the first bytes of a refused message, its id, method and the uri of
// its text document, as far as they can be read without the whole message.
func peekRefused(head []byte) (id json.RawMessage, method, uri string) {
	s := string(head)
	grab := func(key string) string {
		i := strings.Index(s, `"`+key+`"`)
		if i < 0 {
			return ""
		}
		rest := strings.TrimLeft(s[i+len(key)+2:], " \t\r\n")
		if !strings.HasPrefix(rest, ":") {
			return ""
		}
		rest = strings.TrimLeft(rest[1:], " \t\r\n")
		dec := json.NewDecoder(strings.NewReader(rest))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ""
		}
		return string(v)
	}
	if v := grab("id"); v != "" {
		id = json.RawMessage(v)
	}
	_ = json.Unmarshal([]byte(grab("method")), &method)
	_ = json.Unmarshal([]byte(grab("uri")), &uri)
	return id, method, uri
}
