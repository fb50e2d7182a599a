package riscv

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcountsim/mcountsim/internal/isatest"
	"github.com/mcountsim/mcountsim/isa"
)

// The differential test runs random instances of every instruction the
// executor runs (every xop but ecall and ebreak, which trap under qemu), as
// 32-bit encodings and, for those RVC expands to, as compressed ones, both
// through Exec and on qemu-riscv64 via testdata/qemu/harness.c, and requires
// identical registers x1–x31, the same landing point (fall through, or the
// jump/branch target 20 bytes ahead or 8 bytes back) and identical memory.
// Jumps, branches, auipc and jal/jalr links run at the real block address
// qemu runs them at, so their results compare exactly. tp (x4) holds the
// harness's state pointer and is never an operand.

const (
	qemuMem       = 0x20000000 // MEM_ADDR in harness.c
	qemuMemSize   = 256        // MEM_SIZE
	qemuCodeAddr  = 0x30000000 // CODE_ADDR
	qemuBlocks    = 0x2000     // BLOCKS
	qemuBlock     = 32         // BLOCK
	qemuBatch     = 4096       // BATCH
	qemuCodeSize  = 16         // CODE_SIZE
	qemuInSize    = 32*8 + qemuCodeSize + qemuMemSize
	qemuOutSize   = 32*8 + 8 + qemuMemSize
	qemuPerForm   = 1000
	qemuSeed      = 0x6d636f756e74 // "mcount"
	qemuGroups    = 8
	qemuMaxReport = 5
)

type qcase struct {
	code [qemuCodeSize]byte
	n    int    // bytes of code that are the case's (the rest is c.nop)
	pc   uint64 // where the harness enters it
	x    [32]uint64
	mem  [qemuMemSize]byte
}

type qresult struct {
	x    [32]uint64
	mark uint64
	mem  [qemuMemSize]byte
}

// entry is the address qemu enters case j of a run at.
func entry(j int) uint64 { return qemuCodeAddr + qemuBlocks + uint64(j%qemuBatch)*qemuBlock + 8 }

// The landing points of the block entered at pc.
func landFall(pc uint64) uint64 { return pc + 16 } // block+24
func landFwd(pc uint64) uint64  { return pc + 20 } // block+28
func landBack(pc uint64) uint64 { return pc - 8 }  // block+0

type qgen struct {
	rng *rand.Rand
	c   qcase
}

var qedges = []uint64{0, 1, 2, 31, 32, 63, 64, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
	1<<63 - 1, 1 << 63, 1<<63 + 1, ^uint64(0), ^uint64(0) - 1, 0xffffffff80000000}

func (g *qgen) val() uint64 {
	switch g.rng.IntN(5) {
	case 0, 1:
		return qedges[g.rng.IntN(len(qedges))]
	case 2:
		return uint64(g.rng.IntN(64))
	}
	return g.rng.Uint64()
}

// start fills every register and memory with random values.
func (g *qgen) start(pc uint64) {
	g.c = qcase{pc: pc}
	for i := 1; i < 32; i++ {
		g.c.x[i] = g.val()
	}
	g.c.x[TP] = 0x5a5a5a5a5a5a5a5a
	for i := range g.c.mem {
		g.c.mem[i] = byte(g.rng.Uint32())
	}
}

// reg returns a random register other than tp; x0 only if zero is true.
func (g *qgen) reg(zero bool) uint32 {
	for {
		r := uint32(g.rng.IntN(32))
		if r != TP && (zero || r != 0) {
			return r
		}
	}
}

func (g *qgen) setCode(b []byte) {
	n := copy(g.c.code[:], b)
	g.c.n = n
	for i := n; i+1 < qemuCodeSize; i += 2 {
		binary.LittleEndian.PutUint16(g.c.code[i:], uint16(CNop()))
	}
}

// place points register rs1 so that rs1+imm is a random address for an
// access of size bytes, naturally aligned, inside the harness memory.
func (g *qgen) place(rs1 uint8, imm int64, size int) {
	a := qemuMem + uint64(g.rng.IntN(qemuMemSize/size)*size)
	g.c.x[rs1] = a - uint64(imm)
}

