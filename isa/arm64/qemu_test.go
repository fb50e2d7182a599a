package arm64

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
)

// The differential test runs random instances of every form the executor
// implements (implementedForms; BRK aside, which traps) both through Exec
// and on qemu-aarch64, via testdata/qemu/harness.c, and requires identical
// x0–x30, sp, NZCV, memory and control flow (next or taken). Each
// instruction runs at the address the harness gives it, so pc-relative
// results (ADR, BL's link, literal loads) compare too; branches are given
// the offset +8, the harness's "taken" exit.

const (
	qCode      = 0x04000000 // CODE_ADDR in harness.c
	qMem       = 0x04040000 // MEM_ADDR
	qMemSize   = 256        // MEM_SIZE
	qBlock     = 32         // BLOCK words × 4
	qBatch     = 4096       // BATCH
	qPerForm   = 1000
	qSeed      = 0x6d636f756e74
	qInSize    = 8 + 33*8 + qMemSize
	qOutSize   = 34*8 + qMemSize
	qGroups    = 8
	qMaxReport = 4
)

type qcase struct {
	w    uint32
	pc   uint64
	x    [31]uint64
	sp   uint64
	nzcv uint64
	mem  [qMemSize]byte
}

type qresult struct {
	x     [31]uint64
	sp    uint64
	nzcv  uint64
	taken uint64
	mem   [qMemSize]byte
}

// qform generates instances of one form: the word is value | random bits
// outside mask, kept when it decodes to the form; setup then places
// operands (it may rewrite the word) and reports false to draw again.
type qform struct {
	name        string
	value, mask uint32
	setup       func(g *qgen, inst *Inst) bool
}

type qgen struct {
	rng *rand.Rand
	c   qcase
}

var qedges = []uint64{0, 1, 2, 0x1f, 0x20, 0x3f, 0x40, 0xff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000, 0x7fffffffffffffff, 0x8000000000000000, 0xfffffffffffffffe, 0xffffffffffffffff}

func (g *qgen) val() uint64 {
	switch g.rng.IntN(5) {
	case 0:
		return qedges[g.rng.IntN(len(qedges))]
	case 1:
		return g.rng.Uint64() & 0xff
	case 2:
		return uint64(g.rng.Uint32())
	}
	return g.rng.Uint64()
}

func (g *qgen) start(pc uint64) {
	g.c = qcase{pc: pc}
	for i := range g.c.x {
		g.c.x[i] = g.val()
	}
	g.c.sp = g.val()
	if g.rng.IntN(2) == 0 {
		g.c.sp = qMem + 16*uint64(g.rng.IntN(qMemSize/16))
	}
	g.c.nzcv = uint64(g.rng.IntN(16)) << 28
	for i := range g.c.mem {
		g.c.mem[i] = byte(g.rng.Uint32())
	}
}

func (g *qgen) setReg(n uint8, v uint64) {
	switch {
	case n < 31:
		g.c.x[n] = v
	case n == rSP:
		g.c.sp = v
	}
}

func (g *qgen) getReg(n uint8) uint64 {
	switch {
	case n < 31:
		return g.c.x[n]
	case n == rSP:
		return g.c.sp
	}
	return 0
}

// setField rewrites bits [lo, lo+n) of the word and the decoded inst.
func (g *qgen) setField(inst *Inst, lo, n uint, v uint32) bool {
	w := g.c.w&^((1<<n-1)<<lo) | (v&(1<<n-1))<<lo
	g.c.w = w
	d, err := Decode(g.c.pc, w)
	if err != nil || !d.Supported() {
		return false
	}
	*inst = d
	return true
}

// branchTo8 makes a pc-relative branch land on the harness's taken exit.
func branchTo8(lo, n uint) func(g *qgen, inst *Inst) bool {
	return func(g *qgen, inst *Inst) bool {
		if !g.setField(inst, lo, n, 2) {
			return false
		}
		switch inst.x {
		case xCbz, xCbnz:
			if g.rng.IntN(2) == 0 {
				g.setReg(inst.rd, g.getReg(inst.rd)&^0xffffffff)
			}
		case xTbz, xTbnz:
			if g.rng.IntN(2) == 0 {
				g.setReg(inst.rd, g.getReg(inst.rd)^1<<inst.amount)
			}
		}
		return true
	}
}

func regTo8(g *qgen, inst *Inst) bool {
	if inst.rn == rZR {
		return false
	}
	g.setReg(inst.rn, g.c.pc+8)
	return true
}

