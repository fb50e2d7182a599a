package kernel

import (
	"debug/elf"
	"encoding/binary"

	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/objfile"
)

// Linking x86-64 objects: the worker loop passes up to six arguments in
// registers; relocations follow the System V ABI AMD64 supplement (§4.4),
// with a GOT for the GOTPCREL ones and gcc's PIC call of the hook relaxed
// to a direct call.

// workerX86 emits the x86-64 workload loop: a kthread frame, then per
// iteration the argument registers loaded with cfg.Args (movabs), call
// cfg.Function, call schedule; then do_exit.
func (l *linker) workerX86() {
	t := x86Text{l.a}
	// Four pushes keep %rsp 16-byte aligned at the call, as the ABI wants.
	for _, r := range []x86.Reg{x86.RBX, x86.RBP, x86.R12, x86.R13} {
		t.emit(x86.Push(r))
	}
	t.b(0xbb, byte(l.cfg.Iterations), 0, 0, 0) // mov $iterations,%ebx
	loop := t.pc()
	regs := []x86.Reg{x86.RDI, x86.RSI, x86.RDX, x86.RCX, x86.R8, x86.R9}
	for i, v := range l.cfg.Args {
		t.emit(movabs(regs[i], uint64(v)))
	}
	t.call(l.cfg.Function)
	l.ret = t.pc()
	t.call("schedule")
	t.emit(x86.SubImm(x86.RBX, 1))
	t.jcc(x86.NE, loop)
	t.call("do_exit")
}

// movabs encodes mov $imm64,%r (REX.W B8+r io; Intel SDM Vol. 2B, MOV).
func movabs(r x86.Reg, v uint64) []byte {
	rex := byte(0x48)
	if r >= 8 {
		rex |= 1
	}
	out := []byte{rex, 0xb8 | byte(r&7)}
	return binary.LittleEndian.AppendUint64(out, v)
}

// stubX86 returns 0 and clobbers every caller-saved register.
func (l *linker) stubX86() {
	a := l.a
	// xor %eax,%eax; xor %ecx,%ecx; ... xor %r11d,%r11d; ret
	a.emit([]byte{0x31, 0xc0, 0x31, 0xc9, 0x31, 0xd2, 0x31, 0xf6, 0x31, 0xff,
		0x45, 0x31, 0xc0, 0x45, 0x31, 0xc9, 0x45, 0x31, 0xd2, 0x45, 0x31, 0xdb})
	a.emit(x86.Ret())
}

// applyX86 writes the field of r at p (in field) for symbol value s
// (System V ABI AMD64 supplement, §4.4).
func (l *linker) applyX86(field []byte, p uint64, r objfile.Reloc, s uint64, where string) error {
	tname := l.f.RelocTypeName(r.Type)
	a := r.Addend
	var v int64
	switch elf.R_X86_64(r.Type) {
	case elf.R_X86_64_64:
		binary.LittleEndian.PutUint64(field, uint64(int64(s)+a))
		return nil
	case elf.R_X86_64_PC64: // S + A - P: the key of a __jump_table entry (arch_static_branch)
		binary.LittleEndian.PutUint64(field, uint64(int64(s)+a-int64(p)))
		return nil
	case elf.R_X86_64_PC32, elf.R_X86_64_PLT32:
		v = int64(s) + a - int64(p)
	case elf.R_X86_64_32:
		v = int64(s) + a
		if v < 0 || v > 0xffffffff {
			return l.errorf("%s at %s: %#x does not fit", tname, where, v)
		}
		binary.LittleEndian.PutUint32(field, uint32(v))
		return nil
	case elf.R_X86_64_32S:
		v = int64(s) + a
	case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
		slot, ok := l.got[r.Sym]
		if !ok {
			return l.errorf("%s at %s: no GOT slot", tname, where)
		}
		v = int64(slot) + a - int64(p)
	}
	if v < -1<<31 || v >= 1<<31 {
		return l.errorf("%s at %s: %#x does not fit in 32 bits", tname, where, v)
	}
	binary.LittleEndian.PutUint32(field, uint32(int32(v)))
	return nil
}

func isGOTCall(t uint32) bool {
	switch elf.R_X86_64(t) {
	case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX:
		return true
	}
	return false
}

// relaxGOTCall turns gcc's PIC call of the profiling hook, call
// *__fentry__@GOTPCREL(%rip) (ff 15 rel32), into a direct call followed by
// a nop (e8 rel32 90), as ld -z call-nop=suffix-nop does: the site is then
// the 5-byte call the strategies patch.
func (l *linker) relaxGOTCall(s *objfile.Section, at uint64, r objfile.Reloc) error {
	if r.Offset < 2 || s.Data[r.Offset-2] != 0xff || s.Data[r.Offset-1] != 0x15 {
		return l.errorf("%s at %s+%#x is not a call through the GOT", l.f.RelocTypeName(r.Type), s.Name, r.Offset)
	}
	call := at + r.Offset - 2
	name, err := l.symTarget(l.f.Symbols[r.Sym])
	if err != nil {
		return err
	}
	if name == "" {
		return l.errorf("%s at %s+%#x calls the undefined weak %s", l.f.RelocTypeName(r.Type), s.Name, r.Offset, l.f.Symbols[r.Sym].Name)
	}
	copy(l.a.img.Text[call-l.a.img.Base:], []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90})
	a := l.a
	a.later(func() {
		enc, ok := x86.CallRel32(call, a.addr(name))
		if !ok {
			a.fail("kernel: call %s out of range", name)
		}
		copy(a.img.Text[call-a.img.Base:], enc)
	})
	return nil
}
