package main

import (
	"fmt"
	"time"
)

// A deadline is --timeout as one budget for a whole command: reading its
// inputs (a scenario file, an ELF object and its preflight run), the
// search with its minimization, and writing the reports. The search stops
// itself when its share runs out and says INCOMPLETE in its result; the
// other phases cannot stop part-way, so a phase still running when the
// budget (and a short grace) is spent is abandoned and the command ends
// INCOMPLETE (exit 3), naming the phase. Its goroutine dies with the
// process.
type deadline struct {
	timeout time.Duration // 0: no limit
	end     time.Time
}

// grace is how long past the deadline a phase may take: the search, to
// notice its own timeout and return its INCOMPLETE result (which says
// more than an abandoned phase), and the reports of that result.
const grace = 2 * time.Second

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

// do runs phase within the budget, with extra time beyond it.
func (d deadline) do(phase string, extra time.Duration, fn func() error) error {
	if phaseHook != nil {
		inner := fn
		fn = func() error { phaseHook(phase); return inner() }
	}
	if d.timeout == 0 {
		return fn()
	}
	wait := time.Until(d.end) + extra
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
