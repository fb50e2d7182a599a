package main

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// maxDefaultMemory caps the default memory budget of check and replay.
const maxDefaultMemory = 2 << 30

// defaultMaxMemory is the memory budget when --max-memory is not given:
// 2 GiB, or half of what the process may have if that is less (the data
// and address-space limits, `ulimit -d` and `ulimit -v`, and the machine's
// memory), so that a search stops INCOMPLETE before the kernel or the Go
// runtime kills it.
func defaultMaxMemory() int64 {
	n := int64(maxDefaultMemory)
	for _, l := range []int64{processMemoryLimit(), physicalMemory()} {
		if l > 0 && l/2 < n {
			n = l / 2
		}
	}
	return max(n, 64<<20)
}

// physicalMemory is MemTotal of /proc/meminfo, or 0.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil && kb > 0 && kb < 1<<50 {
				return kb << 10
			}
		}
	}
	return 0
}

// applyMemoryBudget makes the Go runtime collect harder as the heap nears
// the budget (a soft limit: the search's own check stops it), so that the
// heap the budget is checked against is mostly live data.
func applyMemoryBudget(n int64) {
	if n > 0 {
		debug.SetMemoryLimit(n)
	}
}
