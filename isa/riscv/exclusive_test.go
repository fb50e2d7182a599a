package riscv

import (
	"encoding/binary"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExclusiveObjdump: LR and SC (with their ordering bits) are what
// binutils says they are; IsExclusive and StackOrLiteral classify them.
func TestExclusiveObjdump(t *testing.T) {
	objdump := oracle.Tool(t, "binutils-riscv64-linux-gnu", "the RISC-V encodings against GNU objdump (isa/riscv)", "riscv64-linux-gnu-objdump")
	words := []struct {
		w    uint32
		text string
	}{
		{0x1005a52f, "lr.w a0,(a1)"}, {0x1005b52f, "lr.d a0,(a1)"}, {0x18c5a6af, "sc.w a3,a2,(a1)"},
		{0x18c5b6af, "sc.d a3,a2,(a1)"}, {0x1405a52f, "lr.w.aq a0,(a1)"}, {0x1ac5a6af, "sc.w.rl a3,a2,(a1)"},
		{0x1605b52f, "lr.d.aqrl a0,(a1)"}, {0x1ec5b6af, "sc.d.aqrl a3,a2,(a1)"}, {0x1001352f, "lr.d a0,(sp)"},
	}
	var code []byte
	for _, c := range words {
		code = binary.LittleEndian.AppendUint32(code, c.w)
	}
	lines := isatest.Objdump(t, objdump, []string{"-m", "riscv:rv64"}, code, "#")
	for i, c := range words {
		assert.Equal(t, isatest.ObjdumpLine{Hex: isa.Hex(code[4*i:4*i+4], 4), Text: c.text}, lines[uint64(4*i)], "%08x", c.w)
		inst, err := Decode(0, code[4*i:])
		require.NoError(t, err)
		assert.True(t, inst.IsExclusive(), "%s", c.text)
		assert.False(t, StackOrLiteral(&inst), "%s: never thread-local", c.text)
	}
	amo, err := Decode(0, wd(0x00b5302f)) // amoadd.d zero,a1,(a0)
	require.NoError(t, err)
	assert.False(t, amo.IsExclusive())
}

// TestLRSCSizes: lr.w sign-extends; an sc.w after lr.w stores the low word;
// a misaligned LR faults; the reservation is the bus's monitor.
func TestLRSCSizes(t *testing.T) {
	bus := newTestBus()
	binary.LittleEndian.PutUint64(bus.Mem[0x8008-bus.Lo:], 0x11223344_8899aabb)
	r := Regs{PC: 0x1000}
	r.X[A1], r.X[A2] = 0x8008, 0x7766554433221100
	step := func(w uint32) error {
		inst, err := Decode(r.PC, wd(w))
		require.NoError(t, err)
		_, err = Exec(&inst, &r, bus)
		return err
	}
	require.NoError(t, step(0x1005a52f)) // lr.w a0,(a1)
	assert.Equal(t, uint64(0xffffffff8899aabb), r.X[A0])
	assert.Equal(t, isa.Monitor{Addr: 0x8008, Size: 4, Armed: true}, bus.Mon)
	require.NoError(t, step(0x18c5a6af)) // sc.w a3,a2,(a1)
	assert.Equal(t, uint64(0), r.X[A3])
	assert.Equal(t, uint64(0x11223344_33221100), binary.LittleEndian.Uint64(bus.Mem[0x8008-bus.Lo:]))
	r.X[A1] = 0x800a
	isatest.Fault(t, step(0x1005a52f), r.PC, isa.ErrMemory)
}
