package kernel

import (
	"encoding/binary"

	"github.com/mcountsim/mcountsim/isa/riscv"
)

// RISC-V layout constants: the text, and the data the trampolines read
// (function_trace_op, and in the atomic era ftrace_call_dest).
const (
	RISCVBase = 0x200000
	RISCVData = 0x300000
)

// The RISC-V prologues (Config.Prologue), one per era of Linux's RISC-V
// dynamic ftrace (kernel-facts §4, kernel-history §1):
//
//   - "mcount" (era 0, 2018-2020): gcc -pg with frame pointers; the site is
//     the auipc ra + jalr ra to _mcount after the prologue (the compiler
//     puts it at f+0xe, 2 mod 4); ftrace_caller returns with ret.
//   - "pfe16" (era 1, afc76b8b8011): -fpatchable-function-entry=8 with
//     RVC, 16 bytes of c.nop at entry, patched as sd ra,-8(sp); auipc ra;
//     jalr ra; ld ra,-8(sp); ftrace_caller returns with ret.
//   - "pfe8" (era 2, 6724a76cff85, Linux 6.3-6.15): =4 with RVC, 8 bytes,
//     patched as auipc t0; jalr t0; the DYNAMIC_FTRACE_WITH_REGS
//     trampolines ftrace_caller and ftrace_regs_caller return with jr t0.
//   - "atomic" (era 3, b2137c3b6d7a, 2025; the default): =8,4 with RVC and
//     4-byte function alignment; boot writes auipc t0 + nop once and only
//     the second word toggles; ftrace_caller calls the tracer through
//     ftrace_call_dest and returns with jr t0.
const (
	RVMcount = "mcount"
	RVPFE16  = "pfe16"
	RVPFE8   = "pfe8"
	RVAtomic = "atomic"
)

// RVPrologues lists the RISC-V prologues, oldest first.
var RVPrologues = []string{RVMcount, RVPFE16, RVPFE8, RVAtomic}

// Trampoline frame sizes of arch/riscv/kernel/mcount-dyn.S.
const (
	rvPTSize    = 288 // PT_SIZE_ON_STACK: struct pt_regs (epc, x1-x31, status, badaddr, cause, orig_a0)
	rvFregsSize = 112 // FREGS_SIZE_ON_STACK (era 3): epc, ra, sp, s0, t1, a0-a7, aligned to 16 [unverified offsets]
	rvABISize1  = 72  // era 1 ABI_SIZE_ON_STACK: a0-a7, ra (plus the SZREG slot the site used)
	rvABISize0  = 16  // era 0 SAVE_ABI_STATE: s0, ra
)

// rvRegsGap puts ftrace_regs_caller 4 KiB + 256 bytes beyond
// ftrace_caller, so that for every site the auipc+jalr pairs of the two
// targets differ in both halves (upper 20 and low 12 bits), as they do in a
// real kernel for the sites whose offsets to the two trampolines straddle a
// 4 KiB boundary, and always for a direct trampoline elsewhere in text. (A
// distance of exactly 4 KiB would give equal low halves, and an old auipc
// with a new jalr would land on the old target.)
const rvRegsGap = 0x1100

