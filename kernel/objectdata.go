package kernel

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mcountsim/mcountsim/isa/arm64"
	"github.com/mcountsim/mcountsim/objfile"
	"golang.org/x/arch/x86/x86asm"
)

// pageSize is the page of the data layout (sched.PageSize).
const pageSize = 4096

// stackCanary is the value of __stack_chk_guard (its low byte 0, as
// CANARY_MASK leaves it; on ARM its low 32 bits).
const stackCanary = 0x9e3779b97f4a7c00

// currentSize is the size of the task_struct stand-in at Image.Current.
const currentSize = 2 * pageSize

// readsCurrent reports whether the object's code reads the current task
// pointer: an A64 mrs of sp_el0, a RISC-V load based on tp (x4; no
// compressed load can name it), or an x86-64 operand with a gs override
// (the per-CPU area, whose canary is the current task's).
func (l *linker) readsCurrent() bool {
	for _, s := range l.f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Data == nil {
			continue
		}
		d := s.Data
		switch l.arch {
		case X86:
			for i := 0; i < len(d); {
				inst, err := x86asm.Decode(d[i:], 64)
				if err != nil {
					i++
					continue
				}
				for _, a := range inst.Args {
					if m, ok := a.(x86asm.Mem); ok && m.Segment == x86asm.GS {
						return true
					}
				}
				i += inst.Len
			}
		case ARM64:
			for i := 0; i+4 <= len(d); i += 4 {
				if arm64.IsMrsSPEL0(binary.LittleEndian.Uint32(d[i:])) {
					return true
				}
			}
		case RISCV64:
			for i := 0; i+2 <= len(d); {
				if d[i]&3 != 3 {
					i += 2
					continue
				}
				if i+4 > len(d) {
					break
				}
				w := binary.LittleEndian.Uint32(d[i:])
				if w&0x7f == 0x03 && w>>15&0x1f == 4 { // LOAD, rs1 = tp
					return true
				}
				i += 4
			}
		}
	}
	return false
}

// dataOrder returns the indices of the allocated non-executable sections
// to lay out as data: the writable ones in section order, then the
// read-only ones.
func (l *linker) dataOrder() []int {
	var rw, ro []int
	for i, es := range l.ef.Sections {
		if es.Flags&elf.SHF_ALLOC == 0 || es.Flags&elf.SHF_EXECINSTR != 0 || es.Size == 0 {
			continue
		}
		if es.Type != elf.SHT_PROGBITS && es.Type != elf.SHT_NOBITS && es.Type != elf.SHT_INIT_ARRAY && es.Type != elf.SHT_FINI_ARRAY {
			continue
		}
		if es.Flags&elf.SHF_WRITE != 0 {
			rw = append(rw, i)
		} else {
			ro = append(ro, i)
		}
	}
	return append(rw, ro...)
}

