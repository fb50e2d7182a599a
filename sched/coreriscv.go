package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
	"golang.org/x/arch/riscv64/riscv64asm"
)

// riscvShape: RV64GC instructions are 2 or 4 bytes on halfword boundaries;
// an 8-byte load into ra restores a return address (t0, the other link
// register, is also gcc's first scratch register, so its loads are not
// checked); a hook is one 4-byte nop. Exception entry and return do not
// synchronize a hart's instruction fetch, and the stop_machine stopper
// flushes when it leaves, not when it enters (model.md §1a).
var riscvShape = isaShape{align: 2, maxLen: 4, linkSize: 8, linkRegs: [2]uint8{riscv.RA, riscv.RA}, hookLen: 4,
	misaligned: " (or misaligned)", excSync: false, stopperInSync: false}

// riscvCore is the RV64 core.
type riscvCore struct {
	// The plain decodings are riscv.Resolved, without riscv64asm's view.
	coreBase[*riscv.Cache, riscv.Resolved, riscv.Regs]

	cur *riscv.Inst
	// auipc is, per task, the last auipc it executed outside the fast
	// paths (that is, from bytes a store may write): the explanation of a
	// bad call names the instruction that produced the upper bits of the
	// target. It is not part of the state hash; it never changes what
	// happens next.
	auipc [MaxTasks]auipcRec
}

// auipcRec is one executed auipc: where, its bytes, the write that put its
// first byte there (0: compiled) and the value it produced in rd.
type auipcRec struct {
	pc    uint64
	value uint64
	enc   uint32
	write uint16
	rd    uint8
}

func newRISCVCore(img *kernel.Image) *riscvCore {
	return &riscvCore{coreBase: newCoreBase(riscv.NewCache(img.Base, len(img.Text)), img, riscvShape.align, riscv.Run, riscvRegs)}
}

func (k *riscvCore) reset(t int8, entry, sp uint64) {
	k.room(t)
	k.regs[t] = riscv.Regs{}
	k.regs[t].PC = entry
	k.regs[t].X[riscv.SP] = sp
	k.regs[t].X[riscv.TP] = k.st.current
	k.auipc[t] = auipcRec{}
}

func (k *riscvCore) pc(t int8) uint64                { return k.regs[t].PC }
func (k *riscvCore) setPC(t int8, pc uint64)         { k.regs[t].PC = pc }
func (k *riscvCore) arg(t int8, i int) uint64        { return k.regs[t].X[riscv.A0+i] }
func (k *riscvCore) ret(t int8) uint64               { return k.regs[t].X[riscv.A0] }
func (k *riscvCore) clearDead(t int8, atReturn bool) { k.regs[t].ClearDead(atReturn) }
func (k *riscvCore) reg(t int8, r int) uint64        { return k.regs[t].X[r] }

func (k *riscvCore) hashTask(h hasher, t int8, rb rebase) (hasher, rebase) {
	r := &k.regs[t]
	for _, v := range r.X[1:] {
		h.u64(rb.v(v))
	}
	h.u64(rb.v(r.PC))
	return h, rb
}

func (k *riscvCore) copyInto(dst core) core { return copyCore[riscvCore, riscv.Regs](k, dst) }

func (k *riscvCore) decode(pc uint64, b []byte) (int, error) {
	inst, err := k.st.dec.Lookup(pc, b)
	k.cur = inst
	if err != nil {
		return 0, err
	}
	return int(inst.Len), nil
}

// syncs: fence.i (Zifencei) synchronizes the executing hart only.
func (k *riscvCore) syncs() bool { return k.cur != nil && k.cur.IsFenceI() }

// cmodxOK: RISC-V has no concurrent-modification set; Ziccif makes a
// naturally aligned instruction fetch atomic instead (model.md §1a).
func (k *riscvCore) cmodxOK(old, new []byte) bool { return true }

