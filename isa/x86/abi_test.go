package x86

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// ClearDead clears r10, r11 and the status flags at an entry, and rcx,
// rsi, rdi, r8 and r9 as well after a return; rax, rdx, the callee-saved
// registers, rsp and rip stay.
func TestClearDead(t *testing.T) {
	for _, c := range []struct {
		atReturn bool
		cleared  []Reg
	}{{false, []Reg{R10, R11}}, {true, []Reg{RCX, RSI, RDI, R8, R9, R10, R11}}} {
		var r Regs
		for i := range r.R {
			r.R[i] = uint64(i) + 100
		}
		r.RIP = 0x401000
		r.CF, r.PF, r.AF, r.ZF, r.SF, r.OF = true, true, true, true, true, true
		r.ClearDead(c.atReturn)
		var want [16]uint64
		for i := range want {
			want[i] = uint64(i) + 100
		}
		for _, i := range c.cleared {
			want[i] = 0
		}
		assert.Equal(t, want, r.R, "atReturn %v", c.atReturn)
		assert.Equal(t, uint64(0x401000), r.RIP)
		assert.Equal(t, []bool{false, false, false, false, false, false}, []bool{r.CF, r.PF, r.AF, r.ZF, r.SF, r.OF})
	}
}
