// Package kernel builds the text that mcountsim runs: a workload loop per
// worker, traced functions laid out as a compiler emits them, the ftrace
// trampoline, and the stubs of the kernel services that the scheduler
// implements natively. Everything in the text is real machine code: the
// trampolines are executed instruction by instruction like the workload.
//
// An Image is plain data (bytes, symbols, sites, hook addresses); it does not
// run anything. Build lays out the built-in text; BuildObject (object.go)
// links a real ELF object's functions into the same frame of worker loop,
// trampolines and stubs.
//
// Imports: the standard library, the isa packages and objfile (the ELF
// loader and site discovery, which imports no other mcountsim package).
package kernel

import (
	"fmt"
	"github.com/mcountsim/mcountsim/params"
	"sort"
)

// Arch names an instruction set.
type Arch uint8

const (
	ARM     Arch = iota + 1 // ARM A32
	X86                     // x86-64
	RISCV64                 // RISC-V RV64GC
	ARM64                   // ARMv8 A64
)

var archNames = [...]string{ARM: "arm", X86: "x86", RISCV64: "riscv64", ARM64: "arm64"}

func (a Arch) String() string {
	if int(a) < len(archNames) && archNames[a] != "" {
		return archNames[a]
	}
	return fmt.Sprintf("Arch(%d)", a)
}

// ParseArch returns the Arch named s ("arm", "x86", "riscv64" or "arm64",
// and the usual aliases).
func ParseArch(s string) (Arch, error) {
	switch s {
	case "arm":
		return ARM, nil
	case "x86", "x86-64", "x86_64", "amd64":
		return X86, nil
	case "riscv64", "riscv", "rv64":
		return RISCV64, nil
	case "arm64", "aarch64":
		return ARM64, nil
	}
	return 0, fmt.Errorf("unknown arch %q (want arm, x86, riscv64 or arm64)", s)
}

// HookKind is a kernel service bound to a text address. The word at a hook
// address is a real no-op instruction; when a task fetches it, the machine
// performs the service instead and moves on to the next instruction.
type HookKind uint8

const (
	HookNone     HookKind = iota
	HookSchedule          // schedule(): a voluntary context switch
	HookExit              // do_exit(): the task ends
	HookTrace             // the tracer records a trace event (ip, parent ip)
	// The tracer kernel's services (tracer.go).
	HookPreempt   // __schedule(preempt): an involuntary context switch
	HookIRQReturn // svc_exit: return from the interrupt, restoring the saved registers
	HookRecursion // trace_recursion_record: a recursion the callback dropped and counted
	// HookPanic is a kernel function that does not return but panics:
	// __stack_chk_fail, which a function built with -fstack-protector
	// calls when its canary was overwritten. Reaching it is a fault.
	HookPanic
)

var hookNames = [...]string{"", "schedule", "exit", "trace", "preempt", "irq-return", "recursion", "panic"}

func (h HookKind) String() string {
	if int(h) < len(hookNames) {
		return hookNames[h]
	}
	return fmt.Sprintf("HookKind(%d)", h)
}

// Symbol is a named range of text.
type Symbol struct {
	Name string
	Addr uint64
	Size uint64
	// Compiled marks a function of a linked object (LinkObject): code a
	// compiler built to the platform's procedure call standard, whose
	// entry and return the machine treats as the standard's boundaries
	// (package sched, deadregs.go). The layouts' own code (workers,
	// trampolines, helpers, stubs) is not marked.
	Compiled bool
}

// Site is one patchable call site.
type Site struct {
	Func string // the traced function
	Addr uint64 // first byte of the site (ARM: the push {lr})
	Len  int    // bytes from Addr the site spans (Gap included)
	Call uint64 // address of the call instruction inside the site (rec->ip)
	// Gap, when not 0, is the offset of a 4-byte word inside the site that
	// no strategy writes: the BTI landing pad at the function's entry of an
	// arm64 CALL_OPS site (-fpatchable-function-entry=4,2 with
	// -mbranch-protection=bti), between the ftrace_ops literal and the two
	// entry words. A strategy's offsets skip it (Site.At), as Linux's
	// ftrace_call_adjust skips a BTI to find rec->ip. No A64 piece can
	// cover it: a piece is one 4-byte word or an 8-aligned literal.
	Gap int
}

// At returns the address of offset off of a strategy's forms: off bytes
// into the site, past the Gap word for an offset at or after it.
func (s Site) At(off int) uint64 {
	if s.Gap > 0 && off >= s.Gap {
		off += 4
	}
	return s.Addr + uint64(off)
}

