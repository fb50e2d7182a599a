package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/kernel"
)

// arm64Shape: A64 instructions are aligned words; an 8-byte load into x30
// restores a return address; a hook is one nop word. Taking and returning
// from an exception and isb synchronize (model.md §1a), and the CMODX rule
// speaks of words (ARMv8 ARM B2.2.5).
var arm64Shape = isaShape{align: 4, maxLen: 4, linkSize: 8, linkRegs: [2]uint8{arm64.LR, arm64.LR}, hookLen: 4,
	misaligned: " (or misaligned)", cmodxUnit: 4, excSync: true, stopperInSync: true}

// arm64Core is the ARMv8 A64 core.
type arm64Core struct {
	// The plain decodings are arm64.Resolved, without arm64asm's view.
	coreBase[*arm64.Cache, arm64.Resolved, arm64.Regs]

	img *kernel.Image // for naming literal values in describe
	cur *arm64.Inst   // the instruction decode returned
}

func newARM64Core(img *kernel.Image) *arm64Core {
	return &arm64Core{coreBase: newCoreBase(arm64.NewCache(img.Base, len(img.Text)), img, arm64Shape.align, arm64.Run, arm64Regs), img: img}
}

func (k *arm64Core) reset(t int8, entry, sp uint64) {
	k.room(t)
	k.regs[t] = arm64.Regs{PC: entry, SP: sp, SPEL0: k.st.current}
}

func (k *arm64Core) pc(t int8) uint64                { return k.regs[t].PC }
func (k *arm64Core) setPC(t int8, pc uint64)         { k.regs[t].PC = pc }
func (k *arm64Core) arg(t int8, i int) uint64        { return k.regs[t].X[i] }
func (k *arm64Core) ret(t int8) uint64               { return k.regs[t].X[0] }
func (k *arm64Core) clearDead(t int8, atReturn bool) { k.regs[t].ClearDead(atReturn) }

// reg returns x0–x30, then 31 sp and 32 pc.
func (k *arm64Core) reg(t int8, r int) uint64 {
	switch {
	case r >= 0 && r < 31:
		return k.regs[t].X[r]
	case r == 31:
		return k.regs[t].SP
	}
	return k.regs[t].PC
}

func (k *arm64Core) hashTask(h hasher, t int8, rb rebase) (hasher, rebase) {
	r := &k.regs[t]
	for _, v := range r.X {
		h.u64(rb.v(v))
	}
	h.u64(rb.v(r.SP))
	h.u64(rb.v(r.PC))
	h.u64(b2u(r.N) | b2u(r.Z)<<1 | b2u(r.C)<<2 | b2u(r.V)<<3)
	return h, rb
}

func (k *arm64Core) copyInto(dst core) core { return copyCore[arm64Core, arm64.Regs](k, dst) }

func (k *arm64Core) decode(pc uint64, b []byte) (int, error) {
	inst, err := k.st.dec.Lookup(pc, le32(b))
	k.cur = inst
	return 4, err
}

func (k *arm64Core) syncs() bool { return k.cur != nil && k.cur.IsISB() }

// cmodxOK: ARMv8 ARM B2.2.5 lists B, BL, BRK, HVC, ISB, NOP, SMC and SVC.
func (k *arm64Core) cmodxOK(old, new []byte) bool {
	return arm64.InCMODXSet(le32(old)) && arm64.InCMODXSet(le32(new))
}

func (k *arm64Core) exec(m *Machine, t int8) (effect, error) {
	r := &k.regs[t]
	pc, sp := r.PC, r.SP
	flow, err := arm64.Exec(k.cur, r, m)
	return effect{pc: pc, flow: flow, target: r.PC, link: r.X[arm64.LR], spBefore: sp, spAfter: r.SP}, err
}

// arm64Regs: a call links x30.
func arm64Regs(r *arm64.Regs, _ isa.Stop) (pc, next, sp uint64) { return r.PC, r.X[arm64.LR], r.SP }

func (k *arm64Core) disasm(m *Machine, pc uint64) string {
	return arm64.Disasm(k.cur, pc, m.img.Name)
}

// localInst: loads and stores through any base but sp, and literals, may
// reach shared data.
func (k *arm64Core) exclusive() bool     { return k.cur != nil && k.cur.IsExclusive() }
func (k *arm64Core) localInst(bool) bool { return k.cur == nil || arm64.StackOrLiteral(k.cur) }

func (k *arm64Core) markPlain(off uint64) { k.st.tab.mark(off, &k.cur.Resolved) }

func (k *arm64Core) trap(m *Machine, c, t int8, pc uint64) {
	m.fault(c, t, pc, "brk with no handler")
}

// foreignLoad: on arm64 an 8-byte load into x30 is a return address
// whatever instruction loads it (ldp x29, x30 of an epilogue, ldr x30 of
// ftrace_caller).
func (k *arm64Core) foreignLoad(isa.Flow) bool { return true }

// isLink: a slot written from x30 holds a return address, and so does one
// written from x9, the register the patchable entry's "mov x9, x30" hands
// the instrumented function's LR in (ftrace_caller saves it as
// ftrace_regs.lr and its caller's frame record, and reloads x30 from it).
func (k *arm64Core) isLink(src uint8) bool { return src == arm64.LR || src == 9 }
func (k *arm64Core) memAddr(m *Machine, t int8, pc uint64) (uint64, int, bool, bool) {
	off, ok := m.textOff(pc)
	if !ok || off+4 > uint64(len(m.text)) {
		return 0, 0, false, false
	}
	inst, err := k.st.dec.Lookup(pc, le32(m.text[off:]))
	if err != nil {
		return 0, 0, false, false
	}
	return arm64.MemAddr(inst, &k.regs[t])
}
func (k *arm64Core) scratchLink(reg uint8) bool { return false }
func (k *arm64Core) slotWriter(uint8) string    { return "" }

func (k *arm64Core) regName(r uint8) string {
	switch {
	case r < 31:
		return fmt.Sprintf("x%d", r)
	case r == 31:
		return "xzr"
	}
	return fmt.Sprintf("reg%d", r)
}

func (k *arm64Core) hex(b []byte) string { return isa.Hex(b, 4) }

// describe renders an instruction word with its disassembly, and the
// 8-byte ftrace_ops literal of a CALL_OPS site as the pointer it is.
func (k *arm64Core) describe(addr uint64, b []byte) string {
	h := k.hex(b)
	switch len(b) {
	case 4:
		return fmt.Sprintf("%s (%s)", h, arm64.DisasmWord(addr, le32(b)))
	case 8:
		v := uint64(le32(b)) | uint64(le32(b[4:]))<<32
		if name := k.img.Name(v); name != "" {
			return fmt.Sprintf("%s (.quad %s)", h, name)
		}
		return fmt.Sprintf("%s (.quad %#x)", h, v)
	}
	return h
}
