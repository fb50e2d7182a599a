package explore

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// resultJSON is res as JSON without its timing.
func resultJSON(t *testing.T, res *Result) string {
	t.Helper()
	c := *res
	c.Elapsed, c.Throughput = 0, nil
	b, err := json.Marshal(&c)
	require.NoError(t, err)
	return string(b)
}

// Issue 8, acceptance 2: the number of workers changes nothing in the
// result, on every default scenario (each built-in strategy with the
// default machine and bound), nor in PCT and random searches.
func TestWorkersDoNotChangeTheResult(t *testing.T) {
	for _, st := range patch.Builtins() {
		t.Run(st.Arch.String()+"/"+st.Name, func(t *testing.T) {
			if raceEnabled && st.Arch != kernel.ARM && st.Arch != kernel.X86 {
				// Under -race (minutes each there) the ARM and x86
				// built-ins exercise the workers; the plain run checks all.
				t.Skip("arm64 and riscv64 built-ins: run without -race")
			}
			sc := Scenario{Strategy: st}
			one, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound, Workers: 1})
			require.NoError(t, err)
			four, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound, Workers: 4})
			require.NoError(t, err)
			assert.NotEqual(t, Incomplete, one.Verdict)
			assert.Equal(t, resultJSON(t, one), resultJSON(t, four))
		})
	}
	for _, mode := range []Search{PCT, Random} {
		t.Run(mode.String(), func(t *testing.T) {
			sc := Scenario{Strategy: builtin(t, "nop-nop")}
			one, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound, Search: mode, Runs: 300, Seed: 7, Workers: 1})
			require.NoError(t, err)
			four, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound, Search: mode, Runs: 300, Seed: 7, Workers: 4})
			require.NoError(t, err)
			assert.Equal(t, resultJSON(t, one), resultJSON(t, four))
		})
	}
}

// The counts of a finished exhaustive search do not depend on timing
// either: many runs with several workers give one answer.
func TestCountsAreStable(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "jmp-over")}
	first, err := Check(sc, Options{noOlderViews: true, Bound: 2, Workers: 3})
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		again, err := Check(sc, Options{noOlderViews: true, Bound: 2, Workers: 3})
		require.NoError(t, err)
		require.Equal(t, resultJSON(t, first), resultJSON(t, again))
	}
}

// Issue 8, acceptance 3: the shards of a split cover the frontier exactly
// once, and their verdicts combine to the unsharded one.
func TestShardsCoverTheSpace(t *testing.T) {
	for _, name := range []string{"jmp-over", "nop-nop", "two-step-sched", "pop-lr"} {
		t.Run(name, func(t *testing.T) {
			sc := Scenario{Strategy: builtin(t, name)}
			whole, err := Check(sc, Options{noOlderViews: true, Bound: 2})
			require.NoError(t, err)
			for _, n := range []int{1, 3, 7} {
				var subtrees, unsafe, safe int
				ends := map[string]bool{}
				minPre := math.MaxInt
				for i := 0; i < n; i++ {
					part, err := Check(sc, Options{noOlderViews: true, Bound: 2, Shard: Shard{Index: i, Count: n}})
					require.NoError(t, err)
					subtrees += part.Subtrees
					for _, h := range part.EndStates {
						ends[h] = true
					}
					switch part.Verdict {
					case Safe:
						safe++
						assert.False(t, part.Space.Exhaustive && n > 1, "a shard alone is not the exhaustive space")
					case Unsafe:
						unsafe++
						minPre = min(minPre, part.Preemptions)
						assert.Equal(t, whole.Preemptions, part.Preemptions, "every unsafe shard is canonicalized at the fewest preemptions")
					}
					if n == 1 {
						assert.Equal(t, resultJSON(t, whole), resultJSON(t, part), "shard 0/1 is the whole search")
					}
				}
				switch whole.Verdict {
				case Safe:
					assert.Equal(t, n, safe, "n=%d", n)
					assert.Equal(t, whole.Subtrees, subtrees, "n=%d: every subtree in exactly one shard", n)
					if n > 1 {
						assert.Equal(t, whole.Runs, len(ends), "n=%d: the shards' end states unite to the whole search's runs", n)
					}
				case Unsafe:
					assert.Positive(t, unsafe, "n=%d", n)
					assert.Equal(t, whole.Preemptions, minPre)
				}
			}
		})
	}
}

