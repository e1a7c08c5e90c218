// Command jstk is a JSON Schema toolkit: validate, lint, diff, bundle, infer, sample,
// coverage and test, for people on the command line and for AI agents over MCP.
package main

import (
	"context"
	"os"

	"github.com/jstk-dev/jstk/internal/cli"
	_ "github.com/jstk-dev/jstk/internal/hugepages" // the heap's first chunk on huge pages: see its doc
)

// atExit runs before the process exits with main's code: nothing, unless built with the
// tag pgoprofile (profile.go), which writes the process's CPU profile there.
var atExit = func() {}

func main() {
	code := cli.Main(context.Background(), os.Args[1:], cli.OSStreams())
	atExit()
	os.Exit(code)
}
