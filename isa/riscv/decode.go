package riscv

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/riscv64/riscv64asm"
)

// decodeMu serializes riscv64asm.Decode, which writes a package-level
// coverage slice (decoderCover) on every successful decode.
var decodeMu sync.Mutex

// Inst is one decoded RV64 instruction, with its operands resolved for the
// executor. Arch keeps riscv64asm's view (for disassembly); the other fields
// are derived from it once, at decode time.
//
// riscv64asm v0.33.0 expands every compressed (RVC) instruction to the base
// instruction it stands for (c.addi → addi, c.jr → jalr x0, …) and reports
// Len 2; Enc then holds the 16-bit halfword. Inst keeps that length, so a
// compressed instruction advances the pc by 2.
type Inst struct {
	Resolved
	Arch riscv64asm.Inst
}

// Resolved is what Exec needs of an instruction, without riscv64asm's
// view: its encoding and the operands resolved from it. A table of them
// (package sched's plain decodings) is a third of the size of one of
// Insts.
type Resolved struct {
	Enc uint32 // the raw encoding: a word, or the halfword of an RVC instruction
	Len uint8  // 2 (RVC) or 4

	Rd, Rs1, Rs2 uint8 // register operands, as the instruction uses them
	x            xop
	decoded      bool  // Arch holds riscv64asm's decoding (for a fault's disassembly)
	linkLoad     bool  // a load (or atomic) into ra: Run stops after it
	Imm          int64 // the sign-extended immediate (branch and jump offsets from pc; lui/auipc already shifted)

	err error // isa.ErrUnsupported, isa.ErrUndecodable or a fetch fault when Exec cannot run it
}

// IsFenceI reports whether inst is fence.i, the instruction that
// synchronizes this hart's instruction fetch with the stores before it
// (Zifencei; model.md §1a): the machine treats it as a synchronization point.
func (inst *Resolved) IsFenceI() bool { return inst.x == xFenceI }

// Supported reports whether Exec can run inst.
func (inst *Resolved) Supported() bool { return inst.err == nil }

// xop is the executor's dense operation code, one per instruction it runs.
type xop uint8

const (
	xUnsupported xop = iota
	xLUI
	xAUIPC
	xJAL
	xJALR
	xBEQ
	xBNE
	xBLT
	xBGE
	xBLTU
	xBGEU
	xLB
	xLH
	xLW
	xLD
	xLBU
	xLHU
	xLWU
	xSB
	xSH
	xSW
	xSD
	xADDI
	xSLTI
	xSLTIU
	xXORI
	xORI
	xANDI
	xSLLI
	xSRLI
	xSRAI
	xADD
	xSUB
	xSLL
	xSLT
	xSLTU
	xXOR
	xSRL
	xSRA
	xOR
	xAND
	xADDIW
	xSLLIW
	xSRLIW
	xSRAIW
	xADDW
	xSUBW
	xSLLW
	xSRLW
	xSRAW
	xMUL
	xMULH
	xMULHSU
	xMULHU
	xDIV
	xDIVU
	xREM
	xREMU
	xMULW
	xDIVW
	xDIVUW
	xREMW
	xREMUW
	xLRW
	xLRD
	xSCW
	xSCD
	xAMOSWAPW
	xAMOADDW
	xAMOXORW
	xAMOANDW
	xAMOORW
	xAMOMINW
	xAMOMAXW
	xAMOMINUW
	xAMOMAXUW
	xAMOSWAPD
	xAMOADDD
	xAMOXORD
	xAMOANDD
	xAMOORD
	xAMOMIND
	xAMOMAXD
	xAMOMINUD
	xAMOMAXUD
	xFence
	xFenceI
	xEcall
	xEbreak
	xCount
)

