package kernel

import (
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/isa/arm"
)

// The tracer kernel (issue 17): when Config.Tracer is set, the ARM text
// carries, as code, the kernel paths a function-tracer callback runs
// through: preempt_disable, preempt_enable, preempt_enable_no_resched and
// their _notrace forms, preempt_schedule (and preempt_schedule_notrace),
// schedule, preempt_schedule_irq, the interrupt entry __irq_svc with its
// handler, and the callback itself at trace_function, assembled from the
// tracer's steps. preempt_count, the need_resched flag, the interrupt mask
// and the callback's recursion bits are words of each task's thread_info,
// at the bottom of its stack, found as on 32-bit ARM Linux by
// current_thread_info() = sp & ~(THREAD_SIZE-1); the function tracer's
// per-CPU data->disabled counters are a data segment indexed by
// thread_info.cpu. The machine reads the same words to decide whether an
// interrupt may arrive and whether its exit preempts.

// thread_info layout (offsets into the bottom of each task's stack).
const (
	TIFlags        = 0  // thread_info.flags (TIF_NEED_RESCHED)
	TIPreemptCount = 4  // thread_info.preempt_count
	TIIRQsOff      = 8  // the CPU's interrupt mask (CPSR.I) while the task runs: 1 = interrupts off
	TIRecursion    = 12 // current->trace_recursion
	TICPU          = 16 // thread_info.cpu, kept up to date by the scheduler
	TISize         = 32 // bytes reserved at the bottom of every stack
)

// Bits of thread_info.flags and preempt_count (include/linux/preempt.h).
const (
	TIFNeedResched = 1 << 1
	PreemptMask    = 0x000000ff
	SoftirqOffset  = 0x00000100
	SoftirqMask    = 0x0000ff00
	HardirqOffset  = 0x00010000
	HardirqMask    = 0x000f0000
	NMIOffset      = 0x00100000
	NMIMask        = 0x00f00000
)

// Recursion bits of current->trace_recursion (include/linux/trace_recursion.h):
// bit TraceCtxNormal-level per context, and the transition bit.
const (
	TraceCtxNMI        = 0
	TraceCtxIRQ        = 1
	TraceCtxSoftirq    = 2
	TraceCtxNormal     = 3
	TraceCtxTransition = 4
)

// PerCPUBase is the address of the per-CPU data->disabled counters (one
// word per CPU).
const PerCPUBase = 0x200000

// Interrupt vectors the machine passes in r0 to __irq_svc.
const (
	IRQTimer   = 0 // the timer tick: scheduler_tick sets need_resched
	IRQResched = 1 // the reschedule IPI of a remote wakeup
	IRQNMI     = 2 // a non-maskable interrupt (__nmi_svc; r0 unused)
)

// DefaultThreadShift is log2(THREAD_SIZE) of the tracer kernel: 1 KiB
// stacks (256 words).
const DefaultThreadShift = 10

// Tracer configures the tracer kernel: the callback's steps and which
// kernel functions carry an mcount site (the rest are notrace).
type Tracer struct {
	Name string
	// Steps is the callback's body, in order (TracerSteps lists them).
	Steps []string
	// Traced lists the kernel functions compiled with an mcount site:
	// any of preempt_schedule, schedule, preempt_disable, preempt_enable.
	Traced []string
	// NoPreempt builds a !CONFIG_PREEMPT kernel: preempt_enable and the
	// interrupt exit never call the scheduler.
	NoPreempt bool
	// ThreadShift is log2(THREAD_SIZE); 0 means DefaultThreadShift.
	ThreadShift uint
}

// Traceable are the kernel functions Tracer.Traced may name.
var Traceable = []string{"preempt_schedule", "schedule", "preempt_disable", "preempt_enable"}

