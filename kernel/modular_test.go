package kernel_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// loopsFixtures are loops.c's objects (testdata/obj/build.sh) with the
// SAFE and UNSAFE strategies of their layouts (RISC-V's era-3 layout has
// no unsafe built-in).
var loopsFixtures = []fixture{
	{"arm-loops.o", "arm", "jmp-over", "nop-nop"},
	{"x86-fentry-loops.o", "x86", "text-poke-bp", "plain-write"},
	{"arm64-pfe2-loops.o", "arm64", "arm64-nop-bl", "arm64-both-sm"},
	{"rv-atomic-loops.o", "riscv64", "rv-atomic", ""},
}

// objectCheck checks file's c under strategy at the CLI's defaults.
func objectCheck(t *testing.T, file, strategy string, c call, opts explore.Options) *explore.Result {
	t.Helper()
	res, err := explore.Check(objectScenario(t, file, strategy, c), opts)
	require.NoError(t, err)
	return res
}

// objectScenario is the scenario of objectCheck.
func objectScenario(t *testing.T, file, strategy string, c call) explore.Scenario {
	t.Helper()
	path := filepath.Join(objDir, file)
	o, err := kernel.LoadObject(path, kernel.ObjectConfig{Function: c.fn, Args: c.args})
	require.NoError(t, err)
	st, ok := patch.Lookup(o.Image.Arch, strategy)
	require.True(t, ok, strategy)
	return explore.Scenario{Arch: o.Image.Arch, Strategy: st, StackWords: 1024, Image: func() (*kernel.Image, error) { return o.Image, nil },
		ObjectFile: path, Function: c.fn, Args: c.args}
}

// fixture is a fixture object with the SAFE and UNSAFE strategies of its
// layout ("" none).
type fixture struct{ file, arch, safe, unsafe string }

// wantReturn is a call and what it returns, run alone.
type wantReturn struct {
	c    call
	want int32
}

// requireReturns checks that every call returns its want on every fixture,
// run alone under the fixture's SAFE strategy with no hazard, and natively
// under qemu-user through harness when the tools are there.
func requireReturns(t *testing.T, fixtures []fixture, harness string, calls []wantReturn) {
	t.Helper()
	for _, fx := range fixtures {
		var nat map[string]int32
		if haveTools(t, "the values qemu returned", fx.arch) {
			var cs []call
			for _, c := range calls {
				cs = append(cs, c.c)
			}
			nat = native(t, fx.arch, harness, fx.file, cs, nil)
		}
		for _, c := range calls {
			got, returned, _, m := runObject(t, fx.file, fx.safe, c.c)
			require.Empty(t, m.Hazards(), "%s %v", fx.file, c.c)
			require.True(t, returned, "%s %v never returned", fx.file, c.c)
			require.Equal(t, c.want, got, "%s %v", fx.file, c.c)
			if nat != nil {
				require.Equal(t, c.want, nat[fx.file+" "+c.c.String()], "%s %v natively", fx.file, c.c)
			}
		}
	}
}

// loops.c returns what it returns under qemu-user, run alone.
func TestLoopsReturns(t *testing.T) {
	requireReturns(t, loopsFixtures, "loopsharness.c", []wantReturn{
		{call{"l_classify", []int64{7, 40}}, 855},
		{call{"l_fib", []int64{10}}, 55},
		{call{"l_shared", []int64{3}}, 3},
		{call{"l_pick", []int64{1, 5}}, -9},
		{call{"l_pick", []int64{2, 5}}, 91},
		{call{"l_mark", []int64{3}}, 6},
	})
}

