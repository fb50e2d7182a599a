package arm64

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/mcountsim/mcountsim/isa"
	"golang.org/x/arch/arm64/arm64asm"
)

// decodeMu serializes arm64asm.Decode, which writes a package-level
// coverage slice (decoderCover) on every successful decode.
var decodeMu sync.Mutex

// Internal register numbers of resolved operands: 0–30 are X0–X30; the
// encoding's 31 is resolved at decode time into the zero register or SP,
// whichever that operand means.
const (
	rZR = 31 // XZR/WZR: reads as zero, writes are discarded
	rSP = 32 // SP/WSP
)

// Inst is one decoded A64 instruction. Arch is arm64asm's view (for
// disassembly); the other fields are derived from the word once, at decode
// time, so that Exec switches on a dense code and never looks at Arch.
type Inst struct {
	Resolved
	Arch arm64asm.Inst
}

// Resolved is what Exec needs of an instruction, without arm64asm's view:
// its word and the operands resolved from it. A table of them (package
// sched's plain decodings) is less than half the size of one of Insts.
type Resolved struct {
	Word uint32

	x        xop
	sf       bool // 64-bit operation (X registers)
	setFlags bool
	rd, rn   uint8 // destination / first source (or base, or Rt of a load/store)
	rm, ra   uint8 // second source / third source (Rt2 of a pair)
	imm      uint64
	imm2     uint64 // bitfield tmask; ccmp nzcv
	shift    uint8  // shift type (0 LSL, 1 LSR, 2 ASR, 3 ROR) or extend option (0–7)
	amount   uint8  // shift amount, extend shift, tbz bit, extr lsb, bitfield R
	cond     uint8
	size     uint8 // memory access size in bytes
	mode     uint8 // addressing mode (modeOffset, modePre, modePost, modeReg, modeLit)
	sx       uint8 // loads: 0 zero-extend, 32 or 64 sign-extend to that width
	invert   bool  // logical (register): the second operand is inverted (BIC, ORN, EON)
	barrier  uint8 // 1 ISB, 2 DMB, 3 DSB
	linkLoad bool  // a load into the link register (Run stops after it)
	err      error // isa.ErrUnsupported (possibly wrapped) when Exec cannot run it
}

// Addressing modes of loads and stores.
const (
	modeOffset uint8 = iota // [Xn, #imm]
	modePre                 // [Xn, #imm]!
	modePost                // [Xn], #imm
	modeReg                 // [Xn, Xm{, extend {#amount}}]
	modeLit                 // pc-relative literal
)

// xop is the executor's dense operation code.
type xop uint8

const (
	xUnsupported xop = iota
	xNop             // NOP and the other hints, PRFM
	xBarrier         // ISB, DMB, DSB
	xBrk
	xAdr
	xAdrp
	xAddImm // ADD/ADDS/SUB/SUBS (immediate): imm is the (negated for SUB) operand
	xSubImm
	xAddReg // shifted register
	xSubReg
	xAddExt // extended register
	xSubExt
	xAdc
	xSbc
	xAndImm
	xOrrImm
	xEorImm
	xAndReg
	xOrrReg
	xEorReg
	xMovZ
	xMovN
	xMovK
	xSbfm
	xBfm
	xUbfm
	xExtr
	xUdiv
	xSdiv
	xLslv
	xLsrv
	xAsrv
	xRorv
	xRbit
	xRev16
	xRev32
	xRev
	xClz
	xCls
	xMadd
	xMsub
	xSmaddl
	xSmsubl
	xUmaddl
	xUmsubl
	xSmulh
	xUmulh
	xCsel
	xCsinc
	xCsinv
	xCsneg
	xCcmp
	xCcmn
	xB
	xBL
	xBCond
	xCbz
	xCbnz
	xTbz
	xTbnz
	xBr
	xBlr
	xRet
	xLoad
	xStore
	xLoadPair
	xStorePair
	xLoadAcq  // LDAR*: alignment required
	xStoreRel // STLR*: alignment required
	// The exclusive accesses (C6.2.135 LDXR, LDXRB, LDXRH and their
	// acquire forms LDAXR*, C6.2.325 STXR, STXRB, STXRH and the release
	// forms STLXR*; C6.2.56 CLREX), through the Bus's monitor
	// (isa.ExclusiveBus): rd is Rt, rm the status register Rs of a store.
	xLoadEx
	xStoreEx
	xClrex
	xMrsSPEL0 // MRS Xt, SP_EL0: the kernel's current task pointer
	nXops
)

