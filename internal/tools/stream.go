package tools

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/validate"
)

// Stream prints a long result while it is produced: items as they come (Env.OnItem), the
// rest when the report is complete. Its output equals that of printing the complete report.
type Stream struct {
	// OnItem receives each item.
	OnItem func(any)
	// Finish prints the end, given the report (whose item list is empty).
	Finish func(Report) error
}

// Streamable reports whether in asks for a whole list (no paging), which a stream can print.
func Streamable(in any) bool {
	v := reflect.ValueOf(in).Elem()
	for _, name := range []string{"Limit", "Offset"} {
		if f := v.FieldByName(name); f.IsValid() && f.Int() != 0 {
			return false
		}
	}
	return true
}

// NewStream returns a stream printer for the descriptor's results in a format, or nil when
// the descriptor's results are printed whole.
func NewStream(d *Descriptor, f diag.Format, w io.Writer, tool diag.Tool) *Stream {
	if d.Name != "validate" {
		return nil
	}
	switch f {
	case diag.Text:
		tw := &validate.TextWriter{W: w}
		return &Stream{
			OnItem: func(x any) { tw.Instance(x.(*validate.Instance)) },
			Finish: func(r Report) error {
				res := r.(*validate.Result)
				tw.Summary(res.Summary, nil, 0, res.Groups)
				tw.Stopped(res.Stopped)
				return tw.Err
			},
		}
	case diag.GitHub:
		var err error
		return &Stream{
			OnItem: func(x any) {
				if err == nil {
					err = diag.WriteGitHub(w, validate.InstanceDiagnostics(x.(*validate.Instance)))
				}
			},
			Finish: func(r Report) error {
				if err == nil {
					err = diag.WriteGitHub(w, r.(*validate.Result).StoppedDiagnostics())
				}
				return err
			},
		}
	case diag.SARIF:
		tool.Rules = validate.Rules
		var ds []diag.Diagnostic
		return &Stream{
			OnItem: func(x any) { ds = append(ds, validate.InstanceDiagnostics(x.(*validate.Instance))...) },
			Finish: func(r Report) error {
				return diag.WriteSARIF(w, tool, append(ds, r.(*validate.Result).StoppedDiagnostics()...))
			},
		}
	case diag.JSON:
		n := 0
		var err error
		write := func(s string) {
			if err == nil {
				_, err = io.WriteString(w, s)
			}
		}
		return &Stream{
			OnItem: func(x any) {
				if n == 0 {
					write("{\n  \"instances\": [\n    ")
				} else {
					write(",\n    ")
				}
				n++
				b, e := marshalIndent(x, "    ")
				if e != nil && err == nil {
					err = e
				}
				write(b)
			},
			Finish: func(r Report) error {
				res := r.(*validate.Result)
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
	return nil
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