// fix completes a case whose code is the one instruction inst: it points
// memory operands into the harness memory and jumps at a landing point,
// and reports false for an instruction the harness cannot run.
func (g *qgen) fix(inst *Inst) bool {
	if !inst.Supported() || inst.Rd == TP || inst.Rs1 == TP || inst.Rs2 == TP {
		return false
	}
	pc := g.c.pc
	switch x := inst.x; {
	case x == xEcall || x == xEbreak:
		return false
	case x >= xLB && x <= xSD, x >= xLRW && x <= xAMOMAXUD:
		if inst.Rs1 == 0 {
			return false
		}
		g.place(inst.Rs1, inst.Imm, accessSize(x))
		if x >= xSCW && x <= xSCD {
			return false // needs its LR: see scForm
		}
	case x == xJALR:
		if inst.Rs1 == 0 {
			return false
		}
		t := [...]uint64{landFall(pc), landFwd(pc), landBack(pc)}[g.rng.IntN(3)]
		g.c.x[inst.Rs1] = t - uint64(inst.Imm) + uint64(g.rng.IntN(2))
	case x == xJAL || x >= xBEQ && x <= xBGEU:
		t := pc + uint64(inst.Imm)
		if t != landFwd(pc) && t != landBack(pc) && t != pc+uint64(inst.Len) {
			return false
		}
		if x >= xBEQ && inst.Rs2 != 0 && g.rng.IntN(3) == 0 {
			g.c.x[inst.Rs2] = g.c.x[inst.Rs1]
		}
	}
	return true
}

func accessSize(x xop) int {
	switch {
	case x >= xLB && x <= xLWU:
		return loadSize[x-xLB]
	case x >= xSB && x <= xSD:
		return 1 << (x - xSB)
	case x == xLRW || x == xSCW || x >= xAMOSWAPW && x <= xAMOMAXUW:
		return 4
	}
	return 8
}

// An encoding template of one xop: the fixed bits and how to fill the rest.
type tmpl struct {
	x    xop
	kind uint8
	base uint32
}

const (
	kR uint8 = iota
	kI
	kShift   // 6-bit shamt
	kShiftW  // 5-bit shamt
	kU       // lui, auipc
	kJAL     // jal to a landing point
	kJALR    //
	kBranch  // to a landing point
	kLoad    //
	kStore   //
	kAMO     // with random aq/rl bits
	kLR      //
	kSC      // an LR, then the SC
	kFence   // random pred/succ
	kFixed   // base as is
	kNumKind //
)

func rtype(f7, f3, op uint32) uint32 { return f7<<25 | f3<<12 | op }