// Decode decodes the word w fetched from pc. It is safe for concurrent use.
// An undecodable word gives an *isa.Fault wrapping isa.ErrUndecodable (and
// an Inst whose Exec fails the same way); a word that decodes to an
// instruction the executor does not run gives an Inst and a nil error, and
// Exec fails with isa.ErrUnsupported, so that it faults only if executed.
func Decode(pc uint64, w uint32) (Inst, error) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w)
	decodeMu.Lock()
	ai, err := arm64asm.Decode(b[:])
	decodeMu.Unlock()
	if err != nil {
		return Inst{Resolved: Resolved{Word: w, err: isa.ErrUndecodable}}, &isa.Fault{PC: pc, Bytes: b[:], Unit: 4, Err: isa.ErrUndecodable}
	}
	inst := Inst{Arch: ai}
	inst.Word = w
	compile(&inst)
	return inst, nil
}

// Cache holds decoded instructions for one text segment, indexed by word.
// Every hit is checked against the word now in text, so a write to text
// never leaves a stale entry; writers need not tell the cache anything. A
// Cache is not safe for concurrent use: give each goroutine its own.
type Cache struct{ c isa.DecodeCache[Inst] }

// NewCache returns a cache for a text segment of size bytes at base.
func NewCache(base uint64, size int) *Cache {
	return &Cache{isa.NewDecodeCache[Inst](base, size, 4)}
}

var errFetch = isa.Detail("fetch outside the text segment or misaligned", isa.ErrMemory)

// Lookup returns the decoding of w at pc, from the cache when the cached
// entry was decoded from the same word. A pc outside the segment or not
// word aligned gives an *isa.Fault wrapping isa.ErrMemory (and an Inst
// whose Exec fails the same way).
func (c *Cache) Lookup(pc uint64, w uint32) (*Inst, error) {
	e := c.c.Entry(pc)
	if e == nil {
		return &Inst{Resolved: Resolved{Word: w, err: errFetch}}, &isa.Fault{PC: pc, Bytes: wordBytes(w), Unit: 4, Err: errFetch}
	}
	if e.Valid && e.Inst.Word == w {
		return &e.Inst, e.Err
	}
	inst, err := Decode(pc, w)
	*e = isa.CacheEntry[Inst]{Valid: true, Inst: inst, Err: err}
	return &e.Inst, err
}

// hintNames are the hints GNU objdump names that arm64asm prints as
// "hint #n" (ARM ARM C6.2 BTI, PACIASP …).
var hintNames = map[uint8]string{
	7: "xpaclri", 8: "pacia1716", 10: "pacib1716", 12: "autia1716", 14: "autib1716",
	16: "esb", 17: "psb csync", 18: "tsb csync", 20: "csdb",
	24: "paciaz", 25: "paciasp", 26: "pacibz", 27: "pacibsp",
	28: "autiaz", 29: "autiasp", 30: "autibz", 31: "autibsp",
	32: "bti", 34: "bti c", 36: "bti j", 38: "bti jc",
}

