package arm64

import (
	"github.com/mcountsim/mcountsim/isa"

	"golang.org/x/arch/arm64/arm64asm"
)

// compile resolves the operands of an instruction arm64asm decoded into
// the fields Exec uses. It reads them from the word, following the A64
// encoding index (ARM ARM C4.1), because arm64asm keeps most operand
// values (immediates, shifts, memory offsets) in unexported fields; it
// then checks that arm64asm named an instruction of the same encoding
// class (its alias included), so that the two decoders cannot silently
// disagree. Anything else is left unsupported.
func compile(inst *Inst) {
	w := inst.Word
	ok := false
	switch {
	case w>>26&7 == 4: // 100x: data processing, immediate
		ok = dpImm(inst, w)
	case w>>26&7 == 5: // 101x: branches, exception generation, system
		ok = branchSys(inst, w)
	case w>>25&5 == 4: // x1x0: loads and stores
		if w&(1<<26) == 0 { // V = 0: general-purpose registers only
			ok = loadStore(inst, w)
		}
	case w>>25&7 == 5: // x101: data processing, register
		ok = dpReg(inst, w)
	}
	if ok && !opIn(inst.Arch.Op, classOps[inst.x]) {
		ok = false
	}
	if !ok {
		inst.x = xUnsupported
		if inst.err == nil {
			inst.err = isa.ErrUnsupported
		}
	}
	switch inst.x {
	case xLoad, xLoadAcq, xLoadEx:
		inst.linkLoad = inst.rd == LR
	case xLoadPair:
		inst.linkLoad = inst.rd == LR || inst.ra == LR
	}
}

