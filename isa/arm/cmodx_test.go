package arm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInCMODXSet(t *testing.T) {
	for _, c := range []struct {
		w    uint32
		asm  string
		want bool
	}{
		{0xea000000, "b .+8", true},
		{0x1a000004, "bne", true},
		{0xebfffffe, "bl", true},
		{0xe320f000, "nop", true},
		{0xe1200070, "bkpt #0", true},
		{0xef000000, "svc #0", true},
		{0xe1400070, "hvc #0", true},
		{0xe1600070, "smc #0", true},
		{0xe1a00000, "mov r0, r0 (not the NOP hint)", false},
		{0xe52de004, "push {lr}", false},
		{0xe8bd4000, "pop {lr}", false},
		{0xe28dd004, "add sp, sp, #4", false},
		{0xe320f003, "wfi (another hint)", false},
		{0xfa000000, "blx imm (unconditional space)", false},
	} {
		assert.Equal(t, c.want, InCMODXSet(c.w), "%08x %s", c.w, c.asm)
	}
}
