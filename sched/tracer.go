package sched

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/rv"
)

// The tracer kernel's part of the machine (issue 17; the text is
// kernel/tracer.go). preempt_count, need_resched, the interrupt mask and
// the recursion bits are words of each task's thread_info, which the text
// reads and writes; the machine reads them to decide whether an interrupt
// may arrive, watches the stores to them for the detectors, and performs
// the few services the text calls: __schedule, the return from an
// interrupt, the ring-buffer write and the recursion record.

// Contexts of a traced call, as lost events are counted (the recursion
// bits' order reversed: normal first).
const (
	CtxNormal = iota
	CtxSoftirq
	CtxIRQ
	CtxNMI
	NumCtx
)

// CtxNames names the contexts in the order of the Ctx constants.
var CtxNames = [NumCtx]string{"normal", "softirq", "irq", "nmi"}

// TracerStats collects, over every run of every machine built with it,
// the most lost events and counted recursions in one run per context and
// the longest interrupts-off stretch (in instructions of the task that
// masked them). It is safe for concurrent use.
type TracerStats struct {
	mu         sync.Mutex
	Lost       [NumCtx]int
	Recursed   [NumCtx]int
	IRQsOffMax int
	offMax     atomic.Int64 // IRQsOffMax, for the machines' lock-free check
}

// offAbove reports whether n exceeds the longest interrupts-off stretch
// recorded so far (read without the lock: machines on other goroutines
// update it).
func (s *TracerStats) offAbove(n int) bool { return int64(n) > s.offMax.Load() }

// Snapshot returns a copy of the counters.
func (s *TracerStats) Snapshot() (lost, recursed [NumCtx]int, irqsOff int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Lost, s.Recursed, s.IRQsOffMax
}

func (s *TracerStats) note(lost, rec *[NumCtx]uint8, off int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	for i := 0; i < NumCtx; i++ {
		s.Lost[i] = max(s.Lost[i], int(lost[i]))
		s.Recursed[i] = max(s.Recursed[i], int(rec[i]))
	}
	s.IRQsOffMax = max(s.IRQsOffMax, off)
	s.offMax.Store(int64(s.IRQsOffMax))
	s.mu.Unlock()
}

// tracerState is a value inside Machine (copied with it).
type tracerState struct {
	on      bool
	lay     *kernel.TracerLayout
	tp      map[uint64]rv.Kind // pcs of traced preempt/irq stores (shared, immutable)
	sched   map[uint64]bool    // scheduler entries (shared, immutable)
	traced  map[uint64]bool    // entries of functions with an mcount site
	irqs    uint8              // interrupts and wakeups taken (against IRQBound)
	resched uint16             // CPUs with a reschedule IPI pending
	// Per task, by shadow-stack depth: callback frames open, and those
	// that recorded (or counted a recursion).
	cbOpen [MaxTasks]uint32
	cbRec  [MaxTasks]uint32
	// missAt: 1 + the shadow depth at which preemption was re-enabled to
	// 0 with need_resched set (0: no window open).
	missAt [MaxTasks]uint8
	offRun [MaxTasks]uint16 // instructions run with interrupts masked, this stretch
	// prev: the last preempt_count and interrupt mask the text stored, so
	// that the tracepoints fire on changes only (trace_preempt_off when
	// the count leaves 0, trace_hardirqs_off when the mask is set).
	prevCount [MaxTasks]uint32
	prevOff   [MaxTasks]uint32
	lost      [NumCtx]uint8
	recursed  [NumCtx]uint8
	// resume: how task t's next switch-in re-enables preemption in the
	// events (resumeWrapper, resumeText, resumeTick).
	resume [MaxTasks]uint8
	rv     []rv.Event // Record mode
	tick   bool       // inside tickPreempt's hard-irq part (Record mode)
}