// classOps lists, for each executor op, the arm64asm mnemonics (aliases
// included) that the encoding class may decode to.
var classOps = [nXops][]arm64asm.Op{
	xNop:       {arm64asm.NOP, arm64asm.HINT, arm64asm.YIELD, arm64asm.WFE, arm64asm.WFI, arm64asm.SEV, arm64asm.SEVL, arm64asm.PRFM, arm64asm.PRFUM},
	xBarrier:   {arm64asm.ISB, arm64asm.DMB, arm64asm.DSB},
	xBrk:       {arm64asm.BRK},
	xAdr:       {arm64asm.ADR},
	xAdrp:      {arm64asm.ADRP},
	xAddImm:    {arm64asm.ADD, arm64asm.ADDS, arm64asm.CMN, arm64asm.MOV},
	xSubImm:    {arm64asm.SUB, arm64asm.SUBS, arm64asm.CMP},
	xAddReg:    {arm64asm.ADD, arm64asm.ADDS, arm64asm.CMN},
	xSubReg:    {arm64asm.SUB, arm64asm.SUBS, arm64asm.CMP, arm64asm.NEG, arm64asm.NEGS},
	xAddExt:    {arm64asm.ADD, arm64asm.ADDS, arm64asm.CMN},
	xSubExt:    {arm64asm.SUB, arm64asm.SUBS, arm64asm.CMP},
	xAdc:       {arm64asm.ADC, arm64asm.ADCS},
	xSbc:       {arm64asm.SBC, arm64asm.SBCS, arm64asm.NGC, arm64asm.NGCS},
	xAndImm:    {arm64asm.AND, arm64asm.ANDS, arm64asm.TST},
	xOrrImm:    {arm64asm.ORR, arm64asm.MOV},
	xEorImm:    {arm64asm.EOR},
	xAndReg:    {arm64asm.AND, arm64asm.ANDS, arm64asm.TST, arm64asm.BIC, arm64asm.BICS},
	xOrrReg:    {arm64asm.ORR, arm64asm.MOV, arm64asm.ORN, arm64asm.MVN},
	xEorReg:    {arm64asm.EOR, arm64asm.EON},
	xMovZ:      {arm64asm.MOVZ, arm64asm.MOV},
	xMovN:      {arm64asm.MOVN, arm64asm.MOV},
	xMovK:      {arm64asm.MOVK},
	xSbfm:      {arm64asm.SBFM, arm64asm.ASR, arm64asm.SBFIZ, arm64asm.SBFX, arm64asm.SXTB, arm64asm.SXTH, arm64asm.SXTW},
	xBfm:       {arm64asm.BFM, arm64asm.BFI, arm64asm.BFXIL},
	xUbfm:      {arm64asm.UBFM, arm64asm.LSL, arm64asm.LSR, arm64asm.UBFIZ, arm64asm.UBFX, arm64asm.UXTB, arm64asm.UXTH},
	xExtr:      {arm64asm.EXTR, arm64asm.ROR},
	xUdiv:      {arm64asm.UDIV},
	xSdiv:      {arm64asm.SDIV},
	xLslv:      {arm64asm.LSLV, arm64asm.LSL},
	xLsrv:      {arm64asm.LSRV, arm64asm.LSR},
	xAsrv:      {arm64asm.ASRV, arm64asm.ASR},
	xRorv:      {arm64asm.RORV, arm64asm.ROR},
	xRbit:      {arm64asm.RBIT},
	xRev16:     {arm64asm.REV16},
	xRev32:     {arm64asm.REV32},
	xRev:       {arm64asm.REV, arm64asm.REV64},
	xClz:       {arm64asm.CLZ},
	xCls:       {arm64asm.CLS},
	xMadd:      {arm64asm.MADD, arm64asm.MUL},
	xMsub:      {arm64asm.MSUB, arm64asm.MNEG},
	xSmaddl:    {arm64asm.SMADDL, arm64asm.SMULL},
	xSmsubl:    {arm64asm.SMSUBL, arm64asm.SMNEGL},
	xUmaddl:    {arm64asm.UMADDL, arm64asm.UMULL},
	xUmsubl:    {arm64asm.UMSUBL, arm64asm.UMNEGL},
	xSmulh:     {arm64asm.SMULH},
	xUmulh:     {arm64asm.UMULH},
	xCsel:      {arm64asm.CSEL},
	xCsinc:     {arm64asm.CSINC, arm64asm.CINC, arm64asm.CSET},
	xCsinv:     {arm64asm.CSINV, arm64asm.CINV, arm64asm.CSETM},
	xCsneg:     {arm64asm.CSNEG, arm64asm.CNEG},
	xCcmp:      {arm64asm.CCMP},
	xCcmn:      {arm64asm.CCMN},
	xB:         {arm64asm.B},
	xBL:        {arm64asm.BL},
	xBCond:     {arm64asm.B},
	xCbz:       {arm64asm.CBZ},
	xCbnz:      {arm64asm.CBNZ},
	xTbz:       {arm64asm.TBZ},
	xTbnz:      {arm64asm.TBNZ},
	xBr:        {arm64asm.BR},
	xBlr:       {arm64asm.BLR},
	xRet:       {arm64asm.RET},
	xLoad:      {arm64asm.LDR, arm64asm.LDRB, arm64asm.LDRH, arm64asm.LDRSB, arm64asm.LDRSH, arm64asm.LDRSW, arm64asm.LDUR, arm64asm.LDURB, arm64asm.LDURH, arm64asm.LDURSB, arm64asm.LDURSH, arm64asm.LDURSW},
	xStore:     {arm64asm.STR, arm64asm.STRB, arm64asm.STRH, arm64asm.STUR, arm64asm.STURB, arm64asm.STURH},
	xLoadPair:  {arm64asm.LDP, arm64asm.LDPSW},
	xStorePair: {arm64asm.STP},
	xLoadAcq:   {arm64asm.LDAR, arm64asm.LDARB, arm64asm.LDARH},
	xStoreRel:  {arm64asm.STLR, arm64asm.STLRB, arm64asm.STLRH},
	xLoadEx:    {arm64asm.LDXR, arm64asm.LDXRB, arm64asm.LDXRH, arm64asm.LDAXR, arm64asm.LDAXRB, arm64asm.LDAXRH},
	xStoreEx:   {arm64asm.STXR, arm64asm.STXRB, arm64asm.STXRH, arm64asm.STLXR, arm64asm.STLXRB, arm64asm.STLXRH},
	xClrex:     {arm64asm.CLREX},
	xMrsSPEL0:  {arm64asm.MRS},
}

