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
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"check"}, tt.args...), &out, &errb)
		assert.Equal(t, 2, code, tt.args)
		assert.Equal(t, tt.want, errb.String(), tt.args)
	}
}
