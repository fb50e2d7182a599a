// Package objfile reads ELF objects and executables and finds every place
// where a kernel's dynamic ftrace would patch code: the mcount, fentry and
// patchable-function-entry call sites.
//
// It loads 32-bit ARM (A32 and Thumb-2, REL relocations), x86-64 (RELA),
// AArch64 and RISC-V 64 files: relocatable objects (.o), linked
// executables, and position-independent executables and shared objects
// (ET_DYN). [Open] and [NewFile] read the symbols, every executable
// section (SHF_EXECINSTR: .text, .text.startup, .text.unlikely, .init.text,
// …), the __mcount_loc and __patchable_function_entries tables and the
// relocations that apply to them (in an ET_DYN file, the dynamic
// relocations in .rela.dyn or .rel.dyn), and check every size, offset and
// index before using it. A corrupt file yields a [*FormatError]; the loader
// never panics on bad input.
//
// Hostile input is bounded before it is read: [Open] refuses, without
// blocking, anything but a regular file (a FIFO, a device, a directory)
// and files over [MaxFileSize] (256 MiB); every section it reads must lie
// inside the file, and the section contents read add up to at most the
// file's size; the section, symbol and relocation counts and the bytes of
// section names are checked against [MaxSections], [MaxSymbols],
// [MaxRelocs] and [MaxSectionNames] before anything is allocated for them
// ([ErrLimit]); compressed symbol, string and relocation tables are
// refused. The memory of a load is thus about the size of the sections it
// reads plus a few hundred bytes per section, symbol and relocation.
//
// [File.Sites] finds sites by three methods and reports each site once with
// every method that found it:
//
//   - [MethodReloc]: a call relocation against the profiling hook
//     (__gnu_mcount_nc on ARM, mcount or __fentry__ on x86-64, _mcount on
//     arm64 and RISC-V). The site is the first byte of the call.
//   - [MethodMloc]: an entry of __mcount_loc, written by gcc's
//     -mrecord-mcount, the kernel's recordmcount or objtool --mcount.
//   - [MethodPFE]: an entry of __patchable_function_entries, written by
//     -fpatchable-function-entry=N[,M]; the entry is the first NOP, which
//     may sit before the function symbol.
//
// The reloc method needs static relocations, so it finds nothing in linked
// files. There the table entries hold the sites' addresses, but in an
// ET_DYN file a RELATIVE dynamic relocation must fill in each entry
// (R_X86_64_RELATIVE, R_AARCH64_RELATIVE, R_RISCV_RELATIVE: the addend;
// R_ARM_RELATIVE, a REL type: the word in the table), and the site is at
// that link-time address (load address 0). Any other dynamic relocation
// type on an entry is an error.
//
// Each site is attributed to the FUNC symbol containing it, or, for NOPs
// placed before a function, to the function that follows them. A linked
// file without .symtab is read through its .dynsym.
//
// Imports: the standard library and golang.org/x/arch (for disassembling
// the site bytes) only. It must not import other mcountsim packages, except
// internal/regfile (a leaf of the standard library: opening a file without
// blocking) and isa/arm (whose lock serializes every armasm.Decode of the
// process).
package objfile