// memSetup points the base (and index) of a load or store into the
// harness memory; sp bases stay 16-byte aligned. Normal accesses may be
// unaligned; LDAR/STLR are aligned.
func memSetup(g *qgen, inst *Inst) bool {
	if inst.x == xNop { // PRFM: any address
		return true
	}
	need := uint64(inst.size)
	if inst.x == xLoadPair || inst.x == xStorePair {
		need *= 2
	}
	span := uint64(qMemSize) - need
	if inst.mode == modeLit {
		t := qMem + 4*uint64(g.rng.IntN(int(span/4)))
		return g.setField(inst, 5, 19, uint32((t-g.c.pc)/4))
	}
	var t uint64 // address − base
	switch inst.mode {
	case modeOffset, modePre:
		t = inst.imm
	case modeReg:
		if inst.rm == inst.rn && inst.rm != rZR {
			return false
		}
		k := int64(g.rng.IntN(65)) - 32
		if inst.shift == 2 { // UXTW: a non-negative 32-bit index
			k = int64(g.rng.IntN(33))
		}
		t = uint64(k << inst.amount)
		idx := uint64(k) // the upper half is ignored by UXTW/SXTW
		if inst.shift == 2 || inst.shift == 6 {
			idx = idx&0xffffffff | g.rng.Uint64()<<32
		}
		if inst.rm == rZR {
			t = 0
		} else {
			g.setReg(inst.rm, idx)
		}
	}
	var addr uint64
	if inst.rn == rSP {
		// addr ≡ t (mod 16) so that the base is aligned.
		k := (t - qMem) & 15
		if k > span {
			return false
		}
		addr = qMem + k + 16*uint64(g.rng.IntN(int((span-k)/16+1)))
	} else {
		addr = qMem + uint64(g.rng.IntN(int(span+1)))
		if inst.x == xLoadAcq || inst.x == xStoreRel || inst.x == xLoadEx || inst.x == xStoreEx {
			addr &^= uint64(inst.size - 1)
		}
	}
	g.setReg(inst.rn, addr-t)
	return true
}

