package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ndjsonChunk is the size of the buffers an NDJSONReader reads into. Documents share memory
// with the buffer their line was read into, so a Document kept alive keeps at most about
// this much (or its own line, when longer) alive.
const ndjsonChunk = 64 << 10

// NDJSONReader reads an NDJSON (JSON Lines) stream one document at a time, without holding
// more of the input in memory than the line being parsed. Each non-blank line must be one
// JSON value; a UTF-8 byte order mark is allowed at the start of the first line only. Lines
// end at LF (a CR before it is dropped).
//
// Use it as:
//
//	r := source.NewNDJSONReader(name, rd, lim)
//	for {
//		doc, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		var perr *source.Error
//		if errors.As(err, &perr) {
//			// this line is bad; report it and go on
//			continue
//		}
//		if err != nil {
//			return err // the stream could not be read
//		}
//		// use doc
//	}
type NDJSONReader struct {
	name     string
	rd       io.Reader
	maxSize  int
	maxDepth int

	buf      []byte // buf[pos:end] is read but not yet consumed
	pos, end int
	scanned  int  // buf[pos:scanned] holds no '\n'
	eof      bool // rd has reported io.EOF
	err      error
	line     int // the line number of the next line
	lastLine int // the line number of the last document or error returned
	p        jsonParser
}

// NewNDJSONReader returns a reader of the NDJSON stream rd. name is the file name used in
// documents and errors. lim.MaxSize bounds the length of one line; the stream as a whole
// is not bounded.
func NewNDJSONReader(name string, rd io.Reader, lim *Limits) *NDJSONReader {
	size := lim.maxSize()
	if size > int64(maxInt-2) {
		size = int64(maxInt - 2)
	}
	return &NDJSONReader{name: name, rd: rd, maxSize: int(size), maxDepth: lim.maxDepth(), line: 1}
}

const maxInt = int(^uint(0) >> 1)

// Next returns the document on the next non-blank line. Its Line is the line's number in the
// stream, so its Position reports lines and columns of the file.
//
// At the end of the stream Next returns nil, io.EOF. A line that is not one JSON value, or
// is longer than the size limit, yields a nil Document and an *Error naming the line; Next
// may then be called again to go on with the following lines (an over-long line is skipped
// without being held in memory). Any other error means the stream could not be read: it is
// returned, naming the file, by this and every later call.
func (r *NDJSONReader) Next() (*Document, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		line, n, tooLong, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("%s: %w", r.name, err)
			}
			r.err = err
			return nil, err
		}
		r.lastLine = n
		if tooLong {
			return nil, r.tooLong(n)
		}
		doc, err := r.parseLine(line, n)
		if doc == nil && err == nil {
			continue // a blank line
		}
		return doc, err
	}
}

func (r *NDJSONReader) tooLong(line int) *Error {
	return &Error{File: r.name, Line: line, Msg: "line longer than the limit of " +
		strconv.Itoa(r.maxSize) + " bytes (raise it with --max-size)"}
}

// Line returns the line number of the document or per-line error last returned by Next.
func (r *NDJSONReader) Line() int { return r.lastLine }

// parseLine parses one line, numbered n, without its line break. It returns nil, nil for a
// blank line. The documents share memory with line, which must not change afterwards.
func (r *NDJSONReader) parseLine(line []byte, n int) (*Document, error) {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if len(line) > r.maxSize {
		return nil, r.tooLong(n)
	}
	text := bytesString(line)
	start := 0
	if n == 1 {
		start = skipBOM(text)
	}
	blank := true
	for _, c := range line[start:] {
		if !isSpace[c] {
			blank = false
			break
		}
	}
	if blank {
		return nil, nil
	}
	root, err := r.p.parse(text, start, r.maxDepth)
	if err != nil {
		return nil, errorAt(r.name, line, n, err.off, "%s", err.msg)
	}
	return &Document{Name: r.name, Format: NDJSON, Root: root, Line: n, src: line[:len(line):len(line)]}, nil
}

// readLine returns the next line (without its '\n') and its number. When the line is longer
// than the limit, it skips it and reports tooLong. At the end of the stream it returns
// io.EOF.
func (r *NDJSONReader) readLine() (line []byte, n int, tooLong bool, err error) {
	zeroReads := 0
	for {
		if i := bytes.IndexByte(r.buf[r.scanned:r.end], '\n'); i >= 0 {
			e := r.scanned + i
			line = r.buf[r.pos:e]
			r.pos, r.scanned = e+1, e+1
			return line, r.advance(line), false, nil
		}
		r.scanned = r.end
		if r.eof {
			if r.pos == r.end {
				return nil, 0, false, io.EOF
			}
			line = r.buf[r.pos:r.end]
			r.pos = r.end
			return line, r.advance(line), false, nil
		}
		if r.end-r.pos > r.maxSize+1 { // room for a '\r' before the '\n'
			n = r.line
			r.line++
			return nil, n, true, r.skipLine()
		}
		if r.end == len(r.buf) {
			r.grow()
		}
		m, err := r.rd.Read(r.buf[r.end:])
		r.end += m
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			return nil, 0, false, err
		case m == 0:
			if zeroReads++; zeroReads >= 100 {
				return nil, 0, false, io.ErrNoProgress
			}
		default:
			zeroReads = 0
		}
	}
}

