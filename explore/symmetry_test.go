package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// hazardKinds lists the kinds of the hazards of a result's replay.
func hazardKinds(r *Result) []detect.Kind {
	var k []detect.Kind
	for _, h := range r.Hazards {
		k = append(k, h.Kind)
	}
	return k
}

// symmetryStrategies is every built-in strategy of every ISA and every
// example strategy file.
func symmetryStrategies(t *testing.T) []*patch.Strategy {
	strategies := patch.Builtins()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "strategies", "*.strategy"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		f, err := patch.ReadFile(p)
		require.NoError(t, err)
		f.Strategy.Name = "file:" + f.Strategy.Name
		strategies = append(strategies, f.Strategy)
	}
	return strategies
}

// The task symmetry of the visited set (sched/symmetry.go) agrees with the
// search that hashes tasks by index: for every built-in strategy of the
// four ISAs and every example file, with 2 and 3 tasks at the defaults
// otherwise, the verdict, the preemptions of the counterexample and the
// kinds of its hazards are the same, and the reduced search has no more
// states than the unreduced one. (The 3-task searches without symmetry of
// the arm64, riscv64 and text-poke-bp built-ins take 1-3M states: slow.)
func TestSymmetryAgrees(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in twice with 3 tasks takes minutes; run without -race and -short")
	}
	for _, st := range symmetryStrategies(t) {
		for _, tasks := range []int{2, 3} {
			t.Run(fmt.Sprintf("%v/%s/tasks=%d", st.Arch, st.Name, tasks), func(t *testing.T) {
				if tasks == 3 && (st.Arch == kernel.ARM64 || st.Arch == kernel.RISCV64 || st.Name == "text-poke-bp") {
					slow(t, "the search without symmetry of 3 tasks") // 1-3M states
				}
				sc := Scenario{Strategy: st, Tasks: tasks}
				sym, err := Check(sc, Options{noOlderViews: true})
				require.NoError(t, err)
				exact, err := Check(sc, Options{noOlderViews: true, NoSymmetry: true})
				require.NoError(t, err)
				t.Logf("states %d with symmetry, %d without", sym.States, exact.States)
				require.NotEqual(t, Incomplete, exact.Verdict, exact.Reason)
				require.Equal(t, exact.Verdict, sym.Verdict)
				assert.Equal(t, kindOf(exact), kindOf(sym))
				assert.Equal(t, hazardKinds(exact), hazardKinds(sym))
				assert.Equal(t, exact.Preemptions, sym.Preemptions)
				assert.LessOrEqual(t, sym.States, exact.States)
				assert.LessOrEqual(t, sym.Transitions, exact.Transitions)
				if sym.Verdict == Unsafe {
					// The counterexample found through merged states
					// replays to its hazard.
					again, err := Replay(sc, sym.Schedule, Options{noOlderViews: true})
					require.NoError(t, err)
					assert.Equal(t, kindOf(sym), kindOf(again))
					assert.Equal(t, hazardKinds(sym), hazardKinds(again))
				}
			})
		}
	}
}

// The state counts of the default checks with and without the symmetry:
// without it they are the counts from before it (README, issue 19) grown
// by the states that differ only in a runnable task's Preempted flag,
// merged before it was hashed, and shrunk by the scrub of freed frames
// (sched/freed.go: TestFreedFramesCounts has the counts before it); with
// it fewer. (text-poke-bp's were 92,835 and 39,854 before the scrub, and
// 123,269 and 52,867 until the end of an answered sync_core wait became a
// local step of the patcher and x86's synchronized writes left the hash,
// issue 21, and 26,957 and 13,970 until its stores of bytes 1-4 behind the
// int3 did too, sched/shadow.go.)
func TestSymmetryCounts(t *testing.T) {
	for _, c := range []struct {
		arch             kernel.Arch
		strategy         string
		tasks            int
		exact, symmetric int
	}{
		{kernel.ARM, "jmp-over", 2, 5357, 2836},
		{kernel.ARM, "two-step-sched", 2, 1336, 717},
		{kernel.X86, "text-poke-bp", 2, 23929, 12406},
		{kernel.ARM, "jmp-over", 3, 48783, 9814},
	} {
		t.Run(fmt.Sprintf("%v/%s/tasks=%d", c.arch, c.strategy, c.tasks), func(t *testing.T) {
			if c.tasks == 3 && (raceEnabled || testing.Short()) {
				t.Skip("3 tasks take seconds; run without -race and -short")
			}
			sc := Scenario{Strategy: lookup(t, c.arch, c.strategy), Tasks: c.tasks}
			exact, err := Check(sc, Options{noOlderViews: true, NoSymmetry: true})
			require.NoError(t, err)
			assert.Equal(t, c.exact, exact.States)
			assert.NotContains(t, exact.Space.Reduction, "permutation")
			sym, err := Check(sc, Options{noOlderViews: true})
			require.NoError(t, err)
			assert.Equal(t, c.symmetric, sym.States)
			assert.Contains(t, sym.Space.Reduction, "up to a permutation of the worker tasks")
		})
	}
}

// The tracer kernel's per-task records (callback frames, the missed
// preemption window, interrupts-off stretches) are in each task's digest:
// with two workers its checks agree with and without the symmetry, at
// preemption bound 0 (bound 1 with MCOUNTSIM_SLOW=1).
func TestSymmetryAgreesOnTheTracer(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("the tracer searches take seconds; run without -race and -short")
	}
	for _, c := range []struct {
		tracer string
		traced []string
	}{
		{"naive", []string{"preempt_schedule"}},
		{"naive", nil},
		{"irqsave", nil},
		{"recursion-bits", nil},
	} {
		t.Run(c.tracer+"/"+fmt.Sprint(c.traced), func(t *testing.T) {
			sc := tracerScenario(t, c.tracer, c.traced...)
			sc.Tasks, sc.Iterations = 2, 1
			opts := Options{noOlderViews: true, Bound: NoPreemptions, MaxStates: 3_000_000}
			if os.Getenv(slowEnv) != "" {
				opts.Bound = 1 // up to 1.7M states without the symmetry
			}
			sym, err := Check(sc, opts)
			require.NoError(t, err)
			opts.NoSymmetry = true
			exact, err := Check(sc, opts)
			require.NoError(t, err)
			t.Logf("states %d with symmetry, %d without", sym.States, exact.States)
			require.NotEqual(t, Incomplete, exact.Verdict, exact.Reason)
			require.Equal(t, exact.Verdict, sym.Verdict)
			assert.Equal(t, kindOf(exact), kindOf(sym))
			assert.Equal(t, exact.Preemptions, sym.Preemptions)
			assert.LessOrEqual(t, sym.States, exact.States)
		})
	}
}
