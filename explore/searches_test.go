package explore_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// The typed searches take only their own settings; a zero one means the
// defaults. Here the exhaustive search with a state budget.
func ExampleExhaustiveSearch() {
	jmpOver, _ := patch.Lookup(kernel.ARM, "jmp-over")
	res, err := explore.ExhaustiveSearch{Budget: explore.Budget{MaxStates: 1_000_000}}.Check(explore.Scenario{Strategy: jmpOver})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, "at bound", res.Space.Bound)
	// Output:
	// SAFE at bound 2
}

// PCT finds the seed race too, but can never say SAFE.
func ExamplePCTSearch() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	res, err := explore.PCTSearch{Runs: 2000, Seed: 1, Workers: 1}.Check(explore.Scenario{Strategy: nopNop})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Hazard.Kind)
	// Output:
	// UNSAFE foreign-slot
}

func TestTypedSearchesAreTheirOptions(t *testing.T) {
	b := explore.Budget{MaxStates: 7, Timeout: 3, MaxMemory: 9}
	assert.Equal(t, explore.Options{Search: explore.Exhaustive, Bound: 3, MaxStates: 7, Timeout: 3, MaxMemory: 9, Workers: 2, Shard: explore.Shard{Index: 1, Count: 2}},
		explore.ExhaustiveSearch{Bound: 3, Budget: b, Workers: 2, Shard: explore.Shard{Index: 1, Count: 2}}.Options())
	assert.Equal(t, explore.Options{Search: explore.PCT, Runs: 5, Depth: 2, Seed: 4, MaxStates: 7, Timeout: 3, MaxMemory: 9},
		explore.PCTSearch{Runs: 5, Depth: 2, Seed: 4, Budget: b}.Options())
	assert.Equal(t, explore.Options{Search: explore.Random, Runs: 5, Seed: 4, MaxStates: 7, Timeout: 3, MaxMemory: 9},
		explore.RandomSearch{Runs: 5, Seed: 4, Budget: b}.Options())
}

// A zero ExhaustiveSearch searches at the default bound: it finds the
// seed race, which needs one preemption (issue 14, point 1, for the typed
// API), and NoPreemptions asks for bound 0, where the race is out of reach.
func TestZeroExhaustiveSearchIsTheDefaultBound(t *testing.T) {
	nopNop, ok := patch.Lookup(kernel.ARM, "nop-nop")
	require.True(t, ok)
	sc := explore.Scenario{Strategy: nopNop}
	res, err := explore.ExhaustiveSearch{}.Check(sc)
	require.NoError(t, err)
	assert.Equal(t, explore.Unsafe, res.Verdict)
	assert.Equal(t, 1, res.Preemptions)
	res, err = explore.ExhaustiveSearch{Bound: explore.NoPreemptions}.Check(sc)
	require.NoError(t, err)
	assert.Equal(t, explore.Safe, res.Verdict)
	assert.Equal(t, 0, res.Space.Bound)
}