// The thread-modular check (sched/modular.go), which object checks use by
// default, against the whole search on calls small enough for both: the
// same verdict; an UNSAFE one with the whole search's counterexample; a
// SAFE one decided by the modular check where the workers store nothing
// outside their stacks, and by the whole search, with its exact counts,
// where they add to a global counter (l_shared): its value set grows in
// every round of the env cells (sched/envcells.go) until the rounds run
// out (explore/modular.go: envRounds), and x86's add to memory, a
// read-modify-write of the cell, is refused outright.
func TestModularAgreesOnObjects(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a minute of search; run without -short and -race")
	}
	calls := []call{{"l_classify", []int64{7, 3}}, {"l_fib", []int64{4}}, {"l_shared", []int64{2}}}
	for _, fx := range loopsFixtures {
		for _, c := range calls {
			for _, st := range []string{fx.safe, fx.unsafe} {
				if st == "" {
					continue
				}
				if c.fn == "l_shared" && st == fx.safe && fx.arch != "arm" && fx.arch != "x86" {
					continue // 10-40 s of the whole search, twice
				}
				t.Run(fmt.Sprintf("%s/%v/%s", fx.file, c, st), func(t *testing.T) {
					// One search worker: the counts compared below.
					whole := objectCheck(t, fx.file, st, c, explore.Options{Modular: explore.ModularOff, Workers: 1})
					got := objectCheck(t, fx.file, st, c, explore.Options{Workers: 1})
					require.NotEqual(t, explore.Incomplete, whole.Verdict, whole.Reason)
					require.Equal(t, whole.Verdict, got.Verdict)
					if st == fx.unsafe {
						require.Equal(t, explore.Unsafe, whole.Verdict)
						require.Equal(t, whole.Hazard.Kind, got.Hazard.Kind)
						assert.False(t, got.Space.Modular)
						if got.Space.Found == "" {
							assert.Equal(t, whole.Schedule, got.Schedule)
							return
						}
						// Hunted (explore/modular.go): it replays to its hazard.
						rep, err := explore.Replay(objectScenario(t, fx.file, st, c), got.Schedule, explore.Options{})
						require.NoError(t, err)
						require.NotNil(t, rep.Hazard)
						assert.Equal(t, *got.Hazard, *rep.Hazard)
						return
					}
					require.Equal(t, explore.Safe, whole.Verdict)
					if c.fn == "l_shared" {
						assert.False(t, got.Space.Modular, "a store to l_total: the whole search decides")
						assert.Equal(t, []int{whole.States, whole.Transitions, whole.Runs}, []int{got.States, got.Transitions, got.Runs})
						return
					}
					assert.True(t, got.Space.Modular)
					t.Logf("modular %d states, whole %d", got.States, whole.States)
				})
			}
		}
	}
}

// A traced callee called 40 times, and a traced recursion of 177 calls,
// per worker and iteration: decided SAFE by the modular check, whose
// state counts are exact (they do not depend on the workers), where the
// whole search needs more than ten times as many states as the two
// workers' modular machines (it is cut there: INCOMPLETE). The workers
// are alike, so worker 0's machine stands for both (sched/modular.go,
// Mirror): half the states of searching each one's, which the symmetry
// turned off does. The unsafe strategy is UNSAFE, its counterexample
// found by random runs of the check's own machine (explore/modular.go:
// hunt) once a modular machine met a hazard.
func TestModularDecidesLoops(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	for _, v := range []struct {
		c      call
		states int
	}{{call{"l_classify", []int64{7, 40}}, 5769}, {call{"l_fib", []int64{10}}, 11847}} {
		got := objectCheck(t, "arm-loops.o", "jmp-over", v.c, explore.Options{})
		require.Equal(t, explore.Safe, got.Verdict, got.Reason)
		require.True(t, got.Space.Modular)
		require.Contains(t, got.Space.Reduction, "mirror image")
		t.Logf("%v: %d states", v.c, got.States)
		require.Equal(t, v.states, got.States)
		each := objectCheck(t, "arm-loops.o", "jmp-over", v.c, explore.Options{NoSymmetry: true})
		require.Equal(t, explore.Safe, each.Verdict, each.Reason)
		require.NotContains(t, each.Space.Reduction, "mirror image")
		require.Equal(t, 2*v.states, each.States)
		cut := objectCheck(t, "arm-loops.o", "jmp-over", v.c, explore.Options{Modular: explore.ModularOff, MaxStates: 10 * each.States})
		require.Equal(t, explore.Incomplete, cut.Verdict)
		bad := objectCheck(t, "arm-loops.o", "nop-nop", v.c, explore.Options{})
		require.Equal(t, explore.Unsafe, bad.Verdict)
		require.NotEmpty(t, bad.Space.Found, "found by the hunt, not by exhausting the lower bounds")
	}
}

// A modular machine's search starts at the bound itself (explore's
// firstBound): l_classify's modular check, 5,769 states at bound 2, is
// SAFE within a budget of exactly that many (the bounds 0, 1, 2 in turn
// took 9,260), and one state fewer leaves it INCOMPLETE claiming no bound
// below 2, where the whole search's coverage names the bounds it
// exhausted. Bounds 1 and 0 alone are fewer states, and the three add up
// to the 9,260.
func TestModularStartsAtTheBound(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	c := call{"l_classify", []int64{7, 40}}
	at := func(o explore.Options) *explore.Result {
		o.Workers = 1
		return objectCheck(t, "arm-loops.o", "jmp-over", c, o)
	}
	full := at(explore.Options{MaxStates: 5769})
	require.Equal(t, explore.Safe, full.Verdict, full.Reason)
	require.True(t, full.Space.Modular)
	assert.Equal(t, 5769, full.States)
	assert.Equal(t, 3, full.Space.BoundsDone, "a SAFE bound 2 covers the bounds below")

	short := at(explore.Options{MaxStates: 5768})
	require.Equal(t, explore.Incomplete, short.Verdict)
	assert.Equal(t, 0, short.Space.BoundsDone)
	assert.Equal(t, "thread-modular check of worker 0 of 2: bound 2 needs more than 5768 states", short.Space.Coverage)

	whole := at(explore.Options{Modular: explore.ModularOff, MaxStates: 20000})
	require.Equal(t, explore.Incomplete, whole.Verdict)
	assert.Regexp(t, `^exhaustive through bound [01]; bound [12] needs more than 20000 states$`, whole.Space.Coverage)

	var prev, sum int
	for b, o := range []int{explore.NoPreemptions, 1, 2} {
		r := at(explore.Options{Bound: o})
		require.Equal(t, explore.Safe, r.Verdict, "bound %d: %s", b, r.Reason)
		require.True(t, r.Space.Modular)
		assert.Greater(t, r.States, prev, "bound %d", b)
		prev, sum = r.States, sum+r.States
	}
	assert.Equal(t, 5769, prev)
	assert.Equal(t, 9260, sum, "the three bounds, each alone, are what the search of them in turn took")
}