// Span is how many bytes of the site a strategy's offsets address: Len
// without the Gap word.
func (s Site) Span() int {
	if s.Gap > 0 {
		return s.Len - 4
	}
	return s.Len
}

// Hook binds a service to an address.
type Hook struct {
	Addr uint64
	Kind HookKind
}

// Callee records how a called routine treats its caller's stack: the
// mcount trampolines consume the word the site pushed, so they return with
// the stack pointer Pop bytes above where it was at the call.
type Callee struct {
	Addr uint64
	Pop  uint8
}

// Segment is a range of data memory (an object's .data, .bss, .rodata,
// a synthesized GOT) that every task may read and write.
type Segment struct {
	Name  string
	Addr  uint64
	Bytes []byte // initial contents
	// ReadOnly: no code may write it (an object's sections without
	// SHF_WRITE, such as .rodata): its pages are mapped read-only.
	ReadOnly bool
}

// Image is a complete simulated kernel text.
type Image struct {
	Arch    Arch
	Base    uint64
	Text    []byte // compiled bytes, before boot-time patching
	Symbols []Symbol
	Sites   []Site
	Hooks   []Hook
	Callees []Callee
	Entry   uint64 // where every worker starts
	Align   int    // instruction alignment: 4 on ARM, 1 on x86
	Data    []Segment
	Stubs   []string // undefined callees linked to a stub returning 0 (LinkObject)
	// Tracer describes a tracer kernel's text (tracer.go); nil otherwise.
	Tracer *TracerLayout
	// Prologue is the call-site layout of an arm64 or riscv64 object's
	// sites (a Config.Prologue name: "pfe2", "pfe8", ...), set by
	// LinkObject; empty otherwise.
	Prologue string
	// Current, when not 0, is what arm64's sp_el0, RISC-V's tp and
	// x86-64's gs base hold in every task: the address of a read-only
	// area standing for the current task_struct (and x86's per-CPU area),
	// each of whose words is the stack canary (the per-task guards of
	// -mstack-protector-guard=sysreg, =tls and gs read it at the object's
	// offset; every task's canary is the same value). LinkObject sets it
	// for an object that reads sp_el0, loads through tp or has a gs
	// operand.
	Current uint64
}

// Config is what the text depends on.
type Config struct {
	Functions  int // traced functions, each with one site; default 1
	Iterations int // workload iterations per worker; default 2
	// Prologue selects the call-site flavour: on x86 "fentry" (default,
	// gcc -pg -mfentry) or "mcount" (plain gcc -pg); on arm64 "pfe2"
	// (default), "pfe4-2" or "pg" (see ARM64PFE2); on riscv64 the era,
	// "mcount", "pfe16", "pfe8" or "atomic" (default; see RVMcount).
	Prologue string
	// Tracer, when set, builds the tracer kernel (tracer.go; ARM only).
	Tracer *Tracer
}

func (c *Config) defaults() {
	c.Functions = params.Functions.Or(c.Functions)
	c.Iterations = params.Iterations.Or(c.Iterations)
	if c.Prologue == "" {
		c.Prologue = "fentry"
	}
}

// Build returns the image for arch and cfg.
func Build(arch Arch, cfg Config) (*Image, error) {
	if arch == ARM64 && cfg.Prologue == "" {
		cfg.Prologue = ARM64PFE2
	}
	if arch == RISCV64 && cfg.Prologue == "" {
		cfg.Prologue = RVAtomic
	}
	cfg.defaults()
	for _, s := range []struct {
		p *params.Param
		v int
	}{{&params.Functions, cfg.Functions}, {&params.Iterations, cfg.Iterations}} {
		if s.v < s.p.Min || s.v > s.p.Max {
			return nil, fmt.Errorf("%s must be %d..%d, got %d", s.p.Name, s.p.Min, s.p.Max, s.v)
		}
	}
	if cfg.Tracer != nil && arch != ARM {
		return nil, fmt.Errorf("the tracer kernel (--tracer) is laid out for arm only, not %v", arch)
	}
	switch arch {
	case ARM:
		return buildARM(cfg)
	case X86:
		return buildX86(cfg)
	case ARM64:
		return buildARM64(cfg)
	case RISCV64:
		return buildRISCV(cfg)
	}
	return nil, fmt.Errorf("unknown arch %v", arch)
}

// Lookup returns the symbol containing addr and the offset into it.
func (img *Image) Lookup(addr uint64) (Symbol, uint64, bool) {
	i := sort.Search(len(img.Symbols), func(i int) bool { return img.Symbols[i].Addr > addr }) - 1
	if i < 0 {
		return Symbol{}, 0, false
	}
	s := img.Symbols[i]
	if addr >= s.Addr+s.Size {
		return Symbol{}, 0, false
	}
	return s, addr - s.Addr, true
}