func (k *riscvCore) exec(m *Machine, t int8) (effect, error) {
	r := &k.regs[t]
	inst := k.cur
	pc, sp := r.PC, r.X[riscv.SP]
	flow, err := riscv.Exec(inst, r, m)
	if err == nil && inst.Arch.Op == riscv64asm.AUIPC && inst.Rd != riscv.Zero {
		k.auipc[t] = auipcRec{pc: pc, value: r.X[inst.Rd], enc: inst.Enc, write: m.prov[pc-m.img.Base], rd: inst.Rd}
	}
	return effect{pc: pc, flow: flow, target: r.PC, link: pc + uint64(inst.Len), spBefore: sp, spAfter: r.X[riscv.SP]}, err
}

// riscvRegs: a call's return address is the instruction's end (linked in
// ra or t0, or in no register at all).
func riscvRegs(r *riscv.Regs, s isa.Stop) (pc, next, sp uint64) {
	return r.PC, s.PC + uint64(s.Len), r.X[riscv.SP]
}

func (k *riscvCore) disasm(m *Machine, pc uint64) string { return riscv.Disasm(k.cur, pc, m.img.Name) }

// localInst: loads, stores and atomics through any base but sp may reach
// shared data (RISC-V has no literal pools); fence.i is visible.
func (k *riscvCore) exclusive() bool     { return k.cur != nil && k.cur.IsExclusive() }
func (k *riscvCore) localInst(bool) bool { return k.cur == nil || riscv.StackOrLiteral(k.cur) }

func (k *riscvCore) markPlain(off uint64) { k.st.tab.mark(off, &k.cur.Resolved) }

// trap: the kernel text mcountsim builds never executes ebreak, and no
// kprobe handler is modelled.
func (k *riscvCore) trap(m *Machine, c, t int8, pc uint64) {
	m.fault(c, t, pc, "breakpoint with no handler")
}

// A load into ra is always a restore of a saved return address in
// compiled code and in the trampolines.
func (k *riscvCore) foreignLoad(isa.Flow) bool { return true }
func (k *riscvCore) isLink(src uint8) bool     { return src == riscv.RA }
func (k *riscvCore) memAddr(m *Machine, t int8, pc uint64) (uint64, int, bool, bool) {
	off, ok := m.textOff(pc)
	if !ok {
		return 0, 0, false, false
	}
	inst, err := k.st.dec.Lookup(pc, m.text[off:min(off+4, uint64(len(m.text)))])
	if err != nil {
		return 0, 0, false, false
	}
	return riscv.MemAddr(inst, &k.regs[t])
}
func (k *riscvCore) scratchLink(reg uint8) bool { return false }
func (k *riscvCore) slotWriter(uint8) string    { return "" }
func (k *riscvCore) regName(r uint8) string     { return riscv.RegName(r) }

// hex renders words as 8 hex digits where the bytes are whole words, else
// halfwords (the units objdump prints for RV64GC).
func (k *riscvCore) hex(b []byte) string {
	if len(b)%4 == 0 {
		return isa.Hex(b, 4)
	}
	return isa.Hex(b, 2)
}

// describe renders bytes stored at addr with the disassembly of the
// instructions they hold, when they are whole instructions.
func (k *riscvCore) describe(addr uint64, b []byte) string {
	h := k.hex(b)
	var parts []string
	for off := 0; off < len(b); {
		inst, err := riscv.Decode(addr+uint64(off), b[off:])
		if err != nil {
			return h
		}
		parts = append(parts, riscv.Disasm(&inst, addr+uint64(off), nil))
		off += int(inst.Len)
	}
	if len(parts) == 0 {
		return h
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += "; " + p
	}
	return fmt.Sprintf("%s (%s)", h, s)
}

