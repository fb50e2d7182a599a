package kernel

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/objfile"
)

// What LinkObject does the same way for arm64 and riscv64 objects.

// RISCVObjectData is where LinkObject places a riscv64 object's data
// (DataBase is inside the RISC-V text's range).
const RISCVObjectData = 0x400000

// dataBase is where the object's data sections start.
func (l *linker) dataBase() uint64 {
	if l.arch == RISCV64 {
		return RISCVObjectData
	}
	return DataBase
}

// layout64 picks the layout of an arm64 or riscv64 object from its sites,
// before anything is emitted (the trampolines depend on it): the layout
// every site has (an object's sites all have one), or the arch's default
// when there is no site.
func (l *linker) layout64() error {
	if err := l.shadowCallStack(); err != nil {
		return err
	}
	found, err := l.f.Sites()
	if err != nil {
		return err
	}
	lays := layouts64[l.arch]
	for _, s := range found {
		lay, ok := lays.of(s, l.f.Sections[s.SectionIndex].Data)
		if !ok {
			return l.errorf("site at %s (%s) is not %s", s.FunctionRef(), s.Disasm, lays.want)
		}
		if l.prologue != "" && l.prologue != lay {
			return l.errorf("site at %s is %s%s, but an earlier one is %s: one layout per object", s.FunctionRef(), lays.what, lay, l.prologue)
		}
		l.prologue = lay
	}
	if l.prologue == "" {
		l.prologue = lays.def // no site: the default trampolines
	}
	return nil
}

// siteLayouts are the call-site layouts (Config.Prologue names) LinkObject
// links for one arch, in the order a site is matched against them.
type siteLayouts struct {
	def  string   // the layout of an object with no site
	what string   // what precedes a layout's name in errors
	want string   // what a site must be, for errors
	nops [][]byte // the arch's NOP encodings
	list []siteLayout
}

// siteLayout is a layout: a site found by its call to _mcount (mcount;
// with bytes, of that size), or one of -fpatchable-function-entry with
// funcOff and minNops to maxNops bytes of NOPs there (maxNops 0: any).
// With bti, the function's first word is a landing pad that the NOPs are
// counted across (arm64 -mbranch-protection=bti or standard; see
// landingPad).
type siteLayout struct {
	name             string
	mcount           bool
	bytes            int
	funcOff          int64
	minNops, maxNops int
	bti              bool
}

// layouts64 are the layouts of arm64 (ARM64PFE2 ...) and riscv64 objects
// (RVMcount ...; the eras: -pg, =8 with RVC, =4 with RVC or =2 without,
// =8,4 with RVC).
var layouts64 = map[Arch]siteLayouts{
	ARM64: {def: ARM64PFE2, nops: [][]byte{arm64.Nop().Bytes()},
		want: "two entry NOPs (-fpatchable-function-entry=2), four around the entry (=4,2) or bl _mcount (-pg), after a BTI landing pad or not",
		list: []siteLayout{{name: ARM64PFE2, minNops: 8}, {name: ARM64PFE2, funcOff: 4, minNops: 8, bti: true},
			{name: ARM64PFE42, funcOff: -8, minNops: 16}, {name: ARM64PFE42, funcOff: -8, minNops: 16, bti: true},
			{name: ARM64PG, mcount: true, bytes: 4}}},
	RISCV64: {def: RVAtomic, what: "era ", nops: [][]byte{riscv.CNop().Bytes(), riscv.Nop().Bytes()},
		want: "an auipc+jalr to _mcount (-pg) or the NOPs of -fpatchable-function-entry=2, =4, =8 or =8,4",
		list: []siteLayout{{name: RVMcount, mcount: true}, {name: RVPFE16, minNops: 16, maxNops: 16}, {name: RVPFE8, minNops: 8, maxNops: 15},
			{name: RVAtomic, funcOff: -8, minNops: 16}}},
}

// of returns the first layout site s, in its section's bytes code, has.
func (ls siteLayouts) of(s objfile.Site, code []byte) (string, bool) {
	for _, lay := range ls.list {
		if lay.mcount {
			if s.HasMethod(objfile.MethodReloc) && s.Target == "_mcount" && (lay.bytes == 0 || len(s.Bytes) == lay.bytes) {
				return lay.name, true
			}
			continue
		}
		if !s.HasMethod(objfile.MethodPFE) || s.FunctionOffset != lay.funcOff {
			continue
		}
		skip := -1 // the site offset of a landing pad the NOPs run across
		if lay.bti {
			entry := int64(s.SectionOffset) - lay.funcOff
			if entry < 0 || entry+4 > int64(len(code)) || !landingPad(binary.LittleEndian.Uint32(code[entry:]), lay.funcOff < 0) {
				continue
			}
			skip = int(-lay.funcOff)
		}
		if n := nopBytes(code, s.SectionOffset, ls.nops, skip); n >= lay.minNops && (lay.maxNops == 0 || n <= lay.maxNops) {
			return lay.name, true
		}
	}
	return "", false
}

// landingPad reports whether w, the first word of a function whose
// patchable NOPs follow it (-mbranch-protection=bti or standard), is one
// Linux's ftrace finds there. Before -fpatchable-function-entry=2's NOPs
// arch/arm64/kernel/ftrace.c's ftrace_call_adjust takes rec->ip to be the
// second NOP whatever precedes it: a BTI of any kind (gcc and clang emit
// "bti c") or PACIASP/PACIBSP, which also land calls. Between the
// CALL_OPS literal and the entry NOPs (=4,2: callOps) it skips the word
// only when aarch64_insn_is_bti holds (bti, bti c, bti j, bti jc: HINT
// #32, #34, #36, #38).
func landingPad(w uint32, callOps bool) bool {
	if w&^0xc0 == uint32(arm64.Hint(32)) { // aarch64_insn_is_bti: the mask 0xffffff3f
		return true
	}
	return !callOps && (w == uint32(arm64.Hint(25)) || w == uint32(arm64.Hint(27))) // paciasp, pacibsp
}

