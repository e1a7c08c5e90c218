// Command storegen packs a SchemaStore snapshot (the layout of SchemaStore's repository:
// src/api/json/catalog.json and src/schemas/json/*.json, with its LICENSE and NOTICE) into
// the one compressed file that jstk embeds (internal/store/data/schemastore.zip, never
// committed) or reads at run time (--schemastore FILE):
//
//	go run ./cmd/storegen [-commit SHA] [-o FILE] SNAPSHOT_DIR
//
// The commit is taken from the snapshot's PROVENANCE.md unless -commit gives it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jstk-dev/jstk/internal/store"
	"github.com/jstk-dev/jstk/internal/workspace"
)

func main() {
	out := flag.String("o", filepath.Join("internal", "store", store.EmbeddedName), "the file to write")
	commit := flag.String("commit", "", "the SchemaStore commit of the snapshot (default: the one its PROVENANCE.md names)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: storegen [-commit SHA] [-o FILE] SNAPSHOT_DIR")
		os.Exit(2)
	}
	var buf bytes.Buffer
	st, err := store.Pack(workspace.OS(), flag.Arg(0), *commit, &buf)
	if err == nil {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "storegen: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "storegen: wrote %s: SchemaStore %s, %d catalog entries, %d schemas, %d bytes -> %d bytes\n",
		*out, st.Commit, st.Entries, st.Schemas, st.Raw, buf.Len())
}
