package riscv

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemAddr: the data access MemAddr reports (words from
// riscv64-linux-gnu-as), with a1=0x1000, s0=0x2000.
func TestMemAddr(t *testing.T) {
	var r Regs
	r.X[A1], r.X[S0] = 0x1000, 0x2000
	for _, c := range []struct {
		word  uint32
		asm   string
		addr  uint64
		size  int
		store bool
		ok    bool
	}{
		{0x00a5a423, "sw a0, 8(a1)", 0x1008, 4, true, true},
		{0xff043503, "ld a0, -16(s0)", 0x1ff0, 8, false, true},
		{0x00c58533, "add a0, a1, a2", 0, 0, false, false},
	} {
		inst, err := Decode(0x8000, binary.LittleEndian.AppendUint32(nil, c.word))
		require.NoError(t, err, c.asm)
		addr, size, store, ok := MemAddr(&inst, &r)
		require.Equal(t, c.ok, ok, c.asm)
		require.Equal(t, [3]any{c.addr, c.size, c.store}, [3]any{addr, size, store}, c.asm)
	}
}
