// Command bowtie-jstk is jstk's harness for Bowtie (https://bowtie.report), the meta-validator
// that compares JSON Schema implementations: it speaks Bowtie's protocol (version 1) on stdin
// and stdout, one JSON request a line (start, dialect, run, stop), and answers each with the
// public library, package jsonschema, that is with jstk's own compiler and evaluator.
//
// Each run's registry is handed to the library as in-memory resources: nothing is read from
// disk and nothing from the network. A case that cannot be compiled, or whose evaluation
// fails or panics, is answered as errored, and the harness keeps serving; so is a request
// that is not valid JSON or not a command it knows.
//
// Format and content: asserted for drafts 4, 6 and 7 (which let an implementation do so,
// and whose Test-Suite files expect it), annotations for 2019-09 and 2020-12, as those
// drafts say by default (a schema whose meta-schema requires the format-assertion
// vocabulary still asserts). Bowtie gives a harness no per-case switch, so the Test-Suite's
// optional/format files of 2019-09 and 2020-12, which assume assertion, fail in part where
// their core format.json (which assumes annotation) passes: that is the specified default,
// not a defect.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/jstk-dev/jstk/jsonschema"
)

func main() {
	if err := serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bowtie-jstk:", err)
		os.Exit(1)
	}
}

// request is any command; the fields of every command are here.
type request struct {
	Cmd     string          `json:"cmd"`
	Version *int            `json:"version"`
	Dialect string          `json:"dialect"`
	Seq     json.RawMessage `json:"seq"`
	Case    *testCase       `json:"case"`
	Output  string          `json:"output"`
}

type testCase struct {
	Description string                     `json:"description"`
	Schema      json.RawMessage            `json:"schema"`
	Registry    map[string]json.RawMessage `json:"registry"`
	Tests       []struct {
		Description string          `json:"description"`
		Instance    json.RawMessage `json:"instance"`
	} `json:"tests"`
}

// errored is Bowtie's shape of a case or test the implementation could not answer.
type errored struct {
	Seq     json.RawMessage `json:"seq,omitempty"`
	Errored bool            `json:"errored"`
	Context errContext      `json:"context"`
}

type errContext struct {
	Message   string `json:"message"`
	Traceback string `json:"traceback,omitempty"`
}

type skipped struct {
	Seq     json.RawMessage `json:"seq"`
	Skipped bool            `json:"skipped"`
	Message string          `json:"message"`
}

// dialects are the dialects jstk supports, the newest first, by their Bowtie URIs.
var dialects = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"https://json-schema.org/draft/2019-09/schema",
	"http://json-schema.org/draft-07/schema#",
	"http://json-schema.org/draft-06/schema#",
	"http://json-schema.org/draft-04/schema#",
}

// harness is the state of one session: started or not, the current dialect.
type harness struct {
	started bool
	dialect jsonschema.Draft
}

