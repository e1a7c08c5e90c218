// Command jstk is a JSON Schema toolkit: validate, lint, diff, bundle, infer, sample,
// coverage and test, for people on the command line and for AI agents over MCP.
package main

import (
	"context"
	"os"

	"github.com/jstk-dev/jstk/internal/cli"
	_ "github.com/jstk-dev/jstk/internal/hugepages" // the heap's first chunk on huge pages: see its doc
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OSStreams()))
}
