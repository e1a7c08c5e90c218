package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The script tests run the real jstk (this test binary, re-executed as "jstk") on the
// scripts in testdata/script: every subcommand's happy path, --format json, exit 1, exit 2,
// stdin, and bad input.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"jstk": func() { os.Exit(Main(context.Background(), os.Args[1:], OSStreams())) },
		// A worker of the supervisor's tests (supervise_test.go).
		testWorkerName: testWorker,
	})
}

// raceScripts are the scripts run under the race detector: those whose subject is what the
// command layer itself runs concurrently (the validate pipeline's workers, the progress line,
// the memory watchdog and the time and pattern budgets that stop a run from another
// goroutine). Every script runs without -race; under it each command re-executes the race
// build of this binary, several times slower, and the engines' own concurrency is raced in
// their packages' tests and through the race-built binary of internal/e2e.
var raceScripts = []string{"validate", "progress", "budget", "limits"}

func TestScripts(t *testing.T) {
	dir, files := "testdata/script", []string(nil)
	if raceEnabled {
		for _, name := range raceScripts {
			files = append(files, dir+"/"+name+".txtar")
		}
		t.Logf("under the race detector: the scripts %v only (all run without -race)", raceScripts)
		dir = ""
	}
	testscript.Run(t, testscript.Params{
		Dir:   dir,
		Files: files,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N cmd args... runs cmd and expects exit status N (0, 1 or 2), keeping
			// its stdout and stderr for the next checks: '!' cannot tell 1 from 2.
			// nested N FILE writes N nested arrays to FILE, to test the depth limit.
			"nested": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: nested N FILE")
				}
				n, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("nested: %v", err)
				}
				data := strings.Repeat("[", n) + strings.Repeat("]", n)
				if err := os.WriteFile(ts.MkAbs(args[1]), []byte(data), 0o644); err != nil {
					ts.Fatalf("nested: %v", err)
				}
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: %v", err)
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exitcode: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
		UpdateScripts: os.Getenv("JSTK_UPDATE") != "",
	})
}
