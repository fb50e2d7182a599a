package objfile

import (
	"debug/elf"
	"fmt"
)

// hookSymbols lists, per architecture, the profiling hooks whose call sites
// ftrace patches.
var hookSymbols = [...]map[string]bool{
	ArchARM:     {"__gnu_mcount_nc": true, "mcount": true},
	ArchX86_64:  {"mcount": true, "__fentry__": true},
	ArchARM64:   {"_mcount": true},
	ArchRISCV64: {"_mcount": true},
}

// IsHook reports whether name is a profiling hook (__gnu_mcount_nc, mcount,
// __fentry__, _mcount) on arch.
func IsHook(arch Arch, name string) bool {
	if int(arch) >= len(hookSymbols) {
		return false
	}
	return hookSymbols[arch][name]
}

// callForm describes how a call relocation against a hook locates the call
// instruction.
type callForm struct {
	back   uint64 // bytes from the relocated field back to the instruction's first byte
	opcode []byte // required bytes at the instruction's start, if any
	length int    // length of the call (instruction pair on RISC-V)
}

// callForms maps (arch, relocation type) to the call shape it marks.
var callForms = map[Arch]map[uint32]callForm{
	ArchARM: {
		uint32(elf.R_ARM_CALL):       {length: 4},
		uint32(elf.R_ARM_PC24):       {length: 4},
		uint32(elf.R_ARM_JUMP24):     {length: 4},
		uint32(elf.R_ARM_THM_PC22):   {length: 4}, // R_ARM_THM_CALL
		uint32(elf.R_ARM_THM_JUMP24): {length: 4},
	},
	ArchX86_64: {
		uint32(elf.R_X86_64_PLT32):         {back: 1, opcode: []byte{0xe8}, length: 5},
		uint32(elf.R_X86_64_PC32):          {back: 1, opcode: []byte{0xe8}, length: 5},
		uint32(elf.R_X86_64_GOTPCRELX):     {back: 2, opcode: []byte{0xff, 0x15}, length: 6},
		uint32(elf.R_X86_64_GOTPCREL):      {back: 2, opcode: []byte{0xff, 0x15}, length: 6},
		uint32(elf.R_X86_64_REX_GOTPCRELX): {back: 2, opcode: []byte{0xff, 0x15}, length: 6},
	},
	ArchARM64: {
		uint32(elf.R_AARCH64_CALL26): {length: 4},
		uint32(elf.R_AARCH64_JUMP26): {length: 4},
	},
	ArchRISCV64: {
		uint32(elf.R_RISCV_CALL):     {length: 8},
		uint32(elf.R_RISCV_CALL_PLT): {length: 8},
	},
}

// tableRelocs lists the absolute relocation types a site table entry may
// carry, with their width.
var tableRelocs = map[Arch]map[uint32]uint64{
	ArchARM:     {uint32(elf.R_ARM_ABS32): 4},
	ArchX86_64:  {uint32(elf.R_X86_64_64): 8},
	ArchARM64:   {uint32(elf.R_AARCH64_ABS64): 8},
	ArchRISCV64: {uint32(elf.R_RISCV_64): 8},
}

// relativeRelocs gives, per architecture, the dynamic relocation type that
// fills a site table entry of a position-independent file: it stores the
// load address plus the addend (RELA) or plus the word already there (REL).
var relativeRelocs = [...]uint32{
	ArchARM:     uint32(elf.R_ARM_RELATIVE),
	ArchX86_64:  uint32(elf.R_X86_64_RELATIVE),
	ArchARM64:   uint32(elf.R_AARCH64_RELATIVE),
	ArchRISCV64: uint32(elf.R_RISCV_RELATIVE),
}

// relocWidth returns how many bytes of the target section a relocation of
// type t touches, as far as this package needs to know: the width of the
// types it interprets, 0 for NONE-like types, 1 (the offset must lie inside
// the section) for everything else.
func relocWidth(arch Arch, t uint32) uint64 {
	if t == 0 {
		return 0
	}
	if w, ok := tableRelocs[arch][t]; ok {
		return w
	}
	if _, ok := callForms[arch][t]; ok {
		if arch == ArchRISCV64 {
			return 8
		}
		return 4
	}
	if arch == ArchRISCV64 && (t == uint32(elf.R_RISCV_RELAX) || t == uint32(elf.R_RISCV_ALIGN)) {
		return 0
	}
	return 1
}

// relocTypeName returns the ELF name of relocation type t on machine m,
// e.g. "R_ARM_CALL".
func relocTypeName(m elf.Machine, t uint32) string {
	switch m {
	case elf.EM_ARM:
		if t == uint32(elf.R_ARM_THM_PC22) {
			return "R_ARM_THM_CALL"
		}
		return elf.R_ARM(t).String()
	case elf.EM_X86_64:
		return elf.R_X86_64(t).String()
	case elf.EM_AARCH64:
		return elf.R_AARCH64(t).String()
	case elf.EM_RISCV:
		return elf.R_RISCV(t).String()
	}
	return fmt.Sprintf("R_%d", t)
}

// RelocTypeName returns the ELF name of relocation type t in f, e.g.
// "R_X86_64_PLT32".
func (f *File) RelocTypeName(t uint32) string { return relocTypeName(f.Machine, t) }
