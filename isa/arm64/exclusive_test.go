package arm64

import (
	"encoding/binary"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exclusive accesses, CLREX and the barriers, as GNU as assembles them,
// with the text objdump prints.
var exclusiveWords = []struct {
	w    uint32
	text string
}{
	{0x885f7c20, "ldxr w0, [x1]"}, {0xc85f7c20, "ldxr x0, [x1]"}, {0x085f7c20, "ldxrb w0, [x1]"},
	{0x485f7c20, "ldxrh w0, [x1]"}, {0x885ffc20, "ldaxr w0, [x1]"}, {0xc85fffe2, "ldaxr x2, [sp]"},
	{0x88027c23, "stxr w2, w3, [x1]"}, {0xc8027c23, "stxr w2, x3, [x1]"}, {0x08027c23, "stxrb w2, w3, [x1]"},
	{0x48027c23, "stxrh w2, w3, [x1]"}, {0x8802fc23, "stlxr w2, w3, [x1]"}, {0xc804fc23, "stlxr w4, x3, [x1]"},
	{0xd5033f5f, "clrex"}, {0xd5033bbf, "dmb ish"}, {0xd5033f9f, "dsb sy"}, {0xd5033fdf, "isb"},
}

// TestExclusiveObjdump: the words above are what binutils says they are,
// and Disasm agrees.
func TestExclusiveObjdump(t *testing.T) {
	objdump := needTool(t, "aarch64-linux-gnu-objdump", "binutils-aarch64-linux-gnu")
	var code []byte
	for _, c := range exclusiveWords {
		code = binary.LittleEndian.AppendUint32(code, c.w)
	}
	lines := isatest.Objdump(t, objdump, []string{"-maarch64"}, code, "//")
	for i, c := range exclusiveWords {
		inst, err := Decode(uint64(4*i), c.w)
		require.NoError(t, err)
		assert.True(t, inst.Supported(), "%s", c.text)
		assert.Equal(t, isatest.ObjdumpLine{Hex: Word(c.w).String(), Text: c.text}, lines[uint64(4*i)], "%08x", c.w)
		assert.Equal(t, c.text, Disasm(&inst, uint64(4*i), nil))
	}
}

func exclusiveStep(t *testing.T, r *Regs, bus isa.Bus, w uint32) error {
	t.Helper()
	r.PC = 0x1000
	inst, err := Decode(r.PC, w)
	require.NoError(t, err)
	flow, err := Exec(&inst, r, bus)
	if err == nil {
		assert.Equal(t, isa.FlowNext, flow)
		assert.Equal(t, uint64(0x1004), r.PC)
	}
	return err
}

// TestExclusiveExec: a load-exclusive marks its bytes; a store-exclusive
// stores only while exactly they are marked (Ws 0) and fails otherwise
// (Ws 1, no store), and opens the monitor either way.
func TestExclusiveExec(t *testing.T) {
	const a = 0x2000
	for _, c := range []struct {
		name   string
		ld, st uint32
		size   int
	}{
		{"byte", 0x085f7c20, 0x08027c23, 1}, {"halfword", 0x485f7c20, 0x48027c23, 2},
		{"word", 0x885f7c20, 0x88027c23, 4}, {"doubleword", 0xc85f7c20, 0xc8027c23, 8},
		{"acquire/release word", 0x885ffc20, 0x8802fc23, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			bus := newMemBus(0x1000, 0x3000)
			bus.Record = false
			binary.LittleEndian.PutUint64(bus.Mem[a-0x1000:], 0x8877665544332211)
			mask := ^uint64(0) >> (64 - 8*c.size)
			var r Regs
			r.X[1], r.X[3] = a, 0x0102030405060708
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint64(1), r.X[2], "no load-exclusive: the store fails")
			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			assert.Equal(t, 0x8877665544332211&mask, r.X[0], "zero-extended")
			assert.Equal(t, isa.Monitor{Addr: a, Size: uint8(c.size), Armed: true}, bus.Mon)
			r.X[2] = 7
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint64(0), r.X[2], "the pair succeeds")
			assert.Equal(t, 0x0102030405060708&mask|0x8877665544332211&^mask, binary.LittleEndian.Uint64(bus.Mem[a-0x1000:]))
			assert.False(t, bus.Mon.Armed)
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint64(1), r.X[2], "a second store fails")
			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			bus.Mon = isa.Monitor{} // another CPU's store to the bytes (package sched)
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint64(1), r.X[2], "cleared: the store fails")
			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			require.NoError(t, exclusiveStep(t, &r, bus, 0xd5033f5f)) // clrex
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint64(1), r.X[2], "clrex: the store fails")
			if c.size > 1 {
				r.X[1] = a + 1
				isatest.Fault(t, exclusiveStep(t, &r, bus, c.ld), 0x1000, isa.ErrMemory)
			}
		})
	}
	bus := newMemBus(0x1000, 0x3000)
	var r Regs
	r.X[1] = a
	require.NoError(t, exclusiveStep(t, &r, bus, 0x885f7c20)) // ldxr w0
	require.NoError(t, exclusiveStep(t, &r, bus, 0xc8027c23)) // stxr w2, x3: another size
	assert.Equal(t, uint64(1), r.X[2])
	inst, _ := Decode(0, 0xc85fffe2) // ldaxr x2, [sp]
	assert.True(t, inst.IsExclusive())
	assert.False(t, StackOrLiteral(&inst), "an exclusive access is never thread-local")
	isatest.Fault(t, exclusiveStep(t, &r, struct{ isa.Bus }{bus}, 0x885f7c20), 0x1000, isa.ErrUnsupported)
	// stxr w1, w3, [x1] and stxr w3, w3, [x1] are CONSTRAINED UNPREDICTABLE.
	for _, w := range []uint32{0x88017c23, 0x88037c23} {
		inst, err := Decode(0, w)
		require.NoError(t, err)
		assert.False(t, inst.Supported(), "%08x", w)
	}
}
