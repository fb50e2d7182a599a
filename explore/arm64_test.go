package explore

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// Issue 16, acceptance 1: Linux's arm64 strategies (the patchable entry
// with one NOP <-> BL store, CALL_OPS, and the -pg era's bl _mcount <-> NOP)
// are SAFE, exhaustively, with no stop_machine: at the default bound with
// 2 CPUs and 2 tasks, and at bound 2 with 3 CPUs and 3 tasks.
func TestARM64LinuxSafe(t *testing.T) {
	for _, c := range []struct {
		name        string
		cpus, tasks int
	}{
		{"arm64-nop-bl", 2, 2},
		{"arm64-call-ops", 2, 2},
		{"arm64-mcount", 2, 2},
		{"arm64-nop-bl", 3, 3},
		{"arm64-call-ops", 3, 3},
		{"arm64-mcount", 3, 3},
	} {
		t.Run(fmt.Sprintf("%s/cpus=%d,tasks=%d", c.name, c.cpus, c.tasks), func(t *testing.T) {
			switch {
			case c.cpus == 3 && c.name == "arm64-call-ops":
				// 5.5M states with the task symmetry: two minutes of
				// one core.
				slow(t, "3 CPUs and 3 tasks")
			case c.cpus == 3 && (raceEnabled || testing.Short()):
				// nop-bl 1.5M states (40 s of one core), mcount 850k (12 s)
				t.Skip("3 CPUs and 3 tasks take seconds; run without -race and -short")
			}
			res, err := Check(Scenario{Strategy: lookup(t, kernel.ARM64, c.name), CPUs: c.cpus, Tasks: c.tasks}, Options{})
			require.NoError(t, err)
			require.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
			assert.True(t, res.Space.Exhaustive)
			assert.Equal(t, DefaultBound+1, res.Space.BoundsDone, "bounds 0..%d exhausted", DefaultBound)
			assert.Equal(t, c.cpus, res.Space.CPUs)
			assert.Equal(t, c.tasks, res.Space.Tasks)
			assert.Greater(t, res.Runs, 0)
			t.Logf("%s: %d states, %d runs, %v", c.name, res.States, res.Runs, res.Elapsed.Round(time.Millisecond))
		})
	}
}

// Issue 16, acceptance 1: the foils that change both entry words. A task
// runs word 0 while it is still the NOP, the patcher writes mov x9, x30
// behind it and BL into word 1, and the task runs the new BL with x9 never
// set: ftrace_caller saves that x9 (0) as the callsite's LR and reloads x30
// from it before "ret x9", so f0 saves and restores the 0 and returns to
// it. With plain stores two CPUs do it without a preemption; under
// stop_machine the task must be preempted between the two words.
func TestARM64BothWordsFoilsUnsafe(t *testing.T) {
	for _, c := range []struct {
		name        string
		preemptions int
		writer      string // the text of the write that put mov x9, x30 behind the task
	}{
		{"arm64-both-sm", 1, "enable #1: stopper writes aa1e03e9 (mov x9, x30) at f0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := Scenario{Strategy: lookup(t, kernel.ARM64, c.name)}
			res, err := Check(sc, Options{})
			require.NoError(t, err)
			require.Equal(t, Unsafe, res.Verdict)
			assert.Equal(t, c.preemptions, res.Preemptions)

			bad := hazardOf(res.Hazards, detect.BadReturn)
			require.NotNil(t, bad, "%v", res.Hazards)
			assert.Equal(t, "f0+0x1c", bad.Where) // f0's ret
			assert.Equal(t, "return to 0x0 <outside text>; its call to f0 expected 0x400018 <worker+0x18>", bad.Detail)

			run := res.Replay
			require.NotNil(t, run)
			require.Len(t, run.Explanation, 1)
			pass := run.Explanation[0]
			assert.Equal(t, "f0", pass.Function)
			assert.True(t, pass.Mixed, "nop then bl: a combination the site never held")
			require.Len(t, pass.Insns, 2)
			assert.Equal(t, 0, pass.Insns[0].Off)
			assert.Equal(t, "nop", pass.Insns[0].Disasm)
			assert.Equal(t, 0, pass.Insns[0].Writer.Transition, "word 0 ran as booted: x9 was never set")
			assert.Equal(t, 4, pass.Insns[1].Off)
			assert.Equal(t, "bl 0x400050 <ftrace_caller>", pass.Insns[1].Disasm)
			assert.Equal(t, 1, pass.Insns[1].Writer.Transition)
			var texts []string
			for _, e := range pass.During {
				texts = append(texts, e.Text)
			}
			assert.Contains(t, texts, c.writer, "the explanation names the mov x9, x30 the task missed")

			// ftrace_caller ran with that x9: the tracer saw parent ip 0.
			var traced []string
			for _, e := range run.Trace {
				if e.Kind == sched.EvTrace && e.Task == pass.Task {
					traced = append(traced, e.Text)
				}
			}
			assert.Contains(t, traced, "tracer: f0+0x4 called from 0x0") // ip: the BL (rec->ip)

			// The schedule replays to the same hazards.
			again, err := Replay(sc, res.Schedule, Options{})
			require.NoError(t, err)
			require.Equal(t, Unsafe, again.Verdict)
			require.Equal(t, *res.Hazard, *again.Hazard)
			require.Equal(t, res.Hazards, again.Hazards)
		})
	}
}