// Disasm returns the GNU syntax of inst at pc, as objdump prints it:
// pc-relative targets as absolute addresses (named by symname when it
// knows them), a space after each comma inside a memory operand, and the
// BTI and pointer-authentication hints by name.
func Disasm(inst *Inst, pc uint64, symname func(uint64) string) string {
	if inst.err == isa.ErrUndecodable || inst.Arch.Op == 0 {
		return ""
	}
	ai := inst.Arch
	if ai.Op == arm64asm.HINT {
		if h, ok := ai.Args[0].(arm64asm.Imm_hint); ok {
			if n, ok := hintNames[uint8(h)]; ok {
				return n
			}
		}
	}
	target, rel := uint64(0), -1
	for i, a := range ai.Args {
		if r, ok := a.(arm64asm.PCRel); ok {
			target, rel = pc+uint64(r), i
			ai.Args[i] = nil
			for j := i + 1; j < len(ai.Args); j++ {
				ai.Args[j] = nil
			}
			break
		}
	}
	if ai.Op == arm64asm.ADRP && rel >= 0 {
		target = pc&^0xfff + (target - pc)
	}
	var s string
	bcond := false
	if c, ok := ai.Args[0].(arm64asm.Cond); ok && ai.Op == arm64asm.B {
		s = "b." + strings.ToLower(c.String()) // GNUSyntax would print the nil target
		bcond = true
	} else {
		s = strings.TrimSpace(arm64asm.GNUSyntax(ai))
	}
	if rel >= 0 {
		s = strings.TrimSuffix(s, ",")
		t := fmt.Sprintf("%#x", target)
		if symname != nil {
			if n := symname(target); n != "" {
				t += " <" + n + ">"
			}
		}
		if rel == 0 || bcond {
			s += " " + t
		} else {
			s += ", " + t
		}
		// Operands after the target (none in the supported set) are dropped.
	}
	return spaceMem(s)
}

// spaceMem writes ", " for "," inside square brackets, as objdump does.
func spaceMem(s string) string {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return s
	}
	var b strings.Builder
	in := false
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '[':
			in = true
		case c == ']':
			in = false
		case c == ',' && (in || j+1 < len(s) && s[j+1] == '#' && j > 0 && s[j-1] == ']'):
			b.WriteString(", ")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// DisasmWord decodes w and returns its disassembly at pc, or "(undecodable)".
func DisasmWord(pc uint64, w uint32) string {
	inst, err := Decode(pc, w)
	if err != nil {
		return "(undecodable)"
	}
	return Disasm(&inst, pc, nil)
}

// IsISB reports whether inst is an ISB, a context synchronization event
// for the executing CPU (ARM ARM B2.3.7 and C6.2.114).
func (inst *Inst) IsISB() bool { return inst.x == xBarrier && inst.barrier == 1 }

// IsExclusive reports whether inst is a load- or store-exclusive or
// CLREX: an access to the executing CPU's exclusive monitor, which other
// CPUs' stores clear (a shared access, never a thread-local one).
func (inst *Inst) IsExclusive() bool { return inst.x >= xLoadEx && inst.x <= xClrex }

// IsBarrier reports whether inst is ISB, DMB or DSB.
func (inst *Inst) IsBarrier() bool { return inst.x == xBarrier }

// Supported reports whether Exec can run inst (it may still fault on memory).
func (inst *Inst) Supported() bool { return inst.err == nil }

// BranchTarget returns the target of a direct branch (B, BL, B.cond, CBZ,
// CBNZ, TBZ, TBNZ) at pc, and false for anything else.
func BranchTarget(inst *Inst, pc uint64) (uint64, bool) {
	switch inst.x {
	case xB, xBL, xBCond, xCbz, xCbnz, xTbz, xTbnz:
		return pc + inst.imm, true
	}
	return 0, false
}

// IsCall reports whether inst links a return address in x30 (BL, BLR).
func IsCall(inst *Inst) bool { return inst.x == xBL || inst.x == xBlr }

// StackOrLiteral reports whether every memory access of inst (if any) goes
// through sp (the base register is SP) or is a pc-relative literal load.
// Instructions without memory operands report true. It is the
// partial-order reduction's "thread-local" test: such an instruction
// touches only the task's registers and stack, or read-only literals.
// (Whether a literal sits in memory that some CPU writes is the caller's
// business: see Literal.)
func StackOrLiteral(inst *Inst) bool {
	switch inst.x {
	case xLoadEx, xStoreEx, xClrex:
		return false // the monitor is shared state (IsExclusive)
	case xLoad, xStore, xLoadPair, xStorePair, xLoadAcq, xStoreRel:
		return inst.mode == modeLit || inst.rn == rSP
	}
	return true
}

// Literal reports whether inst is a pc-relative literal load (LDR
// literal, LDRSW literal): its address is pc + offset, in text.
func Literal(inst *Inst) bool {
	return inst.x == xLoad && inst.mode == modeLit
}

func wordBytes(w uint32) []byte { return []byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)} }
