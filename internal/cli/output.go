package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/jstk-dev/jstk/internal/diag"
	"github.com/jstk-dev/jstk/internal/tools"
)

// toolInfo names jstk in SARIF output.
func toolInfo() diag.Tool {
	stamped()
	return diag.Tool{Name: "jstk", Version: Version, URI: "https://github.com/jstk-dev/jstk"}
}

// output runs the handler and prints its report; long results stream. ran is called when
// the handler returns (the progress line ends there).
func output(ctx context.Context, d *tools.Descriptor, env *tools.Env, in any, g *globals, st Streams, ran func()) int {
	format, _ := outputFormat(d, g.format)
	var info diag.Tool // only SARIF names the tool and lists the rules
	if format == diag.SARIF {
		info = toolInfo()
	}
	var stream *tools.Stream
	if tools.Streamable(in) {
		stream = tools.NewStream(d, format, st.Stdout, info)
	}
	if stream != nil {
		env.OnItem = stream.OnItem
	}
	report, err := d.Run(ctx, env, in)
	ran()
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			err = errors.New("interrupted: stopped by a signal before the run was done")
		}
		message(st, d.Name, err)
		return ExitError
	}
	if rr, ok := report.(interface{ SARIFRules() []diag.Rule }); ok && format == diag.SARIF {
		info.Rules = rr.SARIFRules()
	}
	switch {
	case stream != nil:
		err = stream.Finish(report)
	case slices.Contains(d.Formats, format):
		f, ok := report.(tools.Formatter)
		if !ok {
			err = fmt.Errorf("%s reports cannot be printed as %s", d.Name, format)
		} else {
			err = f.WriteFormat(st.Stdout, string(format))
		}
	default:
		err = diag.Write(st.Stdout, format, report, info)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk %s: writing output: %v\n", d.Name, err)
		return ExitError
	}
	if n, ok := report.(tools.Noter); ok && (format == diag.Text || slices.Contains(d.Formats, format)) {
		for _, note := range n.Notes() {
			fmt.Fprintf(st.Stderr, "jstk %s: %s\n", d.Name, note)
		}
	}
	if f, ok := report.(tools.Failer); ok && f.Failure() != nil {
		message(st, d.Name, f.Failure())
		return ExitError
	}
	if fp, ok := report.(tools.FileProposer); ok {
		for _, f := range fp.OutputFiles() {
			if err := os.WriteFile(f.Path, f.Data, 0o644); err != nil {
				fmt.Fprintf(st.Stderr, "jstk %s: %v\n", d.Name, err)
				return ExitError
			}
			fmt.Fprintf(st.Stderr, "jstk %s: wrote %s\n", d.Name, f.Path)
		}
	}
	return report.ExitCode()
}