// Issue 8, acceptance 4: a budget that runs out gives INCOMPLETE, never
// SAFE, in every mode.
func TestBudgetsAreIncompleteInEveryMode(t *testing.T) {
	big := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 3}
	for _, mode := range []Search{Exhaustive, PCT, Random} {
		for _, b := range []struct {
			name string
			opts Options
		}{
			{"states", Options{noOlderViews: true, MaxStates: 20}},
			{"timeout", Options{noOlderViews: true, Timeout: time.Millisecond}},
			{"memory", Options{noOlderViews: true, MaxMemory: 1}},
		} {
			t.Run(mode.String()+"/"+b.name, func(t *testing.T) {
				opts := b.opts
				opts.Bound, opts.Search, opts.Runs = 2, mode, 1_000_000
				res, err := Check(big, opts)
				require.NoError(t, err)
				assert.Equal(t, Incomplete, res.Verdict)
				assert.Equal(t, 3, res.Verdict.ExitCode())
				assert.False(t, res.Space.Exhaustive)
				assert.NotEmpty(t, res.Space.Coverage, "says what was covered")
				assert.Contains(t, res.Reason, res.Space.Coverage)
			})
		}
	}
}

// An exhaustive search that runs out in a later bound says which bounds it
// finished and how much of the frontier of the next.
func TestCoverageNamesTheBounds(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "jmp-over"), Tasks: 3}
	// Without the task symmetry: 48,783 states (with it, 9,814).
	res, err := Check(sc, Options{noOlderViews: true, Bound: 2, MaxStates: 20_000, NoSymmetry: true})
	require.NoError(t, err)
	require.Equal(t, Incomplete, res.Verdict)
	// A state budget names the bound it cut (the same for any number of
	// workers: TestStateBudgetDoesNotDependOnWorkers); a time budget says
	// how much of the frontier was done.
	assert.Regexp(t, `^exhaustive through bound \d+; bound \d+ needs more than 20000 states$`, res.Space.Coverage)
	res, err = Check(sc, Options{noOlderViews: true, Bound: 2, Timeout: 50 * time.Millisecond, NoSymmetry: true})
	require.NoError(t, err)
	require.Equal(t, Incomplete, res.Verdict)
	assert.Regexp(t, `(^|; )bound \d+: \d+% of frontier \(\d+ of \d+ subtrees\)$`, res.Space.Coverage)
}

// Issue 8, acceptance 5: PCT finds the seed race in 1,000 runs with a fixed
// seed, and its printed bound is 1/(n·k^(d-1)) with the measured n and k.
func TestPCTFindsNopNop(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "nop-nop")}
	res, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound, Search: PCT, Runs: 1000, Depth: 3, Seed: 1})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.NotNil(t, res.PCT)
	p := res.PCT
	assert.Equal(t, 3, p.N, "two workers and the patcher")
	// k bounds the length of every run (issue 14): at least the default
	// run's, and no sampled run was longer.
	k := p.K
	assert.Greater(t, k, defaultRunSteps(t, sc), "runs are longer than the default run")
	assert.InDelta(t, 1/(3*float64(k)*float64(k)), p.Probability, 1e-12)
	assert.Contains(t, p.Text, fmt.Sprintf("1/(3·%d^2)", k))
	assert.Regexp(t, `\(k bounds every run: the longest sampled run took \d+ steps\)$`, p.Text)
	// Shrunk to the same canonical counterexample as the exhaustive search.
	ex, err := Check(sc, Options{noOlderViews: true, Bound: DefaultBound})
	require.NoError(t, err)
	assert.Equal(t, ex.Schedule, res.Schedule)
	assert.Equal(t, ex.Preemptions, res.Preemptions)
	assert.Equal(t, *ex.Hazard, *res.Hazard)
}

