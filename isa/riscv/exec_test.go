package riscv

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hw(v uint16) []byte { return Half(v).Bytes() }
func wd(v uint32) []byte { return Word(v).Bytes() }

// execCase runs code at pc 0x1000 from registers regs over a bus at
// [0x8000, 0x9000) and expects flow, pc and the registers in want.
type execCase struct {
	name string
	code []byte
	regs map[uint8]uint64
	flow isa.Flow
	pc   uint64
	want map[uint8]uint64
	log  string // the bus accesses, as fakeBus.logString writes them
}

func execCases() []execCase {
	jal, _ := Jal(RA, 0x1000, 0x1100)
	j, _ := Jal(Zero, 0x1000, 0xff0)
	beq, _ := Beq(A0, A1, 0x1000, 0x1040)
	return []execCase{
		{"call jal ra", jal.Bytes(), nil, isa.FlowCall, 0x1100, map[uint8]uint64{RA: 0x1004}, ""},
		{"j", j.Bytes(), nil, isa.FlowBranch, 0xff0, nil, ""},
		{"call jalr t0 (the ftrace site)", Jalr(T0, T0, -2048).Bytes(), map[uint8]uint64{T0: 0x3000}, isa.FlowCall, 0x2800, map[uint8]uint64{T0: 0x1004}, ""},
		{"call jalr ra, ra (mcount)", Jalr(RA, RA, 16).Bytes(), map[uint8]uint64{RA: 0x2000}, isa.FlowCall, 0x2010, map[uint8]uint64{RA: 0x1004}, ""},
		{"call jalr a0 (no link register)", Jalr(A0, A1, 0).Bytes(), map[uint8]uint64{A1: 0x2001}, isa.FlowCall, 0x2000, map[uint8]uint64{A0: 0x1004}, ""},
		{"ret", Ret().Bytes(), map[uint8]uint64{RA: 0x4444}, isa.FlowReturn, 0x4444, nil, ""},
		{"jr t0 (trampoline return)", Jr(T0).Bytes(), map[uint8]uint64{T0: 0x1234}, isa.FlowReturn, 0x1234, nil, ""},
		{"jr 4(ra) is a return too", Jalr(Zero, RA, 4).Bytes(), map[uint8]uint64{RA: 0x1234}, isa.FlowReturn, 0x1238, nil, ""},
		{"jr a5 (tail call)", Jr(A5).Bytes(), map[uint8]uint64{A5: 0x1230}, isa.FlowBranch, 0x1230, nil, ""},
		{"jr t1 (tail pseudo)", Jr(T1).Bytes(), map[uint8]uint64{T1: 0x1230}, isa.FlowBranch, 0x1230, nil, ""},
		{"c.ret", CRet().Bytes(), map[uint8]uint64{RA: 0x4444}, isa.FlowReturn, 0x4444, nil, ""},
		{"c.jr t0", CJr(T0).Bytes(), map[uint8]uint64{T0: 0x4444}, isa.FlowReturn, 0x4444, nil, ""},
		{"c.jalr a5", hw(0x9782), map[uint8]uint64{A5: 0x4444}, isa.FlowCall, 0x4444, map[uint8]uint64{RA: 0x1002}, ""},
		{"beq taken", beq.Bytes(), map[uint8]uint64{A0: 5, A1: 5}, isa.FlowBranch, 0x1040, nil, ""},
		{"beq untaken", beq.Bytes(), map[uint8]uint64{A0: 5, A1: 6}, isa.FlowSkipped, 0x1004, nil, ""},
		{"c.beqz untaken", hw(0xc119), map[uint8]uint64{A0: 1}, isa.FlowSkipped, 0x1002, nil, ""},
		{"c.beqz taken", hw(0xc119), nil, isa.FlowBranch, 0x1006, nil, ""},
		{"auipc t0", Auipc(T0, 0x12345).Bytes(), nil, isa.FlowNext, 0x1004, map[uint8]uint64{T0: 0x12346000}, ""},
		{"auipc negative", Auipc(T0, 0xfffff).Bytes(), nil, isa.FlowNext, 0x1004, map[uint8]uint64{T0: 0}, ""},
		{"nop", Nop().Bytes(), nil, isa.FlowNext, 0x1004, nil, ""},
		{"c.nop", CNop().Bytes(), nil, isa.FlowNext, 0x1002, nil, ""},
		{"addi to x0 is discarded", Addi(Zero, A0, 1).Bytes(), map[uint8]uint64{A0: 7}, isa.FlowNext, 0x1004, map[uint8]uint64{Zero: 0}, ""},
		{"sd ra,8(sp)", Sd(RA, SP, 8).Bytes(), map[uint8]uint64{SP: 0x8100, RA: 0x1122334455667788}, isa.FlowNext, 0x1004, nil, "S8 0x8108 ra =0x1122334455667788"},
		{"c.sdsp ra,8(sp)", hw(0xe406), map[uint8]uint64{SP: 0x8100, RA: 0x42}, isa.FlowNext, 0x1002, nil, "S8 0x8108 ra =0x42"},
		{"sb stores the low byte", wd(0x00a58023), map[uint8]uint64{A1: 0x8001, A0: 0x1ff}, isa.FlowNext, 0x1004, nil, "S1 0x8001 a0 =0xff"},
		{"ld from x0's slot", Ld(Zero, SP, 0).Bytes(), map[uint8]uint64{SP: 0x8000}, isa.FlowNext, 0x1004, map[uint8]uint64{Zero: 0}, "L8 0x8000 zero =0x0"},
		{"lw sign-extends", Lw(A0, SP, 0).Bytes(), map[uint8]uint64{SP: 0x8ff0}, isa.FlowNext, 0x1004, map[uint8]uint64{A0: 0xfffffffffefefefe}, "L4 0x8ff0 a0 =0xfefefefe"},
		{"fence.i", FenceI().Bytes(), nil, isa.FlowNext, 0x1004, nil, ""},
		{"amoadd.d stores no register", wd(0x00b6b52f), map[uint8]uint64{A3: 0x8010, A1: 3}, isa.FlowNext, 0x1004,
			map[uint8]uint64{A0: 0}, "L8 0x8010 a0 =0x0; S8 0x8010 - =0x3"},
		{"amoswap.w stores rs2", wd(0x08b6a52f), map[uint8]uint64{A3: 0x8ff0, A1: 0xffffffff00000003}, isa.FlowNext, 0x1004,
			map[uint8]uint64{A0: 0xfffffffffefefefe}, "L4 0x8ff0 a0 =0xfefefefe; S4 0x8ff0 a1 =0x3"},
	}
}

