package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
)

// Freed frames scrubbed when they return (sched/freed.go) change no
// verdict: for every built-in strategy of the four ISAs and every example
// file, at the defaults, the verdict, the kind and place of the first
// hazard, the preemptions of the counterexample and the distinct end
// states are those of the machine that keeps what freed frames leave, in
// no more states; a counterexample replays to its hazard. What a run does
// after its first hazard may differ: rv-pfe16's bad call returns through
// a freed slot, a foreign-slot and then a fault at pc 0 when scrubbed,
// bad returns to the leftover when kept.
func TestFreedFramesAgree(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in twice takes a minute; run without -race and -short")
	}
	for _, st := range symmetryStrategies(t) {
		t.Run(fmt.Sprintf("%v/%s", st.Arch, st.Name), func(t *testing.T) {
			sc := Scenario{Strategy: st}
			scrubbed, err := Check(sc, Options{noOlderViews: true})
			require.NoError(t, err)
			sc.KeepFreed = true
			kept, err := Check(sc, Options{noOlderViews: true})
			require.NoError(t, err)
			t.Logf("%v: %d states scrubbed, %d kept", kept.Verdict, scrubbed.States, kept.States)
			require.NotEqual(t, Incomplete, kept.Verdict, kept.Reason)
			require.Equal(t, kept.Verdict, scrubbed.Verdict)
			assert.Equal(t, kindOf(kept), kindOf(scrubbed))
			if kept.Hazard != nil {
				assert.Equal(t, kept.Hazard.Where, scrubbed.Hazard.Where)
			}
			if len(kept.Hazards) > 0 {
				require.NotEmpty(t, scrubbed.Hazards)
				assert.Equal(t, kept.Hazards[0].Kind, scrubbed.Hazards[0].Kind)
				assert.Equal(t, kept.Hazards[0].Where, scrubbed.Hazards[0].Where)
			}
			assert.Equal(t, kept.Preemptions, scrubbed.Preemptions)
			assert.LessOrEqual(t, scrubbed.States, kept.States)
			if kept.Verdict == Safe {
				assert.Equal(t, kept.Runs, scrubbed.Runs, "distinct end states")
			}
			if scrubbed.Verdict == Unsafe {
				sc.KeepFreed = false
				again, err := Replay(sc, scrubbed.Schedule, Options{noOlderViews: true})
				require.NoError(t, err)
				assert.Equal(t, kindOf(scrubbed), kindOf(again))
				assert.Equal(t, hazardKinds(scrubbed), hazardKinds(again))
			}
		})
	}
}

// The state counts of the default checks with freed frames scrubbed and
// kept (the counts of TestSymmetryCounts before the scrub), with and
// without the task symmetry. (text-poke-bp's were 92,835, 39,854, 26,957
// and 13,970 before its stores of bytes 1-4 behind the int3 became local
// steps of the patcher, sched/shadow.go.)
func TestFreedFramesCounts(t *testing.T) {
	for _, c := range []struct {
		arch                 kernel.Arch
		strategy             string
		keptExact, keptSym   int
		scrubExact, scrubSym int
	}{
		{kernel.ARM, "jmp-over", 15294, 6882, 5357, 2836},
		{kernel.ARM, "two-step-sched", 3052, 1370, 1336, 717},
		{kernel.X86, "text-poke-bp", 81774, 35081, 23929, 12406},
	} {
		t.Run(fmt.Sprintf("%v/%s", c.arch, c.strategy), func(t *testing.T) {
			for _, keep := range []bool{false, true} {
				sc := Scenario{Strategy: lookup(t, c.arch, c.strategy), KeepFreed: keep}
				exact, err := Check(sc, Options{noOlderViews: true, NoSymmetry: true})
				require.NoError(t, err)
				sym, err := Check(sc, Options{noOlderViews: true})
				require.NoError(t, err)
				require.Equal(t, exact.Verdict, sym.Verdict)
				if keep {
					assert.Equal(t, []int{c.keptExact, c.keptSym}, []int{exact.States, sym.States}, "kept")
				} else {
					assert.Equal(t, []int{c.scrubExact, c.scrubSym}, []int{exact.States, sym.States}, "scrubbed")
				}
			}
		})
	}
}
