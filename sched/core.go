package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// A core is one instruction set's part of the machine, chosen once when
// the machine is built (newCore is the only place in this package that
// names an architecture). It owns what differs between ISAs:
//
//   - the register file of every task, and the few registers the rest of
//     the machine must know by role (pc, stack pointer, hook arguments);
//   - fetch and decode through its own cache, and execution;
//   - the partial-order reduction's classifier of thread-local
//     instructions;
//   - the link and return conventions the detectors need (which stack
//     slots hold a saved link value, which loads restore one);
//   - naming registers and rendering bytes for reports;
//   - its own tight loop over plain instructions (RunLocal's inner loop:
//     the ISA package's Run over the core's table of plain decodings, which
//     stops at every step the detectors must see), so that straight-line
//     code costs no interface call, and mostly no call at all, per
//     instruction.
//
// Everything else (the worker step, site passes, detectors, the
// scheduler, the patcher and the kernel services) is written once, in
// terms of this interface, for every core; so is what the cores have
// alike (coreBase, which each embeds: the registers of every task, the
// plain decodings, stepPlain and runPlain over the ISA's Exec and Run).
type core interface {
	// reset starts task t at entry with stack pointer sp.
	reset(t int8, entry, sp uint64)
	pc(t int8) uint64
	setPC(t int8, pc uint64)
	// arg returns argument i (0 or 1) of a call as task t sees it now:
	// the tracer hook reads (ip, parent ip) from there.
	arg(t int8, i int) uint64
	// ret returns task t's return-value register (ARM r0, x86 rax,
	// RISC-V a0, arm64 x0): the wrong-result detector (results.go).
	ret(t int8) uint64
	// reg returns register r (the ISA's own number) of task t.
	reg(t int8, r int) uint64
	// hashTask feeds task t's registers to h, each value through rb (its
	// addresses in the task's own stack relative to the stack: symmetry.go),
	// and returns both (by value, so that a caller's hasher stays on its
	// stack).
	hashTask(h hasher, t int8, rb rebase) (hasher, rebase)
	// clearDead sets to 0 the registers of task t that the ISA's
	// procedure call standard leaves undefined at a compiled function's
	// entry, or after its return (deadregs.go).
	clearDead(t int8, atReturn bool)
	// copyInto makes dst (reused when it is a core of the same kind, else
	// allocated) a copy of this core and returns it.
	copyInto(dst core) core

	// decode decodes the instruction at pc from b, the bytes the CPU
	// fetched there (up to the ISA's longest instruction; fewer at the end
	// of text), through the cache, and keeps it as the core's current
	// instruction; it returns its length in bytes.
	decode(pc uint64, b []byte) (int, error)
	// syncs reports whether the current instruction synchronizes the
	// executing CPU's instruction fetch (model.md §1a: ARM and arm64 isb,
	// x86 serializing instructions, RISC-V fence.i).
	syncs() bool
	// cmodxOK reports whether a CPU that synchronized when the word at a
	// text address was old may fetch it concurrently with its change to new
	// and get a defined result (ARMv7 ARM A3.5.4, ARMv8 ARM B2.2.5: both in
	// the concurrent-modification set). ISAs without such a rule (x86,
	// RISC-V) return true.
	cmodxOK(old, new []byte) bool
	// exec executes the current instruction for task t.
	exec(m *Machine, t int8) (effect, error)
	// disasm renders the current instruction at pc.
	disasm(m *Machine, pc uint64) string
	// localInst reports whether the current instruction touches nothing
	// but its task's registers, its stack and immutable text (data says
	// whether the image has shared data segments).
	localInst(data bool) bool
	// exclusive reports whether the current instruction is a
	// load-exclusive, a store-exclusive or a clear-exclusive (ARM ldrex,
	// strex, clrex; arm64 ldxr, stxr, clrex; RISC-V lr, sc): it reads or
	// writes its CPU's exclusive monitor, which other CPUs' stores clear
	// (monitor.go), so it is never thread-local, whatever its address.
	exclusive() bool
	// markPlain remembers the current instruction as plain at off (its
	// bytes can never change, it has no hook and lies outside every
	// site), so that the fast paths run it without decoding.
	markPlain(off uint64)
	// stepPlain runs task t's instruction at off if it is plain, and
	// reports whether it was.
	stepPlain(m *Machine, c, t int8, off uint64) bool
	// runPlain runs up to max plain, thread-local instructions of task t
	// back to back and returns how many it ran (RunLocal's inner loop).
	runPlain(m *Machine, c, t int8, max int) int
	// trap takes the breakpoint exception of task t at pc.
	trap(m *Machine, c, t int8, pc uint64)

	// foreignLoad reports whether a control register loaded, by an
	// instruction with this flow, from a slot that holds no saved link is
	// a foreign-slot hazard.
	foreignLoad(flow isa.Flow) bool
	// isLink reports whether a slot written from src holds a saved link.
	isLink(src uint8) bool
	// memAddr returns the address and size of the data the instruction at
	// pc would access for task t now, and whether it may store, if it is
	// a load or store the core can compute that for (the reduction of
	// accesses to the task's own stack and of loads from read-only data).
	memAddr(m *Machine, t int8, pc uint64) (addr uint64, size int, store, ok bool)
	// scratchLink reports whether reg is a link register that code may
	// also use as a general one: a load into it from a foreign slot is data
	// until it is used as a return address (scratch.go).
	scratchLink(reg uint8) bool
	regName(r uint8) string
	// slotWriter names a special writer src of a stack slot ("" for an
	// ordinary register).
	slotWriter(src uint8) string
	// hex renders instruction bytes as the ISA's manuals do.
	hex(b []byte) string
	// describe renders bytes stored at addr, with their disassembly when
	// they are whole instructions.
	describe(addr uint64, b []byte) string
}

