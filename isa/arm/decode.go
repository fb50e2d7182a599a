package arm

import (
	"errors"
	"fmt"
	"github.com/mcountsim/mcountsim/isa"
	"math/bits"
	"strings"
	"sync"

	"golang.org/x/arch/arm/armasm"
)

var errFetch = wrapMemory("fetch outside the text segment or misaligned")

// decodeMu serializes armasm.Decode, which writes a package-level slice.
var decodeMu sync.Mutex

// Inst is one decoded A32 instruction, with its operands resolved for the
// executor. Arch keeps armasm's own view (for disassembly); Resolved, the
// executor's part, is derived from it once, at decode time.
type Inst struct {
	Resolved
	Arch armasm.Inst
}

// Resolved is what Exec needs of an instruction, without armasm's view:
// its word and the operands resolved from it, the fields the fast paths
// read first. A table of them (package sched's plain decodings) is a
// third of the size of one of Insts.
type Resolved struct {
	// Resolved once by compile so that Exec switches on a dense code.
	x    xop
	fast uint8 // the form Exec runs on its fast path (fast.go), or fastNone
	Cond Cond  // AL for unconditional instructions
	S    bool  // sets the flags

	Rd, Rn, Rm, Ra uint8 // register operands, as the family uses them
	Op2            operand
	Mem            armasm.Mem
	Word           uint32
	Imm            uint32
	Target         int32 // PC-relative branch displacement from pc+8
	mStart         int32 // LDM/STM/PUSH/POP: first address − base
	mFinal         int32 // written-back base − base
	List           uint16
	Fam            armasm.Op // the instruction family: Arch.Op with the condition set to AL
	mBase          uint8     // LDM/STM/PUSH/POP: base register
	mLoad          bool      // LDM/POP
	mWback         bool
	linkLoad       bool // a load that may write lr or pc (Run stops after it)

	err error // isa.ErrUnsupported when the executor cannot run it
}

// xop is the executor's dense operation code, one per Fam it runs.
type xop uint8

const (
	xUnsupported xop = iota
	xNop
	xB
	xBL
	xBX
	xBLX
	// Data processing, in A32 opcode order (A5.2.1).
	xAND
	xEOR
	xSUB
	xRSB
	xADD
	xADC
	xSBC
	xRSC
	xTST
	xTEQ
	xCMP
	xCMN
	xORR
	xMOV
	xBIC
	xMVN
	xMUL
	xMLA
	xMLS
	xUMULL
	xUMLAL
	xSMULL
	xSMLAL
	xMOVW
	xMOVT
	xCLZ
	xUXTB
	xUXTH
	xSXTB
	xSXTH
	xUXTAB // the extend-and-add forms (ARMv6): Rd = Rn + extend(Rm ROR #n)
	xUXTAH
	xSXTAB
	xSXTAH
	xLDR
	xLDRB
	xLDRH
	xLDRSB
	xLDRSH
	xLDRD
	xSTR
	xSTRB
	xSTRH
	xSTRD
	xMultiple // LDM*, STM*, PUSH, POP
	xUBFX
	xSBFX
	xBFI
	xBFC
	xREV
	xRBIT
	// The ARMv5TE signed halfword multiplies (A8.8.176 SMLA<x><y>, A8.8.178
	// SMLAL<x><y>, A8.8.180 SMLAW<y>, A8.8.189 SMUL<x><y>, A8.8.191
	// SMULW<y>): Imm bit 1 selects Rn's top half, bit 0 Rm's.
	xSMULxy
	xSMLAxy
	xSMULWy
	xSMLAWy
	xSMLALxy
	xREV16 // A8.8.145, ARMv6
	xREVSH // A8.8.146, ARMv6
	xSSAT  // A8.8.193, ARMv6: saturate Op2 (Rm, LSL or ASR #n) to Imm signed bits
	xUSAT  // A8.8.258, ARMv6: to Imm unsigned bits
	xPKHBT // A8.8.125, ARMv6: Rn's bottom half, Op2's top half
	xPKHTB // Rn's top half, Op2's bottom half
	// The exclusive accesses (A8.8.75-A8.8.78 LDREX, LDREXB, LDREXD,
	// LDREXH; A8.8.212-A8.8.215 STREX, STREXB, STREXD, STREXH; A8.8.32
	// CLREX), through the Bus's monitor (isa.ExclusiveBus): a load
	// marks, a store stores only while the mark holds and writes 0 (it
	// stored) or 1 (it did not) to Rd; Rt is Rd for a load and Rm for a
	// store, Rt2 is Ra.
	xLDREX
	xLDREXB
	xLDREXH
	xLDREXD
	xSTREX
	xSTREXB
	xSTREXH
	xSTREXD
	xCLREX
)

