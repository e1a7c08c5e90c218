//go:build pgoprofile

package main

// A jstk built with -tags pgoprofile writes a CPU profile of each of its processes to
// $JSTK_PGO_DIR/<pid>.prof: scripts/pgo/gen.sh builds one to make default.pgo, the profile
// every build of this package is optimised with.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

func init() {
	dir := os.Getenv("JSTK_PGO_DIR")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%d.prof", os.Getpid())))
	if err != nil {
		fmt.Fprintf(os.Stderr, "jstk (pgoprofile): %v\n", err)
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "jstk (pgoprofile): %v\n", err)
		return
	}
	atExit = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