// explainCall says where the target of task t's call at pc came from: for
// a jalr, the low 12 bits from the jalr itself (with the write that put its
// bytes in text) and the upper bits from the register it adds them to,
// with the auipc that set that register when the task executed one (its
// bytes, the write that put them there, and the call that auipc was
// written for), and what the auipc now in text would make of the same jalr.
// This is how a task that ran an old auipc and then a new jalr is seen
// (8547649981e6: "an address that has updated 11:0 bits mixing with
// previous XLEN:12 part").
func (k *riscvCore) explainCall(m *Machine, t int8, pc, target uint64) string {
	off, ok := m.textOff(pc)
	if !ok {
		return ""
	}
	b := m.text[off:min(off+4, uint64(len(m.text)))]
	inst, err := riscv.Decode(pc, b)
	if err != nil {
		return ""
	}
	self := fmt.Sprintf("%s at %#x (%s, %s)", riscv.Disasm(&inst, pc, m.img.Name), pc, k.hex(inst.Bytes()), m.writeName(m.prov[off]))
	if inst.Arch.Op != riscv64asm.JALR {
		return "the target is encoded in " + self
	}
	rs := riscv.RegName(inst.Rs1)
	s := fmt.Sprintf("low 12 bits %d from %s", inst.Imm, self)
	rec := k.auipc[t]
	if rec.rd == inst.Rs1 && (rec.value+uint64(inst.Imm))&^1 == target {
		s += fmt.Sprintf("; upper bits: %s = %#x from auipc %s,%#x at %#x <%s> (%08x, %s)", rs, rec.value, rs,
			rec.enc>>12, rec.pc, nameOr(m.img.Name(rec.pc), "?"), rec.enc, m.writeName(rec.write))
		if pair, ok := k.pairedJalr(m, rec); ok {
			s += fmt.Sprintf(", written with %s, a call to %#x <%s>", riscv.Disasm(&pair, rec.pc+4, nil),
				(rec.value+uint64(pair.Imm))&^1, nameOr(m.img.Name((rec.value+uint64(pair.Imm))&^1), "?"))
		}
	} else {
		s += fmt.Sprintf("; upper bits: %s = %#x, which no auipc of this task set before the jalr", rs, (target-uint64(inst.Imm))&^1)
		if p := &m.tasks[t].Pass; p.Open && pc >= 4 {
			if site := m.img.Sites[p.Site]; pc-4 >= site.Addr && pc < site.Addr+uint64(site.Len) {
				o := int(pc - 4 - site.Addr)
				if p.Seen&(1<<o) != 0 {
					if st, _, ok := m.writeStore(p.Write[o]); ok && pc-4 >= st.Addr && pc <= st.Addr+uint64(len(st.Bytes)) {
						s += fmt.Sprintf(" (at %#x it executed %s, %s)", pc-4, k.describe(pc-4, st.Bytes[pc-4-st.Addr:pc-st.Addr]), m.writeName(p.Write[o]))
					}
				}
			}
		}
	}
	if a, err := riscv.Decode(pc-4, m.text[off-min(off, 4):off]); off >= 4 && err == nil && a.Arch.Op == riscv64asm.AUIPC && a.Rd == inst.Rs1 {
		now := (pc - 4 + uint64(a.Imm) + uint64(inst.Imm)) &^ 1
		s += fmt.Sprintf("; with the auipc now in text at %#x (%08x, %s) the jalr would call %#x <%s>", pc-4, a.Enc,
			m.writeName(m.prov[off-4]), now, nameOr(m.img.Name(now), "?"))
	}
	return s
}

// pairedJalr returns the jalr that was written 4 bytes after the auipc of
// rec, by the same write operation (or compiled there).
func (k *riscvCore) pairedJalr(m *Machine, rec auipcRec) (riscv.Inst, bool) {
	var b []byte
	if rec.write == 0 {
		off := rec.pc + 4 - m.img.Base
		if off+4 > uint64(len(m.img.Text)) {
			return riscv.Inst{}, false
		}
		b = m.img.Text[off : off+4]
	} else {
		_, op, ok := m.writeStore(rec.write)
		if !ok {
			return riscv.Inst{}, false
		}
		if b, ok = m.bytesWith(op, rec.pc+4, 4); !ok {
			return riscv.Inst{}, false
		}
	}
	inst, err := riscv.Decode(rec.pc+4, b)
	if err != nil || inst.Arch.Op != riscv64asm.JALR || inst.Rs1 != rec.rd {
		return riscv.Inst{}, false
	}
	return inst, true
}
