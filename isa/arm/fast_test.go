package arm

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Exec's fast path gives what the general path gives: every data-processing
// word of a random sample that takes it, from random registers and flags,
// ends in the same registers, flags, flow and error as with the fast path
// turned off.
func TestFastPathIsTheGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	fast := 0
	for i := 0; i < 200000 && fast < 20000; i++ {
		w := rng.Uint32()&^(3<<26) | uint32(rng.Intn(15))<<28 // data processing, any condition but 1111
		inst, err := Decode(execPC, w)
		if err != nil || !inst.fast {
			continue
		}
		fast++
		var r Regs
		for j := range r.R {
			r.R[j] = rng.Uint32()
			if rng.Intn(4) == 0 {
				r.R[j] = uint32(rng.Intn(40)) // small shift amounts and the like
			}
		}
		r.R[PC] = execPC
		r.N, r.Z, r.C, r.V = rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0
		general := inst
		general.fast = false
		r1, r2 := r, r
		f1, err1 := Exec(&inst, &r1, nil)
		f2, err2 := Exec(&general, &r2, nil)
		require.Equal(t, r2, r1, "%08x %s", w, Disasm(&inst, execPC, nil))
		require.Equal(t, f2, f1, "%08x", w)
		require.Equal(t, err2, err1, "%08x", w)
	}
	require.Greater(t, fast, 10000)
}