// initTracer sets the tracer kernel up in a new machine.
func (m *Machine) initTracer() error {
	lay := m.img.Tracer
	if lay == nil {
		return nil
	}
	if m.cfg.StackWords*4 != 1<<lay.ThreadShift {
		return fmt.Errorf("%w: the tracer kernel's THREAD_SIZE is %d bytes, stacks are %d words", ErrConfig, 1<<lay.ThreadShift, m.cfg.StackWords)
	}
	tr := &m.tr
	tr.on, tr.lay = true, lay
	tr.tp = map[uint64]rv.Kind{}
	for _, pc := range lay.PreemptTP {
		tr.tp[pc] = rv.PreemptDisable // direction decided by the value stored
	}
	for _, pc := range lay.IRQTP {
		tr.tp[pc] = rv.IRQDisable
	}
	tr.sched = map[uint64]bool{}
	for _, a := range lay.Sched {
		tr.sched[a] = true
	}
	tr.traced = map[uint64]bool{}
	for _, st := range m.img.Sites {
		if sym, _, ok := m.img.Lookup(st.Addr); ok {
			tr.traced[sym.Addr] = true
		}
	}
	return nil
}

// tiAddr returns the address of thread_info word off of task t.
func (m *Machine) tiAddr(t int8, off uint64) uint64 {
	return StackBase + uint64(int(t)*m.cfg.StackWords*4) + off
}

func (m *Machine) tiGet(t int8, off uint64) uint32 {
	return le32(m.stack[m.tiAddr(t, off)-StackBase:])
}

func (m *Machine) tiSet(t int8, off uint64, v uint32) {
	m.storeStack(m.tiAddr(t, off), 4, uint64(v), 0xfe)
}

// TI returns thread_info word off of task t (tracer kernel).
func (m *Machine) TI(t int, off uint64) uint32 { return m.tiGet(int8(t), off) }

func (m *Machine) irqsOn(t int8) bool { return m.tiGet(t, kernel.TIIRQsOff) == 0 }

// preemptOK reports whether the tracer kernel lets task t be preempted by
// a timer tick now: preempt_count 0 and interrupts on.
func (m *Machine) preemptOK(t int8) bool {
	return t < m.patcher && m.tiGet(t, kernel.TIPreemptCount) == 0 && m.irqsOn(t)
}

func ctxOf(count uint32) int {
	switch {
	case count&kernel.NMIMask != 0:
		return CtxNMI
	case count&kernel.HardirqMask != 0:
		return CtxIRQ
	case count&kernel.SoftirqMask != 0:
		return CtxSoftirq
	}
	return CtxNormal
}

// tracerTick runs before each instruction of worker t: the interrupts-off
// stretch.
func (m *Machine) tracerTick(t int8) {
	tr := &m.tr
	if !m.irqsOn(t) {
		tr.offRun[t]++
		if m.cfg.TracerStats != nil && m.cfg.TracerStats.offAbove(int(tr.offRun[t])) {
			m.cfg.TracerStats.note(&tr.lost, &tr.recursed, int(tr.offRun[t]))
		}
	} else {
		tr.offRun[t] = 0
	}
}

