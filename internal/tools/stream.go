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

// Streamable reports whether in asks for a whole list (no paging), which a stream can print,
// and its tool's input does not say that this call is printed whole (wholeOnly).
func Streamable(in any) bool {
	if w, ok := in.(wholeOnly); ok && w.printedWhole() {
		return false
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

// wholeOnly is implemented by an input whose calls are sometimes printed whole even
// when they ask for the whole list (validate without a schema: grouped by schema).
type wholeOnly interface {
	printedWhole() bool
}