var tmpls = []tmpl{
	{xLUI, kU, 0x37}, {xAUIPC, kU, 0x17}, {xJAL, kJAL, 0x6f}, {xJALR, kJALR, 0x67},
	{xBEQ, kBranch, 0 << 12}, {xBNE, kBranch, 1 << 12}, {xBLT, kBranch, 4 << 12},
	{xBGE, kBranch, 5 << 12}, {xBLTU, kBranch, 6 << 12}, {xBGEU, kBranch, 7 << 12},
	{xLB, kLoad, 0<<12 | 0x03}, {xLH, kLoad, 1<<12 | 0x03}, {xLW, kLoad, 2<<12 | 0x03}, {xLD, kLoad, 3<<12 | 0x03},
	{xLBU, kLoad, 4<<12 | 0x03}, {xLHU, kLoad, 5<<12 | 0x03}, {xLWU, kLoad, 6<<12 | 0x03},
	{xSB, kStore, 0<<12 | 0x23}, {xSH, kStore, 1<<12 | 0x23}, {xSW, kStore, 2<<12 | 0x23}, {xSD, kStore, 3<<12 | 0x23},
	{xADDI, kI, 0<<12 | 0x13}, {xSLTI, kI, 2<<12 | 0x13}, {xSLTIU, kI, 3<<12 | 0x13}, {xXORI, kI, 4<<12 | 0x13},
	{xORI, kI, 6<<12 | 0x13}, {xANDI, kI, 7<<12 | 0x13},
	{xSLLI, kShift, rtype(0, 1, 0x13)}, {xSRLI, kShift, rtype(0, 5, 0x13)}, {xSRAI, kShift, rtype(0x20, 5, 0x13)},
	{xADD, kR, rtype(0, 0, 0x33)}, {xSUB, kR, rtype(0x20, 0, 0x33)}, {xSLL, kR, rtype(0, 1, 0x33)},
	{xSLT, kR, rtype(0, 2, 0x33)}, {xSLTU, kR, rtype(0, 3, 0x33)}, {xXOR, kR, rtype(0, 4, 0x33)},
	{xSRL, kR, rtype(0, 5, 0x33)}, {xSRA, kR, rtype(0x20, 5, 0x33)}, {xOR, kR, rtype(0, 6, 0x33)},
	{xAND, kR, rtype(0, 7, 0x33)},
	{xADDIW, kI, 0<<12 | 0x1b}, {xSLLIW, kShiftW, rtype(0, 1, 0x1b)}, {xSRLIW, kShiftW, rtype(0, 5, 0x1b)},
	{xSRAIW, kShiftW, rtype(0x20, 5, 0x1b)},
	{xADDW, kR, rtype(0, 0, 0x3b)}, {xSUBW, kR, rtype(0x20, 0, 0x3b)}, {xSLLW, kR, rtype(0, 1, 0x3b)},
	{xSRLW, kR, rtype(0, 5, 0x3b)}, {xSRAW, kR, rtype(0x20, 5, 0x3b)},
	{xMUL, kR, rtype(1, 0, 0x33)}, {xMULH, kR, rtype(1, 1, 0x33)}, {xMULHSU, kR, rtype(1, 2, 0x33)},
	{xMULHU, kR, rtype(1, 3, 0x33)}, {xDIV, kR, rtype(1, 4, 0x33)}, {xDIVU, kR, rtype(1, 5, 0x33)},
	{xREM, kR, rtype(1, 6, 0x33)}, {xREMU, kR, rtype(1, 7, 0x33)},
	{xMULW, kR, rtype(1, 0, 0x3b)}, {xDIVW, kR, rtype(1, 4, 0x3b)}, {xDIVUW, kR, rtype(1, 5, 0x3b)},
	{xREMW, kR, rtype(1, 6, 0x3b)}, {xREMUW, kR, rtype(1, 7, 0x3b)},
	{xLRW, kLR, amoBase(0x02, 2)}, {xLRD, kLR, amoBase(0x02, 3)}, {xSCW, kSC, amoBase(0x03, 2)}, {xSCD, kSC, amoBase(0x03, 3)},
	{xAMOSWAPW, kAMO, amoBase(0x01, 2)}, {xAMOADDW, kAMO, amoBase(0x00, 2)}, {xAMOXORW, kAMO, amoBase(0x04, 2)},
	{xAMOANDW, kAMO, amoBase(0x0c, 2)}, {xAMOORW, kAMO, amoBase(0x08, 2)}, {xAMOMINW, kAMO, amoBase(0x10, 2)},
	{xAMOMAXW, kAMO, amoBase(0x14, 2)}, {xAMOMINUW, kAMO, amoBase(0x18, 2)}, {xAMOMAXUW, kAMO, amoBase(0x1c, 2)},
	{xAMOSWAPD, kAMO, amoBase(0x01, 3)}, {xAMOADDD, kAMO, amoBase(0x00, 3)}, {xAMOXORD, kAMO, amoBase(0x04, 3)},
	{xAMOANDD, kAMO, amoBase(0x0c, 3)}, {xAMOORD, kAMO, amoBase(0x08, 3)}, {xAMOMIND, kAMO, amoBase(0x10, 3)},
	{xAMOMAXD, kAMO, amoBase(0x14, 3)}, {xAMOMINUD, kAMO, amoBase(0x18, 3)}, {xAMOMAXUD, kAMO, amoBase(0x1c, 3)},
	{xFence, kFence, 0x0f}, {xFenceI, kFixed, uint32(FenceI())},
}