// tiStored watches a store by code at a into the running task's stack:
// preempt_count, need_resched and the interrupt mask.
func (m *Machine) tiStored(a, lo uint64, pc uint64) {
	off := a - lo
	if off >= kernel.TISize {
		return
	}
	t := m.cur
	c := m.tasks[t].CPU
	switch off {
	case kernel.TIPreemptCount:
		v := m.tiGet(t, off)
		was := m.tr.prevCount[t]
		m.tr.prevCount[t] = v
		if was != v {
			m.stateEvent(c, t, pc, "preempt_count")
		}
		if _, ok := m.tr.tp[pc]; ok && (was&kernel.PreemptMask == 0) != (v&kernel.PreemptMask == 0) {
			k := rv.PreemptEnable
			if v&kernel.PreemptMask != 0 {
				k = rv.PreemptDisable
			}
			m.rvEvent(k, c, t, false)
		}
		if v == 0 && m.tiGet(t, kernel.TIFlags)&kernel.TIFNeedResched != 0 && m.tr.resched&(1<<c) == 0 && !m.inScheduler(t) {
			m.tr.missAt[t] = m.tasks[t].Shadow.N + 1
		}
	case kernel.TIFlags:
		if m.tiGet(t, off)&kernel.TIFNeedResched != 0 {
			m.rvEvent(rv.NeedResched, c, t, false)
			m.stateEvent(c, t, pc, "need_resched set")
		}
	case kernel.TIIRQsOff:
		v := m.tiGet(t, off)
		was := m.tr.prevOff[t]
		m.tr.prevOff[t] = v
		if v == 0 {
			m.tr.offRun[t] = 0 // the stretch ends with the store that unmasks
		}
		if (was == 0) != (v == 0) {
			m.stateEvent(c, t, pc, "interrupt mask")
		}
		if _, ok := m.tr.tp[pc]; ok && (was == 0) != (v == 0) {
			k := rv.IRQEnable
			if v != 0 {
				k = rv.IRQDisable
			}
			m.rvEvent(k, c, t, false)
		}
	}
}

// inScheduler reports whether a frame of the scheduler is on task t's
// call stack (it is on its way into __schedule).
func (m *Machine) inScheduler(t int8) bool {
	s := &m.tasks[t].Shadow
	for i := 0; i < int(s.N); i++ {
		if m.tr.sched[s.Frames[i].Callee] {
			return true
		}
	}
	return false
}

// tracerControl is the tracer kernel's part of the call and return
// detectors, after the shadow stack took the call or return.
func (m *Machine) tracerControl(c, t int8, pc uint64, flowCall bool, target, spBefore uint64) {
	tr := &m.tr
	s := &m.tasks[t].Shadow
	if flowCall {
		d := s.N - 1 // the frame just pushed
		if target == tr.lay.Callback {
			tr.cbOpen[t] |= 1 << d
			tr.cbRec[t] &^= 1 << d
		}
		lo, _ := m.stackRange(t)
		// Only a traced scheduler function can loop: its own mcount
		// site calls the callback again.
		if tr.sched[target] && tr.traced[target] {
			for i := 0; i < int(d); i++ {
				if !tr.sched[s.Frames[i].Callee] {
					continue
				}
				for j := i + 1; j < int(d); j++ {
					if s.Frames[j].Callee == tr.lay.Callback {
						m.hazard(detect.SchedRecursion, int(c), int(t), pc, fmt.Sprintf("%s called again through the tracer: %s (frame %d) -> %s (frame %d) -> %s",
							m.img.Name(target), m.img.Name(s.Frames[i].Callee), i, m.img.Name(tr.lay.Callback), j, m.img.Name(target)))
						return
					}
				}
			}
		}
		if spBefore < lo+kernel.TISize+64 {
			for j := 0; j < int(d); j++ {
				if s.Frames[j].Callee == tr.lay.Callback {
					m.hazard(detect.SchedRecursion, int(c), int(t), pc, fmt.Sprintf("stack overflow through the tracer: sp %#x is %d bytes above thread_info at %#x", spBefore, spBefore-lo-kernel.TISize, lo))
					return
				}
			}
			m.fault(c, t, pc, fmt.Sprintf("stack overflow: sp %#x is %d bytes above thread_info at %#x", spBefore, spBefore-lo-kernel.TISize, lo))
		}
		return
	}
	d := s.N // the frame just consumed
	if d < 32 && tr.cbOpen[t]&(1<<d) != 0 && s.Frames[d].Callee == tr.lay.Callback {
		rec := tr.cbRec[t]&(1<<d) != 0
		tr.cbOpen[t] &^= 1 << d
		tr.cbRec[t] &^= 1 << d
		if !rec {
			ctx := ctxOf(m.tiGet(t, kernel.TIPreemptCount))
			if tr.lost[ctx] < 255 {
				tr.lost[ctx]++
			}
			m.cfg.TracerStats.note(&tr.lost, &tr.recursed, 0)
			if m.cfg.Record {
				m.event(Event{Kind: EvLost, CPU: int(c), Task: int(t), PC: pc, Where: m.img.Name(pc), Context: CtxNames[ctx],
					Text: fmt.Sprintf("lost event: the tracer callback returned to %s without recording the %s-context event", m.img.Name(target), CtxNames[ctx])})
			}
			if m.cfg.Lossless {
				m.hazard(detect.LostEvent, int(c), int(t), pc, fmt.Sprintf("the tracer callback returned to %s without recording the %s-context event", m.img.Name(target), CtxNames[ctx]))
			}
		}
	}
	if tr.missAt[t] != 0 && s.N+1 < tr.missAt[t] {
		tr.missAt[t] = 0
		m.hazard(detect.MissedPreemption, int(c), int(t), pc, fmt.Sprintf("preempt_count went to 0 with need_resched set and no reschedule IPI pending, and %s returned to %s without scheduling",
			nameOr(m.img.Name(s.Frames[d].Callee), "the function"), m.img.Name(target)))
	}
}

