package kernel

import (
	"github.com/mcountsim/mcountsim/isa/arm64"
)

// ARM64Base is where the A64 text starts (the usual aarch64 ELF base).
const ARM64Base = 0x400000

// The arm64 prologues (Config.Prologue): what gcc emits for a traced
// function under each kernel configuration.
const (
	// ARM64PFE2 is -fpatchable-function-entry=2 (DYNAMIC_FTRACE_WITH_ARGS):
	// two NOPs at entry, the site; the default.
	ARM64PFE2 = "pfe2"
	// ARM64PFE42 is -fpatchable-function-entry=4,2 with
	// -falign-functions=8 (DYNAMIC_FTRACE_WITH_CALL_OPS): two NOPs before
	// the symbol, which hold the 8-byte ftrace_ops literal, and two at
	// entry.
	ARM64PFE42 = "pfe4-2"
	// With -mbranch-protection=bti or standard, a function that may be
	// called indirectly starts with "bti c" before the entry NOPs: the
	// pfe2 site is then at entry+4, and a pfe4-2 site spans the literal,
	// the bti c (its Gap) and the two entry words (LinkObject; Build lays
	// out no landing pads).

	// ARM64PG is plain -pg (arm64 Linux before 5.5): the function's frame
	// record, then "mov x0, x30; bl _mcount".
	ARM64PG = "pg"
)

// The ftrace_regs frame of arch/arm64/kernel/entry-ftrace.S (WITH_ARGS):
// struct ftrace_regs { regs[9] (x0-x8); direct_tramp (or __unused); fp;
// lr; sp; pc } is 14 words, FREGS_SIZE 112, and ftrace_caller makes room
// for it and two frame records (FREGS_SIZE + 32).
const (
	fregsX0   = 0
	fregsX8   = 64
	fregsFP   = 80
	fregsLR   = 88
	fregsSP   = 96
	fregsPC   = 104
	fregsSize = 112
)

// buildARM64 lays out the A64 text (the traced function is gcc 12 -O2
// output for int f(int x) { return g(x) + 1; }, with g a notrace leaf):
//
//	worker:          stp  x29, x30, [sp, #-32]!       // a kthread function's frame
//	                 mov  x29, sp
//	                 stp  x19, x20, [sp, #16]
//	                 mov  x19, #iterations
//	1:               mov  x0, x19
//	                 bl   f0 ... bl fN-1
//	                 bl   schedule                    // voluntary schedule point
//	                 subs x19, x19, #1
//	                 b.ne 1b
//	                 bl   do_exit
//	(pfe4-2)         nop; nop                         // the ftrace_ops literal (8-aligned)
//	fK (pfe2/pfe4-2): nop                             // site word 0 (-> mov x9, x30)
//	                 nop                              // site word 1, rec->ip (-> bl ftrace_caller)
//	                 stp  x29, x30, [sp, #-16]!
//	                 mov  x29, sp
//	                 bl   g
//	                 add  w0, w0, #1
//	                 ldp  x29, x30, [sp], #16
//	                 ret
//	fK (pg):         stp  x29, x30, [sp, #-32]!
//	                 mov  x29, sp
//	                 str  x19, [sp, #16]
//	                 xpaclri
//	                 mov  w19, w0
//	                 mov  x0, x30
//	                 bl   _mcount                     // the site (-> nop / bl ftrace_caller)
//	                 mov  w0, w19
//	                 bl   g
//	                 ldr  x19, [sp, #16]
//	                 add  w0, w0, #1
//	                 ldp  x29, x30, [sp], #32
//	                 ret
//	g:               add  w0, w0, #1; ret
//	ftrace_caller:   the WITH_ARGS trampoline (pfe2, pfe4-2) or the -pg one
//	                 (see arm64Text.ftraceArgs and arm64Text.ftracePG)
//	ftrace_stub, _mcount: ret
//	trace_function:  nop (hook: trace); ret
//	schedule:        nop (hook: schedule); ret
//	do_exit:         nop (hook: exit); b .
//
// and, in a data segment, function_trace_op (pfe2), or the two ftrace_ops
// a CALL_OPS literal points at: tracer_ops (func = trace_function) and
// ftrace_nop_ops (func = ftrace_stub).
func buildARM64(cfg Config) (*Image, error) {
	switch cfg.Prologue {
	case ARM64PFE2, ARM64PFE42, ARM64PG:
	default:
		return nil, errorf("unknown arm64 prologue %q (want %s, %s or %s)", cfg.Prologue, ARM64PFE2, ARM64PFE42, ARM64PG)
	}
	a := arm64Text{&asm{img: &Image{Arch: ARM64, Base: ARM64Base, Align: 4}}}
	w, ok, call := a.w, a.ok, a.call

	a.sym("worker")
	a.img.Entry = a.pc()
	w(arm64.StpPre(arm64.FP, arm64.LR, arm64.SP, -32))
	w(ok(arm64.AddImm(arm64.FP, arm64.SP, 0)))
	w(arm64.StpOff(19, 20, arm64.SP, 16))
	w(arm64.MovZ(19, uint16(cfg.Iterations), 0))
	loop := a.pc()
	w(arm64.MovReg(0, 19))
	for i := 0; i < cfg.Functions; i++ {
		call(funcName(i))
	}
	call("schedule")
	w(ok(arm64.SubsImm(19, 19, 1)))
	w(ok(arm64.BCond(arm64.NE, a.pc(), loop)))
	call("do_exit")

	for i := 0; i < cfg.Functions; i++ {
		a.traced(funcName(i), cfg.Prologue)
	}
	a.sym("g")
	w(arm64Word(0x11000400)) // add w0, w0, #1
	w(arm64.Ret(arm64.LR))
	a.services(cfg.Prologue)
	return a.finish()
}