// TracerSteps are the step names a callback's body is made of, each with
// what it does. "call F" (any function of the text) is a step too.
var TracerSteps = [][2]string{
	{"preempt_disable", "bl preempt_disable (traced if listed in --traced)"},
	{"preempt_disable_notrace", "bl preempt_disable_notrace"},
	{"preempt_enable", "bl preempt_enable: count-1, and preempt_schedule() if it is 0 and need_resched is set"},
	{"preempt_enable_notrace", "bl preempt_enable_notrace: the same, through preempt_schedule_notrace()"},
	{"preempt_enable_no_resched", "bl preempt_enable_no_resched: count-1, no check"},
	{"preempt_enable_no_resched_notrace", "bl preempt_enable_no_resched_notrace"},
	{"record", "bl trace_record: write the event (ip, parent ip) to the ring buffer"},
	{"resched_read", "r5 = need_resched (ftrace_preempt_disable's read)"},
	{"resched_enable", "ftrace_preempt_enable(r5): no_resched if r5 was set, else preempt_enable_notrace"},
	{"irq_save", "local_irq_save: r5 = interrupt mask; interrupts off"},
	{"irq_restore", "local_irq_restore(r5)"},
	{"disabled_inc", "r6 = ++per_cpu(data->disabled)"},
	{"disabled_dec", "--per_cpu(data->disabled)"},
	{"record_if_first", "if r6 == 1: record"},
	{"recursion_lock", "r6 = ftrace_test_recursion_trylock() (per-context bit, transition bit, preempt_disable_notrace; -1 and trace_recursion_record when recursing)"},
	{"record_if_locked", "if r6 >= 0: record"},
	{"return_if_unlocked", "if r6 < 0: return (if (bit < 0) return;)"},
	{"recursion_unlock", "if r6 >= 0: preempt_enable_notrace, clear bit r6"},
}

// TracerLayout is what the machine and its detectors need to know of a
// tracer kernel's text (Image.Tracer).
type TracerLayout struct {
	Name        string
	ThreadShift uint
	IRQEntry    uint64 // __irq_svc
	NMIEntry    uint64 // __nmi_svc
	Callback    uint64 // trace_function, the callback's entry
	// Sched are the entries of the scheduler's functions (schedule,
	// preempt_schedule, preempt_schedule_notrace, preempt_schedule_irq).
	Sched []uint64
	// PreemptTP are the pcs of the preempt_count stores of the traced
	// preempt_disable/preempt_enable (their preemptirq tracepoints);
	// IRQTP those of the interrupt-mask stores of local_irq_save/restore.
	PreemptTP []uint64
	IRQTP     []uint64
	Traced    []string
	NoPreempt bool
}

// ValidateTracer reports a tracer whose steps or traced list is unknown.
func ValidateTracer(t *Tracer) error {
	if len(t.Steps) == 0 {
		return fmt.Errorf("tracer %s has no steps", t.Name)
	}
	for _, s := range t.Steps {
		if strings.HasPrefix(s, "call ") && strings.TrimSpace(s[5:]) != "" {
			continue
		}
		if !knownStep(s) {
			return fmt.Errorf("tracer %s: unknown step %q (want one of %s, or call FUNCTION)", t.Name, s, stepNames())
		}
	}
	for _, f := range t.Traced {
		ok := false
		for _, n := range Traceable {
			ok = ok || n == f
		}
		if !ok {
			return fmt.Errorf("tracer %s: cannot trace %q (want any of %s)", t.Name, f, strings.Join(Traceable, ", "))
		}
	}
	if t.ThreadShift != 0 && (t.ThreadShift < 8 || t.ThreadShift > 14) {
		return fmt.Errorf("tracer %s: thread shift must be 8..14, got %d", t.Name, t.ThreadShift)
	}
	return nil
}

func knownStep(s string) bool {
	for _, st := range TracerSteps {
		if st[0] == s {
			return true
		}
	}
	return false
}

func stepNames() string {
	var n []string
	for _, st := range TracerSteps {
		n = append(n, st[0])
	}
	return strings.Join(n, ", ")
}

// tracerText emits the tracer kernel's functions into an ARM text.
type tracerText struct {
	armText
	t   *Tracer
	lay *TracerLayout
}

func (a tracerText) traced(name string) bool {
	for _, f := range a.t.Traced {
		if f == name {
			return true
		}
	}
	return false
}

// ti loads current_thread_info() into r: sp & ~(THREAD_SIZE-1).
func (a tracerText) ti(r int) {
	s := uint32(a.lay.ThreadShift)
	a.w(arm.DPReg(arm.MOV, false, r, 0, arm.SP, arm.LSR, s))
	a.w(arm.DPReg(arm.MOV, false, r, 0, r, arm.LSL, s))
}

func (a tracerText) imm(op arm.Op, s bool, rd, rn int, v uint32) arm.Word {
	return a.ok(arm.DPImm(op, s, rd, rn, v))
}

