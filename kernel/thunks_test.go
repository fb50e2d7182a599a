package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// TestSpeculationThunks (issue 21): an x86-64 object built with the
// kernel's -mindirect-branch=thunk-extern -mfunction-return=thunk-extern
// calls __x86_indirect_thunk_rax and returns through __x86_return_thunk;
// both are linked as the kernel's code (jmp *%rax; ret), not as stubs that
// return 0, and t_thunks(5, 7) returns 85, as under qemu-x86_64 with the
// thunks written the same way.
func TestSpeculationThunks(t *testing.T) {
	c := call{"t_thunks", []int64{5, 7}}
	o, err := kernel.LoadObject(filepath.Join(objDir, "x86-fentry-thunks.o"), kernel.ObjectConfig{Function: c.fn, Args: c.args})
	require.NoError(t, err)
	require.Empty(t, o.Stubs)
	require.Equal(t, []string{"__x86_indirect_thunk_rax", "__x86_return_thunk"}, o.Helpers)
	for _, st := range []string{"", "text-poke-bp", "text-poke-bp+enabled"} {
		got, returned, _, m := runObject(t, "x86-fentry-thunks.o", st, c)
		require.Empty(t, m.Hazards(), st)
		require.True(t, returned, st)
		require.Equal(t, int32(85), got, st)
	}
}