// traced emits one traced function in the layout of prologue, with its site.
func (a arm64Text) traced(name, prologue string) {
	w, ok, call := a.w, a.ok, a.call
	switch prologue {
	case ARM64PG:
		a.sym(name)
		w(arm64.StpPre(arm64.FP, arm64.LR, arm64.SP, -32))
		w(ok(arm64.AddImm(arm64.FP, arm64.SP, 0)))
		w(arm64.StrImm(19, arm64.SP, 16))
		w(arm64.Hint(7))         // xpaclri
		w(arm64Word(0x2a0003f3)) // mov w19, w0
		w(arm64.MovReg(0, arm64.LR))
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: a.pc(), Len: 4, Call: a.pc()})
		call("_mcount")
		w(arm64Word(0x2a1303e0)) // mov w0, w19
		call("g")
		w(arm64.LdrImm(19, arm64.SP, 16))
		w(arm64Word(0x11000400)) // add w0, w0, #1
		w(arm64.LdpPost(arm64.FP, arm64.LR, arm64.SP, 32))
		w(arm64.Ret(arm64.LR))
		return
	case ARM64PFE42:
		// -falign-functions=8 puts the literal on an 8-byte boundary.
		for (a.pc()+8)%8 != 0 {
			w(arm64.Nop())
		}
		lit := a.pc()
		w(arm64.Nop())
		w(arm64.Nop())
		a.sym(name)
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: lit, Len: 16, Call: a.pc() + 4})
	default:
		a.sym(name)
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: a.pc(), Len: 8, Call: a.pc() + 4})
	}
	w(arm64.Nop())
	w(arm64.Nop())
	w(arm64.StpPre(arm64.FP, arm64.LR, arm64.SP, -16))
	w(ok(arm64.AddImm(arm64.FP, arm64.SP, 0)))
	call("g")
	w(arm64Word(0x11000400)) // add w0, w0, #1
	w(arm64.LdpPost(arm64.FP, arm64.LR, arm64.SP, 16))
	w(arm64.Ret(arm64.LR))
}

// arm64Text emits A64 code into an asm: the helpers shared by Build and
// BuildObject.
type arm64Text struct{ *asm }

// arm64Word is an A64 encoding the arm64 package has no constructor for
// (checked against aarch64-linux-gnu-objdump in the tests).
func arm64Word(w uint32) arm64.Word { return arm64.Word(w) }

