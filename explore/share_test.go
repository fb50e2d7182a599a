package explore

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// outcome of a check, for comparing searches: everything but timing and
// the split's bookkeeping.
type checkOutcome struct {
	Verdict                               Verdict
	States, Transitions, Runs, BoundsDone int
	EndStates                             []string
	Schedule                              string
	Preemptions, Steps                    int
	Hazard                                string // the first hazard
	Subtrees, Frontier                    int
}

func outcomeOf(t *testing.T, res *Result) checkOutcome {
	t.Helper()
	o := checkOutcome{Verdict: res.Verdict, States: res.States, Transitions: res.Transitions, Runs: res.Runs,
		BoundsDone: res.Space.BoundsDone, EndStates: res.EndStates, Schedule: res.Schedule,
		Preemptions: res.Preemptions, Steps: res.Steps, Subtrees: res.Subtrees, Frontier: res.Space.Frontier}
	if h := res.Hazard; h != nil {
		o.Hazard = h.String()
	}
	return o
}

// Issue 19: the parallel search splits subtrees between workers (share.go);
// with 1, 2 and 3 workers, and with 2 and 3 workers that split at every
// branching point (the most pieces, each replayed from the initial state),
// every built-in's default check gives one verdict, one count of states,
// steps and end states, and one counterexample (schedule, preemptions,
// steps, first hazard), with and without the sleep sets. Run it under
// -race too.
func TestWorkersSplitAgree(t *testing.T) {
	for _, st := range patch.Builtins() {
		for _, por := range []bool{false, true} {
			name := st.Arch.String() + "/" + st.Name
			if por {
				name += "/por"
			}
			t.Run(name, func(t *testing.T) {
				if raceEnabled && (st.Arch != kernel.ARM && st.Arch != kernel.X86 || por) {
					t.Skip("under -race: the ARM and x86 built-ins without the sleep sets")
				}
				sc := Scenario{Strategy: st}
				one, err := Check(sc, Options{noOlderViews: true, Workers: 1, POR: por})
				require.NoError(t, err)
				require.NotEqual(t, Incomplete, one.Verdict, one.Reason)
				want := outcomeOf(t, one)
				if one.Verdict == Unsafe {
					require.NotNil(t, one.Hazard)
				}
				for _, c := range []struct {
					workers int
					always  bool
				}{{2, false}, {3, false}, {2, true}, {3, true}} {
					res, err := Check(sc, Options{noOlderViews: true, Workers: c.workers, POR: por, splitAlways: c.always})
					require.NoError(t, err)
					assert.Equal(t, want, outcomeOf(t, res), "workers %d, split always %v", c.workers, c.always)
				}
			})
		}
	}
}

// A larger space, split as often as possible: jmp-over with 3 tasks.
func TestWorkersSplitAgreeTasks3(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("searches of 3 tasks; run without -race and -short")
	}
	sc := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 3}
	one, err := Check(sc, Options{noOlderViews: true, Workers: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, one.Verdict)
	for _, w := range []int{2, 3} {
		res, err := Check(sc, Options{noOlderViews: true, Workers: w, splitAlways: true})
		require.NoError(t, err)
		assert.Equal(t, outcomeOf(t, one), outcomeOf(t, res), "workers %d", w)
	}
}

// A search cut short while its workers split their subtrees counts a
// subtree as searched only when every piece split off it is: the coverage
// names fewer subtrees than the frontier holds, and the verdict is
// INCOMPLETE.
func TestWorkersSplitCutShort(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 3}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	res, err := Check(sc, Options{noOlderViews: true, Workers: 2, splitAlways: true, Context: ctx, ProgressEvery: time.Millisecond,
		Progress: func(p Progress) {
			if p.Bound == 2 {
				once.Do(cancel)
			}
		}})
	cancel()
	require.NoError(t, err)
	require.Equal(t, Incomplete, res.Verdict)
	m := regexp.MustCompile(`^exhaustive through bound 1; bound 2: \d+% of frontier \((\d+) of (\d+) subtrees\)$`).FindStringSubmatch(res.Space.Coverage)
	require.NotNil(t, m, res.Space.Coverage)
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	assert.Less(t, done, total)
	assert.Equal(t, res.Space.Frontier, total)
}

// The workers of loops.c's l_shared store to the global l_total, which
// after both calls holds 0x10: with the two zero bytes before it in
// .data, its bytes spell 0x100000, the first stack's base, astride. Such
// a window made the state odd (hashed exactly, tasks by index), so the
// symmetric parent of two states that differ by a permutation had
// successors with different keys, and which of the two a worker claimed
// first decided the states counted (124,647 with 1 worker, 125,022 to
// 125,101 with 2). A number's bytes are no stack address (sched's
// dataOdd), and the counts are now one for any workers, splitting or not.
// (117,063 states before the reductions that rest on the reference run
// applied to a reference whose results are not compared: the patcher's
// stores to the sites no worker reaches are local steps now, sched/quiet.go;
// 963,776 transitions before loops.c gained l_pick and l_mark, whose four
// sites add local steps of the patcher and no state; 28,738 states and
// 987,450 transitions before the entries and returns of compiled functions
// cleared their dead registers, sched/deadregs.go.)
func TestWorkersSplitAgreeSharedData(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("five searches of 19,872 states; run without -race and -short")
	}
	o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", "rv-atomic-loops.o"),
		kernel.ObjectConfig{Function: "l_shared", Args: []int64{4}, Iterations: 1})
	require.NoError(t, err)
	st, ok := patch.Lookup(kernel.RISCV64, "rv-atomic")
	require.True(t, ok)
	sc := Scenario{Strategy: st, Iterations: 1, Image: func() (*kernel.Image, error) { return o.Image, nil }}
	one, err := Check(sc, Options{noOlderViews: true, Workers: 1, Modular: ModularOff})
	require.NoError(t, err)
	require.Equal(t, Safe, one.Verdict, one.Reason)
	assert.Equal(t, []int{19872, 669768}, []int{one.States, one.Transitions})
	want := outcomeOf(t, one)
	for _, c := range []struct {
		workers int
		always  bool
	}{{2, false}, {3, false}, {2, true}, {3, true}} {
		res, err := Check(sc, Options{noOlderViews: true, Workers: c.workers, Modular: ModularOff, splitAlways: c.always})
		require.NoError(t, err)
		assert.Equal(t, want, outcomeOf(t, res), "workers %d, split always %v", c.workers, c.always)
	}
}
