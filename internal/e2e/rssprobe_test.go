package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// The peak memory of a child, as wait4 reports it (ru_maxrss), is wrong for a process
// started by this test binary: Go starts children with vfork, the child shares the test
// binary's memory until it execs, and Linux carries the larger of the two high-water marks
// across exec. A child of a test that holds 300 MB reports at least 300 MB. So each
// measured command runs under a probe: this same binary, re-executed small, which starts
// the command itself and writes its ru_maxrss (now the command's own) to a file.

// rssProbeEnv names the file the probe writes the peak resident memory to, in kilobytes.
const rssProbeEnv = "JSTK_E2E_RSS_PROBE"

// probeMain runs the probe when this process is one, and never returns then.
func probeMain() {
	out := os.Getenv(rssProbeEnv)
	if out == "" {
		return
	}
	os.Unsetenv(rssProbeEnv)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = probeAttr()
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		os.Exit(125)
	}
	var kb int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		kb = int64(ru.Maxrss)
	}
	if err := os.WriteFile(out, []byte(strconv.FormatInt(kb, 10)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// probedCommand returns the command that runs name args under the probe, and a function
// that reads the peak resident memory in megabytes once it has ended (0 if unknown).
func probedCommand(ctx context.Context, name string, args ...string) (*exec.Cmd, func() int64) {
	f, err := os.CreateTemp("", "jstk-rss-")
	if err != nil {
		return exec.CommandContext(ctx, name, args...), func() int64 { return 0 }
	}
	f.Close()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), rssProbeEnv+"="+f.Name())
	return cmd, func() int64 {
		defer os.Remove(f.Name())
		data, err := os.ReadFile(f.Name())
		if err != nil {
			return 0
		}
		kb, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		return kb >> 10
	}
}
