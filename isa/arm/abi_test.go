package arm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ClearDead clears r12 and the flags at an entry, and r2 and r3 as well
// after a return; r0, r1, r4–r11, sp, lr and pc stay.
func TestClearDead(t *testing.T) {
	for _, c := range []struct {
		atReturn bool
		cleared  []int
	}{{false, []int{12}}, {true, []int{2, 3, 12}}} {
		var r Regs
		for i := range r.R {
			r.R[i] = uint32(i) + 100
		}
		r.N, r.Z, r.C, r.V = true, true, true, true
		r.ClearDead(c.atReturn)
		var want [16]uint32
		for i := range want {
			want[i] = uint32(i) + 100
		}
		for _, i := range c.cleared {
			want[i] = 0
		}
		assert.Equal(t, want, r.R, "atReturn %v", c.atReturn)
		assert.Equal(t, []bool{false, false, false, false}, []bool{r.N, r.Z, r.C, r.V})
	}
}