// buildRISCV lays out the RV64GC text:
//
//	worker:   addi sp,sp,-32; sd ra,24(sp); sd s0,16(sp)  # a kthread function's frame
//	          li   s0,iterations
//	1:        mv   a0,s0
//	          call f0 ... call fN-1                       # auipc ra + jalr ra
//	          call schedule                               # voluntary schedule point
//	          addi s0,s0,-1; bnez s0,1b
//	          call do_exit
//	fK:       int f(int x) { return g(x) + 1; } as riscv64-linux-gnu-gcc -O2
//	          emits it for the era's flags (see the prologue constants)
//	g:        sllw a0,a0,1; ret                           # notrace
//	_mcount:  ret                                         # era 0: what DYNAMIC_FTRACE compiles
//	ftrace_caller (and ftrace_regs_caller in era 2): the era's trampoline
//	          of mcount-dyn.S, its ftrace_call slot calling trace_function
//	trace_function: nop (hook: trace); ret
//	schedule: nop (hook: schedule); ret
//	do_exit:  nop (hook: exit); j .
//
// The trampolines are written without RVC (the kernel's assembler would
// compress some of them; their semantics are the same).
func buildRISCV(cfg Config) (*Image, error) {
	era := cfg.Prologue
	if era == "" {
		era = RVAtomic
	}
	switch era {
	case RVMcount, RVPFE16, RVPFE8, RVAtomic:
	default:
		return nil, errorf("unknown riscv64 prologue %q (want mcount, pfe16, pfe8 or atomic)", cfg.Prologue)
	}
	a := rvText{&asm{img: &Image{Arch: RISCV64, Base: RISCVBase, Align: 2}}}
	w, h := a.w, a.h

	a.sym("worker")
	a.img.Entry = a.pc()
	h(0x1101) // addi sp,sp,-32
	h(0xec06) // sd ra,24(sp)
	h(0xe822) // sd s0,16(sp)
	w(riscv.Addi(riscv.S0, riscv.Zero, int32(cfg.Iterations)))
	loop := a.pc()
	h(0x8522) // mv a0,s0
	for i := 0; i < cfg.Functions; i++ {
		a.call(riscv.RA, funcName(i))
	}
	a.call(riscv.RA, "schedule")
	w(riscv.Addi(riscv.S0, riscv.S0, -1))
	w(a.ok(riscv.Bne(riscv.S0, riscv.Zero, a.pc(), loop)))
	a.call(riscv.RA, "do_exit")

	for i := 0; i < cfg.Functions; i++ {
		a.traced(funcName(i), era)
	}
	a.align4()
	a.sym("g")
	w(0x0015151b) // sllw a0,a0,0x1
	h(riscv.CRet())

	a.services(era)
	return a.finish()
}

// services emits what every RISC-V text of era ends with (Build's and
// LinkObject's): _mcount (era 0), the era's trampolines, the hook stubs,
// and the ftrace data segment at RISCVData.
func (a rvText) services(era string) {
	w := a.w
	a.align4()
	if era == RVMcount {
		a.sym("_mcount")
		w(riscv.Ret())
	}
	a.trampolines(era)
	a.hooks(riscv.Nop().Bytes(), riscv.Ret().Bytes(), func(pc uint64) []byte {
		j, _ := riscv.Jal(riscv.Zero, pc, pc)
		return j.Bytes()
	})

	data := make([]byte, 16) // function_trace_op (the ops pointer, unused by the hook), ftrace_call_dest
	a.later(func() { binary.LittleEndian.PutUint64(data[8:], a.addr("trace_function")) })
	a.img.Data = append(a.img.Data, Segment{Name: "ftrace data", Addr: RISCVData, Bytes: data})
}

// Data addresses the trampolines load.
const (
	rvFunctionTraceOp = RISCVData
	rvFtraceCallDest  = RISCVData + 8
)

// traced emits function name compiled with the era's flags.
func (a rvText) traced(name, era string) {
	h := a.h
	a.align4()
	if era == RVAtomic {
		// -fpatchable-function-entry=8,4: four c.nop before the symbol
		// (the CALL_OPS literal's room, unused without CALL_OPS).
		for i := 0; i < 4; i++ {
			h(riscv.CNop())
		}
	}
	a.sym(name)
	entry := a.pc()
	site := func(n int, call uint64) {
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: entry, Len: n, Call: call})
		for i := 0; i < n/2; i++ {
			h(riscv.CNop())
		}
	}
	switch era {
	case RVMcount:
		// gcc -O2 -pg -fno-omit-frame-pointer
		h(0x1101) // addi sp,sp,-32
		h(0xe822) // sd s0,16(sp)
		h(0xec06) // sd ra,24(sp)
		h(0x1000) // addi s0,sp,32
		h(0xe426) // sd s1,8(sp)
		h(0x84aa) // mv s1,a0
		h(0x8506) // mv a0,ra
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: a.pc(), Len: 8, Call: a.pc()})
		a.call(riscv.RA, "_mcount")
		h(0x8526) // mv a0,s1
		a.call(riscv.RA, "g")
		h(0x60e2) // ld ra,24(sp)
		h(0x6442) // ld s0,16(sp)
		h(0x64a2) // ld s1,8(sp)
		h(0x2505) // addw a0,a0,1
		h(0x6105) // addi sp,sp,32
		h(riscv.CRet())
		return
	case RVPFE16:
		site(16, entry) // rec->ip: the sd ra
	case RVPFE8:
		site(8, entry) // rec->ip: the auipc
	case RVAtomic:
		site(8, entry+4) // rec->ip: the jalr slot (ftrace_call_adjust: addr + 4)
	}
	// gcc -O2 -fpatchable-function-entry=...
	h(0x1141) // addi sp,sp,-16
	h(0xe406) // sd ra,8(sp)
	a.call(riscv.RA, "g")
	h(0x60a2) // ld ra,8(sp)
	h(0x2505) // addw a0,a0,1
	h(0x0141) // addi sp,sp,16
	h(riscv.CRet())
}

