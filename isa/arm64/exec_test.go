package arm64

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tpc = 0x1000

func run1(t *testing.T, w uint32, r *Regs, bus *memBus) (isa.Flow, error) {
	t.Helper()
	inst, err := Decode(r.PC, w)
	require.NoError(t, err)
	return Exec(&inst, r, bus)
}

// TestFlows: calls link x30 and report FlowCall; RET with any register is
// a return (ftrace_caller's "ret x9"); BR, even BR X30, is a branch.
func TestFlows(t *testing.T) {
	cases := []struct {
		name   string
		w      Word
		setup  func(r *Regs)
		flow   isa.Flow
		pc, lr uint64
	}{
		{"bl", must(BL(tpc, 0x2000)), nil, isa.FlowCall, 0x2000, tpc + 4},
		{"blr x2", Blr(X2), func(r *Regs) { r.X[2] = 0x3000 }, isa.FlowCall, 0x3000, tpc + 4},
		{"blr x30", Blr(LR), func(r *Regs) { r.X[LR] = 0x3000 }, isa.FlowCall, 0x3000, tpc + 4},
		{"ret", Ret(LR), func(r *Regs) { r.X[LR] = 0x4000 }, isa.FlowReturn, 0x4000, 0x4000},
		{"ret x9", Ret(X9), func(r *Regs) { r.X[9] = 0x5000; r.X[LR] = 7 }, isa.FlowReturn, 0x5000, 7},
		{"br x30", Br(LR), func(r *Regs) { r.X[LR] = 0x6000 }, isa.FlowBranch, 0x6000, 0x6000},
		{"br x9", Br(X9), func(r *Regs) { r.X[9] = 0x7000; r.X[LR] = 7 }, isa.FlowBranch, 0x7000, 7},
		{"b", must(B(tpc, 0x800)), func(r *Regs) { r.X[LR] = 7 }, isa.FlowBranch, 0x800, 7},
		{"b.eq taken", must(BCond(EQ, tpc, 0x1100)), func(r *Regs) { r.Z = true; r.X[LR] = 7 }, isa.FlowBranch, 0x1100, 7},
		{"b.eq not taken", must(BCond(EQ, tpc, 0x1100)), func(r *Regs) { r.X[LR] = 7 }, isa.FlowSkipped, tpc + 4, 7},
		{"cbz not taken", must(Cbz(X0, tpc, 0x1100)), func(r *Regs) { r.X[0] = 1; r.X[LR] = 7 }, isa.FlowSkipped, tpc + 4, 7},
		{"nop", Nop(), func(r *Regs) { r.X[LR] = 7 }, isa.FlowNext, tpc + 4, 7},
		{"paciasp", Hint(25), func(r *Regs) { r.X[LR] = 7 }, isa.FlowNext, tpc + 4, 7},
		{"mov x9, x30", MovReg(X9, LR), func(r *Regs) { r.X[LR] = 7 }, isa.FlowNext, tpc + 4, 7},
	}
	for _, c := range cases {
		r := Regs{PC: tpc}
		if c.setup != nil {
			c.setup(&r)
		}
		flow, err := run1(t, uint32(c.w), &r, newMemBus(0, 0))
		require.NoError(t, err, c.name)
		assert.Equal(t, c.flow, flow, c.name)
		assert.Equal(t, c.pc, r.PC, c.name)
		assert.Equal(t, c.lr, r.X[LR], c.name)
	}
}

func TestISB(t *testing.T) {
	for w, isb := range map[Word]bool{Isb(): true, Dmb(OptISH): false, Dsb(OptSY): false, Nop(): false} {
		inst, err := Decode(tpc, uint32(w))
		require.NoError(t, err)
		assert.Equal(t, isb, inst.IsISB(), w.String())
		assert.Equal(t, w != Nop(), inst.IsBarrier(), w.String())
	}
}