func newTestBus() *fakeBus {
	bus := newFakeBus(0x8000, 0x9000)
	for i := 0xff0; i < 0x1000; i++ {
		bus.Mem[i] = 0xfe
	}
	return bus
}

func TestExec(t *testing.T) {
	for _, c := range execCases() {
		t.Run(c.name, func(t *testing.T) {
			r := Regs{PC: 0x1000}
			for k, v := range c.regs {
				r.X[k] = v
			}
			bus := newTestBus()
			inst, err := Decode(r.PC, c.code)
			require.NoError(t, err)
			flow, err := Exec(&inst, &r, bus)
			require.NoError(t, err)
			assert.Equal(t, c.flow, flow)
			assert.Equal(t, c.pc, r.PC, "pc %#x", r.PC)
			for k, v := range c.want {
				assert.Equal(t, v, r.X[k], "%s = %#x", RegName(k), r.X[k])
			}
			assert.Equal(t, c.log, bus.LogString(RegName))
			assert.Zero(t, r.X[0])
		})
	}
}

func TestExecFaults(t *testing.T) {
	for _, c := range []struct {
		name     string
		code     []byte
		regs     map[uint8]uint64
		sentinel error
		text     string // the whole error message
		decodes  bool   // Decode succeeds (the fault comes from Exec)
	}{
		{"c.unimp", hw(0), nil, isa.ErrUndecodable, "pc 0x1000: 0000 (?): c.unimp, the all-zero halfword: undecodable instruction", false},
		{"ones", wd(0xffffffff), nil, isa.ErrUndecodable, "pc 0x1000: ffffffff (?): undecodable instruction", false},
		{"truncated", []byte{0x13, 0x00}, nil, isa.ErrUndecodable, "pc 0x1000: 0013 (?): truncated instruction: undecodable instruction", false},
		{"empty", nil, nil, isa.ErrUndecodable, "pc 0x1000:  (?): truncated instruction: undecodable instruction", false},
		{"csrr", wd(0x10002573), nil, isa.ErrUnsupported, "pc 0x1000: 10002573 (csrr a0,sstatus): unsupported instruction", true},
		{"fld", hw(0x2008), nil, isa.ErrUnsupported, "pc 0x1000: 2008 (fld fa0,0(s0)): unsupported instruction", true},
		{"sh1add", wd(0x20b52533), nil, isa.ErrUnsupported, "pc 0x1000: 20b52533 (sh1add a0,a0,a1): unsupported instruction", true},
		{"ecall", Ecall().Bytes(), nil, isa.ErrUnsupported, "pc 0x1000: 00000073 (ecall): ecall: no execution environment to call: unsupported instruction", true},
		{"misaligned ld", Ld(A0, SP, 4).Bytes(), map[uint8]uint64{SP: 0x8000}, isa.ErrMemory,
			"pc 0x1000: 00413503 (ld a0,4(sp)): misaligned load or store (mcountsim does not emulate misaligned accesses): memory fault", true},
		{"misaligned c.sw", hw(0xc10c), map[uint8]uint64{A0: 0x8002}, isa.ErrMemory,
			"pc 0x1000: c10c (sw a1,0(a0)): misaligned load or store (mcountsim does not emulate misaligned accesses): memory fault", true},
		{"misaligned amoadd.w", wd(0x00b6a52f), map[uint8]uint64{A3: 0x8002}, isa.ErrMemory,
			"pc 0x1000: 00b6a52f (amoadd.w a0,a1,(a3)): misaligned load or store (mcountsim does not emulate misaligned accesses): memory fault", true},
		{"bus fault", Sd(RA, SP, 0).Bytes(), map[uint8]uint64{SP: 0x100}, isa.ErrMemory,
			"pc 0x1000: 00113023 (sd ra,0(sp)): store 8 bytes at 0x100: memory fault", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Regs{PC: 0x1000}
			for k, v := range c.regs {
				r.X[k] = v
			}
			inst, derr := Decode(0x1000, c.code)
			assert.Equal(t, c.decodes, derr == nil, "decode error %v", derr)
			if derr != nil {
				assert.True(t, errors.Is(derr, c.sentinel))
				var f *isa.Fault
				require.ErrorAs(t, derr, &f)
				assert.Equal(t, c.text, derr.Error())
			}
			_, err := Exec(&inst, &r, newTestBus())
			require.Error(t, err)
			var f *isa.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, errors.Is(err, c.sentinel), "%v", err)
			assert.Equal(t, uint64(0x1000), f.PC)
			assert.Equal(t, c.text, err.Error())
		})
	}
}

