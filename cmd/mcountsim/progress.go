package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcountsim/mcountsim/explore"
)

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter writes the search's progress to stderr: one line
// rewritten in place on a terminal, one line per report otherwise.
type progressPrinter struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	last  explore.Progress
	width int
}

func newProgressPrinter(w io.Writer, tty bool) *progressPrinter {
	return &progressPrinter{w: w, tty: tty}
}

func (p *progressPrinter) print(pr explore.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A report whose counts went down comes from another search (each
	// thread-modular machine counts from 0): no rate across the two.
	rate, steps := 0.0, 0.0
	if dt := (pr.Elapsed - p.last.Elapsed).Seconds(); dt > 0 && pr.States >= p.last.States && pr.Transitions >= p.last.Transitions {
		rate = float64(pr.States-p.last.States) / dt
		steps = float64(pr.Transitions-p.last.Transitions) / dt
	}
	p.last = pr
	line := fmt.Sprintf("mcountsim: %6.1fs  bound %d  %s states (%s/s)  %s steps (%s/s)  %s runs",
		pr.Elapsed.Seconds(), pr.Bound, si(float64(pr.States)), si(rate), si(float64(pr.Transitions)), si(steps), si(float64(pr.Runs)))
	if pr.TableStates > 0 {
		line += fmt.Sprintf("  %.0f B/state", float64(pr.TableBytes)/float64(pr.TableStates))
	}
	if pr.Total > 0 {
		line += fmt.Sprintf("  frontier %d/%d", pr.Done, pr.Total)
	}
	if pr.Minimizing {
		line += "  minimizing"
	}
	if p.tty {
		pad := p.width - len(line)
		p.width = len(line)
		if pad < 0 {
			pad = 0
		}
		fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
		return
	}
	fmt.Fprintln(p.w, line)
}

// end finishes the progress line.
func (p *progressPrinter) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.width > 0 {
		fmt.Fprintln(p.w)
	}
}

func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
