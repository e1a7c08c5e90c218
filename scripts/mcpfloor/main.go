//go:build ignore

// mcpfloor measures the floor under a warm `jstk mcp` call on this machine: minimal Go
// programs passing a 300-byte line through pipes and back, one at a time, with nothing
// else to do. "child": this process and one child (the hop of `jstk mcp --isolate=false`);
// "relay": this process, a child that relays each line to a grandchild and its answer back
// (the chain client -> server -> engine process of `jstk mcp`); "halfrelay": the same chain, but
// the grandchild answers on the stream the relay inherited from this process, itself. It prints p50/p90/p99 of the
// round trip and the CPU per round trip (user+system, from /proc) of the processes it
// started and itself.
//
//	go run scripts/mcpfloor/main.go [N] [child|relay|halfrelay]
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

// cpu is the user+system time of a process (clock ticks of 10 ms).
func cpu(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	u, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(u+st) * 10 * time.Millisecond
}

// tree is the CPU time of pid and its children.
func tree(pid int) time.Duration {
	t := cpu(pid)
	ents, _ := os.ReadDir("/proc")
	want := strconv.Itoa(pid)
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 1 && f[1] == want {
			p, _ := strconv.Atoi(e.Name())
			t += cpu(p)
		}
	}
	return t
}

func echo() {
	r, w := bufio.NewReader(os.Stdin), bufio.NewWriter(os.Stdout)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		w.Write(l)
		w.Flush()
	}
}

func relay() {
	cmd := exec.Command(os.Args[0], "-echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	cr, r, w := bufio.NewReader(out), bufio.NewReader(os.Stdin), bufio.NewWriter(os.Stdout)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		in.Write(l)
		a, _ := cr.ReadBytes('\n')
		w.Write(a)
		w.Flush()
	}
}

// halfRelay relays each line to a grandchild that answers the client itself, on the
// relay's own stdout, which it inherits (the relay only reads the grandchild's short
// acknowledgement, off the client's path).
func halfRelay() {
	cmd := exec.Command(os.Args[0], "-echoto")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.ExtraFiles = []*os.File{os.Stdout}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	go func() {
		cr := bufio.NewReader(out)
		for {
			if _, err := cr.ReadBytes('\n'); err != nil {
				return
			}
		}
	}()
	r := bufio.NewReader(os.Stdin)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		in.Write(l)
	}
}

// echoTo answers each line on fd 3, and acknowledges it on stdout.
func echoTo() {
	r, to := bufio.NewReader(os.Stdin), os.NewFile(3, "client")
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		to.Write(l)
		os.Stdout.Write([]byte("ok\n"))
	}
}

func main() {
	// The processes the modes start run this program again in a role.
	roles := map[string]func(){"-echoto": echoTo, "-halfrelay": halfRelay, "-echo": echo, "-relay": relay}
	if len(os.Args) > 1 && roles[os.Args[1]] != nil {
		roles[os.Args[1]]()
		return
	}
	n, mode := 5000, "child"
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	if len(os.Args) > 2 {
		mode = os.Args[2]
	}
	arg := "-echo"
	switch mode {
	case "relay":
		arg = "-relay"
	case "halfrelay":
		arg = "-halfrelay"
	}
	cmd := exec.Command(os.Args[0], arg)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	r := bufio.NewReader(out)
	msg := []byte(strings.Repeat("x", 300) + "\n")
	for range 200 { // warm up
		in.Write(msg)
		r.ReadBytes('\n')
	}
	c0 := cpu(os.Getpid()) + tree(cmd.Process.Pid)
	lat := make([]time.Duration, n)
	for i := range lat {
		t := time.Now()
		in.Write(msg)
		r.ReadBytes('\n')
		lat[i] = time.Since(t)
	}
	c1 := cpu(os.Getpid()) + tree(cmd.Process.Pid)
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	fmt.Printf("%s: p50 %v p90 %v p99 %v, CPU per round trip (all processes) %v\n",
		mode, lat[n/2], lat[n*9/10], lat[n*99/100], (c1-c0)/time.Duration(n))
	in.Close()
	cmd.Wait()
}
