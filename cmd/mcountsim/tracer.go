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
}

// tracerFlags applies the tracer flags to sc.
func tracerFlags(f checkFlags, set map[string]bool, object bool, sc *explore.Scenario) error {
	if f.tracer == "" {
		for _, n := range []string{"traced", "irq-bound", "lossless"} {
			if set[n] {
				return fmt.Errorf("--%s applies with --tracer only", n)
			}
		}
		return nil
	}
	if sc.Arch != kernel.ARM {
		return fmt.Errorf("--tracer: the tracer kernel is laid out for --arch arm only, not %v", sc.Arch)
	}
	if object {
		return fmt.Errorf("--tracer runs the built-in text, not --object")
	}
	if f.irqBound < 0 {
		return fmt.Errorf("--irq-bound must not be negative, got %d", f.irqBound)
	}
	traced, err := patch.ParseTraced(f.traced)
	if err != nil {
		return err
	}
	tr, err := patch.LookupTracer(f.tracer, traced)
	if err != nil {
		return fmt.Errorf("--tracer: %v", err)
	}
	sc.Tracer, sc.Lossless = tr, f.lossless
	sc.IRQBound = f.irqBound
	if f.irqBound == 0 {
		sc.IRQBound = explore.NoIRQs
	}
	return nil
}
