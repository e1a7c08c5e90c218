//go:build linux

package hugepages

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// thpMode is the system's transparent huge page mode ("always", "madvise" or "never"), or
// "" when the kernel has none.
func thpMode(t *testing.T) string {
	data, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(data)) {
		if strings.HasPrefix(f, "[") {
			return strings.Trim(f, "[]")
		}
	}
	t.Fatalf("unreadable THP mode %q", data)
	return ""
}

// mapping is the /proc/self/smaps entry of the mapping that holds addr: its flags
// (VmFlags) and its AnonHugePages in kB.
func mapping(t *testing.T, addr uintptr) (flags []string, hugeKB int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		// A mapping's header is "lo-hi perms offset dev inode [path]"; its fields are
		// "Key: value" lines.
		if f := strings.Fields(line); len(f) >= 5 && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("unreadable smaps header %q", line)
			}
			in = uint64(addr) >= a && uint64(addr) < b
			continue
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "AnonHugePages":
			hugeKB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		case "VmFlags":
			return strings.Fields(v), hugeKB
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil, 0
}

// TestHeapChunkAdvised: in this test process, initialised as jstk is with JSTK_HUGEPAGES=1
// (the advice given whatever a fault costs here; the test binary is run again with it), the
// mapping of the heap's first chunk carries the huge-page advice (VmFlags hg).
func TestHeapChunkAdvised(t *testing.T) {
	if os.Getenv("JSTK_HUGEPAGES") != "1" {
		rerun(t, "TestHeapChunkAdvised", "JSTK_HUGEPAGES=1")
		return
	}
	mode := thpMode(t)
	if mode == "" || mode == "never" {
		if applied {
			t.Fatalf("applied with transparent huge pages %q", mode)
		}
		t.Skipf("transparent huge pages are %q here: nothing to check", mode)
	}
	if !applied {
		t.Fatalf("the kernel (THP %q) refused MADV_HUGEPAGE for the heap's first chunk", mode)
	}
	if timedFault != 0 {
		t.Errorf("timedFault %v: the probe ran with JSTK_HUGEPAGES=1", timedFault)
	}
	flags, huge := mapping(t, uintptr(unsafe.Pointer(probe)))
	if !slices.Contains(flags, "hg") {
		t.Errorf("the heap's first chunk has VmFlags %v, without hg (MADV_HUGEPAGE)", flags)
	}
	t.Logf("the mapping of the heap's first chunk: VmFlags %v, AnonHugePages %d kB", flags, huge)
}

// TestByFaultCost: without JSTK_HUGEPAGES, the advice is given where a page fault was timed
// at slowFault or more, and only there.
func TestByFaultCost(t *testing.T) {
	if _, set := os.LookupEnv("JSTK_HUGEPAGES"); set {
		rerun(t, "TestByFaultCost", "JSTK_HUGEPAGES=")
		return
	}
	if timedFault <= 0 || timedFault > time.Second {
		t.Fatalf("timedFault %v: the probe did not time the faults", timedFault)
	}
	if mode := thpMode(t); timedFault < slowFault && applied {
		t.Errorf("applied with faults of %v, under %v", timedFault, slowFault)
	} else if timedFault >= slowFault && mode != "" && mode != "never" && !applied {
		t.Errorf("not applied with faults of %v and transparent huge pages %q", timedFault, mode)
	}
	t.Logf("a page fault costs %v here: huge pages %v", timedFault, map[bool]string{true: "advised", false: "not advised"}[applied])
	if c := faultCost(); c <= 0 || c > time.Second {
		t.Errorf("faultCost() = %v", c)
	}
}

// TestApply: the advice for the heap as it is now (past its first chunk, in a test binary
// that has allocated) is accepted wherever transparent huge pages are on, and the probe
// object it allocates lies in the chunk it advised.
func TestApply(t *testing.T) {
	mode := thpMode(t)
	ok := apply()
	if on := mode != "" && mode != "never"; ok != on {
		t.Fatalf("apply() = %v with transparent huge pages %q", ok, mode)
	}
	if !ok {
		t.Skipf("transparent huge pages are %q here", mode)
	}
	if flags, _ := mapping(t, uintptr(unsafe.Pointer(probe))); !slices.Contains(flags, "hg") {
		t.Errorf("the chunk of the probe has VmFlags %v, without hg", flags)
	}
}

// TestSpillPast: the spill object makes the runtime map the heap's next chunk, and the
// chunks returned hold the object; the advice on them is accepted.
func TestSpillPast(t *testing.T) {
	if mode := thpMode(t); mode == "" || mode == "never" {
		t.Skipf("transparent huge pages are %q here", mode)
	}
	from, to := spillPast(chunk - 4096)
	if from%chunk != 0 || to%chunk != 0 || to-from < chunk || to-from > 2*chunk {
		t.Fatalf("spillPast gave %#x..%#x: not one or two whole chunks", from, to)
	}
	if !hugeRange(from, to) {
		t.Fatalf("the kernel refused the advice for %#x..%#x", from, to)
	}
	flags, _ := mapping(t, from)
	if !slices.Contains(flags, "hg") {
		t.Errorf("the spilled-into chunk has VmFlags %v, without hg", flags)
	}
}

// TestTurnedOff: JSTK_HUGEPAGES=0 gives no advice and times nothing (the test binary is run
// again with it).
func TestTurnedOff(t *testing.T) {
	if os.Getenv("JSTK_HUGEPAGES") != "0" {
		rerun(t, "TestTurnedOff", "JSTK_HUGEPAGES=0")
		return
	}
	if applied || timedFault != 0 {
		t.Fatalf("applied %v, timedFault %v with JSTK_HUGEPAGES=0", applied, timedFault)
	}
	flags, _ := mapping(t, uintptr(unsafe.Pointer(new([16]byte))))
	if slices.Contains(flags, "hg") {
		t.Fatalf("the heap has VmFlags %v with JSTK_HUGEPAGES=0", flags)
	}
}

// rerun runs test again in a new process of this test binary with env (NAME=VALUE; an
// empty VALUE unsets NAME) added to the environment, and fails unless it passes or skips.
func rerun(t *testing.T, test, env string) {
	t.Helper()
	name, value, _ := strings.Cut(env, "=")
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, name+"=") })
	if value != "" {
		cmd.Env = append(cmd.Env, env)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !(strings.Contains(string(out), "--- PASS: "+test) || strings.Contains(string(out), "--- SKIP: "+test)) {
		t.Fatalf("%s with %s: %v\n%s", test, env, err, out)
	}
	t.Logf("%s with %s:\n%s", test, env, out)
}