func TestEbreakLeavesRegs(t *testing.T) {
	for _, code := range [][]byte{Ebreak().Bytes(), CEbreak().Bytes()} {
		r := Regs{PC: 0x1000}
		r.X[A0] = 7
		before := r
		inst, err := Decode(r.PC, code)
		require.NoError(t, err)
		_, err = Exec(&inst, &r, nil)
		require.ErrorIs(t, err, isa.ErrBreakpoint)
		assert.Equal(t, before, r)
		assert.Equal(t, "pc 0x1000: "+isa.Hex(code, len(code))+" (ebreak): breakpoint", err.Error())
	}
}

func TestIsFenceI(t *testing.T) {
	for _, c := range []struct {
		code []byte
		want bool
	}{{FenceI().Bytes(), true}, {Fence().Bytes(), false}, {Nop().Bytes(), false}, {wd(0x0010100f), true}} {
		inst, err := Decode(0, c.code)
		require.NoError(t, err)
		assert.Equal(t, c.want, inst.IsFenceI(), "%x", c.code)
	}
}

// TestLRSC checks the single-hart reservation: an SC succeeds only after
// an LR of the same address and size, once.
func TestLRSC(t *testing.T) {
	lrd, scd, scw := wd(0x1005b52f), wd(0x18c5b6af), wd(0x18c5a6af) // lr.d a0,(a1); sc.d a3,a2,(a1); sc.w a3,a2,(a1)
	run := func(r *Regs, bus *fakeBus, code []byte) {
		t.Helper()
		inst, err := Decode(r.PC, code)
		require.NoError(t, err)
		_, err = Exec(&inst, r, bus)
		require.NoError(t, err)
	}
	bus := newTestBus()
	r := Regs{PC: 0x1000}
	r.X[A1], r.X[A2] = 0x8008, 0x99
	run(&r, bus, scd)
	assert.Equal(t, uint64(1), r.X[A3], "sc without lr fails")
	assert.Empty(t, bus.LogString(RegName), "a failed sc stores nothing")
	run(&r, bus, lrd)
	assert.Equal(t, isa.Monitor{Addr: 0x8008, Size: 8, Armed: true}, bus.Mon)
	run(&r, bus, scd)
	assert.Equal(t, uint64(0), r.X[A3], "sc after lr succeeds")
	assert.Equal(t, "L8 0x8008 a0 =0x0; S8 0x8008 a2 =0x99", bus.LogString(RegName))
	assert.False(t, bus.Mon.Armed)
	run(&r, bus, scd)
	assert.Equal(t, uint64(1), r.X[A3], "a second sc fails")
	run(&r, bus, lrd)
	run(&r, bus, scw)
	assert.Equal(t, uint64(1), r.X[A3], "sc.w after lr.d fails")
	run(&r, bus, lrd)
	r.X[A1] = 0x8010
	run(&r, bus, scd)
	assert.Equal(t, uint64(1), r.X[A3], "sc to another address fails")
	r.X[A1] = 0x8008
	run(&r, bus, lrd)
	bus.Mon = isa.Monitor{} // what another hart's store to the bytes does (package sched)
	run(&r, bus, scd)
	assert.Equal(t, uint64(1), r.X[A3], "sc after the reservation was cleared fails")
	assert.False(t, bus.Mon.Armed)
	inst, err := Decode(0, lrd)
	require.NoError(t, err)
	_, err = Exec(&inst, &r, noMonitor{bus})
	assert.ErrorIs(t, err, isa.ErrUnsupported, "lr on a bus with no monitor")
}

