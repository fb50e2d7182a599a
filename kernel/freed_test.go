package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// freedCheck checks file's fn(args) under strategy (2 CPUs, 2 tasks, 1
// iteration, 2 toggles) within bound, with freed frames scrubbed
// (sched/freed.go) or kept.
func freedCheck(t *testing.T, file, fn string, args []int64, strategy string, bound int, keep bool) *explore.Result {
	t.Helper()
	o, err := kernel.LoadObject(filepath.Join(objDir, file), kernel.ObjectConfig{Function: fn, Args: args, Iterations: 1})
	require.NoError(t, err)
	s, ok := patch.Lookup(o.Image.Arch, strategy)
	require.True(t, ok)
	sc := explore.Scenario{Strategy: s, CPUs: 2, Tasks: 2, Iterations: 1, Toggles: 2, StackWords: 256, KeepFreed: keep,
		Image: func() (*kernel.Image, error) { return o.Image, nil }}
	// The counts below are the whole search's (the thread-modular check,
	// which objects get by default, has its own: modular_test.go), with one
	// worker (whose counts are exact: explore's "Older views").
	res, err := explore.Check(sc, explore.Options{Bound: bound, Modular: explore.ModularOff, Workers: 1})
	require.NoError(t, err)
	t.Logf("%s %s keep=%v: %v, %d states", fn, strategy, keep, res.Verdict, res.States)
	return res
}

// TestFreedFrameLoads (freed.s): a load of a freed frame's word reads 0
// from a never-written slot once the frame is scrubbed, and the leftover
// when it is kept; a return address popped from there is a bad return
// either way, from a never-written slot when scrubbed; a function that
// loads only what it stored returns the same either way.
func TestFreedFrameLoads(t *testing.T) {
	ret := func(r *explore.Result) uint64 {
		t.Helper()
		require.NotEmpty(t, r.Returns)
		require.NotNil(t, r.Returns[0].Value)
		require.NotNil(t, r.Returns[0].Reference)
		require.Equal(t, *r.Returns[0].Reference, *r.Returns[0].Value)
		return *r.Returns[0].Value
	}
	for _, keep := range []bool{false, true} {
		res := freedCheck(t, "arm-freed.o", "deadload", []int64{8}, "jmp-over", explore.NoPreemptions, keep)
		require.Equal(t, explore.Safe, res.Verdict, res.Reason)
		require.Equal(t, map[bool]uint64{false: 0, true: 16}[keep], ret(res))

		res = freedCheck(t, "arm-freed.o", "deadret", []int64{8}, "jmp-over", explore.NoPreemptions, keep)
		require.Equal(t, explore.Unsafe, res.Verdict, res.Reason)
		require.Equal(t, detect.BadReturn, res.Hazard.Kind)
		require.Equal(t, "deadret+0x14", res.Hazard.Where)
		require.Contains(t, res.Hazard.Detail, map[bool]string{false: "return to 0x0 <outside text>", true: "return to 0x10 <outside text>"}[keep])
		require.Contains(t, res.Hazard.Detail, map[bool]string{false: "never written", true: "written from r1"}[keep])

		res = freedCheck(t, "arm-freed.o", "liveload", []int64{8}, "jmp-over", explore.NoPreemptions, keep)
		require.Equal(t, explore.Safe, res.Verdict, res.Reason)
		require.Equal(t, uint64(8), ret(res))
		require.Equal(t, map[bool]int{false: 108, true: 169}[keep], res.States)
	}
}

// TestFreedFramesAgreeOnObjects: the scrub of freed frames
// (sched/freed.go) against the machine that keeps what they leave, on
// real compiled functions (lcm calls gcd_mod, and __aeabi_uidiv on ARM;
// xxh64 calls nothing but its trampoline, whose frame is freed on ARM):
// the same verdicts, first hazard (kind, place, preemptions) and distinct
// end states, in the state counts listed.
func TestFreedFramesAgreeOnObjects(t *testing.T) {
	if raceEnabled {
		t.Skip("exhaustive searches: too slow under the race detector")
	}
	for _, c := range []struct {
		file, fn     string
		args         []int64
		safe, unsafe string
		bound        int
		kept, scrub  int // branching states under safe
	}{
		{"arm-real.o", "lcm", []int64{21, 6}, "jmp-over", "nop-nop", 1, 1106, 631},
		{"arm-real.o", "xxh64", []int64{5, 6, 7, 8}, "jmp-over", "nop-nop", 1, 841, 498},
		{"x86-fentry-real.o", "lcm", []int64{21, 6}, "text-poke-bp", "plain-write", explore.NoPreemptions, 1283, 512},
		{"x86-fentry-real.o", "xxh64", []int64{5, 6, 7, 8}, "text-poke-bp", "plain-write", explore.NoPreemptions, 392, 392},
	} {
		t.Run(c.file+" "+c.fn, func(t *testing.T) {
			scrubbed, kept := freedCheck(t, c.file, c.fn, c.args, c.safe, c.bound, false), freedCheck(t, c.file, c.fn, c.args, c.safe, c.bound, true)
			require.Equal(t, explore.Safe, kept.Verdict, kept.Reason)
			require.Equal(t, explore.Safe, scrubbed.Verdict, scrubbed.Reason)
			require.Equal(t, kept.Runs, scrubbed.Runs, "distinct end states")
			require.Equal(t, []int{c.kept, c.scrub}, []int{kept.States, scrubbed.States})
			hs, hk := freedCheck(t, c.file, c.fn, c.args, c.unsafe, c.bound, false), freedCheck(t, c.file, c.fn, c.args, c.unsafe, c.bound, true)
			require.Equal(t, explore.Unsafe, hk.Verdict)
			require.Equal(t, explore.Unsafe, hs.Verdict)
			require.Equal(t, hk.Hazard.Kind, hs.Hazard.Kind)
			require.Equal(t, hk.Hazard.Where, hs.Hazard.Where)
			require.Equal(t, hk.Preemptions, hs.Preemptions)
		})
	}
}
