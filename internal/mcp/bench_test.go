package mcp

import (
	"context"
	"testing"
)

func discard([]byte) {}

func BenchmarkHandleInitialize(b *testing.B) {
	p := newFakeProvider()
	msg := []byte(initLine)
	ctx := context.Background()
	for b.Loop() {
		NewServer(p, nil).Handle(ctx, msg, discard)
	}
}

func BenchmarkHandleDiscover(b *testing.B) {
	srv := NewServer(newFakeProvider(), nil)
	msg := []byte(request("1", "server/discover", `{`+modernMeta+`}`))
	ctx := context.Background()
	for b.Loop() {
		srv.Handle(ctx, msg, discard)
	}
}

func BenchmarkHandleToolsList(b *testing.B) {
	srv := NewServer(newFakeProvider(), nil)
	ctx := context.Background()
	srv.Handle(ctx, []byte(initLine), discard)
	msg := []byte(request("1", "tools/list", ""))
	for b.Loop() {
		srv.Handle(ctx, msg, discard)
	}
}

// BenchmarkToolsCallRoundTrip measures a tools/call from the incoming line to the sent answer,
// with a trivial tool.
func BenchmarkToolsCallRoundTrip(b *testing.B) {
	srv := NewServer(newFakeProvider(), nil)
	ctx := context.Background()
	srv.Handle(ctx, []byte(initLine), discard)
	msg := []byte(request("1", "tools/call", `{"name":"echo","arguments":{"x":"hello"}}`))
	done := make(chan struct{}, 1)
	send := func([]byte) { done <- struct{}{} }
	for b.Loop() {
		srv.Handle(ctx, msg, send)
		<-done
	}
	srv.Wait()
}