// noMonitor hides a Bus's monitor.
type noMonitor struct{ isa.Bus }

// TestRVCExpansion decodes every halfword: each RVC instruction must come
// out as a base instruction of length 2, and the supported ones must be
// exactly the xops of rvcOps and ebreak.
func TestRVCExpansion(t *testing.T) {
	got := map[xop]int{}
	for v := 0; v < 1<<16; v++ {
		if v&3 == 3 {
			continue
		}
		inst, err := Decode(0x1000, hw(uint16(v)))
		if err != nil {
			continue
		}
		require.Equal(t, uint8(2), inst.Len, "%04x", v)
		require.False(t, strings.HasPrefix(inst.Arch.Op.String(), "C."), "%04x decodes to %v", v, inst.Arch.Op)
		if inst.Supported() {
			got[inst.x]++
		}
	}
	want := map[xop]bool{xEbreak: true}
	for _, x := range rvcOps {
		want[x] = true
	}
	for x := range got {
		assert.True(t, want[x], "RVC reaches %v", x)
	}
	for x := range want {
		assert.NotZero(t, got[x], "no RVC halfword runs %v", x)
	}
}

func TestCache(t *testing.T) {
	c := NewCache(0x1000, 16)
	text := make([]byte, 16)
	copy(text, Sd(RA, SP, 8).Bytes())
	copy(text[4:], CNop().Bytes())
	a, err := c.Lookup(0x1000, text)
	require.NoError(t, err)
	b, err := c.Lookup(0x1000, text)
	require.NoError(t, err)
	assert.Same(t, a, b, "a hit returns the cached entry")
	assert.Equal(t, xSD, a.x)

	// A compressed instruction's entry ignores the bytes after it.
	n1, err := c.Lookup(0x1004, text[4:])
	require.NoError(t, err)
	copy(text[6:], Nop().Bytes())
	n2, err := c.Lookup(0x1004, text[4:])
	require.NoError(t, err)
	assert.Same(t, n1, n2)
	assert.Equal(t, uint8(2), n2.Len)

	// Any changed byte of the instruction is a miss.
	for i := range 4 {
		mod := append([]byte(nil), text...)
		mod[i] ^= 0x10
		inst, _ := c.Lookup(0x1000, mod)
		want, _ := Decode(0x1000, mod)
		assert.Equal(t, want.Enc, inst.Enc, "byte %d", i)
		assert.Equal(t, want.x, inst.x, "byte %d", i)
	}
	// The halfword of the c.nop becomes the low half of a 32-bit jalr.
	copy(text[4:], Jr(T0).Bytes())
	inst, err := c.Lookup(0x1004, text[4:])
	require.NoError(t, err)
	assert.Equal(t, uint8(4), inst.Len)
	assert.Equal(t, xJALR, inst.x)
	// Undecodable now, decodable after a write.
	copy(text[8:], []byte{0, 0})
	_, err = c.Lookup(0x1008, text[8:])
	require.ErrorIs(t, err, isa.ErrUndecodable)
	copy(text[8:], CNop().Bytes())
	_, err = c.Lookup(0x1008, text[8:])
	require.NoError(t, err)

	for _, pc := range []uint64{0x1001, 0xffe, 0x1010} {
		inst, err := c.Lookup(pc, text)
		require.ErrorIs(t, err, isa.ErrMemory, "pc %#x", pc)
		_, err = Exec(inst, &Regs{PC: pc}, nil)
		require.ErrorIs(t, err, isa.ErrMemory, "pc %#x", pc)
	}
}

