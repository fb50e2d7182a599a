package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
)

// A void traced function that returns before it writes x0, after arm64
// -pg's _mcount call (voidret.c): the register holds what the
// instrumentation left there, the reference's transparent _mcount's or
// ftrace_caller's, which differ; the reference marks that return Unknown
// and runs compare its function and stores but not its value. Before, the
// SAFE strategy was UNSAFE with a wrong-result hazard (corpus a64-O2-pg
// c_heapsort's sift_down). The returns that carry a value are still
// compared, and v_twice returns what it returns under qemu.
func TestVoidReturnAfterMcount(t *testing.T) {
	c := call{"v_twice", []int64{5}}
	if haveTools(t, "the value qemu returned", "arm64") {
		nat := native(t, "arm64", "voidretharness.c", "arm64-pg-voidret.o", []call{c}, nil)
		require.Equal(t, int32(22), nat["arm64-pg-voidret.o "+c.String()])
	}
	res := objectCheck(t, "arm64-pg-voidret.o", "arm64-mcount", c, explore.Options{Workers: 1})
	require.Equal(t, explore.Safe, res.Verdict, res.Reason)
	require.Len(t, res.Returns, 12) // 2 tasks x 2 iterations x (v_bump, v_bump, v_twice)
	var unknown, known int
	for _, r := range res.Returns {
		require.NotNil(t, r.Reference)
		switch r.Function {
		case "v_twice":
			assert.Equal(t, uint64(22), *r.Reference)
			assert.False(t, r.Unknown)
			known++
		case "v_bump":
			if r.Unknown {
				unknown++
			} else {
				assert.Equal(t, uint64(22), *r.Reference, "the first call returns *p in w0")
				known++
			}
		}
	}
	assert.Equal(t, 4, unknown, "the early return of each call of v_twice")
	assert.Equal(t, 8, known)
}