func amoBase(f5, f3 uint32) uint32 { return f5<<27 | f3<<12 | 0x2f }

// notUnderQEMU are the xops the harness cannot run: they trap.
var notUnderQEMU = map[xop]bool{xEcall: true, xEbreak: true}

// rvcOps are the xops that compressed instructions expand to (RV64C, §16),
// but c.ebreak, which traps.
var rvcOps = []xop{xADDI, xLW, xLD, xSW, xSD, xLUI, xADDIW, xSRLI, xSRAI, xANDI, xSUB, xXOR, xOR,
	xAND, xSUBW, xADDW, xJAL, xBEQ, xBNE, xSLLI, xJALR, xADD}

// gen32 draws one case of template t at pc.
func (g *qgen) gen32(t tmpl, pc uint64) qcase {
	for {
		g.start(pc)
		rd, rs1, rs2 := g.reg(true), g.reg(true), g.reg(true)
		w := t.base
		var code []byte
		switch t.kind {
		case kR:
			w |= rs2<<20 | rs1<<15 | rd<<7
			if g.rng.IntN(4) == 0 { // division by zero and overflow
				g.c.x[rs2] = [...]uint64{0, ^uint64(0), 1}[g.rng.IntN(3)]
			}
		case kI, kLoad:
			w |= (g.rng.Uint32()&0xfff)<<20 | rs1<<15 | rd<<7
		case kShift:
			w |= uint32(g.rng.IntN(64))<<20 | rs1<<15 | rd<<7
		case kShiftW:
			w |= uint32(g.rng.IntN(32))<<20 | rs1<<15 | rd<<7
		case kU:
			w |= g.rng.Uint32()&0xfffff000 | rd<<7
		case kJAL:
			tg := [...]uint64{landFwd(pc), landBack(pc), pc + 4}[g.rng.IntN(3)]
			j, _ := Jal(int(rd), pc, tg)
			w = uint32(j)
		case kJALR:
			w |= (g.rng.Uint32()&0xfff)<<20 | rs1<<15 | rd<<7
		case kBranch:
			tg := [...]uint64{landFwd(pc), landBack(pc), pc + 4}[g.rng.IntN(3)]
			b, _ := branch(t.base>>12, int(rs1), int(rs2), pc, tg)
			w = uint32(b)
		case kStore:
			imm := g.rng.Uint32() & 0xfff
			w |= imm>>5<<25 | rs2<<20 | rs1<<15 | (imm&31)<<7
		case kAMO:
			w |= g.rng.Uint32()&3<<25 | rs2<<20 | rs1<<15 | rd<<7
		case kLR:
			w |= g.rng.Uint32()&3<<25 | rs1<<15 | rd<<7
		case kSC:
			if c, ok := g.scCase(t, pc); ok {
				return c
			}
			continue
		case kFence:
			w |= (1+g.rng.Uint32()%15)<<24 | (1+g.rng.Uint32()%15)<<20
		case kFixed:
		}
		code = Word(w).Bytes()
		g.setCode(code)
		inst, err := Decode(pc, code)
		if err != nil || inst.x != t.x {
			panic(fmt.Sprintf("template %v made %08x, which decodes to %v (%v)", t.x, w, inst.x, err))
		}
		if g.fix(&inst) {
			return g.c
		}
	}
}