// fwd emits a branch (b, or bl with link) under cond to a label resolved
// by calling the returned function where the label is.
func (a tracerText) fwd(cond arm.Cond, link bool) func() {
	pc := uint32(a.pc())
	a.w(0)
	return func() {
		to := uint32(a.pc())
		x, fine := arm.B(pc, to)
		if link {
			x, fine = arm.BL(pc, to)
		}
		if !fine {
			a.fail("kernel: branch out of range at %#x", pc)
		}
		copy(a.img.Text[uint64(pc)-a.img.Base:], x.If(cond).Bytes())
	}
}

// fn starts function name with a push {r4, lr} frame and, when traced,
// an mcount site like the workload's functions.
func (a tracerText) fn(name string, traced bool) {
	a.sym(name)
	a.w(arm.Push(arm.RegList(arm.R4, arm.LR)))
	if traced {
		a.img.Sites = append(a.img.Sites, Site{Func: name, Addr: a.pc(), Len: 8, Call: a.pc() + 4})
		a.w(arm.PushOne(arm.LR))
		a.call("__gnu_mcount_nc")
	}
}

func (a tracerText) ret(cond arm.Cond) { a.w(arm.Pop(arm.RegList(arm.R4, arm.PC)).If(cond)) }

// stub emits a hook: a nop the machine performs the service at, then bx lr.
func (a tracerText) stub(name string, kind HookKind) {
	a.sym(name)
	a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: kind})
	a.w(arm.Nop())
	a.w(arm.BX(arm.LR))
}

// preemptCount emits ldr r2,[r3,#pc]; op r2,r2,#v; str r2,[r3,#pc] (r3 = ti)
// and returns the pc of the store.
func (a tracerText) preemptCount(op arm.Op, v uint32) uint64 {
	a.w(arm.LdrImm(arm.R2, arm.R3, TIPreemptCount))
	a.w(a.imm(op, false, arm.R2, arm.R2, v))
	st := a.pc()
	a.w(arm.StrImm(arm.R2, arm.R3, TIPreemptCount))
	return st
}

// countFn opens function name (traced: with an mcount site) with
// preempt_count op= 1; tp: its store is a preemptirq tracepoint (the
// functions that are not _notrace).
func (a tracerText) countFn(name string, traced, tp bool, op arm.Op) {
	a.fn(name, traced)
	a.ti(arm.R3)
	st := a.preemptCount(op, 1)
	if tp {
		a.lay.PreemptTP = append(a.lay.PreemptTP, st)
	}
}