// effect is what an executed instruction at pc did to control flow: how it
// left (flow), where to (target: the new pc), the return address a call
// linked (link), and the stack pointer before and after it.
type effect struct {
	pc       uint64 // the instruction's address
	flow     isa.Flow
	target   uint64
	link     uint64
	spBefore uint64
	spAfter  uint64
}

// isaShape is what the machine needs to know of an ISA before it decodes
// anything: the instruction alignment, the longest instruction, how a
// stack word is addressed, the width of a whole link-register load and the
// registers such a load restores (for the Bus), and the length of the no-op
// at a hook address.
type isaShape struct {
	align    uint64 // a power of two
	maxLen   int
	linkSize int
	linkRegs [2]uint8
	hookLen  uint64
	// misaligned is what a fault at a pc that is not a multiple of align
	// adds to "pc … is outside text".
	misaligned string
	// cmodxUnit is the size of the words the concurrent-modification rule
	// speaks of (4 on ARM and arm64), or 0 where the ISA has no such rule.
	cmodxUnit int
	// excSync says that taking and returning from an interrupt or
	// exception synchronizes the CPU's instruction fetch (not on RISC-V).
	excSync bool
	// stopperInSync says that entering the stop_machine stopper
	// synchronizes (everywhere but RISC-V, which flushes when it leaves).
	stopperInSync bool
	// breakpoint is the ISA's breakpoint instruction of the patcher's
	// breakpoint protocol (x86: int3), whose presence at a site's start
	// shadows the site's other bytes (shadow.go); nil where none is used.
	breakpoint []byte
	// bytewiseText says that a multi-byte text write outside the
	// breakpoint protocol is a sequence of byte stores (x86: text_poke's
	// memcpy gives no atomicity for instruction fetch).
	bytewiseText bool
}