func defaultRunSteps(t *testing.T, sc Scenario) int {
	m, err := sc.Machine(false)
	require.NoError(t, err)
	for !m.Done() && len(m.Hazards()) == 0 {
		o := m.OptionsWithin(nil, DefaultBound)
		if len(o) == 0 {
			break
		}
		m.Apply(o[0])
	}
	return m.Steps()
}

// Sampling searches are never SAFE.
func TestSamplingIsNeverSafe(t *testing.T) {
	for _, mode := range []Search{PCT, Random} {
		res, err := Check(Scenario{Strategy: builtin(t, "jmp-over")}, Options{noOlderViews: true, Bound: 2, Search: mode, Runs: 50})
		require.NoError(t, err)
		assert.Equal(t, Incomplete, res.Verdict)
		assert.Equal(t, 50, res.Runs)
		assert.Contains(t, res.Space.Description, "no hazard in 50 "+mode.String()+" runs")
	}
}

// Every counterexample is shrunk to the fewest preemptions, then the
// fewest steps, and replays to the same hazard; random search ends at the
// same one.
func TestCounterexamplesAreMinimal(t *testing.T) {
	for _, name := range []string{"nop-nop", "two-step-sched"} {
		sc := Scenario{Strategy: builtin(t, name)}
		ex, err := Check(sc, Options{noOlderViews: true, Bound: 2})
		require.NoError(t, err)
		require.Equal(t, Unsafe, ex.Verdict)
		assert.NotEmpty(t, ex.Replay.Trace)
		rnd, err := Check(sc, Options{noOlderViews: true, Bound: 2, Search: Random, Runs: 2000, Seed: 3})
		require.NoError(t, err)
		if rnd.Verdict == Unsafe {
			assert.Equal(t, ex.Schedule, rnd.Schedule, name)
		}
		again, err := Replay(sc, ex.Schedule, Options{noOlderViews: true, Bound: 2})
		require.NoError(t, err)
		assert.Equal(t, *ex.Hazard, *again.Hazard)
		// No run with fewer preemptions reaches a hazard.
		if ex.Preemptions > 0 {
			less, err := Check(sc, Options{noOlderViews: true, Bound: BoundOption(ex.Preemptions - 1)})
			require.NoError(t, err)
			assert.Equal(t, Safe, less.Verdict)
		}
	}
}

func TestParseShard(t *testing.T) {
	s, err := ParseShard("2/7")
	require.NoError(t, err)
	assert.Equal(t, Shard{Index: 2, Count: 7}, s)
	assert.Equal(t, "2/7", s.String())
	for _, bad := range []string{"", "7/7", "-1/3", "1/0", "a/b", "1"} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
}

func TestTable(t *testing.T) {
	var tab table
	tab.reset()
	for i := uint64(0); i < 10000; i++ {
		k := key{mixTest(i), mixTest(i + 1<<40)}
		require.False(t, tab.visit(k, 5))
		require.True(t, tab.visit(k, 5))
		require.True(t, tab.visit(k, 7))
		require.False(t, tab.visit(k, 3), "a smaller value is news")
	}
	assert.Equal(t, 10000, tab.n)
	require.False(t, tab.visit(key{}, 0))
	require.True(t, tab.visit(key{}, 0))
	tab.reset()
	assert.Equal(t, 0, tab.n)

	sh := newShared()
	require.True(t, sh.claim(key{1, 2}))
	require.False(t, sh.claim(key{1, 2}))
	assert.Positive(t, sh.bytes())
}

func mixTest(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}
