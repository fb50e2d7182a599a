package arm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemAddr: the data access MemAddr reports for loads, stores and the
// block transfers (words from arm-linux-gnueabi-as), with r1=0x1000,
// r2=3, r3=0x100040.
func TestMemAddr(t *testing.T) {
	var r Regs
	r.R[R1], r.R[R2], r.R[R3] = 0x1000, 3, 0x100040
	for _, c := range []struct {
		word  uint32
		asm   string
		addr  uint32
		size  int
		store bool
		ok    bool
	}{
		{0xe5032020, "str r2, [r3, #-32]", 0x100020, 4, true, true},
		{0xe5133020, "ldr r3, [r3, #-32]", 0x100020, 4, false, true},
		{0xe7d10002, "ldrb r0, [r1, r2]", 0x1003, 1, false, true},
		{0xe8930007, "ldm r3, {r0, r1, r2}", 0x100040, 12, false, true},
		{0xe9030003, "stmdb r3, {r0, r1}", 0x100038, 8, true, true},
		{0xe593f000, "ldr pc, [r3]", 0, 0, false, false},
		{0xe0810002, "add r0, r1, r2", 0, 0, false, false},
	} {
		inst, err := Decode(0x8000, c.word)
		require.NoError(t, err, c.asm)
		addr, size, store, ok := MemAddr(&inst, &r)
		require.Equal(t, c.ok, ok, c.asm)
		require.Equal(t, [3]any{c.addr, c.size, c.store}, [3]any{addr, size, store}, c.asm)
	}
}