// trampolines emits the era's ftrace_caller (and, in era 2,
// ftrace_regs_caller), following arch/riscv/kernel/mcount-dyn.S of the era.
func (a rvText) trampolines(era string) {
	w := a.w
	sd := func(r, off int) { w(riscv.Sd(r, riscv.SP, int32(off))) }
	ld := func(r, off int) { w(riscv.Ld(r, riscv.SP, int32(off))) }
	addSP := func(n int) { w(riscv.Addi(riscv.SP, riscv.SP, int32(n))) }
	args := func(store bool, base int) { // a0-a7 at base, base+8, ...
		for r := riscv.A0; r <= riscv.A7; r++ {
			if store {
				sd(r, base+8*(r-riscv.A0))
			} else {
				ld(r, base+8*(r-riscv.A0))
			}
		}
	}
	traceOp := func(rd, into int) { // la rd, function_trace_op; ld into, 0(rd)
		a.la(rd, rvFunctionTraceOp)
		w(riscv.Ld(into, rd, 0))
	}
	a.sym("ftrace_caller")
	switch era {
	case RVMcount:
		// mcount-dyn.S of 2018 (Alan Kao), without the graph tracer.
		w(riscv.Ld(riscv.A1, riscv.S0, -8)) // parent ip: the caller's saved ra
		w(riscv.Addi(riscv.A0, riscv.RA, -8))
		traceOp(riscv.T5, riscv.A2)
		addSP(-rvABISize0) // SAVE_ABI_STATE
		sd(riscv.S0, 0)
		sd(riscv.RA, 8)
		w(riscv.Addi(riscv.S0, riscv.SP, rvABISize0))
		a.call(riscv.RA, "trace_function") // ftrace_call
		ld(riscv.RA, 8)                    // RESTORE_ABI_STATE
		ld(riscv.S0, 0)
		addSP(rvABISize0)
		w(riscv.Ret())
	case RVPFE16:
		// afc76b8b8011: SAVE_ABI leaves the SZREG slot the site stored ra in.
		addSP(-8)
		addSP(-rvABISize1)
		args(true, 0)
		sd(riscv.RA, 64)
		w(riscv.Addi(riscv.A0, riscv.RA, -12))
		traceOp(riscv.A1, riscv.A2)
		ld(riscv.A1, rvABISize1) // parent ip: the ra the site saved
		w(riscv.Mv(riscv.A3, riscv.SP))
		a.call(riscv.RA, "trace_function") // ftrace_call
		args(false, 0)
		ld(riscv.RA, 64)
		addSP(rvABISize1)
		addSP(8)
		w(riscv.Ret())
	case RVPFE8:
		// Linux 6.6-6.15 with DYNAMIC_FTRACE_WITH_REGS.
		a.regsCaller(false)
		a.end()
		for a.pc() < a.addr("ftrace_caller")+rvRegsGap {
			a.h(0) // c.unimp: no code lives here
		}
		a.sym("ftrace_regs_caller")
		a.regsCaller(true)
	case RVAtomic:
		// b2137c3b6d7a and its series, without CALL_OPS.
		const epc, ra, sp, s0, t1, a0 = 0, 8, 16, 24, 32, 40
		addSP(-rvFregsSize) // SAVE_ABI_REGS
		sd(riscv.T0, epc)
		sd(riscv.RA, ra)
		sd(riscv.S0, s0)
		sd(riscv.T1, t1)
		args(true, a0)
		w(riscv.Mv(riscv.A0, riscv.SP))
		w(riscv.Addi(riscv.A0, riscv.A0, rvFregsSize))
		sd(riscv.A0, sp)
		w(riscv.Addi(riscv.A0, riscv.T0, -4)) // PREPARE_ARGS: ip is the jalr
		traceOp(riscv.A1, riscv.A2)
		w(riscv.Mv(riscv.A1, riscv.RA))
		w(riscv.Mv(riscv.A3, riscv.SP))
		a.pcrel(riscv.RA, rvFtraceCallDest, func(lo int32) riscv.Word { return riscv.Ld(riscv.RA, riscv.RA, lo) })
		w(riscv.Jalr(riscv.RA, riscv.RA, 0)) // ftrace_call: REG_L ra, ftrace_call_dest; jalr ra
		ld(riscv.T0, epc)                    // RESTORE_ABI_REGS
		ld(riscv.RA, ra)
		ld(riscv.S0, s0)
		ld(riscv.T1, t1)
		args(false, a0)
		addSP(rvFregsSize)
		w(riscv.Jr(riscv.T0))
	}
}

