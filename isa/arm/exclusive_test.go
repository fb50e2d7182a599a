package arm

import (
	"encoding/binary"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exclusive accesses, clrex and the barriers: words as GNU as
// assembles them for -march=armv7-a, with the text objdump prints.
var exclusiveWords = []struct {
	w    uint32
	text string
}{
	{0xe1910f9f, "ldrex r0, [r1]"},
	{0xe1812f93, "strex r2, r3, [r1]"},
	{0xe1d10f9f, "ldrexb r0, [r1]"},
	{0xe1c12f93, "strexb r2, r3, [r1]"},
	{0xe1f10f9f, "ldrexh r0, [r1]"},
	{0xe1e12f93, "strexh r2, r3, [r1]"},
	{0xe1b14f9f, "ldrexd r4, [r1]"},
	{0xe1a12f94, "strexd r2, r4, [r1]"},
	{0xf57ff01f, "clrex"},
	{0xf57ff05b, "dmb ish"},
	{0xf57ff04f, "dsb sy"},
	{0xf57ff06f, "isb sy"},
	{0x01910f9f, "ldrexeq r0, [r1]"},
}

// TestExclusiveObjdump: the words above are what binutils says they are.
func TestExclusiveObjdump(t *testing.T) {
	objdump := oracle.Tool(t, "binutils-arm-linux-gnueabi", "the A32 encodings against GNU objdump (isa/arm)", "arm-linux-gnueabi-objdump")
	var code []byte
	for _, c := range exclusiveWords {
		code = binary.LittleEndian.AppendUint32(code, c.w)
	}
	lines := isatest.Objdump(t, objdump, []string{"-marm"}, code, "@")
	for i, c := range exclusiveWords {
		inst, err := Decode(execPC, c.w)
		require.NoError(t, err)
		assert.NoError(t, inst.err, "%s is executable", c.text)
		assert.Equal(t, isatest.ObjdumpLine{Hex: Word(c.w).String(), Text: c.text}, lines[uint64(4*i)], "%08x", c.w)
	}
}

// exclusiveStep runs word w on r and bus.
func exclusiveStep(t *testing.T, r *Regs, bus isa.Bus, w uint32) error {
	t.Helper()
	r.R[PC] = execPC
	inst, err := Decode(execPC, w)
	require.NoError(t, err)
	flow, err := Exec(&inst, r, bus)
	if err == nil {
		assert.Contains(t, []isa.Flow{isa.FlowNext, isa.FlowSkipped}, flow)
		assert.Equal(t, uint32(execPC+4), r.R[PC])
	}
	return err
}

// TestExclusiveExec: a load-exclusive marks its bytes, a store-exclusive
// stores only while exactly they are marked (status 0) and fails
// otherwise (status 1, no store), and either way opens the monitor.
func TestExclusiveExec(t *testing.T) {
	const a = 0x2000
	for _, c := range []struct {
		name      string
		ld, st    uint32
		size      int
		want      uint64 // memory at a after the successful store
		loaded    [2]uint32
		stored    [2]uint32 // r3 (r4, r5 for the doubleword)
		loadRegs  [2]uint8
		storeRegs [2]uint8
	}{
		{"word", 0xe1910f9f, 0xe1812f93, 4, 0xcafef00d, [2]uint32{0x44332211}, [2]uint32{0xcafef00d}, [2]uint8{R0}, [2]uint8{R3}},
		{"byte", 0xe1d10f9f, 0xe1c12f93, 1, 0x4433220d, [2]uint32{0x11}, [2]uint32{0xcafef00d}, [2]uint8{R0}, [2]uint8{R3}},
		{"halfword", 0xe1f10f9f, 0xe1e12f93, 2, 0x4433f00d, [2]uint32{0x2211}, [2]uint32{0xcafef00d}, [2]uint8{R0}, [2]uint8{R3}},
		{"doubleword", 0xe1b14f9f, 0xe1a12f94, 8, 0x0102030405060708, [2]uint32{0x44332211, 0x88776655}, [2]uint32{0x05060708, 0x01020304}, [2]uint8{R4, R5}, [2]uint8{R4, R5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bus := newFakeBus(0x1000, 0x4000)
			bus.Record = false
			binary.LittleEndian.PutUint64(bus.Mem[a-0x1000:], 0x8877665544332211)
			var r Regs
			r.R[R1] = a
			set := func() {
				r.R[R2] = 7
				if c.size == 8 {
					r.R[R4], r.R[R5] = c.stored[0], c.stored[1]
				} else {
					r.R[R3] = c.stored[0]
				}
			}
			set()
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint32(1), r.R[R2], "no load-exclusive: the store fails")
			assert.Equal(t, uint64(0x8877665544332211), binary.LittleEndian.Uint64(bus.Mem[a-0x1000:]), "and stores nothing")

			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			assert.Equal(t, isa.Monitor{Addr: a, Size: uint8(c.size), Armed: true}, bus.Mon)
			assert.Equal(t, c.loaded[0], r.R[c.loadRegs[0]])
			if c.size == 8 {
				assert.Equal(t, c.loaded[1], r.R[c.loadRegs[1]])
			}
			set()
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint32(0), r.R[R2], "the pair succeeds")
			mask := uint64(1)<<(8*c.size) - 1
			if c.size == 8 {
				mask = ^uint64(0)
			}
			assert.Equal(t, c.want&mask|0x8877665544332211&^mask, binary.LittleEndian.Uint64(bus.Mem[a-0x1000:]))
			assert.False(t, bus.Mon.Armed, "a store-exclusive opens the monitor")

			set()
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint32(1), r.R[R2], "a second store fails")

			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			bus.Mon = isa.Monitor{} // what another CPU's store to the bytes does (package sched)
			set()
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint32(1), r.R[R2], "the monitor was cleared: the store fails")

			require.NoError(t, exclusiveStep(t, &r, bus, c.ld))
			require.NoError(t, exclusiveStep(t, &r, bus, 0xf57ff01f)) // clrex
			assert.False(t, bus.Mon.Armed)
			set()
			require.NoError(t, exclusiveStep(t, &r, bus, c.st))
			assert.Equal(t, uint32(1), r.R[R2], "clrex: the store fails")

			r.R[R1] = a + 1
			if c.size > 1 {
				err := exclusiveStep(t, &r, bus, c.ld)
				isatest.Fault(t, err, execPC, isa.ErrMemory)
			}
		})
	}
	// Another size at the marked address fails; so does another address.
	bus := newFakeBus(0x1000, 0x4000)
	var r Regs
	r.R[R1] = a
	require.NoError(t, exclusiveStep(t, &r, bus, 0xe1910f9f)) // ldrex r0, [r1]
	require.NoError(t, exclusiveStep(t, &r, bus, 0xe1c12f93)) // strexb r2, r3, [r1]
	assert.Equal(t, uint32(1), r.R[R2])
	require.NoError(t, exclusiveStep(t, &r, bus, 0xe1910f9f))
	r.R[R1] = a + 4
	require.NoError(t, exclusiveStep(t, &r, bus, 0xe1812f93)) // strex r2, r3, [r1]
	assert.Equal(t, uint32(1), r.R[R2])

	// A failed condition runs nothing, monitor included.
	r.R[R1], r.Z = a, false
	require.NoError(t, exclusiveStep(t, &r, bus, 0xe1910f9f))
	require.NoError(t, exclusiveStep(t, &r, bus, 0x01812f93)) // strexeq
	assert.True(t, bus.Mon.Armed)

	// The barriers change nothing; isb is the one that synchronizes.
	before := r
	for _, w := range []uint32{0xf57ff05b, 0xf57ff04f, 0xf57ff06f} {
		require.NoError(t, exclusiveStep(t, &r, bus, w))
		inst, _ := Decode(execPC, w)
		assert.Equal(t, w == 0xf57ff06f, inst.IsISB(), "%08x", w)
		assert.False(t, inst.IsExclusive())
		assert.True(t, StackOrLiteral(&inst))
	}
	assert.Equal(t, before, r)
	inst, _ := Decode(execPC, 0xe19d0f9f) // ldrex r0, [sp]
	assert.True(t, inst.IsExclusive())
	assert.False(t, StackOrLiteral(&inst), "an exclusive access is never thread-local")

	// Without a monitor on the bus, exclusive accesses are unsupported.
	err := exclusiveStep(t, &r, struct{ isa.Bus }{bus}, 0xe1910f9f)
	isatest.Fault(t, err, execPC, isa.ErrUnsupported)

	// UNPREDICTABLE register choices are refused at decode.
	for _, w := range []uint32{0xe1811f93, 0xe1812f92, 0xe1b13f9f, 0xe1a12f93, 0xe19f0f9f} {
		inst, err := Decode(execPC, w)
		require.NoError(t, err)
		assert.ErrorIs(t, inst.err, isa.ErrUnsupported, "%08x %s", w, DisasmWord(execPC, w))
	}
}
