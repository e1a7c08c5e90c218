package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// The progress line: on a terminal, a run that takes longer than progressDelay shows what
// it has done on one line of stderr, rewritten in place at most every progressEvery and
// erased when the run ends, so that nothing of it stays in the terminal's history.
const (
	progressDelay = time.Second
	progressEvery = 100 * time.Millisecond
	// eraseLine returns to the start of the line and clears it.
	eraseLine = "\r\x1b[K"
)

// progressMode reads JSTK_PROGRESS: "off" never shows the line; "on" shows it whatever
// stderr is; "all" shows it at once and at every report, for tests; anything else (unset)
// shows it when stderr is a terminal.
func progressMode(stderr io.Writer) (on, all bool) {
	switch os.Getenv("JSTK_PROGRESS") {
	case "off":
		return false, false
	case "on":
		return true, false
	case "all":
		return true, true
	}
	return isTerminal(stderr), false
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine renders tools.Env.Progress reports on a terminal.
type progressLine struct {
	w     io.Writer // stderr
	cmd   string
	bytes bool // done and total count bytes of input (tools.Descriptor.ProgressBytes)
	all   bool // every report, from the first (JSTK_PROGRESS=all)
	width int  // the terminal's width; the line is cut to fit, so that it never wraps

	mu      sync.Mutex
	start   time.Time
	last    time.Time // when the line was last drawn
	shown   bool      // the line is on the screen
	stopped bool
	report  struct {
		done, total float64
		message     string
		at          time.Time
		seen        bool
	}
	first struct { // the first report: the rate is measured from it
		done float64
		at   time.Time
	}
	tick *time.Ticker
	quit chan struct{}
}

// newProgress returns the progress line of a run of cmd, or nil when none is to be shown
// (stderr is not a terminal, --quiet, JSTK_PROGRESS=off).
func newProgress(stderr io.Writer, cmd string, bytes, quiet bool) *progressLine {
	on, all := progressMode(stderr)
	if quiet || !on {
		return nil
	}
	width := 80
	if f, ok := stderr.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			width = w
		}
	}
	p := &progressLine{w: stderr, cmd: cmd, bytes: bytes, all: all, width: width,
		start: time.Now(), quit: make(chan struct{})}
	if !all {
		// A run that reports nothing still says it is working, once a second.
		p.tick = time.NewTicker(progressEvery)
		go p.idle()
	}
	return p
}

// Report is the run's tools.Env.Progress.
func (p *progressLine) Report(done, total float64, message string) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if !p.report.seen {
		p.first.done, p.first.at = done, now
	}
	p.report.done, p.report.total, p.report.message, p.report.at, p.report.seen = done, total, message, now, true
	if p.all || now.Sub(p.start) >= progressDelay && now.Sub(p.last) >= progressEvery {
		p.draw(now)
	}
}

// idle redraws the line while nothing is reported, so that the elapsed time moves on.
func (p *progressLine) idle() {
	for {
		select {
		case <-p.quit:
			return
		case now := <-p.tick.C:
			p.mu.Lock()
			if !p.stopped && now.Sub(p.start) >= progressDelay && now.Sub(p.last) >= progressDelay/2 {
				p.draw(now)
			}
			p.mu.Unlock()
		}
	}
}

// draw writes the line (p.mu is held).
func (p *progressLine) draw(now time.Time) {
	line := p.text(now)
	if n := utf8.RuneCountInString(line); n >= p.width {
		r := []rune(line)
		line = string(r[:p.width-2]) + "…"
	}
	io.WriteString(p.w, eraseLine+line)
	p.shown, p.last = true, now
}

// text is what the line says: the command, the report's message, how much of the total is
// done, the rate, and the time so far.
func (p *progressLine) text(now time.Time) string {
	var parts []string
	r := p.report
	if !r.seen {
		parts = append(parts, "working")
	} else {
		if r.message != "" {
			parts = append(parts, r.message)
		}
		switch {
		case p.bytes && r.total > 0:
			parts = append(parts, fmt.Sprintf("%s (%d%%)", sizeOf(r.done, r.total), percent(r.done, r.total)))
		case p.bytes:
			parts = append(parts, size(r.done))
		case r.total > 0:
			parts = append(parts, fmt.Sprintf("%d%%", percent(r.done, r.total)))
		}
		if d := r.at.Sub(p.first.at).Seconds(); d >= 0.5 && r.done > p.first.done {
			rate := (r.done - p.first.done) / d
			if p.bytes {
				parts = append(parts, size(rate)+"/s")
			} else {
				parts = append(parts, count(rate)+"/s")
			}
		}
	}
	parts = append(parts, strconv.Itoa(int(now.Sub(p.start).Seconds()))+" s")
	return "jstk " + p.cmd + ": " + strings.Join(parts, " · ")
}

func percent(done, total float64) int {
	return int(min(100, max(0, 100*done/total)))
}

// size writes a number of bytes for a person: 512 B, 3.1 kB, 12.0 MB, 1.4 GB.
func size(n float64) string {
	switch {
	case n < 1000:
		return strconv.Itoa(int(n)) + " B"
	case n < 1e6:
		return strconv.FormatFloat(n/1e3, 'f', 1, 64) + " kB"
	case n < 1e9:
		return strconv.FormatFloat(n/1e6, 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(n/1e9, 'f', 1, 64) + " GB"
}

// sizeOf writes "done/total unit", in the unit of total: 3.1/12.0 MB.
func sizeOf(done, total float64) string {
	t := size(total)
	num, unit, _ := strings.Cut(t, " ")
	switch unit {
	case "B":
		return strconv.Itoa(int(done)) + "/" + num + " B"
	case "kB":
		done /= 1e3
	case "MB":
		done /= 1e6
	default:
		done /= 1e9
	}
	return strconv.FormatFloat(done, 'f', 1, 64) + "/" + num + " " + unit
}

// count writes a count with thousands separated: 12,345.
func count(n float64) string {
	s := strconv.FormatInt(int64(n), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Stop erases the line; nothing is drawn afterwards.
func (p *progressLine) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	if p.tick != nil {
		p.tick.Stop()
		close(p.quit)
	}
	p.clear()
}

// clear erases the line if it is shown (p.mu is held).
func (p *progressLine) clear() {
	if p.shown {
		io.WriteString(p.w, eraseLine)
		p.shown = false
	}
}

// Writer returns w, writing through which first erases the line: what the run prints on a
// terminal (a note on stderr, a report on stdout) never lands after the progress text. The
// next report draws the line again.
func (p *progressLine) Writer(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return &clearingWriter{p: p, w: w}
}

type clearingWriter struct {
	p *progressLine
	w io.Writer
}

func (c *clearingWriter) Write(b []byte) (int, error) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.clear()
	c.p.last = time.Now() // let what was written be read before the line comes back
	return c.w.Write(b)
}
