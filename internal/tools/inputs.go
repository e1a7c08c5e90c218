package tools

import (
	"fmt"
	"io"
	"path"
	"strconv"

	"github.com/jstk-dev/jstk/internal/workspace"
)

// docInput is one engine input that a document argument stands for: a file of the
// workspace (Path), standard input left unread for an engine that streams it (Reader), or
// a document's content (Text). Each engine's Source is made of these fields.
type docInput struct {
	// Name is how reports name the input: the file's name, "-" for standard input, or
	// "<arg>" for an inline document.
	Name string
	// ParseName is the name an inline document or standard input is parsed under (an
	// inline value's ends in ".json"); Path for a file.
	ParseName string
	// Path is a file of env.FS; empty for standard input and inline documents.
	Path string
	// Reader is standard input, when docOptions.stream asked to leave it unread.
	Reader io.Reader
	// Text is the content of standard input or of an inline document.
	Text []byte
	// Expanded marks a file found by expanding a directory or a glob pattern.
	Expanded bool
}

// docProblem is a path argument that could not be expanded, for the engines that report
// it with their findings instead of failing.
type docProblem struct {
	Path string // the argument as given
	Err  error
}

// docOptions say how document arguments become inputs.
type docOptions struct {
	// exts are the extensions of the files a directory contributes.
	exts []string
	// stream leaves standard input unread, in docInput.Reader, for an engine that reads
	// it as a stream (validate, infer); otherwise it is read whole into Text.
	stream bool
	// skipConfig leaves out jstk.json when a directory or a glob pattern finds it.
	skipConfig bool
	// lenient returns the paths that cannot be expanded as problems; otherwise the first
	// is the error of the call.
	lenient bool
}

// docInputs turns document arguments (path, value or text; no pointer) into engine inputs:
// a path is expanded (directories and globs),
// "-" is standard input, an inline document is taken as given. arg names the list in
// errors ("instances" gives "instances[2]").
func docInputs(env *Env, docs []Doc, arg string, o docOptions) ([]docInput, []docProblem, error) {
	var ins []docInput
	var problems []docProblem
	for i, d := range docs {
		in, ps, err := docInputsOf(env, d, arg+"["+strconv.Itoa(i)+"]", o)
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, in...)
		problems = append(problems, ps...)
	}
	return ins, problems, nil
}

// docInputsOf turns one document argument, named arg, into engine inputs (see docInputs).
func docInputsOf(env *Env, d Doc, arg string, o docOptions) ([]docInput, []docProblem, error) {
	if err := d.check(env, arg); err != nil {
		return nil, nil, err
	}
	if d.Path != "" && d.Path != "-" {
		files, errs := workspace.Expand(env.FS, []string{d.Path}, o.exts)
		if len(errs) > 0 && !o.lenient {
			return nil, nil, errs[0]
		}
		var ins []docInput
		for _, f := range files {
			if o.skipConfig && path.Base(f) == ConfigFile && f != d.Path {
				continue // the workspace configuration is not a schema
			}
			ins = append(ins, docInput{Name: f, ParseName: f, Path: f, Expanded: f != d.Path})
		}
		var problems []docProblem
		for _, e := range errs {
			problems = append(problems, docProblem{Path: d.Path, Err: e})
		}
		return ins, problems, nil
	}
	if d.Path == "-" && o.stream {
		if env.Stdin == nil {
			return nil, nil, fmt.Errorf("%s: \"-\" (standard input) is not available here", env.arg(arg))
		}
		return []docInput{{Name: "-", ParseName: "-", Reader: env.Stdin}}, nil, nil
	}
	data, name, err := d.bytes(env, arg)
	if err != nil {
		return nil, nil, err
	}
	return []docInput{{Name: d.label(arg), ParseName: name, Text: data}}, nil, nil
}