// kernelFuncs emits the preemption, scheduler and interrupt paths.
func (a tracerText) kernelFuncs() {
	preempt := !a.t.NoPreempt
	for _, notrace := range []bool{false, true} {
		sfx, schedule := "", "preempt_schedule"
		if notrace {
			sfx, schedule = "_notrace", "preempt_schedule_notrace"
		}
		// preempt_disable: preempt_count += 1.
		a.countFn("preempt_disable"+sfx, !notrace && a.traced("preempt_disable"), !notrace, arm.ADD)
		a.ret(arm.AL)
		// preempt_enable_no_resched: preempt_count -= 1.
		a.countFn("preempt_enable_no_resched"+sfx, !notrace && a.traced("preempt_enable"), !notrace, arm.SUB)
		a.ret(arm.AL)
		// preempt_enable: preempt_count -= 1; if it is 0 and
		// need_resched is set, preempt_schedule().
		a.countFn("preempt_enable"+sfx, !notrace && a.traced("preempt_enable"), !notrace, arm.SUB)
		if preempt {
			a.w(a.imm(arm.CMP, true, 0, arm.R2, 0))
			a.ret(arm.NE)
			a.w(arm.LdrImm(arm.R2, arm.R3, TIFlags))
			a.w(a.imm(arm.TST, true, 0, arm.R2, TIFNeedResched))
			a.ret(arm.EQ)
			a.call(schedule)
		}
		a.ret(arm.AL)
		// preempt_schedule: if preemptible(), loop { preempt_count = 1;
		// __schedule(preempt); preempt_count -= 1 } while need_resched.
		a.fn(schedule, !notrace && a.traced("preempt_schedule"))
		a.lay.Sched = append(a.lay.Sched, a.img.Symbols[len(a.img.Symbols)-1].Addr)
		a.ti(arm.R3)
		a.w(arm.LdrImm(arm.R2, arm.R3, TIPreemptCount))
		a.w(a.imm(arm.CMP, true, 0, arm.R2, 0))
		a.ret(arm.NE)
		a.w(arm.LdrImm(arm.R2, arm.R3, TIIRQsOff))
		a.w(a.imm(arm.CMP, true, 0, arm.R2, 0))
		a.ret(arm.NE)
		loop := uint32(a.pc())
		a.w(a.imm(arm.MOV, false, arm.R2, 0, 1))
		a.lay.PreemptTP = append(a.lay.PreemptTP, a.pc()) // preempt_latency_start
		a.w(arm.StrImm(arm.R2, arm.R3, TIPreemptCount))
		a.call("__schedule")
		a.lay.PreemptTP = append(a.lay.PreemptTP, a.preemptCount(arm.SUB, 1))
		a.w(arm.LdrImm(arm.R2, arm.R3, TIFlags))
		a.w(a.imm(arm.TST, true, 0, arm.R2, TIFNeedResched))
		a.w(a.ok(arm.B(uint32(a.pc()), loop)).If(arm.NE))
		a.ret(arm.AL)
	}
	// schedule: the voluntary switch (its __schedule is the machine's).
	a.fn("schedule", a.traced("schedule"))
	a.lay.Sched = append(a.lay.Sched, a.img.Symbols[len(a.img.Symbols)-1].Addr)
	a.call("__schedule_yield")
	a.ret(arm.AL)
	// preempt_schedule_irq: called from the interrupt exit with
	// interrupts off and preempt_count 0.
	a.fn("preempt_schedule_irq", false)
	a.lay.Sched = append(a.lay.Sched, a.img.Symbols[len(a.img.Symbols)-1].Addr)
	a.ti(arm.R3)
	loop := uint32(a.pc())
	a.w(a.imm(arm.MOV, false, arm.R2, 0, 1))
	a.lay.PreemptTP = append(a.lay.PreemptTP, a.pc()) // preempt_disable()
	a.w(arm.StrImm(arm.R2, arm.R3, TIPreemptCount))
	a.w(a.imm(arm.MOV, false, arm.R2, 0, 0))
	a.lay.IRQTP = append(a.lay.IRQTP, a.pc()) // local_irq_enable()
	a.w(arm.StrImm(arm.R2, arm.R3, TIIRQsOff))
	a.call("__schedule")
	a.w(a.imm(arm.MOV, false, arm.R2, 0, 1))
	a.lay.IRQTP = append(a.lay.IRQTP, a.pc()) // local_irq_disable()
	a.w(arm.StrImm(arm.R2, arm.R3, TIIRQsOff))
	a.lay.PreemptTP = append(a.lay.PreemptTP, a.preemptCount(arm.SUB, 1)) // sched_preempt_enable_no_resched()
	a.w(arm.LdrImm(arm.R2, arm.R3, TIFlags))
	a.w(a.imm(arm.TST, true, 0, arm.R2, TIFNeedResched))
	a.w(a.ok(arm.B(uint32(a.pc()), loop)).If(arm.NE))
	a.ret(arm.AL)

	// __irq_svc: the machine has saved r0-r15 and the flags below sp,
	// masked interrupts and put the vector in r0 (svc_entry and the
	// interrupt controller's read).
	a.sym("__irq_svc")
	a.lay.IRQEntry = a.pc()
	a.ti(arm.R3)
	a.preemptCount(arm.ADD, HardirqOffset) // irq_enter
	a.call("handle_irq")
	a.ti(arm.R3)
	a.preemptCount(arm.SUB, HardirqOffset) // irq_exit
	if preempt {
		a.w(a.imm(arm.CMP, true, 0, arm.R2, 0))
		skip := a.fwd(arm.NE, false)
		a.w(arm.LdrImm(arm.R2, arm.R3, TIFlags))
		a.w(a.imm(arm.TST, true, 0, arm.R2, TIFNeedResched))
		done := a.fwd(arm.EQ, false)
		a.call("preempt_schedule_irq")
		skip()
		done()
	}
	a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: HookIRQReturn})
	a.w(arm.Nop()) // svc_exit: the machine restores the saved registers

	// __nmi_svc: a non-maskable interrupt (the machine saved the
	// registers and the interrupt mask as for __irq_svc). nmi_enter adds
	// NMI_OFFSET + HARDIRQ_OFFSET; the handler calls a traced function;
	// nmi_exit, and the return never preempts.
	a.sym("__nmi_svc")
	a.lay.NMIEntry = a.pc()
	a.ti(arm.R3)
	a.preemptCount(arm.ADD, NMIOffset+HardirqOffset)
	a.call("handle_nmi")
	a.ti(arm.R3)
	a.preemptCount(arm.SUB, NMIOffset+HardirqOffset)
	a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: HookIRQReturn})
	a.w(arm.Nop())
	a.fn("handle_nmi", false)
	a.call(funcName(0))
	a.ret(arm.AL)

	// handle_irq(vector): a traced function runs in hard-irq context;
	// the timer's scheduler_tick sets need_resched.
	a.fn("handle_irq", false)
	a.w(arm.MovReg(arm.R4, arm.R0))
	a.call(funcName(0))
	a.w(a.imm(arm.CMP, true, 0, arm.R4, IRQTimer))
	a.ret(arm.NE)
	a.ti(arm.R3)
	a.w(arm.LdrImm(arm.R2, arm.R3, TIFlags))
	a.w(a.imm(arm.ORR, false, arm.R2, arm.R2, TIFNeedResched))
	a.w(arm.StrImm(arm.R2, arm.R3, TIFlags))
	a.ret(arm.AL)

	a.stub("__schedule", HookPreempt)
	a.stub("__schedule_yield", HookSchedule)
	a.stub("trace_record", HookTrace)
	a.stub("trace_recursion_record", HookRecursion)
}