// Env cells (sched/envcells.go): l_pick stores one of two traced
// functions into a global hook that it calls through in a loop, and
// l_mark stores 1, or 2 where it reads another worker's 1, to a global
// flag. Both are decided SAFE by the modular check, with exact state
// counts (summed over the rounds): l_pick in one round, its hook's set
// (the initial l_twice and the reference's stores) already complete;
// l_mark in two, the first collecting the 2 that no run of one worker
// stores (the reference's stores give 0 and 1 only). The unsafe
// strategies stay UNSAFE, their counterexamples (from the check's own
// machine) replaying to their hazards; on ARM the whole search agrees.
func TestModularEnvCells(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	pick, mark := call{"l_pick", []int64{1, 2}}, call{"l_mark", []int64{1}}
	for _, v := range []struct {
		fx                     int // loopsFixtures
		c                      call
		states, values, rounds int
	}{
		{0, pick, 5210, 2, 1}, {0, mark, 5923, 3, 2},
		{1, pick, 45412, 2, 1}, {1, mark, 37259, 3, 2},
		{2, pick, 11974, 2, 1}, {2, mark, 8287, 3, 2},
		{3, pick, 24544, 2, 1}, {3, mark, 11039, 3, 2},
	} {
		fx := loopsFixtures[v.fx]
		t.Run(fmt.Sprintf("%s/%v", fx.file, v.c), func(t *testing.T) {
			got := objectCheck(t, fx.file, fx.safe, v.c, explore.Options{Workers: 1})
			require.Equal(t, explore.Safe, got.Verdict, got.Reason)
			require.True(t, got.Space.Modular)
			require.Contains(t, got.Space.Reduction, "mirror image")
			require.Contains(t, got.Space.Reduction, fmt.Sprintf("no worker stored outside its stack but to stable data bytes and to 1 shared data cell(s), whose loads read any value of the cells' value sets (%d values), which hold every value any worker stored there; %d round(s))", v.values, v.rounds))
			require.Equal(t, v.states, got.States)
			if fx.arch == "arm" {
				whole := objectCheck(t, fx.file, fx.safe, v.c, explore.Options{Modular: explore.ModularOff, Workers: 1})
				require.Equal(t, explore.Safe, whole.Verdict)
				t.Logf("modular %d states, whole %d", got.States, whole.States)
			}
			if fx.unsafe == "" {
				return
			}
			bad := objectCheck(t, fx.file, fx.unsafe, v.c, explore.Options{Workers: 1})
			require.Equal(t, explore.Unsafe, bad.Verdict)
			assert.False(t, bad.Space.Modular)
			rep, err := explore.Replay(objectScenario(t, fx.file, fx.unsafe, v.c), bad.Schedule, explore.Options{})
			require.NoError(t, err)
			require.NotNil(t, rep.Hazard)
			assert.Equal(t, *bad.Hazard, *rep.Hazard)
		})
	}
}

// An unsafe strategy on an object is found by the random runs made before
// the thread-modular check (explore/modular.go: hunt): the first one here.
// Its counterexample, shortened within a fixed budget of states, is the
// same whatever the search workers, and replays to its hazard.
func TestPreHunt(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	c := call{"l_classify", []int64{7, 3}}
	var first *explore.Result
	for _, workers := range []int{1, 2} {
		res := objectCheck(t, "x86-fentry-loops.o", "plain-write", c, explore.Options{Workers: workers})
		require.Equal(t, explore.Unsafe, res.Verdict, res.Reason)
		assert.Contains(t, res.Space.Found, "before the thread-modular check, random run 1 of the check's own machine")
		assert.Equal(t, 1, res.Runs)
		if first == nil {
			first = res
			continue
		}
		assert.Equal(t, first.Schedule, res.Schedule, "the same counterexample with %d workers", workers)
	}
	rep, err := explore.Replay(objectScenario(t, "x86-fentry-loops.o", "plain-write", c), first.Schedule, explore.Options{})
	require.NoError(t, err)
	require.NotNil(t, rep.Hazard)
	assert.Equal(t, *first.Hazard, *rep.Hazard)
}