// nopBytes counts the bytes of the NOPs (any of nops) in b from off,
// running across the 4 bytes at off+skip (skip >= 0: a landing pad).
func nopBytes(b []byte, off uint64, nops [][]byte, skip int) int {
	n := 0
	for o := int(off); o <= len(b); {
		if skip >= 0 && o == int(off)+skip {
			o += 4
			continue
		}
		size := 0
		for _, nop := range nops {
			if o+len(nop) <= len(b) && bytes.Equal(b[o:o+len(nop)], nop) {
				size = len(nop)
				break
			}
		}
		if size == 0 {
			break
		}
		o, n = o+size, n+size
	}
	return n
}

// services64 emits the trampolines, hooks and ftrace data of the object's
// layout, after every stub: the arm64 data segment starts on the page
// after the text.
func (l *linker) services64() {
	if l.arch == ARM64 {
		arm64Text{l.a}.services(l.prologue)
		return
	}
	rvText{l.a}.services(l.prologue)
}

// relocate64 applies r, a relocation of an arm64 or riscv64 section
// loaded at addr, once every symbol is placed (RISC-V's %pcrel_lo needs
// the address its %pcrel_hi's symbol resolves to, which may be a stub).
// The symbol is looked up at once, so that a stub is made for it and a
// bad symbol is an error now.
func (l *linker) relocate64(buf func() []byte, addr uint64, r objfile.Reloc, sec string) error {
	tname := l.f.RelocTypeName(r.Type)
	where := fmt.Sprintf("%s+%#x", sec, r.Offset)
	var size int
	if l.arch == ARM64 {
		size = arm64Reloc(r.Type)
	} else {
		size = riscvReloc(r.Type)
	}
	switch {
	case size < 0:
		return l.errorf("relocation %s at %s", tname, where)
	case size == 0:
		return nil
	case r.Offset+uint64(size) > uint64(len(buf())):
		return fmt.Errorf("%s: relocation %s at %s runs past its section", l.name, tname, where)
	}
	if _, err := l.symAddr(r.Sym); err != nil {
		var late *lateSym
		if !errors.As(err, &late) {
			return err
		}
	}
	a := l.a
	a.later(func() {
		s, err := l.resolve(r.Sym)
		if err == nil {
			field := buf()[r.Offset:]
			if l.arch == ARM64 {
				err = l.applyARM64(field, addr+r.Offset, r, s, where)
			} else {
				err = l.applyRISCV(field, addr+r.Offset, r, s, where)
			}
		}
		if err != nil {
			a.fail("%v", err)
		}
	})
	return nil
}

// relocValues returns what the arm64 and riscv64 formulas of relocation
// r at p, for symbol value s, read: its type's name, S + A, S + A - P, and
// the error of a target the field cannot reach.
func (l *linker) relocValues(p uint64, r objfile.Reloc, s uint64, where string) (tname string, sa, d int64, bad func() error) {
	tname = l.f.RelocTypeName(r.Type)
	sa = int64(s) + r.Addend
	return tname, sa, sa - int64(p), func() error {
		return l.errorf("%s at %s: target %#x out of range", tname, where, uint64(sa))
	}
}

// fits reports whether v fits a signed field of bits bits.
func fits(v int64, bits uint) bool { return v >= -(1<<(bits-1)) && v < 1<<(bits-1) }

// resolve returns the address symbol i resolves to, once everything is
// placed.
func (l *linker) resolve(i int) (uint64, error) {
	v, err := l.symAddr(i)
	var late *lateSym
	if errors.As(err, &late) {
		return l.a.addr(late.name), nil
	}
	return v, err
}

// workerArgs checks the argument count of a 64-bit workload.
func workerArgs(name string, arch Arch, n int) error {
	if n > 8 {
		return fmt.Errorf("%s: %w: %d arguments, the %v workload passes at most 8 (%s)", name, ErrUnsupportedObject, n, arch,
			map[Arch]string{ARM64: "x0-x7", RISCV64: "a0-a7"}[arch])
	}
	return nil
}

// scsPush is arm64's shadow-call-stack prologue, str x30, [x18], #8.
const scsPush = 0xf800865e

// shadowCallStack refuses an arm64 object built with
// -fsanitize=shadow-call-stack (CONFIG_SHADOW_CALL_STACK), naming the
// first function that pushes x30 through x18: the kernel points x18 at
// each task's shadow stack, which the machine does not model (a shadow
// stack in the task's stack would lie below sp, where freed frames are).
func (l *linker) shadowCallStack() error {
	if l.arch != ARM64 {
		return nil
	}
	for _, s := range l.f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Data == nil {
			continue
		}
		for i := 0; i+4 <= len(s.Data); i += 4 {
			if binary.LittleEndian.Uint32(s.Data[i:]) != scsPush {
				continue
			}
			at := fmt.Sprintf("%s+%#x", s.Name, i)
			for _, sym := range l.f.Symbols {
				if sym.Type == elf.STT_FUNC && int(sym.Section) == s.Index && uint64(i) >= sym.Value && uint64(i) < sym.Value+sym.Size {
					at = fmt.Sprintf("%s+%#x", sym.Name, uint64(i)-sym.Value)
				}
			}
			return l.errorf("%s: str x30, [x18], #8 pushes the return address on a shadow call stack (-fsanitize=shadow-call-stack, CONFIG_SHADOW_CALL_STACK), which is not modelled: build without it", at)
		}
	}
	return nil
}