// scCase is lr.{w,d} rd', (rs1) followed by sc.{w,d} rd, rs2, (rs1'): rs1'
// is rs1, or another register holding the same address (the SC succeeds)
// or a different one (it fails).
func (g *qgen) scCase(t tmpl, pc uint64) (qcase, bool) {
	size := 4
	lr := amoBase(0x02, 2)
	if t.x == xSCD {
		size, lr = 8, amoBase(0x02, 3)
	}
	rs1 := g.reg(false)
	lrd := g.reg(true)
	if lrd == rs1 {
		return qcase{}, false
	}
	g.place(uint8(rs1), 0, size)
	base := rs1
	switch g.rng.IntN(3) {
	case 1, 2:
		base = g.reg(false)
		if base == lrd {
			return qcase{}, false
		}
		if base != rs1 {
			if g.rng.IntN(2) == 0 {
				g.c.x[base] = g.c.x[rs1]
			} else {
				g.place(uint8(base), 0, size)
			}
		}
	}
	rd, rs2 := g.reg(true), g.reg(true)
	w1 := lr | g.rng.Uint32()&3<<25 | rs1<<15 | lrd<<7
	w2 := t.base | g.rng.Uint32()&3<<25 | rs2<<20 | base<<15 | rd<<7
	g.setCode(append(Word(w1).Bytes(), Word(w2).Bytes()...))
	return g.c, true
}

// genRVC draws one compressed case from quadrant q (the low two bits).
func (g *qgen) genRVC(q uint16, pc uint64) qcase {
	for {
		g.start(pc)
		h := uint16(g.rng.Uint32())&^3 | q
		switch k := g.rng.IntN(8); {
		case q == 1 && k < 2:
			h = g.rvcJump()
		case q == 1 && k < 4:
			// CA format (c.sub, c.xor, c.or, c.and, c.subw, c.addw): 100 b 11 rd' f2 rs2' 01
			h = 0x8c01 | h&(1<<12|7<<7|3<<5|7<<2)
		case q == 2 && k < 3:
			// CR format (c.jr, c.jalr, c.mv, c.add): 100 b rd rs2 10, rs2 = 0 for the jumps
			h = 0x8002 | h&(1<<12|31<<7|31<<2)
			if k == 0 {
				h &^= 31 << 2
			}
		}
		code := Half(h).Bytes()
		inst, err := Decode(pc, code)
		if err != nil {
			continue
		}
		g.setCode(code)
		if g.fix(&inst) {
			return g.c
		}
	}
}

// rvcJump is c.j, c.beqz or c.bnez (§16.4, formats CJ and CB) to a landing
// point of the block, which random halfwords rarely hit.
func (g *qgen) rvcJump() uint16 {
	pc := g.c.pc
	off := uint32([...]uint64{landFwd(pc), landBack(pc), pc + 2}[g.rng.IntN(3)] - pc)
	bit := func(i uint) uint16 { return uint16(off >> i & 1) }
	if g.rng.IntN(3) == 0 { // c.j: offset[11|4|9:8|10|6|7|3:1|5] in bits 12:2
		return 0xa001 | bit(11)<<12 | bit(4)<<11 | bit(9)<<10 | bit(8)<<9 | bit(10)<<8 | bit(6)<<7 |
			bit(7)<<6 | bit(3)<<5 | bit(2)<<4 | bit(1)<<3 | bit(5)<<2
	}
	// c.beqz/c.bnez rs1', offset[8|4:3] in 12:10, [7:6|2:1|5] in 6:2
	op := uint16(0xc001)
	if g.rng.IntN(2) == 0 {
		op = 0xe001
	}
	r := uint16(g.rng.IntN(8))
	if g.rng.IntN(3) == 0 {
		g.c.x[8+r] = 0
	}
	return op | bit(8)<<12 | bit(4)<<11 | bit(3)<<10 | r<<7 | bit(7)<<6 | bit(6)<<5 | bit(2)<<4 | bit(1)<<3 | bit(5)<<2
}

type qform struct {
	name string
	gen  func(g *qgen, pc uint64) qcase
	mul  int // cases per case of a one-instruction form (random RVC halfwords cover many)
}

func qemuForms() []qform {
	var f []qform
	for _, t := range tmpls {
		f = append(f, qform{name: t.x.String(), mul: 1, gen: func(g *qgen, pc uint64) qcase { return g.gen32(t, pc) }})
	}
	for q := uint16(0); q < 3; q++ {
		f = append(f, qform{name: fmt.Sprintf("rvc-q%d", q), mul: 4, gen: func(g *qgen, pc uint64) qcase { return g.genRVC(q, pc) }})
	}
	return f
}