func TestFaults(t *testing.T) {
	// BRK: ErrBreakpoint, registers and pc untouched.
	r := Regs{PC: tpc, X: [31]uint64{1, 2, 3}}
	before := r
	_, err := run1(t, uint32(Brk(0x800)), &r, newMemBus(0, 0))
	require.ErrorIs(t, err, isa.ErrBreakpoint)
	assert.Equal(t, before, r)
	var f *isa.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "pc 0x1000: d4210000 (brk #0x800): breakpoint", err.Error())

	// SVC decodes but is unsupported, named with its disassembly.
	r = Regs{PC: tpc}
	_, err = run1(t, uint32(Svc(0)), &r, newMemBus(0, 0))
	require.ErrorIs(t, err, isa.ErrUnsupported)
	assert.Equal(t, "pc 0x1000: d4000001 (svc #0x0): exception-generating instruction: unsupported instruction", err.Error())

	// An undecodable word: the Fault comes from Decode, and Exec repeats it.
	inst, err := Decode(tpc, 0)
	require.ErrorIs(t, err, isa.ErrUndecodable)
	require.ErrorAs(t, err, &f)
	assert.Equal(t, 4, f.Unit)
	assert.Equal(t, "pc 0x1000: 00000000 (?): undecodable instruction", err.Error())
	_, err = Exec(&inst, &Regs{PC: tpc}, newMemBus(0, 0))
	require.ErrorIs(t, err, isa.ErrUndecodable)

	// A SIMD instruction decodes and is unsupported.
	r = Regs{PC: tpc}
	_, err = run1(t, 0x4e208400, &r, newMemBus(0, 0)) // add v0.16b, v0.16b, v0.16b
	require.ErrorIs(t, err, isa.ErrUnsupported)

	// CONSTRAINED UNPREDICTABLE writeback: unsupported, not guessed.
	_, err = run1(t, uint32(LdrPost(X0, X0, 8)), &Regs{PC: tpc}, newMemBus(0, 0))
	require.ErrorIs(t, err, isa.ErrUnsupported)
	_, err = run1(t, uint32(LdpOff(X1, X1, SP, 0)), &Regs{PC: tpc}, newMemBus(0, 0))
	require.ErrorIs(t, err, isa.ErrUnsupported)
}

func TestMemoryRules(t *testing.T) {
	bus := newMemBus(0x8000, 0x100)
	// SP as a base must be 16-byte aligned (SCTLR_EL1.SA).
	r := Regs{PC: tpc, SP: 0x8008}
	_, err := run1(t, uint32(LdrImm(X0, SP, 0)), &r, bus)
	require.ErrorIs(t, err, isa.ErrMemory)
	assert.Contains(t, err.Error(), "sp alignment")
	// Another base may be unaligned, and so may the access.
	r = Regs{PC: tpc, X: [31]uint64{1: 0x8003}}
	bus.Mem[3], bus.Mem[4] = 0x11, 0x22
	_, err = run1(t, uint32(LdrImm(X0, X1, 0)), &r, bus)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x2211), r.X[0])
	// An unaligned offset from an aligned sp is fine.
	r = Regs{PC: tpc, SP: 0x8000}
	_, err = run1(t, uint32(Ldur(X0, SP, 3)), &r, bus)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x2211), r.X[0])
	// LDAR must be aligned.
	r = Regs{PC: tpc, X: [31]uint64{1: 0x8004}}
	_, err = run1(t, 0xc8dffc20, &r, bus) // ldar x0, [x1]
	require.ErrorIs(t, err, isa.ErrMemory)
	r.X[1] = 0x8008
	_, err = run1(t, 0xc8dffc20, &r, bus)
	require.NoError(t, err)
	// Outside the bus: the Bus's error, wrapped in a Fault.
	r = Regs{PC: tpc, X: [31]uint64{1: 0x100}}
	_, err = run1(t, uint32(LdrImm(X0, X1, 0)), &r, bus)
	require.ErrorIs(t, err, isa.ErrMemory)
	var f *isa.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "ldr x0, [x1]", f.Disasm)
}

// TestBusRegs: every access names its register (0–30, 31 for XZR); a pair
// is two accesses, the first register at the lower address.
func TestBusRegs(t *testing.T) {
	bus := newMemBus(0x8000, 0x100)
	r := Regs{PC: tpc, SP: 0x8040}
	r.X[FP], r.X[LR] = 0x1111, 0x2222
	_, err := run1(t, uint32(StpPre(FP, LR, SP, -16)), &r, bus)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x8030), r.SP)
	r.PC = tpc
	_, err = run1(t, 0xf9000bff, &r, bus) // str xzr, [sp, #16]
	require.NoError(t, err)
	r.PC = tpc
	_, err = run1(t, uint32(LdpPost(X0, X1, SP, 16)), &r, bus)
	require.NoError(t, err)
	assert.Equal(t, []access{
		{Store: true, Addr: 0x8030, Size: 8, Value: 0x1111, Reg: 29}, {Store: true, Addr: 0x8038, Size: 8, Value: 0x2222, Reg: 30},
		{Store: true, Addr: 0x8040, Size: 8, Value: 0, Reg: 31},
		{Addr: 0x8030, Size: 8, Value: 0x1111, Reg: 0}, {Addr: 0x8038, Size: 8, Value: 0x2222, Reg: 1},
	}, bus.Log)
	assert.Equal(t, uint64(0x8040), r.SP)
	assert.Equal(t, [2]uint64{0x1111, 0x2222}, [2]uint64{r.X[0], r.X[1]})
}

