//go:build unix

package main

import "syscall"

// processMemoryLimit is the smaller of the soft data-segment and
// address-space limits, or 0 when neither is set.
func processMemoryLimit() int64 {
	var n int64
	for _, which := range []int{syscall.RLIMIT_DATA, syscall.RLIMIT_AS} {
		var r syscall.Rlimit
		if syscall.Getrlimit(which, &r) != nil || r.Cur == ^uint64(0) || r.Cur == 0 || r.Cur > 1<<62 {
			continue
		}
		if n == 0 || int64(r.Cur) < n {
			n = int64(r.Cur)
		}
	}
	return n
}
