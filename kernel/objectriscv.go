package kernel

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/objfile"
)

// Linking riscv64 objects (issue 15): the worker loop passes up to eight
// arguments in a0-a7; the object's sites decide the era of the
// trampolines around it (RVMcount, RVPFE16, RVPFE8 or RVAtomic, as Build
// lays them out); relocations follow the RISC-V ELF psABI ("Relocations"),
// linker relaxation not performed (R_RISCV_RELAX and R_RISCV_ALIGN leave
// the code as the assembler wrote it, which runs the same).

// workerRISCV emits the workload loop: a kthread frame, then per
// iteration a0-a7 loaded from a data segment of the arguments, call
// cfg.Function, call schedule; then do_exit.
func (l *linker) workerRISCV() {
	a := rvText{l.a}
	a.h(0x1101) // addi sp,sp,-32
	a.h(0xec06) // sd ra,24(sp)
	a.h(0xe822) // sd s0,16(sp)
	a.w(riscv.Addi(riscv.S0, riscv.Zero, int32(l.cfg.Iterations)))
	loop := a.pc()
	if n := len(l.cfg.Args); n > 0 {
		at := uint64(RISCVObjectData - 0x1000) // the arguments, a page below the object's data
		b := make([]byte, 8*n)
		for i, v := range l.cfg.Args {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
			rd := riscv.A0 + i
			a.pcrel(rd, at+uint64(8*i), func(lo int32) riscv.Word { return riscv.Ld(rd, rd, lo) })
		}
		a.img.Data = append(a.img.Data, Segment{Name: "worker args", Addr: at, Bytes: b})
	}
	a.call(riscv.RA, l.cfg.Function)
	l.ret = a.pc()
	a.call(riscv.RA, "schedule")
	a.w(riscv.Addi(riscv.S0, riscv.S0, -1))
	a.w(a.ok(riscv.Bne(riscv.S0, riscv.Zero, a.pc(), loop)))
	a.call(riscv.RA, "do_exit")
}

// stubRISCV returns 0 and clobbers the caller-saved t0-t6 and a1-a7.
func (l *linker) stubRISCV() {
	a := rvText{l.a}
	for _, r := range []int{riscv.A0, riscv.A1, riscv.A2, riscv.A3, riscv.A4, riscv.A5, riscv.A6, riscv.A7,
		riscv.T0, riscv.T1, riscv.T2, 28, 29, 30, 31} {
		a.w(riscv.Mv(r, riscv.Zero))
	}
	a.w(riscv.Ret())
}

// siteRISCV is the site of function fn at p in the object's era.
func (l *linker) siteRISCV(_ objfile.Site, fn string, p uint64) (Site, error) {
	switch l.prologue {
	case RVPFE16:
		return Site{Func: fn, Addr: p, Len: 16, Call: p}, nil
	case RVAtomic:
		// The patchable words are the 8 bytes at the entry; rec->ip is
		// the jalr slot (ftrace_call_adjust: addr + 4).
		return Site{Func: fn, Addr: p + 8, Len: 8, Call: p + 12}, nil
	}
	return Site{Func: fn, Addr: p, Len: 8, Call: p}, nil // era 0's auipc+jalr, era 2's 8 bytes
}