var xnames = [...]string{
	xUnsupported: "unsupported", xLUI: "lui", xAUIPC: "auipc", xJAL: "jal", xJALR: "jalr",
	xBEQ: "beq", xBNE: "bne", xBLT: "blt", xBGE: "bge", xBLTU: "bltu", xBGEU: "bgeu",
	xLB: "lb", xLH: "lh", xLW: "lw", xLD: "ld", xLBU: "lbu", xLHU: "lhu", xLWU: "lwu",
	xSB: "sb", xSH: "sh", xSW: "sw", xSD: "sd",
	xADDI: "addi", xSLTI: "slti", xSLTIU: "sltiu", xXORI: "xori", xORI: "ori", xANDI: "andi",
	xSLLI: "slli", xSRLI: "srli", xSRAI: "srai",
	xADD: "add", xSUB: "sub", xSLL: "sll", xSLT: "slt", xSLTU: "sltu", xXOR: "xor",
	xSRL: "srl", xSRA: "sra", xOR: "or", xAND: "and",
	xADDIW: "addiw", xSLLIW: "slliw", xSRLIW: "srliw", xSRAIW: "sraiw",
	xADDW: "addw", xSUBW: "subw", xSLLW: "sllw", xSRLW: "srlw", xSRAW: "sraw",
	xMUL: "mul", xMULH: "mulh", xMULHSU: "mulhsu", xMULHU: "mulhu", xDIV: "div", xDIVU: "divu",
	xREM: "rem", xREMU: "remu", xMULW: "mulw", xDIVW: "divw", xDIVUW: "divuw", xREMW: "remw", xREMUW: "remuw",
	xLRW: "lr.w", xLRD: "lr.d", xSCW: "sc.w", xSCD: "sc.d",
	xAMOSWAPW: "amoswap.w", xAMOADDW: "amoadd.w", xAMOXORW: "amoxor.w", xAMOANDW: "amoand.w",
	xAMOORW: "amoor.w", xAMOMINW: "amomin.w", xAMOMAXW: "amomax.w", xAMOMINUW: "amominu.w", xAMOMAXUW: "amomaxu.w",
	xAMOSWAPD: "amoswap.d", xAMOADDD: "amoadd.d", xAMOXORD: "amoxor.d", xAMOANDD: "amoand.d",
	xAMOORD: "amoor.d", xAMOMIND: "amomin.d", xAMOMAXD: "amomax.d", xAMOMINUD: "amominu.d", xAMOMAXUD: "amomaxu.d",
	xFence: "fence", xFenceI: "fence.i", xEcall: "ecall", xEbreak: "ebreak",
}

func (x xop) String() string {
	if int(x) < len(xnames) && xnames[x] != "" {
		return xnames[x]
	}
	return fmt.Sprintf("xop(%d)", uint8(x))
}

// Operand shapes, as riscv64asm lays out the arguments.
const (
	shapeNone  = iota
	shapeU     // rd, imm20 (lui, auipc)
	shapeJ     // rd, jimm (jal)
	shapeMem   // rd|rs2, imm(rs1) (loads, stores, jalr)
	shapeB     // rs1, rs2, bimm (branches)
	shapeI     // rd, rs1, imm12 or shamt
	shapeR     // rd, rs1, rs2
	shapeLR    // rd, (rs1)
	shapeAMO   // rd, rs2, (rs1)
	shapeStore // rs2, imm(rs1)
)

type opInfo struct {
	x     xop
	shape uint8
}

// ops maps every riscv64asm op the executor runs to its xop and operand
// shape. It is built from xnames, so that the two cannot disagree: an op
// runs as the xop of its name (riscv64asm spells xnames' names in upper
// case), and an A-extension op also under its three ordering suffixes
// (.aq, .rl, .aqrl), which one hart executing alone cannot tell apart.
// Compressed ops never reach it: riscv64asm expands them.
var ops = func() map[riscv64asm.Op]opInfo {
	byName := make(map[string]xop, xCount)
	for x := xUnsupported + 1; x < xCount; x++ {
		byName[strings.ToUpper(xnames[x])] = x
	}
	m := make(map[riscv64asm.Op]opInfo)
	for op := riscv64asm.Op(1); !strings.HasPrefix(op.String(), "Op("); op++ {
		name := op.String()
		x, ok := byName[name]
		for _, order := range [...]string{".AQ", ".RL", ".AQRL"} {
			if base, cut := strings.CutSuffix(name, order); cut && !ok {
				x, ok = byName[base]
				ok = ok && x >= xLRW && x <= xAMOMAXUD
			}
		}
		if ok {
			m[op] = opInfo{x, shapeOf(x)}
		}
	}
	return m
}()

