package kernel

import (
	"debug/elf"
	"encoding/binary"

	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/objfile"
)

// Linking arm64 objects (issue 16): the worker loop passes up to eight
// arguments in x0-x7; the object's sites decide the layout of the
// trampolines around it (ARM64PFE2, ARM64PFE42 or ARM64PG, as Build lays
// them out); relocations follow "ELF for the Arm 64-bit Architecture"
// (AAELF64), §5.7.

// workerARM64 emits the workload loop: a kthread frame, then per
// iteration x0-x7 loaded with cfg.Args (movz/movk), bl cfg.Function, bl
// schedule; then do_exit.
func (l *linker) workerARM64() {
	t := arm64Text{l.a}
	t.w(arm64.StpPre(arm64.FP, arm64.LR, arm64.SP, -32))
	t.w(t.ok(arm64.AddImm(arm64.FP, arm64.SP, 0)))
	t.w(arm64.StpOff(19, 20, arm64.SP, 16))
	t.w(arm64.MovZ(19, uint16(l.cfg.Iterations), 0))
	loop := l.a.pc()
	for i, v := range l.cfg.Args {
		u := uint64(v)
		t.w(arm64.MovZ(i, uint16(u), 0))
		for sh := uint(16); sh < 64; sh += 16 {
			if c := uint16(u >> sh); c != 0 {
				t.w(arm64.MovK(i, c, sh))
			}
		}
	}
	t.call(l.cfg.Function)
	l.ret = l.a.pc()
	t.call("schedule")
	t.w(t.ok(arm64.SubsImm(19, 19, 1)))
	t.w(t.ok(arm64.BCond(arm64.NE, l.a.pc(), loop)))
	t.call("do_exit")
}

// stubARM64 returns 0 and clobbers the caller-saved x1-x17.
func (l *linker) stubARM64() {
	t := arm64Text{l.a}
	for r := 0; r <= 17; r++ {
		t.w(arm64.MovZ(r, 0, 0))
	}
	t.w(arm64.Ret(arm64.LR))
}

// siteARM64 is the site of function fn at p in the object's layout: the
// two entry words (rec->ip the second; a function built with BTI has its
// landing pad before them, outside the site), the literal and the two
// entry words (with BTI, around the landing pad: the site's Gap), or the
// bl _mcount word. Linux's ftrace_call_adjust finds rec->ip the same way.
func (l *linker) siteARM64(s objfile.Site, fn string, p uint64) (Site, error) {
	switch l.prologue {
	case ARM64PFE2:
		return Site{Func: fn, Addr: p, Len: 8, Call: p + 4}, nil
	case ARM64PFE42:
		code := l.f.Sections[s.SectionIndex].Data
		if o := s.SectionOffset + 8; o+4 <= uint64(len(code)) && landingPad(binary.LittleEndian.Uint32(code[o:]), true) {
			return Site{Func: fn, Addr: p, Len: 20, Call: p + 16, Gap: 8}, nil
		}
		return Site{Func: fn, Addr: p, Len: 16, Call: p + 12}, nil
	}
	return Site{Func: fn, Addr: p, Len: 4, Call: p}, nil
}

// arm64Reloc returns the size of the field relocation type t writes, 0
// for one that writes nothing, or -1 for one the linker does not know.
func arm64Reloc(t uint32) int {
	switch elf.R_AARCH64(t) {
	case elf.R_AARCH64_NONE, elf.R_AARCH64_NULL:
		return 0
	case elf.R_AARCH64_ABS64, elf.R_AARCH64_PREL64:
		return 8
	case elf.R_AARCH64_ABS32, elf.R_AARCH64_PREL32, elf.R_AARCH64_CALL26, elf.R_AARCH64_JUMP26,
		elf.R_AARCH64_CONDBR19, elf.R_AARCH64_TSTBR14, elf.R_AARCH64_ADR_PREL_LO21, elf.R_AARCH64_ADR_PREL_PG_HI21,
		elf.R_AARCH64_ADR_PREL_PG_HI21_NC, elf.R_AARCH64_ADD_ABS_LO12_NC,
		elf.R_AARCH64_LDST8_ABS_LO12_NC, elf.R_AARCH64_LDST16_ABS_LO12_NC, elf.R_AARCH64_LDST32_ABS_LO12_NC,
		elf.R_AARCH64_LDST64_ABS_LO12_NC, elf.R_AARCH64_LDST128_ABS_LO12_NC,
		elf.R_AARCH64_ADR_GOT_PAGE, elf.R_AARCH64_LD64_GOT_LO12_NC:
		return 4
	}
	return -1
}