// markRecorded notes that task t's innermost open callback frame
// recorded its event (or counted a recursion).
func (m *Machine) markRecorded(t int8) {
	open := m.tr.cbOpen[t] &^ m.tr.cbRec[t]
	for d := 31; d >= 0; d-- {
		if open&(1<<d) != 0 {
			m.tr.cbRec[t] |= 1 << d
			return
		}
	}
}

// tracerHook performs the tracer kernel's services; it reports whether h
// was one of them.
func (m *Machine) tracerHook(c, t int8, h kernel.HookKind) bool {
	k := m.core
	pc := k.pc(t)
	switch h {
	case kernel.HookTrace:
		m.markRecorded(t)
		return false // the plain trace hook does the rest
	case kernel.HookRecursion:
		k.setPC(t, pc+m.shape.hookLen)
		ctx := ctxOf(m.tiGet(t, kernel.TIPreemptCount))
		if m.tr.recursed[ctx] < 255 {
			m.tr.recursed[ctx]++
		}
		m.cfg.TracerStats.note(&m.tr.lost, &m.tr.recursed, 0)
		m.markRecorded(t)
		m.event(Event{Kind: EvTrace, CPU: int(c), Task: int(t), PC: pc, Text: fmt.Sprintf("tracer: recursion in %s context dropped and counted (recursed_functions)", CtxNames[ctx])})
		return true
	case kernel.HookPreempt, kernel.HookSchedule:
		k.setPC(t, pc+m.shape.hookLen)
		preempt := h == kernel.HookPreempt
		if !preempt {
			m.rvEvent(rv.PreemptDisable, c, t, false)
		}
		m.rvEvent(rv.ScheduleEntry, c, t, preempt)
		m.switchOut(c, t)
		m.tr.resume[t] = resumeWrapper
		if preempt {
			m.tr.resume[t] = resumeText
			m.event(Event{Kind: EvPreempt, CPU: int(c), Task: int(t), PC: pc, Text: "__schedule(preempt): need_resched was set"})
			m.leave(c, false)
			m.tasks[t].Preempted = true
		} else {
			m.event(Event{Kind: EvYield, CPU: int(c), Task: int(t), PC: pc, Text: "schedule(): voluntary switch"})
			m.leave(c, true)
		}
		m.enqueue(t)
		return true
	case kernel.HookIRQReturn:
		m.irqReturn(c, t)
		return true
	case kernel.HookExit:
		m.rvEvent(rv.PreemptDisable, c, t, false)
		m.rvEvent(rv.ScheduleEntry, c, t, false)
		m.switchOut(c, t)
		return false
	}
	return false
}