// The plain-store foil also rewrites word 0 (NOP <-> mov x9, x30, an ORR,
// outside the ARMv8 concurrent-modification set) while another CPU may
// execute it: a cmodx hazard once the machine models per-CPU fetch views.
// Its first hazard, with no preemption at all, is the cmodx (the stale x9
// that the stop_machine foil shows follows only where the fetch is defined).
func TestARM64BothPlainCMODX(t *testing.T) {
	sc := Scenario{Strategy: lookup(t, kernel.ARM64, "arm64-both-plain")}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	assert.Equal(t, 0, res.Preemptions)
	assert.Equal(t, detect.CMODX, res.Hazard.Kind)
	again, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	require.Equal(t, *res.Hazard, *again.Hazard)
	var cmodx *detect.Hazard
	for i := range res.Hazards {
		if res.Hazards[i].Kind.String() == "cmodx" {
			cmodx = &res.Hazards[i]
		}
	}
	require.NotNil(t, cmodx, "%v", res.Hazards)
	assert.Equal(t, "f0", cmodx.Where)
	assert.Contains(t, cmodx.Detail, "mov x9, x30")
}

// The -pg and CALL_OPS layouts reach ftrace_caller through their own
// paths: with the sites enabled (one toggle, the patcher run first), the
// tracer sees (rec->ip, the caller's return address) on every call.
func TestARM64TracerArguments(t *testing.T) {
	for _, c := range []struct{ name, ip string }{
		{"arm64-nop-bl", "f0+0x4"},
		{"arm64-call-ops", "f0+0x4"},
		{"arm64-mcount", "f0+0x18"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Scenario{Strategy: lookup(t, kernel.ARM64, c.name), CPUs: 1, Tasks: 1, Toggles: 1, Preempt: PreemptNone}.Machine(true)
			require.NoError(t, err)
			patcher := int8(m.Patcher())
			var buf []sched.Action
			for !m.Done() {
				buf = m.Options(buf)
				require.NotEmpty(t, buf)
				pick := 0
				for i, a := range buf {
					if (a.Kind == sched.ActPick && a.Task == patcher) || (a.Kind == sched.ActRun && m.CPU(int(a.CPU)).Cur == patcher) {
						pick = i
					}
				}
				m.Apply(buf[pick])
			}
			require.Empty(t, m.Hazards())
			var traced []string
			for _, e := range m.Trace() {
				if e.Kind == sched.EvTrace {
					traced = append(traced, e.Text)
				}
			}
			want := "tracer: " + c.ip + " called from worker+0x18"
			assert.Equal(t, []string{want, want}, traced, "both iterations traced")
		})
	}
}

func hazardOf(hs []detect.Hazard, k detect.Kind) *detect.Hazard {
	for i := range hs {
		if hs[i].Kind == k {
			return &hs[i]
		}
	}
	return nil
}