// callback emits trace_function(ip, parent_ip) from the tracer's steps.
// r0 and r1 stay the hook arguments throughout; r5 and r6 are the
// callback's locals (resched or flags, disabled count or recursion bit).
func (a tracerText) callback() {
	a.sym("trace_function")
	a.lay.Callback = a.pc()
	a.w(arm.Push(arm.RegList(arm.R4, arm.R5, arm.R6, arm.LR)))
	for _, s := range a.t.Steps {
		switch s {
		case "preempt_disable", "preempt_disable_notrace", "preempt_enable", "preempt_enable_notrace",
			"preempt_enable_no_resched", "preempt_enable_no_resched_notrace":
			a.call(s)
		case "record":
			a.call("trace_record")
		case "resched_read":
			a.ti(arm.R3)
			a.w(arm.LdrImm(arm.R5, arm.R3, TIFlags))
			a.w(a.imm(arm.AND, false, arm.R5, arm.R5, TIFNeedResched))
		case "resched_enable":
			a.w(a.imm(arm.CMP, true, 0, arm.R5, 0))
			other := a.fwd(arm.NE, false)
			a.call("preempt_enable_notrace")
			done := a.fwd(arm.AL, false)
			other()
			a.call("preempt_enable_no_resched_notrace")
			done()
		case "irq_save":
			a.ti(arm.R3)
			a.w(arm.LdrImm(arm.R5, arm.R3, TIIRQsOff))
			a.w(a.imm(arm.MOV, false, arm.R2, 0, 1))
			a.lay.IRQTP = append(a.lay.IRQTP, a.pc())
			a.w(arm.StrImm(arm.R2, arm.R3, TIIRQsOff))
		case "irq_restore":
			a.ti(arm.R3)
			a.lay.IRQTP = append(a.lay.IRQTP, a.pc())
			a.w(arm.StrImm(arm.R5, arm.R3, TIIRQsOff))
		case "disabled_inc", "disabled_dec":
			op := arm.ADD
			if s == "disabled_dec" {
				op = arm.SUB
			}
			a.ti(arm.R3)
			a.w(arm.LdrImm(arm.R2, arm.R3, TICPU))
			a.w(a.imm(arm.MOV, false, arm.R12, 0, PerCPUBase))
			a.w(arm.DPReg(arm.ADD, false, arm.R12, arm.R12, arm.R2, arm.LSL, 2))
			a.w(arm.LdrImm(arm.R2, arm.R12, 0))
			a.w(a.imm(op, false, arm.R2, arm.R2, 1))
			a.w(arm.StrImm(arm.R2, arm.R12, 0))
			if op == arm.ADD {
				a.w(arm.MovReg(arm.R6, arm.R2))
			}
		case "record_if_first":
			a.w(a.imm(arm.CMP, true, 0, arm.R6, 1))
			skip := a.fwd(arm.NE, false)
			a.call("trace_record")
			skip()
		case "record_if_locked":
			a.w(a.imm(arm.CMP, true, 0, arm.R6, 0))
			skip := a.fwd(arm.LT, false)
			a.call("trace_record")
			skip()
		case "recursion_lock":
			a.recursionLock()
		case "return_if_unlocked":
			a.w(a.imm(arm.CMP, true, 0, arm.R6, 0))
			a.w(arm.Pop(arm.RegList(arm.R4, arm.R5, arm.R6, arm.PC)).If(arm.LT))
		case "recursion_unlock":
			a.w(a.imm(arm.CMP, true, 0, arm.R6, 0))
			skip := a.fwd(arm.LT, false)
			a.call("preempt_enable_notrace")
			a.ti(arm.R3)
			a.w(arm.LdrImm(arm.R2, arm.R3, TIRecursion))
			a.w(a.imm(arm.MOV, false, arm.R12, 0, 1))
			a.w(arm.DPRegShift(arm.BIC, false, arm.R2, arm.R2, arm.R12, arm.LSL, arm.R6))
			a.w(arm.StrImm(arm.R2, arm.R3, TIRecursion))
			skip()
		default: // "call F"
			a.call(strings.TrimSpace(s[5:]))
		}
	}
	a.w(arm.Pop(arm.RegList(arm.R4, arm.R5, arm.R6, arm.PC)))
}