// switchOut is __schedule's bookkeeping for task t leaving CPU c:
// clear_tsk_need_resched, the pending IPI goes with it, and a
// missed-preemption window closes.
func (m *Machine) switchOut(c, t int8) {
	set := m.tiGet(t, kernel.TIFlags)&kernel.TIFNeedResched != 0
	m.tiSet(t, kernel.TIFlags, m.tiGet(t, kernel.TIFlags)&^kernel.TIFNeedResched)
	if set {
		m.stateEvent(c, t, m.pcOf(t), "need_resched cleared by __schedule")
	}
	m.tr.resched &^= 1 << c
	m.tr.missAt[t] = 0
	m.rvEvent(rv.SwitchOut, c, t, false)
}

// switchIn is the tracer kernel's part of switching task t onto CPU c.
func (m *Machine) switchIn(c, t int8) {
	m.tiSet(t, kernel.TICPU, uint32(c))
	m.rvEvent(rv.SwitchIn, c, t, false)
	m.rvEvent(rv.ScheduleExit, c, t, false)
	switch m.tr.resume[t] {
	case resumeWrapper:
		// schedule_tail, or the schedule() wrapper's
		// sched_preempt_enable_no_resched.
		m.rvEvent(rv.PreemptEnable, c, t, false)
	case resumeTick:
		// The rest of the tick's preempt_schedule_irq and its return.
		m.rvEvent(rv.IRQDisable, c, t, false)
		m.rvEvent(rv.PreemptEnable, c, t, false)
		m.rvEvent(rv.IRQEnable, c, t, false)
	}
	m.tr.resume[t] = resumeWrapper
}

// How a task's switch-in re-enables preemption.
const (
	resumeWrapper = iota // the machine's schedule() (or a first run)
	resumeText           // the text's preempt path (its own store)
	resumeTick           // the machine's timer preemption (ActPreempt)
)

// tickPreempt is the events of a timer preemption the machine takes in one
// action (ActPreempt): the interrupt, need_resched, preempt_schedule_irq.
func (m *Machine) tickPreempt(c, t int8) {
	m.rvEvent(rv.IRQDisable, c, t, false)
	m.tr.tick = true
	m.rvEvent(rv.IRQEntry, c, t, false)
	m.rvEvent(rv.NeedResched, c, t, false) // scheduler_tick
	m.tr.tick = false
	m.rvEvent(rv.PreemptDisable, c, t, false)
	m.rvEvent(rv.IRQEnable, c, t, false)
	m.rvEvent(rv.ScheduleEntry, c, t, true)
	m.switchOut(c, t)
	m.tr.resume[t] = resumeTick
}

// hashTracer feeds the tracer kernel's state to h: the global part and,
// with perTask, each worker's digest in task order (Hash with task
// symmetry puts each in its task's digest instead: hashTracerTask).
func (m *Machine) hashTracer(h *hasher, perTask bool) {
	tr := &m.tr
	h.u64(uint64(tr.irqs) | uint64(tr.resched)<<8)
	for t := 0; perTask && t < m.cfg.Tasks; t++ {
		m.hashTracerTask(h, int8(t))
	}
	for i := 0; i < NumCtx; i++ {
		h.u64(uint64(tr.lost[i]) | uint64(tr.recursed[i])<<8)
	}
}

// hashTracerTask feeds h the tracer kernel's state of worker t.
func (m *Machine) hashTracerTask(h *hasher, t int8) {
	d := m.tracerTaskDigest(int(t))
	h.u64(d[0])
	h.u64(d[1])
}

// tracerTaskDigest is worker t's part of the tracer kernel's state: its
// open callback frames and those that recorded, its missed-preemption
// window and its interrupts-off stretch. (Its thread_info is in its
// stack, hashed with it.)
func (m *Machine) tracerTaskDigest(t int) [2]uint64 {
	tr := &m.tr
	return [2]uint64{uint64(tr.cbOpen[t]) | uint64(tr.cbRec[t])<<32, uint64(tr.missAt[t]) | uint64(tr.offRun[t])<<8}
}

// LostEvents returns this run's lost events and counted recursions per
// context (tracer kernel).
func (m *Machine) LostEvents() (lost, recursed [NumCtx]int) {
	for i := 0; i < NumCtx; i++ {
		lost[i], recursed[i] = int(m.tr.lost[i]), int(m.tr.recursed[i])
	}
	return
}

