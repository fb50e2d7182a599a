package main

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 20, point 2: --timeout covers every phase of a command, not only
// the search. A phase made slow (by phaseHook, standing for a slow disk,
// a long preflight run or a large page) ends the command INCOMPLETE
// (exit 3) within the budget, naming the phase; without the deadline the
// command would wait for the phase to end.
//
// The phases before the slow one must end within the budget and its
// grace, or the deadline names one of them: so the budget is not a fixed
// figure (4 s for a search was too little on a machine loaded twenty
// times over, under -race: "ran out while searching") but four times
// what those phases took in a first run of the same command, and at
// least 300ms.
func TestTimeoutCoversEveryPhase(t *testing.T) {
	defer func(g time.Duration) { minGrace = g }(minGrace)
	minGrace = 200 * time.Millisecond
	for _, tc := range []struct {
		phase string // the phase made slow, a prefix of its name
		args  []string
	}{
		{"reading --strategy-file", []string{"check", "--strategy-file", "../../examples/strategies/jmp-over.strategy"}},
		{"loading --object", []string{"check", "--object", "../../kernel/testdata/obj/arm-fixture.o", "--function", "big", "--args", "3,4,5,6", "--strategy", "nop-nop"}},
		{"checking the scenario", []string{"check", "--strategy", "nop-nop"}},
		{"writing the report", []string{"check", "--strategy", "nop-nop", "--json"}},
		{"writing the --html page", []string{"check", "--strategy", "nop-nop", "--html", t.TempDir() + "/p.html"}},
		{"replaying the schedule", []string{"replay", "--strategy", "nop-nop", "--schedule", "8:2,10:1,14:1"}},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			defer func() { phaseHook = nil }()
			// The first run, without a budget: when does the phase start?
			// (The latest start seen: the command a subtest before
			// abandoned may pass the phase too, earlier.)
			var latest atomic.Int64
			begin := time.Now()
			phaseHook = func(phase string) {
				if strings.HasPrefix(phase, tc.phase) {
					d := int64(time.Since(begin))
					for old := latest.Load(); d > old && !latest.CompareAndSwap(old, d); old = latest.Load() {
					}
				}
			}
			code, _, errOut := runWithin(t, 120*time.Second, tc.args...)
			require.Contains(t, []int{0, 1}, code, errOut)
			reach := time.Duration(latest.Load())
			require.Positive(t, reach, "the command has a phase %q", tc.phase)
			budget := max(300*time.Millisecond, 4*reach).Round(time.Millisecond)
			timeout := budget.String()

			release := make(chan struct{})
			var once sync.Once
			defer once.Do(func() { close(release) })
			phaseHook = func(phase string) {
				if strings.HasPrefix(phase, tc.phase) {
					<-release // stuck until the test ends
				}
			}
			begin = time.Now()
			code, out, errOut := runWithin(t, 30*time.Second+budget, append(tc.args, "--timeout", timeout)...)
			took := time.Since(begin)
			assert.Equal(t, 3, code, errOut)
			require.Contains(t, errOut, "INCOMPLETE: the --timeout of "+timeout+" ran out while "+tc.phase, "the phases before took %v in the first run", reach)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
			assert.Less(t, took, budget+minGrace+3*time.Second, "the command ends near its budget and grace")
			if tc.phase == "writing the report" {
				assert.Empty(t, out, "a report is written whole or not at all")
			}
			once.Do(func() { close(release) })
		})
	}
}

// A search cut short by --timeout still reports its own INCOMPLETE result
// (the search stops itself), and its clock includes the time spent before
// it: a slow preflight leaves the search less.
func TestTimeoutCountsFromTheStart(t *testing.T) {
	phaseHook = func(phase string) {
		if phase == "searching" {
			time.Sleep(400 * time.Millisecond) // the inputs took this long
		}
	}
	defer func() { phaseHook = nil }()
	code, out, errOut := mcountsim("check", "--strategy", "jmp-over", "--tasks", "4", "--timeout", "300ms", "--json")
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, out, `"verdict": "INCOMPLETE"`)
	assert.Contains(t, out, "timeout of 300ms reached")
}
