// Package report renders the results of package explore for people (text
// traces laid out one column per task, like the crash diagrams of the LKML
// threads mcountsim grew from) and for machines (JSON).
//
// Imports: explore, sched, detect and the standard library.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/sched"
)

// Text writes res as a human-readable report: the verdict and the space it
// covers, then for a hazard its description, the explanation of the site
// passes, the trace and the schedule. Without the scenario it cannot print
// the command that replays the schedule; TextFor can.
func Text(w io.Writer, res *explore.Result) error {
	return writeText(w, nil, explore.Options{}, res)
}

// TextFor is Text for res checked or replayed under sc and opts: the
// verdict line also names the traced functions and strict mode, and a
// counterexample ends with the command that replays it (ReplayCommand) and,
// when that command needs a step first, ReplayNote.
func TextFor(w io.Writer, sc explore.Scenario, opts explore.Options, res *explore.Result) error {
	return writeText(w, &sc, opts, res)
}

func writeText(w io.Writer, sc *explore.Scenario, opts explore.Options, res *explore.Result) error {
	p := &printer{w: w}
	p.f("scenario: %s\n", res.Space.Scenario)
	if res.Mode == "replay" {
		p.f("replay:   schedule %q: %s\n", res.Schedule, ReplayVerdict(res))
	} else {
		p.f("verdict:  %s: %s%s\n", res.Verdict, res.Space.Description, qualifiers(sc, res))
		p.f("searched: %s\n", Searched(res))
	}
	if l, r := res.LostEvents, res.RecursedEvents; l != nil && r != nil && res.IRQsOffMaxSteps != nil {
		p.f("tracer:   lost events: normal %d, softirq %d, irq %d, nmi %d; recursions dropped and counted: normal %d, softirq %d, irq %d, nmi %d; longest interrupts-off stretch %d steps\n",
			l.Normal, l.Softirq, l.IRQ, l.NMI, r.Normal, r.Softirq, r.IRQ, r.NMI, *res.IRQsOffMaxSteps)
	}
	if res.Reason != "" {
		p.f("stopped:  %s\n", res.Reason)
	}
	if res.Replay != nil {
		writeRun(p, sc, res)
	} else {
		writeReturns(p, sc, res)
	}
	if res.Verdict == explore.Unsafe || res.Mode == "replay" && res.Hazard != nil {
		if sc == nil {
			p.f("\nschedule: %q  (replay: mcountsim replay --schedule %q plus the same flags)\n", res.Schedule, res.Schedule)
		} else {
			p.f("\nschedule: %q\nreplay:   %s\n", res.Schedule, ReplayCommand(*sc, opts, res.Schedule))
			if note := ReplayNote(*sc, res.Schedule); note != "" {
				p.f("          (%s)\n", note)
			}
		}
	}
	return p.err
}

// ReplayVerdict is what one replayed run shows: it reaches a hazard
// (UNSAFE, a counterexample), or it does not, which says nothing about
// other schedules and is never SAFE.
func ReplayVerdict(res *explore.Result) string {
	if res.Hazard != nil {
		return "UNSAFE: the schedule reaches a hazard"
	}
	return "no hazard in this run (a replay says nothing about other schedules)"
}

// qualifiers names what the space's description leaves out: the traced
// functions (or the object's function) and strict mode.
func qualifiers(sc *explore.Scenario, res *explore.Result) string {
	what := fmt.Sprintf("%d functions", res.Space.Functions)
	if sc == nil {
		return "; " + what
	}
	if sc.Object != "" {
		what = "object " + sc.Object
		if sc.Function != "" {
			what = "function " + sc.Function + " of the object"
		}
	}
	if sc.Strict {
		return "; " + what + ", strict (mixed-site passes are hazards)"
	}
	return "; " + what + ", not strict"
}

