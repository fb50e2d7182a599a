package explore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

func x86builtin(t testing.TB, name string) *patch.Strategy {
	t.Helper()
	return lookup(t, kernel.X86, name)
}

// Issue 4, acceptance 1: plain byte-by-byte writes let a CPU fetch a call
// assembled from old and new bytes.
func TestX86PlainWriteTornFetch(t *testing.T) {
	for _, prologue := range []string{"fentry", "mcount"} {
		t.Run(prologue, func(t *testing.T) {
			res, err := Check(Scenario{Strategy: x86builtin(t, "plain-write"), Prologue: prologue}, Options{Bound: 2})
			require.NoError(t, err)
			require.Equal(t, Unsafe, res.Verdict)
			h := res.Hazard
			require.NotNil(t, h)
			assert.Equal(t, detect.TornFetch, h.Kind)
			assert.Equal(t, 0, res.Preemptions, "two CPUs need no preemption to tear a fetch")
			// The enable wrote e8 over the nop's first byte; the rest is the nop.
			assert.Contains(t, h.Detail, "fetched e8 1f 44 00 00 (callq ")
			assert.Contains(t, h.Detail, "e8:write#2(transition 1) 1f:write#1(boot) 44:write#1(boot) 00:write#1(boot) 00:write#1(boot)")
			assert.Equal(t, "f0", strings.SplitN(h.Where, "+", 2)[0])
		})
	}
}

// Issue 4, acceptance 2.
func TestX86SafeStrategies(t *testing.T) {
	for _, c := range []struct {
		name       string
		cpus, task int
		prologue   string
	}{
		{"stop-machine", 2, 2, "fentry"},
		{"text-poke-bp", 2, 2, "fentry"},
		{"stop-machine", 2, 2, "mcount"},
		{"text-poke-bp", 2, 2, "mcount"},
		{"text-poke-bp", 3, 3, "fentry"},
	} {
		t.Run(fmt.Sprintf("%s/%s/cpus=%d,tasks=%d", c.name, c.prologue, c.cpus, c.task), func(t *testing.T) {
			if c.cpus == 3 && (raceEnabled || testing.Short()) {
				t.Skip("3 CPUs and 3 tasks take seconds; run without -race and -short")
			}
			res, err := Check(Scenario{Strategy: x86builtin(t, c.name), CPUs: c.cpus, Tasks: c.task, Prologue: c.prologue}, Options{Bound: 2})
			require.NoError(t, err)
			require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
			assert.True(t, res.Space.Exhaustive)
			assert.Equal(t, 3, res.Space.BoundsDone)
		})
	}
}

// int3Schedule drives a machine so that the patcher publishes the int3 and
// then the worker runs into it mid-patch; it returns the schedule.
func int3Schedule(t *testing.T, sc Scenario) string {
	t.Helper()
	m, err := sc.Machine(true)
	require.NoError(t, err)
	site := m.Image().Sites[0].Addr - m.Image().Base
	worker, patcher := int8(0), int8(m.Patcher())
	runs := func(a sched.Action, task int8) bool {
		return (a.Kind == sched.ActPick && a.Task == task) || (a.Kind == sched.ActRun && m.CPU(int(a.CPU)).Cur == task)
	}
	var sched_ Schedule
	var buf []sched.Action
	trapped := false
	for !m.Done() && m.Steps() < 2000 {
		buf = m.OptionsWithin(buf, 2)
		require.NotEmpty(t, buf)
		want := patcher
		if m.Text()[site] == 0xcc || trapped {
			want = worker
		}
		choice := 0
		if !trapped {
			for i, a := range buf {
				if runs(a, want) {
					choice = i
					break
				}
			}
		}
		if choice != 0 {
			sched_ = append(sched_, Choice{Step: m.Steps() + 1, Option: choice})
		}
		m.Apply(buf[choice])
		for _, e := range m.Trace() {
			if e.Kind == sched.EvInt3 {
				trapped = true
			}
		}
	}
	require.True(t, trapped, "the worker never hit the int3")
	return sched_.String()
}

// Issue 4, acceptance 3: a CPU hits the int3 mid-patch, the handler
// emulates the new instruction, and the run stays hazard-free; without the
// emulation the same schedule is UNSAFE.
func TestX86Int3Emulation(t *testing.T) {
	sc := Scenario{Strategy: x86builtin(t, "text-poke-bp"), Tasks: 1, Iterations: 1, Toggles: 1}
	schedule := int3Schedule(t, sc)

	res, err := Replay(sc, schedule, Options{Bound: 2})
	require.NoError(t, err)
	assert.Empty(t, res.Hazards, "emulating the new call keeps the run clean")
	var int3 *sched.Event
	for i, e := range res.Replay.Trace {
		if e.Kind == sched.EvInt3 {
			int3 = &res.Replay.Trace[i]
		}
	}
	require.NotNil(t, int3)
	assert.Contains(t, int3.Text, "emulates the new callq")
	assert.Equal(t, "f0", int3.Where)
	// The emulated call reached the trampoline and the tracer.
	var traced bool
	for _, e := range res.Replay.Trace {
		traced = traced || (e.Kind == sched.EvTrace && e.Step > int3.Step)
	}
	assert.True(t, traced, "the emulated call runs ftrace_caller")

	sc.NoInt3Emulation = true
	bad, err := Replay(sc, schedule, Options{Bound: 2})
	require.NoError(t, err)
	require.Equal(t, Unsafe, bad.Verdict)
	assert.Equal(t, detect.Fault, bad.Hazard.Kind)
	assert.Equal(t, m0Site(t, sc)+1, bad.Hazard.PC, "resuming after the int3 executes the middle of the site")
}

func m0Site(t *testing.T, sc Scenario) uint64 {
	m, err := sc.Machine(false)
	require.NoError(t, err)
	return m.Image().Sites[0].Addr
}