// advance counts the line just read and returns its number. A lone CR inside a line starts a
// new line for editors, so it counts too.
func (r *NDJSONReader) advance(line []byte) int {
	n := r.line
	r.line++
	if i := bytes.IndexByte(line, '\r'); i >= 0 && i < len(line)-1 {
		for j := i; j < len(line)-1; j++ {
			if line[j] == '\r' {
				r.line++
			}
		}
	}
	return n
}

// grow makes room to read more of the current line. Lines already returned keep the old
// buffer, so the unread bytes move to a new one, which is never written where a returned
// line lies.
func (r *NDJSONReader) grow() {
	n := r.end - r.pos
	size := max(ndjsonChunk, 2*n)
	size = min(size, r.maxSize+2)
	size = max(size, n+1)
	buf := make([]byte, size)
	copy(buf, r.buf[r.pos:r.end])
	r.buf, r.pos, r.scanned, r.end = buf, 0, n, n
}

// skipLine discards the rest of the current line, reading in a buffer of its own.
func (r *NDJSONReader) skipLine() error {
	buf := make([]byte, min(ndjsonChunk, r.maxSize+2))
	r.buf, r.pos, r.scanned, r.end = buf, 0, 0, 0
	zeroReads := 0
	for {
		m, err := r.rd.Read(buf)
		if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
			r.pos, r.scanned, r.end = i+1, i+1, m
			if err == io.EOF {
				r.eof = true
				err = nil
			}
			return err
		}
		switch {
		case err == io.EOF:
			r.eof = true
			return nil
		case err != nil:
			return err
		case m == 0:
			if zeroReads++; zeroReads >= 100 {
				return io.ErrNoProgress
			}
		default:
			zeroReads = 0
		}
	}
}

// parseNDJSON parses NDJSON text held in memory. It returns the documents of all valid lines;
// when some lines are invalid, the error joins their *Errors.
func parseNDJSON(name string, src []byte, lim *Limits) ([]*Document, error) {
	text := string(src) // the documents share this copy
	b := stringBytes(text)
	r := NewNDJSONReader(name, nil, lim)
	var docs []*Document
	var errs []error
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var line []byte
		if i < 0 {
			line, b = b, nil
		} else {
			line, b = b[:i], b[i+1:]
		}
		doc, err := r.parseLine(line, r.advance(line))
		switch {
		case err != nil:
			errs = append(errs, err)
		case doc != nil:
			docs = append(docs, doc)
		}
	}
	return docs, errors.Join(errs...)
}

// PeekNDJSON tells whether the stream r holds NDJSON, for input whose name says nothing
// (standard input): its first non-blank line is a whole JSON object or array and another
// non-blank line follows. It reads the start of r, through the first line however long
// (up to limit bytes; a longer line is not NDJSON's to read anyway) and the start of the
// next non-blank one; the reader it returns gives all of r from the start.
func PeekNDJSON(r io.Reader, limit int64) (io.Reader, bool, error) {
	var head []byte
	buf := make([]byte, ndjsonChunk)
	start, end := -1, -1 // the first line's first non-blank byte, and its end (its LF)
	scanned := 0         // head[:scanned] has been looked at
	for {
		n, err := r.Read(buf)
		head = append(head, buf[:n]...)
		for ; scanned < len(head); scanned++ {
			c := head[scanned]
			switch {
			case start < 0:
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' || (c == 0xEF && scanned == 0) ||
					(scanned > 0 && scanned < 3 && head[0] == 0xEF && (c == 0xBB || c == 0xBF)) {
					continue // blanks, and a byte order mark at the very start
				}
				if c != '{' && c != '[' {
					return io.MultiReader(bytes.NewReader(head), r), false, nil
				}
				start = scanned
			case end < 0:
				if c == '\n' {
					end = scanned
				}
			default:
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
					continue
				}
				// a second non-blank line: NDJSON if the first is a whole JSON value
				_, perr := ParseJSON("", head[start:end], nil)
				return io.MultiReader(bytes.NewReader(head), r), perr == nil, nil
			}
		}
		if err == io.EOF {
			return bytes.NewReader(head), false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if int64(len(head)) > limit {
			return io.MultiReader(bytes.NewReader(head), r), false, nil
		}
	}
}
