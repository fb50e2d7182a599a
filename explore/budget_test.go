package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 20, point 5: a state budget gives the same verdict and coverage
// for every number of workers, at the boundary and around it. The search
// is INCOMPLETE exactly when its states (all bounds) exceed the budget.
func TestStateBudgetDoesNotDependOnWorkers(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "jmp-over")}
	full, err := Check(sc, Options{noOlderViews: true, Workers: 1})
	require.NoError(t, err)
	require.Equal(t, Safe, full.Verdict)
	total := full.States
	require.Greater(t, total, 1000)
	for _, n := range []int{1, 300, total / 2, total - 257, total - 1, total, total + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var got []*Result
			for _, w := range []int{1, 2, 3} {
				res, err := Check(sc, Options{noOlderViews: true, Workers: w, MaxStates: n})
				require.NoError(t, err)
				got = append(got, res)
			}
			// And workers that split their subtrees at every branching
			// point (share.go).
			res, err := Check(sc, Options{noOlderViews: true, Workers: 2, MaxStates: n, splitAlways: true})
			require.NoError(t, err)
			got = append(got, res)
			want := Safe
			if total > n {
				want = Incomplete
			}
			for i, res := range got {
				assert.Equal(t, want, res.Verdict, "workers %d", i+1)
				assert.Equal(t, got[0].Space.Coverage, res.Space.Coverage, "workers %d", i+1)
				assert.Equal(t, got[0].Space.BoundsDone, res.Space.BoundsDone, "workers %d", i+1)
				assert.Equal(t, got[0].Reason, res.Reason, "workers %d", i+1)
			}
			if want == Incomplete {
				assert.Contains(t, got[0].Reason, fmt.Sprintf("state budget of %d used up", n))
				assert.Contains(t, got[0].Space.Coverage, fmt.Sprintf("needs more than %d states", n))
			}
		})
	}
}
