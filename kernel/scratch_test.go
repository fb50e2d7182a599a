package kernel_test

import (
	"github.com/mcountsim/mcountsim/explore"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// scratchCalls are the calls of the scratch.c fixtures (arm-scratch.o) with
// the values qemu-arm computes through scratchharness.c. siphash_2u64 takes
// first and second as word pairs and the key's address (.rodata is the
// object's only data section, so sipkey sits at DataBase); poly7 takes
// seven arguments, three on the stack.
var scratchCalls = []struct {
	c    call
	want int32
}{
	{call{"siphash_2u64", []int64{1, 0, 2, 0, 0x200000}}, 2074111077},
	{call{"poly7", []int64{1, 2, 3, 4, 5, 6, 7}}, 116},
	{call{"poly7", []int64{-3, 100, 7, -9, 11, 13, -17}}, 1762},
}

// TestScratchMatchesQEMU: the scratch.c functions return what they return
// under qemu-arm (when it is installed: a failure under CI) and what the
// table says, with no hazard: the stack arguments are passed as the AAPCS
// passes them, and siphash_2u64's ldr lr, [sp, #32] (the key pointer, a
// stack argument) is data.
func TestScratchMatchesQEMU(t *testing.T) {
	native := scratchQEMU(t)
	for _, sc := range scratchCalls {
		t.Run(sc.c.String(), func(t *testing.T) {
			got, returned, m := runOnce(t, "arm-scratch.o", sc.c)
			require.Empty(t, m.Hazards())
			require.True(t, returned)
			require.Equal(t, sc.want, got)
			if native != nil {
				require.Equal(t, native["arm-scratch.o "+sc.c.String()], got, "QEMU")
			}
		})
	}
}

// TestScratchStrategies: with lr used as a data register loaded from a
// stack argument, jmp-over is SAFE (the load is no return-address reload:
// the value never reaches a return); nop-nop is still UNSAFE with the
// foreign-slot of __gnu_mcount_nc's contract, whose reload of the
// caller's lr reads a slot the site did not push.
func TestScratchStrategies(t *testing.T) {
	for _, sc := range scratchCalls[:2] {
		hz, n := check(t, "arm-scratch.o", sc.c.fn, sc.c.args, "jmp-over")
		require.Nil(t, hz, "%s jmp-over: %v", sc.c, hz)
		t.Logf("%s jmp-over: SAFE, %d branching states", sc.c, n)
		hz, _ = check(t, "arm-scratch.o", sc.c.fn, sc.c.args, "nop-nop")
		require.NotNil(t, hz, "%s nop-nop", sc.c)
		require.Equal(t, detect.ForeignSlot, hz.Kind, "%v", hz)
		require.Equal(t, "__gnu_mcount_nc+0x14", hz.Where)
		require.Contains(t, hz.Detail, "lr loaded from stack slot")
	}
}

// scratchQEMU runs scratchCalls under qemu-arm; nil when the tools are
// missing (a failure under CI).
func scratchQEMU(t *testing.T) map[string]int32 {
	if !haveTools(t, "the table", "arm") {
		return nil
	}
	var calls []call
	for _, sc := range scratchCalls {
		calls = append(calls, sc.c)
	}
	return native(t, "arm", "scratchharness.c", "arm-scratch.o", calls, nil)
}

// TestScratchLinkUsedAsReturn: lr loaded from a foreign slot is data
// until a return uses it (lrtaint.s, run unpatched): bx lr to it, or a
// pop into pc of the word it was pushed to, is foreign-slot; reloading the
// saved link first clears it.
func TestScratchLinkUsedAsReturn(t *testing.T) {
	for _, c := range []struct {
		fn, where, detail string
	}{
		{"lrret", "lrret+0x20", "return to 0x8, the value lr was loaded with from stack slot 0x7f000fe4, written from r4, not a saved link value"},
		{"lrpop", "lrpop+0x24", "pc loaded from stack slot 0x7f000fec, written from lr while it held a value loaded from a foreign slot, not a saved link value"},
		{"lrclear", "", ""},
	} {
		t.Run(c.fn, func(t *testing.T) {
			got, returned, m := runOnce(t, "arm-lrtaint.o", call{c.fn, []int64{8}})
			if c.where == "" {
				require.Empty(t, m.Hazards())
				require.True(t, returned)
				require.Equal(t, int32(9), got)
				return
			}
			require.NotEmpty(t, m.Hazards())
			hz := m.Hazards()[0]
			require.Equal(t, detect.ForeignSlot, hz.Kind, "%v", hz)
			require.Equal(t, c.where, hz.Where)
			require.Equal(t, c.detail, hz.Detail)
		})
	}
}

// TestReadOnlyLoadsReduced: loads from read-only data (.rodata: siphash_2u64
// reads its key there through lr) are thread-local for the partial-order
// reduction. The search with them reduced reaches the verdicts of the one
// where .rodata is taken for writable data (SAFE under jmp-over, in fewer
// branching states; the same first hazard under nop-nop). The unreduced
// jmp-over search agrees too, in minutes: 5.2 million branching states
// against 1517.
func TestReadOnlyLoadsReduced(t *testing.T) {
	c := scratchCalls[0].c
	run := func(strategy string, unreduced, writable bool) (*detect.Hazard, int) {
		o, err := kernel.LoadObject(filepath.Join(objDir, "arm-scratch.o"), kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: 1})
		require.NoError(t, err)
		ro := &o.Image.Data[len(o.Image.Data)-1]
		require.True(t, ro.ReadOnly, "%s", ro.Name)
		ro.ReadOnly = !writable
		s, ok := patch.Lookup(o.Image.Arch, strategy)
		require.True(t, ok)
		// Writable .rodata that nothing writes is a quiet page
		// (sched/quiet.go) and its bytes stable (sched/stable.go): those
		// reductions are off here.
		sc := explore.Scenario{Strategy: s, CPUs: 2, Tasks: 2, Iterations: 1, Toggles: 2, StackWords: 256, NoQuiet: writable, NoStable: writable,
			Image: func() (*kernel.Image, error) { return o.Image, nil }}
		opts := explore.Options{Bound: 1}
		if unreduced {
			opts.Reduction = explore.ReduceStates
		}
		res, err := explore.Check(sc, opts)
		require.NoError(t, err)
		require.NotEqual(t, explore.Incomplete, res.Verdict, res.Reason)
		return res.Hazard, res.States
	}
	hz, reduced := run("jmp-over", false, false)
	require.Nil(t, hz)
	hz, writable := run("jmp-over", false, true)
	require.Nil(t, hz)
	require.Less(t, reduced, writable)
	t.Logf("jmp-over SAFE: %d branching states with read-only loads local, %d without", reduced, writable)
	hr, _ := run("nop-nop", false, false)
	hu, _ := run("nop-nop", false, true)
	require.NotNil(t, hr)
	require.NotNil(t, hu)
	require.Equal(t, hu.Kind, hr.Kind)
	require.Equal(t, hu.Where, hr.Where)
}