var xops = map[armasm.Op]xop{
	armasm.NOP: xNop, armasm.B: xB, armasm.BL: xBL, armasm.BX: xBX, armasm.BLX: xBLX,
	armasm.AND: xAND, armasm.EOR: xEOR, armasm.SUB: xSUB, armasm.RSB: xRSB, armasm.ADD: xADD,
	armasm.ADC: xADC, armasm.SBC: xSBC, armasm.RSC: xRSC, armasm.TST: xTST, armasm.TEQ: xTEQ,
	armasm.CMP: xCMP, armasm.CMN: xCMN, armasm.ORR: xORR, armasm.MOV: xMOV, armasm.BIC: xBIC,
	armasm.MVN: xMVN, armasm.MUL: xMUL, armasm.MLA: xMLA, armasm.MLS: xMLS, armasm.UMULL: xUMULL,
	armasm.UMLAL: xUMLAL, armasm.SMULL: xSMULL, armasm.SMLAL: xSMLAL, armasm.MOVW: xMOVW,
	armasm.MOVT: xMOVT, armasm.CLZ: xCLZ, armasm.UXTB: xUXTB, armasm.UXTH: xUXTH,
	armasm.SXTB: xSXTB, armasm.SXTH: xSXTH, armasm.UXTAB: xUXTAB, armasm.UXTAH: xUXTAH,
	armasm.SXTAB: xSXTAB, armasm.SXTAH: xSXTAH, armasm.LDR: xLDR, armasm.LDRB: xLDRB,
	armasm.LDRH: xLDRH, armasm.LDRSB: xLDRSB, armasm.LDRSH: xLDRSH, armasm.LDRD: xLDRD,
	armasm.STR: xSTR, armasm.STRB: xSTRB, armasm.STRH: xSTRH, armasm.STRD: xSTRD,
	armasm.PUSH: xMultiple, armasm.POP: xMultiple,
	armasm.UBFX: xUBFX, armasm.SBFX: xSBFX, armasm.BFI: xBFI, armasm.BFC: xBFC,
	armasm.REV: xREV, armasm.RBIT: xRBIT,
	armasm.SMULBB: xSMULxy, armasm.SMULBT: xSMULxy, armasm.SMULTB: xSMULxy, armasm.SMULTT: xSMULxy,
	armasm.SMLABB: xSMLAxy, armasm.SMLABT: xSMLAxy, armasm.SMLATB: xSMLAxy, armasm.SMLATT: xSMLAxy,
	armasm.SMULWB: xSMULWy, armasm.SMULWT: xSMULWy, armasm.SMLAWB: xSMLAWy, armasm.SMLAWT: xSMLAWy,
	armasm.SMLALBB: xSMLALxy, armasm.SMLALBT: xSMLALxy, armasm.SMLALTB: xSMLALxy, armasm.SMLALTT: xSMLALxy,
	armasm.REV16: xREV16, armasm.REVSH: xREVSH, armasm.SSAT: xSSAT, armasm.USAT: xUSAT,
	armasm.PKHBT: xPKHBT, armasm.PKHTB: xPKHTB,
	armasm.LDM: xMultiple, armasm.LDMDA: xMultiple, armasm.LDMDB: xMultiple, armasm.LDMIB: xMultiple,
	armasm.STM: xMultiple, armasm.STMDA: xMultiple, armasm.STMDB: xMultiple, armasm.STMIB: xMultiple,
	armasm.LDREX: xLDREX, armasm.LDREXB: xLDREXB, armasm.LDREXH: xLDREXH, armasm.LDREXD: xLDREXD,
	armasm.STREX: xSTREX, armasm.STREXB: xSTREXB, armasm.STREXH: xSTREXH, armasm.STREXD: xSTREXD,
	armasm.CLREX: xCLREX, armasm.DMB: xNop, armasm.DSB: xNop, armasm.ISB: xNop,
}

// resolve fills the executor's fields of a supported inst.
func resolve(inst *Resolved) {
	inst.x = xops[inst.Fam]
	if inst.x == xMultiple {
		resolveMultiple(inst)
	}
	inst.fast = fastForm(inst)
	const link = 1<<LR | 1<<PC
	switch inst.x {
	case xLDR, xLDRB, xLDRH, xLDRSB, xLDRSH, xLDRD:
		inst.linkLoad = 1<<inst.Rd&link != 0 || inst.x == xLDRD && 1<<inst.Ra&link != 0
	case xMultiple:
		inst.linkLoad = inst.mLoad && inst.List&link != 0
	}
}