func qemuForms() []qform {
	var f []qform
	add := func(name string, value, mask uint32, setup func(*qgen, *Inst) bool) {
		f = append(f, qform{name, value, mask, setup})
	}
	sfs := []uint32{0, 1}
	wx := func(sf uint32) string { return [2]string{".w", ".x"}[sf] }
	// Data processing, immediate.
	add("adr", 0x10000000, 0x9f000000, nil)
	add("adrp", 0x90000000, 0x9f000000, nil)
	for _, sf := range sfs {
		for op, n := range []string{"add-imm", "add-imms", "sub-imm", "sub-imms"} {
			add(n+wx(sf), 0x11000000|sf<<31|uint32(op)<<29, 0xff800000, nil)
		}
		for opc, n := range []string{"and-imm", "orr-imm", "eor-imm", "and-imms"} {
			add(n+wx(sf), 0x12000000|sf<<31|uint32(opc)<<29, 0xff800000, nil)
		}
		for opc, n := range map[uint32]string{0: "movn", 2: "movz", 3: "movk"} {
			add(n+wx(sf), 0x12800000|sf<<31|opc<<29, 0xff800000, nil)
		}
		for opc, n := range []string{"sbfm", "bfm", "ubfm"} {
			add(n+wx(sf), 0x13000000|sf<<31|uint32(opc)<<29|sf<<22, 0xffc00000, nil)
		}
		add("extr"+wx(sf), 0x13800000|sf<<31|sf<<22, 0xffe00000, nil)
		// Data processing, register.
		for opc, n := range []string{"and-reg", "orr-reg", "eor-reg", "and-regs"} {
			add(n+wx(sf), 0x0a000000|sf<<31|uint32(opc)<<29, 0xff200000, nil)
			inv := strings.Replace(n, "-reg", "-reg-not", 1)
			add(inv+wx(sf), 0x0a200000|sf<<31|uint32(opc)<<29, 0xff200000, nil)
		}
		for op, n := range []string{"add-reg", "add-regs", "sub-reg", "sub-regs"} {
			add(n+wx(sf), 0x0b000000|sf<<31|uint32(op)<<29, 0xff200000, nil)
		}
		for op, n := range []string{"add-ext", "add-exts", "sub-ext", "sub-exts"} {
			add(n+wx(sf), 0x0b200000|sf<<31|uint32(op)<<29, 0xffe00000, nil)
		}
		for op, n := range []string{"adc", "adcs", "sbc", "sbcs"} {
			add(n+wx(sf), 0x1a000000|sf<<31|uint32(op)<<29, 0xffe0fc00, nil)
		}
		for op, n := range []string{"ccmn-reg", "ccmn-imm", "ccmp-reg", "ccmp-imm"} {
			add(n+wx(sf), 0x3a400000|sf<<31|uint32(op>>1)<<30|uint32(op&1)<<11, 0xffe00c10, nil)
		}
		for op, n := range []string{"csel", "csinc", "csinv", "csneg"} {
			add(n+wx(sf), 0x1a800000|sf<<31|uint32(op>>1)<<30|uint32(op&1)<<10, 0xffe00c00, nil)
		}
		for opc, n := range map[uint32]string{2: "udiv", 3: "sdiv", 8: "lslv", 9: "lsrv", 10: "asrv", 11: "rorv"} {
			add(n+wx(sf), 0x1ac00000|sf<<31|opc<<10, 0xffe0fc00, nil)
		}
		for opc, n := range map[uint32]string{0: "rbit", 1: "rev16", 2 + sf: "rev", 4: "clz", 5: "cls"} {
			add(n+wx(sf), 0x5ac00000|sf<<31|opc<<10, 0xfffffc00, nil)
		}
		add("madd"+wx(sf), 0x1b000000|sf<<31, 0xffe08000, nil)
		add("msub"+wx(sf), 0x1b008000|sf<<31, 0xffe08000, nil)
		add("cbz"+wx(sf), 0x34000000|sf<<31, 0xff000000, branchTo8(5, 19))
		add("cbnz"+wx(sf), 0x35000000|sf<<31, 0xff000000, branchTo8(5, 19))
	}
	add("rev32.x", 0xdac00800, 0xfffffc00, nil)
	for op, n := range map[uint32]string{2: "smaddl", 3: "smsubl", 4: "smulh", 10: "umaddl", 11: "umsubl", 12: "umulh"} {
		add(n, 0x9b000000|op>>1<<21|op&1<<15, 0xffe08000, nil)
	}
	// Branches and system.
	add("b", 0x14000000, 0xfc000000, branchTo8(0, 26))
	add("bl", 0x94000000, 0xfc000000, branchTo8(0, 26))
	add("b.cond", 0x54000000, 0xff000010, branchTo8(5, 19))
	add("tbz", 0x36000000, 0x7f000000, branchTo8(5, 14))
	add("tbnz", 0x37000000, 0x7f000000, branchTo8(5, 14))
	add("br", 0xd61f0000, 0xfffffc1f, regTo8)
	add("blr", 0xd63f0000, 0xfffffc1f, regTo8)
	add("ret", 0xd65f0000, 0xfffffc1f, regTo8)
	add("hint", 0xd503201f, 0xffffffff, nil)      // nop
	add("hint", 0xd503245f, 0xffffffff, nil)      // bti c
	add("hint", 0xd503233f, 0xffffff3f, nil)      // paciasp, pacibsp, autiasp, autibsp
	add("isb", 0xd5033fdf, 0xffffffff, nil)       // isb
	add("dmb", 0xd50330bf, 0xfffff0ff, nil)       // dmb <any>
	add("dsb", 0xd5033b9f, 0xfffff3ff, nil)       // dsb ish…sy
	add("prfm", 0xf9800000, 0xffc00000, memSetup) // prfm (unsigned offset)
	// Loads and stores.
	type ls struct {
		name      string
		size, opc uint32
	}
	singles := []ls{{"str.b", 0, 0}, {"str.h", 1, 0}, {"str.w", 2, 0}, {"str.x", 3, 0},
		{"ldr.b", 0, 1}, {"ldr.h", 1, 1}, {"ldr.w", 2, 1}, {"ldr.x", 3, 1},
		{"ldr.b.s64", 0, 2}, {"ldr.h.s64", 1, 2}, {"ldr.w.s64", 2, 2}, {"ldr.b.s32", 0, 3}, {"ldr.h.s32", 1, 3}}
	for _, s := range singles {
		base := s.size<<30 | s.opc<<22
		add(s.name+".uimm", 0x39000000|base, 0xffc00000, memSetup)
		add(s.name+".simm", 0x38000000|base, 0xffe00c00, memSetup)
		add(s.name+".post", 0x38000400|base, 0xffe00c00, memSetup)
		add(s.name+".pre", 0x38000c00|base, 0xffe00c00, memSetup)
		add(s.name+".reg", 0x38200800|base, 0xffe00c00, memSetup)
	}
	add("ldr.w.lit", 0x18000000, 0xff000000, memSetup)
	add("ldr.x.lit", 0x58000000, 0xff000000, memSetup)
	add("ldr.w.s64.lit", 0x98000000, 0xff000000, memSetup)
	for size, s := range []string{"b", "h", "w", "x"} {
		add("ldar."+s, 0x08dffc00|uint32(size)<<30, 0xfffffc00, memSetup)
		add("stlr."+s, 0x089ffc00|uint32(size)<<30, 0xfffffc00, memSetup)
		// The exclusives and their acquire/release forms: the harness
		// opens the monitor first, so a store-exclusive fails (Ws = 1,
		// memory untouched) on qemu as on Exec's fresh bus; the pairs
		// that succeed are sched's tests and the compiled fixtures'.
		add("ldxr."+s, 0x085f7c00|uint32(size)<<30, 0xffff7c00, memSetup)
		add("stxr."+s, 0x08007c00|uint32(size)<<30, 0xffe07c00, memSetup)
	}
	add("clrex", 0xd503305f, 0xfffff0ff, nil)
	pairs := []ls{{"stp.w", 0, 0}, {"ldp.w", 0, 1}, {"ldp.w.s64", 1, 1}, {"stp.x", 2, 0}, {"ldp.x", 2, 1}}
	for _, p := range pairs {
		base := 0x28000000 | p.size<<30 | p.opc<<22
		add(p.name+".post", base|1<<23, 0xffc00000, memSetup)
		add(p.name, base|2<<23, 0xffc00000, memSetup)
		add(p.name+".pre", base|3<<23, 0xffc00000, memSetup)
	}
	return f
}