// shapeOf is the operand shape of x's instructions (the xops are grouped
// by instruction format).
func shapeOf(x xop) uint8 {
	switch {
	case x == xLUI || x == xAUIPC:
		return shapeU
	case x == xJAL:
		return shapeJ
	case x == xJALR || x >= xLB && x <= xLWU:
		return shapeMem
	case x >= xBEQ && x <= xBGEU:
		return shapeB
	case x >= xSB && x <= xSD:
		return shapeStore
	case x >= xADDI && x <= xSRAI || x >= xADDIW && x <= xSRAIW:
		return shapeI
	case x >= xADD && x <= xAND || x >= xADDW && x <= xREMUW:
		return shapeR
	case x == xLRW || x == xLRD:
		return shapeLR
	case x >= xSCW && x <= xAMOMAXUD:
		return shapeAMO
	}
	return shapeNone // fence, fence.i, ecall, ebreak
}

// Decode decodes the instruction at the start of b, fetched from pc. b must
// hold the whole instruction: 2 bytes for a compressed one (the low two
// bits of b[0] are not 11), 4 otherwise; bytes after it are ignored. It is
// safe for concurrent use.
//
// Bytes that do not decode, or are too short, give an *isa.Fault wrapping
// isa.ErrUndecodable (the Inst returned alongside fails the same way in
// Exec). So does the all-zero halfword, which the ISA defines as illegal
// (c.unimp; riscv64asm reports it as csrrw x0,cycle,x0). Bytes that decode
// to an instruction the executor does not run give an Inst, and no error,
// whose Exec fails with isa.ErrUnsupported: it faults only if executed.
func Decode(pc uint64, b []byte) (Inst, error) {
	n := 4
	if len(b) > 0 && b[0]&3 != 3 {
		n = 2
	}
	if len(b) < n {
		return undecodable(pc, b, "truncated instruction")
	}
	var enc uint32
	if n == 2 {
		enc = uint32(binary.LittleEndian.Uint16(b))
	} else {
		enc = binary.LittleEndian.Uint32(b)
	}
	if n == 2 && enc == 0 {
		return undecodable(pc, b[:2], "c.unimp, the all-zero halfword")
	}
	decodeMu.Lock()
	ai, err := riscv64asm.Decode(b[:n])
	decodeMu.Unlock()
	if err != nil {
		return undecodable(pc, b[:n], "")
	}
	return compile(ai, enc, uint8(n)), nil
}

func undecodable(pc uint64, b []byte, why string) (Inst, error) {
	err := isa.ErrUndecodable
	if why != "" {
		err = isa.Detail(why, isa.ErrUndecodable)
	}
	n := min(len(b), 4)
	inst := Inst{Resolved: Resolved{Len: uint8(n), err: err}}
	for i := n - 1; i >= 0; i-- {
		inst.Enc = inst.Enc<<8 | uint32(b[i])
	}
	return inst, &isa.Fault{PC: pc, Bytes: append([]byte(nil), b...), Unit: unit(len(b)), Err: err}
}

func unit(n int) int {
	if n == 2 || n == 4 {
		return n
	}
	return 1
}

// Bytes returns the instruction's bytes as they sit in memory.
func (inst *Resolved) Bytes() []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], inst.Enc)
	return b[:min(inst.Len, 4)]
}

func regArg(a riscv64asm.Arg) (uint8, bool) {
	r, ok := a.(riscv64asm.Reg)
	return uint8(r - riscv64asm.X0), ok && r <= riscv64asm.X31
}