// resolveMultiple fills the fields of LDM*, STM*, PUSH and POP.
func resolveMultiple(inst *Resolved) {
	n := int32(bits.OnesCount16(inst.List)) * 4
	inst.mWback = true
	switch inst.Fam {
	case armasm.PUSH:
		inst.mBase, inst.mStart, inst.mFinal = SP, -n, -n
	case armasm.POP:
		inst.mBase, inst.mLoad, inst.mStart, inst.mFinal = SP, true, 0, n
	default:
		inst.mBase = uint8(inst.Mem.Base)
		inst.mWback = inst.Mem.Mode == armasm.AddrLDM_WB
		switch inst.Fam {
		case armasm.LDM, armasm.STM:
			inst.mStart, inst.mFinal = 0, n
		case armasm.LDMIB, armasm.STMIB:
			inst.mStart, inst.mFinal = 4, n
		case armasm.LDMDA, armasm.STMDA:
			inst.mStart, inst.mFinal = -n+4, -n
		case armasm.LDMDB, armasm.STMDB:
			inst.mStart, inst.mFinal = -n, -n
		}
		switch inst.Fam {
		case armasm.LDM, armasm.LDMIB, armasm.LDMDA, armasm.LDMDB:
			inst.mLoad = true
		}
	}
}

// operand is the flexible second operand of data-processing instructions.
type operand struct {
	imm      uint32
	kind     uint8 // opImm, opReg, opRegShift, opRegShiftReg
	reg      uint8
	shift    armasm.Shift
	count    uint8 // immediate shift amount
	sreg     uint8 // register holding the shift amount
	immCarry int8  // -1: carry unchanged, 0/1: shifter carry-out of a rotated immediate
}

const (
	opNone uint8 = iota
	opImm
	opReg
	opRegShift
	opRegShiftReg
)

// Decode decodes the word w fetched from pc. It is safe for concurrent use.
// An undecodable word gives an *isa.Fault wrapping isa.ErrUndecodable; a word that
// decodes to an instruction the executor does not run gives an Inst whose
// Exec fails with isa.ErrUnsupported (so that it faults only if executed).
func Decode(pc uint32, w uint32) (Inst, error) {
	ai, err := decodeWord(w)
	if err != nil {
		// The Inst is still safe to Exec: it fails with isa.ErrUndecodable.
		return Inst{Resolved: Resolved{Word: w, Cond: AL, err: isa.ErrUndecodable}}, &isa.Fault{PC: uint64(pc), Bytes: wordBytes(w), Unit: 4, Err: isa.ErrUndecodable}
	}
	return compile(ai, w), nil
}

// decodeWord decodes the word w with armasm under decodeMu, with the
// workaround of decodeStrReg.
func decodeWord(w uint32) (armasm.Inst, error) {
	decodeMu.Lock()
	defer decodeMu.Unlock()
	ai, err := armasm.Decode(wordBytes(w), armasm.ModeARM)
	if err != nil && w&strRegMask == strRegValue && w&(1<<3) != 0 {
		ai, err = decodeStrReg(w)
	}
	return ai, err
}

// DecodeArmasm decodes b (A32, little-endian) with armasm.Decode under the
// lock that every decode of this process takes: armasm.Decode writes a
// package-level table, so a package that disassembles A32 by itself must
// call it through here, not directly.
func DecodeArmasm(b []byte) (armasm.Inst, error) {
	decodeMu.Lock()
	defer decodeMu.Unlock()
	return armasm.Decode(b, armasm.ModeARM)
}

// STR (register), A8.8.204 encoding A1: cond 011P U0W0 Rn Rt imm5 type 0 Rm.
const (
	strRegMask  = 0x0e500010
	strRegValue = 0x06000000
)

// decodeStrReg works around armasm v0.33.0, whose table entry for STR
// (register) has mask 0x0e500018 instead of 0x0e500010 and so rejects every
// STR with an index register r8–r15 ("str r0, [r1, r8]"). It decodes the
// word with Rm's top bit cleared and puts it back. decodeMu must be held.
func decodeStrReg(w uint32) (armasm.Inst, error) {
	ai, err := armasm.Decode(wordBytes(w&^(1<<3)), armasm.ModeARM)
	if err != nil {
		return ai, err
	}
	m, ok := ai.Args[1].(armasm.Mem)
	if ai.Op&^15 != armasm.STR_EQ || !ok || m.Sign == 0 {
		return armasm.Inst{}, errors.New("not STR (register)")
	}
	m.Index |= 8
	ai.Args[1] = m
	ai.Enc = w
	return ai, nil
}