// TestDecodeConcurrent runs Decode from several goroutines; under -race it
// proves the serialization of riscv64asm.Decode.
func TestDecodeConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				v := uint32(i*2654435761 + g)
				_, _ = Decode(0x1000, wd(v))
				_, _ = Decode(0x1000, hw(uint16(v)))
			}
		}()
	}
	wg.Wait()
}

func TestStackOrLiteral(t *testing.T) {
	for _, c := range []struct {
		code []byte
		want bool
	}{
		{Sd(RA, SP, 8).Bytes(), true},
		{hw(0xe406), true}, // c.sdsp ra,8(sp)
		{Ld(RA, SP, 8).Bytes(), true},
		{Ld(A0, A1, 0).Bytes(), false},
		{Sd(SP, A0, 0).Bytes(), false}, // stores sp, through a0
		{wd(0x00b6b52f), false},        // amoadd.d a0,a1,(a3)
		{wd(0x0021352f), true},         // amoadd.d a0,sp... (rs1 = sp)
		{Addi(SP, SP, -16).Bytes(), true},
		{Jr(T0).Bytes(), true},
		{FenceI().Bytes(), false},
		{Fence().Bytes(), true},
		{wd(0x10002573), true}, // csrr: faults when run
	} {
		inst, err := Decode(0x1000, c.code)
		require.NoError(t, err)
		assert.Equal(t, c.want, StackOrLiteral(&inst), "%s", Disasm(&inst, 0x1000, nil))
	}
}

func TestDisasm(t *testing.T) {
	jal, _ := Jal(RA, 0x1000, 0x2000)
	bne, _ := Bne(A0, Zero, 0x1000, 0xff8)
	sym := func(a uint64) string {
		if a == 0x2000 {
			return "ftrace_Caller"
		}
		return ""
	}
	for _, c := range []struct {
		code []byte
		want string
	}{
		{jal.Bytes(), "jal 0x2000 <ftrace_Caller>"},
		{bne.Bytes(), "bnez a0,0xff8"},
		{hw(0xa001), "j 0x1000"},
		{Sd(S11, T6, -8).Bytes(), "sd s11,-8(t6)"},
		{wd(0x0c55b52f), "amoswap.d.aq a0,t0,(a1)"},
		{hw(0x75fd), "lui a1,0xfffff"},
		{Auipc(T0, 0x10).Bytes(), "auipc t0,0x10"},
	} {
		inst, err := Decode(0x1000, c.code)
		require.NoError(t, err)
		assert.Equal(t, c.want, Disasm(&inst, 0x1000, sym))
	}
	assert.Equal(t, "(undecodable)", DisasmBytes(0, hw(0)))
	assert.Equal(t, "ret", DisasmBytes(0, CRet().Bytes()))
	assert.Equal(t, "x33", RegName(33))
	assert.Equal(t, "t0", fmt.Sprint(RegName(T0)))
}