// TestPatchedEntry runs the arm64 ftrace call-site protocol on a tiny
// trampoline: "mov x9, x30; bl tramp" at entry, a trampoline that saves
// x9/x30 and returns with "ret x9" into the function, x30 restored to the
// caller's return address.
func TestPatchedEntry(t *testing.T) {
	const f, tramp = 0x1000, 0x2000
	text := map[uint64]Word{
		f:         MovReg(X9, LR),
		f + 4:     must(BL(f+4, tramp)),
		f + 8:     Ret(LR),
		tramp:     StpPre(X9, LR, SP, -16), // save parent lr and the return into f
		tramp + 4: LdpPost(LR, X9, SP, 16), // x30 = parent, x9 = f+8
		tramp + 8: Ret(X9),
	}
	c := NewCache(f, 0x2000)
	r := Regs{PC: f, SP: 0x8100}
	r.X[LR] = 0xcafe0
	bus := newMemBus(0x8000, 0x100)
	var flows []isa.Flow
	for r.PC != 0xcafe0 && len(flows) < 10 {
		inst, err := c.Lookup(r.PC, uint32(text[r.PC]))
		require.NoError(t, err)
		flow, err := Exec(inst, &r, bus)
		require.NoError(t, err)
		flows = append(flows, flow)
	}
	assert.Equal(t, []isa.Flow{isa.FlowNext, isa.FlowCall, isa.FlowNext, isa.FlowNext, isa.FlowReturn, isa.FlowReturn}, flows)
	assert.Equal(t, uint64(0x8100), r.SP)
	assert.Equal(t, uint64(f+8), r.X[9])
}

func TestCache(t *testing.T) {
	c := NewCache(0x1000, 8)
	a, err := c.Lookup(0x1000, uint32(Nop()))
	require.NoError(t, err)
	b, err := c.Lookup(0x1000, uint32(Nop()))
	require.NoError(t, err)
	assert.Same(t, a, b)
	// The word changed: the hit is refused and the new word decoded.
	b, err = c.Lookup(0x1000, uint32(Isb()))
	require.NoError(t, err)
	assert.True(t, b.IsISB())
	assert.Equal(t, uint32(Isb()), b.Word)
	for _, pc := range []uint64{0xffc, 0x1002, 0x1008} {
		inst, err := c.Lookup(pc, uint32(Nop()))
		require.ErrorIs(t, err, isa.ErrMemory, "%#x", pc)
		_, err = Exec(inst, &Regs{PC: pc}, newMemBus(0, 0))
		require.ErrorIs(t, err, isa.ErrMemory)
	}
}

func TestDisasmSymbols(t *testing.T) {
	inst, err := Decode(0x1004, uint32(must(BL(0x1004, 0x2000))))
	require.NoError(t, err)
	name := func(a uint64) string {
		if a == 0x2000 {
			return "ftrace_caller"
		}
		return ""
	}
	assert.Equal(t, "bl 0x2000 <ftrace_caller>", Disasm(&inst, 0x1004, name))
	assert.Equal(t, "bl 0x2000", Disasm(&inst, 0x1004, nil))
	assert.Equal(t, "(undecodable)", DisasmWord(0, 0))
	assert.Equal(t, "ldp x29, x30, [sp], #16", DisasmWord(0, uint32(LdpPost(FP, LR, SP, 16))))
	assert.Equal(t, "ldr x0, [x1, x2, lsl #3]", DisasmWord(0, 0xf8627820))
	tgt, ok := BranchTarget(&inst, 0x1004)
	assert.True(t, ok)
	assert.Equal(t, uint64(0x2000), tgt)
	assert.True(t, IsCall(&inst))
}