// applyARM64 writes the field of r at p (in field) for symbol value s
// (AAELF64 §5.7.3-§5.7.8: S + A, S + A - P, Page(S + A) - Page(P)).
func (l *linker) applyARM64(field []byte, p uint64, r objfile.Reloc, s uint64, where string) error {
	tname, sa, d, bad := l.relocValues(p, r, s, where)
	w := binary.LittleEndian.Uint32(field)
	if isGOTReloc(ARM64, r.Type) {
		// G(GDAT(S + A)): the GOT slot of the symbol (A is 0 from gcc).
		slot, ok := l.got[r.Sym]
		if !ok || r.Addend != 0 {
			return l.errorf("%s at %s: no GOT slot", tname, where)
		}
		if elf.R_AARCH64(r.Type) == elf.R_AARCH64_ADR_GOT_PAGE {
			pages := int64(slot&^0xfff) - int64(p&^0xfff)
			if !fits(pages, 33) {
				return bad()
			}
			w = adrImm(w, pages>>12)
		} else {
			w = w&^(0xfff<<10) | uint32(slot&0xff8)>>3<<10 // ldr x, [x, #lo12]: scaled by 8
		}
		binary.LittleEndian.PutUint32(field, w)
		return nil
	}
	switch elf.R_AARCH64(r.Type) {
	case elf.R_AARCH64_ABS64:
		binary.LittleEndian.PutUint64(field, uint64(sa))
		return nil
	case elf.R_AARCH64_PREL64:
		binary.LittleEndian.PutUint64(field, uint64(d))
		return nil
	case elf.R_AARCH64_ABS32:
		if sa < -(1<<31) || sa >= 1<<32 {
			return bad()
		}
		w = uint32(sa)
	case elf.R_AARCH64_PREL32:
		if !fits(d, 32) {
			return bad()
		}
		w = uint32(d)
	case elf.R_AARCH64_CALL26, elf.R_AARCH64_JUMP26:
		if d&3 != 0 || !fits(d, 28) {
			return bad()
		}
		w = w&0xfc000000 | uint32(d>>2)&0x03ffffff
	case elf.R_AARCH64_CONDBR19:
		if d&3 != 0 || !fits(d, 21) {
			return bad()
		}
		w = w&^(0x7ffff<<5) | (uint32(d>>2)&0x7ffff)<<5
	case elf.R_AARCH64_TSTBR14:
		if d&3 != 0 || !fits(d, 16) {
			return bad()
		}
		w = w&^(0x3fff<<5) | (uint32(d>>2)&0x3fff)<<5
	case elf.R_AARCH64_ADR_PREL_LO21:
		if !fits(d, 21) {
			return bad()
		}
		w = adrImm(w, d)
	case elf.R_AARCH64_ADR_PREL_PG_HI21, elf.R_AARCH64_ADR_PREL_PG_HI21_NC:
		pages := (sa &^ 0xfff) - (int64(p) &^ 0xfff)
		if elf.R_AARCH64(r.Type) == elf.R_AARCH64_ADR_PREL_PG_HI21 && !fits(pages, 33) {
			return bad()
		}
		w = adrImm(w, pages>>12)
	case elf.R_AARCH64_ADD_ABS_LO12_NC:
		w = w&^(0xfff<<10) | uint32(sa&0xfff)<<10
	default: // the LDST*_ABS_LO12_NC: the low 12 bits, scaled by the access size
		scale := map[elf.R_AARCH64]uint{elf.R_AARCH64_LDST8_ABS_LO12_NC: 0, elf.R_AARCH64_LDST16_ABS_LO12_NC: 1,
			elf.R_AARCH64_LDST32_ABS_LO12_NC: 2, elf.R_AARCH64_LDST64_ABS_LO12_NC: 3, elf.R_AARCH64_LDST128_ABS_LO12_NC: 4}[elf.R_AARCH64(r.Type)]
		lo := uint32(sa & 0xfff)
		if lo&(1<<scale-1) != 0 {
			return l.errorf("%s at %s: %#x is not aligned to the access", tname, where, uint64(sa))
		}
		w = w&^(0xfff<<10) | (lo>>scale)<<10
	}
	binary.LittleEndian.PutUint32(field, w)
	return nil
}

// adrImm puts the 21-bit immediate v into an adr or adrp: immlo in bits
// 30:29, immhi in 23:5.
func adrImm(w uint32, v int64) uint32 {
	u := uint32(v)
	return w&^(3<<29|0x7ffff<<5) | (u&3)<<29 | (u>>2&0x7ffff)<<5
}
