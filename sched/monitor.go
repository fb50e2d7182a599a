package sched

import "github.com/mcountsim/mcountsim/isa"

// The exclusive monitors (ARMv7 ARM A3.4, ARMv8 ARM B2.9) and LR/SC
// reservations (RISC-V unprivileged spec, "Zalrsc"), one mechanism for
// the three ISAs. The ISA packages execute ldrex/strex, ldxr/stxr and
// lr/sc against the monitor the Bus hands them (Machine.Monitor: the
// executing CPU's); what the machine adds is who else opens a monitor:
//
//   - a context switch on its CPU, and an exception taken or returned
//     from there (clearMonitor: leave, switchTo, the breakpoint trap, the
//     tracer kernel's interrupts). Linux does this in its exception
//     return path: A32's svc_exit and restore_user_regs store-exclusive
//     to a dead stack word ("clear the exclusive monitor"; a dummy strex,
//     not clrex, because of Cortex-A15 erratum 830321:
//     arch/arm/kernel/entry-header.S); on arm64 kernel_exit
//     (arch/arm64/kernel/entry.S) has no clrex before its eret, because
//     an exception return clears the local monitor (the ARMv8 ARM's
//     exception-return pseudocode clears the local exclusives; the
//     manual itself was not at hand here, but qemu's
//     HELPER(exception_return) sets exclusive_addr = -1 likewise); RISC-V's
//     ret_from_exception does an sc.d to a dead word "to clear any
//     existing reservation" (arch/riscv/kernel/entry.S). The machine
//     clears on every switch, voluntary ones too (RISC-V allows an
//     implementation to clear a reservation at any time; no compiled
//     LL/SC sequence contains a call to schedule()).
//   - any other CPU's store, and the patcher's, to a byte the monitor
//     marks (clearRemote: Store's data path and write). This is the
//     global monitor's rule (A3.4.2: a write by another observer to the
//     marked address clears it; B2.9.3; RISC-V: an SC must fail if a
//     store from another hart to the reservation set can be observed).
//     The granule is the marked bytes themselves: the smallest the
//     architectures allow (ARM's ERG is IMPLEMENTATION DEFINED, 8 to 2048
//     bytes, and a store elsewhere in it may or may not clear; RISC-V's
//     reservation set contains at least the bytes loaded). A larger
//     granule, a store by the same CPU (IMPLEMENTATION DEFINED on ARM, not
//     required on RISC-V) and a spurious failure only make more SCs fail;
//     in the LL/SC loops compilers and libgcc emit, a failed SC branches
//     back to the load-exclusive with nothing live that the loop wrote,
//     so its future is that of the state before the load-exclusive, which
//     the search explores with the load later. This machine never fails
//     an SC the architecture lets succeed, and every SC it lets succeed
//     the architecture lets succeed too.
//
// Since every switch clears its CPU's monitor, an armed monitor belongs
// to the task running there: Hash files it with that task (its address
// rebased as the task's registers are: symmetry.go), so the symmetric
// hash's permutation argument holds as it did. monOn has a bit for each
// CPU whose monitor an exclusive access reached since it was last
// cleared: a store checks the others' only while some bit is set.

// Monitor implements isa.ExclusiveBus: the monitor of the CPU executing
// now.
func (m *Machine) Monitor() *isa.Monitor {
	c := m.tasks[m.cur].CPU
	if c < 0 {
		// Not a CPU's task: no exclusive access can succeed (a fresh,
		// open monitor that nothing keeps).
		m.monNone = isa.Monitor{}
		return &m.monNone
	}
	m.monOn |= 1 << c
	return &m.mon[c]
}

// clearMonitor opens CPU c's monitor: a context switch or an exception
// entry or return on c.
func (m *Machine) clearMonitor(c int8) {
	if m.monOn&(1<<c) == 0 {
		return
	}
	m.mon[c] = isa.Monitor{}
	m.monOn &^= 1 << c
	m.touched(taskBit(m.cpus[c].Cur))
}

// clearRemote opens every monitor but CPU self's (self -1: the patcher's
// store) that marks a byte of the size bytes at addr.
func (m *Machine) clearRemote(self int8, addr uint64, size int) {
	for c := range int8(m.cfg.CPUs) {
		if c != self && m.monOn&(1<<c) != 0 && m.mon[c].Overlaps(addr, size) {
			m.clearMonitor(c)
		}
	}
}

// monitorOf is the armed monitor of task t's CPU, if t runs and its
// CPU's monitor is armed (hashTaskState).
func (m *Machine) monitorOf(t int8) (isa.Monitor, bool) {
	tk := &m.tasks[t]
	if tk.State != Running || tk.CPU < 0 || m.monOn&(1<<tk.CPU) == 0 || !m.mon[tk.CPU].Armed {
		return isa.Monitor{}, false
	}
	return m.mon[tk.CPU], true
}
