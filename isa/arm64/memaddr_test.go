package arm64

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemAddr: the data access MemAddr reports (words from
// aarch64-linux-gnu-as), with x1=0x1000, x2=3.
func TestMemAddr(t *testing.T) {
	var r Regs
	r.X[1], r.X[2] = 0x1000, 3
	for _, c := range []struct {
		word  uint32
		asm   string
		addr  uint64
		size  int
		store bool
		ok    bool
	}{
		{0xf9000420, "str x0, [x1, #8]", 0x1008, 8, true, true},
		{0xa9410c22, "ldp x2, x3, [x1, #16]", 0x1010, 16, false, true},
		{0xb8627820, "ldr w0, [x1, x2, lsl #2]", 0x100c, 4, false, true},
		{0x8b020020, "add x0, x1, x2", 0, 0, false, false},
	} {
		inst, err := Decode(0x8000, c.word)
		require.NoError(t, err, c.asm)
		addr, size, store, ok := MemAddr(&inst, &r)
		require.Equal(t, c.ok, ok, c.asm)
		require.Equal(t, [3]any{c.addr, c.size, c.store}, [3]any{addr, size, store}, c.asm)
	}
}
