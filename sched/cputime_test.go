//go:build unix

package sched_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a
// machine shared with other jobs it measures the benchmark's own work
// where the wall clock also counts the waits for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