// Cache holds decoded instructions for one text segment, indexed by word.
// Every hit is checked against the bytes now in text, so a write to text
// never leaves a stale entry; writers need not tell the cache anything. A
// Cache is not safe for concurrent use: give each goroutine its own.
type Cache struct{ c isa.DecodeCache[Inst] }

// NewCache returns a cache for a text segment of size bytes at base.
func NewCache(base uint32, size int) *Cache {
	return &Cache{isa.NewDecodeCache[Inst](uint64(base), size, 4)}
}

// Lookup returns the decoding of w at pc, from the cache when the cached
// entry was decoded from the same word. A pc outside the segment or not
// word aligned gives an *isa.Fault wrapping isa.ErrMemory (and an Inst whose Exec
// fails the same way).
func (c *Cache) Lookup(pc uint32, w uint32) (*Inst, error) {
	e := c.c.Entry(uint64(pc))
	if e == nil {
		return &Inst{Resolved: Resolved{Word: w, Cond: AL, err: errFetch}}, &isa.Fault{PC: uint64(pc), Bytes: wordBytes(w), Unit: 4, Err: errFetch}
	}
	if e.Valid && e.Inst.Word == w {
		return &e.Inst, e.Err
	}
	inst, err := Decode(pc, w)
	inst.Word = w
	*e = isa.CacheEntry[Inst]{Valid: true, Inst: inst, Err: err}
	return &e.Inst, err
}

// Disasm returns the GNU syntax of inst at pc, with branch targets written
// as absolute addresses (and named by sym, when it knows them).
func Disasm(inst *Inst, pc uint32, sym func(addr uint32) string) string {
	ai := inst.Arch
	for i, a := range ai.Args {
		if rel, ok := a.(armasm.PCRel); ok {
			target := pc + 8 + uint32(rel)
			ai.Args[i] = nil
			s := strings.TrimSpace(armasm.GNUSyntax(ai))
			t := fmt.Sprintf("%#x", target)
			if sym != nil {
				if n := sym(target); n != "" {
					t += " <" + n + ">"
				}
			}
			return s + " " + t
		}
	}
	return armasm.GNUSyntax(ai)
}

// DisasmWord decodes w and returns its disassembly, or "(undecodable)".
func DisasmWord(pc uint32, w uint32) string {
	inst, err := Decode(pc, w)
	if err != nil {
		return "(undecodable)"
	}
	return Disasm(&inst, pc, nil)
}

func unsupported(inst *Inst) {
	inst.err = isa.ErrUnsupported
}

