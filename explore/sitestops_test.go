package explore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// The visited-set lookups before a site (worker.siteStops, package doc):
// on a traced callee called in a loop, at every ISA, under a SAFE and an
// UNSAFE strategy, with one worker and with three, the search with them
// and without them agree on everything but the steps taken (and so the
// runs that reach their end), and takes fewer steps, as many with three
// workers as with one.
func TestSiteStopsAgree(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("sixteen exhaustive searches of loops")
	}
	for _, c := range []struct {
		file, fn string
		args     []int64
		strategy string
		steps    [2]int // without and with the lookups
	}{
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "text-poke-bp", [2]int{897087, 395860}},
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "plain-write", [2]int{139, 139}},
		{"arm-loops.o", "l_fib", []int64{6}, "jmp-over", [2]int{102633, 43285}},
		{"arm-loops.o", "l_fib", []int64{6}, "nop-nop", [2]int{57, 57}},
		{"arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, "arm64-nop-bl", [2]int{1144156, 426637}},
		{"arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, "arm64-both-plain", [2]int{134, 134}},
		{"rv-atomic-loops.o", "l_fib", []int64{6}, "rv-atomic", [2]int{310303, 128919}},
		{"rv-atomic-loops.o", "l_fib", []int64{6}, "rv-pfe8", [2]int{63, 63}},
	} {
		t.Run(c.file+"/"+c.strategy, func(t *testing.T) {
			sc := loopsScenario(t, c.file, c.fn, c.args, c.strategy)
			var steps [2]int
			var want checkOutcome
			for i, off := range []bool{true, false} {
				for _, workers := range []int{1, 3} {
					res, err := Check(sc, Options{noOlderViews: true, Workers: workers, noSiteStops: off})
					require.NoError(t, err)
					require.NotEqual(t, Incomplete, res.Verdict, res.Reason)
					got := outcomeOf(t, res)
					if workers == 1 {
						steps[i] = got.Transitions
					} else {
						// The steps from a key to the next depend on the
						// key alone: the same for any workers.
						assert.Equal(t, steps[i], got.Transitions, "lookups %v, %d workers: steps", !off, workers)
					}
					got.Transitions, got.Runs = 0, 0
					if i == 0 && workers == 1 {
						want = got
						continue
					}
					assert.Equal(t, want, got, "lookups %v, %d workers", !off, workers)
				}
			}
			t.Logf("%v, %d states; steps %d without the lookups, %d with", want.Verdict, want.States, steps[0], steps[1])
			assert.Equal(t, c.steps, steps)
		})
	}
}

// loopsScenario is the scenario of fn(args) in the example object file
// (kernel/testdata/obj) under the named strategy of its ISA, at the
// defaults with 256-word stacks.
func loopsScenario(t *testing.T, file, fn string, args []int64, strategy string) Scenario {
	t.Helper()
	o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", file), kernel.ObjectConfig{Function: fn, Args: args})
	require.NoError(t, err)
	st, ok := patch.Lookup(o.Image.Arch, strategy)
	require.True(t, ok, strategy)
	return Scenario{Strategy: st, StackWords: 256, Image: func() (*kernel.Image, error) { return o.Image, nil }}
}
