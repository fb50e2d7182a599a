package kernel

import (
	"github.com/mcountsim/mcountsim/isa/x86"
)

// X86Base is where the x86-64 text starts.
const X86Base = 0x401000

// buildX86 lays out the x86-64 text:
//
//	worker:          push %rbx; push %rbp; push %r12     # a kthread function's frame
//	                 mov  $iterations,%ebx
//	1:               mov  %rbx,%rdi
//	                 call f0 ... call fN-1
//	                 call schedule                      # voluntary schedule point
//	                 sub  $1,%rbx
//	                 jne  1b
//	                 call do_exit
//	fK (fentry):     call __fentry__                    # site (gcc -O2 -pg -mfentry)
//	                 push %rbp; mov %rsp,%rbp
//	                 mov  %rdi,%rax; add $1,%rax
//	                 pop  %rbp; ret
//	fK (mcount):     push %rbp; mov %rsp,%rbp
//	                 call mcount                        # site (gcc -O2 -pg)
//	                 mov  %rdi,%rax; add $1,%rax
//	                 pop  %rbp; ret
//	__fentry__, mcount: ret                             # what DYNAMIC_FTRACE compiles
//	ftrace_caller:   push %rdi; push %rsi
//	                 mov  0x10(%rsp),%rdi; sub $5,%rdi  # ip: the call site
//	                 mov  0x18(%rsp),%rsi               # parent ip (fentry)
//	                 call trace_function
//	                 pop  %rsi; pop %rdi; ret
//	trace_function:  nop (hook: trace); ret
//	schedule:        nop (hook: schedule); ret
//	do_exit:         nop (hook: exit); jmp .
func buildX86(cfg Config) (*Image, error) {
	if cfg.Prologue != "fentry" && cfg.Prologue != "mcount" {
		return nil, errorf("unknown x86 prologue %q (want fentry or mcount)", cfg.Prologue)
	}
	a := x86Text{&asm{img: &Image{Arch: X86, Base: X86Base, Align: 1}}}
	b, call := a.b, a.call

	a.sym("worker")
	a.img.Entry = a.pc()
	a.emit(x86.Push(x86.RBX))
	a.emit(x86.Push(x86.RBP))
	a.emit(x86.Push(x86.R12))
	b(0xbb, byte(cfg.Iterations), 0, 0, 0) // mov $iterations,%ebx
	loop := a.pc()
	a.emit(x86.MovRegReg(x86.RDI, x86.RBX))
	for i := 0; i < cfg.Functions; i++ {
		call(funcName(i))
	}
	call("schedule")
	a.emit(x86.SubImm(x86.RBX, 1))
	a.jcc(x86.NE, loop)
	call("do_exit")

	for i := 0; i < cfg.Functions; i++ {
		name := funcName(i)
		a.sym(name)
		site := func(target string) {
			a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: a.pc(), Len: 5, Call: a.pc()})
			call(target)
		}
		if cfg.Prologue == "fentry" {
			site("__fentry__")
		}
		a.emit(x86.Push(x86.RBP))
		a.emit(x86.MovRegReg(x86.RBP, x86.RSP))
		if cfg.Prologue == "mcount" {
			site("mcount")
		}
		a.emit(x86.MovRegReg(x86.RAX, x86.RDI))
		a.emit(x86.AddImm(x86.RAX, 1))
		a.emit(x86.Pop(x86.RBP))
		a.emit(x86.Ret())
	}
	a.services()
	return a.finish()
}

// x86Text emits x86-64 code into an asm: the helpers shared by Build and
// BuildObject.
type x86Text struct{ *asm }

func (a x86Text) b(p ...byte) { a.emit(p) }

// call emits a call rel32 to target, resolved once every symbol is placed.
func (a x86Text) call(target string) {
	a.callLater("call", target, []byte{0xe8, 0, 0, 0, 0}, x86.CallRel32)
}

// jcc emits a conditional branch back to loop.
func (a x86Text) jcc(c x86.Cond, loop uint64) {
	j, ok := x86.Jcc(c, a.pc(), loop)
	if !ok {
		a.fail("kernel: loop too long")
	}
	a.emit(j)
}

// services emits the profiling hooks, the trampoline and the hook stubs
// that every x86-64 text ends with.
func (a x86Text) services() {
	a.sym("__fentry__")
	a.emit(x86.Ret())
	a.sym("mcount")
	a.emit(x86.Ret())

	a.sym("ftrace_caller")
	a.emit(x86.Push(x86.RDI))
	a.emit(x86.Push(x86.RSI))
	a.emit(x86.MovLoad(x86.RDI, x86.RSP, 0x10))
	a.emit(x86.SubImm(x86.RDI, 5))
	a.emit(x86.MovLoad(x86.RSI, x86.RSP, 0x18))
	a.call("trace_function")
	a.emit(x86.Pop(x86.RSI))
	a.emit(x86.Pop(x86.RDI))
	a.emit(x86.Ret())

	a.hooks([]byte{0x90}, x86.Ret(), func(pc uint64) []byte {
		jmp, _ := x86.JmpRel8(pc, pc)
		return jmp
	})
}
