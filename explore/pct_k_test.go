package explore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Issue 14, point 8: PCT's k is a bound that holds. A sampled run longer
// than k voids the guarantee, and the bound says so.
func TestPCTHolds(t *testing.T) {
	b := pctBound(10, 3, 1, 3, 100)
	pctHolds(b, []int32{80, 100, 99})
	assert.Greater(t, b.Probability, 0.0)
	assert.Contains(t, b.Text, "(k bounds every run: the longest sampled run took 100 steps)")

	b = pctBound(10, 3, 1, 3, 100)
	pctHolds(b, []int32{80, 101})
	assert.Equal(t, 0.0, b.Probability)
	assert.Equal(t, 1.0, b.Miss)
	assert.Equal(t, "PCT: no guarantee: a sampled run took 101 steps, more than the k = 100 steps its change points were drawn from", b.Text)
}

// Every sampled run of a PCT search is at most k steps long.
func TestPCTKBoundsRuns(t *testing.T) {
	for _, name := range []string{"jmp-over", "two-step-rcu-tasks"} {
		res, err := Check(Scenario{Strategy: builtin(t, name)}, Options{Search: PCT, Runs: 200, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		assert.Greater(t, res.PCT.Probability, 0.0, name)
		assert.LessOrEqual(t, res.Transitions, res.Runs*res.PCT.K, name)
	}
}