func (a arm64Text) w(x arm64.Word) { a.emit(x.Bytes()) }

// ok returns x, failing the build when it could not be encoded.
func (a arm64Text) ok(x arm64.Word, fine bool) arm64.Word { return encoded(a.asm, x, fine) }

// call emits a bl to target, resolved once every symbol is placed.
func (a arm64Text) call(target string) {
	a.callLater("bl", target, make([]byte, 4), func(pc, to uint64) ([]byte, bool) {
		x, fine := arm64.BL(pc, to)
		return x.Bytes(), fine
	})
}

// loadSym emits "adrp xd, sym; ldr xd, [xd, #:lo12:sym]" (the kernel's
// ldr_l), resolved once every symbol and segment is placed.
func (a arm64Text) loadSym(rd int, sym func() uint64) {
	pc := a.pc()
	a.w(0)
	a.w(0)
	a.later(func() {
		target := sym()
		adrp, fine := arm64.Adrp(rd, pc, target)
		if !fine || target%8 != 0 {
			a.fail("kernel: ldr_l x%d at %#x cannot reach %#x", rd, pc, target)
		}
		copy(a.img.Text[pc-a.img.Base:], adrp.Bytes())
		copy(a.img.Text[pc+4-a.img.Base:], arm64.LdrImm(rd, rd, int(target&0xfff)).Bytes())
	})
}

// services emits the trampolines, the hook stubs and the data segment
// that every arm64 text ends with.
func (a arm64Text) services(prologue string) {
	w := a.w
	var data [][2]string // (symbol, the address its first word holds)
	a.sym("ftrace_caller")
	switch prologue {
	case ARM64PG:
		a.ftracePG()
	case ARM64PFE42:
		a.ftraceArgs(true)
		data = [][2]string{{"tracer_ops", "trace_function"}, {"ftrace_nop_ops", "ftrace_stub"}}
	default:
		// function_trace_op points at the tracer's ops; ftrace_caller only
		// passes it on (the tracer is called through ftrace_call).
		a.ftraceArgs(false)
		data = [][2]string{{"function_trace_op", "tracer_ops"}, {"tracer_ops", "trace_function"}}
	}
	a.sym("ftrace_stub")
	w(arm64.Ret(arm64.LR))
	a.sym("_mcount")
	w(arm64.Ret(arm64.LR))

	a.hooks(arm64.Nop().Bytes(), arm64.Ret(arm64.LR).Bytes(), func(pc uint64) []byte {
		b, _ := arm64.B(pc, pc)
		return b.Bytes()
	})

	if len(data) == 0 {
		return
	}
	// .data: the ftrace_ops (FTRACE_OPS_FUNC = 0: ops->func is the first
	// word) and pointers to them, filled in once everything is placed.
	a.end()
	base := (a.pc() + 0xfff) &^ 0xfff
	a.img.Data = append(a.img.Data, Segment{Name: ".data", Addr: base, Bytes: make([]byte, 16*len(data))})
	for i, d := range data {
		a.img.Symbols = append(a.img.Symbols, Symbol{Name: d[0], Addr: base + uint64(16*i), Size: 16})
	}
	a.later(func() {
		b := a.img.Data[len(a.img.Data)-1].Bytes
		for i, d := range data {
			v := a.addr(d[1])
			for j := 0; j < 8; j++ {
				b[16*i+j] = byte(v >> (8 * j))
			}
		}
	})
}

