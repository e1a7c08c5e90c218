package source

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestCPUScratch(t *testing.T) {
	name := os.Getenv("JSTK_CPU_NDJSON")
	if name == "" {
		t.Skip()
	}
	for range 3 {
		var r0, r1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
		start := time.Now()
		f, _ := os.Open(name)
		rd := NewNDJSONReader(name, f, nil)
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		f.Close()
		syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
		cpu := time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) + time.Duration(r1.Stime.Nano()-r0.Stime.Nano())
		t.Logf("%d docs, wall %v, cpu %v", n, time.Since(start), cpu)
	}
}
