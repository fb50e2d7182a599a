package patch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/kernel"
)

// Tracer callbacks as data (issue 17): each built-in is the body of
// trace_function(ip, parent_ip) as kernel.TracerSteps, assembled by the
// tracer kernel (kernel/tracer.go). Which kernel functions the callback
// may re-enter is the scenario's (--traced), not the tracer's.

// TracerBuiltin is a built-in tracer callback with where it comes from.
type TracerBuiltin struct {
	Name  string
	Steps []string
	Doc   string
}

// TracerBuiltins are the built-in tracer callbacks.
var TracerBuiltins = []TracerBuiltin{
	{"naive", []string{"preempt_disable", "record", "preempt_enable"},
		"plain preempt_disable/preempt_enable around the record: recurses when preempt_schedule is traced"},
	{"no-resched", []string{"preempt_disable", "record", "preempt_enable_no_resched"},
		"preempt_enable_no_resched: never recurses, misses the preemption an interrupt asked for"},
	{"resched-read", []string{"resched_read", "preempt_disable_notrace", "record", "resched_enable"},
		"the 2008 ftrace_preempt_disable/ftrace_preempt_enable pair (removed by 5168ae50a66e)"},
	{"irqsave", []string{"irq_save", "disabled_inc", "record_if_first", "disabled_dec", "irq_restore"},
		"the 2008 default function_trace_call: local_irq_save and the per-CPU data->disabled counter"},
	{"preempt-only", []string{"resched_read", "preempt_disable_notrace", "disabled_inc", "record_if_first", "disabled_dec", "resched_enable"},
		"function_trace_call_preempt_only (trace option ftrace_preempt): interrupts on, their events dropped while disabled is taken"},
	{"recursion-bits", []string{"recursion_lock", "record_if_locked", "recursion_unlock"},
		"the modern ftrace_test_recursion_trylock/unlock: a bit per context and the transition bit"},
}

// LookupTracer returns the built-in tracer called name with the kernel
// functions it may re-enter (any of kernel.Traceable).
func LookupTracer(name string, traced []string) (*kernel.Tracer, error) {
	for _, b := range TracerBuiltins {
		if b.Name == name {
			t := &kernel.Tracer{Name: b.Name, Steps: append([]string(nil), b.Steps...), Traced: traced}
			if err := kernel.ValidateTracer(t); err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	var names []string
	for _, b := range TracerBuiltins {
		names = append(names, b.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown tracer %q (built-ins: %s)", name, strings.Join(names, ", "))
}

// ParseTraced parses a --traced list ("preempt_schedule,schedule"; "" or
// "none" for none).
func ParseTraced(s string) ([]string, error) {
	if s == "" || s == "none" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, n := range kernel.Traceable {
			ok = ok || n == f
		}
		if !ok {
			return nil, fmt.Errorf("--traced: cannot trace %q (want a comma-separated list of %s, or none)", f, strings.Join(kernel.Traceable, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}
