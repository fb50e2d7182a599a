package arm64

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ClearDead clears x9–x17 and NZCV at an entry, x2–x17 and NZCV after a
// return, and nothing else.
func TestClearDead(t *testing.T) {
	for _, atReturn := range []bool{false, true} {
		var r Regs
		for i := range r.X {
			r.X[i] = uint64(i) + 100
		}
		r.SP, r.PC = 0x8000, 0x4000
		r.N, r.Z, r.C, r.V = true, true, true, true
		r.ClearDead(atReturn)
		lo := map[bool]int{false: 9, true: 2}[atReturn]
		for i, v := range r.X {
			want := uint64(i) + 100
			if i >= lo && i <= 17 {
				want = 0
			}
			assert.Equal(t, want, v, "x%d (atReturn %v)", i, atReturn)
		}
		assert.Equal(t, []uint64{0x8000, 0x4000}, []uint64{r.SP, r.PC})
		assert.Equal(t, []bool{false, false, false, false}, []bool{r.N, r.Z, r.C, r.V})
	}
}
