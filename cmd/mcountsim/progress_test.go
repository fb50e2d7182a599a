package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/stretchr/testify/require"
)

// TestProgressRates: a rate is the change of the counts since the last
// report; a report whose counts went down (the next thread-modular
// machine's search, which counts from 0) prints no negative rate.
func TestProgressRates(t *testing.T) {
	var b strings.Builder
	p := newProgressPrinter(&b, false)
	p.print(explore.Progress{Elapsed: time.Second, States: 1000, Transitions: 5000, Bound: 2})
	p.print(explore.Progress{Elapsed: 2 * time.Second, States: 3000, Transitions: 9000, Bound: 2})
	p.print(explore.Progress{Elapsed: 3 * time.Second, States: 10, Transitions: 20, Bound: 0})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[1], "3000 states (2000/s)  9000 steps (4000/s)")
	require.Contains(t, lines[2], "10 states (0/s)  20 steps (0/s)")
	require.NotContains(t, b.String(), "-")
}