func TestStackOrLiteral(t *testing.T) {
	for w, want := range map[Word]bool{
		StpPre(FP, LR, SP, -16): true, LdrImm(X0, SP, 8): true, must(LdrLit(X0, 0, 8)): true,
		LdrImm(X0, X1, 8): false, StpOff(X0, X1, X2, 0): false, Ldur(X11, X30, -16): false,
		MovReg(X9, LR): true, must(BL(0, 8)): true, Nop(): true, 0xc8dffc20: false, // ldar x0, [x1]
		0xf8627be0: true, // ldr x0, [sp, x2, lsl #3]
	} {
		inst, err := Decode(0, uint32(w))
		require.NoError(t, err)
		assert.Equal(t, want, StackOrLiteral(&inst), DisasmWord(0, uint32(w)))
	}
	lit, _ := Decode(0, uint32(must(LdrLit(X0, 0, 8))))
	ldr, _ := Decode(0, uint32(LdrImm(X0, SP, 8)))
	assert.True(t, Literal(&lit))
	assert.False(t, Literal(&ldr))
}

// TestDecodeParallel runs Decode from many goroutines; under -race it
// proves the arm64asm coverage write is serialized.
func TestDecodeParallel(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for range 2000 {
				w := rng.Uint32()
				a, errA := Decode(0x1000, w)
				b, errB := Decode(0x1000, w)
				if (errA == nil) != (errB == nil) || a.x != b.x {
					t.Errorf("%08x: decodes differ", w)
				}
			}
		}()
	}
	wg.Wait()
}

// TestRandomWordsForms: random words and random words within the integer
// classes decode to forms implementedForms lists (so the differential test
// covers them), and never to an error that is not a Fault.
func TestRandomWordsForms(t *testing.T) {
	impl := map[string]bool{}
	for _, f := range implementedForms() {
		impl[f] = true
	}
	rng := rand.New(rand.NewPCG(7, 7))
	// Integer classes: top-level op0 100x, 101x, x1x0 (V=0), x101.
	classes := [][2]uint32{{0x10000000, 0x1c000000}, {0x14000000, 0x1c000000}, {0x08000000, 0x0e000000}, {0x0a000000, 0x0e000000},
		{0x08000000, 0x3f000000}, {0xd5030000, 0xffff0000}, {0xd4000000, 0xff000000}}
	seen := map[string]bool{}
	n := 400000
	if testing.Short() {
		n = 50000
	}
	for i := range n {
		w := rng.Uint32()
		if i%2 == 0 {
			c := classes[rng.IntN(len(classes))]
			w = w&^c[1] | c[0]
		}
		inst, err := Decode(0x1000, w)
		if err != nil {
			var f *isa.Fault
			require.True(t, errors.As(err, &f) && errors.Is(err, isa.ErrUndecodable), "%08x: %v", w, err)
			continue
		}
		if !inst.Supported() {
			continue
		}
		form := formOf(&inst)
		seen[form] = true
		require.Truef(t, impl[form], "%08x (%s) decodes to form %q, not in implementedForms", w, DisasmWord(0x1000, w), form)
	}
	t.Logf("%d of %d implemented forms seen in random words", len(seen), len(impl))
}

// TestMrsSPEL0: MRS Xt, SP_EL0 reads the kernel's current task pointer
// (Regs.SPEL0), the base of -mstack-protector-guard=sysreg's canary; to
// xzr it writes nothing. Other system registers stay unsupported.
func TestMrsSPEL0(t *testing.T) {
	for _, c := range []struct {
		w      uint32
		rt     int
		disasm string
	}{{0xd5384102, 2, "mrs x2, s3_0_c4_c1_0"}, {0xd538411f, 31, ""}} {
		inst, err := Decode(tpc, c.w)
		require.NoError(t, err)
		require.True(t, inst.Supported(), "%#x", c.w)
		if c.disasm != "" {
			assert.Equal(t, c.disasm, DisasmWord(tpc, c.w))
		}
		r := Regs{PC: tpc, SP: 0x1000, SPEL0: 0x7f0000}
		_, err = Exec(&inst, &r, nil)
		require.NoError(t, err)
		assert.Equal(t, uint64(tpc+4), r.PC)
		assert.Equal(t, uint64(0x1000), r.SP)
		if c.rt < 31 {
			assert.Equal(t, uint64(0x7f0000), r.X[c.rt])
		} else {
			assert.Equal(t, [31]uint64{}, r.X)
		}
	}
	inst, err := Decode(tpc, 0xd53b4200) // mrs x0, nzcv
	if err == nil {
		assert.False(t, inst.Supported())
	}
}
