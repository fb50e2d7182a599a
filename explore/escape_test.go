package explore

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
)

// Issue 20, point 3: a disabled form that leaves the traced function other
// than by returning is a hazard (escape), explained with where control
// went: a branch to do_exit (the task exits with f0's frame never popped),
// a branch back before the site (outside f0, into the workload's loop).
// The same strategy with its real jump over the bl is SAFE.
func TestEscapeIsAHazard(t *testing.T) {
	jmp, err := os.ReadFile("../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	for _, c := range []struct {
		form, where, detail string
		step                int
	}{
		{"b do_exit", "do_exit", "task 0 reached do_exit with 1 call(s) that never returned (its call to f0 is to return to 0x8010 <worker+0x10>)", 8},
		{"b .-8", "f0+0x4", "branch from f0+0x4 to 0x801c <worker+0x1c>, outside f0 and not the start of a function: control escaped f0 without returning (its call to f0 is to return to 0x8010 <worker+0x10>)", 7},
		{"b .+-8", "f0+0x4", "branch from f0+0x4 to 0x801c <worker+0x1c>", 7},
	} {
		t.Run(c.form, func(t *testing.T) {
			text := strings.Replace(string(jmp), "form     jump     0: b .+8", "form     jump     0: "+c.form, 1)
			require.NotEqual(t, string(jmp), text)
			sc := Scenario{Strategy: parseStrategy(t, text)}
			res, err := Check(sc, Options{})
			require.NoError(t, err)
			require.Equal(t, Unsafe, res.Verdict)
			require.NotNil(t, res.Hazard)
			assert.Equal(t, detect.Escape, res.Hazard.Kind)
			assert.Equal(t, c.where, res.Hazard.Where)
			assert.Equal(t, c.step, res.Hazard.Step)
			assert.Contains(t, res.Hazard.Detail, c.detail)
			again, err := Replay(sc, res.Schedule, Options{})
			require.NoError(t, err)
			assert.Equal(t, detect.Escape, again.Hazard.Kind)
		})
	}
	res, err := Check(Scenario{Strategy: parseStrategy(t, string(jmp))}, Options{})
	require.NoError(t, err)
	assert.Equal(t, Safe, res.Verdict)
}
