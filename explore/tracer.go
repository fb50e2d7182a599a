package explore

import (
	"strings"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// The tracer kernel (issue 17): a Scenario with a Tracer runs the ARM
// text of kernel/tracer.go, whose tracer callback, preemption paths and
// interrupt handler are code, with interrupts and remote wakeups as
// explorer choices within Scenario.IRQBound (default 1). Everything here
// is off when Tracer is nil.

// NoIRQs is the Scenario.IRQBound that asks for no interrupts.
const NoIRQs = -1

// DefaultIRQBound is the interrupt bound of a scenario with a tracer.
const DefaultIRQBound = 1

// LostEvents counts lost events per context (the most in one run).
type LostEvents struct {
	Normal  int `json:"normal"`
	Softirq int `json:"softirq"`
	IRQ     int `json:"irq"`
	NMI     int `json:"nmi"`
}

func lostEvents(v [sched.NumCtx]int) *LostEvents {
	return &LostEvents{Normal: v[sched.CtxNormal], Softirq: v[sched.CtxSoftirq], IRQ: v[sched.CtxIRQ], NMI: v[sched.CtxNMI]}
}

// irqBound is the machine's interrupt bound of s.
func (s Scenario) irqBound() int {
	if s.Tracer == nil || s.IRQBound < 0 {
		return 0
	}
	return s.IRQBound
}

// tracerDefaults fills in a tracer scenario's defaults.
func (s *Scenario) tracerDefaults() {
	if s.Tracer == nil {
		return
	}
	if s.IRQBound == 0 {
		s.IRQBound = DefaultIRQBound
	}
	if s.StackWords == 0 {
		shift := s.Tracer.ThreadShift
		if shift == 0 {
			shift = kernel.DefaultThreadShift
		}
		s.StackWords = 1 << shift / 4
	}
}

// tracerString is what String adds for a tracer scenario.
func (s Scenario) tracerString() string {
	if s.Tracer == nil {
		return ""
	}
	traced := "none"
	if len(s.Tracer.Traced) > 0 {
		traced = strings.Join(s.Tracer.Traced, ",")
	}
	out := ", tracer " + s.Tracer.Name + " (traced: " + traced + "), irq bound " + itoa(s.irqBound())
	if s.Lossless {
		out += ", lossless"
	}
	if s.NMI {
		out += ", nmi"
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// tracerSpace fills in a tracer scenario's part of the space.
func tracerSpace(sp *Space, sc Scenario) {
	if sc.Tracer == nil {
		return
	}
	sp.Tracer = sc.Tracer.Name
	sp.Traced = append([]string{}, sc.Tracer.Traced...)
	b := sc.irqBound()
	sp.IRQBound = &b
	sp.NMI = sc.NMI
}

// tracerResult fills in the lost events and the longest interrupts-off
// stretch of a tracer scenario's result: over every run the search
// explored (check), or of the one run (replay, m set).
func tracerResult(res *Result, sc Scenario, stats *sched.TracerStats, run *Run) {
	if sc.Tracer == nil {
		return
	}
	var lost, rec [sched.NumCtx]int
	var off int
	if stats != nil {
		lost, rec, off = stats.Snapshot()
	}
	if run != nil {
		lost, rec = run.LostEvents, run.Recursed
	}
	res.LostEvents, res.RecursedEvents = lostEvents(lost), lostEvents(rec)
	res.IRQsOffMaxSteps = &off
}
