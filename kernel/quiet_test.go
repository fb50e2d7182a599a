package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// TestQuietReductionsAgree: the reductions that rest on the reference run
// (sched/quiet.go, explore's package doc) against the search without them
// (Scenario.NoQuiet, and NoStable, whose stable bytes take the loads of
// data no store writes as well): the same verdicts, hazard kinds and places, and the
// same distinct end states, with fewer states. wstrlen reads a string
// from .rodata made writable here (a quiet page: no store writes it);
// lcm on x86-64 reaches 2 of the object's sites, and text_poke_bp's batch
// writes all of them (the stores to the others are the patcher's local
// steps; at bound 0 here: at bound 1 it is 24,985 branching states
// against 313,286, a minute's search). On arm64 and RISC-V the CPUs'
// views of the sites lcm never reaches are left out of the state hash
// too: arm64-nop-bl never synchronizes a CPU but by an interrupt, and a
// CPU preempted in the middle of the batch would otherwise differ from
// one preempted later by the floors of sites no worker fetches.
func TestQuietReductionsAgree(t *testing.T) {
	if raceEnabled {
		t.Skip("exhaustive searches: too slow under the race detector")
	}
	for _, c := range []struct {
		file, fn     string
		args         []int64
		writable     bool // .rodata taken for writable data
		safe, unsafe string
		fewer        bool // the reduction must save states under safe
		bound        int
		ubound       int // the unsafe strategy's bound
	}{
		{"arm-real.o", "wstrlen", []int64{3}, true, "jmp-over", "nop-nop", true, 1, 1},
		{"arm-real.o", "lcm", []int64{21, 6}, false, "jmp-over", "nop-nop", false, 1, 1},
		{"x86-fentry-real.o", "lcm", []int64{21, 6}, false, "text-poke-bp", "plain-write", true, explore.NoPreemptions, explore.NoPreemptions},
		// arm64-both-sm needs a preemption inside a site.
		{"arm64-pfe2-real.o", "lcm", []int64{21, 6}, false, "arm64-nop-bl", "arm64-both-sm", true, explore.NoPreemptions, 1},
		{"rv-atomic-real.o", "lcm", []int64{21, 6}, false, "rv-atomic", "", true, explore.NoPreemptions, 0},
	} {
		t.Run(c.file+" "+c.fn, func(t *testing.T) {
			run := func(strategy string, noQuiet bool, bound int) *explore.Result {
				o, err := kernel.LoadObject(filepath.Join(objDir, c.file), kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: 1})
				require.NoError(t, err)
				if c.writable {
					n := 0
					for i := range o.Image.Data {
						if o.Image.Data[i].ReadOnly {
							o.Image.Data[i].ReadOnly = false
							n++
						}
					}
					require.NotZero(t, n)
				}
				s, ok := patch.Lookup(o.Image.Arch, strategy)
				require.True(t, ok)
				sc := explore.Scenario{Strategy: s, CPUs: 2, Tasks: 2, Iterations: 1, Toggles: 2, StackWords: 256, NoQuiet: noQuiet, NoStable: noQuiet,
					Image: func() (*kernel.Image, error) { return o.Image, nil }}
				res, err := explore.Check(sc, explore.Options{Bound: bound})
				require.NoError(t, err)
				require.NotEqual(t, explore.Incomplete, res.Verdict, res.Reason)
				return res
			}
			on, off := run(c.safe, false, c.bound), run(c.safe, true, c.bound)
			require.Equal(t, explore.Safe, on.Verdict)
			require.Equal(t, explore.Safe, off.Verdict)
			require.Equal(t, off.EndStates, on.EndStates, "distinct end states")
			if c.fewer {
				require.Less(t, on.States, off.States)
			} else {
				require.LessOrEqual(t, on.States, off.States)
			}
			t.Logf("%s SAFE: %d branching states with the reductions, %d without", c.safe, on.States, off.States)
			if c.unsafe == "" {
				return // no unsafe strategy for the layout
			}
			hon, hoff := run(c.unsafe, false, c.ubound), run(c.unsafe, true, c.ubound)
			require.Equal(t, explore.Unsafe, hon.Verdict)
			require.Equal(t, explore.Unsafe, hoff.Verdict)
			require.Equal(t, hoff.Hazard.Kind, hon.Hazard.Kind)
			require.Equal(t, hoff.Hazard.Where, hon.Hazard.Where)
			require.Equal(t, hoff.Preemptions, hon.Preemptions)
		})
	}
}
