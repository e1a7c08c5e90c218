package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The progress line's words, and its care for the terminal: cut to the width, erased
// before anything else is written and at the end, nothing after Stop.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progressLine{w: &b, cmd: "validate", bytes: true, all: true, width: 80, start: time.Now(), quit: make(chan struct{})}
	p.Report(1.5e6, 12e6, "1000 instances validated")
	if got, want := b.String(), eraseLine+"jstk validate: 1000 instances validated · 1.5/12.0 MB (12%) · 0 s"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	b.Reset()
	out := p.Writer(&b)
	out.Write([]byte("a report line\n"))
	if got := b.String(); got != eraseLine+"a report line\n" {
		t.Errorf("a write: %q", got)
	}
	b.Reset()
	out.Write([]byte("another\n"))
	if got := b.String(); got != "another\n" {
		t.Errorf("a second write erases nothing more: %q", got)
	}
	b.Reset()
	p.Report(3e6, 12e6, strings.Repeat("x", 100))
	if line := strings.TrimPrefix(b.String(), eraseLine); len([]rune(line)) != 79 || !strings.HasSuffix(line, "…") {
		t.Errorf("a long line is not cut to the width: %q", line)
	}
	b.Reset()
	p.Stop()
	p.Report(4e6, 12e6, "late")
	p.Stop()
	if got := b.String(); got != eraseLine {
		t.Errorf("after Stop: %q", got)
	}
	var nilLine *progressLine
	nilLine.Stop()
	if w := nilLine.Writer(&b); w != &b {
		t.Error("no progress line: the writer is not the one given")
	}
}

func TestProgressText(t *testing.T) {
	now := time.Now()
	for _, tt := range []struct {
		bytes       bool
		done, total float64
		message     string
		elapsed     time.Duration
		want        string
	}{
		{true, 512, 0, "3 instances validated", 0, "jstk x: 3 instances validated · 512 B · 0 s"},
		{true, 2.5e9, 5e9, "", 3 * time.Second, "jstk x: 2.5/5.0 GB (50%) · 833.3 MB/s · 3 s"},
		{false, 20, 40, "linted 20 of 40", 2 * time.Second, "jstk x: linted 20 of 40 · 50% · 9/s · 2 s"},
		{false, 12345, 0, "12345 files read", time.Second, "jstk x: 12345 files read · 12,344/s · 1 s"},
	} {
		p := &progressLine{cmd: "x", bytes: tt.bytes, start: now.Add(-tt.elapsed)}
		p.first.done, p.first.at = 1, now.Add(-tt.elapsed)
		p.report.done, p.report.total, p.report.message, p.report.at, p.report.seen = tt.done, tt.total, tt.message, now, true
		if tt.elapsed == 0 {
			p.first.at = now
		}
		if got := p.text(now); got != tt.want {
			t.Errorf("text = %q, want %q", got, tt.want)
		}
	}
	p := &progressLine{cmd: "diff", start: now.Add(-2 * time.Second)}
	if got, want := p.text(now), "jstk diff: working · 2 s"; got != want {
		t.Errorf("before any report: %q, want %q", got, want)
	}
	for n, want := range map[float64]string{999: "999 B", 1000: "1.0 kB", 1e6: "1.0 MB", 123456789: "123.5 MB"} {
		if got := size(n); got != want {
			t.Errorf("size(%v) = %q, want %q", n, got, want)
		}
	}
	if got := count(1234567); got != "1,234,567" {
		t.Errorf("count: %q", got)
	}
}
