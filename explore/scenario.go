package explore

import (
	"fmt"
	"github.com/mcountsim/mcountsim/params"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// Preempt is a preemption model (docs/model.md §1): PreemptFull or PreemptNone.
type Preempt = sched.Preempt

// The preemption models.
const (
	PreemptFull = sched.PreemptFull
	PreemptNone = sched.PreemptNone
)

// ParsePreempt returns the preemption model named s ("full" or "none").
func ParsePreempt(s string) (Preempt, error) { return sched.ParsePreempt(s) }

// Limits of a scenario's machine.
const (
	MaxCPUs  = sched.MaxCPUs
	MaxTasks = sched.MaxTasks - 1 // worker tasks (the patcher is one more)
)

// Scenario is the system under check: an arch, a strategy, and the machine
// around them. Zero fields take the defaults of docs/model.md §1.
type Scenario struct {
	Arch       kernel.Arch
	Strategy   *patch.Strategy
	Preempt    sched.Preempt // default full
	CPUs       int           // default 2
	Tasks      int           // worker tasks, default 2
	Iterations int           // default 2
	Toggles    int           // default 2 (enable, then disable)
	Functions  int           // traced functions, default 1
	Prologue   string        // x86: "fentry" (default) or "mcount"
	Strict     bool          // report mixed-site passes as hazards
	// NoInt3Emulation is a test knob: text_poke_bp's int3 handler resumes
	// after the int3 byte instead of emulating the new instruction.
	NoInt3Emulation bool
	// NoQuiet is a test knob: it turns off the two reductions that rest on
	// the uninstrumented reference run (loads from data pages it never
	// wrote, the patcher's stores to text no worker reached there; see the
	// package doc), and the patcher's stores behind a breakpoint
	// (sched/shadow.go).
	NoQuiet bool
	// NoStable turns off the reduction of stable data bytes, which also
	// rests on the reference run (sched/stable.go: loads and stores of
	// shared data whose every store writes one value are thread-local).
	// A check turns both off by itself, and says so, when a run breaks
	// their premise (see the package doc).
	NoStable bool
	// KeepFreed is a test knob: freed frames keep what they left in
	// their words instead of being scrubbed when they return (see the
	// package doc).
	KeepFreed bool
	// KeepDead is a test knob: the registers a compiled function's entry
	// or return leaves undefined keep what the code before left in them
	// instead of being cleared (sched/deadregs.go; see the package doc).
	KeepDead bool
	// NoMemo, MemoAll and MemoCheck are test knobs of the memo of
	// thread-local stretches (sched.Config): off, on for every stretch
	// however short, each memoized one checked against its execution.
	NoMemo, MemoAll, MemoCheck bool
	// Image, when set, builds the text instead of kernel.Build: for example
	// a real object linked by kernel.BuildObject. Functions and Prologue
	// are then unused.
	Image func() (*kernel.Image, error)
	// StackWords is each task's stack in 4-byte words (default 64; 128
	// on riscv64, whose trampolines save a 288-byte pt_regs; THREAD_SIZE
	// with a Tracer). mcountsim check gives an --object scenario
	// ObjectStackWords. See DefaultStackWords.
	StackWords int
	// Object names what Image links, for reports ("FILE: FUNCTION(ARGS)").
	Object string
	// ObjectFile, Function and Args, when Image links an ELF object as
	// mcountsim check --object FILE --function NAME --args ARGS does, say
	// so, for reports to print a command that replays the run.
	ObjectFile string
	Function   string
	Args       []int64
	// Tracer, when set, runs the tracer kernel (tracer.go; arm only):
	// its callback, preemption paths and interrupts as code. IRQBound
	// bounds a run's interrupts and remote wakeups (default 1, NoIRQs for
	// none); Lossless makes a lost event a hazard; NMI lets
	// non-maskable interrupts arrive too, even with interrupts masked
	// (within IRQBound).
	Tracer   *kernel.Tracer
	IRQBound int
	Lossless bool
	NMI      bool
}

// ObjectStackWords is the stack mcountsim check gives each task of an
// --object scenario (Scenario.ObjectFile) unless --stack-words says
// otherwise: 4 KiB, for real frames (push {r4-r11, lr}, sub sp; nested
// calls; the trampoline's own frame), which need more than the built-in
// text's 64 words.
const ObjectStackWords = 1024

// DefaultStackWords is the stack s gets when nothing sets StackWords, as
// mcountsim check gives it: with a tracer, the default THREAD_SIZE's; for
// an object, ObjectStackWords; 128 words on riscv64; otherwise
// params.StackWords.Default.
func (s Scenario) DefaultStackWords() int {
	switch {
	case s.Tracer != nil:
		return 1 << kernel.DefaultThreadShift / 4
	case s.ObjectFile != "":
		return ObjectStackWords
	case s.Arch == kernel.RISCV64:
		return 128
	}
	return params.StackWords.Default
}

// WithDefaults returns s with every zero field set to its default.
func (s Scenario) WithDefaults() Scenario {
	s.CPUs = params.CPUs.Or(s.CPUs)
	s.Tasks = params.Tasks.Or(s.Tasks)
	s.Iterations = params.Iterations.Or(s.Iterations)
	s.Toggles = params.Toggles.Or(s.Toggles)
	s.Functions = params.Functions.Or(s.Functions)
	if s.Arch == 0 && s.Strategy != nil {
		s.Arch = s.Strategy.Arch
	}
	if s.Prologue == "" && s.Strategy != nil && s.Image == nil {
		s.Prologue = s.Strategy.Prologue
	}
	if s.StackWords == 0 && s.Arch == kernel.RISCV64 {
		s.StackWords = 128
	}
	if s.Prologue == "" && s.Arch == kernel.X86 {
		s.Prologue = "fentry"
	}
	s.tracerDefaults()
	return s
}

// String summarizes s in one line.
func (s Scenario) String() string {
	s = s.WithDefaults()
	name := "?"
	if s.Strategy != nil {
		name = s.Strategy.Name
	}
	text := fmt.Sprintf("%d functions", s.Functions)
	if s.Object != "" {
		text = "object " + s.Object
	}
	if s.StackWords != 0 && s.StackWords != s.DefaultStackWords() {
		text += fmt.Sprintf(", stack %d words", s.StackWords)
	}
	return fmt.Sprintf("%v %s, preempt %v, %d cpus, %d tasks, %d iterations, %d toggles, %s",
		s.Arch, name, s.Preempt, s.CPUs, s.Tasks, s.Iterations, s.Toggles, text) + s.tracerString()
}