// data lays out every allocated non-executable section (and COMMON
// symbols) as data segments, applies their relocations, and makes room
// for the GOT.
func (l *linker) data() error {
	img := l.a.img
	dbase := l.dataBase()
	next := dbase
	type pending struct {
		seg int
		sec *elf.Section
		idx int
	}
	var todo []pending
	// The writable sections first, then the read-only ones from a page of
	// their own, as a linker puts .rodata and .data in different segments:
	// a page holding only read-only data is read-only (a store there
	// faults), and loads from it commute with everything (the partial-order
	// reduction, explore's package doc). COMMON and the GOT, writable,
	// start a page of their own after read-only data.
	roLast := false
	for _, i := range l.dataOrder() {
		es := l.ef.Sections[i]
		if ro := es.Flags&elf.SHF_WRITE == 0; ro != roLast {
			if next > dbase {
				next = (next + pageSize - 1) &^ (pageSize - 1)
			}
			roLast = ro
		}
		align := max(es.Addralign, 8)
		if align > 4096 || align&(align-1) != 0 || es.Size > maxData || next+es.Size > dbase+maxData {
			return fmt.Errorf("%s: %w: section %s (size %#x, alignment %#x) does not fit in %d MiB of data", l.name, ErrUnsupportedObject, es.Name, es.Size, es.Addralign, maxData>>20)
		}
		next = (next + align - 1) &^ (align - 1)
		b := make([]byte, es.Size)
		if es.Type != elf.SHT_NOBITS {
			d, err := es.Data()
			if err != nil {
				return fmt.Errorf("%s: section %s: %v", l.name, es.Name, err)
			}
			copy(b, d)
		}
		l.secAddr[i] = next
		img.Data = append(img.Data, Segment{Name: es.Name, Addr: next, Bytes: b, ReadOnly: es.Flags&elf.SHF_WRITE == 0})
		todo = append(todo, pending{len(img.Data) - 1, es, i})
		next += es.Size
	}
	if roLast {
		next = (next + pageSize - 1) &^ (pageSize - 1)
	}
	var commons []byte
	cbase := (next + 15) &^ 15
	for i, s := range l.f.Symbols {
		if s.Section != elf.SHN_COMMON {
			continue
		}
		align := max(s.Value, 1)
		if align > 4096 || align&(align-1) != 0 || s.Size > maxData || uint64(len(commons))+s.Size > maxData {
			return fmt.Errorf("%s: %w: common symbol %s (size %#x, alignment %#x) does not fit in %d MiB of data", l.name, ErrUnsupportedObject, s.Name, s.Size, s.Value, maxData>>20)
		}
		off := (uint64(len(commons)) + align - 1) &^ (align - 1)
		commons = append(commons, make([]byte, off+s.Size-uint64(len(commons)))...)
		if l.common == nil {
			l.common = map[int]uint64{}
		}
		l.common[i] = cbase + off
	}
	if len(commons) > 0 {
		img.Data = append(img.Data, Segment{Name: "COMMON", Addr: cbase, Bytes: commons})
		next = cbase + uint64(len(commons))
	}
	// The kernel's stack canary, for an object built with
	// -fstack-protector and the global guard: a word boot_init_stack_canary
	// set once from a random value with its low byte 0 (CANARY_MASK), read
	// only after boot (arm64's is __ro_after_init), so on a read-only page
	// of its own. The value is fixed: the machine is deterministic.
	if l.undefined(stackChkGuard) {
		at := (next + pageSize - 1) &^ (pageSize - 1)
		word := make([]byte, 8)
		binary.LittleEndian.PutUint64(word, stackCanary)
		if l.arch == ARM {
			word = word[:4]
		}
		img.Data = append(img.Data, Segment{Name: stackChkGuard, Addr: at, Bytes: word, ReadOnly: true})
		l.kdata = map[string]uint64{stackChkGuard: at}
		next = at + pageSize
	}
	// The per-task canary: arm64 kernels keep current in sp_el0 and
	// RISC-V ones in tp, and -mstack-protector-guard=sysreg/tls loads the
	// canary at an offset from it (TSK_STACK_CANARY, up to a few KiB into
	// task_struct); x86-64 ones load this CPU's copy of it through gs
	// (%gs:40, gcc's default for -mcmodel=kernel, or
	// %gs:__ref_stack_chk_guard, a per-CPU symbol at offset 0 of the
	// area here). Two read-only pages of canary words stand for both.
	if l.readsCurrent() {
		at := (next + pageSize - 1) &^ (pageSize - 1)
		page := make([]byte, currentSize)
		for i := 0; i < len(page); i += 8 {
			binary.LittleEndian.PutUint64(page[i:], stackCanary)
		}
		img.Data = append(img.Data, Segment{Name: "current", Addr: at, Bytes: page, ReadOnly: true})
		img.Current = at
		next = at + currentSize
		if l.arch == X86 {
			if l.kdata == nil {
				l.kdata = map[string]uint64{}
			}
			l.kdata[refStackChkGuard] = 0
		}
	}
	// Relocations of data sections (pointers in .data, jump tables in .rodata).
	for _, p := range todo {
		relocs, err := l.elfRelocs(p.idx)
		if err != nil {
			return err
		}
		seg := img.Data[p.seg]
		for _, r := range relocs {
			if err := l.relocate(func() []byte { return seg.Bytes }, seg.Addr, r, p.sec.Name); err != nil {
				return err
			}
		}
	}
	// The GOT: one slot per symbol a GOT relocation of text names (x86-64's
	// GOTPCREL; arm64's ADR_GOT_PAGE and LD64_GOT_LO12_NC, which gcc emits
	// for the address of an undefined weak symbol even with -fno-pie).
	l.gotSeg = -1
	if l.arch == X86 || l.arch == ARM64 {
		var n int
		for _, s := range l.f.Sections {
			for _, r := range s.Relocs {
				if isGOTReloc(l.arch, r.Type) {
					if _, ok := l.got[r.Sym]; !ok && !l.hookSym(r.Sym) {
						l.got[r.Sym] = uint64(n) * 8
						n++
					}
				}
			}
		}
		if n > 0 {
			at := (next + 15) &^ 15
			img.Data = append(img.Data, Segment{Name: "GOT", Addr: at, Bytes: make([]byte, n*8)})
			l.gotSeg = len(img.Data) - 1
			got := img.Data[l.gotSeg].Bytes
			for sym, off := range l.got {
				l.got[sym] = at + off
				v, err := l.symAddr(sym)
				var late *lateSym
				switch {
				case errors.As(err, &late):
					a := l.a
					a.later(func() { binary.LittleEndian.PutUint64(got[off:], a.addr(late.name)) })
				case err != nil:
					return err
				default:
					binary.LittleEndian.PutUint64(got[off:], v)
				}
			}
		}
	}
	return nil
}