func opIn(op arm64asm.Op, ops []arm64asm.Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

func bitsAt(w uint32, lo, n uint) uint32 { return w >> lo & (1<<n - 1) }

// sext sign-extends the low n bits of v.
func sext(v uint32, n uint) uint64 { return uint64(int64(int32(v<<(32-n)) >> (32 - n))) }

// gp returns a register field that names XZR when 31; sp one that names SP.
func gp(w uint32, lo uint) uint8 { return uint8(bitsAt(w, lo, 5)) } // 31 = rZR

func sp(w uint32, lo uint) uint8 {
	r := uint8(bitsAt(w, lo, 5))
	if r == 31 {
		return rSP
	}
	return r
}

// dpImm: C4.1.86 data processing – immediate.
func dpImm(inst *Inst, w uint32) bool {
	inst.sf = w>>31 != 0
	switch bitsAt(w, 23, 3) {
	case 0, 1: // PC-rel. addressing (ADR, ADRP), C6.2.10–11
		inst.rd = gp(w, 0)
		imm := sext(bitsAt(w, 5, 19)<<2|bitsAt(w, 29, 2), 21)
		if w>>31 == 0 {
			inst.x, inst.imm = xAdr, imm
		} else {
			inst.x, inst.imm = xAdrp, imm<<12
		}
		inst.sf = true
		return true
	case 2: // Add/subtract (immediate), C6.2.4 ADD, C6.2.357 SUB …
		inst.setFlags = w&(1<<29) != 0
		inst.rn = sp(w, 5)
		if inst.setFlags {
			inst.rd = gp(w, 0)
		} else {
			inst.rd = sp(w, 0)
		}
		imm := uint64(bitsAt(w, 10, 12))
		switch bitsAt(w, 22, 1) {
		case 1:
			imm <<= 12
		}
		inst.imm = imm
		inst.x = xAddImm
		if w&(1<<30) != 0 {
			inst.x = xSubImm
		}
		return true
	case 4: // Logical (immediate), C6.2.12 AND …
		if !inst.sf && w&(1<<22) != 0 {
			return false
		}
		wmask, _, ok := decodeBitMasks(bitsAt(w, 22, 1), bitsAt(w, 10, 6), bitsAt(w, 16, 6), true, inst.sf)
		if !ok {
			return false
		}
		inst.imm = wmask
		inst.rn = gp(w, 5)
		opc := bitsAt(w, 29, 2)
		if opc == 3 {
			inst.rd = gp(w, 0)
		} else {
			inst.rd = sp(w, 0)
		}
		inst.x = [4]xop{xAndImm, xOrrImm, xEorImm, xAndImm}[opc]
		inst.setFlags = opc == 3
		return true
	case 5: // Move wide (immediate), C6.2.192 MOVZ, C6.2.191 MOVN, C6.2.190 MOVK
		hw := bitsAt(w, 21, 2)
		if !inst.sf && hw >= 2 {
			return false
		}
		inst.rd = gp(w, 0)
		inst.amount = uint8(16 * hw)
		inst.imm = uint64(bitsAt(w, 5, 16)) << inst.amount
		switch bitsAt(w, 29, 2) {
		case 0:
			inst.x = xMovN
		case 2:
			inst.x = xMovZ
		case 3:
			inst.x = xMovK
		default:
			return false
		}
		return true
	case 6: // Bitfield, C6.2.239 SBFM, C6.2.29 BFM, C6.2.366 UBFM
		n := bitsAt(w, 22, 1)
		if inst.sf != (n == 1) {
			return false
		}
		immr, imms := bitsAt(w, 16, 6), bitsAt(w, 10, 6)
		if !inst.sf && (immr >= 32 || imms >= 32) {
			return false
		}
		wmask, tmask, ok := decodeBitMasks(n, imms, immr, false, inst.sf)
		if !ok {
			return false
		}
		inst.rd, inst.rn = gp(w, 0), gp(w, 5)
		inst.imm, inst.imm2 = wmask, tmask
		inst.amount = uint8(immr)
		inst.ra = uint8(imms) // the sign bit SBFM replicates
		switch bitsAt(w, 29, 2) {
		case 0:
			inst.x = xSbfm
		case 1:
			inst.x = xBfm
		case 2:
			inst.x = xUbfm
		default:
			return false
		}
		return true
	case 7: // Extract, C6.2.90 EXTR
		if bitsAt(w, 29, 2) != 0 || w&(1<<21) != 0 || inst.sf != (w&(1<<22) != 0) {
			return false
		}
		lsb := bitsAt(w, 10, 6)
		if !inst.sf && lsb >= 32 {
			return false
		}
		inst.rd, inst.rn, inst.rm = gp(w, 0), gp(w, 5), gp(w, 16)
		inst.amount = uint8(lsb)
		inst.x = xExtr
		return true
	}
	return false
}

// decodeBitMasks is the ARM ARM's DecodeBitMasks (shared pseudocode J1):
// the wmask and tmask of a logical immediate or bitfield operation.
func decodeBitMasks(immN, imms, immr uint32, immediate, sf bool) (wmask, tmask uint64, ok bool) {
	v := immN<<6 | ^imms&0x3f
	l := -1
	for i := 6; i >= 0; i-- {
		if v&(1<<i) != 0 {
			l = i
			break
		}
	}
	if l < 1 {
		return 0, 0, false
	}
	levels := uint32(1)<<l - 1
	if immediate && imms&levels == levels {
		return 0, 0, false
	}
	s, r := imms&levels, immr&levels
	d := (s - r) & levels
	esize := uint(1) << l
	emask := uint64(1)<<esize - 1
	if esize == 64 {
		emask = ^uint64(0)
	}
	welem := uint64(1)<<(s+1) - 1
	if s+1 == 64 {
		welem = ^uint64(0)
	}
	telem := uint64(1)<<(d+1) - 1
	if d+1 == 64 {
		telem = ^uint64(0)
	}
	// ROR(welem, r) within esize bits.
	if r != 0 {
		welem = (welem>>r | welem<<(esize-uint(r))) & emask
	}
	for e := esize; e < 64; e *= 2 {
		welem |= welem << e
		telem |= telem << e
	}
	if !sf {
		welem, telem = welem&0xffffffff, telem&0xffffffff
	}
	return welem, telem, true
}

// branchSys: C4.1.87 branches, exception generating and system instructions.
func branchSys(inst *Inst, w uint32) bool {
	switch {
	case w&0x7c000000 == 0x14000000: // B, BL (immediate), C6.2.26, C6.2.33
		inst.imm = sext(bitsAt(w, 0, 26)<<2, 28)
		inst.x = xB
		if w>>31 != 0 {
			inst.x = xBL
		}
		return true
	case w&0xff000010 == 0x54000000: // B.cond, C6.2.27
		inst.imm = sext(bitsAt(w, 5, 19)<<2, 21)
		inst.cond = uint8(w & 15)
		inst.x = xBCond
		return true
	case w&0x7e000000 == 0x34000000: // CBZ, CBNZ, C6.2.48–49
		inst.sf = w>>31 != 0
		inst.rd = gp(w, 0)
		inst.imm = sext(bitsAt(w, 5, 19)<<2, 21)
		inst.x = xCbz
		if w&(1<<24) != 0 {
			inst.x = xCbnz
		}
		return true
	case w&0x7e000000 == 0x36000000: // TBZ, TBNZ, C6.2.378–379
		inst.rd = gp(w, 0)
		inst.amount = uint8(w>>31<<5 | bitsAt(w, 19, 5))
		inst.imm = sext(bitsAt(w, 5, 14)<<2, 16)
		inst.x = xTbz
		if w&(1<<24) != 0 {
			inst.x = xTbnz
		}
		return true
	case w&0xfffffc1f == 0xd61f0000: // BR, C6.2.37
		inst.rn, inst.x = gp(w, 5), xBr
		return true
	case w&0xfffffc1f == 0xd63f0000: // BLR, C6.2.35
		inst.rn, inst.x = gp(w, 5), xBlr
		return true
	case w&0xfffffc1f == 0xd65f0000: // RET, C6.2.219
		inst.rn, inst.x = gp(w, 5), xRet
		return true
	case w&0xffe0001f == 0xd4200000: // BRK, C6.2.36
		inst.x = xBrk
		return true
	case w&0xffe00000 == 0xd4000000: // SVC, HVC, SMC, HLT, DCPSn …
		inst.err = isa.Detail("exception-generating instruction", isa.ErrUnsupported)
		return false
	case w&0xfffff01f == 0xd503201f: // hints: NOP, YIELD, WFE, …, BTI, PAC*SP, C6.2.107 HINT
		switch bitsAt(w, 5, 7) {
		case 2, 3: // WFE, WFI: nothing wakes a simulated CPU
			inst.err = isa.Detail("wait-for-event/interrupt hint", isa.ErrUnsupported)
			return false
		}
		// Without FEAT_PAuth and FEAT_BTI (the CPU modelled) every other
		// hint, PACIASP and BTI included, executes as a NOP.
		inst.x = xNop
		return true
	case IsMrsSPEL0(w):
		inst.rd, inst.x = gp(w, 0), xMrsSPEL0
		return true
	case w&0xfffff01f == 0xd503301f: // barriers, C6.2.78 DMB, C6.2.80 DSB, C6.2.114 ISB
		switch bitsAt(w, 5, 3) {
		case 2: // C6.2.56 CLREX (CRm is ignored)
			inst.x = xClrex
			return true
		case 4:
			inst.barrier = 3
		case 5:
			inst.barrier = 2
		case 6:
			inst.barrier = 1
		default:
			return false
		}
		inst.x = xBarrier
		return true
	}
	return false
}

// dpReg: C4.1.88 data processing – register.
func dpReg(inst *Inst, w uint32) bool {
	inst.sf = w>>31 != 0
	inst.rd, inst.rn, inst.rm = gp(w, 0), gp(w, 5), gp(w, 16)
	inst.setFlags = w&(1<<29) != 0
	switch {
	case w&0x1f000000 == 0x0a000000: // Logical (shifted register), C6.2.13 …
		imm6 := bitsAt(w, 10, 6)
		if !inst.sf && imm6 >= 32 {
			return false
		}
		inst.shift, inst.amount = uint8(bitsAt(w, 22, 2)), uint8(imm6)
		inst.invert = w&(1<<21) != 0
		opc := bitsAt(w, 29, 2)
		inst.x = [4]xop{xAndReg, xOrrReg, xEorReg, xAndReg}[opc]
		inst.setFlags = opc == 3
		return true
	case w&0x1f200000 == 0x0b000000: // Add/subtract (shifted register), C6.2.5 …
		imm6 := bitsAt(w, 10, 6)
		inst.shift, inst.amount = uint8(bitsAt(w, 22, 2)), uint8(imm6)
		if inst.shift == 3 || !inst.sf && imm6 >= 32 {
			return false
		}
		inst.x = xAddReg
		if w&(1<<30) != 0 {
			inst.x = xSubReg
		}
		return true
	case w&0x1f200000 == 0x0b200000: // Add/subtract (extended register), C6.2.3 …
		imm3 := bitsAt(w, 10, 3)
		if bitsAt(w, 22, 2) != 0 || imm3 > 4 {
			return false
		}
		inst.rn = sp(w, 5)
		if !inst.setFlags {
			inst.rd = sp(w, 0)
		}
		inst.shift, inst.amount = uint8(bitsAt(w, 13, 3)), uint8(imm3)
		inst.x = xAddExt
		if w&(1<<30) != 0 {
			inst.x = xSubExt
		}
		return true
	case w&0x1fe0fc00 == 0x1a000000: // Add/subtract with carry, C6.2.1 ADC, C6.2.231 SBC
		inst.x = xAdc
		if w&(1<<30) != 0 {
			inst.x = xSbc
		}
		return true
	case w&0x1fe00410 == 0x1a400000: // Conditional compare (register or immediate), C6.2.50–53
		if !inst.setFlags {
			return false
		}
		inst.cond = uint8(bitsAt(w, 12, 4))
		inst.imm2 = uint64(w & 15)
		if w&(1<<11) != 0 {
			inst.imm, inst.mode = uint64(bitsAt(w, 16, 5)), 1 // the immediate form
		}
		inst.x = xCcmn
		if w&(1<<30) != 0 {
			inst.x = xCcmp
		}
		return true
	case w&0x1fe00000 == 0x1a800000: // Conditional select, C6.2.69 CSEL …
		op2 := bitsAt(w, 10, 2)
		if inst.setFlags || op2 > 1 {
			return false
		}
		inst.cond = uint8(bitsAt(w, 12, 4))
		inst.x = [4]xop{xCsel, xCsinc, xCsinv, xCsneg}[bitsAt(w, 30, 1)<<1|op2]
		return true
	case w&0x5fe00000 == 0x1ac00000: // Data-processing (2 source), C6.2.361 UDIV …
		switch bitsAt(w, 10, 6) {
		case 2:
			inst.x = xUdiv
		case 3:
			inst.x = xSdiv
		case 8:
			inst.x = xLslv
		case 9:
			inst.x = xLsrv
		case 10:
			inst.x = xAsrv
		case 11:
			inst.x = xRorv
		default:
			return false
		}
		return !inst.setFlags
	case w&0x5fff0000 == 0x5ac00000: // Data-processing (1 source), C6.2.213 RBIT …
		if inst.setFlags {
			return false
		}
		switch op := bitsAt(w, 10, 6); {
		case op == 0:
			inst.x = xRbit
		case op == 1:
			inst.x = xRev16
		case op == 2 && inst.sf:
			inst.x = xRev32
		case op == 2 || op == 3 && inst.sf:
			inst.x = xRev
		case op == 4:
			inst.x = xClz
		case op == 5:
			inst.x = xCls
		default:
			return false
		}
		return true
	case w&0x1f000000 == 0x1b000000: // Data-processing (3 source), C6.2.185 MADD …
		if bitsAt(w, 29, 2) != 0 {
			return false
		}
		inst.ra = gp(w, 10)
		op := bitsAt(w, 21, 3)<<1 | bitsAt(w, 15, 1)
		if op != 0 && op != 1 && !inst.sf {
			return false
		}
		switch op {
		case 0:
			inst.x = xMadd
		case 1:
			inst.x = xMsub
		case 2:
			inst.x = xSmaddl
		case 3:
			inst.x = xSmsubl
		case 4:
			inst.x = xSmulh
		case 10:
			inst.x = xUmaddl
		case 11:
			inst.x = xUmsubl
		case 12:
			inst.x = xUmulh
		default:
			return false
		}
		return true
	}
	return false
}

// loadStore: C4.1.89 loads and stores (general-purpose registers).
func loadStore(inst *Inst, w uint32) bool {
	switch {
	case w&0x3b000000 == 0x18000000: // Load register (literal), C6.2.167 LDR, C6.2.179 LDRSW
		inst.rd = gp(w, 0)
		inst.imm = sext(bitsAt(w, 5, 19)<<2, 21)
		inst.mode = modeLit
		switch w >> 30 {
		case 0:
			inst.size = 4
		case 1:
			inst.size = 8
		case 2:
			inst.size, inst.sx = 4, 64
		default: // PRFM (literal)
			inst.x = xNop
			return true
		}
		inst.x = xLoad
		return true
	case w&0x3a000000 == 0x28000000: // Load/store pair, C6.2.164 LDP, C6.2.321 STP
		idx := bitsAt(w, 23, 2)
		opc := w >> 30
		load := w&(1<<22) != 0
		switch {
		case opc == 0:
			inst.size = 4
		case opc == 1 && load:
			inst.size, inst.sx = 4, 64 // LDPSW
		case opc == 2:
			inst.size = 8
		default:
			return false
		}
		switch idx {
		case 1:
			inst.mode = modePost
		case 2:
			inst.mode = modeOffset
		case 3:
			inst.mode = modePre
		default: // LDNP/STNP
			return false
		}
		inst.rd, inst.ra, inst.rn = gp(w, 0), gp(w, 10), sp(w, 5)
		inst.imm = sext(bitsAt(w, 15, 7), 7) * uint64(inst.size)
		if load {
			inst.x = xLoadPair
			if inst.rd == inst.ra {
				inst.err = isa.Detail("load pair with Rt == Rt2 (CONSTRAINED UNPREDICTABLE)", isa.ErrUnsupported)
				return false
			}
		} else {
			inst.x = xStorePair
		}
		if inst.mode != modeOffset && inst.rn != rSP && (inst.rn == inst.rd || inst.rn == inst.ra) {
			inst.err = isa.Detail("writeback to a transferred register (CONSTRAINED UNPREDICTABLE)", isa.ErrUnsupported)
			return false
		}
		return true
	case w&0x3f000000 == 0x08000000: // Load/store exclusive and ordered
		// size 001000 o2 L o1 Rs o0 Rt2 Rn Rt: LDAR/STLR (C6.2.119,
		// C6.2.308: o2 1, o1 0, o0 1), and the single-register exclusives
		// (o2 0, o1 0; o0 the acquire or release form, Rt2 11111; Rs
		// 11111 for a load, the status register for a store). The pairs
		// (o1 1) and the LSE CAS forms are not run.
		inst.size = 1 << (w >> 30)
		inst.rd, inst.rn, inst.mode = gp(w, 0), sp(w, 5), modeOffset
		switch {
		case w&0x3ffffc00 == 0x08dffc00:
			inst.x = xLoadAcq
		case w&0x3ffffc00 == 0x089ffc00:
			inst.x = xStoreRel
		case w&0x3fff7c00 == 0x085f7c00:
			inst.x = xLoadEx
		case w&0x3fe07c00 == 0x08007c00:
			inst.x, inst.rm = xStoreEx, gp(w, 16)
			if inst.rm == inst.rd || inst.rm == inst.rn && inst.rn != rSP {
				inst.err = isa.Detail("store-exclusive status register is the data or base register (CONSTRAINED UNPREDICTABLE)", isa.ErrUnsupported)
				return false
			}
		default:
			return false
		}
		return true
	case w&0x3b000000 == 0x39000000: // Load/store register (unsigned immediate)
		if !ldstSize(inst, w) {
			return false
		}
		inst.mode = modeOffset
		inst.imm = uint64(bitsAt(w, 10, 12)) * uint64(1<<(w>>30))
	case w&0x3b200000 == 0x38000000: // unscaled immediate, immediate post- and pre-indexed
		if !ldstSize(inst, w) {
			return false
		}
		inst.imm = sext(bitsAt(w, 12, 9), 9)
		switch bitsAt(w, 10, 2) {
		case 0:
			inst.mode = modeOffset // LDUR/STUR
		case 1:
			inst.mode = modePost
		case 3:
			inst.mode = modePre
		default: // LDTR/STTR: unprivileged
			return false
		}
	case w&0x3b200c00 == 0x38200800: // Load/store register (register offset)
		if !ldstSize(inst, w) {
			return false
		}
		opt := bitsAt(w, 13, 3)
		if opt&2 == 0 {
			return false
		}
		inst.mode = modeReg
		inst.rm = gp(w, 16)
		inst.shift = uint8(opt)
		if w&(1<<12) != 0 {
			inst.amount = uint8(w >> 30)
		}
	default:
		return false
	}
	inst.rd, inst.rn = gp(w, 0), sp(w, 5)
	if inst.x == xNop {
		return true
	}
	if (inst.mode == modePre || inst.mode == modePost) && inst.rn == inst.rd {
		inst.err = isa.Detail("writeback to the transferred register (CONSTRAINED UNPREDICTABLE)", isa.ErrUnsupported)
		return false
	}
	return true
}

// ldstSize reads size and opc of a single-register load/store (C6.2.165
// LDR … C6.2.335 STUR): the access size, the direction and the extension.
func ldstSize(inst *Inst, w uint32) bool {
	size, opc := w>>30, bitsAt(w, 22, 2)
	inst.size = 1 << size
	switch {
	case opc == 0:
		inst.x = xStore
	case opc == 1:
		inst.x = xLoad
	case size == 3 && opc == 2: // PRFM
		inst.x = xNop
	case size == 2 && opc == 2:
		inst.x, inst.sx = xLoad, 64 // LDRSW
	case size < 2:
		inst.x, inst.sx = xLoad, 64 // LDRSB/LDRSH Xt
		if opc == 3 {
			inst.sx = 32 // Wt
		}
	default:
		return false
	}
	return true
}

// IsMrsSPEL0 reports whether w is MRS Xt, SP_EL0 (C6.2.194; op0 3, op1 0,
// CRn 4, CRm 1, op2 0): a read of the kernel's current-task pointer.
func IsMrsSPEL0(w uint32) bool { return w&0xffffffe0 == 0xd5384100 }
