package main

import (
	"flag"
	"fmt"
	"math/bits"

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
	if f.stackWords != 0 {
		// The tracer kernel finds thread_info by masking sp with
		// ~(THREAD_SIZE - 1): its THREAD_SIZE is the stack, a power of two.
		words := f.stackWords
		shift := uint(bits.TrailingZeros(uint(words * 4)))
		if words&(words-1) != 0 || shift < 8 || shift > 14 {
			return fmt.Errorf("--stack-words with --tracer must be a power of two from 64 to 4096 (the tracer kernel's THREAD_SIZE, which it masks sp with to find thread_info), got %d", words)
		}
		cp := *tr
		cp.ThreadShift = shift
		tr = &cp
	}
	sc.Tracer, sc.Lossless, sc.NMI = tr, f.lossless, f.nmi
	sc.IRQBound = f.irqBound
	if f.irqBound == 0 {
		sc.IRQBound = explore.NoIRQs
	}
	return nil
}