// checkRISCV refuses a text that reaches the ftrace data at RISCVData,
// and an era-3 object with a patchable function whose entry is not 4-byte
// aligned.
//
// Era 3 toggles the jalr word at entry+4 with one 4-byte store, which
// Ziccif makes atomic for the fetch only when the word is naturally
// aligned; a word at 2 mod 4 may be fetched in halves, old and new. Linux
// therefore aligns every patchable function to 4 bytes (c41bf4326c7b:
// FUNCTION_ALIGNMENT_4B with RVC, built with -fmin-function-alignment=4),
// and because gcc's -falign-functions does not align every function (it
// is ignored when optimizing for size and for cold functions, GCC PR
// 88345), GCC_SUPPORTS_DYNAMIC_FTRACE depends on
// CC_HAS_MIN_FUNCTION_ALIGNMENT || !RISCV_ISA_C: with RVC and a compiler
// without -fmin-function-alignment (gcc < 14) the kernel is built without
// dynamic ftrace, never with an unaligned site. A linker cannot realign a
// function inside its section either, so LinkObject refuses the object, as
// the kernel's configuration does, naming the first unaligned function.
func (l *linker) checkRISCV(img *Image) error {
	if img.Base+uint64(len(img.Text)) > RISCVData {
		return l.errorf("text larger than %d KiB", (RISCVData-RISCVBase)>>10)
	}
	if l.prologue != RVAtomic {
		return nil
	}
	var bad []Site
	for _, s := range img.Sites {
		if s.Addr%4 != 0 {
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	more := ""
	if len(bad) > 1 {
		more = fmt.Sprintf(" (and %d more patchable functions)", len(bad)-1)
	}
	return l.errorf("patchable function %s starts at %#x, 2 mod 4%s: the atomic layout toggles the jalr word at entry+4 with one store, atomic for the fetch only when 4-byte aligned, and Linux requires every patchable function 4-byte aligned (FUNCTION_ALIGNMENT_4B; without -fmin-function-alignment=4, gcc 14+, it builds an RVC kernel without dynamic ftrace, since -falign-functions=4 is ignored at -Os and for cold functions)",
		bad[0].Func, bad[0].Addr, more)
}

// riscvReloc returns the size of the field relocation type t writes, 0
// for one that writes nothing, or -1 for one the linker does not know.
func riscvReloc(t uint32) int {
	switch elf.R_RISCV(t) {
	case elf.R_RISCV_NONE, elf.R_RISCV_RELAX, elf.R_RISCV_ALIGN:
		return 0
	case elf.R_RISCV_64, elf.R_RISCV_ADD64, elf.R_RISCV_SUB64:
		return 8
	case elf.R_RISCV_CALL, elf.R_RISCV_CALL_PLT:
		return 8
	case elf.R_RISCV_32, elf.R_RISCV_32_PCREL, elf.R_RISCV_ADD32, elf.R_RISCV_SUB32, elf.R_RISCV_BRANCH, elf.R_RISCV_JAL,
		elf.R_RISCV_PCREL_HI20, elf.R_RISCV_PCREL_LO12_I, elf.R_RISCV_PCREL_LO12_S,
		elf.R_RISCV_HI20, elf.R_RISCV_LO12_I, elf.R_RISCV_LO12_S:
		return 4
	case elf.R_RISCV_RVC_BRANCH, elf.R_RISCV_RVC_JUMP, elf.R_RISCV_ADD16, elf.R_RISCV_SUB16:
		return 2
	case elf.R_RISCV_ADD8, elf.R_RISCV_SUB8:
		return 1
	}
	return -1
}

// applyRISCV writes the field of r at p for symbol value s.
func (l *linker) applyRISCV(field []byte, p uint64, r objfile.Reloc, s uint64, where string) error {
	tname, sa, d, bad := l.relocValues(p, r, s, where)
	le := binary.LittleEndian
	w := func() uint32 { return le.Uint32(field) }
	put := func(v uint32) { le.PutUint32(field, v) }
	hi20 := func(v int64) uint32 { return uint32((v+0x800)>>12) & 0xfffff }
	lo12 := func(v int64) uint32 { return uint32(v<<52>>52) & 0xfff }
	switch elf.R_RISCV(r.Type) {
	case elf.R_RISCV_64:
		le.PutUint64(field, uint64(sa))
	case elf.R_RISCV_ADD64:
		le.PutUint64(field, le.Uint64(field)+uint64(sa))
	case elf.R_RISCV_SUB64:
		le.PutUint64(field, le.Uint64(field)-uint64(sa))
	case elf.R_RISCV_32:
		if sa < -(1<<31) || sa >= 1<<32 {
			return bad()
		}
		put(uint32(sa))
	case elf.R_RISCV_32_PCREL:
		if !fits(d, 32) {
			return bad()
		}
		put(uint32(d))
	case elf.R_RISCV_ADD32:
		put(w() + uint32(sa))
	case elf.R_RISCV_SUB32:
		put(w() - uint32(sa))
	case elf.R_RISCV_ADD16:
		le.PutUint16(field, le.Uint16(field)+uint16(sa))
	case elf.R_RISCV_SUB16:
		le.PutUint16(field, le.Uint16(field)-uint16(sa))
	case elf.R_RISCV_ADD8:
		field[0] += uint8(sa)
	case elf.R_RISCV_SUB8:
		field[0] -= uint8(sa)
	case elf.R_RISCV_BRANCH:
		if d&1 != 0 || !fits(d, 13) {
			return bad()
		}
		u := uint32(d)
		put(w()&^0xfe000f80 | (u>>12&1)<<31 | (u>>5&0x3f)<<25 | (u>>1&0xf)<<8 | (u>>11&1)<<7)
	case elf.R_RISCV_JAL:
		if d&1 != 0 || !fits(d, 21) {
			return bad()
		}
		u := uint32(d)
		put(w()&0xfff | (u>>20&1)<<31 | (u>>1&0x3ff)<<21 | (u>>11&1)<<20 | (u>>12&0xff)<<12)
	case elf.R_RISCV_CALL, elf.R_RISCV_CALL_PLT:
		if d&1 != 0 || !fits(d+0x800, 32) {
			return bad()
		}
		put(w()&0xfff | hi20(d)<<12)
		jalr := le.Uint32(field[4:])
		le.PutUint32(field[4:], jalr&0xfffff|lo12(d)<<20)
	case elf.R_RISCV_PCREL_HI20:
		if !fits(d+0x800, 32) {
			return bad()
		}
		put(w()&0xfff | hi20(d)<<12)
	case elf.R_RISCV_HI20:
		if !fits(sa+0x800, 32) {
			return bad()
		}
		put(w()&0xfff | hi20(sa)<<12)
	case elf.R_RISCV_LO12_I:
		put(w()&0xfffff | lo12(sa)<<20)
	case elf.R_RISCV_LO12_S:
		put(sType(w(), lo12(sa)))
	case elf.R_RISCV_PCREL_LO12_I, elf.R_RISCV_PCREL_LO12_S:
		// s is the address of the auipc whose %pcrel_hi this pairs with:
		// the low 12 bits are those of that auipc's displacement.
		hi, ok := l.pcrelHi(s)
		if !ok {
			return l.errorf("%s at %s: no R_RISCV_PCREL_HI20 at %#x", tname, where, s)
		}
		t, err := l.resolve(hi.Sym)
		if err != nil {
			return err
		}
		lo := lo12(int64(t) + hi.Addend - int64(s))
		if elf.R_RISCV(r.Type) == elf.R_RISCV_PCREL_LO12_I {
			put(w()&0xfffff | lo<<20)
		} else {
			put(sType(w(), lo))
		}
	case elf.R_RISCV_RVC_BRANCH:
		if d&1 != 0 || !fits(d, 9) {
			return bad()
		}
		u := uint16(d)
		h := le.Uint16(field)&^0x1c7c | (u>>8&1)<<12 | (u>>3&3)<<10 | (u>>6&3)<<5 | (u>>1&3)<<3 | (u>>5&1)<<2
		le.PutUint16(field, h)
	case elf.R_RISCV_RVC_JUMP:
		if d&1 != 0 || !fits(d, 12) {
			return bad()
		}
		u := uint16(d)
		h := le.Uint16(field)&^0x1ffc | (u>>11&1)<<12 | (u>>4&1)<<11 | (u>>8&3)<<9 | (u>>10&1)<<8 |
			(u>>6&1)<<7 | (u>>7&1)<<6 | (u>>1&7)<<3 | (u>>5&1)<<2
		le.PutUint16(field, h)
	}
	return nil
}

// sType puts a 12-bit immediate into an S-type instruction.
func sType(w, imm uint32) uint32 {
	return w&^0xfe000f80 | (imm>>5&0x7f)<<25 | (imm&0x1f)<<7
}

// pcrelHi returns the R_RISCV_PCREL_HI20 relocation of the auipc loaded
// at addr.
func (l *linker) pcrelHi(addr uint64) (objfile.Reloc, bool) {
	if l.hi20 == nil {
		l.hi20 = map[uint64]objfile.Reloc{}
		for _, s := range l.f.Sections {
			at, ok := l.secAddr[s.Index]
			if !ok || !s.Executable() {
				continue
			}
			for _, r := range s.Relocs {
				if elf.R_RISCV(r.Type) == elf.R_RISCV_PCREL_HI20 {
					l.hi20[at+r.Offset] = r
				}
			}
		}
	}
	r, ok := l.hi20[addr]
	return r, ok
}