// isGOTReloc reports whether relocation type t of arch reads a GOT slot.
func isGOTReloc(arch Arch, t uint32) bool {
	switch arch {
	case X86:
		switch elf.R_X86_64(t) {
		case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
			return true
		}
	case ARM64:
		switch elf.R_AARCH64(t) {
		case elf.R_AARCH64_ADR_GOT_PAGE, elf.R_AARCH64_LD64_GOT_LO12_NC:
			return true
		}
	}
	return false
}

// elfRelocs returns the relocations applying to section idx of a data
// section (objfile loads those of text only).
func (l *linker) elfRelocs(idx int) ([]objfile.Reloc, error) {
	var out []objfile.Reloc
	bo := l.ef.ByteOrder
	for _, rs := range l.ef.Sections {
		if (rs.Type != elf.SHT_REL && rs.Type != elf.SHT_RELA) || int(rs.Info) != idx {
			continue
		}
		d, err := rs.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: section %s: %v", l.name, rs.Name, err)
		}
		rela := rs.Type == elf.SHT_RELA
		size := map[bool]map[bool]int{false: {false: 8, true: 12}, true: {false: 16, true: 24}}[l.ef.Class == elf.ELFCLASS64][rela]
		for off := 0; off+size <= len(d); off += size {
			e := d[off : off+size]
			var r objfile.Reloc
			r.RELA = rela
			if l.ef.Class == elf.ELFCLASS32 {
				info := bo.Uint32(e[4:])
				r.Offset, r.Sym, r.Type = uint64(bo.Uint32(e)), int(info>>8), info&0xff
				if rela {
					r.Addend = int64(int32(bo.Uint32(e[8:])))
				}
			} else {
				info := bo.Uint64(e[8:])
				r.Offset, r.Sym, r.Type = bo.Uint64(e), int(info>>32), uint32(info)
				if rela {
					r.Addend = int64(bo.Uint64(e[16:]))
				}
			}
			if r.Sym >= len(l.f.Symbols) {
				return nil, fmt.Errorf("%s: relocation in %s names symbol %d of %d", l.name, rs.Name, r.Sym, len(l.f.Symbols))
			}
			out = append(out, r)
		}
	}
	return out, nil
}
