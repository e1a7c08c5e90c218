package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Budgets of package initialisation, in allocations (counted by the runtime, so the same on a
// busy machine and a quiet one): what every command, `jstk --version` included, pays before it
// starts. Issue 29 measured 3221 allocations in all (jstk's packages: 2100 of them, half in
// regular expressions compiled at init); tables a command may not need are now built on first
// use (the lint rules and tables, the keyword model's index, the compiler's handlers and
// formats, the tables of diff, coverage, infer, sample and openapi, the version stamp), which
// left about 1230 in all and 130 of jstk's (the tool table, which every command looks itself
// up in, and internal/mcp's). Of the rest, most is go.yaml.in/yaml/v4 (about 370), regexp2's
// Unicode tables (about 200), which build package-level maps in their init, net/http with
// crypto/tls (about 200, since jstk fetch), all linked into the one binary. runtime/metrics
// (95) is no longer linked: the memory watchdog of internal/cli/memory.go takes its first
// sample after 50 ms, so runtime.ReadMemStats, which stops the world, costs the runs that
// last that long, not every start-up. 1139 in all then, 139 of jstk's (internal/hugepages:
// 10).
const (
	initAllocsAll  = 1180
	initAllocsJstk = 150
)

func TestInitBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates at init")
	}
	cmd := exec.Command(jstkBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("jstk --version: %v\n%s", err, stderr.String())
	}
	all, own, pkgs := 0, 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/jstk-dev/jstk/internal/mcp @52 ms, 1.1 ms clock, 53096 bytes, 742 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		n, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("unreadable inittrace line %q", sc.Text())
		}
		pkgs++
		all += n
		if strings.HasPrefix(f[1], "github.com/jstk-dev/jstk/") {
			own += n
		}
	}
	if pkgs < 20 {
		t.Fatalf("inittrace reported %d packages:\n%s", pkgs, stderr.String())
	}
	t.Logf("package initialisation: %d allocations in all, %d in jstk's packages", all, own)
	if all > initAllocsAll {
		t.Errorf("package initialisation makes %d allocations, more than the budget of %d: build what a command may not need on its first use (GODEBUG=inittrace=1 jstk --version names the packages)", all, initAllocsAll)
	}
	if own > initAllocsJstk {
		t.Errorf("jstk's packages make %d allocations at initialisation, more than the budget of %d: build what a command may not need on its first use (GODEBUG=inittrace=1 jstk --version names the packages)", own, initAllocsJstk)
	}
}
