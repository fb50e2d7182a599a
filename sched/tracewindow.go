package sched

// The trace of a Record machine is bounded, so that a run of millions of
// steps (up to the step budget) is drawn and printed in bounded memory:
// the first TraceHead events are kept, then, past TraceHead+2·TraceTail,
// the events in the middle are dropped and only the last TraceTail or more
// stay, with the window around the end of the run (the hazard, and the
// AfterHazard steps a replay runs past it). The landmarks (patch steps,
// stores, preemptions, waits that end, exits, traps, hazards) are kept
// wherever they lie: there are few, and explanations need them.
const (
	TraceHead = 1000
	TraceTail = 6000
)

// TraceOmitted reports how many events the bounded trace dropped, and the steps of the first and the last of them (0, 0, 0 when
// the trace is whole).
func (m *Machine) TraceOmitted() (events, fromStep, toStep int) {
	return m.traceOmit, m.traceOmitFrom, m.traceOmitTo
}

// landmark is the events a bounded trace keeps wherever they lie.
var landmark = [...]bool{EvPatch: true, EvStore: true, EvPreempt: true, EvWaitDone: true, EvStopperOut: true,
	EvExit: true, EvInt3: true, EvHazard: true, EvBudget: true, EvIRQ: true, EvState: false, EvLost: true}

// record appends e to the trace, dropping instructions in the middle of a
// long one.
func (m *Machine) record(e Event) {
	m.trace = append(m.trace, e)
	if len(m.trace) < TraceHead+2*TraceTail {
		return
	}
	mid := m.trace[TraceHead : len(m.trace)-TraceTail]
	kept := mid[:0]
	for _, ev := range mid {
		if !landmark[ev.Kind] {
			if m.traceOmit == 0 {
				m.traceOmitFrom = ev.Step
			}
			m.traceOmit++
			m.traceOmitTo = ev.Step
			continue
		}
		kept = append(kept, ev)
	}
	n := TraceHead + len(kept)
	n += copy(m.trace[n:], m.trace[len(m.trace)-TraceTail:])
	clear(m.trace[n:])
	m.trace = m.trace[:n]
}