// compile resolves riscv64asm's operands into the fields Exec uses.
func compile(ai riscv64asm.Inst, enc uint32, n uint8) Inst {
	inst := Inst{Arch: ai}
	inst.Enc, inst.Len, inst.decoded = enc, n, ai.Op != 0
	info, known := ops[ai.Op]
	args := ai.Args
	ok := known
	switch info.shape {
	case shapeU:
		var ok1 bool
		inst.Rd, ok1 = regArg(args[0])
		u, ok2 := args[1].(riscv64asm.Uimm)
		// A C.LUI immediate arrives sign-extended (more than 20 bits);
		// truncating the shifted value to 32 bits is right for both.
		inst.Imm = int64(int32(u.Imm << 12))
		inst.Arch.Args[1] = riscv64asm.Uimm{Imm: u.Imm & 0xfffff} // as objdump shows c.lui
		ok = ok && ok1 && ok2
	case shapeJ:
		var ok1 bool
		inst.Rd, ok1 = regArg(args[0])
		s, ok2 := args[1].(riscv64asm.Simm)
		inst.Imm = int64(s.Imm)
		ok = ok && ok1 && ok2
	case shapeMem, shapeStore:
		var ok1 bool
		if info.shape == shapeStore {
			inst.Rs2, ok1 = regArg(args[0])
		} else {
			inst.Rd, ok1 = regArg(args[0])
		}
		m, ok2 := args[1].(riscv64asm.RegOffset)
		ok3 := m.OfsReg <= riscv64asm.X31
		inst.Rs1 = uint8(m.OfsReg - riscv64asm.X0)
		inst.Imm = int64(m.Ofs.Imm)
		ok = ok && ok1 && ok2 && ok3
	case shapeB:
		var ok1, ok2 bool
		inst.Rs1, ok1 = regArg(args[0])
		inst.Rs2, ok2 = regArg(args[1])
		s, ok3 := args[2].(riscv64asm.Simm)
		inst.Imm = int64(s.Imm)
		ok = ok && ok1 && ok2 && ok3
	case shapeI:
		var ok1, ok2, ok3 bool
		inst.Rd, ok1 = regArg(args[0])
		inst.Rs1, ok2 = regArg(args[1])
		switch a := args[2].(type) {
		case riscv64asm.Simm:
			inst.Imm, ok3 = int64(a.Imm), true
		case riscv64asm.Uimm: // shift amounts
			inst.Imm, ok3 = int64(a.Imm), a.Imm < 64
		}
		ok = ok && ok1 && ok2 && ok3
	case shapeR:
		var ok1, ok2, ok3 bool
		inst.Rd, ok1 = regArg(args[0])
		inst.Rs1, ok2 = regArg(args[1])
		inst.Rs2, ok3 = regArg(args[2])
		ok = ok && ok1 && ok2 && ok3
	case shapeLR, shapeAMO:
		// riscv64asm's RegPtr hides its register; A-extension
		// instructions have no compressed form, so rs1 is bits 19:15.
		var ok1, ok2 bool
		inst.Rd, ok1 = regArg(args[0])
		if info.shape == shapeAMO {
			inst.Rs2, ok2 = regArg(args[1])
			_, ok3 := args[2].(riscv64asm.RegPtr)
			ok2 = ok2 && ok3
		} else {
			_, ok2 = args[1].(riscv64asm.RegPtr)
		}
		inst.Rs1 = uint8(enc >> 15 & 31)
		ok = ok && ok1 && ok2 && n == 4
	}
	if ok {
		inst.x = info.x
	} else {
		inst.err = isa.ErrUnsupported
	}
	inst.linkLoad = inst.Rd == RA && (inst.x >= xLB && inst.x <= xLWU || inst.x >= xLRW && inst.x <= xAMOMAXUD)
	return inst
}

// Cache holds decoded instructions for one text segment, indexed by
// halfword. Every hit is checked against the bytes now in text, so a write
// to text never leaves a stale entry; writers need not tell the cache
// anything. A Cache is not safe for concurrent use: give each goroutine its
// own.
type Cache struct{ c isa.DecodeCache[Inst] }

// NewCache returns a cache for a text segment of size bytes at base.
func NewCache(base uint64, size int) *Cache {
	return &Cache{isa.NewDecodeCache[Inst](base, size, 2)}
}

var errFetch = isa.Detail("fetch outside the text segment or at an odd address", isa.ErrMemory)

// Lookup returns the decoding of the instruction at the start of b,
// fetched from pc, from the cache when the cached entry was decoded from
// the same bytes (the same 2 bytes for a compressed instruction, the same 4
// otherwise). A pc outside the segment or odd gives an *isa.Fault wrapping
// isa.ErrMemory (and an Inst whose Exec fails the same way).
func (c *Cache) Lookup(pc uint64, b []byte) (*Inst, error) {
	e := c.c.Entry(pc)
	if e == nil {
		n := min(len(b), 4)
		inst := &Inst{Resolved: Resolved{Len: uint8(n), err: errFetch}}
		return inst, &isa.Fault{PC: pc, Bytes: append([]byte(nil), b[:n]...), Unit: unit(n), Err: errFetch}
	}
	if e.Valid && e.Err == nil {
		switch {
		case e.Inst.Len == 2 && len(b) >= 2 && uint32(b[0])|uint32(b[1])<<8 == e.Inst.Enc:
			return &e.Inst, nil
		case e.Inst.Len == 4 && len(b) >= 4 && binary.LittleEndian.Uint32(b) == e.Inst.Enc:
			return &e.Inst, nil
		}
	}
	inst, err := Decode(pc, b)
	*e = isa.CacheEntry[Inst]{Valid: true, Inst: inst, Err: err}
	return &e.Inst, err
}