// IRQs returns the interrupts and remote wakeups taken so far.
func (m *Machine) IRQs() int { return int(m.tr.irqs) }

// tiAccess reports whether the instruction at pc is a single load or
// store, the kind tiLocal may find local (the tracer kernel is ARM).
func (m *Machine) tiAccess(pc uint64) bool {
	tc, ok := m.core.(tracerCore)
	return ok && tc.oneAccess(m, pc)
}

// tiLocal reports whether worker t's next instruction, a single load or
// store at pc through a base other than sp, is local in this state (the
// soundness argument is in the package doc of explore, "The tracer
// kernel's thread_info accesses"). It must reach one word of t's own
// thread_info, and:
//   - no interrupt may be taken on t's CPU now (its interrupts are
//     masked, or the interrupt bound is spent and no reschedule IPI is
//     pending there), and no NMI (nmiOK);
//   - for flags and preempt_count stores, no remote wakeup may come
//     either (the bound is spent), and for flags and cpu, t must not be
//     preemptible now (a preemption clears need_resched and may move t);
//   - a store must leave whether t may take an interrupt or an NMI and
//     whether it may be preempted as they were.
func (m *Machine) tiLocal(t int8, pc uint64) bool {
	tc, ok := m.core.(tracerCore)
	if !ok {
		return false
	}
	a, n, v, store, ok := tc.access(m, t, pc)
	if !ok {
		return false
	}
	lo, _ := m.stackRange(t)
	if a < lo || n > 4 || a+uint64(n) > lo+kernel.TISize || a&^3 != (a+uint64(n)-1)&^3 {
		return false
	}
	w := (a - lo) &^ 3
	c := m.tasks[t].CPU
	spent := int(m.tr.irqs) >= m.cfg.IRQBound
	count, mask := m.tiGet(t, kernel.TIPreemptCount), m.tiGet(t, kernel.TIIRQsOff)
	irqOK := func(mask uint32) bool { return mask == 0 && (!spent || m.tr.resched&(1<<c) != 0) || m.nmiOK(count) }
	preemptOK := func(count, mask uint32) bool { return t < m.patcher && count == 0 && mask == 0 }
	if irqOK(mask) {
		return false
	}
	switch w {
	case kernel.TIFlags:
		if !spent || preemptOK(count, mask) {
			return false
		}
	case kernel.TICPU:
		if preemptOK(count, mask) {
			return false
		}
	case kernel.TIPreemptCount:
		if store && !spent {
			return false
		}
	}
	if !store {
		return true
	}
	old := m.tiGet(t, w)
	sh := 8 * uint32(a-lo-w)
	keep := uint32(0) // the bits of old the store leaves
	if n < 4 {
		keep = ^(uint32(1<<(8*n)-1) << sh)
	}
	nv := old&keep | v<<sh&^keep
	switch w {
	case kernel.TIPreemptCount:
		return preemptOK(nv, mask) == preemptOK(count, mask) && m.nmiOK(nv) == m.nmiOK(count)
	case kernel.TIIRQsOff:
		return irqOK(nv) == irqOK(mask) && preemptOK(count, nv) == preemptOK(count, mask)
	}
	return true
}

// tracerExited scrubs the stack of task t, which has left do_exit: no
// code runs on it again and none reads another task's stack.
func (m *Machine) tracerExited(t int8) {
	lo, hi := m.stackRange(t)
	m.scrubStack(lo+kernel.TISize, hi)
}

// scrubStack sets the stack words in [lo, hi) to 0, never written, as
// the model's canonical dead stack (the scrub is not a store of the run:
// it is not recorded).
func (m *Machine) scrubStack(lo, hi uint64) {
	for a := lo; a < hi; a += 4 {
		w := int((a - StackBase) / 4)
		t := w / m.cfg.StackWords
		m.scrubWord(t, w, m.stackLo(t))
	}
}
