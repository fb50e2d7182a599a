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
