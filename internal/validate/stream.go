package validate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
)

// Stream prints a Result while it is produced: each instance as it is checked (Instance,
// fed from Options.OnInstance), the rest when the run is done (Finish, given the result
// whose instance list is left empty). What it prints equals the printing of the complete
// result by diag.Write in the same format.
type Stream struct {
	// Instance prints one instance.
	Instance func(*Instance)
	// Finish prints the end: the summary, the groups, why the run stopped.
	Finish func(*Result) error
}

// NewStream returns a printer of a result in format f to w, or nil when f cannot be
// streamed. tool names jstk in SARIF output.
func NewStream(f diag.Format, w io.Writer, tool diag.Tool) *Stream {
	switch f {
	case diag.Text:
		tw := &TextWriter{W: w}
		return &Stream{
			Instance: tw.Instance,
			Finish: func(res *Result) error {
				tw.Summary(res.Summary, nil, 0, res.Groups)
				tw.Stopped(res.Stopped)
				return tw.Err
			},
		}
	case diag.GitHub:
		var err error
		return &Stream{
			Instance: func(in *Instance) {
				if err == nil {
					err = diag.WriteGitHub(w, InstanceDiagnostics(in))
				}
			},
			Finish: func(res *Result) error {
				if err == nil {
					err = diag.WriteGitHub(w, res.StoppedDiagnostics())
				}
				return err
			},
		}
	case diag.SARIF:
		tool.Rules = Rules()
		var ds []diag.Diagnostic
		return &Stream{
			Instance: func(in *Instance) { ds = append(ds, InstanceDiagnostics(in)...) },
			Finish: func(res *Result) error {
				return diag.WriteSARIF(w, tool, append(ds, res.StoppedDiagnostics()...))
			},
		}
	case diag.JSON:
		return jsonStream(w)
	}
	return nil
}

// jsonStream prints a result as diag.WriteJSON does, its instances one by one.
func jsonStream(w io.Writer) *Stream {
	n := 0
	var err error
	write := func(s string) {
		if err == nil {
			_, err = io.WriteString(w, s)
		}
	}
	return &Stream{
		Instance: func(in *Instance) {
			if n == 0 {
				write("{\n  \"instances\": [\n    ")
			} else {
				write(",\n    ")
			}
			n++
			b, e := marshalIndent(in, "    ")
			if e != nil && err == nil {
				err = e
			}
			write(b)
		},
		Finish: func(res *Result) error {
			if n == 0 {
				write("{\n  \"instances\": [")
			} else {
				write("\n  ")
			}
			sum, e := marshalIndent(res.Summary, "  ")
			if e != nil {
				return e
			}
			stopped := ""
			if len(res.Groups) > 0 {
				b, e := marshalIndent(res.Groups, "  ")
				if e != nil {
					return e
				}
				stopped += ",\n  \"groups\": " + b
			}
			if res.Stopped != "" {
				b, e := marshalIndent(res.Stopped, "  ")
				if e != nil {
					return e
				}
				stopped += ",\n  \"stopped\": " + b
			}
			write(fmt.Sprintf("],\n  \"summary\": %s,\n  \"valid\": %v%s\n}\n", sum, res.Valid, stopped))
			return err
		},
	}
}

// marshalIndent encodes like diag.WriteJSON (no HTML escaping, two-space indent), with a
// prefix for the lines after the first.
func marshalIndent(v any, prefix string) (string, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}
