package arm64

import (
	"fmt"

	"golang.org/x/arch/arm64/arm64asm"
)

var xopNames = [nXops]string{
	xUnsupported: "unsupported", xNop: "nop", xBarrier: "barrier", xBrk: "brk", xAdr: "adr", xAdrp: "adrp",
	xAddImm: "add-imm", xSubImm: "sub-imm", xAddReg: "add-reg", xSubReg: "sub-reg", xAddExt: "add-ext",
	xSubExt: "sub-ext", xAdc: "adc", xSbc: "sbc", xAndImm: "and-imm", xOrrImm: "orr-imm", xEorImm: "eor-imm",
	xAndReg: "and-reg", xOrrReg: "orr-reg", xEorReg: "eor-reg", xMovZ: "movz", xMovN: "movn", xMovK: "movk",
	xSbfm: "sbfm", xBfm: "bfm", xUbfm: "ubfm", xExtr: "extr", xUdiv: "udiv", xSdiv: "sdiv", xLslv: "lslv",
	xLsrv: "lsrv", xAsrv: "asrv", xRorv: "rorv", xRbit: "rbit", xRev16: "rev16", xRev32: "rev32", xRev: "rev",
	xClz: "clz", xCls: "cls", xMadd: "madd", xMsub: "msub", xSmaddl: "smaddl", xSmsubl: "smsubl",
	xUmaddl: "umaddl", xUmsubl: "umsubl", xSmulh: "smulh", xUmulh: "umulh", xCsel: "csel", xCsinc: "csinc",
	xCsinv: "csinv", xCsneg: "csneg", xCcmp: "ccmp", xCcmn: "ccmn", xB: "b", xBL: "bl", xBCond: "b.cond",
	xCbz: "cbz", xCbnz: "cbnz", xTbz: "tbz", xTbnz: "tbnz", xBr: "br", xBlr: "blr", xRet: "ret",
	xLoad: "ldr", xStore: "str", xLoadPair: "ldp", xStorePair: "stp", xLoadAcq: "ldar", xStoreRel: "stlr",
	xLoadEx: "ldxr", xStoreEx: "stxr", xClrex: "clrex",
}

var sizeNames = map[uint8]string{1: "b", 2: "h", 4: "w", 8: "x"}

// formOf names the executor form of a supported inst: the operation with
// its width, flag setting and (for memory) size, extension and addressing.
// Every form in implementedForms must be exercised by the qemu test.
func formOf(inst *Inst) string {
	x := inst.x
	name := xopNames[x]
	switch x {
	case xNop:
		if inst.Arch.Op == arm64asm.PRFM || inst.Arch.Op == arm64asm.PRFUM {
			return "prfm"
		}
		return "hint"
	case xBarrier:
		return [4]string{"", "isb", "dmb", "dsb"}[inst.barrier]
	case xClrex, xBrk, xAdr, xAdrp, xB, xBL, xBCond, xBr, xBlr, xRet, xTbz, xTbnz,
		xSmaddl, xSmsubl, xUmaddl, xUmsubl, xSmulh, xUmulh:
		return name
	case xLoad, xStore, xLoadAcq, xStoreRel, xLoadPair, xStorePair, xLoadEx, xStoreEx:
		s := name + "." + sizeNames[inst.size]
		if inst.sx != 0 {
			s += fmt.Sprintf(".s%d", inst.sx)
		}
		switch inst.mode {
		case modeOffset:
			switch {
			case x == xLoadAcq || x == xStoreRel || x == xLoadPair || x == xStorePair || x == xLoadEx || x == xStoreEx:
			case inst.Word&(1<<24) != 0:
				s += ".uimm"
			default:
				s += ".simm"
			}
		case modePre:
			s += ".pre"
		case modePost:
			s += ".post"
		case modeReg:
			s += ".reg"
		case modeLit:
			s += ".lit"
		}
		return s
	}
	if inst.invert {
		name += "-not"
	}
	if inst.setFlags && x != xCcmp && x != xCcmn {
		name += "s"
	}
	if x == xCcmp || x == xCcmn {
		if inst.mode == 1 {
			name += "-imm"
		} else {
			name += "-reg"
		}
	}
	if inst.sf {
		return name + ".x"
	}
	return name + ".w"
}

// implementedForms lists every form compile can produce.
func implementedForms() []string {
	var f []string
	wx := func(names ...string) {
		for _, n := range names {
			f = append(f, n+".w", n+".x")
		}
	}
	f = append(f, "hint", "prfm", "isb", "dmb", "dsb", "brk", "adr", "adrp")
	wx("add-imm", "add-imms", "sub-imm", "sub-imms", "add-reg", "add-regs", "sub-reg", "sub-regs",
		"add-ext", "add-exts", "sub-ext", "sub-exts", "adc", "adcs", "sbc", "sbcs",
		"and-imm", "and-imms", "orr-imm", "eor-imm",
		"and-reg", "and-regs", "and-reg-not", "and-reg-nots", "orr-reg", "orr-reg-not", "eor-reg", "eor-reg-not",
		"movz", "movn", "movk", "sbfm", "bfm", "ubfm", "extr",
		"udiv", "sdiv", "lslv", "lsrv", "asrv", "rorv", "rbit", "rev16", "rev", "clz", "cls",
		"madd", "msub", "csel", "csinc", "csinv", "csneg", "ccmp-reg", "ccmp-imm", "ccmn-reg", "ccmn-imm",
		"cbz", "cbnz")
	f = append(f, "rev32.x", "smaddl", "smsubl", "umaddl", "umsubl", "smulh", "umulh",
		"b", "bl", "b.cond", "tbz", "tbnz", "br", "blr", "ret")
	single := []string{"str.b", "str.h", "str.w", "str.x", "ldr.b", "ldr.h", "ldr.w", "ldr.x",
		"ldr.b.s64", "ldr.h.s64", "ldr.w.s64", "ldr.b.s32", "ldr.h.s32"}
	for _, s := range single {
		for _, m := range []string{".uimm", ".simm", ".pre", ".post", ".reg"} {
			f = append(f, s+m)
		}
	}
	f = append(f, "ldr.w.lit", "ldr.x.lit", "ldr.w.s64.lit")
	for _, s := range []string{"b", "h", "w", "x"} {
		f = append(f, "ldar."+s, "stlr."+s, "ldxr."+s, "stxr."+s)
	}
	f = append(f, "clrex")
	for _, s := range []string{"ldp.w", "ldp.x", "stp.w", "stp.x", "ldp.w.s64"} {
		for _, m := range []string{"", ".pre", ".post"} {
			f = append(f, s+m)
		}
	}
	return f
}
