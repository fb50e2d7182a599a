package kernel

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/mcountsim/mcountsim/objfile"
)

// hookSym reports whether symbol i is the profiling hook of the arch.
func (l *linker) hookSym(i int) bool {
	s := l.f.Symbols[i]
	return s.Section == elf.SHN_UNDEF && objfile.IsHook(l.f.Arch, s.Name)
}

// symTarget returns the name a call to undefined symbol s links to: the
// trampoline for the profiling hook, a service, a helper or a generated
// stub; "" for an undefined weak symbol none of those defines, whose
// address is 0.
func (l *linker) symTarget(s objfile.Symbol) (string, error) {
	switch {
	case l.arch == ARM && s.Name == "__gnu_mcount_nc":
		return "__gnu_mcount_nc", nil
	case l.arch == ARM && (s.Name == "mcount" || s.Name == "_mcount"):
		return "", l.errorf("calls %s: the pre-EABI mcount ABI is not supported (gcc >= 4.4 emits __gnu_mcount_nc)", s.Name)
	case l.arch == X86 && (s.Name == "__fentry__" || s.Name == "mcount"):
		return s.Name, nil
	case (l.arch == ARM64 || l.arch == RISCV64) && s.Name == "_mcount":
		return s.Name, nil
	case builtinNames[s.Name]:
		return s.Name, nil
	case s.Name == stackChkFail:
		l.panics = true
		return s.Name, nil
	case l.arch == ARM && IsARMHelper(s.Name), l.arch == RISCV64 && IsRISCVHelper(s.Name), l.arch == ARM64 && IsARM64Helper(s.Name),
		l.arch == X86 && IsX86Helper(s.Name):
		l.helpers[s.Name] = true
		return s.Name, nil
	}
	if s.Bind == elf.STB_WEAK {
		// An undefined weak reference (extern ... __weak, tested for NULL
		// before a call): a static link, the kernel's included, resolves
		// it to 0, not to a function.
		return "", nil
	}
	l.stubs[s.Name] = true
	return s.Name, nil
}

// symAddr returns the address symbol i resolves to. Undefined symbols
// resolve to a trampoline, a service or a stub; the address of a text
// symbol is known only once everything is placed, so symAddr must run
// after layout (it is called from relocation, which runs later).
func (l *linker) symAddr(i int) (uint64, error) {
	s := l.f.Symbols[i]
	switch {
	case s.Section == elf.SHN_UNDEF:
		if i == 0 {
			return 0, nil
		}
		if at, ok := l.kdata[s.Name]; ok {
			return at, nil
		}
		name, err := l.symTarget(s)
		if err != nil {
			return 0, err
		}
		if name == "" {
			return 0, nil // undefined weak
		}
		return 0, &lateSym{name}
	case s.Section == elf.SHN_ABS:
		return s.Value, nil
	case s.Section == elf.SHN_COMMON:
		return l.common[i], nil
	case s.Section >= elf.SHN_LORESERVE:
		return 0, l.errorf("symbol %s in special section %#x", s.Name, uint16(s.Section))
	}
	at, ok := l.secAddr[int(s.Section)]
	if !ok {
		return 0, l.errorf("symbol %s is in section %s, which is not loaded", s.Name, l.f.Sections[s.Section].Name)
	}
	v := at + s.Value
	if s.Thumb {
		v |= 1
	}
	return v, nil
}

// lateSym is a symbol placed after the object's text (a service or a
// stub); relocations against it are applied once it is placed.
type lateSym struct{ name string }

func (e *lateSym) Error() string { return "late symbol " + e.name }

// relocateText applies the relocations of every loaded executable section.
func (l *linker) relocateText() error {
	for _, s := range l.f.Sections {
		at, ok := l.secAddr[s.Index]
		if !ok || !s.Executable() {
			continue
		}
		off := at - l.a.img.Base
		for _, r := range s.Relocs {
			if l.arch == X86 && l.hookSym(r.Sym) && isGOTCall(r.Type) {
				if err := l.relaxGOTCall(s, at, r); err != nil {
					return err
				}
				continue
			}
			n := uint64(len(s.Data))
			text := func() []byte { return l.a.img.Text[off : off+n] }
			if err := l.relocate(text, at, r, s.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// relocate applies r to the section loaded at addr whose bytes buf
// returns (an accessor: text grows while stubs are laid out).
func (l *linker) relocate(buf func() []byte, addr uint64, r objfile.Reloc, sec string) error {
	if l.arch == ARM64 || l.arch == RISCV64 {
		return l.relocate64(buf, addr, r, sec)
	}
	tname := l.f.RelocTypeName(r.Type)
	where := fmt.Sprintf("%s+%#x", sec, r.Offset)
	if l.arch == ARM {
		switch elf.R_ARM(r.Type) {
		case elf.R_ARM_NONE, elf.R_ARM_V4BX:
			return nil
		case elf.R_ARM_CALL, elf.R_ARM_JUMP24, elf.R_ARM_ABS32, elf.R_ARM_REL32, elf.R_ARM_MOVW_ABS_NC, elf.R_ARM_MOVT_ABS:
		default:
			return l.errorf("relocation %s at %s", tname, where)
		}
	} else {
		switch elf.R_X86_64(r.Type) {
		case elf.R_X86_64_NONE:
			return nil
		case elf.R_X86_64_64, elf.R_X86_64_PC64, elf.R_X86_64_PC32, elf.R_X86_64_PLT32, elf.R_X86_64_32, elf.R_X86_64_32S,
			elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
		default:
			return l.errorf("relocation %s at %s", tname, where)
		}
	}
	if r.Offset+relocSize(l.arch, r.Type) > uint64(len(buf())) {
		return fmt.Errorf("%s: relocation %s at %s runs past its section", l.name, tname, where)
	}
	v, err := l.symAddr(r.Sym)
	var late *lateSym
	if errors.As(err, &late) {
		a := l.a
		a.later(func() {
			if err := l.apply(buf(), addr, r, a.addr(late.name), where); err != nil {
				a.fail("%v", err)
			}
		})
		return nil
	}
	if err != nil {
		return err
	}
	return l.apply(buf(), addr, r, v, where)
}

func relocSize(arch Arch, t uint32) uint64 {
	if arch == X86 && (elf.R_X86_64(t) == elf.R_X86_64_64 || elf.R_X86_64(t) == elf.R_X86_64_PC64) {
		return 8
	}
	return 4
}

// apply writes the relocated field of r, in buf loaded at addr, for
// symbol value s.
func (l *linker) apply(buf []byte, addr uint64, r objfile.Reloc, s uint64, where string) error {
	if l.arch == ARM {
		return l.applyARM(buf[r.Offset:], addr+r.Offset, r, s, where)
	}
	return l.applyX86(buf[r.Offset:], addr+r.Offset, r, s, where)
}