// abiNames are the ABI names of x0..x31 (the psABI's register table), as
// GNU objdump prints them.
var abiNames = [32]string{
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1",
	"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
	"s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
	"t3", "t4", "t5", "t6",
}

// fpNames are the ABI names of f0..f31, which only disassembly shows.
var fpNames = [32]string{
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1",
	"fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7",
	"fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11",
	"ft8", "ft9", "ft10", "ft11",
}

// RegName returns the ABI name of register n (0..31), or "x<n>".
func RegName(n uint8) string {
	if int(n) < len(abiNames) {
		return abiNames[n]
	}
	return fmt.Sprintf("x%d", n)
}

// target is a branch or jump target, printed as Disasm wants it. The
// marker survives GNUSyntax's lower-casing; Disasm puts the text back.
type target struct{}

const targetMark = "\x00target\x00"

func (target) String() string { return targetMark }

// Disasm returns the GNU syntax of inst at pc with ABI register names and
// jal and branch targets written as absolute addresses (named by sym, when
// it knows them). sym may be nil.
func Disasm(inst *Inst, pc uint64, sym func(addr uint64) string) string {
	if inst.err != nil && inst.Arch.Op == 0 {
		return "(undecodable)"
	}
	ai := inst.Arch
	t := ""
	var pos int = -1
	switch ai.Op {
	case riscv64asm.JAL:
		pos = 1
	case riscv64asm.BEQ, riscv64asm.BNE, riscv64asm.BLT, riscv64asm.BGE, riscv64asm.BLTU, riscv64asm.BGEU:
		pos = 2
	}
	if pos >= 0 {
		if s, ok := ai.Args[pos].(riscv64asm.Simm); ok {
			a := pc + uint64(int64(s.Imm))
			t = fmt.Sprintf("%#x", a)
			if sym != nil {
				if n := sym(a); n != "" {
					t += " <" + n + ">"
				}
			}
			ai.Args[pos] = target{}
		}
	}
	s := abiRegs(riscv64asm.GNUSyntax(ai))
	if t != "" {
		s = strings.Replace(s, targetMark, t, 1)
	}
	return s
}

// abiRegs rewrites riscv64asm's x0..x31 and f0..f31 as ABI names: "x2"
// at a token start (after a space, a comma or a parenthesis) and ending a
// token.
func abiRegs(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == 'x' || c == 'f') && (i == 0 || s[i-1] == ' ' || s[i-1] == ',' || s[i-1] == '(') {
			j := i + 1
			n := 0
			for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i <= 2 {
				n = n*10 + int(s[j]-'0')
				j++
			}
			if j > i+1 && n < 32 && (j == len(s) || s[j] == ',' || s[j] == ')' || s[j] == ' ') {
				if c == 'x' {
					b.WriteString(abiNames[n])
				} else {
					b.WriteString(fpNames[n])
				}
				i = j - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// DisasmBytes decodes the instruction at the start of b and returns its
// disassembly, or "(undecodable)".
func DisasmBytes(pc uint64, b []byte) string {
	inst, err := Decode(pc, b)
	if err != nil {
		return "(undecodable)"
	}
	return Disasm(&inst, pc, nil)
}

// StackOrLiteral reports whether inst touches no memory, or only memory
// through sp: the partial-order reduction's test for an instruction whose
// effects no other CPU can observe. (RISC-V has no literal pools: a
// pc-relative load goes through a register set by auipc, so only sp-based
// accesses count.) fence.i is false: it changes which text bytes this hart
// fetches, so its order against other CPUs' text stores matters.
// Instructions that fault (undecodable, unsupported) report true: the
// fault ends the run whatever the other CPUs do.
//
// LR and SC report false whatever their base (IsExclusive).
func StackOrLiteral(inst *Inst) bool {
	switch x := inst.x; {
	case x == xFenceI, inst.IsExclusive():
		return false
	case x >= xLB && x <= xSD, x >= xLRW && x <= xAMOMAXUD:
		return inst.Rs1 == SP
	}
	return true
}

// IsExclusive reports whether inst is an LR or an SC: an access to the
// hart's reservation, which other harts' stores clear (a shared access,
// never a thread-local one).
func (inst *Inst) IsExclusive() bool { return inst.x >= xLRW && inst.x <= xSCD }
