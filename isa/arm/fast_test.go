package arm

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Exec's fast paths give what the general path gives: every data-processing
// single-register load or store and one-register block transfer word of a
// random sample that takes
// one, from random registers and flags, ends in the same registers, flags,
// flow, error and memory accesses as with the fast path turned off.
func TestFastPathIsTheGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const lo, hi = 0x10000, 0x11000
	forms := map[uint8]int{}
	for i := 0; i < 400000; i++ {
		w := rng.Uint32()&^(3<<26) | uint32(rng.Intn(15))<<28 // data processing, any condition but 1111
		switch rng.Intn(4) {
		case 0, 1:
			w = w&^(7<<25) | 2<<25 // load/store word or byte, immediate offset
		case 2:
			// block transfer of one register (no user-mode S bit)
			w = w&^(7<<25|1<<22|0xffff) | 4<<25 | 1<<rng.Intn(16)
			if rng.Intn(2) == 0 {
				w = w&^(0xf<<16) | uint32(SP)<<16 // push and pop
			}
		}
		inst, err := Decode(execPC, w)
		if err != nil || inst.fast == fastNone {
			continue
		}
		forms[inst.fast]++
		var r Regs
		for j := range r.R {
			r.R[j] = rng.Uint32()
			switch rng.Intn(4) {
			case 0:
				r.R[j] = uint32(rng.Intn(40)) // small shift amounts and the like
			case 1:
				r.R[j] = lo + 0x800 + uint32(rng.Intn(0x100))&^3 // a pointer into the bus
			}
		}
		r.R[PC] = execPC
		r.N, r.Z, r.C, r.V = rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0, rng.Intn(2) == 0
		bus := newFakeBus(lo, hi)
		rng.Read(bus.Mem)
		general := inst
		general.fast = fastNone
		r1, r2 := r, r
		b1, b2 := *bus, *bus
		b1.Mem, b2.Mem = append([]byte(nil), bus.Mem...), append([]byte(nil), bus.Mem...)
		f1, err1 := Exec(&inst, &r1, &b1)
		f2, err2 := Exec(&general, &r2, &b2)
		require.Equal(t, r2, r1, "%08x %s", w, Disasm(&inst, execPC, nil))
		require.Equal(t, f2, f1, "%08x", w)
		require.Equal(t, err2, err1, "%08x", w)
		require.Equal(t, b2.Log, b1.Log, "%08x", w)
		require.Equal(t, b2.Mem, b1.Mem, "%08x", w)
	}
	require.Greater(t, forms[fastDP], 10000)
	require.Greater(t, forms[fastLS], 10000)
	require.Greater(t, forms[fastM1], 10000)
}
