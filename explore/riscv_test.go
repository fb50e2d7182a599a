package explore

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/kernel"
)

// Issue 15: the four eras of Linux's RISC-V ftrace at the defaults.
func TestRISCVEras(t *testing.T) {
	for _, c := range []struct {
		name       string
		preempt    Preempt
		cpus, task int
		verdict    Verdict
		kind       detect.Kind
	}{
		{"rv-mcount", PreemptFull, 2, 2, Unsafe, detect.BadCall},
		{"rv-pfe16", PreemptFull, 2, 2, Unsafe, detect.BadCall},
		{"rv-pfe8", PreemptFull, 2, 2, Unsafe, detect.BadCall},
		{"rv-pfe8", PreemptNone, 2, 2, Safe, 0},
		{"rv-atomic", PreemptFull, 2, 2, Safe, 0},
		{"rv-atomic", PreemptFull, 3, 3, Safe, 0},
		{"rv-pfe8-retarget", PreemptFull, 2, 2, Unsafe, detect.BadCall},
	} {
		t.Run(fmt.Sprintf("%s/%v/cpus=%d,tasks=%d", c.name, c.preempt, c.cpus, c.task), func(t *testing.T) {
			if c.cpus == 3 && (raceEnabled || testing.Short()) {
				t.Skip("3 CPUs and 3 tasks take minutes (100 s on a quiet machine); run without -race and -short")
			}
			sc := Scenario{Strategy: lookup(t, kernel.RISCV64, c.name), Preempt: c.preempt, CPUs: c.cpus, Tasks: c.task}
			start := time.Now()
			res, err := Check(sc, Options{})
			require.NoError(t, err)
			t.Logf("%v states=%d %v", res.Verdict, res.States, time.Since(start))
			require.Equal(t, c.verdict, res.Verdict, "%v", res.Hazard)
			if c.verdict == Safe {
				assert.True(t, res.Space.Exhaustive)
				return
			}
			require.NotNil(t, res.Hazard)
			t.Logf("%s: %v", res.Schedule, res.Hazard)
			assert.Equal(t, c.kind, res.Hazard.Kind)
			rep, err := Replay(sc, res.Schedule, Options{})
			require.NoError(t, err)
			require.NotEmpty(t, rep.Hazards)
			assert.Equal(t, *res.Hazard, rep.Hazards[0], "the counterexample replays to the same hazard")
		})
	}
}

// Issue 15, acceptance 2: the retarget of an enabled era-2 site reproduces
// 8547649981e6's mixed pair: the old auipc (written at boot for
// ftrace_caller) with the new jalr (written by the transition for
// ftrace_regs_caller) lands at a wild address.
func TestRISCVRetargetMixedPair(t *testing.T) {
	sc := Scenario{Strategy: lookup(t, kernel.RISCV64, "rv-pfe8-retarget")}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	assert.Equal(t, 1, res.Preemptions)
	h := res.Hazard
	assert.Equal(t, detect.BadCall, h.Kind)
	assert.Equal(t, "f0+0x4", h.Where)
	assert.Equal(t, "call from 0x200030 <f0+0x4> to 0x200150, in text that no symbol covers; "+
		"low 12 bits 292 from jalr t0,292(t0) at 0x200030 (124282e7, write#4(transition 1)); "+
		"upper bits: t0 = 0x20002c from auipc t0,0x0 at 0x20002c <f0> (00000297, write#1(boot)), written with jalr t0,36(t0), a call to 0x200050 <ftrace_caller>; "+
		"with the auipc now in text at 0x20002c (00001297, write#3(transition 1)) the jalr would call 0x201150 <ftrace_regs_caller>", h.Detail)
	rep, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	assert.Equal(t, *h, rep.Hazards[0])
}