// ftraceArgs emits ftrace_caller of arch/arm64/kernel/entry-ftrace.S with
// DYNAMIC_FTRACE_WITH_ARGS (Linux 6.2 on; callOps: WITH_CALL_OPS, 6.3 on,
// without DIRECT_CALLS). On entry x9 holds the instrumented function's
// LR (the site's mov x9, x30) and x30 the address after the site's BL; it
// returns with x30 restored from x9's slot and "ret x9" to the function.
func (a arm64Text) ftraceArgs(callOps bool) {
	w, ok := a.w, a.ok
	const frame = fregsSize + 32
	w(arm64.Hint(34))                              // bti c
	w(ok(arm64.AddImm(10, arm64.SP, 0)))           // mov x10, sp
	w(ok(arm64.SubImm(arm64.SP, arm64.SP, frame))) // sub sp, sp, #(FREGS_SIZE + 32)
	a.fregsArgs(arm64.StpOff, arm64.StrImm)
	w(arm64.StrImm(9, arm64.SP, fregsLR))
	w(arm64.StrImm(10, arm64.SP, fregsSP))
	w(arm64.StrImm(arm64.LR, arm64.SP, fregsPC))
	w(arm64.StpOff(arm64.FP, 9, arm64.SP, fregsSize+16)) // the callsite's frame record
	w(ok(arm64.AddImm(arm64.FP, arm64.SP, fregsSize+16)))
	w(arm64.StpOff(arm64.FP, arm64.LR, arm64.SP, fregsSize)) // ours
	w(ok(arm64.AddImm(arm64.FP, arm64.SP, fregsSize)))
	w(ok(arm64.SubImm(0, arm64.LR, 4))) // ip: the callsite's BL
	w(arm64.MovReg(1, 9))               // parent_ip: the callsite's LR
	w(ok(arm64.AddImm(3, arm64.SP, 0))) // mov x3, sp: regs
	if callOps {
		// The literal is 8-aligned, 12 or 16 bytes before the BL: x30
		// points at literal+16 or +20.
		w(arm64Word(0x927df3c2)) // bic x2, x30, #7
		w(arm64.Ldur(2, 2, -16)) // ldr x2, [x2, #-16]: op
		w(arm64.LdrImm(4, 2, 0)) // ldr x4, [x2, #FTRACE_OPS_FUNC]: op->func
		w(arm64.Blr(4))          // op->func(ip, parent_ip, op, regs)
	} else {
		a.loadSym(2, func() uint64 { return a.addr("function_trace_op") })
		a.call("trace_function") // ftrace_call: "bl ftrace_stub", set to the tracer
	}
	a.fregsArgs(arm64.LdpOff, arm64.LdrImm)
	w(arm64.LdrImm(arm64.LR, arm64.SP, fregsLR))
	w(arm64.LdrImm(9, arm64.SP, fregsPC))
	w(ok(arm64.AddImm(arm64.SP, arm64.SP, frame)))
	w(arm64.Ret(9))
}

// fregsArgs stores (stp, str) or loads (ldp, ldr) x0-x8 and fp at their
// struct ftrace_regs slots on the stack, ftrace_caller's first and last
// steps.
func (a arm64Text) fregsArgs(pair func(rt, rt2, rn, off int) arm64.Word, one func(rt, rn, off int) arm64.Word) {
	for r := 0; r < 8; r += 2 {
		a.w(pair(r, r+1, arm64.SP, fregsX0+8*r))
	}
	a.w(one(8, arm64.SP, fregsX8))
	a.w(one(arm64.FP, arm64.SP, fregsFP))
}

// ftracePG emits the -pg era's ftrace_caller (DYNAMIC_FTRACE without
// WITH_REGS): mcount_enter, the function's pc and lr read through the
// frame records, the tracer call at ftrace_call, mcount_exit.
func (a arm64Text) ftracePG() {
	w, ok := a.w, a.ok
	w(arm64.StpPre(arm64.FP, arm64.LR, arm64.SP, -16)) // mcount_enter
	w(ok(arm64.AddImm(arm64.FP, arm64.SP, 0)))
	w(ok(arm64.SubImm(0, arm64.LR, 4)))                // mcount_get_pc0 x0
	w(arm64.LdrImm(1, arm64.FP, 0))                    // mcount_get_lr x1: the function's frame record
	w(arm64.LdrImm(1, 1, 8))                           // its saved lr
	a.call("trace_function")                           // ftrace_call: a nop, set to "bl <tracer>"
	w(arm64.LdpPost(arm64.FP, arm64.LR, arm64.SP, 16)) // mcount_exit
	w(arm64.Ret(arm64.LR))
}