// recursionLock is trace_test_and_set_recursion(ip, pip, TRACE_FTRACE_START):
// bit = TRACE_CTX_NORMAL - interrupt_context_level(); if it is taken, the
// transition bit once; else trace_recursion_record and -1.
func (a tracerText) recursionLock() {
	a.ti(arm.R3)
	a.w(arm.LdrImm(arm.R2, arm.R3, TIPreemptCount))
	a.w(a.imm(arm.MOV, false, arm.R6, 0, TraceCtxNormal))
	a.w(a.imm(arm.TST, true, 0, arm.R2, NMIMask))
	a.w(a.imm(arm.SUB, false, arm.R6, arm.R6, 1).If(arm.NE))
	a.w(a.imm(arm.TST, true, 0, arm.R2, NMIMask|HardirqMask))
	a.w(a.imm(arm.SUB, false, arm.R6, arm.R6, 1).If(arm.NE))
	a.w(a.imm(arm.TST, true, 0, arm.R2, NMIMask|HardirqMask))
	a.w(a.imm(arm.TST, true, 0, arm.R2, SoftirqOffset).If(arm.EQ))
	a.w(a.imm(arm.SUB, false, arm.R6, arm.R6, 1).If(arm.NE))
	a.w(arm.LdrImm(arm.R2, arm.R3, TIRecursion))
	a.w(a.imm(arm.MOV, false, arm.R12, 0, 1))
	a.w(arm.DPRegShift(arm.TST, true, 0, arm.R2, arm.R12, arm.LSL, arm.R6))
	take := a.fwd(arm.EQ, false)
	a.w(a.imm(arm.TST, true, 0, arm.R2, 1<<TraceCtxTransition))
	drop := a.fwd(arm.NE, false)
	a.w(a.imm(arm.MOV, false, arm.R6, 0, TraceCtxTransition))
	take()
	a.w(arm.DPRegShift(arm.ORR, false, arm.R2, arm.R2, arm.R12, arm.LSL, arm.R6))
	a.w(arm.StrImm(arm.R2, arm.R3, TIRecursion))
	a.call("preempt_disable_notrace")
	done := a.fwd(arm.AL, false)
	drop()
	a.call("trace_recursion_record")
	a.w(a.imm(arm.MVN, false, arm.R6, 0, 0))
	done()
}

// buildARMTracer lays out the ARM text of a tracer kernel: the workload
// and its traced functions as buildARM, the mcount trampoline, the kernel
// paths and the callback.
func buildARMTracer(cfg Config) (*Image, error) {
	t := cfg.Tracer
	if err := ValidateTracer(t); err != nil {
		return nil, err
	}
	lay := &TracerLayout{Name: t.Name, ThreadShift: t.ThreadShift, Traced: t.Traced, NoPreempt: t.NoPreempt}
	if lay.ThreadShift == 0 {
		lay.ThreadShift = DefaultThreadShift
	}
	a := tracerText{armText{&asm{img: &Image{Arch: ARM, Base: ARMBase, Align: 4, Tracer: lay}}}, t, lay}
	w, ok := a.w, a.ok

	a.workload(cfg)
	a.kernelFuncs()

	a.gnuMcountNC()
	a.callback()
	a.sym("do_exit")
	a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: HookExit})
	w(arm.Nop())
	pc := uint32(a.pc())
	w(ok(arm.B(pc, pc)))
	a.img.Data = append(a.img.Data, Segment{Name: "percpu", Addr: PerCPUBase, Bytes: make([]byte, 4*8)})
	return a.finish()
}