// formKey is an executed instruction form: its xop and length.
type formKey struct {
	x   xop
	len uint8
}

// execGo runs c through Exec the way the harness runs it on qemu, and
// records the forms it executed in seen (if not nil).
func execGo(c *qcase, seen map[formKey]int) (qresult, error) {
	r := Regs{X: c.x, PC: c.pc}
	bus := newFakeBus(qemuMem, qemuMem+qemuMemSize)
	bus.Record = false
	copy(bus.Mem, c.mem[:])
	cache := NewCache(c.pc, qemuCodeSize)
	for steps := 0; r.PC >= c.pc && r.PC < c.pc+uint64(c.n); steps++ {
		if steps == 8 {
			return qresult{}, fmt.Errorf("more than 8 steps")
		}
		inst, err := cache.Lookup(r.PC, c.code[r.PC-c.pc:])
		if err != nil {
			return qresult{}, err
		}
		if seen != nil {
			seen[formKey{inst.x, inst.Len}]++
		}
		pc := r.PC
		flow, err := Exec(inst, &r, bus)
		if err != nil {
			return qresult{}, err
		}
		if err := checkFlow(inst, pc, r.PC, flow); err != nil {
			return qresult{}, err
		}
	}
	out := qresult{x: r.X}
	switch pc := r.PC; {
	case pc >= c.pc+uint64(c.n) && pc <= landFall(c.pc) && pc&1 == 0:
		out.mark = 0
	case pc == landFwd(c.pc):
		out.mark = 1
	case pc == landBack(c.pc):
		out.mark = 2
	default:
		return qresult{}, fmt.Errorf("pc %#x is no landing point", pc)
	}
	copy(out.mem[:], bus.Mem)
	return out, nil
}

// checkFlow checks the Flow of inst, executed at pc, against the rules of
// Exec's documentation and the pc it left in next.
func checkFlow(inst *Inst, pc, next uint64, flow isa.Flow) error {
	want := isa.FlowNext
	switch x := inst.x; {
	case x == xJAL || x == xJALR:
		want = isa.FlowBranch
		switch {
		case inst.Rd != 0:
			want = isa.FlowCall
		case x == xJALR && (inst.Rs1 == RA || inst.Rs1 == T0):
			want = isa.FlowReturn
		}
	case x >= xBEQ && x <= xBGEU:
		if flow == isa.FlowSkipped && next == pc+uint64(inst.Len) || flow == isa.FlowBranch && next == pc+uint64(inst.Imm) {
			return nil
		}
		return fmt.Errorf("%s: flow %v to %#x", Disasm(inst, pc, nil), flow, next)
	default:
		if next != pc+uint64(inst.Len) {
			return fmt.Errorf("%s: pc %#x after it", Disasm(inst, pc, nil), next)
		}
	}
	if flow != want {
		return fmt.Errorf("%s: flow %v, want %v", Disasm(inst, pc, nil), flow, want)
	}
	return nil
}

