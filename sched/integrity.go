package sched

import (
	"fmt"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/isa"
)

// Workload integrity (detect.Escape): every call a worker makes returns to
// its caller with its frame popped, so a task leaves a traced function
// only by returning from it, and it reaches do_exit only through the call
// its workload makes after the last iteration. Two observations catch a
// task that leaves some other way before it loops on until the step budget
// runs out:
//   - checkBranch: a branch (not a call or a return) executed from bytes a
//     store may write (a patched form) whose target lies outside the
//     function holding it and is not the start of a function (a tail
//     call, whose callee returns to the caller in its place);
//   - checkExit: a task that reaches do_exit with a call other than the
//     one to do_exit still on its shadow stack.

// checkBranch reports an escape by the branch of task t at pc (whose n
// bytes lie at text offset off) to target.
func (m *Machine) checkBranch(c, t int8, pc, off uint64, n int, flow isa.Flow, target uint64) {
	if flow != isa.FlowBranch || !m.mutable(off, n) {
		return
	}
	fn, _, ok := m.img.Lookup(pc)
	if !ok || target >= fn.Addr && target < fn.Addr+fn.Size {
		return
	}
	if _, ok := m.textOff(target); !ok {
		return // outside text: the fetch faults next
	}
	if to, toOff, ok := m.img.Lookup(target); ok && toOff == 0 && to.Size > 0 {
		return // a tail call: checkExit sees it if it never comes back
	}
	m.hazard(detect.Escape, int(c), int(t), pc, fmt.Sprintf("branch from %s to %#x <%s>, outside %s and not the start of a function: control escaped %s without returning%s",
		nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)), target, nameOr(m.img.Name(target), "no symbol"), fn.Name, fn.Name, m.pendingText(t)))
}

// checkExit reports an escape when task t, at the exit hook (pc), still
// owes returns from calls other than its call to do_exit.
func (m *Machine) checkExit(c, t int8, pc uint64) {
	sh := &m.tasks[t].Shadow
	exitFn, _, ok := m.img.Lookup(pc)
	pending := 0
	for i := 0; i < int(sh.N); i++ {
		if !ok || sh.Frames[i].Callee != exitFn.Addr {
			pending++
		}
	}
	if pending == 0 {
		return
	}
	m.hazard(detect.Escape, int(c), int(t), pc, fmt.Sprintf("task %d reached %s with %d call(s) that never returned%s: control escaped its function without returning, and the workload did not finish its iterations",
		t, nameOr(m.img.Name(pc), fmt.Sprintf("%#x", pc)), pending, m.pendingText(t)))
}

// pendingText names the innermost call task t still owes a return from.
func (m *Machine) pendingText(t int8) string {
	sh := &m.tasks[t].Shadow
	if sh.N == 0 {
		return ""
	}
	f := sh.Frames[sh.N-1]
	return fmt.Sprintf(" (its call to %s is to return to %#x <%s>)", nameOr(m.img.Name(f.Callee), fmt.Sprintf("%#x", f.Callee)), f.Ret, nameOr(m.img.Name(f.Ret), "no symbol"))
}
