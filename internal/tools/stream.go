package tools

import (
	"io"
	"reflect"

	"github.com/jstk-dev/jstk/internal/diag"
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
	if v, ok := in.(*ValidateInput); ok && v.Schema.empty() {
		return false // grouped by schema: printed whole
	}
	v := reflect.ValueOf(in).Elem()
	for _, name := range []string{"Limit", "Offset"} {
		if f := v.FieldByName(name); f.IsValid() && f.Int() != 0 {
			return false
		}
	}
	return true
}

// NewStream returns a stream printer for the descriptor's results in a format, or nil when
// the descriptor's results are printed whole. The printing is the engine's (for validate,
// validate.NewStream); the descriptor only adapts it.
func NewStream(d *Descriptor, f diag.Format, w io.Writer, tool diag.Tool) *Stream {
	if d.stream == nil {
		return nil
	}
	return d.stream(f, w, tool)
}
