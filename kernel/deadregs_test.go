package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
)

// deadCheck is objectCheck (1 worker) with the dead registers of compiled
// functions' entries and returns cleared (sched/deadregs.go) or kept.
func deadCheck(t *testing.T, file, strategy string, c call, keep bool) *explore.Result {
	t.Helper()
	sc := objectScenario(t, file, strategy, c)
	sc.KeepDead = keep
	res, err := explore.Check(sc, explore.Options{Workers: 1})
	require.NoError(t, err)
	t.Logf("%s %v %s keep=%v: %v, %d states", file, c, strategy, keep, res.Verdict, res.States)
	return res
}

// returnsOf is what every return of fn in res returned, each checked to
// equal the reference's.
func returnsOf(t *testing.T, res *explore.Result, fn string) []uint64 {
	t.Helper()
	var out []uint64
	for _, r := range res.Returns {
		if r.Function != fn {
			continue
		}
		require.NotNil(t, r.Value, "%s returned", fn)
		require.NotNil(t, r.Reference)
		require.Equal(t, *r.Reference, *r.Value)
		out = append(out, *r.Value)
	}
	return out
}

// TestDeadRegs (deadregs.c): a register the calling convention leaves
// undefined at an entry (r_entry's temporary, read by r_read) or after a
// return (r_return's argument register around r_leaf) reads 0 once the
// machine clears them, and what the code before left there (qemu's value)
// when it keeps them; the SAFE strategy stays SAFE and the UNSAFE one
// UNSAFE at the same hazard either way.
func TestDeadRegs(t *testing.T) {
	for _, f := range []fixture{
		{"arm-deadregs.o", "arm", "jmp-over", "nop-nop"},
		{"x86-fentry-deadregs.o", "x86", "text-poke-bp", "plain-write"},
		{"arm64-pfe2-deadregs.o", "arm64", "arm64-nop-bl", "arm64-both-sm"},
		{"rv-atomic-deadregs.o", "riscv64", "rv-atomic", ""},
	} {
		t.Run(f.file, func(t *testing.T) {
			entry, ret := call{"r_entry", []int64{3}}, call{"r_return", []int64{3}}
			if haveTools(t, "the values of the comment", f.arch) {
				nat := native(t, f.arch, "deadregsharness.c", f.file, []call{entry, ret}, nil)
				require.Equal(t, int32(10), nat[f.file+" "+entry.String()], "3 + 5 + 2")
				require.Equal(t, int32(11), nat[f.file+" "+ret.String()], "3 + 1 + 7")
			}
			for _, c := range []struct {
				c             call
				cleared, kept uint64
			}{{entry, 5, 10}, {ret, 4, 11}} {
				for _, keep := range []bool{false, true} {
					res := deadCheck(t, f.file, f.safe, c.c, keep)
					require.Equal(t, explore.Safe, res.Verdict, res.Reason)
					want := map[bool]uint64{false: c.cleared, true: c.kept}[keep]
					assert.Equal(t, []uint64{want, want, want, want}, returnsOf(t, res, c.c.fn), "2 tasks x 2 iterations")
				}
				if f.unsafe == "" {
					continue
				}
				cl, kp := deadCheck(t, f.file, f.unsafe, c.c, false), deadCheck(t, f.file, f.unsafe, c.c, true)
				require.Equal(t, explore.Unsafe, kp.Verdict, kp.Reason)
				require.Equal(t, explore.Unsafe, cl.Verdict, cl.Reason)
				assert.Equal(t, kp.Hazard.Kind, cl.Hazard.Kind)
				assert.Equal(t, kp.Hazard.Where, cl.Hazard.Where)
				assert.Equal(t, kp.Preemptions, cl.Preemptions)
			}
		})
	}
}

// TestDeadRegsAgreeOnObjects: the clearing of dead registers
// (sched/deadregs.go) against the machine that keeps them, on real
// compiled functions of the four ISAs, in the whole search (bound 1) and
// the thread-modular check: the same verdicts, first hazard (kind, place,
// preemptions) and returns, in no more states and no more distinct end
// states; the counts are pinned. The registers matter where a trampoline
// writes them (arm64's ftrace_caller x9 and x10, riscv's t0 and t1) and
// compiled code leaves them be: on A32 and x86-64 the counts are equal.
func TestDeadRegsAgreeOnObjects(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("exhaustive searches twice; run without -race and -short")
	}
	for _, c := range []struct {
		f                 fixture
		c                 call
		modular           bool
		keptSt, clearedSt int // states under the SAFE strategy
	}{
		{fixture{"arm-real.o", "arm", "jmp-over", "nop-nop"}, call{"lcm", []int64{21, 6}}, false, 1481, 1481},
		{fixture{"x86-fentry-real.o", "x86", "text-poke-bp", "plain-write"}, call{"lcm", []int64{21, 6}}, false, 8589, 8589},
		{fixture{"arm64-pfe2-real.o", "arm64", "arm64-nop-bl", "arm64-both-sm"}, call{"lcm", []int64{21, 6}}, false, 9930, 1948},
		{fixture{"rv-atomic-real.o", "riscv64", "rv-atomic", ""}, call{"lcm", []int64{21, 6}}, false, 4411, 2329},
		{fixture{"arm64-pfe2-loops.o", "arm64", "arm64-nop-bl", "arm64-both-sm"}, call{"l_classify", []int64{7, 40}}, true, 24056, 8829},
		{fixture{"rv-atomic-loops.o", "riscv64", "rv-atomic", ""}, call{"l_fib", []int64{10}}, true, 15991, 15547},
	} {
		t.Run(c.f.file+" "+c.c.String(), func(t *testing.T) {
			opts := explore.Options{Workers: 1, Bound: 1, Modular: explore.ModularOff}
			if c.modular {
				opts = explore.Options{Workers: 1}
			}
			check := func(strategy string, keep bool) *explore.Result {
				sc := objectScenario(t, c.f.file, strategy, c.c)
				sc.KeepDead = keep
				res, err := explore.Check(sc, opts)
				require.NoError(t, err)
				t.Logf("%s keep=%v: %v, %d states, %d runs", strategy, keep, res.Verdict, res.States, res.Runs)
				return res
			}
			kept, cleared := check(c.f.safe, true), check(c.f.safe, false)
			require.Equal(t, explore.Safe, kept.Verdict, kept.Reason)
			require.Equal(t, explore.Safe, cleared.Verdict, cleared.Reason)
			require.Equal(t, c.modular, cleared.Space.Modular)
			assert.Equal(t, []int{c.keptSt, c.clearedSt}, []int{kept.States, cleared.States})
			assert.LessOrEqual(t, cleared.Runs, kept.Runs, "distinct end states")
			assert.Equal(t, returnsOf(t, kept, c.c.fn), returnsOf(t, cleared, c.c.fn))
			if c.f.unsafe == "" {
				return
			}
			hk, hc := check(c.f.unsafe, true), check(c.f.unsafe, false)
			require.Equal(t, explore.Unsafe, hk.Verdict)
			require.Equal(t, explore.Unsafe, hc.Verdict)
			assert.Equal(t, hk.Hazard.Kind, hc.Hazard.Kind)
			assert.Equal(t, hk.Hazard.Where, hc.Hazard.Where)
			assert.Equal(t, hk.Preemptions, hc.Preemptions)
		})
	}
}