// serve answers the requests of r on w until stop or the end of r. Only a failure to write
// ends it with an error: every bad request is answered.
func serve(ctx context.Context, r io.Reader, w io.Writer) error {
	in := bufio.NewReader(r)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	h := &harness{dialect: jsonschema.Draft2020}
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			reply, stop := h.handle(ctx, line)
			if stop {
				return nil
			}
			if err := enc.Encode(reply); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handle answers one request line; stop is true for the stop command (which has no reply).
func (h *harness) handle(ctx context.Context, line []byte) (reply any, stop bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var seq struct {
			Seq json.RawMessage `json:"seq"`
		}
		json.Unmarshal(line, &seq)
		return &errored{Seq: seq.Seq, Errored: true, Context: errContext{Message: "the request is not a command: " + err.Error()}}, false
	}
	fail := func(format string, args ...any) any {
		return &errored{Seq: req.Seq, Errored: true, Context: errContext{Message: fmt.Sprintf(format, args...)}}
	}
	if req.Cmd != "start" && !h.started {
		return fail("%q before start: send start first", req.Cmd), false
	}
	switch req.Cmd {
	case "start":
		if req.Version == nil || *req.Version != 1 {
			return fail("unsupported protocol version %v: this harness speaks version 1", req.Version), false
		}
		h.started = true
		return map[string]any{"version": 1, "implementation": implementation()}, false
	case "dialect":
		for _, d := range dialects {
			if req.Dialect == d || req.Dialect+"#" == d {
				h.dialect = jsonschema.Draft(d)
				return map[string]bool{"ok": true}, false
			}
		}
		return map[string]bool{"ok": false}, false
	case "run":
		if len(req.Seq) == 0 || req.Case == nil {
			return fail("run needs seq and case"), false
		}
		if req.Output != "" && req.Output != "flag" {
			return &skipped{Seq: req.Seq, Skipped: true, Message: "jstk's harness answers the flag output only; " + req.Output + " is not implemented yet"}, false
		}
		return h.run(ctx, req.Seq, req.Case), false
	case "stop":
		return nil, true
	}
	return fail("unknown command %q (start, dialect, run and stop are)", req.Cmd), false
}

// run answers one case: the validity of each test, or errored for the whole case when its
// schema does not compile; a panic is caught and answered as errored, with its stack.
func (h *harness) run(ctx context.Context, seq json.RawMessage, c *testCase) (reply any) {
	defer func() {
		if p := recover(); p != nil {
			reply = &errored{Seq: seq, Errored: true, Context: errContext{Message: fmt.Sprint("panic: ", p), Traceback: string(debug.Stack())}}
		}
	}()
	opts := &jsonschema.Options{Draft: h.dialect, Resources: map[string][]byte{}}
	switch h.dialect {
	case jsonschema.Draft4, jsonschema.Draft6, jsonschema.Draft7:
		opts.AssertFormat, opts.AssertContent = true, true
	}
	for uri, doc := range c.Registry {
		opts.Resources[uri] = doc
	}
	s, err := jsonschema.Compile(ctx, "", c.Schema, opts)
	if err != nil {
		return &errored{Seq: seq, Errored: true, Context: errContext{Message: err.Error()}}
	}
	results := make([]any, len(c.Tests))
	for i, t := range c.Tests {
		results[i] = h.test(ctx, s, t.Instance)
	}
	return map[string]any{"seq": seq, "results": results}
}

// test answers one instance: {"valid": ...}, or errored when it cannot be evaluated.
func (h *harness) test(ctx context.Context, s *jsonschema.Schema, instance json.RawMessage) (reply any) {
	defer func() {
		if p := recover(); p != nil {
			reply = &errored{Errored: true, Context: errContext{Message: fmt.Sprint("panic: ", p), Traceback: string(debug.Stack())}}
		}
	}()
	errs, err := s.ValidateBytes(ctx, instance)
	if err != nil {
		return &errored{Errored: true, Context: errContext{Message: err.Error()}}
	}
	return map[string]bool{"valid": len(errs) == 0}
}

// implementation describes jstk as Bowtie's implementation model asks.
func implementation() map[string]any {
	impl := map[string]any{
		"name":             "jstk",
		"language":         "go",
		"dialects":         dialects,
		"homepage":         "https://github.com/jstk-dev/jstk",
		"issues":           "https://github.com/jstk-dev/jstk/issues",
		"source":           "https://github.com/jstk-dev/jstk",
		"documentation":    "https://pkg.go.dev/github.com/jstk-dev/jstk/jsonschema",
		"os":               runtime.GOOS,
		"language_version": runtime.Version(),
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/jstk-dev/jstk" {
				impl["version"] = d.Version // the harness module built against a tagged jstk
			}
		}
		if v := bi.Main.Version; bi.Main.Path == "github.com/jstk-dev/jstk" && v != "" && v != "(devel)" {
			impl["version"] = v
		}
	}
	return impl
}
