package x86

import (
	"bytes"
	"github.com/mcountsim/mcountsim/isa"

	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

var (
	errTruncated   = isa.Detail("truncated at the end of the bytes available", isa.ErrUndecodable)
	errSegment     = isa.Detail("fs segment override", isa.ErrUnsupported)
	errGSString    = isa.Detail("gs segment override of a string instruction", isa.ErrUnsupported)
	errAddrSize    = isa.Detail("32-bit address size", isa.ErrUnsupported)
	errDataSize16  = isa.Detail("16-bit operand size for a stack or branch instruction", isa.ErrUnsupported)
	errOperandForm = isa.Detail("operand form", isa.ErrUnsupported)
	errOutside     = isa.Detail("pc outside the text segment", isa.ErrMemory)
)

// MaxLen is the longest x86 instruction, in bytes.
const MaxLen = 15

// Operand kinds.
const (
	kindNone uint8 = iota
	kindReg
	kindMem
	kindImm
)

// Register numbers that are not general-purpose registers, used in operand.
const (
	noBase  uint8 = 0xff // no base or index register
	ripBase uint8 = 0x10 // RIP-relative: base is the address of the next instruction
)

// operand is one resolved operand.
type operand struct {
	kind  uint8
	reg   uint8 // register number 0–15 (for AH–BH: 0–3 with high set)
	sh    uint8 // 8 for AH, CH, DH or BH (bits 8–15 of the register), else 0
	size  uint8 // bytes: 1, 2, 4 or 8
	base  uint8 // memory: base register, noBase or ripBase
	index uint8 // memory: index register or noBase
	scale uint8
	val   int64 // memory: the displacement; immediate: the value, sign-extended as x86asm reports it
	gs    bool  // memory: a gs override (Regs.GSBase is added)
}

// Inst is one decoded instruction, with its operands resolved for the
// executor. Arch keeps x86asm's own view (for disassembly); the other fields
// are derived from it once, at decode time.
type Inst struct {
	Resolved
	Arch x86asm.Inst
}

// Resolved is what Exec needs of an instruction, without x86asm's view:
// its bytes and the operands resolved from them, the fields the fast
// paths read first (so that running a decoded instruction touches as few
// cache lines as possible). A table of them (package sched's plain
// decodings) is less than half the size of one of Insts.
type Resolved struct {
	Op   x86asm.Op // Arch.Op, except ENDBR64 and the prefetch hints, which are decoded as a NOP
	Len  uint8     // encoded length in bytes
	Cond Cond      // for Jcc, SETcc and CMOVcc
	size uint8     // operand size in bytes of the destination (or only) operand
	int3 bool
	// trap is an int3's fault at the pc it was decoded for (decode): Exec
	// returns it on every trap there, so that a trap allocates nothing
	trap     *isa.Fault
	endbr    bool
	fast     uint8 // the form Exec runs on its fast path (fast.go), or fastNone
	str      uint8 // a string instruction's kind (strops.go), or strNone
	rep      uint8 // its repeat prefix, or repNone
	nraw     uint8 // how many bytes of raw the decoding depends on
	linkLoad bool  // an indirect jump through memory: Run stops after it
	dst      operand
	src      operand
	err      error   // isa.ErrUnsupported (wrapped) when the executor cannot run it
	Rel      int64   // direct branch displacement: the target is pc+Len+Rel
	src2     operand // third operand (imul's immediate)
	raw      [MaxLen]byte
}

// Bytes returns the bytes inst was decoded from. The slice aliases inst.
func (inst *Resolved) Bytes() []byte { return inst.raw[:inst.Len] }

// Target returns the target of a direct CALL, JMP or Jcc fetched from pc:
// pc+Len+Rel. ok is false for any other instruction.
func (inst *Inst) Target(pc uint64) (target uint64, ok bool) {
	if _, ok := inst.Arch.Args[0].(x86asm.Rel); !ok || inst.err != nil {
		return 0, false
	}
	return pc + uint64(inst.Len) + uint64(inst.Rel), true
}

// Decode decodes the instruction at the start of src, fetched from pc. src
// should hold the bytes from pc to the end of the text segment (at most 15
// are looked at). It is safe for concurrent use: x86asm.Decode writes no
// shared state unless its own tests enable coverage. An undecodable or
// truncated sequence gives an *isa.Fault wrapping isa.ErrUndecodable; bytes that
// decode to an instruction the executor does not run give an Inst whose Exec
// fails with isa.ErrUnsupported (so that they fault only if executed).
func Decode(pc uint64, src []byte) (Inst, error) {
	var inst Inst
	err := decode(&inst, pc, src)
	return inst, err
}

var endbr64 = [4]byte{0xf3, 0x0f, 0x1e, 0xfa}

func decode(inst *Inst, pc uint64, src []byte) error {
	n := min(len(src), MaxLen)
	*inst = Inst{}
	copy(inst.raw[:], src[:n])
	if n >= 4 && [4]byte(src[:4]) == endbr64 {
		// x86asm v0.33.0 reports f3 0f 1e fa as a lone REP prefix.
		inst.Op, inst.Len, inst.nraw, inst.endbr = x86asm.NOP, 4, 4, true
		inst.Arch = x86asm.Inst{Op: x86asm.NOP, Mode: 64, AddrSize: 64, DataSize: 32, Len: 4}
		return nil
	}
	ai, ok := decodeAny(src[:n])
	if !ok {
		inst.nraw = uint8(n)
		e := &isa.Fault{PC: pc, Bytes: bytes.Clone(src[:n]), Err: isa.ErrUndecodable}
		if n < MaxLen {
			var pad [MaxLen]byte
			copy(pad[:], src[:n])
			if p, ok := decodeAny(pad[:]); ok && p.Len > n {
				e.Err = errTruncated
			}
		}
		return e
	}
	inst.Arch = ai
	inst.Op = ai.Op
	switch ai.Op {
	case x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHNTA, x86asm.PREFETCHW:
		// Hints (SDM Vol. 2, PREFETCHh and PREFETCHW): no architectural
		// effect, and no fault whatever the address (gcc's
		// __builtin_prefetch; the kernel's prefetch() and prefetchw()).
		inst.Op = x86asm.NOP
	}
	inst.Len = uint8(ai.Len)
	inst.nraw = uint8(ai.Len)
	compile(inst)
	if inst.int3 {
		inst.trap = &isa.Fault{PC: pc, Bytes: []byte{0xcc}, Disasm: "int3", Err: isa.ErrBreakpoint}
	}
	return nil
}

// decodeAny decodes the instruction at the start of src with x86asm,
// falling back to hintNop. x86asm reports a truncated instruction, and an
// unknown opcode after a prefix, as a one-byte Inst with Op 0 and no
// error: both count as failures here.
func decodeAny(src []byte) (x86asm.Inst, bool) {
	ai, err := x86asm.Decode(src, 64)
	if err == nil && ai.Op != 0 && ai.Len <= len(src) {
		return ai, true
	}
	return hintNop(src)
}

// hintNop decodes the reserved-NOP opcodes 0F 19–0F 1F /r (SDM Vol. 2
// appendix A, table A-3; on CPUs without MPX, CET or CLDEMOTE they all
// execute as NOP, whatever the reg field), which x86asm rejects or does not
// know (it accepts only 0F 1F /0), as the NOP 0F 1F /0 with the same mod
// and r/m, hence the same length. A torn write over a call can leave such
// bytes in text: "0f 1e fa" is "nop %edx" to a CPU.
func hintNop(src []byte) (x86asm.Inst, bool) {
	i := 0
	for i < len(src) {
		switch src[i] {
		case 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf2, 0xf3:
			i++
			continue
		}
		break
	}
	if i < len(src) && src[i]&0xf0 == 0x40 { // REX
		i++
	}
	if i+2 >= len(src) || src[i] != 0x0f || src[i+1] < 0x19 || src[i+1] > 0x1f {
		return x86asm.Inst{}, false
	}
	var buf [MaxLen]byte
	n := copy(buf[:], src)
	buf[i+1] = 0x1f
	buf[i+2] &^= 0x38 // reg field: /0
	ai, err := x86asm.Decode(buf[:n], 64)
	if err != nil || ai.Op != x86asm.NOP || ai.Len > n {
		return x86asm.Inst{}, false
	}
	return ai, true
}

// Cache holds decoded instructions for one text segment, indexed by byte
// address. Every hit is checked against the bytes now in text, so a write
// to text never leaves a stale entry; writers need not tell the cache
// anything. An entry takes about 360 bytes per byte of text. A Cache is not
// safe for concurrent use: give each goroutine its own.
type Cache struct{ c isa.DecodeCache[Inst] }

// NewCache returns a cache for a text segment of size bytes at base.
func NewCache(base uint64, size int) *Cache {
	return &Cache{isa.NewDecodeCache[Inst](base, size, 1)}
}

// Lookup returns the decoding of the bytes at the start of src, fetched
// from pc, from the cache when the cached entry was decoded from the same
// bytes. src must hold the bytes from pc to the end of the segment; a pc
// outside the segment is an *isa.Fault wrapping isa.ErrMemory. The returned Inst stays valid until the next
// Lookup at the same pc.
func (c *Cache) Lookup(pc uint64, src []byte) (*Inst, error) {
	e := c.c.Entry(pc)
	if e == nil {
		return nil, &isa.Fault{PC: pc, Err: errOutside}
	}
	if e.Valid {
		n := int(e.Inst.nraw)
		// A failed decoding depends on every byte that was available.
		if n <= len(src) && bytes.Equal(e.Inst.raw[:n], src[:n]) &&
			(e.Err == nil || n == min(len(src), MaxLen)) {
			return &e.Inst, e.Err
		}
	}
	e.Err = decode(&e.Inst, pc, src)
	e.Valid = true
	return &e.Inst, e.Err
}

// Disasm returns the GNU (AT&T) syntax of inst at pc, with branch targets
// written as absolute addresses, named by sym when it knows them (sym may
// be nil). ENDBR64 is written "endbr64".
func Disasm(inst *Inst, pc uint64, sym func(addr uint64) string) string {
	if inst.endbr {
		return "endbr64"
	}
	if inst.Arch.Op == 0 {
		return "(bad)"
	}
	ai := inst.Arch
	if rel, ok := ai.Args[0].(x86asm.Rel); ok {
		// Written here rather than by x86asm, which prints targets
		// relative to "." when pc is 0.
		target := pc + uint64(inst.Len) + uint64(rel)
		ai.Args[0] = nil
		t := fmt.Sprintf("%#x", target)
		if n := symName(sym, target); n != "" {
			t += " <" + n + ">"
		}
		return x86asm.GNUSyntax(ai, pc, nil) + " " + t
	}
	var lookup x86asm.SymLookup
	if sym != nil {
		lookup = func(a uint64) (string, uint64) {
			if s := sym(a); s != "" {
				return s, a
			}
			return "", 0
		}
	}
	return x86asm.GNUSyntax(ai, pc, lookup)
}

func symName(sym func(uint64) string, a uint64) string {
	if sym == nil {
		return ""
	}
	return sym(a)
}

// DisasmBytes decodes src at pc and returns its disassembly, or "(bad)".
func DisasmBytes(pc uint64, src []byte) string {
	inst, err := Decode(pc, src)
	if err != nil {
		return "(bad)"
	}
	return Disasm(&inst, pc, nil)
}

// regOperand resolves a general-purpose register of any width.
func regOperand(r x86asm.Reg) (operand, bool) {
	o := operand{kind: kindReg}
	switch {
	case r >= x86asm.AL && r <= x86asm.BL:
		o.reg, o.size = uint8(r-x86asm.AL), 1
	case r >= x86asm.AH && r <= x86asm.BH:
		o.reg, o.size, o.sh = uint8(r-x86asm.AH), 1, 8
	case r >= x86asm.SPB && r <= x86asm.R15B:
		o.reg, o.size = uint8(r-x86asm.SPB)+4, 1
	case r >= x86asm.AX && r <= x86asm.R15W:
		o.reg, o.size = uint8(r-x86asm.AX), 2
	case r >= x86asm.EAX && r <= x86asm.R15L:
		o.reg, o.size = uint8(r-x86asm.EAX), 4
	case r >= x86asm.RAX && r <= x86asm.R15:
		o.reg, o.size = uint8(r-x86asm.RAX), 8
	default:
		return operand{}, false
	}
	return o, true
}

// memOperand resolves a memory operand of size bytes.
func memOperand(m x86asm.Mem, size int) (operand, error) {
	o := operand{kind: kindMem, size: uint8(size), base: noBase, index: noBase, scale: m.Scale, val: m.Disp}
	switch m.Segment {
	case 0, x86asm.CS, x86asm.DS, x86asm.ES, x86asm.SS: // ignored in 64-bit mode
	case x86asm.GS: // the kernel's per-CPU base (Regs.GSBase)
		o.gs = true
	default:
		return operand{}, errSegment
	}
	switch {
	case m.Base == 0:
	case m.Base == x86asm.RIP:
		o.base = ripBase
	case m.Base >= x86asm.RAX && m.Base <= x86asm.R15:
		o.base = uint8(m.Base - x86asm.RAX)
	default:
		return operand{}, errAddrSize
	}
	switch {
	case m.Index == 0:
	case m.Index >= x86asm.RAX && m.Index <= x86asm.R15:
		o.index = uint8(m.Index - x86asm.RAX)
	default:
		return operand{}, errAddrSize
	}
	return o, nil
}

// arg resolves argument i of ai; memory operands take size bytes.
func arg(ai *x86asm.Inst, i, size int) (operand, error) {
	switch a := ai.Args[i].(type) {
	case nil:
		return operand{}, nil
	case x86asm.Reg:
		if o, ok := regOperand(a); ok {
			return o, nil
		}
	case x86asm.Mem:
		return memOperand(a, size)
	case x86asm.Imm:
		return operand{kind: kindImm, val: int64(a)}, nil
	}
	return operand{}, errOperandForm
}

// condOf returns the cccc field of a Jcc, SETcc or CMOVcc opcode.
func condOf(ai *x86asm.Inst) Cond {
	if ai.Opcode>>24 == 0x0f {
		return Cond(ai.Opcode >> 16 & 15)
	}
	return Cond(ai.Opcode >> 24 & 15)
}

// compile resolves x86asm's operands into the fields Exec uses. Anything
// Exec cannot run sets inst.err.
func compile(inst *Inst) {
	ai := &inst.Arch
	if ai.AddrSize != 64 && inst.Op != x86asm.NOP {
		inst.err = errAddrSize
		return
	}
	// Operand size: from a register operand when there is one, else from
	// the memory operand.
	size := ai.MemBytes
	if o, ok := ai.Args[0].(x86asm.Reg); ok {
		if ro, ok := regOperand(o); ok {
			size = int(ro.size)
		}
	}
	var err error
	set := func(dst *operand, i, sz int) {
		if err == nil {
			*dst, err = arg(ai, i, sz)
		}
	}
	// regRM sets dst, a register, from operand 0 and src, a register or
	// memory operand of srcSize bytes, from operand 1.
	regRM := func(srcSize int) {
		set(&inst.dst, 0, 0)
		set(&inst.src, 1, srcSize)
		if inst.dst.kind != kindReg || inst.src.kind != kindReg && inst.src.kind != kindMem {
			err = errOperandForm
		}
	}
	switch inst.Op {
	case x86asm.NOP, x86asm.PAUSE, x86asm.INT, x86asm.CALL, x86asm.JMP, x86asm.RET, x86asm.LEAVE,
		x86asm.PUSH, x86asm.POP:
		size = 8
	}
	switch inst.Op { // Arch.Op, but for the hints decoded as NOP
	case x86asm.NOP, x86asm.PAUSE:
		// Any operands of a multi-byte NOP are not accessed.
	case x86asm.INT:
		if ai.Len == 1 && inst.raw[0] == 0xcc {
			inst.int3 = true
		} else {
			err = errOperandForm
		}
	case x86asm.CALL, x86asm.JMP:
		if ai.DataSize == 16 {
			err = errDataSize16
			break
		}
		if rel, ok := ai.Args[0].(x86asm.Rel); ok {
			inst.Rel = int64(rel)
			break
		}
		set(&inst.dst, 0, 8)
		if inst.dst.kind == kindReg && inst.dst.size != 8 {
			err = errOperandForm
		}
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL,
		x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS:
		rel, ok := ai.Args[0].(x86asm.Rel)
		if !ok || ai.DataSize == 16 {
			err = errOperandForm
			break
		}
		inst.Rel = int64(rel)
		inst.Cond = condOf(ai)
		size = 8
	case x86asm.RET:
		if ai.DataSize == 16 {
			err = errDataSize16
			break
		}
		set(&inst.src, 0, 0) // optional imm16
	case x86asm.PUSH, x86asm.POP:
		if ai.DataSize == 16 {
			err = errDataSize16
			break
		}
		set(&inst.dst, 0, 8)
		if inst.dst.kind == kindReg && inst.dst.size != 8 || ai.Op == x86asm.POP && inst.dst.kind == kindImm {
			err = errOperandForm
		}
	case x86asm.LEAVE:
		if ai.DataSize == 16 {
			err = errDataSize16
		}
	case x86asm.MOV, x86asm.ADD, x86asm.ADC, x86asm.SUB, x86asm.SBB, x86asm.AND, x86asm.OR,
		x86asm.XOR, x86asm.CMP, x86asm.TEST, x86asm.XCHG:
		set(&inst.dst, 0, size)
		set(&inst.src, 1, size)
		if err == nil && (inst.dst.kind != kindReg && inst.dst.kind != kindMem || inst.src.kind == kindNone ||
			inst.dst.kind == kindMem && inst.src.kind == kindMem) {
			err = errOperandForm
		}
	case x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT:
		set(&inst.dst, 0, size)
		if inst.dst.kind != kindReg && inst.dst.kind != kindMem {
			err = errOperandForm
		}
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		set(&inst.dst, 0, size)
		set(&inst.src, 1, 0)
		if err == nil && !(inst.src.kind == kindImm || inst.src.kind == kindReg && inst.src.reg == 1 && inst.src.size == 1 && inst.src.sh == 0) {
			err = errOperandForm
		}
	case x86asm.LEA:
		set(&inst.dst, 0, 0)
		set(&inst.src, 1, 0)
		if inst.dst.kind != kindReg || inst.src.kind != kindMem {
			err = errOperandForm
		}
	case x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD:
		regRM(ai.MemBytes)
	case x86asm.IMUL:
		if ai.Args[1] == nil { // the one-operand rdx:rax form
			set(&inst.src, 0, size)
			if inst.src.kind != kindReg && inst.src.kind != kindMem {
				err = errOperandForm
			}
			break
		}
		set(&inst.dst, 0, 0)
		set(&inst.src, 1, size)
		set(&inst.src2, 2, 0)
		if inst.dst.kind != kindReg || inst.src.kind != kindReg && inst.src.kind != kindMem ||
			inst.src2.kind != kindNone && inst.src2.kind != kindImm {
			err = errOperandForm
		}
	case x86asm.BSR, x86asm.BSF:
		regRM(size)
	case x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG,
		x86asm.CMOVGE, x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP,
		x86asm.CMOVNS, x86asm.CMOVO, x86asm.CMOVP, x86asm.CMOVS:
		regRM(size)
		inst.Cond = condOf(ai)
	case x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG,
		x86asm.SETGE, x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP,
		x86asm.SETNS, x86asm.SETO, x86asm.SETP, x86asm.SETS:
		set(&inst.dst, 0, 1)
		size = 1
		inst.Cond = condOf(ai)
		if inst.dst.kind != kindReg && inst.dst.kind != kindMem {
			err = errOperandForm
		}
	default:
		var ok bool
		if ok, err = compileInt(inst, &size); !ok {
			if ok, err = compileMore(inst, &size); !ok {
				err = isa.ErrUnsupported
			}
		}
	}
	if err == nil && (size < 1 || size > 8 || size&(size-1) != 0) {
		err = errOperandForm
	}
	inst.size = uint8(size)
	inst.err = err
	inst.fast = fastForm(&inst.Resolved)
	inst.linkLoad = inst.Op == x86asm.JMP && inst.dst.kind == kindMem
}

// StackOrLiteral reports whether every memory access of inst (if any) goes
// through rsp or is RIP-relative: a push, a pop, a call or return, an
// rsp-relative load or store, or a RIP-relative operand. Instructions
// without memory operands, and instructions Exec does not run (they fault),
// report true. LEAVE reports false: it loads through rbp. It mirrors
// arm.StackOrLiteral, for a scheduler that classifies steps as task-local.
func StackOrLiteral(inst *Inst) bool {
	if inst.err != nil {
		return true
	}
	switch inst.Op {
	case x86asm.NOP, x86asm.PAUSE, x86asm.LEA:
		return true
	case x86asm.LEAVE:
		return false
	}
	for _, o := range [...]*operand{&inst.dst, &inst.src} {
		if o.kind == kindMem && (o.gs || !(o.base == uint8(RSP) && o.index == noBase || o.base == ripBase)) {
			return false
		}
	}
	return true
}

// RIPRelative reports whether inst has a rip-relative memory operand (other
// than lea, which computes an address and touches no memory).
func RIPRelative(inst *Inst) bool {
	if inst.err != nil || inst.Op == x86asm.LEA || inst.Op == x86asm.NOP {
		return false
	}
	for _, o := range [...]*operand{&inst.dst, &inst.src} {
		if o.kind == kindMem && o.base == ripBase && !o.gs {
			return true
		}
	}
	return false
}

// MemAddr returns the data access of inst's memory operand with registers
// r, without executing it: the address, the number of bytes, and whether
// it may store (a memory destination, or pop to memory; for a string
// instruction the access of its next iteration, and for MOVS and CMPS,
// which access two places, the span that covers both); ok is false for
// an instruction without a memory operand (lea and nop touch no memory),
// one Exec does not run, and calls and jumps through memory. leave reports
// its load through rbp. The stack accesses of push, pop, call and ret are
// not reported (they go through rsp). The partial-order reduction of
// package sched asks it whether an access reaches only the task's own
// stack.
func MemAddr(inst *Inst, r *Regs) (addr uint64, size int, store, ok bool) {
	if inst.err != nil {
		return 0, 0, false, false
	}
	switch inst.Op {
	case x86asm.NOP, x86asm.PAUSE, x86asm.LEA, x86asm.CALL, x86asm.JMP:
		return 0, 0, false, false
	case x86asm.LEAVE:
		return r.R[RBP], 8, false, true
	}
	if inst.str != strNone {
		return stringMemAddr(inst, r)
	}
	next := r.RIP + uint64(inst.Len)
	switch {
	case inst.dst.kind == kindMem:
		return r.addr(&inst.dst, next), memSize(inst, &inst.dst), true, true
	case inst.src.kind == kindMem:
		// xchg writes its memory operand in either position.
		return r.addr(&inst.src, next), memSize(inst, &inst.src), inst.Op == x86asm.XCHG, true
	}
	return 0, 0, false, false
}

// BranchMemAddr returns the load of a call or jump through memory with
// registers r: the address of its 8-byte target (MemAddr reports neither);
// ok is false for every other instruction.
func BranchMemAddr(inst *Inst, r *Regs) (addr uint64, ok bool) {
	if inst.err != nil || inst.Op != x86asm.CALL && inst.Op != x86asm.JMP || inst.dst.kind != kindMem {
		return 0, false
	}
	return r.addr(&inst.dst, r.RIP+uint64(inst.Len)), true
}

// memSize is the byte count of memory operand o of inst.
func memSize(inst *Inst, o *operand) int {
	if o.size != 0 {
		return int(o.size)
	}
	return int(inst.size)
}