// Searched says what the search counted: branching states and steps over
// the bounds it finished (a SAFE modular check's: over its bound alone),
// and the distinct end states (runs that reach the same end state count
// once) of the largest; for a hazard, that the
// bound in which it was met is not counted (where the search stopped
// depends on timing).
func Searched(res *explore.Result) string {
	sp := res.Space
	red := "; reduction: " + sp.Reduction
	if sp.Search != "" && sp.Search != explore.Exhaustive.String() {
		return fmt.Sprintf("%d %s runs, %d steps", res.Runs, sp.Search, res.Transitions)
	}
	bounds := func(n int) string {
		if n == 1 {
			return "bound 0"
		}
		return fmt.Sprintf("bounds 0..%d", n-1)
	}
	counts := fmt.Sprintf("%d branching states, %d steps, %d distinct end states", res.States, res.Transitions, res.Runs)
	switch {
	case res.Verdict == explore.Unsafe && sp.Found != "":
		return sp.Found + red
	case res.Verdict == explore.Unsafe && sp.BoundsDone == 0:
		return fmt.Sprintf("the hazard was met in bound 0, the first searched (a bound cut short by a hazard is not counted)%s", red)
	case res.Verdict == explore.Unsafe:
		return fmt.Sprintf("%s, finished without a hazard: %s; bound %d stopped at the hazard (not counted)%s",
			bounds(sp.BoundsDone), counts, sp.BoundsDone, red)
	case res.Verdict == explore.Safe && sp.Modular && sp.BoundsDone > 1:
		// The modular machines' searches start at the bound
		// (explore's package doc): their counts are the bound's own.
		return fmt.Sprintf("bound %d, which holds every run of the bounds below (the modular searches start there): %s%s", sp.BoundsDone-1, counts, red)
	case sp.BoundsDone == 0:
		return fmt.Sprintf("%d branching states, %d steps; no bound finished%s", res.States, res.Transitions, red)
	case res.Verdict == explore.Incomplete:
		return fmt.Sprintf("%d branching states, %d steps; %s finished, with %d distinct end states%s",
			res.States, res.Transitions, bounds(sp.BoundsDone), res.Runs, red)
	}
	return fmt.Sprintf("%s: %s%s", bounds(sp.BoundsDone), counts, red)
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func taskName(run *explore.Run, t int) string {
	switch {
	case t < 0:
		return "stopper"
	case t == run.Tasks:
		return "patcher"
	}
	return fmt.Sprintf("worker%d", t)
}

func writeRun(p *printer, sc *explore.Scenario, res *explore.Result) {
	run := res.Replay
	if len(run.Hazards) > 0 {
		h := run.Hazards[0]
		p.f("\nhazard:   %s at step %d on cpu%d, %s, pc %#x%s\n          %s\n", h.Kind, h.Step, h.CPU, taskName(run, h.Task), h.PC, where(h.PC, h.Where), h.Detail)
		for _, h := range run.Hazards[1:] {
			p.f("then:     %s at step %d on cpu%d, %s, pc %#x%s\n          %s\n", h.Kind, h.Step, h.CPU, taskName(run, h.Task), h.PC, where(h.PC, h.Where), h.Detail)
		}
	} else {
		p.f("\nno hazard in this run (%d steps)\n", run.Steps)
	}
	if len(run.Explanation) > 0 {
		p.f("\nexplanation: the site passes of %s before the hazard\n", taskName(run, run.Explanation[0].Task))
		for _, sp := range run.Explanation {
			state := "a state the site held"
			if sp.Mixed {
				state = "a combination the site never held"
			}
			p.f("  site in %s at %#x (%s):\n", sp.Function, sp.Site, state)
			for i, in := range sp.Insns {
				p.f("    step %4d cpu%d  +%d  %-12s %-32s <- %s\n", in.Step, in.CPU, in.Off, in.Bytes, in.Disasm, in.Writer)
				if i == 0 && len(sp.During) > 0 {
					for _, d := range sp.During {
						p.f("    step %4d         (%s)\n", d.Step, d.Text)
					}
				}
			}
		}
		if run.Drawn() {
			p.f("  writes to those sites during the run:\n")
			for _, wr := range run.Writes {
				for _, sp := range run.Explanation {
					if wr.Store.Site >= 0 && run.Image.Sites[wr.Store.Site].Addr == sp.Site {
						where := "at boot"
						if wr.Transition > 0 {
							where = fmt.Sprintf("at step %d on cpu%d (%s)", wr.Step, wr.CPU, wr.Label)
						}
						p.f("    write #%d %s: %s <- %s\n", wr.ID, where, run.Image.Name(wr.Store.Addr), describe(run, wr.Store))
					}
				}
			}
		}
	}
	writeReturns(p, sc, res)
	p.f("\ntrace (%d steps, %d preemptions):\n", run.Steps, run.Preemptions)
	if t := OmittedText(run); t != "" {
		p.f("(%s)\n", t)
	}
	writeTrace(p, run)
}

// where renders a symbolic location after an address, if it adds anything.
func where(pc uint64, w string) string {
	if w == "" || w == fmt.Sprintf("%#x", pc) {
		return ""
	}
	return " <" + w + ">"
}

const colWidth = 44

func writeTrace(p *printer, run *explore.Run) {
	cols := run.Tasks + 1
	head := fmt.Sprintf("%5s %-4s", "step", "cpu")
	for t := 0; t < cols; t++ {
		head += " | " + pad(taskName(run, t), colWidth)
	}
	p.f("%s\n%s\n", strings.TrimRight(head, " "), strings.Repeat("-", len(strings.TrimRight(head, " "))))
	gap := run.Omitted > 0
	for _, e := range run.Trace {
		if gap && e.Step > run.OmittedFrom {
			p.f("%5s ... %d events of steps %d to %d omitted (bounded trace) ...\n", "", run.Omitted, run.OmittedFrom, run.OmittedTo)
			gap = false
		}
		col, text := column(run, e)
		row := fmt.Sprintf("%5d cpu%-1d", e.Step, max(e.CPU, 0))
		if e.CPU < 0 {
			row = fmt.Sprintf("%5d %-4s", e.Step, "-")
		}
		for t := 0; t < cols; t++ {
			cell := ""
			if t == col {
				cell = text
			}
			if t == cols-1 {
				row += " | " + cell // the last column is never cut
			} else {
				row += " | " + pad(cell, colWidth)
			}
		}
		p.f("%s\n", strings.TrimRight(row, " "))
		if e.Kind == sched.EvHazard {
			p.f("%s\n", strings.Repeat(" ", 11)+"!!! "+e.Text)
		}
	}
}

func column(run *explore.Run, e sched.Event) (int, string) {
	col := e.Task
	if col < 0 {
		col = run.Tasks // stopper events go to the patcher's column
	}
	switch e.Kind {
	case sched.EvExec:
		return col, fmt.Sprintf("%s: %s", shortWhere(e), e.Text)
	case sched.EvTrace:
		return col, "  " + e.Text
	case sched.EvYield:
		return col, "schedule() -- yields"
	case sched.EvSwitch:
		return col, "== switched in on cpu" + fmt.Sprint(e.CPU)
	case sched.EvPreempt:
		if e.ByStopper {
			return col, "~~ PREEMPTED (by its CPU's stopper) ~~"
		}
		return col, "~~ PREEMPTED (timer interrupt) ~~"
	case sched.EvExit:
		return col, "exits"
	case sched.EvStopperIn:
		return run.Tasks, fmt.Sprintf("[cpu%d enters its stopper]", e.CPU)
	case sched.EvStopperOut, sched.EvPatch, sched.EvStore, sched.EvWaitDone:
		return run.Tasks, e.Text
	case sched.EvIPI:
		return col, fmt.Sprintf("[cpu%d takes the sync_core IPI]", e.CPU)
	case sched.EvIRQ:
		switch e.Vector {
		case "wake":
			return col, "~~ remote wakeup: need_resched + IPI ~~"
		case "return":
			return col, "~~ return from the interrupt ~~"
		}
		return col, fmt.Sprintf("~~ IRQ %s: enters %s ~~", e.Vector, irqEntry(e.Vector))
	case sched.EvState:
		if e.State == nil {
			return col, "  ti: " + e.Text
		}
		return col, "  ti: " + e.State.Named("count")
	case sched.EvLost:
		return col, "LOST " + e.Context + "-context event"
	case sched.EvHazard:
		if col == run.Tasks+1 || col < 0 {
			col = run.Tasks
		}
		return col, "HAZARD " + e.Hazard
	}
	return col, e.Text
}

func irqEntry(vector string) string {
	if vector == "nmi" {
		return "__nmi_svc"
	}
	return "__irq_svc"
}

func shortWhere(e sched.Event) string {
	if e.Where != "" {
		return e.Where
	}
	return fmt.Sprintf("%#x", e.PC)
}

func pad(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s + strings.Repeat(" ", n-len(s))
}

// OmittedText says what the bounded trace of a long run leaves out, or "".
func OmittedText(run *explore.Run) string {
	if run == nil || run.Omitted == 0 && run.CutAt == 0 {
		return ""
	}
	cut := ""
	if run.CutAt > 0 {
		cut = fmt.Sprintf("the representative run is shown up to step %d, where it was cut short", run.CutAt)
		if run.Omitted == 0 {
			return cut
		}
		cut += "; "
	}
	return cut + fmt.Sprintf("a long run: the trace shows its first %d events, its patch, store, preemption, wait, exit and hazard events, and its last %d events; "+
		"%d other events of steps %d to %d are omitted", sched.TraceHead, sched.TraceTail, run.Omitted, run.OmittedFrom, run.OmittedTo)
}

// writeReturns names the callees linked to stubs (Result.Stubs), then
// lists each traced call's return value beside the uninstrumented
// reference run's (Result.Returns: workloads of an object).
func writeReturns(p *printer, sc *explore.Scenario, res *explore.Result) {
	for i, s := range res.Stubs {
		lead := "          "
		if i == 0 {
			lead = "\nstubs:    "
		}
		p.f("%s`%s` is a stub returning 0 (an undefined callee: the values computed from it are not the real function's)\n", lead, s)
	}
	if len(res.Returns) == 0 {
		return
	}
	bits := 64
	if sc != nil && sc.WithDefaults().Arch.String() == "arm" {
		bits = 32 // r0
	}
	val := func(v *uint64) string {
		if v == nil {
			return "-"
		}
		s := int64(*v)
		if bits == 32 {
			s = int64(int32(uint32(*v)))
		}
		return fmt.Sprintf("%d (%#x)", s, *v)
	}
	p.f("\nreturns:  each traced call's return value, and the uninstrumented reference run's:\n          %s\n", res.ReturnsNote)
	for _, r := range res.Returns {
		mark := ""
		switch {
		case r.Value == nil:
			mark = "  (not reached in this run)"
		case r.Reference == nil:
			mark = "  (the reference made no such call)"
		case r.Unknown:
			mark = "  (not compared: the register holds what the instrumentation left, no value of the function's)"
		case *r.Value != *r.Reference:
			mark = "  DIFFERS"
		}
		p.f("  worker%d call %d: %s, returning to %s: %s; reference %s%s\n", r.Task, r.Call, r.Function, r.Caller, val(r.Value), val(r.Reference), mark)
	}
}

// describe renders the bytes of a store as the run's ISA disassembles them.
func describe(run *explore.Run, s sched.Store) string { return run.Describe(s.Addr, s.Bytes) }