// regsCaller emits era 2's ftrace_caller (SAVE_ABI_REGS 0) or
// ftrace_regs_caller (SAVE_ABI_REGS 1, which saves every register and
// returns through t1 when a direct trampoline set it).
func (a rvText) regsCaller(all bool) {
	w := a.w
	if all {
		w(riscv.Mv(riscv.T1, riscv.Zero))
	}
	w(riscv.Addi(riscv.SP, riscv.SP, -rvPTSize))
	w(riscv.Sd(riscv.T0, riscv.SP, 0)) // PT_EPC
	w(riscv.Sd(riscv.RA, riscv.SP, 8)) // PT_RA
	for r := riscv.A0; r <= riscv.A7; r++ {
		w(riscv.Sd(r, riscv.SP, int32(8*r)))
	}
	rest := []int{riscv.SP, riscv.GP, riscv.TP, riscv.T0, riscv.T1, riscv.T2, riscv.S0, riscv.S1}
	for r := riscv.S2; r <= riscv.T6; r++ {
		rest = append(rest, r)
	}
	if all {
		for _, r := range rest {
			w(riscv.Sd(r, riscv.SP, int32(8*r)))
		}
	}
	w(riscv.Addi(riscv.A0, riscv.T0, -8)) // PREPARE_ARGS
	a.la(riscv.A1, rvFunctionTraceOp)
	w(riscv.Ld(riscv.A2, riscv.A1, 0))
	w(riscv.Mv(riscv.A1, riscv.RA))
	w(riscv.Mv(riscv.A3, riscv.SP))
	a.call(riscv.RA, "trace_function") // ftrace_call / ftrace_regs_call
	w(riscv.Ld(riscv.T0, riscv.SP, 0))
	w(riscv.Ld(riscv.RA, riscv.SP, 8))
	for r := riscv.A0; r <= riscv.A7; r++ {
		w(riscv.Ld(r, riscv.SP, int32(8*r)))
	}
	if all {
		for _, r := range rest {
			if r != riscv.T0 { // RESTORE_ABI_REGS 1 keeps t0 from PT_EPC
				w(riscv.Ld(r, riscv.SP, int32(8*r)))
			}
		}
	}
	w(riscv.Addi(riscv.SP, riscv.SP, rvPTSize))
	if all {
		w(a.ok(riscv.Bne(riscv.T1, riscv.Zero, a.pc(), a.pc()+8))) // bnez t1, .Ldirect
		w(riscv.Jr(riscv.T0))
		w(riscv.Jr(riscv.T1)) // .Ldirect
		return
	}
	w(riscv.Jr(riscv.T0))
}

// rvText emits RV64GC code into an asm.
type rvText struct{ *asm }

func (a rvText) w(x riscv.Word) { a.emit(x.Bytes()) }
func (a rvText) h(x riscv.Half) { a.emit(x.Bytes()) }

func (a rvText) align4() {
	for a.pc()%4 != 0 {
		a.h(riscv.CNop())
	}
}

// ok returns x, failing the build when it could not be encoded.
func (a rvText) ok(x riscv.Word, fine bool) riscv.Word { return encoded(a.asm, x, fine) }

// call emits the call pseudo-instruction, auipc link + jalr link, to
// target, resolved once every symbol is placed.
func (a rvText) call(link int, target string) {
	a.callLater("call", target, make([]byte, 8), func(pc, to uint64) ([]byte, bool) {
		au, jr, fine := riscv.Call(link, pc, to)
		return append(au.Bytes(), jr.Bytes()...), fine
	})
}

// pcrel emits auipc rd, %pcrel_hi(addr) and second(%pcrel_lo(addr)).
func (a rvText) pcrel(rd int, addr uint64, second func(lo int32) riscv.Word) {
	pc := a.pc()
	au, jr, fine := riscv.Call(rd, pc, addr)
	if !fine {
		a.fail("kernel: %#x out of auipc range at %#x", addr, pc)
	}
	a.w(au)
	a.w(second(int32(jr) >> 20))
}

// la emits la rd, addr (auipc + addi).
func (a rvText) la(rd int, addr uint64) {
	a.pcrel(rd, addr, func(lo int32) riscv.Word { return riscv.Addi(rd, rd, lo) })
}
