package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/workspace"
)

const storeUsage = `Usage: jstk store [--schemastore PATH] [--licence] [--not-vendored] [NAME...]

Lists the SchemaStore catalog jstk matches files against when no --schema is given: each entry,
the file patterns (fileMatch) it applies to, and whether its schema is vendored (held offline;
https://json.schemastore.org/X.json and https://www.schemastore.org/X.json resolve to it in every
command). An entry whose schema is not vendored is listed as "not vendored: <url>; map it or run
jstk fetch". NAME... keeps the entries whose name or URL contains one of them.

  --schemastore PATH  a SchemaStore snapshot directory or a file built by cmd/storegen, instead
                      of the built-in one (also: JSTK_SCHEMASTORE)
  --licence           print SchemaStore's LICENSE and NOTICE, which travel with its files
  --not-vendored      list only the entries whose schema is not vendored

Exit codes: 0 listed, 2 no catalog (a build without one, and none named) or a usage error.
`

// runStore is 'jstk store': what the built-in (or named) SchemaStore holds. It is a command
// of the CLI only, like 'jstk tools': what a binary carries is no question for an agent's
// workspace.
func runStore(_ context.Context, args []string, st Streams) int {
	fs := flag.NewFlagSet("store", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	path := fs.String("schemastore", "", "")
	licence := fs.Bool("licence", false, "")
	fs.BoolVar(licence, "license", false, "")
	notVendored := fs.Bool("not-vendored", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(st.Stdout, storeUsage)
			return ExitOK
		}
		fmt.Fprintf(st.Stderr, "jstk store: %v\n", flagError(err, fs))
		return ExitError
	}
	g := &globals{schemastore: *path}
	var s *store.Store
	switch {
	case g.schemastore != "":
		s = store.Open(workspace.OS(), g.schemastore)
	default:
		s = storeFromEnv()
	}
	if *licence {
		text, err := s.Licence()
		if err != nil {
			fmt.Fprintf(st.Stderr, "jstk store: %v\n", err)
			return ExitError
		}
		fmt.Fprint(st.Stdout, text)
		return ExitOK
	}
	cat, err := s.Catalog()
	if err != nil {
		fmt.Fprintf(st.Stderr, "jstk store: %v\n", err)
		return ExitError
	}
	names, _ := s.Schemas()
	commit, _ := s.Commit()
	vendored, missing, shown := 0, 0, 0
	for _, e := range cat.Entries() {
		has := s.Has(e.URL)
		if has {
			vendored++
		} else {
			missing++
		}
		if *notVendored && has || !wanted(e.Name, e.URL, fs.Args()) {
			continue
		}
		shown++
		match := "(no fileMatch: only by $schema or a jstk.json mapping)"
		if len(e.FileMatch) > 0 {
			match = strings.Join(e.FileMatch, ", ")
		}
		if has {
			fmt.Fprintf(st.Stdout, "%s\n  %s\n  matches %s\n", e.Name, e.URL, match)
		} else {
			fmt.Fprintf(st.Stdout, "%s\n  not vendored: %s; map it or run jstk fetch\n  matches %s\n", e.Name, e.URL, match)
		}
	}
	for _, err := range s.PatternErrors() {
		fmt.Fprintf(st.Stderr, "jstk store: %v\n", err)
	}
	fmt.Fprintf(st.Stdout, "SchemaStore %s (%s): %d catalog entries (%d listed), %d with their schema vendored, %d not; %d schema files, %d file patterns; Apache-2.0 (jstk store --licence)\n",
		commit, s.Where(), len(cat.Entries()), shown, vendored, missing, len(names), cat.Patterns())
	return ExitOK
}

// storeFromEnv is JSTK_SCHEMASTORE's store, else the built-in one.
func storeFromEnv() *store.Store {
	if p := getenv("JSTK_SCHEMASTORE"); p != "" {
		return store.Open(workspace.OS(), p)
	}
	return store.Embedded()
}

// wanted reports whether an entry matches one of the filters (all when there are none).
func wanted(name, url string, filters []string) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		f = strings.ToLower(f)
		if strings.Contains(strings.ToLower(name), f) || strings.Contains(strings.ToLower(url), f) {
			return true
		}
	}
	return false
}
