package kernel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// TestMemoObjects: the memo of thread-local stretches (sched/memo.go) on
// compiled objects of four ISAs, two strategies each (at bound 0, loops at
// bound 1): the
// search without it, with it, and with it in its check mode (every stretch
// memoized and each applied one executed for real too: a difference ends
// the run INCOMPLETE) agree on the verdict, states, transitions, end
// states, hazard, schedule and returned values.
func TestMemoObjects(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("exhaustive searches, three per strategy")
	}
	for _, c := range []struct {
		file, fn   string
		args       []int64
		strategies [2]string
	}{
		{"x86-fentry-real.o", "lcm", []int64{21, 6}, [2]string{"text-poke-bp", "plain-write"}},
		{"arm-real.o", "lcm", []int64{21, 6}, [2]string{"jmp-over", "nop-nop"}},
		{"arm64-pfe4-2-args8.o", "leaf", []int64{7, 5}, [2]string{"arm64-call-ops", "arm64-both-plain"}},
		{"rv-atomic-bits.o", "b_popcount", []int64{123456789}, [2]string{"rv-atomic", "rv-pfe8"}},
		// A traced callee in a loop: once the patcher has written a
		// site's last bytes and the CPU's view of them is the latest,
		// units pass through the site (memo.go: hashFinal).
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, [2]string{"text-poke-bp", "plain-write"}},
		{"arm-loops.o", "l_fib", []int64{6}, [2]string{"jmp-over", "nop-nop"}},
		{"arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, [2]string{"arm64-nop-bl", "arm64-both-plain"}},
		{"rv-atomic-loops.o", "l_fib", []int64{6}, [2]string{"rv-atomic", "rv-pfe8"}},
	} {
		t.Run(c.file+" "+c.fn, func(t *testing.T) {
			o, err := kernel.LoadObject(filepath.Join(objDir, c.file), kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: 1})
			require.NoError(t, err)
			for _, strategy := range c.strategies {
				run := func(noMemo, check bool) *explore.Result {
					s, ok := patch.Lookup(o.Image.Arch, strategy)
					require.True(t, ok)
					sc := explore.Scenario{Strategy: s, CPUs: 2, Tasks: 2, Iterations: 1, StackWords: 256, NoMemo: noMemo, MemoAll: check, MemoCheck: check,
						Image: func() (*kernel.Image, error) { return o.Image, nil }}
					bound := explore.NoPreemptions
					if strings.Contains(c.file, "loops") {
						bound = 1
					}
					res, err := explore.Check(sc, explore.Options{Bound: bound, Workers: 1})
					require.NoError(t, err)
					return res
				}
				off, on, check := run(true, false), run(false, false), run(false, true)
				require.NotEqual(t, explore.Incomplete, off.Verdict, off.Reason)
				for _, r := range []*explore.Result{on, check} {
					require.Equal(t, off.Verdict, r.Verdict, strategy+": "+r.Reason)
					require.Equal(t, off.States, r.States, strategy)
					require.Equal(t, off.Transitions, r.Transitions, strategy)
					require.Equal(t, off.EndStates, r.EndStates, strategy)
					require.Equal(t, off.Hazard, r.Hazard, strategy)
					require.Equal(t, off.Schedule, r.Schedule, strategy)
					require.Equal(t, off.Returns, r.Returns, strategy)
				}
				t.Logf("%s: %v, %d states, %d transitions", strategy, off.Verdict, off.States, off.Transitions)
			}
		})
	}
}
