package kernel

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa/arm"
)

// ARM layout constants.
const (
	ARMBase = 0x8000
)

// buildARM lays out the A32 text:
//
//	worker:            push {r4, r5, r6, lr}     @ a kthread function's frame
//	                   mov  r5, #iterations
//	1:                 mov  r0, r5
//	                   bl   f0 ... bl fN-1
//	                   bl   schedule             @ voluntary schedule point
//	                   subs r5, r5, #1
//	                   bne  1b
//	                   bl   do_exit
//	fK:                push {r4, lr}             @ gcc -O2 -marm -pg
//	                   push {lr}                 @ site word 0 (e52de004)
//	                   bl   __gnu_mcount_nc      @ site word 1
//	                   mov  r4, r0
//	                   add  r0, r4, #1
//	                   pop  {r4, pc}
//	__gnu_mcount_nc:   push {r0-r3, lr}          @ ftrace_caller of Linux 6.1
//	                   ldr  r1, [sp, #20]        @ parent ip: the word the site pushed
//	                   sub  r0, lr, #4           @ ip: the bl
//	                   bl   trace_function
//	                   pop  {r0-r3}
//	                   ldr  lr, [sp, #4]         @ the caller's lr, pushed by the site
//	                   ldr  pc, [sp], #8         @ return, dropping both words
//	trace_function:    nop (hook: trace) ; bx lr
//	schedule:          nop (hook: schedule) ; bx lr
//	do_exit:           nop (hook: exit) ; b .
func buildARM(cfg Config) (*Image, error) {
	if cfg.Tracer != nil {
		return buildARMTracer(cfg)
	}
	a := armText{&asm{img: &Image{Arch: ARM, Base: ARMBase, Align: 4}}}
	a.workload(cfg)
	a.services()
	return a.finish()
}

// armText emits A32 code into an asm: the helpers shared by Build and
// BuildObject.
type armText struct{ *asm }

// workload emits the worker and its traced functions f0..fN-1, as the
// comment of buildARM shows them (the tracer kernel's text starts the same).
func (a armText) workload(cfg Config) {
	w, ok, call := a.w, a.ok, a.call
	a.sym("worker")
	a.img.Entry = a.pc()
	w(arm.Push(arm.RegList(arm.R4, arm.R5, arm.R6, arm.LR)))
	w(ok(arm.MovImm(arm.R5, uint32(cfg.Iterations))))
	loop := uint32(a.pc())
	w(arm.MovReg(arm.R0, arm.R5))
	for i := 0; i < cfg.Functions; i++ {
		call(funcName(i))
	}
	call("schedule")
	w(ok(arm.SubsImm(arm.R5, arm.R5, 1)))
	w(ok(arm.B(uint32(a.pc()), loop)).If(arm.NE))
	call("do_exit")

	for i := 0; i < cfg.Functions; i++ {
		name := funcName(i)
		a.sym(name)
		w(arm.Push(arm.RegList(arm.R4, arm.LR)))
		site := Site{Func: name, Addr: a.pc(), Len: 8, Call: a.pc() + 4}
		a.img.Sites = append(a.img.Sites, site)
		w(arm.PushOne(arm.LR))
		call("__gnu_mcount_nc")
		w(arm.MovReg(arm.R4, arm.R0))
		w(ok(arm.AddImm(arm.R0, arm.R4, 1)))
		w(arm.Pop(arm.RegList(arm.R4, arm.PC)))
	}
}

func (a armText) w(x arm.Word) { a.emit(x.Bytes()) }

// ok returns x, failing the build when it could not be encoded.
func (a armText) ok(x arm.Word, fine bool) arm.Word { return encoded(a.asm, x, fine) }

// call emits a bl to target, resolved once every symbol is placed.
func (a armText) call(target string) {
	a.callLater("bl", target, make([]byte, 4), func(pc, to uint64) ([]byte, bool) {
		x, fine := arm.BL(uint32(pc), uint32(to))
		return x.Bytes(), fine
	})
}

// services emits the trampoline and the hook stubs that every ARM text
// ends with.
func (a armText) services() {
	a.gnuMcountNC()
	a.hooks(arm.Nop().Bytes(), arm.BX(arm.LR).Bytes(), func(pc uint64) []byte {
		return a.ok(arm.B(uint32(pc), uint32(pc))).Bytes()
	})
}

// gnuMcountNC emits __gnu_mcount_nc, the trampoline of every ARM text (the
// plain and the tracer kernel's): save r0-r3 and lr, call
// trace_function(lr - 4, the lr the site's push {lr} saved), restore r0-r3,
// reload that lr and return to the function, popping both words.
func (a armText) gnuMcountNC() {
	w := a.w
	a.sym("__gnu_mcount_nc")
	a.img.Callees = append(a.img.Callees, Callee{Addr: a.pc(), Pop: 4})
	w(arm.Push(arm.RegList(arm.R0, arm.R1, arm.R2, arm.R3, arm.LR)))
	w(arm.LdrImm(arm.R1, arm.SP, 20))
	w(a.ok(arm.SubImm(arm.R0, arm.LR, 4)))
	a.call("trace_function")
	w(arm.Pop(arm.RegList(arm.R0, arm.R1, arm.R2, arm.R3)))
	w(arm.LdrImm(arm.LR, arm.SP, 4))
	w(arm.LdrPost(arm.PC, arm.SP, 8))
}

func funcName(i int) string { return fmt.Sprintf("f%d", i) }
