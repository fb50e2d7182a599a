package explore

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
)

// Issue 14, point 3: a disabled form that skips part of the traced
// function's own code is a wrong result. On ARM, b .+12 at the site's
// first word jumps over the bl and f0's own mov r4, r0, so f0 returns
// r4+1 (the worker never set r4: 1) where the uninstrumented workload
// returns its argument plus one (the iteration count, 2: 3). The real
// jump (b .+8) stays SAFE.
func TestWrongResultIsAHazard(t *testing.T) {
	jmp, err := os.ReadFile("../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	text := strings.Replace(string(jmp), "form     jump     0: b .+8", "form     jump     0: b .+12", 1)
	require.NotEqual(t, string(jmp), text)
	sc := Scenario{Strategy: parseStrategy(t, text)}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.NotNil(t, res.Hazard)
	h := *res.Hazard
	assert.Equal(t, detect.WrongResult, h.Kind)
	assert.Equal(t, "f0+0x14", h.Where, "the return of f0: pop {r4, pc}")
	assert.Equal(t, 0, h.Task)
	assert.Equal(t, "f0 (task 0's traced call 1 of 2, returning to 0x8010 <worker+0x10>) returned 0x1 (1); expected 0x3 (3), the uninstrumented reference run's value", h.Detail)
	again, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	require.NotNil(t, again.Hazard)
	assert.Equal(t, h, *again.Hazard, "the schedule replays the hazard")
}