// gen draws one case of form f at pc.
func (f *qform) gen(g *qgen, pc uint64) (qcase, bool) {
	for range 1000 {
		g.start(pc)
		g.c.w = f.value | g.rng.Uint32()&^f.mask
		inst, err := Decode(pc, g.c.w)
		if err != nil || !inst.Supported() || formOf(&inst) != f.name {
			continue
		}
		if f.setup != nil && !f.setup(g, &inst) {
			continue
		}
		if formOf(&inst) != f.name {
			continue
		}
		return g.c, true
	}
	return qcase{}, false
}

// execGo runs c through Exec the way the harness runs it on qemu.
func execGo(c *qcase) (qresult, error) {
	r := Regs{X: c.x, SP: c.sp, PC: c.pc}
	r.N, r.Z, r.C, r.V = c.nzcv&(1<<31) != 0, c.nzcv&(1<<30) != 0, c.nzcv&(1<<29) != 0, c.nzcv&(1<<28) != 0
	bus := newMemBus(qMem, qMemSize)
	bus.Record = false
	copy(bus.Mem, c.mem[:])
	inst, err := Decode(c.pc, c.w)
	if err != nil {
		return qresult{}, err
	}
	flow, err := Exec(&inst, &r, bus)
	if err != nil {
		return qresult{}, err
	}
	out := qresult{x: r.X, sp: r.SP}
	switch {
	case (flow == isa.FlowNext || flow == isa.FlowSkipped) && r.PC == c.pc+4:
	case (flow == isa.FlowBranch || flow == isa.FlowCall || flow == isa.FlowReturn) && r.PC == c.pc+8:
		out.taken = 1
	default:
		return qresult{}, fmt.Errorf("flow %v, pc %#x", flow, r.PC)
	}
	for i, f := range []bool{r.N, r.Z, r.C, r.V} {
		if f {
			out.nzcv |= 1 << (31 - i)
		}
	}
	copy(out.mem[:], bus.Mem)
	return out, nil
}

func (c *qcase) marshal(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, c.w)
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, v := range c.x {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.LittleEndian.AppendUint64(b, c.sp)
	b = binary.LittleEndian.AppendUint64(b, c.nzcv)
	return append(b, c.mem[:]...)
}