// copyCore makes dst (reused when it is a core of k's kind, else
// allocated) a copy of k: every core's copyInto. Of the registers it
// copies only the machine's tasks' (coreBase.regs), into dst's own buffer.
func copyCore[K any, R any, P interface {
	*K
	core
	regFile() *[]R
}](k P, dst core) core {
	d, ok := dst.(P)
	if !ok || d == nil || d == k {
		d = P(new(K))
	}
	regs := *d.regFile()
	*d = *k
	*d.regFile() = append(regs[:0], *k.regFile()...)
	return d
}

// newCore returns the core of arch and its shape.
func newCore(img *kernel.Image) (core, isaShape, error) {
	switch img.Arch {
	case kernel.ARM:
		return newARMCore(img), armShape, nil
	case kernel.X86:
		return newX86Core(img), x86Shape, nil
	case kernel.RISCV64:
		return newRISCVCore(img), riscvShape, nil
	case kernel.ARM64:
		return newARM64Core(img), arm64Shape, nil
	}
	return nil, isaShape{}, fmt.Errorf("%w: arch %v is not supported by the machine", ErrConfig, img.Arch)
}

// coreStatic is the part of a core that every clone of one machine shares
// (and so never crosses goroutines: see Machine): the decode cache (of
// type C), the plain decodings (of type I) and the text's base address,
// and the two functions the fast paths need of the ISA (whose registers
// are of type R): its Run (run), and where its registers keep the pc, the
// link and the stack pointer (regs).
type coreStatic[C any, I any, R any] struct {
	dec  C
	tab  *plainTable[I]
	base uint64
	// run is the ISA package's Run: it executes up to max instructions
	// for registers r, each the one tab holds for its pc (tab[pc-base]),
	// and says where it stopped.
	run func(tab []*I, base uint64, r *R, bus isa.Bus, max int) (int, isa.Stop)
	// regs gives the registers after a stop s: the pc, the value a return
	// there would go to (the link register, or the address after the
	// instruction where the ISA has none), and the stack pointer.
	regs func(r *R, s isa.Stop) (pc, next, sp uint64)
	// current is Image.Current: every task starts with it as the
	// kernel's current-task (arm64 sp_el0, RISC-V tp) or per-CPU (x86-64
	// gs base) pointer.
	current uint64
}

// coreBase is the part of a core written once for every ISA: the shared
// part (st), the registers of every task, and the execution of plain
// decodings through the ISA's Run, by the general path's fast path
// (stepPlain) and by RunLocal's inner loop (runPlain).
type coreBase[C any, I any, R any] struct {
	st *coreStatic[C, I, R]
	// regs holds the registers of every task (the workers and the
	// patcher: reset makes room), a buffer of its own in every clone.
	regs []R
	one  [1]*I // the table of one decoding that stepPlain runs
}

// regFile is the core's register buffer, for copyCore.
func (b *coreBase[C, I, R]) regFile() *[]R { return &b.regs }

// room makes room in regs for task t, whose registers reset sets.
func (b *coreBase[C, I, R]) room(t int8) {
	for len(b.regs) <= int(t) {
		var r R
		b.regs = append(b.regs, r)
	}
}

func newCoreBase[C any, I any, R any](dec C, img *kernel.Image, align uint64,
	run func(tab []*I, base uint64, r *R, bus isa.Bus, max int) (int, isa.Stop),
	regs func(r *R, s isa.Stop) (pc, next, sp uint64)) coreBase[C, I, R] {
	return coreBase[C, I, R]{st: &coreStatic[C, I, R]{dec: dec, tab: newPlainTable[I](len(img.Text), align), base: img.Base,
		run: run, regs: regs, current: img.Current}}
}

// stepPlain runs task t's plain decoding at off, the task's pc, if there
// is one (Run over a table of one, as the ISA's Exec does), and hands it
// to the general path's tail (plainDone).
func (b *coreBase[C, I, R]) stepPlain(m *Machine, c, t int8, off uint64) bool {
	st := b.st
	inst := st.tab.at(off)
	if inst == nil {
		return false
	}
	r := &b.regs[t]
	b.one[0] = inst
	_, s := st.run(b.one[:], st.base+off, r, m, 1)
	pc, next, sp := st.regs(r, s)
	m.plainDone(c, t, effect{pc: s.PC, flow: s.Flow, target: pc, link: next, spBefore: s.SP, spAfter: sp}, s.Err)
	return true
}

