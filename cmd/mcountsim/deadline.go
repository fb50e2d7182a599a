package main

import (
	"fmt"
	"time"
)

// A deadline is --timeout as one budget for a whole command: reading its
// inputs (a scenario file, an ELF object and its preflight run), the
// search with its minimization, and writing the reports. The search stops
// itself when the budget is spent (explore.Options.Start counts its
// timeout from the command's start) and says INCOMPLETE in its result.
// The other phases cannot stop part-way: they may run on for a short
// grace past the budget, so that a search cut short can still be
// reported; a phase still running at the end of the grace is abandoned
// and the command ends INCOMPLETE (exit 3), naming the phase. Its
// goroutine dies with the process. So a command ends within --timeout
// plus the grace.
type deadline struct {
	timeout time.Duration // 0: no limit
	end     time.Time
}

// grace is how long past the budget a command may take to finish what it
// is doing and write what it found: minGrace, or a tenth of the budget
// when that is longer (the page of an hour's search is worth a few more
// seconds).
func (d deadline) grace() time.Duration { return max(minGrace, d.timeout/10) }

var minGrace = 10 * time.Second // tests shorten it

// phaseHook, when set (by tests), is called as each phase starts.
var phaseHook func(phase string)

func newDeadline(start time.Time, timeout time.Duration) deadline {
	return deadline{timeout: timeout, end: start.Add(timeout)}
}

// timedOut is the error of a phase that the deadline cut short.
type timedOut struct {
	timeout time.Duration
	phase   string
}

func (e *timedOut) Error() string {
	return fmt.Sprintf("INCOMPLETE: the --timeout of %v ran out while %s", e.timeout, e.phase)
}

// do runs phase within the budget and its grace.
func (d deadline) do(phase string, fn func() error) error {
	if hook := phaseHook; hook != nil { // read here: an abandoned phase outlives a test's hook
		inner := fn
		fn = func() error { hook(phase); return inner() }
	}
	if d.timeout == 0 {
		return fn()
	}
	wait := time.Until(d.end) + d.grace()
	if wait <= 0 {
		return &timedOut{d.timeout, phase}
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return &timedOut{d.timeout, phase}
	}
}
