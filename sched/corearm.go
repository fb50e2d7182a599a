package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/kernel"
)

// armShape: A32 instructions are aligned words; whole-word loads into lr or
// pc restore a return address (gcc also uses lr as a scratch register for
// halfwords and bytes once it is saved); a hook is one nop word.
var armShape = isaShape{align: 4, maxLen: 4, linkSize: 4, linkRegs: [2]uint8{arm.LR, arm.PC}, hookLen: 4,
	misaligned: " (or misaligned)", cmodxUnit: 4, excSync: true, stopperInSync: true}

// armCore is the ARM A32 core.
type armCore struct {
	// The plain decodings are arm.Resolved, without armasm's view.
	coreBase[*arm.Cache, arm.Resolved, arm.Regs]

	cur *arm.Inst // the instruction decode returned
}

func newARMCore(img *kernel.Image) *armCore {
	return &armCore{coreBase: newCoreBase(arm.NewCache(uint32(img.Base), len(img.Text)), img, armShape.align, armRun, armRegs)}
}

func (k *armCore) reset(t int8, entry, sp uint64) {
	k.room(t)
	k.regs[t] = arm.Regs{}
	k.regs[t].R[arm.PC] = uint32(entry)
	k.regs[t].R[arm.SP] = uint32(sp)
}

func (k *armCore) pc(t int8) uint64                { return uint64(k.regs[t].R[arm.PC]) }
func (k *armCore) setPC(t int8, pc uint64)         { k.regs[t].R[arm.PC] = uint32(pc) }
func (k *armCore) arg(t int8, i int) uint64        { return uint64(k.regs[t].R[i]) }
func (k *armCore) ret(t int8) uint64               { return uint64(k.regs[t].R[arm.R0]) }
func (k *armCore) clearDead(t int8, atReturn bool) { k.regs[t].ClearDead(atReturn) }
func (k *armCore) reg(t int8, r int) uint64        { return uint64(k.regs[t].R[r]) }

func (k *armCore) hashTask(h hasher, t int8, rb rebase) (hasher, rebase) {
	r := &k.regs[t]
	for _, v := range r.R {
		h.u64(rb.v(uint64(v)))
	}
	h.u64(b2u(r.N) | b2u(r.Z)<<1 | b2u(r.C)<<2 | b2u(r.V)<<3)
	return h, rb
}

func (k *armCore) copyInto(dst core) core { return copyCore[armCore, arm.Regs](k, dst) }

func (k *armCore) decode(pc uint64, b []byte) (int, error) {
	w := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	inst, err := k.st.dec.Lookup(uint32(pc), w)
	k.cur = inst
	return 4, err
}

func (k *armCore) syncs() bool { return k.cur != nil && k.cur.IsISB() }

// cmodxOK: ARMv7 ARM A3.5.4 lists B, BL, NOP (the hint e320f000, not mov
// r0,r0), BKPT, SVC, HVC and SMC.
func (k *armCore) cmodxOK(old, new []byte) bool {
	return arm.InCMODXSet(le32(old)) && arm.InCMODXSet(le32(new))
}

func (k *armCore) exec(m *Machine, t int8) (effect, error) {
	r := &k.regs[t]
	pc, sp := r.R[arm.PC], r.R[arm.SP]
	flow, err := arm.Exec(k.cur, r, m)
	return effect{pc: uint64(pc), flow: flow, target: uint64(r.R[arm.PC]), link: uint64(r.R[arm.LR]), spBefore: uint64(sp), spAfter: uint64(r.R[arm.SP])}, err
}

// armRun is arm.Run, whose addresses are 32-bit.
func armRun(tab []*arm.Resolved, base uint64, r *arm.Regs, bus isa.Bus, max int) (int, isa.Stop) {
	return arm.Run(tab, uint32(base), r, bus, max)
}

// armRegs: a call links lr.
func armRegs(r *arm.Regs, _ isa.Stop) (pc, next, sp uint64) {
	return uint64(r.R[arm.PC]), uint64(r.R[arm.LR]), uint64(r.R[arm.SP])
}

func (k *armCore) disasm(m *Machine, pc uint64) string {
	return arm.Disasm(k.cur, uint32(pc), func(a uint32) string { return m.img.Name(uint64(a)) })
}

func (k *armCore) exclusive() bool { return k.cur != nil && k.cur.IsExclusive() }

func (k *armCore) localInst(bool) bool {
	// Loads and stores through any base but sp and pc may reach shared
	// data; everything else touches registers, the stack or literals.
	return k.cur == nil || arm.StackOrLiteral(k.cur)
}

func (k *armCore) memAddr(m *Machine, t int8, pc uint64) (uint64, int, bool, bool) {
	off, ok := m.textOff(pc)
	if !ok {
		return 0, 0, false, false
	}
	inst, err := k.st.dec.Lookup(uint32(pc), le32(m.text[off:]))
	if err != nil {
		return 0, 0, false, false
	}
	a, n, store, ok := arm.MemAddr(inst, &k.regs[t])
	return uint64(a), n, store, ok
}

func (k *armCore) markPlain(off uint64) { k.st.tab.mark(off, &k.cur.Resolved) }

func (k *armCore) trap(m *Machine, c, t int8, pc uint64) {
	m.fault(c, t, pc, "breakpoint with no handler")
}

func (k *armCore) foreignLoad(isa.Flow) bool  { return true }
func (k *armCore) isLink(src uint8) bool      { return src == arm.LR }
func (k *armCore) scratchLink(reg uint8) bool { return reg == arm.LR }
func (k *armCore) slotWriter(uint8) string    { return "" }

// regName: r13-r15 go by their roles.
func (k *armCore) regName(r uint8) string {
	if r >= arm.SP && r <= arm.PC {
		return [...]string{"sp", "lr", "pc"}[r-arm.SP]
	}
	return fmt.Sprintf("r%d", r)
}

func (k *armCore) hex(b []byte) string { return isa.Hex(b, 4) }

func (k *armCore) describe(addr uint64, b []byte) string {
	h := k.hex(b)
	if len(b) == 4 {
		w := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		return fmt.Sprintf("%s (%s)", h, arm.DisasmWord(uint32(addr), w))
	}
	return h
}
