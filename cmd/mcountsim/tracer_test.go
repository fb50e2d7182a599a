package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckTracer(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"check", "--tracer", "naive", "--traced", "preempt_schedule", "--strategy", "add-sp", "--json"}, &out, &errb)
	require.Equal(t, 1, code, errb.String())
	var res struct {
		Verdict string `json:"verdict"`
		Space   struct {
			Tracer   string   `json:"tracer"`
			Traced   []string `json:"traced"`
			IRQBound int      `json:"irq_bound"`
		} `json:"space"`
		Hazard struct {
			Kind string `json:"kind"`
		} `json:"hazard"`
		LostEvents map[string]int `json:"lost_events"`
		IRQsOff    *int           `json:"irqs_off_max_steps"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, "UNSAFE", res.Verdict)
	assert.Equal(t, "sched-recursion", res.Hazard.Kind)
	assert.Equal(t, "naive", res.Space.Tracer)
	assert.Equal(t, []string{"preempt_schedule"}, res.Space.Traced)
	assert.Equal(t, 1, res.Space.IRQBound)
	assert.Equal(t, map[string]int{"normal": 0, "softirq": 0, "irq": 0, "nmi": 0}, res.LostEvents)
	assert.NotNil(t, res.IRQsOff)
}

func TestCheckTracerErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tracer", "bogus", "--strategy", "add-sp"}, `mcountsim check: --tracer: unknown tracer "bogus" (built-ins: irqsave, naive, no-resched, preempt-only, recursion-bits, resched-read)` + "\n"},
		{[]string{"--tracer", "naive", "--traced", "f0", "--strategy", "add-sp"}, `mcountsim check: --traced: cannot trace "f0" (want a comma-separated list of preempt_schedule, schedule, preempt_disable, preempt_enable, or none)` + "\n"},
		{[]string{"--lossless", "--strategy", "add-sp"}, "mcountsim check: --lossless applies with --tracer only\n"},
		{[]string{"--tracer", "naive", "--arch", "x86", "--strategy", "text-poke-bp"}, "mcountsim check: --tracer: the tracer kernel is laid out for --arch arm only, not x86\n"},
		{[]string{"--tracer", "naive", "--irq-bound", "-1", "--strategy", "add-sp"}, "mcountsim check: --irq-bound must not be negative, got -1\n"},
		{[]string{"--nmi", "--strategy", "add-sp"}, "mcountsim check: --nmi applies with --tracer only\n"},
		{[]string{"--tracer", "naive", "--arch", "arm64", "--strategy", "arm64-nop-bl"}, "mcountsim check: --tracer: the tracer kernel is laid out for --arch arm only, not arm64\n"},
		{[]string{"--tracer", "naive", "--arch", "riscv", "--strategy", "rv-atomic"}, "mcountsim check: --tracer: the tracer kernel is laid out for --arch arm only, not riscv64\n"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"check"}, tt.args...), &out, &errb)
		assert.Equal(t, 2, code, tt.args)
		assert.Equal(t, tt.want, errb.String(), tt.args)
	}
}

// --nmi: the 2008 irqsave callback loses the NMI's event.
func TestCheckTracerNMI(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"check", "--tracer", "irqsave", "--nmi", "--strategy", "add-sp", "--tasks", "1", "--iterations", "1", "--bound", "1", "--json"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var res struct {
		Verdict string `json:"verdict"`
		Space   struct {
			NMI bool `json:"nmi"`
		} `json:"space"`
		LostEvents map[string]int `json:"lost_events"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, "SAFE", res.Verdict)
	assert.True(t, res.Space.NMI)
	assert.Equal(t, map[string]int{"normal": 0, "softirq": 0, "irq": 0, "nmi": 1}, res.LostEvents)
}

// A scenario file's tracer section, and the command line over it.
func TestCheckTracerFile(t *testing.T) {
	type result struct {
		Verdict string `json:"verdict"`
		Space   struct {
			Tracer   string `json:"tracer"`
			IRQBound int    `json:"irq_bound"`
		} `json:"space"`
		Recursed map[string]int `json:"recursed_events"`
	}
	check := func(args ...string) (int, result, string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"check", "--strategy-file", "../../examples/tracers/nested-recursion.strategy", "--json"}, args...), &out, &errb)
		var res result
		if code < 2 {
			require.NoError(t, json.Unmarshal(out.Bytes(), &res), errb.String())
		}
		return code, res, errb.String()
	}
	code, res, errs := check()
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "nested", res.Space.Tracer)
	assert.Equal(t, 0, res.Space.IRQBound)
	assert.Equal(t, map[string]int{"normal": 1, "softirq": 0, "irq": 0, "nmi": 0}, res.Recursed)
	code, res, errs = check("--tracer", "naive", "--traced", "preempt_schedule", "--irq-bound", "1")
	require.Equal(t, 1, code, errs)
	assert.Equal(t, "naive", res.Space.Tracer)
}

// replay --json carries the tracer kernel's events with their structured
// fields: the 2010 interleaving's reschedule IPI at step 43.
func TestReplayTracerJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"replay", "--tracer", "resched-read", "--strategy", "add-sp", "--schedule", "1:2,21:4,43:3", "--json"}, &out, &errb)
	require.Equal(t, 1, code, errb.String())
	s := out.String()
	assert.Contains(t, s, `"kind": "irq",`)
	assert.Regexp(t, `"step": 43,\s*"kind": "irq",[^}]*"vector": "resched-ipi",\s*"thread_info": \{\s*"preempt_count": 1,\s*"need_resched": true,\s*"irqs_off": true`, s)
	assert.Regexp(t, `"step": 21,\s*"kind": "irq",[^}]*"vector": "wake"`, s)
	assert.Regexp(t, `"kind": "state",[^}]*"where": "preempt_disable_notrace\+0x14",\s*"thread_info": \{\s*"preempt_count": 1,`, s)
}
