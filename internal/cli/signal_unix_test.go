//go:build unix

package cli

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// A run's signal handler is installed after its delay, and SIGTERM then cancels the run;
// stopped before the delay, it is never installed.
func TestHandleSignals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop, installed := handleSignals(ctx, cancel, 0)
	defer stop()
	select {
	case <-installed:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not installed")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not cancel the run")
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	stop2, installed2 := handleSignals(ctx2, cancel2, time.Hour)
	stop2()
	select {
	case <-installed2:
		t.Error("a handler stopped before its delay was installed")
	case <-time.After(10 * time.Millisecond):
	}
	if ctx2.Err() != nil {
		t.Error("the run was cancelled without a signal")
	}
}