// runPlain is RunLocal's inner loop, the same for every core: the ISA's
// Run over the core's table of plain decodings, a batch at a time,
// filling the table where Run found no decoding yet and handing every
// stop the detectors must see (an error, a call or return, a load into
// the link register) to plainStop. One call per batch, not per
// instruction: Run itself loops without calls.
func (b *coreBase[C, I, R]) runPlain(m *Machine, c, t int8, max int) int {
	st, r := b.st, &b.regs[t]
	tab, base := st.tab, st.base
	max = m.plainBudget(max)
	n := 0
	for n < max {
		m.loadedInto = 0
		j, s := st.run(tab.run, base, r, m, max-n)
		n += j
		m.steps += j
		if s.Missing {
			pc, _, _ := st.regs(r, s)
			if tab.fill(m, pc-base) == nil {
				break
			}
			continue
		}
		if s.Err != nil || s.Flow >= isa.FlowCall || m.loadedInto != 0 {
			pc, next, sp := st.regs(r, s)
			if m.plainStop(c, t, effect{pc: s.PC, flow: s.Flow, target: pc, link: next, spBefore: s.SP, spAfter: sp}, s.Err) {
				break
			}
		}
	}
	m.checkBudget(c)
	return n
}

// plainTable is a core's memory of plain decodings (see markPlain): plain
// holds, per possible instruction start (every 1<<shift bytes of text),
// the decoding there once it is known to be plain; run holds, per text
// byte (so that RunLocal's inner loop looks an instruction up without a
// shift or an alignment test), the same once the instruction is also known
// to be thread-local. Both only ever fill in, so every clone of a machine
// shares one table (and so it never crosses goroutines: see Machine). The
// decodings are copied, in the order they are marked, into chunks of
// dense, so that straight-line code runs through memory as contiguous as
// its text (a decode cache's entries are large, neighbours lie apart).
type plainTable[I any] struct {
	plain, run []*I
	dense      []I
	shift      uint
}

func newPlainTable[I any](textSize int, align uint64) *plainTable[I] {
	p := &plainTable[I]{}
	for 1<<p.shift < align {
		p.shift++
	}
	p.plain, p.run = make([]*I, (textSize+int(align)-1)>>p.shift), make([]*I, textSize)
	return p
}

// mark remembers inst as the plain decoding at text offset off (once: the
// bytes of a plain instruction never change, nor does its decoding).
func (p *plainTable[I]) mark(off uint64, inst *I) {
	if p.plain[off>>p.shift] != nil {
		return
	}
	if len(p.dense) == cap(p.dense) {
		p.dense = make([]I, 0, 256) // the full chunk stays where plain points
	}
	p.dense = append(p.dense, *inst)
	p.plain[off>>p.shift] = &p.dense[len(p.dense)-1]
}

// at returns the plain decoding at off, an aligned offset inside text, or nil.
func (p *plainTable[I]) at(off uint64) *I { return p.plain[off>>p.shift] }

// local returns the plain decoding at text offset off if the instruction
// there is known to be thread-local too, or nil (also for an offset
// outside text or misaligned); then fill may know more.
func (p *plainTable[I]) local(off uint64) *I {
	if off < uint64(len(p.run)) {
		return p.run[off]
	}
	return nil
}

// fill is local's slow path: the plain decoding at off, if the
// instruction there is thread-local, kept in run for the next time.
func (p *plainTable[I]) fill(m *Machine, off uint64) *I {
	if off >= uint64(len(p.run)) || off&(1<<p.shift-1) != 0 {
		return nil
	}
	inst := p.plain[off>>p.shift]
	if inst == nil || m.st.class[off] != classLocal {
		return nil
	}
	p.run[off] = inst
	return inst
}