// compile resolves armasm's operands into the fields Exec uses.
func compile(ai armasm.Inst, w uint32) Inst {
	inst := Inst{Arch: ai}
	inst.Word = w
	cond := ai.Op & 15
	inst.Fam = ai.Op&^15 | 14
	switch {
	case cond <= 14:
		inst.Cond = Cond(cond)
	default: // ZZ: unconditional encodings
		inst.Cond = AL
	}
	switch ai.Op {
	case armasm.PLD, armasm.PLD_W, armasm.PLI:
		// A8.8.127-A8.8.130: preload hints, unconditional (armasm numbers
		// them singly, so Op&15 is no condition), with no architectural
		// effect and no fault whatever the address: gcc's
		// __builtin_prefetch, the kernel's prefetch() and prefetchw().
		inst.Fam, inst.Cond = armasm.NOP, AL
	case armasm.CLREX, armasm.DMB, armasm.DSB, armasm.ISB:
		// A8.8.32, A8.8.43, A8.8.44, A8.8.54: unconditional and numbered
		// singly too. The barriers order memory accesses, and this
		// machine is sequentially consistent: DMB and DSB execute as
		// no-ops. ISB is a no-op here as well, but the machine treats it
		// as the context synchronization it is (its instruction fetch:
		// IsISB).
		inst.Fam, inst.Cond = ai.Op, AL
	}
	args := ai.Args
	reg := func(i int) (uint8, bool) {
		r, ok := args[i].(armasm.Reg)
		return uint8(r), ok && r <= armasm.R15
	}
	op2 := func(i int) (operand, bool) {
		switch a := args[i].(type) {
		case armasm.Reg:
			if a > armasm.R15 {
				return operand{}, false
			}
			return operand{kind: opReg, reg: uint8(a)}, true
		case armasm.Imm:
			o := operand{kind: opImm, imm: uint32(a), immCarry: -1}
			if (w>>8)&15 != 0 && w&(1<<25) != 0 {
				o.immCarry = int8(uint32(a) >> 31)
			}
			return o, true
		case armasm.ImmAlt:
			v := uint32(a.Imm())
			o := operand{kind: opImm, imm: v, immCarry: -1}
			if a.Rot != 0 {
				o.immCarry = int8(v >> 31)
			}
			return o, true
		case armasm.RegShift:
			return operand{kind: opRegShift, reg: uint8(a.Reg), shift: a.Shift, count: a.Count}, true
		case armasm.RegShiftReg:
			return operand{kind: opRegShiftReg, reg: uint8(a.Reg), shift: a.Shift, sreg: uint8(a.RegCount)}, true
		}
		return operand{}, false
	}
	ok := true
	switch inst.Fam {
	case armasm.AND_S, armasm.EOR_S, armasm.SUB_S, armasm.RSB_S, armasm.ADD_S, armasm.ADC_S,
		armasm.SBC_S, armasm.RSC_S, armasm.ORR_S, armasm.BIC_S:
		inst.S = true
		inst.Fam -= 16 // the non-S family sits just before the S family
		fallthrough
	case armasm.AND, armasm.EOR, armasm.SUB, armasm.RSB, armasm.ADD, armasm.ADC,
		armasm.SBC, armasm.RSC, armasm.ORR, armasm.BIC:
		var ok1, ok2, ok3 bool
		inst.Rd, ok1 = reg(0)
		inst.Rn, ok2 = reg(1)
		inst.Op2, ok3 = op2(2)
		ok = ok1 && ok2 && ok3
	case armasm.MOV_S, armasm.MVN_S:
		inst.S = true
		inst.Fam -= 16
		fallthrough
	case armasm.MOV, armasm.MVN:
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		inst.Op2, ok2 = op2(1)
		ok = ok1 && ok2
	case armasm.LSL_S, armasm.LSR_S, armasm.ASR_S, armasm.ROR_S, armasm.RRX_S:
		inst.S = true
		inst.Fam -= 16
		fallthrough
	case armasm.LSL, armasm.LSR, armasm.ASR, armasm.ROR, armasm.RRX:
		// A shift is MOV Rd, Rm, <shift>: the executor runs it as MOV.
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		var rm uint8
		rm, ok2 = reg(1)
		ok = ok1 && ok2
		var sh armasm.Shift
		switch inst.Fam {
		case armasm.LSL:
			sh = armasm.ShiftLeft
		case armasm.LSR:
			sh = armasm.ShiftRight
		case armasm.ASR:
			sh = armasm.ShiftRightSigned
		case armasm.ROR:
			sh = armasm.RotateRight
		case armasm.RRX:
			sh = armasm.RotateRightExt
		}
		switch a := args[2].(type) {
		case nil: // RRX
			inst.Op2 = operand{kind: opRegShift, reg: rm, shift: sh, count: 1}
		case armasm.Imm:
			inst.Op2 = operand{kind: opRegShift, reg: rm, shift: sh, count: uint8(a)}
		case armasm.Reg:
			inst.Op2 = operand{kind: opRegShiftReg, reg: rm, shift: sh, sreg: uint8(a)}
		default:
			ok = false
		}
		inst.Fam = armasm.MOV
	case armasm.CMP, armasm.CMN, armasm.TST, armasm.TEQ:
		inst.S = true
		var ok1, ok2 bool
		inst.Rn, ok1 = reg(0)
		inst.Op2, ok2 = op2(1)
		ok = ok1 && ok2
	case armasm.MUL_S, armasm.MLA_S:
		inst.S = true
		inst.Fam -= 16
		fallthrough
	case armasm.MUL, armasm.MLA, armasm.MLS:
		var ok1, ok2, ok3 bool
		inst.Rd, ok1 = reg(0)
		inst.Rn, ok2 = reg(1)
		inst.Rm, ok3 = reg(2)
		ok = ok1 && ok2 && ok3
		if inst.Fam != armasm.MUL {
			inst.Ra, ok1 = reg(3)
			ok = ok && ok1
		}
	case armasm.UMULL_S, armasm.SMULL_S, armasm.UMLAL_S, armasm.SMLAL_S:
		inst.S = true
		inst.Fam -= 16
		fallthrough
	case armasm.UMULL, armasm.SMULL, armasm.UMLAL, armasm.SMLAL:
		var ok1, ok2, ok3, ok4 bool
		inst.Rd, ok1 = reg(0) // RdLo
		inst.Ra, ok2 = reg(1) // RdHi
		inst.Rn, ok3 = reg(2)
		inst.Rm, ok4 = reg(3)
		ok = ok1 && ok2 && ok3 && ok4
	case armasm.MOVW, armasm.MOVT:
		var ok1 bool
		inst.Rd, ok1 = reg(0)
		imm, ok2 := args[1].(armasm.Imm)
		inst.Imm = uint32(imm)
		ok = ok1 && ok2
	case armasm.CLZ, armasm.REV, armasm.RBIT, armasm.REV16, armasm.REVSH:
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		inst.Rm, ok2 = reg(1)
		ok = ok1 && ok2
	case armasm.SMULBB, armasm.SMULBT, armasm.SMULTB, armasm.SMULTT, armasm.SMULWB, armasm.SMULWT,
		armasm.SMLABB, armasm.SMLABT, armasm.SMLATB, armasm.SMLATT, armasm.SMLAWB, armasm.SMLAWT,
		armasm.SMLALBB, armasm.SMLALBT, armasm.SMLALTB, armasm.SMLALTT:
		// smulxy Rd, Rn, Rm; smlaxy Rd, Rn, Rm, Ra; smlalxy RdLo, RdHi, Rn, Rm.
		// armasm's ops of a family come 16 apart (one per condition), BB, BT,
		// TB, TT (B, T for the W forms).
		first := map[armasm.Op]armasm.Op{armasm.SMULBB: armasm.SMULBB, armasm.SMULBT: armasm.SMULBB, armasm.SMULTB: armasm.SMULBB,
			armasm.SMULTT: armasm.SMULBB, armasm.SMLABB: armasm.SMLABB, armasm.SMLABT: armasm.SMLABB, armasm.SMLATB: armasm.SMLABB,
			armasm.SMLATT: armasm.SMLABB, armasm.SMLALBB: armasm.SMLALBB, armasm.SMLALBT: armasm.SMLALBB, armasm.SMLALTB: armasm.SMLALBB,
			armasm.SMLALTT: armasm.SMLALBB, armasm.SMULWB: armasm.SMULWB, armasm.SMULWT: armasm.SMULWB, armasm.SMLAWB: armasm.SMLAWB,
			armasm.SMLAWT: armasm.SMLAWB}[inst.Fam]
		inst.Imm = uint32(inst.Fam-first) / 16
		var ok1, ok2, ok3, ok4 bool
		inst.Rd, ok1 = reg(0)
		if first == armasm.SMLALBB {
			inst.Ra, ok2 = reg(1) // RdHi
			inst.Rn, ok3 = reg(2)
			inst.Rm, ok4 = reg(3)
			ok = ok1 && ok2 && ok3 && ok4 && inst.Rd != inst.Ra && inst.Ra != PC
		} else {
			inst.Rn, ok2 = reg(1)
			inst.Rm, ok3 = reg(2)
			ok, ok4 = ok1 && ok2 && ok3, true
			if first == armasm.SMLABB || first == armasm.SMLAWB {
				inst.Ra, ok4 = reg(3)
				ok = ok && ok4 && inst.Ra != PC
			}
		}
		ok = ok && inst.Rd != PC && inst.Rn != PC && inst.Rm != PC
	case armasm.SSAT, armasm.USAT, armasm.PKHBT, armasm.PKHTB:
		// ssat/usat Rd, #n, Rm{, LSL #s | ASR #s}; pkhbt Rd, Rn, Rm{, LSL #s};
		// pkhtb Rd, Rn, Rm, ASR #s (ASR #32 when s is 0 in the word).
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		src := args[2]
		if inst.Fam == armasm.SSAT || inst.Fam == armasm.USAT {
			n, isImm := args[1].(armasm.Imm)
			inst.Imm, ok2 = uint32(n), isImm
		} else {
			inst.Rn, ok2 = reg(1)
		}
		ok = ok1 && ok2
		switch a := src.(type) {
		case armasm.Reg:
			inst.Op2 = operand{kind: opRegShift, reg: uint8(a), shift: armasm.ShiftLeft}
			ok = ok && a <= armasm.R15
		case armasm.RegShift:
			inst.Op2 = operand{kind: opRegShift, reg: uint8(a.Reg), shift: a.Shift, count: uint8(a.Count)}
			ok = ok && (a.Shift == armasm.ShiftLeft || a.Shift == armasm.ShiftRightSigned) && a.Count <= 32
		default:
			ok = false
		}
		ok = ok && inst.Rd != PC && inst.Rn != PC && inst.Op2.reg != PC
	case armasm.UBFX, armasm.SBFX, armasm.BFI:
		// ubfx/sbfx Rd, Rn, #lsb, #width; bfi Rd, Rn, #lsb, #width (A8.8.246, A8.8.164, A8.8.21)
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		inst.Rm, ok2 = reg(1)
		lsb, ok3 := args[2].(armasm.Imm)
		width, ok4 := args[3].(armasm.Imm)
		inst.Imm, inst.Ra = uint32(lsb), uint8(width)
		ok = ok1 && ok2 && ok3 && ok4 && width >= 1 && lsb+width <= 32
	case armasm.BFC:
		// bfc Rd, #lsb, #width (A8.8.20)
		var ok1 bool
		inst.Rd, ok1 = reg(0)
		lsb, ok3 := args[1].(armasm.Imm)
		width, ok4 := args[2].(armasm.Imm)
		inst.Imm, inst.Ra = uint32(lsb), uint8(width)
		ok = ok1 && ok3 && ok4 && width >= 1 && lsb+width <= 32
	case armasm.UXTB, armasm.UXTH, armasm.SXTB, armasm.SXTH:
		// armasm gives the rotated source as one operand: Rm or Rm, ROR #n.
		var ok1 bool
		inst.Rd, ok1 = reg(0)
		switch a := args[1].(type) {
		case armasm.Reg:
			inst.Rm = uint8(a)
			ok = ok1 && a <= armasm.R15
		case armasm.RegShift:
			inst.Rm = uint8(a.Reg)
			inst.Imm = uint32(a.Count)
			ok = ok1 && a.Shift == armasm.RotateRight
		default:
			ok = false
		}
	case armasm.UXTAB, armasm.UXTAH, armasm.SXTAB, armasm.SXTAH:
		// Rd, Rn, Rm or Rm, ROR #n (ARMv7 ARM A8.8.271 UXTAH and its kin).
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		inst.Rn, ok2 = reg(1)
		switch a := args[2].(type) {
		case armasm.Reg:
			inst.Rm = uint8(a)
			ok = ok1 && ok2 && a <= armasm.R15
		case armasm.RegShift:
			inst.Rm = uint8(a.Reg)
			inst.Imm = uint32(a.Count)
			ok = ok1 && ok2 && a.Shift == armasm.RotateRight
		}
		ok = ok && inst.Rd != PC && inst.Rn != PC && inst.Rm != PC
	case armasm.LDR, armasm.STR, armasm.LDRB, armasm.STRB, armasm.LDRH, armasm.STRH,
		armasm.LDRSB, armasm.LDRSH:
		var ok1 bool
		inst.Rd, ok1 = reg(0)
		m, ok2 := args[1].(armasm.Mem)
		inst.Mem = m
		ok = ok1 && ok2 && m.Mode >= armasm.AddrPostIndex && m.Mode <= armasm.AddrOffset
	case armasm.LDRD, armasm.STRD:
		var ok1, ok2 bool
		inst.Rd, ok1 = reg(0)
		inst.Ra, ok2 = reg(1)
		m, ok3 := args[2].(armasm.Mem)
		inst.Mem = m
		ok = ok1 && ok2 && ok3 && m.Mode >= armasm.AddrPostIndex && m.Mode <= armasm.AddrOffset
	case armasm.PUSH, armasm.POP:
		l, ok1 := args[0].(armasm.RegList)
		inst.List = uint16(l)
		ok = ok1 && l != 0
	case armasm.LDM, armasm.LDMDA, armasm.LDMDB, armasm.LDMIB,
		armasm.STM, armasm.STMDA, armasm.STMDB, armasm.STMIB:
		m, ok1 := args[0].(armasm.Mem)
		l, ok2 := args[1].(armasm.RegList)
		inst.Mem, inst.List = m, uint16(l)
		ok = ok1 && ok2 && l != 0 && (m.Mode == armasm.AddrLDM || m.Mode == armasm.AddrLDM_WB)
	case armasm.B, armasm.BL:
		rel, ok1 := args[0].(armasm.PCRel)
		inst.Target = int32(rel)
		ok = ok1 && cond != 15
	case armasm.BX, armasm.BLX:
		inst.Rm, ok = reg(0)
	case armasm.LDREX, armasm.LDREXB, armasm.LDREXH, armasm.LDREXD,
		armasm.STREX, armasm.STREXB, armasm.STREXH, armasm.STREXD:
		ok = compileExclusive(&inst, args)
	case armasm.NOP, armasm.CLREX, armasm.DMB, armasm.DSB, armasm.ISB:
	default:
		ok = false
	}
	switch inst.Fam {
	case armasm.MUL, armasm.MLA, armasm.MLS, armasm.UMULL, armasm.SMULL, armasm.UMLAL,
		armasm.SMLAL, armasm.MOVW, armasm.MOVT, armasm.CLZ, armasm.UXTB, armasm.UXTH,
		armasm.SXTB, armasm.SXTH, armasm.LDRD, armasm.REV, armasm.RBIT:
		// PC as a destination is UNPREDICTABLE here; do not guess.
		if inst.Rd == PC || inst.Fam != armasm.MUL && inst.Fam != armasm.MLA && inst.Fam != armasm.MLS && inst.Ra == PC {
			ok = false
		}
	}
	if o := inst.Op2; o.kind == opRegShiftReg && (inst.Rd == PC || inst.Rn == PC || o.reg == PC || o.sreg == PC) {
		ok = false // any PC operand of a register-shifted register form is UNPREDICTABLE
	}
	if !ok {
		unsupported(&inst)
	} else {
		resolve(&inst.Resolved)
	}
	return inst
}