func (c *qcase) marshal(b []byte) []byte {
	for _, v := range c.x {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = append(b, c.code[:]...)
	return append(b, c.mem[:]...)
}

func unmarshalResult(b []byte) qresult {
	var q qresult
	for i := range q.x {
		q.x[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	q.mark = binary.LittleEndian.Uint64(b[256:])
	copy(q.mem[:], b[264:])
	return q
}

func describeCase(c *qcase, got, want qresult, gerr error) string {
	var b strings.Builder
	for off := 0; off < c.n; {
		inst, err := Decode(c.pc+uint64(off), c.code[off:])
		if err != nil {
			fmt.Fprintf(&b, "(undecodable) ")
			break
		}
		fmt.Fprintf(&b, "%s: %s; ", isa.Hex(inst.Bytes(), int(inst.Len)), Disasm(&inst, c.pc+uint64(off), nil))
		off += int(inst.Len)
	}
	fmt.Fprintf(&b, "at %#x\n", c.pc)
	if gerr != nil {
		fmt.Fprintf(&b, "  Exec: %v\n", gerr)
	}
	for i := range 32 {
		mark := ""
		if gerr == nil && got.x[i] != want.x[i] {
			mark = fmt.Sprintf("  <-- Exec %#x", got.x[i])
		}
		if mark != "" || c.x[i] != want.x[i] {
			fmt.Fprintf(&b, "  %-4s in %#018x qemu %#018x%s\n", RegName(uint8(i)), c.x[i], want.x[i], mark)
		}
	}
	fmt.Fprintf(&b, "  landing qemu %d Exec %d\n", want.mark, got.mark)
	for i := range want.mem {
		if gerr == nil && got.mem[i] != want.mem[i] {
			fmt.Fprintf(&b, "  mem[%#x] in %#02x qemu %#02x Exec %#02x\n", qemuMem+i, c.mem[i], want.mem[i], got.mem[i])
		}
	}
	return b.String()
}

func TestQEMUDifferential(t *testing.T) {
	h := isatest.Build(t, isatest.Tools{
		What: "the RISC-V executor against QEMU (isa/riscv)",
		QEMU: "qemu-riscv64", GCC: "riscv64-linux-gnu-gcc", GCCPkg: "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross",
		InSize: qemuInSize, OutSize: qemuOutSize,
	})
	forms := qemuForms()
	per := qemuPerForm
	if testing.Short() {
		per = 60
	}
	// The cases of form i come from their own seeded generator, so that a
	// failing form reproduces alone.
	groups := make([][]isatest.Case[qcase], qemuGroups)
	names := make([]string, len(forms))
	for i, f := range forms {
		names[i] = f.name
		g := &qgen{rng: rand.New(rand.NewPCG(qemuSeed, uint64(i)))}
		for j := range per * f.mul {
			k := (i*per + j) % qemuGroups
			groups[k] = append(groups[k], isatest.Case[qcase]{C: f.gen(g, entry(len(groups[k]))), Form: i})
		}
	}
	var (
		mu        sync.Mutex
		seen      = map[formKey]int{}
		scOutcome = map[bool]int{}
	)
	d := isatest.Diff[qcase, qresult]{
		Forms: names, Marshal: (*qcase).marshal, Unmarshal: unmarshalResult, Describe: describeCase, MaxReport: qemuMaxReport,
		Exec: func(c *isatest.Case[qcase], want qresult) (qresult, error) {
			local := map[formKey]int{}
			got, err := execGo(&c.C, local)
			mu.Lock()
			defer mu.Unlock()
			for f, n := range local {
				seen[f] += n
			}
			if strings.HasPrefix(names[c.Form], "sc.") {
				// Both outcomes of an SC must occur: rd = 0 on success.
				if rd := binary.LittleEndian.Uint32(c.C.code[4:]) >> 7 & 31; rd != 0 {
					scOutcome[want.x[rd] == 0]++
				}
			}
			return got, err
		},
	}
	n, total := d.Run(t, h, groups)
	// Every xop the executor runs, as a 32-bit instruction, and every one
	// RVC expands to, as a 16-bit one, ran against qemu.
	var missing []string
	for x := xUnsupported + 1; x < xCount; x++ {
		if !notUnderQEMU[x] && seen[formKey{x, 4}] == 0 {
			missing = append(missing, x.String())
		}
	}
	for _, x := range rvcOps {
		if seen[formKey{x, 2}] == 0 {
			missing = append(missing, "c:"+x.String())
		}
	}
	if scOutcome[true] == 0 || scOutcome[false] == 0 {
		t.Errorf("sc outcomes under qemu: %d succeeded, %d failed; want both", scOutcome[true], scOutcome[false])
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("forms never executed against qemu: %v", missing)
	}
	t.Logf("%d forms, %d cases against qemu-riscv64 (%d instruction forms executed); %d mismatches",
		len(forms), n, len(seen), total)
}