func unmarshalResult(b []byte) qresult {
	var q qresult
	for i := range q.x {
		q.x[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	q.sp = binary.LittleEndian.Uint64(b[248:])
	q.nzcv = binary.LittleEndian.Uint64(b[256:])
	q.taken = binary.LittleEndian.Uint64(b[264:])
	copy(q.mem[:], b[272:])
	return q
}

func describeCase(c *qcase, got, want qresult, gerr error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%08x %s  nzcv in %04b\n", c.w, DisasmWord(c.pc, c.w), c.nzcv>>28)
	if gerr != nil {
		fmt.Fprintf(&b, "  Exec: %v\n", gerr)
	}
	for i := range 31 {
		mark := ""
		if gerr == nil && got.x[i] != want.x[i] {
			mark = fmt.Sprintf("  <-- Exec %#x", got.x[i])
		}
		if mark != "" || c.x[i] != want.x[i] {
			fmt.Fprintf(&b, "  x%-2d in %#016x qemu %#016x%s\n", i, c.x[i], want.x[i], mark)
		}
	}
	fmt.Fprintf(&b, "  sp in %#x qemu %#x Exec %#x\n", c.sp, want.sp, got.sp)
	fmt.Fprintf(&b, "  nzcv qemu %04b Exec %04b; taken qemu %d Exec %d\n", want.nzcv>>28, got.nzcv>>28, want.taken, got.taken)
	for i := range want.mem {
		if gerr == nil && got.mem[i] != want.mem[i] {
			fmt.Fprintf(&b, "  mem[%#x] in %#02x qemu %#02x Exec %#02x\n", qMem+i, c.mem[i], want.mem[i], got.mem[i])
		}
	}
	return b.String()
}

// TestQEMUFormsCoverImplemented: the differential test has a generator for
// every implemented form (BRK aside) and every generator draws its form.
func TestQEMUFormsCoverImplemented(t *testing.T) {
	have := map[string]bool{}
	for _, f := range qemuForms() {
		g := &qgen{rng: rand.New(rand.NewPCG(1, 2))}
		if _, ok := f.gen(g, qCode+8); !ok {
			t.Errorf("form %q (%08x/%08x): no case drawn", f.name, f.value, f.mask)
		}
		have[f.name] = true
	}
	impl := map[string]bool{}
	for _, name := range implementedForms() {
		impl[name] = true
		if !have[name] && name != "brk" {
			t.Errorf("implemented form %q has no qemu generator", name)
		}
	}
	for name := range have {
		if !impl[name] {
			t.Errorf("qemu form %q is not in implementedForms", name)
		}
	}
}

func TestQEMUDifferential(t *testing.T) {
	h := isatest.Build(t, isatest.Tools{
		What: "the A64 cross-checks against qemu-aarch64 (isa/arm64)",
		QEMU: "qemu-aarch64", GCC: "aarch64-linux-gnu-gcc", GCCPkg: "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
		// cortex-a57 has neither pointer authentication nor BTI, like the
		// CPU Exec models.
		QEMUArgs: []string{"-cpu", "cortex-a57"},
		InSize:   qInSize, OutSize: qOutSize,
	})
	forms := qemuForms()
	per := qPerForm
	if testing.Short() {
		per = 50
	}
	// Group k holds the cases of forms k, k+qGroups, …; the cases of form
	// i come from their own seeded generator, so a failing form
	// reproduces alone. Case j of a group sits at qCode + 32(j%qBatch) + 8
	// (the harness runs qBatch cases at a time).
	groups := make([][]isatest.Case[qcase], qGroups)
	names := make([]string, len(forms))
	for i := range forms {
		names[i] = forms[i].name
		g := &qgen{rng: rand.New(rand.NewPCG(qSeed, uint64(i)))}
		k := i % qGroups
		for range per {
			pc := qCode + uint64(len(groups[k])%qBatch)*qBlock + 8
			c, ok := forms[i].gen(g, pc)
			if !ok {
				t.Fatalf("form %q: no case drawn", forms[i].name)
			}
			groups[k] = append(groups[k], isatest.Case[qcase]{C: c, Form: i})
		}
	}
	d := isatest.Diff[qcase, qresult]{
		Forms: names, Marshal: (*qcase).marshal, Unmarshal: unmarshalResult, Describe: describeCase, MaxReport: qMaxReport,
		Exec: func(c *isatest.Case[qcase], _ qresult) (qresult, error) { return execGo(&c.C) },
	}
	n, total := d.Run(t, h, groups)
	t.Logf("%d forms × %d cases = %d cases against qemu-aarch64; %d mismatches", len(forms), per, n, total)
}
