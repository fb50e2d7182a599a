package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
)

// sharedFixtures are shared.c's objects (testdata/obj/build.sh), as
// loopsFixtures.
var sharedFixtures = []fixture{
	{"arm-shared.o", "arm", "jmp-over", "nop-nop"},
	{"x86-fentry-shared.o", "x86", "text-poke-bp", "plain-write"},
	{"arm64-pfe2-shared.o", "arm64", "arm64-nop-bl", "arm64-both-sm"},
	{"rv-atomic-shared.o", "riscv64", "rv-atomic", ""},
}

// The calls of shared.c the tests make, with what each returns run alone
// (qemu-user gives the same: TestSharedReturns).
var sharedCalls = []wantReturn{
	{call{"s_lazy", []int64{5, 20}}, -512113943},
	{call{"s_silent", []int64{4, 6}}, -1527526219},
	{call{"s_early", []int64{3}}, 0}, // the first call builds the table,
	{call{"s_first", []int64{7}}, 1401181143},
}

// shared.c returns what it returns under qemu-user, run alone.
func TestSharedReturns(t *testing.T) {
	requireReturns(t, sharedFixtures, "sharedharness.c", sharedCalls)
}

// The stable bytes (sched/stable.go) on shared.c, checked as check
// --object does: s_lazy's lazily built table and s_silent's silent stores
// are decided with them (s_silent by the thread-modular check, whose
// premise a store that writes one value no longer breaks; s_lazy by the
// whole search, its flag being read before any store writes it); s_early
// (a flag stored before the table it announces) and s_first (a word
// stored from a counter the other worker may have moved) break a premise
// in some run, and the check searches again without the reductions that
// rest on the reference run, and says so.
func TestStableBytesDecide(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	type want struct {
		modular, unaided bool
		why              string // in the reduction text of an unaided search
	}
	wants := map[string]want{
		"s_lazy":   {},
		"s_silent": {modular: true},
		"s_early":  {unaided: true, why: "which no store it knows of has written"},
		"s_first":  {unaided: true, why: "where every store of the uninstrumented reference run wrote"},
	}
	// The ARM fixture's exact counts (states of the SAFE check). (s_early
	// 30,482 and s_first 120,096 before the visited set was looked up
	// before sites too, explore's package doc: the whole searches of
	// shared data key some states exactly under the task symmetry, and
	// which of two symmetric arrivals at a site goes on decides which of
	// their exactly keyed successors are counted.)
	armStates := map[string]int{"s_lazy": 14683, "s_silent": 1417, "s_early": 30484, "s_first": 120088}
	for _, fx := range sharedFixtures {
		for _, c := range sharedCalls {
			w := wants[c.c.fn]
			if w.unaided && fx.arch != "arm" && fx.arch != "x86" {
				continue // millions of states without the reductions
			}
			res := objectCheck(t, fx.file, fx.safe, c.c, explore.Options{Workers: 1})
			require.Equal(t, explore.Safe, res.Verdict, "%s %v: %s", fx.file, c.c, res.Reason)
			assert.Equal(t, w.modular, res.Space.Modular, "%s %v modular", fx.file, c.c)
			assert.Equal(t, w.unaided, res.Space.NoReferenceReductions, "%s %v unaided", fx.file, c.c)
			if w.why != "" {
				assert.Contains(t, res.Space.Reduction, w.why, "%s %v", fx.file, c.c)
			}
			t.Logf("%s %v %s: SAFE, %d states (%s)", fx.file, c.c, fx.safe, res.States, res.Space.Reduction)
			if fx.arch == "arm" {
				assert.Equal(t, armStates[c.c.fn], res.States, "%s %v states", fx.file, c.c)
			}
			if fx.unsafe == "" {
				continue
			}
			sc := objectScenario(t, fx.file, fx.unsafe, c.c)
			bad, err := explore.Check(sc, explore.Options{Workers: 1})
			require.NoError(t, err)
			require.Equal(t, explore.Unsafe, bad.Verdict, "%s %v %s: %s", fx.file, c.c, fx.unsafe, bad.Reason)
			rep, err := explore.Replay(explore.AsSearched(sc, bad), bad.Schedule, explore.Options{})
			require.NoError(t, err)
			require.NotNil(t, rep.Hazard, "%s %v: the counterexample replays to no hazard", fx.file, c.c)
			assert.Equal(t, bad.Hazard.Kind, rep.Hazard.Kind, "%s %v", fx.file, c.c)
		}
	}
}

// The whole search with the reductions that rest on the reference run
// (quiet pages, unreached text, stable bytes) against the one without
// them, on shared.c for ARM: the same verdicts, hazard kinds and distinct
// end states, and fewer states where the stable bytes hold (s_lazy's
// table; s_silent's one store per call costs the ARM search no state, and
// gains the thread-modular check instead: TestStableBytesDecide). Where a
// premise breaks, the check's count is the broken attempt's and then the
// search's without them.
func TestStableBytesAgree(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of search; run without -short and -race")
	}
	fx := sharedFixtures[0]
	for _, c := range sharedCalls {
		for _, st := range []string{fx.safe, fx.unsafe} {
			run := func(off bool) *explore.Result {
				sc := objectScenario(t, fx.file, st, c.c)
				sc.NoQuiet, sc.NoStable = off, off
				res, err := explore.Check(sc, explore.Options{Workers: 1, Modular: explore.ModularOff})
				require.NoError(t, err)
				require.NotEqual(t, explore.Incomplete, res.Verdict, res.Reason)
				return res
			}
			on, off := run(false), run(true)
			require.Equal(t, off.Verdict, on.Verdict, "%v %s", c.c, st)
			if off.Verdict == explore.Unsafe {
				assert.Equal(t, off.Hazard.Kind, on.Hazard.Kind, "%v %s", c.c, st)
				continue
			}
			assert.Equal(t, off.EndStates, on.EndStates, "%v %s: distinct end states", c.c, st)
			switch {
			case on.Space.NoReferenceReductions:
				assert.Greater(t, on.States, off.States, "%v %s", c.c, st)
			case c.c.fn == "s_lazy":
				assert.Less(t, on.States, off.States, "%v %s", c.c, st)
			default:
				assert.LessOrEqual(t, on.States, off.States, "%v %s", c.c, st)
			}
			t.Logf("%v %s: %v, %d states with the reductions, %d without", c.c, st, on.Verdict, on.States, off.States)
		}
	}
}