// compileExclusive resolves ldrex{b,h,d} Rt, [Rt2,] [Rn] into Rd, Ra and
// Rn, and strex{b,h,d} Rd, Rt, [Rt2,] [Rn] into Rd, Rm, Ra and Rn,
// refusing the UNPREDICTABLE register choices (pc anywhere; a status
// register that is the base or a transferred one; a doubleword pair that
// does not start at an even register below lr).
func compileExclusive(inst *Inst, args armasm.Args) bool {
	regs := make([]uint8, 0, 4)
	var mem armasm.Mem
	for _, a := range args {
		switch a := a.(type) {
		case armasm.Reg:
			if a > armasm.R14 {
				return false
			}
			regs = append(regs, uint8(a))
		case armasm.Mem:
			mem = a
		}
	}
	if mem.Mode != armasm.AddrOffset || mem.Sign != 0 || mem.Offset != 0 || mem.Base > armasm.R14 {
		return false
	}
	inst.Mem, inst.Rn = mem, uint8(mem.Base)
	double := inst.Fam == armasm.LDREXD || inst.Fam == armasm.STREXD
	load := inst.Fam == armasm.LDREX || inst.Fam == armasm.LDREXB || inst.Fam == armasm.LDREXH || inst.Fam == armasm.LDREXD
	want := 1
	if !load {
		want++
	}
	if double {
		want++
	}
	if len(regs) != want {
		return false
	}
	rt := regs[0]
	if !load {
		inst.Rd, rt = regs[0], regs[1]
		if inst.Rd == inst.Rn || inst.Rd == rt || double && inst.Rd == rt+1 {
			return false
		}
		inst.Rm = rt
	} else {
		inst.Rd = rt
	}
	if double {
		inst.Ra = regs[len(regs)-1]
		if rt&1 != 0 || rt == LR || inst.Ra != rt+1 {
			return false
		}
	}
	return true
}

