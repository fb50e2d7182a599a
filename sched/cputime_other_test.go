//go:build !unix

package sched_test

import "time"

var processStart = time.Now()

// cpuTime falls back to the wall clock where there is no getrusage.
func cpuTime() time.Duration { return time.Since(processStart) }
