package main

import (
	"flag"
	"fmt"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// The tracer kernel's flags of check and replay (issue 17).
func tracerFlagSet(fs *flag.FlagSet, f *checkFlags) {
	fs.StringVar(&f.tracer, "tracer", "", "run the tracer kernel with this built-in tracer callback: naive, no-resched, resched-read, irqsave, preempt-only or recursion-bits (arm; the callback runs when a site is enabled)")
	fs.StringVar(&f.traced, "traced", "", "with --tracer: the kernel functions compiled with an mcount site, comma-separated, of preempt_schedule, schedule, preempt_disable, preempt_enable (default: none)")
	fs.IntVar(&f.irqBound, "irq-bound", explore.DefaultIRQBound, "with --tracer: most interrupts and remote wakeups per run (0: none)")
	fs.BoolVar(&f.lossless, "lossless", false, "with --tracer: a traced call that records no event is a hazard (lost-event)")
	fs.BoolVar(&f.nmi, "nmi", false, "with --tracer: non-maskable interrupts may arrive too, even with interrupts masked, within --irq-bound (the model has no softirq context)")
}

// tracerFlags applies the tracer flags to sc.
func tracerFlags(f checkFlags, set map[string]bool, object bool, sc *explore.Scenario) error {
	if f.tracer == "" && f.fileTracer != nil {
		// The scenario file's tracer section; --traced overrides its
		// traced line.
		tr := *f.fileTracer
		tr.Steps = append([]string(nil), tr.Steps...)
		if set["traced"] {
			traced, err := patch.ParseTraced(f.traced)
			if err != nil {
				return err
			}
			tr.Traced = traced
		}
		return applyTracer(f, object, sc, &tr)
	}
	if f.tracer == "" {
		for _, n := range []string{"traced", "irq-bound", "lossless", "nmi"} {
			if set[n] {
				return fmt.Errorf("--%s applies with --tracer only", n)
			}
		}
		return nil
	}
	traced, err := patch.ParseTraced(f.traced)
	if err != nil {
		return err
	}
	tr, err := patch.LookupTracer(f.tracer, traced)
	if err != nil {
		return fmt.Errorf("--tracer: %v", err)
	}
	return applyTracer(f, object, sc, tr)
}

// applyTracer puts tracer tr and the tracer flags into sc.
func applyTracer(f checkFlags, object bool, sc *explore.Scenario, tr *kernel.Tracer) error {
	if sc.Arch != kernel.ARM {
		return fmt.Errorf("--tracer: the tracer kernel is laid out for --arch arm only, not %v", sc.Arch)
	}
	if object {
		return fmt.Errorf("--tracer runs the built-in text, not --object")
	}
	if f.irqBound < 0 {
		return fmt.Errorf("--irq-bound must not be negative, got %d", f.irqBound)
	}
	sc.Tracer, sc.Lossless, sc.NMI = tr, f.lossless, f.nmi
	sc.IRQBound = f.irqBound
	if f.irqBound == 0 {
		sc.IRQBound = explore.NoIRQs
	}
	return nil
}
