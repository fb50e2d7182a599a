package kernel

import (
	"debug/elf"
	"encoding/binary"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/objfile"
)

// Linking ARM A32 objects: the worker loop passes up to 16 arguments in
// r0-r3 and on the stack; relocations follow "ELF for the ARM
// Architecture" (§5.6).

// workerARM emits the ARM workload loop: a kthread frame, then per
// iteration r0-r3 and the stack loaded with cfg.Args from a literal pool,
// bl cfg.Function, bl schedule; then do_exit.
func (l *linker) workerARM() {
	t := armText{l.a}
	t.w(arm.Push(arm.RegList(arm.R4, arm.R5, arm.R6, arm.LR)))
	t.w(t.ok(arm.MovImm(arm.R5, uint32(l.cfg.Iterations))))
	// Arguments after the fourth go on the stack, the fifth at sp, in
	// an area that keeps sp 8-byte aligned at the call (AAPCS 5.5,
	// 6.2.1.2); they are stored again before every call, since the
	// callee owns them.
	onStack := max(len(l.cfg.Args)-4, 0)
	if onStack > 0 {
		t.w(t.ok(arm.SubImm(arm.SP, arm.SP, uint32(onStack*4+7)&^7)))
	}
	loop := uint32(t.pc())
	// ldr rN, [pc, #off]: the arguments sit in a literal pool after the
	// loop; a stack argument goes through r0 first.
	loads := make([]uint64, len(l.cfg.Args))
	for i := 4; i < len(l.cfg.Args); i++ {
		loads[i] = t.pc()
		t.w(0)
		t.w(arm.StrImm(arm.R0, arm.SP, int32(4*(i-4))))
	}
	for i := range min(len(l.cfg.Args), 4) {
		loads[i] = t.pc()
		t.w(0)
	}
	t.call(l.cfg.Function)
	l.ret = t.pc()
	t.call("schedule")
	t.w(t.ok(arm.SubsImm(arm.R5, arm.R5, 1)))
	t.w(t.ok(arm.B(uint32(t.pc()), loop)).If(arm.NE))
	t.call("do_exit")
	for i, v := range l.cfg.Args {
		lit := t.pc()
		t.w(arm.Word(uint32(v)))
		rt := i
		if i >= 4 {
			rt = arm.R0 // then stored to the stack
		}
		copy(t.img.Text[loads[i]-t.img.Base:], arm.LdrImm(rt, arm.PC, int32(lit-loads[i]-8)).Bytes())
	}
}

// stubARM returns 0 and clobbers r0-r3 and r12.
func (l *linker) stubARM() {
	t := armText{l.a}
	for _, r := range []int{arm.R0, arm.R1, arm.R2, arm.R3, arm.R12} {
		t.w(t.ok(arm.MovImm(r, 0)))
	}
	t.w(arm.BX(arm.LR))
}

// applyARM writes the field of r at p (in field) for symbol value s
// (ELF for the ARM Architecture, §5.6).
func (l *linker) applyARM(field []byte, p uint64, r objfile.Reloc, s uint64, where string) error {
	tname := l.f.RelocTypeName(r.Type)
	w := binary.LittleEndian.Uint32(field)
	switch elf.R_ARM(r.Type) {
	case elf.R_ARM_CALL, elf.R_ARM_JUMP24:
		if s&1 != 0 {
			return l.errorf("%s at %s targets Thumb code", tname, where)
		}
		a := int64(int32(w<<8) >> 6)
		d := int64(s) + a - int64(p)
		if d&3 != 0 || d < -(1<<25) || d >= 1<<25 {
			return l.errorf("%s at %s: target %#x out of range", tname, where, s)
		}
		w = w&0xff000000 | uint32(d>>2)&0x00ffffff
	case elf.R_ARM_ABS32:
		w = uint32(int64(s) + int64(int32(w)))
	case elf.R_ARM_REL32:
		w = uint32(int64(s) + int64(int32(w)) - int64(p))
	case elf.R_ARM_MOVW_ABS_NC, elf.R_ARM_MOVT_ABS:
		a := int64(int16(uint16(w>>4&0xf000 | w&0xfff)))
		v := uint32(int64(s) + a)
		if elf.R_ARM(r.Type) == elf.R_ARM_MOVT_ABS {
			v >>= 16
		}
		v &= 0xffff
		w = w&^0x000f0fff | (v>>12)<<16 | v&0xfff
	}
	binary.LittleEndian.PutUint32(field, w)
	return nil
}
