package kernel

import (
	"errors"
	"fmt"

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
// before anything is emitted (the trampolines depend on it).
func (l *linker) layout64() error {
	found, err := l.f.Sites()
	if err != nil {
		return err
	}
	if l.arch == ARM64 {
		return l.arm64Layout(found)
	}
	return l.riscvLayout(found)
}

// oneLayout sets l.prologue to the layout that layout finds at every site
// (given the site's section bytes), or to def when there is no site: an
// object's sites all have one layout. what names a layout in errors.
func (l *linker) oneLayout(found []objfile.Site, what, def string, layout func(s objfile.Site, code []byte) (string, error)) error {
	for _, s := range found {
		lay, err := layout(s, l.f.Sections[s.SectionIndex].Data)
		if err != nil {
			return err
		}
		if l.prologue != "" && l.prologue != lay {
			return l.errorf("site at %s is %s%s, but an earlier one is %s: one layout per object", s.FunctionRef(), what, lay, l.prologue)
		}
		l.prologue = lay
	}
	if l.prologue == "" {
		l.prologue = def // no site: the default trampolines
	}
	return nil
}

// sites64 adds the image's sites of an arm64 or riscv64 object.
func (l *linker) sites64() error {
	found, err := l.f.Sites()
	if err != nil {
		return err
	}
	if l.arch == ARM64 {
		l.sitesARM64(found)
	} else {
		l.sitesRISCV(found)
	}
	return nil
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
