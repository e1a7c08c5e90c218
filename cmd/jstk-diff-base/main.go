// Command jstk-diff-base checks that schema files have no breaking change against a git
// revision: for each file given, it runs `jstk diff --check` with the file as it is in the
// revision as OLD and the file as it is now as NEW. It is the entry of the pre-commit hook
// jstk-diff (.pre-commit-hooks.yaml), and works as well on its own:
//
//	jstk-diff-base [--base REV] [jstk diff flags...] FILE...
//
// REV is --base, else $PRE_COMMIT_FROM_REF (set by `pre-commit run --from-ref`), else HEAD
// (the last commit: in a pre-commit hook, the change being committed). A file that does not
// exist in REV is new and has nothing to break. It runs `jstk diff --check --against REV
// FILE`, which reads the repository in-process (no git program) and resolves the old
// version's relative $refs in REV's tree. The mode is --mode, else the one jstk.json's
// "compatibility" block gives the file, else --direction. With --history, the file is
// checked against its earlier versions instead (`jstk diff --check --history`: a
// transitive mode checks every one). Flags other than --base and --history go to jstk
// diff (--mode backward-transitive, --direction forward, --required-with-default
// compatible, ...).
//
// The exit status is jstk diff's worst: 0 no breaking change, 1 a change breaks the asked
// direction (or cannot be proved compatible), 2 could not run.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jstk-dev/jstk/internal/cli"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], cli.OSStreams()))
}

func run(ctx context.Context, args []string, st cli.Streams) int {
	base := os.Getenv("PRE_COMMIT_FROM_REF")
	var flags, files []string
	history := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--base" || a == "-base":
			if i+1 == len(args) {
				fmt.Fprintln(st.Stderr, "jstk-diff-base: --base needs a revision")
				return cli.ExitError
			}
			i++
			base = args[i]
		case strings.HasPrefix(a, "--base="):
			base = strings.TrimPrefix(a, "--base=")
		case a == "--check":
		case a == "--history":
			history = true
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			// jstk diff's flags that take a value.
			if (a == "--direction" || a == "--required-with-default" || a == "--format" || a == "--draft" || a == "--resolve" || a == "--mode" || a == "--last" || a == "--since") && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			files = append(files, a)
		}
	}
	if base == "" {
		base = "HEAD"
	}
	if len(files) == 0 {
		fmt.Fprintln(st.Stderr, "usage: jstk-diff-base [--base REV] [jstk diff flags] FILE...")
		return cli.ExitError
	}
	worst := cli.ExitOK
	for _, f := range files {
		fmt.Fprintf(st.Stdout, "== %s (%s -> now)\n", f, base)
		args := append([]string{"diff", "--check"}, flags...)
		if history {
			args = append(args, "--history")
		} else {
			args = append(args, "--against", base)
		}
		code := cli.Main(ctx, append(args, f), st)
		worst = max(worst, code)
	}
	return worst
}
