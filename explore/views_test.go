package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Pruning by older views (views.go, package doc) changes no verdict: for
// every built-in strategy of the four ISAs and every example file, with 2
// and 3 CPUs, the search with it and without it agree on the verdict, the
// counterexample's preemptions and hazard kinds (minimized, so the same),
// and the search with it claims no more states; with three workers the
// verdict is the same again. An UNSAFE counterexample replays.
func TestOlderViewsAgree(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in three times at two sizes")
	}
	for _, st := range symmetryStrategies(t) {
		for _, cpus := range []int{2, 3} {
			t.Run(fmt.Sprintf("%v/%s/cpus=%d", st.Arch, st.Name, cpus), func(t *testing.T) {
				sc := Scenario{Strategy: st, CPUs: cpus, Tasks: 2}
				all, err := Check(sc, Options{Workers: 1, noOlderViews: true})
				require.NoError(t, err)
				require.NotEqual(t, Incomplete, all.Verdict, all.Reason)
				for _, workers := range []int{1, 3} {
					got, err := Check(sc, Options{Workers: workers})
					require.NoError(t, err)
					require.Equal(t, all.Verdict, got.Verdict, "%d workers", workers)
					assert.Equal(t, kindOf(all), kindOf(got))
					assert.Equal(t, hazardKinds(all), hazardKinds(got))
					assert.Equal(t, all.Preemptions, got.Preemptions)
					assert.Contains(t, got.Space.Reduction, "older views")
					if got.Verdict == Safe && workers == 1 {
						assert.LessOrEqual(t, got.States, all.States)
						assert.Equal(t, all.States == got.States, got.OlderViews == 0, "states %d, %d without, %d pruned", got.States, all.States, got.OlderViews)
					}
					if got.Verdict == Unsafe {
						again, err := Replay(sc, got.Schedule, Options{})
						require.NoError(t, err)
						assert.Equal(t, kindOf(got), kindOf(again))
					}
				}
			})
		}
	}
}

// On a traced callee called in a loop, the older views prune most of the
// states where a CPU may fetch patched text late (text-poke-bp, whose
// int3 and byte-0 stores leave the other CPUs' views behind until the
// next sync_core; arm64-nop-bl and rv-atomic, whose one store is seen
// whenever the CPU fetches it), and none where the patcher's stores are
// all made under stop_machine (jmp-over: every CPU synchronizes when it
// leaves its stopper). The figures are one worker's, whose counts are
// exact; the UNSAFE foils stop at the same hazard either way.
func TestOlderViewsPrune(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("exhaustive searches of loops")
	}
	for _, c := range []struct {
		file, fn string
		args     []int64
		strategy string
		states   [2]int // without and with the older views
		pruned   int
	}{
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "text-poke-bp", [2]int{19374, 12141}, 4675},
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "plain-write", [2]int{0, 0}, 0},
		{"arm-loops.o", "l_fib", []int64{6}, "jmp-over", [2]int{2119, 2119}, 0},
		{"arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, "arm64-nop-bl", [2]int{10598, 3285}, 2562},
		{"rv-atomic-loops.o", "l_fib", []int64{6}, "rv-atomic", [2]int{3242, 2779}, 364},
	} {
		t.Run(c.file+"/"+c.strategy, func(t *testing.T) {
			sc := loopsScenario(t, c.file, c.fn, c.args, c.strategy)
			all, err := Check(sc, Options{Workers: 1, noOlderViews: true})
			require.NoError(t, err)
			got, err := Check(sc, Options{Workers: 1})
			require.NoError(t, err)
			require.NotEqual(t, Incomplete, got.Verdict, got.Reason)
			assert.Equal(t, all.Verdict, got.Verdict)
			assert.Equal(t, hazardKinds(all), hazardKinds(got))
			t.Logf("states %d without, %d with, %d pruned", all.States, got.States, got.OlderViews)
			assert.Equal(t, c.states, [2]int{all.States, got.States})
			assert.Equal(t, c.pruned, got.OlderViews)
		})
	}
}