// Name returns "sym+0xoff" (or "sym") for addr, or "" when no symbol holds it.
func (img *Image) Name(addr uint64) string {
	s, off, ok := img.Lookup(addr)
	switch {
	case !ok:
		return ""
	case off == 0:
		return s.Name
	}
	return fmt.Sprintf("%s+%#x", s.Name, off)
}

// Symbol returns the address of the symbol called name.
func (img *Image) Symbol(name string) (uint64, bool) {
	for _, s := range img.Symbols {
		if s.Name == name {
			return s.Addr, true
		}
	}
	return 0, false
}

// SiteAt returns the index of the site whose bytes include addr, or -1.
func (img *Image) SiteAt(addr uint64) int {
	for i, s := range img.Sites {
		if addr >= s.Addr && addr < s.Addr+uint64(s.Len) {
			return i
		}
	}
	return -1
}

// asm accumulates text and symbols.
type asm struct {
	img   *Image
	err   error
	fixes []func()
	// The arch's hook encodings, kept by hooks for later ones (panic).
	hookNop  []byte
	hookSelf func(pc uint64) []byte
}

func (a *asm) pc() uint64 { return a.img.Base + uint64(len(a.img.Text)) }

func (a *asm) emit(b []byte) { a.img.Text = append(a.img.Text, b...) }

// sym starts a symbol at the current pc; end closes the last one.
func (a *asm) sym(name string) {
	a.end()
	a.img.Symbols = append(a.img.Symbols, Symbol{Name: name, Addr: a.pc()})
}

func (a *asm) end() {
	if n := len(a.img.Symbols); n > 0 && a.img.Symbols[n-1].Size == 0 {
		a.img.Symbols[n-1].Size = a.pc() - a.img.Symbols[n-1].Addr
	}
}

func (a *asm) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// later runs f once all symbols are placed (for forward references).
func (a *asm) later(f func()) { a.fixes = append(a.fixes, f) }

// callLater emits placeholder where a call to target goes, and replaces
// it, once every symbol is placed, with enc's encoding of the call at pc
// to target's address; what names the instruction when it is out of range.
func (a *asm) callLater(what, target string, placeholder []byte, enc func(pc, to uint64) ([]byte, bool)) {
	pc := a.pc()
	a.emit(placeholder)
	a.later(func() {
		b, fine := enc(pc, a.addr(target))
		if !fine {
			a.fail("kernel: %s %s out of range", what, target)
		}
		copy(a.img.Text[pc-a.img.Base:], b)
	})
}

// hooks emits the hook stubs every text ends with: trace_function and
// schedule, each the hook's nop then ret, and do_exit, its nop then self(pc),
// a branch to itself at pc.
func (a *asm) hooks(nop, ret []byte, self func(pc uint64) []byte) {
	a.hookNop, a.hookSelf = nop, self
	for _, h := range []struct {
		name string
		kind HookKind
	}{{"trace_function", HookTrace}, {"schedule", HookSchedule}, {"do_exit", HookExit}} {
		a.sym(h.name)
		a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: h.kind})
		a.emit(nop)
		if h.kind == HookExit {
			a.emit(self(a.pc()))
		} else {
			a.emit(ret)
		}
	}
}

// panicHook emits name as a HookPanic hook: the hook's nop, then a branch
// to itself (never reached: the machine faults at the nop). hooks must
// have run.
func (a *asm) panicHook(name string) {
	a.sym(name)
	a.img.Hooks = append(a.img.Hooks, Hook{Addr: a.pc(), Kind: HookPanic})
	a.emit(a.hookNop)
	a.emit(a.hookSelf(a.pc()))
}

// encoded returns x, failing the build when it could not be encoded.
func encoded[W fmt.Stringer](a *asm, x W, fine bool) W {
	if !fine {
		a.fail("kernel: cannot encode %v at %#x", x, a.pc())
	}
	return x
}

func (a *asm) finish() (*Image, error) {
	a.end()
	for _, f := range a.fixes {
		f()
	}
	if a.err != nil {
		return nil, a.err
	}
	sort.SliceStable(a.img.Symbols, func(i, j int) bool { return a.img.Symbols[i].Addr < a.img.Symbols[j].Addr })
	return a.img, nil
}

func (a *asm) addr(name string) uint64 {
	v, ok := a.img.Symbol(name)
	if !ok {
		a.fail("kernel: undefined symbol %s", name)
	}
	return v
}

func errorf(format string, args ...any) error { return fmt.Errorf("kernel: "+format, args...) }