// IsISB reports whether inst is an ISB, a context synchronization event
// (ARMv7 ARM A8.8.54, and model.md §1a): the machine synchronizes the executing
// CPU's instruction fetch after it.
func (inst *Inst) IsISB() bool { return inst.Fam == armasm.ISB }

// IsExclusive reports whether inst is a load- or store-exclusive or
// clrex: an access to the executing CPU's exclusive monitor, which other
// CPUs' stores clear (a shared access, never a thread-local one).
func (inst *Inst) IsExclusive() bool { return inst.x >= xLDREX && inst.x <= xCLREX }

// StackOrLiteral reports whether every memory access of inst (if any) goes
// through sp or pc: a push, a pop, a stack-relative load or store, or a
// literal-pool load. Instructions without memory operands report true;
// the exclusive accesses (IsExclusive) report false whatever their base.
func StackOrLiteral(inst *Inst) bool {
	if inst.IsExclusive() {
		return false
	}
	switch inst.Fam {
	case armasm.LDR, armasm.STR, armasm.LDRB, armasm.STRB, armasm.LDRH, armasm.STRH,
		armasm.LDRSB, armasm.LDRSH, armasm.LDRD, armasm.STRD,
		armasm.LDM, armasm.LDMDA, armasm.LDMDB, armasm.LDMIB,
		armasm.STM, armasm.STMDA, armasm.STMDB, armasm.STMIB:
		return inst.Mem.Base == armasm.SP || inst.Mem.Base == armasm.PC
	}
	return true
}
