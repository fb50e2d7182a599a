package riscv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ClearDead clears t0–t6 at an entry, and a2–a7 as well after a return;
// ra, sp, gp, tp, s0–s11, a0, a1 (and a2–a7 at entry) and pc stay.
func TestClearDead(t *testing.T) {
	for _, c := range []struct {
		atReturn bool
		cleared  []int
	}{
		{false, []int{5, 6, 7, 28, 29, 30, 31}},
		{true, []int{5, 6, 7, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31}},
	} {
		var r Regs
		for i := range r.X {
			r.X[i] = uint64(i) + 100
		}
		r.PC = 0x80000000
		r.ClearDead(c.atReturn)
		var want [32]uint64
		for i := range want {
			want[i] = uint64(i) + 100
		}
		for _, i := range c.cleared {
			want[i] = 0
		}
		assert.Equal(t, want, r.X, "atReturn %v", c.atReturn)
		assert.Equal(t, uint64(0x80000000), r.PC)
	}
}
